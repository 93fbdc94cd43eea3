// RUN: octet-opt %s --octet-import-quant --split-input-file | FileCheck %s

// Per-tensor, zero point 0: a symmetric i8 scheme; the quantized result type
// in the signature becomes its storage type.
// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>) -> tensor<6xi8>
// CHECK: %[[S:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[S]] : tensor<f32>) as <i8> : tensor<6xf32> -> tensor<6xi8>
// CHECK: return %[[Q]]
func.func @per_tensor(%x: tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 0.1>> {
  %q = quant.qcast %x : tensor<6xf32> to tensor<6x!quant.uniform<i8:f32, 0.1>>
  return %q : tensor<6x!quant.uniform<i8:f32, 0.1>>
}

// -----

// A non-zero zero point makes the scheme asymmetric.
// CHECK-LABEL: func.func @zero_point
// CHECK-DAG: %[[S:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<-3> : tensor<i32>
// CHECK: octet.quantize %{{.*}} scale(%[[S]] : tensor<f32>) zero_point(%[[Z]] : tensor<i32>) as <i8, asymmetric>
func.func @zero_point(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-3>> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.25:-3>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.25:-3>>
}

// -----

// Narrowed range and unsigned storage, per axis, on a function argument.
// CHECK-LABEL: func.func @per_axis_u8
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3xi8>) -> tensor<2x3xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[5.000000e-01, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<[3, 4, 5]> : tensor<3xi32>
// CHECK: octet.dequantize %[[Q]] scale(%[[S]] : tensor<3xf32>) zero_point(%[[Z]] : tensor<3xi32>) as <u8<1:255>, per_axis(1), asymmetric> : tensor<2x3xi8> -> tensor<2x3xf32>
func.func @per_axis_u8(%x: tensor<2x3x!quant.uniform<u8<1:255>:f32:1, {0.5:3, 1.0:4, 2.0:5}>>) -> tensor<2x3xf32> {
  %d = quant.dcast %x : tensor<2x3x!quant.uniform<u8<1:255>:f32:1, {0.5:3, 1.0:4, 2.0:5}>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// -----

// i8<-127:127> keeps its narrowed range.
// CHECK-LABEL: func.func @narrow_i8
// CHECK: as <i8<-127:127>, per_axis(0)>
func.func @narrow_i8(%x: tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>> {
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
  return %q : tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {0.5, 0.25}>>
}

// -----

// Sub-channel (blocked) along one dimension: per_group; scast disappears.
// CHECK-LABEL: func.func @sub_channel
// CHECK: %[[S:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %{{.*}} scale(%[[S]] : tensor<2x2xf32>) as <i4, per_group(1, 2)> : tensor<2x4xf32> -> tensor<2x4xi4>
// CHECK-NOT: quant.
// CHECK: return %[[Q]]
func.func @sub_channel(%x: tensor<2x4xf32>) -> tensor<2x4xi4> {
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i4:f32:{0:1, 1:2}, {{1.0, 2.0}, {3.0, 4.0}}>>
  %s = quant.scast %q : tensor<2x4x!quant.uniform<i4:f32:{0:1, 1:2}, {{1.0, 2.0}, {3.0, 4.0}}>> to tensor<2x4xi4>
  return %s : tensor<2x4xi4>
}

// -----

// Blocks along two dimensions: per_group along the first, parameters
// replicated along the second.
// CHECK-LABEL: func.func @two_dim_blocks
// CHECK: dense<{{\[}}[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00], [3.000000e+00, 3.000000e+00, 4.000000e+00, 4.000000e+00]]> : tensor<2x4xf32>
// CHECK: as <i8, per_group(0, 2)>
func.func @two_dim_blocks(%x: tensor<4x4xf32>) -> tensor<4x4x!quant.uniform<i8:f32:{0:2, 1:2}, {{1.0, 2.0}, {3.0, 4.0}}>> {
  %q = quant.qcast %x : tensor<4x4xf32> to tensor<4x4x!quant.uniform<i8:f32:{0:2, 1:2}, {{1.0, 2.0}, {3.0, 4.0}}>>
  return %q : tensor<4x4x!quant.uniform<i8:f32:{0:2, 1:2}, {{1.0, 2.0}, {3.0, 4.0}}>>
}

// -----

// dcast(qcast(x)) is kept as quantize + dequantize: the upstream folder that
// turns it into x (erasing the quantization error) must not run.
// CHECK-LABEL: func.func @keep_error
// CHECK: %[[Q:.*]] = octet.quantize
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]]
// CHECK: return %[[D]]
func.func @keep_error(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u4:f32, 0.5:2>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<u4:f32, 0.5:2>> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Other ops that merely carry quantized tensors are rebuilt on storage types,
// and calls follow the new signatures.
// CHECK-LABEL: func.func @reshape
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x3xi8> into tensor<6xi8>
func.func @reshape(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<6x!quant.uniform<i8:f32, 0.5>> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<2x3x!quant.uniform<i8:f32, 0.5>> into tensor<6x!quant.uniform<i8:f32, 0.5>>
  return %r : tensor<6x!quant.uniform<i8:f32, 0.5>>
}
// CHECK-LABEL: func.func @caller
// CHECK: call @reshape(%{{.*}}) : (tensor<2x3xi8>) -> tensor<6xi8>
func.func @caller(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<6x!quant.uniform<i8:f32, 0.5>> {
  %r = call @reshape(%x) : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<6x!quant.uniform<i8:f32, 0.5>>
  return %r : tensor<6x!quant.uniform<i8:f32, 0.5>>
}

// -----

// f16 expressed type.
// CHECK-LABEL: func.func @f16
// CHECK: octet.dequantize %{{.*}} as <u8, asymmetric> : tensor<4xi8> -> tensor<4xf16>
func.func @f16(%x: tensor<4x!quant.uniform<u8:f16, 0.5:128>>) -> tensor<4xf16> {
  %d = quant.dcast %x : tensor<4x!quant.uniform<u8:f16, 0.5:128>> to tensor<4xf16>
  return %d : tensor<4xf16>
}
