//===- NumericsRow.h - Octet's quantization rules over rows ------*- C++ -*-===//
//
// The rules of Numerics.h applied to runs of elements, written so that a
// compiler vectorizes them (no early exits, no scatter, selects instead of
// branches, several independent accumulators). Every element's result is the
// one Numerics.h computes for it, bit for bit: the per-element steps are
// the same C++ operations (quantizeInt, dequantizeInt), and vectorizing
// element-wise IEEE operations changes no result. Only the error sums
// (RowErrors) are accumulated in a different order than a sequential loop
// would use (kLanes interleaved partial sums, merged in a fixed order), so
// they are deterministic but not the sequential sums' last bits.
//
// Callers pick the instruction set: octet-quantize-weights instantiates
// these templates inside __attribute__((target("avx2"))) wrappers and
// dispatches on the running CPU (lib/Transforms/QuantizeWeights); the
// unit tests instantiate them both ways and compare with Numerics.h.
//
// A run's parameters are either one (scale, zero point) for every element
// (PerElement = false: scale[0], zp[0]) or one per element (PerElement =
// true: scale[i], zp[i]), which covers every granularity in memory order:
// per-channel along the last axis is a run of consecutive channels, per
// group along the last axis a run of one group, and so on.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_NUMERICSROW_H
#define OCTET_RUNTIME_NUMERICSROW_H

#include "octet/Runtime/Numerics.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace octet {
namespace numerics {

/// Integer codes of x[0..n): codes[i] = quantizeInt(x[i], ...) & mask (0xff
/// for 8-bit storage, 0x0f for the low nibble of 4-bit codes), and the
/// dequantized value xhat[i] = dequantizeInt(q, ...).
template <bool PerElement>
inline void quantizeIntRow(const float *__restrict x, int64_t n,
                           const float *__restrict scale,
                           const int32_t *__restrict zp, IntRange r,
                           uint8_t mask, uint8_t *__restrict codes,
                           float *__restrict xhat) {
  for (int64_t i = 0; i < n; ++i) {
    const float s = PerElement ? scale[i] : scale[0];
    const int32_t z = PerElement ? zp[i] : zp[0];
    const int32_t q = quantizeInt(x[i], s, z, r.qmin, r.qmax);
    codes[i] = static_cast<uint8_t>(q & mask);
    xhat[i] = dequantizeInt(q, s, z);
  }
}

/// Integer codes of x[0..n) with one scale and zero point, as bytes:
/// codes[i] = quantizeInt(x[i], scale, zp, r.qmin, r.qmax) & 0xff (8-bit
/// storage; the per-token activations that octet_cpu_quantize_pack_lhs
/// packs). quantizeIntCodesRowAvx2 / Avx512 below compute the same steps on
/// vectors: the quotient (by the reciprocal where that provably gives the
/// same integer, reciprocalQuantizeOk), round to nearest even
/// (roundHalfEven's result for every input, -0 and +-inf included), NaN to
/// 0, + zp, the clamp; every value is then an integer in [qmin, qmax], so
/// the conversion is exact.
inline void quantizeIntCodesRow(const float *__restrict x, int64_t n,
                                float scale, int32_t zp, IntRange r,
                                int8_t *__restrict codes) {
  for (int64_t i = 0; i < n; ++i)
    codes[i] = static_cast<int8_t>(
        quantizeInt(x[i], scale, zp, r.qmin, r.qmax) & 0xff);
}

/// The 256 FP8 codes of format `f` decoded (decodeFp8, exact), for
/// fp8QuantizeRow's reconstructions.
struct Fp8Table {
  float value[256];
  explicit Fp8Table(StorageFormat f) {
    for (unsigned c = 0; c < 256; ++c)
      value[c] = decodeFp8(static_cast<uint8_t>(c), f);
  }
};

/// FP8 codes of x[0..n): codes[i] = quantizeFp8(x[i], ...) (with
/// nanAsZero, NaN quantizes like 0: nonfinite=clip), and xhat[i] =
/// dequantizeFp8(codes[i], ...) through the decoded table.
template <bool PerElement>
inline void quantizeFp8Row(const float *__restrict x, int64_t n,
                           const float *__restrict scale, StorageFormat f,
                           bool saturate, bool nanAsZero,
                           const Fp8Table &table, uint8_t *__restrict codes,
                           float *__restrict xhat) {
  for (int64_t i = 0; i < n; ++i) {
    const float s = PerElement ? scale[i] : scale[0];
    const float v = (nanAsZero && x[i] != x[i]) ? 0.0f : x[i];
    const uint8_t q = encodeFp8(v / s, f, saturate);
    codes[i] = q;
    xhat[i] = table.value[q] * s;
  }
}

/// The minimum and maximum of x[0..n) folded into `mn` / `mx` (which start
/// at 0, as in RangeStats). NaN is ignored; with FiniteOnly, +-inf too.
/// min and max are exact, so the lane order does not matter: the result is
/// RangeStats's (absmax = max(-mn, mx)), except that a -0 never replaces
/// the initial +0.
template <bool FiniteOnly>
inline void minMaxRow(const float *__restrict x, int64_t n, float &mn,
                      float &mx) {
  constexpr int kL = 16;
  float lmn[kL], lmx[kL];
  for (int l = 0; l < kL; ++l) {
    lmn[l] = mn;
    lmx[l] = mx;
  }
  int64_t i = 0;
  for (; i + kL <= n; i += kL)
    for (int l = 0; l < kL; ++l) {
      float v = x[i + l];
      if (FiniteOnly)
        v = std::fabs(v) <= kFloatMax ? v : 0.0f; // NaN compares false
      lmn[l] = v < lmn[l] ? v : lmn[l];
      lmx[l] = v > lmx[l] ? v : lmx[l];
    }
  for (; i < n; ++i) {
    float v = x[i];
    if (FiniteOnly)
      v = std::fabs(v) <= kFloatMax ? v : 0.0f;
    lmn[0] = v < lmn[0] ? v : lmn[0];
    lmx[0] = v > lmx[0] ? v : lmx[0];
  }
  for (int l = 0; l < kL; ++l) {
    mn = lmn[l] < mn ? lmn[l] : mn;
    mx = lmx[l] > mx ? lmx[l] : mx;
  }
}

/// Element-wise: mn[i] = min(mn[i], x[i]), mx[i] = max(mx[i], x[i]) under
/// the rules of minMaxRow.
template <bool FiniteOnly>
inline void minMaxUpdate(const float *__restrict x, int64_t n,
                         float *__restrict mn, float *__restrict mx) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    if (FiniteOnly)
      v = std::fabs(v) <= kFloatMax ? v : 0.0f;
    mn[i] = v < mn[i] ? v : mn[i];
    mx[i] = v > mx[i] ? v : mx[i];
  }
}

/// Whether x[0..n) holds a NaN or an infinity (exponent bits all ones).
inline bool anyNonFiniteRow(const float *__restrict x, int64_t n) {
  uint32_t acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, x + i, 4);
    acc |= static_cast<uint32_t>((u & 0x7f800000u) == 0x7f800000u);
  }
  return acc != 0;
}

/// The reconstruction errors of a run, as SqnrAccumulator, the maximum
/// absolute error and ErrorHistogram measure them (in double), accumulated
/// in kLanes interleaved partial sums. Elements whose reference value is
/// not finite are not counted (nonfinite=clip).
struct RowErrors {
  static constexpr int kLanes = 4;
  static constexpr unsigned kEdges = ErrorHistogram::kBins - 1;
  double signal[kLanes] = {};
  double noise[kLanes] = {};
  double maxAbs[kLanes] = {};
  /// Finite elements; of those, how many have an error above each edge
  /// (ErrorHistogram::kUpper[e]), and how many a NaN error.
  int64_t counted[kLanes] = {};
  int64_t above[kEdges][kLanes] = {};
  int64_t nanError[kLanes] = {};

  /// Adds this run's sums (lanes in order) to the report's accumulators.
  void mergeInto(SqnrAccumulator &sqnr, double &maxAbsError,
                 ErrorHistogram &hist) const {
    for (int l = 0; l < kLanes; ++l) {
      sqnr.signal += signal[l];
      sqnr.noise += noise[l];
      maxAbsError = std::max(maxAbsError, maxAbs[l]);
    }
    // above[] is cumulative: bin 0 holds the errors at or below the first
    // edge, bin b those in (edge[b-1], edge[b]], the last the rest and NaN.
    int64_t prev = 0, nans = 0;
    for (int l = 0; l < kLanes; ++l) {
      prev += counted[l] - nanError[l];
      nans += nanError[l];
    }
    for (unsigned e = 0; e < kEdges; ++e) {
      int64_t a = 0;
      for (int l = 0; l < kLanes; ++l)
        a += above[e][l];
      hist.counts[e] += static_cast<uint64_t>(prev - a);
      prev = a;
    }
    hist.counts[kEdges] += static_cast<uint64_t>(prev + nans);
  }
};

namespace detail {
/// The error sums of one element into lane l of the locals of
/// accumulateErrorRow.
struct ErrorLanes {
  static constexpr int kL = RowErrors::kLanes;
  static constexpr unsigned kE = RowErrors::kEdges;
  double sig[kL], noi[kL], mx[kL], cnt[kL], nan[kL], abv[kE][kL];
  explicit ErrorLanes(const RowErrors &acc) {
    for (int l = 0; l < kL; ++l) {
      sig[l] = acc.signal[l];
      noi[l] = acc.noise[l];
      mx[l] = acc.maxAbs[l];
      cnt[l] = nan[l] = 0.0;
      for (unsigned b = 0; b < kE; ++b)
        abv[b][l] = 0.0;
    }
  }
  void add(int l, float xf, float hf, float sf) {
    const bool finite = std::fabs(xf) <= kFloatMax;
    const double f = finite ? 1.0 : 0.0;
    const double dx = finite ? static_cast<double>(xf) : 0.0;
    const double e = dx - (finite ? static_cast<double>(hf) : 0.0);
    const double ae = std::fabs(e);
    const double u = ae / static_cast<double>(sf);
    mx[l] = mx[l] < ae ? ae : mx[l];
    sig[l] += dx * dx;
    noi[l] += e * e;
    cnt[l] += f;
    nan[l] += u != u ? f : 0.0;
    for (unsigned b = 0; b < kE; ++b)
      abv[b][l] += u > ErrorHistogram::kUpper[b] ? f : 0.0;
  }
  void store(RowErrors &acc) const {
    for (int l = 0; l < kL; ++l) {
      acc.signal[l] = sig[l];
      acc.noise[l] = noi[l];
      acc.maxAbs[l] = mx[l];
      acc.counted[l] += static_cast<int64_t>(cnt[l]);
      acc.nanError[l] += static_cast<int64_t>(nan[l]);
      for (unsigned b = 0; b < kE; ++b)
        acc.above[b][l] += static_cast<int64_t>(abv[b][l]);
    }
  }
};
} // namespace detail

/// Adds the errors of xhat[0..n) against the reference values ref[0..n),
/// each measured in units of its scale, to `acc`: element i goes to lane
/// i % kLanes, the last n % kLanes elements to lane 0.
template <bool PerElement>
inline void accumulateErrorRow(const float *__restrict ref,
                               const float *__restrict xhat, int64_t n,
                               const float *__restrict scale, RowErrors &acc) {
  constexpr int kL = RowErrors::kLanes;
  detail::ErrorLanes lanes(acc);
  int64_t i = 0;
  for (; i + kL <= n; i += kL)
    for (int l = 0; l < kL; ++l)
      lanes.add(l, ref[i + l], xhat[i + l], PerElement ? scale[i + l] : scale[0]);
  for (; i < n; ++i)
    lanes.add(0, ref[i], xhat[i], PerElement ? scale[i] : scale[0]);
  lanes.store(acc);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define OCTET_NUMERICS_ROW_AVX2 1
/// accumulateErrorRow in AVX2 (4 doubles per vector, the same lanes and the
/// same operations, so the same sums bit for bit); the compilers do not
/// vectorize the portable loop. For callers that checked the CPU.
template <bool PerElement>
__attribute__((target("avx2"))) inline void
accumulateErrorRowAvx2(const float *__restrict ref,
                       const float *__restrict xhat, int64_t n,
                       const float *__restrict scale, RowErrors &acc) {
  constexpr unsigned kE = RowErrors::kEdges;
  const __m256d absMask =
      _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d fmax = _mm256_set1_pd(static_cast<double>(kFloatMax));
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d sig = _mm256_loadu_pd(acc.signal);
  __m256d noi = _mm256_loadu_pd(acc.noise);
  __m256d mx = _mm256_loadu_pd(acc.maxAbs);
  __m256d cnt = _mm256_setzero_pd(), nan = _mm256_setzero_pd();
  __m256i abv[kE];
  __m256d edge[kE];
  for (unsigned b = 0; b < kE; ++b) {
    abv[b] = _mm256_setzero_si256();
    edge[b] = _mm256_set1_pd(ErrorHistogram::kUpper[b]);
  }
  __m256d sc = _mm256_set1_pd(static_cast<double>(scale[0]));
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(ref + i));
    __m256d h = _mm256_cvtps_pd(_mm_loadu_ps(xhat + i));
    if (PerElement)
      sc = _mm256_cvtps_pd(_mm_loadu_ps(scale + i));
    __m256d fin = _mm256_cmp_pd(_mm256_and_pd(x, absMask), fmax, _CMP_LE_OQ);
    __m256d dx = _mm256_and_pd(x, fin);
    __m256d e = _mm256_sub_pd(dx, _mm256_and_pd(h, fin));
    __m256d ae = _mm256_and_pd(e, absMask);
    __m256d u = _mm256_div_pd(ae, sc);
    __m256d f = _mm256_and_pd(fin, one);
    mx = _mm256_max_pd(ae, mx); // mx < ae ? ae : mx
    sig = _mm256_add_pd(sig, _mm256_mul_pd(dx, dx));
    noi = _mm256_add_pd(noi, _mm256_mul_pd(e, e));
    cnt = _mm256_add_pd(cnt, f);
    nan = _mm256_add_pd(nan,
                        _mm256_and_pd(_mm256_cmp_pd(u, u, _CMP_UNORD_Q), f));
    // A masked-out element has e = 0, u = 0 (scales are positive): above
    // no edge. The all-ones compare result is -1 as an integer.
    for (unsigned b = 0; b < kE; ++b)
      abv[b] = _mm256_sub_epi64(
          abv[b], _mm256_castpd_si256(_mm256_cmp_pd(u, edge[b], _CMP_GT_OQ)));
  }
  detail::ErrorLanes lanes(acc);
  _mm256_storeu_pd(lanes.sig, sig);
  _mm256_storeu_pd(lanes.noi, noi);
  _mm256_storeu_pd(lanes.mx, mx);
  _mm256_storeu_pd(lanes.cnt, cnt);
  _mm256_storeu_pd(lanes.nan, nan);
  for (unsigned b = 0; b < kE; ++b) {
    alignas(32) int64_t c[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(c), abv[b]);
    for (int l = 0; l < 4; ++l)
      lanes.abv[b][l] = static_cast<double>(c[l]);
  }
  for (; i < n; ++i)
    lanes.add(0, ref[i], xhat[i], PerElement ? scale[i] : scale[0]);
  lanes.store(acc);
}

/// mn = the minimum of the 8 lanes of `lo`, mx = the maximum of `hi`, as a
/// tree (min and max are exact: any order gives the same value; a zero's
/// sign could depend on the order only when an accumulator starts above 0
/// for the minimum or below 0 for the maximum, which RangeStats's never
/// do).
__attribute__((target("avx2"))) inline void
reduceMinMax8(__m256 lo, __m256 hi, float &mn, float &mx) {
  __m128 l4 =
      _mm_min_ps(_mm256_extractf128_ps(lo, 1), _mm256_castps256_ps128(lo));
  __m128 h4 =
      _mm_max_ps(_mm256_extractf128_ps(hi, 1), _mm256_castps256_ps128(hi));
  l4 = _mm_min_ps(_mm_movehl_ps(l4, l4), l4);
  h4 = _mm_max_ps(_mm_movehl_ps(h4, h4), h4);
  l4 = _mm_min_ss(_mm_shuffle_ps(l4, l4, 1), l4);
  h4 = _mm_max_ss(_mm_shuffle_ps(h4, h4, 1), h4);
  mn = _mm_cvtss_f32(l4);
  mx = _mm_cvtss_f32(h4);
}

/// minMaxRow<false> on vectors (vminps / vmaxps return their second
/// operand when either is NaN: `v < mn ? v : mn`, minMaxRow's select), for
/// callers that checked the CPU; the compilers keep the template's loop
/// scalar here.
__attribute__((target("avx2"))) inline void
minMaxRowAvx2(const float *__restrict x, int64_t n, float &mn, float &mx) {
  __m256 lo0 = _mm256_set1_ps(mn), hi0 = _mm256_set1_ps(mx);
  __m256 lo1 = lo0, hi1 = hi0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    lo0 = _mm256_min_ps(a, lo0);
    hi0 = _mm256_max_ps(a, hi0);
    lo1 = _mm256_min_ps(b, lo1);
    hi1 = _mm256_max_ps(b, hi1);
  }
  reduceMinMax8(_mm256_min_ps(lo1, lo0), _mm256_max_ps(hi1, hi0), mn, mx);
  minMaxRow<false>(x + i, n - i, mn, mx);
}

/// minMaxRow<false> with AVX-512 (as minMaxRowAvx2).
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void
minMaxRowAvx512(const float *__restrict x, int64_t n, float &mn, float &mx) {
  __m512 lo0 = _mm512_set1_ps(mn), hi0 = _mm512_set1_ps(mx);
  __m512 lo1 = lo0, hi1 = hi0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    lo0 = _mm512_min_ps(a, lo0);
    hi0 = _mm512_max_ps(a, hi0);
    lo1 = _mm512_min_ps(b, lo1);
    hi1 = _mm512_max_ps(b, hi1);
  }
  for (; i < n; i += 16) {
    int64_t left = n - i;
    __mmask16 mask = left >= 16 ? static_cast<__mmask16>(0xffff)
                                : static_cast<__mmask16>((1u << left) - 1);
    // Masked-off lanes load NaN, which min and max ignore.
    __m512 a =
        _mm512_mask_loadu_ps(_mm512_set1_ps(__builtin_nanf("")), mask, x + i);
    lo0 = _mm512_min_ps(a, lo0);
    hi0 = _mm512_max_ps(a, hi0);
  }
  // The two 256-bit halves, then a tree (see reduceMinMax8).
  __m512 lo = _mm512_min_ps(lo1, lo0), hi = _mm512_max_ps(hi1, hi0);
  reduceMinMax8(
      _mm256_min_ps(
          _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lo), 1)),
          _mm512_castps512_ps256(lo)),
      _mm256_max_ps(
          _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(hi), 1)),
          _mm512_castps512_ps256(hi)),
      mn, mx);
}

/// Whether the vector forms of quantizeIntCodesRow may divide by
/// multiplying with the reciprocal (below). x * fl(1 / s) is within
/// 2^-23 |x / s| (plus 2^-149) of x / s, and fl(x / s) within 2^-24 |x / s|:
/// for |x / s| < 512 the two are less than 2^-13 apart, so both round to
/// the same integer unless x * fl(1 / s) lies within 2^-12 of a midpoint
/// k + 1/2, where the vector forms divide instead (the whole vector, about
/// one element in 4000 of random data). From |x * fl(1 / s)| >= 512 on,
/// |x / s| > 511 too, and both codes clamp to the same end of the range
/// (|zp| <= 255, qmin >= -256, qmax <= 255: 8-bit storage), so the
/// midpoint test needs no range check there (a division it asks for is
/// exact anyway). Needs a normal reciprocal: s in [2^-126, 2^126).
inline bool reciprocalQuantizeOk(float scale, int32_t zp, IntRange r) {
  return scale >= kFloatMinNormal && scale < 0x1p126f && zp >= -255 &&
         zp <= 255 && r.qmin >= -256 && r.qmax <= 255;
}

/// quantizeIntCodesRow, 8 elements per step. For callers that checked the
/// CPU.
__attribute__((target("avx2"))) inline void
quantizeIntCodesRowAvx2(const float *__restrict x, int64_t n, float scale,
                        int32_t zp, IntRange r, int8_t *__restrict codes) {
  const bool fast = reciprocalQuantizeOk(scale, zp, r);
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 rcp = _mm256_set1_ps(1.0f / scale);
  const __m256 nearTie = _mm256_set1_ps(0.5f - 0x1p-12f);
  const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 z = _mm256_set1_ps(static_cast<float>(zp));
  const __m256 lo = _mm256_set1_ps(static_cast<float>(r.qmin));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(r.qmax));
  // Byte 0 of each 32-bit lane into the low 4 bytes of each 128-bit half.
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1,
                                        -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1,
                                        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 xv = _mm256_loadu_ps(x + i);
    __m256 v;
    if (fast) {
      __m256 p = _mm256_mul_ps(xv, rcp);
      v = _mm256_round_ps(p, kRne);
      // (Past |p| = 512 a division the test asks for is merely exact.)
      __m256 d = _mm256_and_ps(_mm256_sub_ps(p, v), absMask);
      if (_mm256_movemask_ps(_mm256_cmp_ps(d, nearTie, _CMP_GT_OQ)))
        v = _mm256_round_ps(_mm256_div_ps(xv, s), kRne);
    } else {
      v = _mm256_round_ps(_mm256_div_ps(xv, s), kRne);
    }
    if (zp == 0) {
      // A NaN passes max(lo, v) and min(hi, v) (their second operand) and
      // converts to 0x80000000, whose low byte is the zero point, 0.
      v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
    } else {
      v = _mm256_blendv_ps(v, _mm256_setzero_ps(),
                           _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, z), lo), hi);
    }
    __m256i b = _mm256_shuffle_epi8(_mm256_cvtps_epi32(v), pick);
    uint32_t w[2] = {static_cast<uint32_t>(_mm256_extract_epi32(b, 0)),
                     static_cast<uint32_t>(_mm256_extract_epi32(b, 4))};
    std::memcpy(codes + i, w, 8);
  }
  quantizeIntCodesRow(x + i, n - i, scale, zp, r, codes + i);
}

/// The vectors of quantizeInt16Avx512's steps for one scale and zero point.
struct QuantizeVectorsAvx512 {
  __m512 s, rcp, z, lo, hi;
  bool fast; // reciprocalQuantizeOk
  bool zeroZp;
};

__attribute__((
    target("avx512f,avx512bw,avx512vl"))) inline QuantizeVectorsAvx512
quantizeVectorsAvx512(float scale, int32_t zp, IntRange r) {
  return {_mm512_set1_ps(scale),
          _mm512_set1_ps(1.0f / scale),
          _mm512_set1_ps(static_cast<float>(zp)),
          _mm512_set1_ps(static_cast<float>(r.qmin)),
          _mm512_set1_ps(static_cast<float>(r.qmax)),
          reciprocalQuantizeOk(scale, zp, r),
          zp == 0};
}

/// The codes of the 16 floats `xv` as bytes: quantizeInt(x, scale, zp,
/// r.qmin, r.qmax) & 0xff, the steps of quantizeIntCodesRowAvx2 on 16 lanes.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m128i
quantizeInt16Avx512(__m512 xv, const QuantizeVectorsAvx512 &c) {
  constexpr int kRne = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __m512 nearTie = _mm512_set1_ps(0.5f - 0x1p-12f);
  __m512 v;
  if (c.fast) {
    __m512 p = _mm512_mul_ps(xv, c.rcp);
    v = _mm512_roundscale_ps(p, kRne);
    // (Past |p| = 512 a division the test asks for is merely exact.)
    if (_mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(p, v)), nearTie,
                           _CMP_GT_OQ))
      v = _mm512_roundscale_ps(_mm512_div_ps(xv, c.s), kRne);
  } else {
    v = _mm512_roundscale_ps(_mm512_div_ps(xv, c.s), kRne);
  }
  if (c.zeroZp) {
    // As in quantizeIntCodesRowAvx2: a NaN converts to the zero point.
    v = _mm512_min_ps(c.hi, _mm512_max_ps(c.lo, v));
  } else {
    v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                           _mm512_setzero_ps());
    v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, c.z), c.lo), c.hi);
  }
  return _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v));
}

/// quantizeIntCodesRow, 16 elements per step (the tail masked), as
/// quantizeIntCodesRowAvx2, the codes in pieces of `segment` bytes (a
/// multiple of 16; 0: one run) `stride` bytes apart (an AMX tile row: 64,
/// 1024). For callers that checked the CPU.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void
quantizeIntCodesPiecesAvx512(const float *__restrict x, int64_t n, float scale,
                             int32_t zp, IntRange r, int8_t *__restrict codes,
                             int64_t segment, int64_t stride) {
  const QuantizeVectorsAvx512 c = quantizeVectorsAvx512(scale, zp, r);
  int8_t *dst = codes;
  int64_t inSegment = 0;
  for (int64_t i = 0; i < n; i += 16) {
    int64_t left = n - i;
    __mmask16 mask = left >= 16 ? static_cast<__mmask16>(0xffff)
                                : static_cast<__mmask16>((1u << left) - 1);
    // vpmovdb to a register, then a plain (or byte-masked) store: the
    // masked vpmovdb store is several times slower on Intel.
    __m128i b = quantizeInt16Avx512(_mm512_maskz_loadu_ps(mask, x + i), c);
    if (left >= 16)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + inSegment), b);
    else
      _mm_mask_storeu_epi8(dst + inSegment, mask, b);
    inSegment += 16;
    if (inSegment == segment) {
      dst += stride;
      inSegment = 0;
    }
  }
}

/// quantizeIntCodesRow, 16 elements per step. For callers that checked the
/// CPU.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void
quantizeIntCodesRowAvx512(const float *__restrict x, int64_t n, float scale,
                          int32_t zp, IntRange r, int8_t *__restrict codes) {
  quantizeIntCodesPiecesAvx512(x, n, scale, zp, r, codes, 0, 0);
}
#endif

} // namespace numerics
} // namespace octet

#endif // OCTET_RUNTIME_NUMERICSROW_H
