// RUN: octet-opt %s --octet-set-target=target=sm_90a --octet-quantize=recipe=w8a8 | FileCheck %s --check-prefix=SM90
// RUN: octet-opt %s --octet-set-target=target=sm_80 --octet-quantize=recipe=w8a8 | FileCheck %s --check-prefix=SM80
// RUN: octet-opt %s --octet-set-target=target=avx512-vnni --octet-quantize=recipe=w8a8 | FileCheck %s --check-prefix=X86
// RUN: not octet-opt %s --octet-quantize=recipe=w8a8 2>&1 | FileCheck %s --check-prefix=NOTARGET

// recipe=w8a8 picks the format the chip multiplies natively: FP8 E4M3 on
// Hopper, INT8 on Ampere and on x86.
// SM90: octet.matmul {{.*}} lhs_scheme <f8E4M3FN, per_axis(0)> {{.*}} rhs_scheme <f8E4M3FN, per_axis(1)>
// SM80: octet.matmul {{.*}} lhs_scheme <i8, per_axis(0)> {{.*}} rhs_scheme <i8, per_axis(1)>
// X86: octet.matmul {{.*}} lhs_scheme <i8, per_axis(0)> {{.*}} rhs_scheme <i8, per_axis(1)>
// NOTARGET: error: octet-quantize-weights: format=auto needs a #octet.target on the module; run octet-set-target first
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<0.25> : tensor<64x16xf32>
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
