octet-fold-scales
func.func @mm(%a: tensor<4x8xi8>, %sa: tensor<f32>, %b: tensor<8x16xi8>, %sb: tensor<16xf32>) -> tensor<4x16xf32> {
  %da = octet.dequantize %a scale(%sa : tensor<f32>) as <i8> : tensor<4x8xi8> -> tensor<4x8xf32>
  %db = octet.dequantize %b scale(%sb : tensor<16xf32>) as <i8, per_axis(1)> : tensor<8x16xi8> -> tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%da, %db : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
