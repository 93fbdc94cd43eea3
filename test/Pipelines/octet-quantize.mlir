// RUN: octet-opt %s --octet-quantize=recipe=w8a16 | FileCheck %s --check-prefix=W8A16
// RUN: octet-opt %s --octet-quantize=recipe=w8a8-dynamic | FileCheck %s --check-prefix=W8A8
// RUN: octet-opt %s --octet-quantize="recipe=w4a16 group-size=32" | FileCheck %s --check-prefix=W4A16
// RUN: octet-opt %s --octet-quantize=recipe=w8a8-fp8 | FileCheck %s --check-prefix=FP8
// RUN: octet-opt %s --octet-quantize=recipe=w4a16-mxfp4 | FileCheck %s --check-prefix=MXFP4
// RUN: octet-opt %s --octet-quantize="recipe=w8a16-mxfp8 group-size=128" | FileCheck %s --check-prefix=MXFP8
// RUN: octet-opt %s --octet-quantize=recipe=w4a16-nvfp4 | FileCheck %s --check-prefix=NVFP4
// RUN: octet-opt %s --octet-quantize="recipe=w8a8-fp8-block group-size=32" | FileCheck %s --check-prefix=BLOCK
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-fp8-block" 2>&1 | FileCheck %s --check-prefix=BLOCK128
// RUN: not octet-opt %s --octet-quantize=recipe=w3a3 2>&1 | FileCheck %s --check-prefix=BAD

// One command quantizes a whole model.
// W8A16: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<16xf32>) rhs_scheme <i8, per_axis(1)> : tensor<4x64xf32>, tensor<64x16xi8> -> tensor<4x16xf32>
// W8A8: octet.compute_params %{{.*}} as <i8, per_axis(0)>
// W8A8: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<4xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%{{.*}} : tensor<16xf32>) rhs_scheme <i8, per_axis(1)>
// W4A16: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<2x16xf32>) rhs_scheme <i4, per_group(0, 32)>
// FP8: octet.matmul %{{.*}}, %{{.*}} lhs_scale({{.*}}) lhs_scheme <f8E4M3FN, per_axis(0)> rhs_scale({{.*}}) rhs_scheme <f8E4M3FN, per_axis(1)>
// The MX recipes are weight-only, always in blocks of 32 (the OCP block;
// group-size does not change it). The OCP rule for 0.25: X = 2^(floor(log2
// 0.25) - emax 2) = 2^-4, every code 0.25 / X = 4.
// MXFP4: %[[Q:.*]] = arith.constant dense<4.000000e+00> : tensor<64x16xf4E2M1FN>
// MXFP4: %[[S:.*]] = arith.constant dense<6.250000e-02> : tensor<2x16xf32>
// MXFP4: octet.matmul %{{.*}}, %[[Q]] rhs_scale(%[[S]] : tensor<2x16xf32>) rhs_scheme <f4E2M1FN, per_group(0, 32), e8m0> : tensor<4x64xf32>, tensor<64x16xf4E2M1FN> -> tensor<4x16xf32>
// MXFP8: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<2x16xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32), e8m0>
// The NVFP4 global scale is 0.25 / 2688, every block's E4M3 scale 448,
// every code 0.25 / (448 g) = 6.
// NVFP4: %[[Q:.*]] = arith.constant dense<6.000000e+00> : tensor<64x16xf4E2M1FN>
// NVFP4: octet.matmul %{{.*}}, %[[Q]] rhs_scale(%{{.*}} : tensor<4x16xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(9.30059541e-05)>
// Block-wise FP8 (DeepSeek-V3, blocks of 32 here): one E4M3 scale per 32 x
// 32 weight block, 0.25 / 448, repeated over the block's 16 channels (N is
// 16: one ragged block); activations per token and group of 32, dynamic;
// the fold makes a block-wise octet.matmul.
// BLOCK: %[[S:.*]] = arith.constant dense<5.58035739E-4> : tensor<2x16xf32>
// BLOCK: %[[P:.*]] = octet.compute_params %{{.*}} as <f8E4M3FN, per_group(1, 32)> : tensor<4x64xf32> -> tensor<4x2xf32>
// BLOCK: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%[[P]] : tensor<4x2xf32>) lhs_scheme <f8E4M3FN, per_group(1, 32)> rhs_scale(%[[S]] : tensor<2x16xf32>) rhs_scheme <f8E4M3FN, per_group(0, 32)>
// BLOCK128: error: group-size 128 does not divide the reduction dimension (dimension 0, size 64)
// BAD: octet-quantize: unknown recipe 'w3a3'; expected w8a16, w4a16, w3a16, w8a8, w8a8-dynamic, w8a8-static, w8a8-fp8, w8a16-mxfp8, w4a16-mxfp4, w4a16-nvfp4, w8a8-fp8-block, w8a8-mxfp8, w4a8-mxfp4, w4a4-mxfp4 or w4a4-nvfp4
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<0.25> : tensor<64x16xf32>
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
