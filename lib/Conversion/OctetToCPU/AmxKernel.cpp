//===- AmxKernel.cpp - The AMX-INT8 tile of the CPU GEMM kernels ----------===//
//
// The GEMM body of one task for AMX-INT8: 32 x 32 micro-tiles of 2 x 2
// tdpbssd tiles accumulated in tile registers over K, each micro-tile's
// epilogue overlapped with the next one's products.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

void KernelEmitter::emitAmxTile(Value t) {
  // The task's micro-tiles (32 x 32 = 2 x 2 AMX tiles of 16 x 16 i32),
  // column strips of 32 outer and rows inner (a strip of B is read by
  // every row of the task while it is in L2), run as one software
  // pipeline: micro-tile j keeps its four sums in tile registers for the
  // whole K loop (loop-carried x86_amx values: the sums, two A and two B
  // tiles are the eight tile registers) and stores them once, to half j % 2
  // of an 8 KiB per-thread scratch; the epilogue of micro-tile j - 1 (from
  // the other half) runs inside j's K loop, two rows per 64-byte k step,
  // so that its vector instructions and output stores can overlap the
  // tile products instead of following them. (The epilogue is a third of
  // a 2048^3 GEMM's time on Emerald Rapids; the overlap measured only
  // 1610 -> 1700 GOPS there, within that VM's noise: its cost is mostly
  // the output stores' misses.) Rows left when K is short run after the
  // K loop; the task's last micro-tile after the pipeline.
  Type tile = LLVM::LLVMX86AMXType::get(b.getContext());
  Value mPad = mul(div(add(M, cst(31)), cst(32)), cst(32));
  Value nPad = mul(div(add(N, cst(31)), cst(32)), cst(32));
  Value tm = div(t, tilesN), tn = rem(t, tilesN);
  Value m0 = mul(tm, cst(c.mc)), n0 = mul(tn, cst(c.nc));
  Value m1 = min(add(m0, cst(c.mc)), mPad), n1 = min(add(n0, cst(c.nc)), nPad);
  Value mTiles = div(sub(m1, m0), cst(32));
  Value count = mul(mTiles, div(sub(n1, n0), cst(32)));
  Value scratch = scratchAddr(1, cst(8192));
  auto i16c = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(v));
  };
  Value rows = i16c(16), colBytes = i16c(64);
  // Micro-tile j: its rows, columns and scratch half.
  auto origin = [&](Value j) {
    return std::make_pair(add(m0, mul(rem(j, mTiles), cst(32))),
                          add(n0, mul(div(j, mTiles), cst(32))));
  };
  auto half = [&](Value j) {
    return add(scratch, mul(rem(j, cst(2)), cst(4096)));
  };
  // Epilogue row r (dynamic) of the micro-tile at (mr0, nr0) stored at
  // `buf`: row r % 16 of tiles (r / 16, 0) and (r / 16, 1).
  auto epilogueRow = [&](Value buf, Value mr0, Value nr0, Value r) {
    Value m = add(mr0, r);
    auto valid = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, m, M), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(valid.thenBlock());
    Value row = add(buf, add(mul(div(r, cst(16)), cst(2048)),
                             mul(rem(r, cst(16)), cst(64))));
    SmallVector<Value> accs;
    for (int64_t j = 0; j < 2; ++j)
      accs.push_back(load(vec(16, i32), at(row, cst(j * 1024)), 64));
    emitEpilogueRow(accs, m, nr0);
  };
  auto tload = [&](Value p, Value stride) {
    return LLVM::CallIntrinsicOp::create(
               b, loc, tile, b.getStringAttr("llvm.x86.tileloadd64.internal"),
               ValueRange{rows, colBytes, p, stride})
        .getResult(0);
  };
  auto dp = [&](Value acc, Value a, Value bt) {
    return LLVM::CallIntrinsicOp::create(
               b, loc, tile, b.getStringAttr("llvm.x86.tdpbssd.internal"),
               ValueRange{rows, colBytes, colBytes, acc, a, bt})
        .getResult(0);
  };
  Value steps = div(K, cst(64));
  Value mainSteps = mul(div(steps, cst(4)), cst(4));

  auto jLoop = forLoop(cst(0), count, 1);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(jLoop.getBody());
    Value j = jLoop.getInductionVar();
    Value mr0, nr0;
    std::tie(mr0, nr0) = origin(j);
    Value prevJ = max(sub(j, cst(1)), cst(0));
    Value pm0, pn0;
    std::tie(pm0, pn0) = origin(prevJ);
    Value prevBuf = half(prevJ);
    Value hasPrev = cmp(arith::CmpIPredicate::sgt, j, cst(0));
    // Rows [2 s0, 2 (s0 + count)) of the previous micro-tile.
    auto epilogueRows = [&](Value s0, int64_t stepCount) {
      Value r0 = mul(s0, cst(2));
      auto any = scf::IfOp::create(
          b, loc,
          arith::AndIOp::create(b, loc, hasPrev,
                                cmp(arith::CmpIPredicate::slt, r0, cst(32))),
          false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(any.thenBlock());
      for (int64_t i = 0; i < 2 * stepCount; ++i) {
        // The 4-step iterations start at multiples of 4 steps (8 rows),
        // so their rows are all below 32 or all past it.
        epilogueRow(prevBuf, pm0, pn0, add(r0, cst(i)));
      }
    };
    SmallVector<Value> zeros;
    for (int64_t i = 0; i < 4; ++i)
      zeros.push_back(LLVM::CallIntrinsicOp::create(
                          b, loc, tile,
                          b.getStringAttr("llvm.x86.tilezero.internal"),
                          ValueRange{rows, colBytes})
                          .getResult(0));
    // Row 0 of the two A tiles and of the two B panels (panel p of B
    // starts at p * 16 * K; k-quad q at q * 64).
    Value aRow0 = add(A, mul(mr0, K)), aRow16 = add(aRow0, mul(cst(16), K));
    Value bPanel0 = add(B, mul(nr0, K)),
          bPanel1 = add(bPanel0, mul(cst(16), K));
    // k steps in the order of oneDNN's AMX brgemm: each tile load followed
    // by the products it enables.
    auto emitSteps = [&](Value s0, int64_t stepCount, ValueRange in) {
      SmallVector<Value> acc(in.begin(), in.end());
      for (int64_t u = 0; u < stepCount; ++u) {
        Value k = mul(add(s0, cst(u)), cst(64));
        Value a0 = tload(toPtr(add(aRow0, k)), K);
        Value b0 = tload(toPtr(add(bPanel0, mul(k, cst(16)))), cst(64));
        acc[0] = dp(acc[0], a0, b0);
        Value b1 = tload(toPtr(add(bPanel1, mul(k, cst(16)))), cst(64));
        acc[1] = dp(acc[1], a0, b1);
        Value a1 = tload(toPtr(add(aRow16, k)), K);
        acc[2] = dp(acc[2], a1, b0);
        acc[3] = dp(acc[3], a1, b1);
      }
      epilogueRows(s0, stepCount);
      scf::YieldOp::create(b, loc, acc);
    };
    auto loop4 = forLoop(cst(0), mainSteps, 4, zeros);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop4.getBody());
      emitSteps(loop4.getInductionVar(), 4, loop4.getRegionIterArgs());
    }
    auto loop1 = forLoop(mainSteps, steps, 1, loop4.getResults());
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop1.getBody());
      emitSteps(loop1.getInductionVar(), 1, loop1.getRegionIterArgs());
    }
    // Rows of the previous micro-tile that the K loop did not reach.
    auto rest = scf::IfOp::create(b, loc, hasPrev, false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(rest.thenBlock());
      auto rLoop = forLoop(min(mul(steps, cst(2)), cst(32)), cst(32), 1);
      b.setInsertionPointToStart(rLoop.getBody());
      epilogueRow(prevBuf, pm0, pn0, rLoop.getInductionVar());
    }
    Value buf = half(j);
    for (int64_t i = 0; i < 4; ++i)
      LLVM::CallIntrinsicOp::create(
          b, loc, b.getStringAttr("llvm.x86.tilestored64.internal"),
          ValueRange{rows, colBytes, toPtr(add(buf, cst(i * 1024))), cst(64),
                     loop1.getResult(i)});
  }
  // The last micro-tile's epilogue.
  auto last = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::sgt, count, cst(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(last.thenBlock());
  Value lastJ = sub(count, cst(1));
  auto [lm0, ln0] = origin(lastJ);
  auto rLoop = forLoop(cst(0), cst(32), 1);
  b.setInsertionPointToStart(rLoop.getBody());
  epilogueRow(half(lastJ), lm0, ln0, rLoop.getInductionVar());
}
