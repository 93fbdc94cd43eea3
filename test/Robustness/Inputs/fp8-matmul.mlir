// An FP8 x FP8 matmul: native on sm_89 and later, emulated on sm_80.
func.func @fp8(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32> loc("fc")
  return %y : tensor<16x32xf32>
}
