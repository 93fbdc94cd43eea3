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
