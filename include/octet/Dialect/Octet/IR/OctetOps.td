//===- OctetOps.td - Octet operations ----------------------*- tablegen -*-===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETOPS_TD
#define OCTET_DIALECT_OCTET_IR_OCTETOPS_TD

include "octet/Dialect/Octet/IR/OctetBase.td"
include "octet/Dialect/Octet/IR/OctetAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Octet_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def Octet_StorageTensor
    : RankedTensorOf<[I8, I<4>, F8E4M3FN, F8E5M2, F4E2M1FN]>;
def Octet_ScaleTensor : RankedTensorOf<[F32]>;
def Octet_ZeroPointTensor : RankedTensorOf<[I32]>;

def Octet_QuantizeOp : Octet_Op<"quantize", [Pure]> {
  let summary = "Quantize a float tensor to storage codes";
  let description = [{
    Maps each element `x` of `input` to a stored code with the parameters of
    its group (chosen by the scheme's granularity). All arithmetic is f32
    (`f16`/`bf16` inputs are extended first).

    - Integer formats: `q = clamp(roundHalfEven(x / scale) + zp, qmin, qmax)`.
      The division is a true division (ONNX QuantizeLinear / StableHLO), the
      sum and the clamp happen in f32 before narrowing. NaN quantizes to the
      zero point; +-inf saturate to qmax/qmin.
    - FP8 formats: `q = fp8(x / scale)` with round-to-nearest-even. Saturating
      schemes clamp finite overflow and +-inf to +-max finite (448 for
      E4M3FN, 57344 for E5M2); `non_saturating` ones overflow to NaN (E4M3FN)
      or inf (E5M2). NaN stays NaN, -0 stays -0.

    `scale` must hold positive finite values; its shape follows the scheme's
    granularity. Asymmetric schemes take an `i32` zero point of the scale's
    shape with values inside [qmin, qmax].

    Example:

    ```mlir
    %q = octet.quantize %w scale(%s : tensor<16xf32>)
           #octet.scheme<i8, per_axis(0)> : tensor<16x64xf32> -> tensor<16x64xi8>
    %a = octet.quantize %x scale(%sx : tensor<f32>) zero_point(%zx : tensor<i32>)
           #octet.scheme<u8, asymmetric> : tensor<4x64xf32> -> tensor<4x64xi8>
    ```

    With constant operands the op folds to a constant computed by the same
    numerics core as the generated code.
  }];
  let arguments = (ins Octet_FloatTensor:$input,
                       Octet_ScaleTensor:$scale,
                       Optional<Octet_ZeroPointTensor>:$zero_point,
                       Octet_SchemeAttr:$scheme);
  let results = (outs Octet_StorageTensor:$result);
  let assemblyFormat = [{
    $input `scale` `(` $scale `:` type($scale) `)`
    (`zero_point` `(` $zero_point^ `:` type($zero_point) `)`)?
    `as` $scheme attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Octet_DequantizeOp : Octet_Op<"dequantize", [Pure]> {
  let summary = "Map storage codes back to float values";
  let description = [{
    `x = float(q - zp) * scale` for integer formats and
    `x = decode(q) * scale` for FP8 formats, computed in f32 and rounded to the
    result's float type. Parameter shapes follow the scheme's granularity, as
    for `octet.quantize`.

    `dequantize(quantize(x))` is never folded away: it is exactly how the
    quantization error enters a model.

    Example:

    ```mlir
    %w = octet.dequantize %q scale(%s : tensor<16x2xf32>)
           #octet.scheme<i4, per_group(1, 32)> : tensor<16x64xi4> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Octet_StorageTensor:$input,
                       Octet_ScaleTensor:$scale,
                       Optional<Octet_ZeroPointTensor>:$zero_point,
                       Octet_SchemeAttr:$scheme);
  let results = (outs Octet_FloatTensor:$result);
  let assemblyFormat = [{
    $input `scale` `(` $scale `:` type($scale) `)`
    (`zero_point` `(` $zero_point^ `:` type($zero_point) `)`)?
    `as` $scheme attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Octet_RequantizeOp : Octet_Op<"requantize",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "Re-encode codes from one scheme and parameters to another";
  let description = [{
    Exactly `quantize(dequantize(input, in_scale, in_zp), out_scale, out_zp)`
    with an f32 intermediate: the same bits as the unfused pair, in one op.
    Both schemes are checked against the input/result shapes like the
    corresponding quantize and dequantize.

    Example:

    ```mlir
    %r = octet.requantize %q scale(%s0 : tensor<f32>) #octet.scheme<i8>
           to scale(%s1 : tensor<f32>) zero_point(%z1 : tensor<i32>)
           #octet.scheme<u8, asymmetric> : tensor<8xi8> -> tensor<8xi8>
    ```
  }];
  let arguments = (ins Octet_StorageTensor:$input,
                       Octet_ScaleTensor:$in_scale,
                       Optional<Octet_ZeroPointTensor>:$in_zero_point,
                       Octet_ScaleTensor:$out_scale,
                       Optional<Octet_ZeroPointTensor>:$out_zero_point,
                       Octet_SchemeAttr:$in_scheme,
                       Octet_SchemeAttr:$out_scheme);
  let results = (outs Octet_StorageTensor:$result);
  let assemblyFormat = [{
    $input `scale` `(` $in_scale `:` type($in_scale) `)`
    (`zero_point` `(` $in_zero_point^ `:` type($in_zero_point) `)`)?
    `as` $in_scheme `to`
    `scale` `(` $out_scale `:` type($out_scale) `)`
    (`zero_point` `(` $out_zero_point^ `:` type($out_zero_point) `)`)?
    `as` $out_scheme attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Octet_ComputeParamsOp : Octet_Op<"compute_params", [Pure]> {
  let summary = "Compute scales (and zero points) from the data";
  let description = [{
    Computes the quantization parameters of each group of `input` (the
    groups follow the scheme's granularity) from the group's values, the way
    dynamic quantization does at run time and weight quantization does at
    compile time:

    - symmetric: `scale = absmax / target`, where target is qmax for integer
      formats and the largest finite value for FP8 (448 for E4M3FN, 57344
      for E5M2);
    - asymmetric: the range [min, max] is widened to include 0, then
      `scale = (max - min) / (qmax - qmin)` and
      `zero_point = clamp(roundHalfEven(qmin - min / scale), qmin, qmax)`.
    - E8M0 scales (`e8m0`, OCP MX: MXFP8 / MXFP4 activations quantized at
      run time): `scale = 2^(floor(log2(absmax)) - emax)`, emax the element
      format's largest normal exponent (8 for E4M3FN, 15 for E5M2, 2 for
      E2M1), clamped to 2^-127 .. 2^127 (the spec's shared-scale rule; the
      block's largest values may then saturate). An all-zero group gets
      scale 1.
    - E4M3 scales (`e4m3(g)`, NVFP4 activation blocks of 16): `scale =
      e4m3((absmax / 6) / g) * g` with the scheme's static global scale g
      (E4M3 rounded to nearest even and saturating at 448; 2^-9 where it
      rounds to 0). A block above 2688 g saturates and clips.

    NaN elements are ignored and +-inf count as the largest finite float.
    The scale is guarded so that it is always a positive, finite, normal
    f32: an all-zero (or all-NaN) group gets scale 1 (its codes are the zero
    point and dequantize to exactly 0), a scale below the smallest normal
    becomes FLT_MIN (E8M0 scales are powers of two instead, 2^-127 being
    the one subnormal). With a constant input the op folds to constants.

    Example:

    ```mlir
    // Dynamic per-token (per-row) parameters of an activation.
    %s = octet.compute_params %x as <i8, per_axis(0)>
           : tensor<?x4096xf32> -> tensor<?xf32>
    %s2, %z2 = octet.compute_params %w as <u4, per_group(1, 128), asymmetric>
           : tensor<4096x4096xf16> -> tensor<4096x32xf32>, tensor<4096x32xi32>
    // MXFP8 activations: one E8M0 scale per token and block of 32.
    %s3 = octet.compute_params %x as <f8E4M3FN, per_group(1, 32), e8m0>
           : tensor<?x4096xf32> -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Octet_FloatTensor:$input, Octet_SchemeAttr:$scheme);
  let results = (outs Octet_ScaleTensor:$scale,
                      Optional<Octet_ZeroPointTensor>:$zero_point);
  let assemblyFormat = [{
    $input `as` $scheme attr-dict `:` type($input) `->` type($scale)
    (`,` type($zero_point)^)?
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Octet_MatmulOp : Octet_Op<"matmul", [Pure, AttrSizedOperandSegments]> {
  let summary = "Quantized matrix multiplication with a fused epilogue";
  let description = [{
    Multiplies `lhs` (`[B x] M x K`) by `rhs` (`[B x] K x N`) on their stored
    codes and applies the quantization parameters once, in an epilogue:

    ```
    acc[m, n]  = sum_k (lhs[m, k] - za) * (rhs[k, n] - zb)
    y[m, n]    = float(acc[m, n]) * (sa * sb[n]) (+ bias[n]) (relu)
    result     = y, or quantize(y, out_scale, out_zero_point) with out_scheme
    ```

    - Integer storage on both sides (i8/u8/i4/u4): `acc` is exact in i32
      (the verifier rejects a static K for which it could overflow).
      Zero points are folded algebraically by the lowering:
      `sum (A - za)(B - zb) = sum AB - za colsum(B) - zb rowsum(A) + K za zb`,
      with `colsum` of constant weights computed at compile time.
    - Float codes on both sides (FP8 and / or FP4 E2M1, in any pair:
      Blackwell's `kind::f8f6f4`): codes are decoded (exactly) and `acc` is
      an f32 sum. With OCP MX blocks on both operands (E8M0 scales per
      group of 32 along K) this is W8A8 MXFP8, W4A8 or W4A4 MXFP4.
    - Float `lhs` (weight-only, W8A16/W4A16): no lhs parameters; `acc` is the
      f32 sum of `lhs * float(rhs - zb)` and the weight scale is applied in the
      epilogue instead of inside the reduction loop.

    The lhs scale is `per_tensor`, `per_axis` on the row dimension, or
    `per_group` along K over all of K (one scale per token, batches
    included). The rhs scale is `per_tensor`, `per_axis` on the
    column dimension (per output channel), or `per_group` along K: then the
    accumulation is split into groups and each group's partial sum is
    multiplied by its scale once (`y = sa * sum_g sb[g, n] * acc_g[m, n]`).
    Block-wise scales on both operands (DeepSeek-V3's FP8 recipe: 1 x 128
    activation groups and 128-row weight groups; MX blocks on both sides):
    the lhs `per_group` along K with the rhs's group size, one scale per
    row and group; then `y = sum_g (float(acc_g[m, n]) * sa[m, g]) *
    sb[g, n]`, summed in group order, and the epilogue has no lhs scale.
    `sa * sb[n]` is computed first, in f32; then `float(acc)` is multiplied
    by it, the bias added, ReLU applied (ReLU commutes with the positive
    scale, so applying it here equals applying it to the dequantized
    product), and finally the optional requantize to `out_scheme` with the
    rules of `octet.quantize`.

    Example (W8A8, dynamic per-token activations, per-channel weights, bias,
    ReLU):

    ```mlir
    %y = octet.matmul %xq, %wq
           lhs_scale(%sx : tensor<?xf32>) lhs_scheme <i8, per_axis(0)>
           rhs_scale(%sw : tensor<4096xf32>) rhs_scheme <i8, per_axis(1)>
           bias(%b : tensor<4096xf32>) relu
           : tensor<?x4096xi8>, tensor<4096x4096xi8> -> tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins
    RankedTensorOf<[F32, F16, BF16, I8, I<4>, F8E4M3FN, F8E5M2, F4E2M1FN]>:$lhs,
    Octet_StorageTensor:$rhs,
    Optional<Octet_ScaleTensor>:$lhs_scale,
    Optional<Octet_ZeroPointTensor>:$lhs_zero_point,
    Octet_ScaleTensor:$rhs_scale,
    Optional<Octet_ZeroPointTensor>:$rhs_zero_point,
    Optional<RankedTensorOf<[F32]>>:$bias,
    Optional<Octet_ScaleTensor>:$out_scale,
    Optional<Octet_ZeroPointTensor>:$out_zero_point,
    OptionalAttr<Octet_SchemeAttr>:$lhs_scheme,
    Octet_SchemeAttr:$rhs_scheme,
    OptionalAttr<Octet_SchemeAttr>:$out_scheme,
    UnitAttr:$relu);
  let results = (outs
    RankedTensorOf<[F32, F16, BF16, I8, I<4>, F8E4M3FN, F8E5M2]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs
    (`lhs_scale` `(` $lhs_scale^ `:` type($lhs_scale) `)`)?
    (`lhs_zero_point` `(` $lhs_zero_point^ `:` type($lhs_zero_point) `)`)?
    (`lhs_scheme` $lhs_scheme^)?
    `rhs_scale` `(` $rhs_scale `:` type($rhs_scale) `)`
    (`rhs_zero_point` `(` $rhs_zero_point^ `:` type($rhs_zero_point) `)`)?
    `rhs_scheme` $rhs_scheme
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`relu` $relu^)?
    (`out_scale` `(` $out_scale^ `:` type($out_scale) `)`)?
    (`out_zero_point` `(` $out_zero_point^ `:` type($out_zero_point) `)`)?
    (`out_scheme` $out_scheme^)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when lhs holds float values (weight-only quantization).
    bool hasFloatLhs() {
      return ::llvm::isa<::mlir::FloatType>(getLhs().getType().getElementType())
             && !getLhsScheme();
    }
    /// True when the result is requantized in the epilogue.
    bool hasQuantizedResult() { return static_cast<bool>(getOutScheme()); }
    /// Rank of the batch prefix (0 or 1).
    int64_t getBatchRank() { return getLhs().getType().getRank() - 2; }
    /// True for block-wise scales on both operands: lhs per_group along K
    /// and rhs per_group along K with the same group size (each group's
    /// partial sum is scaled by sa[m, g] * sb[g, n]).
    bool hasGroupedLhs();
  }];
}

def Octet_AttentionOp : Octet_Op<"attention", [Pure]> {
  let summary = "Causal grouped-query attention in f32";
  let description = [{
    The attention of a decoder step: `KV` key/value heads, each shared by
    `G` query heads (grouped-query attention; G = 1 is multi-head), `S`
    query positions, `N` keys, head dimension `Dh`:

    ```
    t[s, h, g, j] = scale * sum_d query[s, h, g, d] * keys[h, d, j]
                    for j <= positions[s] (and j < N); -inf otherwise
    p[s, h, g, :] = softmax_j(t[s, h, g, :])
    result[s, h, g, d] = sum_j p[s, h, g, j] * values[h, j, d]
    ```

    - `query`: `S x KV x G x Dh` (the query projection's `S x (KV G Dh)`
      rows through `tensor.expand_shape`, no transpose);
    - `keys`: `KV x Dh x N`, the keys transposed, as a KV cache that the
      score loop reads along positions holds them;
    - `values`: `KV x N x Dh`;
    - `positions`: `S` i32, the causal limit: query `s` sees keys `0 ..
      positions[s]` (its own position in the sequence);
    - `scale`: the scores' factor (usually `1 / sqrt(Dh)`).

    A query that sees no key (`positions[s] < 0`, N > 0) gives NaN, and a
    NaN score or value makes its rows NaN (as the decomposition's
    `exp(-inf - -inf)` does); N = 0 gives zeros.

    Numerics: float accumulation, DESIGN.md's **Bounds** promise: FMA and
    any order of the sums; every result is within the bound of
    docs/numerics.md ("octet.attention") of the float64 attention of the
    same f32 inputs (test/Runtime/attention_oracle.py checks it for each
    CPU form). exp is octet-expand-exp's (one ulp).

    Lowering: on the CPU (`convert-octet-to-cpu`) one call of the runtime's
    `octet_cpu_attention_f32`: per query row the scores of the keys it
    sees (masked keys are not computed), softmax and the weighted sum in
    one pass, no `S x N` score tensor, on the thread pool by KV head and
    blocks of 8 positions, AVX-512 / AVX2 + FMA / scalar by the CPU. Keys
    or values produced by an `octet.dequantize` of symmetric `i8` or
    `f8E4M3FN` codes with one scale per KV head (`per_axis(0)`) or one
    scale (an INT8 or FP8 KV cache; one code format per op) are read as
    codes by the kernel (the dequantize is fused: no f32 copy of the
    cache's prefix; the scales are applied to the sums). Else
    (`convert-octet-to-linalg`: GPUs, the portable path) linalg generics:
    scores, mask and scale, row max, exp, row sum, division, context.

    Example (SmolLM2: 3 KV heads of 3 query heads, Dh = 64):

    ```mlir
    %o = octet.attention %q, %k, %v, %pos scale(1.250000e-01)
           : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>,
             tensor<?xi32> -> tensor<?x3x3x64xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$query,
                       RankedTensorOf<[F32]>:$keys,
                       RankedTensorOf<[F32]>:$values,
                       RankedTensorOf<[I32]>:$positions,
                       F32Attr:$scale);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $query `,` $keys `,` $values `,` $positions `scale` `(` $scale `)`
    attr-dict `:` type($query) `,` type($keys) `,` type($values) `,`
    type($positions) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Octet_ObserveOp : Octet_Op<"observe", [
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Calibration observer: records statistics of a tensor";
  let description = [{
    Returns its input unchanged. During calibration (`octet-run
    --calibrate=STATS.json`) every execution records the observed tensor's
    min, max, absmax, element count and a histogram of |x| under `name`;
    otherwise the op lowers to nothing. `octet-instrument` inserts observers
    on the activations that feed quantized contractions, and
    `octet-quantize-activations{mode=static}` replaces them with frozen
    quantization parameters computed from the statistics.

    The op is not `Pure` (it records data when calibrating), so it is not
    moved or erased by generic transformations.

    Example:

    ```mlir
    %x1 = octet.observe %x {name = "layer1.input"} : tensor<?x512xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32, F16, BF16]>:$input,
                       StrAttr:$name);
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // OCTET_DIALECT_OCTET_IR_OCTETOPS_TD
