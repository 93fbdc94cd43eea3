// RUN: octet-opt %s --split-input-file --octet-parallelize-loops | FileCheck %s
// RUN: not octet-opt %s --split-input-file --octet-parallelize-loops=min-tasks=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: octet-opt %s --split-input-file --octet-parallelize-loops=chunk-bytes=0 | FileCheck %s --check-prefix=NOGROUP

// BAD: error: octet-parallelize-loops: min-work must be >= 0, min-tasks >= 1 and chunk-bytes >= 0

// An element-wise op over 1024 x 384: d0 alone gives enough tasks; each
// task runs the op on rows [begin, end). The static descriptor fields are
// constants in the task; the captured scalar travels in a slot.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: memref<1024x384xf32>, %[[B:.*]]: memref<384xf32>, %[[Y:.*]]: memref<1024x384xf32>, %[[C:.*]]: f32)
// CHECK: %[[CTX:.*]] = memref.alloca() {alignment = 8 : i64} : memref<4xi64>
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[N:.*]] = arith.constant 1024 : i64
// CHECK-DAG: %[[BITS:.*]] = arith.bitcast %[[C]] : f32 to i32
// CHECK: memref.store %{{.*}}, %[[CTX]]
// CHECK: %[[TASK:.*]] = constant @__octet_parallel_0 : (!llvm.ptr, i64, i64) -> ()
// CHECK: call @octet_parallel_for(%[[N]], %[[TASK]], %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: return
// The body takes the three buffers' pointers as noalias arguments (no two
// share a buffer) and rebuilds their descriptors; the task loads the
// pointers from their slots and calls it.
// CHECK-LABEL: func.func private @__octet_parallel_0_body
// CHECK-SAME: (%[[CTXP:.*]]: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64, %[[PX:.*]]: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}) attributes {octet.parallel_task}
// CHECK: llvm.insertvalue %[[PX]], %{{.*}}[0]
// CHECK: %[[XD:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<1024x384xf32>
// CHECK: %[[BD:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<384xf32>
// CHECK: %[[YD:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<1024x384xf32>
// CHECK: %[[CV:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[OFF:.*]] = arith.index_cast %[[LO]] : i64 to index
// CHECK: %[[LEN:.*]] = arith.subi %[[HI]], %[[LO]] : i64
// CHECK: %[[LENI:.*]] = arith.index_cast %[[LEN]]
// CHECK: %[[XS:.*]] = memref.subview %[[XD]][%[[OFF]], 0] [%[[LENI]], 384] [1, 1]
// CHECK: %[[YS:.*]] = memref.subview %[[YD]][%[[OFF]], 0] [%[[LENI]], 384] [1, 1]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[XS]], %[[BD]] :
// CHECK-SAME: outs(%[[YS]] :
// CHECK: arith.mulf %{{.*}}, %[[CV]]
// CHECK-LABEL: func.func private @__octet_parallel_0(
// CHECK-SAME: %[[TC:.*]]: !llvm.ptr, %[[TL:.*]]: i64, %[[TH:.*]]: i64) attributes {octet.parallel_task}
// CHECK-COUNT-3: llvm.inttoptr
// CHECK: call @__octet_parallel_0_body(%[[TC]], %[[TL]], %[[TH]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @rows(%x: memref<1024x384xf32>, %b: memref<384xf32>,
                %y: memref<1024x384xf32>, %c: f32) {
  linalg.generic {indexing_maps = [#id, #col, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<1024x384xf32>, memref<384xf32>)
      outs(%y : memref<1024x384xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %0 = arith.addf %a, %bb : f32
    %1 = arith.mulf %0, %c : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Softmax-style row sums over 32 x 12 x 32 x 32: 32 rows are too few
// tasks, so the split covers d0 and d1 (384 tasks); each task runs one
// (d0, d1) point, the reduction over d3 inside it. linalg.index of a split
// loop gets the point's offset added. The sums accumulate in a buffer of
// the task's own (one for all its points: the slice's shape is static),
// copied in from and back to the point's slice of the output.

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#red = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @two_loops
// CHECK: %[[N:.*]] = arith.constant 384 : i64
// CHECK: call @octet_parallel_for(%[[N]],
// CHECK-LABEL: func.func private @__octet_parallel_0_body
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64,
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<1x1x32xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[R1:.*]] = arith.constant 12 : index
// CHECK: %[[J:.*]] = arith.remui %[[I]], %[[R1]]
// CHECK: %[[K:.*]] = arith.divui %[[I]], %[[R1]]
// CHECK: memref.subview %{{.*}}[%[[K]], %[[J]], 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : memref<32x12x32x32xf32> to memref<1x1x32x32xf32
// CHECK: %[[OUT:.*]] = memref.subview %{{.*}}[%[[K]], %[[J]], 0] [1, 1, 32] [1, 1, 1]
// CHECK: linalg.copy ins(%[[OUT]] : {{.*}}) outs(%[[ACC]] : memref<1x1x32xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[ACC]] : memref<1x1x32xf32>)
// CHECK: %[[IDX:.*]] = linalg.index 1 : index
// CHECK: arith.addi %[[IDX]], %[[J]] : index
// CHECK: linalg.copy ins(%[[ACC]] : memref<1x1x32xf32>) outs(%[[OUT]] :
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[ACC]]
func.func @two_loops(%x: memref<32x12x32x32xf32>, %s: memref<32x12x32xf32>) {
  linalg.generic {indexing_maps = [#in, #red],
                  iterator_types = ["parallel", "parallel", "parallel",
                                    "reduction"]}
      ins(%x : memref<32x12x32x32xf32>) outs(%s : memref<32x12x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %h = linalg.index 1 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %0 = arith.mulf %a, %hf : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Dynamic shapes: the work is checked at run time; below min-work the task
// runs inline over all rows.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[WORK:.*]] = arith.muli
// CHECK: %[[MIN:.*]] = arith.constant 32768 : i64
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %[[WORK]], %[[MIN]] : i64
// CHECK: scf.if %[[BIG]] {
// CHECK:   func.call @octet_parallel_for(%[[N:[^,]+]], %{{[^,]+}}, %[[CTX:[^)]+]])
// CHECK: } else {
// CHECK:   %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:   func.call @__octet_parallel_0(%[[CTX]], %[[ZERO]], %[[N]])
// CHECK: }
func.func @dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Ops that stay serial: too little work; a reduction over the first loop
// (the output does not index it); an input that aliases the output through
// a different map; a payload that calls a function; a payload that reads
// the buffer it writes.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @serial
// CHECK-NOT: octet_parallel_for
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: octet_parallel_for
// CHECK-NOT: func.func private @__octet_parallel
func.func private @record(f32)
func.func @serial(%small: memref<8x8xf32>, %x: memref<512x512xf32>,
                  %c: memref<512xf32>) {
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%small : memref<8x8xf32>) outs(%small : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #col],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<512x512xf32>) outs(%c : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#tr, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<512x512xf32>) outs(%x : memref<512x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id],
                  iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<512x512xf32>) {
  ^bb0(%o: f32):
    func.call @record(%o) : (f32) -> ()
    linalg.yield %o : f32
  }
  linalg.generic {indexing_maps = [#id],
                  iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<512x512xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = memref.load %x[%j, %i] : memref<512x512xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// A copy into a strided view (what tensor.insert_slice into a KV cache
// bufferizes to) becomes linalg.copy: as memref.copy it would lower to a
// call of memrefCopy, which compiled libraries do not link. Contiguous
// copies stay memref.copy (a memcpy).
// CHECK-LABEL: func.func @strided_copy
// CHECK-NOT: memref.copy %{{.*}}, %{{.*}} : memref<1x64xf32> to memref<1x64xf32, strided
// CHECK: linalg.copy ins(%{{.*}} : memref<1x64xf32>) outs(%{{.*}} : memref<1x64xf32, strided<[64, 1], offset: ?>>)
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8x64xf32> to memref<8x64xf32>
func.func @strided_copy(%row: memref<1x64xf32>, %cache: memref<8x64xf32>,
                        %pos: index, %out: memref<8x64xf32>) {
  %v = memref.subview %cache[%pos, 0] [1, 64] [1, 1]
      : memref<8x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
  memref.copy %row, %v : memref<1x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
  memref.copy %cache, %out : memref<8x64xf32> to memref<8x64xf32>
  return
}

// -----

// A square, a residual add, a row sum and the normalization, with
// allocations, a copy of the sum's initial value and a deallocation
// between them: the buffers they write are row-local (every op reads them
// at its own rows), so one task function runs chunks of rows through all
// four. Chunk: 65536 bytes over the 1284 a row touches (x, t, r, h, y:
// 256 each; s: 4), rounded down to a multiple of 16: 48 rows. The copy
// becomes linalg.copy inside the task; the deallocation of t moves after
// the call. Each op alone is below min-work (16384 iterations): with
// chunk-bytes=0 (NOGROUP) all four stay serial.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @chain
// NOGROUP-LABEL: func.func @chain
// NOGROUP-NOT: call @octet_parallel_for
// NOGROUP: memref.copy
// NOGROUP-NOT: call @octet_parallel_for
// NOGROUP: return
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: %[[N:.*]] = arith.constant 256 : i64
// CHECK: call @octet_parallel_for(%[[N]],
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @__octet_parallel_0_body
// CHECK: %[[STEP:.*]] = arith.constant 48 : index
// CHECK: scf.for %[[AT:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] {
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[AT]] : index
// CHECK: %[[ROWS:.*]] = arith.minsi %[[LEFT]], %[[STEP]] : index
// CHECK: memref.subview %{{.*}}[%[[AT]], 0] [%[[ROWS]], 64] [1, 1]
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.copy
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: memref<256x64xf32>, %r: memref<256x64xf32>,
                 %init: memref<256xf32>, %y: memref<256x64xf32>) {
  %t = memref.alloc() : memref<256x64xf32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<256x64xf32>) outs(%t : memref<256x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %a : f32
    linalg.yield %0 : f32
  }
  %h = memref.alloc() : memref<256x64xf32>
  linalg.generic {indexing_maps = [#id, #id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t, %r : memref<256x64xf32>, memref<256x64xf32>)
      outs(%h : memref<256x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %t : memref<256x64xf32>
  %s = memref.alloc() : memref<256xf32>
  memref.copy %init, %s : memref<256xf32> to memref<256xf32>
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<256x64xf32>) outs(%s : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h, %s : memref<256x64xf32>, memref<256xf32>)
      outs(%y : memref<256x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %h : memref<256x64xf32>
  memref.dealloc %s : memref<256xf32>
  return
}

// -----

// Not row-local: the second op reads the sums by column (s[d1]), rows
// another chunk computes; and an op with memory effects (memref.load)
// ends a group. Three task functions, three calls; with chunk-bytes=0
// every op is its own task anyway (NOGROUP).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @not_row_local
// CHECK: call @octet_parallel_for
// CHECK: call @octet_parallel_for
// CHECK: memref.load
// CHECK: call @octet_parallel_for
// CHECK-NOT: call @octet_parallel_for
// CHECK: return
// NOGROUP-LABEL: func.func @not_row_local
// NOGROUP-COUNT-3: call @octet_parallel_for
func.func @not_row_local(%x: memref<256x256xf32>, %s: memref<256xf32>,
                         %y: memref<256x256xf32>, %z: memref<256x256xf32>,
                         %out: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256x256xf32>) outs(%s : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<256x256xf32>, memref<256xf32>)
      outs(%y : memref<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  %v = memref.load %out[] : memref<f32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<256x256xf32>) outs(%z : memref<256x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %v : f32
    linalg.yield %0 : f32
  }
  return
}
