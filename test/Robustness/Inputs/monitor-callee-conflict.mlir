// octet_monitor_quantize declared with another type than the runtime's.
func.func private @octet_monitor_quantize(i32)
func.func @main(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}
