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

def OctetQuantizeWeights
    : Pass<"octet-quantize-weights", "::mlir::ModuleOp"> {
  let summary = "Quantize the constant weights of contractions at compile time";
  let description = [{
    Finds contractions whose weight operand is a constant and replaces the
    weight with quantized storage codes, scale (and zero-point) constants and
    an `octet.dequantize` that feeds the contraction (the W8A16 / W4A16 form;
    later passes fold the dequantize into the arithmetic).

    **Contractions**: `linalg.matmul` (also with transposed `indexing_maps`),
    `linalg.batch_matmul`, every other op of the linalg contraction interface
    (`linalg.contract`, `linalg.matvec`, ...), `linalg.generic` ops that are
    contractions (multiply-add bodies with projected-permutation maps) and
    convolutions such as `linalg.conv_2d_nhwc_hwcf` and
    `linalg.conv_2d_nchw_fchw`. The weight is an input whose indexing map is a
    projected permutation that involves a reduction loop and whose value is
    an `arith.constant` (`dense` or `dense_resource`, f32, f16 or bf16),
    reached directly or through `linalg.transpose`, `linalg.broadcast`,
    `tensor.expand_shape` and `tensor.collapse_shape`.

    **Axes** come from the contraction's indexing maps, never from the shape:
    the output channel is the weight dimension that maps to a parallel loop
    that also indexes the result but no other input (N of a matmul's B, F of
    a convolution filter); the reduction dimension is the weight dimension
    that maps to a reduction loop shared with the other input (K, or the
    filter's input channel). Both are followed back through the layout chain
    to the constant, which is quantized in its own layout; the chain is then
    re-applied to the dequantized value. When an axis does not survive the
    chain (e.g. a reshape that merges the channel with another dimension) the
    chain is folded and the weight is quantized in the contraction's layout.

    **Numerics**: statistics, clipping, scales and codes are computed by the
    numerics core (`octet/Runtime/Numerics.h`): the same `symmetricParams`,
    `asymmetricParams`, `quantizeInt` and `quantizeFp8` as
    `octet.compute_params`, `octet.quantize` and the lowered code, so a weight
    quantized here and one quantized at run time with the same scale have
    identical bits. All-zero groups get the guarded scale 1 (codes 0).

    **Clipping** (`clip=`), per parameter group:
    - `absmax`: no clipping (symmetric: max |x|; asymmetric: [min, max]);
    - `minmax`: no clipping, both ends of a signed code range (symmetric
      integer schemes: scale = max(max(x) / qmax, min(x) / qmin), so a
      group whose largest magnitude is negative reaches qmin, -8 for i4,
      with the step absmax / 8 instead of absmax / 7; unsigned, asymmetric
      and FP8 schemes: as absmax);
    - `percentile:P`: symmetric T = P-th percentile of |x|, asymmetric
      [percentile(x, 100 - P), percentile(x, P)] (linear interpolation
      between closest ranks, numpy's default);
    - `mse`: of the thresholds absmax * k / 100 (k = 100 ... 1), the one with
      the smallest sum of squared reconstruction errors (ties keep the larger
      threshold).

    **MXFP8** (`format=mxfp8` or `mxfp8-e5m2`, OCP Microscaling Formats
    v1.0): FP8 E4M3 (E5M2) codes in blocks of `group-size` (default 32,
    the spec's block; always per group: the per-channel default means per
    group here) along the reduction axis, each block with an E8M0
    scale (a power of two; `#octet.scheme<f8E4M3FN, per_group(a, 32),
    e8m0>`): X = 2^(floor(log2(absmax)) - emax), emax 8 for E4M3 and 15 for
    E5M2, elements converted with round-to-nearest-even and saturation (so
    a block's values above 448 X clip; the report's clip ratio shows it).
    `mx-scale=ceil` rounds each scale up instead (the smallest power of
    two with absmax <= 448 X: one binade higher exactly where the OCP rule
    clips; NVIDIA's MXFP8 training recipe makes the same choice).
    Takes `clip=absmax` only (the rule fixes the scale), `algorithm=gptq`
    (the MX grid in the error feedback) and `algorithm=awq` with
    `awq-clip=false`. The scales are `f32` tensors holding the exact powers
    of two, so every lowering runs them as FP8 per-group weights; no x86 or
    Hopper instruction multiplies MX blocks (docs/numerics.md).

    **MXFP4** (`format=mxfp4`, OCP Microscaling Formats v1.0): FP4 E2M1
    codes (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; `f4E2M1FN`
    storage) in blocks of 32 along the reduction axis with E8M0 scales by
    the same rule, emax 2 (`#octet.scheme<f4E2M1FN, per_group(a, 32),
    e8m0>`): a block's values above 6 X clip, `mx-scale=ceil` avoids that.
    `format=f4E2M1FN` is FP4 with f32 scales (absmax / 6, any granularity
    and clip). FP4 weights are weight-only: the activations stay float.

    **NF4** (`format=nf4`, QLoRA's NormalFloat4): `i4` indices into the 16
    NF4 values, symmetric with scale = absmax (any granularity and clip;
    QLoRA's blocks are `granularity=per-group group-size=64`); the code of
    x / scale is the number of bitsandbytes' decision thresholds below it.
    Weight-only.

    **NF4 with double-quantized scales** (`format=nf4-dq`, QLoRA's
    "double quantization"): NF4 in blocks of `group-size` (default 64)
    along the reduction axis whose absmax scales are themselves quantized,
    to E4M3 values times one f32 global scale per weight
    (`#octet.scheme<nf4, per_group(a, 64), e4m3(g)>`, NVFP4's two-level
    rule with NF4's largest magnitude 1 in place of E2M1's 6): g = absmax
    / 448, each block's scale e4m3(absmax_b / g) rounded to nearest even,
    times g. 8 / 64 bits of scale per weight stored instead of 32 / 64
    (4.125 bits per weight and one f32 per tensor; QLoRA's 4.127). QLoRA quantizes the
    scales to 8-bit floats in second-level blocks of 256 after
    subtracting their mean; one global scale per weight (what NVFP4 does)
    keeps every scale an E4M3 value times a constant, which the verifier
    and every lowering read as plain f32 scales (docs/numerics.md). Takes
    `clip=absmax` only and `algorithm=gptq` (not `awq`).

    **NVFP4** (`format=nvfp4`): E2M1 codes in blocks of `group-size`
    (default 16, NVIDIA's block) along the reduction axis, each with an
    E4M3 scale, times one f32 global scale per weight
    (`#octet.scheme<f4E2M1FN, per_group(a, 16), e4m3(g)>`): g = absmax /
    (6 * 448), each block's E4M3 scale e4m3(absmax_b / 6 / g) rounded to
    nearest even (2^-9 where that is 0); the IR's scales are the f32
    products E4M3 * g. Takes `clip=absmax` only and `algorithm=gptq` (not
    `awq`).

    **Block-wise scales** (`granularity=per-group group-size=G
    channel-block=B`, 2-D weights): the weight is split into blocks of B
    output channels x G inputs and each block gets one scale from its
    range (DeepSeek-V3's FP8 weights: `format=f8E4M3FN group-size=128
    channel-block=128`, scale = absmax / 448 per 128 x 128 block). The IR
    keeps the `per_group` scheme and repeats each block's scale over its B
    channels (so every lowering runs it unchanged, at 1/G of an f32 per
    weight); the report's bytes count one scale per block, what a
    serialized model stores. With `octet-quantize-activations
    granularity=per-token-group` the activations get the same groups
    along K and `octet-fold-scales` makes a block-wise `octet.matmul`
    (the `w8a8-fp8-block` recipe). Takes `clip=absmax` / `minmax` and
    `algorithm=rtn` only, not the MX / NVFP4 / NF4-DQ formats.

    **Storage**: codes are `i8` (i8, u8 read as unsigned), `i4` (i4, u4) or
    FP8 tensors; scales `f32`, zero points `i32`. Constants held in
    `dense_resource` blobs are read in place (never copied into a uniqued
    `DenseElementsAttr`) and their 8-bit codes are written as new
    `dense_resource` blobs (4-bit codes, scales and zero points, which are at
    most half the size, are `dense`: MLIR's LLVM translation has no `i4`
    `dense_resource` support); `dense` inputs give `dense` results. In IR an
    `i4` tensor holds one
    code per byte (MLIR's element layout, which the bufferized and LLVM code
    also uses); sizes in the report count 4-bit codes packed two per byte,
    low nibble first (the numerics core's `packNibbles`), and E8M0 / E4M3
    scales one byte each (plus NVFP4's / NF4-DQ's f32 global scale), i.e.
    what a
    serialized model stores.

    **Skipped** (with a remark when `remarks` is set, and listed in the
    report): layers whose name matches `skip`, contractions or weight
    constants carrying a unit `octet.skip` attribute, layers named `lm_head`
    or `output` (the final vocabulary projection, as Hugging Face and GGUF
    name it, unless `skip-lm-head=false`) and weights
    with fewer than `min-elements` elements. A layer's name is the first
    `NameLoc` of the contraction's location, else of the weight constant's,
    else `file:line:col`. A contraction without a constant weight is left
    alone with a remark.

    **Errors**: a NaN or infinite weight element is an error naming the layer
    and the first bad index (`nonfinite=clip` makes it a warning: such
    elements are left out of the statistics and errors, NaN quantizes to the
    zero point and +-inf saturates); a group size that does not divide the
    reduction dimension is an error.

    **Report** (`report=FILE.json`): per layer the name, contraction, shape,
    format, scheme, clip method and thresholds, SQNR in dB
    (10 log10(sum x^2 / sum (x - xhat)^2) over the weight, `null` when the
    reconstruction is exact), max abs error, bytes before and after and a
    histogram of |x - xhat| / scale; skipped layers with their reason; a
    summary with total bytes before/after and min/median SQNR. With
    `remarks=true` the same per-layer lines and summary are MLIR remarks.

    Statistics, clipping and quantization run in parallel over groups and
    element chunks on the context's thread pool (`--mlir-disable-threading`
    makes them serial; the results do not depend on it). When stderr is a
    terminal, a long run prints its progress there.

    **GPTQ** (`algorithm=gptq stats=FILE damp=D`, Frantar et al., "GPTQ:
    Accurate Post-Training Quantization for Generative Pre-trained
    Transformers", 2022): for a 2-D weight W (output channels x K inputs)
    and its layer's calibration inputs X (rows of K values), the Hessian is
    H = sum x x^T (`octet-run --calibrate --second-moment`; the paper's 2 X
    X^T up to a factor that cancels), inputs that were always zero get
    H_ii = 1 and a zero weight column, and D times the mean of diag(H) is
    added to the diagonal. U is the upper Cholesky factor of H^-1 (computed
    as the reversed inverse of the Cholesky factor of H reversed, in f64).
    Each output channel is then quantized input by input: w_k is rounded to
    its code with the group's scale (per-group: computed from the current,
    already corrected values of the group when the group starts, with the
    configured clip method; per-channel and per-tensor: from the original
    weight), and the rounding error e = (w_k - dequantized) / U_kk is fed
    back into the inputs not yet quantized, w_j -= e U_kj (j > k). Rows are
    independent: they are processed in tiles of 8 sharing each row of U
    (the paper's lazy batch updates serve the same purpose on a GPU), in
    parallel, in f64; the result does not depend on the number of threads.
    The codes are the numerics core's codes of the corrected values (FP8,
    INT8 and INT4 grids alike), so the output is ordinary quantized weights.
    The statistics come from a module instrumented with
    `octet-instrument{all=true}`: the activation operand of each contraction
    must be an `octet.observe` whose entry has a `second_moment` of size K
    (the activation's reduction dimension must be its last); every
    `octet.observe` is removed afterwards. 2-D weights only (matmuls and
    their transposed forms); the report's SQNR is against the original
    weight. `nonfinite=clip` is refused with gptq.

    `act-order=true` quantizes the inputs in descending order of diag(H)
    (stable: ties in index order), with H permuted to match before it is
    factored; the codes stay in the weight's own layout (nothing to undo at
    run time). Per-group scales are then computed from the original weight
    before the loop (static groups), since a group's inputs are no longer
    quantized together.

    **AWQ** (`algorithm=awq stats=FILE awq-grid=N awq-clip=B`, Lin et al.,
    "AWQ: Activation-aware Weight Quantization for LLM Compression and
    Acceleration", 2023): the contractions that read one observed
    activation X (q, k and v; gate and up) form a group. For alpha in 0,
    1/N, ..., (N-1)/N the scales s_j = max(mean|X_j|, 1e-4)^alpha, divided
    by sqrt(max(s) min(s)) and rounded to f32, are scored by the error the
    quantized, rescaled weights cause in the layers' outputs over the
    calibration rows: the sum over the group's weights and output channels
    of d^T H d, d = Q(W diag(s)) / s - W, H = sum x x^T (every
    ceil(N_out / 128)-th output channel is scored; f64, a fixed order).
    The first minimum wins (alpha = 0 is round to nearest); W becomes the
    f32 products W diag(s) and 1/s is folded into the op before X (a norm's
    weight, or SwiGLU's up projection; see octet-smooth-quant), so the
    model keeps its shape. Then every weight is rounded to nearest; with
    `awq-clip=true` each group's range (per group) or each output channel's
    (per channel) is first clipped to the ratio (1, 0.95, ..., 0.55, AWQ's
    grid) that minimizes its d^T H_b d over its block of the scaled input's
    second moment (per channel: all of it). The statistics need `channels` (`octet-run --channel-stats`)
    and `second_moment` entries; groups whose activation cannot absorb a
    scale (no norm or producer to fold into, e.g. an attention output) are
    left unscaled, and with `awq-clip=true` their weights still get the
    clip search, on the unscaled input's second moment (`clip_only` in the
    report; llm-awq clips every linear layer too); the report lists each group's alpha, error
    curve and scales (`awq`). The report's SQNR is against the scaled
    weight.

    **AWQ then GPTQ** (`algorithm=awq-gptq`, with the options of both): AWQ
    searches and folds its scales as above, then GPTQ rounds the scaled
    weights with its error feedback, on the second moment of the scaled
    input, H_ij / (s_i s_j) (factored once per group; unit scales for the
    groups AWQ leaves unscaled). With `awq-clip=true` the grid is the clip
    search's: each group's (or channel's) range is chosen first, on the
    scaled weight, and stays fixed (static groups, as with act-order);
    with `awq-clip=false` it is GPTQ's own. `act-order` and `damp` apply.
    The weights of contractions that are in no AWQ group get plain GPTQ.

    Example (`format=i8 granularity=per-channel`):

    ```mlir
    %w = arith.constant dense<...> : tensor<256x512xf32>
    %y = linalg.matmul ins(%x, %w : tensor<32x256xf32>, tensor<256x512xf32>)
                       outs(%o : tensor<32x512xf32>) -> tensor<32x512xf32>
    ```

    becomes

    ```mlir
    %q = arith.constant dense<...> : tensor<256x512xi8>
    %s = arith.constant dense<...> : tensor<512xf32>
    %w = octet.dequantize %q scale(%s : tensor<512xf32>) as <i8, per_axis(1)>
           : tensor<256x512xi8> -> tensor<256x512xf32>
    %y = linalg.matmul ins(%x, %w : tensor<32x256xf32>, tensor<256x512xf32>)
                       outs(%o : tensor<32x512xf32>) -> tensor<32x512xf32>
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"i8\"",
           "Storage format: i8, u8, i4, u4, f8E4M3FN, f8E5M2, iN / uN for "
           "N in 2..7 (N-bit codes: the ranges [-2^(N-1), 2^(N-1) - 1] / "
           "[0, 2^N - 1] of i4 / u4 up to 4 bits, of i8 / u8 above; i3 is "
           "[-4, 3] stored as 4 bits, i5 [-16, 15] stored as 8), mxfp8 / "
           "mxfp8-e5m2 (OCP MXFP8: FP8 per group of 32 with E8M0 scales), "
           "f4E2M1FN (FP4 E2M1 with f32 scales), nf4 (QLoRA NormalFloat4, "
           "scale = absmax), mxfp4 (OCP MXFP4: E2M1 "
           "per group of 32 with E8M0 scales), nvfp4 (E2M1 per group of 16 "
           "with E4M3 scales times a per-tensor f32 scale), nf4-dq (NF4 per "
           "group of 64 with double-quantized scales: E4M3 times a "
           "per-tensor f32 scale), or auto (from "
           "the module's #octet.target and `recipe`)">,
    Option<"mxScale", "mx-scale", "std::string", /*default=*/"\"ocp\"",
           "format=mxfp8 / mxfp4: the E8M0 scale rule, ocp (the spec's "
           "2^(floor(log2(absmax)) - emax); a block whose absmax mantissa is "
           "above 1.75 clips its top values) or ceil (the smallest power of "
           "two that clips nothing)">,
    Option<"recipe", "recipe", "std::string", /*default=*/"\"w8a16\"",
           "format=auto: the recipe the format is chosen for (w8a16, w8a8, "
           "w4a16, fp8)">,
    Option<"granularity", "granularity", "std::string",
           /*default=*/"\"per-channel\"",
           "per-tensor, per-channel (per output channel, from the indexing "
           "maps) or per-group (groups of group-size along the reduction "
           "dimension, one scale row per output channel)">,
    Option<"groupSize", "group-size", "int64_t", /*default=*/"128",
           "Elements per group along the reduction dimension (per-group); "
           "must divide that dimension">,
    Option<"channelBlock", "channel-block", "int64_t", /*default=*/"0",
           "per-group, 2-D weights: output channels that share each group's "
           "scale (channel-block x group-size blocks, DeepSeek-V3's 128 x "
           "128; 0: one scale row per output channel); clip=absmax or "
           "minmax, algorithm=rtn">,
    Option<"symmetric", "symmetric", "bool", /*default=*/"true",
           "Symmetric (zero point 0) or asymmetric (i32 zero points); FP8 is "
           "always symmetric; u8 and u4 default to asymmetric">,
    Option<"clip", "clip", "std::string", /*default=*/"\"absmax\"",
           "Clip threshold: absmax, minmax (symmetric integers: both ends "
           "of the code range), percentile:P (0 < P <= 100) or mse">,
    Option<"skip", "skip", "std::string", /*default=*/"\"\"",
           "Skip layers whose name matches this regular expression "
           "(llvm::Regex, unanchored)">,
    Option<"skipLmHead", "skip-lm-head", "bool", /*default=*/"true",
           "Skip the final vocabulary projection (a layer named lm_head, "
           "alone or as the last component of a dotted/slashed name, or "
           "named output as in GGUF)">,
    Option<"minElements", "min-elements", "int64_t", /*default=*/"0",
           "Skip weights with fewer elements">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write a per-layer JSON report to this file ('-' for stdout)">,
    Option<"nonfinite", "nonfinite", "std::string", /*default=*/"\"error\"",
           "NaN/Inf weight elements: error (fail, naming the layer and the "
           "first bad index) or clip (warn; NaN to the zero point, +-inf "
           "saturate)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per quantized or skipped layer and a summary remark">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"rtn\"",
           "rtn (round to nearest), gptq (error feedback through the "
           "inverse Hessian of each layer's calibration inputs), awq "
           "(per-input-channel scales searched on the calibration "
           "statistics, folded into the previous op) or awq-gptq (AWQ's "
           "scales and clip ranges, then GPTQ's rounding); all but rtn need "
           "stats=">,
    Option<"stats", "stats", "std::string", /*default=*/"\"\"",
           "algorithm=gptq|awq|awq-gptq: calibration statistics written by "
           "octet-run --calibrate=FILE --second-moment (awq, awq-gptq: and "
           "--channel-stats) on a "
           "module instrumented with octet-instrument{all=true}">,
    Option<"awqGrid", "awq-grid", "int64_t", /*default=*/"20",
           "algorithm=awq|awq-gptq: alphas tried, 0, 1/N, ..., (N-1)/N (1 <= N <= "
           "1000)">,
    Option<"awqClip", "awq-clip", "bool", /*default=*/"true",
           "algorithm=awq|awq-gptq, per-group or per-channel: each group's (or "
           "output channel's) range clipped to the ratio (1, 0.95, ..., "
           "0.55) that minimizes its output error on the calibration "
           "statistics (AWQ's clip search; also for the layers whose scales "
           "cannot be folded)">,
    Option<"damp", "damp", "double", /*default=*/"0.01",
           "algorithm=gptq|awq-gptq: dampening added to the Hessian's diagonal, as a "
           "fraction of its mean (0 < damp <= 1)">,
    Option<"actOrder", "act-order", "bool", /*default=*/"false",
           "algorithm=gptq|awq-gptq: quantize the inputs in descending order of their "
           "second moment (per-group scales then come from the original "
           "weight: static groups)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::octet::OctetDialect"
  ];
}

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
      `octet.matmul`: the weight scale moves out of the reduction loop. If
      `x` turns out to be a dequantize too (once a dequantize has been moved
      below a reshape or transpose), its codes and parameters replace it as
      above.
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

def OctetFuseSiblingMatmuls : Pass<"octet-fuse-sibling-matmuls"> {
  let summary = "One octet.matmul for the constant-weight matmuls that share "
                "their input (Q/K/V, gate/up)";
  let description = [{
    A transformer block multiplies one activation by several weights: the
    query, key and value projections, the gate and up projections of a
    SwiGLU MLP. Each is its own kernel call, and at decode (one token) each
    is a GEMV of a few hundred columns: a thread-pool dispatch and a column
    split that two threads cannot balance (SmolLM2's K and V have 192
    columns). This pass merges `octet.matmul` ops of one block that share
    the lhs (and its scale, zero point and scheme) and have constant
    weights of the same K, storage type and scheme (per output channel or
    per group along K) into one, whose weights, scales, zero points and
    bias are the members' concatenated along N; each member's result is
    a `tensor.extract_slice` of the merged one.

    Every output column is computed exactly as before (the kernels sum
    each column on its own, in the same order): results are bit-identical.
    The weights are read once per call instead of once per member, and the
    merged GEMV's columns split evenly over the threads.

    Members must have the same `relu` and discardable attributes, no
    output quantization (`out_scale`), constant (`arith.constant`) rhs
    stored K x N or N x K behind `linalg.transpose` [1, 0] (the importers'
    `[out, in]` weights), all the same way, and constant scales. Runs
    first in `octet-lower-to-host`.

    Example:

    ```mlir
    %q = octet.matmul %x, %wq rhs_scale(%sq : tensor<576xf32>) ...
           : tensor<?x576xf32>, tensor<576x576xi8> -> tensor<?x576xf32>
    %k = octet.matmul %x, %wk rhs_scale(%sk : tensor<192xf32>) ...
           : tensor<?x576xf32>, tensor<576x192xi8> -> tensor<?x192xf32>
    ```

    becomes one `octet.matmul` to `tensor<?x768xf32>` and two slices.
  }];
  let dependentDialects = [
    "::mlir::octet::OctetDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def OctetSmoothQuant : Pass<"octet-smooth-quant", "::mlir::ModuleOp"> {
  let summary = "SmoothQuant: move activation outliers into the weights";
  let description = [{
    SmoothQuant (Xiao et al., "SmoothQuant: Accurate and Efficient
    Post-Training Quantization for Large Language Models", 2023) divides
    each input channel j of an activation X by s_j and multiplies the same
    input channel of the weights that read X by s_j, so that X W^T is
    unchanged in exact arithmetic while X's outlier channels shrink before
    W8A8 quantization:

        s_j = max|X_j|^alpha / max|W_j|^(1 - alpha)

    with max|X_j| from the calibration statistics (`octet-run
    --calibrate=FILE --channel-stats` on a module instrumented with
    `octet-instrument{all=true}`) and max|W_j| over every weight that reads
    X. Following the paper's code, max|W_j| and s_j are clamped below at
    1e-5; a channel that was always zero keeps s_j = 1. s is rounded to
    f32; each weight element becomes the f32 product w * s_j and the 1/s_j
    is folded into the op before X (so the model keeps its shape and its
    cost): a `linalg.generic` that ends in a multiplication by a 1-D
    constant along the channels (RMSNorm's or LayerNorm's weight: g_j / s_j)
    or by the result of a matmul with a constant weight and a zero init
    (SwiGLU's up projection: its output channel j divided by s_j). The
    contractions reading one activation (q, k and v; gate and up) share one
    s. Activations with another user, or without such a producer, are left
    alone (a remark with `remarks=true`; the report lists them). f32
    weights only. Every `octet.observe` is removed; then instrument and
    calibrate again for static activation scales, or quantize with dynamic
    ones (the recipes `w8a8-smoothquant` do this).

    The report (`report=FILE`) lists each group: its layers, the fold, and
    the scales.
  }];
  let options = [
    Option<"stats", "stats", "std::string", /*default=*/"\"\"",
           "Calibration statistics with per-channel absmax (octet-run "
           "--calibrate=FILE --channel-stats on a module instrumented with "
           "octet-instrument{all=true})">,
    Option<"alpha", "alpha", "double", /*default=*/"0.5",
           "Migration strength in [0, 1]: 0 leaves the activations alone, "
           "1 moves all of their range into the weights">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the groups, their folds and scales as JSON to this file "
           "('-' for stdout)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per smoothed or skipped group">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def OctetInstrument : Pass<"octet-instrument"> {
  let summary = "Insert calibration observers on activations";
  let description = [{
    Inserts an `octet.observe` on the float activation (lhs) of every
    contraction whose weight is quantized (its rhs comes from
    `octet.dequantize`, e.g. after `octet-quantize-weights`). Each observer
    is named after the contraction's location (`fc1.input` for a contraction
    at `loc("fc1")`) or `act<N>`. Then `octet-run --calibrate=STATS.json`
    records statistics and `octet-quantize-activations{mode=static}` freezes
    the parameters.

    Example: `linalg.matmul ins(%x, %w ...) loc("fc1")` with `%w` dequantized
    gets `%x0 = octet.observe %x {name = "fc1.input"}` as its lhs.
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "Observe the lhs of every contraction, not only those with "
           "quantized weights">
  ];
  let dependentDialects = ["::mlir::octet::OctetDialect"];
}

def OctetQuantizeActivations : Pass<"octet-quantize-activations"> {
  let summary = "Quantize the activations of quantized contractions";
  let description = [{
    For every contraction whose weight is quantized (rhs from
    `octet.dequantize`) and whose lhs is a float activation, inserts
    `octet.quantize` + `octet.dequantize` on the lhs; `octet-fold-scales`
    then turns the contraction into a W8A8 `octet.matmul`.

    - `mode=dynamic`: parameters are computed at run time by
      `octet.compute_params`, per token (one scale per row: `per_axis` on the
      row dimension, or `per_group` over all of K for batched operands),
      per token and weight group (`granularity=per-token-group`: the lhs
      `per_group` along K with the group size of a weight quantized per
      group along K, so that `octet-fold-scales` makes a block-wise
      `octet.matmul`; DeepSeek-V3's 1 x 128 FP8 activation groups; a weight
      without groups along K gets per-token scales and a remark) or per
      tensor. `format=mxfp8` (E4M3) / `mxfp8-e5m2` / `mxfp4` (E2M1)
      quantizes to OCP MX: per token and block of 32 along K, each block's
      E8M0 scale `2^(floor(log2(absmax)) - emax)` computed at run time (the
      weight must be FP8 or FP4 in blocks of 32 along K, e.g.
      `octet-quantize-weights format=mxfp8` or `mxfp4`: W8A8, W4A8 or W4A4
      MX; otherwise the activation stays float with a remark).
    - `format=nvfp4` (with `mode=static`): NVFP4 activations, E2M1 per
      token and block of 16 along K, each block's E4M3 scale computed at
      run time by `octet.compute_params` (`e4m3((absmax / 6) / g)`) times a
      per-tensor global scale `g = absmax / (6 * 448)` of the calibrated
      absmax in `stats=FILE.json` (compressed-tensors' and NVIDIA's NVFP4
      activations: static global scale, dynamic block scales). The weight
      must be FP4 in blocks of 16 along K (`octet-quantize-weights
      format=nvfp4`): W4A4 NVFP4; other observed activations stay float
      with a remark.
    - `mode=static`: every `octet.observe` (see `octet-instrument`) is
      replaced by a quantize/dequantize pair with frozen per-tensor
      parameters computed from `stats=FILE.json` (written by `octet-run
      --calibrate`) with `method=minmax` (the observed range),
      `percentile:P` (the P-th percentile of |x|) or `mse` (the clip
      threshold minimizing the histogram-estimated squared error). A missing
      entry is an error naming the tensor. `remarks=true` reports the chosen
      threshold and the estimated SQNR per tensor.

    The activation format must be in the weight's family (integer with
    integer, FP8 / FP4 with FP8 / FP4; NF4 weights stay weight-only);
    otherwise the activation stays float with a remark.

    Example (dynamic, i8 per token):

    ```mlir
    %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<?x512xf32> -> tensor<?xf32>
    %q = octet.quantize %x scale(%s : tensor<?xf32>) as <i8, per_axis(0)> : ...
    %d = octet.dequantize %q scale(%s : tensor<?xf32>) as <i8, per_axis(0)> : ...
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"dynamic\"",
           "dynamic (run-time per-token parameters) or static (calibrated)">,
    Option<"format", "format", "std::string", /*default=*/"\"i8\"",
           "Activation format: i8, u8, i4, u4, f8E4M3FN, f8E5M2, mxfp8 / "
           "mxfp8-e5m2 / mxfp4 (OCP MXFP8 / MXFP4: dynamic E8M0 scales per "
           "token and block of 32 along K, for FP8 or FP4 weights in blocks "
           "of 32), nvfp4 (mode=static: E4M3 block scales per token and "
           "16 along K computed at run time, a calibrated global scale; for "
           "NVFP4 weights), or auto (from the module's #octet.target and "
           "`recipe`)">,
    Option<"recipe", "recipe", "std::string", /*default=*/"\"w8a8\"",
           "format=auto: the recipe the format is chosen for (w8a8, fp8)">,
    Option<"symmetric", "symmetric", "bool", /*default=*/"true",
           "Symmetric (zero point 0) or asymmetric (integer formats)">,
    Option<"granularity", "granularity", "std::string",
           /*default=*/"\"per-token\"",
           "Dynamic mode: per-token, per-token-group (one scale per token "
           "and group of the weight's per-group scales along K: "
           "DeepSeek-V3's 1 x 128 FP8 activations) or per-tensor">,
    Option<"stats", "stats", "std::string", /*default=*/"\"\"",
           "Static mode: calibration statistics (octet-run --calibrate)">,
    Option<"method", "method", "std::string", /*default=*/"\"minmax\"",
           "Static mode: minmax, percentile:P or mse">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Static mode: report the clip threshold and estimated SQNR">
  ];
  let dependentDialects = [
    "::mlir::octet::OctetDialect",
    "::mlir::arith::ArithDialect"
  ];
}

#endif // OCTET_TRANSFORMS_PASSES_TD
