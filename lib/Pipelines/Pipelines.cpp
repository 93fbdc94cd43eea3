//===- Pipelines.cpp - Octet pass pipelines -------------------------------===//

#include "octet/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "octet/Conversion/Passes.h"
#include "octet/Target/Capabilities.h"
#include "octet/Target/Passes.h"
#include "octet/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::octet;

/// Element-wise linalg, fusion, then One-Shot Bufferize (identity layouts
/// at function boundaries) and buffer deallocation: the part the host and
/// CUDA lowerings share before their backends.
/// `deviceEncoding`: a tensor's encoding is its memref memory space (the
/// CUDA lowering's device tensors, octet-outline-for-cuda).
static void addFuseAndBufferize(OpPassManager &pm,
                                bool deviceEncoding = false) {
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.useEncodingForMemorySpace = deviceEncoding;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
}

/// Linalg on buffers to loops, with strided metadata and affine expanded.
static void addLowerToLoops(OpPassManager &pm) {
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
}

/// Host code to the LLVM dialect: bf16 arithmetic emulated in f32, then
/// every dialect's conversion; `gpuLaunches` adds gpu-to-llvm for the
/// launches of CUDA kernels.
static void addLowerToLLVM(OpPassManager &pm, bool gpuLaunches) {
  pm.addPass(createSCFToControlFlowPass());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  // exp without a libm call (vectorizable, the same bits on every CPU).
  pm.addPass(createOctetExpandExp());
  // NaN-ignoring min / max as LLVM's intrinsics, which the vectorizer
  // reduces, before arith-expand would turn them into selects.
  pm.addPass(createOctetLowerNumMinMax());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  if (gpuLaunches)
    pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void octet::buildLowerToHostPipeline(OpPassManager &pm,
                                     const HostPipelineOptions &options) {
  if (options.monitor)
    pm.addPass(createOctetMonitorRanges());
  // Q/K/V and gate/up as one kernel call each (bit-identical).
  pm.addPass(createOctetFuseSiblingMatmuls());
  if (options.isa != CpuKernelIsa::none) {
    ConvertOctetToCPUOptions cpu;
    cpu.kernelIsa = options.isa;
    cpu.floatKernels = options.floatKernels;
    pm.addPass(createConvertOctetToCPU(cpu));
  }
  pm.addPass(createConvertOctetToLinalg());
  addFuseAndBufferize(pm);
  pm.addPass(createOctetEmitCpuKernels());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Before the parallel tasks are outlined: the entry is a clone of the
  // function's body.
  if (options.intoEntries)
    pm.addPass(createOctetIntoEntries());
  pm.addPass(createOctetParallelizeLoops());
  // Row reductions (LayerNorm, softmax) with rows across vector lanes and
  // element-wise f32 rows as vector loops, bit-identical: one dependent
  // chain per row before, and gathers across rows of 32.
  pm.addPass(createOctetVectorizeRows());
  addLowerToLoops(pm);
  addLowerToLLVM(pm, /*gpuLaunches=*/false);
}

std::string octet::getLowerToHostPipeline(const HostPipelineOptions &options) {
  OpPassManager pm(ModuleOp::getOperationName());
  buildLowerToHostPipeline(pm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  // The passes of the module pass manager, without its anchor.
  StringRef body = text;
  if (body.consume_front("builtin.module(") && body.consume_back(")"))
    return body.str();
  return text;
}

StringRef octet::getLowerToHostPipeline() {
  static const std::string text = getLowerToHostPipeline({});
  return text;
}

namespace {
using PassOpts = mlir::detail::PassOptions;

/// The options of a quantization recipe beyond its name, shared by
/// octet-quantize and octet-pipeline.
template <typename Derived>
struct RecipeOptions : public PassPipelineOptions<Derived> {
  PassOpts::Option<std::string> stats{
      *this, "stats",
      llvm::cl::desc("w8a8-static and w4a4-nvfp4: calibration statistics "
                     "from octet-run --calibrate; algorithm=gptq: the same "
                     "with --second-moment, algorithm=awq and awq-gptq with "
                     "--second-moment --channel-stats, smooth= with "
                     "--channel-stats, of the float model instrumented "
                     "with octet-instrument{all=true}"),
      llvm::cl::init("")};
  PassOpts::Option<std::string> algorithm{
      *this, "algorithm",
      llvm::cl::desc("Weight rounding: rtn (round to nearest), gptq (GPTQ "
                     "error feedback), awq (AWQ's per-channel scales) or "
                     "awq-gptq (AWQ's scales, then GPTQ); all but rtn need "
                     "stats= and do not go with w8a8-static"),
      llvm::cl::init("rtn")};
  PassOpts::Option<double> smooth{
      *this, "smooth",
      llvm::cl::desc("SmoothQuant's migration strength alpha in [0, 1] "
                     "(octet-smooth-quant before the weights; needs stats= "
                     "with --channel-stats; recipes with dynamic "
                     "activations); negative: off"),
      llvm::cl::init(-1.0)};
  PassOpts::Option<double> damp{
      *this, "damp",
      llvm::cl::desc(
          "algorithm=gptq|awq-gptq: Hessian dampening, a fraction of its "
          "mean diagonal"),
      llvm::cl::init(0.01)};
  PassOpts::Option<bool> actOrder{
      *this, "act-order",
      llvm::cl::desc(
          "algorithm=gptq|awq-gptq: inputs in descending order of their "
          "second moment"),
      llvm::cl::init(false)};
  PassOpts::Option<std::string> method{
      *this, "method",
      llvm::cl::desc("w8a8-static: minmax, percentile:P or mse"),
      llvm::cl::init("minmax")};
  PassOpts::Option<std::string> clip{
      *this, "clip",
      llvm::cl::desc("The weights' clip threshold per scale group: absmax, "
                     "minmax, percentile:P or mse (octet-quantize-weights "
                     "clip=; "
                     "with algorithm=gptq the scales GPTQ rounds to)"),
      llvm::cl::init("absmax")};
  PassOpts::Option<int64_t> groupSize{
      *this, "group-size",
      llvm::cl::desc("w4a16, w3a16: elements per group along K (0: one "
                     "scale per output channel); w8a8-fp8-block: the block "
                     "edge (the weights' blocks are group-size x group-size, "
                     "the activations' 1 x group-size)"),
      llvm::cl::init(128)};
  PassOpts::Option<std::string> skip{
      *this, "skip",
      llvm::cl::desc("Layers whose name matches this regex stay float"),
      llvm::cl::init("")};
  PassOpts::Option<bool> skipLmHead{
      *this, "skip-lm-head",
      llvm::cl::desc("Keep the vocabulary projection (lm_head, GGUF's "
                     "output) float"),
      llvm::cl::init(true)};
  PassOpts::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Per-layer weight quantization report (JSON)"),
      llvm::cl::init("")};
};

/// Options of the octet-quantize pipeline.
struct QuantizeOptions : public RecipeOptions<QuantizeOptions> {
  Option<std::string> recipe{
      *this, "recipe",
      llvm::cl::desc("w8a16 | w4a16 | w3a16 (3-bit codes [-4, 3] stored as "
                     "i4) | w8a8-dynamic | w8a8-static | "
                     "w8a8-fp8 (FP8 E4M3 weights and dynamic per-token "
                     "activations) | w8a8 (INT8 or FP8 per the module's "
                     "#octet.target, dynamic activations) | w8a16-mxfp8 | "
                     "w4a16-mxfp4 (OCP MX weights: E4M3 / E2M1 blocks of "
                     "32 with E8M0 scales) | w4a16-nvfp4 (E2M1 blocks of 16 "
                     "with E4M3 scales times a per-tensor scale); float "
                     "activations | w8a8-fp8-block (DeepSeek-V3: E4M3 "
                     "weights in group-size x group-size blocks, dynamic "
                     "E4M3 activations per token and group of group-size, "
                     "f32 scales) | w8a8-mxfp8 (MXFP8 weights and dynamic "
                     "MXFP8 activations: E8M0 scales per token and block "
                     "of 32) | w4a8-mxfp4 (MXFP4 weights, MXFP8 "
                     "activations) | w4a4-mxfp4 (MXFP4 weights and "
                     "activations) | w4a4-nvfp4 (NVFP4 weights and "
                     "activations: E4M3 block scales per token and 16 "
                     "along K computed at run time, a calibrated global "
                     "scale; needs stats= of the instrumented model with "
                     "the NVFP4 weights)"),
      llvm::cl::init("w8a16")};
};
} // namespace

namespace {
/// One quantization recipe: what octet-quantize runs for it. The one list
/// of recipe names (octet-quantize, octet-pipeline, their errors and docs).
struct RecipeInfo {
  QuantRecipe recipe;
  StringRef name;
  StringRef weightFormat;      ///< octet-quantize-weights format=
  StringRef weightRecipe;      ///< its recipe= (format=auto resolution)
  StringRef weightGranularity; ///< per-channel | per-group
  StringRef activationMode;    ///< "" (weight-only), dynamic, static
  StringRef activationFormat;  ///< octet-quantize-activations format=
  StringRef activationRecipe;  ///< its recipe= (format=auto resolution)
};
constexpr RecipeInfo kRecipes[] = {
    {QuantRecipe::w8a16, "w8a16", "i8", "w8a16", "per-channel", "", "", ""},
    {QuantRecipe::w4a16, "w4a16", "i4", "w8a16", "per-group", "", "", ""},
    {QuantRecipe::w3a16, "w3a16", "i3", "w8a16", "per-group", "", "", ""},
    {QuantRecipe::w8a8, "w8a8", "auto", "w8a8", "per-channel", "dynamic",
     "auto", "w8a8"},
    {QuantRecipe::w8a8_dynamic, "w8a8-dynamic", "i8", "w8a16", "per-channel",
     "dynamic", "i8", "w8a8"},
    {QuantRecipe::w8a8_static, "w8a8-static", "i8", "w8a16", "per-channel",
     "static", "i8", "w8a8"},
    {QuantRecipe::w8a8_fp8, "w8a8-fp8", "f8E4M3FN", "w8a16", "per-channel",
     "dynamic", "f8E4M3FN", "w8a8"},
    // Weight-only MX: no x86 or Hopper instruction multiplies MX blocks, so
    // on every target today the weights are decoded in the kernel.
    {QuantRecipe::w8a16_mxfp8, "w8a16-mxfp8", "mxfp8", "w8a16", "per-group",
     "", "", ""},
    {QuantRecipe::w4a16_mxfp4, "w4a16-mxfp4", "mxfp4", "w8a16", "per-group",
     "", "", ""},
    {QuantRecipe::w4a16_nvfp4, "w4a16-nvfp4", "nvfp4", "w8a16", "per-group",
     "", "", ""},
    // DeepSeek-V3's block-wise FP8: no chip multiplies the blocks' scales
    // in the MMA; each K group's partial sums are scaled (CUDA cores on
    // Hopper, as DeepGEMM does; the f32 kernels on x86).
    {QuantRecipe::w8a8_fp8_block, "w8a8-fp8-block", "f8E4M3FN", "w8a16",
     "per-group", "dynamic", "f8E4M3FN", "w8a8"},
    // MXFP8 on both operands: E8M0 block scales computed at run time for
    // the activations (Blackwell's block-scaled MMA kind::mxf8f6f4 reads
    // both; elsewhere each block's partial sums are scaled).
    {QuantRecipe::w8a8_mxfp8, "w8a8-mxfp8", "mxfp8", "w8a16", "per-group",
     "dynamic", "mxfp8", "w8a8"},
    // MXFP4 weights with MXFP8 or MXFP4 activations (kind::mxf8f6f4 takes
    // the mixed pair, kind::mxf4 the FP4 one).
    {QuantRecipe::w4a8_mxfp4, "w4a8-mxfp4", "mxfp4", "w8a16", "per-group",
     "dynamic", "mxfp8", "w8a8"},
    {QuantRecipe::w4a4_mxfp4, "w4a4-mxfp4", "mxfp4", "w8a16", "per-group",
     "dynamic", "mxfp4", "w8a8"},
    // NVFP4 on both operands (Blackwell's kind::mxf4nvf4): the activations'
    // global scale is calibrated (octet-quantize-activations mode=static
    // format=nvfp4), their E4M3 block scales computed at run time.
    {QuantRecipe::w4a4_nvfp4, "w4a4-nvfp4", "nvfp4", "w8a16", "per-group",
     "static", "nvfp4", "w8a8"},
};

const RecipeInfo &getRecipeInfo(QuantRecipe recipe) {
  for (const RecipeInfo &info : kRecipes)
    if (info.recipe == recipe)
      return info;
  llvm_unreachable("every recipe has a row");
}
} // namespace


StringRef octet::stringifyQuantRecipe(QuantRecipe recipe) {
  return getRecipeInfo(recipe).name;
}

std::optional<QuantRecipe> octet::symbolizeQuantRecipe(StringRef name) {
  for (const RecipeInfo &info : kRecipes)
    if (info.name == name)
      return info.recipe;
  return std::nullopt;
}

std::string octet::getValidQuantRecipeNames() {
  std::string text;
  for (size_t i = 0; i < std::size(kRecipes); ++i) {
    if (i)
      text += i + 1 == std::size(kRecipes) ? " or " : ", ";
    text += kRecipes[i].name.str();
  }
  return text;
}

/// The weight algorithms that read calibration statistics (stats=).
static bool algorithmReadsStats(StringRef algorithm) {
  return algorithm == "gptq" || algorithm == "awq" || algorithm == "awq-gptq";
}

std::string octet::checkQuantizeSpec(const QuantizeSpec &spec,
                                     StringRef who) {
  bool stats = algorithmReadsStats(spec.algorithm);
  bool staticActs = getRecipeInfo(spec.recipe).activationMode == "static";
  if (stats && staticActs)
    return (who + ": algorithm=" + spec.algorithm +
            " does not combine with " + stringifyQuantRecipe(spec.recipe) +
            " in one step (each needs its "
            "own statistics: the float model's, then the quantized model's "
            "activation ranges); run octet-quantize-weights algorithm=" +
            spec.algorithm +
            ", then octet-instrument, octet-run --calibrate and "
            "octet-quantize-activations mode=static")
        .str();
  if (spec.smooth < 0)
    return "";
  if (spec.smooth > 1)
    return (who + ": smooth must be in [0, 1] (or negative: off), got " +
            std::to_string(spec.smooth))
        .str();
  if (getRecipeInfo(spec.recipe).activationMode.empty())
    return (who + ": smooth= is for recipes that quantize activations; '" +
            stringifyQuantRecipe(spec.recipe) + "' does not")
        .str();
  if (staticActs)
    return (who + ": smooth= does not combine with " +
            stringifyQuantRecipe(spec.recipe) +
            " in one step (the activation ranges must be measured after "
            "smoothing); run octet-smooth-quant, then octet-instrument, "
            "octet-run --calibrate and octet-quantize recipe=" +
            stringifyQuantRecipe(spec.recipe))
        .str();
  if (stats)
    return (who + ": smooth= does not combine with algorithm=" +
            spec.algorithm +
            " (its statistics describe the activations before smoothing)")
        .str();
  return "";
}

void octet::buildQuantizePipeline(OpPassManager &pm,
                                  const QuantizeSpec &spec) {
  const RecipeInfo &info = getRecipeInfo(spec.recipe);
  OctetQuantizeWeightsOptions weights;
  weights.format = info.weightFormat.str();
  weights.recipe = info.weightRecipe.str();
  weights.granularity = info.weightGranularity.str();
  // The OCP MX block is 32 elements (every recipe with MX weights), NVFP4's
  // 16.
  if (info.weightFormat.starts_with("mx"))
    weights.groupSize = 32;
  if (spec.recipe == QuantRecipe::w4a16_nvfp4 ||
      spec.recipe == QuantRecipe::w4a4_nvfp4)
    weights.groupSize = 16;
  if (spec.recipe == QuantRecipe::w8a8_fp8_block) {
    weights.groupSize = spec.groupSize;
    weights.channelBlock = spec.groupSize;
  }
  if (spec.recipe == QuantRecipe::w4a16 || spec.recipe == QuantRecipe::w3a16) {
    if (spec.groupSize == 0)
      weights.granularity = "per-channel";
    else
      weights.groupSize = spec.groupSize;
  }
  weights.report = spec.report;
  weights.skip = spec.skip;
  weights.skipLmHead = spec.skipLmHead;
  weights.algorithm = spec.algorithm;
  weights.damp = spec.damp;
  weights.actOrder = spec.actOrder;
  weights.clip = spec.clip;
  if (algorithmReadsStats(spec.algorithm))
    weights.stats = spec.stats;
  if (spec.smooth >= 0) {
    OctetSmoothQuantOptions smooth;
    smooth.stats = spec.stats;
    smooth.alpha = spec.smooth;
    pm.addPass(createOctetSmoothQuant(smooth));
  }
  pm.addPass(createOctetQuantizeWeights(weights));
  if (!info.activationMode.empty()) {
    OctetQuantizeActivationsOptions activations;
    activations.mode = info.activationMode.str();
    activations.format = info.activationFormat.str();
    activations.recipe = info.activationRecipe.str();
    if (spec.recipe == QuantRecipe::w8a8_fp8_block)
      activations.granularity = "per-token-group";
    if (info.activationMode == "static") {
      activations.stats = spec.stats;
      activations.method = spec.method;
    }
    pm.addPass(createOctetQuantizeActivations(activations));
  }
  pm.addPass(createOctetFoldScales());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

std::string octet::getDefaultCudaToolkit() {
  if (const char *env = std::getenv("OCTET_CUDA_PATH"); env && *env)
    return env;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  return "";
}

void octet::buildLowerToCudaPipeline(OpPassManager &pm,
                                     const CudaPipelineOptions &o) {
  if (!o.chip.empty()) {
    OctetSetTargetOptions target;
    target.targetName = o.chip;
    pm.addPass(createOctetSetTarget(target));
  }
  OctetSelectLoweringOptions select;
  select.strict = o.strict;
  pm.addPass(createOctetSelectLowering(select));
  pm.addPass(createOctetOutlineForCuda());
  addFuseAndBufferize(pm, /*deviceEncoding=*/true);
  pm.addPass(createConvertBufferizationToMemRefPass());
  ConvertOctetToGPUOptions gpu;
  gpu.wgmmaTileN = o.wgmmaTileN;
  gpu.wgmmaStages = o.wgmmaStages;
  gpu.gemvRows = o.gemvRows;
  gpu.wgmmaWeightOnlyRows = o.wgmmaWeightOnlyRows;
  gpu.manifest = o.manifest;
  pm.addPass(createConvertOctetToGPU(gpu));
  if (o.emulate)
    pm.addPass(createOctetEmulateCuda());
  addLowerToLoops(pm);
  if (o.emulate) {
    // The kernels are host functions now (octet-emulate-cuda).
    addLowerToLLVM(pm, /*gpuLaunches=*/false);
    return;
  }
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  addLowerToLLVM(pm, /*gpuLaunches=*/true);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = o.format;
  binary.toolkitPath = o.toolkit.empty() ? getDefaultCudaToolkit() : o.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
/// Options of the octet-lower-to-cuda pipeline.
struct CudaOptions : public PassPipelineOptions<CudaOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("CUDA target: sm_75, sm_80, sm_86, sm_89, sm_90a, "
                     "sm_100a, sm_120a (default: the module's "
                     "#octet.target)"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("bin (cubin through ptxas, default) or isa (PTX)"),
      llvm::cl::init("bin")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit with bin/ptxas (default: "
                     "$OCTET_CUDA_PATH or /usr/local/cuda)"),
      llvm::cl::init("")};
  Option<std::string> manifest{
      *this, "manifest", llvm::cl::desc("Write the kernel manifest here"),
      llvm::cl::init("")};
  Option<int64_t> wgmmaTileN{*this, "wgmma-tile-n",
                             llvm::cl::desc("wgmma block tile N (128, 256)"),
                             llvm::cl::init(128)};
  Option<int64_t> wgmmaStages{*this, "wgmma-stages",
                              llvm::cl::desc("wgmma shared-memory stages"),
                              llvm::cl::init(4)};
  Option<int64_t> gemvRows{*this, "gemv-rows",
                           llvm::cl::desc("lhs rows per gemv block (1-8)"),
                           llvm::cl::init(4)};
  Option<int64_t> wgmmaWeightOnlyRows{
      *this, "wgmma-weight-only-rows",
      llvm::cl::desc("sm_90a: weight-only matmuls with at least this many "
                     "rows run on wgmma instead of the gemv (0: never)"),
      llvm::cl::init(64)};
  Option<bool> emulate{*this, "emulate",
                       llvm::cl::desc("Run the kernels on the CPU "
                                      "(octet-emulate-cuda), for tests"),
                       llvm::cl::init(false)};
};
} // namespace

namespace {
/// Options of the one-flag octet-pipeline.
struct OctetPipelineOptions : public RecipeOptions<OctetPipelineOptions> {
  Option<std::string> recipe{
      *this, "recipe",
      llvm::cl::desc("Quantization recipe, as in octet-quantize: w8a16, "
                     "w4a16, w3a16, w8a8, w8a8-dynamic, w8a8-static, "
                     "w8a8-fp8, w8a16-mxfp8, w4a16-mxfp4, w4a16-nvfp4, "
                     "w8a8-fp8-block, w8a8-mxfp8, w4a8-mxfp4, "
                     "w4a4-mxfp4"),
      llvm::cl::init("w8a8")};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Deployment chip, as in octet-set-target: host, an x86 "
                     "or aarch64 level, or sm_75 ... sm_120a"),
      llvm::cl::init("host")};
  Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("A format the chip does not accelerate is an error "
                     "(octet-select-lowering strict)"),
      llvm::cl::init(false)};
  Option<bool> lower{
      *this, "lower",
      llvm::cl::desc("Lower after selecting the strategies: to the LLVM "
                     "dialect for a CPU target, to host code plus cubin for "
                     "a CUDA one (false: stop after octet-select-lowering)"),
      llvm::cl::init(true)};
  Option<std::string> cudaFormat{
      *this, "cuda-format",
      llvm::cl::desc("CUDA targets: bin (cubin through ptxas) or isa (PTX)"),
      llvm::cl::init("bin")};
};
} // namespace

LogicalResult octet::buildOctetPipeline(OpPassManager &pm,
                                        const OctetPipelineSpec &spec,
                                        std::string &error) {
  // `host` is resolved by octet-set-target from the running CPU.
  const target::TargetInfo *info = target::lookupTarget(spec.target);
  if (!info && spec.target != "host") {
    error = "octet-pipeline: unknown target '" + spec.target +
            "'; valid targets: host, " + target::getValidTargetNames();
    return failure();
  }
  std::optional<QuantRecipe> recipe = symbolizeQuantRecipe(spec.recipe);
  if (!recipe) {
    error = "octet-pipeline: unknown recipe '" + spec.recipe +
            "'; expected " + getValidQuantRecipeNames();
    return failure();
  }
  if (spec.cudaFormat != "bin" && spec.cudaFormat != "isa") {
    error = "octet-pipeline: unknown cuda-format '" + spec.cudaFormat +
            "'; expected bin or isa";
    return failure();
  }
  OctetSetTargetOptions target;
  target.targetName = spec.target;
  pm.addPass(createOctetSetTarget(target));
  QuantizeSpec quantize;
  quantize.recipe = *recipe;
  quantize.stats = spec.stats;
  quantize.method = spec.method;
  quantize.groupSize = spec.groupSize;
  quantize.report = spec.report;
  quantize.skip = spec.skip;
  quantize.skipLmHead = spec.skipLmHead;
  quantize.algorithm = spec.algorithm;
  quantize.damp = spec.damp;
  quantize.actOrder = spec.actOrder;
  quantize.smooth = spec.smooth;
  quantize.clip = spec.clip;
  error = checkQuantizeSpec(quantize, "octet-pipeline");
  if (!error.empty())
    return failure();
  buildQuantizePipeline(pm, quantize);
  bool cuda = info && info->arch == target::Arch::cuda;
  if (cuda && spec.lower) {
    // The CUDA lowering selects the strategies itself (its first pass).
    CudaPipelineOptions o;
    o.format = spec.cudaFormat;
    o.strict = spec.strict;
    buildLowerToCudaPipeline(pm, o);
    return success();
  }
  OctetSelectLoweringOptions select;
  select.strict = spec.strict;
  pm.addPass(createOctetSelectLowering(select));
  if (spec.lower)
    buildLowerToHostPipeline(pm);
  return success();
}

namespace {
/// The options of octet-lower-to-host (HostPipelineOptions).
struct LowerToHostOptions : public PassPipelineOptions<LowerToHostOptions> {
  PassOpts::Option<std::string> isa{
      *this, "isa",
      llvm::cl::desc("Kernel family of octet.matmul: auto (strategy, "
                     "#octet.target, else the running host), avx2, "
                     "avx512-vnni, avx512-bf16, amx-int8, or none (the "
                     "portable lowering)"),
      llvm::cl::init("auto")};
  PassOpts::Option<bool> floatKernels{
      *this, "float-kernels",
      llvm::cl::desc("Lower f32 linalg.matmul / batch_matmul to the "
                     "generated f32 kernels"),
      llvm::cl::init(true)};
  PassOpts::Option<bool> monitor{
      *this, "monitor",
      llvm::cl::desc("Range monitoring: count the values each static "
                     "quantizer clips (octet-monitor-ranges)"),
      llvm::cl::init(false)};
  PassOpts::Option<bool> intoEntries{
      *this, "into-entries",
      llvm::cl::desc("Give each public function an _into entry that writes "
                     "its results into the caller's buffers "
                     "(octet-into-entries)"),
      llvm::cl::init(false)};
};
} // namespace

void octet::registerOctetPipelines() {
  mlir::registerPassPipeline(
      "octet-pipeline",
      "Everything in one flag: octet-set-target, the recipe's quantization "
      "(octet-quantize), octet-select-lowering and the lowering for the "
      "chip (octet-lower-to-host or octet-lower-to-cuda), in that order",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        OctetPipelineOptions opts;
        if (failed(opts.parseFromString(optionsStr)))
          return failure();
        OctetPipelineSpec spec;
        spec.recipe = opts.recipe;
        spec.target = opts.target;
        spec.stats = opts.stats;
        spec.method = opts.method;
        spec.groupSize = opts.groupSize;
        spec.report = opts.report;
        spec.skip = opts.skip;
        spec.skipLmHead = opts.skipLmHead;
        spec.algorithm = opts.algorithm;
        spec.damp = opts.damp;
        spec.actOrder = opts.actOrder;
        spec.smooth = opts.smooth;
        spec.clip = opts.clip;
        spec.strict = opts.strict;
        spec.lower = opts.lower;
        spec.cudaFormat = opts.cudaFormat;
        std::string error;
        if (failed(buildOctetPipeline(pm, spec, error)))
          return errorHandler(error);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(OctetPipelineOptions());
      });
  mlir::registerPassPipeline(
      "octet-quantize",
      "Quantize a float model with a recipe in one step: weights "
      "(octet-quantize-weights), activations (octet-quantize-activations; "
      "w8a8-static needs observers from octet-instrument and stats from "
      "octet-run --calibrate), then octet-fold-scales",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        QuantizeOptions opts;
        if (failed(opts.parseFromString(optionsStr)))
          return failure();
        std::optional<QuantRecipe> recipe = symbolizeQuantRecipe(opts.recipe);
        if (!recipe)
          return errorHandler("octet-quantize: unknown recipe '" +
                              opts.recipe + "'; expected " +
                              getValidQuantRecipeNames());
        QuantizeSpec spec;
        spec.recipe = *recipe;
        spec.stats = opts.stats;
        spec.method = opts.method;
        spec.groupSize = opts.groupSize;
        spec.report = opts.report;
        spec.skip = opts.skip;
        spec.skipLmHead = opts.skipLmHead;
        spec.algorithm = opts.algorithm;
        spec.damp = opts.damp;
        spec.actOrder = opts.actOrder;
        spec.smooth = opts.smooth;
        spec.clip = opts.clip;
        std::string error = checkQuantizeSpec(spec, "octet-quantize");
        if (!error.empty())
          return errorHandler(error);
        buildQuantizePipeline(pm, spec);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(QuantizeOptions());
      });
  // Registered by hand, not with PassPipelineRegistration<>: that one
  // rejects options without a word (`--octet-lower-to-host=x` failed with
  // no message).
  mlir::registerPassPipeline(
      "octet-lower-to-host",
      "Lower a module with octet ops to the LLVM dialect for the host CPU "
      "(octet -> linalg -> bufferized loops -> LLVM); what octet-run uses",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        LowerToHostOptions opts;
        if (failed(opts.parseFromString(optionsStr)))
          return errorHandler(
              "octet-lower-to-host: invalid options '" + optionsStr +
              "'; it takes isa=auto|avx2|avx512-vnni|"
              "avx512-bf16|amx-int8|none, float-kernels=true|false, "
              "monitor=true|false and into-entries=true|false");
        HostPipelineOptions o;
        std::optional<CpuKernelIsa> isa = symbolizeCpuKernelIsa(opts.isa);
        if (!isa)
          return errorHandler("octet-lower-to-host: unknown isa '" +
                              opts.isa +
                              "'; expected auto, avx2, avx512-vnni, "
                              "avx512-bf16, amx-int8 or none");
        o.isa = *isa;
        o.floatKernels = opts.floatKernels;
        o.monitor = opts.monitor;
        o.intoEntries = opts.intoEntries;
        buildLowerToHostPipeline(pm, o);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(LowerToHostOptions());
      });
  mlir::registerPassPipeline(
      "octet-lower-to-cuda",
      "Lower a module with octet ops for a CUDA GPU: kernels (NVVM -> PTX "
      "-> cubin through ptxas) in a gpu.binary and host code in the LLVM "
      "dialect that launches them (docs/cuda.md)",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CudaOptions opts;
        if (failed(opts.parseFromString(optionsStr)))
          return failure();
        if (opts.format != "bin" && opts.format != "isa")
          return errorHandler("octet-lower-to-cuda: unknown format '" +
                              opts.format + "'; expected bin or isa");
        CudaPipelineOptions o;
        o.chip = opts.chip;
        o.format = opts.format;
        o.toolkit = opts.toolkit;
        o.manifest = opts.manifest;
        o.wgmmaTileN = opts.wgmmaTileN;
        o.wgmmaStages = opts.wgmmaStages;
        o.gemvRows = opts.gemvRows;
        o.wgmmaWeightOnlyRows = opts.wgmmaWeightOnlyRows;
        o.emulate = opts.emulate;
        buildLowerToCudaPipeline(pm, o);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(CudaOptions());
      });
}

void octet::registerAllOctetPasses() {
  registerOctetConversionPasses();
  registerOctetTransformsPasses();
  registerOctetTargetPasses();
  registerOctetPipelines();
}
