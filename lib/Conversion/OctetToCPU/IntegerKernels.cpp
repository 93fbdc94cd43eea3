//===- IntegerKernels.cpp - AVX2 and AVX-512 VNNI integer tiles -----------===//
//
// The integer GEMM body of one task for the AVX2 (vpmovsxbw + vpmaddwd +
// vpaddd on ymm, exact s16 pairs) and AVX-512 VNNI (vpdpbusd on zmm)
// kernels, on operands packed by the call site:
//
//   for (tm, tn) = tileCoords(task):           // MC x NC tile
//     for nr in tile step NR:                  //   B micro-panel (K x NR)
//       for mr in tile step MR:                //   A micro-panel (MR x K)
//         acc = 0
//         for k in K step KP:  acc += A[mr.., k..] * B[k.., nr..]
//         epilogue(acc) -> C
//
// The microkernel keeps MR x NV vectors of accumulators in registers over
// the whole K: no partial sums in memory. The tiles run in groups of row
// tiles whose activations fill GemmConfig::tileGroupBytes, the rows of a
// group before its next column of tiles (tileCoords).
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

void KernelEmitter::emitIntegerMicro(Value aBase, Value bBase, Value kq0,
                                     Value kq1, SmallVector<Value> &accs,
                                     Value prefetch, Value prefetchStride) {
  int64_t esA = c.isa == Isa::avx2 ? 2 : 1;
  auto loop = forLoop(kq0, kq1, 1, accs);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kq = loop.getInductionVar();
  if (prefetch)
    LLVM::Prefetch::create(b, loc, at(prefetch, mul(kq, prefetchStride)),
                           /*rw=*/0u, /*hint=*/3u, /*cache=*/1u);
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
  auto [tm, tn] = tileCoords(t, mPad, esA);
  Value m0 = mul(tm, cst(c.mc)), n0 = mul(tn, cst(c.nc));
  Value m1 = min(add(m0, cst(c.mc)), mPad), n1 = min(add(n0, cst(c.nc)), nPad);
  OpBuilder::InsertionGuard guard(b);
  auto nLoop = forLoop(n0, n1, nr);
  b.setInsertionPointToStart(nLoop.getBody());
  Value nr0 = nLoop.getInductionVar();
  auto mLoop = forLoop(m0, m1, c.mr);
  b.setInsertionPointToStart(mLoop.getBody());
  Value mr0 = mLoop.getInductionVar();
  // The whole K in one pass: the sums never leave the registers.
  SmallVector<Value> accs(c.mr * c.nv, zeros(vec(c.w, i32)));
  Value aBase = add(A, mul(mr0, mul(K, cst(esA))));
  Value bBase = add(B, mul(nr0, K));
  // The micro-tiles of a tile that read this B micro-panel (MC / MR of
  // them) request the next micro-panel (the next NR columns, contiguous)
  // into L1 and L2, each its own slice of it, one line per k-quad
  // iteration at `stride` bytes per iteration: the first micro-tile of the
  // next panel then reads it from the caches instead of memory, whose
  // stream the hardware prefetcher did not keep ahead of (`prefetcht0`).
  // On Zen 4, one thread, caches evicted before each GEMM (a C++ replica
  // of this loop nest): 128 x 4096 x 4096 436-441 -> 452-456 GOPS, 512 x
  // 4096 x 4096 446-451 -> 456-458 (cpu-performance.md). Tiles of fewer
  // than kPrefetchRows rows read each panel too few times to gain, and
  // the second stream costs the first bandwidth (M = 1: 48-50 -> 35-36
  // GOPS; M = 8: 260-267 -> 230-234 in the replica): their prefetch
  // requests the line the loop is loading anyway. Past the last panel the
  // addresses lie outside B: prefetches do not fault.
  constexpr int64_t kPrefetchRows = 64;
  int64_t microTiles = c.mc / c.mr;
  int64_t stride = (nr * c.kp + microTiles - 1) / microTiles;
  Value slice =
      mul(div(sub(mr0, m0), cst(c.mr)), mul(cst(stride), div(K, cst(c.kp))));
  Value ahead = cmp(arith::CmpIPredicate::sge, sub(m1, m0), cst(kPrefetchRows));
  Value prefetch = arith::SelectOp::create(
      b, loc, ahead, add(add(bBase, mul(cst(nr), K)), slice), bBase);
  Value prefetchStride =
      arith::SelectOp::create(b, loc, ahead, cst(stride), cst(nr * c.kp));
  emitIntegerMicro(aBase, bBase, cst(0), div(K, cst(c.kp)), accs, prefetch,
                   prefetchStride);
  for (int64_t r = 0; r < c.mr; ++r) {
    Value m = add(mr0, cst(r));
    auto valid = scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, m, M),
                                   false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(valid.thenBlock());
    emitEpilogueRow(ArrayRef<Value>(accs).slice(r * c.nv, c.nv), m, nr0);
  }
}

std::pair<Value, Value> KernelEmitter::tileCoords(Value t, Value mPad,
                                                  int64_t esA) {
  // Groups of `rows` row tiles (the last one may be shorter): tile t of a
  // group is row tile t % rows of column tile t / rows, so that the group's
  // activations (tileGroupBytes of them) are read from the caches by every
  // column tile of the group, and each column tile's weights (K x NC) from
  // L2 by every row tile after the first.
  Value tilesM = div(add(mPad, cst(c.mc - 1)), cst(c.mc));
  Value rows = arith::MaxSIOp::create(
      b, loc, cst(1), div(cst(c.tileGroupBytes), mul(K, cst(c.mc * esA))));
  Value perGroup = mul(rows, tilesN);
  Value group = div(t, perGroup), local = rem(t, perGroup);
  Value first = mul(group, rows);
  Value height = min(rows, sub(tilesM, first));
  return {add(first, rem(local, height)), div(local, height)};
}
