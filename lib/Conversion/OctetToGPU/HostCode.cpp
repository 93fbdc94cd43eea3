//===- HostCode.cpp - Bodies of the CUDA launch stubs ---------------------===//
//
// The host side of convert-octet-to-gpu: the body of each launch stub
// (HostCode.h), stream-ordered:
//
//   gpu.wait async -> the inputs on the device (deviceArg) -> helper
//   kernels (B transposed to N x K for the tensor-core kernels, row and
//   column sums for zero points) -> the kernel -> the result
//   (HostCode::result) -> gpu.dealloc -> gpu.wait if a result went to the
//   host
//
// Constant inputs (octet.cuda.resident) are uploaded by the stub's first
// call only and stay on the device (HostCode::resident); device arguments
// (memory space 1) are used as they are, device results returned as they
// are.
//
// The matmul body is written in named steps: the kernel configuration, the
// kernels, the sizes, the inputs on the device, the zero-point sums, the
// result buffer, the grid (gemv's K split and workspace), the arguments and
// the launch.
//
//===----------------------------------------------------------------------===//

#include "HostCode.h"
#include "KernelCommon.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

Value HostCode::resident(Value host, StringRef slot) {
  MLIRContext *ctx = b.getContext();
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  Type i64t = b.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, i64t, /*isConstant=*/false,
                           LLVM::Linkage::Internal, slot,
                           b.getI64IntegerAttr(0), /*alignment=*/8);
  }
  Value addr = LLVM::AddressOfOp::create(b, loc, ptrType, slot);
  Value current =
      LLVM::LoadOp::create(b, loc, i64t, addr, /*alignment=*/8, false, false,
                           false, false, LLVM::AtomicOrdering::acquire);
  Value zero = arith::ConstantIntOp::create(b, loc, i64t, 0);
  Value missing =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, current, zero);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{i64t}, missing,
                                /*withElseRegion=*/true);
  {
    // The first call: upload on a stream of its own, wait, then publish.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    auto type = cast<MemRefType>(host.getType());
    Value t =
        gpu::WaitOp::create(b, loc, tokenType, ValueRange{}).getAsyncToken();
    auto alloc =
        gpu::AllocOp::create(b, loc, plainType(type), tokenType, ValueRange{t},
                             dynamicSizes(host), ValueRange{}, UnitAttr());
    Value dev = alloc.getMemref();
    t = gpu::MemcpyOp::create(b, loc, tokenType,
                              ValueRange{alloc.getAsyncToken()}, dev, host)
            .getAsyncToken();
    gpu::WaitOp::create(b, loc, Type(), ValueRange{t});
    Value mine =
        i64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dev));
    Value pair = LLVM::AtomicCmpXchgOp::create(b, loc, addr, zero, mine,
                                               LLVM::AtomicOrdering::acq_rel,
                                               LLVM::AtomicOrdering::acquire);
    Value previous = LLVM::ExtractValueOp::create(b, loc, pair, 0);
    Value won = LLVM::ExtractValueOp::create(b, loc, pair, 1);
    auto lost =
        scf::IfOp::create(b, loc,
                          arith::XOrIOp::create(b, loc, won,
                                                arith::ConstantIntOp::create(
                                                    b, loc, b.getI1Type(), 1)));
    {
      // Another thread published its copy first: use that one.
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&lost.getThenRegion().front());
      Value t2 =
          gpu::WaitOp::create(b, loc, tokenType, ValueRange{}).getAsyncToken();
      t2 = gpu::DeallocOp::create(b, loc, tokenType, ValueRange{t2}, dev)
               .getAsyncToken();
      gpu::WaitOp::create(b, loc, Type(), ValueRange{t2});
    }
    scf::YieldOp::create(
        b, loc,
        arith::SelectOp::create(b, loc, won, mine, previous).getResult());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, current);
  }
  return LLVM::IntToPtrOp::create(b, loc, ptrType, ifOp.getResult(0),
                                  LLVM::DereferenceableAttr());
}

Value cuda::deviceArg(HostCode &h, const StubArgs &args, StringRef role) {
  Value v = args.get(role);
  if (!v || args.onDevice.contains(role))
    return v;
  if (args.resident.contains(role))
    return h.resident(v, (args.stub + "_" + role + "_dev").str());
  return h.upload(v);
}

SchemeAttr cuda::schemeOf(func::FuncOp stub, StringRef name) {
  auto dict = stub->getAttrOfType<DictionaryAttr>(kCudaSchemesAttr);
  return dict ? dict.getAs<SchemeAttr>(name) : SchemeAttr();
}

namespace {

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

} // namespace

//===----------------------------------------------------------------------===//
// Element-wise and parameter stubs
//===----------------------------------------------------------------------===//

Value cuda::elementwiseBody(HostCode &h, KernelModule &km, func::FuncOp stub,
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
  auto dev = [&](StringRef role) { return deviceArg(h, args, role); };
  Value in = dev("input");
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
  return h.result(out, outType);
}

SmallVector<Value> cuda::computeParamsBody(HostCode &h, KernelModule &km,
                                           func::FuncOp stub,
                                           const StubArgs &args) {
  Value input = args.get("input");
  auto inType = cast<MemRefType>(input.getType());
  ComputeParamsConfig config{inType.getRank(), inType.getElementType(),
                             schemeOf(stub, "scheme")};
  gpu::GPUFuncOp kernel = km.get(
      config.key(), "compute_params", [&](OpBuilder &b, StringRef name) {
        return buildComputeParamsKernel(b, h.loc, name, config);
      });
  SmallVector<Value> dims = sizesOf(h, input).first;
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
  Value in = deviceArg(h, args, "input");
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
  SmallVector<Value> results{h.result(scale, scaleType)};
  if (zp)
    results.push_back(h.result(zp, stub.getResultTypes()[1]));
  return results;
}
//===----------------------------------------------------------------------===//
// Matmul stubs
//===----------------------------------------------------------------------===//

namespace {

/// The problem sizes of a matmul stub (index values).
struct MatmulSizes {
  Value M, N, K, batch;
};

/// The device buffers of a matmul launch; absent ones are null.
struct MatmulBuffers {
  Value a, b, sa, za, sb, zb, bias, os, oz, rowSum, colSum, out, ws, counters;
};

/// The grid of a matmul launch, and gemv's K chunk (0 for the others).
struct MatmulGrid {
  Value gx, gy, gz, kChunk;
};

/// The kernel configuration of a matmul stub: its kind, formats and fused
/// operations from the stub, the tile of its kind from the pass options.
MatmulConfig matmulConfig(func::FuncOp stub, const StubArgs &args,
                          const Tuning &tuning) {
  MatmulConfig c;
  c.kind = *symbolizeMatmulKernelKind(
      stub->getAttrOfType<StringAttr>(kCudaKernelAttr).getValue());
  Value lhs = args.get("lhs");
  Value rhsNk = args.get("rhs_nk"), rhs = args.get("rhs");
  Value rhsPacked = args.get("rhs_packed");
  auto lhsType = cast<MemRefType>(lhs.getType());
  auto rhsType = cast<MemRefType>((rhs     ? rhs
                                   : rhsNk ? rhsNk
                                           : rhsPacked)
                                      .getType());
  c.packedNibbles = static_cast<bool>(rhsPacked);
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
  case MatmulKernelKind::tcgen05:
    c.tileM = 128, c.tileN = 128, c.tileK = 128, c.stages = 2;
    break;
  case MatmulKernelKind::gemv:
    c.tileM = tuning.gemvRows, c.tileN = 128, c.tileK = 128;
    c.gemvRows = tuning.gemvRows;
    c.stages = 1;
    break;
  case MatmulKernelKind::simt:
    break;
  }
  return c;
}

/// The kernels of a matmul stub: `kernel` for `c`; for gemv with several
/// rows its one-row variant (for decoding, M == 1, it needs a quarter of
/// the accumulator registers, so more blocks fit on a multiprocessor), and
/// on sm_90a the wgmma weight-only kernel for many rows (else null).
struct MatmulKernels {
  gpu::GPUFuncOp kernel, oneRowKernel, manyRowKernel;
};

MatmulKernels matmulKernels(KernelModule &km, Location loc,
                            const MatmulConfig &c, const Tuning &tuning) {
  StringRef kindName = stringifyMatmulKernelKind(c.kind);
  auto kernelFor = [&](const MatmulConfig &config) {
    return km.get(config.key(), kindName, [&](OpBuilder &b, StringRef name) {
      return buildMatmulKernel(b, loc, name, config);
    });
  };
  gpu::GPUFuncOp kernel = kernelFor(c);
  gpu::GPUFuncOp oneRowKernel;
  if (c.kind == MatmulKernelKind::gemv && c.gemvRows > 1) {
    MatmulConfig one = c;
    one.gemvRows = 1;
    one.tileM = 1;
    oneRowKernel = kernelFor(one);
  }
  gpu::GPUFuncOp manyRowKernel;
  if (c.kind == MatmulKernelKind::gemv && tuning.wgmmaWeightOnlyRows > 0 &&
      wgmmaTakesWeightOnly(c)) {
    MatmulConfig many = c;
    many.kind = MatmulKernelKind::wgmma;
    many.tileM = 128, many.tileN = 128, many.tileK = 64, many.stages = 2;
    manyRowKernel =
        km.get(many.key(), "wgmma", [&](OpBuilder &b, StringRef name) {
          return buildMatmulKernel(b, loc, name, many);
        });
  }
  return {kernel, oneRowKernel, manyRowKernel};
}

/// M and K from the lhs ([B x] M x K), N from the rhs ([B x] K x N),
/// rhs_nk (N x K) or rhs_packed (K x N/2 bytes).
MatmulSizes matmulSizes(HostCode &h, const StubArgs &args) {
  Value lhs = args.get("lhs");
  Value rhsNk = args.get("rhs_nk"), rhs = args.get("rhs");
  Value rhsPacked = args.get("rhs_packed");
  int64_t rank = cast<MemRefType>(lhs.getType()).getRank();
  Value M = h.dim(lhs, rank - 2), K = h.dim(lhs, rank - 1);
  Value N = rhs     ? h.dim(rhs, cast<MemRefType>(rhs.getType()).getRank() - 1)
            : rhsNk ? h.dim(rhsNk, 0)
                    : h.mul(h.dim(rhsPacked, 1), h.index(2));
  Value batch = rank == 3 ? h.dim(lhs, 0) : h.index(1);
  return {M, N, K, batch};
}

/// The inputs on the device (constants resident, the others copied). The
/// tensor-core kernels read B^T ([N x K]): a [K x N] rhs is transposed on
/// the device.
void uploadInputs(HostCode &h, KernelModule &km, const StubArgs &args,
                  const MatmulSizes &s, bool tensorCore, MatmulBuffers &d) {
  Location loc = h.loc;
  Value rhs = args.get("rhs");
  Value N = s.N, K = s.K;
  d.a = deviceArg(h, args, "lhs");
  if (tensorCore && rhs) {
    // B -> B^T on the device.
    Value dRhs = deviceArg(h, args, "rhs");
    auto nkType = MemRefType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic},
        cast<MemRefType>(rhs.getType()).getElementType());
    d.b = h.alloc(nkType, {N, K});
    gpu::GPUFuncOp transpose =
        km.get("transpose8", "transpose", [&](OpBuilder &b, StringRef name) {
          return buildTransposeKernel(b, loc, name);
        });
    h.launch(transpose, h.ceilDiv(N, 32), h.ceilDiv(K, 32), h.index(1),
             {h.pointer(dRhs), h.pointer(d.b), h.i64(K), h.i64(N)});
  } else {
    d.b = deviceArg(h, args,
                    rhs                      ? "rhs"
                    : args.get("rhs_packed") ? "rhs_packed"
                                             : "rhs_nk");
  }
  auto dev = [&](StringRef role) { return deviceArg(h, args, role); };
  d.sa = dev("lhs_scale");
  d.za = dev("lhs_zero_point");
  d.sb = dev("rhs_scale");
  d.zb = dev("rhs_zero_point");
  d.bias = dev("bias");
  d.os = dev("out_scale");
  d.oz = dev("out_zero_point");
}

/// Zero-point sums for the tensor-core kernels (the SIMT kernel folds the
/// zero points into its sums; gemv into the weights): row sums of A for
/// rhs zero points, column sums of B for lhs ones (given with constant
/// weights as the stub's `colsum`).
void computeZeroPointSums(HostCode &h, KernelModule &km, const StubArgs &args,
                          const MatmulConfig &c, const MatmulSizes &s,
                          MatmulBuffers &d) {
  Location loc = h.loc;
  Value M = s.M, N = s.N, K = s.K;
  SchemeAttr lhsScheme = c.lhsScheme ? *c.lhsScheme : SchemeAttr();
  auto rowSumKernel = [&](SchemeAttr scheme, Type elem) {
    std::string key = "rowsum_" + typeString(elem) +
                      (scheme.isUnsigned() ? "_u" : "_s");
    return km.get(key, "rowsum", [&](OpBuilder &b, StringRef name) {
      return buildRowSumKernel(b, loc, name, elem, scheme.isUnsigned());
    });
  };
  auto vecType = MemRefType::get({ShapedType::kDynamic}, h.b.getI32Type());
  if (d.zb) {
    d.rowSum = h.alloc(vecType, {M});
    h.launch(rowSumKernel(lhsScheme, c.lhsElem), h.ceilDiv(M, 256),
             h.index(1), h.index(1),
             {h.pointer(d.a), h.pointer(d.rowSum), h.i64(M), h.i64(K)});
  }
  if (d.za) {
    if (args.get("colsum")) {
      d.colSum = deviceArg(h, args, "colsum");
    } else {
      d.colSum = h.alloc(vecType, {N});
      h.launch(rowSumKernel(c.rhsScheme, c.rhsElem), h.ceilDiv(N, 256),
               h.index(1), h.index(1),
               {h.pointer(d.b), h.pointer(d.colSum), h.i64(N), h.i64(K)});
    }
  }
}

/// The device result buffer: [B x] M x N.
Value allocResult(HostCode &h, MemRefType outType, const MatmulSizes &s) {
  Value M = s.M, N = s.N, batch = s.batch;
  SmallVector<Value> outDyn;
  for (int64_t d = 0; d < outType.getRank(); ++d)
    if (outType.isDynamicDim(d))
      outDyn.push_back(d == outType.getRank() - 1 ? N
                       : d == outType.getRank() - 2 ? M
                                                    : batch);
  return h.alloc(outType, outDyn);
}

/// The grid of the kernel. gemv also splits K (allocating its workspace
/// and zeroed counters in `d`; one element each where `skipGemv` holds at
/// run time: another kernel runs instead).
MatmulGrid matmulGrid(HostCode &h, const MatmulConfig &c, const MatmulSizes &s,
                      MatmulBuffers &d, Value skipGemv = Value()) {
  Location loc = h.loc;
  Value M = s.M, N = s.N, K = s.K, batch = s.batch;
  Value kChunk = h.index(0), gx, gy, gz = h.index(1);
  switch (c.kind) {
  case MatmulKernelKind::simt:
    gx = h.ceilDiv(N, 16), gy = h.ceilDiv(M, 16), gz = batch;
    break;
  case MatmulKernelKind::mmaSync:
  case MatmulKernelKind::wgmma:
  case MatmulKernelKind::tcgen05:
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
    Value wsSize = h.mul(ksplit, h.mul(M, N));
    // One counter per (column tile, row tile), enough for either variant.
    Value countersSize =
        h.mul(colTiles, arith::MaxUIOp::create(b, loc, M, h.index(1)));
    if (skipGemv) {
      wsSize = arith::SelectOp::create(b, loc, skipGemv, h.index(1), wsSize);
      countersSize =
          arith::SelectOp::create(b, loc, skipGemv, h.index(1), countersSize);
    }
    d.ws = h.alloc(f32Vec, {wsSize});
    d.counters = h.alloc(i32Vec, {countersSize});
    h.memsetZero(d.counters);
    gx = colTiles, gy = ksplit, gz = rowTiles;
    break;
  }
  }
  return {gx, gy, gz, kChunk};
}

/// The kernel arguments, in MatmulParam order.
SmallVector<Value> matmulKernelArgs(HostCode &h, const MatmulBuffers &d,
                                    const MatmulSizes &s, Value kChunk) {
  SmallVector<Value> kargs(kNumMatmulParams);
  kargs[kA] = h.pointer(d.a);
  kargs[kB] = h.pointer(d.b);
  kargs[kOut] = h.pointer(d.out);
  kargs[kSa] = h.pointer(d.sa);
  kargs[kZa] = h.pointer(d.za);
  kargs[kSb] = h.pointer(d.sb);
  kargs[kZb] = h.pointer(d.zb);
  kargs[kRowSum] = h.pointer(d.rowSum);
  kargs[kColSum] = h.pointer(d.colSum);
  kargs[kBias] = h.pointer(d.bias);
  kargs[kOs] = h.pointer(d.os);
  kargs[kOz] = h.pointer(d.oz);
  kargs[kWorkspace] = h.pointer(d.ws);
  kargs[kCounters] = h.pointer(d.counters);
  kargs[kM] = h.i64(s.M);
  kargs[kN] = h.i64(s.N);
  kargs[kK] = h.i64(s.K);
  kargs[kBatch] = h.i64(s.batch);
  kargs[kKChunk] = h.i64(kChunk);
  return kargs;
}

} // namespace

Value cuda::matmulBody(HostCode &h, KernelModule &km, func::FuncOp stub,
                       const StubArgs &args, const Tuning &tuning) {
  Location loc = h.loc;
  MatmulConfig c = matmulConfig(stub, args, tuning);
  auto [kernel, oneRowKernel, manyRowKernel] =
      matmulKernels(km, loc, c, tuning);
  MatmulSizes s = matmulSizes(h, args);
  bool tensorCore = c.kind == MatmulKernelKind::mmaSync ||
                    c.kind == MatmulKernelKind::wgmma ||
                    c.kind == MatmulKernelKind::tcgen05;
  MatmulBuffers d;
  uploadInputs(h, km, args, s, tensorCore, d);
  if (tensorCore && (d.za || d.zb))
    computeZeroPointSums(h, km, args, c, s, d);
  d.out = allocResult(h, cast<MemRefType>(stub.getResultTypes()[0]), s);
  // Many rows: the wgmma weight-only kernel instead of the gemv pair (the
  // launches it does not take get an empty grid, which the runtime skips).
  Value many;
  if (manyRowKernel)
    many = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::uge, s.M,
                                 h.index(tuning.wgmmaWeightOnlyRows));
  MatmulGrid grid = matmulGrid(h, c, s, d, many);
  SmallVector<Value> kargs = matmulKernelArgs(h, d, s, grid.kChunk);
  if (manyRowKernel) {
    h.launch(manyRowKernel, h.ceilDiv(s.N, 128), h.ceilDiv(s.M, 128),
             arith::SelectOp::create(h.b, loc, many, h.index(1), h.index(0)),
             kargs);
    grid.gz = arith::SelectOp::create(h.b, loc, many, h.index(0), grid.gz);
  }
  if (oneRowKernel) {
    // M <= 1 never takes the many-row kernel (wgmma-weight-only-rows >= 2).
    Value single = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ule,
                                         s.M, h.index(1));
    h.launchEither(single, oneRowKernel, {grid.gx, grid.gy, s.M}, kernel,
                   {grid.gx, grid.gy, grid.gz}, kargs);
  } else {
    h.launch(kernel, grid.gx, grid.gy, grid.gz, kargs);
  }
  return h.result(d.out, stub.getResultTypes()[0]);
}
