// RUN: octet-opt %s --octet-vectorize-rows=lanes=4 --split-input-file | FileCheck %s
// RUN: not octet-opt %s --octet-vectorize-rows=lanes=3 --split-input-file 2>&1 | FileCheck %s --check-prefix=LANES

// LANES: error: octet-vectorize-rows: lanes must be a power of two from 2 to 64, got 3

#id = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
#col = affine_map<(i, k) -> (k)>

// A sum of squares around a per-row mean, times a per-column weight: 4
// rows per vector, 4 x 4 squares transposed by two rounds of shuffles, the
// per-row operand loaded once per group, the column operand broadcast, the
// uniform product left scalar, K's tail gathered, the rows' tail the op
// itself on a slice.
// CHECK-LABEL: func.func @variance
// CHECK-SAME: (%[[X:.*]]: memref<?x10xf32, strided<[10, 1], offset: ?>>, %[[M:.*]]: memref<?xf32>, %[[G:.*]]: memref<10xf32>, %[[OUT:.*]]: memref<?xf32>)
// CHECK: %[[R:.*]] = memref.dim %[[OUT]], %c0
// CHECK: %[[K:.*]] = memref.dim %[[X]], %c1
// CHECK: scf.for %[[R0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[MEAN:.*]] = vector.load %[[M]][%[[R0]]] : memref<?xf32>, vector<4xf32>
// CHECK:   %[[ACC0:.*]] = vector.load %[[OUT]][%[[R0]]] : memref<?xf32>, vector<4xf32>
// CHECK:   %[[SQ:.*]] = scf.for %[[K0:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (vector<4xf32>) {
// CHECK-COUNT-4: vector.load %[[X]]
// CHECK:     %[[T0:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5]
// CHECK:     vector.shuffle %{{.*}}, %{{.*}} [2, 3, 6, 7]
// CHECK:     %[[C0:.*]] = vector.shuffle %[[T0]], %{{.*}} [0, 4, 2, 6]
// CHECK:     %[[W:.*]] = memref.load %[[G]]
// CHECK:     %[[D:.*]] = arith.subf %[[C0]], %[[MEAN]] : vector<4xf32>
// CHECK:     %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : vector<4xf32>
// CHECK:     %[[WV:.*]] = vector.broadcast %[[W]] : f32 to vector<4xf32>
// CHECK:     %[[P:.*]] = arith.mulf %[[D2]], %[[WV]] : vector<4xf32>
// CHECK:     %[[H:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:     %[[HV:.*]] = vector.broadcast %[[H]] : f32 to vector<4xf32>
// CHECK:     %[[Q:.*]] = arith.mulf %[[P]], %[[HV]] : vector<4xf32>
// CHECK:     %[[S:.*]] = arith.addf %[[ACC]], %[[Q]] : vector<4xf32>
// CHECK-COUNT-3: arith.addf %{{.*}} : vector<4xf32>
// CHECK:     scf.yield
// CHECK:   %[[ALL:.*]] = scf.for %[[KT:.*]] = {{.*}} to %[[K]] step %c1{{.*}} iter_args
// CHECK-COUNT-4: memref.load %[[X]]
// CHECK:     vector.from_elements
// CHECK:     arith.addf %{{.*}} : vector<4xf32>
// CHECK:   vector.store %[[ALL]], %[[OUT]][%[[R0]]] : memref<?xf32>, vector<4xf32>
// CHECK: %[[REST:.*]] = arith.cmpi slt, %{{.*}}, %[[R]]
// CHECK: scf.if %[[REST]] {
// CHECK:   memref.subview %[[X]]
// CHECK:   memref.subview %[[M]]
// CHECK:   memref.subview %[[OUT]]
// CHECK:   linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %[[G]] :
func.func @variance(%x: memref<?x10xf32, strided<[10, 1], offset: ?>>,
                    %m: memref<?xf32>, %g: memref<10xf32>,
                    %out: memref<?xf32>) {
  %c = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #col, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %m, %g : memref<?x10xf32, strided<[10, 1], offset: ?>>,
                       memref<?xf32>, memref<10xf32>)
      outs(%out : memref<?xf32>) {
  ^bb0(%v: f32, %mean: f32, %w: f32, %acc: f32):
    %d = arith.subf %v, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %p = arith.mulf %d2, %w : f32
    %h = arith.mulf %c, %c : f32
    %q = arith.mulf %p, %h : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Softmax's row max with leading batch and head loops: those stay loops,
// the output's rows are strided (loaded and stored one element at a time).
// CHECK-LABEL: func.func @max_4d
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK-COUNT-4: memref.load %arg1
// CHECK:       vector.from_elements
// CHECK:       scf.for
// CHECK-COUNT-4: vector.load %arg0
// CHECK:         arith.maximumf %{{.*}} : vector<4xf32>
// CHECK:       vector.extract
// CHECK:       memref.store
#id4 = affine_map<(b, h, q, k) -> (b, h, q, k)>
#red4 = affine_map<(b, h, q, k) -> (b, h, q)>
func.func @max_4d(%x: memref<2x3x8x8xf32>,
                  %out: memref<2x3x8xf32, strided<[48, 16, 2]>>) {
  linalg.generic {indexing_maps = [#id4, #red4],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x8x8xf32>) outs(%out : memref<2x3x8xf32, strided<[48, 16, 2]>>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.maximumf %acc, %v : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Left alone: a reduction over the first loop, a body that reads the loop
// index, an integer output, a full operand whose last dimension is not
// contiguous, rows or K shorter than a vector, and a tensor op.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: vector.
// CHECK-COUNT-7: linalg.generic
// CHECK-NOT: vector.
#id = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
#cols = affine_map<(k, j) -> (j)>
func.func @untouched(%x: memref<16x16xf32>, %s: memref<16xf32>,
                     %xi: memref<16x16xi32>, %si: memref<16xi32>,
                     %xs: memref<16x16xf32, strided<[32, 2]>>,
                     %short: memref<16x3xf32>, %few: memref<3x16xf32>,
                     %s3: memref<3xf32>, %t: tensor<16x16xf32>,
                     %ts: tensor<16xf32>) -> tensor<16xf32> {
  linalg.generic {indexing_maps = [#id, #cols],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.addf %acc, %v : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x16xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %0 = arith.addf %acc, %fi : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%xi : memref<16x16xi32>) outs(%si : memref<16xi32>) {
  ^bb0(%v: i32, %acc: i32):
    %0 = arith.addi %acc, %v : i32
    linalg.yield %0 : i32
  }
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%xs : memref<16x16xf32, strided<[32, 2]>>) outs(%s : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.addf %acc, %v : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%short : memref<16x3xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.addf %acc, %v : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%few : memref<3x16xf32>) outs(%s3 : memref<3xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.addf %acc, %v : f32
    linalg.yield %0 : f32
  }
  %r = linalg.generic {indexing_maps = [#id, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<16x16xf32>) outs(%ts : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.addf %acc, %v : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Element-wise on rows of 8 (4 lanes): the last loop in steps of 4, inputs
// along it as vectors, the others one value per vector (broadcast), the
// output written in place of an identity input.
// CHECK-LABEL: func.func @scale_rows
// CHECK-SAME: (%[[X:.*]]: memref<2x3x8xf32>, %[[S:.*]]: memref<2x3xf32>, %[[M:.*]]: memref<2x8xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:     scf.for %[[C:.*]] = %{{.*}} to %c8{{.*}} step %c4{{.*}} {
// CHECK:       %[[XV:.*]] = vector.load %[[X]][%[[I]], %[[J]], %[[C]]] : memref<2x3x8xf32>, vector<4xf32>
// CHECK:       %[[SV:.*]] = memref.load %[[S]][%[[I]], %[[J]]]
// CHECK:       %[[MV:.*]] = vector.load %[[M]][%[[I]], %[[C]]] : memref<2x8xf32>, vector<4xf32>
// CHECK:       %[[SB:.*]] = vector.broadcast %[[SV]] : f32 to vector<4xf32>
// CHECK:       %[[Q:.*]] = arith.divf %[[XV]], %[[SB]] : vector<4xf32>
// CHECK:       %[[Y:.*]] = arith.addf %[[Q]], %[[MV]] : vector<4xf32>
// CHECK:       vector.store %[[Y]], %[[X]][%[[I]], %[[J]], %[[C]]] : memref<2x3x8xf32>, vector<4xf32>
// CHECK-NOT: linalg.generic
#id3 = affine_map<(i, j, k) -> (i, j, k)>
#ij = affine_map<(i, j, k) -> (i, j)>
#ik = affine_map<(i, j, k) -> (i, k)>
func.func @scale_rows(%x: memref<2x3x8xf32>, %s: memref<2x3xf32>,
                      %m: memref<2x8xf32>) {
  linalg.generic {indexing_maps = [#id3, #ij, #ik, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s, %m : memref<2x3x8xf32>, memref<2x3xf32>, memref<2x8xf32>)
      outs(%x : memref<2x3x8xf32>) {
  ^bb0(%v: f32, %sc: f32, %mk: f32, %o: f32):
    %0 = arith.divf %v, %sc : f32
    %1 = arith.addf %0, %mk : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Element-wise ops left alone: rows not a multiple of the lanes, an i8
// output, an input read one value per vector from the output's own buffer
// (the vectors would overwrite it first), a 16-bit input along the rows.
// CHECK-LABEL: func.func @elementwise_untouched
// CHECK-NOT: vector.
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: vector.
#id2 = affine_map<(i, k) -> (i, k)>
#r2 = affine_map<(i, k) -> (i)>
func.func @elementwise_untouched(%x6: memref<4x6xf32>, %y6: memref<4x6xf32>,
                                 %x: memref<4x8xf32>, %q: memref<4x8xi8>,
                                 %y: memref<4x8xf32>, %h: memref<4x8xf16>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x6 : memref<4x6xf32>) outs(%y6 : memref<4x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.negf %v : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%q : memref<4x8xi8>) {
  ^bb0(%v: f32, %o: i8):
    %0 = arith.fptosi %v : f32 to i8
    linalg.yield %0 : i8
  }
  %col = memref.subview %y[0, 0] [4, 1] [1, 1] : memref<4x8xf32> to memref<4xf32, strided<[8]>>
  linalg.generic {indexing_maps = [#id2, #r2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %col : memref<4x8xf32>, memref<4xf32, strided<[8]>>) outs(%y : memref<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %0 = arith.subf %v, %c : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<4x8xf16>) outs(%y : memref<4x8xf32>) {
  ^bb0(%v: f16, %o: f32):
    %0 = arith.extf %v : f16 to f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Aliasing. In place through two equal subviews of one buffer (what a task
// body of octet-parallelize-loops holds): vectorized. An input that is the
// output's buffer seen through another subview, and a reduction reading
// its own output: left alone (the scalar loops would read values the
// vectors had already overwritten, or the running sums).
// CHECK-LABEL: func.func @aliasing
// CHECK: scf.for
// CHECK: vector.load
// CHECK: arith.negf %{{.*}} : vector<4xf32>
// CHECK: vector.store
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: vector.
#a2 = affine_map<(i, k) -> (i, k)>
#ar = affine_map<(i, k) -> (i)>
func.func @aliasing(%buf: memref<8x16xf32>, %acc: memref<8xf32>) {
  %v1 = memref.subview %buf[0, 0] [4, 8] [1, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  %v2 = memref.subview %buf[0, 0] [4, 8] [1, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  linalg.generic {indexing_maps = [#a2, #a2], iterator_types = ["parallel", "parallel"]}
      ins(%v1 : memref<4x8xf32, strided<[16, 1]>>) outs(%v2 : memref<4x8xf32, strided<[16, 1]>>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.negf %v : f32
    linalg.yield %0 : f32
  }
  %shifted = memref.subview %buf[0, 1] [4, 8] [1, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 1>>
  linalg.generic {indexing_maps = [#a2, #a2], iterator_types = ["parallel", "parallel"]}
      ins(%shifted : memref<4x8xf32, strided<[16, 1], offset: 1>>) outs(%v2 : memref<4x8xf32, strided<[16, 1]>>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.negf %v : f32
    linalg.yield %0 : f32
  }
  %x = memref.subview %buf[0, 0] [8, 8] [1, 1] : memref<8x16xf32> to memref<8x8xf32, strided<[16, 1]>>
  linalg.generic {indexing_maps = [#a2, #ar, #ar], iterator_types = ["parallel", "reduction"]}
      ins(%x, %acc : memref<8x8xf32, strided<[16, 1]>>, memref<8xf32>) outs(%acc : memref<8xf32>) {
  ^bb0(%v: f32, %a: f32, %o: f32):
    %0 = arith.addf %v, %a : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
