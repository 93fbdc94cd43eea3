//===- Tcgen05Kernel.cpp - The tcgen05 kernel for octet.matmul ------------===//
//
// The tcgen05 matmul kernel (sm_100a, Blackwell's fifth-generation tensor
// cores): 128 x 128 block tiles, one tcgen05.mma.cta_group::1 (M = 128,
// N = 128, K = 32 bytes) per 32 bytes of K issued by one thread, the
// accumulators in tensor memory (128 lanes x 128 columns of 32 bits,
// allocated by warp 0), both operands read from 128-byte-swizzled shared
// memory through sm_100 matrix descriptors. s8/u8 (kind::i8, wrapping s32)
// and e4m3/e5m2 (kind::f8f6f4, f32). Block scales on both operands, the
// scales written into tensor memory by tcgen05.st for each K tile:
// MXFP8 (e4m3/e5m2 with E8M0 scales per block of 32 along K) through
// kind::mxf8f6f4.block_scale; MXFP4 (E2M1, E8M0 per 32) through
// kind::mxf4.block_scale (two scales per MMA) and NVFP4 (E2M1, E4M3 per 16
// times a global scale) through kind::mxf4nvf4.block_scale.block16 (four
// scales per MMA), both with the E2M1 codes packed two per byte in shared
// memory (K = 64 codes per MMA). A and B^T (both K-contiguous) are staged
// into two stages, 8-bit codes with cp.async, E2M1 codes (one per byte in
// global memory) loaded and packed by the threads; tcgen05.commit arrives
// on an mbarrier when a K tile's MMAs are done, which frees its stage.
// Then each warp reads its 32 rows out of tensor memory (tcgen05.ld
// 32x32b) into the shared epilogue. Integer results match the CPU bit for
// bit; float sums differ from it only in the order of the additions.
//
// MXFP8 x MXFP4 (either side E2M1) runs on kind::mxf8f6f4 with the E2M1
// codes padded: 16 codes packed into 8 bytes, then 8 zero bytes.
//
// Not yet: TMA, warp specialization, more stages, 2-CTA tiles: see
// docs/cuda.md.
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
/// Tensor-memory columns: the accumulators at 0, the block-scaled kinds'
/// A and B scale factors after them (ScaleGeometry::words() groups of 4
/// columns each: 32-row groups of the 128 rows). An allocation is a power
/// of two of at least 32 columns: 128 without scale factors, 256 with them
/// (two blocks can then share a multiprocessor's 512 columns; the 64 KiB of
/// shared memory allow three).
constexpr int64_t kSfaColumn = kBN;

/// How one K tile (128 bytes of each row in shared memory) of a
/// block-scaled kind is cut: its codes (128 FP8 codes, or 256 E2M1 codes
/// packed two per byte), the codes of one scale block, and the blocks one
/// MMA (32 bytes) covers: 1 (kind::mxf8f6f4, K = 32), 2 (kind::mxf4, K =
/// 64, scale_vec::2X) or 4 (kind::mxf4nvf4, K = 64, block16 = 4X).
struct ScaleGeometry {
  int64_t codes = kBK, block = 32, blocksPerMma = 1;
  /// The 32-bit tensor-memory words of scale codes per row and K tile
  /// (byte j of word w: block 4w + j of the tile).
  int64_t words() const { return codes / block / 4; }
};

ScaleGeometry scaleGeometry(MatmulConfig::BlockScaleKind kind) {
  using Kind = MatmulConfig::BlockScaleKind;
  ScaleGeometry g;
  if (kind == Kind::mxf4 || kind == Kind::mxf4nvf4) {
    g.codes = 2 * kBK;
    g.block = kind == Kind::mxf4nvf4 ? 16 : 32;
    g.blocksPerMma = 64 / g.block;
  }
  return g;
}

/// Stages one K tile of E2M1 codes of `rows` rows of the K-contiguous
/// [limit x K] matrix `src` (one code per byte; rows from `row0`, codes
/// from `k0`) into 128-byte swizzled rows at `dst`, packed two per byte
/// (packE2m1: code k in the low nibble of byte k / 2). Unpadded (2 kBK
/// codes): the shared-memory form kind::mxf4 and kind::mxf4nvf4 read, 16
/// codes in 8 bytes, half of a swizzled 16-byte chunk. `padded` (kBK
/// codes): the form kind::mxf8f6f4 reads next to FP8 codes, each 16 codes
/// packed into the first 8 bytes of a 16-byte chunk and 8 zero bytes after
/// them (what TMA's CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B writes: "8 byte
/// gaps between every 8 byte chunk of packed values", cuda.h), so that a
/// row holds as many codes as an FP8 row. A thread packs 16 codes a step
/// (one 16-byte load when `kAligned`, K % 16 == 0; byte loads otherwise).
/// Zero codes outside the matrix.
void stagePackedE2m1(KernelBuilder &kb, Value dst, Value src, Value row0,
                     Value limit, Value k0, Value K, Value kAligned, Value tid,
                     int64_t rows, bool padded) {
  const int64_t kUnitsPerRow = (padded ? kBK : 2 * kBK) / 16;
  auto v4 = VectorType::get({4}, kb.i32);
  SmallVector<Type> four(4, kb.i32);
  for (int64_t j = 0; j < rows * kUnitsPerRow / kThreads; ++j) {
    Value u = kb.add(tid, kb.c32(j * kThreads));
    Value r = kb.divU(u, kb.c32(kUnitsPerRow));
    Value unit = kb.remU(u, kb.c32(kUnitsPerRow));
    Value gRow = kb.add(row0, kb.wide(r));
    Value gK = kb.add(k0, kb.wide(kb.mul(unit, kb.c32(16))));
    Value rowOk = kb.ult(gRow, limit);
    Value offset = kb.add(kb.mul(gRow, K), gK);
    SmallVector<Value> words = kb.ifElse(
        kAligned, four,
        [&] {
          Value ok = kb.andB(rowOk, kb.ult(gK, K));
          Value v = kb.load(
              v4, kb.gepBytes(src, kb.select(ok, offset, kb.c64(0))), 16,
              /*invariant=*/true);
          SmallVector<Value> out;
          for (int64_t i = 0; i < 4; ++i)
            out.push_back(kb.select(
                ok, LLVM::ExtractElementOp::create(kb.b, kb.loc, v, kb.c32(i)),
                kb.c32(0)));
          return out;
        },
        [&] {
          SmallVector<Value> out(4, kb.c32(0));
          for (int64_t i = 0; i < 16; ++i) {
            Value at = kb.add(offset, kb.c64(i));
            Value ok = kb.andB(rowOk, kb.ult(kb.add(gK, kb.c64(i)), K));
            Value byte =
                kb.load(kb.i8, kb.gepBytes(src, kb.select(ok, at, kb.c64(0))),
                        1, /*invariant=*/true);
            Value code = kb.select(ok, kb.zext(byte, kb.i32), kb.c32(0));
            out[i / 4] = kb.orI(out[i / 4], kb.shl(code, kb.c32(8 * (i % 4))));
          }
          return out;
        });
    Value lo = packE2m1(kb, words[0], words[1]),
          hi = packE2m1(kb, words[2], words[3]);
    // Padded: codes 16 unit .. of row r fill the first half of chunk unit.
    // Unpadded: bytes 8 unit.. of the row, half unit % 2 of chunk unit / 2.
    SmallVector<Value> parts = {lo, hi};
    if (padded)
      parts.append({kb.c32(0), kb.c32(0)});
    Value v = LLVM::UndefOp::create(
        kb.b, kb.loc,
        VectorType::get({static_cast<int64_t>(parts.size())}, kb.i32));
    for (auto [i, x] : llvm::enumerate(parts))
      v = LLVM::InsertElementOp::create(kb.b, kb.loc, v, x,
                                        kb.c32(static_cast<int64_t>(i)));
    Value at = padded ? swizzled128(kb, r, unit)
                      : kb.add(swizzled128(kb, r, kb.divU(unit, kb.c32(2))),
                               kb.mul(kb.remU(unit, kb.c32(2)), kb.c32(8)));
    kb.store(v, kb.gepBytes(dst, at), padded ? 16 : 8);
  }
}

/// The operand format code of the instruction descriptor (CUTLASS's
/// UMMA::InstrDescriptor, MXF8F6F4Format, MXF4Format): kind::i8 0 = u8, 1 =
/// s8; kind::f8f6f4 and kind::mxf8f6f4 0 = E4M3, 1 = E5M2, 5 = E2M1;
/// kind::mxf4 and kind::mxf4nvf4 1 = E2M1 (their only operand type).
uint32_t formatCode(SchemeAttr scheme, MatmulConfig::BlockScaleKind kind) {
  switch (scheme.getFormat()) {
  case StorageFormat::u8:
  case StorageFormat::f8E4M3FN:
    return 0;
  case StorageFormat::f4E2M1FN:
    return kind == MatmulConfig::BlockScaleKind::mxf8f6f4 ? 5 : 1;
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
/// With block scales (CUTLASS's UMMA::InstrDescriptorBlockScaled) the D
/// format bits give way to B's scale-factor id (bits 4-5: the first byte
/// of B's scale words the MMA reads), bit 23 is the scale format (1 =
/// UE8M0 for MXFP8 and MXFP4, 0 = UE4M3 for NVFP4) and bits 29-30 A's
/// scale-factor id (`sfId` for both); bit 31 (K = 64 for the FP4 kinds,
/// not 96) stays 0.
uint32_t cuda::tcgen05InstrDescriptor(const MatmulConfig &c, int sfId) {
  using Kind = MatmulConfig::BlockScaleKind;
  Kind kind = c.blockScaleKind();
  uint32_t d = 0;
  if (kind != Kind::none) {
    d |= (uint32_t(sfId) << 4) | (uint32_t(sfId) << 29);
    if (kind != Kind::mxf4nvf4)
      d |= 1u << 23;
  } else {
    d |= (c.intAcc() ? 2u : 1u) << 4;
  }
  d |= formatCode(*c.lhsScheme, kind) << 7;
  d |= formatCode(c.rhsScheme, kind) << 10;
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
  using Kind = MatmulConfig::BlockScaleKind;
  const Kind scaleKind = c.blockScaleKind();
  const bool scaled = scaleKind != Kind::none;
  const bool fp4 = scaleKind == Kind::mxf4 || scaleKind == Kind::mxf4nvf4;
  const ScaleGeometry geo = scaleGeometry(scaleKind);
  const int64_t sfbColumn = kSfaColumn + 4 * geo.words();
  // Each operand: 8-bit codes with cp.async; E2M1 codes packed, two per
  // byte for the FP4 kinds, padded next to FP8 (kind::mxf8f6f4).
  auto stageOperand = [&](Value dst, Value src, Value row0, Value limit,
                          SchemeAttr scheme, Value k0) {
    if (scheme.getFormat() == StorageFormat::f4E2M1FN) {
      stagePackedE2m1(kb, dst, src, row0, limit, k0, p.K, kAligned, tid, kBM,
                      /*padded=*/!fp4);
      return;
    }
    stageTile(kb, dst, src, row0, limit, k0, p.K, kAligned, tid, kThreads, kBM,
              kBK / 16,
              [&](Value r, Value ch) { return swizzled128(kb, r, ch); });
  };
  auto stage = [&](Value s, Value k0) {
    stageOperand(stageBase(s), p.a, bm, p.M, *c.lhsScheme, k0);
    stageOperand(kb.gepBytes(stageBase(s), kb.c32(kTile)), p.b, bn, p.N,
                 c.rhsScheme, k0);
  };

  // Tensor memory for the 128 x 128 accumulators (warp 0 allocates; the
  // address lands in shared memory), the mbarrier the MMAs complete on.
  const int64_t tmemColumns = scaled ? 2 * kBN : kBN;
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
  Value kTiles = kb.ceilDiv(p.K, kb.c64(geo.codes));
  Value idesc = kb.c32(static_cast<int32_t>(tcgen05InstrDescriptor(c)));
  auto kind = NVVM::Tcgen05MMAKindAttr::get(
      ctx,
      c.intAcc() ? NVVM::Tcgen05MMAKind::I8 : NVVM::Tcgen05MMAKind::F8F6F4);

  // Block scales: the codes of this K tile's blocks (blockScaleCode), byte
  // j of word w for block 4w + j of the tile (the MMA covering blocks i..
  // reads word i / 4 from byte i % 4 on: its scale-factor id). Word w of
  // scale factor row r of A (column r of B) lives in tensor-memory lane
  // r % 32, column base + 4w + r / 32, duplicated to all four 32-lane
  // partitions (PTX ISA, tcgen05 "Layout of the Scale Factor A Matrix"):
  // warp w writes the columns of its partition, thread `lane` the rows
  // lane, 32 + lane, ....
  auto writeScales = [&](Value kt) {
    const int64_t blocksPerTile = 4 * geo.words();
    Value groups = kb.divU(p.K, kb.c64(geo.block));
    auto words = [&](Value base, SchemeAttr scheme, Value origin, Value limit,
                     bool isA) {
      SmallVector<Value> out;
      for (int64_t w = 0; w < geo.words(); ++w)
        for (int64_t j = 0; j < 4; ++j) {
          Value r = kb.add(origin, kb.wide(kb.add(lane, kb.c32(32 * j))));
          Value word = kb.c32(0);
          for (int64_t blk = 0; blk < 4; ++blk) {
            Value gi =
                kb.add(kb.mul(kt, kb.c64(blocksPerTile)), kb.c64(4 * w + blk));
            Value ok = kb.andB(kb.ult(gi, groups), kb.ult(r, limit));
            Value index = isA ? kb.add(kb.mul(r, groups), gi)
                              : kb.add(kb.mul(gi, p.N), r);
            word =
                kb.orI(word, kb.shl(blockScaleCode(kb, base, scheme, ok, index),
                                    kb.c32(8 * blk)));
          }
          out.push_back(word);
        }
      return out;
    };
    auto vec = [&](ArrayRef<Value> w) {
      Value v = LLVM::UndefOp::create(
          b, loc, VectorType::get({static_cast<int64_t>(w.size())}, kb.i32));
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
        vec(words(p.sa, *c.lhsScheme, bm, p.M, /*isA=*/true)), Value());
    NVVM::Tcgen05StOp::create(
        b, loc, UnitAttr(), shape,
        tmem(kb.add(kb.add(taddr, partition), kb.c32(sfbColumn))),
        vec(words(p.sb, c.rhsScheme, bn, p.N, /*isA=*/false)), Value());
    NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::STORE);
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  };
  NVVM::MMABlockScaleKind scaledKind =
      scaleKind == Kind::mxf4       ? NVVM::MMABlockScaleKind::MXF4
      : scaleKind == Kind::mxf4nvf4 ? NVVM::MMABlockScaleKind::MXF4NVF4
                                    : NVVM::MMABlockScaleKind::MXF8F6F4;
  NVVM::Tcgen05MMABlockScale scaleVec =
      scaleKind == Kind::mxf4       ? NVVM::Tcgen05MMABlockScale::BLOCK32
      : scaleKind == Kind::mxf4nvf4 ? NVVM::Tcgen05MMABlockScale::BLOCK16
                                    : NVVM::Tcgen05MMABlockScale::DEFAULT;

  kb.forLoop(kb.c64(0), kTiles, kb.c64(1), {}, [&](Value kt, ValueRange) {
    if (scaled)
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
        if (scaled) {
          int64_t first = kk * geo.blocksPerMma;
          Value word = kb.c32(4 * (first / 4));
          NVVM::Tcgen05MMABlockScaleOp::create(
              b, loc, scaledKind, group.getValue(), scaleVec,
              NVVM::Tcgen05MMACollectorOp::DISCARD, tmem(taddr), aDesc, bDesc,
              kb.c32(static_cast<int32_t>(
                  tcgen05InstrDescriptor(c, static_cast<int>(first % 4)))),
              accumulate, tmem(kb.add(taddr, kb.add(kb.c32(kSfaColumn), word))),
              tmem(kb.add(taddr, kb.add(kb.c32(sfbColumn), word))));
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
            kb.mul(next, kb.c64(geo.codes)));
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
        // NVFP4: the MMA applied the E4M3 block scales; the schemes'
        // global scales multiply the sums (their f32 product, rounded once).
        if (scaleKind == Kind::mxf4nvf4)
          acc = kb.mulF(acc, kb.cF32(c.lhsScheme->getGlobalScale() *
                                     c.rhsScheme.getGlobalScale()));
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
