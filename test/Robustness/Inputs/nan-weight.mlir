// A NaN in the weight (row 2, column 1) and a -inf (row 3, column 0).
func.func @nan(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 0x7FC00000, 9.0], [0xFF800000, 1.0, 1.0]]> : tensor<4x3xf32>
  %z = arith.constant dense<0.0> : tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc1")
  return %y : tensor<2x3xf32>
}
