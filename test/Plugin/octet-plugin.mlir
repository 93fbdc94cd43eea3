// The octet plugin in Debian's stock mlir-opt (LLVM 22, linked against the
// shared libMLIR.so, like the plugin). Octet passes are named in
// --pass-pipeline: plugins load while the command line is parsed, after the
// per-pass flags (--octet-import-quant) have been collected.
//
// The pass plugin alone: octet-import-quant loads the octet dialect itself.
// RUN: mlir-opt %s --load-pass-plugin=%octet_plugin \
// RUN:   --pass-pipeline='builtin.module(octet-import-quant)' \
// RUN:   | FileCheck %s --check-prefix=IMPORT
//
// The dialect plugin alone parses and prints octet IR (the imported module).
// RUN: mlir-opt %s --load-pass-plugin=%octet_plugin \
// RUN:   --pass-pipeline='builtin.module(octet-import-quant)' \
// RUN:   | mlir-opt --load-dialect-plugin=%octet_plugin \
// RUN:   | FileCheck %s --check-prefix=IMPORT
//
// Both plugins: octet -> linalg, and the whole host pipeline.
// RUN: mlir-opt %s --load-dialect-plugin=%octet_plugin \
// RUN:   --load-pass-plugin=%octet_plugin \
// RUN:   --pass-pipeline='builtin.module(octet-import-quant,convert-octet-to-linalg)' \
// RUN:   | FileCheck %s --check-prefix=LINALG
// RUN: mlir-opt %s --load-dialect-plugin=%octet_plugin \
// RUN:   --load-pass-plugin=%octet_plugin \
// RUN:   --pass-pipeline='builtin.module(octet-import-quant,octet-lower-to-host)' \
// RUN:   > %t.plugin.mlir
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t.plugin.mlir
//
// It is the same code as octet-opt: the same output, op for op. (The
// constant globals are put in a canonical order first: upstream
// one-shot-bufferize names and orders the module's memref.globals
// differently from run to run; see docs/robustness.md.)
// RUN: octet-opt %s --octet-import-quant --octet-lower-to-host > %t.octet-opt.mlir
// RUN: %python %octet_src/test/Robustness/Inputs/canonical_globals.py < %t.plugin.mlir > %t.plugin.sorted
// RUN: %python %octet_src/test/Robustness/Inputs/canonical_globals.py < %t.octet-opt.mlir > %t.octet-opt.sorted
// RUN: diff %t.plugin.sorted %t.octet-opt.sorted

// IMPORT-LABEL: func.func @qdq
// IMPORT-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// IMPORT-DAG: %[[S:.*]] = arith.constant dense<[5.000000e-01, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// IMPORT-DAG: %[[Z:.*]] = arith.constant dense<[3, 4, 5]> : tensor<3xi32>
// IMPORT: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[S]] : tensor<3xf32>) zero_point(%[[Z]] : tensor<3xi32>) as <u8, per_axis(1), asymmetric> : tensor<2x3xf32> -> tensor<2x3xi8>
// IMPORT: %[[D:.*]] = octet.dequantize %[[Q]] scale(%{{.*}} : tensor<3xf32>) zero_point(%{{.*}} : tensor<3xi32>) as <u8, per_axis(1), asymmetric> : tensor<2x3xi8> -> tensor<2x3xf32>
// IMPORT: return %[[D]]

// LINALG-LABEL: func.func @qdq
// LINALG-NOT: octet.
// LINALG: linalg.generic
// LINALG: math.roundeven
// LINALG: linalg.generic

// HOST-NOT: octet.
// HOST-NOT: func.func
// HOST: llvm.func @qdq(
// HOST: llvm.intr.roundeven
func.func @qdq(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32:1, {0.5:3, 1.0:4, 2.0:5}>>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32:1, {0.5:3, 1.0:4, 2.0:5}>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// IMPORT-LABEL: func.func @group
// IMPORT: octet.quantize %{{.*}} as <i4, per_group(1, 4)> : tensor<2x8xf32> -> tensor<2x8xi4>
// LINALG-LABEL: func.func @group
// LINALG: tensor.expand_shape
// LINALG: linalg.generic
// HOST: llvm.func @group(
func.func @group(%x: tensor<2x8xf32>) -> tensor<2x8xi4> {
  %q = quant.qcast %x : tensor<2x8xf32> to tensor<2x8x!quant.uniform<i4:f32:{0:1, 1:4}, {{0.5, 0.25}, {1.0, 2.0}}>>
  %s = quant.scast %q : tensor<2x8x!quant.uniform<i4:f32:{0:1, 1:4}, {{0.5, 0.25}, {1.0, 2.0}}>> to tensor<2x8xi4>
  return %s : tensor<2x8xi4>
}
