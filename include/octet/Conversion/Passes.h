//===- Passes.h - Octet conversion passes --------------------*- C++ -*-===//

#ifndef OCTET_CONVERSION_PASSES_H
#define OCTET_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "octet/Dialect/Octet/IR/Octet.h"

namespace mlir {
class RewritePatternSet;
namespace octet {

#define GEN_PASS_DECL
#include "octet/Conversion/Passes.h.inc"

/// Patterns lowering octet.quantize/dequantize/requantize to linalg.generic.
void populateOctetToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "octet/Conversion/Passes.h.inc"

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_PASSES_H
