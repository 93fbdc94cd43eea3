// An observed activation whose last dimension is too wide for a second
// moment (20000 x 20000 float64 would be 3.2 GB).
func.func @main(%x: tensor<1x20000xf32>) -> tensor<1x20000xf32> {
  %xo = octet.observe %x {name = "wide.input"} : tensor<1x20000xf32>
  return %xo : tensor<1x20000xf32>
}
