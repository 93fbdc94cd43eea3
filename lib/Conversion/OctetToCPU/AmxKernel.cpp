//===- AmxKernel.cpp - The AMX tiles of the CPU GEMM kernels --------------===//
//
// The GEMM body of one task for AMX: 32 x 32 micro-tiles of 2 x 2 tiles
// accumulated in tile registers over K, each micro-tile's epilogue
// overlapped with the next one's products. AMX-INT8 (tdpbssd) on the packed
// integer operands; AMX-BF16 (tdpbf16ps) on FP8 codes converted to bf16
// (exact): the lhs at the call site, the weights per column strip here.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "octet/Runtime/CpuPack.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

Value KernelEmitter::bf16BitsOfFp8(Value codes) {
  // The bits of fp8ToBf16Bits (CpuPack.h) on 32 lanes of 16 bits: the magnitude
  // bits shifted into place plus the difference of the exponent biases;
  // subnormal codes from a table (vpermw); NaN (and E5M2's infinity) codes
  // by a select; the sign ORed in.
  bool e5m2 = c.rhsFp8 == StorageFormat::f8E5M2;
  VectorType v = vec(32, i16);
  auto k16 = [&](int32_t x) {
    return splat(arith::ConstantIntOp::create(b, loc, i16, x), 32);
  };
  int32_t mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  Value x = arith::ExtUIOp::create(b, loc, v, codes);
  Value mag = arith::AndIOp::create(b, loc, x, k16(0x7F));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, x, k16(0x80)), k16(8));
  Value r = arith::AddIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, mag, k16(7 - mbits)),
      k16((127 - bias) << 7));
  SmallVector<int16_t> table(32, 0);
  for (int32_t m = 0; m < (1 << mbits); ++m)
    table[m] = static_cast<int16_t>(
        ::octet::cpu::fp8ToBf16Bits(static_cast<uint8_t>(m), e5m2));
  Value tableVec = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(v, ArrayRef<int16_t>(table)));
  Value sub = LLVM::CallIntrinsicOp::create(
                  b, loc, v, b.getStringAttr("llvm.x86.avx512.permvar.hi.512"),
                  ValueRange{tableVec, mag})
                  .getResult(0);
  auto ucmp = [&](arith::CmpIPredicate p, int32_t bound) {
    return arith::CmpIOp::create(b, loc, p, mag, k16(bound));
  };
  r = arith::SelectOp::create(
      b, loc, ucmp(arith::CmpIPredicate::ult, 1 << mbits), sub, r);
  if (e5m2) {
    Value special = arith::SelectOp::create(
        b, loc, ucmp(arith::CmpIPredicate::eq, 0x7C), k16(0x7F80), k16(0x7FC0));
    r = arith::SelectOp::create(b, loc, ucmp(arith::CmpIPredicate::uge, 0x7C),
                                special, r);
  } else if (!c.rhsNoNan) {
    r = arith::SelectOp::create(b, loc, ucmp(arith::CmpIPredicate::eq, 0x7F),
                                k16(0x7FC0), r);
  }
  return arith::OrIOp::create(b, loc, r, sign);
}

void KernelEmitter::emitBf16Strip(Value n, Value dst, Value kPad) {
  // Columns [n, n + 32) of the weights' panels (32 divides a panel's
  // 8 w = 128 columns) as the two 16-column B panels of the AMX-BF16
  // tiles: row kk of a panel is the bf16 pairs (k = 2 kk, 2 kk + 1) of its
  // 16 columns, 64 bytes; rows past K are zeros, to kPad.
  Value panelBytes = mul(kPad, cst(32));
  VectorType v = vec(32, i16);
  SmallVector<int64_t> lo, hi;
  for (int64_t i = 0; i < 16; ++i) {
    lo.append({i, 32 + i});
    hi.append({16 + i, 48 + i});
  }
  auto storePairs = [&](Value kk, Value r0, Value r1) {
    Value off = mul(kk, cst(64));
    store(vector::ShuffleOp::create(b, loc, r0, r1, lo), at(dst, off), 64);
    store(vector::ShuffleOp::create(b, loc, r0, r1, hi),
          at(dst, add(panelBytes, off)), 64);
  };
  auto row = [&](Value k) {
    return bf16BitsOfFp8(load(vec(32, i8), toPtr(rowAddr(k, n)), 1));
  };
  Value pairs = div(K, cst(2));
  {
    OpBuilder::InsertionGuard g(b);
    auto loop = forLoop(cst(0), pairs, 1);
    b.setInsertionPointToStart(loop.getBody());
    Value kk = loop.getInductionVar();
    Value k = mul(kk, cst(2));
    storePairs(kk, row(k), row(add(k, cst(1))));
  }
  {
    // Odd K: the last row and a zero row.
    OpBuilder::InsertionGuard g(b);
    auto odd = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::ne, rem(K, cst(2)), cst(0)), false);
    b.setInsertionPointToStart(odd.thenBlock());
    storePairs(pairs, row(sub(K, cst(1))), zeros(v));
  }
  OpBuilder::InsertionGuard g(b);
  auto pad = forLoop(div(add(K, cst(1)), cst(2)), div(kPad, cst(2)), 1);
  b.setInsertionPointToStart(pad.getBody());
  storePairs(pad.getInductionVar(), zeros(v), zeros(v));
}

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
  //
  // AMX-BF16 (Isa::amxBf16): the same loop nest on bf16 (a 64-byte row of
  // a tile is 32 k instead of 64): the lhs converted at the call site
  // (lhsBf16, in tiles, K padded to 32), the weights' column strip to the
  // two B panels (emitBf16Strip) into a per-thread scratch when the
  // micro-tiles reach it (the first row of each strip), and f32 sums.
  // Tasks are tileRows x taskCols (multiples of 32) chosen at the call site.
  bool bf16 = c.isa == Isa::amxBf16;
  Type tile = LLVM::LLVMX86AMXType::get(b.getContext());
  Value mPad = mul(div(add(M, cst(31)), cst(32)), cst(32));
  Value nPad = mul(div(add(N, cst(31)), cst(32)), cst(32));
  Value tm = div(t, tilesN), tn = rem(t, tilesN);
  Value mc = bf16 ? tileRows : cst(c.mc), nc = bf16 ? taskCols : cst(c.nc);
  Value m0 = mul(tm, mc), n0 = mul(tn, nc);
  Value m1 = min(add(m0, mc), mPad), n1 = min(add(n0, nc), nPad);
  // Bytes of an lhs row (K padded) and the lhs.
  Value kPad = bf16 ? mul(div(add(K, cst(31)), cst(32)), cst(32)) : Value();
  Value rowBytes = bf16 ? mul(kPad, cst(2)) : K;
  Value lhs = bf16 ? lhsBf16 : A;
  Value strip = bf16 ? scratchAddr(3, mul(rowBytes, cst(32))) : Value();
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
      accs.push_back(
          load(vec(16, bf16 ? f32 : i32), at(row, cst(j * 1024)), 64));
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
               b, loc, tile,
               b.getStringAttr(bf16 ? "llvm.x86.tdpbf16ps.internal"
                                    : "llvm.x86.tdpbssd.internal"),
               ValueRange{rows, colBytes, colBytes, acc, a, bt})
        .getResult(0);
  };
  Value steps = div(rowBytes, cst(64));
  // Both operands are packed in tiles (the lhs: LhsMode s8Tiles /
  // e4m3Bf16Tiles, 16 rows x 64 bytes contiguous, so that a tile load reads
  // 16 consecutive lines; at MiniLM's shapes one core's profile of the bf16
  // kernel had the first lhs tile load of each step as its hottest
  // instruction with rows read in place; in tiles 0.95-1.15x their GFLOP/s,
  // alternating runs): k step s's tiles are at s * 1024, stride 64.
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
    if (bf16) {
      // A new column strip: its weights as bf16.
      OpBuilder::InsertionGuard g(b);
      auto first = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::eq, rem(j, mTiles), cst(0)), false);
      b.setInsertionPointToStart(first.thenBlock());
      emitBf16Strip(nr0, strip, kPad);
    }
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
    // The first tiles of the two 16-row panels of A (packed in tiles: a
    // panel is 16 x rowBytes, k step s's tile at s * 1024) and of the two
    // B panels (16 columns each, 16 x rowBytes; k step s at s * 1024).
    Value aRow0 = add(lhs, mul(mr0, rowBytes)),
          aRow16 = add(aRow0, mul(cst(16), rowBytes));
    Value bPanel0 = bf16 ? strip : add(B, mul(nr0, K)),
          bPanel1 = add(bPanel0, mul(cst(16), rowBytes));
    // k steps in the order of oneDNN's AMX brgemm: each tile load followed
    // by the products it enables.
    auto emitSteps = [&](Value s0, int64_t stepCount, ValueRange in) {
      SmallVector<Value> acc(in.begin(), in.end());
      for (int64_t u = 0; u < stepCount; ++u) {
        Value off = mul(add(s0, cst(u)), cst(1024));
        Value a0 = tload(toPtr(add(aRow0, off)), cst(64));
        Value b0 = tload(toPtr(add(bPanel0, off)), cst(64));
        acc[0] = dp(acc[0], a0, b0);
        Value b1 = tload(toPtr(add(bPanel1, off)), cst(64));
        acc[1] = dp(acc[1], a0, b1);
        Value a1 = tload(toPtr(add(aRow16, off)), cst(64));
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
