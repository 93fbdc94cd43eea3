// RUN: octet-opt %s --split-input-file --convert-octet-to-cpu="isa=amx-int8" | FileCheck %s
// RUN: octet-opt %s --split-input-file --convert-octet-to-cpu="isa=avx2" | FileCheck %s --check-prefix=AVX2
// RUN: octet-opt %s --split-input-file --convert-octet-to-cpu="isa=amx-int8 fuse-dynamic-quantize=false" | FileCheck %s --check-prefix=OFF

// Per-token dynamic quantization (compute_params + quantize of f32
// activations, then an INT8 matmul with those parameters) is fused into the
// activation packing: one octet_cpu_quantize_pack_lhs call reads the f32
// rows, writes the packed codes and the row scales (after the packed codes
// in the same scratch) that the epilogue reads; compute_params and quantize
// are gone.

// CHECK-LABEL: func.func @per_token
// CHECK-SAME: (%[[X:.*]]: tensor<?x96xf32>)
// CHECK-NOT: octet.compute_params
// CHECK-NOT: octet.quantize
// CHECK: %[[SCRATCH:.*]] = call @octet_cpu_scratch(
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %[[SCRATCH]]
// CHECK: %[[SCALES:.*]] = arith.addi %[[BASE]], %{{.*}} : i64
// Mode 2 (s8Tiles), format 0 (i8), [-128, 127], symmetric, no zero points.
// CHECK: call @octet_cpu_quantize_pack_lhs(%{{.*}}, %{{.*}}, %c96_i64{{.*}}, %c96_i64{{.*}}, %c2_i32, %c0_i32{{.*}}, %c-128_i32, %c127_i32, %c1_i32{{.*}}, %{{.*}}, %{{.*}}, %c32_i64{{.*}}, %c128_i64{{.*}}, %[[SCRATCH]])
// The epilogue's lhs scale slot (kSa = 8) holds the scales' address.
// CHECK: memref.store %[[SCALES]], %{{.*}}[%c8]
// CHECK-NOT: octet_cpu_pack_lhs
// CHECK: call @octet_parallel_for
// AVX2-LABEL: func.func @per_token
// OFF-LABEL: func.func @per_token
// OFF: octet.compute_params
// OFF: octet.quantize
// OFF-NOT: octet_cpu_quantize_pack_lhs
// OFF: call @octet_cpu_pack_lhs(
// AVX2-NOT: octet.quantize
// AVX2: call @octet_cpu_quantize_pack_lhs(%{{.*}}, %{{.*}}, %c96_i64{{.*}}, %c96_i64{{.*}}, %c0_i32
func.func @per_token(%x: tensor<?x96xf32>) -> tensor<?x40xf32> {
  %w = arith.constant dense<3> : tensor<96x40xi8>
  %sb = arith.constant dense<0.5> : tensor<40xf32>
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<?x96xf32> -> tensor<?xf32>
  %q = octet.quantize %x scale(%s : tensor<?xf32>) as <i8, per_axis(0)> : tensor<?x96xf32> -> tensor<?x96xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<?xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%sb : tensor<40xf32>) rhs_scheme <i8, per_axis(1)> : tensor<?x96xi8>, tensor<96x40xi8> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}

// -----

// Asymmetric u8: the row zero points follow the scales; the epilogue's
// compensation reads them (on AVX2 the packing subtracts them).

// CHECK-LABEL: func.func @per_token_asymmetric
// CHECK-NOT: octet.compute_params
// CHECK: call @octet_cpu_quantize_pack_lhs(%{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c64_i64{{.*}}, %c{{[0-9]+}}_i32{{.*}}, %c1_i32{{.*}}, %c0_i32{{.*}}, %c255_i32, %c0_i32
// AVX2-LABEL: func.func @per_token_asymmetric
// AVX2: call @octet_cpu_quantize_pack_lhs(
func.func @per_token_asymmetric(%x: tensor<9x64xf32>) -> tensor<9x33xf32> {
  %w = arith.constant dense<-2> : tensor<64x33xi8>
  %sb = arith.constant dense<0.25> : tensor<33xf32>
  %s, %z = octet.compute_params %x as <u8, per_axis(0), asymmetric> : tensor<9x64xf32> -> tensor<9xf32>, tensor<9xi32>
  %q = octet.quantize %x scale(%s : tensor<9xf32>) zero_point(%z : tensor<9xi32>) as <u8, per_axis(0), asymmetric> : tensor<9x64xf32> -> tensor<9x64xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<9xf32>) lhs_zero_point(%z : tensor<9xi32>) lhs_scheme <u8, per_axis(0), asymmetric> rhs_scale(%sb : tensor<33xf32>) rhs_scheme <i8, per_axis(1)> : tensor<9x64xi8>, tensor<64x33xi8> -> tensor<9x33xf32>
  return %y : tensor<9x33xf32>
}

// -----

// The quantized codes are used elsewhere too: they are computed anyway, so
// the matmul packs them (no fusion); so when the parameters differ from the
// matmul's, and for a per-tensor scheme.

// CHECK-LABEL: func.func @codes_also_returned
// CHECK: octet.compute_params
// CHECK: octet.quantize
// CHECK-NOT: octet_cpu_quantize_pack_lhs
// CHECK: call @octet_cpu_pack_lhs(
func.func @codes_also_returned(%x: tensor<8x64xf32>) -> (tensor<8x16xf32>, tensor<8x64xi8>) {
  %w = arith.constant dense<1> : tensor<64x16xi8>
  %sb = arith.constant dense<0.5> : tensor<16xf32>
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<8x64xf32> -> tensor<8xf32>
  %q = octet.quantize %x scale(%s : tensor<8xf32>) as <i8, per_axis(0)> : tensor<8x64xf32> -> tensor<8x64xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<8xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%sb : tensor<16xf32>) rhs_scheme <i8, per_axis(1)> : tensor<8x64xi8>, tensor<64x16xi8> -> tensor<8x16xf32>
  return %y, %q : tensor<8x16xf32>, tensor<8x64xi8>
}

// CHECK-LABEL: func.func @other_scale
// CHECK: octet.quantize
// CHECK-NOT: octet_cpu_quantize_pack_lhs
func.func @other_scale(%x: tensor<8x64xf32>, %s2: tensor<8xf32>) -> tensor<8x16xf32> {
  %w = arith.constant dense<1> : tensor<64x16xi8>
  %sb = arith.constant dense<0.5> : tensor<16xf32>
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<8x64xf32> -> tensor<8xf32>
  %q = octet.quantize %x scale(%s : tensor<8xf32>) as <i8, per_axis(0)> : tensor<8x64xf32> -> tensor<8x64xi8>
  %y = octet.matmul %q, %w lhs_scale(%s2 : tensor<8xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%sb : tensor<16xf32>) rhs_scheme <i8, per_axis(1)> : tensor<8x64xi8>, tensor<64x16xi8> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @per_tensor
// CHECK: octet.quantize
// CHECK-NOT: octet_cpu_quantize_pack_lhs
func.func @per_tensor(%x: tensor<8x64xf32>) -> tensor<8x16xf32> {
  %w = arith.constant dense<1> : tensor<64x16xi8>
  %sb = arith.constant dense<0.5> : tensor<16xf32>
  %s = octet.compute_params %x as <i8> : tensor<8x64xf32> -> tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<8x64xf32> -> tensor<8x64xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<f32>) lhs_scheme <i8> rhs_scale(%sb : tensor<16xf32>) rhs_scheme <i8, per_axis(1)> : tensor<8x64xi8>, tensor<64x16xi8> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
