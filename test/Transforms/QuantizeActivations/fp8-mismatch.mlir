// RUN: octet-opt %s --octet-quantize-activations=format=f8E4M3FN -verify-diagnostics | FileCheck %s

// FP8 activations with FP8 weights are quantized...
// CHECK-LABEL: func.func @fp8
// CHECK: octet.compute_params %{{.*}} as <f8E4M3FN, per_axis(0)>
func.func @fp8(%x: tensor<4x64xf32>, %wq: tensor<64x8xf8E4M3FN>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <f8E4M3FN, per_axis(1)> : tensor<64x8xf8E4M3FN> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// ...with INT8 weights they stay float and a remark says why.
// CHECK-LABEL: func.func @mismatch
// CHECK-NOT: octet.compute_params
func.func @mismatch(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  // expected-remark @+1 {{activation format 'f8E4M3FN' does not match the weight format 'i8'; activation left in float}}
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
