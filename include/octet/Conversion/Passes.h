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

/// `convert-octet-to-cpu{isa=...}` and `octet-lower-to-host{isa=...}`: the
/// strategies the generated CPU kernels follow.
enum class CpuKernelIsa {
  automatic,   ///< Each op's #octet.strategy (else the selection policy).
  avx2,        ///< Strategies selected again for the avx2 level.
  avx512_vnni, ///< ... for the avx512-vnni level.
  avx512_bf16, ///< ... for the avx512-bf16 level.
  amx_int8,    ///< ... for the amx-int8 level.
  none         ///< No generated kernels: the portable lowering.
};
/// "auto", "avx2", "avx512-vnni", "avx512-bf16", "amx-int8", "none".
llvm::StringRef stringifyCpuKernelIsa(CpuKernelIsa isa);
/// The value of a spelling; none when unknown.
std::optional<CpuKernelIsa> symbolizeCpuKernelIsa(llvm::StringRef name);

#define GEN_PASS_DECL
#include "octet/Conversion/Passes.h.inc"

/// Patterns lowering octet.quantize/dequantize/requantize to linalg.generic.
void populateOctetToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "octet/Conversion/Passes.h.inc"

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_PASSES_H
