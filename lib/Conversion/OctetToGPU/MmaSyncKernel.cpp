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
// With OCP MX blocks on both operands (MXFP8: E8M0 scales per block of 32
// along K, MatmulConfig::mxBlockScaled) on sm_120a, the same tiles run
// mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32, which
// multiplies each 32-deep block product by 2^(sa - 127) * 2^(sb - 127)
// inside the MMA: one instruction per block instead of a SIMT loop.
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
  default:
    return "s8";
  }
}

/// The E8M0 code of a scale of an `e8m0` scheme (an f32 power of two):
/// its exponent byte, 0x00400000 (2^-127, the one subnormal) giving 0. A
/// value that is not an E8M0 value (zero, negative, not a power of two,
/// infinite: nothing octet's quantizers or compute_params write) becomes
/// 0xFF, E8M0's NaN, so the outputs it scales are NaN rather than silently
/// rescaled.
Value e8m0Code(KernelBuilder &kb, Value scale) {
  Value bits = kb.bitcast(scale, kb.i32);
  Value pow2 = kb.andB(kb.eq(kb.andI(bits, kb.c32(0x807FFFFF)), kb.c32(0)),
                       kb.ne(bits, kb.c32(0)));
  Value code = kb.select(pow2, kb.shrU(bits, kb.c32(23)), kb.c32(0xFF));
  return kb.select(kb.eq(bits, kb.c32(0x00400000)), kb.c32(0), code);
}

/// One mma.sync.m16n8k32 on 4 A registers, 2 B registers and 4
/// accumulators; with `scales` (the E8M0 codes in byte 0 of this thread's
/// A and B scale registers) the block-scaled MXFP8 form.
SmallVector<Value>
emitMmaSync(KernelBuilder &kb, const MatmulConfig &c, ArrayRef<Value> a,
            ArrayRef<Value> bRegs, ArrayRef<Value> acc,
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
    // (sm_89+). The block-scaled MXFP8 form (PTX ISA 8.7, sm_120a) adds
    // the scale registers, each with the selectors {byte-id, thread-id} =
    // {0, 0}: byte 0; A's row g from lane 4g, row g + 8 from lane 4g + 1;
    // B's column g from lane 4g.
    std::string types =
        (ptxType(*c.lhsScheme) + "." + ptxType(c.rhsScheme)).str();
    std::string asmStr =
        scales ? "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X."
                 "m16n8k32.row.col.f32." +
                     types + ".f32.ue8m0 "
               : "mma.sync.aligned.m16n8k32.row.col.f32." + types + ".f32 ";
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

  const bool mx = c.mxBlockScaled();
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

        // MX: this thread's E8M0 codes for the tile's two blocks of 32
        // (A: row g for lane t = 0, row g + 8 for t = 1; B: column g),
        // 0x7F (2^0) outside the matrix, where the codes are zero.
        SmallVector<Value> sfa, sfb;
        if (mx) {
          Value groups = kb.divU(p.K, kb.c64(32));
          Value aRow =
              kb.add(kb.add(kb.mul(wm, kb.c32(kWarpM)), g),
                     kb.select(kb.eq(t, kb.c32(1)), kb.c32(8), kb.c32(0)));
          Value bCol = kb.add(kb.mul(wn, kb.c32(kWarpN)), g);
          auto code = [&](Value base, Value ok, Value index) {
            Value v =
                kb.loadElem(base, kb.f32, kb.select(ok, index, kb.c64(0)));
            return kb.select(ok, e8m0Code(kb, v), kb.c32(0x7F));
          };
          for (int64_t kk = 0; kk < kBK / 32; ++kk) {
            Value gi = kb.add(kb.mul(kt, kb.c64(kBK / 32)), kb.c64(kk));
            Value gOk = kb.ult(gi, groups);
            for (int64_t mt = 0; mt < kMt; ++mt) {
              Value m = kb.add(bm, kb.wide(kb.add(aRow, kb.c32(mt * 16))));
              sfa.push_back(code(p.sa, kb.andB(gOk, kb.ult(m, p.M)),
                                 kb.add(kb.mul(m, groups), gi)));
            }
            for (int64_t nt = 0; nt < kNt; ++nt) {
              Value n = kb.add(bn, kb.wide(kb.add(bCol, kb.c32(nt * 8))));
              sfb.push_back(code(p.sb, kb.andB(gOk, kb.ult(n, p.N)),
                                 kb.add(kb.mul(gi, p.N), n)));
            }
          }
        }
        Value base =
            stageBase(kb.trunc(kb.remU(kt, kb.c64(kStages)), kb.i32));
        Value aTile = base;
        Value bTile = kb.gepBytes(base, kb.c32(kTileBytes));
        auto lds = [&](Value tile, Value row, Value byte) {
          Value off = kb.add(kb.mul(row, kb.c32(kPitch)), byte);
          return kb.load(kb.i32, kb.gepBytes(tile, off), 4);
        };
        SmallVector<Value> accs(it.begin(), it.end());
        for (int64_t kk = 0; kk < kBK / 32; ++kk) {
          Value kLo = kb.add(kb.c32(kk * 32), kb.mul(t, kb.c32(4)));
          Value kHi = kb.add(kLo, kb.c32(16));
          SmallVector<SmallVector<Value>> aFrag, bFrag;
          for (int64_t mt = 0; mt < kMt; ++mt) {
            Value r0 = kb.add(kb.add(kb.mul(wm, kb.c32(kWarpM)),
                                     kb.c32(mt * 16)),
                              g);
            Value r1 = kb.add(r0, kb.c32(8));
            aFrag.push_back({lds(aTile, r0, kLo), lds(aTile, r1, kLo),
                             lds(aTile, r0, kHi), lds(aTile, r1, kHi)});
          }
          for (int64_t nt = 0; nt < kNt; ++nt) {
            Value c0 = kb.add(kb.add(kb.mul(wn, kb.c32(kWarpN)),
                                     kb.c32(nt * 8)),
                              g);
            bFrag.push_back({lds(bTile, c0, kLo), lds(bTile, c0, kHi)});
          }
          for (int64_t mt = 0; mt < kMt; ++mt)
            for (int64_t nt = 0; nt < kNt; ++nt) {
              int64_t at = (mt * kNt + nt) * 4;
              std::optional<std::pair<Value, Value>> scales;
              if (mx)
                scales = {sfa[kk * kMt + mt], sfb[kk * kNt + nt]};
              SmallVector<Value> r =
                  emitMmaSync(kb, c, aFrag[mt], bFrag[nt],
                              ArrayRef<Value>(accs).slice(at, 4), scales);
              for (int64_t i = 0; i < 4; ++i)
                accs[at + i] = r[i];
            }
        }
        return accs;
      });
  NVVM::CpAsyncWaitGroupOp::create(kb.b, kb.loc, kb.b.getI32IntegerAttr(0));

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
