// `host` on an AArch64 machine running the tests resolves to one of the
// AArch64 levels.

// REQUIRES: host-aarch64
// RUN: octet-opt %s --octet-set-target=target=host 2>&1 | FileCheck %s
// CHECK: remark: host (aarch64{{.*}}) has {{.*}} -> '[[LEVEL:dotprod|i8mm]]'
// CHECK: module attributes {octet.target = #octet.target<"[[LEVEL]]"

module {
}
