// Parses, but does not verify: a per-tensor scheme needs a rank-0 scale.
func.func @f(%x: tensor<4xf32>) -> tensor<4xi8> {
  %q = octet.quantize %x scale(%x : tensor<4xf32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}
