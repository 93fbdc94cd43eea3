//===- FormatResolution.h - format=auto per target and recipe ---*- C++ -*-===//
//
// What `format=auto` means: the storage format a quantization recipe uses on
// a target, decided by the capability table. The quantization passes
// (octet-quantize-weights, W8A8 folding) call resolveAutoFormat; the
// octet-test-resolve-format pass exposes it to lit tests.
//
// Rules (see docs/targets.md):
//   w8a16   weight i8 (per-channel INT8 is the most accurate 8-bit weight
//           format for weight-only); activations stay float.
//   w4a16   weight i4; activations stay float.
//   w8a8    f8E4M3FN for weight and activation where the target multiplies
//           e4m3 x e4m3 natively (sm_89, sm_90a, sm_100a, sm_120a), else
//           i8 x i8 (sm_75-sm_86, every CPU level).
//   fp8     f8E4M3FN for both on every target (asked for explicitly; a
//           target without FP8 MMA is reported by octet-select-lowering).
//   mxfp4   e2m1 with ue8m0 scales per 32, nvfp4 e2m1 with ue4m3 scales
//           per 16, both operands, only where the target has that
//           block-scaled MMA (sm_100a, sm_120a).
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TARGET_FORMATRESOLUTION_H
#define OCTET_TARGET_FORMATRESOLUTION_H

#include "octet/Target/Capabilities.h"

#include <optional>
#include <string>

namespace mlir {
namespace octet {
namespace target {

/// Quantization recipes that have a `format=auto`.
enum class Recipe : uint8_t { w8a16, w8a8, w4a16, fp8, mxfp4, nvfp4 };

/// Which operand of a contraction a format is for.
enum class OperandRole : uint8_t { weight, activation };

StringRef stringifyRecipe(Recipe recipe);
/// Parses a recipe name; `w8a8-fp8` is accepted for `fp8`.
std::optional<Recipe> symbolizeRecipe(StringRef name);
/// "w8a16, w8a8, w4a16, fp8 (w8a8-fp8), mxfp4, nvfp4".
std::string getValidRecipeNames();
StringRef stringifyOperandRole(OperandRole role);
std::optional<OperandRole> symbolizeOperandRole(StringRef name);

/// A resolved format in the table's terms.
struct FormatChoice {
  Elem elem;
  BlockScale scale = BlockScale::none;
  /// Whether the target multiplies the recipe's (activation x weight)
  /// formats on a matrix/dot unit.
  bool accelerated = false;
  /// One line: why this format on this target.
  std::string reason;
};

/// Resolves `recipe`'s format for `role` on `target`. Fails (through
/// `emitError`) for a role the recipe does not quantize (the activation of
/// w8a16/w4a16) and for block-scaled FP4 on a target without that MMA.
FailureOr<FormatChoice>
resolveRecipe(const TargetInfo &target, Recipe recipe, OperandRole role,
              function_ref<InFlightDiagnostic()> emitError);

/// resolveRecipe as an octet storage format: what a quantization pass with
/// `format=auto` writes into its #octet.scheme. Also fails for an unknown
/// target name and for formats octet schemes cannot store yet (FP4).
FailureOr<StorageFormat>
resolveAutoFormat(TargetAttr target, Recipe recipe, OperandRole role,
                  function_ref<InFlightDiagnostic()> emitError);

} // namespace target
} // namespace octet
} // namespace mlir

#endif // OCTET_TARGET_FORMATRESOLUTION_H
