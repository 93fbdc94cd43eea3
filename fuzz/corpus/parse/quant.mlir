func.func @q(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>
  %s = quant.scast %q : tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>> to tensor<2x3xi8>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}
