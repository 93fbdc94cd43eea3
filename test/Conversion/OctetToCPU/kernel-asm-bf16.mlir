// FP8 x FP8 on the avx512-bf16 level (Zen 4): the tiles multiply bf16
// pairs with vdpbf16ps, whatever the machine running the test; on amx-int8
// (Sapphire Rapids) the AMX-BF16 tiles (tdpbf16ps) from 12 rows, the weights
// converted to bf16 per column strip (vpermw: the subnormal codes' table;
// vpermt2w: the pairs), the FMA decode kernel below; on AVX-512 VNNI
// without BF16 (Cascade Lake) the f32 FMA tiles.
// RUN: octet-compile %s --emit=asm --target=znver4 -o - | FileCheck %s --check-prefix=BF16
// RUN: octet-compile %s --emit=asm --target=sapphirerapids -o - | FileCheck %s --check-prefix=AMX
// RUN: octet-compile %s --emit=asm --target=cascadelake -o - | FileCheck %s --check-prefix=FMA

// BF16-LABEL: __octet_cpu_bf16_e4m3e4m3nnp
// BF16: vdpbf16ps {{.*}}zmm

// AMX-LABEL: __octet_cpu_amxbf16_e4m3e4m3nnp
// AMX-DAG: vfmadd231ps {{.*}}zmm
// AMX-DAG: vpermw
// AMX-DAG: vpermt2w
// AMX-DAG: tdpbf16ps
// AMX-NOT: vdpbf16ps
// AMX: .cfi_endproc

// FMA-LABEL: __octet_cpu_wo512_e4m3e4m3nnp
// FMA-NOT: vdpbf16ps
// FMA: vfmadd231ps {{.*}}zmm
// FMA-NOT: vdpbf16ps
func.func @main(%x: tensor<?x256xf8E4M3FN>) -> tensor<?x64xf32> {
  %wq = arith.constant dense<0.625> : tensor<256x64xf8E4M3FN>
  %sx = arith.constant dense<0.5> : tensor<f32>
  %sw = arith.constant dense<0.25> : tensor<64xf32>
  %y = octet.matmul %x, %wq lhs_scale(%sx : tensor<f32>) lhs_scheme <f8E4M3FN>
         rhs_scale(%sw : tensor<64xf32>) rhs_scheme <f8E4M3FN, per_axis(1)>
         : tensor<?x256xf8E4M3FN>, tensor<256x64xf8E4M3FN> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
