// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-quantize-weights="granularity=per-group group-size=4"

// A group size that does not divide the reduction dimension (K = 6).
func.func @group_does_not_divide(%x: tensor<2x6xf32>, %o: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<1.0> : tensor<6x3xf32>
  // expected-error-re @+1 {{group-size 4 does not divide the reduction dimension (dimension 0, size 6) of the weight of '{{.*}}:7:8'}}
  %y = linalg.matmul ins(%x, %w : tensor<2x6xf32>, tensor<6x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A NaN weight: an error naming the layer and the first bad index.
func.func @nan_weight(%x: tensor<2x4xf32>, %o: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 0x7FC00000, 9.0], [1.0, 0x7F800000, 1.0]]> : tensor<4x3xf32>
  // expected-error-re @+1 {{weight of '{{.*}}:17:8' has a non-finite value (nan) at index [2, 1] (nonfinite=clip makes this a warning)}}
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// An infinite weight.
func.func @inf_weight(%x: tensor<2x4xf32>, %o: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 0xFF800000], [7.0, 8.0, 9.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  // expected-error-re @+1 {{weight of '{{.*}}' has a non-finite value (-inf) at index [1, 2]}}
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
