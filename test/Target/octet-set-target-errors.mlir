// Errors of octet-set-target: each names what is valid or missing.

// RUN: not octet-opt %s --octet-set-target=target=sm_91 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown target 'sm_91'; valid: sm_75, sm_80, sm_86, sm_89, sm_90a, sm_100a, sm_120a, avx2, avx-vnni, avx512-vnni, avx512-bf16, avx-vnni-int8, amx-int8, dotprod, i8mm, host

// RUN: not octet-opt %s --octet-set-target 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: octet-set-target needs target=NAME; valid: sm_75, sm_80, sm_86, sm_89, sm_90a, sm_100a, sm_120a, avx2, avx-vnni, avx512-vnni, avx512-bf16, avx-vnni-int8, amx-int8, dotprod, i8mm, host

// RUN: not octet-opt %s --octet-set-target="target=host host-arch=riscv64 host-features=v" 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: cannot resolve 'host': the capability table has no levels for architecture 'riscv64' (x86_64 and aarch64 have)

// RUN: not octet-opt %s --octet-set-target="target=host host-arch=x86_64 host-features=sse4.2,avx" 2>&1 | FileCheck %s --check-prefix=OLDX86
// OLDX86: error: cannot resolve 'host': this x86_64 CPU lacks avx2, fma, which the lowest level 'avx2' needs; name a target explicitly

// RUN: not octet-opt %s --octet-set-target="target=host host-arch=aarch64 host-features=neon" 2>&1 | FileCheck %s --check-prefix=OLDARM
// OLDARM: error: cannot resolve 'host': this aarch64 CPU lacks dotprod, which the lowest level 'dotprod' needs; name a target explicitly

// OCTET_HOST_TARGET must name a CPU level.
// RUN: env OCTET_HOST_TARGET=sm_90a not octet-opt %s --octet-set-target=target=host 2>&1 | FileCheck %s --check-prefix=ENV
// ENV: error: OCTET_HOST_TARGET='sm_90a' is not a CPU target; valid: avx2, avx-vnni, avx512-vnni, avx512-bf16, avx-vnni-int8, amx-int8, dotprod, i8mm

module {
}
