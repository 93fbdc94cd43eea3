// The numerics suite of scripts/gpu-check: every octet op the CUDA lowering
// handles, on every kernel (wgmma on sm_90a; mma_sync on sm_80 and sm_89,
// FP8 on sm_89; gemv; simt; element-wise). bench/gpu/CMakeLists.txt compiles
// it for the CPU (the reference) and for sm_90a, sm_89 and sm_80; on a GPU,
// test/GPU/run_numerics.py runs each function with random inputs on both
// and compares: bit for bit where the sums are exact (integers, the simt
// kernel, element-wise ops), to a tolerance where f32 sums are reordered
// (FP8 tensor cores, gemv). Shapes are ragged on purpose (K % 16 != 0 takes
// the byte-wise staging path; M and N are not multiples of the tiles).

// mma/wgmma, i8 x i8, per-token x per-channel, bias, ReLU; K = 200.
func.func @i8_token_channel_bias_relu(%x: tensor<?x200xi8>, %w: tensor<200x130xi8>,
    %sx: tensor<?xf32>, %sw: tensor<130xf32>, %b: tensor<130xf32>) -> tensor<?x130xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?xf32>) lhs_scheme <i8, per_axis(0)>
         rhs_scale(%sw : tensor<130xf32>) rhs_scheme <i8, per_axis(1)>
         bias(%b : tensor<130xf32>) relu
         : tensor<?x200xi8>, tensor<200x130xi8> -> tensor<?x130xf32>
  return %y : tensor<?x130xf32>
}

// The cp.async path (K % 16 == 0), several K tiles, bf16 result.
func.func @i8_aligned_bf16(%x: tensor<?x512xi8>, %w: tensor<512x256xi8>,
    %sx: tensor<f32>, %sw: tensor<256xf32>) -> tensor<?x256xbf16> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<256xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x512xi8>, tensor<512x256xi8> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// u8 with a zero point (column sums of B on the device), requantized output.
func.func @u8_asym_requant(%x: tensor<?x256xi8>, %w: tensor<256x192xi8>,
    %sx: tensor<f32>, %zx: tensor<i32>, %sw: tensor<192xf32>,
    %so: tensor<f32>, %zo: tensor<i32>) -> tensor<?x192xi8> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_zero_point(%zx : tensor<i32>)
         lhs_scheme <u8, asymmetric>
         rhs_scale(%sw : tensor<192xf32>) rhs_scheme <i8, per_axis(1)>
         out_scale(%so : tensor<f32>) out_zero_point(%zo : tensor<i32>)
         out_scheme <u8, asymmetric>
         : tensor<?x256xi8>, tensor<256x192xi8> -> tensor<?x192xi8>
  return %y : tensor<?x192xi8>
}

// i8 x u8 with a per-channel rhs zero point (row sums of A), f16 result.
func.func @i8_u8_rhs_zp(%x: tensor<?x96xi8>, %w: tensor<96x72xi8>,
    %sx: tensor<f32>, %sw: tensor<72xf32>, %zw: tensor<72xi32>) -> tensor<?x72xf16> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<72xf32>) rhs_zero_point(%zw : tensor<72xi32>)
         rhs_scheme <u8, per_axis(1), asymmetric>
         : tensor<?x96xi8>, tensor<96x72xi8> -> tensor<?x72xf16>
  return %y : tensor<?x72xf16>
}

// Constant weights: transposed and column-summed at compile time.
func.func @u8_const_weights(%x: tensor<?x32xi8>, %sx: tensor<f32>, %zx: tensor<i32>,
    %sw: tensor<f32>) -> tensor<?x24xf32> {
  %w = arith.constant dense<"0x0B30557A9FC4E913385D82A7CCF11B406788ADD6FB214A6F90B5DE0429527798BFE40E33587DA2C7EC163B6085AACFF41C416A8FB0D50324497297B8DD0B2C517095CAEF193E5388ADC2E711366B80A5D8FD2B4C619ABFD00E23447992B7E806395E73A8CDE21C31568BA0C5FA14496E81BADFF02E436499B2D70D265B7C91CAF51F24496EB3D8FD072C7196BBC0E50F567B9CA1CA10355E6384A9F2183D466B8ED3F802274C91B6DBE00A2F7499BEC3EA30557E83A4C917385D668BACF11F204F64B9DEF30D22479CB1D6EB055A7F94ABCC1A3F50758EA3C41237486D86DBFC082D4267BCD1F600257A9FB4C9EE385D7095AEC3193257688DA6FB112A4F6085C4E913385D82A7CCF11B40658AAFD4F9214A6F90B5DE0429527798BDE60C315A7DA2C7EC163B6085AACFF41E43688DB2D50324497297B8DD0B2C517A9FC0E5133E5388ADC2E711366B80A5DAFF294E639ABFD00E23447992B7E8063B5C71AACFE21C31568BA0C5FA14496E83B8DDF22C436499B2D70D265B7C91CAEF053E5374B3D8FD072C7196BBC0E50F54799EA3C810355E6384A9F2183D466B8CD1FA00254C91B6DBE00A2F7499BEC3E832577C81A4C917385D668BACF11F20456EB3D4F90D22479CB1D6EB055A7F94A9CE183D52758EA3C41237486D86DBFC0A2F4065BED1F600257A9FB4C9EE385D7297ACC11B3257688DA6FB112A4F6085DEF3092247C2E78CB15B0025CAEF94B963082DD2F79E44691237D8FDA64C711A3FE085AE547B20C5EA8FB45E0328CDF29741660B30D7F89D4B6C113ADF80A5537419C2E788A751762BC0E59ABF690E23D8FD924C610439D2F7A8467B1C31EA8FA05E7314C9E085BA54092EC3F89DB26C0126DBF0954D661B3CD18AAF457E1334E982A75D7631D6FB80A54F1439DEE38852771C21C6E9B2587D062BCC91BA40650ED3F499A24A6F34D9FE83A872173CC1E68B557A1F26CBECB15F60052EF394B947680DD6FB96AB451A3FD4E98E587D1237CCE1865077082DC69BBC4A6F0025FE93B4426738DFF489AE781D32D7EC815B70152ACFE4BB516A0F20C59EB3496207D8FD96AB41"> : tensor<32x24xi8>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_zero_point(%zx : tensor<i32>)
         lhs_scheme <u8, asymmetric>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<?x32xi8>, tensor<32x24xi8> -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// FP8 tensor cores (sm_89+; simt on sm_80): e4m3 x e4m3 -> bf16.
func.func @e4m3_bf16(%x: tensor<?x256xf8E4M3FN>, %w: tensor<256x136xf8E4M3FN>,
    %sx: tensor<?xf32>, %sw: tensor<136xf32>) -> tensor<?x136xbf16> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?xf32>) lhs_scheme <f8E4M3FN, per_axis(0)>
         rhs_scale(%sw : tensor<136xf32>) rhs_scheme <f8E4M3FN, per_axis(1)>
         : tensor<?x256xf8E4M3FN>, tensor<256x136xf8E4M3FN> -> tensor<?x136xbf16>
  return %y : tensor<?x136xbf16>
}

// Mixed FP8: e5m2 x e4m3 -> f32, K = 96.
func.func @e5m2_e4m3_f32(%x: tensor<?x96xf8E5M2>, %w: tensor<96x40xf8E4M3FN>,
    %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<?x40xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <f8E5M2>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <f8E4M3FN>
         : tensor<?x96xf8E5M2>, tensor<96x40xf8E4M3FN> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

// gemv: W8A16 (f16 activations, int8 per-channel weights).
func.func @w8a16_f16(%x: tensor<?x512xf16>, %w: tensor<512x384xi8>,
    %sw: tensor<384xf32>) -> tensor<?x384xf16> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<384xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x512xf16>, tensor<512x384xi8> -> tensor<?x384xf16>
  return %y : tensor<?x384xf16>
}

// gemv: u8 weights with zero points, bias, bf16 activations; N % 16 != 0.
func.func @w8a16_u8_zp_bf16(%x: tensor<?x256xbf16>, %w: tensor<256x100xi8>,
    %sw: tensor<100xf32>, %zw: tensor<100xi32>, %b: tensor<100xf32>) -> tensor<?x100xbf16> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<100xf32>) rhs_zero_point(%zw : tensor<100xi32>)
         rhs_scheme <u8, per_axis(1), asymmetric> bias(%b : tensor<100xf32>)
         : tensor<?x256xbf16>, tensor<256x100xi8> -> tensor<?x100xbf16>
  return %y : tensor<?x100xbf16>
}

// gemv: FP8 weights, f32 activations.
func.func @w8_fp8_f32(%x: tensor<?x128xf32>, %w: tensor<128x64xf8E4M3FN>,
    %sw: tensor<f32>) -> tensor<?x64xf32> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<f32>) rhs_scheme <f8E4M3FN>
         : tensor<?x128xf32>, tensor<128x64xf8E4M3FN> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// gemv: W8A16 with per-group scales (groups of 64 along K; N % 16 != 0).
func.func @w8a16_group(%x: tensor<?x256xf16>, %w: tensor<256x72xi8>,
    %sw: tensor<4x72xf32>) -> tensor<?x72xf32> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<4x72xf32>) rhs_scheme <i8, per_group(0, 64)>
         : tensor<?x256xf16>, tensor<256x72xi8> -> tensor<?x72xf32>
  return %y : tensor<?x72xf32>
}

// gemv: MXFP8 weight-only (E4M3, E8M0 scales per block of 32), bf16 out.
func.func @w8_mxfp8_bf16(%x: tensor<?x160xf32>, %w: tensor<160x48xf8E4M3FN>,
    %sw: tensor<5x48xf32>) -> tensor<?x48xbf16> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<5x48xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
         : tensor<?x160xf32>, tensor<160x48xf8E4M3FN> -> tensor<?x48xbf16>
  return %y : tensor<?x48xbf16>
}

// gemv: NF4 weight-only per group of 64 (4-bit codes, one per byte on the
// GPU), bf16 activations.
func.func @w4_nf4_group(%x: tensor<?x128xbf16>, %w: tensor<128x40xi4>,
    %sw: tensor<2x40xf32>) -> tensor<?x40xf32> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x40xf32>) rhs_scheme <nf4, per_group(0, 64)>
         : tensor<?x128xbf16>, tensor<128x40xi4> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

// gemv: NF4 with double-quantized scales (E4M3 values times the global
// scale 0.5, as f32 products), bf16 activations.
func.func @w4_nf4dq_group(%x: tensor<?x128xbf16>, %w: tensor<128x40xi4>,
    %sw: tensor<2x40xf32>) -> tensor<?x40xf32> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x40xf32>) rhs_scheme <nf4, per_group(0, 64), e4m3(0.5)>
         : tensor<?x128xbf16>, tensor<128x40xi4> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

// gemv: MXFP4 weight-only (E2M1, E8M0 scales per block of 32), f16 out;
// the weights quantized on the device first (E2M1 has no C form).
func.func @w4_mxfp4_f16(%x: tensor<?x96xf16>, %wf: tensor<96x40xf32>,
    %sw: tensor<3x40xf32>) -> tensor<?x40xf16> {
  %w = octet.quantize %wf scale(%sw : tensor<3x40xf32>) as <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<96x40xf32> -> tensor<96x40xf4E2M1FN>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<3x40xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x96xf16>, tensor<96x40xf4E2M1FN> -> tensor<?x40xf16>
  return %y : tensor<?x40xf16>
}

// gemv: NVFP4 weight-only (E2M1 per block of 16, E4M3 block scales times
// the global scale 0.5; the f32 scales are those products), f32 out.
func.func @w4_nvfp4_f32(%x: tensor<?x64xf32>, %wf: tensor<64x24xf32>,
    %sw: tensor<4x24xf32>) -> tensor<?x24xf32> {
  %w = octet.quantize %wf scale(%sw : tensor<4x24xf32>) as <f4E2M1FN, per_group(0, 16), e4m3(0.5)>
         : tensor<64x24xf32> -> tensor<64x24xf4E2M1FN>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<4x24xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.5)>
         : tensor<?x64xf32>, tensor<64x24xf4E2M1FN> -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// gemv: W4A16 with per-group scales.
func.func @w4a16_group(%x: tensor<?x256xf16>, %w: tensor<256x64xi4>,
    %sw: tensor<4x64xf32>) -> tensor<?x64xf32> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<4x64xf32>) rhs_scheme <i4, per_group(0, 64)>
         : tensor<?x256xf16>, tensor<256x64xi4> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// simt: batched i8 with per-token lhs scales.
func.func @i8_batched(%x: tensor<2x?x64xi8>, %w: tensor<2x64x32xi8>,
    %sx: tensor<2x?x1xf32>, %sw: tensor<f32>) -> tensor<2x?x32xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<2x?x1xf32>) lhs_scheme <i8, per_group(2, 64)>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<2x?x64xi8>, tensor<2x64x32xi8> -> tensor<2x?x32xf32>
  return %y : tensor<2x?x32xf32>
}

// simt: block-wise scales on both operands (one lhs scale per row and
// group of 64 with zero points, i8 rhs per group of 64 along K).
func.func @u8_block_asym(%x: tensor<?x256xi8>, %w: tensor<256x48xi8>,
    %sx: tensor<?x4xf32>, %zx: tensor<?x4xi32>, %sw: tensor<4x48xf32>) -> tensor<?x48xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x4xf32>) lhs_zero_point(%zx : tensor<?x4xi32>)
         lhs_scheme <u8, per_group(1, 64), asymmetric>
         rhs_scale(%sw : tensor<4x48xf32>) rhs_scheme <i8, per_group(0, 64)>
         : tensor<?x256xi8>, tensor<256x48xi8> -> tensor<?x48xf32>
  return %y : tensor<?x48xf32>
}

// simt: DeepSeek-V3's block-wise FP8 (1 x 128 activation groups, 128-row
// weight groups), bias.
func.func @e4m3_block(%x: tensor<?x256xf8E4M3FN>, %w: tensor<256x48xf8E4M3FN>,
    %sx: tensor<?x2xf32>, %sw: tensor<2x48xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 128)>
         rhs_scale(%sw : tensor<2x48xf32>) rhs_scheme <f8E4M3FN, per_group(0, 128)>
         bias(%b : tensor<48xf32>)
         : tensor<?x256xf8E4M3FN>, tensor<256x48xf8E4M3FN> -> tensor<?x48xf32>
  return %y : tensor<?x48xf32>
}

// W-MX / A-MX: MXFP8 on both operands (E8M0 scales per block of 32).
func.func @mx_e4m3(%x: tensor<?x128xf8E4M3FN>, %w: tensor<128x40xf8E4M3FN>,
    %sx: tensor<?x4xf32>, %sw: tensor<4x40xf32>) -> tensor<?x40xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x4xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<4x40xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
         : tensor<?x128xf8E4M3FN>, tensor<128x40xf8E4M3FN> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

// W4A8 MX: MXFP8 activations x MXFP4 weights (FP4 has no C form: the
// weights are quantized on the device first, a buffer of E2M1 codes
// between two kernels).
func.func @mx_e4m3_x_e2m1(%x: tensor<?x128xf8E4M3FN>, %wf: tensor<128x40xf32>,
    %sx: tensor<?x4xf32>, %sw: tensor<4x40xf32>) -> tensor<?x40xf32> {
  %w = octet.quantize %wf scale(%sw : tensor<4x40xf32>) as <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<128x40xf32> -> tensor<128x40xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x4xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<4x40xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x128xf8E4M3FN>, tensor<128x40xf4E2M1FN> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

// MXFP4 on both operands (E2M1 codes quantized on the device, E8M0 scales
// per block of 32 along K; sm_120a: kind::mxf4 scale_vec::2X m16n8k64). K =
// 160: the second K tile of 64 holds one block.
func.func @mx_e2m1(%xf: tensor<?x160xf32>, %wf: tensor<160x40xf32>,
    %sx: tensor<?x5xf32>, %sw: tensor<5x40xf32>) -> tensor<?x40xf32> {
  %x = octet.quantize %xf scale(%sx : tensor<?x5xf32>) as <f4E2M1FN, per_group(1, 32), e8m0>
         : tensor<?x160xf32> -> tensor<?x160xf4E2M1FN>
  %w = octet.quantize %wf scale(%sw : tensor<5x40xf32>) as <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<160x40xf32> -> tensor<160x40xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x5xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<5x40xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x160xf4E2M1FN>, tensor<160x40xf4E2M1FN> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}
// NVFP4 on both operands (E4M3 block scales per 16 times global scales
// 0.5 and 0.25; sm_120a: kind::mxf4nvf4 scale_vec::4X m16n8k64, the global
// scales in the epilogue), bias, ReLU, f16 result. K = 80: one block in the
// second K tile.
func.func @nv_e2m1(%xf: tensor<?x80xf32>, %wf: tensor<80x24xf32>,
    %sx: tensor<?x5xf32>, %sw: tensor<5x24xf32>, %b: tensor<24xf32>) -> tensor<?x24xf16> {
  %x = octet.quantize %xf scale(%sx : tensor<?x5xf32>) as <f4E2M1FN, per_group(1, 16), e4m3(0.5)>
         : tensor<?x80xf32> -> tensor<?x80xf4E2M1FN>
  %w = octet.quantize %wf scale(%sw : tensor<5x24xf32>) as <f4E2M1FN, per_group(0, 16), e4m3(0.25)>
         : tensor<80x24xf32> -> tensor<80x24xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x5xf32>) lhs_scheme <f4E2M1FN, per_group(1, 16), e4m3(0.5)>
         rhs_scale(%sw : tensor<5x24xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.25)>
         bias(%b : tensor<24xf32>) relu
         : tensor<?x80xf4E2M1FN>, tensor<80x24xf4E2M1FN> -> tensor<?x24xf16>
  return %y : tensor<?x24xf16>
}

// The same two FP4 products on codes passed in (one per byte, as i4: E2M1
// has no C form), for the oracle of mx_scales.py.
func.func @mx_e2m1_codes(%xi: tensor<?x160xi4>, %wi: tensor<160x40xi4>,
    %sx: tensor<?x5xf32>, %sw: tensor<5x40xf32>) -> tensor<?x40xf32> {
  %x = arith.bitcast %xi : tensor<?x160xi4> to tensor<?x160xf4E2M1FN>
  %w = arith.bitcast %wi : tensor<160x40xi4> to tensor<160x40xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x5xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<5x40xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x160xf4E2M1FN>, tensor<160x40xf4E2M1FN> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

func.func @mx_e4m3_x_e2m1_codes(%x: tensor<?x96xf8E4M3FN>, %wi: tensor<96x40xi4>,
    %sx: tensor<?x3xf32>, %sw: tensor<3x40xf32>) -> tensor<?x40xf32> {
  %w = arith.bitcast %wi : tensor<96x40xi4> to tensor<96x40xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x3xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0>
         rhs_scale(%sw : tensor<3x40xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x96xf8E4M3FN>, tensor<96x40xf4E2M1FN> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

func.func @nv_e2m1_codes(%xi: tensor<?x80xi4>, %wi: tensor<80x24xi4>,
    %sx: tensor<?x5xf32>, %sw: tensor<5x24xf32>) -> tensor<?x24xf32> {
  %x = arith.bitcast %xi : tensor<?x80xi4> to tensor<?x80xf4E2M1FN>
  %w = arith.bitcast %wi : tensor<80x24xi4> to tensor<80x24xf4E2M1FN>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?x5xf32>) lhs_scheme <f4E2M1FN, per_group(1, 16), e4m3(0.5)>
         rhs_scale(%sw : tensor<5x24xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.25)>
         : tensor<?x80xf4E2M1FN>, tensor<80x24xf4E2M1FN> -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// Element-wise ops.
func.func @quantize_i8_axis(%x: tensor<?x37xf32>, %s: tensor<37xf32>) -> tensor<?x37xi8> {
  %q = octet.quantize %x scale(%s : tensor<37xf32>) as <i8, per_axis(1)>
         : tensor<?x37xf32> -> tensor<?x37xi8>
  return %q : tensor<?x37xi8>
}

func.func @quantize_e4m3(%x: tensor<?xf32>, %s: tensor<f32>) -> tensor<?xf8E4M3FN> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E4M3FN>
         : tensor<?xf32> -> tensor<?xf8E4M3FN>
  return %q : tensor<?xf8E4M3FN>
}

func.func @quantize_e5m2_bf16(%x: tensor<?xbf16>, %s: tensor<f32>) -> tensor<?xf8E5M2> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E5M2>
         : tensor<?xbf16> -> tensor<?xf8E5M2>
  return %q : tensor<?xf8E5M2>
}

func.func @dequantize_u4_group(%q: tensor<?x64xi4>, %s: tensor<?x4xf32>,
    %z: tensor<?x4xi32>) -> tensor<?x64xf16> {
  %x = octet.dequantize %q scale(%s : tensor<?x4xf32>) zero_point(%z : tensor<?x4xi32>)
         as <u4, per_group(1, 16), asymmetric> : tensor<?x64xi4> -> tensor<?x64xf16>
  return %x : tensor<?x64xf16>
}

func.func @requantize_i8_u8(%q: tensor<?x33xi8>, %s0: tensor<f32>, %s1: tensor<f32>,
    %z1: tensor<i32>) -> tensor<?x33xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <i8>
         to scale(%s1 : tensor<f32>) zero_point(%z1 : tensor<i32>) as <u8, asymmetric>
         : tensor<?x33xi8> -> tensor<?x33xi8>
  return %r : tensor<?x33xi8>
}

func.func @params_token_i8(%x: tensor<?x300xf32>) -> tensor<?xf32> {
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<?x300xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @params_group_u8(%x: tensor<?x96xf16>) -> (tensor<?x3xf32>, tensor<?x3xi32>) {
  %s, %z = octet.compute_params %x as <u8, per_group(1, 32), asymmetric>
             : tensor<?x96xf16> -> tensor<?x3xf32>, tensor<?x3xi32>
  return %s, %z : tensor<?x3xf32>, tensor<?x3xi32>
}

// NF4 with double-quantized scales computed at run time: e4m3(absmax /
// 0.5) * 0.5 per token and block of 64, then the codes.
func.func @params_nf4dq(%x: tensor<?x128xf32>) -> (tensor<?x2xf32>, tensor<?x128xi4>) {
  %s = octet.compute_params %x as <nf4, per_group(1, 64), e4m3(0.5)> : tensor<?x128xf32> -> tensor<?x2xf32>
  %q = octet.quantize %x scale(%s : tensor<?x2xf32>) as <nf4, per_group(1, 64), e4m3(0.5)> : tensor<?x128xf32> -> tensor<?x128xi4>
  return %s, %q : tensor<?x2xf32>, tensor<?x128xi4>
}

func.func @params_tensor_e4m3(%x: tensor<?x17xf32>) -> tensor<f32> {
  %s = octet.compute_params %x as <f8E4M3FN> : tensor<?x17xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// OCP MXFP8 activations (the w8a8-mxfp8 recipe): an E8M0 scale per token
// and block of 32, then the codes.
func.func @params_mx_e4m3(%x: tensor<?x96xf32>) -> (tensor<?x3xf32>, tensor<?x96xf8E4M3FN>) {
  %s = octet.compute_params %x as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<?x96xf32> -> tensor<?x3xf32>
  %q = octet.quantize %x scale(%s : tensor<?x3xf32>) as <f8E4M3FN, per_group(1, 32), e8m0>
         : tensor<?x96xf32> -> tensor<?x96xf8E4M3FN>
  return %s, %q : tensor<?x3xf32>, tensor<?x96xf8E4M3FN>
}

// gemv with constant 4-bit weights, packed two per byte at compile time
// (K x N/2 bytes; the CPU build packs its own way): W4A16 per group with
// full 16-column chunks (8-byte loads), NF4 and E2M1 with N % 16 != 0
// (byte loads at the edge), u4 per channel with zero points.
func.func @w4a16_const(%x: tensor<?x128xf16>, %sw: tensor<2x32xf32>) -> tensor<?x32xf32> {
  %w = arith.constant dense<[[-4, -3, -1, 5, 5, -5, 4, -5, -7, -3, -8, 5, 2, 5, 1, -1, 4, 7, 6, -8, -6, -1, 4, 3, 4, -4, 4, -1, 0, 6, -8, -4], [1, 7, 7, -8, 4, 7, -8, 3, -4, 1, 0, 7, 0, 2, -4, 3, -2, 7, -4, -7, -6, 0, -8, -7, -4, 4, 3, -2, -7, -6, -4, 6], [7, 2, -3, 1, 1, -8, -6, -3, -7, -7, -4, 5, -2, 2, -4, -4, 6, 1, -2, 5, -8, 7, 1, -8, 6, 3, 1, 1, 1, 2, 2, -4], [-6, 3, 4, -2, 3, -8, -2, -6, -8, 5, -1, -1, 4, -7, -3, 2, -7, -8, -7, -8, -4, 2, -5, 5, -5, -4, -5, -2, 1, -2, -6, -8], [0, -7, 7, -4, -7, -8, -5, -7, -8, 5, -8, -2, 1, -3, -4, -2, 2, 5, -1, -8, -5, 4, -1, -7, 0, 4, 5, -6, 5, -2, -8, -3], [0, -1, 7, -1, -2, 2, -3, 3, 5, 0, 6, 7, 5, 0, 3, -2, -4, 7, -8, 0, -5, -4, 1, 0, -1, 6, -6, 3, -6, 5, -3, -3], [6, -8, -7, -6, 3, -6, 4, -8, 6, 2, 2, -2, -8, -7, 3, -5, 6, -3, 1, 5, -2, -6, -6, -3, 1, -8, 3, 6, 6, -7, -5, 6], [1, -4, 1, 6, -7, -2, 6, -1, -4, 7, 6, 5, -3, -2, 3, -5, 1, 6, -3, 6, 0, -8, 5, 5, -6, 2, 0, 4, -5, 0, -7, -8], [-4, -2, -7, 4, 5, -3, -3, 4, -2, -4, -1, -3, -3, -6, -2, 2, 6, -4, 6, 6, -2, 4, -6, -7, -5, -2, -7, -5, -2, 4, -4, 6], [3, -6, -1, 3, -8, 0, -3, -7, 4, -8, -7, -2, 1, -8, 1, 1, 5, 5, 3, -8, 7, 0, -6, 2, 6, 6, -2, 6, -8, 0, 4, 1], [-6, 7, 1, 7, 1, 6, -1, 3, 1, -3, -8, -3, 5, 3, -7, -7, -7, -3, 6, -3, -1, -3, 4, -8, 0, 7, -6, 5, -6, 3, -6, 4], [6, 1, -2, 1, -7, -3, -8, -5, 0, -4, 6, -8, 0, -5, -6, -6, -4, 7, 2, -2, 5, -4, -5, 7, -2, 6, -2, 0, 2, 4, 6, 6], [7, 1, 3, -6, -3, -1, -2, 6, -4, -4, 0, -8, 3, -6, -4, 0, -4, 3, 3, -7, -1, 0, -2, 2, -6, 7, 3, 7, 5, 1, 5, -2], [-3, -4, 3, 0, -5, 1, -2, -2, 3, 6, 5, 1, -5, -5, -6, -2, -7, -8, -1, 4, -4, -8, 1, -1, -3, -2, -6, -2, 5, -5, 4, -1], [5, -8, -8, -7, -7, 3, -3, 0, 2, 7, -6, 0, 1, -2, 7, -8, -6, 7, -2, 1, 3, -1, 5, -3, 2, -1, 0, -6, 0, 2, 6, 2], [-8, 0, 7, -2, -6, 6, -2, -7, -6, -4, -8, -1, -3, -7, 4, -1, 2, -2, 6, -1, 0, -8, -6, 4, 6, -6, -3, 5, 0, -6, -1, -6], [-5, 7, 5, 7, -8, -6, 7, -5, -3, 4, -5, -4, 5, -2, 6, -8, 0, 1, 0, 1, -3, 5, 7, 2, 4, -8, -1, -4, -5, 7, -2, 2], [1, 5, 1, 0, -8, -7, 1, -8, -2, 7, -5, -5, -3, -1, -4, 5, -5, -4, 2, 7, -4, -3, -6, 2, 0, 4, -4, -6, 5, -5, -5, 1], [6, -7, -3, -7, -2, -3, -5, -1, -2, -5, 7, 3, 4, -5, -4, -1, 0, -2, 1, -2, 4, -2, -5, -4, -2, -4, 7, 2, -8, -7, -8, 5], [3, 3, -1, 4, 3, 4, -8, -8, 1, -1, -6, 6, -7, -1, 0, -4, -3, 5, 2, -5, -6, -3, -5, 1, 4, 1, -7, 0, -2, -1, 7, 6], [1, -7, -1, 6, 1, -6, 4, 7, 6, -1, -1, -4, -5, -7, -4, -7, 1, 6, 4, 0, -3, 3, 5, -7, -7, 2, 6, -5, 3, -1, -6, 2], [3, -6, -6, 2, -7, 5, -5, 6, -3, -7, -2, -8, -4, -3, -6, -2, -1, -1, 1, 2, 0, -8, 0, -1, -7, 7, 0, -1, 0, 2, 1, -4], [-7, 5, 1, -6, -1, 4, -5, 4, 6, 4, 3, -2, -6, -8, 7, -5, -6, -2, 3, 2, 7, 1, 1, 6, -2, 7, -8, -3, -6, 4, -1, -1], [-7, 3, -8, 1, -3, -3, 4, 4, -4, 4, -5, -6, 5, -8, -2, 3, 4, 3, -4, 0, -8, -4, -3, 7, -7, 7, 3, -2, 6, -5, 5, -5], [-3, 1, -4, -8, -4, 5, 7, 3, 4, 2, -7, -8, -4, -4, -2, 6, 5, -2, -6, -3, -6, -8, -6, -6, 6, -4, 7, 5, -2, -5, -3, 3], [-6, 1, 0, -4, -4, 1, 4, 3, -4, -8, -7, -3, 0, 1, 3, -5, 6, -1, -6, 7, -1, 1, 6, -8, 6, -2, 1, -6, 4, 1, -7, -4], [2, 7, -2, -2, -5, 0, -4, -7, -8, -2, 7, 0, 2, 4, -3, 5, 3, 7, -6, -6, 6, 2, -4, 4, 7, -4, 3, -2, -2, 6, -8, -5], [-1, 2, -7, 2, 5, -5, 2, -2, 0, 5, 3, 1, -1, 7, 5, 5, 3, 7, 2, 3, -6, 4, 7, -1, -6, 2, 2, -5, -5, 2, 2, 2], [-5, -4, 0, 2, -2, -2, -5, 6, 1, 1, -3, 5, -3, 5, -2, 3, -4, 2, -3, -2, -5, -1, -6, -4, 2, 4, 2, 5, -8, -6, 7, 5], [4, 1, -3, -4, 1, -2, -6, -3, -1, -4, -6, -4, 1, -7, -8, 0, -2, 3, -7, 2, -6, 6, 7, 2, 0, 5, 7, -5, 5, -4, -4, 5], [-6, -4, 1, -1, -5, -7, -7, -7, 2, -4, -6, -7, -5, -4, -8, 7, 6, -2, -2, -8, -2, -8, 4, 7, -7, 4, 6, -1, 1, -4, 4, 5], [2, 2, 3, 4, 4, 1, -5, 2, -7, 1, 7, -7, 1, 0, -6, -6, -8, -6, -1, -4, 4, -5, 7, -5, 0, 6, 6, -2, -7, 5, -8, 2], [5, -3, -4, -1, 5, -5, -2, -1, 1, -8, -4, 7, -5, -4, 4, 4, -1, -7, 3, 3, -8, -8, 0, 6, -6, 7, -2, 4, -2, 1, -4, 6], [-7, -7, 4, -3, 6, 3, 0, -6, -3, -5, 5, 1, -1, -4, 4, -3, 1, -2, -5, 0, -3, 2, -6, 0, -5, -1, 0, -7, 3, -7, 4, 3], [1, 4, 4, 6, 1, 3, 0, -3, -7, -4, -2, -6, -5, 0, -1, 0, 4, -8, -2, 1, 0, 2, 4, 5, 0, -1, 3, -8, -8, 0, 4, 3], [-4, 3, -3, 5, 7, 5, 3, -7, 5, -4, -1, -2, -3, -5, 6, -1, 4, -8, 2, 5, 5, -7, 4, 4, -7, -4, 7, 2, 4, 7, 3, 5], [-3, 0, 4, -4, 6, 6, -2, -8, -3, 7, -6, -3, 3, -1, -2, -3, -5, -8, -2, 4, -7, 0, -5, 5, -3, 0, 7, 2, -4, 1, -6, 6], [-8, 0, -1, -8, -5, -3, 1, 1, 1, -6, -3, -1, -1, -3, 6, 5, -3, 5, 7, -3, -3, -4, 1, -2, 4, -5, 6, -1, -2, 4, -3, 3], [-2, 0, 2, 0, -2, 6, 6, -1, -3, -1, 6, 1, 6, -6, 7, 1, 4, -4, 3, 3, 1, -5, -4, -7, 4, -8, 2, -5, -6, 6, -4, 1], [-1, 7, 4, -7, -3, 3, 4, -7, 7, 3, -6, 7, 4, 7, 3, -7, 2, 6, -3, 6, 4, -4, 6, -2, -6, 4, 7, -2, 5, -5, -2, 1], [-6, 5, 2, 6, 7, -7, -8, -1, -5, -8, -6, -2, 3, -5, 3, -4, -3, -8, -2, 0, -7, -8, 7, 4, -8, 4, 4, 5, -8, -6, -5, 3], [3, 0, 3, 7, -7, -8, 3, 1, 4, 6, -1, -5, 3, 3, -2, -6, -4, -8, -4, -4, -5, 5, 7, -5, -2, 7, 3, -1, -8, 0, -4, -3], [-7, 3, -2, -5, -4, -7, 1, 3, -3, -6, 4, 6, -3, -7, 4, 1, -2, 0, -4, 5, -5, -5, 5, 4, 5, -2, -3, 5, -3, 2, -1, 3], [-6, -5, -4, -4, 2, 6, 7, 3, -8, -3, -5, -5, -6, 4, 2, -8, 2, -3, -4, 2, -8, 6, -3, 6, 7, -6, -4, 5, -3, -3, 0, 7], [-7, 3, 1, 7, -5, 1, 0, 0, -7, 0, 4, 0, -2, -2, 4, -3, 6, 1, 5, 7, 3, 0, 7, -8, -1, -8, -8, 0, -3, 3, 6, 0], [0, 4, 7, -3, -5, 0, 5, 3, 4, -1, -4, -4, 6, -3, 5, -7, -1, 5, 1, -4, 4, -7, -2, -2, 4, -1, -3, -5, -2, -2, -4, 1], [4, -1, -5, 4, -7, 2, -3, -7, 7, 2, 3, -6, 7, -2, 2, 6, -3, -6, 3, 6, 2, 7, -7, 4, -7, 2, -3, 6, -4, 2, -2, 7], [-5, 5, 0, 1, 6, 2, -6, 1, 2, 0, -2, -4, 5, -5, -6, 3, -6, 4, -4, -8, -7, -2, 6, -5, -8, 2, -6, 2, 0, 5, 1, 2], [6, -2, 2, 6, -2, -2, -1, -5, 3, 5, -4, 4, 5, 7, 2, -3, -5, 4, -5, -2, 2, -1, -7, 7, 3, 5, 6, 1, -6, 6, 4, 6], [5, -7, 2, -5, 1, 3, 6, 6, -8, 5, 2, 5, -7, -1, -8, -7, -2, -6, 6, -8, -3, 6, 5, -1, -3, 4, -5, -7, 0, -2, 4, 1], [0, 5, 1, -5, -5, -7, 2, 2, -3, 3, -7, 4, -4, 7, 7, 1, 6, -5, 7, 1, -4, 6, 7, -6, -7, -2, -4, 6, 3, 6, -6, -4], [1, -4, -8, -6, -5, 1, 5, 2, -7, 5, 4, 0, -7, 3, -7, -5, -2, 2, -6, 2, -4, -3, -5, 4, -5, 2, 6, 0, -1, 3, 3, 1], [-1, 3, 1, -4, -6, 7, 1, 0, 1, 3, 4, -5, 2, 1, 6, -4, 6, 6, 3, 5, 0, 4, -7, -1, 4, -2, 6, 2, 6, -1, 7, 7], [-2, 3, 1, -4, -8, 5, 4, 4, -8, -4, -5, 7, -2, -5, 5, 7, -2, -1, -2, 1, 4, -2, -7, 5, -6, -1, -8, 6, -4, 6, -2, 7], [4, -7, 5, -2, 5, -2, 6, -6, 4, 5, -3, -4, -5, 3, 0, 0, 6, 2, -2, -6, 1, 4, 1, -3, 2, 3, 2, -2, -8, -2, 5, 7], [-1, -8, 1, -4, 7, 1, -8, 5, -2, 5, 4, -2, 1, -7, -3, 4, -3, 0, 2, -3, -7, -3, -7, -2, 5, -4, -8, -2, 7, 5, -5, 1], [4, -8, -3, -6, -6, 6, 3, 0, -6, -7, -6, -5, -3, -7, 3, 0, 0, 0, -2, -1, -5, 5, 4, -3, 7, 7, 6, -8, 1, -7, -1, 5], [-5, 1, 1, 7, 4, -2, -2, 7, -5, -5, -8, 7, 0, -5, 3, 0, -2, -5, -7, -8, -4, -7, -3, -7, 2, 0, -8, 7, -1, -7, 1, 0], [-2, 0, 5, -1, -3, 4, -7, 5, 6, -2, -3, 2, -3, 3, 0, 4, 1, 7, -6, -4, -2, -5, 0, 0, 1, 6, -2, 4, -4, -6, -4, 3], [5, -4, -7, 7, -4, -8, -3, 4, 0, 5, 2, -5, -3, 0, -3, -5, -2, 0, -4, 3, -1, 5, -7, 1, -7, -7, 6, 7, 3, -5, -4, 3], [2, -6, 1, 4, -8, -2, 4, -2, -6, -5, -4, 6, -2, -7, 2, -8, -5, 4, 2, -6, -1, -8, -1, 3, 4, -8, -6, 4, -6, 4, -5, 7], [-8, -7, 0, 0, 3, -2, 0, 0, 2, -7, -2, 3, -8, -2, 2, 0, 0, 7, 0, 1, -6, 2, -4, 7, -2, -2, -6, 4, 7, 1, 1, -3], [4, -7, 3, 5, -6, 6, 4, -4, -5, 0, -8, 5, 2, -4, -5, -5, -7, 3, -2, -3, -2, -5, -2, -8, -6, 4, -3, -8, 1, 4, -5, -1], [0, 4, 2, -3, -4, 1, 4, -4, 2, 2, 4, 2, 3, 4, 1, 6, 5, 5, -1, 0, -3, -2, 0, -8, 7, -6, 3, 0, 6, -7, 7, -3], [-8, -2, -3, 6, -2, 3, -6, 2, -2, 6, 0, 6, 3, 4, -2, -8, -8, 4, 2, 7, -4, 1, -7, 7, -3, -3, -7, -2, 0, -2, 7, -8], [-4, -7, -1, -2, -7, -2, -4, 0, -2, 6, -4, 0, 4, 2, -6, 1, 5, -3, 7, 1, 0, -7, 6, 4, -8, 2, 7, -7, 2, -5, 3, 3], [-2, 2, -4, -6, 3, -8, -4, -2, -6, 1, 5, -4, 4, -3, 2, 0, 7, 6, 5, -1, -8, -5, 1, 5, -2, -8, 7, -2, 1, 0, 5, 7], [-1, 5, -1, -2, 0, 7, -6, -2, 6, 5, 3, -7, -5, 0, -2, 4, -5, 2, -2, 0, 4, -4, -6, -7, 5, 5, 6, -2, 5, -3, 4, -6], [-5, -4, 5, -5, -2, 1, 6, 7, 6, 5, -2, -1, -6, -6, -5, -6, -6, -1, -5, -8, -7, -2, -4, 7, 4, -3, 2, 2, -1, -2, -5, 1], [-8, 6, 1, 5, 0, -1, -8, 0, 1, 0, 7, -3, -5, -7, 5, -6, -3, -1, -3, -4, 3, 2, -3, -4, 7, 4, 4, -3, 6, 7, -7, 4], [1, 5, 3, -1, 7, -8, 3, 0, 1, 7, -5, 7, -1, -5, 2, -6, 0, -3, -1, -3, -4, -3, 1, -1, -2, 0, 3, -5, 5, 3, 2, -2], [-7, 2, 2, 0, -8, 7, -8, -8, -4, -3, -6, 1, 3, 7, -5, -4, 3, 3, 4, 0, -7, -3, -2, -6, 7, 7, 2, -4, 0, -4, -1, -3], [-8, -3, -3, -8, 1, -3, -2, -4, 2, 7, 1, 5, -1, 0, -5, -6, -1, -8, -4, 2, 3, 7, 0, -1, 3, -2, -1, -2, 5, -3, -5, 0], [3, -1, -4, 0, -3, 5, -2, 4, -8, 7, -4, 7, -7, 7, -3, 6, -5, -1, -6, 3, -5, -2, -7, -4, -8, -2, 4, 0, 3, 3, -8, -4], [-7, 5, 4, -8, -3, -4, -8, 0, -1, 1, -5, 4, 1, -3, 7, -7, -7, -8, -2, 3, 5, -6, -4, 2, 4, -4, 7, 4, -8, -4, -1, -5], [1, 6, 0, -8, 7, 6, -8, -2, -7, 3, 0, -7, 2, -7, -2, 6, 2, -2, 7, -2, -1, 4, -5, 2, 5, -2, 7, 3, 1, -6, 4, -7], [4, -2, 0, 6, -6, -8, 0, -6, -6, -1, 2, -6, -4, -2, 4, -3, -6, -3, 3, -2, -3, -5, 1, 4, 1, -5, 5, -2, 0, 1, 3, -2], [-7, -2, 4, 0, -8, -4, 7, -2, 1, 5, -2, -2, -8, 7, -5, 3, 4, -3, -3, -7, 2, -2, -7, 2, -2, -3, 6, 7, 5, 7, 7, -8], [-6, 3, -1, -3, 1, 3, 6, 1, 4, 7, 7, 7, -5, 4, -6, 3, 4, -3, 0, -6, 7, 6, 6, -5, 1, -5, -8, 0, -1, -2, 6, 5], [-6, 1, -1, -4, -3, -6, -3, -7, -7, 0, -8, -6, 5, 0, -3, -6, 6, -5, -8, -2, 1, -3, -8, 0, -5, -8, -3, -2, 6, -5, -5, -3], [-8, -6, 7, 4, -8, -4, -3, -1, -1, -3, -2, -7, -4, 6, 3, -1, -3, -5, 0, 7, -1, -4, -6, 6, -6, 4, -1, 3, 5, 1, -1, 5], [-6, -7, 4, 3, -6, -3, -8, -3, 1, -1, -4, 3, 5, -1, -6, -3, 2, -2, -2, 0, 7, -8, 4, -8, 5, -2, 6, 5, 0, -7, 0, -1], [3, 5, -4, -7, -6, 4, 0, 1, -3, 3, 1, -5, 2, 1, 7, -3, 5, -7, -2, -5, 3, -6, 3, 1, 6, -7, 7, -7, 2, -6, 4, -4], [-7, -7, 0, 7, 1, -6, -3, 5, 1, 4, -3, 0, 4, 7, -1, 5, 3, 2, -2, -4, 3, 3, -2, 3, 7, -3, 1, 3, 5, -7, 7, -1], [4, -3, 6, 4, 5, 0, -1, 5, 3, 6, -6, -3, -2, -8, 7, -7, 7, 4, 7, -4, -6, -4, 3, -7, -8, 1, -7, 3, 4, 2, 3, -3], [0, 6, -5, 5, 6, 5, -7, 5, -7, -4, 2, 0, -4, 5, 4, -4, 6, 4, -1, -2, 6, -4, 2, -2, 4, 3, -5, 1, -6, -7, 0, -8], [4, 4, 3, 3, -1, -4, -5, -6, 7, -7, -8, 5, 1, 3, 0, -5, -3, 5, -8, -5, 0, 2, -2, 5, -2, -1, -5, 7, 4, 5, 7, 7], [-2, 0, -8, -1, -6, -5, 3, 4, -5, -1, 7, 2, -7, -1, -8, -3, 4, -2, -8, -2, -8, 2, -3, 6, 2, 0, -5, -2, -2, 4, -7, 5], [-7, 6, 5, 2, -2, -4, 6, -7, -2, 6, 7, -8, -1, 4, 3, 7, -3, 5, -8, -5, -5, 7, -3, -2, -2, -7, -5, -5, -2, 7, -1, -6], [-2, -5, 5, 6, 0, -1, 0, 2, 2, -7, 1, -5, 2, 7, 2, 1, 6, -8, 1, 2, -3, 4, 4, 5, 0, 1, 1, -3, 0, -1, -6, 6], [-3, 6, -5, -3, 4, 4, -3, 4, 3, -5, -8, 0, 5, -6, 3, 1, -2, -2, -6, -1, 3, -7, -1, 3, -4, 2, -1, 6, -2, -4, -4, -6], [-7, -4, 0, -6, -4, 7, -6, -5, -1, -4, 2, 0, 4, 6, -1, -1, -7, -7, 7, 2, -2, 1, 1, 3, 1, -4, 4, 3, 1, -3, 6, 7], [1, 5, 7, -3, -4, -8, -6, -8, 4, 0, 1, -6, 7, -5, -6, -4, 5, -1, -6, 6, 5, -3, 5, 7, -2, -1, 4, -2, -3, 3, 2, 5], [4, 7, -3, -2, 6, -8, -7, 0, -2, 6, -4, -5, 1, 6, -5, 4, -7, 2, -2, -3, 2, -6, 7, -7, -2, -6, -1, 3, 1, -1, 2, -1], [-4, -4, -5, -5, -8, 0, -3, 1, -2, -7, -7, -3, 5, -3, -4, -3, 7, 4, 3, -7, 2, 3, 4, -7, -7, -1, -1, -7, -5, 3, 1, -5], [1, 5, -6, 2, -3, -3, -7, 1, 3, 2, 6, -1, -8, 3, -7, -1, -8, 3, -7, -8, -7, -1, 6, 6, 0, -8, -3, 6, 7, -1, 5, -4], [5, 6, 3, -4, -7, 3, -6, 5, 2, 3, -8, -8, 3, 2, 5, 6, -2, 5, -3, 7, 0, 3, -6, 2, -8, -7, -7, -2, -2, 6, 3, -4], [-8, -6, 3, -2, 5, -6, -8, 0, -3, 7, 5, -2, 3, -6, -7, -7, -4, 1, -3, -8, 6, 7, -7, -3, -6, -5, -5, 2, 7, -7, 6, 7], [-1, -4, 0, 5, 6, 1, 3, -3, -8, 6, -6, 5, -2, 1, 5, 6, -5, 5, -4, 5, -5, 3, 1, -6, 2, -5, -1, 3, 0, 2, -7, -7], [-2, 2, 5, -6, 2, -6, 7, -4, 7, -1, -1, -7, -6, -8, -7, 2, 4, 4, 7, -3, 6, -7, 4, -2, -1, -6, -3, -5, 6, -4, -7, 0], [-3, 0, -5, 0, 4, 5, -1, 5, 0, 5, 4, -2, 1, -2, 1, -8, 6, 0, -6, 0, 7, 1, 7, 1, -2, -8, 7, -2, -8, -5, 6, -7], [-7, -5, 1, -6, -7, 7, -3, 1, 1, -3, -8, -8, 7, -6, -3, 4, -1, 7, 3, 4, -5, -4, 0, -4, 0, 0, -8, -6, -3, 6, -8, 4], [6, 7, -5, -8, -1, -2, 3, -8, 5, 0, -7, -8, 7, 4, 7, -7, 7, -8, -8, -5, 3, 1, -6, -6, -4, 7, -1, 5, -7, 4, -8, -4], [3, 7, -8, 6, 3, 7, -8, -1, -7, 6, -7, -3, 2, -8, 1, -7, -1, -6, -8, 1, -1, -8, -8, 7, 3, 7, -6, 0, -8, 5, 1, -3], [-3, 0, -7, 1, 1, 4, -5, -5, 4, 6, 4, 6, 3, 5, -7, 7, 4, -4, -6, 5, 2, -7, 2, -6, -5, 4, 1, 2, 5, 6, 7, -3], [-1, -4, 0, -1, -4, -8, -6, -7, -3, 3, 7, 3, 1, -5, 1, 1, 1, 6, -2, -5, 4, -1, 0, -8, -7, -5, -6, 7, 6, 2, -1, -8], [-1, -8, 5, 4, -5, 3, -3, -8, 6, -6, -3, 3, 1, -7, 7, 7, 4, 4, 3, 3, 2, -1, 4, -8, 6, -1, 2, -6, 0, -4, -3, -8], [-4, 0, -3, -4, 3, -1, 1, 2, 4, -1, -6, -7, 6, 0, -8, 7, -5, -5, -5, 5, -3, 7, -4, 3, -2, 6, 5, 7, 7, 3, -2, -1], [-3, -6, 1, 7, -8, -3, -6, 0, -8, 3, -6, -7, -1, 3, -4, 3, 5, -4, 7, 5, 3, 7, -3, -6, -2, 6, -2, 0, -4, -4, -2, 7], [-3, -7, -7, 1, 5, -3, -8, 7, 4, -7, -4, -4, 7, -3, 3, 5, 1, 0, 1, -6, -8, 2, -4, 3, -1, -3, -6, 3, -8, -6, 0, -1], [6, -6, 0, -6, -2, 4, 6, -1, -5, 2, -3, -8, -1, 6, 5, 3, -1, 2, -2, 6, 7, 5, 0, 5, -8, -2, 7, -3, 1, 7, -6, 5], [-7, -5, 4, 2, 4, -6, 1, -8, -4, -2, -2, -4, 6, 6, 0, -6, -4, 6, 6, -4, -3, -5, 7, 5, 7, -5, -3, -1, -6, 6, -3, 0], [1, 4, 3, -4, -2, -2, -3, -7, 4, 1, 3, 3, 0, -7, 6, -8, 6, 7, -7, -7, -2, 6, 3, -1, 5, 7, -8, 4, 4, 3, -1, 2], [2, 2, -2, -5, 0, 3, -2, -3, -6, -2, -4, -6, -5, -2, 1, -2, -5, 0, -2, -5, 2, 2, 3, 1, 7, 4, 4, 5, -4, 0, -4, 5], [-7, -4, -2, 5, 5, 2, -2, -7, 0, -3, 6, -3, -5, -7, -6, -1, -7, -8, -4, -4, 2, 4, 0, 3, -6, 1, -7, -5, -5, 0, 2, 1], [6, 5, 6, -1, 3, 7, 1, 4, 2, -5, -7, 3, -1, 2, 0, 1, 3, 1, 2, 6, -1, 3, 3, 7, 7, 4, 6, -4, 7, 4, -7, -1], [1, -4, -6, 3, 6, -3, -1, -8, 6, -5, 2, -5, 4, 1, -7, 6, -8, 4, -4, -4, -5, -1, 1, -7, 7, 4, -7, -8, -2, -2, 1, -4], [3, 2, -8, -4, 6, -3, 5, -1, 0, 7, 2, -3, 2, -4, 7, -6, 2, 6, -2, 4, -3, 1, -3, -3, 2, -3, -7, -2, 4, 0, -7, -4], [1, -3, -5, 1, 5, 2, 1, -2, -6, -1, -1, 7, -1, 2, 0, 1, 1, 1, 0, 6, 2, 1, 6, 4, 3, 4, 7, 3, -8, -3, -6, 7], [3, -6, 3, -7, -7, -6, -4, 7, 4, -2, 0, 2, -1, 7, -5, 6, -6, 5, -6, 1, 6, -5, 1, -4, 3, -8, -4, 0, 0, -8, 0, 2], [-7, -5, 0, -8, 4, 4, 5, -7, -6, -5, -6, 3, -4, -7, 0, -8, 3, -4, -2, 6, -1, 3, 0, -8, 5, -6, 1, -7, 3, 2, 7, 3], [3, -8, 2, 1, -8, 2, -6, 0, -4, -3, 1, -1, -2, -8, 4, -2, -8, -5, -7, -1, -5, 0, -4, -1, -7, 1, -3, 5, 2, -5, 6, -3], [6, -3, 3, 5, -4, -5, 4, -2, 6, -2, -7, -4, -4, 4, -6, -5, 7, 6, -5, 7, -3, 2, -6, 7, 7, 7, -6, 7, 3, 0, 5, 5], [-4, -7, -7, -7, 6, -4, 1, 3, -7, 0, -2, -4, 3, 7, 2, 1, -1, 0, 6, -1, 1, 1, -4, 1, 3, -4, 5, 7, -8, 5, 0, -7], [1, 7, 2, 4, 7, -2, -4, 0, 5, 0, 3, -2, 3, -1, -5, 5, -7, 2, -8, -6, -5, 1, -4, 5, -5, 3, -1, -8, -1, 2, -8, -6], [-1, -8, 0, 1, 6, 4, 5, -1, 0, 3, -7, -5, 5, 5, 6, -4, 5, -8, -8, -7, 6, 3, -8, 6, -5, -4, 6, -8, -7, 2, -2, 6], [-4, -6, -6, 0, -3, 3, -1, -8, 4, 5, 4, -7, -5, -4, -8, 6, -7, 4, 3, 5, 7, -6, -4, 3, 4, 6, 1, -5, 5, -5, -4, 0], [-8, -2, 7, 4, 7, 0, 7, -7, -4, 1, -4, -1, 0, 6, -7, -2, -2, -7, -2, 7, 7, -3, -7, -6, -4, -8, 1, -4, -7, 7, 1, -5]]> : tensor<128x32xi4>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x32xf32>) rhs_scheme <i4, per_group(0, 64)>
         : tensor<?x128xf16>, tensor<128x32xi4> -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

func.func @w4_nf4_const(%x: tensor<?x64xbf16>, %sw: tensor<1x40xf32>) -> tensor<?x40xf32> {
  %w = arith.constant dense<[[1, 2, 8, 9, 0, 4, 6, 11, 4, 5, 11, 11, 3, 0, 5, 14, 13, 1, 9, 5, 7, 15, 13, 10, 2, 3, 0, 10, 14, 7, 14, 5, 7, 14, 3, 11, 14, 1, 11, 11], [3, 4, 6, 2, 15, 10, 14, 12, 4, 14, 6, 3, 7, 14, 11, 7, 11, 6, 1, 0, 3, 12, 6, 3, 11, 3, 14, 6, 13, 15, 12, 10, 1, 2, 9, 15, 9, 0, 2, 0], [11, 6, 5, 0, 10, 5, 8, 10, 13, 12, 1, 1, 9, 2, 2, 2, 1, 6, 7, 10, 12, 15, 14, 4, 2, 4, 1, 5, 7, 15, 12, 2, 14, 4, 9, 5, 0, 9, 4, 15], [6, 15, 12, 9, 6, 1, 15, 3, 12, 10, 6, 9, 4, 9, 0, 4, 9, 9, 1, 1, 4, 3, 1, 0, 11, 12, 3, 5, 4, 11, 0, 10, 2, 5, 2, 7, 4, 13, 12, 2], [0, 0, 5, 15, 2, 5, 11, 1, 3, 3, 1, 13, 9, 9, 1, 15, 12, 2, 2, 3, 4, 7, 9, 10, 5, 8, 4, 12, 0, 9, 4, 3, 15, 10, 5, 9, 0, 6, 10, 11], [13, 7, 1, 11, 11, 1, 10, 13, 7, 0, 10, 14, 10, 10, 0, 9, 14, 13, 7, 11, 13, 1, 9, 15, 11, 14, 0, 11, 2, 3, 4, 10, 13, 15, 12, 10, 3, 3, 0, 9], [15, 5, 9, 3, 4, 15, 14, 2, 15, 12, 14, 14, 7, 11, 0, 6, 3, 4, 10, 4, 0, 2, 11, 8, 2, 2, 7, 12, 13, 12, 2, 3, 9, 0, 8, 6, 2, 0, 6, 13], [11, 10, 10, 9, 12, 5, 2, 6, 12, 7, 3, 13, 2, 11, 10, 15, 5, 12, 11, 6, 12, 6, 1, 4, 7, 5, 13, 11, 2, 10, 13, 8, 14, 3, 1, 3, 13, 14, 2, 10], [3, 1, 12, 10, 0, 5, 3, 3, 2, 4, 14, 11, 7, 9, 15, 10, 13, 8, 12, 15, 1, 1, 14, 9, 11, 12, 7, 0, 3, 8, 15, 6, 6, 7, 1, 1, 5, 3, 11, 11], [13, 11, 3, 7, 5, 11, 12, 4, 2, 7, 0, 9, 7, 5, 6, 2, 0, 12, 3, 7, 7, 15, 14, 15, 1, 2, 14, 15, 12, 9, 3, 3, 9, 9, 14, 11, 9, 1, 1, 9], [7, 8, 7, 13, 13, 8, 2, 4, 7, 13, 9, 9, 6, 14, 9, 6, 8, 1, 10, 6, 4, 7, 12, 11, 7, 14, 5, 5, 13, 7, 2, 8, 13, 15, 14, 9, 5, 11, 11, 10], [7, 9, 5, 15, 6, 9, 2, 7, 0, 8, 7, 13, 6, 0, 9, 0, 11, 2, 6, 6, 14, 7, 0, 7, 10, 11, 8, 2, 11, 1, 3, 8, 9, 13, 7, 5, 9, 3, 10, 7], [9, 0, 5, 10, 10, 8, 3, 1, 10, 12, 14, 14, 7, 6, 3, 0, 4, 6, 4, 6, 1, 14, 12, 4, 1, 0, 14, 13, 9, 7, 4, 2, 10, 9, 13, 7, 12, 10, 3, 13], [4, 8, 14, 8, 9, 10, 5, 5, 2, 11, 2, 5, 4, 2, 6, 9, 15, 3, 8, 3, 8, 0, 2, 2, 12, 13, 12, 8, 4, 10, 14, 2, 10, 9, 14, 6, 0, 2, 8, 13], [15, 3, 7, 13, 10, 4, 1, 0, 8, 5, 11, 15, 11, 10, 9, 5, 9, 5, 6, 1, 7, 0, 3, 4, 5, 7, 1, 0, 9, 7, 0, 14, 13, 9, 3, 11, 10, 13, 3, 13], [1, 10, 5, 6, 14, 7, 14, 7, 10, 7, 1, 15, 14, 11, 12, 2, 1, 0, 2, 15, 8, 3, 8, 8, 5, 7, 6, 14, 1, 11, 4, 4, 4, 6, 12, 7, 2, 0, 12, 0], [5, 6, 7, 6, 9, 4, 11, 9, 0, 12, 11, 15, 14, 11, 5, 9, 9, 12, 9, 15, 14, 13, 12, 0, 14, 13, 1, 9, 12, 0, 14, 10, 5, 11, 9, 8, 14, 6, 8, 6], [1, 10, 5, 15, 8, 15, 5, 3, 9, 6, 5, 15, 0, 11, 4, 10, 12, 14, 11, 6, 3, 2, 7, 3, 1, 13, 10, 8, 3, 4, 1, 11, 12, 8, 5, 3, 3, 5, 7, 14], [2, 1, 11, 15, 4, 8, 3, 10, 12, 13, 3, 4, 14, 8, 2, 4, 6, 1, 7, 7, 1, 13, 13, 9, 8, 6, 11, 2, 7, 0, 8, 1, 13, 7, 0, 1, 1, 8, 11, 14], [14, 5, 2, 4, 0, 15, 15, 11, 1, 14, 5, 8, 15, 1, 3, 5, 7, 6, 12, 2, 10, 6, 5, 1, 14, 12, 6, 10, 3, 12, 0, 9, 1, 1, 0, 11, 3, 4, 2, 15], [0, 4, 12, 1, 7, 3, 12, 2, 2, 5, 5, 10, 6, 11, 13, 14, 12, 9, 14, 5, 13, 15, 0, 2, 8, 4, 13, 13, 10, 8, 2, 15, 4, 0, 5, 14, 5, 9, 12, 0], [5, 13, 9, 9, 15, 4, 3, 0, 14, 4, 13, 12, 4, 14, 5, 14, 6, 0, 1, 15, 13, 7, 13, 5, 12, 13, 10, 5, 3, 2, 6, 1, 8, 11, 15, 3, 9, 4, 9, 1], [3, 14, 7, 6, 5, 8, 11, 10, 9, 7, 0, 3, 3, 13, 3, 1, 14, 5, 7, 2, 14, 9, 3, 12, 0, 13, 14, 12, 1, 12, 1, 2, 5, 14, 1, 7, 2, 13, 14, 0], [6, 4, 8, 6, 0, 11, 2, 10, 5, 4, 10, 5, 8, 1, 6, 7, 4, 4, 14, 9, 11, 12, 3, 6, 3, 11, 10, 9, 1, 15, 15, 9, 1, 1, 11, 10, 1, 14, 15, 12], [7, 13, 5, 4, 12, 8, 14, 12, 4, 0, 11, 7, 0, 9, 15, 8, 6, 2, 12, 11, 15, 12, 2, 3, 15, 13, 13, 1, 0, 2, 2, 9, 5, 2, 1, 9, 12, 5, 9, 0], [11, 15, 9, 10, 2, 5, 5, 2, 15, 4, 7, 5, 4, 12, 3, 5, 6, 7, 15, 10, 10, 3, 5, 15, 3, 13, 6, 2, 15, 8, 14, 14, 4, 11, 11, 13, 8, 1, 9, 10], [10, 6, 3, 1, 11, 12, 13, 15, 12, 13, 1, 11, 11, 13, 3, 7, 15, 13, 11, 4, 5, 4, 14, 4, 3, 4, 2, 2, 10, 0, 5, 15, 4, 13, 0, 8, 12, 11, 5, 1], [2, 13, 7, 6, 1, 1, 15, 1, 9, 3, 2, 3, 2, 10, 3, 6, 14, 15, 11, 15, 0, 3, 8, 7, 8, 8, 1, 15, 6, 8, 2, 4, 9, 6, 14, 3, 5, 4, 5, 0], [13, 12, 6, 14, 9, 10, 11, 7, 0, 12, 13, 7, 7, 6, 2, 8, 8, 6, 4, 13, 2, 6, 6, 6, 13, 15, 5, 0, 7, 1, 5, 8, 2, 4, 13, 0, 10, 1, 6, 7], [6, 13, 2, 6, 3, 8, 3, 4, 14, 14, 8, 12, 14, 10, 5, 4, 4, 0, 5, 13, 1, 14, 14, 2, 15, 2, 1, 0, 9, 2, 4, 0, 12, 4, 13, 15, 10, 12, 1, 3], [3, 3, 6, 8, 3, 6, 1, 5, 9, 2, 11, 3, 12, 9, 8, 12, 5, 14, 14, 1, 5, 10, 14, 11, 0, 14, 1, 13, 11, 13, 4, 12, 1, 11, 15, 8, 7, 1, 4, 10], [2, 0, 8, 1, 5, 8, 10, 13, 5, 13, 12, 0, 13, 15, 7, 0, 13, 4, 5, 14, 11, 0, 4, 14, 10, 10, 13, 10, 0, 7, 0, 15, 6, 4, 2, 5, 5, 2, 14, 6], [4, 3, 4, 0, 9, 11, 6, 6, 4, 12, 3, 15, 9, 9, 3, 13, 3, 0, 5, 11, 10, 5, 10, 0, 6, 14, 0, 12, 14, 5, 8, 9, 8, 9, 2, 5, 3, 6, 0, 8], [5, 7, 5, 7, 4, 7, 8, 10, 6, 6, 7, 9, 11, 4, 11, 15, 4, 5, 13, 3, 4, 12, 0, 11, 14, 0, 7, 14, 11, 13, 14, 13, 4, 5, 2, 4, 13, 14, 7, 3], [8, 12, 4, 12, 1, 12, 7, 13, 13, 7, 8, 12, 3, 5, 7, 15, 7, 6, 13, 7, 15, 0, 13, 4, 2, 10, 5, 14, 13, 13, 1, 7, 15, 12, 6, 11, 8, 10, 11, 12], [12, 14, 8, 5, 11, 4, 1, 15, 1, 1, 5, 8, 1, 11, 13, 9, 15, 12, 0, 10, 7, 1, 2, 0, 6, 12, 11, 6, 0, 15, 13, 6, 13, 10, 2, 8, 12, 6, 3, 3], [10, 3, 0, 15, 2, 6, 3, 2, 7, 6, 1, 14, 4, 5, 14, 0, 9, 12, 1, 1, 12, 5, 14, 5, 3, 9, 10, 8, 7, 13, 6, 2, 8, 7, 9, 14, 0, 5, 14, 2], [5, 14, 9, 10, 9, 6, 3, 13, 9, 5, 0, 8, 15, 1, 5, 0, 14, 9, 14, 15, 12, 7, 1, 0, 13, 12, 6, 12, 0, 10, 1, 14, 3, 8, 3, 13, 6, 15, 1, 7], [14, 12, 13, 3, 1, 2, 15, 15, 12, 9, 5, 9, 4, 12, 1, 7, 1, 11, 5, 9, 10, 15, 15, 15, 6, 0, 8, 10, 5, 14, 13, 13, 9, 8, 7, 2, 10, 6, 7, 9], [2, 1, 4, 5, 14, 4, 4, 6, 11, 3, 2, 12, 13, 11, 2, 12, 10, 10, 8, 6, 7, 9, 3, 6, 7, 15, 5, 5, 7, 8, 11, 15, 7, 3, 4, 0, 7, 3, 0, 1], [6, 6, 13, 2, 5, 0, 5, 12, 4, 2, 10, 2, 5, 11, 6, 9, 1, 1, 4, 13, 0, 0, 15, 11, 1, 7, 1, 2, 5, 1, 12, 2, 6, 7, 1, 5, 9, 3, 15, 4], [12, 14, 3, 15, 13, 7, 12, 14, 13, 3, 10, 6, 5, 8, 10, 2, 1, 12, 15, 14, 4, 13, 15, 10, 12, 7, 7, 1, 10, 1, 8, 8, 0, 12, 11, 11, 13, 12, 14, 1], [6, 5, 4, 7, 6, 15, 13, 9, 5, 10, 11, 3, 5, 6, 7, 4, 4, 14, 10, 1, 1, 0, 15, 12, 0, 11, 3, 13, 2, 3, 14, 8, 13, 2, 13, 12, 2, 10, 9, 9], [10, 11, 11, 4, 11, 5, 9, 1, 2, 5, 3, 3, 2, 1, 9, 15, 14, 4, 2, 13, 1, 11, 9, 9, 5, 2, 12, 7, 7, 12, 1, 8, 9, 8, 14, 7, 13, 2, 3, 6], [13, 11, 14, 8, 12, 8, 12, 8, 11, 1, 8, 0, 2, 3, 11, 14, 0, 3, 5, 10, 7, 11, 2, 14, 9, 14, 2, 10, 0, 7, 6, 13, 15, 15, 6, 10, 3, 5, 0, 4], [14, 2, 0, 0, 5, 11, 11, 3, 0, 9, 12, 14, 3, 0, 0, 0, 7, 0, 10, 4, 14, 3, 14, 14, 14, 2, 11, 0, 12, 12, 15, 6, 1, 12, 7, 13, 13, 13, 14, 13], [1, 5, 9, 10, 1, 6, 4, 4, 1, 5, 8, 3, 5, 11, 15, 9, 3, 0, 10, 9, 2, 13, 5, 8, 1, 14, 13, 11, 14, 7, 5, 5, 1, 9, 15, 1, 10, 0, 5, 2], [12, 10, 14, 6, 0, 1, 6, 7, 15, 13, 2, 12, 8, 2, 6, 13, 12, 4, 10, 14, 7, 7, 1, 5, 9, 1, 9, 2, 5, 10, 8, 3, 14, 15, 6, 7, 7, 3, 10, 3], [11, 1, 2, 15, 6, 15, 12, 1, 7, 12, 9, 11, 13, 4, 1, 12, 4, 14, 12, 9, 11, 9, 4, 8, 8, 12, 9, 6, 12, 13, 11, 0, 3, 6, 15, 2, 13, 2, 4, 10], [4, 7, 5, 14, 10, 6, 0, 7, 0, 2, 8, 7, 8, 6, 14, 3, 4, 10, 9, 1, 9, 8, 5, 8, 9, 15, 7, 13, 10, 0, 14, 13, 10, 11, 14, 7, 0, 15, 15, 3], [11, 7, 13, 2, 11, 7, 1, 8, 15, 9, 10, 9, 1, 0, 6, 9, 12, 11, 11, 11, 7, 14, 13, 0, 7, 14, 11, 0, 14, 6, 14, 3, 9, 10, 12, 5, 8, 14, 12, 13], [13, 2, 14, 7, 5, 4, 10, 9, 9, 8, 15, 14, 8, 10, 3, 1, 2, 2, 2, 2, 6, 9, 7, 15, 15, 9, 10, 15, 10, 6, 5, 8, 12, 7, 8, 13, 8, 12, 1, 12], [9, 0, 0, 12, 4, 6, 11, 11, 4, 10, 1, 8, 11, 13, 11, 1, 12, 0, 0, 9, 3, 14, 15, 14, 11, 11, 1, 4, 12, 15, 13, 9, 1, 4, 0, 7, 10, 2, 4, 4], [4, 2, 2, 4, 6, 10, 10, 6, 12, 6, 0, 15, 11, 12, 11, 11, 1, 15, 12, 4, 9, 15, 6, 7, 12, 13, 8, 4, 0, 0, 8, 11, 6, 10, 4, 7, 2, 15, 3, 7], [12, 11, 10, 7, 7, 2, 7, 10, 3, 2, 0, 2, 3, 13, 11, 5, 8, 4, 5, 5, 13, 11, 10, 12, 14, 1, 12, 11, 15, 14, 9, 1, 2, 12, 14, 8, 15, 6, 0, 12], [2, 2, 14, 9, 13, 5, 3, 9, 13, 11, 14, 10, 5, 9, 0, 15, 9, 1, 9, 14, 4, 2, 8, 9, 3, 6, 13, 9, 14, 2, 15, 14, 5, 8, 14, 4, 14, 15, 0, 1], [3, 6, 0, 6, 6, 8, 7, 15, 8, 13, 8, 3, 8, 4, 0, 4, 4, 3, 12, 15, 11, 0, 13, 9, 4, 14, 5, 2, 4, 3, 8, 10, 14, 10, 0, 4, 6, 4, 3, 5], [5, 2, 0, 10, 14, 4, 2, 6, 9, 4, 2, 6, 7, 8, 7, 11, 6, 9, 9, 3, 8, 12, 8, 8, 7, 14, 1, 15, 15, 3, 12, 2, 0, 6, 9, 5, 13, 9, 8, 8], [6, 12, 6, 4, 9, 8, 9, 5, 12, 1, 9, 14, 11, 14, 15, 11, 3, 15, 12, 10, 2, 8, 8, 11, 8, 4, 11, 13, 9, 14, 1, 0, 3, 14, 10, 9, 2, 2, 0, 9], [5, 2, 10, 7, 10, 12, 13, 6, 14, 4, 2, 2, 10, 2, 1, 9, 3, 6, 5, 5, 5, 8, 15, 4, 12, 2, 6, 13, 5, 15, 12, 5, 14, 6, 8, 4, 12, 12, 11, 13], [10, 15, 4, 14, 7, 0, 4, 3, 6, 12, 2, 6, 4, 1, 2, 1, 14, 11, 5, 12, 15, 5, 4, 15, 2, 7, 10, 4, 4, 9, 14, 10, 10, 6, 12, 4, 14, 12, 2, 0], [3, 7, 14, 1, 0, 3, 14, 6, 15, 14, 5, 3, 4, 8, 10, 13, 13, 13, 8, 7, 4, 14, 15, 7, 5, 15, 10, 15, 2, 3, 15, 2, 11, 8, 15, 10, 1, 13, 10, 2], [6, 2, 13, 10, 7, 7, 4, 15, 14, 14, 13, 11, 8, 9, 2, 1, 13, 5, 0, 9, 12, 6, 4, 9, 12, 6, 8, 0, 8, 2, 6, 12, 7, 9, 10, 13, 6, 5, 14, 5], [15, 7, 1, 14, 13, 10, 13, 4, 2, 6, 14, 3, 2, 12, 5, 11, 9, 12, 6, 9, 3, 9, 3, 3, 11, 3, 11, 1, 4, 3, 6, 15, 0, 3, 10, 7, 0, 4, 11, 11]]> : tensor<64x40xi4>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<1x40xf32>) rhs_scheme <nf4, per_group(0, 64)>
         : tensor<?x64xbf16>, tensor<64x40xi4> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

func.func @w4_e2m1_const(%x: tensor<?x64xf32>, %sw: tensor<2x24xf32>) -> tensor<?x24xf32> {
  %w = arith.constant dense<[[0.0, -1.0, -1.0, -1.0, -0.5, -6.0, -6.0, -1.0, -0.5, -3.0, 1.0, -4.0, -2.0, -6.0, -3.0, -0.0, -6.0, 2.0, 1.0, -0.0, 2.0, 6.0, -1.0, -3.0], [-4.0, 0.5, -4.0, 3.0, -4.0, 0.0, -6.0, -2.0, 0.5, 1.0, 4.0, 4.0, -0.5, -0.0, 1.0, 1.5, 2.0, 0.0, 0.0, -1.5, 4.0, -4.0, 1.5, 3.0], [2.0, 0.5, 0.0, -2.0, -4.0, 2.0, 0.0, -0.0, -2.0, 1.5, -2.0, 0.5, 2.0, 4.0, 1.5, 2.0, 2.0, -1.0, -2.0, -0.5, -2.0, -3.0, 2.0, 0.5], [-1.5, -4.0, -0.5, -4.0, -1.0, -1.0, 3.0, -0.0, -0.5, -1.0, -1.5, -1.0, -0.5, 2.0, -3.0, -2.0, -2.0, -2.0, -1.5, 6.0, -0.0, -0.0, 2.0, 0.5], [-2.0, 0.5, -0.5, 1.5, -1.0, 0.5, -2.0, 2.0, -6.0, -1.5, 4.0, -0.0, 0.0, -4.0, 4.0, 6.0, -1.0, 4.0, 0.5, 4.0, 0.0, -0.0, -0.5, 4.0], [-1.5, -0.5, -4.0, 0.0, -0.5, 2.0, 4.0, -3.0, -0.5, -0.0, -0.5, 6.0, -0.5, -0.0, -6.0, 1.5, -4.0, 6.0, -2.0, 4.0, -4.0, -1.0, 2.0, 1.5], [-4.0, -4.0, 6.0, -2.0, 3.0, 1.5, 3.0, -4.0, 4.0, 3.0, 0.5, -3.0, 3.0, -4.0, 1.0, 0.0, 1.0, 1.5, -1.5, -0.0, -1.0, 1.5, -4.0, 6.0], [3.0, -4.0, -1.0, 1.5, -0.5, -1.0, -0.5, 1.5, 2.0, 3.0, 6.0, 4.0, -4.0, -0.5, -3.0, -2.0, -3.0, 0.5, 6.0, -2.0, 0.5, 2.0, 6.0, 1.0], [-3.0, -2.0, -3.0, 0.0, -2.0, -1.5, -1.0, -1.5, 0.0, -6.0, -4.0, -0.5, 3.0, -4.0, -0.0, -1.5, 4.0, 2.0, -0.5, -4.0, 2.0, -1.0, -6.0, -1.0], [6.0, 0.5, 2.0, 6.0, -1.0, 4.0, -1.5, -6.0, 6.0, -3.0, -3.0, -3.0, 4.0, 0.5, -3.0, -1.5, 0.5, -3.0, -4.0, 0.0, 6.0, -0.0, -4.0, -4.0], [-6.0, 1.5, -1.5, -0.5, -3.0, -2.0, 1.0, -3.0, 2.0, -1.0, -0.0, 6.0, -0.5, 0.0, -2.0, 6.0, -4.0, -1.0, -0.0, -0.5, 4.0, 0.5, 6.0, -2.0], [-4.0, 2.0, 6.0, -0.0, 0.5, -1.5, -1.5, -3.0, -1.0, 0.0, 6.0, -0.0, 1.0, 6.0, 1.0, 0.0, -0.5, -1.0, -2.0, -6.0, 6.0, 0.0, -0.5, 1.5], [3.0, 2.0, 1.0, -4.0, -4.0, -1.5, -1.5, 0.5, 0.0, 0.5, -3.0, 1.5, -0.5, 0.5, 3.0, -2.0, -1.0, -1.0, -4.0, -0.5, -3.0, -3.0, -0.5, 0.5], [2.0, -0.0, -6.0, -2.0, -3.0, -4.0, -1.5, 0.5, 0.0, -0.5, -1.5, 3.0, -0.0, -2.0, 1.0, 0.0, -6.0, -6.0, -1.5, -0.0, -6.0, -4.0, -2.0, -4.0], [-0.5, 0.5, -4.0, 6.0, -0.5, 3.0, -0.5, -1.5, -6.0, 4.0, 0.5, -4.0, 3.0, -4.0, 0.0, -2.0, 6.0, 1.0, -0.0, 0.0, -4.0, -2.0, -0.5, 0.5], [-6.0, -6.0, -2.0, 1.5, -1.5, 1.0, 1.5, -1.5, 3.0, -2.0, 0.0, -0.5, 2.0, -0.5, 3.0, 2.0, 6.0, -3.0, -3.0, -2.0, 4.0, 2.0, -6.0, -2.0], [-1.0, 3.0, 4.0, -1.0, 1.0, 1.0, -6.0, 3.0, -1.0, -0.0, -2.0, -0.5, -2.0, 2.0, -4.0, -0.0, 3.0, -4.0, -3.0, 1.0, 2.0, 1.0, 2.0, 2.0], [2.0, 0.0, -0.0, -0.5, 0.5, 2.0, -2.0, -1.5, -0.5, 4.0, 0.5, 2.0, -0.0, 0.0, 3.0, -1.5, 1.0, 0.5, -2.0, -4.0, -0.0, 3.0, -1.5, 2.0], [-0.5, -6.0, -1.0, 4.0, 2.0, 3.0, 3.0, 1.0, -0.5, -3.0, 3.0, 0.0, 4.0, -2.0, 1.0, -0.5, -1.5, 0.0, 4.0, 4.0, -3.0, -2.0, -0.5, -0.5], [0.5, -1.5, -0.0, -0.5, -0.5, -0.5, -1.5, 1.0, 0.5, -0.5, 4.0, -1.5, 2.0, -4.0, -1.0, -0.0, 0.0, -0.5, 2.0, -6.0, -1.0, 6.0, 1.5, -0.5], [-0.0, -4.0, 6.0, 6.0, 0.0, 2.0, -6.0, -0.5, -0.5, 0.5, 3.0, 1.5, 2.0, -6.0, -4.0, 0.5, 0.5, 6.0, 3.0, -1.0, 0.0, 4.0, -0.5, -0.0], [3.0, -2.0, 0.5, 6.0, 1.0, -1.0, 4.0, -1.5, 6.0, 0.5, -0.5, 6.0, 3.0, -1.0, 2.0, 0.0, -1.0, -0.5, 2.0, 1.5, -1.5, 3.0, -1.0, 0.5], [-2.0, -1.5, 1.5, -0.5, 2.0, -0.5, 0.0, 1.0, 1.5, 4.0, -3.0, 0.5, -6.0, -3.0, -0.5, 2.0, -1.5, 1.0, -0.0, -0.0, -0.0, -1.0, 1.0, 4.0], [6.0, -0.0, -1.5, 4.0, -2.0, -1.5, -1.0, 4.0, -6.0, -0.0, -1.5, -1.5, -2.0, -3.0, 1.0, 0.0, 4.0, -6.0, 1.0, 1.5, -2.0, 4.0, -1.0, 6.0], [-4.0, 0.0, 1.0, 3.0, 1.5, -0.0, -1.5, -0.5, 0.5, 3.0, 3.0, 3.0, -3.0, 4.0, 4.0, 1.0, -1.0, 2.0, 1.0, 0.0, -2.0, 1.0, 3.0, -6.0], [1.5, 4.0, 2.0, -2.0, -3.0, -6.0, 1.5, 6.0, 0.5, -2.0, -6.0, -3.0, -0.0, 1.0, 1.5, -2.0, 0.0, 4.0, 3.0, -2.0, -0.5, -0.0, -6.0, 6.0], [2.0, -0.5, -3.0, 2.0, 1.0, 4.0, -6.0, -1.5, 1.0, 3.0, -2.0, -4.0, 6.0, 1.5, -1.5, 3.0, -0.0, 0.0, -3.0, -4.0, -2.0, -3.0, 6.0, -1.0], [-4.0, -6.0, -0.0, -6.0, -1.5, 1.0, 3.0, -2.0, 2.0, 0.5, -1.5, -0.5, -4.0, -1.0, 0.0, -1.5, -4.0, -0.0, -4.0, -1.5, 1.0, 1.0, -4.0, 0.5], [1.0, -4.0, -2.0, -6.0, -4.0, 0.0, 1.5, -4.0, -0.5, 4.0, -1.0, -3.0, -3.0, 0.5, -3.0, -6.0, 1.5, 4.0, -6.0, 0.0, -2.0, 4.0, -0.0, -6.0], [-0.5, -1.0, -4.0, 6.0, -1.5, -2.0, -6.0, 6.0, -3.0, -1.5, -0.5, -1.5, -2.0, 1.5, -6.0, -0.5, -0.5, 1.5, -2.0, 4.0, -6.0, -0.5, -0.0, -2.0], [-3.0, -3.0, -6.0, -3.0, -4.0, 4.0, -3.0, -2.0, -2.0, 0.5, -1.0, 0.0, 4.0, -4.0, -1.0, -0.5, -0.0, 2.0, 4.0, -1.5, 6.0, 4.0, -0.0, -0.0], [-4.0, 0.0, -2.0, 0.5, 0.0, 0.0, 1.5, 6.0, -1.5, 6.0, 2.0, -2.0, 1.5, 0.5, 3.0, 0.5, 1.0, -3.0, -6.0, 6.0, -0.5, -2.0, -0.5, -3.0], [0.5, -0.0, 0.5, -0.5, -1.0, 0.5, -4.0, 0.0, -6.0, -1.5, -0.5, 0.0, 0.5, -2.0, -0.0, 1.5, -4.0, -0.5, -1.0, 6.0, -6.0, 1.5, -6.0, 1.0], [0.0, -1.5, -4.0, 0.5, 2.0, 4.0, -1.5, -2.0, -6.0, 6.0, 4.0, 0.5, 3.0, -1.0, 4.0, -1.0, -3.0, -1.5, -6.0, -2.0, -2.0, 1.0, -0.5, 0.5], [-2.0, -3.0, 4.0, 0.5, -2.0, 1.5, -4.0, 6.0, 0.0, -3.0, -6.0, -2.0, 6.0, 6.0, 6.0, -0.5, -2.0, -1.0, 0.5, 6.0, 0.0, 0.0, -0.0, 6.0], [0.0, 4.0, 0.0, -4.0, 1.0, 1.5, -0.5, -1.0, 6.0, 4.0, 6.0, 4.0, 3.0, -1.0, 4.0, -6.0, -2.0, 1.5, 2.0, -2.0, 2.0, -4.0, -0.5, 4.0], [0.5, -4.0, 1.5, 4.0, 4.0, 1.0, 0.5, 3.0, 0.0, 3.0, -1.0, -4.0, -4.0, 1.0, 1.5, 3.0, 6.0, -3.0, 1.5, -0.5, 4.0, 0.5, -3.0, 2.0], [6.0, 2.0, 1.5, -1.0, 4.0, -1.5, -2.0, -0.0, -1.0, 3.0, 4.0, 6.0, -4.0, -1.0, -0.5, 0.5, -0.0, -1.0, 0.0, -1.0, 3.0, -2.0, 1.5, 0.0], [-3.0, 1.0, 1.5, 4.0, -1.5, 2.0, -4.0, -1.5, -4.0, -1.5, -1.5, -4.0, 1.0, -1.5, -3.0, 2.0, 3.0, 3.0, 2.0, 0.5, 3.0, -2.0, -1.5, 3.0], [-1.5, 6.0, 1.0, -1.0, 0.0, -2.0, 3.0, -1.0, 2.0, 2.0, 0.0, 3.0, -6.0, -2.0, -4.0, 1.5, 1.5, -4.0, 6.0, 2.0, 0.0, -1.5, 0.5, -0.5], [1.0, -1.0, 3.0, 6.0, -3.0, 1.5, 2.0, -1.5, 3.0, -1.5, -1.0, -1.5, -0.5, 2.0, 1.0, -1.5, -0.0, -0.5, 6.0, 2.0, -6.0, 3.0, 2.0, 3.0], [-1.0, 4.0, 0.5, -0.5, -1.5, -6.0, -0.0, 0.0, 1.5, 3.0, -0.5, 6.0, 1.5, -1.0, -1.0, -0.5, -3.0, -3.0, -0.0, -0.5, 4.0, 1.0, -4.0, -0.0], [-6.0, 4.0, 3.0, -2.0, 3.0, 0.5, 6.0, 3.0, 3.0, 1.0, -2.0, 1.0, 4.0, 1.0, -0.0, 1.0, 3.0, 0.5, 0.0, -6.0, -3.0, -4.0, 2.0, 6.0], [-0.5, -0.0, -0.5, -1.0, -1.0, -1.0, -0.0, -6.0, -4.0, -0.5, -0.5, 6.0, -3.0, 1.0, 0.5, -2.0, -1.0, 2.0, -1.0, -3.0, -0.5, -0.0, -4.0, 0.5], [2.0, 2.0, 4.0, -6.0, 2.0, -0.5, 2.0, 6.0, -2.0, -2.0, -1.5, -6.0, -4.0, -2.0, 1.0, 1.0, -1.0, -4.0, 0.5, -3.0, 2.0, -4.0, -4.0, -6.0], [-0.5, 0.0, -0.0, 1.0, 1.5, -2.0, 4.0, -1.5, -4.0, 0.5, -2.0, 6.0, 6.0, -1.5, -2.0, 0.5, -2.0, 3.0, -1.5, -2.0, 1.5, 0.5, 4.0, 1.0], [-2.0, -2.0, -1.5, -1.5, -6.0, 0.5, -6.0, -0.0, 6.0, 1.5, -6.0, -2.0, -2.0, 4.0, -3.0, 6.0, -2.0, 4.0, 0.5, 0.0, -4.0, -3.0, -1.5, -0.5], [1.5, 0.0, 0.5, -1.0, -0.0, -0.0, -4.0, -1.5, -1.5, 6.0, 0.0, -0.0, -2.0, 2.0, 2.0, 0.5, -4.0, 0.5, -1.5, 0.0, 1.0, 0.5, -1.5, 3.0], [-0.0, 3.0, 4.0, -4.0, 3.0, -1.5, -0.0, -0.5, -4.0, 6.0, 0.0, -0.0, 1.0, 2.0, 4.0, -0.0, 0.0, 0.0, -2.0, -4.0, -0.5, 2.0, 2.0, -3.0], [-0.5, -2.0, -4.0, 2.0, -0.5, 0.0, 4.0, -1.0, 0.5, 3.0, 0.5, 1.0, -0.5, -0.0, 1.0, 0.0, -0.5, 1.5, 1.5, -6.0, -6.0, 0.5, 2.0, 6.0], [0.0, 2.0, -1.0, 0.5, 6.0, 1.5, -3.0, -4.0, 1.0, 0.5, 1.0, -1.0, -2.0, -6.0, 6.0, -6.0, -4.0, 0.5, -6.0, -0.5, 1.5, -3.0, 4.0, -3.0], [2.0, 3.0, 0.5, 1.0, 1.0, -0.0, 6.0, 0.5, -0.5, 0.0, 6.0, 1.0, 0.0, -4.0, -1.5, 0.0, 0.5, -2.0, 1.0, 6.0, -2.0, 4.0, 3.0, 6.0], [-1.5, -0.5, -3.0, -3.0, 4.0, 0.0, -6.0, -1.0, 4.0, 0.5, 4.0, 1.0, -0.5, 4.0, -0.0, -3.0, -6.0, -1.5, 2.0, 2.0, 1.5, -2.0, -4.0, -1.5], [1.5, -0.5, 0.0, -3.0, -0.0, 3.0, 1.5, -2.0, -0.0, 1.5, 4.0, 2.0, 0.0, 0.0, -1.5, 6.0, -2.0, 0.0, -3.0, 6.0, 6.0, -4.0, 1.5, -3.0], [-0.5, -6.0, -2.0, 6.0, -0.0, 4.0, -6.0, -6.0, -1.0, -4.0, -6.0, 0.5, 0.0, 0.0, -4.0, -1.5, -2.0, 0.0, -4.0, -6.0, -3.0, -2.0, -0.0, -0.5], [2.0, -4.0, 1.0, -3.0, -3.0, -0.5, 1.0, 0.0, -0.0, 1.5, 1.0, 3.0, -4.0, 3.0, -3.0, -1.5, -0.0, 0.0, 0.0, -0.0, 1.0, -3.0, 1.5, -3.0], [6.0, -0.0, 1.0, 3.0, 6.0, 0.5, -2.0, 0.5, 0.0, -3.0, 4.0, 0.5, 4.0, -0.5, 1.5, -2.0, 0.5, 0.0, -0.5, 1.5, -1.5, -0.0, 0.0, 0.0], [-0.0, 6.0, 0.0, -2.0, -2.0, -4.0, 0.5, -2.0, -1.5, 2.0, 3.0, 3.0, -6.0, -6.0, -0.0, 6.0, -0.5, 2.0, -6.0, 1.0, -1.0, 6.0, -4.0, -2.0], [2.0, 1.5, -0.5, 6.0, -6.0, 0.5, -1.5, -6.0, -3.0, -4.0, 1.5, -1.0, 0.0, 6.0, 2.0, 0.0, 4.0, -6.0, -2.0, 6.0, 1.0, -1.0, 6.0, 2.0], [1.0, 4.0, 4.0, 4.0, 1.0, 3.0, -1.5, -0.0, 0.5, -6.0, -0.5, -6.0, -1.0, 1.0, 0.5, 4.0, 0.0, 1.5, 6.0, 2.0, -1.0, 3.0, -1.5, -1.5], [-4.0, 2.0, -2.0, -0.0, -1.5, -0.5, 1.5, 0.5, 0.0, -6.0, -6.0, -4.0, 1.5, -1.0, -6.0, 3.0, 3.0, -4.0, 3.0, -0.5, -0.0, -2.0, -0.5, -6.0], [3.0, -3.0, -2.0, -4.0, -3.0, -0.5, 1.5, -2.0, 1.0, -0.5, -4.0, -0.0, 1.0, -3.0, 4.0, 2.0, -3.0, 1.5, -1.5, 3.0, -1.0, 0.0, 2.0, -4.0], [-2.0, -2.0, 3.0, 2.0, 0.0, 2.0, -2.0, -0.5, -6.0, -4.0, 0.0, 6.0, 0.5, -1.0, 3.0, 2.0, 1.5, -0.0, -3.0, -1.5, -3.0, 1.0, 0.0, -0.0], [-1.0, 1.5, -1.0, 4.0, -3.0, 1.5, 1.0, 6.0, 1.0, 1.0, -3.0, 1.5, -0.5, -0.5, -0.5, 0.0, -4.0, -3.0, -4.0, 1.5, -4.0, 2.0, 1.5, 6.0]]> : tensor<64x24xf4E2M1FN>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<2x24xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0>
         : tensor<?x64xf32>, tensor<64x24xf4E2M1FN> -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

func.func @w4_u4_zp_const(%x: tensor<?x96xf16>, %sw: tensor<32xf32>, %zw: tensor<32xi32>) -> tensor<?x32xf32> {
  %w = arith.constant dense<[[0, 11, 15, 11, 15, 14, 0, 9, 8, 15, 10, 2, 9, 10, 0, 12, 2, 4, 6, 4, 14, 9, 7, 4, 14, 7, 2, 4, 12, 8, 6, 11], [15, 12, 11, 5, 1, 9, 8, 8, 1, 13, 0, 6, 3, 0, 3, 0, 15, 7, 5, 14, 2, 11, 2, 3, 12, 8, 4, 2, 1, 1, 1, 13], [13, 5, 1, 1, 10, 13, 7, 5, 0, 0, 14, 7, 4, 7, 13, 13, 9, 14, 9, 8, 8, 4, 7, 7, 0, 2, 4, 8, 0, 12, 9, 14], [4, 1, 4, 3, 9, 2, 13, 1, 3, 2, 1, 6, 3, 6, 1, 1, 6, 6, 4, 14, 2, 10, 13, 8, 13, 15, 11, 6, 15, 13, 3, 0], [7, 15, 10, 8, 0, 0, 7, 10, 9, 12, 9, 3, 0, 6, 12, 3, 7, 13, 7, 12, 11, 13, 4, 15, 11, 13, 4, 13, 4, 14, 4, 10], [3, 9, 14, 0, 12, 12, 3, 1, 12, 13, 9, 15, 14, 14, 7, 9, 2, 4, 14, 13, 5, 15, 9, 8, 12, 0, 2, 13, 11, 15, 5, 7], [0, 10, 7, 0, 3, 11, 3, 12, 12, 7, 0, 10, 0, 14, 15, 8, 3, 5, 0, 15, 10, 1, 11, 13, 11, 8, 12, 8, 0, 3, 12, 14], [8, 2, 7, 4, 4, 6, 2, 10, 10, 10, 15, 15, 9, 9, 14, 6, 7, 14, 10, 13, 13, 0, 7, 6, 11, 2, 1, 11, 4, 2, 7, 3], [3, 6, 1, 14, 7, 6, 10, 11, 2, 15, 11, 4, 12, 12, 14, 6, 13, 1, 7, 3, 14, 8, 0, 6, 14, 8, 14, 11, 4, 8, 8, 5], [2, 1, 5, 15, 5, 8, 0, 7, 6, 15, 14, 14, 0, 1, 15, 10, 11, 6, 0, 12, 0, 12, 2, 8, 6, 10, 7, 0, 1, 3, 0, 8], [0, 7, 12, 12, 8, 6, 0, 12, 13, 1, 5, 12, 14, 13, 1, 8, 7, 5, 9, 5, 10, 15, 12, 2, 12, 8, 0, 1, 4, 2, 5, 9], [12, 4, 1, 4, 0, 12, 5, 14, 15, 12, 0, 10, 12, 10, 3, 7, 13, 0, 13, 1, 5, 15, 1, 12, 8, 11, 11, 14, 7, 4, 4, 5], [4, 3, 0, 14, 11, 3, 13, 4, 0, 0, 12, 12, 15, 9, 9, 8, 12, 5, 14, 13, 5, 9, 15, 14, 12, 5, 4, 7, 5, 13, 5, 3], [12, 6, 13, 11, 5, 4, 3, 12, 10, 0, 1, 15, 4, 15, 7, 11, 4, 5, 6, 10, 5, 5, 3, 6, 13, 1, 1, 11, 3, 6, 5, 4], [12, 14, 12, 5, 8, 0, 0, 3, 3, 10, 10, 15, 12, 4, 3, 4, 14, 2, 2, 9, 5, 11, 9, 9, 0, 14, 8, 8, 15, 1, 5, 4], [7, 7, 7, 9, 5, 2, 4, 2, 14, 14, 14, 1, 1, 13, 15, 10, 15, 2, 13, 11, 1, 11, 8, 4, 8, 10, 6, 6, 4, 11, 15, 13], [3, 4, 9, 5, 6, 3, 4, 12, 1, 4, 10, 15, 3, 15, 4, 6, 12, 14, 6, 12, 13, 7, 13, 9, 5, 8, 0, 1, 15, 3, 6, 14], [1, 9, 4, 6, 10, 6, 15, 8, 12, 0, 2, 12, 4, 12, 2, 1, 12, 3, 7, 2, 2, 4, 9, 7, 13, 3, 7, 14, 10, 7, 14, 14], [12, 15, 5, 8, 12, 4, 8, 13, 14, 13, 0, 7, 11, 11, 1, 11, 7, 15, 13, 2, 11, 14, 0, 10, 12, 2, 12, 7, 12, 4, 11, 1], [11, 11, 14, 11, 0, 10, 7, 0, 12, 15, 1, 2, 12, 5, 4, 15, 14, 13, 6, 15, 13, 3, 5, 6, 11, 4, 14, 2, 12, 0, 13, 11], [13, 3, 7, 6, 2, 7, 9, 13, 5, 11, 15, 3, 15, 9, 5, 15, 15, 9, 8, 14, 8, 7, 3, 11, 12, 0, 11, 15, 11, 7, 4, 13], [0, 4, 15, 9, 4, 14, 2, 7, 13, 4, 6, 9, 2, 1, 9, 10, 1, 10, 1, 8, 4, 11, 3, 15, 0, 7, 12, 5, 8, 12, 10, 2], [1, 14, 9, 1, 9, 4, 9, 9, 8, 3, 10, 7, 9, 2, 8, 12, 8, 8, 14, 11, 9, 5, 11, 0, 6, 8, 3, 5, 3, 4, 9, 3], [11, 8, 11, 9, 10, 7, 9, 2, 1, 11, 13, 9, 2, 15, 4, 3, 7, 1, 10, 3, 14, 4, 7, 6, 14, 5, 2, 5, 13, 1, 2, 6], [5, 11, 5, 8, 1, 15, 8, 10, 10, 1, 15, 8, 10, 11, 2, 15, 2, 10, 15, 3, 3, 15, 2, 12, 6, 15, 8, 4, 0, 2, 0, 1], [6, 0, 9, 8, 1, 15, 9, 8, 7, 1, 0, 7, 1, 2, 15, 4, 14, 15, 1, 12, 0, 3, 7, 15, 3, 12, 12, 13, 0, 3, 4, 14], [6, 9, 3, 2, 9, 6, 8, 6, 3, 3, 3, 2, 10, 3, 11, 0, 12, 2, 4, 2, 5, 0, 4, 11, 7, 10, 10, 14, 12, 1, 14, 7], [5, 12, 1, 0, 4, 13, 3, 5, 7, 13, 14, 4, 8, 4, 13, 3, 1, 12, 13, 2, 12, 5, 12, 15, 11, 2, 11, 3, 7, 9, 10, 15], [12, 9, 3, 0, 7, 9, 4, 8, 11, 4, 4, 5, 9, 7, 11, 7, 0, 8, 1, 11, 3, 5, 6, 12, 13, 14, 3, 13, 12, 0, 14, 10], [3, 6, 14, 5, 11, 14, 10, 15, 3, 2, 14, 15, 8, 0, 3, 6, 1, 14, 6, 1, 2, 13, 5, 4, 13, 2, 4, 15, 4, 15, 8, 10], [15, 5, 1, 8, 11, 3, 3, 12, 0, 12, 2, 14, 14, 2, 14, 2, 4, 11, 2, 8, 5, 10, 13, 4, 8, 2, 11, 11, 5, 2, 7, 12], [14, 6, 6, 3, 6, 3, 1, 7, 5, 0, 1, 5, 2, 9, 9, 10, 5, 15, 15, 6, 4, 15, 3, 8, 2, 7, 9, 13, 12, 1, 10, 7], [3, 14, 4, 10, 11, 0, 14, 10, 9, 15, 13, 10, 3, 6, 8, 2, 14, 13, 2, 14, 0, 4, 4, 6, 13, 12, 3, 11, 9, 9, 2, 9], [3, 10, 15, 7, 15, 6, 6, 5, 5, 9, 13, 5, 5, 5, 4, 13, 5, 10, 6, 2, 13, 5, 0, 15, 15, 1, 8, 7, 5, 2, 10, 9], [8, 0, 13, 6, 14, 15, 13, 14, 10, 7, 15, 5, 8, 4, 12, 12, 7, 4, 1, 4, 8, 6, 4, 5, 11, 8, 15, 3, 3, 7, 9, 11], [4, 14, 1, 8, 2, 13, 14, 12, 0, 12, 9, 14, 13, 6, 4, 2, 7, 8, 0, 10, 7, 5, 3, 10, 12, 12, 3, 10, 5, 2, 0, 6], [14, 3, 2, 4, 5, 4, 6, 7, 4, 9, 6, 15, 2, 11, 4, 10, 0, 13, 10, 3, 13, 4, 13, 0, 6, 1, 3, 15, 1, 7, 0, 6], [10, 15, 12, 3, 11, 13, 0, 0, 0, 4, 1, 14, 9, 4, 11, 4, 6, 11, 14, 4, 0, 4, 9, 4, 11, 9, 12, 3, 2, 9, 1, 10], [14, 0, 4, 6, 12, 11, 11, 13, 6, 1, 13, 7, 9, 6, 11, 10, 14, 15, 7, 15, 5, 7, 5, 14, 6, 4, 5, 15, 15, 9, 8, 10], [1, 10, 13, 9, 11, 8, 5, 12, 4, 0, 13, 9, 9, 4, 11, 7, 14, 4, 11, 12, 10, 0, 7, 14, 2, 9, 11, 11, 1, 8, 15, 0], [9, 14, 3, 9, 2, 7, 6, 1, 14, 15, 11, 13, 8, 0, 2, 1, 0, 1, 12, 14, 13, 12, 14, 13, 9, 10, 6, 5, 9, 13, 12, 4], [1, 13, 11, 15, 10, 7, 11, 9, 11, 10, 14, 4, 0, 1, 12, 0, 1, 2, 0, 7, 0, 0, 0, 7, 2, 12, 13, 12, 8, 14, 1, 13], [1, 15, 15, 6, 4, 2, 15, 8, 14, 4, 2, 9, 4, 10, 11, 13, 7, 10, 1, 7, 11, 14, 14, 7, 7, 1, 15, 1, 10, 3, 12, 0], [7, 13, 10, 15, 9, 2, 2, 9, 12, 11, 1, 9, 5, 3, 6, 0, 5, 13, 10, 8, 7, 4, 13, 14, 5, 7, 0, 8, 6, 2, 0, 13], [12, 7, 1, 5, 10, 14, 12, 14, 9, 12, 15, 7, 10, 10, 10, 1, 11, 7, 11, 8, 12, 10, 12, 8, 7, 14, 15, 7, 2, 8, 2, 6], [7, 1, 6, 11, 5, 3, 13, 10, 13, 12, 13, 11, 7, 15, 13, 4, 15, 12, 15, 6, 8, 8, 4, 5, 3, 12, 8, 15, 5, 5, 0, 14], [6, 4, 1, 1, 1, 13, 13, 3, 3, 12, 7, 14, 11, 6, 2, 0, 9, 9, 5, 11, 8, 14, 5, 8, 0, 7, 13, 15, 15, 3, 1, 11], [3, 11, 13, 7, 5, 0, 13, 1, 10, 13, 0, 7, 12, 1, 10, 2, 10, 10, 0, 0, 9, 15, 0, 5, 7, 3, 6, 1, 5, 7, 9, 13], [4, 5, 2, 12, 3, 5, 11, 7, 3, 5, 13, 3, 12, 8, 1, 3, 11, 11, 4, 10, 0, 11, 14, 13, 11, 3, 9, 0, 7, 15, 3, 15], [12, 4, 3, 7, 3, 14, 13, 11, 15, 10, 8, 11, 9, 5, 4, 13, 0, 12, 10, 12, 5, 2, 9, 6, 14, 7, 6, 10, 8, 3, 15, 12], [8, 3, 0, 8, 15, 10, 2, 7, 4, 0, 11, 4, 10, 15, 2, 15, 15, 4, 3, 9, 5, 3, 11, 0, 0, 10, 11, 6, 7, 2, 14, 15], [7, 0, 10, 0, 14, 4, 3, 1, 3, 2, 15, 10, 11, 0, 11, 4, 8, 5, 13, 14, 0, 1, 13, 5, 11, 8, 13, 14, 9, 10, 4, 13], [8, 9, 13, 6, 3, 4, 1, 13, 13, 9, 10, 8, 0, 8, 5, 8, 4, 12, 8, 10, 1, 14, 7, 11, 7, 7, 12, 13, 6, 4, 6, 3], [11, 14, 3, 9, 10, 5, 14, 6, 2, 15, 7, 5, 13, 15, 8, 6, 5, 10, 3, 15, 9, 11, 0, 12, 6, 2, 15, 4, 0, 1, 12, 0], [12, 11, 3, 5, 6, 10, 5, 2, 5, 4, 0, 2, 5, 7, 10, 15, 5, 12, 13, 4, 13, 7, 2, 4, 10, 8, 3, 9, 4, 8, 8, 6], [12, 13, 7, 1, 7, 7, 8, 4, 4, 5, 14, 0, 5, 12, 3, 8, 8, 11, 15, 13, 6, 0, 3, 14, 13, 5, 10, 14, 9, 14, 12, 11], [1, 10, 8, 5, 6, 0, 2, 2, 3, 7, 3, 11, 11, 12, 7, 8, 13, 12, 10, 1, 12, 1, 13, 12, 2, 8, 15, 2, 2, 7, 7, 7], [4, 1, 12, 13, 8, 8, 10, 7, 11, 13, 0, 1, 6, 14, 15, 13, 2, 1, 5, 0, 14, 1, 9, 3, 15, 8, 13, 12, 13, 3, 15, 0], [3, 5, 1, 5, 14, 14, 10, 6, 15, 3, 7, 11, 13, 3, 12, 3, 0, 12, 2, 4, 9, 1, 15, 8, 9, 13, 11, 13, 5, 3, 15, 1], [6, 14, 2, 2, 12, 10, 1, 9, 3, 9, 5, 7, 3, 0, 12, 7, 1, 9, 12, 4, 12, 10, 11, 11, 13, 3, 15, 14, 9, 1, 7, 12], [11, 11, 2, 1, 1, 8, 11, 14, 14, 15, 1, 3, 0, 2, 7, 15, 1, 8, 0, 4, 1, 0, 14, 0, 2, 9, 15, 10, 10, 1, 5, 1], [3, 8, 8, 4, 2, 2, 10, 5, 7, 5, 5, 1, 9, 5, 2, 3, 14, 3, 9, 15, 4, 13, 9, 7, 7, 4, 0, 9, 10, 13, 12, 4], [9, 9, 14, 14, 4, 13, 13, 2, 10, 10, 0, 6, 0, 8, 2, 13, 9, 14, 13, 5, 1, 13, 13, 0, 15, 6, 11, 0, 9, 6, 11, 4], [7, 9, 12, 4, 1, 2, 0, 9, 4, 5, 11, 3, 12, 12, 7, 1, 12, 5, 11, 15, 0, 12, 10, 3, 10, 3, 3, 12, 10, 10, 13, 13], [15, 9, 9, 8, 2, 10, 8, 12, 11, 3, 5, 8, 15, 9, 11, 1, 3, 1, 15, 10, 0, 8, 7, 12, 1, 15, 5, 1, 5, 1, 1, 6], [2, 3, 2, 5, 3, 9, 10, 11, 10, 4, 6, 8, 2, 12, 4, 8, 14, 7, 6, 10, 1, 2, 6, 10, 9, 11, 13, 11, 3, 4, 8, 6], [7, 8, 3, 14, 13, 4, 14, 8, 14, 11, 1, 11, 0, 8, 9, 7, 5, 7, 9, 2, 9, 6, 2, 13, 9, 5, 11, 7, 1, 12, 10, 11], [13, 5, 7, 7, 14, 5, 0, 6, 14, 12, 0, 15, 10, 7, 13, 15, 3, 7, 0, 3, 13, 8, 4, 13, 15, 13, 2, 14, 8, 9, 10, 12], [9, 10, 7, 3, 11, 8, 15, 2, 14, 8, 5, 2, 3, 9, 8, 12, 0, 0, 8, 1, 10, 0, 9, 1, 6, 6, 1, 11, 8, 14, 2, 15], [2, 6, 3, 13, 8, 7, 2, 10, 2, 6, 5, 1, 9, 4, 6, 15, 11, 12, 8, 12, 13, 4, 1, 13, 13, 13, 13, 0, 5, 8, 15, 10], [14, 10, 5, 13, 7, 2, 3, 13, 7, 10, 3, 8, 12, 4, 11, 0, 5, 15, 1, 3, 11, 15, 2, 2, 6, 4, 9, 1, 9, 12, 2, 7], [1, 2, 2, 13, 2, 12, 0, 6, 3, 9, 8, 1, 6, 8, 1, 9, 7, 1, 14, 2, 10, 6, 0, 13, 15, 12, 8, 0, 10, 12, 10, 12], [9, 10, 5, 8, 15, 6, 11, 5, 15, 12, 4, 14, 11, 13, 2, 2, 3, 4, 15, 10, 1, 7, 11, 0, 9, 11, 7, 5, 10, 13, 9, 12], [12, 13, 5, 14, 11, 8, 0, 8, 4, 10, 12, 12, 2, 12, 10, 4, 0, 2, 9, 9, 4, 9, 6, 8, 6, 12, 3, 7, 3, 6, 14, 5], [12, 5, 11, 3, 2, 13, 2, 7, 7, 5, 14, 9, 2, 12, 15, 8, 0, 10, 7, 4, 9, 12, 1, 9, 11, 3, 0, 15, 5, 7, 14, 11], [7, 2, 15, 0, 6, 4, 11, 15, 12, 11, 12, 5, 8, 10, 7, 13, 13, 4, 5, 14, 13, 14, 12, 6, 10, 6, 8, 11, 3, 10, 15, 7], [11, 7, 5, 3, 0, 2, 14, 6, 11, 8, 12, 3, 13, 3, 4, 15, 9, 6, 5, 9, 15, 13, 0, 6, 4, 3, 5, 6, 3, 14, 2, 3], [5, 12, 6, 2, 14, 4, 4, 2, 3, 11, 13, 4, 15, 1, 14, 2, 12, 3, 2, 13, 11, 11, 15, 15, 6, 9, 1, 0, 14, 7, 3, 11], [9, 0, 15, 8, 8, 6, 15, 9, 1, 3, 12, 5, 15, 4, 11, 11, 6, 13, 4, 2, 4, 1, 13, 7, 15, 12, 13, 15, 11, 11, 9, 7], [11, 6, 15, 15, 15, 7, 15, 14, 2, 10, 10, 3, 3, 1, 0, 9, 10, 1, 9, 10, 0, 8, 2, 7, 9, 5, 6, 15, 1, 2, 13, 4], [5, 0, 4, 3, 5, 2, 9, 9, 15, 2, 7, 13, 4, 11, 6, 4, 4, 3, 6, 14, 3, 0, 0, 7, 4, 9, 7, 13, 7, 3, 8, 10], [5, 11, 15, 12, 1, 12, 13, 11, 14, 8, 2, 8, 2, 7, 0, 2, 0, 7, 5, 8, 4, 13, 2, 1, 8, 8, 2, 10, 0, 10, 12, 15], [8, 3, 6, 12, 14, 5, 0, 4, 2, 5, 9, 9, 1, 4, 10, 8, 4, 11, 1, 13, 7, 12, 9, 10, 14, 13, 5, 8, 6, 8, 0, 2], [12, 3, 15, 12, 12, 8, 13, 15, 4, 3, 11, 5, 11, 5, 7, 7, 5, 3, 13, 10, 13, 0, 0, 5, 7, 5, 6, 9, 5, 10, 15, 10], [1, 10, 10, 2, 3, 3, 4, 12, 0, 11, 9, 7, 4, 13, 5, 7, 11, 11, 13, 13, 6, 5, 4, 15, 8, 1, 7, 6, 1, 0, 14, 2], [11, 9, 9, 8, 3, 11, 4, 8, 1, 9, 15, 8, 8, 0, 4, 3, 2, 6, 3, 10, 0, 5, 15, 12, 6, 12, 1, 9, 7, 7, 12, 7], [15, 2, 6, 11, 13, 1, 1, 8, 9, 12, 10, 4, 15, 10, 3, 15, 0, 14, 6, 9, 15, 2, 1, 9, 4, 6, 11, 13, 7, 0, 8, 12], [4, 15, 8, 0, 15, 6, 8, 2, 3, 10, 4, 13, 12, 10, 15, 15, 14, 11, 3, 15, 6, 6, 8, 13, 11, 14, 15, 7, 11, 8, 2, 14], [1, 13, 13, 0, 9, 14, 3, 14, 13, 5, 6, 3, 6, 3, 6, 0, 12, 5, 1, 7, 0, 15, 0, 0, 10, 2, 7, 14, 8, 15, 1, 4], [3, 12, 7, 3, 15, 4, 14, 12, 12, 4, 0, 13, 15, 13, 3, 2, 1, 9, 13, 4, 2, 12, 10, 1, 1, 0, 3, 7, 4, 5, 4, 11], [0, 11, 1, 13, 3, 6, 9, 14, 5, 7, 3, 10, 0, 10, 11, 13, 14, 14, 4, 15, 9, 8, 2, 13, 14, 4, 7, 3, 15, 11, 9, 4], [2, 4, 7, 15, 0, 7, 10, 9, 11, 3, 3, 13, 15, 0, 11, 3, 7, 9, 14, 11, 12, 10, 8, 4, 0, 8, 10, 1, 0, 6, 10, 0], [5, 0, 3, 2, 9, 14, 1, 8, 1, 4, 12, 13, 15, 5, 14, 15, 9, 14, 15, 15, 9, 12, 1, 3, 2, 9, 10, 13, 3, 0, 11, 2], [0, 5, 14, 9, 14, 11, 0, 15, 10, 14, 12, 8, 10, 8, 3, 1, 0, 6, 4, 0, 4, 14, 4, 5, 5, 4, 7, 3, 4, 3, 0, 4], [3, 15, 4, 14, 6, 2, 11, 15, 10, 9, 15, 10, 13, 9, 6, 11, 9, 6, 10, 13, 15, 11, 3, 9, 11, 5, 14, 9, 0, 3, 7, 11], [3, 3, 9, 4, 13, 6, 7, 0, 5, 8, 2, 15, 14, 11, 5, 6, 10, 7, 0, 9, 10, 4, 0, 8, 7, 15, 13, 5, 1, 6, 14, 6]]> : tensor<96x32xi4>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<32xf32>) rhs_zero_point(%zw : tensor<32xi32>)
         rhs_scheme <u4, per_axis(1), asymmetric>
         : tensor<?x96xf16>, tensor<96x32xi4> -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// Activations on the device between octet ops, with a host op between
// them: per-token dynamic quantization and a W8A8 matmul (the activation,
// its scales and the codes never leave the device), the product doubled by
// a float op on the host (downloaded once: it is also a result), then
// quantized per token again (uploaded once).
func.func @chain_host_between(%x: tensor<?x64xf32>, %w: tensor<64x48xi8>,
    %sw: tensor<48xf32>) -> (tensor<?x48xf32>, tensor<?x48xi8>) {
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<?x64xf32> -> tensor<?xf32>
  %q = octet.quantize %x scale(%s : tensor<?xf32>) as <i8, per_axis(0)>
         : tensor<?x64xf32> -> tensor<?x64xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<?xf32>) lhs_scheme <i8, per_axis(0)>
         rhs_scale(%sw : tensor<48xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x64xi8>, tensor<64x48xi8> -> tensor<?x48xf32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%m) : tensor<?x48xf32>
  %a = linalg.add ins(%y, %y : tensor<?x48xf32>, tensor<?x48xf32>)
         outs(%e : tensor<?x48xf32>) -> tensor<?x48xf32>
  %s2 = octet.compute_params %a as <i8, per_axis(0)> : tensor<?x48xf32> -> tensor<?xf32>
  %q2 = octet.quantize %a scale(%s2 : tensor<?xf32>) as <i8, per_axis(0)>
          : tensor<?x48xf32> -> tensor<?x48xi8>
  return %y, %q2 : tensor<?x48xf32>, tensor<?x48xi8>
}
