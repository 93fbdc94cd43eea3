// Only a private declaration: nothing to export.
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
