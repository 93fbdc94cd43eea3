// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-outline-for-cuda

// A remark says whenever the kernel is not the capability table's unit.

module attributes {octet.target = #octet.target<"sm_90a">} {
func.func @batched(%x: tensor<2x4x64xi8>, %w: tensor<2x64x8xi8>, %sx: tensor<f32>,
                   %sw: tensor<f32>) -> tensor<2x4x8xf32> {
  // expected-remark @below {{batched octet.matmul runs on the SIMT kernel on CUDA}}
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<2x4x64xi8>, tensor<2x64x8xi8> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}
}

// -----

module attributes {octet.target = #octet.target<"sm_90a">} {
func.func @grouped(%x: tensor<4x64xi8>, %w: tensor<64x8xi8>, %sx: tensor<f32>,
                   %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @below {{octet.matmul with per-group rhs scales runs on the SIMT kernel on CUDA instead of wgmma}}
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <i8, per_group(0, 32)>
         : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
func.func @int4(%x: tensor<4x64xi4>, %w: tensor<64x8xi4>, %sx: tensor<f32>,
                %sw: tensor<f32>) -> tensor<4x8xf32> {
  // expected-remark @below {{4-bit octet.matmul runs on the SIMT kernel on CUDA instead of mma.sync m16n8k64}}
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i4>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i4>
         : tensor<4x64xi4>, tensor<64x8xi4> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
}

// -----

module attributes {octet.target = #octet.target<"sm_90a">} {
func.func @w4a16(%x: tensor<1x64xf16>, %w: tensor<64x8xi4>,
                 %sw: tensor<2x8xf32>) -> tensor<1x8xf16> {
  // 4-bit codes per group: the gemv (one code per byte), no remark.
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <i4, per_group(0, 32)>
         : tensor<1x64xf16>, tensor<64x8xi4> -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}
}

// -----

// 8-bit weights per group: the gemv (no remark), unless the groups have
// zero points.
module attributes {octet.target = #octet.target<"sm_90a">} {
func.func @w8a16_group(%x: tensor<1x64xf16>, %w: tensor<64x8xi8>,
                       %sw: tensor<2x8xf32>) -> tensor<1x8xf16> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <i8, per_group(0, 32)>
         : tensor<1x64xf16>, tensor<64x8xi8> -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}
func.func @w8a16_group_zp(%x: tensor<1x64xf16>, %w: tensor<64x8xi8>,
                          %sw: tensor<2x8xf32>, %zw: tensor<2x8xi32>) -> tensor<1x8xf16> {
  // expected-remark @below {{weight-only octet.matmul with per-group zero points runs on the SIMT kernel on CUDA}}
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x8xf32>) rhs_zero_point(%zw : tensor<2x8xi32>)
         rhs_scheme <u8, per_group(0, 32), asymmetric>
         : tensor<1x64xf16>, tensor<64x8xi8> -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}
}

// -----

module attributes {octet.target = #octet.target<"sm_100a">} {
// FP8 per tensor: the tcgen05 kernel, the table's unit (no remark).
func.func @blackwell(%x: tensor<4x64xf8E4M3FN>, %w: tensor<64x8xf8E4M3FN>,
                     %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<4x8xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <f8E4M3FN>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <f8E4M3FN>
         : tensor<4x64xf8E4M3FN>, tensor<64x8xf8E4M3FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// MXFP8: the tcgen05 kernel with kind::mxf8f6f4.block_scale (no remark).
func.func @blackwell_mx(%x: tensor<4x64xf8E4M3FN>, %w: tensor<64x8xf8E4M3FN>,
                        %sx: tensor<4x2xf32>, %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<4x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
         : tensor<4x64xf8E4M3FN>, tensor<64x8xf8E4M3FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// MXFP4 and NVFP4: the tcgen05 kernel with kind::mxf4 / kind::mxf4nvf4
// (no remark).
func.func @blackwell_mxfp4(%x: tensor<4x64xf4E2M1FN>, %w: tensor<64x8xf4E2M1FN>,
                           %sx: tensor<4x2xf32>, %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<4x2xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<4x64xf4E2M1FN>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @blackwell_nvfp4(%x: tensor<4x64xf4E2M1FN>, %w: tensor<64x8xf4E2M1FN>,
                           %sx: tensor<4x4xf32>, %sw: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<4x4xf32>) lhs_scheme <f4E2M1FN, per_group(1, 16), e4m3(0.5)>
         rhs_scale(%sw : tensor<4x8xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.25)>
         : tensor<4x64xf4E2M1FN>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// MXFP8 x MXFP4: the tcgen05 kernel with kind::mxf8f6f4, E2M1 next to
// E4M3 (no remark).
func.func @blackwell_mxfp8_x_mxfp4(%x: tensor<4x64xf8E4M3FN>, %w: tensor<64x8xf4E2M1FN>,
                                   %sx: tensor<4x2xf32>, %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<4x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<2x8xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<4x64xf8E4M3FN>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
}

// -----

module attributes {octet.target = #octet.target<"sm_75">} {
func.func @turing(%x: tensor<4x64xi8>, %w: tensor<64x8xi8>, %sx: tensor<f32>,
                  %sw: tensor<f32>) -> tensor<4x8xf32> {
  // expected-remark @below {{octet.matmul runs on the SIMT kernel on sm_75 instead of mma.sync m8n8k16}}
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
}
