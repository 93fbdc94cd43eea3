//===- WgmmaKernel.cpp - The wgmma kernel for octet.matmul ----------------===//
//
// The wgmma matmul kernel (sm_90a): 128 x N (N = 128 or 256) block tiles,
// two warpgroups of m64nNk32 wgmma.mma_async (nvvm.wgmma.mma_async: s8/u8 ->
// s32, e4m3/e5m2 -> f32) reading both operands from 128-byte-swizzled shared
// memory through matrix descriptors; a cp.async ring of `stages` stages, one
// wgmma group in flight. Integer results match the CPU bit for bit; FP8 sums
// differ from it only in the order of the additions.
//
// Weight-only products (float activations, 8- or 4-bit weights) with many
// rows run on a bf16 form instead of the gemv: each activation split into
// bf16 parts whose sum is the activation exactly (3 for f32: 8 + 8 + 8
// significant bits, 2 for f16, 1 for bf16), each weight too (one part for
// codes that are bf16 values, scaled in the epilogue; three for per-group
// scaled weights and NF4), wgmma m64n128k16 per pair of parts on the same
// accumulators: the products are exact (up to the pairs left out, below
// 2^-24 of the product), so the f32 sums differ from the CPU's in the order
// of the additions (the Bounds promise).
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

namespace {

/// The wgmma operand type of a scheme's codes.
NVVM::WGMMATypes wgmmaType(SchemeAttr scheme) {
  switch (scheme.getFormat()) {
  case StorageFormat::u8:
    return NVVM::WGMMATypes::u8;
  case StorageFormat::f8E4M3FN:
    return NVVM::WGMMATypes::e4m3;
  case StorageFormat::f8E5M2:
    return NVVM::WGMMATypes::e5m2;
  default:
    return NVVM::WGMMATypes::s8;
  }
}

/// The sm_90 shared-memory matrix descriptor of a K-major tile whose rows
/// are 128 bytes, swizzled with the 128-byte pattern: start address >> 4
/// (bits 0-13), leading byte offset 16 (unused for swizzled K-major,
/// bits 16-29), stride byte offset 1024 = 8 rows (bits 32-45), base offset
/// 0 (tiles are 1024-byte aligned), layout 1 = SWIZZLE_128B (bits 62-63).
Value matrixDescriptor(KernelBuilder &kb, Value sharedAddr32) {
  Value addr = kb.zext(sharedAddr32, kb.i64);
  Value start = kb.shrU(kb.andI(addr, kb.c64(0x3FFFF)), kb.c64(4));
  uint64_t fixed = (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) |
                   (uint64_t(1) << 62);
  return kb.orI(start, kb.c64(static_cast<int64_t>(fixed)));
}

/// A thread's place in the wgmma kernels: its warpgroup `wg`, warp `w4`
/// within it, lane `g` = lane / 4 and `t` = lane % 4, and the block tile's
/// first row `bm` and column `bn` (tiles of 128 x tileN).
struct WgmmaThread {
  Value tid, wg, w4, g, t, bm, bn;
  WgmmaThread(KernelBuilder &kb, int64_t tileN) {
    tid = kb.tid();
    wg = kb.divU(tid, kb.c32(128));
    w4 = kb.divU(kb.remU(tid, kb.c32(128)), kb.c32(32));
    Value lane = kb.remU(tid, kb.c32(32));
    g = kb.divU(lane, kb.c32(4));
    t = kb.remU(lane, kb.c32(4));
    bm = kb.mul(kb.wide(kb.bidY()), kb.c64(128));
    bn = kb.mul(kb.wide(kb.bidX()), kb.c64(tileN));
  }
};

/// Runs the shared epilogue on a warpgroup's m64nN accumulators `acc`:
/// value 4j + r is row 16 * warp + g (+8 for r >= 2), column 8j + 2t + r %
/// 2 of the warpgroup's 64 x N tile.
void storeAccumulators(KernelBuilder &kb, const MatmulConfig &c,
                       const Params &p, const WgmmaThread &th, Value acc,
                       int64_t tileN, bool zpInAcc) {
  Value rowBase = kb.add(kb.mul(th.wg, kb.c32(64)), kb.mul(th.w4, kb.c32(16)));
  for (int64_t j = 0; j < tileN / 8; ++j)
    for (int64_t r = 0; r < 4; ++r) {
      Value m = kb.add(
          th.bm, kb.wide(kb.add(kb.add(rowBase, th.g), kb.c32((r / 2) * 8))));
      Value n = kb.add(th.bn, kb.wide(kb.add(kb.mul(th.t, kb.c32(2)),
                                             kb.c32(j * 8 + r % 2))));
      kb.ifThen(kb.andB(kb.ult(m, p.M), kb.ult(n, p.N)), [&] {
        Value v = LLVM::ExtractValueOp::create(kb.b, kb.loc, acc, j * 4 + r);
        emitEpilogue(kb, c, p, v, m, n, Value(), zpInAcc);
      });
    }
}

/// The bf16 parts an activation of type `t` splits into exactly.
int64_t bf16Parts(Type t) { return t.isF32() ? 3 : t.isF16() ? 2 : 1; }

/// The bf16 parts of a weight of the weight-only product `c`: 1 where the
/// decoded code is a bf16 value and the scale goes to the epilogue (8-bit
/// codes, 4-bit codes minus their zero point, FP8, E2M1); 2 for 8-bit codes
/// minus a zero point (9 significant bits); 3 for the f32 product of the
/// decoded value and its group's scale (per-group scales) and for NF4's
/// f32 codebook values.
int64_t weightParts(const MatmulConfig &c) {
  if (c.grouped() || c.rhsScheme.isNf4())
    return 3;
  return c.rhsZp && c.rhsScheme.getStorageBits() == 8 ? 2 : 1;
}

/// Splits `x` into its first bf16 part, returned as f32 bits (the low 16
/// bits clear), and leaves the rest in `x`: truncation keeps the sign, so
/// x - hi is exact in f32 and has 8 fewer significant bits; a NaN's first
/// part is the quiet NaN, an infinity's rest is 0.
Value splitBf16(KernelBuilder &kb, Value &x) {
  Value bits = kb.bitcast(x, kb.i32);
  Value nan =
      arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::UNO, x, x);
  Value hi =
      kb.select(nan, kb.c32(0x7FC00000),
                kb.andI(bits, kb.c32(static_cast<int32_t>(0xFFFF0000u))));
  Value finite = kb.ne(kb.andI(hi, kb.c32(0x7F800000)), kb.c32(0x7F800000));
  x = kb.select(finite, kb.subF(x, kb.bitcast(hi, kb.f32)), kb.cF32(0.0f));
  return hi;
}

/// The weight-only body (buildWgmmaBody with a float lhs): 128 x 128 block
/// tiles, K tiles of 64 values (128-byte rows of bf16), two stages that the
/// threads fill themselves (loads, conversion, st.shared) while the wgmma
/// group of the other stage runs.
void buildWgmmaWeightOnlyBody(KernelBuilder &kb, const MatmulConfig &c,
                              const Params &p) {
  constexpr int64_t kThreads = 256, kBM = 128, kBN = 128, kBK = 64, kStages = 2,
                    kTile = 128 * 128;
  const int64_t parts = bf16Parts(c.lhsElem), wParts = weightParts(c);
  const int64_t stageBytes = (parts + wParts) * kTile;
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  auto v2 = VectorType::get({2}, kb.i32);

  const WgmmaThread th(kb, kBN);
  Value tid = th.tid, wg = th.wg, bm = th.bm, bn = th.bn;
  Value smem = kb.sharedBase();
  auto stageBase = [&](Value s) {
    return kb.gepBytes(smem, kb.mul(s, kb.c32(stageBytes)));
  };

  // A: 4 activations of row r, k0 + 4q .. per step (128 x 16 steps), split
  // into bf16 parts (splitBf16); part j's 8 bytes go to row r, bytes 8q..
  // of tile j (swizzled).
  auto stageA = [&](Value base, Value k0) {
    for (int64_t j = 0; j < kBM * (kBK / 4) / kThreads; ++j) {
      Value u = kb.add(tid, kb.c32(j * kThreads));
      Value r = kb.divU(u, kb.c32(kBK / 4)), q = kb.remU(u, kb.c32(kBK / 4));
      Value m = kb.add(bm, kb.wide(r));
      Value k = kb.add(k0, kb.wide(kb.mul(q, kb.c32(4))));
      SmallVector<Value> x;
      for (int64_t i = 0; i < 4; ++i) {
        Value ki = kb.add(k, kb.c64(i));
        Value ok = kb.andB(kb.ult(m, p.M), kb.ult(ki, p.K));
        x.push_back(kb.ifElse(
            ok, {kb.f32},
            [&] {
              return SmallVector<Value>{kb.toF32(loadTensorElem(
                  kb, p.a, c.lhsElem, kb.add(kb.mul(m, p.K), ki)))};
            },
            [&] { return SmallVector<Value>{kb.cF32(0.0f)}; })[0]);
      }
      Value at = kb.add(swizzled128(kb, r, kb.divU(q, kb.c32(2))),
                        kb.mul(kb.remU(q, kb.c32(2)), kb.c32(8)));
      for (int64_t part = 0; part < parts; ++part) {
        SmallVector<Value> hi;
        for (Value &xi : x)
          hi.push_back(splitBf16(kb, xi));
        Value v = LLVM::UndefOp::create(b, loc, v2);
        for (int64_t w = 0; w < 2; ++w)
          v = LLVM::InsertElementOp::create(
              b, loc, v, kb.orI(kb.shrU(hi[2 * w], kb.c32(16)), hi[2 * w + 1]),
              kb.c32(w));
        kb.store(v, kb.gepBytes(base, kb.add(kb.c32(part * kTile), at)), 8);
      }
    }
  };
  // B: the 16 weights of row k0 + kr, columns 16 ch.. per step (64 x 8
  // steps), decoded and, with per-group scales, scaled as the gemv does
  // (loadRhsChunk), split into
  // weightParts bf16 parts (splitBf16; one part is the f32's top half,
  // exact) into rows 16 ch + i, bytes 2 kr of B tile j.
  // (A loop, not unrolled: the 16 weights of a step, in up to three
  // parts, already take many registers.)
  auto stageB = [&](Value base, Value k0) {
    kb.forLoop(
        kb.c64(0), kb.c64(kBK * (kBN / 16) / kThreads), kb.c64(1), {},
        [&](Value j, ValueRange) {
          Value u = kb.add(tid, kb.mul(kb.trunc(j, kb.i32), kb.c32(kThreads)));
          Value kr = kb.divU(u, kb.c32(kBN / 16)),
                ch = kb.remU(u, kb.c32(kBN / 16));
          Value k = kb.add(k0, kb.wide(kr));
          Value n0 = kb.add(bn, kb.wide(kb.mul(ch, kb.c32(16))));
          SmallVector<Value> w = loadRhsChunk(kb, c, p, k, n0, kb.ult(k, p.K));
          Value byte = kb.mul(kb.remU(kr, kb.c32(8)), kb.c32(2));
          for (int64_t i = 0; i < 16; ++i) {
            Value row = kb.add(kb.mul(ch, kb.c32(16)), kb.c32(i));
            Value at =
                kb.add(swizzled128(kb, row, kb.divU(kr, kb.c32(8))), byte);
            for (int64_t part = 0; part < wParts; ++part) {
              Value hi = splitBf16(kb, w[i]);
              Value half = kb.trunc(kb.shrU(hi, kb.c32(16)), kb.b.getI16Type());
              kb.store(
                  half,
                  kb.gepBytes(base, kb.add(kb.c32((parts + part) * kTile), at)),
                  2);
            }
          }
          return SmallVector<Value>{};
        });
  };
  auto stage = [&](Value s, Value k0) {
    stageA(stageBase(s), k0);
    stageB(stageBase(s), k0);
  };

  int64_t numAcc = kBN / 2;
  auto structTy = LLVM::LLVMStructType::getLiteral(
      kb.ctx, SmallVector<Type>(numAcc, kb.f32));
  Value accInit = LLVM::UndefOp::create(b, loc, structTy);
  for (int64_t i = 0; i < numAcc; ++i)
    accInit = LLVM::InsertValueOp::create(b, loc, accInit, kb.cF32(0.0f), i);
  Value kTiles = kb.ceilDiv(p.K, kb.c64(kBK));
  auto bf16 = NVVM::WGMMATypesAttr::get(kb.ctx, NVVM::WGMMATypes::bf16);

  stage(kb.c32(0), kb.c64(0));
  SmallVector<Value> result = kb.forLoop(
      kb.c64(0), kTiles, kb.c64(1), {accInit}, [&](Value kt, ValueRange it) {
        // The stage's st.shared (generic proxy) before wgmma reads it
        // (async proxy).
        NVVM::FenceProxyOp::create(
            b, loc,
            NVVM::ProxyKindAttr::get(kb.ctx, NVVM::ProxyKind::async_shared),
            NVVM::SharedSpaceAttr::get(kb.ctx, NVVM::SharedSpace::shared_cta));
        kb.barrier();
        Value base = stageBase(kb.trunc(kb.remU(kt, kb.c64(kStages)), kb.i32));
        Value aAddr =
            kb.add(kb.sharedAddress(base), kb.mul(wg, kb.c32(64 * 128)));
        Value bAddr = kb.add(kb.sharedAddress(base), kb.c32(parts * kTile));
        // Part pairs (i, j) with i + j <= 2: the products of the parts
        // left out are below 2^-24 of the product (at most three of
        // them: 2^-24 + 2^-24 + 2^-32).
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
        Value acc = it[0];
        for (int64_t kk = 0; kk < kBK / 16; ++kk) {
          for (int64_t wp = 0; wp < wParts; ++wp)
            for (int64_t part = 0; part + wp <= 2 && part < parts; ++part) {
              Value db = matrixDescriptor(
                  kb, kb.add(bAddr, kb.c32(wp * kTile + kk * 32)));
              Value da = matrixDescriptor(
                  kb, kb.add(aAddr, kb.c32(part * kTile + kk * 32)));
              acc = NVVM::WgmmaMmaAsyncOp::create(
                  b, loc, structTy, acc, da, db,
                  NVVM::MMAShapeAttr::get(kb.ctx, 64, kBN, 16), bf16, bf16,
                  NVVM::WGMMATypesAttr::get(kb.ctx, NVVM::WGMMATypes::f32),
                  NVVM::WGMMAScaleOutAttr::get(kb.ctx,
                                               NVVM::WGMMAScaleOut::one),
                  NVVM::WGMMAScaleInAttr::get(kb.ctx, NVVM::WGMMAScaleIn::one),
                  NVVM::WGMMAScaleInAttr::get(kb.ctx, NVVM::WGMMAScaleIn::one),
                  NVVM::MMALayoutAttr::get(kb.ctx, NVVM::MMALayout::row),
                  NVVM::MMALayoutAttr::get(kb.ctx, NVVM::MMALayout::col),
                  NVVM::MMAIntOverflowAttr());
            }
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        // The other stage's group (the previous tile) is done in this
        // warpgroup; the barrier makes it so in both before it is refilled.
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
        kb.barrier();
        Value next = kb.add(kt, kb.c64(1));
        kb.ifThen(kb.ult(next, kTiles), [&] {
          stage(kb.trunc(kb.remU(next, kb.c64(kStages)), kb.i32),
                kb.mul(next, kb.c64(kBK)));
        });
        return SmallVector<Value>{acc};
      });
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  storeAccumulators(kb, c, p, th, result[0], kBN, /*zpInAcc=*/true);
}

} // namespace

bool cuda::wgmmaTakesWeightOnly(const MatmulConfig &c) {
  if (!c.floatLhs() || c.batched || c.rhsBatched || (c.rhsZp && c.grouped()) ||
      !(c.lhsElem.isF32() || c.lhsElem.isF16() || c.lhsElem.isBF16()))
    return false;
  switch (c.rhsScheme.getFormat()) {
  case StorageFormat::i8:
  case StorageFormat::u8:
  case StorageFormat::i4:
  case StorageFormat::u4:
  case StorageFormat::f8E4M3FN:
  case StorageFormat::f8E5M2:
  case StorageFormat::f4E2M1FN:
  case StorageFormat::nf4:
    return true;
  }
  return false;
}

int64_t cuda::wgmmaWeightOnlySharedBytes(const MatmulConfig &c) {
  return 2 * (bf16Parts(c.lhsElem) + weightParts(c)) * 128 * 128;
}

void cuda::buildWgmmaBody(KernelBuilder &kb, const MatmulConfig &c,
                          const Params &p) {
  if (c.floatLhs())
    return buildWgmmaWeightOnlyBody(kb, c, p);
  constexpr int64_t kThreads = 256, kBM = 128, kBK = 128;
  const int64_t kBN = c.tileN, kStages = c.stages;
  const int64_t tileA = kBM * kBK, tileB = kBN * kBK;
  const int64_t stageBytes = tileA + tileB;
  OpBuilder &b = kb.b;
  Location loc = kb.loc;

  const WgmmaThread th(kb, kBN);
  Value tid = th.tid, wg = th.wg, bm = th.bm, bn = th.bn;
  Value kAligned = kb.eq(kb.remU(p.K, kb.c64(16)), kb.c64(0));
  Value smem = kb.sharedBase();
  auto stageBase = [&](Value s) {
    return kb.gepBytes(smem, kb.mul(s, kb.c32(stageBytes)));
  };
  auto stage = [&](Value s, Value k0) {
    stageSwizzled128(kb, p, stageBase(s), bm, bn, k0, kAligned, tid, kThreads,
                     kBM, kBN);
  };

  for (int64_t s = 0; s < kStages - 2; ++s) {
    stage(kb.c32(s), kb.c64(s * kBK));
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  Value kTiles = kb.ceilDiv(p.K, kb.c64(kBK));
  Type accT = c.intAcc() ? Type(kb.i32) : Type(kb.f32);
  int64_t numAcc = kBN / 2; // m64nN: 64 * N / 128 threads
  auto structTy =
      LLVM::LLVMStructType::getLiteral(kb.ctx, SmallVector<Type>(numAcc, accT));
  Value accInit = LLVM::UndefOp::create(b, loc, structTy);
  Value zero = c.intAcc() ? kb.c32(0) : kb.cF32(0.0f);
  for (int64_t i = 0; i < numAcc; ++i)
    accInit = LLVM::InsertValueOp::create(b, loc, accInit, zero, i);

  auto typeD = c.intAcc() ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32;
  SmallVector<Value> result = kb.forLoop(
      kb.c64(0), kTiles, kb.c64(1), {accInit}, [&](Value kt, ValueRange it) {
        NVVM::CpAsyncWaitGroupOp::create(b, loc,
                                         b.getI32IntegerAttr(kStages - 3));
        // cp.async wrote through the generic proxy; wgmma reads through
        // the async proxy.
        NVVM::FenceProxyOp::create(
            b, loc,
            NVVM::ProxyKindAttr::get(kb.ctx, NVVM::ProxyKind::async_shared),
            NVVM::SharedSpaceAttr::get(kb.ctx, NVVM::SharedSpace::shared_cta));
        kb.barrier();
        Value next = kb.add(kt, kb.c64(kStages - 2));
        stage(kb.trunc(kb.remU(next, kb.c64(kStages)), kb.i32),
              kb.mul(next, kb.c64(kBK)));
        NVVM::CpAsyncCommitGroupOp::create(b, loc);

        Value base = stageBase(kb.trunc(kb.remU(kt, kb.c64(kStages)), kb.i32));
        Value aAddr = kb.add(kb.sharedAddress(base),
                             kb.mul(wg, kb.c32(64 * kBK)));
        Value bAddr = kb.add(kb.sharedAddress(base), kb.c32(tileA));
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
        Value acc = it[0];
        for (int64_t kk = 0; kk < kBK / 32; ++kk) {
          Value da = matrixDescriptor(kb, kb.add(aAddr, kb.c32(kk * 32)));
          Value db = matrixDescriptor(kb, kb.add(bAddr, kb.c32(kk * 32)));
          acc = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, structTy, acc, da, db,
              NVVM::MMAShapeAttr::get(kb.ctx, 64, kBN, 32),
              NVVM::WGMMATypesAttr::get(kb.ctx, wgmmaType(*c.lhsScheme)),
              NVVM::WGMMATypesAttr::get(kb.ctx, wgmmaType(c.rhsScheme)),
              NVVM::WGMMATypesAttr::get(kb.ctx, typeD),
              NVVM::WGMMAScaleOutAttr::get(kb.ctx, NVVM::WGMMAScaleOut::one),
              NVVM::WGMMAScaleInAttr::get(kb.ctx, NVVM::WGMMAScaleIn::one),
              NVVM::WGMMAScaleInAttr::get(kb.ctx, NVVM::WGMMAScaleIn::one),
              NVVM::MMALayoutAttr::get(kb.ctx, NVVM::MMALayout::row),
              NVVM::MMALayoutAttr::get(kb.ctx, NVVM::MMALayout::col),
              c.intAcc() ? NVVM::MMAIntOverflowAttr::get(
                               kb.ctx, NVVM::MMAIntOverflow::wrapped)
                         : NVVM::MMAIntOverflowAttr());
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
        return SmallVector<Value>{acc};
      });
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));

  storeAccumulators(kb, c, p, th, result[0], kBN, /*zpInAcc=*/false);
}
