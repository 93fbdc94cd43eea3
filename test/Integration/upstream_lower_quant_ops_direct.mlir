// REQUIRES: oracles
// KNOWN BUG (fails today): octet-run cannot run the output of upstream's
// `mlir-opt --lower-quant-ops` as is. That output keeps element-wise arith ops
// on tensors (arith.divf / arith.fptosi on tensor<6xf32>) and a quant.scast
// pair; octet-run's host pipeline (octet-lower-to-host) has no
// convert-elementwise-to-linalg (nor a quant.scast cleanup), so
// one-shot-bufferize stops with "op was not bufferized" on arith.divf.
// Expected: the program runs and gives upstream's (wrong) answer
// [2, -17, 35, 25, -96, -16]. upstream_lower_quant_ops.mlir runs the same
// comparison with the missing passes applied by mlir-opt.

// RUN: %python -m npytool save %t.x.npy float32 0.26,-1.74,3.5,2.5,400,-1000
// RUN: mlir-opt --lower-quant-ops %s -o %t.upstream.mlir
// RUN: octet-run %t.upstream.mlir --entry main --input %t.x.npy --output %t.up.npy
// RUN: %python -m npytool print %t.up.npy | FileCheck %s
// CHECK: int8 [2, -17, 35, 25, -96, -16]

func.func @main(%x: tensor<6xf32>) -> tensor<6xi8> {
  %q = quant.qcast %x : tensor<6xf32> to tensor<6x!quant.uniform<i8:f32, 0.1>>
  %i = quant.scast %q : tensor<6x!quant.uniform<i8:f32, 0.1>> to tensor<6xi8>
  return %i : tensor<6xi8>
}
