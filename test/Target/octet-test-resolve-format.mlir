// format=auto per target and recipe (target::resolveAutoFormat), through the
// octet-test-resolve-format test pass: ops carrying octet.test.recipe and
// octet.test.role get octet.test.format. W8A8 is FP8 E4M3 where the target
// multiplies e4m3 x e4m3 natively (sm_89, sm_90a, sm_100a, sm_120a) and INT8
// elsewhere; weight-only recipes are INT8/INT4 weights everywhere; fp8 is
// E4M3 everywhere (octet-select-lowering reports targets without FP8 MMA).
// Errors (activations of weight-only recipes, FP4) are in
// octet-test-resolve-format-errors.mlir.

// RUN: octet-opt %s --octet-set-target=target=sm_75 --octet-test-resolve-format | FileCheck %s --check-prefix=SM_75
// RUN: octet-opt %s --octet-set-target=target=sm_80 --octet-test-resolve-format | FileCheck %s --check-prefix=SM_80
// RUN: octet-opt %s --octet-set-target=target=sm_86 --octet-test-resolve-format | FileCheck %s --check-prefix=SM_86
// RUN: octet-opt %s --octet-set-target=target=sm_89 --octet-test-resolve-format | FileCheck %s --check-prefix=SM_89
// RUN: octet-opt %s --octet-set-target=target=sm_90a --octet-test-resolve-format | FileCheck %s --check-prefix=SM_90A
// RUN: octet-opt %s --octet-set-target=target=sm_100a --octet-test-resolve-format | FileCheck %s --check-prefix=SM_100A
// RUN: octet-opt %s --octet-set-target=target=sm_120a --octet-test-resolve-format | FileCheck %s --check-prefix=SM_120A
// RUN: octet-opt %s --octet-set-target=target=avx2 --octet-test-resolve-format | FileCheck %s --check-prefix=AVX2
// RUN: octet-opt %s --octet-set-target=target=avx-vnni --octet-test-resolve-format | FileCheck %s --check-prefix=AVX_VNNI
// RUN: octet-opt %s --octet-set-target=target=avx512-vnni --octet-test-resolve-format | FileCheck %s --check-prefix=AVX512_VNNI
// RUN: octet-opt %s --octet-set-target=target=avx-vnni-int8 --octet-test-resolve-format | FileCheck %s --check-prefix=AVX_VNNI_INT8
// RUN: octet-opt %s --octet-set-target=target=amx-int8 --octet-test-resolve-format | FileCheck %s --check-prefix=AMX_INT8
// RUN: octet-opt %s --octet-set-target=target=dotprod --octet-test-resolve-format | FileCheck %s --check-prefix=DOTPROD
// RUN: octet-opt %s --octet-set-target=target=i8mm --octet-test-resolve-format | FileCheck %s --check-prefix=I8MM

func.func private @w8a16_weight() attributes {octet.test.recipe = "w8a16", octet.test.role = "weight"}
func.func private @w4a16_weight() attributes {octet.test.recipe = "w4a16", octet.test.role = "weight"}
func.func private @w8a8_weight() attributes {octet.test.recipe = "w8a8", octet.test.role = "weight"}
func.func private @w8a8_activation() attributes {octet.test.recipe = "w8a8", octet.test.role = "activation"}
func.func private @fp8_weight() attributes {octet.test.recipe = "fp8", octet.test.role = "weight"}
func.func private @fp8_activation() attributes {octet.test.recipe = "w8a8-fp8", octet.test.role = "activation"}
// The role defaults to weight.
func.func private @w8a8_default_role() attributes {octet.test.recipe = "w8a8"}

// SM_75: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_75: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_75: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// SM_75: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// SM_75: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_75: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_75: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// SM_80: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_80: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_80: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// SM_80: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// SM_80: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_80: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_80: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// SM_86: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_86: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_86: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// SM_86: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// SM_86: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_86: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_86: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// SM_89: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_89: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_89: func.func private @w8a8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_89: func.func private @w8a8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_89: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_89: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_89: func.func private @w8a8_default_role() attributes {octet.test.format = "f8E4M3FN"

// SM_90A: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_90A: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_90A: func.func private @w8a8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_90A: func.func private @w8a8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_90A: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_90A: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_90A: func.func private @w8a8_default_role() attributes {octet.test.format = "f8E4M3FN"

// SM_100A: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_100A: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_100A: func.func private @w8a8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_100A: func.func private @w8a8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_100A: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_100A: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_100A: func.func private @w8a8_default_role() attributes {octet.test.format = "f8E4M3FN"

// SM_120A: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// SM_120A: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// SM_120A: func.func private @w8a8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_120A: func.func private @w8a8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_120A: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// SM_120A: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// SM_120A: func.func private @w8a8_default_role() attributes {octet.test.format = "f8E4M3FN"

// AVX2: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// AVX2: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// AVX2: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// AVX2: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// AVX2: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// AVX2: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// AVX2: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// AVX_VNNI: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// AVX_VNNI: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// AVX_VNNI: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// AVX_VNNI: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// AVX_VNNI: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// AVX_VNNI: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// AVX_VNNI: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// AVX512_VNNI: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// AVX512_VNNI: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// AVX512_VNNI: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// AVX512_VNNI: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// AVX512_VNNI: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// AVX512_VNNI: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// AVX512_VNNI: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// AVX_VNNI_INT8: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// AVX_VNNI_INT8: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// AVX_VNNI_INT8: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// AVX_VNNI_INT8: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// AVX_VNNI_INT8: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// AVX_VNNI_INT8: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// AVX_VNNI_INT8: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// AMX_INT8: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// AMX_INT8: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// AMX_INT8: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// AMX_INT8: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// AMX_INT8: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// AMX_INT8: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// AMX_INT8: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// DOTPROD: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// DOTPROD: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// DOTPROD: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// DOTPROD: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// DOTPROD: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// DOTPROD: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// DOTPROD: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"

// I8MM: func.func private @w8a16_weight() attributes {octet.test.format = "i8"
// I8MM: func.func private @w4a16_weight() attributes {octet.test.format = "i4"
// I8MM: func.func private @w8a8_weight() attributes {octet.test.format = "i8"
// I8MM: func.func private @w8a8_activation() attributes {octet.test.format = "i8"
// I8MM: func.func private @fp8_weight() attributes {octet.test.format = "f8E4M3FN"
// I8MM: func.func private @fp8_activation() attributes {octet.test.format = "f8E4M3FN"
// I8MM: func.func private @w8a8_default_role() attributes {octet.test.format = "i8"
