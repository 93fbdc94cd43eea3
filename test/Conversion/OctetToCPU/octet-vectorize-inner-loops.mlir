// RUN: octet-opt %s --split-input-file --octet-vectorize-inner-loops | FileCheck %s

// Softmax's divide over rows of 32: the row is contiguous in the input and
// the output, the denominator does not change along it (a broadcast).
// CHECK-LABEL: func.func @divide
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C16]] {
// CHECK: %[[X:.*]] = vector.load %arg0[%[[I]], %[[J]]] : memref<8x32xf32>, vector<16xf32>
// CHECK: %[[S:.*]] = memref.load %arg1[%[[I]]] : memref<8xf32>
// CHECK: %[[SB:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK: %[[D:.*]] = arith.divf %[[X]], %[[SB]] : vector<16xf32>
// CHECK: vector.store %[[D]], %arg2[%[[I]], %[[J]]] : memref<8x32xf32>, vector<16xf32>
func.func @divide(%x: memref<8x32xf32>, %s: memref<8xf32>, %y: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c32 step %c1 {
      %a = memref.load %x[%i, %j] : memref<8x32xf32>
      %d = memref.load %s[%i] : memref<8xf32>
      %q = arith.divf %a, %d : f32
      memref.store %q, %y[%i, %j] : memref<8x32xf32>
    }
  }
  return
}

// -----

// A quantize to i8 (conversions, a scalar constant broadcast).
// CHECK-LABEL: func.func @quantize
// CHECK: vector.load %arg0[%{{.*}}] : memref<64xf32>, vector<16xf32>
// CHECK: math.roundeven %{{.*}} : vector<16xf32>
// CHECK: arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi8>
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}] : memref<64xi8>, vector<16xi8>
func.func @quantize(%x: memref<64xf32>, %q: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %lo = arith.constant -128.0 : f32
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %x[%j] : memref<64xf32>
    %r = math.roundeven %a : f32
    %m = arith.maximumf %r, %lo : f32
    %c = arith.fptosi %m : f32 to i8
    memref.store %c, %q[%j] : memref<64xi8>
  }
  return
}

// -----

// Left alone: a float sum (its order would change), a trip count that is
// not a multiple of 16, a strided last dimension, a use of the induction
// variable as a value, a loop-carried value.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: vector.
func.func @untouched(%x: memref<4x64xf32>, %s: memref<4xf32>,
                     %y: memref<24xf32>, %z: memref<64xf32, strided<[2]>>,
                     %w: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %x[%c0, %j] : memref<4x64xf32>
    %acc = memref.load %s[%c0] : memref<4xf32>
    %b = arith.addf %acc, %a : f32
    memref.store %b, %s[%c0] : memref<4xf32>
  }
  scf.for %j = %c0 to %c24 step %c1 {
    %a = memref.load %y[%j] : memref<24xf32>
    %b = arith.mulf %a, %a : f32
    memref.store %b, %y[%j] : memref<24xf32>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %z[%j] : memref<64xf32, strided<[2]>>
    memref.store %a, %w[%j] : memref<64xf32>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    memref.store %jf, %w[%j] : memref<64xf32>
  }
  %r = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %a = memref.load %w[%j] : memref<64xf32>
    %b = arith.addf %acc, %a : f32
    scf.yield %b : f32
  }
  return %r : f32
}

// -----

// Softmax's row max: 16 lanes that all start from the current maximum,
// reduced once at the end (exact: max is idempotent and order-free).
// CHECK-LABEL: func.func @row_max
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[I:.*]]] : memref<8xf32>
// CHECK: %[[B:.*]] = vector.broadcast %[[INIT]] : f32 to vector<16xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[B]]) -> (vector<16xf32>) {
// CHECK: %[[X:.*]] = vector.load %arg0[%[[I]], %{{.*}}] : memref<8x64xf32>, vector<16xf32>
// CHECK: %[[M:.*]] = arith.maximumf %[[X]], %[[ACC]] : vector<16xf32>
// CHECK: scf.yield %[[M]] : vector<16xf32>
// CHECK: %[[V:.*]] = vector.reduction <maximumf>, %[[R]] : vector<16xf32> into f32
// CHECK: memref.store %[[V]], %arg1[%[[I]]] : memref<8xf32>
func.func @row_max(%x: memref<8x64xf32>, %m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = memref.load %x[%i, %j] : memref<8x64xf32>
      %acc = memref.load %m[%i] : memref<8xf32>
      %r = arith.maximumf %a, %acc : f32
      memref.store %r, %m[%i] : memref<8xf32>
    }
  }
  return
}
