//===- CpuKernels.cpp - Generate the CPU GEMM task functions --------------===//
//
// Builds, with scf loops and LLVM-dialect memory ops and intrinsics, the
// task function of one GemmConfig:
//
//   for t in [lo, hi):                         // tiles of MC x NC (integer)
//     for kc in K step KC:                     //   cache block of K
//       for nr in tile step NR:                //   B micro-panel in L1
//         for mr in tile step MR:              //   A micro-panel from L2
//           acc = kc == 0 ? 0 : scratch[mr, nr]
//           for k in kc step KP:  acc += A[mr.., k..] * B[k.., nr..]
//           last kc ? epilogue(acc) -> C : acc -> scratch
//
// The microkernel keeps MR x NV vectors of accumulators in registers. The
// epilogue is the octet.matmul one (compensation, float(acc) * (sa * sb),
// bias, ReLU, requantize) applied to the registers before the only store
// of the result. Weight-only kernels convert the rhs codes to f32 on the
// fly and keep k sequential for every output (separate multiply and add),
// so their f32 sums are the reference lowering's, bit for bit: for decode
// (M < MR) one column strip per thread streams whole rows of the weights;
// from MR rows on, an MR x 16 register tile reuses each converted weight
// vector for MR rows.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/OctetToLinalg/ScalarNumerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

/// "e4m3" / "e5m2" for an FP8 field of GemmConfig (1 + StorageFormat).
static std::string fp8Name(int64_t field) {
  return static_cast<StorageFormat>(field - 1) == StorageFormat::f8E5M2
             ? "e5m2"
             : "e4m3";
}

static const char *paramName(Param p) {
  return p == Param::none ? "n" : p == Param::scalar ? "s" : "v";
}

std::string GemmConfig::getName() const {
  std::string name = "__octet_cpu_";
  switch (isa) {
  case Isa::avx2:
    name += "avx2";
    break;
  case Isa::vnni512:
    name += "vnni512";
    break;
  case Isa::amx:
    name += "amx";
    break;
  case Isa::fma:
    name += "wo";
    break;
  }
  name += lhsFp8 ? "_" + fp8Name(lhsFp8)
                 : weightOnly ? "_f32" : (lhsUnsigned ? "_u8" : "_s8");
  if (floatRhs)
    name += rhsTransposed ? "f32t" : "f32";
  else if (rhsNibbles)
    name += rhsUnsigned ? "u4" : "s4";
  else if (rhsFp8)
    name += fp8Name(rhsFp8);
  else
    name += rhsUnsigned ? "u8" : "s8";
  if (group)
    name += "_g" + std::to_string(group);
  if (batched)
    name += "_batch";
  name += std::string("_sa") + paramName(sa) + "_sb" + paramName(sb) + "_za" +
          paramName(za) + "_zb" + paramName(zb);
  if (bias)
    name += "_bias";
  if (relu)
    name += "_relu";
  if (outScheme) {
    auto num = [](int64_t v) {
      return v < 0 ? "m" + std::to_string(-v) : std::to_string(v);
    };
    name += "_q" + num(outScheme.getQmin()) + "_" +
            num(outScheme.getQmax()) + "_os" + paramName(os) +
            "_oz" + paramName(oz);
  }
  return name;
}

void mlir::octet::cpu::setTileSizes(GemmConfig &c) {
  switch (c.isa) {
  case Isa::avx2:
    // 6 x 16 register tile: 12 ymm accumulators, 2 B vectors, 1 broadcast.
    c.mr = 6, c.nv = 2, c.w = 8, c.kp = 2;
    c.mc = 72, c.nc = 256, c.kc = 512;
    c.packNr = 16, c.kAlign = 2;
    break;
  case Isa::vnni512:
    // 8 x 32 register tile: 16 zmm accumulators.
    c.mr = 8, c.nv = 2, c.w = 16, c.kp = 4;
    c.mc = 96, c.nc = 256, c.kc = 1024;
    c.packNr = 32, c.kAlign = 4;
    break;
  case Isa::amx:
    // 2 x 2 tiles of 16 x 16 i32; k in steps of 64 bytes.
    c.mr = 32, c.nv = 2, c.w = 16, c.kp = 4;
    c.mc = 64, c.nc = 128, c.kc = 0;
    c.packNr = 16, c.kAlign = 64;
    break;
  case Isa::fma:
    // M >= MR: 6 x 16 register tile (12 ymm sums, 2 converted weight
    // vectors, 1 broadcast), tiles of 72 x 256, K blocks of 256 rows (the
    // B block, 256 x 64 bytes of lines, stays in L1). M < MR: the decode
    // kernel (emitWeightOnlyDecode), column strips chosen at run time.
    c.mr = 6, c.nv = 2, c.w = 8, c.kp = 1;
    c.mc = 72, c.nc = 256, c.kc = c.group ? c.group : 256;
    c.packNr = 16, c.kAlign = 1;
    break;
  }
}

func::FuncOp mlir::octet::cpu::getOrDeclareFunction(ModuleOp module,
                                                    StringRef name,
                                                    FunctionType type) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  return f;
}

Value mlir::octet::cpu::callRuntime(OpBuilder &b, Location loc,
                                   ModuleOp module, StringRef name,
                                   TypeRange results, ValueRange args) {
  auto type = FunctionType::get(b.getContext(), args.getTypes(), results);
  func::FuncOp f = getOrDeclareFunction(module, name, type);
  auto call = func::CallOp::create(b, loc, f, args);
  return results.empty() ? Value() : call.getResult(0);
}

namespace {

/// Emits the body of one task function.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, const GemmConfig &c,
                ModuleOp module)
      : b(b), loc(loc), c(c), module(module) {
    i8 = b.getI8Type();
    i16 = b.getI16Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
    ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  }

  void emit(Value ctx, Value lo, Value hi);

private:
  // --- small builders -----------------------------------------------------
  Value cst(int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v); }
  Value cst32(int32_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivSIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemSIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value toPtr(Value v) { return LLVM::IntToPtrOp::create(b, loc, ptrTy, v); }
  /// `base` (i64 address) + `offset` bytes, as a pointer.
  Value at(Value base, Value offset) { return toPtr(add(base, offset)); }
  Value load(Type t, Value ptr, unsigned align = 1) {
    return LLVM::LoadOp::create(b, loc, t, ptr, align);
  }
  void store(Value v, Value ptr, unsigned align = 1) {
    LLVM::StoreOp::create(b, loc, v, ptr, align);
  }
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }
  Value splat(Value scalar, int64_t n) {
    return vector::BroadcastOp::create(b, loc, vec(n, scalar.getType()),
                                       scalar);
  }
  Value zeros(VectorType t) {
    return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
  }
  /// Lanes [0, w) < `count` (an i64).
  Value laneMask(Value count, int64_t n) {
    SmallVector<int32_t> iota;
    for (int64_t i = 0; i < n; ++i)
      iota.push_back(static_cast<int32_t>(i));
    Value idx = arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(vec(n, i32), iota));
    Value cnt = arith::TruncIOp::create(b, loc, i32,
                                        min(count, cst(n)));
    return cmp(arith::CmpIPredicate::slt, idx, splat(cnt, n));
  }
  /// Loads `n` elements of `t` at `ptr`, the lanes outside `mask` (when
  /// given) not touched and zero.
  Value loadVec(Type t, int64_t n, Value ptr, Value mask) {
    if (!mask)
      return load(vec(n, t), ptr);
    return LLVM::MaskedLoadOp::create(b, loc, vec(n, t), ptr, mask,
                                      zeros(vec(n, t)), 1u);
  }
  void storeVec(Value v, Value ptr, Value mask) {
    if (!mask)
      return store(v, ptr);
    LLVM::MaskedStoreOp::create(b, loc, v, ptr, mask, 1u);
  }
  Value callRuntime(StringRef name, TypeRange results, ValueRange args) {
    return cpu::callRuntime(b, loc, module, name, results, args);
  }
  /// Address (i64) of this thread's scratch buffer `slot`, at least
  /// `bytes` long (octet_cpu_scratch).
  Value scratchAddr(int32_t slot, Value bytes) {
    return LLVM::PtrToIntOp::create(
        b, loc, i64,
        callRuntime("octet_cpu_scratch", {ptrTy}, {cst32(slot), bytes}));
  }
  /// scf.for over [lb, ub) step `step` with i64 bounds.
  scf::ForOp forLoop(Value lb, Value ub, int64_t step, ValueRange init = {}) {
    return scf::ForOp::create(b, loc, lb, ub, cst(step), init);
  }

  // --- kernel pieces -------------------------------------------------------
  /// Applies the epilogue to the accumulator vectors of row `m`, columns
  /// [n, n + w), and stores them (masked when fewer than w remain).
  void emitEpilogueVector(Value acc, Value m, Value n, Value mask);
  void emitEpilogueRow(ArrayRef<Value> accs, Value m, Value n0);
  /// The integer GEMM body (AVX2 / VNNI) of one task.
  void emitIntegerTile(Value t);
  void emitIntegerMicro(Value aBase, Value bBase, Value kq0, Value kq1,
                        SmallVector<Value> &accs);
  void emitAmxTile(Value t);
  void emitWeightOnlyTile(Value t);
  void emitWeightOnlyDecode(Value t);
  void emitWeightOnlyGroup(Value m, Value k0, int64_t ku, Value nv0,
                           int64_t nv, Value n0, Value nc, Value first,
                           Value last, Value scratch, bool masked);
  void emitWeightOnlyTiled(Value t);
  void emitWeightOnlyPanel(Value kc0, Value kc1, Value nv0, int64_t nv,
                           Value m0, Value m1, Value n0, Value first,
                           Value last, Value scratch, Value packedA,
                           Value packed, bool masked);
  /// Per-group scales: the scaled totals after group `g` from its sums.
  SmallVector<Value> groupTotals(ArrayRef<Value> sums, Value firstGroup,
                                 Value tptr, Value g, Value nv0,
                                 ArrayRef<Value> masks);
  /// f32 vector of the `w` rhs codes at `ptr` (minus the rhs zero point),
  /// or of `w` f32 rhs values.
  Value weightVector(Value ptr, Value mask, Value zbv);
  /// Running sums: zero vectors when `fresh`, else loaded from `addrs`
  /// (i64 addresses) with alignment `align`.
  SmallVector<Value> zerosOrLoad(Value fresh, VectorType t,
                                 ArrayRef<Value> addrs, unsigned align) {
    SmallVector<Type> types(addrs.size(), t);
    auto init = scf::IfOp::create(b, loc, types, fresh, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(init.thenBlock());
    SmallVector<Value> z(addrs.size(), zeros(t));
    scf::YieldOp::create(b, loc, z);
    b.setInsertionPointToStart(init.elseBlock());
    SmallVector<Value> loaded;
    for (Value a : addrs)
      loaded.push_back(load(t, toPtr(a), align));
    scf::YieldOp::create(b, loc, loaded);
    return SmallVector<Value>(init.getResults().begin(),
                              init.getResults().end());
  }
  /// Lane masks of the `nv` vectors of columns from `nv0` (none unless
  /// `masked`: lanes at or past N are off).
  SmallVector<Value> columnMasks(Value nv0, int64_t nv, bool masked) {
    SmallVector<Value> masks(nv);
    if (masked)
      for (int64_t v = 0; v < nv; ++v)
        masks[v] = laneMask(sub(N, add(nv0, cst(v * c.w))), c.w);
    return masks;
  }
  /// The rhs zero points of those columns as i32 vectors (none without).
  SmallVector<Value> weightZeroPoints(Value nv0, int64_t nv,
                                      ArrayRef<Value> masks) {
    SmallVector<Value> zbv(nv);
    if (c.zb == Param::scalar) {
      Value z = splat(load(i32, toPtr(zb), 4), c.w);
      for (Value &v : zbv)
        v = z;
    } else if (c.zb == Param::vector) {
      for (int64_t v = 0; v < nv; ++v)
        zbv[v] = loadVec(i32, c.w,
                         at(zb, mul(add(nv0, cst(v * c.w)), cst(4))),
                         masks[v]);
    }
    return zbv;
  }
  /// The f32 value of lhs element `index` (elements from A).
  Value lhsValue(Value index) {
    if (!c.lhsFp8)
      return load(f32, at(A, mul(index, cst(4))), 4);
    Value bits = arith::ExtUIOp::create(b, loc, i32,
                                        load(i8, at(A, index), 1));
    return emitFp8BitsToF32(b, loc, bits,
                            static_cast<StorageFormat>(c.lhsFp8 - 1));
  }
  /// Bytes per rhs element of the weight-only / f32 kernels.
  int64_t esB() const { return c.floatRhs ? 4 : 1; }
  /// Address (i64) of rhs element (k, n) of the weight-only / f32 kernels.
  Value rowAddr(Value k, Value n) {
    if (c.rhsNibbles) // ldb is in bytes
      return add(B, add(mul(k, ldb), div(n, cst(2))));
    return add(B, mul(add(mul(k, ldb), n), cst(esB())));
  }
  /// Byte offset of the v-th vector of columns within a row.
  int64_t vecOffset(int64_t v) const {
    return c.rhsNibbles ? v * c.w / 2 : v * c.w * esB();
  }
  /// The per-group scales of group `g`, columns of vector v from `nv0`.
  Value groupScale(Value g, Value nv0, int64_t v, Value mask) {
    return loadVec(f32, c.w,
                   at(sb, mul(add(mul(g, N), add(nv0, cst(v * c.w))), cst(4))),
                   mask);
  }
  /// f32 kernels with an N x K rhs: copies columns [n0, n1) of the rhs, all
  /// k, into this thread's scratch as a K x (n1 - n0) block and points
  /// B / ldb at it.
  void transposeRhsBlock(Value n0, Value n1);

  OpBuilder &b;
  Location loc;
  const GemmConfig &c;
  ModuleOp module;
  Type i8, i16, i32, i64, f32, ptrTy;
  // Context fields, loaded once.
  Value A, B, C, M, N, K, lda, tilesN, sa, sb, bias, comp, za, zb, os, oz;
  Value ctxPtr, ldb, batchTasks, strideA, strideB, strideC;
};

} // namespace

void KernelEmitter::emit(Value ctx, Value lo, Value hi) {
  auto field = [&](CtxSlot s) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, i64, ctx,
                                  ArrayRef<LLVM::GEPArg>{int32_t(s)});
    return load(i64, p, 8);
  };
  A = field(kA), B = field(kB), C = field(kC), M = field(kM), N = field(kN),
  K = field(kK), lda = field(kLda), tilesN = field(kTilesN), sa = field(kSa),
  sb = field(kSb), bias = field(kBias), comp = field(kComp), za = field(kZa),
  zb = field(kZb), os = field(kOs), oz = field(kOz);
  ctxPtr = ctx;
  batchTasks = field(kBatchTasks), strideA = field(kStrideA),
  strideB = field(kStrideB), strideC = field(kStrideC);
  ldb = c.rhsNibbles ? div(add(N, cst(7)), cst(8)) : N;
  if (c.rhsNibbles)
    ldb = mul(ldb, cst(4)); // bytes per padded row
  auto loop = forLoop(lo, hi, 1);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  if (c.weightOnly)
    emitWeightOnlyTile(t);
  else if (c.isa == Isa::amx)
    emitAmxTile(t);
  else
    emitIntegerTile(t);
}

void KernelEmitter::emitEpilogueVector(Value acc, Value m, Value n,
                                       Value mask) {
  int64_t w = cast<VectorType>(acc.getType()).getNumElements();
  auto colVec = [&](Value base, Type t, int64_t bytes) {
    return loadVec(t, w, at(base, mul(n, cst(bytes))), mask);
  };
  auto scalarAt = [&](Value base, Type t, Value idx, int64_t bytes) {
    return load(t, at(base, mul(idx, cst(bytes))), 4);
  };
  Value y;
  if (!c.weightOnly) {
    if (c.isa != Isa::avx2) {
      // acc - (shift + za) * colsum(B): the VNNI +128 offset and the lhs
      // zero point in one exact (wrapping) i32 term.
      int32_t shift = c.isa == Isa::vnni512 && !c.lhsUnsigned ? 128 : 0;
      Value factor;
      if (c.za != Param::none)
        factor = scalarAt(za, i32, c.za == Param::vector ? m : cst(0), 4);
      if (shift)
        factor = factor ? arith::AddIOp::create(b, loc, factor, cst32(shift))
                              .getResult()
                        : cst32(shift);
      if (factor) {
        Value cs = loadVec(i32, w, at(comp, mul(n, cst(4))), Value());
        acc = sub(acc, mul(splat(factor, w), cs));
      }
    }
    y = arith::SIToFPOp::create(b, loc, vec(w, f32), acc);
  } else {
    y = acc;
  }
  if (c.sb != Param::none && !c.group) {
    Value s = c.sb == Param::vector ? colVec(sb, f32, 4)
                                    : splat(scalarAt(sb, f32, cst(0), 4), w);
    if (c.sa != Param::none) {
      Value sav = splat(
          scalarAt(sa, f32, c.sa == Param::vector ? m : cst(0), 4), w);
      s = arith::MulFOp::create(b, loc, sav, s);
    }
    y = arith::MulFOp::create(b, loc, y, s);
  }
  if (c.bias)
    y = arith::AddFOp::create(b, loc, y, colVec(bias, f32, 4));
  if (c.relu)
    y = arith::MaximumFOp::create(b, loc, y, zeros(vec(w, f32)));
  Value out = y;
  int64_t outBytes = 4;
  if (c.outScheme) {
    Value scale = c.os == Param::vector
                      ? colVec(os, f32, 4)
                      : splat(scalarAt(os, f32, cst(0), 4), w);
    Value zp;
    if (c.oz != Param::none)
      zp = c.oz == Param::vector ? colVec(oz, i32, 4)
                                 : splat(scalarAt(oz, i32, cst(0), 4), w);
    out = emitQuantize(b, loc, y, scale, zp, c.outScheme);
    outBytes = 1;
  }
  Value dst = at(C, mul(add(mul(m, N), n), cst(outBytes)));
  storeVec(out, dst, mask);
}

void KernelEmitter::emitEpilogueRow(ArrayRef<Value> accs, Value m, Value n0) {
  for (auto [v, acc] : llvm::enumerate(accs)) {
    Value n = add(n0, cst(v * c.w));
    Value left = sub(N, n);
    // Full vector, a masked tail, or nothing.
    auto full = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::sge, left, cst(c.w)), true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(full.thenBlock());
      emitEpilogueVector(acc, m, n, Value());
      b.setInsertionPointToStart(full.elseBlock());
      auto tail =
          scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::sgt, left,
                                        cst(0)),
                            false);
      b.setInsertionPointToStart(tail.thenBlock());
      emitEpilogueVector(acc, m, n, laneMask(left, c.w));
    }
  }
}

void KernelEmitter::emitIntegerMicro(Value aBase, Value bBase, Value kq0,
                                     Value kq1, SmallVector<Value> &accs) {
  int64_t esA = c.isa == Isa::avx2 ? 2 : 1;
  auto loop = forLoop(kq0, kq1, 1, accs);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kq = loop.getInductionVar();
  Value aP = add(aBase, mul(kq, cst(c.mr * c.kp * esA)));
  Value bP = add(bBase, mul(kq, cst(c.nr() * c.kp)));
  SmallVector<Value> bv;
  for (int64_t v = 0; v < c.nv; ++v) {
    Value p = at(bP, cst(v * c.w * c.kp));
    if (c.isa == Isa::avx2) {
      Value bytes = load(vec(2 * c.w, i8), p);
      Type wide = vec(2 * c.w, i16);
      bv.push_back(c.rhsUnsigned
                       ? arith::ExtUIOp::create(b, loc, wide, bytes).getResult()
                       : arith::ExtSIOp::create(b, loc, wide, bytes)
                             .getResult());
    } else {
      bv.push_back(load(vec(4 * c.w, i8), p));
    }
  }
  SmallVector<Value> next;
  auto iter = loop.getRegionIterArgs();
  for (int64_t r = 0; r < c.mr; ++r) {
    Value a = splat(load(i32, at(aP, cst(r * c.kp * esA)), 4), c.w);
    if (c.isa == Isa::avx2)
      a = LLVM::BitcastOp::create(b, loc, vec(2 * c.w, i16), a);
    else
      a = LLVM::BitcastOp::create(b, loc, vec(4 * c.w, i8), a);
    for (int64_t v = 0; v < c.nv; ++v) {
      Value acc = iter[r * c.nv + v];
      if (c.isa == Isa::avx2) {
        Value prod = LLVM::CallIntrinsicOp::create(
                         b, loc, vec(c.w, i32),
                         b.getStringAttr("llvm.x86.avx2.pmadd.wd"),
                         ValueRange{a, bv[v]})
                         .getResult(0);
        next.push_back(add(acc, prod));
      } else {
        next.push_back(LLVM::CallIntrinsicOp::create(
                           b, loc, vec(c.w, i32),
                           b.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
                           ValueRange{acc, a, bv[v]})
                           .getResult(0));
      }
    }
  }
  scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(loop);
  accs.assign(loop.getResults().begin(), loop.getResults().end());
}

void KernelEmitter::emitIntegerTile(Value t) {
  int64_t esA = c.isa == Isa::avx2 ? 2 : 1;
  int64_t nr = c.nr();
  Value mPad = mul(div(add(M, cst(c.mr - 1)), cst(c.mr)), cst(c.mr));
  Value nPad = mul(div(add(N, cst(nr - 1)), cst(nr)), cst(nr));
  Value tm = div(t, tilesN), tn = rem(t, tilesN);
  Value m0 = mul(tm, cst(c.mc)), n0 = mul(tn, cst(c.nc));
  Value m1 = min(add(m0, cst(c.mc)), mPad), n1 = min(add(n0, cst(c.nc)), nPad);
  Value scratch = scratchAddr(1, cst(c.mc * c.nc * 4));
  VectorType accTy = vec(c.w, i32);
  auto kLoop = forLoop(cst(0), K, c.kc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value kc0 = kLoop.getInductionVar();
  Value kc1 = min(add(kc0, cst(c.kc)), K);
  Value first = cmp(arith::CmpIPredicate::eq, kc0, cst(0));
  Value last = cmp(arith::CmpIPredicate::eq, kc1, K);
  auto nLoop = forLoop(n0, n1, nr);
  b.setInsertionPointToStart(nLoop.getBody());
  Value nr0 = nLoop.getInductionVar();
  auto mLoop = forLoop(m0, m1, c.mr);
  b.setInsertionPointToStart(mLoop.getBody());
  Value mr0 = mLoop.getInductionVar();
  // Scratch slot of this micro-tile: [MC/MR][NC/NR][MR][NR] i32.
  Value slot = add(mul(div(sub(mr0, m0), cst(c.mr)), cst(c.nc / nr)),
                   div(sub(nr0, n0), cst(nr)));
  Value cptr = add(scratch, mul(slot, cst(c.mr * nr * 4)));
  int64_t numAcc = c.mr * c.nv;
  SmallVector<Value> addrs;
  for (int64_t i = 0; i < numAcc; ++i)
    addrs.push_back(add(cptr, cst(i * c.w * 4)));
  SmallVector<Value> accs = zerosOrLoad(first, accTy, addrs, 32);
  Value aBase = add(A, mul(mr0, mul(K, cst(esA))));
  Value bBase = add(B, mul(nr0, K));
  emitIntegerMicro(aBase, bBase, div(kc0, cst(c.kp)), div(kc1, cst(c.kp)),
                   accs);
  auto fin = scf::IfOp::create(b, loc, last, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(fin.thenBlock());
  for (int64_t r = 0; r < c.mr; ++r) {
    Value m = add(mr0, cst(r));
    auto valid = scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, m, M),
                                   false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(valid.thenBlock());
    emitEpilogueRow(ArrayRef<Value>(accs).slice(r * c.nv, c.nv), m, nr0);
  }
  b.setInsertionPointToStart(fin.elseBlock());
  for (int64_t i = 0; i < numAcc; ++i)
    store(accs[i], at(cptr, cst(i * c.w * 4)), 32);
}

void KernelEmitter::emitAmxTile(Value t) {
  // Micro-tile 32 x 32 = 2 x 2 AMX tiles of 16 x 16 i32, kept in a 4 KiB
  // scratch (tiles do not live across loop iterations); k runs in steps of
  // 64 bytes, 4 steps per iteration so that the C tiles are loaded and
  // stored once per 256 k.
  Type tile = LLVM::LLVMX86AMXType::get(b.getContext());
  Value mPad = mul(div(add(M, cst(31)), cst(32)), cst(32));
  Value nPad = mul(div(add(N, cst(31)), cst(32)), cst(32));
  Value tm = div(t, tilesN), tn = rem(t, tilesN);
  Value m0 = mul(tm, cst(c.mc)), n0 = mul(tn, cst(c.nc));
  Value m1 = min(add(m0, cst(c.mc)), mPad), n1 = min(add(n0, cst(c.nc)), nPad);
  Value scratch = scratchAddr(1, cst(4096));
  auto i16c = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(v));
  };
  auto nLoop = forLoop(n0, n1, 32);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(nLoop.getBody());
  Value nr0 = nLoop.getInductionVar();
  auto mLoop = forLoop(m0, m1, 32);
  b.setInsertionPointToStart(mLoop.getBody());
  Value mr0 = mLoop.getInductionVar();
  Value rows = i16c(16), colBytes = i16c(64);
  auto cTile = [&](int64_t i) { return add(scratch, cst(i * 1024)); };
  Value zeroTile =
      LLVM::CallIntrinsicOp::create(b, loc, tile,
                                    b.getStringAttr("llvm.x86.tilezero.internal"),
                                    ValueRange{rows, colBytes})
          .getResult(0);
  for (int64_t i = 0; i < 4; ++i)
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.x86.tilestored64.internal"),
        ValueRange{rows, colBytes, toPtr(cTile(i)), cst(64), zeroTile});
  Value steps = div(K, cst(64));
  auto emitSteps = [&](Value s0, int64_t count) {
    auto tload = [&](Value p, Value stride) {
      return LLVM::CallIntrinsicOp::create(
                 b, loc, tile, b.getStringAttr("llvm.x86.tileloadd64.internal"),
                 ValueRange{rows, colBytes, p, stride})
          .getResult(0);
    };
    SmallVector<Value> acc;
    for (int64_t i = 0; i < 4; ++i)
      acc.push_back(tload(toPtr(cTile(i)), cst(64)));
    for (int64_t u = 0; u < count; ++u) {
      Value k = mul(add(s0, cst(u)), cst(64));
      Value a0 = tload(at(A, add(mul(mr0, K), k)), K);
      Value a1 = tload(at(A, add(mul(add(mr0, cst(16)), K), k)), K);
      // Panel p of B starts at p * 16 * K; k-quad q at q * 64.
      Value b0 = tload(at(B, add(mul(nr0, K), mul(k, cst(16)))), cst(64));
      Value b1 =
          tload(at(B, add(mul(add(nr0, cst(16)), K), mul(k, cst(16)))), cst(64));
      Value as[2] = {a0, a1}, bs[2] = {b0, b1};
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j)
          acc[i * 2 + j] =
              LLVM::CallIntrinsicOp::create(
                  b, loc, tile, b.getStringAttr("llvm.x86.tdpbssd.internal"),
                  ValueRange{rows, colBytes, colBytes, acc[i * 2 + j], as[i],
                             bs[j]})
                  .getResult(0);
    }
    for (int64_t i = 0; i < 4; ++i)
      LLVM::CallIntrinsicOp::create(
          b, loc, b.getStringAttr("llvm.x86.tilestored64.internal"),
          ValueRange{rows, colBytes, toPtr(cTile(i)), cst(64), acc[i]});
  };
  Value mainSteps = mul(div(steps, cst(4)), cst(4));
  {
    auto loop4 = forLoop(cst(0), mainSteps, 4);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop4.getBody());
    emitSteps(loop4.getInductionVar(), 4);
  }
  {
    auto loop1 = forLoop(mainSteps, steps, 1);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop1.getBody());
    emitSteps(loop1.getInductionVar(), 1);
  }
  // Epilogue from the stored tiles: row r of tile (i, j) at
  // cTile(i * 2 + j) + r * 64.
  for (int64_t r = 0; r < 32; ++r) {
    Value m = add(mr0, cst(r));
    auto valid = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, m, M), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(valid.thenBlock());
    SmallVector<Value> accs;
    for (int64_t j = 0; j < 2; ++j)
      accs.push_back(load(vec(16, i32),
                          at(cTile((r / 16) * 2 + j), cst((r % 16) * 64)), 64));
    emitEpilogueRow(accs, m, nr0);
  }
}

Value KernelEmitter::weightVector(Value ptr, Value mask, Value zbv) {
  if (c.floatRhs)
    return loadVec(f32, c.w, ptr, mask);
  if (c.rhsFp8) {
    Value codes = loadVec(i8, c.w, ptr, mask);
    Value bits = arith::ExtUIOp::create(b, loc, vec(c.w, i32), codes);
    return emitFp8BitsToF32(b, loc, bits,
                            static_cast<StorageFormat>(c.rhsFp8 - 1));
  }
  if (c.rhsNibbles) {
    // 8 codes in 4 bytes (rows are padded: no mask needed): lane i takes
    // bits [4i, 4i + 4) of the word.
    VectorType v32 = vec(c.w, i32);
    Value word = splat(load(i32, ptr, 1), c.w);
    SmallVector<int32_t> shifts;
    for (int64_t i = 0; i < c.w; ++i)
      shifts.push_back(static_cast<int32_t>(4 * i));
    Value sh = arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(v32, shifts));
    Value nib = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, word, sh), splat(cst32(15), c.w));
    if (!c.rhsUnsigned) // sign-extend the 4-bit code: (x ^ 8) - 8
      nib = sub(arith::XOrIOp::create(b, loc, nib, splat(cst32(8), c.w)),
                splat(cst32(8), c.w));
    if (zbv)
      nib = sub(nib, zbv);
    return arith::SIToFPOp::create(b, loc, vec(c.w, f32), nib);
  }
  Value codes = loadVec(i8, c.w, ptr, mask);
  Value wide =
      c.rhsUnsigned
          ? arith::ExtUIOp::create(b, loc, vec(c.w, i32), codes).getResult()
          : arith::ExtSIOp::create(b, loc, vec(c.w, i32), codes).getResult();
  if (zbv)
    wide = sub(wide, zbv);
  return arith::SIToFPOp::create(b, loc, vec(c.w, f32), wide);
}

void KernelEmitter::emitWeightOnlyGroup(Value m, Value k0, int64_t ku,
                                        Value nv0, int64_t nv, Value n0,
                                        Value nc, Value first, Value last,
                                        Value scratch, bool masked) {
  VectorType accTy = vec(c.w, f32);
  SmallVector<Value> masks = columnMasks(nv0, nv, masked);
  // This thread's running sums of row m, columns [nv0, nv0 + nv * w).
  Value cptr = add(scratch, mul(add(mul(m, nc), sub(nv0, n0)), cst(4)));
  // Per-group scales: the running sums are those of the current group
  // (restarted at each group), the scaled totals wait M x NC further on.
  Value groupFirst = first, groupEnd, firstGroup, tptr;
  if (c.group) {
    groupFirst = cmp(arith::CmpIPredicate::eq, rem(k0, cst(c.group)), cst(0));
    groupEnd = cmp(arith::CmpIPredicate::eq,
                   rem(add(k0, cst(ku)), cst(c.group)), cst(0));
    firstGroup = cmp(arith::CmpIPredicate::slt, k0, cst(c.group));
    tptr = add(cptr, mul(mul(M, nc), cst(4)));
  }
  SmallVector<Value> addrs;
  for (int64_t v = 0; v < nv; ++v)
    addrs.push_back(add(cptr, cst(v * c.w * 4)));
  SmallVector<Value> accs = zerosOrLoad(groupFirst, accTy, addrs, 4);
  SmallVector<Value> zbv = weightZeroPoints(nv0, nv, masks);
  // Prefetch kPrefetchRows rows ahead: the strip's rows are runs of a few
  // KB, a row apart.
  constexpr int64_t kPrefetchRows = 16;
  if (!masked)
    for (int64_t r = 0; r < ku; ++r)
      LLVM::Prefetch::create(
          b, loc, toPtr(rowAddr(add(k0, cst(r + kPrefetchRows)), nv0)),
          /*rw=*/0u, /*hint=*/0u, /*cache=*/1u);
  // k in order for every column: the f32 sums of the reference lowering.
  for (int64_t r = 0; r < ku; ++r) {
    Value k = add(k0, cst(r));
    Value x = splat(lhsValue(add(mul(m, lda), k)), c.w);
    Value row = rowAddr(k, nv0);
    for (int64_t v = 0; v < nv; ++v) {
      Value wf = weightVector(at(row, cst(vecOffset(v))), masks[v], zbv[v]);
      Value prod = arith::MulFOp::create(b, loc, x, wf);
      accs[v] = arith::AddFOp::create(b, loc, accs[v], prod);
    }
  }
  OpBuilder::InsertionGuard g(b);
  if (c.group) {
    auto end = scf::IfOp::create(b, loc, groupEnd, true);
    b.setInsertionPointToStart(end.thenBlock());
    SmallVector<Value> totals = groupTotals(accs, firstGroup, tptr,
                                            div(k0, cst(c.group)), nv0,
                                            masks);
    auto fin = scf::IfOp::create(b, loc, last, true);
    b.setInsertionPointToStart(fin.thenBlock());
    emitEpilogueRow(totals, m, nv0);
    b.setInsertionPointToStart(fin.elseBlock());
    for (int64_t v = 0; v < nv; ++v)
      store(totals[v], at(tptr, cst(v * c.w * 4)), 4);
    b.setInsertionPointToStart(end.elseBlock());
    for (int64_t v = 0; v < nv; ++v)
      store(accs[v], at(cptr, cst(v * c.w * 4)), 4);
    return;
  }
  auto fin = scf::IfOp::create(b, loc, last, true);
  b.setInsertionPointToStart(fin.thenBlock());
  emitEpilogueRow(accs, m, nv0);
  b.setInsertionPointToStart(fin.elseBlock());
  for (int64_t v = 0; v < nv; ++v)
    store(accs[v], at(cptr, cst(v * c.w * 4)), 4);
}

SmallVector<Value> KernelEmitter::groupTotals(ArrayRef<Value> sums,
                                              Value firstGroup, Value tptr,
                                              Value g, Value nv0,
                                              ArrayRef<Value> masks) {
  // total = (first group ? +0.0 : total) + sum_g * sb[g]: the reference
  // lowering's sequential sum over the groups, from a +0.0 init.
  VectorType accTy = vec(c.w, f32);
  int64_t nv = sums.size();
  SmallVector<Value> addrs;
  for (int64_t v = 0; v < nv; ++v)
    addrs.push_back(add(tptr, cst(v * c.w * 4)));
  SmallVector<Value> prev = zerosOrLoad(firstGroup, accTy, addrs, 4);
  SmallVector<Value> totals;
  for (int64_t v = 0; v < nv; ++v) {
    Value t = arith::MulFOp::create(b, loc, sums[v],
                                    groupScale(g, nv0, v, masks[v]));
    totals.push_back(arith::AddFOp::create(b, loc, prev[v], t));
  }
  return totals;
}

void KernelEmitter::emitWeightOnlyTile(Value t) {
  Value a0 = A, b0 = B, c0 = C;
  if (c.batched) {
    // Task t is tile t % tasks-per-batch of batch entry t / tasks-per-batch.
    Value bi = div(t, batchTasks);
    t = rem(t, batchTasks);
    A = add(A, mul(bi, strideA));
    B = add(B, mul(bi, strideB));
    C = add(C, mul(bi, strideC));
  }
  auto decode = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::slt, M, cst(c.mr)), true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(decode.thenBlock());
    emitWeightOnlyDecode(t);
    b.setInsertionPointToStart(decode.elseBlock());
    emitWeightOnlyTiled(t);
  }
  A = a0, B = b0, C = c0;
}

void KernelEmitter::transposeRhsBlock(Value n0, Value n1) {
  // The source is N x K row-major; the block is K x width, row k holding
  // columns n0..n1 (a plain copy: the values are moved, not rounded).
  Value width = sub(n1, n0);
  Value block = scratchAddr(2, mul(mul(K, width), cst(4)));
  auto nLoop = forLoop(n0, n1, 1);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(nLoop.getBody());
    Value n = nLoop.getInductionVar();
    Value src = add(B, mul(mul(n, K), cst(4)));
    Value dst = add(block, mul(sub(n, n0), cst(4)));
    auto kLoop = forLoop(cst(0), K, 1);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    store(load(f32, at(src, mul(k, cst(4))), 4),
          at(dst, mul(mul(k, width), cst(4))), 4);
  }
  // rowAddr(k, n) = block + (k * width + n - n0) * 4.
  B = sub(block, mul(n0, cst(4)));
  ldb = width;
}

void KernelEmitter::emitWeightOnlyDecode(Value t) {
  // Task t owns the column strip [n0, n0 + NC) with NC = N / threads
  // (rounded up to 64, chosen at the call site): with one strip per thread
  // every thread streams runs of NC bytes, a row apart, the longest runs a
  // column split allows. Rows are taken kRows at a time: each group of 64
  // columns loads its running sums (L1/L2 scratch) once, adds kRows rows
  // (k in order), and stores them back, or applies the epilogue after the
  // last row. Groups of 64 columns, then of 8, then one masked group: the
  // hot loop has no masks.
  constexpr int64_t kRows = 8, kGroup = 8;
  Value nc = LLVM::LoadOp::create(
      b, loc, i64,
      LLVM::GEPOp::create(b, loc, ptrTy, i64, ctxPtr,
                          ArrayRef<LLVM::GEPArg>{int32_t(kNc)}),
      8);
  Value n0 = mul(t, nc);
  Value n1 = min(add(n0, nc), N);
  Value width = sub(n1, n0);
  Value savedB = B, savedLdb = ldb;
  if (c.rhsTransposed)
    transposeRhsBlock(n0, n1);
  Value n64 = add(n0, mul(div(width, cst(kGroup * c.w)), cst(kGroup * c.w)));
  Value n8 = add(n0, mul(div(width, cst(c.w)), cst(c.w)));
  Value scratch = scratchAddr(1, mul(mul(M, nc), cst(c.group ? 8 : 4)));
  Value kMain = mul(div(K, cst(kRows)), cst(kRows));
  auto rows = [&](Value lb, Value ub, int64_t step) {
    auto kLoop = forLoop(lb, ub, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    Value first = cmp(arith::CmpIPredicate::eq, k0, cst(0));
    Value last = cmp(arith::CmpIPredicate::eq, add(k0, cst(step)), K);
    auto mLoop = forLoop(cst(0), M, 1);
    b.setInsertionPointToStart(mLoop.getBody());
    Value m = mLoop.getInductionVar();
    {
      OpBuilder::InsertionGuard g2(b);
      auto wide = forLoop(n0, n64, kGroup * c.w);
      b.setInsertionPointToStart(wide.getBody());
      emitWeightOnlyGroup(m, k0, step, wide.getInductionVar(), kGroup, n0, nc,
                          first, last, scratch, false);
    }
    {
      OpBuilder::InsertionGuard g2(b);
      auto narrow = forLoop(n64, n8, c.w);
      b.setInsertionPointToStart(narrow.getBody());
      emitWeightOnlyGroup(m, k0, step, narrow.getInductionVar(), 1, n0, nc,
                          first, last, scratch, false);
    }
    auto tail =
        scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, n8, n1), false);
    b.setInsertionPointToStart(tail.thenBlock());
    emitWeightOnlyGroup(m, k0, step, n8, 1, n0, nc, first, last, scratch,
                        true);
  };
  rows(cst(0), kMain, kRows);
  rows(kMain, K, 1);
  B = savedB, ldb = savedLdb;
}

void KernelEmitter::emitWeightOnlyPanel(Value kc0, Value kc1, Value nv0,
                                        int64_t nv, Value m0, Value m1,
                                        Value n0, Value first, Value last,
                                        Value scratch, Value packedA,
                                        Value packed, bool masked) {
  VectorType accTy = vec(c.w, f32);
  int64_t mr = c.mr;
  SmallVector<Value> masks = columnMasks(nv0, nv, masked);
  SmallVector<Value> zbv = weightZeroPoints(nv0, nv, masks);
  // The panel's K block, converted to f32 once (minus the zero point) into
  // the contiguous [k][nv * w] buffer `packed`: every MR-row tile of the
  // panel reads it from L1 (rows of the rhs itself are N apart, which maps
  // a whole block onto a few L1 sets) and no tile converts again.
  {
    auto pLoop = forLoop(kc0, kc1, 1);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(pLoop.getBody());
    Value k = pLoop.getInductionVar();
    Value row = rowAddr(k, nv0);
    Value dst = add(packed, mul(sub(k, kc0), cst(nv * c.w * 4)));
    for (int64_t v = 0; v < nv; ++v)
      store(weightVector(at(row, cst(vecOffset(v))), masks[v], zbv[v]),
            at(dst, cst(v * c.w * 4)), 32);
  }
  auto mLoop = forLoop(m0, m1, mr);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(mLoop.getBody());
  Value mr0 = mLoop.getInductionVar();
  // Rows past M repeat row M - 1 (their sums are never stored as results).
  // This tile's rows of the packed A block: [k][MR] f32.
  Value aTile = add(packedA, mul(div(sub(mr0, m0), cst(mr)),
                                 cst(c.kc * mr * 4)));
  auto sumAddr = [&](int64_t i, int64_t v) {
    return add(scratch,
               mul(add(mul(add(sub(mr0, m0), cst(i)), cst(c.nc)),
                       add(sub(nv0, n0), cst(v * c.w))),
                   cst(4)));
  };
  auto sumPtr = [&](int64_t i, int64_t v) { return toPtr(sumAddr(i, v)); };
  // Per-group scales: a K block is one group, its sums start at +0.0 and
  // the scratch keeps the scaled totals instead.
  Value fresh = c.group ? arith::ConstantIntOp::create(b, loc, 1, 1).getResult()
                        : first;
  SmallVector<Value> addrs;
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t v = 0; v < nv; ++v)
      addrs.push_back(sumAddr(i, v));
  SmallVector<Value> init = zerosOrLoad(fresh, accTy, addrs, 4);
  auto kLoop = forLoop(kc0, kc1, 1, init);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    SmallVector<Value> accs(kLoop.getRegionIterArgs().begin(),
                            kLoop.getRegionIterArgs().end());
    Value src = add(packed, mul(sub(k, kc0), cst(nv * c.w * 4)));
    SmallVector<Value> wf(nv);
    for (int64_t v = 0; v < nv; ++v)
      wf[v] = load(accTy, at(src, cst(v * c.w * 4)), 32);
    Value aK = add(aTile, mul(sub(k, kc0), cst(mr * 4)));
    for (int64_t i = 0; i < mr; ++i) {
      Value x = splat(load(f32, at(aK, cst(i * 4)), 4), c.w);
      for (int64_t v = 0; v < nv; ++v) {
        Value prod = arith::MulFOp::create(b, loc, x, wf[v]);
        accs[i * nv + v] =
            arith::AddFOp::create(b, loc, accs[i * nv + v], prod);
      }
    }
    scf::YieldOp::create(b, loc, accs);
  }
  SmallVector<Value> results(kLoop.getResults().begin(),
                             kLoop.getResults().end());
  if (c.group) {
    Value g = div(kc0, cst(c.group));
    for (int64_t i = 0; i < mr; ++i) {
      SmallVector<Value> totals =
          groupTotals(ArrayRef<Value>(results).slice(i * nv, nv), first,
                      sumAddr(i, 0), g, nv0, masks);
      std::copy(totals.begin(), totals.end(), results.begin() + i * nv);
    }
  }
  auto fin = scf::IfOp::create(b, loc, last, true);
  b.setInsertionPointToStart(fin.thenBlock());
  for (int64_t i = 0; i < mr; ++i) {
    Value m = add(mr0, cst(i));
    auto inRange =
        scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, m, M), false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(inRange.thenBlock());
    emitEpilogueRow(ArrayRef<Value>(results).slice(i * nv, nv), m, nv0);
  }
  b.setInsertionPointToStart(fin.elseBlock());
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t v = 0; v < nv; ++v)
      store(results[i * nv + v], sumPtr(i, v), 4);
}

void KernelEmitter::emitWeightOnlyTiled(Value t) {
  // Task t is the tile (t / tilesN, t % tilesN) of MC x NC outputs. K is
  // taken KC rows at a time; each 16- (then 8-, then masked 8-) column
  // panel runs its MR-row register tiles over the block, converting each
  // weight vector once per MR rows; partial sums wait in the scratch.
  Value tm = div(t, tilesN), tn = rem(t, tilesN);
  Value m0 = mul(tm, cst(c.mc)), n0 = mul(tn, cst(c.nc));
  Value m1 = min(add(m0, cst(c.mc)), M), n1 = min(add(n0, cst(c.nc)), N);
  Value width = sub(n1, n0);
  Value savedB = B, savedLdb = ldb;
  if (c.rhsTransposed)
    transposeRhsBlock(n0, n1);
  Value n16 = add(n0, mul(div(width, cst(c.nr())), cst(c.nr())));
  Value n8 = add(n0, mul(div(width, cst(c.w)), cst(c.w)));
  Value scratch = scratchAddr(1, cst(c.mc * c.nc * 4));
  Value packedA = scratchAddr(0, cst(c.mc * c.kc * 4));
  Value packedB = scratchAddr(3, cst(c.kc * c.nr() * 4));
  auto kLoop = forLoop(cst(0), K, c.kc);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value kc0 = kLoop.getInductionVar();
  Value kc1 = min(add(kc0, cst(c.kc)), K);
  Value first = cmp(arith::CmpIPredicate::eq, kc0, cst(0));
  Value last = cmp(arith::CmpIPredicate::eq, kc1, K);
  // The A block [m0, m1) x [kc0, kc1), packed once for all panels as
  // [m / MR][k][MR] (rows past M repeat row M - 1; their sums are never
  // stored): the tiles broadcast from consecutive addresses instead of MR
  // rows lda apart.
  {
    OpBuilder::InsertionGuard g2(b);
    Value mEnd = add(m0, mul(div(add(sub(m1, m0), cst(c.mr - 1)),
                                 cst(c.mr)),
                             cst(c.mr)));
    auto mLoop = forLoop(m0, mEnd, 1);
    b.setInsertionPointToStart(mLoop.getBody());
    Value m = mLoop.getInductionVar();
    Value rel = sub(m, m0);
    Value row = mul(min(m, sub(M, cst(1))), lda);
    Value dst = add(packedA, mul(add(mul(div(rel, cst(c.mr)),
                                         cst(c.kc * c.mr)),
                                     rem(rel, cst(c.mr))),
                                 cst(4)));
    auto kLoop2 = forLoop(kc0, kc1, 1);
    b.setInsertionPointToStart(kLoop2.getBody());
    Value k = kLoop2.getInductionVar();
    store(lhsValue(add(row, k)), at(dst, mul(sub(k, kc0), cst(c.mr * 4))),
          4);
  }
  {
    OpBuilder::InsertionGuard g2(b);
    auto wide = forLoop(n0, n16, c.nr());
    b.setInsertionPointToStart(wide.getBody());
    emitWeightOnlyPanel(kc0, kc1, wide.getInductionVar(), c.nv, m0, m1, n0,
                        first, last, scratch, packedA, packedB, false);
  }
  {
    OpBuilder::InsertionGuard g2(b);
    auto narrow = forLoop(n16, n8, c.w);
    b.setInsertionPointToStart(narrow.getBody());
    emitWeightOnlyPanel(kc0, kc1, narrow.getInductionVar(), 1, m0, m1, n0,
                        first, last, scratch, packedA, packedB, false);
  }
  auto tail =
      scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, n8, n1), false);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(tail.thenBlock());
    emitWeightOnlyPanel(kc0, kc1, n8, 1, m0, m1, n0, first, last, scratch,
                        packedA, packedB, true);
  }
  b.setInsertionPointAfter(kLoop);
  B = savedB, ldb = savedLdb;
}

SmallVector<StringRef> mlir::octet::cpu::getRequiredFeatures(Isa isa) {
  switch (isa) {
  case Isa::avx2:
    return {"avx2"};
  case Isa::vnni512:
    return {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512vnni"};
  case Isa::amx:
    return {"avx2",       "avx512f",  "avx512bw", "avx512vl",
            "avx512vnni", "amx-tile", "amx-int8"};
  case Isa::fma:
    return {};
  }
  return {};
}

DictionaryAttr mlir::octet::cpu::getConfigAttr(MLIRContext *ctx,
                                              const GemmConfig &c) {
  Builder b(ctx);
  SmallVector<NamedAttribute> fields;
  auto add = [&](StringRef name, int64_t v) {
    fields.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(v)));
  };
  add("isa", static_cast<int64_t>(c.isa));
  add("weight_only", c.weightOnly);
  add("lhs_unsigned", c.lhsUnsigned);
  add("rhs_unsigned", c.rhsUnsigned);
  add("sa", static_cast<int64_t>(c.sa));
  add("sb", static_cast<int64_t>(c.sb));
  add("za", static_cast<int64_t>(c.za));
  add("zb", static_cast<int64_t>(c.zb));
  add("os", static_cast<int64_t>(c.os));
  add("oz", static_cast<int64_t>(c.oz));
  add("bias", c.bias);
  add("relu", c.relu);
  add("float_rhs", c.floatRhs);
  add("rhs_transposed", c.rhsTransposed);
  add("batched", c.batched);
  add("group", c.group);
  add("rhs_nibbles", c.rhsNibbles);
  add("lhs_fp8", c.lhsFp8);
  add("rhs_fp8", c.rhsFp8);
  if (c.outScheme)
    fields.push_back(b.getNamedAttr("out_scheme", c.outScheme));
  return b.getDictionaryAttr(fields);
}

FailureOr<GemmConfig> mlir::octet::cpu::parseConfigAttr(DictionaryAttr attr) {
  GemmConfig c;
  bool ok = true;
  auto get = [&](StringRef name) -> int64_t {
    auto v = attr.getAs<IntegerAttr>(name);
    if (!v) {
      ok = false;
      return 0;
    }
    return v.getInt();
  };
  int64_t isa = get("isa");
  if (isa < 0 || isa > static_cast<int64_t>(Isa::fma))
    return failure();
  c.isa = static_cast<Isa>(isa);
  c.weightOnly = get("weight_only");
  c.lhsUnsigned = get("lhs_unsigned");
  c.rhsUnsigned = get("rhs_unsigned");
  auto param = [&](StringRef name) {
    int64_t v = get(name);
    if (v < 0 || v > 2)
      ok = false;
    return static_cast<Param>(v);
  };
  c.sa = param("sa"), c.sb = param("sb"), c.za = param("za"),
  c.zb = param("zb"), c.os = param("os"), c.oz = param("oz");
  c.bias = get("bias");
  c.relu = get("relu");
  c.floatRhs = get("float_rhs");
  c.rhsTransposed = get("rhs_transposed");
  c.batched = get("batched");
  c.group = get("group");
  c.rhsNibbles = get("rhs_nibbles");
  c.lhsFp8 = get("lhs_fp8");
  c.rhsFp8 = get("rhs_fp8");
  if (c.lhsFp8 < 0 || c.lhsFp8 > 8 || c.rhsFp8 < 0 || c.rhsFp8 > 8)
    ok = false;
  if (c.group < 0 || c.group % 8 != 0)
    ok = false;
  c.outScheme = attr.getAs<SchemeAttr>("out_scheme");
  if (!ok || (c.os != Param::none && !c.outScheme))
    return failure();
  setTileSizes(c);
  return c;
}

func::FuncOp mlir::octet::cpu::getOrDeclareTaskFunction(ModuleOp module,
                                                        const GemmConfig &c) {
  std::string name = c.getName();
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  auto type = FunctionType::get(ctx, {ptrTy, i64, i64}, {});
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  f->setAttr(kKernelAttrName, getConfigAttr(ctx, c));
  // The kernel's instructions, whatever CPU the module is compiled for (the
  // call site checks the running CPU first).
  SmallVector<StringRef> features = getRequiredFeatures(c.isa);
  if (!features.empty()) {
    SmallVector<std::string> plus;
    for (StringRef feature : features)
      plus.push_back(("+" + feature).str());
    f->setAttr("target_features",
               LLVM::TargetFeaturesAttr::get(
                   ctx, SmallVector<StringRef>(plus.begin(), plus.end())));
  }
  return f;
}

void mlir::octet::cpu::emitTaskBody(func::FuncOp f, const GemmConfig &c) {
  auto module = f->getParentOfType<ModuleOp>();
  OpBuilder b(f.getContext());
  Block *entry = f.addEntryBlock();
  b.setInsertionPointToStart(entry);
  KernelEmitter emitter(b, f.getLoc(), c, module);
  emitter.emit(entry->getArgument(0), entry->getArgument(1),
               entry->getArgument(2));
  func::ReturnOp::create(b, f.getLoc());
  f->removeAttr(kKernelAttrName);
}
