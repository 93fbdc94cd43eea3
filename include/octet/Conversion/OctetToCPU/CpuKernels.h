//===- CpuKernels.h - Generated CPU GEMM kernels ----------------*- C++ -*-===//
//
// The kernels convert-octet-to-cpu generates for octet.matmul: a
// description of one kernel (GemmConfig: instruction set, operand formats,
// epilogue) and the builder of its task function. The task function runs
// tiles [lo, hi) of the GEMM and is what the runtime's octet_parallel_for
// calls; everything it reads comes from a context block of i64 slots
// (CtxSlot) filled by the call site.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_CONVERSION_OCTETTOCPU_CPUKERNELS_H
#define OCTET_CONVERSION_OCTETTOCPU_CPUKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "octet/Dialect/Octet/IR/Octet.h"

#include <optional>
#include <string>

namespace mlir {
namespace octet {
namespace cpu {

/// Instruction set of a generated kernel.
enum class Isa {
  avx2,    ///< Exact s16 pairs: vpmovsxbw + vpmaddwd + vpaddd (ymm).
  vnni512, ///< AVX-512 VNNI vpdpbusd (zmm), A + 128 with compensation.
  amx,     ///< AMX-INT8 tdpbssd tiles.
  fma,     ///< Weight-only / f32: vfmadd231ps ymm (AVX2 + FMA).
  fma512,  ///< Weight-only / f32: vfmadd231ps zmm (AVX-512F).
  dpbf16,  ///< FP8 x FP8: fma512's loop nests, with the tiles (M >= MR) of
           ///< bf16 pairs and vdpbf16ps zmm (AVX512-BF16; values exact).
  amxBf16  ///< FP8 x FP8 with constant weights: fma512's decode kernel for
           ///< M < MR; from MR rows the AMX-BF16 tiles (tdpbf16ps) on the
           ///< lhs converted to bf16 tiles at the call site and the weights'
           ///< panels converted per column strip of a task.
};

/// How a parameter varies: absent, one value, or one per row (lhs) or per
/// column (rhs, output).
enum class Param { none, scalar, vector };

/// Everything that distinguishes two generated kernels.
/// The decode kernel's panel prefetch distance unless the CPU has its own
/// (MatmulPlan's panelPrefetchBytes).
constexpr int64_t kDefaultPanelPrefetchBytes = 8192;

struct GemmConfig {
  Isa isa = Isa::avx2;
  bool weightOnly = false;
  bool lhsUnsigned = false, rhsUnsigned = false;
  Param sa = Param::none, sb = Param::scalar, za = Param::none,
        zb = Param::none, os = Param::none, oz = Param::none;
  bool bias = false, relu = false;
  /// f32 x f32 (a float linalg.matmul / batch_matmul): the weight-only
  /// loop nests with an f32 rhs and no scales. `rhsTransposed`: the rhs is
  /// N x K in memory (transposed per task into the scratch). `batched`:
  /// tasks run over [batch][tiles] with per-batch strides.
  bool floatRhs = false, rhsTransposed = false, batched = false;
  /// Weight-only: rhs scales per group of `group` rows of K (0: per column
  /// or per tensor); `rhsNibbles`: 4-bit codes packed two per byte at
  /// compile time in the order the kernels read them (panelColumns below).
  int64_t group = 0;
  bool rhsNibbles = false;
  /// Constant rhs codes (8-bit, or 4-bit: `rhsNibbles`) packed at compile
  /// time in panels of panelColumns() columns, each panel's K rows
  /// contiguous, for the decode kernel to stream (emitPanelDecode).
  bool rhsPanels = false;
  /// The decode kernel requests its panels' lines ahead into L1
  /// (prefetcht0) instead of L2 (prefetcht1): for AMD Zen CPUs
  /// (planMatmul's `cpu`).
  bool panelPrefetchL1 = false;
  /// How far ahead (bytes of panel rows) the decode kernel requests its
  /// panels' lines and their group scales (`rhsPanels` only; planMatmul's
  /// `cpu`: panelPrefetchBytes()).
  int64_t panelPrefetchBytes = kDefaultPanelPrefetchBytes;
  /// Panel codes with constant per-group scales: the scales repacked at
  /// compile time in the codes' panels, [panel][group][8 w] f32 (N padded
  /// with zeros), so that a panel's scales are one stream too.
  bool scalePanels = false;
  /// The nibbles are FP4 (E2M1) codes or NF4 indices, decoded by a table
  /// permute (vpermps) instead of an integer conversion.
  bool rhsFp4 = false, rhsNf4 = false;
  /// Float-coded operands of the f32 loop nests (decoded per the numerics
  /// contract): the format of an FP8 or FP4 lhs (f8E4M3FN / f8E5M2 /
  /// f4E2M1FN, one code per byte: W8A8 FP8, MX W8A8 / W4A8 / W4A4) and of
  /// FP8 rhs codes (FP4 rhs codes are nibbles: rhsFp4); none otherwise.
  std::optional<StorageFormat> lhsFp8, rhsFp8;
  /// The E4M3 rhs is a constant without NaN codes (checked at compile
  /// time): its decode skips the NaN select.
  bool rhsNoNan = false;
  /// Block-wise FP8 (MatmulOp::hasGroupedLhs, with `group`): the lhs scale
  /// is one per row and group of K (sa[m][k / group]), multiplied into the
  /// decoded lhs value; `sa` is none (no lhs scale in the epilogue).
  bool lhsGroupScale = false;
  /// Requantized output scheme (null: f32 output).
  SchemeAttr outScheme;

  // Register tile (rows x nv vectors of w 32-bit lanes), k per lane, and
  // cache blocking (in rows, columns, k).
  // The integer and AMX tiles run the whole K in one pass (KC = 0).
  int64_t mr = 6, nv = 2, w = 8, kp = 2, mc = 72, nc = 256, kc = 512;
  /// Integer tiles (AVX2, VNNI): the MC x NC tiles run in groups of row
  /// tiles whose packed activations (MC x K each) fill this many bytes
  /// (at least one row tile), each group's rows before its next column of
  /// tiles.
  int64_t tileGroupBytes = 2 << 20;
  /// Column width of a packed rhs panel (nv * w except for AMX: 16).
  int64_t packNr = 16;
  /// K padding of the packed operands.
  int64_t kAlign = 2;

  int64_t nr() const { return nv * w; }
  /// Packed rhs (`rhsPanels`): panels of panelColumns() = 8 w columns (N
  /// padded with zero codes to a multiple), each panel's K rows contiguous,
  /// so that the decode kernel streams one panel after the other. A row of
  /// a panel is its 8 w codes in column order (8-bit codes: 8 w bytes) or,
  /// for 4-bit codes (`rhsNibbles`), w 32-bit words: nibble j (bits 4 j ..
  /// 4 j + 3) of word i holds column j w + i, so vector j of the row is its
  /// words shifted right by 4 j (then masked, or indexed into a value table
  /// by vpermps, which reads only the low bits): one load per row and no
  /// byte shuffle.
  int64_t panelColumns() const { return 8 * w; }
  /// Bytes of one row of a panel.
  int64_t panelRowBytes() const { return rhsNibbles ? 4 * w : 8 * w; }
  /// A unique symbol name for the task function.
  std::string getName() const;
};

/// Slots of the context block (i64 each; pointers as integers).
enum CtxSlot : int64_t {
  kA = 0, ///< packed lhs (integer) or the f32 lhs (weight-only)
  kB,     ///< packed rhs (integer) or the K x N rhs codes (weight-only)
  kC,     ///< result, M x N row-major
  kM,
  kN,
  kK,      ///< K padded (integer) or K (weight-only)
  kLda,    ///< weight-only: lhs row stride in elements
  kTilesN, ///< column tiles
  kSa,
  kSb,
  kBias,
  kComp, ///< per-column compensation (i32 column sums of B), padded
  kZa,
  kZb,
  kOs,
  kOz,
  kNc,         ///< weight-only: columns per task (decode: the strip, else the
               ///< tile's width)
  kBatchTasks, ///< batched: tasks per batch entry
  kStrideA,    ///< batched: bytes between batch entries of A, B and C
  kStrideB,
  kStrideC,
  kMc,      ///< weight-only tiled: rows per tile
  kLhsBf16, ///< Isa::amxBf16, M >= MR: the lhs as bf16 AMX tiles (padded to 32
            ///< rows and 32 columns, zeros)
  kNumSlots
};

/// The LLVM features (without '+') the kernels of `isa` use.
SmallVector<StringRef> getRequiredFeatures(Isa isa);

/// Selects the tile sizes of `config.isa`.
void setTileSizes(GemmConfig &config);

/// Name of the attribute that marks a task function declaration with the
/// description of its kernel (filled in by octet-emit-cpu-kernels).
constexpr StringLiteral kKernelAttrName = "octet.cpu_kernel";

/// The description of `config` as an attribute, and back.
DictionaryAttr getConfigAttr(MLIRContext *ctx, const GemmConfig &config);
FailureOr<GemmConfig> parseConfigAttr(DictionaryAttr attr);

/// Returns the task function of `config` in `module`, declaring it on first
/// use: func.func private @NAME(%ctx: !llvm.ptr, %lo: i64, %hi: i64),
/// marked with kKernelAttrName, running the tiles [lo, hi) once its body is
/// emitted.
func::FuncOp getOrDeclareTaskFunction(ModuleOp module,
                                      const GemmConfig &config);

/// Emits the body of the declared task function `task` for `config`.
void emitTaskBody(func::FuncOp task, const GemmConfig &config);

/// Returns `name`, declared as a private external function of `type` in
/// `module`.
func::FuncOp getOrDeclareFunction(ModuleOp module, StringRef name,
                                  FunctionType type);

/// The buffer `v` is a view of (through view-like ops: subview, reshapes,
/// casts). The alias checks of octet-parallelize-loops and
/// octet-vectorize-rows.
Value viewRoot(Value v);

/// The address (i64) of the first element of the buffer `memref` (any
/// strided layout): its aligned pointer plus its offset in bytes. The
/// strided metadata it reads is returned through `meta` when given.
Value bufferAddress(OpBuilder &b, Location loc, Value memref,
                    memref::ExtractStridedMetadataOp *meta = nullptr);

/// Calls the runtime (or other external) function `name` with `args`,
/// declaring it in `module` with the types of `args` and `results` first;
/// returns the first result, or a null value when there is none.
Value callRuntime(OpBuilder &b, Location loc, ModuleOp module, StringRef name,
                  TypeRange results, ValueRange args);

/// Replaces every octet.attention in `module` by a call of the runtime's
/// octet_cpu_attention_f32 (AttentionLowering.cpp).
void lowerAttentionOps(ModuleOp module, RewriterBase &rewriter);

} // namespace cpu
} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETTOCPU_CPUKERNELS_H
