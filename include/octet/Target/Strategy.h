//===- Strategy.h - Kernel strategy selection -------------------*- C++ -*-===//
//
// Turns "this contraction multiplies A x B on this target" into a kernel
// strategy by looking the formats up in the capability table. Every op that
// octet-select-lowering annotates goes through these functions; a quantized
// contraction op only needs to produce a ContractionQuery.
//
// The #octet.strategy attribute is the one contract between selection and
// the target lowerings: convert-octet-to-cpu and octet-outline-for-cuda read
// it (getStrategyAttr) and never look the target up in the table again. An
// op that reaches them without one gets the same policy through
// getOrSelectStrategy, never a lowering's own.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TARGET_STRATEGY_H
#define OCTET_TARGET_STRATEGY_H

#include "octet/Target/Capabilities.h"

#include <string>

namespace mlir {
namespace octet {
namespace target {

/// What a contraction C[m,n] += A[m,k] * B[k,n] multiplies. A quantized
/// operand is given by its storage element (s8, e4m3, ...), a float operand
/// by its float element (f16, bf16, f32).
struct ContractionQuery {
  Elem a, b;
  bool aQuantized = false, bQuantized = false;
  BlockScale scale = BlockScale::none;
};

/// The strategy for one op, with everything the attribute and the
/// diagnostics need.
struct StrategyChoice {
  StrategyKind kind;
  /// The table row whose unit runs the op; null for elementwise ops.
  const KernelRow *row = nullptr;
  /// The formats the unit sees (after unpacking or dequantization).
  Elem a = Elem::f32, b = Elem::f32;
  /// What the lowering must do besides the row's note.
  std::string note;
  /// Non-empty when the target does not accelerate the op's formats: the
  /// warning (or, under `strict`, the error) that names the cost.
  std::string cost;

  /// The #octet.strategy attribute.
  StrategyAttr getAttr(MLIRContext *ctx, const TargetInfo &target) const;
  /// One line for humans: "cuda mma.sync s8 x s8 m16n8k32 (native)".
  std::string getSummary(const TargetInfo &target) const;
};

/// Selects the strategy of a contraction on `target`:
/// - both operands quantized: the first row taking A x B (native or
///   compensated); else with 4-bit integers unpacked to 8 bits; else the
///   fallback (both dequantized to the target's float type) with a cost;
/// - one operand quantized: weight_only; on CUDA the f32 SIMT row (the
///   gemv kernel every weight-only product runs on), on CPUs the row of the
///   float operand's type (f32 when there is none); never a cost.
/// Operands that are both float are a caller error.
StrategyChoice selectContraction(const TargetInfo &target,
                                 const ContractionQuery &query);

/// The strategy of a standalone quantize/dequantize/requantize/compute_params
/// from `in` to `out`.
StrategyChoice selectElementwise(const TargetInfo &target, Elem in, Elem out);

//===----------------------------------------------------------------------===//
// Ops and their #octet.strategy
//===----------------------------------------------------------------------===//

/// Name of the discardable attribute holding an op's #octet.strategy.
constexpr StringLiteral kStrategyAttrName = "octet.strategy";

/// The #octet.strategy of `op`; null when it has none.
StrategyAttr getStrategyAttr(Operation *op);
/// Sets the #octet.strategy of `op`.
void setStrategyAttr(Operation *op, StrategyAttr strategy);

/// What A and B of a quantized contraction are: octet.matmul (from its
/// schemes; a float lhs is weight-only) or a linalg contraction/convolution
/// with at least one input produced by octet.dequantize. None for any other
/// op.
std::optional<ContractionQuery> getContractionQuery(Operation *op);

/// The input and output formats of a standalone octet.quantize, dequantize,
/// requantize or compute_params; none for any other op.
std::optional<std::pair<Elem, Elem>> getElementwiseFormats(Operation *op);

/// octet-select-lowering's policy for one op on `target`: the contraction
/// or elementwise strategy (not `fused`, which needs the op's users); none
/// when `op` is neither.
std::optional<StrategyChoice> selectStrategy(Operation *op,
                                             const TargetInfo &target);

/// The strategy a lowering follows for `op`: its #octet.strategy, else the
/// one selectStrategy gives on `target`; null when `op` is not a quantized
/// op.
StrategyAttr getOrSelectStrategy(Operation *op, const TargetInfo &target);

/// The target a module is lowered for: its #octet.target, else `host`
/// resolved from the running process (resolveRunningHost). Errors go
/// through `emitError`. `cpu`, when given, receives the LLVM CPU name: the
/// attribute's `cpu` (may be empty), else the running host's.
FailureOr<const TargetInfo *>
getModuleTargetOrHost(ModuleOp module,
                      function_ref<InFlightDiagnostic()> emitError,
                      std::string *cpu = nullptr);

} // namespace target
} // namespace octet
} // namespace mlir

#endif // OCTET_TARGET_STRATEGY_H
