// Block-scaled matmuls for the PTX test (ptx-mx.test): OCP MXFP8 (E8M0
// scales per block of 32 along K on both operands): E4M3 x E4M3 with a bias
// and ReLU, E5M2 x E4M3 with constant weights and an f16 result; then MXFP4
// and NVFP4 (below).
func.func @mx_e4m3(%x: tensor<?x256xf8E4M3FN>, %w: tensor<256x96xf8E4M3FN>,
    %sx: tensor<?x8xf32>, %sw: tensor<8x96xf32>, %b: tensor<96xf32>) -> tensor<?x96xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x8xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<8x96xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
         bias(%b : tensor<96xf32>) relu
         : tensor<?x256xf8E4M3FN>, tensor<256x96xf8E4M3FN> -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

func.func @mx_e5m2_const(%x: tensor<?x64xf8E5M2>, %sx: tensor<?x2xf32>,
    %sw: tensor<2x48xf32>) -> tensor<?x48xf16> {
  %w = arith.constant dense<56> : tensor<64x48xi8>
  %wq = arith.bitcast %w : tensor<64x48xi8> to tensor<64x48xf8E4M3FN>
  %y = octet.matmul %x, %wq lhs_scale(%sx : tensor<?x2xf32>) lhs_scheme <f8E5M2, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<2x48xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
         : tensor<?x64xf8E5M2>, tensor<64x48xf8E4M3FN> -> tensor<?x48xf16>
  return %y : tensor<?x48xf16>
}

// OCP MXFP4 (E2M1 codes, E8M0 scales per 32; kind::mxf4 on sm_120a) and
// NVFP4 (E2M1 codes, E4M3 scales per 16 times a global scale; kind::mxf4nvf4)
// on both operands; the codes come in as i4 (E2M1 has no C form).
func.func @mx_e2m1(%xi: tensor<?x128xi4>, %wi: tensor<128x64xi4>,
    %sx: tensor<?x4xf32>, %sw: tensor<4x64xf32>) -> tensor<?x64xf32> {
  %x = arith.bitcast %xi : tensor<?x128xi4> to tensor<?x128xf4E2M1FN>
  %w = arith.bitcast %wi : tensor<128x64xi4> to tensor<128x64xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x4xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<4x64xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x128xf4E2M1FN>, tensor<128x64xf4E2M1FN> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

func.func @nv_e2m1(%xi: tensor<?x128xi4>, %wi: tensor<128x64xi4>,
    %sx: tensor<?x8xf32>, %sw: tensor<8x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xbf16> {
  %x = arith.bitcast %xi : tensor<?x128xi4> to tensor<?x128xf4E2M1FN>
  %w = arith.bitcast %wi : tensor<128x64xi4> to tensor<128x64xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x8xf32>) lhs_scheme <f4E2M1FN, per_group(1, 16), e4m3(0.5)>
         rhs_scale(%sw : tensor<8x64xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.25)>
         bias(%b : tensor<64xf32>) relu
         : tensor<?x128xf4E2M1FN>, tensor<128x64xf4E2M1FN> -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// MXFP8 activations x MXFP4 weights (kind::mxf8f6f4 e4m3.e2m1: the E2M1
// codes in the middle 4 bits of 8-bit containers).
func.func @mx_e4m3_x_e2m1(%x: tensor<?x128xf8E4M3FN>, %wi: tensor<128x64xi4>,
    %sx: tensor<?x4xf32>, %sw: tensor<4x64xf32>) -> tensor<?x64xf32> {
  %w = arith.bitcast %wi : tensor<128x64xi4> to tensor<128x64xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x4xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<4x64xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x128xf8E4M3FN>, tensor<128x64xf4E2M1FN> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
