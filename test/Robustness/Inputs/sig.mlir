// Two arguments, returned as they are (octet-run reads and writes them).
func.func @main(%x: tensor<2x3xf32>, %q: tensor<?xi8>) -> (tensor<2x3xf32>, tensor<?xi8>) {
  return %x, %q : tensor<2x3xf32>, tensor<?xi8>
}
