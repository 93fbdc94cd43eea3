// w3a16 and clip= through the recipes: the recipe equals the passes it
// stands for (weights i3 = i4<-4:3>, the clip method passed on), clip=mse
// changes the scales of a weight with an outlier, and a bad clip is an
// error naming the pass.
// RUN: rm -rf %t && mkdir -p %t
// RUN: octet-opt %s --octet-quantize="recipe=w3a16 group-size=0 clip=mse" -o %t/recipe.mlir
// RUN: octet-opt %s --octet-quantize-weights="format=i3 granularity=per-channel clip=mse" --octet-fold-scales --canonicalize --cse -o %t/passes.mlir
// RUN: diff %t/recipe.mlir %t/passes.mlir
// RUN: octet-opt %s --octet-quantize="recipe=w3a16 group-size=0" -o %t/absmax.mlir
// RUN: not diff %t/recipe.mlir %t/absmax.mlir
// RUN: FileCheck %s < %t/recipe.mlir
// RUN: octet-opt %s --octet-quantize="recipe=w3a16 group-size=4" | FileCheck %s --check-prefix=GROUP
// RUN: octet-opt %s --octet-pipeline="recipe=w3a16 group-size=0 target=avx2 lower=false clip=mse" | FileCheck %s --check-prefix=PIPE
// RUN: not octet-opt %s --octet-quantize="recipe=w4a16 clip=bogus" 2>&1 | FileCheck %s --check-prefix=BAD

// clip=mse: the first channel's outlier 9 is clipped (absmax: scale 9 / 3).
// CHECK: arith.constant dense<[2.760000e+00, 0.566666663, 0.766666651, 0.553333342]> : tensor<4xf32>
// CHECK: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<4xf32>) rhs_scheme <i4<-4:3>, per_axis(1)> : tensor<2x8xf32>, tensor<8x4xi4> -> tensor<2x4xf32>
// PIPE: arith.constant dense<[2.760000e+00, 0.566666663, 0.766666651, 0.553333342]> : tensor<4xf32>
// PIPE: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<4xf32>) rhs_scheme <i4<-4:3>, per_axis(1)> {octet.strategy
// GROUP: rhs_scheme <i4<-4:3>, per_group(0, 4)>
// BAD: octet-quantize-weights: unknown clip 'bogus'
func.func @main(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<[[0.5, -1.0, 0.25, 2.0], [1.5, 0.75, -0.5, 1.0],
                             [-2.0, 0.5, 1.0, -0.25], [0.125, -0.75, 2.5, 0.5],
                             [1.0, 1.0, -1.5, 0.25], [-0.5, 2.0, 0.5, -1.0],
                             [0.25, -0.25, 0.75, 1.5], [9.0, -1.5, -0.5, 0.5]]> : tensor<8x4xf32>
  %z = arith.constant dense<0.0> : tensor<2x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x8xf32>, tensor<8x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
