//===- Pipelines.h - Octet pass pipelines ---------------------*- C++ -*-===//

#ifndef OCTET_PIPELINES_PIPELINES_H
#define OCTET_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "octet/Conversion/Passes.h"

namespace mlir {
namespace octet {

/// The textual form of the host-CPU lowering: octet ops -> linalg ->
/// bufferized loops -> LLVM dialect, ready for the ExecutionEngine.
llvm::StringRef getLowerToHostPipeline();

/// Options of the host-CPU lowering (`octet-lower-to-host{...}`): which
/// generated kernels convert-octet-to-cpu uses.
struct HostPipelineOptions {
  /// Strategies of octet.matmul: each op's #octet.strategy (auto), those
  /// of one x86 level, or none (the portable lowering of
  /// convert-octet-to-linalg).
  CpuKernelIsa isa = CpuKernelIsa::automatic;
  /// f32 linalg.matmul / batch_matmul to the generated f32 kernels.
  bool floatKernels = true;
};

/// The textual host-CPU lowering with `options`.
std::string getLowerToHostPipeline(const HostPipelineOptions &options);

/// Appends the host-CPU lowering to `pm` (a module-level pass manager).
/// The pipeline is parsed from its textual form, so every pass it names
/// must be registered first: call mlir::registerAllPasses() and
/// registerAllOctetPasses() once before (the tools do; a fuzz harness that
/// did not failed with "does not refer to a registered pass").
LogicalResult buildLowerToHostPipeline(OpPassManager &pm,
                                       const HostPipelineOptions &options = {});

/// The textual pass pipeline of a quantization recipe (w8a16, w4a16,
/// w8a8-dynamic, w8a8-static, w8a8-fp8), or failure for an unknown one.
FailureOr<std::string> getQuantizePipeline(llvm::StringRef recipe,
                                           llvm::StringRef stats,
                                           llvm::StringRef method,
                                           int64_t groupSize,
                                           llvm::StringRef report);

/// Options of the CUDA lowering (`octet-lower-to-cuda`, docs/cuda.md).
struct CudaPipelineOptions {
  std::string chip;           ///< CUDA target (sm_80 ...); "" keeps the
                              ///< module's #octet.target.
  std::string format = "bin"; ///< gpu-module-to-binary: bin (cubin), isa.
  std::string toolkit;        ///< CUDA toolkit (ptxas); "" = default.
  std::string manifest;       ///< Kernel manifest file; "" = none.
  int64_t wgmmaTileN = 128, wgmmaStages = 4, gemvRows = 4;
  bool strict = false;        ///< octet-select-lowering strict.
  bool emulate = false;       ///< Run the kernels on the CPU
                              ///< (octet-emulate-cuda), for tests.
};

/// The textual form of the CUDA lowering: target, strategy selection,
/// octet-outline-for-cuda, bufferization, convert-octet-to-gpu, NVVM for the
/// kernels, LLVM for the host code, then gpu-module-to-binary (ptxas).
std::string getLowerToCudaPipeline(const CudaPipelineOptions &options);

/// The CUDA toolkit used when none is given: $OCTET_CUDA_PATH, else
/// /usr/local/cuda when it has bin/ptxas, else "".
std::string getDefaultCudaToolkit();

/// What `octet-pipeline` takes: a recipe and a chip.
struct OctetPipelineSpec {
  std::string recipe = "w8a8"; ///< As in getQuantizePipeline.
  std::string target = "host"; ///< A name of the target table.
  std::string stats, method = "minmax", report;
  int64_t groupSize = 128;
  bool strict = false; ///< Unaccelerated formats are errors.
  bool lower = true;   ///< Lower for the chip after selection.
  std::string cudaFormat = "bin";
};

/// The textual pipeline of `octet-pipeline`: octet-set-target, the recipe,
/// octet-select-lowering, then the host or CUDA lowering. On failure
/// (unknown target, recipe or format) `error` says why.
FailureOr<std::string> getOctetPipeline(const OctetPipelineSpec &spec,
                                        std::string &error);

/// Registers octet's named pipelines (`octet-lower-to-host`).
void registerOctetPipelines();

/// Registers every octet pass and pipeline with the global registry.
void registerAllOctetPasses();

} // namespace octet
} // namespace mlir

#endif // OCTET_PIPELINES_PIPELINES_H
