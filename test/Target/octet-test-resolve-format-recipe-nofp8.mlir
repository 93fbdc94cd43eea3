// target::resolveRecipe on targets without FP8 MMA: fp8 is E4M3 as asked,
// but not accelerated; w8a8 is INT8.

// RUN: octet-opt %s --octet-set-target=target=sm_80 --octet-test-resolve-format=api=recipe | FileCheck %s --check-prefix=SM80
// RUN: octet-opt %s --octet-set-target=target=avx512-vnni --octet-test-resolve-format=api=recipe | FileCheck %s --check-prefix=VNNI

func.func private @fp8() attributes {octet.test.recipe = "fp8", octet.test.role = "activation"}
func.func private @w8a8() attributes {octet.test.recipe = "w8a8", octet.test.role = "activation"}
func.func private @w4a16() attributes {octet.test.recipe = "w4a16", octet.test.role = "weight"}

// SM80: @fp8() attributes {octet.test.accelerated = false, octet.test.elem = "e4m3", octet.test.reason = "fp8 activation on sm_80: e4m3 (asked for; the target has no FP8 MMA, octet-select-lowering will report the fallback)"
// SM80: @w8a8() attributes {octet.test.accelerated = true, octet.test.elem = "s8", octet.test.reason = "w8a8 activation on sm_80: s8 (no native e4m3 x e4m3 on this target; INT8)"
// SM80: @w4a16() attributes {octet.test.accelerated = true, octet.test.elem = "s4", octet.test.reason = "w4a16 weight on sm_80: s4 (weight-only: converted to the activation type in the kernel)"

// VNNI: @fp8() attributes {octet.test.accelerated = false, octet.test.elem = "e4m3"
// VNNI: @w8a8() attributes {octet.test.accelerated = true, octet.test.elem = "s8"
