//===- Pipelines.h - Octet pass pipelines ---------------------*- C++ -*-===//

#ifndef OCTET_PIPELINES_PIPELINES_H
#define OCTET_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "octet/Conversion/Passes.h"

namespace mlir {
namespace octet {

/// Options of the host-CPU lowering (`octet-lower-to-host{...}`): which
/// generated kernels convert-octet-to-cpu uses.
struct HostPipelineOptions {
  /// Strategies of octet.matmul: each op's #octet.strategy (auto), those
  /// of one x86 level, or none (the portable lowering of
  /// convert-octet-to-linalg).
  CpuKernelIsa isa = CpuKernelIsa::automatic;
  /// f32 linalg.matmul / batch_matmul to the generated f32 kernels.
  bool floatKernels = true;
  /// Range monitoring: octet-monitor-ranges first (off: no trace of it in
  /// the code).
  bool monitor = false;
  /// octet-into-entries: each public function gets an `_into` entry that
  /// writes its results into buffers the caller allocated.
  bool intoEntries = false;
};

/// Appends the host-CPU lowering to `pm` (a module-level pass manager):
/// octet ops -> linalg -> bufferized loops -> LLVM dialect, ready for the
/// ExecutionEngine. The passes are created directly (typed options), so
/// nothing needs to be registered first.
void buildLowerToHostPipeline(OpPassManager &pm,
                              const HostPipelineOptions &options = {});

/// The textual form of buildLowerToHostPipeline (printed from it, without
/// the builtin.module anchor), for --pipeline style interfaces and the C
/// API.
std::string getLowerToHostPipeline(const HostPipelineOptions &options);
/// The textual form with the default options.
llvm::StringRef getLowerToHostPipeline();

/// The quantization recipes of octet-quantize and octet-pipeline (one
/// list, in Pipelines.cpp, defines what each runs).
enum class QuantRecipe {
  w8a16,        ///< INT8 per-channel weights, float activations.
  w4a16,        ///< INT4 per-group weights (group-size), float activations.
  w3a16,        ///< 3-bit per-group weights ([-4, 3] in i4 storage).
  w8a8,         ///< INT8 or FP8 per the module's #octet.target, dynamic.
  w8a8_dynamic, ///< INT8 weights and dynamic per-token INT8 activations.
  w8a8_static,  ///< INT8 weights, calibrated (static) INT8 activations.
  w8a8_fp8,     ///< FP8 E4M3 weights and dynamic per-token activations.
  w8a16_mxfp8,  ///< OCP MXFP8 (E4M3, E8M0 scales / 32) weights, float acts.
  w4a16_mxfp4,  ///< OCP MXFP4 (E2M1, E8M0 scales / 32) weights, float acts.
  w4a16_nvfp4,  ///< NVFP4 (E2M1, E4M3 scales / 16 x global) weights.
  w8a8_fp8_block, ///< DeepSeek-V3 block-wise FP8: E4M3 weights in 128 x 128
                  ///< blocks, dynamic 1 x 128 activation groups.
  w8a8_mxfp8,     ///< OCP MXFP8 weights and dynamic MXFP8 activations.
  w4a8_mxfp4,     ///< OCP MXFP4 weights, dynamic MXFP8 activations.
  w4a4_mxfp4,     ///< OCP MXFP4 weights and dynamic MXFP4 activations.
  w4a4_nvfp4      ///< NVFP4 weights and activations (calibrated global
                  ///< scale, E4M3 block scales computed at run time).
};
/// "w8a16", "w4a16", "w3a16", "w8a8", "w8a8-dynamic", "w8a8-static",
/// "w8a8-fp8", "w8a16-mxfp8", "w4a16-mxfp4", "w4a16-nvfp4",
/// "w8a8-fp8-block", "w8a8-mxfp8", "w4a8-mxfp4", "w4a4-mxfp4",
/// "w4a4-nvfp4".
llvm::StringRef stringifyQuantRecipe(QuantRecipe recipe);
std::optional<QuantRecipe> symbolizeQuantRecipe(llvm::StringRef name);
/// "w8a16, w4a16, ..., w4a4-mxfp4 or w4a4-nvfp4" (the recipes in
/// order).
std::string getValidQuantRecipeNames();

/// What octet-quantize takes.
struct QuantizeSpec {
  QuantRecipe recipe = QuantRecipe::w8a16;
  std::string stats;            ///< w8a8-static: calibration statistics.
  std::string method = "minmax"; ///< w8a8-static: minmax, percentile:P, mse.
  int64_t groupSize = 128;      ///< w4a16, w3a16: elements per group along K
                                ///< (0: one scale per output channel).
  std::string report;           ///< Weight quantization report (JSON).
  std::string skip;             ///< Layers (regex) kept float.
  bool skipLmHead = true;       ///< Keep the vocabulary projection float.
  std::string algorithm = "rtn"; ///< Weights: rtn, gptq, awq or
                                 ///< awq-gptq (need stats).
  double damp = 0.01;           ///< algorithm=gptq: Hessian dampening.
  bool actOrder = false;        ///< algorithm=gptq: act-order.
  double smooth = -1.0;         ///< >= 0: octet-smooth-quant first, with
                                ///< this alpha (needs stats).
  std::string clip = "absmax";  ///< Weights' clip: absmax, percentile:P,
                                ///< mse.
};

/// Why the options of `spec` do not go together in one step (e.g. gptq
/// with w8a8-static: each needs its own statistics), prefixed with `who`;
/// empty when they do.
std::string checkQuantizeSpec(const QuantizeSpec &spec, llvm::StringRef who);

/// Appends a recipe's quantization: octet-quantize-weights, then (W8A8)
/// octet-quantize-activations, octet-fold-scales, canonicalize, cse.
void buildQuantizePipeline(OpPassManager &pm, const QuantizeSpec &spec);

/// Options of the CUDA lowering (`octet-lower-to-cuda`, docs/cuda.md).
struct CudaPipelineOptions {
  std::string chip;           ///< CUDA target (sm_80 ...); "" keeps the
                              ///< module's #octet.target.
  std::string format = "bin"; ///< gpu-module-to-binary: bin (cubin), isa.
  std::string toolkit;        ///< CUDA toolkit (ptxas); "" = default.
  std::string manifest;       ///< Kernel manifest file; "" = none.
  int64_t wgmmaTileN = 128, wgmmaStages = 4, gemvRows = 4;
  int64_t wgmmaWeightOnlyRows = 64; ///< sm_90a: M from which weight-only
                                    ///< matmuls run on wgmma (0: never).
  bool strict = false;        ///< octet-select-lowering strict.
  bool emulate = false;       ///< Run the kernels on the CPU
                              ///< (octet-emulate-cuda), for tests.
};

/// Appends the CUDA lowering: target, strategy selection,
/// octet-outline-for-cuda, bufferization, convert-octet-to-gpu, NVVM for the
/// kernels, LLVM for the host code, then gpu-module-to-binary (ptxas).
void buildLowerToCudaPipeline(OpPassManager &pm,
                              const CudaPipelineOptions &options);

/// The CUDA toolkit used when none is given: $OCTET_CUDA_PATH, else
/// /usr/local/cuda when it has bin/ptxas, else "".
std::string getDefaultCudaToolkit();

/// What `octet-pipeline` takes: a recipe and a chip.
struct OctetPipelineSpec {
  std::string recipe = "w8a8"; ///< A QuantRecipe name.
  std::string target = "host"; ///< A name of the target table.
  std::string stats, method = "minmax", report;
  int64_t groupSize = 128;
  std::string skip;        ///< Layers (regex) kept float.
  bool skipLmHead = true;  ///< Keep the vocabulary projection float.
  std::string algorithm = "rtn"; ///< Weights: rtn, gptq or awq.
  double damp = 0.01;
  bool actOrder = false;
  double smooth = -1.0; ///< >= 0: SmoothQuant's alpha.
  std::string clip = "absmax"; ///< Weights' clip threshold.
  bool strict = false; ///< Unaccelerated formats are errors.
  bool lower = true;   ///< Lower for the chip after selection.
  std::string cudaFormat = "bin";
};

/// Appends `octet-pipeline`: octet-set-target, the recipe,
/// octet-select-lowering, then the host or CUDA lowering. On failure
/// (unknown target, recipe or format) `error` says why and nothing is
/// added.
LogicalResult buildOctetPipeline(OpPassManager &pm,
                                 const OctetPipelineSpec &spec,
                                 std::string &error);

/// Registers octet's named pipelines (`octet-lower-to-host`).
void registerOctetPipelines();

/// Registers every octet pass and pipeline with the global registry.
void registerAllOctetPasses();

} // namespace octet
} // namespace mlir

#endif // OCTET_PIPELINES_PIPELINES_H
