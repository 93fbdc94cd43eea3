// RUN: octet-opt %s --convert-octet-to-linalg --split-input-file | FileCheck %s

// Integer quantize: divide, round half to even, NaN -> 0, add the zero point,
// clamp in f32, and only then convert (via i32, so u8 codes above 127 are
// never narrowed from an out-of-range float).
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$AX1:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_u8_per_axis
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<8xf32>, %[[Z:.*]]: tensor<8xi32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xi8>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$AX1]], #[[$AX1]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[S]], %[[Z]] : tensor<4x8xf32>, tensor<8xf32>, tensor<8xi32>) outs(%[[INIT]] : tensor<4x8xi8>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[SC:.*]]: f32, %[[ZP:.*]]: i32, %{{.*}}: i8):
// CHECK:   %[[DIV:.*]] = arith.divf %[[IN]], %[[SC]] : f32
// CHECK:   %[[RND:.*]] = math.roundeven %[[DIV]] : f32
// CHECK:   %[[NAN:.*]] = arith.cmpf uno, %[[RND]], %[[RND]] : f32
// CHECK:   %[[NONAN:.*]] = arith.select %[[NAN]], %{{.*}}, %[[RND]] : f32
// CHECK:   %[[ZPF:.*]] = arith.sitofp %[[ZP]] : i32 to f32
// CHECK:   %[[ADD:.*]] = arith.addf %[[NONAN]], %[[ZPF]] : f32
// CHECK:   %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[MAX:.*]] = arith.maxnumf %[[ADD]], %[[LO]] : f32
// CHECK:   %[[HI:.*]] = arith.constant 2.550000e+02 : f32
// CHECK:   %[[MIN:.*]] = arith.minnumf %[[MAX]], %[[HI]] : f32
// CHECK:   %[[I32:.*]] = arith.fptosi %[[MIN]] : f32 to i32
// CHECK:   %[[I8:.*]] = arith.trunci %[[I32]] : i32 to i8
// CHECK:   linalg.yield %[[I8]] : i8
// CHECK: return %[[R]]
func.func @quantize_u8_per_axis(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %z: tensor<8xi32>) -> tensor<4x8xi8> {
  %q = octet.quantize %x scale(%s : tensor<8xf32>) zero_point(%z : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

// Per-group: the grouped dimension is expanded to (groups, group size) so
// that the scale map is a projected permutation; the result is collapsed back.
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$GRP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dequantize_i4_group
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xi4> into tensor<16x2x32xi4>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$GRP]], #[[$ID3]]]
// CHECK:   arith.extsi %{{.*}} : i4 to i32
// CHECK:   arith.sitofp
// CHECK:   arith.mulf
// CHECK:   arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<16x2x32xf16> into tensor<16x64xf16>
func.func @dequantize_i4_group(%q: tensor<16x64xi4>, %s: tensor<16x2xf32>) -> tensor<16x64xf16> {
  %d = octet.dequantize %q scale(%s : tensor<16x2xf32>) as <i4, per_group(1, 32)> : tensor<16x64xi4> -> tensor<16x64xf16>
  return %d : tensor<16x64xf16>
}

// -----

// Dynamic sizes: the number of groups is computed at run time.
// CHECK-LABEL: func.func @dynamic_group
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[NG:.*]] = arith.divui %[[D]], %c8
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [%[[NG]], 8]
func.func @dynamic_group(%x: tensor<?xf32>, %s: tensor<?xf32>) -> tensor<?xi8> {
  %q = octet.quantize %x scale(%s : tensor<?xf32>) as <i8, per_group(0, 8)> : tensor<?xf32> -> tensor<?xi8>
  return %q : tensor<?xi8>
}

// -----

// FP8 quantize: bit arithmetic on the f32 pattern (no arith.truncf to f8,
// which has no LLVM lowering), then a bitcast of the low byte.
// CHECK-LABEL: func.func @quantize_e4m3
// CHECK: linalg.generic
// CHECK:   arith.divf
// CHECK:   arith.bitcast %{{.*}} : f32 to i32
// CHECK:   arith.addf
// CHECK:   arith.shrui
// CHECK:   arith.cmpi ugt
// CHECK:   arith.trunci %{{.*}} : i32 to i8
// CHECK:   arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
func.func @quantize_e4m3(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xf8E4M3FN> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<8xf32> -> tensor<8xf8E4M3FN>
  return %q : tensor<8xf8E4M3FN>
}

// -----

// FP8 dequantize decodes the bits (no arith.extf from f8).
// CHECK-LABEL: func.func @dequantize_e5m2
// CHECK: linalg.generic
// CHECK:   arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK:   arith.extui %{{.*}} : i8 to i32
// CHECK:   arith.uitofp
// CHECK:   arith.bitcast %{{.*}} : i32 to f32
// CHECK:   arith.mulf
// CHECK-NOT: arith.extf
func.func @dequantize_e5m2(%q: tensor<8xf8E5M2>, %s: tensor<f32>) -> tensor<8xf32> {
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <f8E5M2> : tensor<8xf8E5M2> -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// requantize is its definition: dequantize to f32, then quantize.
// CHECK-LABEL: func.func @requantize
// CHECK: %[[F:.*]] = linalg.generic
// CHECK:   arith.extsi %{{.*}} : i8 to i32
// CHECK: -> tensor<8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[F]]
// CHECK:   math.roundeven
// CHECK: -> tensor<8xi8>
// CHECK-NOT: octet.
func.func @requantize(%q: tensor<8xi8>, %s0: tensor<f32>, %s1: tensor<f32>, %z1: tensor<i32>) -> tensor<8xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <i8> to scale(%s1 : tensor<f32>) zero_point(%z1 : tensor<i32>) as <u8, asymmetric> : tensor<8xi8> -> tensor<8xi8>
  return %r : tensor<8xi8>
}
