//===- OctetToGPU.cpp - convert-octet-to-gpu ------------------------------===//
//
// The memref-level half of the CUDA lowering: gives every launch stub left
// by octet-outline-for-cuda its body and writes the kernels it launches
// into gpu.module @octet_kernels (NVVM target of the module's
// #octet.target). A stub body:
//
//   gpu.wait async -> the inputs on the device -> helper kernels (B
//   transposed to N x K for the tensor-core kernels, row and column sums
//   for zero points) -> the kernel -> the result -> gpu.dealloc of the
//   temporaries [-> gpu.wait, when the result is copied to the host]
//
// Inputs the stub marks constant (octet.cuda.resident: the weights and
// their parameters) are not copied per call: the first call uploads them
// and keeps their device address in a global (HostCode::resident).
// Arguments and results in memory space 1 (kCudaDeviceMemorySpace: the
// activations between octet ops) are device buffers, used and returned
// without a copy; upload/download stubs copy at the edges, and the host
// code's frees of device buffers become gpu.dealloc here.
//
// Kernels take generic pointers and i64 sizes (Kernels.h, docs/cuda.md);
// identical kernels are shared between stubs. This file checks the stubs
// and runs the pass; the host code of the bodies is in HostCode.cpp, the
// kernels in ElementwiseKernels.cpp and the matmul kernel files.
//
//===----------------------------------------------------------------------===//

#include "HostCode.h"
#include "Kernels.h"

#include "octet/Conversion/OctetToGPU/OctetToGPU.h"
#include "octet/Conversion/Passes.h"
#include "octet/Target/Capabilities.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_CONVERTOCTETTOGPU
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;
namespace tgt = mlir::octet::target;

namespace {

/// The contract between octet-outline-for-cuda and this pass, checked
/// before anything is built: a hand-written (or fuzzed) stub that breaks it
/// is an error, not a null scheme or kind dereferenced in a kernel builder.
LogicalResult verifyStubContract(func::FuncOp stub) {
  auto opAttr = stub->getAttrOfType<StringAttr>(kCudaOpAttr);
  StringRef op = opAttr ? opAttr.getValue() : StringRef();
  if (!llvm::is_contained({"matmul", "compute_params", "quantize", "dequantize",
                           "requantize", "upload", "download"},
                          op))
    return stub.emitError()
           << "launch stub: " << kCudaOpAttr
           << " must be one of matmul, compute_params, quantize, "
              "dequantize, requantize, upload, download";
  auto roles = stub->getAttrOfType<ArrayAttr>(kCudaRolesAttr);
  if (!roles || roles.size() != stub.getNumArguments() ||
      !llvm::all_of(roles, [](Attribute a) { return isa<StringAttr>(a); }))
    return stub.emitError() << "launch stub without a role for each argument";
  auto has = [&](StringRef role) {
    return llvm::any_of(roles, [&](Attribute a) {
      return cast<StringAttr>(a).getValue() == role;
    });
  };
  auto rankOf = [&](StringRef role) -> int64_t {
    for (auto [r, t] : llvm::zip(roles, stub.getArgumentTypes()))
      if (cast<StringAttr>(r).getValue() == role)
        if (auto st = dyn_cast<ShapedType>(t); st && st.hasRank())
          return st.getRank();
    return -1;
  };
  auto needSchemes =
      [&](std::initializer_list<StringRef> names) -> LogicalResult {
    for (StringRef name : names)
      if (!schemeOf(stub, name))
        return stub.emitError()
               << "launch stub '" << op << "' has no #octet.scheme '" << name
               << "' in " << kCudaSchemesAttr;
    return success();
  };
  if (Attribute resident = stub->getAttr(kCudaResidentAttr)) {
    auto list = dyn_cast<ArrayAttr>(resident);
    if (!list || !llvm::all_of(list, [&](Attribute a) {
          auto s = dyn_cast<StringAttr>(a);
          return s && has(s.getValue());
        }))
      return stub.emitError() << "launch stub: " << kCudaResidentAttr
                              << " must list roles of the stub's arguments";
  }
  unsigned results = stub.getNumResults();
  if (op == "matmul") {
    auto kindAttr = stub->getAttrOfType<StringAttr>(kCudaKernelAttr);
    std::optional<MatmulKernelKind> kind =
        kindAttr ? symbolizeMatmulKernelKind(kindAttr.getValue())
                 : std::nullopt;
    if (!kind)
      return stub.emitError() << "matmul launch stub without a valid "
                              << kCudaKernelAttr;
    int64_t lhsRank = rankOf("lhs");
    int64_t rhsRank = has("rhs")      ? rankOf("rhs")
                      : has("rhs_nk") ? rankOf("rhs_nk")
                                      : rankOf("rhs_packed");
    if (lhsRank < 2 || lhsRank > 3 || rhsRank < 2 || rhsRank > 3 ||
        results != 1)
      return stub.emitError()
             << "matmul launch stub needs an 'lhs' and an 'rhs' (or "
                "'rhs_nk', 'rhs_packed') argument of rank 2 or 3 and one "
                "result";
    if (has("rhs_packed") &&
        (*kind != MatmulKernelKind::gemv || rhsRank != 2 ||
         !schemeOf(stub, "rhs_scheme") ||
         schemeOf(stub, "rhs_scheme").getStorageBits() != 4))
      return stub.emitError() << "matmul launch stub: 'rhs_packed' (4-bit "
                                 "codes two per byte) needs the gemv kernel, "
                                 "rank 2 and a 4-bit rhs_scheme";
    // Tensor-core kernels multiply codes on both sides.
    if (*kind == MatmulKernelKind::mmaSync ||
        *kind == MatmulKernelKind::wgmma || *kind == MatmulKernelKind::tcgen05)
      return needSchemes({"lhs_scheme", "rhs_scheme"});
    return needSchemes({"rhs_scheme"});
  }
  if (op == "upload" || op == "download") {
    // A copy between host memory and the device memory space.
    bool up = op == "upload";
    auto in = stub.getNumArguments() == 1
                  ? dyn_cast<MemRefType>(stub.getArgumentTypes()[0])
                  : MemRefType();
    auto out = results == 1 ? dyn_cast<MemRefType>(stub.getResultTypes()[0])
                            : MemRefType();
    if (!has("input") || !in || !out || in.getShape() != out.getShape() ||
        in.getElementType() != out.getElementType() ||
        isCudaDeviceMemRef(in) == up || isCudaDeviceMemRef(out) != up)
      return stub.emitError()
             << "launch stub '" << op << "' needs one 'input' argument in "
             << (up ? "host memory"
                    : "the device memory space ("
                      "memref memory space 1)")
             << " and one result of its shape and element type in "
             << (up ? "the device memory space (memref memory space 1)"
                    : "host memory");
    return success();
  }
  if (!has("input") || results < 1 ||
      results > (op == "compute_params" ? 2u : 1u))
    return stub.emitError() << "launch stub '" << op
                            << "' needs an 'input' argument and "
                            << (op == "compute_params" ? "one or two results"
                                                       : "one result");
  if (op == "compute_params")
    return needSchemes({"scheme"});
  if (op == "quantize")
    return needSchemes({"out_scheme"});
  if (op == "dequantize")
    return needSchemes({"in_scheme"});
  return needSchemes({"in_scheme", "out_scheme"});
}

LogicalResult buildStub(func::FuncOp stub, KernelModule &km,
                        const Tuning &tuning) {
  if (failed(verifyStubContract(stub)))
    return failure();
  StringRef op = stub->getAttrOfType<StringAttr>(kCudaOpAttr).getValue();
  auto roles = stub->getAttrOfType<ArrayAttr>(kCudaRolesAttr);
  for (Type t : llvm::concat<const Type>(stub.getArgumentTypes(),
                                         stub.getResultTypes())) {
    auto mt = dyn_cast<MemRefType>(t);
    if (!mt || !mt.getLayout().isIdentity())
      return stub.emitError()
             << "convert-octet-to-gpu expects bufferized launch stubs with "
                "identity-layout memrefs (run one-shot-bufferize with "
                "function-boundary-type-conversion=identity-layout-map "
                "first), got "
             << t;
  }
  Block *entry = stub.addEntryBlock();
  OpBuilder b(stub.getContext());
  b.setInsertionPointToStart(entry);
  StubArgs args;
  args.stub = stub.getSymName().str();
  for (auto [role, arg] : llvm::zip(roles, entry->getArguments())) {
    StringRef name = cast<StringAttr>(role).getValue();
    Value v = arg;
    if (isCudaDeviceMemRef(v.getType())) {
      v = memref::MemorySpaceCastOp::create(
          b, stub.getLoc(), HostCode::plainType(cast<MemRefType>(v.getType())),
          v);
      args.onDevice.insert(name);
    }
    args.byRole[name] = v;
  }
  if (auto resident = stub->getAttrOfType<ArrayAttr>(kCudaResidentAttr))
    for (Attribute r : resident)
      args.resident.insert(cast<StringAttr>(r).getValue());
  HostCode h(b, stub.getLoc());
  SmallVector<Value> results;
  if (op == "upload")
    results.push_back(
        h.result(h.upload(args.get("input")), stub.getResultTypes()[0]));
  else if (op == "download")
    results.push_back(h.download(args.get("input")));
  else if (op == "matmul")
    results.push_back(matmulBody(h, km, stub, args, tuning));
  else if (op == "compute_params")
    results = computeParamsBody(h, km, stub, args);
  else
    results.push_back(elementwiseBody(h, km, stub, op, args));
  h.finish();
  func::ReturnOp::create(b, stub.getLoc(), results);
  for (StringRef name : {kCudaOpAttr, kCudaRolesAttr, kCudaSchemesAttr,
                         kCudaKernelAttr, kCudaReluAttr, kCudaResidentAttr})
    stub->removeAttr(name);
  // Internal to the compiled library.
  stub->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                    stub.getContext(), LLVM::Linkage::Internal));
  return success();
}

/// The host side of device buffers outside the stubs. The buffer
/// deallocation pipeline frees the device results of stubs with
/// memref.dealloc, which becomes a stream-ordered gpu.dealloc; where it
/// copies a device buffer (a device entry returning its argument) the
/// memref.alloc and memref.copy become gpu.alloc and gpu.memcpy (waiting
/// only when the copy goes to the host). Any other host op that reads or
/// writes a device buffer is an error (the outlining downloads every value
/// a host op uses).
LogicalResult lowerDeviceBuffersOnHost(func::FuncOp func) {
  SmallVector<Operation *> rewrites;
  WalkResult walk = func.walk([&](Operation *op) {
    auto onDevice = [](Value v) { return isCudaDeviceMemRef(v.getType()); };
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (onDevice(dealloc.getMemref()))
        rewrites.push_back(op);
      return WalkResult::advance();
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (onDevice(alloc.getMemref()))
        rewrites.push_back(op);
      return WalkResult::advance();
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && (onDevice(copy.getSource()) || onDevice(copy.getTarget()))) {
      rewrites.push_back(op);
      return WalkResult::advance();
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    for (Value v : op->getOperands()) {
      if (!onDevice(v))
        continue;
      if (effects.getEffectOnValue<MemoryEffects::Read>(v) ||
          effects.getEffectOnValue<MemoryEffects::Write>(v)) {
        op->emitError() << "a host op uses a device buffer (" << v.getType()
                        << "); only launch stubs may";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Operation *op : rewrites) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type token = gpu::AsyncTokenType::get(b.getContext());
    Value t = gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
    // Device buffers as the plain memrefs gpu ops take.
    auto plain = [&](Value v) -> Value {
      if (!isCudaDeviceMemRef(v.getType()))
        return v;
      return memref::MemorySpaceCastOp::create(
          b, loc, HostCode::plainType(cast<MemRefType>(v.getType())), v);
    };
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      gpu::DeallocOp::create(b, loc, token, ValueRange{t},
                             plain(dealloc.getMemref()));
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto dev = gpu::AllocOp::create(
          b, loc, HostCode::plainType(alloc.getType()), token, ValueRange{t},
          alloc.getDynamicSizes(), ValueRange{}, UnitAttr());
      alloc.replaceAllUsesWith(memref::MemorySpaceCastOp::create(
                                   b, loc, alloc.getType(), dev.getMemref())
                                   .getResult());
    } else {
      auto copy = cast<memref::CopyOp>(op);
      t = gpu::MemcpyOp::create(b, loc, token, ValueRange{t},
                                plain(copy.getTarget()),
                                plain(copy.getSource()))
              .getAsyncToken();
      if (!isCudaDeviceMemRef(copy.getTarget().getType()))
        gpu::WaitOp::create(b, loc, Type(), ValueRange{t});
    }
    op->erase();
  }
  return success();
}

struct ConvertOctetToGPUPass
    : octet::impl::ConvertOctetToGPUBase<ConvertOctetToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> stubs;
    for (auto f : module.getOps<func::FuncOp>())
      if (f->hasAttr(kCudaOpAttr)) {
        if (!f.isExternal()) {
          f.emitError() << "launch stub already has a body";
          return signalPassFailure();
        }
        stubs.push_back(f);
      }
    if (wgmmaTileN != 128 && wgmmaTileN != 256) {
      module.emitError() << "convert-octet-to-gpu: wgmma-tile-n must be 128 "
                            "or 256, got "
                         << static_cast<int64_t>(wgmmaTileN);
      return signalPassFailure();
    }
    if (wgmmaStages < 3 || wgmmaStages * (128 + wgmmaTileN) * 128 > 227 * 1024) {
      module.emitError() << "convert-octet-to-gpu: wgmma-stages must be at "
                            "least 3 and fit 227 KiB of shared memory, got "
                         << static_cast<int64_t>(wgmmaStages);
      return signalPassFailure();
    }
    if (gemvRows < 1 || gemvRows > 8) {
      module.emitError() << "convert-octet-to-gpu: gemv-rows must be in "
                            "[1, 8], got "
                         << static_cast<int64_t>(gemvRows);
      return signalPassFailure();
    }
    if (wgmmaWeightOnlyRows < 0 || wgmmaWeightOnlyRows == 1) {
      module.emitError() << "convert-octet-to-gpu: wgmma-weight-only-rows "
                            "must be 0 (off) or at least 2, got "
                         << static_cast<int64_t>(wgmmaWeightOnlyRows);
      return signalPassFailure();
    }
    if (stubs.empty() && manifest.empty())
      return;
    TargetAttr attr = target::getTargetAttr(module);
    if (!attr) {
      module.emitError() << "convert-octet-to-gpu needs the module's "
                            "#octet.target (a CUDA target)";
      return signalPassFailure();
    }
    FailureOr<const tgt::TargetInfo *> info =
        tgt::getTargetInfo(attr, [&] { return module.emitError(); });
    if (failed(info))
      return signalPassFailure();
    if ((*info)->arch != tgt::Arch::cuda) {
      module.emitError() << "convert-octet-to-gpu: #octet.target<\""
                         << (*info)->name << "\"> is not a CUDA target";
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    KernelModule km(module, **info);
    Tuning tuning{wgmmaTileN, wgmmaStages, gemvRows,
                  (*info)->sm == 90 ? int64_t(wgmmaWeightOnlyRows) : 0};
    SmallVector<func::FuncOp> hostFuncs;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f->hasAttr(kCudaOpAttr) && !f.isExternal())
        hostFuncs.push_back(f);
    for (func::FuncOp stub : stubs)
      if (failed(buildStub(stub, km, tuning)))
        return signalPassFailure();
    for (func::FuncOp f : hostFuncs)
      if (failed(lowerDeviceBuffersOnHost(f)))
        return signalPassFailure();
    if (!manifest.empty()) {
      std::string error;
      auto out = openOutputFile(manifest, &error);
      if (!out) {
        module.emitError() << "cannot write the kernel manifest: " << error;
        return signalPassFailure();
      }
      if (failed(writeCudaKernelManifest(module, out->os())))
        return signalPassFailure();
      out->keep();
    }
  }
};

} // namespace

bool octet::isCudaDeviceMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  auto space = memref ? dyn_cast_or_null<IntegerAttr>(memref.getMemorySpace())
                      : IntegerAttr();
  return space && space.getInt() == kCudaDeviceMemorySpace;
}

LogicalResult octet::writeCudaKernelManifest(ModuleOp module,
                                             raw_ostream &os) {
  os << "# octet kernel manifest v1 (docs/cuda.md)\n"
        "# kernel NAME KIND BLOCK_X BLOCK_Y SHARED_BYTES TILE_M TILE_N "
        "TILE_K\n";
  auto gpuModule =
      module.lookupSymbol<gpu::GPUModuleOp>(kCudaKernelModuleName);
  if (!gpuModule)
    return success();
  if (auto targets = gpuModule.getTargetsAttr())
    for (Attribute t : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(t))
        os << "target " << nvvm.getChip() << " " << nvvm.getFeatures()
           << "\n";
  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
    std::optional<LaunchInfo> info = getLaunchInfo(func);
    if (!info)
      continue;
    os << "kernel " << func.getName() << " " << info->kind << " "
       << info->block << " " << info->blockY << " " << info->sharedBytes
       << " " << info->tileM << " " << info->tileN << " " << info->tileK
       << "\n";
  }
  return success();
}

unsigned octet::prefixGpuRuntimeCalls(llvm::Module &module) {
  unsigned renamed = 0;
  for (llvm::Function &f : module.functions()) {
    if (!f.isDeclaration() || !f.getName().starts_with("mgpu"))
      continue;
    std::string name = ("octet_" + f.getName()).str();
    if (llvm::Function *existing = module.getFunction(name)) {
      f.replaceAllUsesWith(existing);
      continue;
    }
    f.setName(name);
    ++renamed;
  }
  return renamed;
}
