//===- AttentionAvx2.cpp - octet.attention's task on AVX2 + FMA -----------===//
//
// Compiled with -mavx2 -mfma (runtime/CMakeLists): called only where the
// CPU has them (Attention.cpp).
//
//===----------------------------------------------------------------------===//

#include "Attention.h"

#include <immintrin.h>
#include <type_traits>

namespace {

struct V {
  static constexpr int W = 8;
  /// Head-dimension vectors of the context tile: 6 x 2 sums (16 ymm).
  static constexpr int kContextVectors = 2;
  /// Key vectors of the score tile.
  static constexpr int kScoreVectors = 2;
  /// Decode's streamed scores: 4 rows of K at a time (12 broadcast queries in
  /// 16 registers).
  static constexpr int kStreamRows = 4;
  using T = __m256;
  static T zero() { return _mm256_setzero_ps(); }
  static T load(const float *p) { return _mm256_loadu_ps(p); }
  /// p[0 .. n) (0 < n < W), zeros in the other lanes; reads nothing past
  /// p + n (vmaskmovps does not fault on masked lanes).
  static T loadFirst(const float *p, int n) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lanes);
    return _mm256_maskload_ps(p, mask);
  }
  /// 8 int8 codes as floats (exact).
  static T load(const int8_t *p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p))));
  }
  static T loadFirst(const int8_t *p, int n) {
    alignas(16) int8_t codes[16] = {};
    for (int i = 0; i < n; ++i)
      codes[i] = p[i];
    return load(codes);
  }
  /// 8 FP8 E4M3 codes as floats (exact): as AttentionAvx512.cpp's.
  static T fromE4M3(__m128i codes) {
    __m256i b = _mm256_cvtepu8_epi32(codes);
    __m256i mag = _mm256_and_si256(b, _mm256_set1_epi32(0x7F));
    __m256i sign =
        _mm256_slli_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x80)), 24);
    T normal = _mm256_castsi256_ps(_mm256_add_epi32(
        _mm256_slli_epi32(mag, 20), _mm256_set1_epi32(120 << 23)));
    T sub = mul(_mm256_cvtepi32_ps(mag), set1(0x1p-9f));
    T isSub =
        _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(8), mag));
    T v = _mm256_blendv_ps(normal, sub, isSub);
    T isNan =
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7F)));
    v = _mm256_blendv_ps(v, set1(__builtin_nanf("")), isNan);
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(v), sign));
  }
  static T load(const octet::rt::E4M3 *p) {
    return fromE4M3(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)));
  }
  static T loadFirst(const octet::rt::E4M3 *p, int n) {
    alignas(16) uint8_t codes[16] = {};
    for (int i = 0; i < n; ++i)
      codes[i] = p[i].bits;
    return fromE4M3(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(codes)));
  }
  static void store(float *p, T v) { _mm256_storeu_ps(p, v); }
  static T set1(float x) { return _mm256_set1_ps(x); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T div(T a, T b) { return _mm256_div_ps(a, b); }
  static T max(T a, T b) { return _mm256_max_ps(a, b); }
  static float hmax(T v) {
    __m128 m =
        _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static float hsum(T v) {
    __m128 s =
        _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static T min(T a, T b) { return _mm256_min_ps(a, b); }
  static T roundEven(T x) {
    return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  /// exp's last step: as AttentionAvx512.cpp's.
  static T scaleExp(T p, T k, T xc, T x) {
    __m256i ki = _mm256_cvtps_epi32(k);
    __m256i k1 = _mm256_srai_epi32(ki, 1);
    __m256i k2 = _mm256_sub_epi32(ki, k1);
    const __m256i bias = _mm256_set1_epi32(127);
    T f1 =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
    T f2 =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23));
    T under = _mm256_cmp_ps(xc, set1(-104.0f), _CMP_LE_OQ);
    f2 = _mm256_blendv_ps(f2, set1(1.0f), under);
    T y = mul(mul(p, f1), f2);
    y = _mm256_blendv_ps(y, zero(), under);
    T nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    return _mm256_blendv_ps(y, add(x, x), nan);
  }
};

} // namespace

#define OCTET_ATTENTION_TASK attentionTaskAvx2
#include "AttentionKernel.inc"
