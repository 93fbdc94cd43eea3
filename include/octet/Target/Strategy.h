//===- Strategy.h - Kernel strategy selection -------------------*- C++ -*-===//
//
// Turns "this contraction multiplies A x B on this target" into a kernel
// strategy by looking the formats up in the capability table. Every op that
// octet-select-lowering annotates goes through these functions; a quantized
// contraction op only needs to produce a ContractionQuery.
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
/// - one operand quantized: weight_only on the row of the float operand's
///   type (the target's float row when there is none); a cost when that row
///   is a simd path while the target has a matrix unit for its float type.
/// Operands that are both float are a caller error.
StrategyChoice selectContraction(const TargetInfo &target,
                                 const ContractionQuery &query);

/// The strategy of a standalone quantize/dequantize/requantize/compute_params
/// from `in` to `out`.
StrategyChoice selectElementwise(const TargetInfo &target, Elem in, Elem out);

} // namespace target
} // namespace octet
} // namespace mlir

#endif // OCTET_TARGET_STRATEGY_H
