//===- MatmulEpilogue.h - The one quantized-matmul epilogue -----*- C++ -*-===//
//
// What happens to an octet.matmul accumulator between the product and the
// store, emitted as IR once for every lowering: the portable linalg
// lowering (per element of a linalg.generic), the CPU kernels (on vector
// registers) and the CUDA kernels (per thread). The order of operations is
// the numerics contract's (docs/numerics.md, "octet.matmul"):
//
//   y = acc                                    (i32 or f32)
//   y = y - za*colsum(B) - zb*rowsum(A) + K*za*zb   (i32, wrapping; exact
//                                              when the true sum fits)
//   y = float(y) * (sa * sb)                   (or y * sa when the rhs
//                                              scale was applied per group)
//   y = y + bias;  y = max(y, 0) with relu
//   result = quantize(y, os, oz) or y rounded to the result type
//
// Values may be scalars or vectors of one shape; a null value is an absent
// term.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_CONVERSION_OCTETCOMMON_MATMULEPILOGUE_H
#define OCTET_CONVERSION_OCTETCOMMON_MATMULEPILOGUE_H

#include "octet/Dialect/Octet/IR/Octet.h"

#include <optional>

namespace mlir {
class OpBuilder;
namespace octet {

/// The operands of the epilogue of one output element (or vector of them).
struct MatmulEpilogueOperands {
  /// The accumulator: i32 for an integer product (the correction terms and
  /// the conversion to f32 apply), f32 otherwise.
  Value acc;
  /// Zero-point correction of an i32 accumulator (each term optional):
  /// acc - lhsZeroPoint * colSum - rhsZeroPoint * rowSum
  ///     + kCount * lhsZeroPoint * rhsZeroPoint.
  /// A kernel that shifts an operand (VNNI's +128) passes the shift folded
  /// into lhsZeroPoint.
  Value lhsZeroPoint, colSum, rhsZeroPoint, rowSum, kCount;
  /// f32 scales; a null rhsScale means it was applied already (per-group
  /// rhs scales are applied group by group before the epilogue).
  Value lhsScale, rhsScale;
  Value bias;
  /// Requantization of the result (with outScheme below).
  Value outScale, outZeroPoint;
};

/// What the epilogue produces.
struct MatmulEpilogueResult {
  bool relu = false;
  /// Requantize to this scheme; else round f32 to `resultElem`.
  std::optional<SchemeAttr> outScheme;
  /// f32, f16 or bf16 (ignored with outScheme).
  Type resultElem;
};

/// The zero-point correction of an i32 accumulator alone (the grouped
/// portable lowering applies it per group, before the rhs scale).
Value emitZeroPointCorrection(OpBuilder &b, Location loc,
                              const MatmulEpilogueOperands &operands);

/// Emits the epilogue; returns the value to store (of the result element
/// type, or the scheme's storage type).
Value emitMatmulEpilogue(OpBuilder &b, Location loc,
                         const MatmulEpilogueOperands &operands,
                         const MatmulEpilogueResult &result);

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETCOMMON_MATMULEPILOGUE_H
