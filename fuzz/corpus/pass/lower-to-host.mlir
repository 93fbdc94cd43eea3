octet-lower-to-host
func.func @q(%x: tensor<?x16xf32>, %s: tensor<2xf32>) -> tensor<?x16xf32> {
  %p = octet.compute_params %x as <u4, per_axis(0), asymmetric> : tensor<?x16xf32> -> tensor<?xf32>, tensor<?xi32>
  %q = octet.quantize %x scale(%p#0 : tensor<?xf32>) zero_point(%p#1 : tensor<?xi32>) as <u4, per_axis(0), asymmetric> : tensor<?x16xf32> -> tensor<?x16xi4>
  %d = octet.dequantize %q scale(%p#0 : tensor<?xf32>) zero_point(%p#1 : tensor<?xi32>) as <u4, per_axis(0), asymmetric> : tensor<?x16xi4> -> tensor<?x16xf32>
  return %d : tensor<?x16xf32>
}
