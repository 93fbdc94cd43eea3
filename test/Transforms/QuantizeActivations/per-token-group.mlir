// RUN: octet-opt %s --octet-quantize-activations="format=f8E4M3FN granularity=per-token-group" --split-input-file 2>&1 | FileCheck %s
// RUN: octet-opt %s --octet-quantize-activations="format=f8E4M3FN granularity=per-token-group" --octet-fold-scales --split-input-file 2>&1 | FileCheck %s --check-prefix=FOLD

// per-token-group: one activation scale per token and weight group along K
// (DeepSeek-V3's 1 x 128, here 1 x 16), so that the fold makes a
// block-wise octet.matmul.
// (The remark of @per_channel_weight comes first: stderr.)
// CHECK: remark: octet-quantize-activations: per-token-group needs a weight quantized per group along K (and a static K); using one scale per token
// CHECK-LABEL: func.func @groups
// CHECK: %[[S:.*]] = octet.compute_params %{{.*}} as <f8E4M3FN, per_group(1, 16)> : tensor<4x64xf32> -> tensor<4x4xf32>
// CHECK: octet.quantize %{{.*}} scale(%[[S]] : tensor<4x4xf32>) as <f8E4M3FN, per_group(1, 16)>
// FOLD-LABEL: func.func @groups
// FOLD: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<4x4xf32>) lhs_scheme <f8E4M3FN, per_group(1, 16)> rhs_scale(%{{.*}} : tensor<4x8xf32>) rhs_scheme <f8E4M3FN, per_group(0, 16)>
func.func @groups(%x: tensor<4x64xf32>, %wq: tensor<64x8xf8E4M3FN>, %sw: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<4x8xf32>) as <f8E4M3FN, per_group(0, 16)> : tensor<64x8xf8E4M3FN> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The weight stored [N, K] (PyTorch's layout) behind transposed maps: its
// groups are along dimension 1, still K.
// CHECK-LABEL: func.func @transposed_weight
// CHECK: octet.compute_params %{{.*}} as <f8E4M3FN, per_group(1, 32)> : tensor<4x64xf32> -> tensor<4x2xf32>
// FOLD-LABEL: func.func @transposed_weight
// FOLD: octet.matmul {{.*}} lhs_scheme <f8E4M3FN, per_group(1, 32)> {{.*}} rhs_scheme <f8E4M3FN, per_group(0, 32)>
func.func @transposed_weight(%x: tensor<4x64xf32>, %wq: tensor<8x64xf8E4M3FN>, %sw: tensor<8x2xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8x2xf32>) as <f8E4M3FN, per_group(1, 32)> : tensor<8x64xf8E4M3FN> -> tensor<8x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<4x64xf32>, tensor<8x64xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A weight without groups along K: one scale per token, with a remark.
// CHECK-LABEL: func.func @per_channel_weight
// CHECK: octet.compute_params %{{.*}} as <f8E4M3FN, per_axis(0)> : tensor<4x64xf32> -> tensor<4xf32>
func.func @per_channel_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xf8E4M3FN>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <f8E4M3FN, per_axis(1)> : tensor<64x8xf8E4M3FN> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
