// RUN: octet-opt %s --octet-fold-scales --split-input-file -verify-diagnostics

// Every contraction fed by dequantize that stays gets a remark saying why.

func.func @scale_along_k(%aq: tensor<4x64xi8>, %sa: tensor<64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = octet.dequantize %aq scale(%sa : tensor<64xf32>) as <i8, per_axis(1)> : tensor<4x64xi8> -> tensor<4x64xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  // expected-remark @+1 {{octet-fold-scales: contraction not folded into octet.matmul: the activation scale (per_axis(1)) varies along the reduction dimension}}
  %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @weight_scale_along_k(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<64xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<64xf32>) as <i8, per_axis(0)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  // expected-remark @+1 {{the weight scale (per_axis(0)) varies along the reduction dimension per element}}
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @accumulating(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  // expected-remark @+1 {{the accumulator is not zero-initialized}}
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @only_lhs(%aq: tensor<4x64xi8>, %sa: tensor<f32>, %w: tensor<64x8xf32>) -> tensor<4x8xf32> {
  %a = octet.dequantize %aq scale(%sa : tensor<f32>) as <i8> : tensor<4x64xi8> -> tensor<4x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  // expected-remark @+1 {{only the lhs is dequantized; octet.matmul takes quantized weights as rhs}}
  %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
