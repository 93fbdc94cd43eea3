// A storage format octet does not have.
func.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i7> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}
