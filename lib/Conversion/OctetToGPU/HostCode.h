//===- HostCode.h - Host code of the CUDA launch stubs ----------*- C++ -*-===//
//
// Internal to the OctetToGPU lowering: what convert-octet-to-gpu
// (OctetToGPU.cpp) uses to give a launch stub its body (HostCode.cpp): the
// kernel module the kernels go into, the stream-ordered host code (device
// buffers, copies, launches), the stub's arguments by role, and one body
// builder per stub kind.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOGPU_HOSTCODE_H
#define OCTET_LIB_CONVERSION_OCTETTOGPU_HOSTCODE_H

#include "KernelBuilder.h"
#include "Kernels.h"

#include "octet/Conversion/OctetToGPU/OctetToGPU.h"
#include "octet/Target/Capabilities.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace octet {
namespace cuda {

//===----------------------------------------------------------------------===//
// The kernel module
//===----------------------------------------------------------------------===//

/// gpu.module @octet_kernels and the kernels already in it, by key.
class KernelModule {
public:
  KernelModule(ModuleOp module, const target::TargetInfo &target) {
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    // The PTX version is the capability table's (EMIT_PTX).
    auto nvvm = NVVM::NVVMTargetAttr::get(
        module.getContext(), /*optLevel=*/3, "nvptx64-nvidia-cuda",
        target.name, ("+ptx" + Twine(target.emitPtx)).str());
    gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(),
                                         kCudaKernelModuleName,
                                         ArrayRef<Attribute>{nvvm});
    b.setInsertionPointToStart(gpuModule.getBody());
    LLVM::GlobalOp::create(
        b, module.getLoc(),
        LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
        LLVM::Linkage::External, kSharedMemorySymbol, Attribute(),
        /*alignment=*/1024, /*addrSpace=*/kShared);
  }

  /// The kernel for `key`, built by `build(builder, name)` the first time.
  gpu::GPUFuncOp
  get(StringRef key, StringRef kind,
      function_ref<gpu::GPUFuncOp(OpBuilder &, StringRef)> build) {
    auto it = kernels.find(key);
    if (it != kernels.end())
      return it->second;
    OpBuilder b(gpuModule.getContext());
    b.setInsertionPointToEnd(gpuModule.getBody());
    std::string name = ("octet_" + kind + "_" + Twine(kernels.size())).str();
    gpu::GPUFuncOp func = build(b, name);
    kernels[key] = func;
    return func;
  }

  gpu::GPUModuleOp gpuModule;

private:
  llvm::StringMap<gpu::GPUFuncOp> kernels;
};

//===----------------------------------------------------------------------===//
// Host code of a stub
//===----------------------------------------------------------------------===//

/// Builds the stream-ordered host code of one stub.
class HostCode {
public:
  HostCode(OpBuilder &b, Location loc)
      : b(b), loc(loc), tokenType(gpu::AsyncTokenType::get(b.getContext())) {
    token = gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                .getAsyncToken();
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i64(Value idx) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  Value ceilDiv(Value x, int64_t y) {
    return arith::CeilDivUIOp::create(b, loc, x, index(y));
  }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }

  /// The dynamic sizes of `memref`.
  SmallVector<Value> dynamicSizes(Value memref) {
    SmallVector<Value> sizes;
    auto type = cast<MemRefType>(memref.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(dim(memref, d));
    return sizes;
  }

  /// `type` (identity layout) without a memory space. Inside a stub,
  /// device buffers are plain memrefs (what gpu.alloc's lowering makes);
  /// at its boundary they are cast to and from kCudaDeviceMemorySpace.
  static MemRefType plainType(MemRefType type) {
    return MemRefType::get(type.getShape(), type.getElementType());
  }

  /// A device buffer of `type`'s shape and element type (freed at the end
  /// unless the stub returns it, result()).
  Value alloc(MemRefType type, ValueRange dynSizes) {
    auto op = gpu::AllocOp::create(b, loc, plainType(type), tokenType,
                                   ValueRange{token}, dynSizes, ValueRange{},
                                   UnitAttr());
    token = op.getAsyncToken();
    buffers.push_back(op.getMemref());
    return op.getMemref();
  }

  /// A device copy of the host buffer `host`. (A copy from pageable host
  /// memory returns once the driver has taken the bytes, so the caller may
  /// reuse `host` without waiting.)
  Value upload(Value host) {
    auto type = cast<MemRefType>(host.getType());
    Value dev = alloc(type, dynamicSizes(host));
    token = gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{token}, dev,
                                  host)
                .getAsyncToken();
    return dev;
  }

  /// The device copy of the constant host buffer `host`, uploaded by the
  /// first call only (HostCode.cpp): its address is kept in the i64 global
  /// `slot` (created here; zero until the upload) and published by a
  /// compare-and-swap, so that concurrent first calls agree on one copy.
  /// Returns the device address as a kernel pointer (!llvm.ptr). The copy
  /// lives as long as the process.
  Value resident(Value host, StringRef slot);

  /// A new host buffer with the contents of the device buffer `dev`; the
  /// stub waits for its stream at the end (finish()).
  Value download(Value dev) {
    auto type = cast<MemRefType>(dev.getType());
    Value host =
        memref::AllocOp::create(b, loc, plainType(type), dynamicSizes(dev));
    token = gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{token}, host,
                                  dev)
                .getAsyncToken();
    synchronize = true;
    return host;
  }

  /// The stub's result of `resultType` from the device buffer `dev`: `dev`
  /// itself (no longer freed at the end) for a device result, else a host
  /// copy.
  Value result(Value dev, Type resultType) {
    if (!isCudaDeviceMemRef(resultType))
      return download(dev);
    llvm::erase(buffers, dev);
    return memref::MemorySpaceCastOp::create(b, loc, resultType, dev);
  }

  void memsetZero(Value dev) {
    Type elem = cast<MemRefType>(dev.getType()).getElementType();
    Value zero = arith::ConstantOp::create(b, loc, elem,
                                           b.getZeroAttr(elem));
    token = gpu::MemsetOp::create(b, loc, tokenType, ValueRange{token}, dev,
                                  zero)
                .getAsyncToken();
  }

  /// The device address of `dev` (a device buffer, or the pointer of a
  /// resident one) as a kernel pointer argument.
  Value pointer(Value dev) {
    if (!dev)
      return LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()));
    if (isa<LLVM::LLVMPointerType>(dev.getType()))
      return dev;
    Value addr =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dev);
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64(addr),
        LLVM::DereferenceableAttr());
  }

  void launch(gpu::GPUFuncOp kernel, Value gx, Value gy, Value gz,
              ValueRange args) {
    LaunchInfo info = *getLaunchInfo(kernel);
    Value smem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                              info.sharedBytes);
    gpu::KernelDim3 grid{gx, gy, gz};
    gpu::KernelDim3 block{index(info.block), index(info.blockY), index(1)};
    auto op = gpu::LaunchFuncOp::create(b, loc, kernel, grid, block, smem,
                                        args, tokenType, ValueRange{token});
    token = op.getAsyncToken();
  }

  /// Launches `a` when `cond` holds, else `bk` (each with its grid),
  /// without control flow: the other launch gets an empty grid, which the
  /// runtime skips (octet_mgpuLaunchKernel).
  void launchEither(Value cond, gpu::GPUFuncOp a, ArrayRef<Value> gridA,
                    gpu::GPUFuncOp bk, ArrayRef<Value> gridB,
                    ValueRange args) {
    Value zero = index(0);
    launch(a, gridA[0], gridA[1],
           arith::SelectOp::create(b, loc, cond, gridA[2], zero), args);
    launch(bk, gridB[0], gridB[1],
           arith::SelectOp::create(b, loc, cond, zero, gridB[2]), args);
  }

  /// Frees the device buffers (stream-ordered) and, if the stub copies a
  /// result to the host, waits for the stream. A stub whose results stay on
  /// the device returns with its work in flight: every stub of a thread
  /// runs on that thread's stream (octet_mgpuStreamCreate), so the next
  /// stub's kernels, the frees and the final download are ordered after it.
  void finish() {
    for (Value buf : buffers)
      token = gpu::DeallocOp::create(b, loc, tokenType, ValueRange{token}, buf)
                  .getAsyncToken();
    if (synchronize)
      gpu::WaitOp::create(b, loc, Type(), ValueRange{token});
  }

  OpBuilder &b;
  Location loc;
  Type tokenType;
  Value token;
  SmallVector<Value> buffers;
  bool synchronize = false;
};

/// The stub's arguments by role, the roles whose argument is a constant
/// at the call site (kCudaResidentAttr) and those already on the device
/// (kCudaDeviceMemorySpace; byRole holds them cast to plain memrefs).
struct StubArgs {
  std::string stub;
  llvm::StringMap<Value> byRole;
  llvm::StringSet<> resident, onDevice;
  Value get(StringRef role) const { return byRole.lookup(role); }
};

/// The argument `role` on the device (null if the stub has none): a
/// constant is uploaded by the stub's first call and kept
/// (HostCode::resident), anything else is copied by every call.
Value deviceArg(HostCode &h, const StubArgs &args, StringRef role);

/// The #octet.scheme `name` of the stub's schemes (null if absent).
SchemeAttr schemeOf(func::FuncOp stub, StringRef name);

/// Kernel tuning from the pass options. `wgmmaWeightOnlyRows`: weight-only
/// products with at least this many rows run on the wgmma weight-only
/// kernel (0: never; set only for sm_90a).
struct Tuning {
  int64_t wgmmaTileN, wgmmaStages, gemvRows, wgmmaWeightOnlyRows = 0;
};

//===----------------------------------------------------------------------===//
// Stub bodies (HostCode.cpp)
//===----------------------------------------------------------------------===//

/// quantize / dequantize / requantize (`op`): returns the result buffer.
Value elementwiseBody(HostCode &h, KernelModule &km, func::FuncOp stub,
                      StringRef op, const StubArgs &args);
/// compute_params: returns the scale and, if the stub has one, the zero
/// point buffer.
SmallVector<Value> computeParamsBody(HostCode &h, KernelModule &km,
                                     func::FuncOp stub, const StubArgs &args);
/// matmul: returns the result buffer.
Value matmulBody(HostCode &h, KernelModule &km, func::FuncOp stub,
                 const StubArgs &args, const Tuning &tuning);

} // namespace cuda
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOGPU_HOSTCODE_H
