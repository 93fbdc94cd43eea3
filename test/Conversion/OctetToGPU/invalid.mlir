// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-outline-for-cuda

// expected-error @below {{octet-outline-for-cuda needs the module's #octet.target (a CUDA target); run --octet-set-target first}}
module {
func.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}
}

// -----

// expected-error @below {{octet-outline-for-cuda: #octet.target<"avx2"> is not a CUDA target}}
module attributes {octet.target = #octet.target<"avx2">} {
func.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}
}
