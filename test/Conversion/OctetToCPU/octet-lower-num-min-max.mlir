// RUN: octet-opt %s --octet-lower-num-min-max | FileCheck %s

// NaN-ignoring max / min on floats become LLVM's maxnum / minnum (what the
// loop vectorizer reduces); NaN-propagating maximumf / minimumf and
// integer max are left alone.
// CHECK-LABEL: func.func @absmax
// CHECK: %[[A:.*]] = math.absf %arg1
// CHECK: %[[M:.*]] = llvm.intr.maxnum(%arg0, %[[A]]) : (f32, f32) -> f32
// CHECK: llvm.intr.minnum(%[[M]], %arg2) : (f32, f32) -> f32
// CHECK: llvm.intr.maxnum(%arg3, %arg3) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maxsi
// CHECK-NOT: arith.maxnumf
// CHECK-NOT: arith.minnumf
func.func @absmax(%acc: f32, %x: f32, %c: f32, %v: vector<16xf32>, %i: i32)
    -> (f32, vector<16xf32>, f32, f32, i32) {
  %a = math.absf %x : f32
  %m = arith.maxnumf %acc, %a : f32
  %n = arith.minnumf %m, %c : f32
  %w = arith.maxnumf %v, %v : vector<16xf32>
  %p = arith.maximumf %acc, %x : f32
  %q = arith.minimumf %acc, %x : f32
  %j = arith.maxsi %i, %i : i32
  return %n, %w, %p, %q, %j : f32, vector<16xf32>, f32, f32, i32
}
