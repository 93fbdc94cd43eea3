//===- FloatKernels.cpp - Weight-only, FP8 and f32 CPU kernels ------------===//
//
// The f32 loop nests of the weight-only (f32 x i8/u8/i4/u4/FP8, per-column
// or per-group scales), FP8 x FP8 (decoded to f32) and f32 x f32 kernels,
// in ymm (Isa::fma) or zmm (Isa::fma512) vectors. Float accumulation is
// under DESIGN.md's "Bounds" promise: the sums use FMA (vector.fma ->
// vfmadd231ps) and the tiles' own order, and the tests hold them to
// octet_oracle.accumulation_bound against f64 sums. For decode (M < MR)
// one column strip per thread streams whole rows of the weights, keeping
// per-group sums and scaled totals in the thread's scratch, or, for
// constant codes (packed in panels of 8 vectors at compile time,
// GemmConfig::panelColumns), one panel after the other with its sums in
// registers; from MR rows
// on, each K block of a tile's columns is converted to f32 once (times its
// group's scale) and MR x (nv * w) register tiles reuse it for the tile's
// rows. FP8 x FP8 on AVX512-BF16 (Isa::dpbf16) packs both blocks as bf16
// pairs instead (every E4M3 / E5M2 value is exact in bf16, every product
// of two exact in f32) and the tiles issue one vdpbf16ps per two rows of K.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "RegisterTranspose.h"

#include "octet/Dialect/Octet/IR/OctetNumerics.h"
#include "octet/Runtime/Numerics.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

Value KernelEmitter::weightVector(Value ptr, Value mask, Value zbv,
                                  bool unscaled) {
  if (c.floatRhs)
    return loadVec(f32, c.w, ptr, mask);
  if (c.rhsFp8)
    return emitFp8CodesToF32ViaF16(b, loc, loadVec(i8, c.w, ptr, mask),
                                   *c.rhsFp8, c.rhsNoNan, unscaled);
  Value codes = loadVec(i8, c.w, ptr, mask);
  Value wide =
      c.rhsUnsigned
          ? arith::ExtUIOp::create(b, loc, vec(c.w, i32), codes).getResult()
          : arith::ExtSIOp::create(b, loc, vec(c.w, i32), codes).getResult();
  if (zbv)
    wide = sub(wide, zbv);
  return arith::SIToFPOp::create(b, loc, vec(c.w, f32), wide);
}

SmallVector<Value> KernelEmitter::weightVectors(Value k, Value nv0, int64_t nv,
                                                ArrayRef<Value> masks,
                                                ArrayRef<Value> zbv,
                                                bool panelStart,
                                                bool unscaled) {
  SmallVector<Value> out;
  if (!c.rhsNibbles) {
    // 8-bit codes: the vectors one after the other in the row (in panels,
    // every caller's vectors lie in nv0's panel, padded: no mask).
    Value row = rowAddr(k, nv0);
    bool unmasked =
        c.rhsPanels || llvm::all_of(masks, [](Value m) { return !m; });
    if (c.rhsFp8 && !c.floatRhs && nv % 2 == 0 && unmasked) {
      // FP8 codes two vectors at a time: one sign extension to 2 w i16
      // (vpmovsxbw ymm -> zmm), one shift and one AND for both, then two
      // f16 -> f32 conversions of the halves. Per 16 E4M3 codes on zmm
      // this is 5 operations before the FMA instead of 10 (one vector at a
      // time, the i16 work was on half-width registers and the 2^8
      // multiply per vector: the argument-weight decode GEMV ran at 57-77%
      // of the read loop on Emerald Rapids). With the weights in L2 this
      // also beat a decode by vpermi2b lookups in 128-byte tables of the
      // values' bf16 bytes (AVX512-VBMI; 4 permutes, an OR, 2 shifts and 2
      // masks per 64 codes, but vpermi2b zmm issues once per 2 cycles):
      // 21.5-21.7 GB/s of E4M3 codes against 19.9-20.2, one thread.
      for (int64_t v = 0; v < nv; v += 2) {
        Value both = emitFp8CodesToF32ViaF16(
            b, loc, load(vec(2 * c.w, i8), at(row, cst(vecOffset(v))), 1),
            *c.rhsFp8, c.rhsNoNan, unscaled);
        for (int64_t h = 0; h < 2; ++h)
          out.push_back(vector::ExtractStridedSliceOp::create(
              b, loc, both, ArrayRef<int64_t>{h * c.w}, ArrayRef<int64_t>{c.w},
              ArrayRef<int64_t>{1}));
      }
      return out;
    }
    for (int64_t v = 0; v < nv; ++v)
      out.push_back(weightVector(at(row, cst(vecOffset(v))),
                                 c.rhsPanels ? Value() : masks[v], zbv[v],
                                 unscaled));
    return out;
  }
  // 4-bit codes (GemmConfig::panelColumns): the row's w words hold its 8
  // vectors, vector j in nibble j, loaded once. Every caller's vectors lie
  // in nv0's panel (one vector, a pair from a multiple of 2 w, or a whole
  // panel). Rows are padded: no mask on the load.
  if (panelStart) {
    // A whole panel: vector j is the low (j even) or high nibble of byte
    // j / 2 of each word. Four loads at byte offsets 0..3 (the packed
    // constant has a row of padding after the last one) put byte j / 2
    // in the words' low byte, where the permute reads its index, so only
    // the odd vectors need a shift (by 4): 4 shifts per row on the vector
    // ports instead of 7, the loads going to the load ports (which have
    // room: 1.5 load operations per 2 vector ones). On Emerald Rapids,
    // one thread, weights in L2 (K = 2048, N = 1024): 24.5-26.8 GB/s of
    // codes against 20.9-23.5 with a shift per vector, for NF4, MXFP4 and
    // i4 alike.
    Value row = rowAddr(k, nv0);
    SmallVector<Value> d;
    for (int64_t o = 0; o < 4; ++o)
      d.push_back(load(vec(c.w, i32), at(row, cst(o)), o ? 1 : 4));
    for (int64_t v = 0; v < nv; ++v)
      out.push_back(nibbleVector(
          d[v / 2], cst32(static_cast<int32_t>(4 * (v % 2))), zbv[v]));
    return out;
  }
  Value d = load(vec(c.w, i32), toPtr(rowAddr(k, nv0)), 4);
  Value first = mul(div(rem(nv0, cst(c.panelColumns())), cst(c.w)), cst(4));
  for (int64_t v = 0; v < nv; ++v) {
    Value shift = arith::TruncIOp::create(b, loc, i32, add(first, cst(4 * v)));
    out.push_back(nibbleVector(d, shift, zbv[v]));
  }
  return out;
}

Value KernelEmitter::nibbleVector(Value d, Value shift, Value zbv) {
  VectorType v32 = vec(c.w, i32), vf = vec(c.w, f32);
  Value idx = arith::ShRUIOp::create(b, loc, d, splat(shift, c.w));
  // A permute of a value table by each lane's nibble (vpermps reads the
  // index's low 3 bits on ymm, 4 on zmm), exact.
  auto permute = [&](ArrayRef<float> table) -> Value {
    Value t = arith::ConstantOp::create(
        b, loc, vf, DenseElementsAttr::get(vf, table.take_front(c.w)));
    return LLVM::CallIntrinsicOp::create(
               b, loc, vf,
               b.getStringAttr(c.w == 8 ? "llvm.x86.avx2.permps"
                                        : "llvm.x86.avx512.permvar.sf.512"),
               ValueRange{t, idx})
        .getResult(0);
  };
  if (c.rhsNf4 || c.rhsFp4) {
    // E2M1's 16 values from the numerics core's decoder.
    SmallVector<float> e2m1;
    for (uint8_t code = 0; code < 16; ++code)
      e2m1.push_back(::octet::numerics::decodeFp8(
          code, ::octet::numerics::StorageFormat::F4E2M1FN));
    ArrayRef<float> table =
        c.rhsNf4 ? ArrayRef<float>(::octet::numerics::kNf4Values) : e2m1;
    if (c.w != 8) // zmm: all 16 values in one table
      return permute(table);
    // ymm: the nibble's bit 3 moved to bit 31.
    Value top = arith::ShLIOp::create(
        b, loc, d, splat(arith::SubIOp::create(b, loc, cst32(28), shift), c.w));
    if (c.rhsFp4) {
      // E2M1's codes 8..15 are 0..7 negated: the 8 magnitudes, then the
      // sign ORed in.
      Value sign = arith::AndIOp::create(
          b, loc, top, splat(cst32(static_cast<int32_t>(0x80000000u)), c.w));
      Value mag = arith::BitcastOp::create(b, loc, v32, permute(table));
      return arith::BitcastOp::create(b, loc, vf,
                                      arith::OrIOp::create(b, loc, mag, sign));
    }
    // NF4: both halves of the table permuted, the one bit 3 names.
    Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, top,
                                       splat(cst32(0), c.w));
    return arith::SelectOp::create(b, loc, high, permute(table.drop_front(8)),
                                   permute(table));
  }
  if (c.w != 8) {
    // zmm: the 16 values of the nibble permuted (two's complement for i4),
    // as for FP4 (one operation instead of three), minus the zero point.
    SmallVector<float> table;
    for (int32_t u = 0; u < 16; ++u)
      table.push_back(static_cast<float>(c.rhsUnsigned || u < 8 ? u : u - 16));
    Value f = permute(table);
    if (!zbv)
      return f;
    return arith::SubFOp::create(b, loc, f,
                                 arith::SIToFPOp::create(b, loc, vf, zbv));
  }
  // ymm: i4, the nibble moved to the top bits and shifted back
  // arithmetically, (d << (28 - shift)) >>s 28 (it sign-extends); u4,
  // (d >> shift) & 15; minus the zero point; vcvtdq2ps. (2^23 + u read as
  // f32, minus 2^23 + 8, takes one operation more per vector: 3.55 against
  // 3.12 ms per 4096 x 14336 GEMV, one thread on Zen 4.)
  Value nib =
      c.rhsUnsigned
          ? arith::AndIOp::create(b, loc, idx, splat(cst32(15), c.w))
                .getResult()
          : arith::ShRSIOp::create(
                b, loc,
                arith::ShLIOp::create(
                    b, loc, d,
                    splat(arith::SubIOp::create(b, loc, cst32(28), shift),
                          c.w)),
                splat(cst32(28), c.w))
                .getResult();
  if (zbv)
    nib = arith::SubIOp::create(b, loc, nib, zbv);
  return arith::SIToFPOp::create(b, loc, vf, nib);
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
  // Prefetch kPrefetchRows rows ahead, every 64-byte line of the group's
  // columns: the strip's rows are runs of a few KB, a row apart. Into L2
  // (prefetcht1): the line is used only after the whole strip's next
  // 8-row block has been read (114 KB at N = 14336 on one thread), long
  // after L1 has dropped it, and Intel's prefetchnta fills L1 and not L2:
  // with it the 2 GiB decode GEMV read at 47% of the read loop on Emerald
  // Rapids, with prefetcht1 at 95-105% (on Zen 3, nta and t0 measured
  // the same).
  constexpr int64_t kPrefetchRows = 16;
  int64_t groupBytes = vecOffset(nv);
  if (!masked)
    for (int64_t r = 0; r < ku; ++r)
      for (int64_t line = 0; line < groupBytes; line += 64)
        LLVM::Prefetch::create(
            b, loc,
            at(rowAddr(add(k0, cst(r + kPrefetchRows)), nv0), cst(line)),
            /*rw=*/0u, /*hint=*/2u, /*cache=*/1u);
  // The rows in order, one FMA per weight vector. E4M3 weights are summed
  // times 2^-8 (rhsUnscaled: the running sums in the scratch too) and the
  // sums scaled back once, before the group scale or the epilogue.
  bool unscaled = rhsUnscaled();
  for (int64_t r = 0; r < ku; ++r) {
    Value k = add(k0, cst(r));
    Value x = splat(lhsValue(m, k), c.w);
    SmallVector<Value> wf = weightVectors(k, nv0, nv, masks, zbv,
                                          /*panelStart=*/false, unscaled);
    for (int64_t v = 0; v < nv; ++v)
      accs[v] = vector::FMAOp::create(b, loc, x, wf[v], accs[v]);
  }
  OpBuilder::InsertionGuard g(b);
  if (c.group) {
    auto end = scf::IfOp::create(b, loc, groupEnd, true);
    b.setInsertionPointToStart(end.thenBlock());
    SmallVector<Value> totals =
        groupTotals(rescaleSums(accs, unscaled), firstGroup, tptr,
                    div(k0, cst(c.group)), nv0, masks);
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
  emitEpilogueRow(rescaleSums(accs, unscaled), m, nv0);
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
    if (c.rhsPanels)
      emitPanelDecode(t);
    else
      emitWeightOnlyDecode(t);
    b.setInsertionPointToStart(decode.elseBlock());
    if (c.isa == Isa::amxBf16)
      emitAmxTile(t);
    else
      emitWeightOnlyTiled(t);
  }
  A = a0, B = b0, C = c0;
}

void KernelEmitter::transposeRhsBlock(Value n0, Value n1) {
  // The source is N x K row-major; the block is K x width, row k holding
  // columns n0..n1 (a plain copy: the values are moved, not rounded).
  // Squares of w x w are transposed in registers (transposeInRegisters:
  // w rows of the source loaded, w rows of the block stored). What is left
  // of K and of the columns is copied one element at a time.
  int64_t w = c.w;
  Value width = sub(n1, n0);
  Value block = scratchAddr(2, mul(mul(K, width), cst(4)));
  Value nVec = add(n0, mul(div(width, cst(w)), cst(w)));
  Value kVec = mul(div(K, cst(w)), cst(w));
  auto copyElements = [&](Value n, Value k0) {
    Value src = add(B, mul(mul(n, K), cst(4)));
    Value dst = add(block, mul(sub(n, n0), cst(4)));
    auto kLoop = forLoop(k0, K, 1);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    store(load(f32, at(src, mul(k, cst(4))), 4),
          at(dst, mul(mul(k, width), cst(4))), 4);
  };
  {
    OpBuilder::InsertionGuard g(b);
    auto nLoop = forLoop(n0, nVec, w);
    b.setInsertionPointToStart(nLoop.getBody());
    Value n = nLoop.getInductionVar();
    {
      OpBuilder::InsertionGuard g2(b);
      auto kLoop = forLoop(cst(0), kVec, w);
      b.setInsertionPointToStart(kLoop.getBody());
      Value k = kLoop.getInductionVar();
      SmallVector<Value> rows;
      for (int64_t r = 0; r < w; ++r)
        rows.push_back(load(vec(w, f32),
                            at(B, mul(add(mul(add(n, cst(r)), K), k), cst(4))),
                            4));
      transposeInRegisters(b, loc, rows);
      for (int64_t j = 0; j < w; ++j)
        store(
            rows[j],
            at(block, mul(add(mul(add(k, cst(j)), width), sub(n, n0)), cst(4))),
            4);
    }
    for (int64_t r = 0; r < w; ++r)
      copyElements(add(n, cst(r)), kVec);
  }
  {
    OpBuilder::InsertionGuard g(b);
    auto nLoop = forLoop(nVec, n1, 1);
    b.setInsertionPointToStart(nLoop.getBody());
    copyElements(nLoop.getInductionVar(), cst(0));
  }
  // rowAddr(k, n) = block + (k * width + n - n0) * 4.
  B = sub(block, mul(n0, cst(4)));
  ldb = width;
}

void KernelEmitter::emitWeightOnlyDecode(Value t) {
  // Task t owns the column strip [n0, n0 + NC) with NC = N / threads
  // (rounded up to the vector width, chosen at the call site): with one strip
  // per thread every thread streams runs of NC bytes, a row apart, the longest
  // runs a column split allows. Rows are taken kRows at a time: each group of
  // 64 columns loads its running sums (L1/L2 scratch) once, adds kRows rows (k
  // in order), and stores them back, or applies the epilogue after the last
  // row. Groups of 64 columns, then of 8, then one masked group: the hot loop
  // has no masks.
  //
  // Integer codes take 16 rows at a time where the groups allow it (half
  // the scratch traffic per weight byte): on Zen 5, whose core reads 38
  // GB/s, the i8 GEMV of K = 4096, N = 14336 went from 49-54% of the read
  // loop to 71-82% on one thread (74-88% -> 76-80% on two). FP8 codes
  // (with their NaN select) ran at half speed with 16 rows and keep 8.
  constexpr int64_t kGroup = 8;
  int64_t kRows = !c.floatRhs && !c.rhsFp8 && c.group % 16 == 0 ? 16 : 8;
  Value nc = taskCols;
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

void KernelEmitter::emitPanelDecode(Value t) {
  // Task t owns the columns [n0, n1) (n0 a multiple of w; NC chosen at the
  // call site). The packed weights hold each panel of 8 w columns with its
  // K rows contiguous (GemmConfig::panelColumns): whole panels are streamed
  // one after the other with their 8 vectors of sums in registers, and the
  // vectors before the first whole panel and after the last one of the
  // task (where N / threads does not fall on a panel; each run lies in one
  // panel) 4, 2, then 1 at a time, the last one masked when N ends in it.
  int64_t panel = c.panelColumns();
  Value n0 = mul(t, taskCols);
  Value n1 = min(add(n0, taskCols), N);
  Value pa = mul(div(add(n0, cst(panel - 1)), cst(panel)), cst(panel));
  Value h1 = min(pa, n1);
  Value pb =
      arith::MaxSIOp::create(b, loc, pa, mul(div(n1, cst(panel)), cst(panel)));
  Value t0 = arith::MaxSIOp::create(b, loc, pb, h1);
  auto pass = [&](Value lb, Value ub, int64_t step, int64_t nv, bool masked) {
    OpBuilder::InsertionGuard g(b);
    auto loop = forLoop(lb, ub, step);
    b.setInsertionPointToStart(loop.getBody());
    emitPanelPass(loop.getInductionVar(), nv, masked);
  };
  auto partial = [&](Value lo, Value hi) {
    auto upTo = [&](Value from, Value to, int64_t width) {
      return add(from, mul(div(sub(to, from), cst(width)), cst(width)));
    };
    Value whole = upTo(lo, hi, c.w);
    Value end4 = upTo(lo, whole, 4 * c.w);
    Value end2 = upTo(end4, whole, 2 * c.w);
    pass(lo, end4, 4 * c.w, 4, false);
    pass(end4, end2, 2 * c.w, 2, false);
    pass(end2, whole, c.w, 1, false);
    pass(whole, hi, c.w, 1, true);
  };
  partial(n0, h1);
  pass(pa, pb, panel, 8, false);
  partial(t0, n1);
}

void KernelEmitter::emitPanelPass(Value nv0, int64_t nv, bool masked) {
  // The columns [nv0, nv0 + nv w) of every row m, all of K in order: per
  // group, sums from +0.0 with one FMA per row, then total = total +
  // sum * scale (from +0.0; the same sums as emitWeightOnlyGroup's), or
  // one sum over K times the per-column scale in the epilogue.
  VectorType accTy = vec(c.w, f32);
  constexpr int64_t kRows = 8; // rows per iteration; groups are multiples
  SmallVector<Value> masks = columnMasks(nv0, nv, masked);
  SmallVector<Value> zbv = weightZeroPoints(nv0, nv, masks);
  SmallVector<Value> zero(nv, zeros(accTy));
  bool unscaled = rhsUnscaled();
  auto mLoop = forLoop(cst(0), M, 1);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(mLoop.getBody());
  Value m = mLoop.getInductionVar();
  // The sums `init` plus the rows [lb, ub), `step` rows per iteration.
  auto sumRows = [&](Value lb, Value ub, int64_t step,
                     ValueRange init) -> SmallVector<Value> {
    auto kLoop = forLoop(lb, ub, step, init);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    SmallVector<Value> accs(kLoop.getRegionIterArgs().begin(),
                            kLoop.getRegionIterArgs().end());
    // A whole panel is one stream: its lines requested 8 KB ahead (4 KB on
    // Zen 4: GemmConfig::panelPrefetchBytes) into L2
    // (prefetcht1; 16 iterations with 4-bit codes on zmm, 8 with 8-bit
    // ones). On Emerald Rapids, one thread, with caches evicted before each
    // pass (bench/cpu_kernels.py): 4-bit NF4 at 87-91% of the read loop,
    // against 83-84% with prefetcht0 2 KB ahead and 85% at 4 KB; 8-bit codes
    // at 92-93%, against 82-84% with prefetcht0 4 iterations ahead.
    int64_t rowsBytes = kRows * c.panelRowBytes();
    // On AMD Zen into L1 instead (prefetcht0, GemmConfig::panelPrefetchL1):
    // on Zen 5, one thread, 91-104% of the read loop against 80-92% for
    // the 7 formats of `--only gemv4` (two threads: within the noise).
    int64_t ahead = c.panelPrefetchBytes;
    unsigned hint = c.panelPrefetchL1 ? 3u : 2u;
    if (nv == 8 && step == kRows)
      for (int64_t line = 0; line < rowsBytes; line += 64)
        LLVM::Prefetch::create(b, loc, at(rowAddr(k0, nv0), cst(ahead + line)),
                               /*rw=*/0u, hint, /*cache=*/1u);
    for (int64_t r = 0; r < step; ++r) {
      Value k = add(k0, cst(r));
      Value x = splat(lhsValue(m, k), c.w);
      SmallVector<Value> wf = weightVectors(k, nv0, nv, masks, zbv,
                                            /*panelStart=*/nv == 8, unscaled);
      for (int64_t v = 0; v < nv; ++v)
        accs[v] = vector::FMAOp::create(b, loc, x, wf[v], accs[v]);
    }
    scf::YieldOp::create(b, loc, accs);
    return SmallVector<Value>(kLoop.getResults().begin(),
                              kLoop.getResults().end());
  };
  if (!c.group) {
    // From +0.0 over all of K, kRows at a time then one by one.
    Value kMain = mul(div(K, cst(kRows)), cst(kRows));
    SmallVector<Value> sums = sumRows(cst(0), kMain, kRows, zero);
    emitEpilogueRow(rescaleSums(sumRows(kMain, K, 1, sums), unscaled), m, nv0);
    return;
  }
  // Groups: a multiple of 8 rows that divides K (planRhsScale).
  auto gLoop = forLoop(cst(0), K, c.group, zero);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(gLoop.getBody());
    Value g0 = gLoop.getInductionVar();
    Value gi = div(g0, cst(c.group));
    if (c.scalePanels && nv == 8) {
      // The scales of the group as far ahead as the codes' prefetch
      // (panelPrefetchBytes of rows; at least the next group): they are a
      // second stream, one panel row of f32 per group, which the hardware
      // prefetcher did not keep ahead of. SmolLM2's GEMVs (0.3-1 MB of i4
      // codes, g64) ran at 0.64-0.85 of the read loop without it and 0.70-0.92
      // with it (Zen 5, one thread, bench/cpu_kernels.py's gemvc driver).
      int64_t panel = c.panelColumns();
      int64_t ahead = std::max<int64_t>(1, c.panelPrefetchBytes /
                                               (c.group * c.panelRowBytes()));
      Value row = add(mul(div(nv0, cst(panel)), div(K, cst(c.group))),
                      add(gi, cst(ahead)));
      for (int64_t line = 0; line < panel * 4; line += 64)
        LLVM::Prefetch::create(
            b, loc, at(sb, add(mul(row, cst(panel * 4)), cst(line))),
            /*rw=*/0u, c.panelPrefetchL1 ? 3u : 2u, /*cache=*/1u);
    }
    SmallVector<Value> sums =
        rescaleSums(sumRows(g0, add(g0, cst(c.group)), kRows, zero), unscaled);
    SmallVector<Value> totals;
    for (int64_t v = 0; v < nv; ++v) {
      Value t = arith::MulFOp::create(b, loc, sums[v],
                                      groupScale(gi, nv0, v, masks[v]));
      totals.push_back(
          arith::AddFOp::create(b, loc, gLoop.getRegionIterArgs()[v], t));
    }
    scf::YieldOp::create(b, loc, totals);
  }
  emitEpilogueRow(
      SmallVector<Value>(gLoop.getResults().begin(), gLoop.getResults().end()),
      m, nv0);
}

// Rows of the rhs requested ahead while a K block is converted.
static constexpr int64_t kPackAhead = 8;

void KernelEmitter::emitConvertRow(Value k, Value kc0, Value nv0, int64_t nv,
                                   Value n0, Value packed, bool masked) {
  SmallVector<Value> masks = columnMasks(nv0, nv, masked);
  SmallVector<Value> zbv = weightZeroPoints(nv0, nv, masks);
  Value dst = add(add(packed, mul(sub(nv0, n0), cst(c.kc * tileBytes()))),
                  mul(div(sub(k, kc0), cst(kStep())), cst(nv * c.w * 4)));
  // Each row starts a new page for large N, where the hardware prefetchers
  // stop: the same lines kPackAhead rows ahead are requested here.
  if (!masked)
    for (int64_t line = 0; line < vecOffset(nv); line += 64)
      LLVM::Prefetch::create(
          b, loc, at(rowAddr(add(k, cst(kPackAhead)), nv0), cst(line)),
          /*rw=*/0u, /*hint=*/3u, /*cache=*/1u);
  Value g = c.group ? div(k, cst(c.group)) : Value();
  SmallVector<Value> wfs = weightVectors(k, nv0, nv, masks, zbv);
  if (bf16Pairs()) {
    // Rows k and k + 1 in bf16 pair words (no groups here: planWeightOnly).
    SmallVector<Value> next =
        weightVectors(add(k, cst(1)), nv0, nv, masks, zbv);
    for (int64_t v = 0; v < nv; ++v)
      store(bf16Pair(wfs[v], next[v]), at(dst, cst(v * c.w * 4)), 32);
    return;
  }
  for (int64_t v = 0; v < nv; ++v) {
    Value wf = wfs[v];
    if (c.group)
      wf = arith::MulFOp::create(b, loc, wf, groupScale(g, nv0, v, masks[v]));
    store(wf, at(dst, cst(v * c.w * 4)), 32);
  }
}

void KernelEmitter::emitConvertBlock(Value kc0, Value kc1, Value n0,
                                     Value n16, Value n8, Value n1,
                                     Value packed) {
  // The K block of the tile's columns [n0, n1), converted to f32 once (minus
  // the zero point, times the group's scale for per-group scales) into
  // `packed`: panel by panel, each panel's rows [k][nv * w] contiguous at
  // (panel column - n0) * KC floats. Rows are read whole, in k order: long
  // runs of adjacent lines the prefetchers follow and one page per row,
  // where a panel at a time (64 bytes of every row, N elements apart)
  // missed the TLB and the caches on every row. bf16 pairs: two rows per
  // step, a panel's rows [k / 2][nv * w] words at (column - n0) * KC * 2.
  auto kLoop = forLoop(kc0, kc1, kStep());
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value k = kLoop.getInductionVar();
  {
    OpBuilder::InsertionGuard g2(b);
    auto wide = forLoop(n0, n16, c.nr());
    b.setInsertionPointToStart(wide.getBody());
    emitConvertRow(k, kc0, wide.getInductionVar(), c.nv, n0, packed, false);
  }
  {
    OpBuilder::InsertionGuard g2(b);
    auto narrow = forLoop(n16, n8, c.w);
    b.setInsertionPointToStart(narrow.getBody());
    emitConvertRow(k, kc0, narrow.getInductionVar(), 1, n0, packed, false);
  }
  auto tail =
      scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, n8, n1), false);
  b.setInsertionPointToStart(tail.thenBlock());
  emitConvertRow(k, kc0, n8, 1, n0, packed, true);
}

void KernelEmitter::emitWeightOnlyPanel(Value kc0, Value kc1, Value nv0,
                                        int64_t nv, Value m0, Value m1,
                                        Value n0, Value first, Value last,
                                        Value scratch, Value packedA,
                                        Value packedB, bool masked) {
  VectorType accTy = vec(c.w, f32);
  int64_t mr = c.mr;
  // This panel's converted K block (emitConvertBlock): [k][nv * w] f32, or
  // [k / 2][nv * w] bf16 pair words.
  // Direct tiles (directTiles) read the rhs rows in place, masked in the
  // tail panel.
  bool direct = directTiles();
  Value packed = direct
                     ? Value()
                     : add(packedB, mul(sub(nv0, n0), cst(c.kc * tileBytes())));
  SmallVector<Value> masks = columnMasks(nv0, nv, masked && direct);
  auto mLoop = forLoop(m0, m1, mr);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(mLoop.getBody());
  Value mr0 = mLoop.getInductionVar();
  // Rows past M repeat row M - 1 (their sums are never stored as results).
  // This tile's rows of the packed A block: [k][MR] f32 (or [k / 2][MR]
  // bf16 pair words).
  Value aTile = direct ? Value()
                       : add(packedA, mul(div(sub(mr0, m0), cst(mr)),
                                          cst(c.kc * mr * tileBytes())));
  SmallVector<Value> rows;
  if (direct)
    for (int64_t i = 0; i < mr; ++i)
      rows.push_back(min(add(mr0, cst(i)), sub(M, cst(1))));
  auto sumAddr = [&](int64_t i, int64_t v) {
    return add(scratch,
               mul(add(mul(add(sub(mr0, m0), cst(i)), cst(c.nc)),
                       add(sub(nv0, n0), cst(v * c.w))),
                   cst(4)));
  };
  auto sumPtr = [&](int64_t i, int64_t v) { return toPtr(sumAddr(i, v)); };
  SmallVector<Value> addrs;
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t v = 0; v < nv; ++v)
      addrs.push_back(sumAddr(i, v));
  SmallVector<Value> init = zerosOrLoad(first, accTy, addrs, 4);
  auto kLoop = forLoop(kc0, kc1, kStep(), init);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    SmallVector<Value> accs(kLoop.getRegionIterArgs().begin(),
                            kLoop.getRegionIterArgs().end());
    // One FMA per row of the tile and vector, or with bf16 pairs one
    // vdpbf16ps for rows k and k + 1 (lanes of pair words, the broadcast
    // one word).
    Type elem = bf16Pairs() ? i32 : f32;
    SmallVector<Value> wf(nv);
    Value aK;
    if (direct) {
      Value row = rowAddr(k, nv0);
      for (int64_t v = 0; v < nv; ++v)
        wf[v] = loadVec(f32, c.w, at(row, cst(v * c.w * 4)), masks[v]);
    } else {
      Value step = div(sub(k, kc0), cst(kStep()));
      Value src = add(packed, mul(step, cst(nv * c.w * 4)));
      aK = add(aTile, mul(step, cst(mr * 4)));
      for (int64_t v = 0; v < nv; ++v)
        wf[v] = load(vec(c.w, elem), at(src, cst(v * c.w * 4)), 32);
    }
    for (int64_t i = 0; i < mr; ++i) {
      Value x = splat(direct ? lhsValue(rows[i], k)
                             : load(elem, at(aK, cst(i * 4)), 4),
                      c.w);
      for (int64_t v = 0; v < nv; ++v) {
        Value &acc = accs[i * nv + v];
        acc = bf16Pairs()
                  ? dotBf16(acc, x, wf[v])
                  : vector::FMAOp::create(b, loc, x, wf[v], acc).getResult();
      }
    }
    scf::YieldOp::create(b, loc, accs);
  }
  SmallVector<Value> results(kLoop.getResults().begin(),
                             kLoop.getResults().end());
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
  // Task t is the tile (t / tilesN, t % tilesN) of at most MC x NC
  // outputs. K is taken KC rows at a time: the tile's K block of the
  // weights is converted once (emitConvertBlock), then each 16- (then 8-,
  // then masked 8-) column panel runs its MR-row register tiles over its
  // part; partial sums wait in the scratch.
  // The tile's height and width (at most MC and NC) were chosen at the call
  // site.
  Value mc = tileRows, nc = taskCols;
  Value tm = div(t, tilesN), tn = rem(t, tilesN);
  Value m0 = mul(tm, mc), n0 = mul(tn, nc);
  Value m1 = min(add(m0, mc), M), n1 = min(add(n0, nc), N);
  Value width = sub(n1, n0);
  Value savedB = B, savedLdb = ldb;
  if (c.rhsTransposed)
    transposeRhsBlock(n0, n1);
  Value n16 = add(n0, mul(div(width, cst(c.nr())), cst(c.nr())));
  Value n8 = add(n0, mul(div(width, cst(c.w)), cst(c.w)));
  Value scratch = scratchAddr(1, cst(c.mc * c.nc * 4));
  // The packed blocks (none for direct tiles, which read in place).
  Value packedA, decoded, packedB;
  if (!directTiles()) {
    packedA = scratchAddr(0, cst(c.mc * c.kc * 4 + c.mr * 32));
    decoded = add(packedA, cst(c.mc * c.kc * 4));
    packedB = scratchAddr(3, cst(c.kc * c.nc * 4));
  }
  auto kLoop = forLoop(cst(0), K, c.kc);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value kc0 = kLoop.getInductionVar();
  Value kc1 = min(add(kc0, cst(c.kc)), K);
  Value first = cmp(arith::CmpIPredicate::eq, kc0, cst(0));
  Value last = cmp(arith::CmpIPredicate::eq, kc1, K);
  // Direct tiles (directTiles) read both operands in place.
  if (!directTiles()) {
    // The A block [m0, m1) x [kc0, kc1), packed once for all panels as
    // [m / MR][k][MR] (rows past M repeat row M - 1; their sums are never
    // stored): the tiles broadcast from consecutive addresses instead of MR
    // rows lda apart. Written in the packed order (k, then the MR rows): the
    // stores are sequential and each row is read as a stream.
    {
      OpBuilder::InsertionGuard g2(b);
      Value mEnd = add(
          m0, mul(div(add(sub(m1, m0), cst(c.mr - 1)), cst(c.mr)), cst(c.mr)));
      auto mLoop = forLoop(m0, mEnd, c.mr);
      b.setInsertionPointToStart(mLoop.getBody());
      Value mt = mLoop.getInductionVar();
      SmallVector<Value> rows;
      for (int64_t i = 0; i < c.mr; ++i)
        rows.push_back(min(add(mt, cst(i)), sub(M, cst(1))));
      Value dst = add(packedA, mul(div(sub(mt, m0), cst(c.mr)),
                                   cst(c.kc * c.mr * tileBytes())));
      // Element (i, k) of the packed block: [k][MR] f32 or, for bf16 pairs,
      // [k / 2][MR] words.
      auto packedAt = [&](Value k, int64_t i) {
        return at(dst, mul(add(mul(div(sub(k, kc0), cst(kStep())), cst(c.mr)),
                               cst(i)),
                           cst(4)));
      };
      // FP8 codes: 8 of a row decoded at once (emitFp8CodesToF32ViaF16, the
      // values of the scalar decode; times the group's scale, one per 8 codes
      // as the groups are multiples of 8 and so is KC) into `decoded`
      // [MR][8], then moved into the packed order. The scalar decode per
      // element was a quarter of an FP8 GEMM's time.
      Value kVec = kc0;
      if (c.lhsFp8 &&
          (*c.lhsFp8 == StorageFormat::f8E4M3FN ||
           *c.lhsFp8 == StorageFormat::f8E5M2) &&
          (!c.lhsGroupScale || c.group % 8 == 0) && c.kc % 8 == 0) {
        kVec = add(kc0, mul(div(sub(kc1, kc0), cst(8)), cst(8)));
        OpBuilder::InsertionGuard g3(b);
        auto vLoop = forLoop(kc0, kVec, 8);
        b.setInsertionPointToStart(vLoop.getBody());
        Value k = vLoop.getInductionVar();
        for (int64_t i = 0; i < c.mr; ++i) {
          Value index = add(mul(rows[i], lda), k);
          Value x = emitFp8CodesToF32ViaF16(
              b, loc, load(vec(8, i8), at(A, index), 1), *c.lhsFp8);
          if (c.lhsGroupScale) {
            Value si =
                add(mul(rows[i], div(K, cst(c.group))), div(k, cst(c.group)));
            x = arith::MulFOp::create(
                b, loc, x, splat(load(f32, at(sa, mul(si, cst(4))), 4), 8));
          }
          if (bf16Pairs()) {
            // The 8 values' top halves (exact bf16), read as 4 pair words.
            Value top = arith::TruncIOp::create(
                b, loc, vec(8, i16),
                arith::ShRUIOp::create(
                    b, loc, arith::BitcastOp::create(b, loc, vec(8, i32), x),
                    splat(cst32(16), 8)));
            x = vector::BitCastOp::create(b, loc, vec(4, i32), top);
          }
          store(x, at(decoded, cst(i * 32)), 16);
        }
        // 8 values (f32) or 4 pair words per row, moved into the packed order.
        int64_t words = 8 / kStep();
        Type elem = bf16Pairs() ? i32 : f32;
        for (int64_t kk = 0; kk < words; ++kk)
          for (int64_t i = 0; i < c.mr; ++i)
            store(load(elem, at(decoded, cst(i * 32 + kk * 4)), 4),
                  packedAt(add(k, cst(kk * kStep())), i), 4);
      }
      auto kLoop2 = forLoop(kVec, kc1, kStep());
      b.setInsertionPointToStart(kLoop2.getBody());
      Value k = kLoop2.getInductionVar();
      for (int64_t i = 0; i < c.mr; ++i) {
        Value x = lhsValue(rows[i], k);
        if (bf16Pairs())
          x = bf16Pair(x, lhsValue(rows[i], add(k, cst(1))));
        store(x, packedAt(k, i), 4);
      }
    }
    emitConvertBlock(kc0, kc1, n0, n16, n8, n1, packedB);
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
