//===- RegisterTranspose.h - Squares transposed in vectors ---*- C++ -*-===//
//-*-===//
//
// Internal to the OctetToCPU lowering: the in-register transpose shared by
// the f32 kernels' N x K rhs blocks (FloatKernels.cpp) and the row
// reductions of octet-vectorize-rows (VectorizeRows.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOCPU_REGISTERTRANSPOSE_H
#define OCTET_LIB_CONVERSION_OCTETTOCPU_REGISTERTRANSPOSE_H

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace octet {
namespace cpu {

/// Transposes the n x n square held in `rows` (n vectors of n elements, n
/// a power of two): afterwards vector j holds element j of every original
/// vector. For d = n/2, ..., 1 each pair of vectors (r, r + d) with bit d
/// of r clear swaps its off-diagonal d-blocks with two two-source shuffles;
/// element (r, c) moves to the position with bit d of r and of c
/// exchanged, so after every d it is at (c, r). n log2(n) shuffles.
inline void transposeInRegisters(OpBuilder &b, Location loc,
                                 MutableArrayRef<Value> rows) {
  int64_t n = static_cast<int64_t>(rows.size());
  for (int64_t d = n / 2; d >= 1; d /= 2) {
    SmallVector<int64_t> lo, hi;
    for (int64_t col = 0; col < n; ++col) {
      bool set = col & d;
      lo.push_back(set ? n + (col ^ d) : col);
      hi.push_back(set ? n + col : col ^ d);
    }
    for (int64_t r = 0; r < n; ++r) {
      if (r & d)
        continue;
      Value x = rows[r], y = rows[r | d];
      rows[r] = vector::ShuffleOp::create(b, loc, x, y, lo);
      rows[r | d] = vector::ShuffleOp::create(b, loc, x, y, hi);
    }
  }
}

} // namespace cpu
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOCPU_REGISTERTRANSPOSE_H
