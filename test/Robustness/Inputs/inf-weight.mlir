// +inf in the weight (row 0, column 2).
func.func @inf(%x: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 0x7F800000], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc2")
  return %y : tensor<2x3xf32>
}
