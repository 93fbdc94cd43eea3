//===- AttentionAvx512.cpp - octet.attention's task on AVX-512 ------------===//
//
// Compiled with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mfma
// (runtime/CMakeLists): called only where the CPU has them (Attention.cpp).
//
//===----------------------------------------------------------------------===//

#include "Attention.h"

#include <immintrin.h>
#include <type_traits>

namespace {

struct V {
  static constexpr int W = 16;
  /// Head-dimension vectors of the context tile: 6 x 4 sums.
  static constexpr int kContextVectors = 4;
  /// Key vectors of the score tile.
  static constexpr int kScoreVectors = 2;
  /// Decode's streamed scores: 8 rows of K at a time (8 sequential
  /// streams; 24 broadcast queries).
  static constexpr int kStreamRows = 8;
  using T = __m512;
  static T zero() { return _mm512_setzero_ps(); }
  static T load(const float *p) { return _mm512_loadu_ps(p); }
  /// p[0 .. n) (0 < n < W), zeros in the other lanes; reads nothing past
  /// p + n.
  static T loadFirst(const float *p, int n) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p);
  }
  /// 16 int8 codes as floats (exact).
  static T load(const int8_t *p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(p))));
  }
  static T loadFirst(const int8_t *p, int n) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
        _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << n) - 1), p)));
  }
  /// 16 FP8 E4M3 codes as floats (exact): the magnitude's bits moved into
  /// an f32 with the exponent rebased (normal codes), m * 2^-9 for the
  /// subnormal ones, NaN for S.1111.111, then the sign.
  static T fromE4M3(__m128i codes) {
    __m512i b = _mm512_cvtepu8_epi32(codes);
    __m512i mag = _mm512_and_si512(b, _mm512_set1_epi32(0x7F));
    __m512i sign =
        _mm512_slli_epi32(_mm512_and_si512(b, _mm512_set1_epi32(0x80)), 24);
    T normal = _mm512_castsi512_ps(_mm512_add_epi32(
        _mm512_slli_epi32(mag, 20), _mm512_set1_epi32(120 << 23)));
    T sub = mul(_mm512_cvtepi32_ps(mag), set1(0x1p-9f));
    T v = _mm512_mask_blend_ps(
        _mm512_cmplt_epi32_mask(mag, _mm512_set1_epi32(8)), normal, sub);
    v = _mm512_mask_blend_ps(
        _mm512_cmpeq_epi32_mask(mag, _mm512_set1_epi32(0x7F)), v,
        set1(__builtin_nanf("")));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(v), sign));
  }
  static T load(const octet::rt::E4M3 *p) {
    return fromE4M3(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
  }
  static T loadFirst(const octet::rt::E4M3 *p, int n) {
    return fromE4M3(
        _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << n) - 1), p));
  }
  static void store(float *p, T v) { _mm512_storeu_ps(p, v); }
  static T set1(float x) { return _mm512_set1_ps(x); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T div(T a, T b) { return _mm512_div_ps(a, b); }
  /// max as vmaxps: a NaN in `b` is returned, one in `a` dropped (only
  /// the row maximum uses it; a NaN score reaches the row through exp).
  static T max(T a, T b) { return _mm512_max_ps(a, b); }
  static float hmax(T v) { return _mm512_reduce_max_ps(v); }
  static float hsum(T v) { return _mm512_reduce_add_ps(v); }
  static T min(T a, T b) { return _mm512_min_ps(a, b); }
  static T roundEven(T x) {
    return _mm512_roundscale_ps(x,
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  /// exp's last step (AttentionKernel.inc, expF32): p * 2^k as two normal
  /// power-of-two factors; +0 where x was clamped at -104 (no product that
  /// underflows); x + x for a NaN x.
  static T scaleExp(T p, T k, T xc, T x) {
    __m512i ki = _mm512_cvtps_epi32(k);
    __m512i k1 = _mm512_srai_epi32(ki, 1);
    __m512i k2 = _mm512_sub_epi32(ki, k1);
    const __m512i bias = _mm512_set1_epi32(127);
    T f1 =
        _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k1, bias), 23));
    T f2 =
        _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k2, bias), 23));
    __mmask16 under = _mm512_cmp_ps_mask(xc, set1(-104.0f), _CMP_LE_OQ);
    f2 = _mm512_mask_blend_ps(under, f2, set1(1.0f));
    T y = mul(mul(p, f1), f2);
    y = _mm512_mask_blend_ps(under, y, zero());
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    return _mm512_mask_blend_ps(nan, y, add(x, x));
  }
};

} // namespace

#define OCTET_ATTENTION_TASK attentionTaskAvx512
#include "AttentionKernel.inc"
