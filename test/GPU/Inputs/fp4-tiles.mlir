// MXFP4 and NVFP4 products on codes passed in (one per byte, as i4: E2M1
// has no C form) large enough for several tiles of the tensor-core kernels:
// sm_100a's tcgen05 kernel packs 256 E2M1 codes of K per tile (K = 544:
// two whole K tiles and one of 32 codes, one MXFP4 block; K = 528: two and
// one of 16, one NVFP4 block), N = 136 is two column tiles of 128. For the
// oracle of mx_scales.py (emulated-numerics-tcgen05.test).
func.func @mx_e2m1_codes_k544(%xi: tensor<?x544xi4>, %wi: tensor<544x136xi4>,
    %sx: tensor<?x17xf32>, %sw: tensor<17x136xf32>) -> tensor<?x136xf32> {
  %x = arith.bitcast %xi : tensor<?x544xi4> to tensor<?x544xf4E2M1FN>
  %w = arith.bitcast %wi : tensor<544x136xi4> to tensor<544x136xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x17xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<17x136xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x544xf4E2M1FN>, tensor<544x136xf4E2M1FN> -> tensor<?x136xf32>
  return %y : tensor<?x136xf32>
}

func.func @nv_e2m1_codes_k528(%xi: tensor<?x528xi4>, %wi: tensor<528x136xi4>,
    %sx: tensor<?x33xf32>, %sw: tensor<33x136xf32>) -> tensor<?x136xf32> {
  %x = arith.bitcast %xi : tensor<?x528xi4> to tensor<?x528xf4E2M1FN>
  %w = arith.bitcast %wi : tensor<528x136xi4> to tensor<528x136xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x33xf32>) lhs_scheme <f4E2M1FN, per_group(1, 16), e4m3(0.5)>
         rhs_scale(%sw : tensor<33x136xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.25)>
         : tensor<?x528xf4E2M1FN>, tensor<528x136xf4E2M1FN> -> tensor<?x136xf32>
  return %y : tensor<?x136xf32>
}

// MXFP8 activations x MXFP4 weights (kind::mxf8f6f4 with the E2M1 codes
// padded: 16 codes in 8 bytes, then 8 bytes of gap): K = 544, five K tiles
// of 128 codes (the last with 32), N = 136.
func.func @mx_e4m3_x_e2m1_codes_k544(%x: tensor<?x544xf8E4M3FN>, %wi: tensor<544x136xi4>,
    %sx: tensor<?x17xf32>, %sw: tensor<17x136xf32>) -> tensor<?x136xf32> {
  %w = arith.bitcast %wi : tensor<544x136xi4> to tensor<544x136xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x17xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<17x136xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x544xf8E4M3FN>, tensor<544x136xf4E2M1FN> -> tensor<?x136xf32>
  return %y : tensor<?x136xf32>
}
