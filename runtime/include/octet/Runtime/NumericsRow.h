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
#endif

} // namespace numerics
} // namespace octet

#endif // OCTET_RUNTIME_NUMERICSROW_H
