//===- SimtMatmul.cpp - The simt kernel for octet.matmul ------------------===//
//
// The simt matmul kernel: one thread per output element, 16 x 16 threads a
// block, any formats (including 4-bit codes), batches and per-group rhs
// scales. Sums run sequentially over K in the CPU's order
// (MatmulLowering.cpp), so its results equal the CPU's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

void cuda::buildSimtBody(KernelBuilder &kb, const MatmulConfig &c,
                         const Params &p) {
  constexpr int64_t kTile = 16;
  Value tid = kb.tid();
  Value n = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kTile)),
                   kb.wide(kb.remU(tid, kb.c32(kTile))));
  Value m = kb.add(kb.mul(kb.wide(kb.bidY()), kb.c64(kTile)),
                   kb.wide(kb.divU(tid, kb.c32(kTile))));
  Value bi = c.batched ? kb.wide(kb.bidZ()) : Value();
  kb.ifThen(kb.andB(kb.ult(m, p.M), kb.ult(n, p.N)), [&] {
    Value row = bi ? kb.add(kb.mul(bi, p.M), m) : m;
    Value aRow = kb.mul(row, p.K);
    Value bBase = c.rhsBatched ? kb.mul(bi, kb.mul(p.K, p.N)) : kb.c64(0);
    Value za, zb;
    if (c.intAcc() && c.lhsZp && !c.lhsGrouped())
      za = kb.loadElem(p.za, kb.i32, lhsParamIndex(kb, c, m, bi, p.M));
    // The product of one k, into the accumulator (mirrors the CPU body).
    auto term = [&](Value k, Value acc, Value zbK, Value za) -> Value {
      Value a = loadTensorElem(kb, p.a, c.lhsElem, kb.add(aRow, k));
      Value w = loadTensorElem(kb, p.b, c.rhsElem,
                               kb.add(bBase, kb.add(kb.mul(k, p.N), n)));
      if (c.intAcc()) {
        Value ai = extendCode(kb, a, *c.lhsScheme);
        Value wi = extendCode(kb, w, c.rhsScheme);
        // (A - za)(B - zb) directly: equal mod 2^32 to the CPU's
        // sum AB - za colsum - zb rowsum + K za zb.
        if (za)
          ai = kb.sub(ai, za);
        if (zbK)
          wi = kb.sub(wi, zbK);
        return kb.add(acc, kb.mul(ai, wi));
      }
      Value af, wf;
      if (c.fp8()) {
        af = decodeFp8(kb, a, *c.lhsScheme);
        wf = decodeFp8(kb, w, c.rhsScheme);
      } else {
        af = kb.toF32(a);
        if (c.rhsScheme.isFloat()) {
          wf = decodeFp8(kb, w, c.rhsScheme);
        } else if (c.rhsScheme.isNf4()) {
          wf = emitNf4ToF32(kb.b, kb.loc, kb.zext(w, kb.i32));
        } else {
          Value wi = extendCode(kb, w, c.rhsScheme);
          if (zbK)
            wi = kb.sub(wi, zbK);
          wf = kb.sitofp(wi);
        }
      }
      return kb.addF(acc, kb.mulF(af, wf));
    };
    Value zeroAcc = c.intAcc() ? kb.c32(0) : kb.cF32(0.0f);
    if (!c.grouped()) {
      if (c.rhsZp)
        zb = kb.loadElem(p.zb, kb.i32, rhsParamIndex(kb, c, n));
      SmallVector<Value> acc = kb.forLoop(
          kb.c64(0), p.K, kb.c64(1), {zeroAcc}, [&](Value k, ValueRange it) {
            return SmallVector<Value>{term(k, it[0], zb, za)};
          });
      emitEpilogue(kb, c, p, acc[0], m, n, bi, /*zpInAcc=*/true);
      return;
    }
    // Per-group rhs: y' = sum_g float(acc_g) * sb[g, n], in group order;
    // with a grouped lhs, sum_g (float(acc_g) * sa[row, g]) * sb[g, n].
    Value gs = kb.c64(c.rhsScheme.getGroupSize());
    Value groups = kb.divU(p.K, gs);
    Value lhsParamRow = kb.mul(row, groups);
    Value paramBase =
        c.rhsBatched ? kb.mul(bi, kb.mul(groups, p.N)) : kb.c64(0);
    SmallVector<Value> y = kb.forLoop(
        kb.c64(0), groups, kb.c64(1), {kb.cF32(0.0f)},
        [&](Value gi, ValueRange yIt) {
          Value pIdx = kb.add(paramBase, kb.add(kb.mul(gi, p.N), n));
          Value zbG = c.rhsZp ? kb.loadElem(p.zb, kb.i32, pIdx) : Value();
          Value lIdx = kb.add(lhsParamRow, gi);
          Value zaG = za;
          if (c.lhsGrouped() && c.intAcc() && c.lhsZp)
            zaG = kb.loadElem(p.za, kb.i32, lIdx);
          Value k0 = kb.mul(gi, gs);
          SmallVector<Value> acc = kb.forLoop(
              k0, kb.add(k0, gs), kb.c64(1), {zeroAcc},
              [&](Value k, ValueRange it) {
                return SmallVector<Value>{term(k, it[0], zbG, zaG)};
              });
          Value a = c.intAcc() ? kb.sitofp(acc[0]) : acc[0];
          if (c.lhsGrouped())
            a = kb.mulF(a, kb.loadElem(p.sa, kb.f32, lIdx));
          Value t = kb.mulF(a, kb.loadElem(p.sb, kb.f32, pIdx));
          return SmallVector<Value>{kb.addF(yIt[0], t)};
        });
    emitEpilogue(kb, c, p, y[0], m, n, bi, /*zpInAcc=*/true);
  });
}
