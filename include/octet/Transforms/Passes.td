//===- Passes.td - Octet transform passes ------------------*- tablegen -*-===//
//
// Quantization rewrites: weight quantization, scale folding, activation
// quantization and calibration. Each pass: summary, description with an
// `mlir` example, options, dependent dialects.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TRANSFORMS_PASSES_TD
#define OCTET_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OctetFoldScales : Pass<"octet-fold-scales"> {
  let summary = "Fold quantization scales out of the arithmetic";
  let description = [{
    Turns "dequantize, then float math" into math on the stored codes with
    the scales applied once, in an epilogue:

    - a linalg contraction (linalg.matmul, batch_matmul, transposed
      variants, or a generic multiply-accumulate; zero-initialized
      accumulator) of `dequantize(A)` and `dequantize(B)` becomes
      `octet.matmul` on the codes (exact i32 accumulation for integers, f32
      for FP8), legal when A's scale does not vary along K (per-tensor or
      per-row) and B's is per-tensor, per-output-channel or per-group along
      K. Zero points are folded algebraically by octet.matmul's lowering.
    - `contraction(x, dequantize(B))` with a float `x` becomes a weight-only
      `octet.matmul`: the weight scale moves out of the reduction loop.
    - `quantize(dequantize(q, p1), p2)` becomes one `octet.requantize` (the
      same bits, with an f32 intermediate); identical parameters fold to
      `q`. `dequantize(quantize(x))` is never removed.
    - `requantize(requantize(q))` fuses when the first step is exact (same
      scale, a zero-point shift that fits the intermediate range); otherwise
      the intermediate rounding is observable and both stay.
    - dequantize moves below linalg.transpose, tensor.expand_shape /
      collapse_shape (when the parameter axis survives), linalg.broadcast and
      tensor.extract_slice (parameters sliced along the axis), so that
      contractions see it directly.
    - ReLU of an integer dequantize becomes `max(q, zp)` on the codes (ReLU
      commutes with a positive scale).
    - A following bias add (`+ bias[n]`), ReLU and `octet.quantize` fuse
      into the `octet.matmul` epilogue (the requantize epilogue feeds the
      next layer).

    A contraction fed by dequantize that cannot be folded is left correct
    and gets a remark that says why.

    Example:

    ```mlir
    %a = octet.dequantize %aq scale(%sa : tensor<4xf32>) as <i8, per_axis(0)>
           : tensor<4x64xi8> -> tensor<4x64xf32>
    %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)>
           : tensor<64x8xi8> -> tensor<64x8xf32>
    %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>)
           outs(%zero : tensor<4x8xf32>) -> tensor<4x8xf32>
    ```

    becomes

    ```mlir
    %y = octet.matmul %aq, %wq lhs_scale(%sa : tensor<4xf32>)
           lhs_scheme <i8, per_axis(0)> rhs_scale(%sw : tensor<8xf32>)
           rhs_scheme <i8, per_axis(1)>
           : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::octet::OctetDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect"
  ];
}

#endif // OCTET_TRANSFORMS_PASSES_TD
