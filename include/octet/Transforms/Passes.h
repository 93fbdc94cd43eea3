//===- Passes.h - Octet transform passes ---------------------*- C++ -*-===//

#ifndef OCTET_TRANSFORMS_PASSES_H
#define OCTET_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "octet/Dialect/Octet/IR/Octet.h"

namespace mlir {
namespace octet {

#define GEN_PASS_DECL
#include "octet/Transforms/Passes.h.inc"

/// The rewrites of octet-fold-scales.
void populateFoldScalesPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "octet/Transforms/Passes.h.inc"

} // namespace octet
} // namespace mlir

#endif // OCTET_TRANSFORMS_PASSES_H
