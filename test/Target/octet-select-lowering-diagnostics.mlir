// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-select-lowering

// A format the chip does not multiply natively: a warning that names the
// cost and where the format is native.
module attributes {octet.target = #octet.target<"sm_80">} {
func.func @fp8_on_sm80(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  // expected-warning@+1 {{FP8 (e4m3 x e4m3) on sm_80: dequantized to f16, no tensor-core speedup; native on sm_89, sm_90a, sm_100a and sm_120a}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// On CPUs the cost is the f32 FMA rate; no x86 level multiplies FP8,
// avx512-bf16 and amx-int8 take it as exact bf16 (vdpbf16ps pairs; AMX-BF16
// tiles): no warning there (octet-select-lowering.mlir).
module attributes {octet.target = #octet.target<"avx512-vnni">} {
func.func @fp8_on_vnni(%xq: tensor<16x64xf8E5M2>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E5M2> : tensor<16x64xf8E5M2> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  // expected-warning@+1 {{FP8 (e5m2 x e4m3) on avx512-vnni: dequantized to f32, no speedup over f32 FMA; no x86 target multiplies e5m2 x e4m3 natively; as exact bf16 values on avx512-bf16 (vdpbf16ps zmm) and amx-int8 (tdpbf16ps)}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

module attributes {octet.target = #octet.target<"i8mm">} {
func.func @fp8_on_arm(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  // expected-warning@+1 {{FP8 (e4m3 x e4m3) on i8mm: dequantized to f32, no speedup over f32 FMA; no aarch64 target multiplies e4m3 x e4m3 natively}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// Mixed INT8 x FP8 is native nowhere.
module attributes {octet.target = #octet.target<"sm_89">} {
func.func @int8_x_fp8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  // expected-warning@+1 {{INT8/FP8 (s8 x e4m3) on sm_89: dequantized to f16, no tensor-core speedup; no cuda target multiplies s8 x e4m3 natively}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// Weight-only on a GPU: no warning whatever the activations' type (f32
// here, bf16 on sm_75 below). convert-octet-to-gpu runs every weight-only
// product on its gemv kernel (codes decoded to f32, f32 FMA), so f16
// activations would not run any faster; -verify-diagnostics fails on any
// warning these emit.
module attributes {octet.target = #octet.target<"sm_90a">} {
func.func @w8a16_f32_on_gpu(%x: tensor<16x64xf32>, %wq: tensor<64x32xi8>, %s: tensor<32xf32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %w = octet.dequantize %wq scale(%s : tensor<32xf32>) as <i8, per_axis(1)> : tensor<64x32xi8> -> tensor<64x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// bf16 on sm_75 (no bf16 tensor-core MMA): the same gemv kernel.
module attributes {octet.target = #octet.target<"sm_75">} {
func.func @w4a16_bf16_on_sm75(%x: tensor<16x64xbf16>, %wq: tensor<64x32xi4>, %s: tensor<2x32xf32>, %init: tensor<16x32xbf16>) -> tensor<16x32xbf16> {
  %w = octet.dequantize %wq scale(%s : tensor<2x32xf32>) as <i4, per_group(0, 32)> : tensor<64x32xi4> -> tensor<64x32xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xbf16>, tensor<64x32xbf16>) outs(%init : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}
}

// -----

// expected-error@+1 {{octet-select-lowering needs the module's #octet.target; run --octet-set-target first}}
module {
func.func @no_target(%q: tensor<8xi8>, %s: tensor<f32>) -> tensor<8xf32> {
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xf32>
  return %d : tensor<8xf32>
}
}

// -----

// MXFP8 x MXFP8 (E8M0 scales per 32 along K) on Hopper: no block-scaled
// MMA there; native on Blackwell.
module attributes {octet.target = #octet.target<"sm_90a">} {
func.func @mxfp8_on_sm90a(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %sa: tensor<16x2xf32>, %sb: tensor<2x32xf32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%sa : tensor<16x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%sb : tensor<2x32xf32>) as <f8E4M3FN, per_group(0, 32), e8m0> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  // expected-warning@+1 {{MX FP8 (e4m3 x e4m3, E8M0 scales per block of 32) on sm_90a: dequantized to f16, no tensor-core speedup; native on sm_100a and sm_120a}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}
