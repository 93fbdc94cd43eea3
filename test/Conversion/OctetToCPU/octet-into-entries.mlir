// RUN: octet-opt %s --octet-into-entries --split-input-file --verify-diagnostics | FileCheck %s

// A result allocated with a size read from an argument: the caller's
// buffer is checked first and replaces the allocation; @scale becomes a
// wrapper that allocates and calls @scale_into.

// CHECK:       func.func private @octet_into_mismatch(!llvm.ptr, i64, i64, i64, i64, i64)
// CHECK:       llvm.mlir.global internal constant @__octet_into_scale_into("scale_into\00")
// CHECK-LABEL: func.func @scale(
// CHECK-SAME:      %[[X:.*]]: memref<?x4xf32>) -> memref<?x4xf32> attributes {llvm.emit_c_interface}
// CHECK:         %[[M:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[A:.*]] = memref.alloc(%[[M]]) {alignment = 64 : i64} : memref<?x4xf32>
// CHECK:         %[[C:.*]] = memref.cast %[[A]] : memref<?x4xf32> to memref<?x4xf32, strided<[?, ?], offset: ?>>
// CHECK:         call @scale_into(%[[C]], %[[X]])
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[A]]

// CHECK-LABEL: func.func @scale_into(
// CHECK-SAME:      %[[OUT:.*]]: memref<?x4xf32, strided<[?, ?], offset: ?>>, %[[X2:.*]]: memref<?x4xf32>) -> i32 attributes {llvm.emit_c_interface}
// CHECK:         %[[NAME:.*]] = llvm.getelementptr
// CHECK:         %[[M2:.*]] = memref.dim %[[X2]], %{{.*}}
// CHECK:         memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[X2]]
// CHECK:         arith.cmpi ult
// CHECK:         func.call @octet_into_mismatch(%[[NAME]], %{{.*}}, %c3_i64,
// CHECK:         %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[OUT]]
// CHECK:         arith.cmpi eq, %{{.*}}#0, %[[M2]]
// CHECK:         func.call @octet_into_mismatch(%[[NAME]],
// CHECK:         %[[AS:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%[[M2]], 4], strides: [4, 1] : memref<?x4xf32, strided<[?, ?], offset: ?>> to memref<?x4xf32>
// CHECK:         %[[ST:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NOT:       memref.alloc
// CHECK:           linalg.generic {{.*}} outs(%[[AS]] : memref<?x4xf32>)
// CHECK-NOT:       memref.copy
// CHECK:           scf.yield %{{.*}} : i32
// CHECK:         } else {
// CHECK:           scf.yield %{{.*}} : i32
// CHECK:         return %[[ST]] : i32
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale(%x: memref<?x4xf32>) -> memref<?x4xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x4xf32>
  %y = memref.alloc(%m) {alignment = 64 : i64} : memref<?x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return %y : memref<?x4xf32>
}

// A size read from memory cannot be checked before the body runs: the
// result is computed as before, then checked, copied and freed; the
// function keeps its body. Scalar results and private functions get no
// entry.

// CHECK-LABEL: func.func @fill(
// CHECK:         memref.load
// CHECK:         linalg.fill
// CHECK:         return
// CHECK-LABEL: func.func @fill_into(
// CHECK:         scf.if %{{.*}} -> (i32) {
// CHECK:           %[[R:.*]] = memref.alloc
// CHECK:           linalg.fill
// CHECK:           %[[OK:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK:             memref.copy %[[R]], %{{.*}} : memref<?xf32> to memref<?xf32>
// CHECK:           memref.dealloc %[[R]]
// CHECK-NOT:   func.func @first_into
// CHECK-NOT:   func.func @helper_into

// One allocation returned twice: copied into both buffers, freed once.
// CHECK-LABEL: func.func @twice_into(
// CHECK:         memref.copy
// CHECK:         memref.dealloc
// CHECK:         memref.copy
// CHECK-NOT:     memref.dealloc
// CHECK:         return

// -----

func.func @fill(%n: memref<1xindex>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %k = memref.load %n[%c0] : memref<1xindex>
  %y = memref.alloc(%k) : memref<?xf32>
  %seven = arith.constant 7.0 : f32
  linalg.fill ins(%seven : f32) outs(%y : memref<?xf32>)
  return %y : memref<?xf32>
}
func.func @first(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.load %x[%c0] : memref<4xf32>
  return %a : f32
}
func.func private @helper(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func @twice(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %y = memref.alloc() : memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return %y, %y : memref<4xf32>, memref<4xf32>
}

// -----

// expected-error @below {{cannot add the entry 'taken_into': a symbol of that name exists}}
func.func @taken(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return %y : memref<4xf32>
}
func.func private @taken_into()

// -----

// expected-error @below {{cannot add the entry 'branchy_into': the function has several blocks}}
func.func @branchy(%x: memref<4xf32>, %c: i1) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  cf.cond_br %c, ^a, ^b
^a:
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return %y : memref<4xf32>
^b:
  return %y : memref<4xf32>
}
