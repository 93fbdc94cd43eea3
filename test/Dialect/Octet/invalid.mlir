// RUN: octet-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the scheme attribute and the ops.

// expected-error @+1 {{unknown storage format 'i16'; expected one of i8, u8, i4, u4, f8E4M3FN, f8E5M2, f4E2M1FN, nf4}}
func.func @unknown_format() attributes {s = #octet.scheme<i16>} { return }

// -----

// expected-error @+1 {{unknown scheme keyword 'per_row'}}
func.func @unknown_keyword() attributes {s = #octet.scheme<i8, per_row>} { return }

// -----

// expected-error @+1 {{the granularity is given twice}}
func.func @twice() attributes {s = #octet.scheme<i8, per_axis(0), per_tensor>} { return }

// -----

// expected-error @+1 {{FP8 schemes are symmetric; 'f8E4M3FN' cannot be asymmetric}}
func.func @fp8_asymmetric() attributes {s = #octet.scheme<f8E4M3FN, asymmetric>} { return }

// -----

// expected-error @+1 {{'non_saturating' applies to FP8 formats only, not 'i8'}}
func.func @int_non_saturating() attributes {s = #octet.scheme<i8, non_saturating>} { return }

// -----

// expected-error @+1 {{FP4 schemes are symmetric; 'f4E2M1FN' cannot be asymmetric}}
func.func @fp4_asymmetric() attributes {s = #octet.scheme<f4E2M1FN, asymmetric>} { return }

// -----

// expected-error @+1 {{f4E2M1FN has no infinity or NaN: its conversion always saturates ('non_saturating' does not apply)}}
func.func @fp4_non_saturating() attributes {s = #octet.scheme<f4E2M1FN, non_saturating>} { return }

// -----

func.func @fp4_zero_point(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xf4E2M1FN> {
  // expected-error @+1 {{'octet.quantize' op FP4 schemes take no zero point, but one is given}}
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <f4E2M1FN> : tensor<4xf32> -> tensor<4xf4E2M1FN>
  return %q : tensor<4xf4E2M1FN>
}

// -----

func.func @fp4_storage_type(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi4> {
  // expected-error @+1 {{'octet.quantize' op result element type 'i4' does not match the scheme's storage format 'f4E2M1FN' (expected 'f4E2M1FN')}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f4E2M1FN> : tensor<4xf32> -> tensor<4xi4>
  return %q : tensor<4xi4>
}

// -----

// An integer lhs with FP4 weights (FP4 pairs with FP8 or FP4 only).
func.func @fp4_integer_lhs(%a: tensor<4x64xi8>, %w: tensor<64x8xf4E2M1FN>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs 'i8' and rhs 'f4E2M1FN' must both be integer or both float codes (FP8 / FP4)}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <f4E2M1FN> : tensor<4x64xi8>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{code range [-127, 200] is not a non-empty sub-range of 'i8' [-128, 127]}}
func.func @bad_range() attributes {s = #octet.scheme<i8<-127:200>>} { return }

// -----

// expected-error @+1 {{axis must be non-negative, got -1}}
func.func @negative_axis() attributes {s = #octet.scheme<i8, per_axis(-1)>} { return }

// -----

// expected-error @+1 {{group size must be positive, got 0}}
func.func @zero_group() attributes {s = #octet.scheme<i4, per_group(1, 0)>} { return }

// -----

func.func @axis_out_of_range(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.quantize' op axis 2 is out of range for a rank-2 tensor}}
  %q = octet.quantize %x scale(%s : tensor<8xf32>) as <i8, per_axis(2)> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

func.func @group_does_not_divide(%x: tensor<4x48xf32>, %s: tensor<4x1xf32>) -> tensor<4x48xi4> {
  // expected-error @+1 {{'octet.quantize' op group size 32 does not divide dimension 1 of size 48}}
  %q = octet.quantize %x scale(%s : tensor<4x1xf32>) as <i4, per_group(1, 32)> : tensor<4x48xf32> -> tensor<4x48xi4>
  return %q : tensor<4x48xi4>
}

// -----

func.func @scale_shape(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.quantize' op scale of type 'tensor<4xf32>' does not match the per_axis(1) granularity; expected tensor<8xf32>}}
  %q = octet.quantize %x scale(%s : tensor<4xf32>) as <i8, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

func.func @scale_not_scalar(%x: tensor<4x8xf32>, %s: tensor<1xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{does not match the per_tensor granularity; expected tensor<f32>}}
  %q = octet.quantize %x scale(%s : tensor<1xf32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

func.func @zero_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = arith.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{'octet.quantize' op scale must be positive and finite, got 0}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @fp8_zero_point(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'octet.quantize' op FP8 schemes take no zero point, but one is given}}
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <f8E4M3FN> : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return %q : tensor<4xf8E4M3FN>
}

// -----

func.func @symmetric_with_zero_point(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  // expected-error @+1 {{'octet.quantize' op a zero point is given for a symmetric scheme; use 'asymmetric' or drop the zero point}}
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @asymmetric_without_zero_point(%q: tensor<4xi8>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'octet.dequantize' op the asymmetric scheme requires a zero point}}
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <u8, asymmetric> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @zero_point_shape(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %z: tensor<4xi32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.quantize' op zero point of type 'tensor<4xi32>' must have the scale's shape; expected tensor<8xi32>}}
  %q = octet.quantize %x scale(%s : tensor<8xf32>) zero_point(%z : tensor<4xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

func.func @zero_point_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xi8> {
  // expected-error @+1 {{operand #2 must be ranked tensor of 32-bit signless integer values}}
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i8>) as <u8, asymmetric> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @zero_point_range(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  %z = arith.constant dense<300> : tensor<i32>
  // expected-error @+1 {{'octet.quantize' op zero point 300 is outside the code range [0, 255] of 'u8'}}
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @storage_type(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  // expected-error @+1 {{'octet.quantize' op result element type 'i8' does not match the scheme's storage format 'i4' (expected 'i4')}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i4> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @fp8_storage_type(%q: tensor<4xf8E5M2>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'octet.dequantize' op input element type 'f8E5M2' does not match the scheme's storage format 'f8E4M3FN' (expected 'f8E4M3FN')}}
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<4xf8E5M2> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @storage_not_supported(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi16> {
  // expected-error @+1 {{result #0 must be ranked tensor of 8-bit signless integer or 4-bit signless integer or f8E4M3FN type or f8E5M2 type or f4E2M1FN type values}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi16>
  return %q : tensor<4xi16>
}

// -----

func.func @shape_mismatch(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<5xi8> {
  // expected-error @+1 {{'octet.quantize' op float and storage shapes differ: 'tensor<4xf32>' vs 'tensor<5xi8>'}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<5xi8>
  return %q : tensor<5xi8>
}

// -----

func.func @requantize_shapes(%q: tensor<4xi8>, %s: tensor<f32>) -> tensor<5xi8> {
  // expected-error @+1 {{'octet.requantize' op input and result shapes differ: 'tensor<4xi8>' vs 'tensor<5xi8>'}}
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<5xi8>
  return %r : tensor<5xi8>
}

// -----

func.func @requantize_output_params(%q: tensor<4x8xi8>, %s: tensor<f32>, %s4: tensor<4xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.requantize' op output scale of type 'tensor<4xf32>' does not match the per_axis(1) granularity; expected tensor<8xf32>}}
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s4 : tensor<4xf32>) as <i8, per_axis(1)> : tensor<4x8xi8> -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

func.func @matmul_k_mismatch(%a: tensor<4x64xi8>, %w: tensor<32x8xi8>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op reduction dimensions differ: lhs 'tensor<4x64xi8>' vs rhs 'tensor<32x8xi8>'}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xi8>, tensor<32x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_rank(%a: tensor<64xi8>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs must be M x K or B x M x K, got 'tensor<64xi8>'}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<64xi8>, tensor<64x8xi8> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @matmul_result_shape(%a: tensor<4x64xi8>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'octet.matmul' op result type 'tensor<4x9xf32>' does not match the product shape 'tensor<4x8xf32>'}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}

// -----

func.func @matmul_lhs_scale_along_k(%a: tensor<4x64xi8>, %w: tensor<64x8xi8>, %sa: tensor<64xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs scale per_axis(1) cannot be factored out of the sum over K; use per_tensor, per_axis(0) (one scale per row), per_group(1, K) (one scale per token, batches included) or per_group(1, G) with the rhs scale per_group(0, G) (block-wise scales on both operands)}}
  %y = octet.matmul %a, %w lhs_scale(%sa : tensor<64xf32>) lhs_scheme <i8, per_axis(1)> rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Block-wise lhs groups must be the rhs's groups along K.
func.func @matmul_lhs_groups_not_rhs(%a: tensor<4x64xf8E4M3FN>, %w: tensor<64x8xf8E4M3FN>, %sa: tensor<4x4xf32>, %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs scale per_group(1, 16) cannot be factored out of the sum over K}}
  %y = octet.matmul %a, %w lhs_scale(%sa : tensor<4x4xf32>) lhs_scheme <f8E4M3FN, per_group(1, 16)> rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32)> : tensor<4x64xf8E4M3FN>, tensor<64x8xf8E4M3FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_rhs_scale_along_k(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %sw: tensor<64xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op rhs scale per_axis(0) is not supported; use per_tensor, per_axis(1) (per output channel) or per_group(0, size) (groups along K)}}
  %y = octet.matmul %a, %w rhs_scale(%sw : tensor<64xf32>) rhs_scheme <i8, per_axis(0)> : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_int_fp8(%a: tensor<4x64xi8>, %w: tensor<64x8xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs 'i8' and rhs 'f8E4M3FN' must both be integer or both float codes (FP8 / FP4)}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <f8E4M3FN> : tensor<4x64xi8>, tensor<64x8xf8E4M3FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_storage_lhs_without_scheme(%a: tensor<4x64xi8>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs of element type 'i8' needs lhs_scale and lhs_scheme (a float lhs is f32, f16 or bf16)}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_lhs_params_without_scheme(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op lhs parameters are given without an lhs_scheme}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_missing_lhs_scale(%a: tensor<4x64xi8>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op a quantized lhs needs lhs_scale}}
  %y = octet.matmul %a, %w lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_overflow(%a: tensor<4x70000xi8>, %w: tensor<70000x8xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op K = 70000 can overflow the i32 accumulator (|a| * |b| up to 32640 per term)}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_zero_point(%z : tensor<i32>) lhs_scheme <u8, asymmetric> rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x70000xi8>, tensor<70000x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_bias(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<f32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op bias of type 'tensor<4xf32>' must be tensor<8xf32> (one value per output column)}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> bias(%b : tensor<4xf32>) : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_int_result(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.matmul' op result element type 'i8' needs out_scale and out_scheme (a float result is f32, f16 or bf16)}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

func.func @matmul_out_params_without_scheme(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op output parameters are given without an out_scheme}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> out_scale(%s : tensor<f32>) : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @matmul_missing_out_scale(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<f32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.matmul' op a quantized result needs out_scale}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> out_scheme <i8> : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

func.func @matmul_out_granularity(%a: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<f32>, %so: tensor<4xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.matmul' op output scale per_axis(0) is not supported; use per_tensor or per_axis(1)}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> out_scale(%so : tensor<4xf32>) out_scheme <i8, per_axis(0)> : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x64xf32>, %w: tensor<3x64x8xi8>, %s: tensor<f32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op batch dimensions differ: lhs 'tensor<2x4x64xf32>' vs rhs 'tensor<3x64x8xi8>'}}
  %y = octet.matmul %a, %w rhs_scale(%s : tensor<f32>) rhs_scheme <i8> : tensor<2x4x64xf32>, tensor<3x64x8xi8> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// expected-error @+1 {{e8m0 scales need a float format (MXFP8: f8E4M3FN / f8E5M2, MXFP4: f4E2M1FN), not 'i8'}}
func.func @e8m0_int() attributes {s = #octet.scheme<i8, per_group(1, 32), e8m0>} { return }

// -----

// expected-error @+1 {{the scale format is given twice}}
func.func @e8m0_twice() attributes {s = #octet.scheme<f8E4M3FN, e8m0, e8m0>} { return }

// -----

func.func @e8m0_not_pow2(%q: tensor<4x64xf8E4M3FN>) -> tensor<4x64xf32> {
  %s = arith.constant dense<[[0.5, 0.75], [1.0, 2.0], [4.0, 8.0], [1.0, 1.0]]> : tensor<4x2xf32>
  // expected-error @+1 {{e8m0 scales are powers of two in 2^-127 .. 2^127, got 0.75}}
  %x = octet.dequantize %q scale(%s : tensor<4x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<4x64xf8E4M3FN> -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// -----

func.func @e8m0_dynamic_shape(%x: tensor<4x64xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{scale of type 'tensor<4x4xf32>' does not match the per_group(1, 32) granularity; expected tensor<4x2xf32>}}
  %s = octet.compute_params %x as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<4x64xf32> -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{e4m3 scales need f4E2M1FN (NVFP4) or nf4 (double-quantized scales), not 'f8E4M3FN'}}
func.func @e4m3_fp8() attributes {s = #octet.scheme<f8E4M3FN, per_group(1, 16), e4m3(0.5)>} { return }

// -----

// expected-error @+1 {{the global scale of e4m3 scales must be a positive normal f32, got -5.000000e-01}}
func.func @e4m3_negative_global() attributes {s = #octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(-0.5)>} { return }

// -----

func.func @e4m3_not_e4m3_times_global(%q: tensor<1x32xf4E2M1FN>) -> tensor<1x32xf32> {
  %s = arith.constant dense<[[0.5, 0.53125]]> : tensor<1x2xf32>
  // expected-error @+1 {{'octet.dequantize' op e4m3 scales are E4M3 values (at most 448) times the global scale 5.000000e-01, got 0.53125}}
  %x = octet.dequantize %q scale(%s : tensor<1x2xf32>) as <f4E2M1FN, per_group(1, 16), e4m3(0.5)> : tensor<1x32xf4E2M1FN> -> tensor<1x32xf32>
  return %x : tensor<1x32xf32>
}

// -----

// NF4 with double-quantized scales: the same rule (0.53125 / 0.5 = 1.0625
// is between the E4M3 values 1 and 1.125).
func.func @nf4_e4m3_not_e4m3_times_global(%q: tensor<1x128xi4>) -> tensor<1x128xf32> {
  %s = arith.constant dense<[[0.5, 0.53125]]> : tensor<1x2xf32>
  // expected-error @+1 {{'octet.dequantize' op e4m3 scales are E4M3 values (at most 448) times the global scale 5.000000e-01, got 0.53125}}
  %x = octet.dequantize %q scale(%s : tensor<1x2xf32>) as <nf4, per_group(1, 64), e4m3(0.5)> : tensor<1x128xi4> -> tensor<1x128xf32>
  return %x : tensor<1x128xf32>
}

// -----

// expected-error @+1 {{NF4 schemes are symmetric (scale = absmax); 'nf4' cannot be asymmetric}}
func.func @nf4_asymmetric() attributes {s = #octet.scheme<nf4, asymmetric>} { return }

// -----

// expected-error @+1 {{'nf4' codes index the 16 NF4 values; the code range cannot be narrowed}}
func.func @nf4_narrow() attributes {s = #octet.scheme<nf4<0:7>>} { return }

// -----

func.func @nf4_quantized_lhs(%a: tensor<4x64xi8>, %w: tensor<64x8xi4>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'octet.matmul' op NF4 operands are weight-only: the rhs may be NF4 when the lhs is float, but lhs 'i8' is quantized}}
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%s : tensor<f32>) rhs_scheme <nf4> : tensor<4x64xi8>, tensor<64x8xi4> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @attention_query_rank(%q: tensor<4x9x64xf32>, %k: tensor<3x64x8xf32>, %v: tensor<3x8x64xf32>, %p: tensor<4xi32>) -> tensor<4x9x64xf32> {
  // expected-error @+1 {{'octet.attention' op query must have rank 4 (S x KV x G x Dh), got 'tensor<4x9x64xf32>'}}
  %o = octet.attention %q, %k, %v, %p scale(0.125) : tensor<4x9x64xf32>, tensor<3x64x8xf32>, tensor<3x8x64xf32>, tensor<4xi32> -> tensor<4x9x64xf32>
  return %o : tensor<4x9x64xf32>
}

// -----

func.func @attention_keys_not_transposed(%q: tensor<4x3x3x64xf32>, %k: tensor<3x8x64xf32>, %v: tensor<3x8x64xf32>, %p: tensor<4xi32>) -> tensor<4x3x3x64xf32> {
  // expected-error @+1 {{'octet.attention' op Dh differs: query dimension 3 is 64 but keys dimension 1 is 8}}
  %o = octet.attention %q, %k, %v, %p scale(0.125) : tensor<4x3x3x64xf32>, tensor<3x8x64xf32>, tensor<3x8x64xf32>, tensor<4xi32> -> tensor<4x3x3x64xf32>
  return %o : tensor<4x3x3x64xf32>
}

// -----

func.func @attention_kv_heads(%q: tensor<4x3x3x64xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x8x64xf32>, %p: tensor<4xi32>) -> tensor<4x3x3x64xf32> {
  // expected-error @+1 {{'octet.attention' op KV differs: query dimension 1 is 3 but keys dimension 0 is 2}}
  %o = octet.attention %q, %k, %v, %p scale(0.125) : tensor<4x3x3x64xf32>, tensor<2x64x8xf32>, tensor<2x8x64xf32>, tensor<4xi32> -> tensor<4x3x3x64xf32>
  return %o : tensor<4x3x3x64xf32>
}

// -----

func.func @attention_keys_values(%q: tensor<4x3x3x64xf32>, %k: tensor<3x64x8xf32>, %v: tensor<3x9x64xf32>, %p: tensor<4xi32>) -> tensor<4x3x3x64xf32> {
  // expected-error @+1 {{'octet.attention' op N differs: keys dimension 2 is 8 but values dimension 1 is 9}}
  %o = octet.attention %q, %k, %v, %p scale(0.125) : tensor<4x3x3x64xf32>, tensor<3x64x8xf32>, tensor<3x9x64xf32>, tensor<4xi32> -> tensor<4x3x3x64xf32>
  return %o : tensor<4x3x3x64xf32>
}

// -----

func.func @attention_positions(%q: tensor<4x3x3x64xf32>, %k: tensor<3x64x8xf32>, %v: tensor<3x8x64xf32>, %p: tensor<5xi32>) -> tensor<4x3x3x64xf32> {
  // expected-error @+1 {{'octet.attention' op S differs: query dimension 0 is 4 but positions dimension 0 is 5}}
  %o = octet.attention %q, %k, %v, %p scale(0.125) : tensor<4x3x3x64xf32>, tensor<3x64x8xf32>, tensor<3x8x64xf32>, tensor<5xi32> -> tensor<4x3x3x64xf32>
  return %o : tensor<4x3x3x64xf32>
}

// -----

func.func @attention_result(%q: tensor<4x3x3x64xf32>, %k: tensor<3x64x8xf32>, %v: tensor<3x8x64xf32>, %p: tensor<4xi32>) -> tensor<4x3x2x64xf32> {
  // expected-error @+1 {{'octet.attention' op G differs: query dimension 2 is 3 but result dimension 2 is 2}}
  %o = octet.attention %q, %k, %v, %p scale(0.125) : tensor<4x3x3x64xf32>, tensor<3x64x8xf32>, tensor<3x8x64xf32>, tensor<4xi32> -> tensor<4x3x2x64xf32>
  return %o : tensor<4x3x2x64xf32>
}

// -----

func.func @attention_scale(%q: tensor<4x3x3x64xf32>, %k: tensor<3x64x8xf32>, %v: tensor<3x8x64xf32>, %p: tensor<4xi32>) -> tensor<4x3x3x64xf32> {
  // expected-error @+1 {{'octet.attention' op scale must be finite, got INF}}
  %o = octet.attention %q, %k, %v, %p scale(0x7F800000) : tensor<4x3x3x64xf32>, tensor<3x64x8xf32>, tensor<3x8x64xf32>, tensor<4xi32> -> tensor<4x3x3x64xf32>
  return %o : tensor<4x3x3x64xf32>
}
