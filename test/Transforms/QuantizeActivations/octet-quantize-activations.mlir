// RUN: octet-opt %s --octet-quantize-activations --split-input-file | FileCheck %s
// RUN: octet-opt %s --octet-quantize-activations=granularity=per-tensor --split-input-file | FileCheck %s --check-prefix=TENSOR
// RUN: octet-opt %s --octet-quantize-activations="format=u8 symmetric=false" --split-input-file | FileCheck %s --check-prefix=ASYM

// Dynamic per-token INT8: compute_params per row, quantize, dequantize,
// feeding the contraction whose weight is quantized.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>,
// CHECK: %[[S:.*]] = octet.compute_params %[[X]] as <i8, per_axis(0)> : tensor<4x64xf32> -> tensor<4xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[S]] : tensor<4xf32>) as <i8, per_axis(0)>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[S]] : tensor<4xf32>) as <i8, per_axis(0)>
// CHECK: linalg.matmul ins(%[[D]], %{{.*}} :
// TENSOR-LABEL: func.func @rows
// TENSOR: octet.compute_params %{{.*}} as <i8> : tensor<4x64xf32> -> tensor<f32>
// ASYM-LABEL: func.func @rows
// ASYM: %{{.*}}, %{{.*}} = octet.compute_params %{{.*}} as <u8, per_axis(0), asymmetric> : tensor<4x64xf32> -> tensor<4xf32>, tensor<4xi32>
func.func @rows(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Batched activations: one scale per (batch, row) = a group over all of K.
// CHECK-LABEL: func.func @batched
// CHECK: octet.compute_params %{{.*}} as <i8, per_group(2, 16)> : tensor<2x4x16xf32> -> tensor<2x4x1xf32>
func.func @batched(%x: tensor<2x4x16xf32>, %wq: tensor<2x16x8xi8>, %sw: tensor<f32>) -> tensor<2x4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<f32>) as <i8> : tensor<2x16x8xi8> -> tensor<2x16x8xf32>
  %init = arith.constant dense<0.0> : tensor<2x4x8xf32>
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%init : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// A float weight: nothing to pair with, left alone.
// CHECK-LABEL: func.func @float_weight
// CHECK-NOT: octet.
func.func @float_weight(%x: tensor<4x64xf32>, %w: tensor<64x8xf32>) -> tensor<4x8xf32> {
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
