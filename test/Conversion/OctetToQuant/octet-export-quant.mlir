// RUN: octet-opt %s --octet-export-quant | FileCheck %s
// The exported IR is upstream IR: the stock mlir-opt parses and verifies it.
// RUN: octet-opt %s --octet-export-quant | mlir-opt --verify-roundtrip > /dev/null

// Per-tensor, symmetric: the f32 scale becomes the exact double; the storage
// result in the signature is reached through quant.scast; the scale constant
// is gone.
// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>) -> tensor<6xi8>
// CHECK-NOT: arith.constant
// CHECK: %[[Q:.*]] = quant.qcast %[[X]] : tensor<6xf32> to tensor<6x!quant.uniform<i8:f32, 0.10000000149011612>>
// CHECK: %[[S:.*]] = quant.scast %[[Q]] : tensor<6x!quant.uniform<i8:f32, 0.10000000149011612>> to tensor<6xi8>
// CHECK: return %[[S]]
func.func @per_tensor(%x: tensor<6xf32>) -> tensor<6xi8> {
  %s = arith.constant dense<0.1> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<6xf32> -> tensor<6xi8>
  return %q : tensor<6xi8>
}

// quantize -> dequantize with the same parameters: quant.dcast reads the
// quant.qcast directly (no storage cast), and the zero point becomes int64.
// CHECK-LABEL: func.func @qdq
// CHECK: %[[Q:.*]] = quant.qcast %{{.*}} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-3>>
// CHECK-NEXT: %[[D:.*]] = quant.dcast %[[Q]] : tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-3>> to tensor<4xf32>
// CHECK-NEXT: return %[[D]]
func.func @qdq(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant dense<0.25> : tensor<f32>
  %z = arith.constant dense<-3> : tensor<i32>
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <i8, asymmetric> : tensor<4xf32> -> tensor<4xi8>
  %d = octet.dequantize %q scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <i8, asymmetric> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// Per-axis, unsigned, narrowed range, on a storage function argument: the
// argument is cast to the quantized type first.
// CHECK-LABEL: func.func @per_axis_u8
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xi8>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = quant.scast %[[A]] : tensor<2x3xi8> to tensor<2x3x!quant.uniform<u8<1:255>:f32:1, {5.000000e-01:3,1.000000e+00:255,2.000000e+00:1}>>
// CHECK: %[[D:.*]] = quant.dcast %[[S]] : tensor<2x3x!quant.uniform<u8<1:255>:f32:1, {5.000000e-01:3,1.000000e+00:255,2.000000e+00:1}>> to tensor<2x3xf32>
// CHECK: return %[[D]]
func.func @per_axis_u8(%a: tensor<2x3xi8>) -> tensor<2x3xf32> {
  %s = arith.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
  %z = arith.constant dense<[3, 255, 1]> : tensor<3xi32>
  %d = octet.dequantize %a scale(%s : tensor<3xf32>) zero_point(%z : tensor<3xi32>) as <u8<1:255>, per_axis(1), asymmetric> : tensor<2x3xi8> -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// per_group(1, 4) is a sub-channel type with block 4 along dimension 1 and 1
// along dimension 0; the scale tensor keeps its shape.
// CHECK-LABEL: func.func @per_group_i4
// CHECK: quant.qcast %{{.*}} : tensor<2x8xf32> to tensor<2x8x!quant.uniform<i4:f32:{0:1, 1:4}, {{\{\{}}5.000000e-01, 2.500000e-01}, {1.000000e+00, 2.000000e+00}}>>
func.func @per_group_i4(%x: tensor<2x8xf32>) -> tensor<2x8xi4> {
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %q = octet.quantize %x scale(%s : tensor<2x2xf32>) as <i4, per_group(1, 4)> : tensor<2x8xf32> -> tensor<2x8xi4>
  return %q : tensor<2x8xi4>
}

// Sub-channel zero points live in the signless storage type; upstream prints
// u4 zero point 15 as -1 (and reads it back as the same bits).
// CHECK-LABEL: func.func @per_group_u4
// CHECK: quant.qcast %{{.*}} : tensor<4x2xf32> to tensor<4x2x!quant.uniform<u4:f32:{0:2, 1:1}, {{\{\{}}5.000000e-01:-1, 5.000000e-01:7}, {2.500000e-01, 2.500000e-01:1}}>>
func.func @per_group_u4(%x: tensor<4x2xf32>) -> tensor<4x2xi4> {
  %s = arith.constant dense<[[0.5, 0.5], [0.25, 0.25]]> : tensor<2x2xf32>
  %z = arith.constant dense<[[15, 7], [0, 1]]> : tensor<2x2xi32>
  %q = octet.quantize %x scale(%s : tensor<2x2xf32>) zero_point(%z : tensor<2x2xi32>) as <u4, per_group(0, 2), asymmetric> : tensor<4x2xf32> -> tensor<4x2xi4>
  return %q : tensor<4x2xi4>
}

// f16 and bf16 expressed types are kept.
// CHECK-LABEL: func.func @expressed_f16
// CHECK: quant.qcast %{{.*}} : tensor<4xf16> to tensor<4x!quant.uniform<u8:f16, 5.000000e-01:128>>
// CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u8:f16, 5.000000e-01:128>> to tensor<4xf16>
func.func @expressed_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %z = arith.constant dense<128> : tensor<i32>
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<4xf16> -> tensor<4xi8>
  %d = octet.dequantize %q scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<4xi8> -> tensor<4xf16>
  return %d : tensor<4xf16>
}
// CHECK-LABEL: func.func @expressed_bf16
// CHECK: quant.dcast %{{.*}} : tensor<2x4x!quant.uniform<i8:bf16:{0:1, 1:2}, {{\{\{}}5.000000e-01, 2.500000e-01}, {1.000000e+00, 2.000000e+00}}>> to tensor<2x4xbf16>
func.func @expressed_bf16(%a: tensor<2x4xi8>) -> tensor<2x4xbf16> {
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %d = octet.dequantize %a scale(%s : tensor<2x2xf32>) as <i8, per_group(1, 2)> : tensor<2x4xi8> -> tensor<2x4xbf16>
  return %d : tensor<2x4xbf16>
}

// Storage values between other ops: scast out of the quantized type before
// the reshape, back into it after.
// CHECK-LABEL: func.func @through_reshape
// CHECK: %[[Q:.*]] = quant.qcast %{{.*}} : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: %[[S:.*]] = quant.scast %[[Q]] : tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<2x3xi8>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<2x3xi8> into tensor<6xi8>
// CHECK: %[[B:.*]] = quant.scast %[[R]] : tensor<6xi8> to tensor<6x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: quant.dcast %[[B]] : tensor<6x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<6xf32>
func.func @through_reshape(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<2x3xf32> -> tensor<2x3xi8>
  %r = tensor.collapse_shape %q [[0, 1]] : tensor<2x3xi8> into tensor<6xi8>
  %d = octet.dequantize %r scale(%s : tensor<f32>) as <i8> : tensor<6xi8> -> tensor<6xf32>
  return %d : tensor<6xf32>
}

// Codes dequantized with other parameters: both types appear, joined by
// storage casts.
// CHECK-LABEL: func.func @other_params
// CHECK: %[[Q:.*]] = quant.qcast %{{.*}} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: %[[S:.*]] = quant.scast %[[Q]] : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<4xi8>
// CHECK: %[[B:.*]] = quant.scast %[[S]] : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: quant.dcast %[[B]] : tensor<4x!quant.uniform<i8:f32, 2.500000e-01>> to tensor<4xf32>
func.func @other_params(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %s2 = arith.constant dense<0.25> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  %d = octet.dequantize %q scale(%s2 : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// A constant that is also used elsewhere stays.
// CHECK-LABEL: func.func @shared_constant
// CHECK: %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: quant.qcast
// CHECK: return %{{.*}}, %[[C]]
func.func @shared_constant(%x: tensor<4xf32>) -> (tensor<4xi8>, tensor<f32>) {
  %s = arith.constant dense<0.5> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q, %s : tensor<4xi8>, tensor<f32>
}

// Dynamic dimensions are kept (per_tensor; per_axis along a static one).
// CHECK-LABEL: func.func @dynamic
// CHECK: quant.qcast %{{.*}} : tensor<?x3xf32> to tensor<?x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01,1.250000e-01}>>
func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xi8> {
  %s = arith.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %q = octet.quantize %x scale(%s : tensor<3xf32>) as <i8, per_axis(1)> : tensor<?x3xf32> -> tensor<?x3xi8>
  return %q : tensor<?x3xi8>
}
