// Round trip of #octet.target and #octet.strategy.
// RUN: octet-opt %s | octet-opt | FileCheck %s

// CHECK: module attributes {octet.target = #octet.target<"avx512-vnni", cpu = "znver4">}
module attributes {octet.target = #octet.target<"avx512-vnni", cpu = "znver4">} {
  // CHECK-LABEL: func.func private @strategies()
  // CHECK-SAME: a = #octet.strategy<kind = native, unit = "AVX512-VNNI", a = "u8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm">
  // CHECK-SAME: b = #octet.strategy<kind = elementwise, unit = "vector">
  // CHECK-SAME: c = #octet.strategy<kind = compensated, note = "A + 128 as u8">
  // CHECK-SAME: d = #octet.strategy<kind = weight_only>
  // CHECK-SAME: e = #octet.strategy<kind = fallback>
  // CHECK-SAME: f = #octet.strategy<kind = fused>
  func.func private @strategies() attributes {
    a = #octet.strategy<kind = native, unit = "AVX512-VNNI", a = "u8", b = "s8", acc = "s32", shape = "1x16x4", instruction = "vpdpbusd zmm">,
    b = #octet.strategy<kind = elementwise, unit = "vector">,
    c = #octet.strategy<note = "A + 128 as u8", kind = compensated>,
    d = #octet.strategy<kind = weight_only>,
    e = #octet.strategy<kind = fallback>,
    f = #octet.strategy<kind = fused>}
}

// The cpu is optional.
// RUN: echo 'module attributes {octet.target = #octet.target<"sm_90a">} {}' | octet-opt | FileCheck %s --check-prefix=NOCPU
// NOCPU: module attributes {octet.target = #octet.target<"sm_90a">}
