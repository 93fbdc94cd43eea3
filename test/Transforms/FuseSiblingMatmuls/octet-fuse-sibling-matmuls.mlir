// RUN: octet-opt %s --octet-fuse-sibling-matmuls --canonicalize | FileCheck %s

// Q/K/V: [out, in] weights behind linalg.transpose, per-channel scales.
// One matmul on the weights stacked along N (the stored N x K constants one
// after the other), each result a slice of its columns.
// CHECK-LABEL: func.func @qkv(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32>)
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[}}[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [-1, -2, -3, -4], [13, 14, 15, 16], [7, 0, -7, 1], [2, 2, 2, 2]]> : tensor<7x4xi8>
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 2.000000e+00, 1.000000e+00, 1.250000e-01, 3.000000e+00, 7.500000e-01]> : tensor<7xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[W]] : tensor<7x4xi8>)
// CHECK:         %[[Y:.*]] = octet.matmul %[[X]], %[[T]] rhs_scale(%[[S]] : tensor<7xf32>) rhs_scheme <i8, per_axis(1)> : tensor<?x4xf32>, tensor<4x7xi8> -> tensor<?x7xf32>
// CHECK-NOT:     octet.matmul
// CHECK:         %[[Q:.*]] = tensor.extract_slice %[[Y]][0, 0] [%{{.*}}, 3] [1, 1]
// CHECK:         %[[K:.*]] = tensor.extract_slice %[[Y]][0, 3] [%{{.*}}, 2] [1, 1]
// CHECK:         %[[V:.*]] = tensor.extract_slice %[[Y]][0, 5] [%{{.*}}, 2] [1, 1]
// CHECK:         return %[[Q]], %[[K]], %[[V]]
func.func @qkv(%x: tensor<?x4xf32>) -> (tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %wq = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi8>
  %sq = arith.constant dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %e3 = tensor.empty() : tensor<4x3xi8>
  %tq = linalg.transpose ins(%wq : tensor<3x4xi8>) outs(%e3 : tensor<4x3xi8>) permutation = [1, 0]
  %q = octet.matmul %x, %tq rhs_scale(%sq : tensor<3xf32>) rhs_scheme <i8, per_axis(1)> : tensor<?x4xf32>, tensor<4x3xi8> -> tensor<?x3xf32>
  %wk = arith.constant dense<[[-1, -2, -3, -4], [13, 14, 15, 16]]> : tensor<2x4xi8>
  %sk = arith.constant dense<[1.0, 0.125]> : tensor<2xf32>
  %e2 = tensor.empty() : tensor<4x2xi8>
  %tk = linalg.transpose ins(%wk : tensor<2x4xi8>) outs(%e2 : tensor<4x2xi8>) permutation = [1, 0]
  %k = octet.matmul %x, %tk rhs_scale(%sk : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> : tensor<?x4xf32>, tensor<4x2xi8> -> tensor<?x2xf32>
  %wv = arith.constant dense<[[7, 0, -7, 1], [2, 2, 2, 2]]> : tensor<2x4xi8>
  %sv = arith.constant dense<[3.0, 0.75]> : tensor<2xf32>
  %tv = linalg.transpose ins(%wv : tensor<2x4xi8>) outs(%e2 : tensor<4x2xi8>) permutation = [1, 0]
  %v = octet.matmul %x, %tv rhs_scale(%sv : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> : tensor<?x4xf32>, tensor<4x2xi8> -> tensor<?x2xf32>
  return %q, %k, %v : tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// K x N weights with per-group scales and zero points, a bias and ReLU:
// rows interleaved (row k of the first, then of the second), the
// parameters too.
// CHECK-LABEL: func.func @gate_up(
// CHECK-DAG:     arith.constant dense<{{\[}}[1, 2, 3], [4, 5, 6], [7, -8, -7], [-6, -5, -4]]> : tensor<4x3xi4>
// CHECK-DAG:     arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:     arith.constant dense<{{\[}}[8, 8, 7], [8, 8, 6]]> : tensor<2x3xi32>
// CHECK-DAG:     arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK:         octet.matmul {{.*}} bias({{.*}} : tensor<3xf32>) relu : tensor<2x4xf32>, tensor<4x3xi4> -> tensor<2x3xf32>
// CHECK-NOT:     octet.matmul
func.func @gate_up(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>) {
  %wg = arith.constant dense<[[1, 2], [4, 5], [7, 8], [10, 11]]> : tensor<4x2xi4>
  %sg = arith.constant dense<[[1.0, 2.0], [4.0, 5.0]]> : tensor<2x2xf32>
  %zg = arith.constant dense<[[8, 8], [8, 8]]> : tensor<2x2xi32>
  %bg = arith.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %g = octet.matmul %x, %wg rhs_scale(%sg : tensor<2x2xf32>) rhs_zero_point(%zg : tensor<2x2xi32>) rhs_scheme <u4, per_group(0, 2), asymmetric> bias(%bg : tensor<2xf32>) relu : tensor<2x4xf32>, tensor<4x2xi4> -> tensor<2x2xf32>
  %wu = arith.constant dense<[[3], [6], [9], [12]]> : tensor<4x1xi4>
  %su = arith.constant dense<[[3.0], [6.0]]> : tensor<2x1xf32>
  %zu = arith.constant dense<[[7], [6]]> : tensor<2x1xi32>
  %bu = arith.constant dense<[0.3]> : tensor<1xf32>
  %u = octet.matmul %x, %wu rhs_scale(%su : tensor<2x1xf32>) rhs_zero_point(%zu : tensor<2x1xi32>) rhs_scheme <u4, per_group(0, 2), asymmetric> bias(%bu : tensor<1xf32>) relu : tensor<2x4xf32>, tensor<4x1xi4> -> tensor<2x1xf32>
  return %g, %u : tensor<2x2xf32>, tensor<2x1xf32>
}

// Left alone: another lhs, a per-tensor scale, an output
// requantization, one stored N x K and one K x N, another relu.
// CHECK-LABEL: func.func @apart(
// CHECK-COUNT-7: octet.matmul
// CHECK-NOT:     octet.matmul
func.func @apart(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %z: tensor<2x8xf32>, %a: tensor<2x4xi8>, %sa: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi8>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = arith.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>
  %w8 = arith.constant dense<1> : tensor<8x2xi8>
  %s = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %st = arith.constant dense<0.5> : tensor<f32>
  %r0 = octet.matmul %x, %w rhs_scale(%s : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> : tensor<2x4xf32>, tensor<4x2xi8> -> tensor<2x2xf32>
  %r1 = octet.matmul %y, %w rhs_scale(%s : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> : tensor<2x4xf32>, tensor<4x2xi8> -> tensor<2x2xf32>
  %r2 = octet.matmul %z, %w8 rhs_scale(%s : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> : tensor<2x8xf32>, tensor<8x2xi8> -> tensor<2x2xf32>
  %r3 = octet.matmul %x, %w rhs_scale(%st : tensor<f32>) rhs_scheme <i8> : tensor<2x4xf32>, tensor<4x2xi8> -> tensor<2x2xf32>
  %os = arith.constant dense<0.1> : tensor<f32>
  %r4 = octet.matmul %a, %w lhs_scale(%sa : tensor<2xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%s : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> out_scale(%os : tensor<f32>) out_scheme <i8> : tensor<2x4xi8>, tensor<4x2xi8> -> tensor<2x2xi8>
  %wt = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi8>
  %e = tensor.empty() : tensor<4x2xi8>
  %t = linalg.transpose ins(%wt : tensor<2x4xi8>) outs(%e : tensor<4x2xi8>) permutation = [1, 0]
  %r5 = octet.matmul %y, %t rhs_scale(%s : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> : tensor<2x4xf32>, tensor<4x2xi8> -> tensor<2x2xf32>
  %r6 = octet.matmul %z, %w8 rhs_scale(%s : tensor<2xf32>) rhs_scheme <i8, per_axis(1)> relu : tensor<2x8xf32>, tensor<8x2xi8> -> tensor<2x2xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi8>, tensor<2x2xf32>, tensor<2x2xf32>
}
