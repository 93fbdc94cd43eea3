// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-select-lowering=strict=true

// With strict, a format the target does not accelerate is an error.
module attributes {octet.target = #octet.target<"sm_86">} {
func.func @fp8_on_sm86(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  // expected-error@+1 {{FP8 (e4m3 x e4m3) on sm_86: dequantized to f16, no tensor-core speedup; native on sm_89, sm_90a, sm_100a and sm_120a (strict)}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// What the target accelerates passes strict without a diagnostic, including
// the compensated VNNI form and weight-only.
module attributes {octet.target = #octet.target<"avx512-vnni">} {
func.func @int8_on_vnni(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %x16: tensor<16x64xf16>, %s: tensor<f32>, %init: tensor<16x32xf32>, %init16: tensor<16x32xf16>) -> (tensor<16x32xf32>, tensor<16x32xf16>) {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<64x32xi8> -> tensor<64x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  %w16 = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<64x32xi8> -> tensor<64x32xf16>
  %y16 = linalg.matmul ins(%x16, %w16 : tensor<16x64xf16>, tensor<64x32xf16>) outs(%init16 : tensor<16x32xf16>) -> tensor<16x32xf16>
  return %y, %y16 : tensor<16x32xf32>, tensor<16x32xf16>
}
}
