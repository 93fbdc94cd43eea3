//===- MatmulCommon.cpp - Shared pieces of the matmul kernels -------------===//
//
// What the four octet.matmul kernel families (MatmulCommon.h) share: the
// kernel parameters, the index of a quantization parameter for a row or a
// column, the fused epilogue (the same as the CPU lowering's,
// MatmulLowering.cpp, op for op), code extension and FP8 decoding, and the
// staging of K-contiguous 8-bit tiles into shared memory used by the
// tensor-core kernels.
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

#include "octet/Conversion/OctetCommon/MatmulEpilogue.h"
#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

namespace mlir {
namespace octet {
namespace cuda {

//===----------------------------------------------------------------------===//
// Operands and the epilogue
//===----------------------------------------------------------------------===//

SmallVector<Type> matmulParamTypes(KernelBuilder &kb) {
  SmallVector<Type> types(kM, kb.ptr);
  types.append(kNumMatmulParams - kM, kb.i64);
  return types;
}

/// Index of an lhs parameter (scale, zero point) for row `m` of batch `bi`:
/// per_tensor -> 0, per_axis(rows) -> m, per-token (per_group over K,
/// shape [B x] M x 1) -> bi * M + m.
Value lhsParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value m,
                    Value bi, Value M) {
  switch (c.lhsScheme->getGranularity()) {
  case Granularity::per_tensor:
    return kb.c64(0);
  case Granularity::per_axis:
    return m;
  case Granularity::per_group:
    return bi ? kb.add(kb.mul(bi, M), m) : m;
  }
  return m;
}

/// Index of an rhs parameter for column `n` (not per_group).
Value rhsParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value n) {
  return c.rhsScheme.getGranularity() == Granularity::per_tensor ? kb.c64(0)
                                                                 : n;
}

/// Index of an output parameter for column `n`.
Value outParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value n) {
  return c.outScheme->getGranularity() == Granularity::per_tensor
             ? kb.c64(0)
             : n;
}

/// The epilogue for output (bi, m, n): the shared one
/// (OctetCommon/MatmulEpilogue.h) on the parameters of this element, unless
/// the zero points are already in `acc` (`zpInAcc`). For per-group rhs
/// `acc` is already sum_g float(acc_g) * sb[g, n] and only sa is applied.
void emitEpilogue(KernelBuilder &kb, const MatmulConfig &c, const Params &p,
                  Value acc, Value m, Value n, Value bi, bool zpInAcc) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  MatmulEpilogueOperands o;
  o.acc = acc;
  if (c.intAcc() && !zpInAcc) {
    if (c.lhsZp) {
      o.lhsZeroPoint =
          kb.loadElem(p.za, kb.i32, lhsParamIndex(kb, c, m, bi, p.M));
      o.colSum = kb.loadElem(p.colSum, kb.i32, n);
    }
    if (c.rhsZp) {
      o.rhsZeroPoint = kb.loadElem(p.zb, kb.i32, rhsParamIndex(kb, c, n));
      o.rowSum = kb.loadElem(p.rowSum, kb.i32, m);
    }
    if (c.lhsZp && c.rhsZp)
      o.kCount = kb.trunc(p.K, kb.i32);
  }
  if (c.lhsScheme && !c.lhsGrouped())
    o.lhsScale = kb.loadElem(p.sa, kb.f32, lhsParamIndex(kb, c, m, bi, p.M));
  if (!c.grouped())
    o.rhsScale = kb.loadElem(p.sb, kb.f32, rhsParamIndex(kb, c, n));
  if (c.bias)
    o.bias = kb.loadElem(p.bias, kb.f32, n);
  MatmulEpilogueResult r;
  r.relu = c.relu;
  r.resultElem = c.resultElem;
  if (c.outScheme) {
    r.outScheme = *c.outScheme;
    Value oi = outParamIndex(kb, c, n);
    o.outScale = kb.loadElem(p.os, kb.f32, oi);
    if (c.outZp)
      o.outZeroPoint = kb.loadElem(p.oz, kb.i32, oi);
  }
  Value result = emitMatmulEpilogue(b, loc, o, r);
  Value row = bi ? kb.add(kb.mul(bi, p.M), m) : m;
  Value index = kb.add(kb.mul(row, p.N), n);
  storeTensorElem(kb, result, p.out, index);
}

/// The E8M0 code of a scale (MatmulCommon.h): a value that is not an E8M0
/// value (nothing octet's quantizers or compute_params write) becomes NaN's
/// code, so the outputs it scales are NaN rather than silently rescaled.
Value e8m0ScaleCode(KernelBuilder &kb, Value scale) {
  Value bits = kb.bitcast(scale, kb.i32);
  Value pow2 = kb.andB(kb.eq(kb.andI(bits, kb.c32(0x807FFFFF)), kb.c32(0)),
                       kb.ne(bits, kb.c32(0)));
  Value code = kb.select(pow2, kb.shrU(bits, kb.c32(23)), kb.c32(0xFF));
  return kb.select(kb.eq(bits, kb.c32(0x00400000)), kb.c32(0), code);
}

Value e4m3ScaleCode(KernelBuilder &kb, Value scale, float global) {
  Value g = kb.cF32(global);
  Value code = emitF32ToFp8Bits(kb.b, kb.loc, kb.divF(scale, g),
                                StorageFormat::f8E4M3FN, /*saturate=*/false);
  Value back =
      kb.mulF(emitFp8BitsToF32(kb.b, kb.loc, code, StorageFormat::f8E4M3FN), g);
  Value same = arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OEQ,
                                     back, scale);
  Value ok = kb.andB(
      kb.andB(kb.ne(code, kb.c32(0)), kb.ult(code, kb.c32(0x7F))), same);
  return kb.select(ok, code, kb.c32(0x7F));
}

Value packE2m1(KernelBuilder &kb, Value lo, Value hi) {
  Value even = kb.prmt(lo, hi, 0x6420), odd = kb.prmt(lo, hi, 0x7531);
  return kb.orI(kb.andI(even, kb.c32(0x0F0F0F0F)),
                kb.andI(kb.shl(odd, kb.c32(4)),
                        kb.c32(static_cast<int32_t>(0xF0F0F0F0u))));
}

Value blockScaleCode(KernelBuilder &kb, Value base, SchemeAttr scheme, Value ok,
                     Value index) {
  Value v = kb.loadElem(base, kb.f32, kb.select(ok, index, kb.c64(0)));
  if (scheme.hasE8M0Scales())
    return kb.select(ok, e8m0ScaleCode(kb, v), kb.c32(0x7F));
  return kb.select(ok, e4m3ScaleCode(kb, v, scheme.getGlobalScale()),
                   kb.c32(0x38));
}

Value swizzled128(KernelBuilder &kb, Value r, Value ch) {
  Value x = kb.xorI(ch, kb.remU(r, kb.c32(8)));
  return kb.add(kb.mul(r, kb.c32(128)), kb.mul(x, kb.c32(16)));
}

void stageSwizzled128(KernelBuilder &kb, const Params &p, Value base, Value bm,
                      Value bn, Value k0, Value kAligned, Value tid,
                      int64_t threads, int64_t rowsA, int64_t rowsB) {
  auto swizzled = [&](Value r, Value ch) { return swizzled128(kb, r, ch); };
  stageTile(kb, base, p.a, bm, p.M, k0, p.K, kAligned, tid, threads, rowsA,
            128 / 16, swizzled);
  stageTile(kb, kb.gepBytes(base, kb.c32(rowsA * 128)), p.b, bn, p.N, k0, p.K,
            kAligned, tid, threads, rowsB, 128 / 16, swizzled);
}

/// A stored code as an i32 per the scheme's signedness.
Value extendCode(KernelBuilder &kb, Value code, SchemeAttr scheme) {
  return scheme.isUnsigned() ? kb.zext(code, kb.i32) : kb.sext(code, kb.i32);
}

/// Decodes an FP8 or FP4 code (a value of the float type) to f32.
Value decodeFp8(KernelBuilder &kb, Value code, SchemeAttr scheme) {
  Value bits = kb.zext(
      kb.bitcast(code, kb.b.getIntegerType(scheme.getStorageBits())), kb.i32);
  return emitFp8BitsToF32(kb.b, kb.loc, bits, scheme.getFormat());
}

//===----------------------------------------------------------------------===//
// Staging tiles of K-contiguous 8-bit matrices into shared memory
//===----------------------------------------------------------------------===//

/// Copies rows [row0, row0 + rows) x bytes [k0, k0 + 16 * chunksPerRow) of
/// the [limit x K] matrix `src` into shared memory at `dst`, one 16-byte
/// chunk per (thread, step). `place(row, chunk)` is the chunk's byte offset
/// in the tile. Outside the matrix the tile is zero. With K % 16 == 0 the
/// copies are cp.async (completed by the caller's wait_group); otherwise
/// byte loads and shared stores.
void stageTile(KernelBuilder &kb, Value dst, Value src, Value row0,
               Value limit, Value k0, Value K, Value kAligned, Value tid,
               int64_t threads, int64_t rows, int64_t chunksPerRow,
               function_ref<Value(Value, Value)> place) {
  int64_t chunks = rows * chunksPerRow;
  for (int64_t j = 0; j < chunks / threads; ++j) {
    Value c = kb.add(tid, kb.c32(j * threads));
    Value r = kb.divU(c, kb.c32(chunksPerRow));
    Value ch = kb.remU(c, kb.c32(chunksPerRow));
    Value gRow = kb.add(row0, kb.wide(r));
    Value gK = kb.add(k0, kb.wide(kb.mul(ch, kb.c32(16))));
    Value rowOk = kb.ult(gRow, limit);
    Value sdst = kb.gepBytes(dst, place(r, ch));
    Value offset = kb.add(kb.mul(gRow, K), gK);
    kb.ifElse(
        kAligned, {},
        [&] {
          Value ok = kb.andB(rowOk, kb.ult(gK, K));
          Value srcPtr = kb.gepBytes(src, kb.select(ok, offset, kb.c64(0)));
          Value bytes = kb.select(ok, kb.c32(16), kb.c32(0));
          NVVM::CpAsyncOp::create(
              kb.b, kb.loc, sdst, srcPtr, kb.b.getI32IntegerAttr(16),
              NVVM::LoadCacheModifierKindAttr::get(
                  kb.ctx, NVVM::LoadCacheModifierKind::CG),
              bytes);
          return SmallVector<Value>{};
        },
        [&] {
          for (int64_t i = 0; i < 16; ++i) {
            Value k = kb.add(gK, kb.c64(i));
            Value ok = kb.andB(rowOk, kb.ult(k, K));
            SmallVector<Value> v = kb.ifElse(
                ok, {kb.i8},
                [&] {
                  return SmallVector<Value>{kb.load(
                      kb.i8, kb.gepBytes(src, kb.add(offset, kb.c64(i))), 1,
                      /*invariant=*/true)};
                },
                [&] { return SmallVector<Value>{kb.cInt(kb.i8, 0)}; });
            kb.store(v[0], kb.gepBytes(sdst, kb.c32(i)), 1);
          }
          return SmallVector<Value>{};
        });
  }
}

} // namespace cuda
} // namespace octet
} // namespace mlir
