//===- CpuPack.h - Operand layouts of the CPU GEMM kernels ------*- C++ -*-===//
//
// The packed layouts the generated CPU kernels read (lib/Conversion/
// OctetToCPU). Header-only and MLIR-free: the compiler packs constant
// weights with packRhs at compile time, the runtime packs activations with
// packLhs at run time (octet_cpu_pack_lhs), so both sides agree by
// construction.
//
// A kernel multiplies KP consecutive k at a time per 32-bit lane (KP = 2:
// AVX2 vpmaddwd on s16 pairs; KP = 4: VNNI vpdpbusd and AMX on byte quads).
//
//  rhs (K x N codes, i8/u8):  [ceil(N/NR)][Kpad/KP][NR][KP] bytes, zeros in
//                             the padding (Kpad = K rounded up to kAlign).
//  lhs, LhsMode::s16MinusZp:  [ceil(M/MR)][Kpad/2][MR][2] int16 of A - za.
//  lhs, LhsMode::u8Shifted:   [ceil(M/MR)][Kpad/4][MR][4] bytes of A + 128
//                             (s8 A) or A (u8 A).
//  lhs, LhsMode::s8Tiles:     the AMX-INT8 tiles of 16 rows x 64 bytes,
//                             each tile's 1 KiB contiguous:
//                             [ceil(M/MR)*MR/16][Kpad/64][16][64] bytes (MR
//                             and Kpad multiples of 64 and 16), so that a
//                             tile load reads 16 consecutive lines.
//  lhs, LhsMode::e4m3Bf16Tiles / e5m2Bf16Tiles: the bf16 (uint16) of the
//                             FP8 codes' values in AMX-BF16 tiles of 16 rows
//                             x 32 k, each tile's 1 KiB contiguous:
//                             [ceil(M/MR)*MR/16][Kpad/32][16][32] (MR and
//                             Kpad multiples of 32), so that a tile load
//                             reads 16 consecutive lines.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_CPUPACK_H
#define OCTET_RUNTIME_CPUPACK_H

#include "octet/Runtime/Numerics.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace octet {
namespace cpu {

/// How the lhs is packed (the `mode` of octet_cpu_pack_lhs, low bits).
enum class LhsMode : int32_t {
  s16MinusZp = 0,
  u8Shifted = 1,
  s8Tiles = 2,
  e4m3Bf16Tiles = 3,
  e5m2Bf16Tiles = 4
};
/// Bit of `mode` saying that the lhs codes are unsigned (u8).
constexpr int32_t kLhsUnsignedBit = 0x10;

inline int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// Bytes of the packed rhs.
inline int64_t packedRhsBytes(int64_t k, int64_t n, int64_t nr, int64_t kpad) {
  (void)k;
  return roundUp(n, nr) * kpad;
}

/// Packs the K x N rhs codes `b` (row stride `ldb` bytes) into `out`.
inline void packRhs(const int8_t *b, int64_t k, int64_t n, int64_t ldb,
                    int64_t nr, int64_t kp, int64_t kpad, int8_t *out) {
  int64_t panels = (n + nr - 1) / nr;
  std::memset(out, 0, static_cast<size_t>(panels * nr * kpad));
  for (int64_t p = 0; p < panels; ++p) {
    int8_t *panel = out + p * nr * kpad;
    for (int64_t kk = 0; kk < k; ++kk) {
      int8_t *row = panel + (kk / kp) * nr * kp + kk % kp;
      const int8_t *src = b + kk * ldb + p * nr;
      int64_t cols = n - p * nr < nr ? n - p * nr : nr;
      for (int64_t j = 0; j < cols; ++j)
        row[j * kp] = src[j];
    }
  }
}

/// Column sums of the rhs codes (signed or unsigned), the compensation
/// vector of the VNNI and AMX kernels.
inline void rhsColumnSums(const int8_t *b, int64_t k, int64_t n, int64_t ldb,
                          bool isUnsigned, int32_t *sums) {
  for (int64_t j = 0; j < n; ++j)
    sums[j] = 0;
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      sums[j] += isUnsigned ? static_cast<int32_t>(
                                  static_cast<uint8_t>(b[kk * ldb + j]))
                            : static_cast<int32_t>(b[kk * ldb + j]);
}

/// The bf16 bits of the value of FP8 code `code` (E4M3FN, or E5M2 when
/// `e5m2`): the top half of the numerics core's f32 decode (decodeFp8).
/// Exact: every E4M3 and E5M2 value is a bf16 value (3 or 2 mantissa bits
/// of bf16's 7; exponents from 2^-9 / 2^-16, within bf16's normal range);
/// NaN codes give 0x7FC0 and E5M2's infinities 0x7F80, with the sign. The
/// vector forms (the run-time pack, the AMX-BF16 kernel's weight strips)
/// compute the same bits: a normal code's magnitude shifted into place plus
/// the difference of the exponent biases, subnormal codes from a table of
/// this function.
inline uint16_t fp8ToBf16Bits(uint8_t code, bool e5m2) {
  using numerics::StorageFormat;
  return static_cast<uint16_t>(
      numerics::bitsOf(numerics::decodeFp8(
          code, e5m2 ? StorageFormat::F8E5M2 : StorageFormat::F8E4M3FN)) >>
      16);
}

/// The index (in bf16 elements) of element (i, k) of an lhs packed in
/// bf16 tiles (LhsMode::e4m3Bf16Tiles / e5m2Bf16Tiles), k a multiple of
/// 32 or any k within the tile's 32.
inline int64_t bf16TileOffset(int64_t i, int64_t k, int64_t kpad) {
  return ((i / 16) * (kpad / 32) + k / 32) * 512 + (i % 16) * 32 + k % 32;
}

/// The byte offset of element (i, k) of an lhs packed in AMX-INT8 tiles
/// (LhsMode::s8Tiles), k a multiple of 64 or any k within the tile's 64.
inline int64_t s8TileOffset(int64_t i, int64_t k, int64_t kpad) {
  return ((i / 16) * (kpad / 64) + k / 64) * 1024 + (i % 16) * 64 + k % 64;
}

/// Bytes of the packed lhs.
inline int64_t packedLhsBytes(int64_t m, int64_t kpad, int64_t mr,
                              LhsMode mode) {
  int64_t elem = mode == LhsMode::s16MinusZp ||
                         mode == LhsMode::e4m3Bf16Tiles ||
                         mode == LhsMode::e5m2Bf16Tiles
                     ? 2
                     : 1;
  return roundUp(m, mr) * kpad * elem;
}

#if defined(__SSE2__)
/// The 16 bytes of each of four rows (x0..x3: quads q0..q3 of one row
/// each) stored as the u8-shifted panel wants them: quad h of the four
/// rows together at dst + h * stride, each byte XORed with `flip` (0x80:
/// the +128 shift of signed codes).
inline void storeQuadsTransposed(__m128i x0, __m128i x1, __m128i x2, __m128i x3,
                                 __m128i flip, uint8_t *dst, int64_t stride) {
  __m128i t0 = _mm_unpacklo_epi32(x0, x1); // r0q0 r1q0 r0q1 r1q1
  __m128i t1 = _mm_unpacklo_epi32(x2, x3); // r2q0 r3q0 r2q1 r3q1
  __m128i t2 = _mm_unpackhi_epi32(x0, x1); // r0q2 r1q2 r0q3 r1q3
  __m128i t3 = _mm_unpackhi_epi32(x2, x3);
  __m128i q[4] = {_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1),
                  _mm_unpacklo_epi64(t2, t3), _mm_unpackhi_epi64(t2, t3)};
  for (int64_t h = 0; h < 4; ++h)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + h * stride),
                     _mm_xor_si128(q[h], flip));
}
#endif

/// Packs row panels [p0, p1) of the M x K lhs codes `a` (row stride `lda`
/// bytes). `za` is null (no zero point), one value (`zaPerRow` false) or M
/// values; only LhsMode::s16MinusZp applies it.
inline void packLhsPanels(const int8_t *a, int64_t m, int64_t k, int64_t lda,
                          int32_t mode, const int32_t *za, bool zaPerRow,
                          int64_t mr, int64_t kpad, void *out, int64_t p0,
                          int64_t p1) {
  bool isUnsigned = mode & kLhsUnsignedBit;
  auto kind = static_cast<LhsMode>(mode & 0xf);
  auto code = [&](int64_t i, int64_t kk) -> int32_t {
    int8_t v = a[i * lda + kk];
    return isUnsigned ? static_cast<int32_t>(static_cast<uint8_t>(v))
                      : static_cast<int32_t>(v);
  };
  for (int64_t p = p0; p < p1; ++p) {
    // u8Shifted, a full panel: 4 rows x 16 bytes at a time, the 4 x 4
    // quads transposed in registers so that each store writes the 4 rows'
    // quad k / 4 together (the scalar loop below stores 4 bytes at a time
    // at a stride of mr * 4). The rest of K (and partial panels) take the
    // loop below from kDone on.
    int64_t kDone = 0;
#if defined(__SSE2__)
    if (kind == LhsMode::u8Shifted && mr % 4 == 0 && (p + 1) * mr <= m &&
        k >= 16) {
      kDone = k / 16 * 16;
      auto *panel = static_cast<uint8_t *>(out) + p * mr * kpad;
      __m128i flip = _mm_set1_epi8(isUnsigned ? 0 : static_cast<char>(0x80));
      for (int64_t r0 = 0; r0 < mr; r0 += 4) {
        const int8_t *row = a + (p * mr + r0) * lda;
        for (int64_t kk = 0; kk < kDone; kk += 16) {
          auto load = [&](int64_t r) {
            return _mm_loadu_si128(
                reinterpret_cast<const __m128i *>(row + r * lda + kk));
          };
          storeQuadsTransposed(load(0), load(1), load(2), load(3), flip,
                               panel + (kk / 4) * mr * 4 + r0 * 4, mr * 4);
        }
      }
    }
#endif
    for (int64_t r = 0; r < mr; ++r) {
      int64_t i = p * mr + r;
      bool valid = i < m;
      switch (kind) {
      case LhsMode::s16MinusZp: {
        // One 32-bit store per k pair (this loop is the run-time cost of
        // the AVX2 kernel besides the GEMM itself).
        auto *panel = reinterpret_cast<uint32_t *>(static_cast<int16_t *>(out) +
                                                   p * mr * kpad) +
                      r;
        int32_t z = !valid || !za ? 0 : za[zaPerRow ? i : 0];
        auto pair = [](int32_t lo, int32_t hi) {
          return static_cast<uint32_t>(static_cast<uint16_t>(lo)) |
                 (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16);
        };
        int64_t q = 0;
        if (valid) {
          const int8_t *row = a + i * lda;
          if (isUnsigned) {
            const auto *u = reinterpret_cast<const uint8_t *>(row);
            for (; 2 * q + 1 < k; ++q)
              panel[q * mr] = pair(u[2 * q] - z, u[2 * q + 1] - z);
          } else {
            for (; 2 * q + 1 < k; ++q)
              panel[q * mr] = pair(row[2 * q] - z, row[2 * q + 1] - z);
          }
          if (2 * q < k) {
            panel[q * mr] = pair(code(i, 2 * q) - z, 0);
            ++q;
          }
        }
        for (; 2 * q < kpad; ++q)
          panel[q * mr] = 0;
        break;
      }
      case LhsMode::u8Shifted: {
        auto *panel = static_cast<uint8_t *>(out) + p * mr * kpad;
        int32_t shift = isUnsigned ? 0 : 128;
        int64_t kk = kDone;
        if (valid) {
          // Whole quads: one 32-bit load and store each (A + 128 on a byte
          // is A ^ 0x80 modulo 256); this loop is the run-time cost of the
          // VNNI kernel besides the GEMM itself.
          const int8_t *row = a + i * lda;
          uint32_t flip = isUnsigned ? 0u : 0x80808080u;
          for (; kk + 4 <= k; kk += 4) {
            uint32_t quad;
            std::memcpy(&quad, row + kk, 4);
            quad ^= flip;
            std::memcpy(panel + (kk / 4) * mr * 4 + r * 4, &quad, 4);
          }
        }
        if (!valid) {
          // A padding row (decode's M = 1 fills mr - 1 of them per call):
          // whole quads of the shifted zero code, one 32-bit store each
          // (the byte loop below, with its divisions, took 10% of a
          // w8a8-dynamic decode step).
          uint32_t fill = static_cast<uint32_t>(shift) * 0x01010101u;
          for (; kk + 4 <= kpad; kk += 4)
            std::memcpy(panel + (kk / 4) * mr * 4 + r * 4, &fill, 4);
        }
        for (; kk < kpad; ++kk)
          panel[(kk / 4) * mr * 4 + r * 4 + kk % 4] =
              valid && kk < k ? static_cast<uint8_t>(code(i, kk) + shift)
                              : static_cast<uint8_t>(shift);
        break;
      }
      case LhsMode::s8Tiles: {
        // The row's 64-byte pieces into their tiles, zeros to Kpad (u8
        // codes are copied as they are: AMX here is s8 x s8 only,
        // MatmulPlan.cpp).
        auto *tiles = static_cast<int8_t *>(out) + s8TileOffset(i, 0, kpad);
        int64_t copied = valid ? k : 0;
        for (int64_t kk = 0; kk < kpad; kk += 64) {
          int8_t *dst = tiles + kk / 64 * 1024;
          int64_t n = copied - kk < 0 ? 0 : copied - kk > 64 ? 64 : copied - kk;
          if (n)
            std::memcpy(dst, a + i * lda + kk, static_cast<size_t>(n));
          if (n < 64)
            std::memset(dst + n, 0, static_cast<size_t>(64 - n));
        }
        break;
      }
      case LhsMode::e4m3Bf16Tiles:
      case LhsMode::e5m2Bf16Tiles: {
        auto *tiles = static_cast<uint16_t *>(out) + bf16TileOffset(i, 0, kpad);
        for (int64_t kk = 0; kk < kpad; ++kk)
          tiles[kk / 32 * 512 + kk % 32] =
              valid && kk < k
                  ? fp8ToBf16Bits(static_cast<uint8_t>(a[i * lda + kk]),
                                  kind == LhsMode::e5m2Bf16Tiles)
                  : uint16_t{0};
        break;
      }
      }
    }
  }
}

} // namespace cpu
} // namespace octet

#endif // OCTET_RUNTIME_CPUPACK_H
