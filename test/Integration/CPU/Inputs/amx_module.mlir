module attributes {octet.target = #octet.target<"amx-int8">} {
func.func @main(%x: tensor<?x256xi8>) -> tensor<?x64xf32> {
  %w = arith.constant dense<5> : tensor<256x64xi8>
  %sx = arith.constant dense<0.5> : tensor<f32>
  %sw = arith.constant dense<0.25> : tensor<64xf32>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<64xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x256xi8>, tensor<256x64xi8> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
}
