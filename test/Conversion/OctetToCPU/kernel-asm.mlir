// The machine code of each kernel family, whatever the machine running the
// test: the generated kernels compiled for a CPU that has the instructions.
// RUN: env OCTET_HOST_TARGET=avx2 octet-compile %s --emit=asm --target=znver3 -o - | FileCheck %s --check-prefix=AVX2
// RUN: env OCTET_HOST_TARGET=avx512-vnni octet-compile %s --emit=asm --target=cascadelake -o - | FileCheck %s --check-prefix=VNNI
// RUN: env OCTET_HOST_TARGET=amx-int8 octet-compile %s --emit=asm --target=sapphirerapids -o - | FileCheck %s --check-prefix=AMX
// RUN: env OCTET_HOST_TARGET=amx-int8 octet-compile %s --emit=asm --target=sapphirerapids -o - | grep -c tilestored | FileCheck %s --check-prefix=STORES
// RUN: env OCTET_HOST_TARGET=avx512-bf16 octet-compile %s --emit=asm --target=znver4 -o - | FileCheck %s --check-prefix=WO

// Both integer loops request the next B micro-panel's lines into L1
// (prefetcht0, in the k loop before the multiply-adds).
// AVX2-LABEL: __octet_cpu_avx2_s8s8
// AVX2: vpmovsxbw
// AVX2: prefetcht0
// AVX2: vpmaddwd
// AVX2: vpaddd
// AVX2-NOT: vpmaddubsw

// VNNI-LABEL: __octet_cpu_vnni512_s8s8
// VNNI: prefetcht0
// VNNI: vpdpbusd {{.*}}zmm

// AMX-LABEL: __octet_cpu_amx_s8s8
// AMX: ldtilecfg
// AMX: tilezero
// AMX: tileloadd
// AMX: tdpbssd
// The four sums stay in tile registers over K and are stored once (they
// went through memory every 256 k before: 12 stores in the code).
// STORES: {{^4$}}
func.func @main(%x: tensor<?x256xi8>) -> tensor<?x64xf32> {
  %w = arith.constant dense<5> : tensor<256x64xi8>
  %sx = arith.constant dense<0.5> : tensor<f32>
  %sw = arith.constant dense<0.25> : tensor<64xf32>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<64xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x256xi8>, tensor<256x64xi8> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// The decode GEMV of weights passed as an argument prefetches 16 rows ahead
// into L2: prefetchnta (L1 only on Intel) is dropped before its line is
// used, which halved the GEMV's bandwidth on Emerald Rapids.
// WO-LABEL: __octet_cpu_wo512_f32s8
// WO-NOT: prefetchnta
// WO: prefetcht1
// WO: vfmadd231ps
func.func @w8a32(%x: tensor<?x4096xf32>, %w: tensor<4096x512xi8>) -> tensor<?x512xf32> {
  %sw = arith.constant dense<0.25> : tensor<512xf32>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<512xf32>)
         rhs_scheme <i8, per_axis(1)>
         : tensor<?x4096xf32>, tensor<4096x512xi8> -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// Constant weights in panels: the decode kernel requests each panel's
// lines 8 KB ahead into L2 (prefetcht1), or into L1 (prefetcht0) for AMD
// Zen CPUs (the module target's cpu; kernel suffix _l1pf).
// RUN: env OCTET_HOST_TARGET=avx512-bf16 octet-compile %s --emit=asm --target=znver5 -o - | FileCheck %s --check-prefix=PANEL-ZEN
// RUN: env OCTET_HOST_TARGET=amx-int8 octet-compile %s --emit=asm --target=sapphirerapids -o - | FileCheck %s --check-prefix=PANEL-INTEL
// The pass option names the CPU directly; a forced level without it tunes
// for no CPU, whatever machine runs the test.
// RUN: octet-opt %s --convert-octet-to-cpu="isa=avx512-bf16 cpu=znver5" | FileCheck %s --check-prefix=OPT-ZEN
// RUN: octet-opt %s --convert-octet-to-cpu="isa=avx512-bf16 cpu=sapphirerapids" | FileCheck %s --check-prefix=OPT-NONE
// RUN: octet-opt %s --convert-octet-to-cpu="isa=avx512-bf16" | FileCheck %s --check-prefix=OPT-NONE
// OPT-ZEN: func.func private @__octet_cpu_wo512_f32s8p_l1pf_
// OPT-NONE-NOT: _l1pf
// OPT-NONE: func.func private @__octet_cpu_wo512_f32s8p_san
// OPT-NONE-NOT: _l1pf
// PANEL-ZEN-LABEL: {{^}}__octet_cpu_wo512_f32s8p_l1pf_{{.*}}:
// PANEL-ZEN-NOT: prefetcht1
// PANEL-ZEN: prefetcht0 8192(
// PANEL-ZEN: vfmadd231ps
// The distance: 8 KB ahead, 4 KB on Zen 4 (MatmulPlan's panelPrefetchBytes;
// kernel suffix _pf4096).
// RUN: env OCTET_HOST_TARGET=avx512-bf16 octet-compile %s --emit=asm --target=znver4 -o - | FileCheck %s --check-prefix=PANEL-ZEN4
// PANEL-ZEN4-LABEL: {{^}}__octet_cpu_wo512_f32s8p_l1pf_pf4096_{{.*}}:
// PANEL-ZEN4: prefetcht0 4096(
// PANEL-ZEN4-NOT: prefetcht0 8192(
// PANEL-ZEN4: vfmadd231ps
// PANEL-INTEL-LABEL: {{^}}__octet_cpu_wo512_f32s8p_san{{.*}}:
// PANEL-INTEL-NOT: prefetcht0
// PANEL-INTEL: prefetcht1
// PANEL-INTEL: vfmadd231ps
func.func @w8a32_panels(%x: tensor<?x1024xf32>) -> tensor<?x256xf32> {
  %w = arith.constant dense<3> : tensor<1024x256xi8>
  %sw = arith.constant dense<0.25> : tensor<256xf32>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<256xf32>)
         rhs_scheme <i8, per_axis(1)>
         : tensor<?x1024xf32>, tensor<1024x256xi8> -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
