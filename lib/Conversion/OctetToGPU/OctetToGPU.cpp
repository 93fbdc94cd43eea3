//===- OctetToGPU.cpp - convert-octet-to-gpu ------------------------------===//
//
// The memref-level half of the CUDA lowering: gives every launch stub left
// by octet-outline-for-cuda its body and writes the kernels it launches
// into gpu.module @octet_kernels (NVVM target of the module's
// #octet.target). A stub body:
//
//   gpu.wait async -> gpu.alloc + gpu.memcpy of each input -> helper
//   kernels (B transposed to N x K for the tensor-core kernels, row and
//   column sums for zero points) -> the kernel -> gpu.memcpy of the result
//   into a new host buffer -> gpu.dealloc -> gpu.wait
//
// Kernels take generic pointers and i64 sizes (Kernels.h, docs/cuda.md);
// identical kernels are shared between stubs.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelCommon.h"

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

//===----------------------------------------------------------------------===//
// The kernel module
//===----------------------------------------------------------------------===//

/// gpu.module @octet_kernels and the kernels already in it, by key.
class KernelModule {
public:
  KernelModule(ModuleOp module, const tgt::TargetInfo &target) {
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

  /// A device buffer of `type` (freed at the end).
  Value alloc(MemRefType type, ValueRange dynSizes) {
    auto op = gpu::AllocOp::create(b, loc, type, tokenType, ValueRange{token},
                                   dynSizes, ValueRange{}, UnitAttr());
    token = op.getAsyncToken();
    buffers.push_back(op.getMemref());
    return op.getMemref();
  }

  /// A device copy of the host buffer `host`.
  Value upload(Value host) {
    auto type = cast<MemRefType>(host.getType());
    Value dev = alloc(MemRefType::get(type.getShape(), type.getElementType()),
                      dynamicSizes(host));
    token = gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{token}, dev,
                                  host)
                .getAsyncToken();
    return dev;
  }

  /// A new host buffer with the contents of the device buffer `dev`.
  Value download(Value dev) {
    auto type = cast<MemRefType>(dev.getType());
    Value host = memref::AllocOp::create(b, loc, type, dynamicSizes(dev));
    token = gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{token}, host,
                                  dev)
                .getAsyncToken();
    return host;
  }

  void memsetZero(Value dev) {
    Type elem = cast<MemRefType>(dev.getType()).getElementType();
    Value zero = arith::ConstantOp::create(b, loc, elem,
                                           b.getZeroAttr(elem));
    token = gpu::MemsetOp::create(b, loc, tokenType, ValueRange{token}, dev,
                                  zero)
                .getAsyncToken();
  }

  /// The device address of `dev` as a kernel pointer argument.
  Value pointer(Value dev) {
    if (!dev)
      return LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()));
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

  /// Frees the device buffers and waits for the stream.
  void finish() {
    for (Value buf : buffers)
      token = gpu::DeallocOp::create(b, loc, tokenType, ValueRange{token}, buf)
                  .getAsyncToken();
    gpu::WaitOp::create(b, loc, Type(), ValueRange{token});
  }

  OpBuilder &b;
  Location loc;
  Type tokenType;
  Value token;
  SmallVector<Value> buffers;
};

/// The stub's arguments by role.
struct StubArgs {
  llvm::StringMap<Value> byRole;
  Value get(StringRef role) const { return byRole.lookup(role); }
};

SchemeAttr schemeOf(func::FuncOp stub, StringRef name) {
  auto dict = stub->getAttrOfType<DictionaryAttr>(kCudaSchemesAttr);
  return dict ? dict.getAs<SchemeAttr>(name) : SchemeAttr();
}

/// Kernel tuning from the pass options.
struct Tuning {
  int64_t wgmmaTileN, wgmmaStages, gemvRows;
};

//===----------------------------------------------------------------------===//
// Stub bodies
//===----------------------------------------------------------------------===//

/// Sizes of `memref` as i64 values, and its element count.
std::pair<SmallVector<Value>, Value> sizesOf(HostCode &h, Value memref) {
  SmallVector<Value> dims;
  Value numel = h.index(1);
  for (int64_t d = 0, r = cast<MemRefType>(memref.getType()).getRank(); d < r;
       ++d) {
    Value size = h.dim(memref, d);
    numel = h.mul(numel, size);
    dims.push_back(h.i64(size));
  }
  return {dims, numel};
}

Value elementwiseBody(HostCode &h, KernelModule &km, func::FuncOp stub,
                      StringRef op, const StubArgs &args) {
  Value input = args.get("input");
  auto inType = cast<MemRefType>(input.getType());
  auto outType = cast<MemRefType>(stub.getResultTypes()[0]);
  ElementwiseConfig config;
  config.kind = op == "quantize"     ? ElementwiseKind::quantize
                : op == "dequantize" ? ElementwiseKind::dequantize
                                     : ElementwiseKind::requantize;
  config.rank = inType.getRank();
  config.inElem = inType.getElementType();
  config.outElem = outType.getElementType();
  config.inScheme = schemeOf(stub, "in_scheme");
  config.outScheme = schemeOf(stub, "out_scheme");
  config.inZp = static_cast<bool>(args.get("in_zero_point"));
  config.outZp = static_cast<bool>(args.get("out_zero_point"));
  gpu::GPUFuncOp kernel =
      km.get(config.key(), "elementwise", [&](OpBuilder &b, StringRef name) {
        return buildElementwiseKernel(b, h.loc, name, config);
      });
  auto [dims, numel] = sizesOf(h, input);
  auto dev = [&](StringRef role) -> Value {
    Value v = args.get(role);
    return v ? h.upload(v) : Value();
  };
  Value in = h.upload(input);
  Value is = dev("in_scale"), iz = dev("in_zero_point");
  Value os = dev("out_scale"), oz = dev("out_zero_point");
  SmallVector<Value> outSizes;
  for (int64_t d = 0; d < outType.getRank(); ++d)
    if (outType.isDynamicDim(d))
      outSizes.push_back(h.dim(input, d));
  Value out = h.alloc(outType, outSizes);
  SmallVector<Value> kargs{h.pointer(in), h.pointer(out), h.pointer(is),
                           h.pointer(iz), h.pointer(os),  h.pointer(oz),
                           h.i64(numel)};
  kargs.append(dims);
  Value blocks = arith::MinUIOp::create(h.b, h.loc, h.ceilDiv(numel, 256),
                                        h.index(65535));
  h.launch(kernel, blocks, h.index(1), h.index(1), kargs);
  return h.download(out);
}

SmallVector<Value> computeParamsBody(HostCode &h, KernelModule &km,
                                     func::FuncOp stub, const StubArgs &args) {
  Value input = args.get("input");
  auto inType = cast<MemRefType>(input.getType());
  ComputeParamsConfig config{inType.getRank(), inType.getElementType(),
                             schemeOf(stub, "scheme")};
  gpu::GPUFuncOp kernel = km.get(
      config.key(), "compute_params", [&](OpBuilder &b, StringRef name) {
        return buildComputeParamsKernel(b, h.loc, name, config);
      });
  auto [dims, numel] = sizesOf(h, input);
  (void)numel;
  // Parameter tensors: the input shape with the grouped dimension reduced.
  SchemeAttr scheme = config.scheme;
  auto paramSizes = [&](MemRefType type) {
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (scheme.getGranularity() == Granularity::per_axis) {
        sizes.push_back(h.dim(input, scheme.getAxis()));
        continue;
      }
      // per_group: the input's sizes, the grouped one divided.
      Value size = h.dim(input, d);
      if (d == scheme.getAxis())
        size = arith::DivUIOp::create(h.b, h.loc, size,
                                      h.index(scheme.getGroupSize()));
      sizes.push_back(size);
    }
    return sizes;
  };
  auto scaleType = cast<MemRefType>(stub.getResultTypes()[0]);
  Value in = h.upload(input);
  Value scale = h.alloc(scaleType, paramSizes(scaleType));
  Value zp;
  if (stub.getNumResults() == 2) {
    auto zpType = cast<MemRefType>(stub.getResultTypes()[1]);
    zp = h.alloc(zpType, paramSizes(zpType));
  }
  Value groups = h.index(1);
  for (int64_t d = 0; d < scaleType.getRank(); ++d)
    groups = h.mul(groups, h.dim(scale, d));
  SmallVector<Value> kargs{h.pointer(in), h.pointer(scale), h.pointer(zp)};
  kargs.append(dims);
  h.launch(kernel, groups, h.index(1), h.index(1), kargs);
  SmallVector<Value> results{h.download(scale)};
  if (zp)
    results.push_back(h.download(zp));
  return results;
}

Value matmulBody(HostCode &h, KernelModule &km, func::FuncOp stub,
                 const StubArgs &args, const Tuning &tuning) {
  Location loc = h.loc;
  MatmulConfig c;
  c.kind = *symbolizeMatmulKernelKind(
      stub->getAttrOfType<StringAttr>(kCudaKernelAttr).getValue());
  Value lhs = args.get("lhs");
  Value rhsNk = args.get("rhs_nk"), rhs = args.get("rhs");
  auto lhsType = cast<MemRefType>(lhs.getType());
  auto rhsType = cast<MemRefType>((rhs ? rhs : rhsNk).getType());
  auto outType = cast<MemRefType>(stub.getResultTypes()[0]);
  SchemeAttr lhsScheme = schemeOf(stub, "lhs_scheme");
  if (lhsScheme)
    c.lhsScheme = lhsScheme;
  c.rhsScheme = schemeOf(stub, "rhs_scheme");
  if (SchemeAttr out = schemeOf(stub, "out_scheme"))
    c.outScheme = out;
  c.lhsElem = lhsType.getElementType();
  c.rhsElem = rhsType.getElementType();
  c.resultElem = outType.getElementType();
  c.lhsZp = static_cast<bool>(args.get("lhs_zero_point"));
  c.rhsZp = static_cast<bool>(args.get("rhs_zero_point"));
  c.bias = static_cast<bool>(args.get("bias"));
  c.relu = stub->hasAttr(kCudaReluAttr);
  c.outZp = static_cast<bool>(args.get("out_zero_point"));
  c.batched = lhsType.getRank() == 3;
  c.rhsBatched = rhsType.getRank() == 3;
  switch (c.kind) {
  case MatmulKernelKind::mmaSync:
    c.tileM = 128, c.tileN = 128, c.tileK = 64, c.stages = 3;
    break;
  case MatmulKernelKind::wgmma:
    c.tileM = 128, c.tileN = tuning.wgmmaTileN, c.tileK = 128;
    c.stages = tuning.wgmmaStages;
    break;
  case MatmulKernelKind::gemv:
    c.tileM = tuning.gemvRows, c.tileN = 128, c.tileK = 128;
    c.gemvRows = tuning.gemvRows;
    c.stages = 1;
    break;
  case MatmulKernelKind::simt:
    break;
  }
  StringRef kindName = stringifyMatmulKernelKind(c.kind);
  auto kernelFor = [&](const MatmulConfig &config) {
    return km.get(config.key(), kindName, [&](OpBuilder &b, StringRef name) {
      return buildMatmulKernel(b, loc, name, config);
    });
  };
  gpu::GPUFuncOp kernel = kernelFor(c);
  // gemv: a one-row variant for decoding (M == 1) needs a quarter of the
  // accumulator registers, so more blocks fit on a multiprocessor.
  gpu::GPUFuncOp oneRowKernel;
  if (c.kind == MatmulKernelKind::gemv && c.gemvRows > 1) {
    MatmulConfig one = c;
    one.gemvRows = 1;
    one.tileM = 1;
    oneRowKernel = kernelFor(one);
  }

  int64_t rank = lhsType.getRank();
  Value M = h.dim(lhs, rank - 2), K = h.dim(lhs, rank - 1);
  Value N = rhs ? h.dim(rhs, rhsType.getRank() - 1) : h.dim(rhsNk, 0);
  Value batch = rank == 3 ? h.dim(lhs, 0) : h.index(1);
  bool tensorCore =
      c.kind == MatmulKernelKind::mmaSync || c.kind == MatmulKernelKind::wgmma;

  Value dA = h.upload(lhs);
  Value dB;
  if (tensorCore && rhs) {
    // B -> B^T on the device.
    Value dRhs = h.upload(rhs);
    auto nkType = MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic},
                                  rhsType.getElementType());
    dB = h.alloc(nkType, {N, K});
    gpu::GPUFuncOp transpose =
        km.get("transpose8", "transpose", [&](OpBuilder &b, StringRef name) {
          return buildTransposeKernel(b, loc, name);
        });
    h.launch(transpose, h.ceilDiv(N, 32), h.ceilDiv(K, 32), h.index(1),
             {h.pointer(dRhs), h.pointer(dB), h.i64(K), h.i64(N)});
  } else {
    dB = h.upload(rhs ? rhs : rhsNk);
  }
  auto dev = [&](StringRef role) -> Value {
    Value v = args.get(role);
    return v ? h.upload(v) : Value();
  };
  Value sa = dev("lhs_scale"), za = dev("lhs_zero_point");
  Value sb = dev("rhs_scale"), zb = dev("rhs_zero_point");
  Value bias = dev("bias"), os = dev("out_scale"), oz = dev("out_zero_point");

  // Zero-point sums for the tensor-core kernels (the SIMT kernel folds the
  // zero points into its sums; gemv into the weights).
  Value rowSum, colSum;
  if (tensorCore && (za || zb)) {
    auto rowSumKernel = [&](SchemeAttr scheme, Type elem) {
      std::string key = "rowsum_" + typeString(elem) +
                        (scheme.isUnsigned() ? "_u" : "_s");
      return km.get(key, "rowsum", [&](OpBuilder &b, StringRef name) {
        return buildRowSumKernel(b, loc, name, elem, scheme.isUnsigned());
      });
    };
    auto vecType = MemRefType::get({ShapedType::kDynamic}, h.b.getI32Type());
    if (zb) {
      rowSum = h.alloc(vecType, {M});
      h.launch(rowSumKernel(lhsScheme, c.lhsElem), h.ceilDiv(M, 256),
               h.index(1), h.index(1),
               {h.pointer(dA), h.pointer(rowSum), h.i64(M), h.i64(K)});
    }
    if (za) {
      if (Value cs = args.get("colsum")) {
        colSum = h.upload(cs);
      } else {
        colSum = h.alloc(vecType, {N});
        h.launch(rowSumKernel(c.rhsScheme, c.rhsElem), h.ceilDiv(N, 256),
                 h.index(1), h.index(1),
                 {h.pointer(dB), h.pointer(colSum), h.i64(N), h.i64(K)});
      }
    }
  }

  SmallVector<Value> outDyn;
  for (int64_t d = 0; d < outType.getRank(); ++d)
    if (outType.isDynamicDim(d))
      outDyn.push_back(d == outType.getRank() - 1 ? N
                       : d == outType.getRank() - 2 ? M
                                                    : batch);
  Value out = h.alloc(outType, outDyn);

  Value ws, counters, kChunk = h.index(0), gx, gy, gz = h.index(1);
  switch (c.kind) {
  case MatmulKernelKind::simt:
    gx = h.ceilDiv(N, 16), gy = h.ceilDiv(M, 16), gz = batch;
    break;
  case MatmulKernelKind::mmaSync:
  case MatmulKernelKind::wgmma:
    gx = h.ceilDiv(N, c.tileN), gy = h.ceilDiv(M, c.tileM);
    break;
  case MatmulKernelKind::gemv: {
    // Enough blocks for every multiprocessor: split K into chunks (a
    // multiple of 128 rows) so that the grid has about 512 blocks. The row
    // tiles count too, so that a large M splits K less (the workspace is
    // k_split * M * N floats); up to gemv-rows rows it is the same split.
    OpBuilder &b = h.b;
    Value colTiles = h.ceilDiv(N, 128);
    Value rowTiles = h.ceilDiv(M, c.gemvRows);
    Value tiles = arith::MaxUIOp::create(b, loc, h.mul(colTiles, rowTiles),
                                         h.index(1));
    Value want = arith::MaxUIOp::create(
        b, loc, h.index(1),
        arith::CeilDivUIOp::create(b, loc, h.index(512), tiles));
    Value chunk = h.mul(h.ceilDiv(arith::CeilDivUIOp::create(b, loc, K, want),
                                  128),
                        h.index(128));
    kChunk = arith::MaxUIOp::create(b, loc, chunk, h.index(128));
    Value ksplit = arith::MaxUIOp::create(
        b, loc, h.index(1), arith::CeilDivUIOp::create(b, loc, K, kChunk));
    auto f32Vec = MemRefType::get({ShapedType::kDynamic}, b.getF32Type());
    auto i32Vec = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
    ws = h.alloc(f32Vec, {h.mul(ksplit, h.mul(M, N))});
    // One counter per (column tile, row tile), enough for either variant.
    counters = h.alloc(i32Vec, {h.mul(colTiles, arith::MaxUIOp::create(
                                                    b, loc, M, h.index(1)))});
    h.memsetZero(counters);
    gx = colTiles, gy = ksplit, gz = rowTiles;
    break;
  }
  }
  SmallVector<Value> kargs(kNumMatmulParams);
  kargs[kA] = h.pointer(dA);
  kargs[kB] = h.pointer(dB);
  kargs[kOut] = h.pointer(out);
  kargs[kSa] = h.pointer(sa);
  kargs[kZa] = h.pointer(za);
  kargs[kSb] = h.pointer(sb);
  kargs[kZb] = h.pointer(zb);
  kargs[kRowSum] = h.pointer(rowSum);
  kargs[kColSum] = h.pointer(colSum);
  kargs[kBias] = h.pointer(bias);
  kargs[kOs] = h.pointer(os);
  kargs[kOz] = h.pointer(oz);
  kargs[kWorkspace] = h.pointer(ws);
  kargs[kCounters] = h.pointer(counters);
  kargs[kM] = h.i64(M);
  kargs[kN] = h.i64(N);
  kargs[kK] = h.i64(K);
  kargs[kBatch] = h.i64(batch);
  kargs[kKChunk] = h.i64(kChunk);
  if (oneRowKernel) {
    Value single = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ule,
                                         M, h.index(1));
    h.launchEither(single, oneRowKernel, {gx, gy, M}, kernel, {gx, gy, gz},
                   kargs);
  } else {
    h.launch(kernel, gx, gy, gz, kargs);
  }
  return h.download(out);
}

/// The contract between octet-outline-for-cuda and this pass, checked
/// before anything is built: a hand-written (or fuzzed) stub that breaks it
/// is an error, not a null scheme or kind dereferenced in a kernel builder.
LogicalResult verifyStubContract(func::FuncOp stub) {
  auto opAttr = stub->getAttrOfType<StringAttr>(kCudaOpAttr);
  StringRef op = opAttr ? opAttr.getValue() : StringRef();
  if (!llvm::is_contained({"matmul", "compute_params", "quantize",
                           "dequantize", "requantize"},
                          op))
    return stub.emitError()
           << "launch stub: " << kCudaOpAttr
           << " must be one of matmul, compute_params, quantize, "
              "dequantize, requantize";
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
    int64_t rhsRank = has("rhs") ? rankOf("rhs") : rankOf("rhs_nk");
    if (lhsRank < 2 || lhsRank > 3 || rhsRank < 2 || rhsRank > 3 ||
        results != 1)
      return stub.emitError()
             << "matmul launch stub needs an 'lhs' and an 'rhs' (or "
                "'rhs_nk') argument of rank 2 or 3 and one result";
    // Tensor-core kernels multiply codes on both sides.
    if (*kind == MatmulKernelKind::mmaSync || *kind == MatmulKernelKind::wgmma)
      return needSchemes({"lhs_scheme", "rhs_scheme"});
    return needSchemes({"rhs_scheme"});
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
  for (auto [role, arg] : llvm::zip(roles, entry->getArguments()))
    args.byRole[cast<StringAttr>(role).getValue()] = arg;
  HostCode h(b, stub.getLoc());
  SmallVector<Value> results;
  if (op == "matmul")
    results.push_back(matmulBody(h, km, stub, args, tuning));
  else if (op == "compute_params")
    results = computeParamsBody(h, km, stub, args);
  else
    results.push_back(elementwiseBody(h, km, stub, op, args));
  h.finish();
  func::ReturnOp::create(b, stub.getLoc(), results);
  for (StringRef name : {kCudaOpAttr, kCudaRolesAttr, kCudaSchemesAttr,
                         kCudaKernelAttr, kCudaReluAttr})
    stub->removeAttr(name);
  // Internal to the compiled library.
  stub->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                    stub.getContext(), LLVM::Linkage::Internal));
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
    Tuning tuning{wgmmaTileN, wgmmaStages, gemvRows};
    for (func::FuncOp stub : stubs)
      if (failed(buildStub(stub, km, tuning)))
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
