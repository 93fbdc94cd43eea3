//===- GemvKernel.cpp - The gemv kernel for octet.matmul ------------------===//
//
// The gemv matmul kernel for weight-only products (float lhs, 8-bit rhs or
// 4-bit codes, few rows). 4-bit codes are stored one per byte, or, for
// constant weights with an even N, packed two per byte at compile time
// (K x N/2 bytes, column 2j in the low nibble: half the bytes to stream):
// streams B with 16-byte loads, converts integer codes with a byte
// permute into the mantissa of 2^23 (exact), splits K over blocks and
// reduces the partial sums deterministically in the last block of each
// column tile. Its f32 sums differ from the CPU's only in the order of the
// additions. Per-group weight scales (without zero points: W8A16 per group,
// FP8 / MXFP8 weight-only) multiply each decoded weight by its group's
// scale before the product, where the CPU scales each group's partial sum
// (both within the Bounds promise).
//
// A block of 256 threads computes `gemvRows` rows x 128 columns over one
// K slice (blockIdx.y): thread t owns the 16-column chunk t % 8 and every
// 32nd k from t / 8. The steps, in the order the body is written:
// coordinates, integer-code offsets, the K loop, the reduction over a
// warp's row lanes and then over the warps (shared memory), the slice's
// sums into the workspace, and the last block's sum over the slices with
// the epilogue.
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

#include <tuple>

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

namespace {

/// Writes the gemv body of one configuration, step by step.
class GemvBuilder {
public:
  GemvBuilder(KernelBuilder &kb, const MatmulConfig &c, const Params &p)
      : kb(kb), c(c), p(p), b(kb.b), loc(kb.loc), rowsPerBlock(c.gemvRows),
        vec4(VectorType::get({4}, kb.i32)),
        intW(!c.rhsScheme.isFloat() && !c.rhsScheme.isNf4()),
        signedW(intW && !c.rhsScheme.isUnsigned()),
        nibbles(c.rhsScheme.getStorageBits() == 4), packed(c.packedNibbles),
        vecB(VectorType::get({packed ? 2 : 4}, kb.i32)) {}

  /// Writes the whole body.
  void build();
  /// The 16 weights of row `k` of B, columns n0.. (decode, then
  /// scaleByGroup: zero outside B), for another kernel (the wgmma
  /// weight-only one).
  SmallVector<Value> chunkWeights(Value k, Value chunkN0, Value valid);

private:
  static constexpr int64_t kThreads = 256, kChunks = 8, kRowLanes = 32,
                           kUnroll = 4;
  static constexpr int64_t kBN = kChunks * 16; // 128 columns per block
  static constexpr int64_t kWarps = kThreads / 32;

  void computeCoordinates();
  void setChunk(Value chunkN0);
  void computeCodeOffsets();
  void scaleByGroup(SmallVectorImpl<Value> &w, Value k);
  Value loadWeights(Value k, Value valid);
  SmallVector<Value> decode(Value words);
  void decodeWord(Value word, ArrayRef<int64_t> columns,
                  SmallVectorImpl<Value> &w);
  SmallVector<Value> accumulate();
  void reduceRowLanes(SmallVector<Value> &acc);
  void storeWarpSums(ArrayRef<Value> acc);
  std::tuple<Value, Value, Value, Value> entryPos(int64_t e);
  Value inRange(int64_t e);
  void writeSliceSums();
  void sumSlicesInLastBlock();

  KernelBuilder &kb;
  const MatmulConfig &c;
  const Params &p;
  OpBuilder &b;
  Location loc;
  const int64_t rowsPerBlock;
  VectorType vec4;
  /// Integer codes (not FP8 / FP4 / NF4); signed ones; 4-bit codes (one
  /// per byte, in its low nibble: the high one is masked off); 4-bit codes
  /// two per byte (the 16 columns of a chunk in 8 bytes).
  const bool intW, signedW, nibbles, packed;
  /// A chunk's codes of one row: 4 words, or 2 when packed.
  VectorType vecB;
  /// Entries (row, column) of the block's output tile, and per thread.
  const int64_t entries = rowsPerBlock * kBN;
  const int64_t perThread = (entries + kThreads - 1) / kThreads;

  // Set by computeCoordinates.
  Value tid, chunk, rowLane, warp, lane, n0, ks, kBegin, kEnd, mBase,
      fullChunk;
  /// Per column of the chunk, what float(code - zb) subtracts from the
  /// permuted bits (integer codes).
  SmallVector<Value> offsets;
  /// Shared memory; the number of K slices (gridDim.y).
  Value smem, ksplit;
};

void GemvBuilder::build() {
  computeCoordinates();
  computeCodeOffsets();
  SmallVector<Value> acc = accumulate();
  reduceRowLanes(acc);
  storeWarpSums(acc);
  writeSliceSums();
  sumSlicesInLastBlock();
}

/// The thread's column chunk and row lane, its 16 columns from n0, the K
/// slice [kBegin, kEnd) and the block's first row.
void GemvBuilder::computeCoordinates() {
  tid = kb.tid();
  chunk = kb.remU(tid, kb.c32(kChunks));
  rowLane = kb.divU(tid, kb.c32(kChunks));
  warp = kb.divU(tid, kb.c32(32));
  lane = kb.remU(tid, kb.c32(32));
  setChunk(kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kBN)),
                  kb.wide(kb.mul(chunk, kb.c32(16)))));
  ks = kb.wide(kb.bidY());
  kBegin = kb.mul(ks, p.kChunk);
  kEnd = kb.minU(p.K, kb.add(kBegin, p.kChunk));
  mBase = kb.mul(kb.wide(kb.bidZ()), kb.c64(rowsPerBlock));
}

/// The thread's 16 columns start at `chunkN0`; `fullChunk`: they are all
/// inside B and N % 16 == 0 (one vector load per row).
void GemvBuilder::setChunk(Value chunkN0) {
  n0 = chunkN0;
  fullChunk = kb.andB(kb.eq(kb.remU(p.N, kb.c64(16)), kb.c64(0)),
                      kb.ult(n0, p.N));
}

/// Integer codes: bits(0x4B000000 | byte) = 2^23 + byte exactly, so
/// float(code - zb) = that - (2^23 + bias + zb) with bias 128 for signed
/// codes (flipped to unsigned with ^ 0x80).
void GemvBuilder::computeCodeOffsets() {
  if (intW) {
    float base = 8388608.0f + (signedW ? (nibbles ? 8.0f : 128.0f) : 0.0f);
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
}

/// The 16 codes of row `k` in the thread's chunk as 4 words (2 when
/// packed): one 16-byte (8-byte) load for a full chunk, byte loads (zero
/// outside B) otherwise.
Value GemvBuilder::loadWeights(Value k, Value valid) {
  int64_t bytes = packed ? 8 : 16, words = bytes / 4;
  // Bytes per row of B and the chunk's first byte.
  Value rowBytes = packed ? kb.divU(p.N, kb.c64(2)) : p.N;
  Value offset =
      kb.add(kb.mul(k, rowBytes), packed ? kb.divU(n0, kb.c64(2)) : n0);
  return kb.ifElse(
      kb.andB(valid, fullChunk), {vecB},
      [&] {
        return SmallVector<Value>{
            kb.load(vecB, kb.gepBytes(p.b, offset), bytes, /*invariant=*/true)};
      },
      [&] {
        Value v = LLVM::UndefOp::create(b, loc, vecB);
        for (int64_t w = 0; w < words; ++w) {
          Value word = kb.c32(0);
          for (int64_t i = 0; i < 4; ++i) {
            // The byte's (first) column.
            int64_t byteIdx = w * 4 + i;
            Value n = kb.add(n0, kb.c64(packed ? 2 * byteIdx : byteIdx));
            Value ok = kb.andB(valid, kb.ult(n, p.N));
            Value byte = kb.ifElse(
                ok, {kb.i8},
                [&] {
                  return SmallVector<Value>{kb.load(
                      kb.i8, kb.gepBytes(p.b, kb.add(offset, kb.c64(byteIdx))),
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
}

/// The 16 weights of `words` as f32: float(code - zb) for integer codes,
/// the decoded value for FP8 / FP4 / NF4. Packed words hold columns
/// 8q + 2i (low nibbles of word q) and 8q + 2i + 1 (high nibbles).
SmallVector<Value> GemvBuilder::decode(Value words) {
  SmallVector<Value> w(16);
  for (int64_t q = 0; q < (packed ? 2 : 4); ++q) {
    Value word = LLVM::ExtractElementOp::create(b, loc, words, kb.c32(q));
    if (!packed) {
      decodeWord(word, {4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3}, w);
      continue;
    }
    decodeWord(word, {8 * q, 8 * q + 2, 8 * q + 4, 8 * q + 6}, w);
    decodeWord(kb.shrU(word, kb.c32(4)),
               {8 * q + 1, 8 * q + 3, 8 * q + 5, 8 * q + 7}, w);
  }
  return w;
}

/// Decodes the 4 codes in the bytes of `word` (4-bit codes in the low
/// nibbles) into w[columns[i]].
void GemvBuilder::decodeWord(Value word, ArrayRef<int64_t> columns,
                             SmallVectorImpl<Value> &w) {
  if (nibbles)
    word = kb.andI(word, kb.c32(0x0F0F0F0F));
  if (signedW)
    word = kb.xorI(word, kb.c32(static_cast<int32_t>(nibbles ? 0x08080808u
                                                             : 0x80808080u)));
  for (int64_t i = 0; i < 4; ++i) {
    int64_t col = columns[i];
    if (intW) {
      Value bits =
          kb.prmt(word, kb.c32(0x4B000000), 0x7540 | static_cast<int32_t>(i));
      w[col] = kb.subF(kb.bitcast(bits, kb.f32), offsets[col]);
    } else {
      Value byte = kb.andI(kb.shrU(word, kb.c32(8 * i)), kb.c32(0xFF));
      w[col] = c.rhsScheme.isNf4()
                   ? emitNf4ToF32(b, loc, byte)
                   : emitFp8BitsToF32(b, loc, byte, c.rhsScheme.getFormat());
    }
  }
}

/// The K loop: per thread, rowsPerBlock x 16 f32 sums over its k of the
/// slice, kUnroll rows of B in flight.
SmallVector<Value> GemvBuilder::accumulate() {
  SmallVector<Value> init(rowsPerBlock * 16, kb.cF32(0.0f));
  Value kStart = kb.add(kBegin, kb.wide(rowLane));
  return kb.forLoop(
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
          scaleByGroup(w, ks2[u]);
          for (int64_t r = 0; r < rowsPerBlock; ++r)
            for (int64_t j = 0; j < 16; ++j) {
              Value &a = next[r * 16 + j];
              a = kb.addF(a, kb.mulF(xs[u * rowsPerBlock + r], w[j]));
            }
        }
        return next;
      });
}

/// Per-group scales: w[j] * sb[k / G, n0 + j] (row k's group; clamped
/// indices outside B, where the codes are zero). Other schemes scale in
/// the epilogue.
void GemvBuilder::scaleByGroup(SmallVectorImpl<Value> &w, Value k) {
  if (!c.grouped())
    return;
  Value g = kb.divU(kb.minU(k, kb.sub(p.K, kb.c64(1))),
                    kb.c64(c.rhsScheme.getGroupSize()));
  for (int64_t j = 0; j < 16; ++j) {
    Value n = kb.minU(kb.add(n0, kb.c64(j)), kb.sub(p.N, kb.c64(1)));
    w[j] = kb.mulF(w[j], kb.loadElem(p.sb, kb.f32, kb.add(kb.mul(g, p.N), n)));
  }
}

/// Reduces the 4 row lanes of a warp that share a column chunk (lanes
/// c, c + 8, c + 16, c + 24).
void GemvBuilder::reduceRowLanes(SmallVector<Value> &acc) {
  Value full = kb.c32(-1);
  for (Value &a : acc)
    for (int64_t d : {8, 16}) {
      Value other = NVVM::ShflOp::create(
          b, loc, kb.f32, full, a, kb.c32(d), kb.c32(0x1f),
          NVVM::ShflKindAttr::get(kb.ctx, NVVM::ShflKind::bfly),
          UnitAttr());
      a = kb.addF(a, other);
    }
}

/// The first 8 lanes of each warp store the warp's sums in shared memory
/// ([warp][row][column]).
void GemvBuilder::storeWarpSums(ArrayRef<Value> acc) {
  smem = kb.sharedBase();
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
}

/// Entry e of this thread: (row and column in the tile, m, n).
std::tuple<Value, Value, Value, Value> GemvBuilder::entryPos(int64_t e) {
  Value idx = kb.add(tid, kb.c32(e * kThreads));
  Value r = kb.divU(idx, kb.c32(kBN));
  Value col = kb.remU(idx, kb.c32(kBN));
  Value m = kb.add(mBase, kb.wide(r));
  Value n = kb.add(kb.mul(kb.wide(kb.bidX()), kb.c64(kBN)), kb.wide(col));
  return std::make_tuple(r, col, m, n);
}

/// Whether this thread has an entry e.
Value GemvBuilder::inRange(int64_t e) {
  return kb.ult(kb.add(tid, kb.c32(e * kThreads)), kb.c32(entries));
}

/// Each thread sums (over the warps) ceil(entries / threads) entries and
/// writes them to the workspace as this K slice's ([slice][m][n]).
void GemvBuilder::writeSliceSums() {
  ksplit = kb.wide(NVVM::GridDimYOp::create(b, loc, kb.i32));
  for (int64_t e = 0; e < perThread; ++e) {
    Value r, col, m, n;
    std::tie(r, col, m, n) = entryPos(e);
    kb.ifThen(kb.andB(inRange(e), kb.andB(kb.ult(m, p.M), kb.ult(n, p.N))),
              [&] {
                Value sum = kb.cF32(0.0f);
                for (int64_t w = 0; w < kWarps; ++w) {
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
}

/// The last block of this column tile (in arrival order) sums the K
/// slices in slice order and runs the epilogue; it resets the counter for
/// the next launch.
void GemvBuilder::sumSlicesInLastBlock() {
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  kb.barrier();
  Value flagPtr = kb.gepBytes(smem, kb.c32(rowsPerBlock * kBN * kWarps * 4));
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

SmallVector<Value> GemvBuilder::chunkWeights(Value k, Value chunkN0,
                                             Value valid) {
  setChunk(chunkN0);
  offsets.clear();
  computeCodeOffsets();
  SmallVector<Value> w = decode(loadWeights(k, valid));
  scaleByGroup(w, k);
  return w;
}

} // namespace

void cuda::buildGemvBody(KernelBuilder &kb, const MatmulConfig &c,
                         const Params &p) {
  GemvBuilder(kb, c, p).build();
}

SmallVector<Value> cuda::loadRhsChunk(KernelBuilder &kb, const MatmulConfig &c,
                                      const Params &p, Value k, Value n0,
                                      Value valid) {
  return GemvBuilder(kb, c, p).chunkWeights(k, n0, valid);
}
