// Output channel 0 of the weight is all zeros, channel 2 a constant.
func.func @zero(%x: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[0.0, 2.0, 0.5], [0.0, -2.0, 0.5]]> : tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc")
  return %y : tensor<2x3xf32>
}
