//===- MmaSyncKernel.cpp - The mma_sync kernel for octet.matmul -----------===//
//
// The mma_sync matmul kernel (sm_80+): 128x128 block tiles, 8 warps of
// 64x32, mma.sync.m16n8k32 on s8/u8 (i32 accumulators) or, on sm_89+, on
// e4m3/e5m2 (f32 accumulators, through inline PTX: MLIR 22's nvvm.mma.sync
// rejects FP8). A and B^T (both K-contiguous) are staged with 16-byte
// cp.async (zero-filled outside the matrix) into a 3-stage ring of padded
// shared-memory tiles. Integer results match the CPU bit for bit; FP8 sums
// differ from it only in the order of the additions.
//
// With block scales on both operands (MatmulConfig::blockScaleKind) on
// sm_120a the same tiles run the block-scaled mma.sync, which multiplies
// each block's product by both scales inside the MMA: one instruction per
// 32 (MXFP8: kind::mxf8f6f4 m16n8k32) or 64 (MXFP4: kind::mxf4
// scale_vec::2X, NVFP4: kind::mxf4nvf4 scale_vec::4X, both m16n8k64) of K
// instead of a SIMT loop. E2M1 codes are one per byte in memory and in
// the shared tiles; the fragment loads pack them two per byte.
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

namespace {

/// The nvvm.mma.sync operand type of a scheme's codes.
NVVM::MMATypes mmaType(SchemeAttr scheme) {
  switch (scheme.getFormat()) {
  case StorageFormat::u8:
    return NVVM::MMATypes::u8;
  case StorageFormat::f8E4M3FN:
    return NVVM::MMATypes::e4m3;
  case StorageFormat::f8E5M2:
    return NVVM::MMATypes::e5m2;
  default:
    return NVVM::MMATypes::s8;
  }
}

/// The PTX operand type of a scheme's codes (for the inline FP8 form).
StringRef ptxType(SchemeAttr scheme) {
  switch (scheme.getFormat()) {
  case StorageFormat::u8:
    return "u8";
  case StorageFormat::f8E4M3FN:
    return "e4m3";
  case StorageFormat::f8E5M2:
    return "e5m2";
  case StorageFormat::f4E2M1FN:
    return "e2m1";
  default:
    return "s8";
  }
}

/// One mma.sync (m16n8k32, or m16n8k64 for the FP4 block-scaled kinds) on
/// 4 A registers, 2 B registers and 4 accumulators; with `scales` (this
/// thread's A and B scale registers: the codes of the instruction's
/// blocks along K in bytes 0, 1, ...) the block-scaled form of `kind`.
SmallVector<Value> emitMmaSync(
    KernelBuilder &kb, const MatmulConfig &c, ArrayRef<Value> a,
    ArrayRef<Value> bRegs, ArrayRef<Value> acc,
    MatmulConfig::BlockScaleKind kind = MatmulConfig::BlockScaleKind::none,
    std::optional<std::pair<Value, Value>> scales = std::nullopt) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Type accT = c.intAcc() ? Type(kb.i32) : Type(kb.f32);
  auto structTy = LLVM::LLVMStructType::getLiteral(
      kb.ctx, SmallVector<Type>(4, accT));
  Value result;
  if (c.intAcc()) {
    result = NVVM::MmaOp::create(
        b, loc, structTy, a, bRegs, acc, {16, 8, 32}, std::nullopt,
        NVVM::MMAIntOverflow::wrapped,
        std::array<NVVM::MMATypes, 2>{mmaType(*c.lhsScheme),
                                      mmaType(c.rhsScheme)},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
  } else {
    // MLIR 22's nvvm.mma.sync has no FP8 form: inline PTX, PTX ISA 8.4
    // (sm_89+). The block-scaled forms (PTX ISA 8.7, sm_120a) add the
    // scale registers, each with the selectors {byte-id, thread-id} =
    // {0, 0}: from byte 0 on; A's row g from lane 4g, row g + 8 from lane
    // 4g + 1; B's column g from lane 4g.
    std::string types =
        (ptxType(*c.lhsScheme) + "." + ptxType(c.rhsScheme)).str();
    std::string asmStr;
    switch (kind) {
    case MatmulConfig::BlockScaleKind::none:
      asmStr = "mma.sync.aligned.m16n8k32.row.col.f32." + types + ".f32 ";
      break;
    case MatmulConfig::BlockScaleKind::mxf8f6f4:
      asmStr = "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X."
               "m16n8k32.row.col.f32." +
               types + ".f32.ue8m0 ";
      break;
    case MatmulConfig::BlockScaleKind::mxf4:
      asmStr = "mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X."
               "m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0 ";
      break;
    case MatmulConfig::BlockScaleKind::mxf4nvf4:
      asmStr = "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X."
               "m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3 ";
      break;
    }
    asmStr += "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13}";
    std::string constraints = "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3";
    SmallVector<Value> operands(a.begin(), a.end());
    operands.append(bRegs.begin(), bRegs.end());
    operands.append(acc.begin(), acc.end());
    if (scales) {
      asmStr += ", {$14}, {$15,$16}, {$17}, {$18,$19}";
      constraints += ",r,h,h,r,h,h";
      Value zero16 = kb.cInt(kb.i16, 0);
      operands.append(
          {scales->first, zero16, zero16, scales->second, zero16, zero16});
    }
    asmStr += ";";
    result = LLVM::InlineAsmOp::create(
                 b, loc, structTy, operands, asmStr, constraints,
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::tailcallkind::TailCallKind::None,
                 LLVM::AsmDialectAttr::get(kb.ctx, LLVM::AsmDialect::AD_ATT),
                 ArrayAttr())
                 .getResult(0);
  }
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return out;
}

} // namespace

void cuda::buildMmaSyncBody(KernelBuilder &kb, const MatmulConfig &c,
                            const Params &p) {
  constexpr int64_t kThreads = 256, kBM = 128, kBN = 128, kBK = 64;
  constexpr int64_t kPitch = kBK + 16; // bytes per row: conflict-free frags
  constexpr int64_t kStages = 3;
  constexpr int64_t kWarpM = 64, kWarpN = 32, kMt = kWarpM / 16,
                    kNt = kWarpN / 8;
  constexpr int64_t kTileBytes = kBM * kPitch, kStageBytes = 2 * kTileBytes;

  using Kind = MatmulConfig::BlockScaleKind;
  const Kind scaleKind = c.blockScaleKind();
  const bool mx = scaleKind != Kind::none;
  // FP4 block-scaled kinds: one m16n8k64 per K tile (64 one-byte codes),
  // with 2 (MXFP4, blocks of 32) or 4 (NVFP4, blocks of 16) scales each.
  const bool fp4 = scaleKind == Kind::mxf4 || scaleKind == Kind::mxf4nvf4;
  const int64_t kStepK = fp4 ? 64 : 32;
  const int64_t kScaleBlock = scaleKind == Kind::mxf4nvf4 ? 16 : 32;
  const int64_t kBlocksPerTile = kBK / kScaleBlock,
                kBlocksPerStep = kStepK / kScaleBlock;
  Value tid = kb.tid();
  Value warp = kb.divU(tid, kb.c32(32));
  Value lane = kb.remU(tid, kb.c32(32));
  Value g = kb.divU(lane, kb.c32(4)), t = kb.remU(lane, kb.c32(4));
  Value wm = kb.divU(warp, kb.c32(4)), wn = kb.remU(warp, kb.c32(4));
  Value bm = kb.mul(kb.wide(kb.bidY()), kb.c64(kBM));
  Value bn = kb.mul(kb.wide(kb.bidX()), kb.c64(kBN));
  Value kAligned = kb.eq(kb.remU(p.K, kb.c64(16)), kb.c64(0));
  Value smem = kb.sharedBase();
  auto padded = [&](Value r, Value ch) {
    return kb.add(kb.mul(r, kb.c32(kPitch)), kb.mul(ch, kb.c32(16)));
  };
  auto stageBase = [&](Value s) {
    return kb.gepBytes(smem, kb.mul(s, kb.c32(kStageBytes)));
  };
  auto stage = [&](Value s, Value k0) {
    Value base = stageBase(s);
    stageTile(kb, base, p.a, bm, p.M, k0, p.K, kAligned, tid, kThreads, kBM,
              kBK / 16, padded);
    stageTile(kb, kb.gepBytes(base, kb.c32(kTileBytes)), p.b, bn, p.N, k0,
              p.K, kAligned, tid, kThreads, kBN, kBK / 16, padded);
  };

  for (int64_t s = 0; s < kStages - 1; ++s) {
    stage(kb.c32(s), kb.c64(s * kBK));
    NVVM::CpAsyncCommitGroupOp::create(kb.b, kb.loc);
  }
  Value kTiles = kb.ceilDiv(p.K, kb.c64(kBK));
  Value zero = c.intAcc() ? kb.c32(0) : kb.cF32(0.0f);
  SmallVector<Value> init(kMt * kNt * 4, zero);

  SmallVector<Value> acc = kb.forLoop(
      kb.c64(0), kTiles, kb.c64(1), init, [&](Value kt, ValueRange it) {
        NVVM::CpAsyncWaitGroupOp::create(kb.b, kb.loc,
                                         kb.b.getI32IntegerAttr(kStages - 2));
        kb.barrier();
        Value next = kb.add(kt, kb.c64(kStages - 1));
        stage(kb.trunc(kb.remU(next, kb.c64(kStages)), kb.i32),
              kb.mul(next, kb.c64(kBK)));
        NVVM::CpAsyncCommitGroupOp::create(kb.b, kb.loc);

        // Block scales: this thread's codes for the tile's blocks along K
        // (A: row g for lane t = 0, row g + 8 for t = 1; B: column g), the
        // code of 1.0 outside the matrix, where the codes are zero.
        // sfa[j * kMt + mt], sfb[j * kNt + nt] for block j of the tile.
        SmallVector<Value> sfa, sfb;
        if (mx) {
          Value groups = kb.divU(p.K, kb.c64(kScaleBlock));
          Value aRow =
              kb.add(kb.add(kb.mul(wm, kb.c32(kWarpM)), g),
                     kb.select(kb.eq(t, kb.c32(1)), kb.c32(8), kb.c32(0)));
          Value bCol = kb.add(kb.mul(wn, kb.c32(kWarpN)), g);
          for (int64_t j = 0; j < kBlocksPerTile; ++j) {
            Value gi = kb.add(kb.mul(kt, kb.c64(kBlocksPerTile)), kb.c64(j));
            Value gOk = kb.ult(gi, groups);
            for (int64_t mt = 0; mt < kMt; ++mt) {
              Value m = kb.add(bm, kb.wide(kb.add(aRow, kb.c32(mt * 16))));
              sfa.push_back(blockScaleCode(kb, p.sa, *c.lhsScheme,
                                           kb.andB(gOk, kb.ult(m, p.M)),
                                           kb.add(kb.mul(m, groups), gi)));
            }
            for (int64_t nt = 0; nt < kNt; ++nt) {
              Value n = kb.add(bn, kb.wide(kb.add(bCol, kb.c32(nt * 8))));
              sfb.push_back(blockScaleCode(kb, p.sb, c.rhsScheme,
                                           kb.andB(gOk, kb.ult(n, p.N)),
                                           kb.add(kb.mul(gi, p.N), n)));
            }
          }
        }
        // The scale register of MMA step `step`: its blocks' codes in
        // bytes 0, 1, ...
        auto scaleReg = [&](ArrayRef<Value> codes, int64_t step, int64_t i,
                            int64_t stride) {
          Value reg = codes[step * kBlocksPerStep * stride + i];
          for (int64_t j = 1; j < kBlocksPerStep; ++j)
            reg = kb.orI(reg,
                         kb.shl(codes[(step * kBlocksPerStep + j) * stride + i],
                                kb.c32(8 * j)));
          return reg;
        };
        Value base =
            stageBase(kb.trunc(kb.remU(kt, kb.c64(kStages)), kb.i32));
        Value aTile = base;
        Value bTile = kb.gepBytes(base, kb.c32(kTileBytes));
        auto lds = [&](Value tile, Value row, Value byte) {
          Value off = kb.add(kb.mul(row, kb.c32(kPitch)), byte);
          return kb.load(kb.i32, kb.gepBytes(tile, off), 4);
        };
        SmallVector<Value> accs(it.begin(), it.end());
        for (int64_t kk = 0; kk < kBK / kStepK; ++kk) {
          // Byte offsets of this thread's codes: m16n8k32 registers hold 4
          // codes (k 4t.. and 16 + 4t..), the FP4 m16n8k64 ones 8 (k 8t..
          // and 32 + 8t..), loaded as two words and packed.
          Value kLo =
              kb.add(kb.c32(kk * kStepK), kb.mul(t, kb.c32(kStepK / 8)));
          Value kHi = kb.add(kLo, kb.c32(kStepK / 2));
          // E2M1 codes next to FP8 ones (kind::mxf8f6f4) sit in the middle
          // 4 bits of their byte ("8-bit container", PTX ISA): code << 2.
          auto frag = [&](Value tile, Value row, Value byte, bool e2m1) {
            if (fp4)
              return packE2m1(kb, lds(tile, row, byte),
                              lds(tile, row, kb.add(byte, kb.c32(4))));
            Value word = lds(tile, row, byte);
            if (!e2m1)
              return word;
            return kb.shl(kb.andI(word, kb.c32(0x0F0F0F0F)), kb.c32(2));
          };
          bool aE2m1 = c.lhsScheme->getFormat() == StorageFormat::f4E2M1FN,
               bE2m1 = c.rhsScheme.getFormat() == StorageFormat::f4E2M1FN;
          SmallVector<SmallVector<Value>> aFrag, bFrag;
          for (int64_t mt = 0; mt < kMt; ++mt) {
            Value r0 = kb.add(kb.add(kb.mul(wm, kb.c32(kWarpM)),
                                     kb.c32(mt * 16)),
                              g);
            Value r1 = kb.add(r0, kb.c32(8));
            aFrag.push_back(
                {frag(aTile, r0, kLo, aE2m1), frag(aTile, r1, kLo, aE2m1),
                 frag(aTile, r0, kHi, aE2m1), frag(aTile, r1, kHi, aE2m1)});
          }
          for (int64_t nt = 0; nt < kNt; ++nt) {
            Value c0 = kb.add(kb.add(kb.mul(wn, kb.c32(kWarpN)),
                                     kb.c32(nt * 8)),
                              g);
            bFrag.push_back(
                {frag(bTile, c0, kLo, bE2m1), frag(bTile, c0, kHi, bE2m1)});
          }
          for (int64_t mt = 0; mt < kMt; ++mt)
            for (int64_t nt = 0; nt < kNt; ++nt) {
              int64_t at = (mt * kNt + nt) * 4;
              std::optional<std::pair<Value, Value>> scales;
              if (mx)
                scales = {scaleReg(sfa, kk, mt, kMt),
                          scaleReg(sfb, kk, nt, kNt)};
              SmallVector<Value> r = emitMmaSync(
                  kb, c, aFrag[mt], bFrag[nt],
                  ArrayRef<Value>(accs).slice(at, 4), scaleKind, scales);
              for (int64_t i = 0; i < 4; ++i)
                accs[at + i] = r[i];
            }
        }
        return accs;
      });
  NVVM::CpAsyncWaitGroupOp::create(kb.b, kb.loc, kb.b.getI32IntegerAttr(0));

  // NVFP4: the MMA applied the E4M3 block scales; the schemes' global
  // scales multiply the sums (their f32 product, rounded once).
  if (scaleKind == Kind::mxf4nvf4) {
    Value global =
        kb.cF32(c.lhsScheme->getGlobalScale() * c.rhsScheme.getGlobalScale());
    for (Value &v : acc)
      v = kb.mulF(v, global);
  }

  // Accumulator i of tile (mt, nt): row g (+8 for i >= 2), column 2t + i%2.
  for (int64_t mt = 0; mt < kMt; ++mt)
    for (int64_t nt = 0; nt < kNt; ++nt)
      for (int64_t i = 0; i < 4; ++i) {
        Value m = kb.add(
            bm, kb.wide(kb.add(kb.add(kb.mul(wm, kb.c32(kWarpM)),
                                      kb.c32(mt * 16 + (i / 2) * 8)),
                               g)));
        Value n = kb.add(
            bn, kb.wide(kb.add(kb.add(kb.mul(wn, kb.c32(kWarpN)),
                                      kb.c32(nt * 8 + i % 2)),
                               kb.mul(t, kb.c32(2)))));
        kb.ifThen(kb.andB(kb.ult(m, p.M), kb.ult(n, p.N)), [&] {
          emitEpilogue(kb, c, p, acc[(mt * kNt + nt) * 4 + i], m, n, Value(),
                       /*zpInAcc=*/false);
        });
      }
}
