// RMSNorm-like scaling of x by a constant g (the fold target of 'fc'), and
// a layer 'raw' on the function argument itself (no fold target). With
// octet-instrument{all=true}: observers 'fc.input' and 'raw.input'.
#id = affine_map<(d0, d1) -> (d0, d1)>
#last = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<16x8xf32>) -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %g = arith.constant dense<[1.0, 0.5, 2.0, 1.5, 0.75, 1.25, 1.0, 0.5]> : tensor<8xf32>
  %w = arith.constant dense<[[0.5, -1.0, 0.25, 2.0], [1.5, 0.75, -0.5, 1.0],
                             [-2.0, 0.5, 1.0, -0.25], [0.125, -0.75, 2.5, 0.5],
                             [1.0, 1.0, -1.5, 0.25], [-0.5, 2.0, 0.5, -1.0],
                             [0.25, -0.25, 0.75, 1.5], [2.0, -1.5, -0.5, 0.5]]> : tensor<8x4xf32>
  %init = arith.constant dense<0.0> : tensor<16x4xf32>
  %e = tensor.empty() : tensor<16x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %g : tensor<16x8xf32>, tensor<8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32> loc("norm")
  %y = linalg.matmul ins(%h, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%init : tensor<16x4xf32>) -> tensor<16x4xf32> loc("fc")
  %z = linalg.matmul ins(%x, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%init : tensor<16x4xf32>) -> tensor<16x4xf32> loc("raw")
  return %y, %z : tensor<16x4xf32>, tensor<16x4xf32>
}
