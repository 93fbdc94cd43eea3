// RUN: octet-opt %s --octet-print-capabilities=target=sm_89 -o /dev/null | FileCheck %s --check-prefix=SM89
// RUN: octet-opt %s --octet-set-target=target=amx-int8 --octet-print-capabilities -o /dev/null | FileCheck %s --check-prefix=AMX
// RUN: not octet-opt %s --octet-print-capabilities=target=sm_91 -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The whole table is docs/targets.md's (test: docs-targets.test).

// One target's rows: from the option, or from the module's #octet.target.
// SM89: | target | arch | sm | PTX ISA | emitted PTX | fallback float | host needs | chips |
// SM89: | `sm_89` | cuda | 89 | 7.8 | 8.4 | f16 | - | Ada (L4, L40S, RTX 40xx) |
// SM89-NOT: sm_80
// SM89: | `sm_89` | s8/u8 | s8/u8 | s32 | - | native | mma.sync | m16n8k32 | `mma.sync.aligned.m16n8k32.row.col.s32.{a}.{b}.s32` | 7.0 | - |
// SM89: | `sm_89` | e4m3/e5m2 | e4m3/e5m2 | f32 | - | native | mma.sync | m16n8k32 | `mma.sync.aligned.m16n8k32.row.col.f32.{a}.{b}.f32` | 8.4 | - |
// SM89-NOT: sm_90a

// AMX: | `amx-int8` | x86 | - | - | - | f32 | avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,amx-tile,amx-int8,amx-bf16 |
// AMX: | `amx-int8` | s8 | s8 | s32 | - | native | AMX | 16x16x64 | `tdpbssd` | - | - |
// AMX: | `amx-int8` | bf16 | bf16 | f32 | - | native | AMX | 16x16x32 | `tdpbf16ps` | - | - |
// AMX: | `amx-int8` | f32 | f32 | f32 | - | simd | AVX-512 FMA | 1x16x1 | `vfmadd231ps zmm` | - | - |
// AMX-NOT: avx2

// UNKNOWN: error: unknown target 'sm_91'; valid: sm_75,

module {}
