// RUN: octet-opt %s --convert-octet-to-linalg | FileCheck %s

// octet.attention written out as linalg.generic ops (the portable and GPU
// path): scores over d, mask-and-scale, row max (maxnumf), exp, row sum,
// division, context over j; multiplies and adds separate, in index order.

// CHECK-DAG: #[[$Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1, d4)>
// CHECK-DAG: #[[$K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
// CHECK-DAG: #[[$P:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d0, d3)>
// CHECK-DAG: #[[$V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-LABEL: func.func @attention
// CHECK-NOT: octet.attention
// CHECK: linalg.generic {indexing_maps = [#[[$Q]], #[[$K]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK:   linalg.index 3
// CHECK:   arith.cmpi sle
// CHECK:   arith.constant 1.250000e-01 : f32
// CHECK:   arith.select
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:   arith.maxnumf
// CHECK: linalg.generic
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK:   arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[$P]], #[[$V]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: return %{{.*}} : tensor<?x3x3x64xf32>
func.func @attention(%q: tensor<?x3x3x64xf32>, %k: tensor<3x64x?xf32>, %v: tensor<3x?x64xf32>, %pos: tensor<?xi32>) -> tensor<?x3x3x64xf32> {
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}
