//===- Passes.td - Octet target passes ------------------*- tablegen -*-===//
//
// Target selection: the chip capability table, octet-set-target and
// octet-select-lowering. Each pass: summary, description with an
// `mlir` example, options, dependent dialects.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TARGET_PASSES_TD
#define OCTET_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def OctetSetTarget : Pass<"octet-set-target", "::mlir::ModuleOp"> {
  let summary = "Set the module's deployment target (#octet.target)";
  let description = [{
    Sets the discardable module attribute `octet.target` to
    `#octet.target<"NAME">` for the target named by `target`, replacing any
    previous one. Valid names are the targets of the capability table
    (docs/targets.md): `sm_75`, `sm_80`, `sm_86`, `sm_89`, `sm_90a`,
    `sm_100a`, `sm_120a`; `avx2`, `avx-vnni`, `avx512-vnni`, `avx-vnni-int8`,
    `amx-int8`; `dotprod`, `i8mm`. An unknown name is an error that lists
    them.

    `host` resolves to the most capable CPU level of the running machine:
    the last level of its architecture (table order) whose required LLVM
    CPU features (`llvm::sys::getHostCPUFeatures`) are all present; the CPU
    name (`llvm::sys::getHostCPUName`) is kept in the attribute's `cpu`. A
    remark says which features decided. The environment variable
    `OCTET_HOST_TARGET=NAME` forces the level; `host-arch`, `host-cpu` and
    `host-features` replace what is detected (for tests and
    cross-compilation).

    Example:

    ```mlir
    // octet-opt --octet-set-target=target=sm_89
    module {}
    // becomes
    module attributes {octet.target = #octet.target<"sm_89">} {}
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target name from the capability table, or `host`">,
    Option<"hostArch", "host-arch", "std::string", /*default=*/"\"\"",
           "With target=host: the architecture (x86_64, aarch64) instead of "
           "the running process's">,
    Option<"hostCpu", "host-cpu", "std::string", /*default=*/"\"\"",
           "With target=host: the LLVM CPU name instead of the detected one">,
    Option<"hostFeatures", "host-features", "std::string", /*default=*/"\"\"",
           "With target=host: comma-separated LLVM CPU features that replace "
           "the detected ones (e.g. `avx2,fma,avx512vnni`)">
  ];
  let dependentDialects = ["::mlir::octet::OctetDialect"];
}

def OctetSelectLowering : Pass<"octet-select-lowering", "::mlir::ModuleOp"> {
  let summary = "Annotate every quantized op with the kernel strategy the "
                "target gives it";
  let description = [{
    Reads the module's `#octet.target` (set by `octet-set-target`; its
    absence is an error) and sets `octet.strategy = #octet.strategy<...>` on
    every quantized op, from the capability table:

    - **Contractions**: `octet.matmul` (A and B from `lhs_scheme` and
      `rhs_scheme`; a float lhs is weight-only), and linalg contractions
      (`linalg.matmul`, `linalg.batch_matmul`, and every linalg op or
      `linalg.generic` that is a contraction by
      `linalg::isaContractionOpInterface`; convolutions by
      `linalg::isaConvolutionOpInterface`, which run as implicit GEMMs) with
      at least one input produced directly by `octet.dequantize` (A = first
      input, B = second, formats from the dequantize schemes). `i8`/`u8`/`i4`/`u4`/`f8E4M3FN`/`f8E5M2`
      are looked up as `s8`/`u8`/`s4`/`u4`/`e4m3`/`e5m2`.
      - Both quantized (W8A8): the target's first kernel row that takes
        A x B (`native`, or `compensated` with the note of the correction
        term). 4-bit integer operands without a row are unpacked to 8 bits
        and looked up again. No row: `fallback`: both operands are
        dequantized to the target's float type (f16 on CUDA, f32 on CPUs)
        and a **warning** names the cost, e.g. `FP8 (e4m3 x e4m3) on sm_80:
        dequantized to f16, no tensor-core speedup`, and where the formats
        are native; with `strict` it is an error.
      - One quantized (W8A16, W4A16): `weight_only`. CPUs: the quantized
        operand is converted to the other operand's float type inside the
        kernel and the float row runs. CUDA: the SIMT f32 row, as the
        lowering runs every weight-only product on its gemv kernel (codes
        decoded to f32) whatever the activations' type; no warning.
    - `octet.dequantize` ops whose users are all annotated contractions:
      `fused`.
    - Every other `octet.quantize`, `octet.dequantize`, `octet.requantize`
      and `octet.compute_params`: `elementwise` (CPU: vectorized loops;
      CUDA: an element-wise kernel).

    All contractions share one lookup (`target::selectContraction`): a new
    quantized op only has to say what its A and B formats are.

    Example (sm_80):

    ```mlir
    %a = octet.dequantize %xq scale(%sx : tensor<f32>) as <i8>
           : tensor<16x64xi8> -> tensor<16x64xf32>
    %b = octet.dequantize %wq scale(%sw : tensor<f32>) as <i8>
           : tensor<64x32xi8> -> tensor<64x32xf32>
    %c = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x32xf32>)
           outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
    // %c gets #octet.strategy<kind = native, unit = "mma.sync", a = "s8",
    //   b = "s8", acc = "s32", shape = "m16n8k32",
    //   instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">;
    // both dequantize ops get #octet.strategy<kind = fused, ...>.
    ```
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Make a format the target does not accelerate an error instead "
           "of a warning">
  ];
  let dependentDialects = ["::mlir::octet::OctetDialect"];
}

def OctetPrintCapabilities
    : Pass<"octet-print-capabilities", "::mlir::ModuleOp"> {
  let summary = "Print the chip capability table as markdown";
  let description = [{
    Writes the capability table (the tables of docs/targets.md, which a test
    keeps equal to this output) to stdout: every target, then every kernel
    row: target, A and B formats, accumulator, block scaling, kind, unit,
    shape, instruction, PTX ISA version and note. With `target=NAME`, or
    when the module has an `#octet.target`, only that target's rows. The IR
    is not changed.

    Example:

    ```mlir
    // octet-opt --octet-print-capabilities=target=sm_89 -o /dev/null
    module {}
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Print only this target's rows">
  ];
}

#endif // OCTET_TARGET_PASSES_TD
