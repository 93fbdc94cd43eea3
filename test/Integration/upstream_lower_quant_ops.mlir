// REQUIRES: oracles
// Keeps the comparison with upstream honest: the same quant.qcast program,
// lowered by upstream's --lower-quant-ops, truncates (0.26 / 0.1 -> 2) and
// wraps around (400 -> -96, -1000 -> -16: fptosi of an out-of-range value),
// while octet (--octet-import-quant, then octet's lowering) rounds half to
// even and saturates. The expected values are DESIGN.md's.
//
// --lower-quant-ops leaves arith ops on tensors and a quant.scast pair that
// octet-run's host pipeline does not lower (see
// upstream_lower_quant_ops_direct.mlir), so canonicalize (folds the scast
// pair) and convert-elementwise-to-linalg run here first.

// RUN: %python -m npytool save %t.x.npy float32 0.26,-1.74,3.5,2.5,400,-1000

// RUN: mlir-opt --lower-quant-ops --canonicalize --convert-elementwise-to-linalg %s -o %t.upstream.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.upstream.mlir
// LOWERED: arith.divf
// LOWERED: arith.fptosi
// RUN: octet-run %t.upstream.mlir --entry main --input %t.x.npy --output %t.up.npy
// RUN: %python -m npytool print %t.up.npy | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: int8 [2, -17, 35, 25, -96, -16]
// The oracle disagrees with upstream:
// RUN: not %python -m npytool check-quantize %t.x.npy %t.up.npy --scheme i8 --scale 0.1

// RUN: octet-opt --octet-import-quant %s -o %t.octet.mlir
// RUN: FileCheck %s --check-prefix=IMPORTED < %t.octet.mlir
// IMPORTED: octet.quantize %{{.*}} as <i8> : tensor<6xf32> -> tensor<6xi8>
// RUN: octet-run %t.octet.mlir --entry main --input %t.x.npy --output %t.oct.npy
// RUN: %python -m npytool print %t.oct.npy | FileCheck %s --check-prefix=OCTET
// OCTET: int8 [3, -17, 35, 25, 127, -128]
// RUN: %python -m npytool check-quantize %t.x.npy %t.oct.npy --scheme i8 --scale 0.1

func.func @main(%x: tensor<6xf32>) -> tensor<6xi8> {
  %q = quant.qcast %x : tensor<6xf32> to tensor<6x!quant.uniform<i8:f32, 0.1>>
  %i = quant.scast %q : tensor<6x!quant.uniform<i8:f32, 0.1>> to tensor<6xi8>
  return %i : tensor<6xi8>
}
