// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-quantize-weights="format=f8E4M3FN granularity=per-group group-size=4 channel-block=2"

// channel-block needs a 2-D weight: a batched weight is an error at the
// contraction, naming the layer.
func.func @batched_weight(%x: tensor<2x3x8xf32>, %o: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %w = arith.constant dense<1.0> : tensor<2x8x4xf32>
  // expected-error-re @+1 {{octet-quantize-weights: channel-block=2 needs a 2-D weight (output channels x K); the weight of '{{.*}}' has rank 3}}
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x3x8xf32>, tensor<2x8x4xf32>) outs(%o : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}
