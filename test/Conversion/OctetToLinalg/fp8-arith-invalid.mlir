// RUN: octet-opt %s --split-input-file --convert-octet-to-linalg --verify-diagnostics

// The host lowering has no arithmetic on FP8 / FP4-typed values: extending
// or truncating them at run time is an error at the op (it failed in LLVM
// translation with an unrealized_conversion_cast before).

func.func @extend(%w: tensor<4xf8E4M3FN>) -> tensor<4xf32> {
  // expected-error @+1 {{arith.extf of 'f8E4M3FN' values: the host lowering has no FP8 / FP4 arithmetic (octet ops work on their codes); decode them with octet.dequantize}}
  %f = arith.extf %w : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

func.func @truncate(%x: f32) -> f4E2M1FN {
  // expected-error @+1 {{arith.truncf to 'f4E2M1FN' values}}
  %t = arith.truncf %x : f32 to f4E2M1FN
  return %t : f4E2M1FN
}
