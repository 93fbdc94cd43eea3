func.func @ops(%x: tensor<4x8xf32>, %s: tensor<4xf32>, %z: tensor<4xi32>,
               %w: tensor<8x16xi8>, %sw: tensor<16xf32>) -> tensor<4x16xf32> {
  %q = octet.quantize %x scale(%s : tensor<4xf32>) zero_point(%z : tensor<4xi32>) as <u8, per_axis(0), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %d = octet.dequantize %q scale(%s : tensor<4xf32>) zero_point(%z : tensor<4xi32>) as <u8, per_axis(0), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  %p = octet.compute_params %d as <i8<-127:127>, per_axis(0)> : tensor<4x8xf32> -> tensor<4xf32>
  %r = octet.requantize %q scale(%s : tensor<4xf32>) zero_point(%z : tensor<4xi32>) as <u8, per_axis(0), asymmetric> to scale(%p : tensor<4xf32>) as <i8<-127:127>, per_axis(0)> : tensor<4x8xi8> -> tensor<4x8xi8>
  %o = octet.observe %d {name = "act"} : tensor<4x8xf32>
  %y = octet.matmul %r, %w lhs_scale(%p : tensor<4xf32>) lhs_scheme <i8<-127:127>, per_axis(0)> rhs_scale(%sw : tensor<16xf32>) rhs_scheme <i8, per_axis(1)> relu : tensor<4x8xi8>, tensor<8x16xi8> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
