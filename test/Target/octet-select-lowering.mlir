// octet-select-lowering's decision for every target of the capability table
// on the same contractions (below). The expected rows come
// from the sources cited in docs/targets.md: e.g. sm_75 has only the m8n8k16
// integer mma.sync, FP8 MMA starts at sm_89, VNNI multiplies u8 x s8 (s8 x s8
// needs the +128 compensation), dotprod multiplies equal signedness only,
// avx512-bf16 takes FP8 x FP8 as exact bf16 pairs (vdpbf16ps), amx-int8 as
// exact bf16 on AMX-BF16 tiles (tdpbf16ps).
// The cost warnings are checked in octet-select-lowering-diagnostics.mlir.

// RUN: octet-opt %s --octet-set-target=target=sm_75 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_75
// RUN: octet-opt %s --octet-set-target=target=sm_80 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_80
// RUN: octet-opt %s --octet-set-target=target=sm_86 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_86
// RUN: octet-opt %s --octet-set-target=target=sm_89 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_89
// RUN: octet-opt %s --octet-set-target=target=sm_90a --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_90A
// RUN: octet-opt %s --octet-set-target=target=sm_100a --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_100A
// RUN: octet-opt %s --octet-set-target=target=sm_120a --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=SM_120A
// RUN: octet-opt %s --octet-set-target=target=avx2 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=AVX2
// RUN: octet-opt %s --octet-set-target=target=avx-vnni --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=AVX_VNNI
// RUN: octet-opt %s --octet-set-target=target=avx512-vnni --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=AVX512_VNNI
// RUN: octet-opt %s --octet-set-target=target=avx512-bf16 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=AVX512_BF16
// RUN: octet-opt %s --octet-set-target=target=avx-vnni-int8 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=AVX_VNNI_INT8
// RUN: octet-opt %s --octet-set-target=target=amx-int8 --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=AMX_INT8
// RUN: octet-opt %s --octet-set-target=target=dotprod --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=DOTPROD
// RUN: octet-opt %s --octet-set-target=target=i8mm --octet-select-lowering 2>/dev/null | FileCheck %s --check-prefix=I8MM

!x = tensor<16x64xf32>
!w = tensor<64x32xf32>
!y = tensor<16x32xf32>

func.func @w8a8_s8s8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<64x32xi8> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @w8a8_u8s8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %s: tensor<f32>, %z: tensor<i32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<64x32xi8> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @w8a8_s8u8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %s: tensor<f32>, %z: tensor<i32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<64x32xi8> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @w8a8_u8u8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %s: tensor<f32>, %z: tensor<i32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<64x32xi8> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @fp8_e4m3(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16x64xf8E4M3FN> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @fp8_e5m2_e4m3(%xq: tensor<16x64xf8E5M2>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <f8E5M2> : tensor<16x64xf8E5M2> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @w4a4_s4s4(%xq: tensor<16x64xi4>, %wq: tensor<64x32xi4>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i4> : tensor<16x64xi4> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i4> : tensor<64x32xi4> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @w4a8_s8s4(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi4>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i4> : tensor<64x32xi4> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @int8_x_fp8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xf8E4M3FN>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<64x32xf8E4M3FN> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @w8a16_f16(%x: tensor<16x64xf16>, %wq: tensor<64x32xi8>, %s: tensor<32xf32>, %init: tensor<16x32xf16>) -> tensor<16x32xf16> {
  %w = octet.dequantize %wq scale(%s : tensor<32xf32>) as <i8, per_axis(1)> : tensor<64x32xi8> -> tensor<64x32xf16>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf16>, tensor<64x32xf16>) outs(%init : tensor<16x32xf16>) -> tensor<16x32xf16>
  return %y : tensor<16x32xf16>
}

func.func @w4a16_bf16(%x: tensor<16x64xbf16>, %wq: tensor<64x32xi4>, %s: tensor<2x32xf32>, %init: tensor<16x32xbf16>) -> tensor<16x32xbf16> {
  %w = octet.dequantize %wq scale(%s : tensor<2x32xf32>) as <i4, per_group(0, 32)> : tensor<64x32xi4> -> tensor<64x32xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xbf16>, tensor<64x32xbf16>) outs(%init : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

func.func @w8a16_f32(%x: !x, %wq: tensor<64x32xi8>, %s: tensor<32xf32>, %init: !y) -> !y {
  %w = octet.dequantize %wq scale(%s : tensor<32xf32>) as <i8, per_axis(1)> : tensor<64x32xi8> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

func.func @batch_s8s8(%xq: tensor<2x16x64xi8>, %wq: tensor<2x64x32xi8>, %s: tensor<f32>, %init: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<2x16x64xi8> -> tensor<2x16x64xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<2x64x32xi8> -> tensor<2x64x32xf32>
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x16x64xf32>, tensor<2x64x32xf32>) outs(%init : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}

#mapA = affine_map<(m, n, k) -> (m, k)>
#mapBt = affine_map<(m, n, k) -> (n, k)>
#mapC = affine_map<(m, n, k) -> (m, n)>
func.func @generic_s8s8_transposed_b(%xq: tensor<16x64xi8>, %wq: tensor<32x64xi8>, %s: tensor<f32>, %init: !y) -> !y {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<32x64xi8> -> tensor<32x64xf32>
  %y = linalg.generic {indexing_maps = [#mapA, #mapBt, #mapC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : !x, tensor<32x64xf32>) outs(%init : !y) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> !y
  return %y : !y
}

func.func @octet_matmul_s8s8(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %sx: tensor<16xf32>, %sw: tensor<32xf32>) -> !y {
  %y = octet.matmul %xq, %wq lhs_scale(%sx : tensor<16xf32>) lhs_scheme <i8, per_axis(0)>
         rhs_scale(%sw : tensor<32xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<16x64xi8>, tensor<64x32xi8> -> !y
  return %y : !y
}

func.func @octet_matmul_weight_only(%x: tensor<16x64xf16>, %wq: tensor<64x32xi4>, %sw: tensor<2x32xf32>) -> !y {
  %y = octet.matmul %x, %wq rhs_scale(%sw : tensor<2x32xf32>) rhs_scheme <i4, per_group(0, 32)>
         : tensor<16x64xf16>, tensor<64x32xi4> -> !y
  return %y : !y
}

// A convolution is an implicit GEMM: the same lookup.
func.func @conv_s8s8(%xq: tensor<1x8x8x16xi8>, %wq: tensor<3x3x16x32xi8>, %s: tensor<f32>, %init: tensor<1x6x6x32xf32>) -> tensor<1x6x6x32xf32> {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<1x8x8x16xi8> -> tensor<1x8x8x16xf32>
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<3x3x16x32xi8> -> tensor<3x3x16x32xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x16xf32>, tensor<3x3x16x32xf32>) outs(%init : tensor<1x6x6x32xf32>) -> tensor<1x6x6x32xf32>
  return %y : tensor<1x6x6x32xf32>
}

// Not quantized: left alone.
func.func @float_matmul(%x: !x, %w: !w, %init: !y) -> !y {
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y : !y
}

// A dequantize with a user that is not a contraction runs on its own.
func.func @shared_dequantize(%xq: tensor<16x64xi8>, %wq: tensor<64x32xi8>, %s: tensor<f32>, %init: !y) -> (!y, !w) {
  %x = octet.dequantize %xq scale(%s : tensor<f32>) as <i8> : tensor<16x64xi8> -> !x
  %w = octet.dequantize %wq scale(%s : tensor<f32>) as <i8> : tensor<64x32xi8> -> !w
  %y = linalg.matmul ins(%x, %w : !x, !w) outs(%init : !y) -> !y
  return %y, %w : !y, !w
}

func.func @elementwise(%x: !x, %s: tensor<16xf32>, %s1: tensor<f32>) -> (tensor<16x64xi8>, tensor<16x64xf8E4M3FN>, tensor<16x64xf16>) {
  %p = octet.compute_params %x as <i8, per_axis(0)> : !x -> tensor<16xf32>
  %q = octet.quantize %x scale(%p : tensor<16xf32>) as <i8, per_axis(0)> : !x -> tensor<16x64xi8>
  %r = octet.requantize %q scale(%p : tensor<16xf32>) as <i8, per_axis(0)> to scale(%s1 : tensor<f32>) as <f8E4M3FN> : tensor<16x64xi8> -> tensor<16x64xf8E4M3FN>
  %d = octet.dequantize %q scale(%s : tensor<16xf32>) as <i8, per_axis(0)> : tensor<16x64xi8> -> tensor<16x64xf16>
  return %q, %r, %d : tensor<16x64xi8>, tensor<16x64xf8E4M3FN>, tensor<16x64xf16>
}

// ---- Expected strategies, per target ----
// SM_75: module attributes {octet.target = #octet.target<"sm_75">}
// SM_75-LABEL: func.func @w8a8_s8s8(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32">}
// SM_75-LABEL: func.func @w8a8_u8s8(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32">}
// SM_75-LABEL: func.func @w8a8_s8u8(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "u8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32">}
// SM_75-LABEL: func.func @w8a8_u8u8(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "u8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32">}
// SM_75-LABEL: func.func @fp8_e4m3(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k8", instruction = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_75-LABEL: func.func @fp8_e5m2_e4m3(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k8", instruction = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_75-LABEL: func.func @w4a4_s4s4(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s4", b = "s4", acc = "s32", shape = "m8n8k32", instruction = "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32">}
// SM_75-LABEL: func.func @w4a8_s8s4(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", note = "B s4 unpacked to s8">}
// SM_75-LABEL: func.func @int8_x_fp8(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k8", instruction = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_75-LABEL: func.func @w8a16_f16(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_75-LABEL: func.func @w4a16_bf16(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_75-LABEL: func.func @w8a16_f32(
// SM_75: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_75-LABEL: func.func @batch_s8s8(
// SM_75: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32">}
// SM_75-LABEL: func.func @generic_s8s8_transposed_b(
// SM_75: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32">}
// SM_75-LABEL: func.func @octet_matmul_s8s8(
// SM_75: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32">}
// SM_75-LABEL: func.func @octet_matmul_weight_only(
// SM_75: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_75-LABEL: func.func @conv_s8s8(
// SM_75: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m8n8k16", instruction = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32">}
// SM_75-LABEL: func.func @float_matmul(
// SM_75-NOT: octet.strategy
// SM_75: return
// SM_75-LABEL: func.func @shared_dequantize(
// SM_75: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_75: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_75-LABEL: func.func @elementwise(
// SM_75: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_75: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_75: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_75: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// SM_80: module attributes {octet.target = #octet.target<"sm_80">}
// SM_80-LABEL: func.func @w8a8_s8s8(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_80-LABEL: func.func @w8a8_u8s8(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32">}
// SM_80-LABEL: func.func @w8a8_s8u8(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32">}
// SM_80-LABEL: func.func @w8a8_u8u8(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32">}
// SM_80-LABEL: func.func @fp8_e4m3(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_80-LABEL: func.func @fp8_e5m2_e4m3(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_80-LABEL: func.func @w4a4_s4s4(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s4", b = "s4", acc = "s32", shape = "m16n8k64", instruction = "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32">}
// SM_80-LABEL: func.func @w4a8_s8s4(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", note = "B s4 unpacked to s8">}
// SM_80-LABEL: func.func @int8_x_fp8(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_80-LABEL: func.func @w8a16_f16(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_80-LABEL: func.func @w4a16_bf16(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_80-LABEL: func.func @w8a16_f32(
// SM_80: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_80-LABEL: func.func @batch_s8s8(
// SM_80: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_80-LABEL: func.func @generic_s8s8_transposed_b(
// SM_80: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_80-LABEL: func.func @octet_matmul_s8s8(
// SM_80: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_80-LABEL: func.func @octet_matmul_weight_only(
// SM_80: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_80-LABEL: func.func @conv_s8s8(
// SM_80: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_80-LABEL: func.func @float_matmul(
// SM_80-NOT: octet.strategy
// SM_80: return
// SM_80-LABEL: func.func @shared_dequantize(
// SM_80: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_80: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_80-LABEL: func.func @elementwise(
// SM_80: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_80: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_80: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_80: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// SM_86: module attributes {octet.target = #octet.target<"sm_86">}
// SM_86-LABEL: func.func @w8a8_s8s8(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_86-LABEL: func.func @w8a8_u8s8(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32">}
// SM_86-LABEL: func.func @w8a8_s8u8(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32">}
// SM_86-LABEL: func.func @w8a8_u8u8(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32">}
// SM_86-LABEL: func.func @fp8_e4m3(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_86-LABEL: func.func @fp8_e5m2_e4m3(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_86-LABEL: func.func @w4a4_s4s4(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s4", b = "s4", acc = "s32", shape = "m16n8k64", instruction = "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32">}
// SM_86-LABEL: func.func @w4a8_s8s4(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", note = "B s4 unpacked to s8">}
// SM_86-LABEL: func.func @int8_x_fp8(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_86-LABEL: func.func @w8a16_f16(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_86-LABEL: func.func @w4a16_bf16(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_86-LABEL: func.func @w8a16_f32(
// SM_86: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_86-LABEL: func.func @batch_s8s8(
// SM_86: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_86-LABEL: func.func @generic_s8s8_transposed_b(
// SM_86: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_86-LABEL: func.func @octet_matmul_s8s8(
// SM_86: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_86-LABEL: func.func @octet_matmul_weight_only(
// SM_86: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_86-LABEL: func.func @conv_s8s8(
// SM_86: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_86-LABEL: func.func @float_matmul(
// SM_86-NOT: octet.strategy
// SM_86: return
// SM_86-LABEL: func.func @shared_dequantize(
// SM_86: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_86: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_86-LABEL: func.func @elementwise(
// SM_86: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_86: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_86: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_86: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// SM_89: module attributes {octet.target = #octet.target<"sm_89">}
// SM_89-LABEL: func.func @w8a8_s8s8(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_89-LABEL: func.func @w8a8_u8s8(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32">}
// SM_89-LABEL: func.func @w8a8_s8u8(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32">}
// SM_89-LABEL: func.func @w8a8_u8u8(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32">}
// SM_89-LABEL: func.func @fp8_e4m3(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "e4m3", b = "e4m3", acc = "f32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32">}
// SM_89-LABEL: func.func @fp8_e5m2_e4m3(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "e5m2", b = "e4m3", acc = "f32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32">}
// SM_89-LABEL: func.func @w4a4_s4s4(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s4", b = "s4", acc = "s32", shape = "m16n8k64", instruction = "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32">}
// SM_89-LABEL: func.func @w4a8_s8s4(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", note = "B s4 unpacked to s8">}
// SM_89-LABEL: func.func @int8_x_fp8(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_89-LABEL: func.func @w8a16_f16(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_89-LABEL: func.func @w4a16_bf16(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_89-LABEL: func.func @w8a16_f32(
// SM_89: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_89-LABEL: func.func @batch_s8s8(
// SM_89: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_89-LABEL: func.func @generic_s8s8_transposed_b(
// SM_89: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_89-LABEL: func.func @octet_matmul_s8s8(
// SM_89: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_89-LABEL: func.func @octet_matmul_weight_only(
// SM_89: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_89-LABEL: func.func @conv_s8s8(
// SM_89: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_89-LABEL: func.func @float_matmul(
// SM_89-NOT: octet.strategy
// SM_89: return
// SM_89-LABEL: func.func @shared_dequantize(
// SM_89: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_89: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_89-LABEL: func.func @elementwise(
// SM_89: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_89: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_89: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_89: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// SM_90A: module attributes {octet.target = #octet.target<"sm_90a">}
// SM_90A-LABEL: func.func @w8a8_s8s8(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8">}
// SM_90A-LABEL: func.func @w8a8_u8s8(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "u8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.u8.s8">}
// SM_90A-LABEL: func.func @w8a8_s8u8(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "u8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.u8">}
// SM_90A-LABEL: func.func @w8a8_u8u8(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "u8", b = "u8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.u8.u8">}
// SM_90A-LABEL: func.func @fp8_e4m3(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "e4m3", b = "e4m3", acc = "f32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3">}
// SM_90A-LABEL: func.func @fp8_e5m2_e4m3(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "e5m2", b = "e4m3", acc = "f32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.f32.e5m2.e4m3">}
// SM_90A-LABEL: func.func @w4a4_s4s4(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8", note = "A s4 unpacked to s8, B s4 unpacked to s8">}
// SM_90A-LABEL: func.func @w4a8_s8s4(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8", note = "B s4 unpacked to s8">}
// SM_90A-LABEL: func.func @int8_x_fp8(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "wgmma", a = "f16", b = "f16", acc = "f32", shape = "m64nNk16", instruction = "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16", note = "A and B dequantized to f16">}
// SM_90A-LABEL: func.func @w8a16_f16(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_90A-LABEL: func.func @w4a16_bf16(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_90A-LABEL: func.func @w8a16_f32(
// SM_90A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_90A-LABEL: func.func @batch_s8s8(
// SM_90A: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8">}
// SM_90A-LABEL: func.func @generic_s8s8_transposed_b(
// SM_90A: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8">}
// SM_90A-LABEL: func.func @octet_matmul_s8s8(
// SM_90A: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8">}
// SM_90A-LABEL: func.func @octet_matmul_weight_only(
// SM_90A: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_90A-LABEL: func.func @conv_s8s8(
// SM_90A: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "wgmma", a = "s8", b = "s8", acc = "s32", shape = "m64nNk32", instruction = "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8">}
// SM_90A-LABEL: func.func @float_matmul(
// SM_90A-NOT: octet.strategy
// SM_90A: return
// SM_90A-LABEL: func.func @shared_dequantize(
// SM_90A: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_90A: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_90A-LABEL: func.func @elementwise(
// SM_90A: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_90A: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_90A: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_90A: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// SM_100A: module attributes {octet.target = #octet.target<"sm_100a">}
// SM_100A-LABEL: func.func @w8a8_s8s8(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @w8a8_u8s8(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "u8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @w8a8_s8u8(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "u8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @w8a8_u8u8(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "u8", b = "u8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @fp8_e4m3(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "e4m3", b = "e4m3", acc = "f32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::f8f6f4", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @fp8_e5m2_e4m3(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "e5m2", b = "e4m3", acc = "f32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::f8f6f4", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @w4a4_s4s4(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor; A s4 unpacked to s8, B s4 unpacked to s8">}
// SM_100A-LABEL: func.func @w4a8_s8s4(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor; B s4 unpacked to s8">}
// SM_100A-LABEL: func.func @int8_x_fp8(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "tcgen05.mma", a = "f16", b = "f16", acc = "f32", shape = "m128nNk16", instruction = "tcgen05.mma.cta_group::1.kind::f16", note = "A/B types in the instruction descriptor; A and B dequantized to f16">}
// SM_100A-LABEL: func.func @w8a16_f16(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_100A-LABEL: func.func @w4a16_bf16(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_100A-LABEL: func.func @w8a16_f32(
// SM_100A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_100A-LABEL: func.func @batch_s8s8(
// SM_100A: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @generic_s8s8_transposed_b(
// SM_100A: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @octet_matmul_s8s8(
// SM_100A: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @octet_matmul_weight_only(
// SM_100A: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_100A-LABEL: func.func @conv_s8s8(
// SM_100A: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "tcgen05.mma", a = "s8", b = "s8", acc = "s32", shape = "m128nNk32", instruction = "tcgen05.mma.cta_group::1.kind::i8", note = "A/B types in the instruction descriptor">}
// SM_100A-LABEL: func.func @float_matmul(
// SM_100A-NOT: octet.strategy
// SM_100A: return
// SM_100A-LABEL: func.func @shared_dequantize(
// SM_100A: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_100A: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_100A-LABEL: func.func @elementwise(
// SM_100A: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_100A: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_100A: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_100A: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// SM_120A: module attributes {octet.target = #octet.target<"sm_120a">}
// SM_120A-LABEL: func.func @w8a8_s8s8(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_120A-LABEL: func.func @w8a8_u8s8(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32">}
// SM_120A-LABEL: func.func @w8a8_s8u8(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32">}
// SM_120A-LABEL: func.func @w8a8_u8u8(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "u8", b = "u8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32">}
// SM_120A-LABEL: func.func @fp8_e4m3(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "e4m3", b = "e4m3", acc = "f32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32">}
// SM_120A-LABEL: func.func @fp8_e5m2_e4m3(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "e5m2", b = "e4m3", acc = "f32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32">}
// SM_120A-LABEL: func.func @w4a4_s4s4(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", note = "A s4 unpacked to s8, B s4 unpacked to s8">}
// SM_120A-LABEL: func.func @w4a8_s8s4(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", note = "B s4 unpacked to s8">}
// SM_120A-LABEL: func.func @int8_x_fp8(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "mma.sync", a = "f16", b = "f16", acc = "f32", shape = "m16n8k16", instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", note = "A and B dequantized to f16">}
// SM_120A-LABEL: func.func @w8a16_f16(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_120A-LABEL: func.func @w4a16_bf16(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (bf16 activations)">}
// SM_120A-LABEL: func.func @w8a16_f32(
// SM_120A: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s8 decoded to f32 in the gemv kernel (f32 activations)">}
// SM_120A-LABEL: func.func @batch_s8s8(
// SM_120A: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_120A-LABEL: func.func @generic_s8s8_transposed_b(
// SM_120A: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_120A-LABEL: func.func @octet_matmul_s8s8(
// SM_120A: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_120A-LABEL: func.func @octet_matmul_weight_only(
// SM_120A: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "SIMT", a = "f32", b = "f32", acc = "f32", shape = "1x1x1", instruction = "fma.rn.f32", note = "no f32 tensor-core MMA; B s4 decoded to f32 in the gemv kernel (f16 activations)">}
// SM_120A-LABEL: func.func @conv_s8s8(
// SM_120A: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8", acc = "s32", shape = "m16n8k32", instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
// SM_120A-LABEL: func.func @float_matmul(
// SM_120A-NOT: octet.strategy
// SM_120A: return
// SM_120A-LABEL: func.func @shared_dequantize(
// SM_120A: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// SM_120A: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f32"
// SM_120A-LABEL: func.func @elementwise(
// SM_120A: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_120A: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "f32", b = "s8"
// SM_120A: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "e4m3"
// SM_120A: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "CUDA elementwise", a = "s8", b = "f16"

// AVX2: module attributes {octet.target = #octet.target<"avx2">}
// AVX2-LABEL: func.func @w8a8_s8s8(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @w8a8_u8s8(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "u8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @w8a8_s8u8(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "u8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @w8a8_u8u8(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "u8", b = "u8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @fp8_e4m3(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX2-LABEL: func.func @fp8_e5m2_e4m3(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX2-LABEL: func.func @w4a4_s4s4(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw); A s4 unpacked to s8, B s4 unpacked to s8">}
// AVX2-LABEL: func.func @w4a8_s8s4(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw); B s4 unpacked to s8">}
// AVX2-LABEL: func.func @int8_x_fp8(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX2-LABEL: func.func @w8a16_f16(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// AVX2-LABEL: func.func @w4a16_bf16(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// AVX2-LABEL: func.func @w8a16_f32(
// AVX2: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s8 converted to f32 in the kernel">}
// AVX2-LABEL: func.func @batch_s8s8(
// AVX2: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @generic_s8s8_transposed_b(
// AVX2: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @octet_matmul_s8s8(
// AVX2: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @octet_matmul_weight_only(
// AVX2: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// AVX2-LABEL: func.func @conv_s8s8(
// AVX2: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "AVX2", a = "s8", b = "s8", acc = "s32", shape = "1x8x2", instruction = "vpmaddwd ymm", note = "operands widened to s16 (vpmovsxbw / vpmovzxbw)">}
// AVX2-LABEL: func.func @float_matmul(
// AVX2-NOT: octet.strategy
// AVX2: return
// AVX2-LABEL: func.func @shared_dequantize(
// AVX2: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// AVX2: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// AVX2-LABEL: func.func @elementwise(
// AVX2: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX2: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX2: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// AVX2: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// AVX_VNNI: module attributes {octet.target = #octet.target<"avx-vnni">}
// AVX_VNNI-LABEL: func.func @w8a8_s8s8(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX_VNNI-LABEL: func.func @w8a8_u8s8(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI", a = "u8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm">}
// AVX_VNNI-LABEL: func.func @w8a8_s8u8(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI", a = "s8", b = "u8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "operands swapped (B is the unsigned source)">}
// AVX_VNNI-LABEL: func.func @w8a8_u8u8(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "u8", b = "u8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "B - 128 as s8; add 128 * rowsum(A)">}
// AVX_VNNI-LABEL: func.func @fp8_e4m3(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX_VNNI-LABEL: func.func @fp8_e5m2_e4m3(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX_VNNI-LABEL: func.func @w4a4_s4s4(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B); A s4 unpacked to s8, B s4 unpacked to s8">}
// AVX_VNNI-LABEL: func.func @w4a8_s8s4(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B); B s4 unpacked to s8">}
// AVX_VNNI-LABEL: func.func @int8_x_fp8(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX_VNNI-LABEL: func.func @w8a16_f16(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// AVX_VNNI-LABEL: func.func @w4a16_bf16(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// AVX_VNNI-LABEL: func.func @w8a16_f32(
// AVX_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s8 converted to f32 in the kernel">}
// AVX_VNNI-LABEL: func.func @batch_s8s8(
// AVX_VNNI: linalg.batch_matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX_VNNI-LABEL: func.func @generic_s8s8_transposed_b(
// AVX_VNNI: linalg.generic {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX_VNNI-LABEL: func.func @octet_matmul_s8s8(
// AVX_VNNI: octet.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX_VNNI-LABEL: func.func @octet_matmul_weight_only(
// AVX_VNNI: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// AVX_VNNI-LABEL: func.func @conv_s8s8(
// AVX_VNNI: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = compensated, unit = "AVX-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbusd ymm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX_VNNI-LABEL: func.func @float_matmul(
// AVX_VNNI-NOT: octet.strategy
// AVX_VNNI: return
// AVX_VNNI-LABEL: func.func @shared_dequantize(
// AVX_VNNI: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// AVX_VNNI: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// AVX_VNNI-LABEL: func.func @elementwise(
// AVX_VNNI: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX_VNNI: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX_VNNI: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// AVX_VNNI: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// AVX512_VNNI: module attributes {octet.target = #octet.target<"avx512-vnni">}
// AVX512_VNNI-LABEL: func.func @w8a8_s8s8(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_VNNI-LABEL: func.func @w8a8_u8s8(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX512-VNNI", a = "u8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm">}
// AVX512_VNNI-LABEL: func.func @w8a8_s8u8(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX512-VNNI", a = "s8", b = "u8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "operands swapped (B is the unsigned source)">}
// AVX512_VNNI-LABEL: func.func @w8a8_u8u8(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "u8", b = "u8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "B - 128 as s8; add 128 * rowsum(A)">}
// AVX512_VNNI-LABEL: func.func @fp8_e4m3(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "A and B dequantized to f32">}
// AVX512_VNNI-LABEL: func.func @fp8_e5m2_e4m3(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "A and B dequantized to f32">}
// AVX512_VNNI-LABEL: func.func @w4a4_s4s4(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B); A s4 unpacked to s8, B s4 unpacked to s8">}
// AVX512_VNNI-LABEL: func.func @w4a8_s8s4(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B); B s4 unpacked to s8">}
// AVX512_VNNI-LABEL: func.func @int8_x_fp8(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "A and B dequantized to f32">}
// AVX512_VNNI-LABEL: func.func @w8a16_f16(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// AVX512_VNNI-LABEL: func.func @w4a16_bf16(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// AVX512_VNNI-LABEL: func.func @w8a16_f32(
// AVX512_VNNI: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s8 converted to f32 in the kernel">}
// AVX512_VNNI-LABEL: func.func @batch_s8s8(
// AVX512_VNNI: linalg.batch_matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_VNNI-LABEL: func.func @generic_s8s8_transposed_b(
// AVX512_VNNI: linalg.generic {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_VNNI-LABEL: func.func @octet_matmul_s8s8(
// AVX512_VNNI: octet.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_VNNI-LABEL: func.func @octet_matmul_weight_only(
// AVX512_VNNI: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// AVX512_VNNI-LABEL: func.func @conv_s8s8(
// AVX512_VNNI: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_VNNI-LABEL: func.func @float_matmul(
// AVX512_VNNI-NOT: octet.strategy
// AVX512_VNNI: return
// AVX512_VNNI-LABEL: func.func @shared_dequantize(
// AVX512_VNNI: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// AVX512_VNNI: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// AVX512_VNNI-LABEL: func.func @elementwise(
// AVX512_VNNI: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX512_VNNI: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX512_VNNI: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// AVX512_VNNI: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// AVX512_BF16: module attributes {octet.target = #octet.target<"avx512-bf16">}
// AVX512_BF16-LABEL: func.func @w8a8_s8s8(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_BF16-LABEL: func.func @w8a8_u8s8(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX512-VNNI", a = "u8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm">}
// AVX512_BF16-LABEL: func.func @w8a8_s8u8(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX512-VNNI", a = "s8", b = "u8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "operands swapped (B is the unsigned source)">}
// AVX512_BF16-LABEL: func.func @w8a8_u8u8(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "u8", b = "u8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "B - 128 as s8; add 128 * rowsum(A)">}
// AVX512_BF16-LABEL: func.func @fp8_e4m3(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX512-BF16", a = "bf16", b = "bf16", acc = "f32", shape = "1x16x2", instruction = "vdpbf16ps zmm", note = "A e4m3 and B e4m3 converted to bf16 (exact)">}
// AVX512_BF16-LABEL: func.func @fp8_e5m2_e4m3(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX512-BF16", a = "bf16", b = "bf16", acc = "f32", shape = "1x16x2", instruction = "vdpbf16ps zmm", note = "A e5m2 and B e4m3 converted to bf16 (exact)">}
// AVX512_BF16-LABEL: func.func @w4a4_s4s4(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B); A s4 unpacked to s8, B s4 unpacked to s8">}
// AVX512_BF16-LABEL: func.func @w4a8_s8s4(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B); B s4 unpacked to s8">}
// AVX512_BF16-LABEL: func.func @int8_x_fp8(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "A and B dequantized to f32">}
// AVX512_BF16-LABEL: func.func @w8a16_f16(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// AVX512_BF16-LABEL: func.func @w4a16_bf16(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// AVX512_BF16-LABEL: func.func @w8a16_f32(
// AVX512_BF16: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s8 converted to f32 in the kernel">}
// AVX512_BF16-LABEL: func.func @batch_s8s8(
// AVX512_BF16: linalg.batch_matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_BF16-LABEL: func.func @generic_s8s8_transposed_b(
// AVX512_BF16: linalg.generic {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_BF16-LABEL: func.func @octet_matmul_s8s8(
// AVX512_BF16: octet.matmul {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_BF16-LABEL: func.func @octet_matmul_weight_only(
// AVX512_BF16: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// AVX512_BF16-LABEL: func.func @conv_s8s8(
// AVX512_BF16: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = compensated, unit = "AVX512-VNNI", a = "s8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm", note = "A + 128 as u8; subtract 128 * colsum(B)">}
// AVX512_BF16-LABEL: func.func @float_matmul(
// AVX512_BF16-NOT: octet.strategy
// AVX512_BF16: return
// AVX512_BF16-LABEL: func.func @shared_dequantize(
// AVX512_BF16: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// AVX512_BF16: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// AVX512_BF16-LABEL: func.func @elementwise(
// AVX512_BF16: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX512_BF16: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX512_BF16: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// AVX512_BF16: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// AVX_VNNI_INT8: module attributes {octet.target = #octet.target<"avx-vnni-int8">}
// AVX_VNNI_INT8-LABEL: func.func @w8a8_s8s8(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm">}
// AVX_VNNI_INT8-LABEL: func.func @w8a8_u8s8(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "u8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbsud ymm", note = "operands swapped (B is the signed source)">}
// AVX_VNNI_INT8-LABEL: func.func @w8a8_s8u8(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "u8", acc = "s32", shape = "1x8x4", instruction = "vpdpbsud ymm">}
// AVX_VNNI_INT8-LABEL: func.func @w8a8_u8u8(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "u8", b = "u8", acc = "s32", shape = "1x8x4", instruction = "vpdpbuud ymm">}
// AVX_VNNI_INT8-LABEL: func.func @fp8_e4m3(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX_VNNI_INT8-LABEL: func.func @fp8_e5m2_e4m3(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX_VNNI_INT8-LABEL: func.func @w4a4_s4s4(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm", note = "A s4 unpacked to s8, B s4 unpacked to s8">}
// AVX_VNNI_INT8-LABEL: func.func @w4a8_s8s4(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm", note = "B s4 unpacked to s8">}
// AVX_VNNI_INT8-LABEL: func.func @int8_x_fp8(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "A and B dequantized to f32">}
// AVX_VNNI_INT8-LABEL: func.func @w8a16_f16(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// AVX_VNNI_INT8-LABEL: func.func @w4a16_bf16(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// AVX_VNNI_INT8-LABEL: func.func @w8a16_f32(
// AVX_VNNI_INT8: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s8 converted to f32 in the kernel">}
// AVX_VNNI_INT8-LABEL: func.func @batch_s8s8(
// AVX_VNNI_INT8: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm">}
// AVX_VNNI_INT8-LABEL: func.func @generic_s8s8_transposed_b(
// AVX_VNNI_INT8: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm">}
// AVX_VNNI_INT8-LABEL: func.func @octet_matmul_s8s8(
// AVX_VNNI_INT8: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm">}
// AVX_VNNI_INT8-LABEL: func.func @octet_matmul_weight_only(
// AVX_VNNI_INT8: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "FMA", a = "f32", b = "f32", acc = "f32", shape = "1x8x1", instruction = "vfmadd231ps ymm", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// AVX_VNNI_INT8-LABEL: func.func @conv_s8s8(
// AVX_VNNI_INT8: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "AVX-VNNI-INT8", a = "s8", b = "s8", acc = "s32", shape = "1x8x4", instruction = "vpdpbssd ymm">}
// AVX_VNNI_INT8-LABEL: func.func @float_matmul(
// AVX_VNNI_INT8-NOT: octet.strategy
// AVX_VNNI_INT8: return
// AVX_VNNI_INT8-LABEL: func.func @shared_dequantize(
// AVX_VNNI_INT8: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// AVX_VNNI_INT8: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// AVX_VNNI_INT8-LABEL: func.func @elementwise(
// AVX_VNNI_INT8: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX_VNNI_INT8: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AVX_VNNI_INT8: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// AVX_VNNI_INT8: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// AMX_INT8: module attributes {octet.target = #octet.target<"amx-int8">}
// AMX_INT8-LABEL: func.func @w8a8_s8s8(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd">}
// AMX_INT8-LABEL: func.func @w8a8_u8s8(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "u8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbusd">}
// AMX_INT8-LABEL: func.func @w8a8_s8u8(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "u8", acc = "s32", shape = "16x16x64", instruction = "tdpbsud">}
// AMX_INT8-LABEL: func.func @w8a8_u8u8(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "u8", b = "u8", acc = "s32", shape = "16x16x64", instruction = "tdpbuud">}
// AMX_INT8-LABEL: func.func @fp8_e4m3(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "bf16", b = "bf16", acc = "f32", shape = "16x16x32", instruction = "tdpbf16ps", note = "A e4m3 and B e4m3 converted to bf16 (exact)">}
// AMX_INT8-LABEL: func.func @fp8_e5m2_e4m3(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "bf16", b = "bf16", acc = "f32", shape = "16x16x32", instruction = "tdpbf16ps", note = "A e5m2 and B e4m3 converted to bf16 (exact)">}
// AMX_INT8-LABEL: func.func @w4a4_s4s4(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd", note = "A s4 unpacked to s8, B s4 unpacked to s8">}
// AMX_INT8-LABEL: func.func @w4a8_s8s4(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd", note = "B s4 unpacked to s8">}
// AMX_INT8-LABEL: func.func @int8_x_fp8(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "A and B dequantized to f32">}
// AMX_INT8-LABEL: func.func @w8a16_f16(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// AMX_INT8-LABEL: func.func @w4a16_bf16(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// AMX_INT8-LABEL: func.func @w8a16_f32(
// AMX_INT8: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s8 converted to f32 in the kernel">}
// AMX_INT8-LABEL: func.func @batch_s8s8(
// AMX_INT8: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd">}
// AMX_INT8-LABEL: func.func @generic_s8s8_transposed_b(
// AMX_INT8: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd">}
// AMX_INT8-LABEL: func.func @octet_matmul_s8s8(
// AMX_INT8: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd">}
// AMX_INT8-LABEL: func.func @octet_matmul_weight_only(
// AMX_INT8: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "AVX-512 FMA", a = "f32", b = "f32", acc = "f32", shape = "1x16x1", instruction = "vfmadd231ps zmm", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// AMX_INT8-LABEL: func.func @conv_s8s8(
// AMX_INT8: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "AMX", a = "s8", b = "s8", acc = "s32", shape = "16x16x64", instruction = "tdpbssd">}
// AMX_INT8-LABEL: func.func @float_matmul(
// AMX_INT8-NOT: octet.strategy
// AMX_INT8: return
// AMX_INT8-LABEL: func.func @shared_dequantize(
// AMX_INT8: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// AMX_INT8: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// AMX_INT8-LABEL: func.func @elementwise(
// AMX_INT8: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AMX_INT8: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// AMX_INT8: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// AMX_INT8: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// DOTPROD: module attributes {octet.target = #octet.target<"dotprod">}
// DOTPROD-LABEL: func.func @w8a8_s8s8(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b">}
// DOTPROD-LABEL: func.func @w8a8_u8s8(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "NEON dotprod", a = "u8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b", note = "A - 128 as s8; add 128 * colsum(B)">}
// DOTPROD-LABEL: func.func @w8a8_s8u8(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = compensated, unit = "NEON dotprod", a = "s8", b = "u8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b", note = "B - 128 as s8; add 128 * rowsum(A)">}
// DOTPROD-LABEL: func.func @w8a8_u8u8(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "u8", b = "u8", acc = "s32", shape = "1x4x4", instruction = "udot v.4s, v.16b, v.16b">}
// DOTPROD-LABEL: func.func @fp8_e4m3(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "A and B dequantized to f32">}
// DOTPROD-LABEL: func.func @fp8_e5m2_e4m3(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "A and B dequantized to f32">}
// DOTPROD-LABEL: func.func @w4a4_s4s4(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b", note = "A s4 unpacked to s8, B s4 unpacked to s8">}
// DOTPROD-LABEL: func.func @w4a8_s8s4(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b", note = "B s4 unpacked to s8">}
// DOTPROD-LABEL: func.func @int8_x_fp8(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "A and B dequantized to f32">}
// DOTPROD-LABEL: func.func @w8a16_f16(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// DOTPROD-LABEL: func.func @w4a16_bf16(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// DOTPROD-LABEL: func.func @w8a16_f32(
// DOTPROD: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s8 converted to f32 in the kernel">}
// DOTPROD-LABEL: func.func @batch_s8s8(
// DOTPROD: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b">}
// DOTPROD-LABEL: func.func @generic_s8s8_transposed_b(
// DOTPROD: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b">}
// DOTPROD-LABEL: func.func @octet_matmul_s8s8(
// DOTPROD: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b">}
// DOTPROD-LABEL: func.func @octet_matmul_weight_only(
// DOTPROD: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// DOTPROD-LABEL: func.func @conv_s8s8(
// DOTPROD: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "NEON dotprod", a = "s8", b = "s8", acc = "s32", shape = "1x4x4", instruction = "sdot v.4s, v.16b, v.16b">}
// DOTPROD-LABEL: func.func @float_matmul(
// DOTPROD-NOT: octet.strategy
// DOTPROD: return
// DOTPROD-LABEL: func.func @shared_dequantize(
// DOTPROD: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// DOTPROD: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// DOTPROD-LABEL: func.func @elementwise(
// DOTPROD: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// DOTPROD: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// DOTPROD: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// DOTPROD: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"

// I8MM: module attributes {octet.target = #octet.target<"i8mm">}
// I8MM-LABEL: func.func @w8a8_s8s8(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @w8a8_u8s8(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "u8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "usmmla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @w8a8_s8u8(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "u8", acc = "s32", shape = "2x2x8", instruction = "usmmla v.4s, v.16b, v.16b", note = "operands swapped (B is the unsigned source)">}
// I8MM-LABEL: func.func @w8a8_u8u8(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "u8", b = "u8", acc = "s32", shape = "2x2x8", instruction = "ummla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @fp8_e4m3(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "A and B dequantized to f32">}
// I8MM-LABEL: func.func @fp8_e5m2_e4m3(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "A and B dequantized to f32">}
// I8MM-LABEL: func.func @w4a4_s4s4(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b", note = "A s4 unpacked to s8, B s4 unpacked to s8">}
// I8MM-LABEL: func.func @w4a8_s8s4(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b", note = "B s4 unpacked to s8">}
// I8MM-LABEL: func.func @int8_x_fp8(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = fallback, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "A and B dequantized to f32">}
// I8MM-LABEL: func.func @w8a16_f16(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s8 converted to f32 in the kernel, f16 widened to f32">}
// I8MM-LABEL: func.func @w4a16_bf16(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s4 converted to f32 in the kernel, bf16 widened to f32">}
// I8MM-LABEL: func.func @w8a16_f32(
// I8MM: linalg.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s8 converted to f32 in the kernel">}
// I8MM-LABEL: func.func @batch_s8s8(
// I8MM: linalg.batch_matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @generic_s8s8_transposed_b(
// I8MM: linalg.generic {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @octet_matmul_s8s8(
// I8MM: octet.matmul {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @octet_matmul_weight_only(
// I8MM: octet.matmul {{.*}}#octet.strategy<kind = weight_only, unit = "NEON FMA", a = "f32", b = "f32", acc = "f32", shape = "1x4x1", instruction = "fmla v.4s", note = "B s4 converted to f32 in the kernel, f16 widened to f32">}
// I8MM-LABEL: func.func @conv_s8s8(
// I8MM: linalg.conv_2d_nhwc_hwcf {{.*}}#octet.strategy<kind = native, unit = "NEON i8mm", a = "s8", b = "s8", acc = "s32", shape = "2x2x8", instruction = "smmla v.4s, v.16b, v.16b">}
// I8MM-LABEL: func.func @float_matmul(
// I8MM-NOT: octet.strategy
// I8MM: return
// I8MM-LABEL: func.func @shared_dequantize(
// I8MM: octet.dequantize {{.*}}#octet.strategy<kind = fused,
// I8MM: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f32"
// I8MM-LABEL: func.func @elementwise(
// I8MM: octet.compute_params {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// I8MM: octet.quantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "f32", b = "s8"
// I8MM: octet.requantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "e4m3"
// I8MM: octet.dequantize {{.*}}#octet.strategy<kind = elementwise, unit = "vector", a = "s8", b = "f16"
