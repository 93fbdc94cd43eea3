//===- Passes.td - Octet conversion passes -----------------*- tablegen -*-===//

#ifndef OCTET_CONVERSION_PASSES_TD
#define OCTET_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOctetToLinalg : Pass<"convert-octet-to-linalg"> {
  let summary = "Lower octet quantize/dequantize/requantize (and matmul, "
                "compute_params, attention) to linalg";
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

    `octet.attention` becomes seven `linalg.generic` ops (scores over the
    head dimension, mask and scale, row max, exp, row sum, division, the
    weighted sum of the values), separate multiplies and adds in index
    order, the `S x N` scores materialized: the portable and GPU form of
    the op (`convert-octet-to-cpu` calls the runtime's kernel instead).

    Also, for the bufferization and the LLVM lowering that follow:
    `tensor.bitcast` (which One-Shot Bufferize cannot take) of a constant
    becomes the constant of the new type with the same bytes (FP8 weights
    stored as i8), any other becomes the element-wise `arith.bitcast`;
    `arith.extf` of an FP8 / FP4 constant to f32 becomes the f32 constant
    (`numerics::decodeFp8`, exact, signaling NaNs included); any other
    `arith.extf` from or `arith.truncf` to an FP8 / FP4 type is an error at
    the op (the host lowering has no arithmetic on FP8-typed values; octet
    ops work on their codes).

    Example:

    ```mlir
    %q = octet.quantize %x scale(%s : tensor<f32>) #octet.scheme<i8>
           : tensor<6xf32> -> tensor<6xi8>
    ```

    becomes a `linalg.generic` whose body divides, rounds with
    `math.roundeven`, clamps to [-128, 127] and converts.

    It also rewrites every rank-0 or sub-byte (`i4`) `dense_resource`
    constant (a scalar weight or code, 4-bit codes, as importers write them)
    as a `dense` one with the same bytes: upstream `finalize-memref-to-llvm`
    reads a rank-0 global's value as a splat, which a resource blob cannot
    give (MLIR 22 aborts on it), and has no conversion for an `i4` resource
    global.
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

def OctetStoreFp8AsI8 : Pass<"octet-store-fp8-as-i8", "::mlir::ModuleOp"> {
  let summary = "Keep FP8 codes in i8 tensors (the same bytes) for consumers "
                "without FP8 constants";
  let description = [{
    After `--convert-octet-to-linalg`, FP8 values are only stored and
    moved: every computation on them goes through `arith.bitcast` to `i8`
    and integer arithmetic on the bits (docs/numerics.md). This pass gives
    every FP8 element type (`f8E4M3FN`, `f8E5M2`, ...) in tensor and memref
    types, block arguments, function signatures and constants the type `i8`,
    keeping the bytes, and removes the bitcasts that become `i8 -> i8`. The
    numbers do not change.

    It exists for consumers that cannot hold FP8 constants: IREE 3.13's
    `iree-compile` stops with "unhandled float element bit width 8" when it
    serializes a `dense_resource` of `f8E4M3FN` weights
    (docs/ecosystem.md). A function argument or result of FP8 type becomes
    `i8`: pass and read the codes as bytes.

    An op that computes on FP8 values (anything but `arith.bitcast`,
    `arith.constant`, `arith.select` and ops that only move or hold values:
    `linalg.generic` bodies, `linalg.yield`, tensor and memref ops,
    `func.*`, `scf.*`) is an error at the op, and nothing is rewritten.

    Example:

    ```mlir
    %w = arith.constant dense_resource<w> : tensor<4x8xf8E4M3FN>
    ... ^bb0(%in: f8E4M3FN, ...): %b = arith.bitcast %in : f8E4M3FN to i8
    ```

    becomes

    ```mlir
    %w = arith.constant dense_resource<w> : tensor<4x8xi8>
    ... ^bb0(%in: i8, ...): (uses of %b use %in)
    ```
  }];
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
    `octet.requantize`, `octet.compute_params` and `octet.matmul` (the
    fused form `octet-quantize` and `octet-fold-scales` produce: export the
    module before them, as `octet.dequantize` + linalg), block-scaled
    formats (MXFP8, MXFP4, NVFP4: FP8 / FP4 storage), NF4 (a table, not an
    affine map), and parameters that the
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

def OctetMonitorRanges : Pass<"octet-monitor-ranges", "::mlir::ModuleOp"> {
  let summary = "Count the values each static quantizer clips, at run time";
  let description = [{
    Range monitoring (off unless asked for: `octet-compile --monitor`,
    `octet-run --monitor=FILE.json`, `octet-lower-to-host{monitor=true}`).
    Before every `octet.quantize` whose scale (and zero point) are constants
    and whose input is not, i.e. every quantizer with calibrated static
    parameters, it inserts

    ```mlir
    func.call @octet_monitor_quantize(%x, %name, %scale, %zp, %qmin, %qmax, %format)
        : (tensor<*xf32>, tensor<*xi8>, f32, i32, i32, i32, i32) -> ()
    ```

    which the runtime implements (`OctetRuntime.h`): per quantizer name, the
    count of values whose unclamped code `roundHalfEven(x / scale) + zp` lies
    below `qmin` or above `qmax` (FP8: that overflow the format), NaN and
    infinite inputs, and the largest finite |x|, read through
    `octet_monitor_get` / `octet_monitor_write_json`. The name is the op's
    location name (`octet-quantize-activations` names each quantizer after
    its observer, e.g. `fc.input`), else its file:line:column, else
    `quantize.N`. Dynamic quantizers (parameters computed from the data)
    cannot clip and are left alone; static per-axis or per-group activation
    quantizers are not monitored (a remark says so with `remarks=true`).
    Without this pass the compiled code has no monitoring at all.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", "false",
           "A remark at each quantizer that is monitored or left out, with why">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertOctetToCPU : Pass<"convert-octet-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower octet.matmul to generated x86 GEMM/GEMV kernels "
                "and octet.attention to the runtime's kernel";
  let description = [{
    Replaces every `octet.matmul` that a generated kernel covers by a call
    of a task function through the runtime's thread pool
    (`octet_parallel_for`); the rest is left for `convert-octet-to-linalg`,
    which handles every `octet.matmul` (a remark with `remarks=true` says
    why an op was left).

    Every `octet.attention` becomes one call of the runtime's
    `octet_cpu_attention_f32` (causal grouped-query attention in one pass
    per query row over the keys it sees, no `S x N` score tensor; AVX-512,
    AVX2 + FMA or scalar by the CPU; its operands read in place through
    their strides, so a KV cache's slices are not copied).

    Kernels (docs/cpu-performance.md):

    - `avx2`: i8/u8 x i8/u8 with exact i32 sums. Operands are widened to s16
      (activations when packed, minus their zero point; weights in the
      kernel with `vpmovsxbw`) and multiplied with `vpmaddwd`, which cannot
      overflow, instead of `vpmaddubsw`, which saturates its s16 pair sums.
      6 x 16 register tile, cache blocks of 72 rows x 256 columns x 512 k.
    - `avx512-vnni`: `vpdpbusd` (u8 x s8, no saturation) on zmm; s8
      activations are shifted by +128 when packed and
      `(128 + za) * colsum(B)` (column sums computed at compile time) is
      subtracted in the epilogue. 8 x 32 register tile.
    - `amx-int8`: `tdpbssd` on 2 x 2 tiles of 16 x 16 i32 (s8 x s8); the
      lhs zero point through the column sums.
    - weight-only (f32 lhs, i8/u8 weights, optional weight zero point, any
      M): the codes are converted to f32 on the fly and summed in k order
      per column, exactly as the portable lowering does. M < 6: a decode
      GEMV streaming one column strip per thread; M >= 6: a 6 x 16
      register-tiled kernel. Weights stored N x K behind `linalg.transpose`
      of a constant are transposed at compile time. Constant i4/u4 weights
      are packed two per byte at compile time; per-group scales along K
      (groups of a multiple of 8 rows dividing K) are applied group by
      group in the reference lowering's order.
    - FP8 (e4m3/e5m2 x e4m3/e5m2, or f32 x FP8 weights): x86 has no FP8
      arithmetic, so the codes are decoded to f32 (the numerics contract's
      decode) while the operands are packed and the f32 loop nests run:
      the dequantize fallback, bit-identical to the portable lowering.
    - f32 (`float-kernels`, on by default): the float contractions the
      quantization left in the model, `linalg.matmul` and
      `linalg.batch_matmul` on f32 tensors with a rhs read as K x N or
      N x K (transposed maps, e.g. attention's Q K^T) and a zero-filled
      init, run the weight-only loop nests with an f32 rhs: k in order with
      a separate multiply and add, so the results equal the portable
      lowering's bit for bit. A constant N x K rhs is transposed at
      compile time, any other per task into the thread's scratch.

    Integer kernels need constant weights (rank 2, static K x N), which are
    packed at compile time into the kernel's layout; activations are packed
    at run time. The epilogue (compensation, `float(acc) * (sa * sb)`,
    bias, ReLU, optional requantize to i8/u8) is applied to the registers
    before the only store of the result. Per-tensor or per-row lhs
    parameters, per-tensor or per-column rhs and output parameters.

    Per-token dynamic quantization is fused into the activation packing:
    when the lhs is an `octet.quantize` (used by nothing else) of a 2-D f32
    tensor whose parameters `octet.compute_params` computes from that same
    tensor, per row (`per_axis(0)`, 8-bit integer scheme, symmetric or
    asymmetric), and the matmul takes them, one call of
    `octet_cpu_quantize_pack_lhs` reads each f32 row once, computes its
    parameters and writes its codes straight into the packed layout (AMX:
    into the tiles) with the row scales and zero points beside them; the
    quantize and compute_params ops are erased. Bit for bit what the three
    steps give one after another.

    The kernel family is the one the op's `#octet.strategy` names
    (`octet-select-lowering`): its unit (`AMX`, `AVX512-VNNI`, `AVX2` and
    the VNNI levels that run the AVX2 kernels; `FMA` for weight-only and
    the FP8 fallback). An op without a strategy gets the one
    `octet-select-lowering`'s policy gives on the module's `#octet.target`,
    else on the running host (`OCTET_HOST_TARGET` overrides it). `isa`
    other than `auto` selects every op's strategy again for that x86 level,
    or with `none` leaves every op to `convert-octet-to-linalg`. Where a
    strategy names a unit the generated kernels cover only in part (AMX
    here is `tdpbssd`, s8 x s8), the op runs on the next kernel family
    that takes its formats (VNNI, then AVX2). Threads:
    `OCTET_NUM_THREADS` (default: all cores). `cpu` names the CPU the
    kernels are tuned for (default: the module target's `cpu`, else the
    running host's, with `isa=auto`): on AMD Zen (`znver*`) the decode
    kernel prefetches its weight panels into L1 instead of L2.

    Example:

    ```mlir
    %y = octet.matmul %xq, %wq lhs_scale(%sx : tensor<?xf32>)
           lhs_scheme <i8, per_axis(0)>
           rhs_scale(%sw : tensor<64xf32>) rhs_scheme <i8, per_axis(1)>
           bias(%b : tensor<64xf32>) relu
           : tensor<?x128xi8>, tensor<128x64xi8> -> tensor<?x64xf32>
    ```

    becomes a call of `octet_cpu_pack_lhs`, a constant with the packed
    weights and `func.call @octet_parallel_for(%tiles, %task, %ctx)` where
    `%task` is the generated `@__octet_cpu_avx2_s8s8_...` function.
  }];
  let options = [
    Option<"kernelIsa", "isa", "::mlir::octet::CpuKernelIsa",
           /*default=*/"::mlir::octet::CpuKernelIsa::automatic",
           "Kernel family: the op's strategy (auto), the strategy for one "
           "x86 level, or none",
           [{::llvm::cl::values(
             clEnumValN(::mlir::octet::CpuKernelIsa::automatic, "auto",
                        "the op's #octet.strategy (else the policy on the "
                        "module's target or the running host)"),
             clEnumValN(::mlir::octet::CpuKernelIsa::avx2, "avx2",
                        "strategies for the avx2 level"),
             clEnumValN(::mlir::octet::CpuKernelIsa::avx512_vnni,
                        "avx512-vnni", "strategies for the avx512-vnni level"),
             clEnumValN(::mlir::octet::CpuKernelIsa::avx512_bf16,
                        "avx512-bf16", "strategies for the avx512-bf16 level"),
             clEnumValN(::mlir::octet::CpuKernelIsa::amx_int8, "amx-int8",
                        "strategies for the amx-int8 level"),
             clEnumValN(::mlir::octet::CpuKernelIsa::none, "none",
                        "leave every op to convert-octet-to-linalg"))}]>,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark on each octet.matmul left to the portable "
           "lowering, with the reason">,
    Option<"tuneCpu", "cpu", "std::string", /*default=*/"\"\"",
           "LLVM CPU name the kernels are tuned for (znver*: weight panels "
           "prefetched into L1); default with isa=auto: the module "
           "#octet.target's cpu, else the running host's">,
    Option<"floatKernels", "float-kernels", "bool", /*default=*/"true",
           "Also lower f32 linalg.matmul / linalg.batch_matmul (zero-filled "
           "init) to the generated f32 kernels">,
    Option<"fuseDynamicQuantize", "fuse-dynamic-quantize", "bool",
           /*default=*/"true",
           "Fuse per-token dynamic quantization (compute_params + quantize "
           "of the lhs) into the activation packing "
           "(octet_cpu_quantize_pack_lhs); false keeps the three steps "
           "(the same bits, for comparisons)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def OctetOutlineForCuda : Pass<"octet-outline-for-cuda", "::mlir::ModuleOp"> {
  let summary = "Outline octet ops into CUDA launch stubs (first half of the "
                "CUDA lowering)";
  let description = [{
    The tensor-level half of the CUDA lowering (docs/cuda.md). Every
    `octet.quantize`, `octet.dequantize`, `octet.requantize`,
    `octet.compute_params` and `octet.matmul` becomes a `func.call` of a
    private, bodiless launch stub `@octet_cuda_<op>_<n>` whose attributes
    describe the op (`octet.cuda.op`, the role of each argument in
    `octet.cuda.roles`, the schemes in `octet.cuda.schemes`, for matmuls the
    kernel in `octet.cuda.kernel` and `octet.cuda.relu`); its arguments are
    marked `bufferization.access = "read"`. `octet.observe` becomes its
    input. `octet.attention` has no device kernel yet: it becomes its linalg
    form (as in `convert-octet-to-linalg`), which runs on the host. After
    bufferization, `convert-octet-to-gpu` gives the stubs their bodies.

    The matmul kernel follows the module's `#octet.target` (required, a
    CUDA target) and the capability table: `wgmma` on sm_90a, `tcgen05` on
    sm_100a (s8/u8, e4m3/e5m2 and MXFP8), `mma_sync` (mma.sync.m16n8k32)
    where the table has that shape (s8/u8 from sm_80, e4m3/e5m2 from sm_89;
    on sm_120a also MXFP8, MXFP8 x MXFP4, MXFP4 and NVFP4 through the
    block-scaled mma.sync forms, on sm_100a the same four through the
    block-scaled tcgen05.mma kinds), `gemv` for weight-only products (float lhs,
    8-bit rhs, per-tensor or per-channel scales), and the `simt` kernel for
    everything else (batches, per-group rhs scales, 4-bit codes, formats
    without a tensor-core row). A remark says when the kernel is not the
    table's unit (e.g. batched or per-group-scaled quantized matmuls: the
    simt kernel is used). Constant weights of the tensor-core kernels are stored
    transposed (N x K, role `rhs_nk`), with their column sums (role
    `colsum`) when the lhs has a zero point.

    Example:

    ```mlir
    // module attributes {octet.target = #octet.target<"sm_90a">}
    %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?xf32>)
           lhs_scheme <f8E4M3FN, per_axis(0)>
           rhs_scale(%sw : tensor<256xf32>) rhs_scheme <f8E4M3FN, per_axis(1)>
           : tensor<?x512xf8E4M3FN>, tensor<512x256xf8E4M3FN> -> tensor<?x256xbf16>
    // becomes
    %y = call @octet_cuda_matmul_0(%x, %w, %sx, %sw) : (...) -> tensor<?x256xbf16>
    // with func.func private @octet_cuda_matmul_0(...)
    //   attributes {octet.cuda.kernel = "wgmma", octet.cuda.op = "matmul", ...}
    ```

    Activations stay on the device between octet ops: every stub result is
    a device tensor (encoding `1 : i64`, the memref memory space after
    bufferization); an argument that is neither a constant (constants are
    uploaded once and kept, `octet.cuda.resident`) nor a stub's result is
    copied to the device once, by a call of an `upload` stub after its
    definition; a result that a host op uses (a float op between octet
    ops, the function's return) is copied back once, by a `download` stub
    after the producing stub. A model made only of octet ops copies its
    inputs and outputs and nothing else. `host-activations=true` restores
    the per-op copies (every stub takes and returns host tensors).

    Each public function `@f` also gets `@f_device` (`device-entries`,
    default on): the same code whose tensor arguments and results are
    device tensors, without the uploads of its arguments and the downloads
    of its results; it calls the same stubs (shared kernels and resident
    weights). A host op in it that reads an argument gets a download; a
    result a host op made is uploaded.
  }];
  let options = [
    Option<"hostActivations", "host-activations", "bool", /*default=*/"false",
           "Copy every stub's activations to the device and back per op "
           "instead of keeping them on the device between octet ops">,
    Option<"deviceEntries", "device-entries", "bool", /*default=*/"true",
           "Add `<f>_device` for each public function `f`: its tensor "
           "arguments and results in device memory (no copies at the edges)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    // octet.attention's linalg form.
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertOctetToGPU : Pass<"convert-octet-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Build the CUDA kernels and the host code of the launch "
                "stubs (second half of the CUDA lowering)";
  let description = [{
    Runs after bufferization (the stubs' signatures are identity-layout
    memrefs) and buffer deallocation, which does not accept gpu dialect
    ops. Each launch stub left by `octet-outline-for-cuda` gets a
    stream-ordered body: its inputs on the device (arguments in memory
    space 1 are device buffers and used as they are; constants listed in
    `octet.cuda.resident` are uploaded by the first call and kept; other
    host arguments get `gpu.alloc` and `gpu.memcpy`), helper kernels (B
    transposed to N x K for the tensor-core kernels; row and column sums of
    the codes for zero points), the `gpu.launch_func`, the result (a
    memory-space-1 result is the device buffer itself; a host result is
    copied into a new host buffer), `gpu.dealloc` of the temporaries and,
    if anything was copied to the host, `gpu.wait`. `upload` and
    `download` stubs copy one buffer between host memory and memory space
    1. In the other functions, `memref.dealloc` of a memory-space-1 buffer
    becomes a stream-ordered `gpu.dealloc`, `memref.alloc` of one
    `gpu.alloc` and `memref.copy` from or to one `gpu.memcpy` (waiting only
    for a copy to the host); any other host op that reads or writes one is
    an error.

    The kernels go into `gpu.module @octet_kernels` with the NVVM target of
    the module's `#octet.target` (chip = the target name, PTX ISA at least
    8.4 from sm_89), written with arith, scf, LLVM and NVVM ops; identical
    kernels are shared. Their arithmetic is the CPU lowering's
    (ScalarNumerics.h), op for op, including the fused matmul epilogue:

    - `mma_sync`: 128x128 block tiles, 8 warps, `mma.sync.m16n8k32` (s8/u8
      through `nvvm.mma.sync`; e4m3/e5m2 through inline PTX), operands
      staged by 16-byte `cp.async` into a 3-stage shared-memory ring;
    - `wgmma` (sm_90a): two warpgroups of `wgmma.mma_async.m64nNk32`
      (`nvvm.wgmma.mma_async`; s8/u8 -> s32, e4m3/e5m2 -> f32) on
      128-byte-swizzled shared memory, a `wgmma-stages`-deep cp.async ring;
    - `tcgen05` (sm_100a): 128x128 tiles of `tcgen05.mma.cta_group::1`
      (kind::i8, kind::f8f6f4, kind::mxf8f6f4.block_scale) issued by one
      thread, accumulators (and MXFP8's scale factors) in tensor memory,
      completion through an mbarrier, `tcgen05.ld` into the epilogue;
    - `gemv`: weight-only decode products, 16-byte weight loads, K split
      over blocks and reduced deterministically;
    - `simt`: one thread per output, sums in the CPU's order (bit-exact).

    Kernel parameters are generic pointers and i64 sizes (docs/cuda.md);
    `manifest=FILE` writes one line per kernel (name, kind, block, shared
    memory, tile) for programs that launch them directly (bench/gpu).

    Example: after `octet-outline-for-cuda` and bufferization,

    ```mlir
    func.func private @octet_cuda_quantize_0(memref<?xf32>, memref<f32>)
        -> memref<?xi8> attributes {octet.cuda.op = "quantize", ...}
    ```

    gets a body with `gpu.alloc`, `gpu.memcpy` and
    `gpu.launch_func @octet_kernels::@octet_elementwise_0`.
  }];
  let options = [
    Option<"manifest", "manifest", "std::string", /*default=*/"\"\"",
           "Write the kernel manifest to this file">,
    Option<"wgmmaTileN", "wgmma-tile-n", "int64_t", /*default=*/"128",
           "N of the wgmma block tile and instruction (128 or 256)">,
    Option<"wgmmaStages", "wgmma-stages", "int64_t", /*default=*/"4",
           "Shared-memory stages of the wgmma kernel (at least 3)">,
    Option<"gemvRows", "gemv-rows", "int64_t", /*default=*/"4",
           "Rows of the lhs one gemv block handles (1 to 8)">,
    Option<"wgmmaWeightOnlyRows", "wgmma-weight-only-rows", "int64_t",
           /*default=*/"64",
           "sm_90a: weight-only matmuls with at least this many rows (M, at "
           "run time) run on the wgmma tensor cores (bf16 weights, "
           "activations split into exact bf16 parts) instead of the gemv; "
           "0 turns it off">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def OctetEmitCpuKernels : Pass<"octet-emit-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Emit the bodies of the CPU kernels declared by convert-octet-to-cpu";
  let description = [{
    `convert-octet-to-cpu` declares each task function it calls with an
    `octet.cpu_kernel` dictionary describing the kernel (instruction set,
    operand formats, epilogue); this pass generates their bodies: the
    cache-blocked loop nest (`scf.for`), the register-tile microkernel and
    the fused epilogue, with LLVM-dialect loads, stores and x86 intrinsics
    (`llvm.x86.avx2.pmadd.wd`, `llvm.x86.avx512.vpdpbusd.512`, the AMX
    `tileloadd64`/`tdpbssd`/`tilestored64` internals). It runs after
    bufferization and buffer deallocation in `octet-lower-to-host`, since
    those do not look into intrinsic calls.

    Example:

    ```mlir
    func.func private @__octet_cpu_avx2_s8s8_sas_sbv_zan_zbn(
        !llvm.ptr, i64, i64) attributes {octet.cpu_kernel = {isa = 0 : i64,
        weight_only = 0 : i64, lhs_unsigned = 0 : i64, rhs_unsigned = 0 : i64,
        sa = 1 : i64, sb = 2 : i64, za = 0 : i64, zb = 0 : i64, os = 0 : i64,
        oz = 0 : i64, bias = 0 : i64, relu = 0 : i64}}
    ```

    gets the body of the AVX2 kernel with a per-tensor lhs scale and
    per-column rhs scales.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def OctetParallelizeLoops : Pass<"octet-parallelize-loops",
                                 "::mlir::ModuleOp"> {
  let summary = "Run the outer parallel loops of bufferized linalg ops on "
                "the runtime thread pool";
  let description = [{
    The contractions run in the generated kernels (`convert-octet-to-cpu`);
    everything else left as linalg ops on buffers (LayerNorm, softmax, GELU,
    the dynamic per-token quantize, transposes, ...) would run on one core.
    This pass splits each such op with at least `min-work` units of work
    (iterations times payload ops; checked at run time when a loop range is
    dynamic) over `octet_parallel_for`:

    - the split loops are a prefix d0 .. dP-1 of the op's parallel loops,
      the shortest with at least `min-tasks` iterations in all (or up to
      the first dynamic one); every output must index each of them by a
      plain dimension, so tasks write disjoint parts;
    - a task function `(ctx, begin, end)` loads the buffers' pointers from
      a block of i64 slots and calls a body function that takes them as
      `llvm.noalias` arguments (every buffer no other operand shares, or
      shares only for reading) and rebuilds the operands' descriptors from
      the remaining slots, takes `memref.subview` slices of its part of the
      prefix and runs a clone of the op on them (`linalg.index` of a split
      loop gets the slice offset added); with the aliasing known, LLVM
      vectorizes the copies of a transpose (a `memcpy` per row) and
      element-wise loops it left scalar before;
    - the op becomes `func.call @octet_parallel_for(%tasks, %task, %ctx)`.

    Reductions stay inside one task and each element is computed by the
    same payload in the same order, so the results are bit-identical to the
    serial loops. A task of a reduction accumulates into a buffer of its
    own (`memref.alloc`, copied from and back to its slice of the outputs),
    which LLVM knows no input aliases, so the running value stays in a
    register (and, for `llvm.intr.maxnum` / `minnum` after
    `octet-lower-num-min-max`, is vectorized) instead of a load and a store
    per element. Ops are left serial when their payload has memory effects
    or regions, when an input aliases an output through a different
    indexing map, when an output does not index a split loop, or when an
    operand is not a default-memory-space memref or an integer, index or
    float scalar. Threads: `OCTET_NUM_THREADS` (default: all cores).

    Groups: consecutive ops of a block (with only allocations,
    deallocations and ops without memory effects between them) whose
    prefixes have the same static ranges share one task function when
    every buffer one of them writes is accessed by all of them through the
    same view, indexing each split loop by the same dimension (row-local:
    what a member reads of another's output is the slice its task has
    just written). A task then runs its slice through all the members in
    turn: LayerNorm's residual add, statistics and normalization, or
    softmax's scale and mask, max, exp, sum and division, read their rows
    from the L1/L2 cache instead of one pass over the whole tensor per op,
    and wake the pool once. When the prefix is one loop, a task runs
    `chunk-bytes` worth of rows (a multiple of 16) through all members
    before the next chunk. A `memref.copy` of a whole contiguous buffer
    between group members (a reduction's initial value) joins the group
    as `linalg.copy`; deallocations between members move after the call.
    Every element still gets the same payload in the same order, so the
    results stay bit-identical.

    First, a `memref.copy` between non-contiguous views (what a
    `tensor.insert_slice` into a buffer, e.g. a KV cache, bufferizes to)
    becomes `linalg.copy`: otherwise it would lower to a call of the C runner
    utilities' `memrefCopy`, which compiled libraries do not link; as a
    linalg op it becomes loops and, when large, parallel tasks.

    Runs in `octet-lower-to-host` after bufferization, before
    `convert-linalg-to-loops`.

    Example:

    ```mlir
    linalg.generic {indexing_maps = [#id, #id],
                    iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<1024x384xf32>) outs(%y : memref<1024x384xf32>) {...}
    ```

    becomes a call of `octet_parallel_for` over 1024 rows with a task
    function `@__octet_parallel_0` that runs the generic on
    `memref.subview %x[%begin, 0] [%end - %begin, 384] [1, 1]`.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Least iterations x payload ops of an op worth waking the "
           "thread pool for">,
    Option<"minTasks", "min-tasks", "int64_t", /*default=*/"64",
           "Split leading parallel loops until there are this many tasks">,
    Option<"chunkBytes", "chunk-bytes", "int64_t", /*default=*/"65536",
           "Groups of ops split over one loop run chunks of rows through "
           "all their ops, as many rows as touch about this many bytes "
           "(at least 16); 0: no groups, each op a task function of its "
           "own">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def OctetIntoEntries : Pass<"octet-into-entries", "::mlir::ModuleOp"> {
  let summary = "Give each public function an `_into` entry that writes its "
                "results into buffers the caller allocated";
  let description = [{
    A compiled function returns its results in buffers it allocates
    (`malloc`; the caller frees them). A framework that owns its memory, or
    a serving loop that calls the same function again and again, wants the
    results written where it says instead: a fresh 64 MB result costs
    16,384 page faults per call (glibc maps every allocation above 32 MB
    anew), 12% of a 4096 x 4096 x 4096 INT8 GEMM. For every public
    function `@f` of a bufferized module whose results are all ranked
    memrefs with the identity layout, this pass adds

    ```mlir
    func.func @f_into(%out0: memref<..., strided<[?, ...], offset: ?>>, ...,
                      %arg0: ..., ...) -> i32
    ```

    (the result buffers first, then `@f`'s arguments; `llvm.emit_c_interface`
    when `@f` has it), which returns 0 after writing the results into
    `%out0`, ..., or 1 after printing what did not fit to stderr
    (`octet_into_mismatch` in the runtime) when a buffer's sizes are not
    the result's, its strides are not row-major (dimensions of size 1
    excepted) or its offset is not 0.

    A result that is a `memref.alloc` of the function's body whose sizes
    are computed from the arguments by operations without memory effects
    (a dynamic batch dimension read from an input, say) is not allocated
    at all: the buffer is checked before anything runs and the operations
    that wrote the allocation write the caller's buffer, so the call does
    exactly the work of `@f` in memory it does not own. When every result
    is such an allocation, `@f` itself becomes a wrapper that allocates
    them and calls `@f_into` (no second copy of the body). Other results
    (a constant, a view) are computed as in `@f`, checked, copied into the
    caller's buffer and freed.

    `octet-lower-to-host{into-entries=true}` runs it after bufferization;
    `octet-compile --into-entries` declares the entries in the library's
    header (README, "Fast CPU kernels and octet-compile"). Fails, naming
    the function, when a function `@f_into` already exists or `@f` has
    several blocks.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def OctetLowerNumMinMax : Pass<"octet-lower-num-min-max"> {
  let summary = "arith.maxnumf / minnumf to llvm.intr.maxnum / minnum";
  let description = [{
    `arith-expand` turns `arith.maxnumf` / `arith.minnumf` (the
    NaN-ignoring maximum and minimum: the absmax and min / max statistics of
    dynamic quantization, the clamps of quantize) into a compare and two
    selects, which LLVM does not recognize as a reduction: the per-token
    absmax of W8A8 dynamic ran as a scalar dependency chain of ~4 cycles
    per element. This pass, which `octet-lower-to-host` runs before
    `arith-expand`, rewrites them on floats (scalars and vectors) as
    `llvm.intr.maxnum` / `llvm.intr.minnum`: the same IEEE maxNum / minNum
    (a NaN operand yields the other operand), which the loop vectorizer
    vectorizes as a reduction and x86 codegen lowers to `vmaxps` /
    `vminps` with a NaN fix-up. The one freedom LLVM's intrinsics take is
    the sign of a zero result when the operands are +0.0 and -0.0; every
    use in octet either compares non-negative values (absmax) or feeds a
    rounding to integer codes, where the two zeros give the same code.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def OctetExpandExp : Pass<"octet-expand-exp"> {
  let summary = "math.exp on f32 (f16, bf16) as octet's own exp: <= 1 ulp, "
                "the same bits on every CPU, vectorizable";
  let description = [{
    `convert-math-to-llvm` turns `math.exp` into `llvm.intr.exp`, which the
    backend emits as a call of the C library's `expf` per element: the
    loops around it (softmax, SiLU's sigmoid) stay scalar, the results
    depend on the host's libm, and glibc's `expf` takes a slow error path
    (`__math_uflowf`, errno) for every argument below -103.97, which masked
    attention logits hit all the time (7.6% of MiniLM W8A8 dynamic's time
    was `expf` plus that path). This pass, which `octet-lower-to-host` runs
    before the conversion to LLVM, replaces `math.exp` on f32 (scalars and
    vectors; f16 and bf16 through f32) by arith / math operations: a
    clamp, a Cody-Waite reduction by ln2 with FMAs, a degree-7 polynomial
    and a scaling by 2^k as two exact power-of-two factors (at the clamp's
    lower end, where every result is +0, a select instead of the product:
    multiplications that underflow run at microcode speed on AMD Zen, and
    masked attention logits are all there). Error at most
    1 ulp (0.988 measured over every f32 input against f64 `exp`; subnormal
    results in ulps of 2^-149); +inf above ln(FLT_MAX), +0 below
    ln(2^-150), NaN for NaN, exactly 1 for 0. The same operations on every
    x86 level (explicit FMAs: no contraction choice left to the backend),
    so the results no longer depend on the host's libm. Code inside a
    `gpu.module` keeps the GPU's exp.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect"
  ];
}

def OctetVectorizeRows : Pass<"octet-vectorize-rows"> {
  let summary = "Row reductions with one row per vector lane, element-wise "
                "f32 rows as vector loops (bit-identical)";
  let description = [{
    Two rewrites of `linalg.generic` ops on buffers whose bodies are
    element-wise `arith` / `math` on scalars, each computing every element
    with the same operations in the same order as the scalar loops.

    **Row reductions.** A `linalg.generic` whose last loop is its only reduction
    and whose output is indexed by the other loops in order (LayerNorm's
    sum and sum of squares, softmax's max and sum, the per-token absmax)
    lowers to one dependent chain of scalar operations per row: a float
    sum then runs at one element per add latency (MiniLM's LayerNorm
    statistics were 8% of its W8A8 dynamic time). This pass, which
    `octet-lower-to-host` runs after `octet-parallelize-loops`, rewrites
    such an op, when its body is element-wise `arith` / `math` on scalars,
    its output is f32 and at least one input is indexed by every loop with
    a contiguous last dimension, into loops over groups of `lanes` rows
    (the last parallel loop), one row per vector lane: squares of `lanes`
    rows by `lanes` elements are loaded and transposed in registers, and
    the body runs once per element on vectors, the output's running value
    carried in a vector. Inputs indexed by the rows alone are loaded once
    per group, inputs indexed by the reduction alone are broadcast. The
    rows left over (fewer than `lanes`) run the original op on that slice,
    and the last K mod `lanes` elements of each group are gathered.

    Each lane performs the scalar loop's operations for its row in the
    same order, so results are bit-identical (float sums keep their order;
    see docs/numerics.md).

    **Element-wise rows.** An op with only parallel loops and an f32
    output with the identity map whose last dimension is contiguous and a
    static multiple of `lanes` (softmax's exp and divide, the attention
    mask, GELU, residual adds) becomes loops over its leading dimensions
    and a loop of step `lanes` along the last: inputs indexed by the last
    loop (last, contiguous, 32-bit elements) are loaded as vectors, the
    others one value per vector and broadcast (they must not share the
    output's buffer). LLVM otherwise fully unrolls short rows (softmax's
    32 keys) and vectorizes across rows with gathers and scatters.

    Ops that do not match are left alone. Example:

    ```
    octet-opt in.mlir --octet-vectorize-rows=lanes=16
    ```
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "Rows per vector (a power of two from 2 to 64; 16 fills a zmm "
           "register with f32, two ymm on AVX2)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def OctetEmulateCuda : Pass<"octet-emulate-cuda", "::mlir::ModuleOp"> {
  let summary = "Run the CUDA kernels of convert-octet-to-gpu on the CPU "
                "(for testing without a GPU)";
  let description = [{
    Rewrites the output of `convert-octet-to-gpu` into host code that runs
    the same kernels on the CPU through the emulator of liboctet_runtime
    (runtime/lib/CudaEmulator.cpp, docs/cuda.md): each kernel of
    `gpu.module @octet_kernels` becomes a `func.func` whose NVVM operations
    are calls of the emulator (special registers, barriers, `cp.async`,
    `mma.sync` including its inline-PTX FP8 form, `wgmma.mma_async`
    through its shared-memory descriptors with 128-byte swizzling, `shfl`,
    `prmt`), with a trampoline for `octet_emu_launch`, which runs every
    thread of a block as a host thread; `gpu.launch_func`, `gpu.alloc`,
    `gpu.memcpy`, `gpu.memset`, `gpu.dealloc` and `gpu.wait` become that
    launch and memref operations on host memory. `octet-compile
    --emulate-gpu` builds libraries this way; the numerics suite of
    scripts/gpu-check then runs the kernels' code in CI.

    The emulation checks indexing, fragment layouts, descriptors, staging
    and reductions; it does not model asynchronous proxies, timing, or the
    tensor cores' internal FP8 accumulation order.

    Example:

    ```mlir
    %t = gpu.launch_func async [%t0] @octet_kernels::@octet_elementwise_0
           blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
           dynamic_shared_memory_size %c0_i32 args(%x : !llvm.ptr, ...)
    // becomes
    call @octet_emu_launch(%tramp, %g64, %c1_i64, %c1_i64, %c256_i64, ...)
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // OCTET_CONVERSION_PASSES_TD
