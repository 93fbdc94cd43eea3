//===- octet-run.cpp - JIT-run an MLIR function on .npy files -------------===//
//
//   octet-run FILE.mlir --entry NAME --input a.npy ... --output out.npy ...
//
// Lowers the module for the host CPU (the octet-lower-to-host pipeline) if it
// is not lowered yet, JIT-compiles it, calls NAME with the arrays read from
// the inputs and writes its results. Tensor arguments and results map to .npy
// arrays; FP8 elements travel as their uint8 bit patterns, f4E2M1FN as
// uint8 (the code in the low nibble, ml_dtypes' float4_e2m1fn layout), i4 as
// int8 (sign-extended), bf16 as uint16 bits, index as int64.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Pipelines/Pipelines.h"
#include "octet/Runtime/OctetRuntime.h"
#include "octet/Runtime/Calibration.h"
#include "octet/Runtime/Npy.h"

#include "Arguments.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <malloc.h>
#include <set>
#include <thread>

using namespace mlir;
namespace npy = ::octet::runtime;
using namespace octet_run;

/// The options --help lists (LLVM's and MLIR's own stay available;
/// --help-hidden lists them).
static llvm::cl::OptionCategory toolOptions("octet-run options");

static llvm::cl::opt<std::string> inputFile(llvm::cl::cat(toolOptions),
                                            llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    entryName(llvm::cl::cat(toolOptions), "entry",
              llvm::cl::desc("Function to run (default: main)"),
              llvm::cl::init("main"));
static llvm::cl::list<std::string>
    inputFiles(llvm::cl::cat(toolOptions), "input",
               llvm::cl::desc("A .npy file per argument, in order"));
static llvm::cl::list<std::string>
    outputFiles(llvm::cl::cat(toolOptions), "output",
                llvm::cl::desc("A .npy file per result, in order"));
static llvm::cl::opt<std::string>
    pipeline(llvm::cl::cat(toolOptions), "pipeline",
             llvm::cl::desc("Lowering pipeline (default: octet-lower-to-host)"),
             llvm::cl::init(""));
static llvm::cl::opt<bool>
    printLowered(llvm::cl::cat(toolOptions), "print-lowered",
                 llvm::cl::desc("Print the module after lowering"));
static llvm::cl::opt<unsigned>
    repeat(llvm::cl::cat(toolOptions), "repeat",
           llvm::cl::desc("Run the function N times and report the median time "
                          "on stderr"),
           llvm::cl::init(1));
static llvm::cl::opt<bool> library(
    llvm::cl::cat(toolOptions), "library",
    llvm::cl::desc("The positional argument is a shared library built by "
                   "octet-compile: call it instead of JIT-compiling"));
static llvm::cl::opt<std::string> calibrate(
    llvm::cl::cat(toolOptions), "calibrate",
    llvm::cl::desc("Calibration: run every batch (comma-separated --input "
                   "lists, one file per batch), record the statistics of "
                   "each octet.observe and write them to this JSON file"),
    llvm::cl::init(""));
static llvm::cl::opt<bool> secondMoment(
    llvm::cl::cat(toolOptions), "second-moment",
    llvm::cl::desc("With --calibrate: also accumulate each observed "
                   "tensor's second moment sum x x^T over the rows of its "
                   "last dimension (GPTQ's Hessian, for "
                   "octet-quantize-weights algorithm=gptq), written as "
                   "float64 .npy files in FILE's directory under "
                   "<FILE stem>.second-moment/"),
    llvm::cl::init(false));
static llvm::cl::opt<bool> channelStats(
    llvm::cl::cat(toolOptions), "channel-stats",
    llvm::cl::desc("With --calibrate: also record, per observed tensor, each "
                   "channel's absmax and mean |x| over the rows of its last "
                   "dimension (for octet-smooth-quant and "
                   "octet-quantize-weights algorithm=awq)"),
    llvm::cl::init(false));
static llvm::cl::opt<std::string> monitorFile(
    llvm::cl::cat(toolOptions), "monitor",
    llvm::cl::desc("Range monitoring: run every batch (comma-separated "
                   "--input lists, as for --calibrate) with a counter on "
                   "each static quantizer and write, per quantizer, the "
                   "values clipped and the largest |x| to this JSON file "
                   "(docs/monitoring.md). A --library must have been "
                   "compiled with octet-compile --monitor"),
    llvm::cl::init(""));
static llvm::cl::opt<unsigned>
    optLevel(llvm::cl::cat(toolOptions), "O",
             llvm::cl::desc("LLVM optimization level (0-3, default 3)"),
             llvm::cl::Prefix, llvm::cl::init(3));

namespace {

/// Prints `octet-run: error: ...` and exits with status 1.
[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "octet-run: error: " << message << "\n";
  std::exit(1);
}

/// Reads result #`index` from `base` (its slice of the return struct) and
/// writes it as .npy to `path` (nothing when empty, after checking that it
/// has an .npy form).
void writeResult(unsigned index, Type type, const char *base,
                 const std::string &path) {
  npy::NpyArray out;
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    const int64_t *w = reinterpret_cast<const int64_t *>(base);
    Type et = shaped.getElementType();
    int64_t rank = shaped.getRank();
    auto *aligned = reinterpret_cast<const char *>(w[1]);
    int64_t offset = w[2];
    std::vector<int64_t> sizes(w + 3, w + 3 + rank);
    std::vector<int64_t> strides(w + 3 + rank, w + 3 + 2 * rank);
    std::optional<npy::NpyDType> dt = npyTypeFor(et);
    if (!dt)
      fail("result #" + llvm::Twine(index) + " has element type " +
           typeString(et) + ", which has no .npy form");
    out.dtype = *dt;
    out.shape = sizes;
    size_t eb = elementBytes(et);
    int64_t n = npy::numElements(sizes);
    out.data.resize(n * eb);
    bool i4 = et.isInteger(4);
    bool fp4 = isa<Float4E2M1FNType>(et);
    // Copy honoring strides, element by element in row-major order.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = offset;
      for (int64_t d = 0; d < rank; ++d)
        off += idx[d] * strides[d];
      std::memcpy(&out.data[i * eb], aligned + off * eb, eb);
      if (i4) {
        uint8_t v = out.data[i] & 0x0f;
        out.data[i] = (v & 0x8) ? (v | 0xf0) : v;
      }
      if (fp4)
        out.data[i] &= 0x0f;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < sizes[d])
          break;
        idx[d] = 0;
      }
    }
  } else {
    std::optional<npy::NpyDType> dt = npyTypeFor(type);
    if (!dt)
      fail("result #" + llvm::Twine(index) + " of type " + typeString(type) +
           " has no .npy form");
    out.dtype = *dt;
    size_t eb = elementBytes(type);
    out.data.resize(eb);
    std::memcpy(out.data.data(), base, eb);
  }
  if (path.empty())
    return;
  std::string error;
  if (!npy::writeNpy(path, out, error))
    fail(error);
}

/// Calibration state shared with the generated code's observer calls.
struct Calibrator {
  enum class Pass { Range, Histogram } pass = Pass::Range;
  std::vector<std::string> names;
  std::vector<::octet::calibration::TensorStats> stats;
  /// --second-moment: per observed tensor.
  std::vector<::octet::calibration::SecondMoment> moments;
  /// --channel-stats: per observed tensor.
  std::vector<::octet::calibration::ChannelStats> channels;
  std::vector<float> scratch;
};

namespace cal = ::octet::calibration;

/// X^T X's upper triangle, rows [i0, i1): compiled twice, for AVX2 + FMA
/// (chosen at run time) and for the baseline ISA.
__attribute__((target("avx2,fma"))) void gramAvx2(const double *x,
                                                   int64_t rows, int64_t dim,
                                                   int64_t i0, int64_t i1,
                                                   double *out) {
  cal::gramUpper(x, rows, dim, i0, i1, out);
}
void gramBaseline(const double *x, int64_t rows, int64_t dim, int64_t i0,
                  int64_t i1, double *out) {
  cal::gramUpper(x, rows, dim, i0, i1, out);
}

/// One observed tensor's rows and their X^T X, kept for the next observers:
/// the q, k and v projections (gate and up) observe the same value, whose
/// product is computed once.
struct GramEntry {
  std::vector<float> data;
  std::vector<double> inc;
  uint64_t rows = 0, skipped = 0;
};

/// Adds the rows of `x` (`n / m.dim` rows of m.dim values) to `m`. The
/// upper triangle is split between two threads at the row that halves the
/// work; the product of a tensor equal to one of the last few is reused.
void addSecondMoment(cal::SecondMoment &m, const float *x, int64_t n) {
  static std::vector<GramEntry> recent; // most recent last
  const int64_t dim = m.dim, rows = n / dim;
  for (auto it = recent.begin(); it != recent.end(); ++it)
    if (it->data.size() == static_cast<size_t>(n) &&
        it->inc.size() == static_cast<size_t>(dim * dim) &&
        std::memcmp(it->data.data(), x, n * sizeof(float)) == 0) {
      m.addIncrement(it->inc.data(), it->rows, it->skipped);
      return;
    }
  GramEntry e;
  e.data.assign(x, x + n);
  std::vector<double> xd;
  xd.reserve(n);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = x + r * dim;
    bool finite = true;
    for (int64_t j = 0; j < dim && finite; ++j)
      finite = std::isfinite(row[j]);
    if (!finite) {
      ++e.skipped;
      continue;
    }
    xd.insert(xd.end(), row, row + dim);
    ++e.rows;
  }
  e.inc.assign(dim * dim, 0.0);
  auto gram = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                  ? gramAvx2
                  : gramBaseline;
  const int64_t r = static_cast<int64_t>(e.rows);
  if (std::thread::hardware_concurrency() < 2 || dim < 64) {
    gram(xd.data(), r, dim, 0, dim, e.inc.data());
  } else {
    // Row i costs dim - i: split where the first part has half the total.
    double total = 0.5 * dim * (dim + 1), acc = 0;
    int64_t split = 0;
    while (split < dim && acc < total / 2)
      acc += dim - split++;
    std::thread t([&] { gram(xd.data(), r, dim, 0, split, e.inc.data()); });
    gram(xd.data(), r, dim, split, dim, e.inc.data());
    t.join();
  }
  m.addIncrement(e.inc.data(), e.rows, e.skipped);
  recent.push_back(std::move(e));
  if (recent.size() > 4)
    recent.erase(recent.begin());
}

Calibrator *activeCalibrator = nullptr;

/// The ranked part of a memref descriptor of f32.
struct RankedF32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizesAndStrides[1];
};
struct UnrankedF32 {
  int64_t rank;
  RankedF32 *descriptor;
};

/// Called by the code octet-lower-observers generates.
extern "C" void observeCallback(int64_t id, UnrankedF32 *m) {
  Calibrator *c = activeCalibrator;
  if (!c || id < 0 || id >= static_cast<int64_t>(c->stats.size()))
    return;
  int64_t rank = m->rank;
  const int64_t *sizes = m->descriptor->sizesAndStrides;
  const int64_t *strides = sizes + rank;
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d)
    n *= sizes[d];
  c->scratch.resize(n);
  std::vector<int64_t> idx(rank, 0);
  const float *base = m->descriptor->aligned + m->descriptor->offset;
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += idx[d] * strides[d];
    c->scratch[i] = base[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
  }
  if (c->pass == Calibrator::Pass::Range) {
    c->stats[id].addRange(c->scratch.data(), n);
    if (!c->moments.empty() && rank > 0 && sizes[rank - 1] > 0) {
      auto &m = c->moments[id];
      int64_t dim = sizes[rank - 1];
      // dim x dim doubles: refuse what would not fit rather than abort.
      constexpr int64_t kMaxDim = 16384; // 2 GiB
      if (dim > kMaxDim)
        fail("--second-moment: '" + c->names[id] + "' has a last dimension "
             "of " + llvm::Twine(dim) + "; its second moment would be " +
             llvm::Twine(dim) + "x" + llvm::Twine(dim) + " float64 (at most " +
             llvm::Twine(kMaxDim) + " is accumulated)");
      if (m.dim == 0)
        m.dim = dim;
      if (m.dim != dim)
        fail("--second-moment: '" + c->names[id] + "' has a last dimension "
             "of " + llvm::Twine(dim) + " in this batch and " +
             llvm::Twine(m.dim) + " before");
      addSecondMoment(m, c->scratch.data(), n);
    }
    if (!c->channels.empty() && rank > 0 && sizes[rank - 1] > 0) {
      auto &ch = c->channels[id];
      int64_t dim = sizes[rank - 1];
      if (ch.dim == 0)
        ch.dim = dim;
      if (ch.dim != dim)
        fail("--channel-stats: '" + c->names[id] + "' has a last dimension "
             "of " + llvm::Twine(dim) + " in this batch and " +
             llvm::Twine(ch.dim) + " before");
      ch.add(c->scratch.data(), n);
    }
  } else
    c->stats[id].addHistogram(c->scratch.data(), n);
}

/// Returns true if `module` still needs lowering (anything but LLVM ops).
bool needsLowering(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    if (op == module.getOperation())
      return WalkResult::advance();
    if (!isa<LLVM::LLVMDialect>(op->getDialect())) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Initializes the native target (for the JIT) and parses the command line.
void parseOptions(int argc, char **argv) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerPassManagerCLOptions();
  llvm::cl::HideUnrelatedOptions(toolOptions);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "octet-run: lower an MLIR module for the host CPU, JIT-run one "
      "function on .npy inputs and write its results as .npy\n");
}

/// Registers every dialect, extension, LLVM translation and pass the input
/// module and the lowering pipelines may need.
void registerDialectsAndPasses(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<mlir::octet::OctetDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerAllPasses();
  mlir::octet::registerAllOctetPasses();
}

/// The function octet-run calls: its signature before lowering (which
/// decides how arrays are passed) and, once compiled or loaded, its packed
/// entry point.
struct EntryPoint {
  FunctionType type;
  void (*fn)(void **) = nullptr;
  void *library = nullptr; ///< dlopen handle with --library.
};

/// Loads the shared library named by the positional argument (built by
/// octet-compile) and finds --entry in it: the signature is embedded as
/// text. Fails on a library that cannot be loaded or lacks the function,
/// and on --calibrate, which needs the MLIR module.
EntryPoint loadLibrary(MLIRContext &context) {
  const std::string &libPath = inputFile;
  // dlopen looks a name without a '/' up on the library search path
  // (`--library libm.so` would load the system's libm): the user means
  // the file they named.
  std::string openPath =
      libPath.find('/') == std::string::npos ? "./" + libPath : libPath;
  void *handle = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    fail("cannot load '" + libPath + "': " + dlerror());
  auto *sig = static_cast<const char *>(
      dlsym(handle, ("octet_signature_" + entryName).c_str()));
  EntryPoint entry;
  entry.fn = reinterpret_cast<void (*)(void **)>(
      dlsym(handle, ("_octet_packed_" + entryName).c_str()));
  if (!sig || !entry.fn)
    fail("'" + libPath + "' exports no function '" + entryName +
         "' built by octet-compile");
  std::string error;
  entry.type = parseLibrarySignature(sig, entryName, context, error);
  if (!entry.type)
    fail("'" + libPath + "': " + error);
  if (!calibrate.empty())
    fail("--calibrate needs the MLIR module, not a compiled library");
  entry.library = handle;
  return entry;
}

/// Parses the positional .mlir file into a module, its diagnostics
/// reported through `sourceMgr`.
OwningOpRef<ModuleOp> loadModule(llvm::SourceMgr &sourceMgr,
                                 MLIRContext &context) {
  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    fail(errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    fail("could not parse '" + inputFile + "'");
  return module;
}

/// The signature of --entry in `module` before lowering. Fails (listing
/// the functions there are) when there is no such func.func, and on a
/// declaration.
FunctionType getEntrySignature(ModuleOp module) {
  auto func = module.lookupSymbol<func::FuncOp>(entryName);
  if (!func) {
    std::string names;
    module.walk([&](func::FuncOp f) {
      names += (names.empty() ? "" : ", ") + f.getSymName().str();
    });
    fail("no func.func named '" + entryName + "' in '" + inputFile + "'" +
         (names.empty()
              ? std::string(" (octet-run needs the function before "
                            "lowering)")
              : " (functions: " + names + ")"));
  }
  if (func.isExternal())
    fail("'" + entryName + "' is only a declaration");
  return func.getFunctionType();
}

/// Checks that the --input and --output files fit `fnType` and that
/// octet-run can return each of its results.
void checkSignature(FunctionType fnType) {
  if (std::string error = checkArity(fnType, entryName, inputFiles.size(),
                                     outputFiles.size());
      !error.empty())
    fail(error);
  if (std::string error = checkResults(fnType); !error.empty())
    fail(error);
}

/// Reads and checks the inputs, before any time is spent on compilation:
/// one argument list per batch. With --calibrate or --monitor each --input
/// may list one file per batch (comma-separated; a single file serves every
/// batch); otherwise there is one batch.
std::vector<std::vector<Slot>> readInputs(FunctionType fnType) {
  bool calibrating = !calibrate.empty() || !monitorFile.empty();
  std::vector<std::vector<std::string>> batchFiles;
  size_t numBatches = 1;
  for (const std::string &spec : inputFiles) {
    SmallVector<StringRef> parts;
    StringRef(spec).split(parts, ',', -1, /*KeepEmpty=*/false);
    if (!calibrating || parts.empty())
      parts.assign(1, spec);
    batchFiles.emplace_back(parts.begin(), parts.end());
    if (parts.size() > 1) {
      if (numBatches > 1 && parts.size() != numBatches)
        fail("--input lists have different numbers of batches (" +
             llvm::Twine(numBatches) + " vs " + llvm::Twine(parts.size()) +
             ")");
      numBatches = parts.size();
    }
  }
  std::vector<std::vector<Slot>> batches(numBatches);
  for (size_t bi = 0; bi < numBatches; ++bi) {
    for (auto [i, t] : llvm::enumerate(fnType.getInputs())) {
      const std::string &path =
          batchFiles[i].size() == 1 ? batchFiles[i][0] : batchFiles[i][bi];
      npy::NpyArray array;
      std::string error;
      if (!npy::readNpy(path, array, error))
        fail(error);
      std::optional<Slot> slot = makeArgument(i, t, array, path, error);
      if (!slot)
        fail(error);
      batches[bi].push_back(std::move(*slot));
    }
  }
  return batches;
}

/// Lowers the octet.observe ops of `module` to calls of observeCallback
/// and sets `calibrator` up for the tensors they observe. Fails when the
/// module has none.
void prepareCalibration(ModuleOp module, MLIRContext &context,
                        Calibrator &calibrator) {
  PassManager pm(&context);
  if (failed(parsePassPipeline("octet-lower-observers", pm, llvm::errs())) ||
      failed(pm.run(module)))
    fail("lowering the observers of '" + inputFile + "' failed");
  auto names = module->getAttrOfType<ArrayAttr>("octet.observers");
  if (!names || names.empty())
    fail("--calibrate: '" + inputFile +
         "' has no octet.observe ops (run octet-opt --octet-instrument "
         "first)");
  for (Attribute a : names)
    calibrator.names.push_back(cast<StringAttr>(a).str());
  calibrator.stats.resize(calibrator.names.size());
  if (secondMoment)
    calibrator.moments.resize(calibrator.names.size());
  if (channelStats)
    calibrator.channels.resize(calibrator.names.size());
}

/// Lowers `module` to the LLVM dialect (--pipeline, by default
/// octet-lower-to-host) unless it is lowered already, and prints it with
/// --print-lowered.
void lowerForHost(ModuleOp module, MLIRContext &context) {
  if (needsLowering(module)) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      fail("invalid pass manager options");
    std::string text = pipeline.empty()
                           ? mlir::octet::getLowerToHostPipeline().str()
                           : pipeline.getValue();
    if (failed(parsePassPipeline(text, pm, llvm::errs())))
      fail("invalid --pipeline '" + text + "'");
    if (failed(pm.run(module)))
      fail("lowering '" + inputFile + "' failed");
  }
  // Argument attributes that only guided bufferization mean nothing to
  // LLVM (and would warn).
  module.walk([](LLVM::LLVMFuncOp fn) {
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.removeArgAttr(i, "bufferization.access");
  });
  if (printLowered)
    module.print(llvm::outs());
}

/// The symbols the JIT-compiled code may call outside itself: the
/// calibration observer and the runtime entry points generated CPU kernels
/// call.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  map[interner("_mlir_ciface_octet_observe")] = {
      llvm::orc::ExecutorAddr::fromPtr(&observeCallback),
      llvm::JITSymbolFlags::Exported};
  // The runtime entry points generated CPU kernels call.
  auto add = [&](const char *name, auto *fn) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                           llvm::JITSymbolFlags::Exported};
  };
#define OCTET_ADD_SYMBOL(name) add(#name, &name);
  OCTET_RUNTIME_CPU_CODEGEN_SYMBOLS(OCTET_ADD_SYMBOL)
#undef OCTET_ADD_SYMBOL
  return map;
}

/// JIT-compiles the lowered `module` for the host at -O and sets
/// `entry.fn` to the packed wrapper of --entry. The returned engine owns
/// the code and must outlive the calls.
std::unique_ptr<ExecutionEngine> jitCompile(ModuleOp module,
                                            EntryPoint &entry) {
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    fail("cannot detect the host: " + llvm::toString(tmBuilder.takeError()));
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    fail("cannot create a target machine: " + llvm::toString(tm.takeError()));
  auto transformer =
      makeOptimizingTransformer(std::min(3u, optLevel.getValue()), 0, tm->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(
      std::min(3u, optLevel.getValue()));
  auto engine = ExecutionEngine::create(module, options, std::move(*tm));
  if (!engine)
    fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
  (*engine)->registerSymbols(runtimeSymbols);
  auto fn = (*engine)->lookupPacked(entryName);
  if (!fn)
    fail("cannot find '" + entryName +
         "' after lowering: " + llvm::toString(fn.takeError()));
  entry.fn = *fn;
  return std::move(*engine);
}

/// Calls the entry function and frees what its calls allocate.
///
/// Packed calling convention. JIT: the ExecutionEngine's packed wrapper
/// takes one pointer per scalar of the expanded signature, then one to the
/// storage of the (struct) result. Library: the wrapper octet-compile emits
/// takes one pointer per C-interface parameter (result pointer first,
/// memrefs by descriptor pointer).
///
/// What a run allocates is freed (LeakSanitizer checks the tools too): the
/// input copies, and the result buffers of each call, which the generated
/// code mallocs (a result that is an input argument is not freed twice).
class EntryCall {
public:
  EntryCall(const EntryPoint &entry, bool fromLibrary,
            const std::vector<std::vector<Slot>> &batches)
      : entry(entry), fromLibrary(fromLibrary) {
    int64_t words = 0;
    for (Type t : entry.type.getResults())
      words += resultWords(t);
    results.assign(std::max<int64_t>(words, 1), 0);
    resultStorage = results.data();
    for (const std::vector<Slot> &batch : batches)
      for (const Slot &s : batch)
        if (s.buffer)
          inputBuffers.insert(s.buffer);
  }
  // pack() hands out pointers into the object.
  EntryCall(const EntryCall &) = delete;
  EntryCall &operator=(const EntryCall &) = delete;

  /// The argument pointers of a call on `slots`; valid until the next
  /// pack().
  std::vector<void *> pack(std::vector<Slot> &slots) {
    std::vector<void *> p;
    if (fromLibrary) {
      if (entry.type.getNumResults())
        p.push_back(&resultStorage);
      descriptorPtrs.assign(slots.size(), nullptr);
      for (auto [i, s] : llvm::enumerate(slots)) {
        if (s.rank >= 0) {
          descriptorPtrs[i] = s.desc.data();
          p.push_back(&descriptorPtrs[i]);
        } else {
          p.push_back(s.desc.data());
        }
      }
      return p;
    }
    for (Slot &s : slots)
      for (int64_t &w : s.desc)
        p.push_back(&w);
    if (entry.type.getNumResults())
      p.push_back(results.data());
    return p;
  }

  /// Calls the function with arguments from pack().
  void call(std::vector<void *> &packed) { entry.fn(packed.data()); }

  /// The results of the last call, in the returned struct's layout.
  const std::vector<int64_t> &getResults() const { return results; }

  /// Frees the result buffers of the last call (never the inputs).
  void freeResults() {
    int64_t off = 0;
    std::set<void *> freed;
    for (Type t : entry.type.getResults()) {
      if (isa<ShapedType>(t)) {
        void *p = reinterpret_cast<void *>(results[off]);
        if (p && !inputBuffers.count(p) && freed.insert(p).second)
          std::free(p);
      }
      off += resultWords(t);
    }
  }

  /// Frees the input copies of every batch.
  void freeInputs() {
    for (void *p : inputBuffers)
      std::free(p);
  }

private:
  EntryPoint entry;
  bool fromLibrary;
  std::vector<int64_t> results;
  void *resultStorage = nullptr;
  std::vector<void *> descriptorPtrs;
  std::set<void *> inputBuffers;
};

/// Runs every batch twice through `call` with `calibrator` active: the
/// first pass records the range of each observed tensor, the second the
/// histograms over it.
void runCalibration(EntryCall &call, std::vector<std::vector<Slot>> &batches,
                    Calibrator &calibrator) {
  activeCalibrator = &calibrator;
  for (auto pass : {Calibrator::Pass::Range, Calibrator::Pass::Histogram}) {
    calibrator.pass = pass;
    for (std::vector<Slot> &batch : batches) {
      std::vector<void *> p = call.pack(batch);
      call.call(p);
      call.freeResults();
    }
  }
  activeCalibrator = nullptr;
}

/// Writes the statistics of `calibrator` over `numBatches` batches to the
/// --calibrate file and reports it on stderr.
void writeCalibration(const Calibrator &calibrator, size_t numBatches) {
  namespace cal = ::octet::calibration;
  // --second-moment: one .npy per distinct matrix (observers of the same
  // value, e.g. the q, k and v projections' input, share one), named by
  // index in <stem>.second-moment/ beside the statistics file.
  std::vector<std::string> momentFile(calibrator.moments.size());
  if (!calibrator.moments.empty()) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(calibrate));
    std::string sub = (llvm::sys::path::stem(calibrate) + ".second-moment")
                          .str();
    llvm::sys::path::append(dir, sub);
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      fail("cannot create '" + dir.str() + "': " + ec.message());
    std::vector<size_t> written;
    for (size_t ti = 0; ti < calibrator.moments.size(); ++ti) {
      const cal::SecondMoment &m = calibrator.moments[ti];
      if (m.dim == 0 || m.sum.empty())
        continue;
      for (size_t w : written) {
        const cal::SecondMoment &o = calibrator.moments[w];
        if (o.dim == m.dim && o.rows == m.rows && o.sum == m.sum) {
          momentFile[ti] = momentFile[w];
          break;
        }
      }
      if (!momentFile[ti].empty())
        continue;
      std::string name = std::to_string(written.size()) + ".npy";
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, name);
      std::vector<double> full = m.full();
      int64_t shape[2] = {m.dim, m.dim};
      std::string error;
      if (!npy::writeNpy(path.str().str(), npy::NpyDType::F64, shape, 2,
                         full.data(), error))
        fail(error);
      momentFile[ti] = sub + "/" + name;
      written.push_back(ti);
    }
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(calibrate, ec);
  if (ec)
    fail("cannot write '" + calibrate + "': " + ec.message());
  llvm::json::OStream j(os, /*IndentSize=*/1);
  j.object([&] {
    j.attribute(cal::kFormatKey, cal::kStatsFormat);
    j.attribute(cal::kVersionKey, cal::kStatsVersion);
    j.attribute(cal::kEntryKey, entryName.getValue());
    j.attribute(cal::kBatchesKey, static_cast<int64_t>(numBatches));
    j.attribute(cal::kHistogramBinsKey, cal::kHistogramBins);
    j.attributeObject(cal::kTensorsKey, [&] {
      for (size_t ti = 0; ti < calibrator.names.size(); ++ti) {
        const auto &st = calibrator.stats[ti];
        j.attributeObject(calibrator.names[ti], [&] {
          j.attribute(cal::kMinKey, st.minV);
          j.attribute(cal::kMaxKey, st.maxV);
          j.attribute(cal::kAbsmaxKey, st.absmax);
          j.attribute(cal::kCountKey, static_cast<int64_t>(st.count));
          j.attribute(cal::kNonFiniteKey, static_cast<int64_t>(st.nonFinite));
          // One line for the 2048 counts.
          j.attributeBegin(cal::kHistogramKey);
          j.rawValue([&](llvm::raw_ostream &out) {
            out << "[";
            for (size_t hi = 0; hi < st.histogram.size(); ++hi)
              out << (hi ? "," : "") << st.histogram[hi];
            out << "]";
          });
          j.attributeEnd();
          if (ti < momentFile.size() && !momentFile[ti].empty()) {
            const cal::SecondMoment &m = calibrator.moments[ti];
            j.attributeObject(cal::kSecondMomentKey, [&] {
              j.attribute(cal::kSecondMomentFileKey, momentFile[ti]);
              j.attribute(cal::kSecondMomentDimKey, m.dim);
              j.attribute(cal::kSecondMomentRowsKey,
                          static_cast<int64_t>(m.rows));
              j.attribute(cal::kSecondMomentSkippedKey,
                          static_cast<int64_t>(m.skippedRows));
            });
          }
          if (ti < calibrator.channels.size() &&
              calibrator.channels[ti].dim > 0) {
            const cal::ChannelStats &ch = calibrator.channels[ti];
            auto numbers = [&](const char *key, auto value) {
              j.attributeBegin(key);
              j.rawValue([&](llvm::raw_ostream &out) {
                out << "[";
                for (int64_t c = 0; c < ch.dim; ++c)
                  out << (c ? "," : "") << llvm::format("%.17g", value(c));
                out << "]";
              });
              j.attributeEnd();
            };
            j.attributeObject(cal::kChannelsKey, [&] {
              j.attribute(cal::kSecondMomentDimKey, ch.dim);
              j.attribute(cal::kSecondMomentRowsKey,
                          static_cast<int64_t>(ch.rows));
              j.attribute(cal::kSecondMomentSkippedKey,
                          static_cast<int64_t>(ch.skippedRows));
              numbers(cal::kChannelsAbsmaxKey,
                      [&](int64_t c) { return ch.absmax[c]; });
              numbers(cal::kChannelsMeanAbsKey,
                      [&](int64_t c) { return ch.meanAbs(c); });
            });
          }
        });
      }
    });
  });
  os << "\n";
  llvm::errs() << "octet-run: calibrated " << calibrator.names.size()
               << " observed tensor(s) over " << numBatches << " batch(es) -> "
               << calibrate << "\n";
}

/// Calls the function --repeat times on `args` and, when more than once,
/// reports the median and minimum time on stderr. The results of the last
/// call stay in `call`.
void runTimed(EntryCall &call, std::vector<Slot> &args) {
  std::vector<void *> packed = call.pack(args);
  // Keep large freed results in the heap instead of unmapping them, so that
  // repeated runs measure the code, not page faults of fresh mmaps.
  if (repeat > 1) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  std::vector<double> times;
  for (unsigned r = 0; r < std::max(1u, repeat.getValue()); ++r) {
    if (r > 0)
      call.freeResults(); // the previous run's (never the inputs)
    auto start = std::chrono::steady_clock::now();
    call.call(packed);
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(stop - start).count());
  }
  if (repeat > 1) {
    std::sort(times.begin(), times.end());
    llvm::errs() << "octet-run: '" << entryName << "' median "
                 << llvm::format("%.6f", times[times.size() / 2]) << " s, min "
                 << llvm::format("%.6f", times.front()) << " s over "
                 << times.size() << " runs\n";
  }
}

/// Writes each result of the last call to its --output file (checking that
/// it has an .npy form); without --output, says how many there were.
void writeOutputs(const EntryCall &call, FunctionType fnType) {
  int64_t off = 0;
  for (auto [i, t] : llvm::enumerate(fnType.getResults())) {
    writeResult(i, t, reinterpret_cast<const char *>(&call.getResults()[off]),
                outputFiles.empty() ? std::string() : outputFiles[i]);
    off += resultWords(t);
  }
  if (outputFiles.empty())
    llvm::outs() << "octet-run: '" << entryName << "' returned "
                 << fnType.getNumResults() << " result(s)\n";
}

/// The runtime's monitor API: the static runtime linked into octet-run (JIT
/// code calls it), or the liboctet_runtime.so a --library loaded.
struct MonitorApi {
  int64_t (*count)() = octet_monitor_count;
  int32_t (*get)(int64_t, octet_monitor_stats *) = octet_monitor_get;
  int32_t (*writeJson)(const char *) = octet_monitor_write_json;
};

MonitorApi monitorApi(const EntryPoint &entry) {
  MonitorApi api;
  if (!entry.library)
    return api;
  auto sym = [&](const char *name) {
    void *p = dlsym(entry.library, name);
    if (!p)
      fail("'" + inputFile + "' does not link the octet runtime's " + name +
           " (built by an older octet-compile?)");
    return p;
  };
  api.count = reinterpret_cast<int64_t (*)()>(sym("octet_monitor_count"));
  api.get = reinterpret_cast<int32_t (*)(int64_t, octet_monitor_stats *)>(
      sym("octet_monitor_get"));
  api.writeJson =
      reinterpret_cast<int32_t (*)(const char *)>(sym("octet_monitor_write_json"));
  return api;
}

/// Adds the monitor calls to `module` (before lowering: octet-run takes
/// only such modules).
void prepareMonitor(ModuleOp module, MLIRContext &context) {
  PassManager pm(&context);
  if (failed(parsePassPipeline("octet-monitor-ranges", pm, llvm::errs())) ||
      failed(pm.run(module)))
    fail("adding the range monitor to '" + inputFile + "' failed");
}

/// Runs every batch once (the last batch's results stay for --output),
/// writes the counters to --monitor and summarizes them on stderr.
void runMonitored(EntryCall &call, std::vector<std::vector<Slot>> &batches,
                  const MonitorApi &api) {
  for (size_t i = 0; i < batches.size(); ++i) {
    if (i > 0)
      call.freeResults();
    std::vector<void *> p = call.pack(batches[i]);
    call.call(p);
  }
  int64_t n = api.count();
  if (n == 0)
    fail("--monitor: no static quantizer ran ('" + inputFile + "' has " +
         (library ? "no monitoring: compile it with octet-compile --monitor"
                  : "no octet.quantize with constant parameters on a "
                    "computed value") +
         ")");
  if (api.writeJson(monitorFile.c_str()) != 0)
    fail("cannot write '" + monitorFile + "'");
  std::vector<octet_monitor_stats> all(n);
  int64_t clipping = 0;
  for (int64_t i = 0; i < n; ++i) {
    api.get(i, &all[i]);
    clipping += all[i].clipped_low + all[i].clipped_high > 0;
  }
  llvm::errs() << "octet-run: monitored " << n << " quantizer(s) over "
               << batches.size() << " batch(es) -> " << monitorFile << "; "
               << clipping << " of them clipped\n";
  auto rate = [](const octet_monitor_stats &s) {
    return s.values ? double(s.clipped_low + s.clipped_high) / s.values : 0.0;
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const auto &a, const auto &b) {
                     return rate(a) > rate(b);
                   });
  for (int64_t i = 0; i < std::min<int64_t>(n, 5) && rate(all[i]) > 0; ++i)
    llvm::errs() << llvm::format(
        "  %s: %lld of %lld clipped (%.4f%%), max |x| %g\n", all[i].name,
        (long long)(all[i].clipped_low + all[i].clipped_high),
        (long long)all[i].values, 100.0 * rate(all[i]),
        double(all[i].absmax));
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  parseOptions(argc, argv);
  DialectRegistry registry;
  registerDialectsAndPasses(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  bool fromLibrary = library;
  bool calibrating = !calibrate.empty();
  if (secondMoment && !calibrating)
    fail("--second-moment needs --calibrate=FILE.json");
  if (channelStats && !calibrating)
    fail("--channel-stats needs --calibrate=FILE.json");
  bool monitoring = !monitorFile.empty();
  if (monitoring && calibrating)
    fail("--monitor and --calibrate are separate runs (calibrate first, "
         "then monitor the quantized model)");
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  EntryPoint entry;
  if (fromLibrary) {
    entry = loadLibrary(context);
  } else {
    module = loadModule(sourceMgr, context);
    entry.type = getEntrySignature(*module);
  }
  checkSignature(entry.type);
  std::vector<std::vector<Slot>> batches = readInputs(entry.type);

  Calibrator calibrator;
  if (calibrating)
    prepareCalibration(*module, context, calibrator);
  if (monitoring && !fromLibrary)
    prepareMonitor(*module, context);
  std::unique_ptr<ExecutionEngine> jit;
  if (!fromLibrary) {
    lowerForHost(*module, context);
    jit = jitCompile(*module, entry);
  }

  EntryCall call(entry, fromLibrary, batches);
  if (calibrating) {
    runCalibration(call, batches, calibrator);
    call.freeInputs();
    writeCalibration(calibrator, batches.size());
    return 0;
  }
  if (monitoring)
    runMonitored(call, batches, monitorApi(entry));
  else
    runTimed(call, batches[0]);
  writeOutputs(call, entry.type);
  call.freeResults();
  call.freeInputs();
  return 0;
}
