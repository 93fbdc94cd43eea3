//===- Pipelines.h - Octet pass pipelines ---------------------*- C++ -*-===//

#ifndef OCTET_PIPELINES_PIPELINES_H
#define OCTET_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace octet {

/// The textual form of the host-CPU lowering: octet ops -> linalg ->
/// bufferized loops -> LLVM dialect, ready for the ExecutionEngine.
llvm::StringRef getLowerToHostPipeline();

/// Appends the host-CPU lowering to `pm` (a module-level pass manager).
LogicalResult buildLowerToHostPipeline(OpPassManager &pm);

/// Registers octet's named pipelines (`octet-lower-to-host`).
void registerOctetPipelines();

/// Registers every octet pass and pipeline with the global registry.
void registerAllOctetPasses();

} // namespace octet
} // namespace mlir

#endif // OCTET_PIPELINES_PIPELINES_H
