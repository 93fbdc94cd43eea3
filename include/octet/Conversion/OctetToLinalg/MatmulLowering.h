//===- MatmulLowering.h - octet.matmul to linalg --------------*- C++ -*-===//

#ifndef OCTET_CONVERSION_OCTETTOLINALG_MATMULLOWERING_H
#define OCTET_CONVERSION_OCTETTOLINALG_MATMULLOWERING_H

#include "octet/Dialect/Octet/IR/Octet.h"

namespace mlir {
class RewritePatternSet;
namespace octet {
/// Lowers octet.matmul to a code contraction, zero-point terms and an
/// element-wise epilogue (linalg.generic ops).
void populateMatmulLoweringPatterns(RewritePatternSet &patterns);
} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETTOLINALG_MATMULLOWERING_H
