// Weights GPTQ cannot take: a convolution filter (4-D) and a matmul whose
// activation has its reduction dimension first (x^T w), both observed.
func.func @conv(%x: tensor<1x8x8x32xf32>) -> tensor<1x6x6x8xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x32x8xf32>
  %init = arith.constant dense<0.0> : tensor<1x6x6x8xf32>
  %xo = octet.observe %x {name = "conv.input"} : tensor<1x8x8x32xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%xo, %w : tensor<1x8x8x32xf32>, tensor<3x3x32x8xf32>) outs(%init : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> loc("conv")
  return %y : tensor<1x6x6x8xf32>
}
func.func @xt(%x: tensor<8x16xf32>) -> tensor<16x4xf32> {
  %w = arith.constant dense<0.25> : tensor<8x4xf32>
  %init = arith.constant dense<0.0> : tensor<16x4xf32>
  %xo = octet.observe %x {name = "xt.input"} : tensor<8x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%xo, %w : tensor<8x16xf32>, tensor<8x4xf32>) outs(%init : tensor<16x4xf32>) -> tensor<16x4xf32> loc("xt")
  return %y : tensor<16x4xf32>
}
