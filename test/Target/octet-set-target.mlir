// Every target of the capability table, by name.
// RUN: octet-opt %s --octet-set-target=target=sm_75 | FileCheck %s --check-prefix=SM75
// RUN: octet-opt %s --octet-set-target=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: octet-opt %s --octet-set-target=target=sm_86 | FileCheck %s --check-prefix=SM86
// RUN: octet-opt %s --octet-set-target=target=sm_89 | FileCheck %s --check-prefix=SM89
// RUN: octet-opt %s --octet-set-target=target=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: octet-opt %s --octet-set-target=target=sm_100a | FileCheck %s --check-prefix=SM100A
// RUN: octet-opt %s --octet-set-target=target=sm_120a | FileCheck %s --check-prefix=SM120A
// RUN: octet-opt %s --octet-set-target=target=avx2 | FileCheck %s --check-prefix=AVX2
// RUN: octet-opt %s --octet-set-target=target=avx-vnni | FileCheck %s --check-prefix=AVXVNNI
// RUN: octet-opt %s --octet-set-target=target=avx512-vnni | FileCheck %s --check-prefix=AVX512VNNI
// RUN: octet-opt %s --octet-set-target=target=avx512-bf16 | FileCheck %s --check-prefix=AVX512BF16
// RUN: octet-opt %s --octet-set-target=target=avx-vnni-int8 | FileCheck %s --check-prefix=AVXVNNIINT8
// RUN: octet-opt %s --octet-set-target=target=amx-int8 | FileCheck %s --check-prefix=AMX
// RUN: octet-opt %s --octet-set-target=target=dotprod | FileCheck %s --check-prefix=DOTPROD
// RUN: octet-opt %s --octet-set-target=target=i8mm | FileCheck %s --check-prefix=I8MM

// SM75: module attributes {octet.target = #octet.target<"sm_75">
// SM80: module attributes {octet.target = #octet.target<"sm_80">
// SM86: module attributes {octet.target = #octet.target<"sm_86">
// SM89: module attributes {octet.target = #octet.target<"sm_89">
// SM90A: module attributes {octet.target = #octet.target<"sm_90a">
// SM100A: module attributes {octet.target = #octet.target<"sm_100a">
// SM120A: module attributes {octet.target = #octet.target<"sm_120a">
// AVX2: module attributes {octet.target = #octet.target<"avx2">
// AVXVNNI: module attributes {octet.target = #octet.target<"avx-vnni">
// AVX512VNNI: module attributes {octet.target = #octet.target<"avx512-vnni">
// AVX512BF16: module attributes {octet.target = #octet.target<"avx512-bf16">
// AVXVNNIINT8: module attributes {octet.target = #octet.target<"avx-vnni-int8">
// AMX: module attributes {octet.target = #octet.target<"amx-int8">
// DOTPROD: module attributes {octet.target = #octet.target<"dotprod">
// I8MM: module attributes {octet.target = #octet.target<"i8mm">

// Setting a target replaces the previous one and keeps other attributes.
// RUN: octet-opt %s --octet-set-target=target=sm_89 --octet-set-target=target=sm_90a | FileCheck %s --check-prefix=REPLACE
// REPLACE: module attributes {octet.target = #octet.target<"sm_90a">, test.keep}

// `host` with the detected features replaced: the most capable level whose
// features are all present (Zen 3: AVX2 only; Alder Lake: AVX-VNNI;
// Ice Lake: AVX-512 VNNI; Zen 4: and AVX512-BF16; Arrow Lake: AVX-VNNI-INT8;
// Sapphire Rapids: AMX).
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-cpu=znver3 host-features=avx2,fma,bmi2" 2>&1 | FileCheck %s --check-prefix=ZEN3
// ZEN3: remark: host (x86_64, znver3) has avx2,fma -> 'avx2'
// ZEN3: module attributes {octet.target = #octet.target<"avx2", cpu = "znver3">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-cpu=alderlake host-features=avx2,fma,avxvnni" | FileCheck %s --check-prefix=ADL
// ADL: #octet.target<"avx-vnni", cpu = "alderlake">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-cpu=icelake-server host-features=avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni" | FileCheck %s --check-prefix=ICX
// ICX: #octet.target<"avx512-vnni", cpu = "icelake-server">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-cpu=znver4 host-features=avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,avxvnni" | FileCheck %s --check-prefix=ZEN4
// ZEN4: #octet.target<"avx512-bf16", cpu = "znver4">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-cpu=arrowlake host-features=avx2,fma,avxvnni,avxvnniint8" | FileCheck %s --check-prefix=ARL
// ARL: #octet.target<"avx-vnni-int8", cpu = "arrowlake">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-cpu=sapphirerapids host-features=avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,avxvnni,amx-tile,amx-int8,amx-bf16" 2>&1 | FileCheck %s --check-prefix=SPR
// SPR: remark: host (x86_64, sapphirerapids) has avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,amx-tile,amx-int8,amx-bf16 -> 'amx-int8'
// SPR: #octet.target<"amx-int8", cpu = "sapphirerapids">
// A '-' disables a feature: AMX without AMX-INT8 is AVX-512 VNNI.
// RUN: octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-features=avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,-amx-int8" | FileCheck %s --check-prefix=NOAMX
// NOAMX: module attributes {octet.target = #octet.target<"avx512-vnni">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=aarch64 host-cpu=neoverse-n1 host-features=neon,dotprod" | FileCheck %s --check-prefix=N1
// N1: #octet.target<"dotprod", cpu = "neoverse-n1">
// RUN: octet-opt %s --octet-set-target="target=host host-arch=aarch64 host-cpu=neoverse-v2 host-features=+neon,+dotprod,+i8mm,+sve2" | FileCheck %s --check-prefix=V2
// V2: #octet.target<"i8mm", cpu = "neoverse-v2">

module attributes {test.keep} {
}
