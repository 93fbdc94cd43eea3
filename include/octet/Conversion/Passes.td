//===- Passes.td - Octet conversion passes -----------------*- tablegen -*-===//

#ifndef OCTET_CONVERSION_PASSES_TD
#define OCTET_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOctetToLinalg : Pass<"convert-octet-to-linalg"> {
  let summary = "Lower octet quantize/dequantize/requantize to linalg";
  let description = [{
    Rewrites every `octet.quantize`, `octet.dequantize` and `octet.requantize`
    into a `linalg.generic` over the tensor whose body performs the exact
    numerics of docs/numerics.md with `arith` and `math` ops:

    - `math.roundeven` for round-half-to-even, the zero-point add and the clamp
      in f32, and only then `arith.fptosi` to `i32` followed by `arith.trunci`
      to the storage width, so no out-of-range float is ever narrowed (which
      would be poison in LLVM);
    - FP8 encode and decode as branch-free integer arithmetic on the f32 bit
      pattern (round-to-nearest-even, explicit saturation or overflow to
      NaN/inf), which vectorizes; `arith.truncf` to FP8 has no LLVM lowering
      of its own.

    Parameters are broadcast through the generic's indexing maps; per-group
    parameters are applied by expanding the grouped dimension into
    (groups, group size) around the generic, so every map stays a projected
    permutation.

    Example:

    ```mlir
    %q = octet.quantize %x scale(%s : tensor<f32>) #octet.scheme<i8>
           : tensor<6xf32> -> tensor<6xi8>
    ```

    becomes a `linalg.generic` whose body divides, rounds with
    `math.roundeven`, clamps to [-128, 127] and converts.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def OctetImportQuant : Pass<"octet-import-quant", "::mlir::ModuleOp"> {
  let summary = "Turn upstream quant dialect casts and types into octet ops";
  let description = [{
    Rewrites `quant.qcast` and `quant.dcast` on `!quant.uniform` types into
    `octet.quantize` and `octet.dequantize` with constant scale and zero-point
    operands, giving them octet's exact semantics (upstream
    `--lower-quant-ops` truncates instead of rounding and wraps on overflow).
    `quant.scast` becomes a no-op, since quantized types are replaced by their
    storage types everywhere, including function signatures.

    Supported: per-tensor, per-axis and sub-channel (blocked along one
    dimension) `!quant.uniform` types with `i8`, `u8`, `i4` and `u4` storage,
    including narrowed ranges such as `i8<-127:127>` and non-zero zero
    points, expressed in f32, f16 or bf16. Anything octet cannot represent
    (other storage types, blocks along several dimensions, unranked tensors,
    scalars) is reported as an error at the op that uses it.

    Example:

    ```mlir
    %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:3>>
    ```

    becomes

    ```mlir
    %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>)
           #octet.scheme<i8, asymmetric> : tensor<4xf32> -> tensor<4xi8>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::octet::OctetDialect"
  ];
}

#endif // OCTET_CONVERSION_PASSES_TD
