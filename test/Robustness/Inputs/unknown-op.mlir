// An op the octet dialect does not have.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = octet.frobnicate %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
