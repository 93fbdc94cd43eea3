// OCP MXFP8 matmuls (E8M0 scales per block of 32 along K on both operands)
// for the block-scaled PTX test (ptx-mx.test): E4M3 x E4M3 with a bias and
// ReLU, E5M2 x E4M3 with constant weights and an f16 result.
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
