//===- AmxKernel.cpp - The AMX-INT8 tile of the CPU GEMM kernels ----------===//
//
// The GEMM body of one task for AMX-INT8: 32 x 32 micro-tiles of 2 x 2
// tdpbssd tiles accumulated through a per-thread scratch, then the shared
// epilogue row by row from the stored tiles.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

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
