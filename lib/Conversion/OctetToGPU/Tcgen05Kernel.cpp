//===- Tcgen05Kernel.cpp - The tcgen05 kernel for octet.matmul ------------===//
//
// The tcgen05 matmul kernel (sm_100a, Blackwell's fifth-generation tensor
// cores): 128 x 128 block tiles, one tcgen05.mma.cta_group::1 (M = 128,
// N = 128, K = 32 bytes) per 32 bytes of K issued by one thread, the
// accumulators in tensor memory (128 lanes x 128 columns of 32 bits,
// allocated by warp 0), both operands read from 128-byte-swizzled shared
// memory through sm_100 matrix descriptors. s8/u8 (kind::i8, wrapping s32)
// and e4m3/e5m2 (kind::f8f6f4, f32); MXFP8 (e4m3/e5m2 with E8M0 scales per
// block of 32 along K on both operands) through
// kind::mxf8f6f4.block_scale, the scales written into tensor memory by
// tcgen05.st for each K tile. A and B^T (both K-contiguous) are
// staged with cp.async into two stages; tcgen05.commit arrives on an
// mbarrier when a K tile's MMAs are done, which frees its stage. Then each
// warp reads its 32 rows out of tensor memory (tcgen05.ld 32x32b) into the
// shared epilogue. Integer results match the CPU bit for bit; FP8 sums
// differ from it only in the order of the additions.
//
// Not yet: TMA, warp specialization, more stages, 2-CTA tiles, and the FP4
// block-scaled kinds (packed E2M1 shared-memory layouts): see docs/cuda.md.
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

namespace {

constexpr int64_t kThreads = 128, kBM = 128, kBN = 128, kBK = 128, kStages = 2;
constexpr int64_t kTile = kBM * kBK, kStageBytes = 2 * kTile;
/// The mbarrier (8 bytes) and the tensor-memory address written by
/// tcgen05.alloc (4 bytes) after the stages.
constexpr int64_t kMbarOffset = kStages * kStageBytes,
                  kTmemSlotOffset = kMbarOffset + 8;
/// Tensor-memory columns: the accumulators at 0, MXFP8's A and B scale
/// factors after them (4 columns each: 32-row groups of the 128 rows). An
/// allocation is a power of two of at least 32 columns: 128 without scale
/// factors, 256 with them (two blocks can then share a multiprocessor's
/// 512 columns; the 64 KiB of shared memory allow three).
constexpr int64_t kSfaColumn = kBN, kSfbColumn = kBN + kBM / 32;

/// The operand format code of the instruction descriptor (CUTLASS's
/// UMMA::InstrDescriptor): kind::i8 0 = u8, 1 = s8; kind::f8f6f4 0 = E4M3,
/// 1 = E5M2.
uint32_t formatCode(SchemeAttr scheme) {
  switch (scheme.getFormat()) {
  case StorageFormat::u8:
  case StorageFormat::f8E4M3FN:
    return 0;
  default: // i8, f8E5M2
    return 1;
  }
}

/// The sm_100 shared-memory matrix descriptor of a K-major tile whose rows
/// are 128 bytes, swizzled with the 128-byte pattern: start address >> 4
/// (bits 0-13), leading byte offset 16 (unused for swizzled K-major, bits
/// 16-29), stride byte offset 1024 = 8 rows (bits 32-45), version 1 (bits
/// 46-47, required from sm_100 on), base offset 0 (stages are 1024-byte
/// aligned), layout 2 = SWIZZLE_128B (bits 61-63).
Value smemDescriptor(KernelBuilder &kb, Value sharedAddr32) {
  Value addr = kb.zext(sharedAddr32, kb.i64);
  Value start = kb.shrU(kb.andI(addr, kb.c64(0x3FFFF)), kb.c64(4));
  uint64_t fixed = (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) |
                   (uint64_t(1) << 46) | (uint64_t(2) << 61);
  return kb.orI(start, kb.c64(static_cast<int64_t>(fixed)));
}

} // namespace

/// The instruction descriptor of the kernel's tcgen05.mma (M = N = 128,
/// both operands K-major, dense, no negation): D format (bits 4-5: 1 =
/// f32, 2 = s32), A and B formats (bits 7-9, 10-12), N >> 3 (bits 17-22),
/// M >> 4 (bits 24-28).
///
/// With block scales (MXFP8, kind::mxf8f6f4.block_scale: CUTLASS's
/// UMMA::InstrDescriptorBlockScaled) the D format bits give way to B's
/// scale-factor id (bits 4-5: the byte of B's scale words), bit 23 is the
/// scale format (1 = UE8M0) and bits 29-30 A's scale-factor id: MMA kk of a
/// K tile reads byte kk of the scale words (`sfId`).
uint32_t cuda::tcgen05InstrDescriptor(const MatmulConfig &c, int sfId) {
  uint32_t d = 0;
  if (c.blockScaleKind() == MatmulConfig::BlockScaleKind::mxf8f6f4)
    d |= (uint32_t(sfId) << 4) | (1u << 23) | (uint32_t(sfId) << 29);
  else
    d |= (c.intAcc() ? 2u : 1u) << 4;
  d |= formatCode(*c.lhsScheme) << 7;
  d |= formatCode(c.rhsScheme) << 10;
  d |= uint32_t(kBN >> 3) << 17;
  d |= uint32_t(kBM >> 4) << 24;
  return d;
}

int64_t cuda::tcgen05SharedBytes() { return kTmemSlotOffset + 8; }

void cuda::buildTcgen05Body(KernelBuilder &kb, const MatmulConfig &c,
                            const Params &p) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  MLIRContext *ctx = kb.ctx;
  auto tptr = LLVM::LLVMPointerType::get(ctx, /*tensor memory=*/6);
  auto group = NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_1);

  Value tid = kb.tid();
  Value warp = kb.divU(tid, kb.c32(32));
  Value lane = kb.remU(tid, kb.c32(32));
  Value bm = kb.mul(kb.wide(kb.bidY()), kb.c64(kBM));
  Value bn = kb.mul(kb.wide(kb.bidX()), kb.c64(kBN));
  Value kAligned = kb.eq(kb.remU(p.K, kb.c64(16)), kb.c64(0));
  Value smem = kb.sharedBase();
  Value mbar = kb.gepBytes(smem, kb.c32(kMbarOffset));
  Value slot = kb.gepBytes(smem, kb.c32(kTmemSlotOffset));
  Value isWarp0 = kb.eq(warp, kb.c32(0));
  Value isThread0 = kb.eq(tid, kb.c32(0));

  auto stageBase = [&](Value s) {
    return kb.gepBytes(smem, kb.mul(s, kb.c32(kStageBytes)));
  };
  auto stage = [&](Value s, Value k0) {
    stageSwizzled128(kb, p, stageBase(s), bm, bn, k0, kAligned, tid, kThreads,
                     kBM, kBN);
  };

  // Tensor memory for the 128 x 128 accumulators (warp 0 allocates; the
  // address lands in shared memory), the mbarrier the MMAs complete on.
  const bool mx = c.blockScaleKind() == MatmulConfig::BlockScaleKind::mxf8f6f4;
  const int64_t tmemColumns = mx ? 2 * kBN : kBN;
  kb.ifThen(isWarp0, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, slot, kb.c32(tmemColumns), group);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, group);
  });
  kb.ifThen(isThread0, [&] {
    NVVM::MBarrierInitOp::create(b, loc, mbar, kb.c32(1), Value());
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  kb.barrier();
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value taddr = kb.load(kb.i32, slot, 4);
  auto tmem = [&](Value addr32) {
    return LLVM::IntToPtrOp::create(b, loc, tptr, addr32);
  };

  stage(kb.c32(0), kb.c64(0));
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  Value kTiles = kb.ceilDiv(p.K, kb.c64(kBK));
  Value idesc = kb.c32(static_cast<int32_t>(tcgen05InstrDescriptor(c)));
  auto kind = NVVM::Tcgen05MMAKindAttr::get(
      ctx,
      c.intAcc() ? NVVM::Tcgen05MMAKind::I8 : NVVM::Tcgen05MMAKind::F8F6F4);

  // MXFP8: the E8M0 codes of this K tile's 4 blocks of 32, byte j for block
  // 4 kt + j (MMA j reads byte j: its scale-factor id). Scale factor row r
  // of A (column r of B) lives in tensor-memory lane r % 32, column
  // base + r / 32, duplicated to all four 32-lane partitions (PTX ISA,
  // tcgen05 "Layout of the Scale Factor A Matrix"): warp w writes the four
  // columns of its partition, thread `lane` the rows lane, 32 + lane, ....
  // The code of 1.0 outside the matrix (its codes are zero there).
  auto writeScales = [&](Value kt) {
    Value groups = kb.divU(p.K, kb.c64(32));
    auto words = [&](Value base, Value origin, Value limit, bool isA) {
      SmallVector<Value> out;
      for (int64_t j = 0; j < 4; ++j) {
        Value r = kb.add(origin, kb.wide(kb.add(lane, kb.c32(32 * j))));
        Value word = kb.c32(0);
        for (int64_t blk = 0; blk < 4; ++blk) {
          Value gi = kb.add(kb.mul(kt, kb.c64(4)), kb.c64(blk));
          Value ok = kb.andB(kb.ult(gi, groups), kb.ult(r, limit));
          Value index =
              isA ? kb.add(kb.mul(r, groups), gi) : kb.add(kb.mul(gi, p.N), r);
          Value v = kb.loadElem(base, kb.f32, kb.select(ok, index, kb.c64(0)));
          Value code = kb.select(ok, e8m0ScaleCode(kb, v), kb.c32(0x7F));
          word = kb.orI(word, kb.shl(code, kb.c32(8 * blk)));
        }
        out.push_back(word);
      }
      return out;
    };
    auto vec = [&](ArrayRef<Value> w) {
      Value v = LLVM::UndefOp::create(b, loc, VectorType::get({4}, kb.i32));
      for (auto [i, x] : llvm::enumerate(w))
        v = LLVM::InsertElementOp::create(b, loc, v, x,
                                          kb.c32(static_cast<int64_t>(i)));
      return v;
    };
    Value partition = kb.shl(kb.mul(warp, kb.c32(32)), kb.c32(16));
    auto shape = NVVM::Tcgen05LdStShapeAttr::get(
        ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
    NVVM::Tcgen05StOp::create(
        b, loc, UnitAttr(), shape,
        tmem(kb.add(kb.add(taddr, partition), kb.c32(kSfaColumn))),
        vec(words(p.sa, bm, p.M, /*isA=*/true)), Value());
    NVVM::Tcgen05StOp::create(
        b, loc, UnitAttr(), shape,
        tmem(kb.add(kb.add(taddr, partition), kb.c32(kSfbColumn))),
        vec(words(p.sb, bn, p.N, /*isA=*/false)), Value());
    NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::STORE);
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  };

  kb.forLoop(kb.c64(0), kTiles, kb.c64(1), {}, [&](Value kt, ValueRange) {
    if (mx)
      writeScales(kt);
    // This tile's copies are in (the other stage's MMAs finished at the
    // end of the previous iteration); cp.async wrote through the generic
    // proxy, tcgen05.mma reads through the async one.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    kb.barrier();
    Value s = kb.trunc(kb.remU(kt, kb.c64(kStages)), kb.i32);
    kb.ifThen(isThread0, [&] {
      NVVM::Tcgen05FenceOp::create(b, loc,
                                   NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      Value aAddr = kb.sharedAddress(stageBase(s));
      Value bAddr = kb.add(aAddr, kb.c32(kTile));
      for (int64_t kk = 0; kk < kBK / 32; ++kk) {
        Value accumulate = kk == 0 ? kb.ne(kt, kb.c64(0)) : kb.cBool(true);
        Value aDesc = smemDescriptor(kb, kb.add(aAddr, kb.c32(kk * 32)));
        Value bDesc = smemDescriptor(kb, kb.add(bAddr, kb.c32(kk * 32)));
        if (mx) {
          NVVM::Tcgen05MMABlockScaleOp::create(
              b, loc, NVVM::MMABlockScaleKind::MXF8F6F4, group.getValue(),
              NVVM::Tcgen05MMABlockScale::DEFAULT,
              NVVM::Tcgen05MMACollectorOp::DISCARD, tmem(taddr), aDesc, bDesc,
              kb.c32(static_cast<int32_t>(
                  tcgen05InstrDescriptor(c, static_cast<int>(kk)))),
              accumulate, tmem(kb.add(taddr, kb.c32(kSfaColumn))),
              tmem(kb.add(taddr, kb.c32(kSfbColumn))));
          continue;
        }
        NVVM::Tcgen05MMAOp::create(
            b, loc, kind, group,
            NVVM::Tcgen05MMACollectorOpAttr::get(
                ctx, NVVM::Tcgen05MMACollectorOp::DISCARD),
            UnitAttr(), tmem(taddr), aDesc, bDesc, idesc, accumulate, Value(),
            Value());
      }
      // Arrives on the mbarrier when these MMAs are complete.
      NVVM::Tcgen05CommitOp::create(b, loc, mbar, Value(), group);
    });
    // The next tile into the other stage (its MMAs are done), overlapping
    // this tile's MMAs.
    Value next = kb.add(kt, kb.c64(1));
    kb.ifThen(kb.ult(next, kTiles), [&] {
      stage(kb.trunc(kb.remU(next, kb.c64(kStages)), kb.i32),
            kb.mul(next, kb.c64(kBK)));
    });
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    // Every thread waits for this tile's MMAs (phase kt of the mbarrier).
    // The barrier first orders the commit before the waits for the CUDA
    // emulator, which completes the MMAs when they are issued.
    kb.barrier();
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, mbar, kb.trunc(kb.remU(kt, kb.c64(2)), kb.i32),
        kb.c32(10000000));
    return SmallVector<Value>{};
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);

  // Warp w reads tensor-memory lanes 32w..32w+31 (D's rows), 16 columns a
  // time: thread `lane` gets row 32w + lane, columns j..j+15.
  Value rowInTile = kb.add(kb.mul(warp, kb.c32(32)), lane);
  Value m = kb.add(bm, kb.wide(rowInTile));
  Value laneBase = kb.shl(kb.mul(warp, kb.c32(32)), kb.c32(16));
  auto vecTy = VectorType::get({16}, kb.i32);
  for (int64_t j = 0; j < kBN; j += 16) {
    Value addr = kb.add(kb.add(taddr, laneBase), kb.c32(j));
    Value v = NVVM::Tcgen05LdOp::create(
        b, loc, vecTy, UnitAttr(),
        NVVM::Tcgen05LdStShapeAttr::get(ctx,
                                        NVVM::Tcgen05LdStShape::SHAPE_32X32B),
        tmem(addr), Value());
    NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
    for (int64_t i = 0; i < 16; ++i) {
      Value n = kb.add(bn, kb.c64(j + i));
      kb.ifThen(kb.andB(kb.ult(m, p.M), kb.ult(n, p.N)), [&] {
        Value acc = LLVM::ExtractElementOp::create(b, loc, v, kb.c32(i));
        if (!c.intAcc())
          acc = kb.bitcast(acc, kb.f32);
        emitEpilogue(kb, c, p, acc, m, n, Value(), /*zpInAcc=*/false);
      });
    }
  }
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  kb.barrier();
  kb.ifThen(isWarp0, [&] {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, tmem(taddr), kb.c32(tmemColumns),
                                   group);
  });
}
