// RUN: octet-opt %s --split-input-file --convert-octet-to-cpu="isa=avx2 remarks=true" --octet-emit-cpu-kernels --verify-diagnostics | FileCheck %s
// RUN: octet-opt %s --split-input-file --convert-octet-to-cpu="isa=avx512-vnni" --octet-emit-cpu-kernels | FileCheck %s --check-prefix=VNNI
// RUN: octet-opt %s --split-input-file --convert-octet-to-cpu="isa=amx-int8" --octet-emit-cpu-kernels | FileCheck %s --check-prefix=AMX

// W8A8 with constant weights: the weights become a packed constant, the
// activations are packed at run time, the tiles run on the thread pool.

// CHECK-LABEL: func.func @w8a8
// CHECK-SAME: (%[[X:.*]]: tensor<?x128xi8>, %[[SX:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<{{.*}}> : tensor<8192xi8>
// CHECK-DAG: %[[SCRATCH:.*]] = call @octet_cpu_scratch(
// CHECK: call @octet_cpu_pack_lhs(
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x64xf32>
// CHECK: %[[TASK:.*]] = constant @__octet_cpu_avx2_s8s8_sav_sbv_zan_zbn_bias_relu
// CHECK: call @octet_parallel_for(%{{.*}}, %[[TASK]], %{{.*}})
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK-LABEL: func.func private @__octet_cpu_avx2_s8s8_sav_sbv_zan_zbn_bias_relu
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK: scf.for
// CHECK: arith.extsi %{{.*}} : vector<16xi8> to vector<16xi16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// CHECK: arith.sitofp %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.maximumf
// CHECK: llvm.intr.masked.store

// VNNI-LABEL: func.func @w8a8
// VNNI: arith.constant dense<{{.*}}> : tensor<64xi32>
// VNNI: constant @__octet_cpu_vnni512_s8s8
// VNNI-LABEL: func.func private @__octet_cpu_vnni512_s8s8
// VNNI: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

// AMX-LABEL: func.func @w8a8
// AMX: call @octet_cpu_require_amx
// AMX-LABEL: func.func private @__octet_cpu_amx_s8s8
// AMX: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// AMX: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"
func.func @w8a8(%x: tensor<?x128xi8>, %sx: tensor<?xf32>) -> tensor<?x64xf32> {
  %w = arith.constant dense<3> : tensor<128x64xi8>
  %sw = arith.constant dense<0.5> : tensor<64xf32>
  %b = arith.constant dense<1.0> : tensor<64xf32>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?xf32>)
         lhs_scheme <i8, per_axis(0)>
         rhs_scale(%sw : tensor<64xf32>) rhs_scheme <i8, per_axis(1)>
         bias(%b : tensor<64xf32>) relu
         : tensor<?x128xi8>, tensor<128x64xi8> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Weight-only: the weights stay where they are (an argument here) and are
// converted to f32 inside the kernel.

// CHECK-LABEL: func.func @w8a32
// CHECK-NOT: octet.matmul
// CHECK: constant @__octet_cpu_wo_f32s8_san_sbv_zan_zbv
// CHECK-LABEL: func.func private @__octet_cpu_wo_f32s8_san_sbv_zan_zbv
// CHECK: arith.extsi %{{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.subi
// CHECK: vector.fma {{.*}} : vector<8xf32>
func.func @w8a32(%x: tensor<1x96xf32>, %w: tensor<96x40xi8>, %sw: tensor<40xf32>, %zw: tensor<40xi32>) -> tensor<1x40xf32> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<40xf32>)
         rhs_zero_point(%zw : tensor<40xi32>) rhs_scheme <i8, per_axis(1), asymmetric>
         : tensor<1x96xf32>, tensor<96x40xi8> -> tensor<1x40xf32>
  return %y : tensor<1x40xf32>
}

// -----

// Requantized i8 result.

// CHECK-LABEL: func.func @requantize
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x16xi8>
// CHECK-LABEL: func.func private @__octet_cpu_avx2_u8s8_sas_sbs_zas_zbn_qm128_127_oss_ozn
// CHECK: math.roundeven
// CHECK: arith.fptosi
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi8>
func.func @requantize(%x: tensor<4x32xi8>, %sx: tensor<f32>, %zx: tensor<i32>, %so: tensor<f32>) -> tensor<4x16xi8> {
  %w = arith.constant dense<-7> : tensor<32x16xi8>
  %sw = arith.constant dense<0.25> : tensor<f32>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>)
         lhs_zero_point(%zx : tensor<i32>) lhs_scheme <u8, asymmetric>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         out_scale(%so : tensor<f32>) out_scheme <i8>
         : tensor<4x32xi8>, tensor<32x16xi8> -> tensor<4x16xi8>
  return %y : tensor<4x16xi8>
}

// -----

// Left to the portable lowering, with the reason.

func.func @not_constant(%x: tensor<4x32xi8>, %w: tensor<32x16xi8>, %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<4x16xf32> {
  // expected-remark @below {{convert-octet-to-cpu: portable lowering (rhs is not a constant or a transposed constant (weights are packed at compile time))}}
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<4x32xi8>, tensor<32x16xi8> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @batched(%x: tensor<2x4x32xi8>, %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<2x4x16xf32> {
  %w = arith.constant dense<1> : tensor<32x16xi8>
  // expected-remark @below {{convert-octet-to-cpu: portable lowering (batched matmul)}}
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<2x4x32xi8>, tensor<32x16xi8> -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// Weights stored [N, K] behind linalg.transpose (how imported [out, in]
// weights arrive): packed from the transposed constant at compile time.
// Source [[1, 2], [3, 4]] is W^T, so W = [[1, 3], [2, 4]] and the packed
// panel holds (W[0][0], W[1][0]), (W[0][1], W[1][1]) = 1, 2, 3, 4.

// CHECK-LABEL: func.func @transposed_constant
// CHECK-NOT: linalg.transpose
// CHECK: arith.constant dense<[1, 2, 3, 4, 0, 0, {{.*}}]> : tensor<32xi8>
// CHECK: constant @__octet_cpu_avx2_s8s8
func.func @transposed_constant(%x: tensor<4x2xi8>, %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<4x2xf32> {
  %wt = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %e = tensor.empty() : tensor<2x2xi8>
  %w = linalg.transpose ins(%wt : tensor<2x2xi8>) outs(%e : tensor<2x2xi8>) permutation = [1, 0]
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<4x2xi8>, tensor<2x2xi8> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Weight-only: a transposed constant is transposed once, at compile time,
// and packed in panels of 64 columns (ymm), each panel's rows contiguous:
// row 0 (1, 3) then 62 zero codes, row 1 (2, 4) then 62 zero codes.

// CHECK-LABEL: func.func @transposed_constant_weight_only
// CHECK-NOT: linalg.transpose
// CHECK: arith.constant dense<"0x0103{{(00){62}0204(00){62}"}}> : tensor<128xi8>
// CHECK: constant @__octet_cpu_wo_f32s8p
func.func @transposed_constant_weight_only(%x: tensor<4x2xf32>, %sw: tensor<f32>) -> tensor<4x2xf32> {
  %wt = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %e = tensor.empty() : tensor<2x2xi8>
  %w = linalg.transpose ins(%wt : tensor<2x2xi8>) outs(%e : tensor<2x2xi8>) permutation = [1, 0]
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<4x2xf32>, tensor<2x2xi8> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// f32 contractions: a linalg.matmul with a constant N x K rhs (transposed
// at compile time: W = [[1, 3], [2, 4]]) and a batch_matmul with an N x K
// argument (transposed per task) run the generated f32 kernels.

// CHECK-LABEL: func.func @float_matmul
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.fill
// CHECK: arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: constant @__octet_cpu_wo_f32f32_san_sbn_zan_zbn
// CHECK: call @octet_parallel_for
// CHECK-LABEL: func.func @float_batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<3x?x5xf32>
// CHECK: constant @__octet_cpu_wo_f32f32t_batch
// On an AVX-512 level the same contractions take the zmm kernels.
// VNNI-LABEL: func.func @float_matmul
// VNNI: constant @__octet_cpu_wo512_f32f32_san_sbn_zan_zbn
// VNNI-LABEL: func.func private @__octet_cpu_wo512_f32f32_san_sbn_zan_zbn(
// VNNI-SAME: target_features = #llvm.target_features<["+avx2", "+fma", "+f16c", "+avx512f"]>
// VNNI: vector.fma {{.*}} : vector<16xf32>
// CHECK-LABEL: func.func private @__octet_cpu_wo_f32f32_san_sbn_zan_zbn(
// CHECK-SAME: target_features = #llvm.target_features<["+avx2", "+fma", "+f16c"]>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK-LABEL: func.func private @__octet_cpu_wo_f32f32t_batch
func.func @float_matmul(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2xf32>) -> tensor<?x2xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<?x2xf32>, tensor<2x2xf32>) outs(%init : tensor<?x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

func.func @float_batch_matmul(%a: tensor<3x?x8xf32>, %b: tensor<3x5x8xf32>) -> tensor<3x?x5xf32> {
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c1 : tensor<3x?x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<3x?x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x?x5xf32>) -> tensor<3x?x5xf32>
  %y = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%a, %b : tensor<3x?x8xf32>, tensor<3x5x8xf32>) outs(%init : tensor<3x?x5xf32>) -> tensor<3x?x5xf32>
  return %y : tensor<3x?x5xf32>
}

// -----

// An init that is not +0.0 (here -0.0) stays on the portable lowering.

func.func @float_matmul_negative_zero_init(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-remark @below {{convert-octet-to-cpu: f32 contraction left to the portable lowering (init is not filled with +0.0)}}
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
