// `host` on the machine running the tests resolves to one of the x86 levels
// (this needs AVX2 and FMA, which every x86-64 CI machine has), and the
// environment override forces a level whatever the CPU.

// REQUIRES: host-x86_64
// RUN: octet-opt %s --octet-set-target=target=host 2>&1 | FileCheck %s
// CHECK: remark: host (x86_64{{.*}}) has {{.*}} -> '[[LEVEL:avx2|avx-vnni|avx512-vnni|avx512-bf16|avx-vnni-int8|amx-int8]]'
// CHECK: module attributes {octet.target = #octet.target<"[[LEVEL]]"{{(, cpu = "[^"]+")?}}>}

// RUN: env OCTET_HOST_TARGET=amx-int8 octet-opt %s --octet-set-target=target=host 2>&1 | FileCheck %s --check-prefix=FORCED
// FORCED: remark: host forced by OCTET_HOST_TARGET -> 'amx-int8'
// FORCED: module attributes {octet.target = #octet.target<"amx-int8"

module {
}
