octet-quantize{recipe=w8a8-dynamic}
func.func @layer(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %w = arith.constant dense<[[1.0, -2.0, 0.5, 0.25], [0.1, 0.2, 0.3, 0.4], [-1.0, 2.0, -0.5, -0.25], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [4.0, -4.0, 4.0, -4.0]]> : tensor<8x4xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
