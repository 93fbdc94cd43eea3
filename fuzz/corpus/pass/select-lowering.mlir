octet-set-target{target=sm_80},octet-select-lowering
func.func @mm(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<32x16xf8E4M3FN>, %sb: tensor<16xf32>) -> tensor<4x16xf32> {
  %y = octet.matmul %a, %b lhs_scale(%sa : tensor<f32>) lhs_scheme <f8E4M3FN> rhs_scale(%sb : tensor<16xf32>) rhs_scheme <f8E4M3FN, per_axis(1)> : tensor<4x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
