// RUN: octet-opt %s --octet-export-quant --split-input-file -verify-diagnostics

// What upstream !quant.uniform types cannot express is an error at the op,
// and nothing is rewritten.

func.func @fp8(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %s = arith.constant dense<0.5> : tensor<f32>
  // expected-error @+1 {{'octet.quantize' op scheme #octet.scheme<f8E4M3FN> cannot be exported: upstream !quant.uniform types store integers only ('!quant.uniform<f8E4M3FN:f32, ...>' fails with "illegal storage type size")}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return %q : tensor<4xf8E4M3FN>
}

// -----

func.func @dynamic_scale(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  // expected-error @+1 {{'octet.quantize' op scale is not a constant: upstream !quant.uniform types carry compile-time parameters only, so dynamic quantization cannot be exported}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @dynamic_zero_point(%q: tensor<4xi8>, %z: tensor<i32>) -> tensor<4xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  // expected-error @+1 {{'octet.dequantize' op zero point is not a constant}}
  %d = octet.dequantize %q scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @requantize(%q: tensor<4xi8>) -> tensor<4xi8> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %s2 = arith.constant dense<0.25> : tensor<f32>
  // expected-error @+1 {{'octet.requantize' op cannot be exported: upstream quant has no requantize operation (express it as octet.dequantize + octet.quantize)}}
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s2 : tensor<f32>) as <i8> : tensor<4xi8> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

func.func @compute_params(%x: tensor<4x8xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'octet.compute_params' op cannot be exported: it computes parameters at run time, and upstream !quant.uniform types carry compile-time parameters only}}
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<4x8xf32> -> tensor<4xf32>
  // expected-error @+1 {{'octet.quantize' op scale is not a constant}}
  %q = octet.quantize %x scale(%s : tensor<4xf32>) as <i8, per_axis(0)> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

func.func @f16_scale_range(%x: tensor<4xf16>) -> tensor<4xi8> {
  %s = arith.constant dense<1.0e-9> : tensor<f32>
  // expected-error @+1 {{'octet.quantize' op upstream quant rejects the exported type: scale out of expressed type range}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf16> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @f16_group_scale(%q: tensor<2x8xi8>) -> tensor<2x8xf16> {
  %s = arith.constant dense<[[0.5, 0.1], [1.0, 2.0]]> : tensor<2x2xf32>
  // expected-error @+1 {{'octet.dequantize' op per_group scale 0.100000001 is not exactly representable in 'f16', the type upstream sub-channel types store scales in}}
  %d = octet.dequantize %q scale(%s : tensor<2x2xf32>) as <i8, per_group(1, 4)> : tensor<2x8xi8> -> tensor<2x8xf16>
  return %d : tensor<2x8xf16>
}

// -----

func.func @empty_group_dim(%x: tensor<0x8xf32>) -> tensor<0x8xi8> {
  %s = arith.constant dense<0.5> : tensor<0x2xf32>
  // expected-error @+1 {{'octet.quantize' op per_group parameters of a tensor with a zero-sized dimension cannot be exported: upstream sub-channel types do not allow empty dimensions}}
  %q = octet.quantize %x scale(%s : tensor<0x2xf32>) as <i8, per_group(1, 4)> : tensor<0x8xf32> -> tensor<0x8xi8>
  return %q : tensor<0x8xi8>
}

// -----

// The fused contraction octet-quantize / octet-fold-scales produce.
func.func @fused_matmul(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<3> : tensor<64x16xi8>
  %s = arith.constant dense<0.5> : tensor<16xf32>
  // expected-error @+1 {{'octet.matmul' op cannot be exported: upstream quant has no contraction on quantized operands (export the unfused form, octet.dequantize + linalg: octet-quantize-weights without octet-fold-scales)}}
  %y = octet.matmul %x, %w rhs_scale(%s : tensor<16xf32>) rhs_scheme <i8, per_axis(1)> : tensor<4x64xf32>, tensor<64x16xi8> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The formats of the next chips: FP4 / FP8 storage with block scales, and
// NF4's table.
func.func @nvfp4(%q: tensor<4x16xf4E2M1FN>) -> tensor<4x16xf32> {
  %s = arith.constant dense<0.0625> : tensor<4x1xf32>
  // expected-error @+1 {{'octet.dequantize' op scheme #octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(0.015625)> cannot be exported: upstream !quant.uniform types store integers only ('!quant.uniform<f4E2M1FN:f32, ...>' fails with "illegal storage type size")}}
  %x = octet.dequantize %q scale(%s : tensor<4x1xf32>) as <f4E2M1FN, per_group(1, 16), e4m3(0.015625)> : tensor<4x16xf4E2M1FN> -> tensor<4x16xf32>
  return %x : tensor<4x16xf32>
}

// -----

func.func @mxfp8(%q: tensor<4x32xf8E4M3FN>) -> tensor<4x32xf32> {
  %s = arith.constant dense<0.5> : tensor<4x1xf32>
  // expected-error @+1 {{'octet.dequantize' op scheme #octet.scheme<f8E4M3FN, per_group(1, 32), e8m0> cannot be exported}}
  %x = octet.dequantize %q scale(%s : tensor<4x1xf32>) as <f8E4M3FN, per_group(1, 32), e8m0> : tensor<4x32xf8E4M3FN> -> tensor<4x32xf32>
  return %x : tensor<4x32xf32>
}

// -----

func.func @nf4(%q: tensor<4x64xi4>) -> tensor<4x64xf32> {
  %s = arith.constant dense<0.5> : tensor<4x1xf32>
  // expected-error @+1 {{'octet.dequantize' op scheme #octet.scheme<nf4, per_group(1, 64)> cannot be exported: NF4 codes index a table of 16 values, which upstream !quant.uniform (an affine map) cannot express}}
  %x = octet.dequantize %q scale(%s : tensor<4x1xf32>) as <nf4, per_group(1, 64)> : tensor<4x64xi4> -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// -----

func.func @resource_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = arith.constant dense_resource<scale> : tensor<f32>
  // expected-error @+1 {{'octet.quantize' op scale constant dense_resource<scale> : tensor<f32> is not a dense elements attribute}}
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

{-#
  dialect_resources: {
    builtin: {
      scale: "0x040000000000003F"
    }
  }
#-}
