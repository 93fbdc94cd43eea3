// --octet-pipeline: one flag for set-target, the recipe, select-lowering and
// the lowering for the chip, in that order.

// The order of the passes.
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8 target=avx2" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER:      octet-set-target{{.*}}target=avx2}
// ORDER-NEXT: octet-quantize-weights{{.*}}format=auto {{.*}}recipe=w8a8
// ORDER-NEXT: octet-quantize-activations{{.*}}mode=dynamic
// ORDER-NEXT: octet-fold-scales
// ORDER:      octet-select-lowering
// ORDER-NEXT: octet-fuse-sibling-matmuls
// ORDER-NEXT: convert-octet-to-cpu
// ORDER:      reconcile-unrealized-casts

// Stop after the selection: Hopper gets FP8 E4M3 on wgmma.
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8 target=sm_90a lower=false" | FileCheck %s --check-prefix=SM90
// SM90: module attributes {octet.target = #octet.target<"sm_90a">}
// SM90: octet.matmul {{.*}} lhs_scheme <f8E4M3FN, per_axis(0)> {{.*}} rhs_scheme <f8E4M3FN, per_axis(1)> {octet.strategy = #octet.strategy<kind = native, unit = "wgmma", a = "e4m3", b = "e4m3"

// Ampere gets INT8 on mma.sync for the same recipe.
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8 target=sm_80 lower=false" | FileCheck %s --check-prefix=SM80
// SM80: octet.matmul {{.*}} lhs_scheme <i8, per_axis(0)> {{.*}} {octet.strategy = #octet.strategy<kind = native, unit = "mma.sync", a = "s8", b = "s8"

// A format the chip does not accelerate: a warning that names the cost, an
// error under strict.
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8-fp8 target=sm_80 lower=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// WARN: warning: loc("fc"): FP8 (e4m3 x e4m3) on sm_80: dequantized to f16, no tensor-core speedup
// RUN: not octet-opt %s --octet-pipeline="recipe=w8a8-fp8 target=sm_80 lower=false strict=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT: error: loc("fc"): FP8 (e4m3 x e4m3) on sm_80: {{.*}}(strict)

// All the way down: the host CPU gets the LLVM dialect, no octet op left.
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8 target=host" | FileCheck %s --check-prefix=HOST
// HOST: octet.target = #octet.target<
// HOST-NOT: octet.matmul
// HOST-NOT: octet.quantize
// HOST: llvm.func @main

// A CUDA chip: host code that launches the kernels of a gpu.binary (PTX
// here, so the test needs no ptxas).
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8 target=sm_90a cuda-format=isa" | FileCheck %s --check-prefix=CUDA
// CUDA: gpu.launch_func {{.*}}@octet_kernels::@octet_wgmma
// CUDA: gpu.binary @octet_kernels {{.*}}chip = "sm_90a"
// CUDA-SAME: wgmma.mma_async

// Bad options.
// RUN: not octet-opt %s --octet-pipeline="target=sm_99" 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: error: octet-pipeline: unknown target 'sm_99'; valid targets: host, sm_75, sm_80,
// RUN: not octet-opt %s --octet-pipeline="recipe=w9a9 target=host" 2>&1 | FileCheck %s --check-prefix=BADRECIPE
// BADRECIPE: error: octet-pipeline: unknown recipe 'w9a9'; expected w8a16, w4a16, w3a16, w8a8, w8a8-dynamic, w8a8-static, w8a8-fp8, w8a16-mxfp8, w4a16-mxfp4, w4a16-nvfp4, w8a8-fp8-block, w8a8-mxfp8, w4a8-mxfp4, w4a4-mxfp4 or w4a4-nvfp4
// RUN: not octet-opt %s --octet-pipeline="target=sm_90a cuda-format=elf" 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// BADFORMAT: error: octet-pipeline: unknown cuda-format 'elf'; expected bin or isa

func.func @main(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<0.25> : tensor<64x16xf32>
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32> loc("fc")
  return %y : tensor<4x16xf32>
}
