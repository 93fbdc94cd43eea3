// RUN: octet-opt %s | FileCheck %s
// RUN: octet-opt %s | octet-opt | FileCheck %s
// RUN: octet-opt %s --mlir-print-op-generic | octet-opt | FileCheck %s

// Round trip of every scheme form and every op.

// CHECK-LABEL: func.func @per_tensor_i8
// CHECK: octet.quantize %{{.*}} scale(%{{.*}} : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
func.func @per_tensor_i8(%x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<4x8xi8> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// The defaults (per_tensor, symmetric, saturate) are not printed.
// CHECK-LABEL: func.func @explicit_defaults
// CHECK: as <i8> :
func.func @explicit_defaults(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8, per_tensor, symmetric> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// CHECK-LABEL: func.func @narrow_range
// CHECK: as <i8<-127:127>, per_axis(0)>
func.func @narrow_range(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4x8xi8> {
  %q = octet.quantize %x scale(%s : tensor<4xf32>) as <i8<-127:127>, per_axis(0)> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// CHECK-LABEL: func.func @u8_asymmetric_per_axis
// CHECK: octet.quantize %{{.*}} scale(%{{.*}} : tensor<8xf32>) zero_point(%{{.*}} : tensor<8xi32>) as <u8, per_axis(1), asymmetric>
func.func @u8_asymmetric_per_axis(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %z: tensor<8xi32>) -> tensor<4x8xi8> {
  %q = octet.quantize %x scale(%s : tensor<8xf32>) zero_point(%z : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// CHECK-LABEL: func.func @i4_per_group
// CHECK: as <i4, per_group(1, 32)> : tensor<16x64xf16> -> tensor<16x64xi4>
// CHECK: as <i4, per_group(1, 32)> : tensor<16x64xi4> -> tensor<16x64xf16>
func.func @i4_per_group(%x: tensor<16x64xf16>, %s: tensor<16x2xf32>) -> tensor<16x64xf16> {
  %q = octet.quantize %x scale(%s : tensor<16x2xf32>) as <i4, per_group(1, 32)> : tensor<16x64xf16> -> tensor<16x64xi4>
  %d = octet.dequantize %q scale(%s : tensor<16x2xf32>) as <i4, per_group(1, 32)> : tensor<16x64xi4> -> tensor<16x64xf16>
  return %d : tensor<16x64xf16>
}

// CHECK-LABEL: func.func @u4_asymmetric_group_first_axis
// CHECK: as <u4, per_group(0, 4), asymmetric>
func.func @u4_asymmetric_group_first_axis(%x: tensor<8x3xbf16>, %s: tensor<2x3xf32>, %z: tensor<2x3xi32>) -> tensor<8x3xi4> {
  %q = octet.quantize %x scale(%s : tensor<2x3xf32>) zero_point(%z : tensor<2x3xi32>) as <u4, per_group(0, 4), asymmetric> : tensor<8x3xbf16> -> tensor<8x3xi4>
  return %q : tensor<8x3xi4>
}

// CHECK-LABEL: func.func @fp8
// CHECK: as <f8E4M3FN> : tensor<?x8xf32> -> tensor<?x8xf8E4M3FN>
// CHECK: as <f8E5M2, per_axis(1), non_saturating> : tensor<?x8xf32> -> tensor<?x8xf8E5M2>
func.func @fp8(%x: tensor<?x8xf32>, %s: tensor<f32>, %s8: tensor<8xf32>) -> (tensor<?x8xf8E4M3FN>, tensor<?x8xf8E5M2>) {
  %a = octet.quantize %x scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<?x8xf32> -> tensor<?x8xf8E4M3FN>
  %b = octet.quantize %x scale(%s8 : tensor<8xf32>) as <f8E5M2, per_axis(1), non_saturating> : tensor<?x8xf32> -> tensor<?x8xf8E5M2>
  return %a, %b : tensor<?x8xf8E4M3FN>, tensor<?x8xf8E5M2>
}

// CHECK-LABEL: func.func @dynamic_scales
// CHECK: octet.dequantize %{{.*}} scale(%{{.*}} : tensor<?xf32>) as <i8, per_axis(0)> : tensor<?x16xi8> -> tensor<?x16xf32>
func.func @dynamic_scales(%q: tensor<?x16xi8>, %s: tensor<?xf32>) -> tensor<?x16xf32> {
  %d = octet.dequantize %q scale(%s : tensor<?xf32>) as <i8, per_axis(0)> : tensor<?x16xi8> -> tensor<?x16xf32>
  return %d : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @requantize
// CHECK: octet.requantize %{{.*}} scale(%{{.*}} : tensor<4xf32>) as <i8, per_axis(0)> to scale(%{{.*}} : tensor<f32>) zero_point(%{{.*}} : tensor<i32>) as <u8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xi8>
func.func @requantize(%q: tensor<4x8xi8>, %s0: tensor<4xf32>, %s1: tensor<f32>, %z1: tensor<i32>) -> tensor<4x8xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<4xf32>) as <i8, per_axis(0)> to scale(%s1 : tensor<f32>) zero_point(%z1 : tensor<i32>) as <u8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// CHECK-LABEL: func.func @requantize_asymmetric_input
// CHECK: octet.requantize %{{.*}} scale(%{{.*}} : tensor<f32>) zero_point(%{{.*}} : tensor<i32>) as <u8, asymmetric> to scale(%{{.*}} : tensor<f32>) as <f8E4M3FN>
func.func @requantize_asymmetric_input(%q: tensor<8xi8>, %s0: tensor<f32>, %z0: tensor<i32>, %s1: tensor<f32>) -> tensor<8xf8E4M3FN> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) zero_point(%z0 : tensor<i32>) as <u8, asymmetric> to scale(%s1 : tensor<f32>) as <f8E4M3FN> : tensor<8xi8> -> tensor<8xf8E4M3FN>
  return %r : tensor<8xf8E4M3FN>
}

// Schemes are ordinary attributes too.
// CHECK-LABEL: func.func @scheme_attribute
// CHECK: octet.schemes = [#octet.scheme<u4, per_group(0, 16), asymmetric>, #octet.scheme<f8E5M2, non_saturating>]
func.func @scheme_attribute() attributes {octet.schemes = [#octet.scheme<u4, per_group(0, 16), asymmetric>, #octet.scheme<f8E5M2, non_saturating>]} {
  return
}

// CHECK-LABEL: func.func @matmul_w8a8
// CHECK: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<?xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%{{.*}} : tensor<32xf32>) rhs_scheme <i8, per_axis(1)> bias(%{{.*}} : tensor<32xf32>) relu : tensor<?x64xi8>, tensor<64x32xi8> -> tensor<?x32xf32>
func.func @matmul_w8a8(%a: tensor<?x64xi8>, %w: tensor<64x32xi8>, %sa: tensor<?xf32>, %sw: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %y = octet.matmul %a, %w lhs_scale(%sa : tensor<?xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%sw : tensor<32xf32>) rhs_scheme <i8, per_axis(1)> bias(%b : tensor<32xf32>) relu : tensor<?x64xi8>, tensor<64x32xi8> -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// CHECK-LABEL: func.func @matmul_asymmetric_requantized
// CHECK: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<f32>) lhs_zero_point(%{{.*}} : tensor<i32>) lhs_scheme <u8, asymmetric> rhs_scale(%{{.*}} : tensor<f32>) rhs_zero_point(%{{.*}} : tensor<i32>) rhs_scheme <u8, asymmetric> out_scale(%{{.*}} : tensor<f32>) out_zero_point(%{{.*}} : tensor<i32>) out_scheme <u8, asymmetric>
func.func @matmul_asymmetric_requantized(%a: tensor<4x64xi8>, %w: tensor<64x32xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4x32xi8> {
  %y = octet.matmul %a, %w lhs_scale(%s : tensor<f32>) lhs_zero_point(%z : tensor<i32>) lhs_scheme <u8, asymmetric> rhs_scale(%s : tensor<f32>) rhs_zero_point(%z : tensor<i32>) rhs_scheme <u8, asymmetric> out_scale(%s : tensor<f32>) out_zero_point(%z : tensor<i32>) out_scheme <u8, asymmetric> : tensor<4x64xi8>, tensor<64x32xi8> -> tensor<4x32xi8>
  return %y : tensor<4x32xi8>
}

// Weight-only W4A16 with groups along K, batched lhs sharing the weight.
// CHECK-LABEL: func.func @matmul_weight_only_grouped
// CHECK: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<2x32xf32>) rhs_scheme <i4, per_group(0, 32)> : tensor<3x4x64xf16>, tensor<64x32xi4> -> tensor<3x4x32xf16>
func.func @matmul_weight_only_grouped(%x: tensor<3x4x64xf16>, %w: tensor<64x32xi4>, %s: tensor<2x32xf32>) -> tensor<3x4x32xf16> {
  %y = octet.matmul %x, %w rhs_scale(%s : tensor<2x32xf32>) rhs_scheme <i4, per_group(0, 32)> : tensor<3x4x64xf16>, tensor<64x32xi4> -> tensor<3x4x32xf16>
  return %y : tensor<3x4x32xf16>
}

// Block-wise scales on both operands (DeepSeek-V3's FP8: one lhs scale per
// row and group of 128 along K, the rhs's groups).
// CHECK-LABEL: func.func @matmul_fp8_block
// CHECK: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<?x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 128)> rhs_scale(%{{.*}} : tensor<2x64xf32>) rhs_scheme <f8E4M3FN, per_group(0, 128)> : tensor<?x256xf8E4M3FN>, tensor<256x64xf8E4M3FN> -> tensor<?x64xbf16>
func.func @matmul_fp8_block(%x: tensor<?x256xf8E4M3FN>, %w: tensor<256x64xf8E4M3FN>, %sx: tensor<?x2xf32>, %sw: tensor<2x64xf32>) -> tensor<?x64xbf16> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 128)> rhs_scale(%sw : tensor<2x64xf32>) rhs_scheme <f8E4M3FN, per_group(0, 128)> : tensor<?x256xf8E4M3FN>, tensor<256x64xf8E4M3FN> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// CHECK-LABEL: func.func @matmul_fp8
// CHECK: lhs_scheme <f8E4M3FN> rhs_scale(%{{.*}} : tensor<32xf32>) rhs_scheme <f8E4M3FN, per_axis(1)>
func.func @matmul_fp8(%a: tensor<4x64xf8E4M3FN>, %w: tensor<64x32xf8E4M3FN>, %sa: tensor<f32>, %sw: tensor<32xf32>) -> tensor<4x32xbf16> {
  %y = octet.matmul %a, %w lhs_scale(%sa : tensor<f32>) lhs_scheme <f8E4M3FN> rhs_scale(%sw : tensor<32xf32>) rhs_scheme <f8E4M3FN, per_axis(1)> : tensor<4x64xf8E4M3FN>, tensor<64x32xf8E4M3FN> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// E8M0 scales (MXFP8) print and parse back.
// CHECK-LABEL: func.func @mxfp8
// CHECK: as <f8E4M3FN, per_group(1, 32), e8m0>
func.func @mxfp8(%q: tensor<4x64xf8E4M3FN>) -> tensor<4x64xf32> {
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0], [4.0, 8.0], [1.0, 1.0]]> : tensor<4x2xf32>
  %x = octet.dequantize %q scale(%s : tensor<4x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<4x64xf8E4M3FN> -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// FP4 (E2M1): f4E2M1FN storage, MXFP4 (E8M0 scales) and a float-lhs
// (weight-only) matmul.
// CHECK-LABEL: func.func @fp4
// CHECK: octet.quantize %{{.*}} as <f4E2M1FN> : tensor<4x64xf32> -> tensor<4x64xf4E2M1FN>
// CHECK: as <f4E2M1FN, per_group(1, 32), e8m0> : tensor<4x64xf4E2M1FN> -> tensor<4x64xf32>
// CHECK: rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<2x64xf32>, tensor<64x4xf4E2M1FN> -> tensor<2x4xf32>
func.func @fp4(%v: tensor<4x64xf32>, %t: tensor<f32>, %s: tensor<4x2xf32>, %a: tensor<2x64xf32>, %w: tensor<64x4xf4E2M1FN>, %sw: tensor<2x4xf32>) -> (tensor<4x64xf32>, tensor<2x4xf32>) {
  %q = octet.quantize %v scale(%t : tensor<f32>) as <f4E2M1FN> : tensor<4x64xf32> -> tensor<4x64xf4E2M1FN>
  %x = octet.dequantize %q scale(%s : tensor<4x2xf32>) as <f4E2M1FN, per_group(1, 32), e8m0> : tensor<4x64xf4E2M1FN> -> tensor<4x64xf32>
  %y = octet.matmul %a, %w rhs_scale(%sw : tensor<2x4xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<2x64xf32>, tensor<64x4xf4E2M1FN> -> tensor<2x4xf32>
  return %x, %y : tensor<4x64xf32>, tensor<2x4xf32>
}

// NVFP4: E4M3 block scales times a global scale (printed with 9 digits).
// 0.0012345 is not an f32: it prints as the nearest one. The scales are
// 448 g, 0.5 g and 2^-9 g.
// CHECK-LABEL: func.func @nvfp4
// CHECK: as <f4E2M1FN, per_group(1, 16), e4m3(0.00123449997)>
func.func @nvfp4(%q: tensor<1x48xf4E2M1FN>) -> tensor<1x48xf32> {
  %s = arith.constant dense<[[0.553056002, 6.17249985E-4, 2.41113275E-6]]> : tensor<1x3xf32>
  %x = octet.dequantize %q scale(%s : tensor<1x3xf32>) as <f4E2M1FN, per_group(1, 16), e4m3(0.0012345)> : tensor<1x48xf4E2M1FN> -> tensor<1x48xf32>
  return %x : tensor<1x48xf32>
}

// Dynamic NVFP4 block scales: compute_params with a static global scale.
// CHECK-LABEL: func.func @nvfp4_dynamic
// CHECK: octet.compute_params %{{.*}} as <f4E2M1FN, per_group(1, 16), e4m3(0.5)> : tensor<4x64xf32> -> tensor<4x4xf32>
func.func @nvfp4_dynamic(%x: tensor<4x64xf32>) -> tensor<4x4xf32> {
  %s = octet.compute_params %x as <f4E2M1FN, per_group(1, 16), e4m3(0.5)> : tensor<4x64xf32> -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// NF4: i4 indices into the NF4 table, symmetric (no zero point).
// CHECK-LABEL: func.func @nf4
// CHECK: as <nf4, per_group(1, 64)> : tensor<2x64xi4> -> tensor<2x64xf32>
func.func @nf4(%q: tensor<2x64xi4>, %s: tensor<2x1xf32>) -> tensor<2x64xf32> {
  %x = octet.dequantize %q scale(%s : tensor<2x1xf32>) as <nf4, per_group(1, 64)> : tensor<2x64xi4> -> tensor<2x64xf32>
  return %x : tensor<2x64xf32>
}

// NF4 with double-quantized scales: E4M3 values times a global scale (here
// 448 g, 0.5 g and 2^-9 g for g = 0.5).
// CHECK-LABEL: func.func @nf4_dq
// CHECK: as <nf4, per_group(1, 64), e4m3(0.5)> : tensor<1x192xi4> -> tensor<1x192xf32>
func.func @nf4_dq(%q: tensor<1x192xi4>) -> tensor<1x192xf32> {
  %s = arith.constant dense<[[224.0, 0.25, 9.765625E-4]]> : tensor<1x3xf32>
  %x = octet.dequantize %q scale(%s : tensor<1x3xf32>) as <nf4, per_group(1, 64), e4m3(0.5)> : tensor<1x192xi4> -> tensor<1x192xf32>
  return %x : tensor<1x192xf32>
}

// Causal grouped-query attention: 3 KV heads of 3 query heads, dynamic S and N.
// CHECK-LABEL: func.func @attention
// CHECK: octet.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scale(1.250000e-01) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
func.func @attention(%q: tensor<?x3x3x64xf32>, %k: tensor<3x64x?xf32>, %v: tensor<3x?x64xf32>, %pos: tensor<?xi32>) -> tensor<?x3x3x64xf32> {
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}
