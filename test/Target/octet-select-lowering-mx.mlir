// RUN: octet-opt %s -split-input-file --octet-select-lowering | FileCheck %s

// MXFP8 x MXFP8 on sm_100a: the block-scaled tcgen05 MMA (kind::mxf8f6f4)
// takes the E8M0 scales; no warning. The same formats without E8M0 scales
// take the plain FP8 row.

// CHECK-LABEL: func.func @mxfp8_on_sm100a
// CHECK: linalg.matmul
// CHECK-SAME: native
// CHECK-SAME: kind::mxf8f6f4.block_scale
module attributes {octet.target = #octet.target<"sm_100a">} {
func.func @mxfp8_on_sm100a(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %sa: tensor<16x2xf32>, %sb: tensor<2x32xf32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%sa : tensor<16x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%sb : tensor<2x32xf32>) as <f8E4M3FN, per_group(0, 32), e8m0> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// CHECK-LABEL: func.func @fp8_groups_on_sm100a
// CHECK: linalg.matmul
// CHECK-NOT: block_scale
// CHECK: return
module attributes {octet.target = #octet.target<"sm_100a">} {
func.func @fp8_groups_on_sm100a(%xq: tensor<16x64xf8E4M3FN>, %wq: tensor<64x32xf8E4M3FN>, %sa: tensor<16x2xf32>, %sb: tensor<2x32xf32>, %init: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %x = octet.dequantize %xq scale(%sa : tensor<16x2xf32>) as <f8E4M3FN, per_group(1, 32)> : tensor<16x64xf8E4M3FN> -> tensor<16x64xf32>
  %w = octet.dequantize %wq scale(%sb : tensor<2x32xf32>) as <f8E4M3FN, per_group(0, 32), e8m0> : tensor<64x32xf8E4M3FN> -> tensor<64x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// W4A8 and W4A4 MX as octet.matmul (the w4a8-mxfp4 / w4a4-mxfp4 recipes):
// the mixed pair on kind::mxf8f6f4, FP4 x FP4 on kind::mxf4 (sm_100a) and
// on the block-scaled mma.sync kinds (sm_120a).
// CHECK-LABEL: func.func @w4a8_mx_on_sm100a
// CHECK: octet.matmul
// CHECK-SAME: native
// CHECK-SAME: a = "e4m3", b = "e2m1"
// CHECK-SAME: kind::mxf8f6f4.block_scale
module attributes {octet.target = #octet.target<"sm_100a">} {
func.func @w4a8_mx_on_sm100a(%x: tensor<16x64xf8E4M3FN>, %w: tensor<64x32xf4E2M1FN>, %sa: tensor<16x2xf32>, %sb: tensor<2x32xf32>) -> tensor<16x32xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sa : tensor<16x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0> rhs_scale(%sb : tensor<2x32xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<16x64xf8E4M3FN>, tensor<64x32xf4E2M1FN> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}

// -----

// CHECK-LABEL: func.func @w4a4_mx_on_sm120a
// CHECK: octet.matmul
// CHECK-SAME: native
// CHECK-SAME: kind::mxf4.block_scale
module attributes {octet.target = #octet.target<"sm_120a">} {
func.func @w4a4_mx_on_sm120a(%x: tensor<16x64xf4E2M1FN>, %w: tensor<64x32xf4E2M1FN>, %sa: tensor<16x2xf32>, %sb: tensor<2x32xf32>) -> tensor<16x32xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sa : tensor<16x2xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0> rhs_scale(%sb : tensor<2x32xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<16x64xf4E2M1FN>, tensor<64x32xf4E2M1FN> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
}
