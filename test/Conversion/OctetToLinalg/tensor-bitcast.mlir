// RUN: octet-opt %s --split-input-file --convert-octet-to-linalg | FileCheck %s

// tensor.bitcast, which One-Shot Bufferize cannot take: of a constant, the
// constant of the new type with the same bytes (56, 64, 72, 0 are E4M3's
// 1, 2, 4, 0); otherwise the element-wise arith.bitcast.

// CHECK-LABEL: func.func @bitcasts
// CHECK-DAG: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 4.000000e+00, 0.000000e+00]> : tensor<4xf8E4M3FN>
// CHECK-DAG: %[[B:.*]] = arith.bitcast %{{.*}} : tensor<4xi32> to tensor<4xf32>
// CHECK-NOT: tensor.bitcast
// CHECK: return %[[C]], %[[B]]
func.func @bitcasts(%x: tensor<4xi32>) -> (tensor<4xf8E4M3FN>, tensor<4xf32>) {
  %c = arith.constant dense<[56, 64, 72, 0]> : tensor<4xi8>
  %w = tensor.bitcast %c : tensor<4xi8> to tensor<4xf8E4M3FN>
  %f = tensor.bitcast %x : tensor<4xi32> to tensor<4xf32>
  return %w, %f : tensor<4xf8E4M3FN>, tensor<4xf32>
}

// -----

// arith.extf of an FP8 constant to f32: the f32 constant of
// numerics::decodeFp8, also for E5M2's signaling NaN codes (125: 0x7D),
// which MLIR's folder leaves alone.

// CHECK-LABEL: func.func @extend_constant
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, -2.000000e+00, 0x7F{{[0-9A-F]+}}, 0x7F800000]> : tensor<4xf32>
// CHECK-NOT: arith.extf
// CHECK: return %[[C]]
func.func @extend_constant() -> tensor<4xf32> {
  %c = arith.constant dense<[60, -64, 125, 124]> : tensor<4xi8>
  %w = tensor.bitcast %c : tensor<4xi8> to tensor<4xf8E5M2>
  %f = arith.extf %w : tensor<4xf8E5M2> to tensor<4xf32>
  return %f : tensor<4xf32>
}
