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

def OctetExportQuant : Pass<"octet-export-quant", "::mlir::ModuleOp"> {
  let summary = "Turn octet quantize/dequantize into upstream quant casts";
  let description = [{
    The inverse of `--octet-import-quant`: rewrites `octet.quantize` and
    `octet.dequantize` whose scales (and zero points) are constants into
    `quant.qcast` and `quant.dcast` on `!quant.uniform` types, for tools that
    consume the upstream `quant` dialect (TOSA, TFLite-style flows).

    | octet scheme | upstream element type |
    | --- | --- |
    | `per_tensor` | `!quant.uniform<i8:f32, s:z>` |
    | `per_axis(a)` | `!quant.uniform<i8:f32:a, {s0:z0, ...}>` |
    | `per_group(a, g)` | sub-channel `!quant.uniform<i8:f32:{0:1, a:g, ...}, {{...}}>` (block `g` along `a`, 1 elsewhere) |

    Formats `i8`, `u8`, `i4` and `u4` map to signed/unsigned integer storage
    with the scheme's (possibly narrowed) code range; f32 scales become
    doubles exactly and i32 zero points become int64. Expressed types f32,
    f16 and bf16 are kept (upstream stores sub-channel scales in the
    expressed type, so a `per_group` scale that f16/bf16 cannot hold exactly
    is an error). Values keep their storage types (`tensor<...xi8>`) in
    function signatures and between other ops: `quant.scast` converts at
    those boundaries, and `quant.dcast` reads a `quant.qcast` result
    directly when both use the same type.
    `--octet-import-quant` maps the result back to the same schemes and
    parameters, except that degenerate spellings come back in their
    canonical form (an `asymmetric` scheme whose zero points are all 0 comes
    back `symmetric`; a group that spans its whole dimension comes back
    `per_axis`).

    What upstream cannot express is an error at the op, and nothing is
    rewritten: FP8 storage (`!quant.uniform` stores integers only; its
    parser reports "illegal storage type size" for `f8E4M3FN`), scales or
    zero points that are not constants (dynamic quantization),
    `octet.requantize` and `octet.compute_params`, and parameters that the
    upstream type verifier rejects (e.g. a scale outside the f16 range for
    an f16 expressed type).

    Semantics caveat: the upstream `quant` casts define no rounding mode,
    NaN or overflow behavior, and upstream `--lower-quant-ops` truncates
    instead of rounding half to even and wraps on overflow
    (docs/numerics.md). The exported program only keeps octet's exact
    numbers when its consumer implements them (or when it is imported back
    with `--octet-import-quant`).

    Example:

    ```mlir
    %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>)
           as <i8, asymmetric> : tensor<4xf32> -> tensor<4xi8>
    ```

    with `%s = 0.25` and `%z = -3` becomes

    ```mlir
    %0 = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-3>>
    %q = quant.scast %0 : tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-3>> to tensor<4xi8>
    ```
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

def OctetLowerObservers : Pass<"octet-lower-observers", "::mlir::ModuleOp"> {
  let summary = "Turn octet.observe into calls that record calibration data";
  let description = [{
    Used by `octet-run --calibrate`: every `octet.observe` becomes a call

    ```mlir
    func.call @octet_observe(%id, %x) : (i64, tensor<*xf32>) -> ()
    ```

    to a function the runner provides (C interface
    `_mlir_ciface_octet_observe(int64_t id, UnrankedMemRefType<float> *)`),
    with f16/bf16 tensors extended to f32 first. The observer names are
    listed, in id order, in the module attribute `octet.observers`. Outside
    calibration `convert-octet-to-linalg` drops observers instead.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // OCTET_CONVERSION_PASSES_TD
