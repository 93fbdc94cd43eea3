//===- OctetTargetAttrs.td - Target and strategy attributes -*- tablegen -*-===//
//
// The deployment target of a module (#octet.target) and the kernel strategy
// octet-select-lowering chose for a quantized op (#octet.strategy). What a
// target can do is not stored here: it is the capability table
// (include/octet/Target/CapabilityTable.def, docs/targets.md).
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETTARGETATTRS_TD
#define OCTET_DIALECT_OCTET_IR_OCTETTARGETATTRS_TD

include "octet/Dialect/Octet/IR/OctetBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Octet_TargetAttr : Octet_Attr<"Target", "target"> {
  let summary = "The chip a module is compiled for";
  let description = [{
    Names one target of the capability table (docs/targets.md): a CUDA
    architecture (`sm_75`, `sm_80`, `sm_86`, `sm_89`, `sm_90a`, `sm_100a`,
    `sm_120a`), an x86 level (`avx2`, `avx-vnni`, `avx512-vnni`,
    `avx-vnni-int8`, `amx-int8`) or an AArch64 level (`dotprod`, `i8mm`).
    `cpu` is the LLVM CPU name when the level was resolved from the running
    machine (`octet-set-target{target=host}`); later CPU code generation can
    use it as `-mcpu`.

    It is set on the module as the discardable attribute `octet.target` by
    `octet-set-target` and read by `format=auto` resolution and
    `octet-select-lowering`. An unknown name is an error that lists the
    valid ones.

    Example:

    ```mlir
    module attributes {octet.target = #octet.target<"sm_90a">} {}
    module attributes {octet.target = #octet.target<"avx512-vnni", cpu = "znver4">} {}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"target name from the capability table">:$name,
    StringRefParameter<"LLVM CPU name of a resolved host", [{""}]>:$cpu
  );
  let assemblyFormat = "`<` $name (`,` `cpu` `=` $cpu^)? `>`";
  let genVerifyDecl = 1;
}

def Octet_StrategyKind : I32EnumAttr<"StrategyKind",
    "how a quantized op runs on the target", [
      I32EnumAttrCase<"native", 0>,
      I32EnumAttrCase<"compensated", 1>,
      I32EnumAttrCase<"weight_only", 2>,
      I32EnumAttrCase<"fallback", 3>,
      I32EnumAttrCase<"fused", 4>,
      I32EnumAttrCase<"elementwise", 5>
    ]> {
  let cppNamespace = "::mlir::octet";
  let genSpecializedAttr = 0;
}

def Octet_KernelUnit : I32EnumAttr<"KernelUnit",
    "the execution unit that runs a kernel", [
      I32EnumAttrCase<"none", 0, "">,
      // NVIDIA.
      I32EnumAttrCase<"mma_sync", 1, "mma.sync">,
      I32EnumAttrCase<"wgmma", 2, "wgmma">,
      I32EnumAttrCase<"tcgen05_mma", 3, "tcgen05.mma">,
      I32EnumAttrCase<"simt", 4, "SIMT">,
      I32EnumAttrCase<"cuda_elementwise", 5, "CUDA elementwise">,
      // x86.
      I32EnumAttrCase<"amx", 6, "AMX">,
      I32EnumAttrCase<"avx512_vnni", 7, "AVX512-VNNI">,
      I32EnumAttrCase<"avx_vnni", 8, "AVX-VNNI">,
      I32EnumAttrCase<"avx_vnni_int8", 9, "AVX-VNNI-INT8">,
      I32EnumAttrCase<"avx2", 10, "AVX2">,
      I32EnumAttrCase<"fma", 11, "FMA">,
      I32EnumAttrCase<"avx512_fma", 12, "AVX-512 FMA">,
      // AArch64.
      I32EnumAttrCase<"neon_dotprod", 13, "NEON dotprod">,
      I32EnumAttrCase<"neon_i8mm", 14, "NEON i8mm">,
      I32EnumAttrCase<"neon_fma", 15, "NEON FMA">,
      // Any CPU: vectorized loops of the portable lowering.
      I32EnumAttrCase<"vector", 16, "vector">,
      // x86, after `vector` to keep the numbering.
      I32EnumAttrCase<"avx512_bf16", 17, "AVX512-BF16">
    ]> {
  let cppNamespace = "::mlir::octet";
  let genSpecializedAttr = 0;
}

/// A KernelUnit written as its quoted spelling (`unit = "AVX512-VNNI"`):
/// several spellings are not MLIR keywords. Empty (`none`) is omitted.
def Octet_KernelUnitParameter : EnumParameter<Octet_KernelUnit> {
  let printer = [{$_printer << '"' << ::mlir::octet::stringifyKernelUnit($_self) << '"'}];
  let defaultValue = "::mlir::octet::KernelUnit::none";
}

def Octet_StrategyAttr : Octet_Attr<"Strategy", "strategy"> {
  let summary = "The kernel strategy chosen for a quantized op";
  let description = [{
    Set by `octet-select-lowering` as the discardable attribute
    `octet.strategy` on every quantized op; the target lowerings read it.
    The fields come from one row of the capability table:

    - `kind`:
      - `native`: a unit of the chip takes the operand formats as they are
        (e.g. `mma.sync` s8 x s8, AMX `tdpbssd`);
      - `compensated`: the unit takes them after a 128 offset of one operand
        and an exact correction term (`note` says which), e.g. VNNI
        `vpdpbusd` for s8 x s8;
      - `weight_only`: one operand is float; the quantized one is converted
        to the float type inside the kernel and the float unit runs
        (W8A16, W4A16);
      - `fallback`: no unit of the chip takes the formats; both operands are
        dequantized and the float unit runs: the format saves memory but
        gives no arithmetic speedup (a warning says so; an error with
        `strict`);
      - `fused`: an `octet.dequantize` whose only users are annotated
        contractions; it runs inside their kernels;
      - `elementwise`: a standalone quantize/dequantize/requantize or
        parameter computation (vectorized CPU loops, a CUDA element-wise
        kernel).
    - `unit`: the execution unit (`mma.sync`, `wgmma`, `tcgen05.mma`, `AMX`,
      `AVX512-VNNI`, `NEON i8mm`, `FMA`, `SIMT`, ...).
    - `a`, `b`, `acc`: the formats the unit sees (PTX spellings: `s8`, `u8`,
      `s4`, `u4`, `e4m3`, `e5m2`, `f16`, `bf16`, `f32`; `s32`/`f32`
      accumulators).
    - `shape`: m x n x k of one instruction; `instruction`: the
      instruction; `note`: what else the lowering must do.

    Empty fields are omitted.

    Example:

    ```mlir
    %c = linalg.matmul {octet.strategy = #octet.strategy<kind = native,
           unit = "mma.sync", a = "s8", b = "s8", acc = "s32",
           shape = "m16n8k32",
           instruction = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32">}
           ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>)
           outs(%init : tensor<16x32xf32>) -> tensor<16x32xf32>
    ```
  }];
  let parameters = (ins
    EnumParameter<Octet_StrategyKind>:$kind,
    Octet_KernelUnitParameter:$unit,
    StringRefParameter<"format of operand A", [{""}]>:$a,
    StringRefParameter<"format of operand B", [{""}]>:$b,
    StringRefParameter<"accumulator", [{""}]>:$acc,
    StringRefParameter<"shape of one instruction", [{""}]>:$shape,
    StringRefParameter<"instruction", [{""}]>:$instruction,
    StringRefParameter<"what else the lowering does", [{""}]>:$note
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // OCTET_DIALECT_OCTET_IR_OCTETTARGETATTRS_TD
