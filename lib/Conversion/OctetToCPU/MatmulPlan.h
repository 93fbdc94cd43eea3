//===- MatmulPlan.h - Which CPU kernel runs a matmul ------------*- C++ -*-===//
//
// Internal to the OctetToCPU lowering: the decision, for one octet.matmul or
// f32 linalg contraction, whether a generated kernel covers it and with which
// GemmConfig (a Plan), or why the portable lowering keeps it. The call site
// (CallSiteEmitter.h) then emits the rewrite of a Plan.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOCPU_MATMULPLAN_H
#define OCTET_LIB_CONVERSION_OCTETTOCPU_MATMULPLAN_H

#include "octet/Conversion/OctetCommon/ConstantBytes.h"
#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <string>

namespace mlir {
namespace octet {
namespace cpu {

/// What the rewrite needs besides the config.
struct Plan {
  GemmConfig config;
  /// The constant codes of the rhs and whether they are stored N x K (the
  /// rhs is `linalg.transpose` [1, 0] of the constant, which is how
  /// PyTorch-style [out, in] weights reach octet.matmul); null when the rhs
  /// is not a constant.
  ElementsAttr rhsConstant;
  bool rhsTransposed = false;
  /// The constant per-group rhs scales ([K / group][N] f32, or [N][K /
  /// group] when rhsScaleTransposed: `linalg.transpose` [1, 0] of the
  /// constant, as the LLM importer writes them) when config.scalePanels.
  ElementsAttr rhsScaleConstant;
  bool rhsScaleTransposed = false;
  int64_t k = 0, n = 0;
};

/// A float contraction the f32 kernels take: linalg.matmul or
/// linalg.batch_matmul on f32 tensors, lhs (b, m, k), rhs (b, k, n) or
/// (b, n, k), result (b, m, n), init filled with +0.0.
struct FloatContraction {
  Value lhs, rhs;
  int64_t batch = 0; ///< 0: not batched
  bool rhsTransposed = false;
  int64_t k = 0, n = 0;
};

/// The kernel family that runs an octet.matmul under `strategy`; none when
/// the generated kernels do not (the portable lowering does).
std::optional<Isa> getKernelIsa(StrategyAttr strategy, MatmulOp op);

/// Checks that `op` is covered and fills the kernel description; the
/// reason otherwise. `cpu`: the LLVM CPU name the kernels are tuned for
/// (may be empty: prefersL1Prefetch).
FailureOr<Plan> planMatmul(MatmulOp op, std::optional<Isa> isaChoice,
                           StringRef cpu, std::string &why);

/// Whether the decode kernel's weight panels are prefetched into L1
/// (GemmConfig::panelPrefetchL1) on CPU `cpu`: AMD Zen. On Zen 5, 8 KB
/// ahead, one thread, from memory: 91-104% of the read loop with
/// prefetcht0 against 80-92% with prefetcht1 (94% with no prefetch);
/// Emerald Rapids read 92-93% with prefetcht1 and 82-84% with prefetcht0
/// 4 KB ahead.
bool prefersL1Prefetch(StringRef cpu);

/// How far ahead the decode kernel requests its panels
/// (GemmConfig::panelPrefetchBytes) on CPU `cpu`: 4 KB on Zen 4, 8 KB
/// elsewhere. On Zen 4, one thread, from memory (i8 and i4 g64, K = 4096,
/// N = 14336; SmolLM2's 576 x 576 and 1536 x 576), 4 KB read 5-35% more
/// per second than 8 KB in alternating rounds; 8 KB was chosen on Zen 5
/// and Emerald Rapids (docs/cpu-performance.md, "Zen 4 again").
int64_t panelPrefetchBytes(StringRef cpu);

/// Matches `op` as a FloatContraction; the reason otherwise.
FailureOr<FloatContraction> matchFloatContraction(linalg::LinalgOp op,
                                                  std::string &why);

/// The plan of the f32 kernels for `fc` in kernel family `isa` (fma or
/// fma512).
Plan planFloatContraction(const FloatContraction &fc, Isa isa);

} // namespace cpu
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOCPU_MATMULPLAN_H
