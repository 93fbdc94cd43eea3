//===- ContractionMatch.h - Recognize quantizable contractions -*- C++ -*-===//
//
// The contractions octet rewrites: C[b, m, n] = sum_k A * B on tensors with
// a zero accumulator, A laid out as [b] m k (or k m) and B as [b] k n (or
// n k). Shared by octet-fold-scales and octet-quantize-activations.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TRANSFORMS_CONTRACTIONMATCH_H
#define OCTET_TRANSFORMS_CONTRACTIONMATCH_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir {
namespace octet {

/// A contraction in the shape octet.matmul computes, with the permutations
/// that bring its operands to [b] m k and [b] k n.
struct Contraction {
  Value lhs, rhs;
  SmallVector<int64_t> lhsPerm, rhsPerm; ///< Empty when already canonical.
  /// Position of the M (row / token) dimension in lhs.
  int64_t lhsRowDim = 0;
};

/// Matches a linalg contraction C[b, m, n] = sum_k A * B with a zero
/// accumulator; on failure `why` says what does not fit.
FailureOr<Contraction> matchContraction(linalg::LinalgOp op, std::string &why);

} // namespace octet
} // namespace mlir

#endif // OCTET_TRANSFORMS_CONTRACTIONMATCH_H
