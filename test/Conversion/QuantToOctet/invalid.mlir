// RUN: octet-opt %s --octet-import-quant --split-input-file -verify-diagnostics

// What octet cannot represent is a diagnostic at the first op that uses the
// type (once per type), never a crash.

func.func @i16_storage(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{storage type of '!quant.uniform<i16:f32, 1.000000e-01>' is not supported: octet stores i8, u8, i4 and u4 codes}}
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i16:f32, 0.1>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i16:f32, 0.1>> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @scalar(%x: f32) -> f32 {
  // expected-error @+1 {{scalar quantized value of type '!quant.uniform<i8:f32, 1.000000e-01>' cannot be imported: octet ops work on ranked tensors}}
  %q = quant.qcast %x : f32 to !quant.uniform<i8:f32, 0.1>
  %d = quant.dcast %q : !quant.uniform<i8:f32, 0.1> to f32
  return %d : f32
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{quantized type 'tensor<*x!quant.uniform<i8:f32, 1.000000e-01>>' cannot be imported: octet ops work on ranked tensors}}
  %q = quant.qcast %x : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32, 0.1>>
  %d = quant.dcast %q : tensor<*x!quant.uniform<i8:f32, 0.1>> to tensor<*xf32>
  return %d : tensor<*xf32>
}

// -----

func.func @f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{expressed type 'f64' of '!quant.uniform<i8:f64, 1.000000e-01>' is not supported (f32, f16 or bf16)}}
  %q = quant.qcast %x : tensor<4xf64> to tensor<4x!quant.uniform<i8:f64, 0.1>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f64, 0.1>> to tensor<4xf64>
  return %d : tensor<4xf64>
}

