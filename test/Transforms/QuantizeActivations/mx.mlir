// RUN: octet-opt %s --octet-quantize-activations="format=mxfp8" --split-input-file 2>&1 | FileCheck %s
// RUN: octet-opt %s --octet-quantize-activations="format=mxfp8" --octet-fold-scales --split-input-file 2>&1 | FileCheck %s --check-prefix=FOLD
// RUN: octet-opt %s --octet-quantize-activations="format=mxfp8-e5m2" --split-input-file 2>&1 | FileCheck %s --check-prefix=E5M2
// RUN: octet-opt %s --octet-quantize-activations="format=mxfp4" --octet-fold-scales --split-input-file 2>&1 | FileCheck %s --check-prefix=FP4

// format=mxfp8: OCP MXFP8 activations, an E8M0 scale per token and block of
// 32 along K computed at run time, for weights in blocks of 32 along K.
// (The remarks of the sites left in float come first: stderr.)
// CHECK: remark: octet-quantize-activations: mxfp8 activations need a weight quantized in blocks of 32 along K (format=mxfp8 / mxfp4, or an FP8 / FP4 format with granularity=per-group group-size=32) and a static K; activation left in float
// CHECK-LABEL: func.func @mx_weight
// CHECK: %[[S:.*]] = octet.compute_params %{{.*}} as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<4x64xf32> -> tensor<4x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %{{.*}} scale(%[[S]] : tensor<4x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0>
// CHECK: octet.dequantize %[[Q]] scale(%[[S]] : tensor<4x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0>
// FOLD-LABEL: func.func @mx_weight
// FOLD: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<4x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0> rhs_scale(%{{.*}} : tensor<2x8xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
// E5M2-LABEL: func.func @mx_weight
// E5M2: octet.compute_params %{{.*}} as <f8E5M2, per_group(1, 32), e8m0> : tensor<4x64xf32> -> tensor<4x2xf32>
// FP4-LABEL: func.func @mx_weight
// FP4: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<4x2xf32>) lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0> rhs_scale(%{{.*}} : tensor<2x8xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0> : tensor<4x64xf4E2M1FN>, tensor<64x8xf8E4M3FN> -> tensor<4x8xf32>
func.func @mx_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xf8E4M3FN>, %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<2x8xf32>) as <f8E4M3FN, per_group(0, 32), e8m0> : tensor<64x8xf8E4M3FN> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The weight stored [N, K] (PyTorch's layout) behind transposed maps: its
// blocks are along dimension 1, still K.
// CHECK-LABEL: func.func @transposed_weight
// CHECK: octet.compute_params %{{.*}} as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<4x64xf32> -> tensor<4x2xf32>
// FOLD-LABEL: func.func @transposed_weight
// FOLD: octet.matmul {{.*}} lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0> {{.*}} rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
func.func @transposed_weight(%x: tensor<4x64xf32>, %wq: tensor<8x64xf8E4M3FN>, %sw: tensor<8x2xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8x2xf32>) as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<8x64xf8E4M3FN> -> tensor<8x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<4x64xf32>, tensor<8x64xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A weight per output channel: no blocks for the activation to match.
// CHECK-LABEL: func.func @per_channel_weight
// CHECK-NOT: octet.compute_params
// CHECK: linalg.matmul
func.func @per_channel_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xf8E4M3FN>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <f8E4M3FN, per_axis(1)> : tensor<64x8xf8E4M3FN> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// MXFP4 weights: MXFP8 activations make W4A8 (FP8 x FP4, Blackwell's
// kind::mxf8f6f4), MXFP4 activations W4A4.
// CHECK-LABEL: func.func @mxfp4_weight
// CHECK: octet.compute_params %{{.*}} as <f8E4M3FN, per_group(1, 32), e8m0>
// FOLD-LABEL: func.func @mxfp4_weight
// FOLD: octet.matmul {{.*}} lhs_scheme <f8E4M3FN, per_group(1, 32), e8m0> {{.*}} rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<4x64xf8E4M3FN>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
// FP4-LABEL: func.func @mxfp4_weight
// FP4: octet.matmul {{.*}} lhs_scheme <f4E2M1FN, per_group(1, 32), e8m0> {{.*}} rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<4x64xf4E2M1FN>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
func.func @mxfp4_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xf4E2M1FN>, %sw: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<2x8xf32>) as <f4E2M1FN, per_group(0, 32), e8m0> : tensor<64x8xf4E2M1FN> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// NF4 weights stay weight-only.
// CHECK-LABEL: func.func @nf4_weight
// CHECK-NOT: octet.compute_params
// CHECK: linalg.matmul
func.func @nf4_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xi4>, %sw: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<1x8xf32>) as <nf4, per_group(0, 64)> : tensor<64x8xi4> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
