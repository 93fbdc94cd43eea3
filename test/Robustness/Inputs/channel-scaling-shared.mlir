// The normalized activation is also returned: scaling it would change that
// result, so SmoothQuant and AWQ leave 'fc' alone.
#id = affine_map<(d0, d1) -> (d0, d1)>
#last = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<16x8xf32>) -> (tensor<16x4xf32>, tensor<16x8xf32>) {
  %g = arith.constant dense<2.0> : tensor<8xf32>
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %init = arith.constant dense<0.0> : tensor<16x4xf32>
  %e = tensor.empty() : tensor<16x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %g : tensor<16x8xf32>, tensor<8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32> loc("norm")
  %y = linalg.matmul ins(%h, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%init : tensor<16x4xf32>) -> tensor<16x4xf32> loc("fc")
  return %y, %h : tensor<16x4xf32>, tensor<16x8xf32>
}
