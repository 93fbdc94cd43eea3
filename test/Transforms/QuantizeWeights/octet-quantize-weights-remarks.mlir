// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-quantize-weights="remarks=true"

// A contraction without a constant weight is left alone with a remark (also
// without remarks=true); nothing quantized, no summary.
func.func @activation_times_activation(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %o: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{contraction has no constant weight operand; left unquantized}}
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// With remarks=true: one remark per quantized layer and a summary at the
// module.
// expected-remark-re @+1 {{octet-quantize-weights: 1 layers quantized, 0 skipped; 16 -> 12 bytes (1.33x); SQNR min {{[0-9.]+}} dB, median {{[0-9.]+}} dB}}
module {
  func.func @per_layer(%x: tensor<2x2xf32>, %o: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %w = arith.constant dense<[[0.5, -1.0], [-0.5, 2.0]]> : tensor<2x2xf32>
    // expected-remark-re @+1 {{quantized weight of '{{.*}}' (2x2xf32) as #octet.scheme<i8, per_axis(1)>: SQNR {{[0-9.]+}} dB, 16 -> 12 bytes}}
    %y = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32>
    return %y : tensor<2x2xf32>
  }
}
