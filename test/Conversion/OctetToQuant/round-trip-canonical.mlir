// RUN: octet-opt %s --octet-export-quant | mlir-opt | octet-opt --octet-import-quant | FileCheck %s

// Spellings that upstream types cannot tell apart come back in their
// canonical octet form, with the same numbers.

// An asymmetric scheme whose zero points are all 0 comes back symmetric.
// CHECK-LABEL: func.func @zero_zero_points
// CHECK: %[[S:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK-NOT: arith.constant
// CHECK: octet.quantize %{{.*}} scale(%[[S]] : tensor<2xf32>) as <u8, per_axis(0)> : tensor<2x4xf32> -> tensor<2x4xi8>
func.func @zero_zero_points(%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  %s = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %z = arith.constant dense<0> : tensor<2xi32>
  %q = octet.quantize %x scale(%s : tensor<2xf32>) zero_point(%z : tensor<2xi32>) as <u8, per_axis(0), asymmetric> : tensor<2x4xf32> -> tensor<2x4xi8>
  return %q : tensor<2x4xi8>
}

// A group spanning its whole dimension is per_axis along the other one.
// CHECK-LABEL: func.func @whole_dim_group
// CHECK: %[[S:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK: octet.quantize %{{.*}} scale(%[[S]] : tensor<2xf32>) as <i4, per_axis(0)> : tensor<2x8xf32> -> tensor<2x8xi4>
func.func @whole_dim_group(%x: tensor<2x8xf32>) -> tensor<2x8xi4> {
  %s = arith.constant dense<[[0.5], [0.25]]> : tensor<2x1xf32>
  %q = octet.quantize %x scale(%s : tensor<2x1xf32>) as <i4, per_group(1, 8)> : tensor<2x8xf32> -> tensor<2x8xi4>
  return %q : tensor<2x8xi4>
}

// Groups of one element (a scale per element) come back grouped along the
// first dimension.
// CHECK-LABEL: func.func @unit_groups
// CHECK: %[[S:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: octet.quantize %{{.*}} scale(%[[S]] : tensor<2x2xf32>) as <i8, per_group(0, 1)> : tensor<2x2xf32> -> tensor<2x2xi8>
func.func @unit_groups(%x: tensor<2x2xf32>) -> tensor<2x2xi8> {
  %s = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %q = octet.quantize %x scale(%s : tensor<2x2xf32>) as <i8, per_group(1, 1)> : tensor<2x2xf32> -> tensor<2x2xi8>
  return %q : tensor<2x2xi8>
}
