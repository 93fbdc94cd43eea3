// One layer with a float weight; octet-instrument{all=true} observes its
// input ('fc.input').
func.func @main(%x: tensor<16x8xf32>) -> tensor<16x4xf32> {
  %w = arith.constant dense<[[0.5, -1.0, 0.25, 2.0], [1.5, 0.75, -0.5, 1.0],
                             [-2.0, 0.5, 1.0, -0.25], [0.125, -0.75, 2.5, 0.5],
                             [1.0, 1.0, -1.5, 0.25], [-0.5, 2.0, 0.5, -1.0],
                             [0.25, -0.25, 0.75, 1.5], [2.0, -1.5, -0.5, 0.5]]> : tensor<8x4xf32>
  %init = arith.constant dense<0.0> : tensor<16x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%init : tensor<16x4xf32>) -> tensor<16x4xf32> loc("fc")
  return %y : tensor<16x4xf32>
}
