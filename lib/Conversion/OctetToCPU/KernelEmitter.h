//===- KernelEmitter.h - Builder of the CPU task functions -----*- C++ -*-===//
//
// Internal to the OctetToCPU lowering: KernelEmitter, which writes the body
// of one GemmConfig's task function (see CpuKernels.h) with scf loops and
// LLVM-dialect memory ops and intrinsics. Its small builders and the
// context fields live here; its member functions are defined by kernel
// family: CpuKernels.cpp (the driver), CpuEpilogue.cpp, IntegerKernels.cpp
// (AVX2 / AVX-512 VNNI), AmxKernel.cpp and FloatKernels.cpp (weight-only,
// FP8 and f32).
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOCPU_KERNELEMITTER_H
#define OCTET_LIB_CONVERSION_OCTETTOCPU_KERNELEMITTER_H

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace octet {
namespace cpu {

/// Emits the body of one task function. The small builders are defined
/// here; the driver (emit) is in CpuKernels.cpp, the kernel pieces in the
/// files named below.
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

  /// Loads the context fields from `ctx` and emits the tiles [lo, hi) of
  /// the kernel family of the config.
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
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
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
  // Epilogue (CpuEpilogue.cpp).
  /// Applies the epilogue to the accumulator vectors of row `m`, columns
  /// [n, n + w), and stores them (masked when fewer than w remain).
  void emitEpilogueVector(Value acc, Value m, Value n, Value mask);
  void emitEpilogueRow(ArrayRef<Value> accs, Value m, Value n0);
  // Integer tiles (IntegerKernels.cpp).
  /// The integer GEMM body (AVX2 / VNNI) of one task.
  void emitIntegerTile(Value t);
  /// Row and column tile of task tile `t` (GemmConfig::tileGroupBytes).
  std::pair<Value, Value> tileCoords(Value t, Value mPad, int64_t esA);
  /// MR x NR sums over k-quads [kq0, kq1); each iteration also requests
  /// the line at `prefetch` + kq * `prefetchStride` (no prefetch when
  /// `prefetch` is null).
  void emitIntegerMicro(Value aBase, Value bBase, Value kq0, Value kq1,
                        SmallVector<Value> &accs, Value prefetch = Value(),
                        Value prefetchStride = Value());
  // AMX tiles (AmxKernel.cpp).
  void emitAmxTile(Value t);
  /// The bf16 bits of 32 FP8 rhs codes (vector<32xi8> -> vector<32xi16>),
  /// exact (fp8ToBf16Bits of CpuPack.h).
  Value bf16BitsOfFp8(Value codes);
  /// Columns [n, n + 32) of the rhs panels as the two bf16 B panels of the
  /// AMX-BF16 tiles at `dst`, K padded with zeros to `kPad`.
  void emitBf16Strip(Value n, Value dst, Value kPad);
  // Weight-only, FP8 and f32 loop nests (FloatKernels.cpp).
  void emitWeightOnlyTile(Value t);
  void emitWeightOnlyDecode(Value t);
  void emitWeightOnlyGroup(Value m, Value k0, int64_t ku, Value nv0,
                           int64_t nv, Value n0, Value nc, Value first,
                           Value last, Value scratch, bool masked);
  void emitWeightOnlyTiled(Value t);
  void emitWeightOnlyPanel(Value kc0, Value kc1, Value nv0, int64_t nv,
                           Value m0, Value m1, Value n0, Value first,
                           Value last, Value scratch, Value packedA,
                           Value packedB, bool masked);
  void emitConvertBlock(Value kc0, Value kc1, Value n0, Value n16, Value n8,
                        Value n1, Value packed);
  void emitConvertRow(Value k, Value kc0, Value nv0, int64_t nv, Value n0,
                      Value packed, bool masked);
  /// Per-group scales: the scaled totals after group `g` from its sums.
  SmallVector<Value> groupTotals(ArrayRef<Value> sums, Value firstGroup,
                                 Value tptr, Value g, Value nv0,
                                 ArrayRef<Value> masks);
  /// f32 vector of the `w` rhs codes at `ptr` (minus the rhs zero point),
  /// or of `w` f32 rhs values; not for 4-bit codes (weightVectors).
  /// `unscaled`: E4M3 codes decode to their value times 2^-8 (rhsUnscaled).
  Value weightVector(Value ptr, Value mask, Value zbv, bool unscaled = false);
  /// The f32 vectors of the `nv` vectors of rhs columns from `nv0` in row
  /// `k` (minus the zero points `zbv`); `panelStart` says that `nv0`
  /// starts a whole panel (nv = 8: 4-bit codes loaded at four byte
  /// offsets).
  SmallVector<Value> weightVectors(Value k, Value nv0, int64_t nv,
                                   ArrayRef<Value> masks, ArrayRef<Value> zbv,
                                   bool panelStart = false,
                                   bool unscaled = false);
  /// Whether the decode kernels' E4M3 weights are summed times 2^-8 and the
  /// sums scaled by 2^8 (exact: a power of two), one multiply per sum instead
  /// of one per weight vector.
  bool rhsUnscaled() const { return c.rhsFp8 == StorageFormat::f8E4M3FN; }
  /// `sums` times 2^8 when they are sums of E4M3 values times 2^-8
  /// (`unscaled`, from rhsUnscaled), else `sums`.
  SmallVector<Value> rescaleSums(ArrayRef<Value> sums, bool unscaled) {
    SmallVector<Value> out(sums);
    if (!unscaled)
      return out;
    Value f = splat(
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kE4M3ViaF16Scale)),
        c.w);
    for (Value &s : out)
      s = arith::MulFOp::create(b, loc, s, f);
    return out;
  }
  /// The f32 values of the 4-bit codes `(d >> shift) & 15` (d: the i32
  /// words of a panel's row; shift 4 j for the row's vector j).
  Value nibbleVector(Value d, Value shift, Value zbv);
  /// The decode loop nest of weights in panels (M < MR): whole panels
  /// with their sums in registers (emitPanelPass).
  void emitPanelDecode(Value t);
  void emitPanelPass(Value nv0, int64_t nv, bool masked);
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
  /// The f32 value of lhs element (m, k) (elements from A); block-wise
  /// FP8 multiplies it by the row's scale of k's group, sa[m][k / group].
  Value lhsValue(Value m, Value k) {
    Value index = add(mul(m, lda), k);
    if (!c.lhsFp8)
      return load(f32, at(A, mul(index, cst(4))), 4);
    Value bits = arith::ExtUIOp::create(b, loc, i32,
                                        load(i8, at(A, index), 1));
    Value x = emitFp8BitsToF32(b, loc, bits, *c.lhsFp8);
    if (!c.lhsGroupScale)
      return x;
    Value si = add(mul(m, div(K, cst(c.group))), div(k, cst(c.group)));
    return arith::MulFOp::create(b, loc, x,
                                 load(f32, at(sa, mul(si, cst(4))), 4));
  }
  /// Bytes per rhs element of the weight-only / f32 kernels.
  int64_t esB() const { return c.floatRhs ? 4 : 1; }
  /// Address (i64) of rhs element (k, n) of the weight-only / f32 kernels;
  /// in panels (GemmConfig::panelColumns; ldb is the bytes of a panel's
  /// row), of the code in row k of n's panel, or for 4-bit codes of that
  /// row's start.
  Value rowAddr(Value k, Value n) {
    if (!c.rhsPanels)
      return add(B, mul(add(mul(k, ldb), n), cst(esB())));
    Value panel = cst(c.panelColumns());
    Value row = add(add(B, mul(div(n, panel), mul(K, ldb))), mul(k, ldb));
    return c.rhsNibbles ? row : add(row, rem(n, panel));
  }
  /// Bytes of the first v vectors of columns within a row.
  int64_t vecOffset(int64_t v) const {
    return c.rhsNibbles ? v * c.w / 2 : v * c.w * esB();
  }
  /// The per-group scales of group `g`, columns of vector v from `nv0`.
  Value groupScale(Value g, Value nv0, int64_t v, Value mask) {
    Value col = add(nv0, cst(v * c.w));
    if (c.scalePanels) { // [panel][group][8 w]
      int64_t panel = c.panelColumns();
      Value row = add(mul(div(col, cst(panel)), div(K, cst(c.group))), g);
      return loadVec(
          f32, c.w,
          at(sb, mul(add(mul(row, cst(panel)), rem(col, cst(panel))), cst(4))),
          mask);
    }
    return loadVec(f32, c.w, at(sb, mul(add(mul(g, N), col), cst(4))), mask);
  }
  /// Isa::dpbf16's tiles: K in pairs of rows, each 32-bit word of the
  /// packed operands the bf16 of row k (bits 0-15) and of row k + 1 (bits
  /// 16-31), which vdpbf16ps multiplies pairwise and adds to an f32 lane.
  bool bf16Pairs() const { return c.isa == Isa::dpbf16; }
  /// Rows of K per step of the tiles, and bytes per element of their
  /// packed lhs and converted rhs blocks (f32, or half a bf16 pair word).
  int64_t kStep() const { return bf16Pairs() ? 2 : 1; }
  /// Whether the tiles of the f32 x f32 batched kernel broadcast the lhs
  /// from its rows and load the rhs rows in place instead of packing both
  /// per K block: an attention's entries are small (head size K, a
  /// sequence's M and N) and stay in L1, where the packing copies cost as
  /// much as the FMAs. The sums are the packed tiles' (the same values in
  /// the same order).
  bool directTiles() const {
    return c.batched && c.floatRhs && !c.lhsFp8 && !bf16Pairs() && !c.group;
  }
  int64_t tileBytes() const { return bf16Pairs() ? 2 : 4; }
  /// The bf16 pair words of f32 values `lo` and `hi` (scalars or vectors)
  /// that are exact in bf16 (decoded FP8): the top half of each.
  Value bf16Pair(Value lo, Value hi) {
    Type t = lo.getType();
    auto vt = dyn_cast<VectorType>(t);
    Type it = vt ? Type(vec(vt.getNumElements(), i32)) : Type(i32);
    auto splatInt = [&](uint32_t v) -> Value {
      Value s = cst32(static_cast<int32_t>(v));
      return vt ? splat(s, vt.getNumElements()) : s;
    };
    Value l = arith::BitcastOp::create(b, loc, it, lo);
    Value h = arith::BitcastOp::create(b, loc, it, hi);
    return arith::OrIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, l, splatInt(16)),
        arith::AndIOp::create(b, loc, h, splatInt(0xFFFF0000u)));
  }
  /// acc + the pairwise products of the bf16 pair words `x` and `y` (w
  /// lanes of i32 each): vdpbf16ps zmm.
  Value dotBf16(Value acc, Value x, Value y) {
    VectorType pairs = vec(2 * c.w, b.getBF16Type());
    Value xs = LLVM::BitcastOp::create(b, loc, pairs, x);
    Value ys = LLVM::BitcastOp::create(b, loc, pairs, y);
    return LLVM::CallIntrinsicOp::create(
               b, loc, acc.getType(),
               b.getStringAttr("llvm.x86.avx512bf16.dpbf16ps.512"),
               ValueRange{acc, xs, ys})
        .getResult(0);
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
  Value ldb, batchTasks, strideA, strideB, strideC;
  /// Weight-only / f32: columns per task (kNc) and rows per tile (kMc).
  Value taskCols, tileRows;
  /// Isa::amxBf16: the lhs as bf16 tiles (CtxSlot kLhsBf16).
  Value lhsBf16;
};

} // namespace cpu
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOCPU_KERNELEMITTER_H
