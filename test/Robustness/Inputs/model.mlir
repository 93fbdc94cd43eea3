// A float layer: a constant weight in a matmul, then ReLU.
func.func @layer(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[0.5, -1.0, 2.0], [0.25, 0.0, -3.0], [1.0, 1.5, 0.75], [-0.5, 2.5, 1.0]]> : tensor<4x3xf32>
  %z = arith.constant dense<0.0> : tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc")
  return %y : tensor<2x3xf32>
}
