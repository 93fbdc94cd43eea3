// RUN: octet-opt %s -split-input-file --convert-octet-to-gpu | FileCheck %s
// RUN: octet-opt %s -split-input-file --convert-octet-to-gpu="manifest=%t.manifest" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.manifest
// (Each split module rewrites the manifest: it holds the last one's.)

// Launch stubs (as octet-outline-for-cuda and bufferization leave them) get
// stream-ordered bodies; their kernels go into gpu.module @octet_kernels.

// CHECK-LABEL: module attributes {gpu.container_module
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func private @octet_cuda_quantize_0
//  CHECK-SAME:   (%[[X:.*]]: memref<?x16xf32> {{.*}}, %[[S:.*]]: memref<f32> {{.*}}) -> memref<?x16xi8>
//  CHECK-SAME:   attributes {llvm.linkage = #llvm.linkage<internal>}
//       CHECK:   %[[T0:.*]] = gpu.wait async
//       CHECK:   %[[DX:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%{{.*}}) : memref<?x16xf32>
//       CHECK:   %[[T2:.*]] = gpu.memcpy async [%[[T1]]] %[[DX]], %[[X]]
//       CHECK:   %[[DS:.*]], %{{.*}} = gpu.alloc async
//       CHECK:   gpu.memcpy async [%{{.*}}] %[[DS]], %[[S]]
//       CHECK:   %[[DQ:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?x16xi8>
//       CHECK:   %[[PX:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
//       CHECK:   %[[L:.*]] = gpu.launch_func async [%{{.*}}] @octet_kernels::@[[$EW:octet_elementwise_[0-9]+]]
//  CHECK-SAME:     threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %{{.*}} args(%[[PX]] : !llvm.ptr,
//       CHECK:   %[[H:.*]] = memref.alloc(%{{.*}}) : memref<?x16xi8>
//       CHECK:   %[[T3:.*]] = gpu.memcpy async [%[[L]]] %[[H]], %[[DQ]]
//       CHECK:   gpu.dealloc async
//       CHECK:   gpu.wait [%{{.*}}]
//       CHECK:   return %[[H]] : memref<?x16xi8>
func.func private @octet_cuda_quantize_0(memref<?x16xf32> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}) -> memref<?x16xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}

// The wgmma kernel reads B^T: a transpose kernel runs first.
// CHECK-LABEL: func.func private @octet_cuda_matmul_1
//       CHECK:   gpu.launch_func async [%{{.*}}] @octet_kernels::@[[$TR:octet_transpose_[0-9]+]]
//       CHECK:   gpu.launch_func async [%{{.*}}] @octet_kernels::@[[$WG:octet_wgmma_[0-9]+]]
//  CHECK-SAME:     dynamic_shared_memory_size %c131072_i32
func.func private @octet_cuda_matmul_1(memref<?x64xf8E4M3FN> {bufferization.access = "read"}, memref<64x32xf8E4M3FN> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}) -> memref<?x32xf32> attributes {octet.cuda.kernel = "wgmma", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale"], octet.cuda.schemes = {lhs_scheme = #octet.scheme<f8E4M3FN>, rhs_scheme = #octet.scheme<f8E4M3FN>}}

// CHECK: gpu.module @octet_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx84">]
// CHECK:   llvm.mlir.global external @octet_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:   gpu.func @[[$EW]](%{{.*}}: !llvm.ptr, {{.*}}: i64) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: octet.launch = {block = array<i64: 256, 1, 1>, kind = "elementwise"
// CHECK:     arith.divf
// CHECK:     math.roundeven
// CHECK:   gpu.func @[[$WG]](
// CHECK-SAME: kind = "wgmma", shared_bytes = 131072 : i64, tile = array<i64: 128, 128, 128>
// CHECK:     nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:     nvvm.cp.async.commit.group
// CHECK:     scf.for
// CHECK:       nvvm.cp.async.wait.group 1
// CHECK:       nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:       nvvm.barrier0
// CHECK:       nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK:       nvvm.wgmma.commit.group.sync.aligned
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:   gpu.func @[[$TR]](
}

// -----

// sm_89: mma.sync for s8 (nvvm.mma.sync) and FP8 (inline PTX); zero points
// take row and column sums; the same kernel serves two stubs.
module attributes {octet.target = #octet.target<"sm_89">} {
// CHECK-LABEL: func.func private @octet_cuda_matmul_0
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$TR2:octet_transpose_[0-9]+]]
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$RS:octet_rowsum_[0-9]+]]
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$MMA:octet_mma_sync_[0-9]+]]
func.func private @octet_cuda_matmul_0(memref<?x64xi8>, memref<64x32xi8>, memref<f32>, memref<f32>, memref<f32>, memref<32xi32>) -> memref<?x32xf32> attributes {octet.cuda.kernel = "mma_sync", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale", "rhs_zero_point", "bias"], octet.cuda.schemes = {lhs_scheme = #octet.scheme<i8>, rhs_scheme = #octet.scheme<u8, per_axis(1), asymmetric>}}

// CHECK-LABEL: func.func private @octet_cuda_matmul_1
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$TR2]]
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$RS]]
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$MMA]]
func.func private @octet_cuda_matmul_1(memref<?x64xi8>, memref<64x32xi8>, memref<f32>, memref<f32>, memref<f32>, memref<32xi32>) -> memref<?x32xf32> attributes {octet.cuda.kernel = "mma_sync", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale", "rhs_zero_point", "bias"], octet.cuda.schemes = {lhs_scheme = #octet.scheme<i8>, rhs_scheme = #octet.scheme<u8, per_axis(1), asymmetric>}}

// CHECK-LABEL: func.func private @octet_cuda_matmul_2
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$FP8:octet_mma_sync_[0-9]+]]
func.func private @octet_cuda_matmul_2(memref<?x64xf8E5M2>, memref<64x32xf8E4M3FN>, memref<f32>, memref<f32>) -> memref<?x32xbf16> attributes {octet.cuda.kernel = "mma_sync", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale"], octet.cuda.schemes = {lhs_scheme = #octet.scheme<f8E5M2>, rhs_scheme = #octet.scheme<f8E4M3FN>}}

// CHECK: gpu.module @octet_kernels [#nvvm.target<O = 3, chip = "sm_89", features = "+ptx84">]
// CHECK:   gpu.func @[[$MMA]](
// CHECK-SAME: kind = "mma_sync", shared_bytes = 61440 : i64, tile = array<i64: 128, 128, 64>
// CHECK:     nvvm.cp.async.wait.group 1
// CHECK:     nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<u8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
// CHECK:   gpu.func @[[$FP8]](
// CHECK:     llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
}

// -----

// A resident argument (a constant at the call site) is uploaded by the
// first call only: its device address lives in an i64 global, read with
// an atomic load; when it is zero the stub uploads on a stream of its own,
// waits, and publishes the address by compare-and-swap (the loser of a
// race frees its copy). The other arguments are copied by every call.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK: llvm.mlir.global internal @octet_cuda_quantize_0_out_scale_dev(0 : i64) {addr_space = 0 : i32, alignment = 8 : i64} : i64
// CHECK-LABEL: func.func private @octet_cuda_quantize_0
//  CHECK-SAME:   (%[[X:.*]]: memref<?x16xf32>, %[[S:.*]]: memref<16xf32>)
//       CHECK:   gpu.memcpy async [%{{.*}}] %{{.*}}, %[[X]]
//       CHECK:   %[[SLOT:.*]] = llvm.mlir.addressof @octet_cuda_quantize_0_out_scale_dev : !llvm.ptr
//       CHECK:   %[[CUR:.*]] = llvm.load %[[SLOT]] atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
//       CHECK:   %[[MISSING:.*]] = arith.cmpi eq, %[[CUR]], %{{.*}} : i64
//       CHECK:   %[[ADDR:.*]] = scf.if %[[MISSING]] -> (i64) {
//       CHECK:     %[[T0:.*]] = gpu.wait async
//       CHECK:     %[[DS:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<16xf32>
//       CHECK:     %[[T2:.*]] = gpu.memcpy async [%[[T1]]] %[[DS]], %[[S]]
//       CHECK:     gpu.wait [%[[T2]]]
//       CHECK:     %[[PAIR:.*]] = llvm.cmpxchg %[[SLOT]], %{{.*}}, %{{.*}} acq_rel acquire
//       CHECK:     scf.if
//       CHECK:       gpu.dealloc async [%{{.*}}] %[[DS]]
//       CHECK:     scf.yield
//       CHECK:   } else {
//       CHECK:     scf.yield %[[CUR]] : i64
//       CHECK:   %[[PS:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr
//       CHECK:   gpu.launch_func {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[PS]] : !llvm.ptr,
//   CHECK-NOT:   gpu.dealloc async [%{{.*}}] %[[DS]]
//       CHECK:   return
func.func private @octet_cuda_quantize_0(memref<?x16xf32>, memref<16xf32>) -> memref<?x16xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.resident = ["out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8, per_axis(1)>}}
}

// -----

// gemv for weight-only products, with a one-row variant chosen when M <= 1
// (the other launch gets an empty grid). K is split so that the grid has
// about 512 blocks, counting column and row tiles (a large M splits less).
module attributes {octet.target = #octet.target<"sm_80">} {
// CHECK-LABEL: func.func private @octet_cuda_matmul_0
//       CHECK:   %[[COLS:.*]] = arith.ceildivui %{{.*}}, %c128 : index
//       CHECK:   %[[ROWS:.*]] = arith.ceildivui %{{.*}}, %c4 : index
//       CHECK:   %[[TILES:.*]] = arith.muli %[[COLS]], %[[ROWS]] : index
//       CHECK:   %[[MAX:.*]] = arith.maxui %[[TILES]], %{{.*}} : index
//       CHECK:   arith.ceildivui %c512, %[[MAX]] : index
//       CHECK:   gpu.memset async [%{{.*}}] %{{.*}}, %{{.*}} : memref<?xi32>, i32
//       CHECK:   %[[ONE:.*]] = arith.cmpi ule, %{{.*}}, %c1
//       CHECK:   %[[Z1:.*]] = arith.select %[[ONE]], %{{.*}}, %c0
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$G1:octet_gemv_[0-9]+]] blocks in (%{{.*}}, %{{.*}}, %[[Z1]])
//       CHECK:   %[[Z4:.*]] = arith.select %[[ONE]], %c0{{.*}}, %{{.*}}
//       CHECK:   gpu.launch_func {{.*}} @octet_kernels::@[[$G4:octet_gemv_[0-9]+]] blocks in (%{{.*}}, %{{.*}}, %[[Z4]])
func.func private @octet_cuda_matmul_0(memref<?x512xf16>, memref<512x256xi8>, memref<256xf32>) -> memref<?x256xf16> attributes {octet.cuda.kernel = "gemv", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "rhs_scale"], octet.cuda.schemes = {rhs_scheme = #octet.scheme<i8, per_axis(1)>}}

// CHECK: gpu.func @[[$G4]](
// CHECK-SAME: kind = "gemv", shared_bytes = 16400 : i64, tile = array<i64: 4, 128, 128>
// CHECK:   llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:   llvm.call_intrinsic "llvm.nvvm.prmt"
// CHECK:   nvvm.shfl.sync  bfly
// CHECK:   llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") acq_rel
// CHECK: gpu.func @[[$G1]](
// CHECK-SAME: kind = "gemv", shared_bytes = 4112 : i64, tile = array<i64: 1, 128, 128>
}

// MANIFEST:      # octet kernel manifest v1 (docs/cuda.md)
// MANIFEST-NEXT: # kernel NAME KIND BLOCK_X BLOCK_Y SHARED_BYTES TILE_M TILE_N TILE_K
// MANIFEST-NEXT: target sm_80 +ptx70
// MANIFEST-NEXT: kernel octet_gemv_0 gemv 256 1 16400 4 128 128
// MANIFEST-NEXT: kernel octet_gemv_1 gemv 256 1 4112 1 128 128
