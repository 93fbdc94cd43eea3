//===- Pipelines.cpp - Octet pass pipelines -------------------------------===//

#include "octet/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "octet/Conversion/Passes.h"
#include "octet/Target/Capabilities.h"
#include "octet/Target/Passes.h"
#include "octet/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;

StringRef octet::getLowerToHostPipeline() {
  return "convert-octet-to-cpu,"
         "convert-octet-to-linalg,"
         "func.func(convert-elementwise-to-linalg),"
         "canonicalize,"
         "func.func(linalg-fuse-elementwise-ops),"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "buffer-deallocation-pipeline,"
         "octet-emit-cpu-kernels,"
         "convert-bufferization-to-memref,"
         "octet-parallelize-loops,"
         "convert-linalg-to-loops,"
         "expand-strided-metadata,"
         "lower-affine,"
         "convert-scf-to-cf,"
         "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
         "arith-expand{include-bf16=true},"
         "convert-vector-to-llvm,"
         "convert-math-to-llvm,"
         "convert-arith-to-llvm,"
         "convert-cf-to-llvm,"
         "finalize-memref-to-llvm,"
         "convert-func-to-llvm,"
         "convert-index-to-llvm,"
         "reconcile-unrealized-casts";
}

std::string octet::getLowerToHostPipeline(const HostPipelineOptions &options) {
  StringRef text = getLowerToHostPipeline();
  if (options.isa == CpuKernelIsa::automatic && options.floatKernels)
    return text.str();
  StringRef first = "convert-octet-to-cpu,";
  assert(text.starts_with(first) && "the lowering starts with the kernels");
  return ("convert-octet-to-cpu{isa=" + stringifyCpuKernelIsa(options.isa) +
          " float-kernels=" +
          (options.floatKernels ? "true" : "false") + "}," +
          text.drop_front(first.size()))
      .str();
}

LogicalResult
octet::buildLowerToHostPipeline(OpPassManager &pm,
                                const HostPipelineOptions &options) {
  return parsePassPipeline(getLowerToHostPipeline(options), pm, llvm::errs());
}

namespace {
using PassOpts = mlir::detail::PassOptions;

/// The options of a quantization recipe beyond its name, shared by
/// octet-quantize and octet-pipeline.
template <typename Derived>
struct RecipeOptions : public PassPipelineOptions<Derived> {
  PassOpts::Option<std::string> stats{
      *this, "stats",
      llvm::cl::desc("w8a8-static: calibration statistics from octet-run "
                     "--calibrate"),
      llvm::cl::init("")};
  PassOpts::Option<std::string> method{
      *this, "method",
      llvm::cl::desc("w8a8-static: minmax, percentile:P or mse"),
      llvm::cl::init("minmax")};
  PassOpts::Option<int64_t> groupSize{
      *this, "group-size",
      llvm::cl::desc("w4a16: elements per group along K"),
      llvm::cl::init(128)};
  PassOpts::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Per-layer weight quantization report (JSON)"),
      llvm::cl::init("")};
};

/// Options of the octet-quantize pipeline.
struct QuantizeOptions : public RecipeOptions<QuantizeOptions> {
  Option<std::string> recipe{
      *this, "recipe",
      llvm::cl::desc("w8a16 | w4a16 | w8a8-dynamic | w8a8-static | "
                     "w8a8-fp8 (FP8 E4M3 weights and dynamic per-token "
                     "activations) | w8a8 (INT8 or FP8 per the module's "
                     "#octet.target, dynamic activations)"),
      llvm::cl::init("w8a16")};
};
} // namespace

FailureOr<std::string> octet::getQuantizePipeline(StringRef recipe,
                                                  StringRef stats,
                                                  StringRef method,
                                                  int64_t groupSize,
                                                  StringRef report) {
  std::string weights, activations;
  std::string rep = report.empty() ? "" : (" report=" + report).str();
  if (recipe == "w8a16" || recipe == "w8a8-dynamic" ||
      recipe == "w8a8-static")
    weights = "octet-quantize-weights{format=i8 granularity=per-channel" +
              rep + "}";
  else if (recipe == "w4a16")
    weights = ("octet-quantize-weights{format=i4 granularity=per-group "
               "group-size=" +
               Twine(groupSize) + rep + "}")
                  .str();
  else if (recipe == "w8a8")
    weights = "octet-quantize-weights{format=auto recipe=w8a8 "
              "granularity=per-channel" +
              rep + "}";
  else if (recipe == "w8a8-fp8")
    weights = "octet-quantize-weights{format=f8E4M3FN "
              "granularity=per-channel" +
              rep + "}";
  else
    return failure();
  if (recipe == "w8a8-dynamic")
    activations = "octet-quantize-activations{mode=dynamic format=i8},";
  else if (recipe == "w8a8")
    activations = "octet-quantize-activations{mode=dynamic format=auto "
                  "recipe=w8a8},";
  else if (recipe == "w8a8-fp8")
    activations =
        "octet-quantize-activations{mode=dynamic format=f8E4M3FN},";
  else if (recipe == "w8a8-static")
    activations = ("octet-quantize-activations{mode=static format=i8 "
                   "stats=" +
                   stats + " method=" + method + "},")
                      .str();
  return weights + "," + activations + "octet-fold-scales,canonicalize,cse";
}

std::string octet::getDefaultCudaToolkit() {
  if (const char *env = std::getenv("OCTET_CUDA_PATH"); env && *env)
    return env;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  return "";
}

std::string octet::getLowerToCudaPipeline(const CudaPipelineOptions &o) {
  std::string toolkit = o.toolkit.empty() ? getDefaultCudaToolkit() : o.toolkit;
  std::string p;
  llvm::raw_string_ostream os(p);
  if (!o.chip.empty())
    os << "octet-set-target{target=" << o.chip << "},";
  os << (o.strict ? "octet-select-lowering{strict=true}," : "octet-select-lowering,")
     << "octet-outline-for-cuda,"
        "func.func(convert-elementwise-to-linalg),"
        "canonicalize,"
        "func.func(linalg-fuse-elementwise-ops),"
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map},"
        "buffer-deallocation-pipeline,"
        "convert-bufferization-to-memref,"
     << "convert-octet-to-gpu{wgmma-tile-n=" << o.wgmmaTileN
     << " wgmma-stages=" << o.wgmmaStages << " gemv-rows=" << o.gemvRows;
  if (!o.manifest.empty())
    os << " manifest=" << o.manifest;
  os << "},";
  if (o.emulate)
    os << "octet-emulate-cuda,";
  os << "convert-linalg-to-loops,"
        "expand-strided-metadata,"
        "lower-affine,";
  if (!o.emulate)
    os << "gpu.module(convert-scf-to-cf,"
          "convert-gpu-to-nvvm,convert-nvvm-to-llvm,canonicalize,cse,"
          "reconcile-unrealized-casts),";
  os << "convert-scf-to-cf,"
        "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
        "arith-expand{include-bf16=true},"
        "convert-vector-to-llvm,"
        "convert-math-to-llvm,"
        "convert-arith-to-llvm,"
        "convert-cf-to-llvm,"
        "finalize-memref-to-llvm,"
        "convert-func-to-llvm,";
  if (o.emulate) {
    os << "convert-index-to-llvm,reconcile-unrealized-casts";
    return p;
  }
  os << "gpu-to-llvm,"
        "convert-index-to-llvm,"
        "reconcile-unrealized-casts,"
     << "gpu-module-to-binary{format=" << o.format;
  if (!toolkit.empty())
    os << " toolkit=" << toolkit;
  os << "}";
  return p;
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
                     "w4a16, w8a8, w8a8-dynamic, w8a8-static, w8a8-fp8"),
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

FailureOr<std::string> octet::getOctetPipeline(const OctetPipelineSpec &spec,
                                               std::string &error) {
  // `host` is resolved by octet-set-target from the running CPU.
  const target::TargetInfo *info = target::lookupTarget(spec.target);
  if (!info && spec.target != "host") {
    error = "octet-pipeline: unknown target '" + spec.target +
            "'; valid targets: host, " + target::getValidTargetNames();
    return failure();
  }
  FailureOr<std::string> quantize = getQuantizePipeline(
      spec.recipe, spec.stats, spec.method, spec.groupSize, spec.report);
  if (failed(quantize)) {
    error = "octet-pipeline: unknown recipe '" + spec.recipe +
            "'; expected w8a16, w4a16, w8a8, w8a8-dynamic, w8a8-static or "
            "w8a8-fp8";
    return failure();
  }
  if (spec.cudaFormat != "bin" && spec.cudaFormat != "isa") {
    error = "octet-pipeline: unknown cuda-format '" + spec.cudaFormat +
            "'; expected bin or isa";
    return failure();
  }
  std::string p = "octet-set-target{target=" + spec.target + "}," + *quantize;
  bool cuda = info && info->arch == target::Arch::cuda;
  if (!spec.lower || !cuda)
    p += spec.strict ? ",octet-select-lowering{strict=true}"
                     : ",octet-select-lowering";
  if (!spec.lower)
    return p;
  if (cuda) {
    // The CUDA lowering selects the strategies itself (its first pass).
    CudaPipelineOptions o;
    o.format = spec.cudaFormat;
    o.strict = spec.strict;
    return p + "," + getLowerToCudaPipeline(o);
  }
  return p + "," + getLowerToHostPipeline().str();
}

namespace {
/// The options of octet-lower-to-host (HostPipelineOptions).
struct LowerToHostOptions : public PassPipelineOptions<LowerToHostOptions> {
  PassOpts::Option<std::string> isa{
      *this, "isa",
      llvm::cl::desc("Kernel family of octet.matmul: auto (strategy, "
                     "#octet.target, else the running host), avx2, "
                     "avx512-vnni, amx-int8, or none (the portable lowering)"),
      llvm::cl::init("auto")};
  PassOpts::Option<bool> floatKernels{
      *this, "float-kernels",
      llvm::cl::desc("Lower f32 linalg.matmul / batch_matmul to the "
                     "generated f32 kernels"),
      llvm::cl::init(true)};
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
        spec.strict = opts.strict;
        spec.lower = opts.lower;
        spec.cudaFormat = opts.cudaFormat;
        std::string error;
        FailureOr<std::string> text = getOctetPipeline(spec, error);
        if (failed(text))
          return errorHandler(error);
        return parsePassPipeline(*text, pm, llvm::errs());
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
        FailureOr<std::string> text =
            getQuantizePipeline(opts.recipe, opts.stats, opts.method,
                                opts.groupSize, opts.report);
        if (failed(text))
          return errorHandler("octet-quantize: unknown recipe '" +
                              opts.recipe +
                              "'; expected w8a16, w4a16, w8a8, w8a8-dynamic, "
                              "w8a8-static or w8a8-fp8");
        return parsePassPipeline(*text, pm, llvm::errs());
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
          return errorHandler("octet-lower-to-host: invalid options '" +
                              optionsStr +
                              "'; it takes isa=auto|avx2|avx512-vnni|"
                              "amx-int8|none and float-kernels=true|false");
        HostPipelineOptions o;
        std::optional<CpuKernelIsa> isa = symbolizeCpuKernelIsa(opts.isa);
        if (!isa)
          return errorHandler("octet-lower-to-host: unknown isa '" +
                              opts.isa +
                              "'; expected auto, avx2, avx512-vnni, "
                              "amx-int8 or none");
        o.isa = *isa;
        o.floatKernels = opts.floatKernels;
        return buildLowerToHostPipeline(pm, o);
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
        o.emulate = opts.emulate;
        return parsePassPipeline(getLowerToCudaPipeline(o), pm, llvm::errs());
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
