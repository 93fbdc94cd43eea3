//===- MatmulKernels.cpp - CUDA kernels for octet.matmul ------------------===//
//
// Four kernels compute octet.matmul on the GPU, all with the same fused
// epilogue as the CPU lowering (MatmulLowering.cpp), op for op:
//
//  - simt: one thread per output element; any formats (including 4-bit
//    codes), batches and per-group rhs scales. Sums run sequentially over K
//    in the CPU's order, so its results equal the CPU's bit for bit.
//  - mma_sync (sm_80+): 128x128 block tiles, 8 warps of 64x32,
//    mma.sync.m16n8k32 on s8/u8 (i32 accumulators) or, on sm_89+, on
//    e4m3/e5m2 (f32 accumulators, through inline PTX: MLIR 22's nvvm.mma.sync
//    rejects FP8). A and B^T (both K-contiguous) are staged with 16-byte
//    cp.async (zero-filled outside the matrix) into a 3-stage ring of
//    padded shared-memory tiles.
//  - wgmma (sm_90a): 128 x N (N = 128 or 256) block tiles, two warpgroups of
//    m64nNk32 wgmma.mma_async (nvvm.wgmma.mma_async: s8/u8 -> s32,
//    e4m3/e5m2 -> f32) reading both operands from 128-byte-swizzled shared
//    memory through matrix descriptors; a 4-stage cp.async ring, one wgmma
//    group in flight.
//  - gemv: weight-only products (float lhs, 8-bit rhs, few rows): streams
//    B with 16-byte loads, converts int8 codes with a byte permute into the
//    mantissa of 2^23 (exact), splits K over blocks and reduces the partial
//    sums deterministically in the last block of each column tile.
//
// Integer accumulation is exact in i32 on every path, so integer results
// match the CPU bit for bit; f32 sums (FP8, weight-only) differ from the CPU
// only in the order of the additions on the tensor-core and gemv paths.
//
//===----------------------------------------------------------------------===//

#include "KernelCommon.h"

#include "octet/Conversion/OctetToLinalg/ScalarNumerics.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

StringRef cuda::stringifyMatmulKernelKind(MatmulKernelKind kind) {
  switch (kind) {
  case MatmulKernelKind::simt:
    return "simt";
  case MatmulKernelKind::mmaSync:
    return "mma_sync";
  case MatmulKernelKind::wgmma:
    return "wgmma";
  case MatmulKernelKind::gemv:
    return "gemv";
  }
  return "simt";
}

std::optional<MatmulKernelKind>
cuda::symbolizeMatmulKernelKind(StringRef name) {
  return llvm::StringSwitch<std::optional<MatmulKernelKind>>(name)
      .Case("simt", MatmulKernelKind::simt)
      .Case("mma_sync", MatmulKernelKind::mmaSync)
      .Case("wgmma", MatmulKernelKind::wgmma)
      .Case("gemv", MatmulKernelKind::gemv)
      .Default(std::nullopt);
}

std::string MatmulConfig::key() const {
  std::string k = stringifyMatmulKernelKind(kind).str();
  k += "_" + typeString(lhsElem) + "_" +
       schemeString(lhsScheme ? *lhsScheme : SchemeAttr()) + "_" +
       typeString(rhsElem) + "_" + schemeString(rhsScheme) + "_" +
       typeString(resultElem) + "_" +
       schemeString(outScheme ? *outScheme : SchemeAttr());
  k += lhsZp ? "_za" : "";
  k += rhsZp ? "_zb" : "";
  k += bias ? "_bias" : "";
  k += relu ? "_relu" : "";
  k += outZp ? "_oz" : "";
  k += batched ? "_b" : "";
  k += rhsBatched ? "_rb" : "";
  if (kind != MatmulKernelKind::simt)
    k += "_t" + std::to_string(tileM) + "x" + std::to_string(tileN) + "x" +
         std::to_string(tileK) + "s" + std::to_string(stages);
  return k;
}

namespace {

//===----------------------------------------------------------------------===//
// Operands and the epilogue
//===----------------------------------------------------------------------===//

/// The kernel parameters, global pointers already cast.
struct Params {
  Value a, b, out, sa, za, sb, zb, rowSum, colSum, bias, os, oz, ws, counters;
  Value M, N, K, batch, kChunk;

  Params(KernelBuilder &kb, ValueRange p)
      : a(kb.global(p[kA])), b(kb.global(p[kB])), out(kb.global(p[kOut])),
        sa(kb.global(p[kSa])), za(kb.global(p[kZa])), sb(kb.global(p[kSb])),
        zb(kb.global(p[kZb])), rowSum(kb.global(p[kRowSum])),
        colSum(kb.global(p[kColSum])), bias(kb.global(p[kBias])),
        os(kb.global(p[kOs])), oz(kb.global(p[kOz])),
        ws(kb.global(p[kWorkspace])), counters(kb.global(p[kCounters])),
        M(p[kM]), N(p[kN]), K(p[kK]), batch(p[kBatch]), kChunk(p[kKChunk]) {}
};

SmallVector<Type> matmulParamTypes(KernelBuilder &kb) {
  SmallVector<Type> types(kM, kb.ptr);
  types.append(kNumMatmulParams - kM, kb.i64);
  return types;
}

/// Index of an lhs parameter (scale, zero point) for row `m` of batch `bi`:
/// per_tensor -> 0, per_axis(rows) -> m, per-token (per_group over K,
/// shape [B x] M x 1) -> bi * M + m.
Value lhsParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value m,
                    Value bi, Value M) {
  switch (c.lhsScheme->getGranularity()) {
  case Granularity::per_tensor:
    return kb.c64(0);
  case Granularity::per_axis:
    return m;
  case Granularity::per_group:
    return bi ? kb.add(kb.mul(bi, M), m) : m;
  }
  return m;
}

/// Index of an rhs parameter for column `n` (not per_group).
Value rhsParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value n) {
  return c.rhsScheme.getGranularity() == Granularity::per_tensor ? kb.c64(0)
                                                                 : n;
}

/// Index of an output parameter for column `n`.
Value outParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value n) {
  return c.outScheme->getGranularity() == Granularity::per_tensor
             ? kb.c64(0)
             : n;
}

/// The epilogue for output (bi, m, n), exactly MatmulLowering's:
/// integer: acc - za*colsum - zb*rowsum + K*za*zb (unless the zero points are
/// already in `acc`), float(acc) * (sa * sb) (+ bias) (relu), then quantize
/// or round to the result type. For per-group rhs `acc` is already
/// sum_g float(acc_g) * sb[g, n] and only sa is applied.
void emitEpilogue(KernelBuilder &kb, const MatmulConfig &c, const Params &p,
                  Value acc, Value m, Value n, Value bi, bool zpInAcc) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Value y = acc;
  if (c.intAcc()) {
    if (!zpInAcc) {
      Value za, zb;
      if (c.lhsZp)
        za = kb.loadElem(p.za, kb.i32, lhsParamIndex(kb, c, m, bi, p.M));
      if (c.rhsZp)
        zb = kb.loadElem(p.zb, kb.i32, rhsParamIndex(kb, c, n));
      if (za)
        y = kb.sub(y, kb.mul(za, kb.loadElem(p.colSum, kb.i32, n)));
      if (zb)
        y = kb.sub(y, kb.mul(zb, kb.loadElem(p.rowSum, kb.i32, m)));
      if (za && zb)
        y = kb.add(y, kb.mul(kb.trunc(p.K, kb.i32), kb.mul(za, zb)));
    }
    y = kb.sitofp(y);
  }
  Value sa;
  if (c.lhsScheme)
    sa = kb.loadElem(p.sa, kb.f32, lhsParamIndex(kb, c, m, bi, p.M));
  if (!c.grouped()) {
    Value s = kb.loadElem(p.sb, kb.f32, rhsParamIndex(kb, c, n));
    if (sa)
      s = kb.mulF(sa, s);
    y = kb.mulF(y, s);
  } else if (sa) {
    y = kb.mulF(y, sa);
  }
  if (c.bias)
    y = kb.addF(y, kb.loadElem(p.bias, kb.f32, n));
  if (c.relu)
    y = arith::MaximumFOp::create(b, loc, y, kb.cF32(0.0f));
  Value row = bi ? kb.add(kb.mul(bi, p.M), m) : m;
  Value index = kb.add(kb.mul(row, p.N), n);
  Value result;
  if (c.outScheme) {
    Value oi = outParamIndex(kb, c, n);
    Value os = kb.loadElem(p.os, kb.f32, oi);
    Value oz = c.outZp ? kb.loadElem(p.oz, kb.i32, oi) : Value();
    result = emitQuantize(b, loc, y, os, oz, *c.outScheme);
  } else if (c.resultElem.isBF16()) {
    result = emitTruncF32ToBF16(b, loc, y);
  } else if (c.resultElem.isF16()) {
    result = arith::TruncFOp::create(b, loc, kb.f16, y);
  } else {
    result = y;
  }
  storeTensorElem(kb, result, p.out, index);
}

/// A stored code as an i32 per the scheme's signedness.
Value extendCode(KernelBuilder &kb, Value code, SchemeAttr scheme) {
  return scheme.isUnsigned() ? kb.zext(code, kb.i32) : kb.sext(code, kb.i32);
}

/// Decodes an FP8 code (a value of the FP8 type) to f32.
Value decodeFp8(KernelBuilder &kb, Value code, SchemeAttr scheme) {
  Value bits = kb.zext(kb.bitcast(code, kb.i8), kb.i32);
  return emitFp8BitsToF32(kb.b, kb.loc, bits, scheme.getFormat());
}

//===----------------------------------------------------------------------===//
// simt
//===----------------------------------------------------------------------===//

void buildSimtBody(KernelBuilder &kb, const MatmulConfig &c, const Params &p) {
  constexpr int64_t kTile = 16;
  Value tid = kb.tid();
  Value n = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kTile)),
                   kb.wide(kb.remU(tid, kb.c32(kTile))));
  Value m = kb.add(kb.mul(kb.wide(kb.bidY()), kb.c64(kTile)),
                   kb.wide(kb.divU(tid, kb.c32(kTile))));
  Value bi = c.batched ? kb.wide(kb.bidZ()) : Value();
  kb.ifThen(kb.andB(kb.ult(m, p.M), kb.ult(n, p.N)), [&] {
    Value row = bi ? kb.add(kb.mul(bi, p.M), m) : m;
    Value aRow = kb.mul(row, p.K);
    Value bBase = c.rhsBatched ? kb.mul(bi, kb.mul(p.K, p.N)) : kb.c64(0);
    Value za, zb;
    if (c.intAcc() && c.lhsZp)
      za = kb.loadElem(p.za, kb.i32, lhsParamIndex(kb, c, m, bi, p.M));
    // The product of one k, into the accumulator (mirrors the CPU body).
    auto term = [&](Value k, Value acc, Value zbK) -> Value {
      Value a = loadTensorElem(kb, p.a, c.lhsElem, kb.add(aRow, k));
      Value w = loadTensorElem(kb, p.b, c.rhsElem,
                               kb.add(bBase, kb.add(kb.mul(k, p.N), n)));
      if (c.intAcc()) {
        Value ai = extendCode(kb, a, *c.lhsScheme);
        Value wi = extendCode(kb, w, c.rhsScheme);
        // (A - za)(B - zb) directly: equal mod 2^32 to the CPU's
        // sum AB - za colsum - zb rowsum + K za zb.
        if (za)
          ai = kb.sub(ai, za);
        if (zbK)
          wi = kb.sub(wi, zbK);
        return kb.add(acc, kb.mul(ai, wi));
      }
      Value af, wf;
      if (c.fp8()) {
        af = decodeFp8(kb, a, *c.lhsScheme);
        wf = decodeFp8(kb, w, c.rhsScheme);
      } else {
        af = kb.toF32(a);
        if (c.rhsScheme.isFloat8()) {
          wf = decodeFp8(kb, w, c.rhsScheme);
        } else {
          Value wi = extendCode(kb, w, c.rhsScheme);
          if (zbK)
            wi = kb.sub(wi, zbK);
          wf = kb.sitofp(wi);
        }
      }
      return kb.addF(acc, kb.mulF(af, wf));
    };
    Value zeroAcc = c.intAcc() ? kb.c32(0) : kb.cF32(0.0f);
    if (!c.grouped()) {
      if (c.rhsZp)
        zb = kb.loadElem(p.zb, kb.i32, rhsParamIndex(kb, c, n));
      SmallVector<Value> acc = kb.forLoop(
          kb.c64(0), p.K, kb.c64(1), {zeroAcc}, [&](Value k, ValueRange it) {
            return SmallVector<Value>{term(k, it[0], zb)};
          });
      emitEpilogue(kb, c, p, acc[0], m, n, bi, /*zpInAcc=*/true);
      return;
    }
    // Per-group rhs: y' = sum_g float(acc_g) * sb[g, n], in group order.
    Value gs = kb.c64(c.rhsScheme.getGroupSize());
    Value groups = kb.divU(p.K, gs);
    Value paramBase =
        c.rhsBatched ? kb.mul(bi, kb.mul(groups, p.N)) : kb.c64(0);
    SmallVector<Value> y = kb.forLoop(
        kb.c64(0), groups, kb.c64(1), {kb.cF32(0.0f)},
        [&](Value gi, ValueRange yIt) {
          Value pIdx = kb.add(paramBase, kb.add(kb.mul(gi, p.N), n));
          Value zbG = c.rhsZp ? kb.loadElem(p.zb, kb.i32, pIdx) : Value();
          Value k0 = kb.mul(gi, gs);
          SmallVector<Value> acc = kb.forLoop(
              k0, kb.add(k0, gs), kb.c64(1), {zeroAcc},
              [&](Value k, ValueRange it) {
                return SmallVector<Value>{term(k, it[0], zbG)};
              });
          Value a = c.intAcc() ? kb.sitofp(acc[0]) : acc[0];
          Value t = kb.mulF(a, kb.loadElem(p.sb, kb.f32, pIdx));
          return SmallVector<Value>{kb.addF(yIt[0], t)};
        });
    emitEpilogue(kb, c, p, y[0], m, n, bi, /*zpInAcc=*/true);
  });
}

//===----------------------------------------------------------------------===//
// Staging tiles of K-contiguous 8-bit matrices into shared memory
//===----------------------------------------------------------------------===//

/// Copies rows [row0, row0 + rows) x bytes [k0, k0 + 16 * chunksPerRow) of
/// the [limit x K] matrix `src` into shared memory at `dst`, one 16-byte
/// chunk per (thread, step). `place(row, chunk)` is the chunk's byte offset
/// in the tile. Outside the matrix the tile is zero. With K % 16 == 0 the
/// copies are cp.async (completed by the caller's wait_group); otherwise
/// byte loads and shared stores.
void stageTile(KernelBuilder &kb, Value dst, Value src, Value row0,
               Value limit, Value k0, Value K, Value kAligned, Value tid,
               int64_t threads, int64_t rows, int64_t chunksPerRow,
               function_ref<Value(Value, Value)> place) {
  int64_t chunks = rows * chunksPerRow;
  for (int64_t j = 0; j < chunks / threads; ++j) {
    Value c = kb.add(tid, kb.c32(j * threads));
    Value r = kb.divU(c, kb.c32(chunksPerRow));
    Value ch = kb.remU(c, kb.c32(chunksPerRow));
    Value gRow = kb.add(row0, kb.wide(r));
    Value gK = kb.add(k0, kb.wide(kb.mul(ch, kb.c32(16))));
    Value rowOk = kb.ult(gRow, limit);
    Value sdst = kb.gepBytes(dst, place(r, ch));
    Value offset = kb.add(kb.mul(gRow, K), gK);
    kb.ifElse(
        kAligned, {},
        [&] {
          Value ok = kb.andB(rowOk, kb.ult(gK, K));
          Value srcPtr = kb.gepBytes(src, kb.select(ok, offset, kb.c64(0)));
          Value bytes = kb.select(ok, kb.c32(16), kb.c32(0));
          NVVM::CpAsyncOp::create(
              kb.b, kb.loc, sdst, srcPtr, kb.b.getI32IntegerAttr(16),
              NVVM::LoadCacheModifierKindAttr::get(
                  kb.ctx, NVVM::LoadCacheModifierKind::CG),
              bytes);
          return SmallVector<Value>{};
        },
        [&] {
          for (int64_t i = 0; i < 16; ++i) {
            Value k = kb.add(gK, kb.c64(i));
            Value ok = kb.andB(rowOk, kb.ult(k, K));
            SmallVector<Value> v = kb.ifElse(
                ok, {kb.i8},
                [&] {
                  return SmallVector<Value>{kb.load(
                      kb.i8, kb.gepBytes(src, kb.add(offset, kb.c64(i))), 1,
                      /*invariant=*/true)};
                },
                [&] { return SmallVector<Value>{kb.cInt(kb.i8, 0)}; });
            kb.store(v[0], kb.gepBytes(sdst, kb.c32(i)), 1);
          }
          return SmallVector<Value>{};
        });
  }
}

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

//===----------------------------------------------------------------------===//
// mma_sync
//===----------------------------------------------------------------------===//

/// One mma.sync.m16n8k32 on 4 A registers, 2 B registers and 4 accumulators.
SmallVector<Value> emitMmaSync(KernelBuilder &kb, const MatmulConfig &c,
                               ArrayRef<Value> a, ArrayRef<Value> bRegs,
                               ArrayRef<Value> acc) {
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
    // MLIR 22's nvvm.mma.sync has no FP8 form: inline PTX (PTX ISA 8.4).
    std::string asmStr =
        ("mma.sync.aligned.m16n8k32.row.col.f32." + ptxType(*c.lhsScheme) +
         "." + ptxType(c.rhsScheme) +
         ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};")
            .str();
    SmallVector<Value> operands(a.begin(), a.end());
    operands.append(bRegs.begin(), bRegs.end());
    operands.append(acc.begin(), acc.end());
    result = LLVM::InlineAsmOp::create(
                 b, loc, structTy, operands, asmStr,
                 "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3",
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

void buildMmaSyncBody(KernelBuilder &kb, const MatmulConfig &c,
                      const Params &p) {
  constexpr int64_t kThreads = 256, kBM = 128, kBN = 128, kBK = 64;
  constexpr int64_t kPitch = kBK + 16; // bytes per row: conflict-free frags
  constexpr int64_t kStages = 3;
  constexpr int64_t kWarpM = 64, kWarpN = 32, kMt = kWarpM / 16,
                    kNt = kWarpN / 8;
  constexpr int64_t kTileBytes = kBM * kPitch, kStageBytes = 2 * kTileBytes;

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
  Type accT = c.intAcc() ? Type(kb.i32) : Type(kb.f32);
  Value zero = c.intAcc() ? kb.c32(0) : kb.cF32(0.0f);
  SmallVector<Value> init(kMt * kNt * 4, zero);
  (void)accT;

  SmallVector<Value> acc = kb.forLoop(
      kb.c64(0), kTiles, kb.c64(1), init, [&](Value kt, ValueRange it) {
        NVVM::CpAsyncWaitGroupOp::create(kb.b, kb.loc,
                                         kb.b.getI32IntegerAttr(kStages - 2));
        kb.barrier();
        Value next = kb.add(kt, kb.c64(kStages - 1));
        stage(kb.trunc(kb.remU(next, kb.c64(kStages)), kb.i32),
              kb.mul(next, kb.c64(kBK)));
        NVVM::CpAsyncCommitGroupOp::create(kb.b, kb.loc);

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
              SmallVector<Value> r = emitMmaSync(
                  kb, c, aFrag[mt], bFrag[nt],
                  ArrayRef<Value>(accs).slice(at, 4));
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

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

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

void buildWgmmaBody(KernelBuilder &kb, const MatmulConfig &c,
                    const Params &p) {
  constexpr int64_t kThreads = 256, kBM = 128, kBK = 128;
  const int64_t kBN = c.tileN, kStages = c.stages;
  const int64_t tileA = kBM * kBK, tileB = kBN * kBK;
  const int64_t stageBytes = tileA + tileB;
  OpBuilder &b = kb.b;
  Location loc = kb.loc;

  Value tid = kb.tid();
  Value wg = kb.divU(tid, kb.c32(128));
  Value wtid = kb.remU(tid, kb.c32(128));
  Value w4 = kb.divU(wtid, kb.c32(32));
  Value lane = kb.remU(tid, kb.c32(32));
  Value g = kb.divU(lane, kb.c32(4)), t = kb.remU(lane, kb.c32(4));
  Value bm = kb.mul(kb.wide(kb.bidY()), kb.c64(kBM));
  Value bn = kb.mul(kb.wide(kb.bidX()), kb.c64(kBN));
  Value kAligned = kb.eq(kb.remU(p.K, kb.c64(16)), kb.c64(0));
  Value smem = kb.sharedBase();
  // 128-byte swizzle: chunk ch of row r goes to chunk ch ^ (r % 8).
  auto swizzled = [&](Value r, Value ch) {
    Value x = kb.xorI(ch, kb.remU(r, kb.c32(8)));
    return kb.add(kb.mul(r, kb.c32(kBK)), kb.mul(x, kb.c32(16)));
  };
  auto stageBase = [&](Value s) {
    return kb.gepBytes(smem, kb.mul(s, kb.c32(stageBytes)));
  };
  auto stage = [&](Value s, Value k0) {
    Value base = stageBase(s);
    stageTile(kb, base, p.a, bm, p.M, k0, p.K, kAligned, tid, kThreads, kBM,
              kBK / 16, swizzled);
    stageTile(kb, kb.gepBytes(base, kb.c32(tileA)), p.b, bn, p.N, k0, p.K,
              kAligned, tid, kThreads, kBN, kBK / 16, swizzled);
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

  // Accumulator 4j + r: row 16 * warp + g (+8 for r >= 2), column
  // 8j + 2t + r % 2 of the warpgroup's 64 x N tile.
  Value rowBase = kb.add(kb.mul(wg, kb.c32(64)), kb.mul(w4, kb.c32(16)));
  for (int64_t j = 0; j < kBN / 8; ++j)
    for (int64_t r = 0; r < 4; ++r) {
      Value m = kb.add(bm, kb.wide(kb.add(kb.add(rowBase, g),
                                          kb.c32((r / 2) * 8))));
      Value n = kb.add(bn, kb.wide(kb.add(kb.mul(t, kb.c32(2)),
                                          kb.c32(j * 8 + r % 2))));
      kb.ifThen(kb.andB(kb.ult(m, p.M), kb.ult(n, p.N)), [&] {
        Value v = LLVM::ExtractValueOp::create(b, loc, result[0], j * 4 + r);
        emitEpilogue(kb, c, p, v, m, n, Value(), /*zpInAcc=*/false);
      });
    }
}

//===----------------------------------------------------------------------===//
// gemv
//===----------------------------------------------------------------------===//

void buildGemvBody(KernelBuilder &kb, const MatmulConfig &c,
                   const Params &p) {
  constexpr int64_t kThreads = 256, kChunks = 8, kRowLanes = 32, kUnroll = 4;
  const int64_t kBN = kChunks * 16; // 128 columns per block
  const int64_t rowsPerBlock = c.gemvRows;
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  auto vec4 = VectorType::get({4}, kb.i32);

  Value tid = kb.tid();
  Value chunk = kb.remU(tid, kb.c32(kChunks));
  Value rowLane = kb.divU(tid, kb.c32(kChunks));
  Value warp = kb.divU(tid, kb.c32(32));
  Value lane = kb.remU(tid, kb.c32(32));
  Value n0 = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kBN)),
                    kb.wide(kb.mul(chunk, kb.c32(16))));
  Value ks = kb.wide(kb.bidY());
  Value kBegin = kb.mul(ks, p.kChunk);
  Value kEnd = kb.minU(p.K, kb.add(kBegin, p.kChunk));
  Value mBase = kb.mul(kb.wide(kb.bidZ()), kb.c64(rowsPerBlock));
  Value fullChunk = kb.andB(kb.eq(kb.remU(p.N, kb.c64(16)), kb.c64(0)),
                            kb.ult(n0, p.N));
  bool intW = !c.rhsScheme.isFloat8();
  bool signedW = intW && !c.rhsScheme.isUnsigned();

  // Integer codes: bits(0x4B000000 | byte) = 2^23 + byte exactly, so
  // float(code - zb) = that - (2^23 + bias + zb) with bias 128 for signed
  // codes (flipped to unsigned with ^ 0x80).
  SmallVector<Value> offsets;
  if (intW) {
    float base = 8388608.0f + (signedW ? 128.0f : 0.0f);
    for (int64_t j = 0; j < 16; ++j) {
      Value off = kb.cF32(base);
      if (c.rhsZp) {
        Value n = kb.add(n0, kb.c64(j));
        Value idx = rhsParamIndex(kb, c, kb.minU(n, kb.sub(p.N, kb.c64(1))));
        Value zb = kb.loadElem(p.zb, kb.i32, idx);
        off = kb.addF(off, kb.sitofp(zb));
      }
      offsets.push_back(off);
    }
  }

  auto loadWeights = [&](Value k, Value valid) -> Value {
    Value offset = kb.add(kb.mul(k, p.N), n0);
    return kb.ifElse(
        kb.andB(valid, fullChunk), {vec4},
        [&] {
          return SmallVector<Value>{kb.load(
              vec4, kb.gepBytes(p.b, offset), 16, /*invariant=*/true)};
        },
        [&] {
          Value v = LLVM::UndefOp::create(b, loc, vec4);
          for (int64_t w = 0; w < 4; ++w) {
            Value word = kb.c32(0);
            for (int64_t i = 0; i < 4; ++i) {
              Value n = kb.add(n0, kb.c64(w * 4 + i));
              Value ok = kb.andB(valid, kb.ult(n, p.N));
              Value byte = kb.ifElse(
                  ok, {kb.i8},
                  [&] {
                    return SmallVector<Value>{kb.load(
                        kb.i8,
                        kb.gepBytes(p.b, kb.add(offset, kb.c64(w * 4 + i))),
                        1, true)};
                  },
                  [&] { return SmallVector<Value>{kb.cInt(kb.i8, 0)}; })[0];
              word = kb.orI(word, kb.shl(kb.zext(byte, kb.i32),
                                         kb.c32(8 * i)));
            }
            v = LLVM::InsertElementOp::create(b, loc, v, word, kb.c32(w));
          }
          return SmallVector<Value>{v};
        })[0];
  };
  auto decode = [&](Value words) {
    SmallVector<Value> w;
    for (int64_t q = 0; q < 4; ++q) {
      Value word = LLVM::ExtractElementOp::create(b, loc, words, kb.c32(q));
      if (signedW)
        word = kb.xorI(word, kb.c32(static_cast<int32_t>(0x80808080u)));
      for (int64_t i = 0; i < 4; ++i) {
        if (intW) {
          Value bits =
              LLVM::CallIntrinsicOp::create(
                  b, loc, kb.i32, b.getStringAttr("llvm.nvvm.prmt"),
                  ValueRange{word, kb.c32(0x4B000000),
                             kb.c32(0x7540 | static_cast<int32_t>(i))})
                  .getResult(0);
          w.push_back(kb.subF(kb.bitcast(bits, kb.f32), offsets[q * 4 + i]));
        } else {
          Value byte = kb.andI(kb.shrU(word, kb.c32(8 * i)), kb.c32(0xFF));
          w.push_back(
              emitFp8BitsToF32(b, loc, byte, c.rhsScheme.getFormat()));
        }
      }
    }
    return w;
  };

  SmallVector<Value> init(rowsPerBlock * 16, kb.cF32(0.0f));
  Value kStart = kb.add(kBegin, kb.wide(rowLane));
  SmallVector<Value> acc = kb.forLoop(
      kStart, kEnd, kb.c64(kRowLanes * kUnroll), init,
      [&](Value k, ValueRange it) {
        SmallVector<Value> words, ks2, valids;
        for (int64_t u = 0; u < kUnroll; ++u) {
          Value kr = kb.add(k, kb.c64(u * kRowLanes));
          Value valid = kb.ult(kr, kEnd);
          ks2.push_back(kr);
          valids.push_back(valid);
          words.push_back(loadWeights(kr, valid));
        }
        SmallVector<Value> xs;
        for (int64_t u = 0; u < kUnroll; ++u)
          for (int64_t r = 0; r < rowsPerBlock; ++r) {
            Value m = kb.add(mBase, kb.c64(r));
            Value ok = kb.andB(valids[u], kb.ult(m, p.M));
            xs.push_back(kb.ifElse(
                ok, {kb.f32},
                [&] {
                  Value x = loadTensorElem(kb, p.a, c.lhsElem,
                                           kb.add(kb.mul(m, p.K), ks2[u]));
                  return SmallVector<Value>{kb.toF32(x)};
                },
                [&] { return SmallVector<Value>{kb.cF32(0.0f)}; })[0]);
          }
        SmallVector<Value> next(it.begin(), it.end());
        for (int64_t u = 0; u < kUnroll; ++u) {
          SmallVector<Value> w = decode(words[u]);
          for (int64_t r = 0; r < rowsPerBlock; ++r)
            for (int64_t j = 0; j < 16; ++j) {
              Value &a = next[r * 16 + j];
              a = kb.addF(a, kb.mulF(xs[u * rowsPerBlock + r], w[j]));
            }
        }
        return next;
      });

  // Reduce the 4 row lanes of a warp that share a column chunk (lanes
  // c, c + 8, c + 16, c + 24), then the 8 warps through shared memory.
  Value full = kb.c32(-1);
  for (Value &a : acc)
    for (int64_t d : {8, 16}) {
      Value other = NVVM::ShflOp::create(
          b, loc, kb.f32, full, a, kb.c32(d), kb.c32(0x1f),
          NVVM::ShflKindAttr::get(kb.ctx, NVVM::ShflKind::bfly),
          UnitAttr());
      a = kb.addF(a, other);
    }
  Value smem = kb.sharedBase();
  int64_t warps = kThreads / 32;
  auto red = [&](Value w, int64_t r, Value col) {
    Value idx = kb.add(kb.mul(kb.add(kb.mul(w, kb.c32(rowsPerBlock)),
                                     kb.c32(r)),
                              kb.c32(kBN)),
                       col);
    return kb.gep(smem, kb.f32, idx);
  };
  kb.ifThen(kb.ult(lane, kb.c32(kChunks)), [&] {
    for (int64_t r = 0; r < rowsPerBlock; ++r)
      for (int64_t j = 0; j < 16; ++j)
        kb.store(acc[r * 16 + j],
                 red(warp, r, kb.add(kb.mul(chunk, kb.c32(16)), kb.c32(j))),
                 4);
  });
  kb.barrier();
  int64_t entries = rowsPerBlock * kBN;
  Value ksplit = kb.wide(NVVM::GridDimYOp::create(b, loc, kb.i32));
  auto entryPos = [&](int64_t e) {
    Value idx = kb.add(tid, kb.c32(e * kThreads));
    Value r = kb.divU(idx, kb.c32(kBN));
    Value col = kb.remU(idx, kb.c32(kBN));
    Value m = kb.add(mBase, kb.wide(r));
    Value n = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kBN)), kb.wide(col));
    return std::make_tuple(r, col, m, n);
  };
  // Each thread sums (over the warps) ceil(entries / threads) entries.
  const int64_t perThread = (entries + kThreads - 1) / kThreads;
  auto inRange = [&](int64_t e) {
    return kb.ult(kb.add(tid, kb.c32(e * kThreads)), kb.c32(entries));
  };
  for (int64_t e = 0; e < perThread; ++e) {
    Value r, col, m, n;
    std::tie(r, col, m, n) = entryPos(e);
    kb.ifThen(kb.andB(inRange(e), kb.andB(kb.ult(m, p.M), kb.ult(n, p.N))),
              [&] {
                Value sum = kb.cF32(0.0f);
                for (int64_t w = 0; w < warps; ++w) {
                  Value idx = kb.add(
                      kb.mul(kb.add(kb.mul(kb.c32(w), kb.c32(rowsPerBlock)),
                                    r),
                             kb.c32(kBN)),
                      col);
                  sum = kb.addF(sum,
                                kb.load(kb.f32, kb.gep(smem, kb.f32, idx), 4));
                }
                Value at =
                    kb.add(kb.mul(kb.add(kb.mul(ks, p.M), m), p.N), n);
                kb.storeElem(sum, p.ws, at);
              });
  }

  // The last block of this column tile (in arrival order) sums the K
  // slices in slice order and runs the epilogue; it resets the counter for
  // the next launch.
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  kb.barrier();
  Value flagPtr = kb.gepBytes(smem, kb.c32(rowsPerBlock * kBN * warps * 4));
  Value counterIdx = kb.add(kb.mul(kb.wide(kb.bidZ()),
                                   kb.wide(kb.gridDimX())),
                            kb.wide(kb.bidX()));
  Value counter = kb.gep(p.counters, kb.i32, counterIdx);
  kb.ifThen(kb.eq(tid, kb.c32(0)), [&] {
    Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                                          counter, kb.c32(1),
                                          LLVM::AtomicOrdering::acq_rel,
                                          "device");
    Value last = kb.eq(kb.zext(old, kb.i64), kb.sub(ksplit, kb.c64(1)));
    kb.store(kb.zext(last, kb.i32), flagPtr, 4);
  });
  kb.barrier();
  Value isLast = kb.ne(kb.load(kb.i32, flagPtr, 4), kb.c32(0));
  kb.ifThen(isLast, [&] {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "device");
    for (int64_t e = 0; e < perThread; ++e) {
      Value r, col, m, n;
      std::tie(r, col, m, n) = entryPos(e);
      kb.ifThen(kb.andB(inRange(e), kb.andB(kb.ult(m, p.M), kb.ult(n, p.N))),
                [&] {
        SmallVector<Value> total = kb.forLoop(
            kb.c64(0), ksplit, kb.c64(1), {kb.cF32(0.0f)},
            [&](Value s, ValueRange it) {
              Value at = kb.add(kb.mul(kb.add(kb.mul(s, p.M), m), p.N), n);
              Value v = kb.load(kb.f32, kb.gep(p.ws, kb.f32, at), 4,
                                /*invariant=*/false, /*isVolatile=*/true);
              return SmallVector<Value>{kb.addF(it[0], v)};
            });
        emitEpilogue(kb, c, p, total[0], m, n, Value(), /*zpInAcc=*/true);
      });
    }
    kb.ifThen(kb.eq(tid, kb.c32(0)),
              [&] { kb.store(kb.c32(0), counter, 4); });
  });
}

} // namespace

gpu::GPUFuncOp cuda::buildMatmulKernel(OpBuilder &b, Location loc,
                                       StringRef name,
                                       const MatmulConfig &config) {
  KernelBuilder kb(b, loc);
  LaunchInfo info;
  info.kind = stringifyMatmulKernelKind(config.kind).str();
  int64_t block = 256;
  switch (config.kind) {
  case MatmulKernelKind::simt:
    info.tileM = 16;
    info.tileN = 16;
    break;
  case MatmulKernelKind::mmaSync:
    info.tileM = 128;
    info.tileN = 128;
    info.tileK = 64;
    info.sharedBytes = 3 * 2 * 128 * (64 + 16);
    break;
  case MatmulKernelKind::wgmma:
    info.tileM = 128;
    info.tileN = config.tileN;
    info.tileK = 128;
    info.sharedBytes = config.stages * (128 + config.tileN) * 128;
    break;
  case MatmulKernelKind::gemv:
    info.tileM = config.gemvRows;
    info.tileN = 128;
    info.tileK = 128; // k_chunk must be a multiple of this
    info.sharedBytes = config.gemvRows * 128 * 8 * 4 + 16;
    break;
  }
  info.block = block;
  gpu::GPUFuncOp func =
      createKernel(b, loc, name, matmulParamTypes(kb), block);
  setLaunchInfo(func, info);
  Params p(kb, func.getArguments());
  switch (config.kind) {
  case MatmulKernelKind::simt:
    buildSimtBody(kb, config, p);
    break;
  case MatmulKernelKind::mmaSync:
    buildMmaSyncBody(kb, config, p);
    break;
  case MatmulKernelKind::wgmma:
    buildWgmmaBody(kb, config, p);
    break;
  case MatmulKernelKind::gemv:
    buildGemvBody(kb, config, p);
    break;
  }
  return func;
}
