// One static quantizer (constant scale) on the argument, named "fc.input".
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8> loc("fc.input")
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}
