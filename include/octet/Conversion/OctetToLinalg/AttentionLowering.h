//===- AttentionLowering.h - octet.attention to linalg ---------*- C++ -*-===//

#ifndef OCTET_CONVERSION_OCTETTOLINALG_ATTENTIONLOWERING_H
#define OCTET_CONVERSION_OCTETTOLINALG_ATTENTIONLOWERING_H

namespace mlir {
class RewritePatternSet;
namespace octet {
/// Lowers octet.attention to linalg.generic ops: scores, mask and scale,
/// row max, exp, row sum, division, context (the portable and GPU path;
/// convert-octet-to-cpu calls the runtime's kernel instead).
void populateAttentionLoweringPatterns(RewritePatternSet &patterns);
} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETTOLINALG_ATTENTIONLOWERING_H
