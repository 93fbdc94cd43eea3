// RUN: octet-opt %s -canonicalize -split-input-file | FileCheck %s

// quantize(dequantize(q)) with identical parameters is q when every code
// survives the round trip: here the parameters come from compute_params for
// the same full-range scheme (guarded scales) and the intermediate is f32.
// CHECK-LABEL: func.func @round_trip_folds
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %[[Q:.*]]: tensor<4x8xi8>)
// CHECK-NOT: octet.dequantize
// CHECK-NOT: octet.quantize
// CHECK: return %[[Q]]
func.func @round_trip_folds(%x: tensor<4x8xf32>, %q: tensor<4x8xi8>) -> tensor<4x8xi8> {
  %s, %z = octet.compute_params %x as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<8xf32>, tensor<8xi32>
  %d = octet.dequantize %q scale(%s : tensor<8xf32>) zero_point(%z : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  %r = octet.quantize %d scale(%s : tensor<8xf32>) zero_point(%z : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

// An arbitrary run-time scale could overflow (q - zp) * s: not folded.
// CHECK-LABEL: func.func @round_trip_unknown_scale
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @round_trip_unknown_scale(%q: tensor<4xi8>, %s: tensor<f32>) -> tensor<4xi8> {
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// 3e38 * 100 overflows f32: q = 100 would come back as 127. Not folded.
// CHECK-LABEL: func.func @round_trip_overflowing_scale
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @round_trip_overflowing_scale(%q: tensor<4xi8>) -> tensor<4xi8> {
  %s = arith.constant dense<3.0e38> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// A narrowed range clamps codes outside it (-128 -> -127): not folded.
// CHECK-LABEL: func.func @round_trip_narrow_range
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @round_trip_narrow_range(%q: tensor<4xi8>) -> tensor<4xi8> {
  %s = arith.constant dense<1.0> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8<-127:127>> : tensor<4xi8> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8<-127:127>> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// E5M2: inf codes saturate to max finite and NaN payloads canonicalize, so
// the round trip is not the identity on every code: not folded.
// CHECK-LABEL: func.func @round_trip_e5m2
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @round_trip_e5m2(%q: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  %s = arith.constant dense<2.0> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <f8E5M2> : tensor<4xf8E5M2> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <f8E5M2> : tensor<4xf32> -> tensor<4xf8E5M2>
  return %r : tensor<4xf8E5M2>
}

// -----

// Equal constants count as identical parameters.
// CHECK-LABEL: func.func @round_trip_equal_constants
// CHECK-SAME: (%[[Q:.*]]: tensor<4xf8E4M3FN>)
// CHECK-NOT: octet.
// CHECK: return %[[Q]]
func.func @round_trip_equal_constants(%q: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %s0 = arith.constant dense<0.5> : tensor<f32>
  %s1 = arith.constant dense<0.5> : tensor<f32>
  %d = octet.dequantize %q scale(%s0 : tensor<f32>) as <f8E4M3FN> : tensor<4xf8E4M3FN> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s1 : tensor<f32>) as <f8E4M3FN> : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}

// -----

// dequantize(quantize(x)) is exactly how quantization error enters a model:
// it must never fold to x.
// CHECK-LABEL: func.func @error_is_kept
// CHECK: %[[Q:.*]] = octet.quantize
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]]
// CHECK: return %[[D]]
func.func @error_is_kept(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Different parameters: not a round trip.
// CHECK-LABEL: func.func @different_scales
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @different_scales(%q: tensor<4xi8>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<4xi8> {
  %d = octet.dequantize %q scale(%s0 : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s1 : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// Different schemes (narrowed range): not a round trip.
// CHECK-LABEL: func.func @different_schemes
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @different_schemes(%q: tensor<4xi8>, %s: tensor<f32>) -> tensor<4xi8> {
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8<-127:127>> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// An f16 intermediate keeps every 8-bit code only inside f16's normal range;
// with a dynamic scale that cannot be checked, so nothing folds.
// CHECK-LABEL: func.func @f16_dynamic_scale
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @f16_dynamic_scale(%q: tensor<4xi8>, %s: tensor<f32>) -> tensor<4xi8> {
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf16>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8> : tensor<4xf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// A constant scale inside f16's range folds.
// CHECK-LABEL: func.func @f16_constant_scale
// CHECK-SAME: (%[[Q:.*]]: tensor<4xi8>)
// CHECK-NOT: octet.
// CHECK: return %[[Q]]
func.func @f16_constant_scale(%q: tensor<4xi8>) -> tensor<4xi8> {
  %s = arith.constant dense<0.125> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf16>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8> : tensor<4xf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// 255 * 1000 overflows f16: q = 100 would come back as 127.
// CHECK-LABEL: func.func @f16_overflowing_scale
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @f16_overflowing_scale(%q: tensor<4xi8>) -> tensor<4xi8> {
  %s = arith.constant dense<1000.0> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf16>
  %r = octet.quantize %d scale(%s : tensor<f32>) as <i8> : tensor<4xf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// Constant folding uses the numerics core. Expected values follow DESIGN.md's
// contract (round half to even, saturate): 0.26/0.1 -> 3, -1.74/0.1 -> -17,
// 3.5/0.1 = 35, 2.5/0.1 = 25, 400 -> 127, -1000 -> -128.
// CHECK-LABEL: func.func @constant_fold_i8
// CHECK: %[[C:.*]] = arith.constant dense<[3, -17, 35, 25, 127, -128]> : tensor<6xi8>
// CHECK-NOT: octet.quantize
// CHECK: return %[[C]]
func.func @constant_fold_i8() -> tensor<6xi8> {
  %x = arith.constant dense<[0.26, -1.74, 3.5, 2.5, 400.0, -1000.0]> : tensor<6xf32>
  %s = arith.constant dense<0.1> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<6xf32> -> tensor<6xi8>
  return %q : tensor<6xi8>
}

// -----

// Per-axis u8 with zero points: row 0 scale 1 zp 10, row 1 scale 2 zp 250.
// Row 0: [0.5, 1.5, -20, 300] -> [0, 2, -20, 300] + 10 -> [10, 12, 0, 255];
// row 1: [0.25, 1.5, -10, 150] -> [0, 2, -10, 150] + 250 -> [250, 252, 240, 255].
// Storage is signless i8, so u8 codes above 127 print as negative numbers:
// 255 -> -1, 250 -> -6, 252 -> -4, 240 -> -16.
// CHECK-LABEL: func.func @constant_fold_u8_per_axis
// CHECK: arith.constant dense<{{\[}}[10, 12, 0, -1], [-6, -4, -16, -1]]> : tensor<2x4xi8>
func.func @constant_fold_u8_per_axis() -> tensor<2x4xi8> {
  %x = arith.constant dense<[[0.5, 1.5, -20.0, 300.0], [0.5, 3.0, -20.0, 300.0]]> : tensor<2x4xf32>
  %s = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %z = arith.constant dense<[10, 250]> : tensor<2xi32>
  %q = octet.quantize %x scale(%s : tensor<2xf32>) zero_point(%z : tensor<2xi32>) as <u8, per_axis(0), asymmetric> : tensor<2x4xf32> -> tensor<2x4xi8>
  return %q : tensor<2x4xi8>
}

// -----

// E4M3FN: 1.0 -> 0x38, 448 -> 0x7E, 464 ties to even 448, 465 saturates
// to 448 (0x7E), -0.0 -> 0x80; printed as the float values.
// CHECK-LABEL: func.func @constant_fold_fp8
// CHECK: arith.constant dense<[1.000000e+00, 4.480000e+02, 4.480000e+02, 4.480000e+02, -0.000000e+00]> : tensor<5xf8E4M3FN>
func.func @constant_fold_fp8() -> tensor<5xf8E4M3FN> {
  %x = arith.constant dense<[1.0, 448.0, 464.0, 465.0, -0.0]> : tensor<5xf32>
  %s = arith.constant dense<1.0> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<5xf32> -> tensor<5xf8E4M3FN>
  return %q : tensor<5xf8E4M3FN>
}

// -----

// Per-group i4: groups of 2 along axis 1, scales [1, 4]; 7.9 -> 7 (clamped),
// -3.5 -> -4 (tie to even), 10 / 4 = 2.5 -> 2, -40 / 4 -> -8 (clamped).
// CHECK-LABEL: func.func @constant_fold_i4_group
// CHECK: arith.constant dense<{{\[}}[7, -4, 2, -8]]> : tensor<1x4xi4>
func.func @constant_fold_i4_group() -> tensor<1x4xi4> {
  %x = arith.constant dense<[[7.9, -3.5, 10.0, -40.0]]> : tensor<1x4xf32>
  %s = arith.constant dense<[[1.0, 4.0]]> : tensor<1x2xf32>
  %q = octet.quantize %x scale(%s : tensor<1x2xf32>) as <i4, per_group(1, 2)> : tensor<1x4xf32> -> tensor<1x4xi4>
  return %q : tensor<1x4xi4>
}

// -----

// requantize with the same scheme and parameters is the identity when the
// round trip is exact (full range, a scale that keeps codes normal and
// finite in f32).
// CHECK-LABEL: func.func @requantize_identity
// CHECK-SAME: (%[[Q:.*]]: tensor<8xi8>
// CHECK-NOT: octet.requantize
// CHECK: return %[[Q]]
func.func @requantize_identity(%q: tensor<8xi8>) -> tensor<8xi8> {
  %s = arith.constant dense<0.02> : tensor<f32>
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// -----

// CHECK-LABEL: func.func @requantize_kept
// CHECK: octet.requantize
// CHECK-LABEL: func.func @requantize_same_dynamic_scale_kept
// CHECK: octet.requantize
func.func @requantize_kept(%q: tensor<8xi8>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<8xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <i8> to scale(%s1 : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xi8>
  return %r : tensor<8xi8>
}

func.func @requantize_same_dynamic_scale_kept(%q: tensor<8xi8>, %s: tensor<f32>) -> tensor<8xi8> {
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xi8>
  return %r : tensor<8xi8>
}
