//===- ElementwiseKernels.cpp - quantize, dequantize, parameters ----------===//
//
// The element-wise CUDA kernels of the OctetToGPU lowering. Their arithmetic
// is the same IR as the CPU path's (ScalarNumerics.h): the kernels only add
// the indexing.
//
//===----------------------------------------------------------------------===//

#include "KernelCommon.h"

#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kLaunchAttrName = "octet.launch";

void cuda::setLaunchInfo(gpu::GPUFuncOp func, const LaunchInfo &info) {
  Builder b(func.getContext());
  SmallVector<NamedAttribute> fields{
      b.getNamedAttr("kind", b.getStringAttr(info.kind)),
      b.getNamedAttr("block", b.getDenseI64ArrayAttr({info.block, info.blockY,
                                                      1})),
      b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(info.sharedBytes)),
      b.getNamedAttr("tile", b.getDenseI64ArrayAttr(
                                 {info.tileM, info.tileN, info.tileK}))};
  func->setAttr(kLaunchAttrName, b.getDictionaryAttr(fields));
}

std::optional<LaunchInfo> cuda::getLaunchInfo(gpu::GPUFuncOp func) {
  auto dict = func->getAttrOfType<DictionaryAttr>(kLaunchAttrName);
  if (!dict)
    return std::nullopt;
  LaunchInfo info;
  if (auto kind = dict.getAs<StringAttr>("kind"))
    info.kind = kind.str();
  if (auto block = dict.getAs<DenseI64ArrayAttr>("block");
      block && block.size() >= 2) {
    info.block = block[0];
    info.blockY = block[1];
  }
  if (auto smem = dict.getAs<IntegerAttr>("shared_bytes"))
    info.sharedBytes = smem.getInt();
  if (auto tile = dict.getAs<DenseI64ArrayAttr>("tile"); tile && tile.size() == 3) {
    info.tileM = tile[0];
    info.tileN = tile[1];
    info.tileK = tile[2];
  }
  return info;
}

gpu::GPUFuncOp cuda::createKernel(OpBuilder &b, Location loc, StringRef name,
                                  TypeRange args, int64_t block,
                                  int64_t blockY) {
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     b.getFunctionType(args, TypeRange{}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {static_cast<int32_t>(block), static_cast<int32_t>(blockY), 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToEnd(&entry);
  auto ret = gpu::ReturnOp::create(b, loc);
  b.setInsertionPoint(ret);
  return func;
}

Value cuda::loadTensorElem(KernelBuilder &kb, Value base, Type elem,
                           Value index) {
  if (isa<Float8E4M3FNType, Float8E5M2Type>(elem)) {
    Value byte = kb.loadElem(base, kb.i8, index);
    return kb.bitcast(byte, elem);
  }
  if (elem.isInteger(4)) {
    Value byte = kb.loadElem(base, kb.i8, index);
    return kb.trunc(byte, elem);
  }
  if (isa<Float4E2M1FNType>(elem)) { // One code per byte, as for i4.
    Value byte = kb.loadElem(base, kb.i8, index);
    return kb.bitcast(kb.trunc(byte, kb.b.getIntegerType(4)), elem);
  }
  return kb.loadElem(base, elem, index);
}

void cuda::storeTensorElem(KernelBuilder &kb, Value v, Value base,
                           Value index) {
  Type t = v.getType();
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    v = kb.bitcast(v, kb.i8);
  else if (t.isInteger(4))
    v = kb.zext(v, kb.i8); // The low nibble; the high one is 0.
  else if (isa<Float4E2M1FNType>(t))
    v = kb.zext(kb.bitcast(v, kb.b.getIntegerType(4)), kb.i8);
  kb.storeElem(v, base, index);
}

Value cuda::paramIndex(KernelBuilder &kb, SchemeAttr scheme, Value index,
                       ArrayRef<Value> dims) {
  if (scheme.getGranularity() == Granularity::per_tensor)
    return kb.c64(0);
  int64_t axis = scheme.getAxis();
  Value inner = kb.c64(1);
  for (int64_t d = axis + 1, r = dims.size(); d < r; ++d)
    inner = kb.mul(inner, dims[d]);
  Value dA = dims[axis];
  Value iA = kb.remU(kb.divU(index, inner), dA);
  if (scheme.getGranularity() == Granularity::per_axis)
    return iA;
  // per_group(axis, g): the parameter tensor is the input shape with d_axis
  // replaced by d_axis / g.
  Value g = kb.c64(scheme.getGroupSize());
  Value outer = kb.divU(index, kb.mul(dA, inner));
  Value in = kb.remU(index, inner);
  Value groups = kb.divU(dA, g);
  return kb.add(kb.mul(kb.add(kb.mul(outer, groups), kb.divU(iA, g)), inner),
                in);
}

std::string cuda::typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string cuda::schemeString(SchemeAttr scheme) {
  if (!scheme)
    return "none";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << scheme;
  return s;
}

std::string ElementwiseConfig::key() const {
  return "ew" + std::to_string(static_cast<int>(kind)) + "_r" +
         std::to_string(rank) + "_" + typeString(inElem) + "_" +
         typeString(outElem) + "_" + schemeString(inScheme) + "_" +
         schemeString(outScheme) + (inZp ? "_iz" : "") + (outZp ? "_oz" : "");
}

std::string ComputeParamsConfig::key() const {
  return "cp_r" + std::to_string(rank) + "_" + typeString(inElem) + "_" +
         schemeString(scheme);
}

//===----------------------------------------------------------------------===//
// quantize / dequantize / requantize
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp cuda::buildElementwiseKernel(OpBuilder &b, Location loc,
                                            StringRef name,
                                            const ElementwiseConfig &config) {
  constexpr int64_t kBlock = 256;
  KernelBuilder kb(b, loc);
  SmallVector<Type> args(6, kb.ptr);
  args.append(1 + config.rank, kb.i64);
  gpu::GPUFuncOp func = createKernel(b, loc, name, args, kBlock);
  LaunchInfo info;
  info.kind = "elementwise";
  info.block = kBlock;
  setLaunchInfo(func, info);

  ValueRange p = func.getArguments();
  Value in = kb.global(p[0]), out = kb.global(p[1]);
  Value inScale = kb.global(p[2]), inZp = kb.global(p[3]);
  Value outScale = kb.global(p[4]), outZp = kb.global(p[5]);
  Value numel = p[6];
  SmallVector<Value> dims(p.begin() + 7, p.end());

  Value gid = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kBlock)),
                     kb.wide(kb.tid()));
  Value stride = kb.mul(kb.wide(kb.gridDimX()), kb.c64(kBlock));
  kb.forLoop(gid, numel, stride, {}, [&](Value e, ValueRange) {
    Value x = loadTensorElem(kb, in, config.inElem, e);
    if (config.kind != ElementwiseKind::quantize) {
      Value idx = paramIndex(kb, config.inScheme, e, dims);
      Value s = kb.loadElem(inScale, kb.f32, idx);
      Value z = config.inZp ? kb.loadElem(inZp, kb.i32, idx) : Value();
      Type resultType = config.kind == ElementwiseKind::dequantize
                            ? config.outElem
                            : Type(kb.f32);
      x = emitDequantize(b, loc, x, s, z, config.inScheme, resultType);
    }
    if (config.kind != ElementwiseKind::dequantize) {
      Value idx = paramIndex(kb, config.outScheme, e, dims);
      Value s = kb.loadElem(outScale, kb.f32, idx);
      Value z = config.outZp ? kb.loadElem(outZp, kb.i32, idx) : Value();
      x = emitQuantize(b, loc, x, s, z, config.outScheme);
    }
    storeTensorElem(kb, x, out, e);
    return SmallVector<Value>{};
  });
  return func;
}

//===----------------------------------------------------------------------===//
// compute_params
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp
cuda::buildComputeParamsKernel(OpBuilder &b, Location loc, StringRef name,
                               const ComputeParamsConfig &config) {
  constexpr int64_t kBlock = 256;
  KernelBuilder kb(b, loc);
  SchemeAttr scheme = config.scheme;
  bool symmetric = scheme.isFloat() || scheme.getSymmetric();
  SmallVector<Type> args(3, kb.ptr);
  args.append(config.rank, kb.i64);
  gpu::GPUFuncOp func = createKernel(b, loc, name, args, kBlock);
  LaunchInfo info;
  info.kind = "compute_params";
  info.block = kBlock;
  info.sharedBytes = 2 * kBlock * 4;
  setLaunchInfo(func, info);

  ValueRange p = func.getArguments();
  Value in = kb.global(p[0]), scaleOut = kb.global(p[1]),
        zpOut = kb.global(p[2]);
  SmallVector<Value> dims(p.begin() + 3, p.end());
  Value numel = kb.c64(1);
  for (Value d : dims)
    numel = kb.mul(numel, d);

  // The elements of group `g`: element(t) for t in [0, count).
  Value g = kb.wide(kb.bidX());
  Value count, base, step;
  std::function<Value(Value)> element;
  switch (scheme.getGranularity()) {
  case Granularity::per_tensor:
    count = numel;
    element = [&](Value t) { return t; };
    break;
  case Granularity::per_axis: {
    int64_t axis = scheme.getAxis();
    Value inner = kb.c64(1);
    for (int64_t d = axis + 1, r = dims.size(); d < r; ++d)
      inner = kb.mul(inner, dims[d]);
    Value dA = dims[axis];
    count = kb.divU(numel, dA);
    element = [&, inner, dA](Value t) {
      Value outer = kb.divU(t, inner);
      return kb.add(kb.mul(kb.add(kb.mul(outer, dA), g), inner),
                    kb.remU(t, inner));
    };
    break;
  }
  case Granularity::per_group: {
    int64_t axis = scheme.getAxis();
    Value inner = kb.c64(1);
    for (int64_t d = axis + 1, r = dims.size(); d < r; ++d)
      inner = kb.mul(inner, dims[d]);
    Value dA = dims[axis];
    Value gs = kb.c64(scheme.getGroupSize());
    Value groups = kb.divU(dA, gs);
    Value outer = kb.divU(g, kb.mul(groups, inner));
    Value ga = kb.remU(kb.divU(g, inner), groups);
    Value in0 = kb.remU(g, inner);
    base = kb.add(kb.add(kb.mul(outer, kb.mul(dA, inner)),
                         kb.mul(kb.mul(ga, gs), inner)),
                  in0);
    step = inner;
    count = gs;
    element = [&](Value t) { return kb.add(base, kb.mul(t, step)); };
    break;
  }
  }

  // Statistics accumulated from 0 (numerics::RangeStats).
  Value zero = kb.cF32(0.0f);
  SmallVector<Value> init = symmetric ? SmallVector<Value>{zero}
                                      : SmallVector<Value>{zero, zero};
  Value t0 = kb.wide(kb.tid());
  SmallVector<Value> stats = kb.forLoop(
      t0, count, kb.c64(kBlock), init, [&](Value t, ValueRange acc) {
        Value x = loadTensorElem(kb, in, config.inElem, element(t));
        RangeStatsValues s;
        if (symmetric)
          s.absmax = acc[0];
        else
          std::tie(s.minV, s.maxV) = std::make_pair(acc[0], acc[1]);
        RangeStatsValues next = emitAccumulate(b, loc, s, x);
        return symmetric ? SmallVector<Value>{next.absmax}
                         : SmallVector<Value>{next.minV, next.maxV};
      });

  // Block reduction in shared memory. max/min ignore order, so the result
  // equals the sequential CPU one.
  Value smem = kb.sharedBase();
  Value tid32 = kb.tid();
  auto slot = [&](unsigned which, Value i) {
    return kb.gep(smem, kb.f32, kb.add(kb.c32(which * kBlock), i));
  };
  for (auto [i, v] : llvm::enumerate(stats))
    kb.store(v, slot(i, tid32), 4);
  kb.barrier();
  for (int64_t half = kBlock / 2; half >= 1; half /= 2) {
    kb.ifThen(kb.ult(tid32, kb.c32(half)), [&] {
      Value other = kb.add(tid32, kb.c32(half));
      for (unsigned i = 0; i < stats.size(); ++i) {
        Value x = kb.load(kb.f32, slot(i, tid32), 4);
        Value y = kb.load(kb.f32, slot(i, other), 4);
        bool isMin = !symmetric && i == 0;
        Value r = isMin ? Value(arith::MinNumFOp::create(b, loc, x, y))
                        : Value(arith::MaxNumFOp::create(b, loc, x, y));
        kb.store(r, slot(i, tid32), 4);
      }
    });
    kb.barrier();
  }
  kb.ifThen(kb.eq(tid32, kb.c32(0)), [&] {
    RangeStatsValues s;
    if (symmetric) {
      s.absmax = kb.load(kb.f32, slot(0, kb.c32(0)), 4);
    } else {
      s.minV = kb.load(kb.f32, slot(0, kb.c32(0)), 4);
      s.maxV = kb.load(kb.f32, slot(1, kb.c32(0)), 4);
    }
    auto [scale, zp] = emitParamsFromStats(b, loc, s, scheme);
    kb.storeElem(scale, scaleOut, g);
    if (zp)
      kb.storeElem(zp, zpOut, g);
  });
  return func;
}

//===----------------------------------------------------------------------===//
// Helpers of the matmul lowering
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp cuda::buildRowSumKernel(OpBuilder &b, Location loc,
                                       StringRef name, Type elem,
                                       bool isUnsigned) {
  constexpr int64_t kBlock = 256;
  KernelBuilder kb(b, loc);
  gpu::GPUFuncOp func = createKernel(
      b, loc, name, {kb.ptr, kb.ptr, kb.i64, kb.i64}, kBlock);
  LaunchInfo info;
  info.kind = "rowsum";
  info.block = kBlock;
  setLaunchInfo(func, info);
  ValueRange p = func.getArguments();
  Value src = kb.global(p[0]), out = kb.global(p[1]);
  Value rows = p[2], cols = p[3];
  Value row = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kBlock)),
                     kb.wide(kb.tid()));
  kb.ifThen(kb.ult(row, rows), [&] {
    Value start = kb.mul(row, cols);
    SmallVector<Value> sum = kb.forLoop(
        kb.c64(0), cols, kb.c64(1), {kb.c32(0)}, [&](Value k, ValueRange acc) {
          Value code = loadTensorElem(kb, src, elem, kb.add(start, k));
          Value wide = isUnsigned ? kb.zext(code, kb.i32)
                                  : kb.sext(code, kb.i32);
          return SmallVector<Value>{kb.add(acc[0], wide)};
        });
    kb.storeElem(sum[0], out, row);
  });
  return func;
}

gpu::GPUFuncOp cuda::buildTransposeKernel(OpBuilder &b, Location loc,
                                          StringRef name) {
  constexpr int64_t kTile = 32, kRows = 8, kPitch = kTile + 1;
  KernelBuilder kb(b, loc);
  gpu::GPUFuncOp func = createKernel(
      b, loc, name, {kb.ptr, kb.ptr, kb.i64, kb.i64}, kTile * kRows);
  LaunchInfo info;
  info.kind = "transpose";
  info.block = kTile * kRows;
  info.sharedBytes = kTile * kPitch;
  info.tileM = kTile;
  info.tileN = kTile;
  setLaunchInfo(func, info);
  ValueRange p = func.getArguments();
  Value src = kb.global(p[0]), dst = kb.global(p[1]);
  Value kDim = p[2], nDim = p[3];
  Value tid = kb.tid();
  Value tx = kb.wide(kb.remU(tid, kb.c32(kTile)));
  Value ty = kb.wide(kb.divU(tid, kb.c32(kTile)));
  Value n0 = kb.mul(kb.wide(kb.bidX()), kb.c64(kTile));
  Value k0 = kb.mul(kb.wide(kb.bidY()), kb.c64(kTile));
  Value smem = kb.sharedBase();
  auto tileAt = [&](Value r, Value c) {
    return kb.gepBytes(smem, kb.add(kb.mul(r, kb.c64(kPitch)), c));
  };
  // Coalesced reads along n, coalesced writes along k.
  for (int64_t j = 0; j < kTile / kRows; ++j) {
    Value r = kb.add(ty, kb.c64(j * kRows));
    Value k = kb.add(k0, r), n = kb.add(n0, tx);
    Value ok = kb.andB(kb.ult(k, kDim), kb.ult(n, nDim));
    SmallVector<Value> v = kb.ifElse(
        ok, {kb.i8},
        [&] {
          return SmallVector<Value>{
              kb.loadElem(src, kb.i8, kb.add(kb.mul(k, nDim), n))};
        },
        [&] { return SmallVector<Value>{kb.cInt(kb.i8, 0)}; });
    kb.store(v[0], tileAt(r, tx), 1);
  }
  kb.barrier();
  for (int64_t j = 0; j < kTile / kRows; ++j) {
    Value r = kb.add(ty, kb.c64(j * kRows));
    Value n = kb.add(n0, r), k = kb.add(k0, tx);
    kb.ifThen(kb.andB(kb.ult(k, kDim), kb.ult(n, nDim)), [&] {
      Value v = kb.load(kb.i8, tileAt(tx, r), 1);
      kb.storeElem(v, dst, kb.add(kb.mul(n, kDim), k));
    });
  }
  return func;
}
