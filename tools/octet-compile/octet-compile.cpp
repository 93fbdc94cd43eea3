//===- octet-compile.cpp - Compile a model to a linkable library ----------===//
//
//   octet-compile model.mlir --target=host -o libmodel.so   (shared library)
//   octet-compile model.mlir -c -o model.o                  (object file)
//
// Lowers the module for the CPU (octet-lower-to-host), exports every public
// function with MLIR's C interface (`_mlir_ciface_NAME`, memref descriptors
// passed by pointer), writes a C header declaring them, and embeds the
// signatures (`octet_signature_NAME`) so that octet-run --library can call
// the library. Libraries check at load time that the CPU has the features
// they were compiled for.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Conversion/OctetToGPU/OctetToGPU.h"
#include "octet/Pipelines/Pipelines.h"
#include "octet/Target/Capabilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdlib>

using namespace mlir;

/// The options --help lists (LLVM's and MLIR's own stay available;
/// --help-hidden lists them).
static llvm::cl::OptionCategory toolOptions("octet-compile options");

static llvm::cl::opt<std::string> inputFile(llvm::cl::cat(toolOptions),
                                            llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string> outputFile(llvm::cl::cat(toolOptions), "o",
                                             llvm::cl::desc("Output file"),
                                             llvm::cl::value_desc("file"),
                                             llvm::cl::init(""));
static llvm::cl::opt<bool>
    objectOnly(llvm::cl::cat(toolOptions), "c",
               llvm::cl::desc("Write an object file, not a library"));
static llvm::cl::opt<std::string> emit(
    llvm::cl::cat(toolOptions), "emit",
    llvm::cl::desc("What to write: shared (default), obj, asm, llvm "
                   "(LLVM IR), mlir (the lowered LLVM-dialect module); for "
                   "CUDA targets also ptx and cubin (the kernels alone)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> target(
    llvm::cl::cat(toolOptions), "target",
    llvm::cl::desc(
        "What to compile for: host (the running CPU, default); "
        "an octet CPU level as in octet-set-target (avx2, "
        "avx-vnni, avx512-vnni, avx512-bf16, avx-vnni-int8, amx-int8): its "
        "kernels, and host code for a generic CPU with the "
        "level's features; an LLVM CPU name (x86-64-v3, "
        "znver4, sapphirerapids, ...): host code for that CPU "
        "and the kernels of the best level it has (tuned for "
        "that CPU); or a CUDA "
        "target (sm_80, sm_86, sm_89, sm_90a, sm_100a, "
        "sm_120a): kernels in an embedded cubin, host code for "
        "a generic CPU"),
    llvm::cl::init("host"));
static llvm::cl::opt<std::string> features(
    llvm::cl::cat(toolOptions), "features",
    llvm::cl::desc("Extra LLVM target features (e.g. +avx512vnni,-amx-int8)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string>
    headerFile(llvm::cl::cat(toolOptions), "header",
               llvm::cl::desc("C header to write (default: the output "
                              "name with .h; '-' for none)"),
               llvm::cl::init(""));
static llvm::cl::opt<unsigned>
    optLevel(llvm::cl::cat(toolOptions), "O",
             llvm::cl::desc("LLVM optimization level (default 3)"),
             llvm::cl::Prefix, llvm::cl::init(3));
static llvm::cl::opt<std::string> manifestFile(
    llvm::cl::cat(toolOptions), "manifest",
    llvm::cl::desc("CUDA targets: write the kernel manifest (name, kind, "
                   "block, shared memory, tile of each kernel) here"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> cudaPath(
    llvm::cl::cat(toolOptions), "cuda-path",
    llvm::cl::desc("CUDA toolkit with bin/ptxas (default: $OCTET_CUDA_PATH "
                   "or /usr/local/cuda)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> gpuBinary(
    llvm::cl::cat(toolOptions), "gpu-binary",
    llvm::cl::desc("CUDA targets: what the library embeds, cubin (default; "
                   "runs on that chip) or ptx (compiled by the driver at "
                   "load time, runs on that chip and later ones)"),
    llvm::cl::init("cubin"));
static llvm::cl::opt<int64_t>
    wgmmaTileN(llvm::cl::cat(toolOptions), "wgmma-tile-n",
               llvm::cl::desc("sm_90a: N of the wgmma block tile (128 or 256)"),
               llvm::cl::init(128));
static llvm::cl::opt<int64_t> wgmmaWeightOnlyRows(
    llvm::cl::cat(toolOptions), "wgmma-weight-only-rows",
    llvm::cl::desc("sm_90a: weight-only matmuls (float activations, 8- or "
                   "4-bit weights) with at least this many rows, counted at "
                   "run time, run on the wgmma tensor cores instead of the "
                   "gemv (0: never; default 64)"),
    llvm::cl::init(64));
static llvm::cl::opt<bool> emulateGpu(
    llvm::cl::cat(toolOptions), "emulate-gpu",
    llvm::cl::desc("CUDA targets: run the kernels on the CPU through the "
                   "runtime's emulator instead of a GPU (octet-emulate-cuda; "
                   "for testing the kernels without one)"));
static llvm::cl::opt<bool> monitor(
    llvm::cl::cat(toolOptions), "monitor",
    llvm::cl::desc("Range monitoring: the library counts, per static "
                   "quantizer, the values it clips and the largest |x|, "
                   "read through the runtime's octet_monitor_* C API "
                   "(octet-monitor-ranges; docs/monitoring.md). Off: no "
                   "monitoring code at all"));
static llvm::cl::opt<bool> intoEntries(
    llvm::cl::cat(toolOptions), "into-entries",
    llvm::cl::desc("Also give each public function NAME whose results are "
                   "all tensors an entry NAME_into(result buffers..., "
                   "arguments...) that writes its results into buffers the "
                   "caller allocated (row-major, offset 0) and returns 0, "
                   "or 1 after saying on stderr which buffer does not fit "
                   "(octet-into-entries)"));
static llvm::cl::opt<std::string> runtimeDir(
    llvm::cl::cat(toolOptions), "runtime-dir",
    llvm::cl::desc("Directory of liboctet_runtime.so (default: ../lib "
                   "next to this tool)"),
    llvm::cl::init(""));

namespace {

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "octet-compile: error: " << message << "\n";
  std::exit(1);
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The C type of an element.
std::string cType(Type t) {
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isF16() || t.isBF16())
    return "uint16_t";
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return "uint8_t";
  if (t.isIndex() || t.isInteger(64))
    return "int64_t";
  if (t.isInteger(32))
    return "int32_t";
  if (t.isInteger(16))
    return "int16_t";
  if (t.isInteger(8) || t.isInteger(4))
    return "int8_t";
  if (t.isInteger(1))
    return "bool";
  return "";
}

std::string identifier(std::string s) {
  for (char &c : s)
    if (!llvm::isAlnum(c))
      c = '_';
  return s;
}

/// The name of the descriptor struct for a ranked memref of `elt`.
std::string descriptorName(Type elt, int64_t rank) {
  return "octet_memref_" + std::to_string(rank) + "d_" + identifier(str(elt));
}

/// Whether octet-into-entries gives `f` an `_into` entry: its results are
/// all ranked tensors (memrefs with the identity layout once bufferized).
bool hasIntoEntry(func::FuncOp f) {
  return f.getNumResults() > 0 && llvm::all_of(f.getResultTypes(), [](Type t) {
           return isa<RankedTensorType>(t);
         });
}

/// Writes the C header for the public functions (and, for a CUDA target,
/// their `_device` entries; with --into-entries, their `_into` entries).
void writeHeader(llvm::raw_ostream &os, ArrayRef<func::FuncOp> funcs,
                 StringRef guard, bool deviceEntries) {
  os << "/* Generated by octet-compile: the C interface of the compiled "
        "model.\n"
        " * Tensors are passed as memref descriptors; results are written "
        "through\n"
        " * the first pointer. Result buffers are malloc'ed by the library: "
        "free(\n"
        " * result.allocated) when done. */\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#include <stdbool.h>\n#include <stdint.h>\n\n"
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  llvm::StringSet<> emitted;
  auto declare = [&](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    if (!shaped)
      return;
    std::string name =
        descriptorName(shaped.getElementType(), shaped.getRank());
    if (!emitted.insert(name).second)
      return;
    std::string ct = cType(shaped.getElementType());
    os << "typedef struct {\n  " << ct << " *allocated;\n  " << ct
       << " *aligned;\n  int64_t offset;\n";
    if (shaped.getRank() > 0)
      os << "  int64_t sizes[" << shaped.getRank() << "];\n  int64_t strides["
         << shaped.getRank() << "];\n";
    os << "} " << name << ";\n\n";
  };
  for (func::FuncOp f : funcs) {
    for (Type t : f.getArgumentTypes())
      declare(t);
    for (Type t : f.getResultTypes())
      declare(t);
  }
  auto cArg = [&](Type t) -> std::string {
    if (auto shaped = dyn_cast<ShapedType>(t))
      return descriptorName(shaped.getElementType(), shaped.getRank()) + " *";
    return cType(t) + " ";
  };
  auto declareFunc = [&](func::FuncOp f, const std::string &name) {
    auto results = f.getResultTypes();
    if (results.size() > 1) {
      os << "typedef struct {\n";
      for (auto [i, t] : llvm::enumerate(results))
        os << "  "
           << (isa<ShapedType>(t)
                   ? descriptorName(cast<ShapedType>(t).getElementType(),
                                    cast<ShapedType>(t).getRank())
                   : cType(t))
           << " r" << i << ";\n";
      os << "} " << name << "_results;\n";
    }
    // MLIR's C interface returns one scalar result by value; tensors and
    // several results through the first pointer.
    bool scalarResult = results.size() == 1 && !isa<ShapedType>(results[0]);
    os << (scalarResult ? cType(results[0]) : std::string("void"))
       << " _mlir_ciface_" << name << "(";
    SmallVector<std::string> params;
    if (results.size() > 1)
      params.push_back(name + "_results *results");
    else if (results.size() == 1 && !scalarResult)
      params.push_back(cArg(results[0]) + "result");
    for (auto [i, t] : llvm::enumerate(f.getArgumentTypes()))
      params.push_back(cArg(t) + "arg" + std::to_string(i));
    os << llvm::join(params, ", ") << ");\n\n";
  };
  for (func::FuncOp f : funcs) {
    std::string name = f.getSymName().str();
    os << "/* " << name << str(f.getFunctionType()) << " */\n";
    declareFunc(f, name);
    if (intoEntries && hasIntoEntry(f)) {
      os << "/* " << name
         << "_into: the same, writing the results into buffers you "
            "allocated:\n"
            " * row-major, offset 0, the result's sizes. Returns 0; or 1, "
            "after saying\n"
            " * on stderr which buffer does not fit. */\n";
      os << "int32_t _mlir_ciface_" << name << "_into(";
      SmallVector<std::string> params;
      for (auto [i, t] : llvm::enumerate(f.getResultTypes()))
        params.push_back(cArg(t) + "out" + std::to_string(i));
      for (auto [i, t] : llvm::enumerate(f.getArgumentTypes()))
        params.push_back(cArg(t) + "arg" + std::to_string(i));
      os << llvm::join(params, ", ") << ");\n\n";
    }
    if (!deviceEntries)
      continue;
    os << "/* " << name
       << "_device: the same with every tensor in device memory\n"
          " * (docs/cuda.md \"Device entries\"): the arguments' pointers are "
          "device\n"
          " * pointers; the results are device buffers of the library's "
          "pool: free\n"
          " * them with octet_cuda_free_async(result.allocated, stream). "
          "Runs on the\n"
          " * calling thread's stream (octet_cuda_set_stream) and returns "
          "without\n"
          " * waiting for it. */\n";
    declareFunc(f, name + "_device");
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
}

/// The LLVM features an octet CPU level needs (its HOST_FEATURES column).
SmallVector<StringRef> levelFeatures(const octet::target::TargetInfo &level) {
  SmallVector<StringRef> needed;
  level.hostFeatures.split(needed, ',', -1, /*KeepEmpty=*/false);
  return needed;
}

/// The CPU the host code is compiled for, as --target names it.
struct CpuTarget {
  std::string cpu;                   ///< LLVM CPU name.
  /// `cpu` is the CPU --target named (not a generic one for a level or a
  /// CUDA target): the module target records it for the kernels' tuning.
  bool namedCpu = false;
  SmallVector<std::string> features; ///< LLVM features, "+name"/"-name".
  /// The octet level whose kernels the module gets (its #octet.target)
  /// when --target names a level or an LLVM CPU; null for `host` (the
  /// lowering resolves it, OCTET_HOST_TARGET included) and CUDA targets.
  const octet::target::TargetInfo *level = nullptr;
};

/// Resolves --target for the host code (`cudaTarget`: the CUDA target it
/// names, if any). Fails, before any lowering, on a name that is no level,
/// LLVM CPU or CUDA target, and on a level or CPU of another architecture
/// or below octet's lowest level.
CpuTarget resolveCpuTarget(StringRef name,
                           const octet::target::TargetInfo *cudaTarget) {
  namespace ot = octet::target;
  llvm::Triple triple(llvm::sys::getProcessTriple());
  CpuTarget result;
  StringRef generic =
      triple.getArch() == llvm::Triple::x86_64 ? "x86-64" : "generic";
  if (cudaTarget) {
    result.cpu = generic.str();
    return result;
  }
  if (name == "host") {
    result.cpu = llvm::sys::getHostCPUName().str();
    for (const auto &[feature, on] : llvm::sys::getHostCPUFeatures())
      result.features.push_back((on ? "+" : "-") + feature.str());
    return result;
  }
  std::string archName = triple.getArchName().str();
  std::optional<ot::Arch> hostArch = ot::getTableArch(archName);
  if (const ot::TargetInfo *level = ot::lookupTarget(name)) {
    if (level->arch != hostArch)
      fail("'" + name + "' is an " + ot::stringifyArch(level->arch) +
           " level; octet-compile builds for this machine's architecture (" +
           archName + ")");
    result.cpu = generic.str();
    for (StringRef feature : levelFeatures(*level))
      result.features.push_back(("+" + feature).str());
    result.level = level;
    return result;
  }
  std::string lookupError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  // Validated on a generic subtarget first: one created for an unknown
  // name warns "not a recognized processor".
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvmTarget ? llvmTarget->createMCSubtargetInfo(triple, "", "")
                 : nullptr);
  if (!subtarget || !subtarget->isCPUStringValid(name)) {
    // The names of the table: this architecture's levels, the CUDA chips.
    SmallVector<StringRef> levels, chips;
    for (const ot::TargetInfo &info : ot::getTargets()) {
      if (info.arch == ot::Arch::cuda)
        chips.push_back(info.name);
      else if (info.arch == hostArch)
        levels.push_back(info.name);
    }
    fail("unknown CPU '" + name + "' for " + triple.str() +
         "; --target takes host, an octet CPU level (" +
         llvm::join(levels, ", ") +
         "), an LLVM CPU name (x86-64-v3, sapphirerapids, ...; llc "
         "-mcpu=help lists them) or a CUDA target (" +
         llvm::join(chips, ", ") + ")");
  }
  result.cpu = name.str();
  result.namedCpu = true;
  subtarget.reset(llvmTarget->createMCSubtargetInfo(triple, name, ""));
  // The kernels: the best level whose features this CPU has, resolved
  // like `host` from the CPU's feature set.
  llvm::StringMap<bool> has;
  for (const ot::TargetInfo &info : ot::getTargets()) {
    if (info.arch != hostArch)
      continue; // checkFeatures aborts on another architecture's names.
    for (StringRef feature : levelFeatures(info))
      has[feature] = subtarget->checkFeatures(("+" + feature).str());
  }
  std::string whyNot;
  result.level = ot::findHostLevel(archName, has, whyNot);
  if (!result.level)
    fail("CPU '" + name + "' has no octet kernel level: " + whyNot);
  return result;
}

/// Gives the module the kernels of `cpu.level` (#octet.target, with the
/// LLVM CPU name when --target names one: the kernels' tuning follows it),
/// and checks that a target the module already has runs on the CPU of
/// `subtarget`.
void applyCpuTarget(ModuleOp module, const CpuTarget &cpu,
                    const llvm::MCSubtargetInfo &subtarget) {
  namespace ot = octet::target;
  octet::TargetAttr attr = ot::getTargetAttr(module);
  if (!attr) {
    if (cpu.level)
      module->setAttr(ot::kTargetAttrName,
                      octet::TargetAttr::get(module.getContext(),
                                             cpu.level->name,
                                             cpu.namedCpu ? cpu.cpu : ""));
    return;
  }
  const ot::TargetInfo *info = ot::lookupTarget(attr.getName());
  if (!info || info->arch == ot::Arch::cuda)
    return; // The lowering reports these.
  SmallVector<StringRef> missing;
  for (StringRef feature : levelFeatures(*info))
    if (!subtarget.checkFeatures(("+" + feature).str()))
      missing.push_back(feature);
  if (!missing.empty())
    fail("'" + inputFile + "' targets '" + info->name +
         "' (#octet.target), whose kernels need " + llvm::join(missing, ", ") +
         ", which --target=" + target + " lacks; give --target=" +
         info->name + " or a CPU that has them");
}

/// What octet-compile writes, from the checked command line.
struct CompileOptions {
  std::string kind; ///< shared, obj, asm, llvm, mlir, ptx or cubin.
  /// The CUDA target --target names (kernels for that chip, host code for
  /// a generic CPU); null for CPU targets.
  const octet::target::TargetInfo *cudaTarget = nullptr;
};

/// Parses the command line and checks --emit, that --emit=ptx/cubin has a
/// CUDA --target, and that there is an output file.
CompileOptions parseAndCheckOptions(int argc, char **argv) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerPassManagerCLOptions();
  llvm::cl::HideUnrelatedOptions(toolOptions);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "octet-compile: compile an MLIR model (octet, linalg, ...) for the CPU "
      "into a shared library or object with a C interface and header\n");

  CompileOptions opts;
  opts.kind = emit.empty() ? std::string(objectOnly ? "obj" : "shared")
                           : emit.getValue();
  const std::string &kind = opts.kind;
  if (!llvm::is_contained({"shared", "obj", "asm", "llvm", "mlir", "ptx",
                           "cubin"},
                          kind))
    fail("unknown --emit=" + kind +
         "; expected shared, obj, asm, llvm, mlir, ptx or cubin");
  // A CUDA target: kernels for that chip, host code for a generic CPU.
  opts.cudaTarget = octet::target::lookupTarget(target);
  if (opts.cudaTarget && opts.cudaTarget->arch != octet::target::Arch::cuda)
    opts.cudaTarget = nullptr;
  if ((kind == "ptx" || kind == "cubin") && !opts.cudaTarget)
    fail("--emit=" + kind + " needs a CUDA --target (" +
         octet::target::getValidTargetNames() + ")");
  if (outputFile.empty())
    fail("no output file: give -o FILE");
  if (intoEntries && opts.cudaTarget)
    fail("--into-entries is for CPU targets; CUDA libraries have the "
         "_device entries (docs/cuda.md)");
  if (monitor && opts.cudaTarget)
    fail("--monitor is for CPU targets; the CUDA lowering (--target=" +
         opts.cudaTarget->name + ") has no range monitoring");
  return opts;
}

/// Registers every dialect, extension, translation to LLVM IR (the GPU
/// kernels' NVVM included) and pass the input and the pipelines may need.
void registerDialectsAndPasses(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<octet::OctetDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerAllToLLVMIRTranslations(registry); // GPU kernels (NVVM)
  registerAllPasses();
  octet::registerAllOctetPasses();
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

/// The public functions of `module`, marked for MLIR's C interface. Fails
/// when there is none, and on a function with a type that has no C form.
SmallVector<func::FuncOp> collectExports(ModuleOp module) {
  SmallVector<func::FuncOp> publics;
  module.walk([&](func::FuncOp f) {
    if (f.isPublic() && !f.isExternal()) {
      f->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
      publics.push_back(f);
    }
  });
  if (publics.empty())
    fail("'" + inputFile + "' has no public function to export");
  for (func::FuncOp f : publics)
    for (Type t : llvm::concat<const Type>(f.getArgumentTypes(),
                                           f.getResultTypes()))
      if (auto shaped = dyn_cast<ShapedType>(t);
          (shaped && (!shaped.hasRank() ||
                      cType(shaped.getElementType()).empty())) ||
          (!shaped && cType(t).empty()))
        fail("function '" + f.getSymName() + "' uses type " + str(t) +
             ", which has no C form");
  return publics;
}

/// The C header declaring `publics`, its include guard named after the
/// output file.
std::string headerText(ArrayRef<func::FuncOp> publics, bool deviceEntries) {
  std::string header;
  llvm::raw_string_ostream os(header);
  std::string guard =
      "OCTET_" + identifier(llvm::sys::path::stem(outputFile).upper()) + "_H";
  writeHeader(os, publics, guard, deviceEntries);
  return header;
}

/// (name, signature) of an exported function.
using Signature = std::pair<std::string, std::string>;

/// The signature of each of `publics`, kept as text: lowering replaces the
/// func ops.
SmallVector<Signature> exportSignatures(ArrayRef<func::FuncOp> publics) {
  SmallVector<Signature> signatures;
  for (func::FuncOp f : publics)
    signatures.emplace_back(f.getSymName().str(), str(f.getFunctionType()));
  return signatures;
}

/// The target machine for the host code: the process triple, the CPU and
/// features of `cpuTarget` plus --features, PIC, at -O.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CpuTarget &cpuTarget) {
  std::string triple = llvm::sys::getProcessTriple();
  std::string cpu = cpuTarget.cpu;
  SmallVector<std::string> featureList = cpuTarget.features;
  if (!features.empty())
    for (StringRef f : llvm::split(features.getValue(), ','))
      featureList.push_back(f.str());
  std::string tripleError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), tripleError);
  if (!llvmTarget)
    fail("no LLVM target for " + triple + ": " + tripleError);
  llvm::TargetOptions options;
  auto level =
      static_cast<llvm::CodeGenOptLevel>(std::min(3u, optLevel.getValue()));
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      llvm::Triple(triple), cpu, llvm::join(featureList, ","), options,
      llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    fail("cannot create a target machine for cpu '" + cpu + "'");
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(cpu))
    fail("unknown CPU '" + cpu + "' for " + triple);
  return tm;
}

/// Lowers `module` to the LLVM dialect: octet-lower-to-host, or the CUDA
/// pipeline (kernels in a gpu.binary, --gpu-binary, --emulate-gpu, ...)
/// for a CUDA target.
void lowerModule(ModuleOp module, MLIRContext &context,
                 const CompileOptions &opts) {
  const std::string &kind = opts.kind;
  PassManager pm(&context);
  if (opts.cudaTarget) {
    octet::CudaPipelineOptions cudaOptions;
    cudaOptions.chip = opts.cudaTarget->name.str();
    if (gpuBinary != "cubin" && gpuBinary != "ptx")
      fail("unknown --gpu-binary=" + gpuBinary + "; expected cubin or ptx");
    cudaOptions.format =
        kind == "ptx" || (kind != "cubin" && gpuBinary == "ptx") ? "isa"
                                                                 : "bin";
    cudaOptions.wgmmaTileN = wgmmaTileN;
    cudaOptions.wgmmaWeightOnlyRows = wgmmaWeightOnlyRows;
    cudaOptions.emulate = emulateGpu;
    if (emulateGpu && (kind == "ptx" || kind == "cubin"))
      fail("--emulate-gpu builds host code only; it has no --emit=" + kind);
    cudaOptions.toolkit = cudaPath;
    cudaOptions.manifest = manifestFile;
    octet::buildLowerToCudaPipeline(pm, cudaOptions);
  } else {
    octet::HostPipelineOptions hostOptions;
    hostOptions.monitor = monitor;
    hostOptions.intoEntries = intoEntries;
    octet::buildLowerToHostPipeline(pm, hostOptions);
  }
  if (failed(applyPassManagerCLOptions(pm)))
    fail("cannot build the lowering pipeline");
  if (failed(pm.run(module)))
    fail("lowering '" + inputFile + "' failed");
}

/// --emit=ptx/cubin: writes the kernels alone, the (only) object of
/// gpu.binary @octet_kernels.
void writeKernels(ModuleOp module, StringRef kind) {
  auto binary =
      module.lookupSymbol<gpu::BinaryOp>(octet::kCudaKernelModuleName);
  if (!binary || binary.getObjects().empty())
    fail("'" + inputFile + "' has no octet op to run on the GPU");
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec,
                           kind == "ptx" ? llvm::sys::fs::OF_Text
                                         : llvm::sys::fs::OF_None);
  if (ec)
    fail("cannot write '" + outputFile + "': " + ec.message());
  StringRef bytes = object.getObject().getValue();
  // PTX is stored NUL-terminated for the driver's JIT.
  if (kind == "ptx")
    bytes = bytes.rtrim(StringRef("\0", 1));
  out.os() << bytes;
  out.keep();
}

/// --emit=mlir: writes the lowered LLVM-dialect module.
void writeMlir(ModuleOp module) {
  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_None);
  if (ec)
    fail("cannot write '" + outputFile + "': " + ec.message());
  module.print(out.os());
  out.keep();
}

/// Translates the lowered `module` to LLVM IR for the process triple and
/// the data layout of `tm`.
std::unique_ptr<llvm::Module> translateToLLVMIR(ModuleOp module,
                                                llvm::LLVMContext &llvmContext,
                                                const llvm::TargetMachine &tm,
                                                const CompileOptions &opts) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    fail("translation to LLVM IR failed");
  // GPU host code calls MLIR's mgpu* runtime ABI, implemented by
  // liboctet_runtime as octet_mgpu* (the driver is loaded at run time).
  if (opts.cudaTarget && !emulateGpu)
    octet::prefixGpuRuntimeCalls(*llvmModule);
  llvmModule->setTargetTriple(llvm::Triple(llvm::sys::getProcessTriple()));
  llvmModule->setDataLayout(tm.createDataLayout());
  return llvmModule;
}

/// Embeds the signature of each export (`octet_signature_NAME`) and adds
/// `_octet_packed_NAME(void **args)`, which calls _mlir_ciface_NAME with
/// args[i] pointing at its i-th parameter (what octet-run --library uses
/// to call any signature).
void addSignaturesAndPackedWrappers(llvm::Module &llvmModule,
                                    ArrayRef<Signature> signatures) {
  llvm::LLVMContext &llvmContext = llvmModule.getContext();
  llvm::IRBuilder<> b(llvmContext);
  for (const auto &[name, signature] : signatures) {
    auto *init = llvm::ConstantDataArray::getString(llvmContext, signature);
    new llvm::GlobalVariable(llvmModule, init->getType(), true,
                             llvm::GlobalValue::ExternalLinkage, init,
                             "octet_signature_" + name);
  }
  auto *ptrTy = llvm::PointerType::get(llvmContext, 0);
  for (const auto &[name, signature] : signatures) {
    llvm::Function *ciface = llvmModule.getFunction("_mlir_ciface_" + name);
    if (!ciface)
      fail("no C interface generated for '" + name + "'");
    auto *packed = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(llvmContext), {ptrTy},
                                false),
        llvm::GlobalValue::ExternalLinkage, "_octet_packed_" + name,
        llvmModule);
    b.SetInsertPoint(llvm::BasicBlock::Create(llvmContext, "entry", packed));
    SmallVector<llvm::Value *> callArgs;
    for (auto [i, param] : llvm::enumerate(ciface->args())) {
      llvm::Value *slot = b.CreateLoad(
          ptrTy, b.CreateConstGEP1_64(ptrTy, packed->getArg(0), i));
      callArgs.push_back(b.CreateLoad(param.getType(), slot));
    }
    b.CreateCall(ciface, callArgs);
    b.CreateRetVoid();
  }
}

/// The features that matter for the generated code (a subset of what the
/// CPU name implies) that `tm`'s CPU has, as LLVM names.
SmallVector<std::string> requiredCpuFeatures(const llvm::TargetMachine &tm) {
  static const char *const checked[] = {
      "sse4.2",     "avx",        "avx2",     "fma",         "f16c",
      "avx512f",    "avx512bw",   "avx512vl", "avx512vnni",  "avx512bf16",
      "avx512fp16", "avx512vbmi", "avxvnni",  "avxvnniint8", "amx-tile",
      "amx-int8",   "amx-bf16"};
  SmallVector<std::string> required;
  for (const char *f : checked)
    if (tm.getMCSubtargetInfo()->checkFeatures(std::string("+") + f))
      required.push_back(f);
  return required;
}

/// Adds the load-time CPU check of a shared library: a constructor calling
/// octet_require_cpu_features with the library's name and `required`.
void addCpuFeatureCheck(llvm::Module &llvmModule,
                        ArrayRef<std::string> required) {
  llvm::LLVMContext &llvmContext = llvmModule.getContext();
  llvm::IRBuilder<> b(llvmContext);
  auto *ptrTy = llvm::PointerType::get(llvmContext, 0);
  auto *voidTy = llvm::Type::getVoidTy(llvmContext);
  llvm::FunctionCallee check = llvmModule.getOrInsertFunction(
      "octet_require_cpu_features",
      llvm::FunctionType::get(voidTy, {ptrTy, ptrTy}, false));
  auto *ctor = llvm::Function::Create(
      llvm::FunctionType::get(voidTy, false),
      llvm::GlobalValue::InternalLinkage, "octet.check_cpu", llvmModule);
  b.SetInsertPoint(llvm::BasicBlock::Create(llvmContext, "entry", ctor));
  b.CreateCall(check,
               {b.CreateGlobalString(
                    llvm::sys::path::filename(outputFile).str()),
                b.CreateGlobalString(llvm::join(required, ","))});
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(llvmModule, ctor, 0);
}

/// Runs LLVM's optimization pipeline at -O on `llvmModule`.
void optimize(llvm::Module &llvmModule, llvm::TargetMachine &tm) {
  auto transformer =
      makeOptimizingTransformer(std::min(3u, optLevel.getValue()), 0, &tm);
  if (llvm::Error err = transformer(&llvmModule))
    fail("LLVM optimization failed: " + llvm::toString(std::move(err)));
}

/// Writes `llvmModule` as `type` (assembly or object) to `path`.
void emitFile(llvm::Module &llvmModule, llvm::TargetMachine &tm,
              StringRef path, llvm::CodeGenFileType type) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    fail("cannot write '" + path + "': " + ec.message());
  llvm::legacy::PassManager cg;
  if (tm.addPassesToEmitFile(cg, out.os(), nullptr, type))
    fail("the target cannot emit this file type");
  cg.run(llvmModule);
  out.keep();
}

/// Writes `llvmModule` as LLVM IR text to the output file.
void writeLLVMIR(llvm::Module &llvmModule) {
  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_None);
  if (ec)
    fail("cannot write '" + outputFile + "': " + ec.message());
  llvmModule.print(out.os(), nullptr);
  out.keep();
}

/// The directory of liboctet_runtime.so: --runtime-dir, else ../lib next
/// to this tool (`argv0`).
std::string getRuntimeDir(const char *argv0) {
  std::string rtDir = runtimeDir;
  if (rtDir.empty()) {
    SmallString<256> self(llvm::sys::fs::getMainExecutable(
        argv0, reinterpret_cast<void *>(&fail)));
    llvm::sys::path::remove_filename(self);
    llvm::sys::path::append(self, "..", "lib");
    rtDir = std::string(self);
  }
  return rtDir;
}

/// Writes the shared library: the object to a temporary file, then linked
/// against the runtime with the system compiler driver.
void linkSharedLibrary(llvm::Module &llvmModule, llvm::TargetMachine &tm,
                       const char *argv0) {
  SmallString<128> obj;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("octet-compile", "o", obj))
    fail("cannot create a temporary file: " + ec.message());
  emitFile(llvmModule, tm, obj, llvm::CodeGenFileType::ObjectFile);
  std::string rtDir = getRuntimeDir(argv0);
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    cc = llvm::sys::findProgramByName("clang");
  if (!cc)
    fail("no C compiler driver (cc) to link the library; use -c for an "
         "object file");
  std::string rpath = "-Wl,-rpath," + rtDir;
  std::string libDir = "-L" + rtDir;
  SmallVector<StringRef> args{*cc,  "-shared", "-o",      outputFile,
                              obj,  libDir,    rpath,     "-loctet_runtime",
                              "-lm"};
  std::string msg;
  int rc =
      llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &msg);
  llvm::sys::fs::remove(obj);
  if (rc != 0)
    fail("linking '" + outputFile + "' failed" +
         (msg.empty() ? "" : ": " + msg));
}

/// Writes the output file of an --emit that goes through LLVM IR: llvm,
/// asm, obj or (the rest) shared.
void writeOutput(llvm::Module &llvmModule, llvm::TargetMachine &tm,
                 StringRef kind, const char *argv0) {
  if (kind == "llvm")
    writeLLVMIR(llvmModule);
  else if (kind == "asm")
    emitFile(llvmModule, tm, outputFile, llvm::CodeGenFileType::AssemblyFile);
  else if (kind == "obj")
    emitFile(llvmModule, tm, outputFile, llvm::CodeGenFileType::ObjectFile);
  else
    linkSharedLibrary(llvmModule, tm, argv0);
}

/// Writes the C header to --header (default: the output name with .h).
/// On failure removes the output file: the library without its header
/// would look like a success.
void writeHeaderFile(StringRef header) {
  std::string path = headerFile;
  if (path.empty()) {
    SmallString<128> p(outputFile.getValue());
    llvm::sys::path::replace_extension(p, "h");
    path = std::string(p);
  }
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::sys::fs::remove(outputFile);
    fail("cannot write '" + path + "': " + ec.message());
  }
  out.os() << header;
  out.keep();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  CompileOptions opts = parseAndCheckOptions(argc, argv);
  DialectRegistry registry;
  registerDialectsAndPasses(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Before parsing and lowering: a bad --target fails first (and before
  // LLVM's own "not a recognized processor" warnings).
  CpuTarget cpuTarget = resolveCpuTarget(target, opts.cudaTarget);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadModule(sourceMgr, context);
  // Public functions get the C interface; their header and signatures are
  // taken before lowering replaces the func ops.
  SmallVector<func::FuncOp> publics = collectExports(*module);
  std::string header = headerText(publics, opts.cudaTarget != nullptr);
  SmallVector<Signature> signatures = exportSignatures(publics);

  // Target machine for the requested CPU; the module gets the kernels of
  // its level (or is checked against the level it names).
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(cpuTarget);
  if (!opts.cudaTarget)
    applyCpuTarget(*module, cpuTarget, *tm->getMCSubtargetInfo());
  lowerModule(*module, context, opts);
  if (opts.kind == "ptx" || opts.kind == "cubin") {
    writeKernels(*module, opts.kind);
    return 0;
  }
  if (opts.kind == "mlir") {
    writeMlir(*module);
    return 0;
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(*module, llvmContext, *tm, opts);
  addSignaturesAndPackedWrappers(*llvmModule, signatures);
  SmallVector<std::string> required = requiredCpuFeatures(*tm);
  if (!required.empty() && opts.kind == "shared")
    addCpuFeatureCheck(*llvmModule, required);
  optimize(*llvmModule, *tm);
  writeOutput(*llvmModule, *tm, opts.kind, argv[0]);
  if (headerFile != "-" && (opts.kind == "shared" || opts.kind == "obj"))
    writeHeaderFile(header);
  return 0;
}
