// An observed activation whose last dimension is dynamic: a batch may
// bring a different channel count than the one before.
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %xo = octet.observe %x {name = "dyn.input"} : tensor<?x?xf32>
  return %xo : tensor<?x?xf32>
}
