// RUN: not octet-opt %s --convert-octet-to-cpu=isa=sse2 2>&1 | FileCheck %s

// CHECK: error: convert-octet-to-cpu: unknown isa 'sse2'; expected auto, none, avx2, avx512-vnni or amx-int8
module {}
