/* Which i4 decode would make the 4-bit decode GEMV faster on AVX2? The
 * loop of octet's decode kernel (emitWeightOnlyDecode: strips of 64
 * columns, 8 rows per pass over the strip, f32 running sums per group of
 * 64 rows, one FMA per 8 weights) written in C intrinsics with four ways
 * to turn packed i4 codes into f32 (the layouts differ: each decode reads
 * its own order of the 64 codes in a 32-byte row piece; the sums are not
 * compared, only the speed):
 *
 *   A  octet's today: a broadcast 4-byte load, vpsllvd / vpsrad to
 *      sign-extend each lane's nibble, vcvtdq2ps (5 operations per 8);
 *   B  vpmovzxbd of 8 bytes (16 codes), shifts for the two nibbles;
 *   C  f16 route: vpand / vpsrlw split 32 bytes into nibbles, vpshufb
 *      maps each to the high byte of its f16 value, vpunpck[lh]bw with
 *      zero makes the f16 words, vcvtph2ps the f32s;
 *   D  vpmovzxbd, the nibble ORed into 2^23's bits and 2^23 + 8
 *      subtracted (codes stored offset by 8; no vcvtdq2ps).
 *
 * K = 4096, N = 14336, one thread, weights rotated over 8 copies (235 MB,
 * past the L3), and the same run's read loop over as many bytes:
 *
 *   clang -O3 -mavx2 -mfma -mf16c bench/native/gemv4_decode.c -o /tmp/g4
 *   /tmp/g4            # prints GB/s and G weights/s per decode, 3 rounds
 *   clang -O3 -mavx2 -mfma -mf16c -DK=64 -DCOPIES=1 ... # weights in L2
 *
 * Measured on the AMD EPYC Zen 3 VM, quiet, 4 rounds (docs/cpu-performance
 * .md): all four within the VM's noise of each other (A 9.4-12.5, B
 * 9.2-11.6, C 8.7-10.0, D 10.2-11.5 G weights/s; read loop 8.4-10.6 GB/s),
 * and the same in L2. Run it on a quiet machine: a second job halves any
 * row at random. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef K
#define K 4096
#endif
#ifndef COPIES
#define COPIES 8
#endif
#define N 14336
#define G 64  /* rows per scale group */
#define KR 8  /* rows per pass over the strip */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline __attribute__((always_inline)) void
decA(const uint8_t *p, __m256 x, __m256 a[8]) {
  const __m256i sh = _mm256_setr_epi32(28, 24, 20, 16, 12, 8, 4, 0);
  for (int v = 0; v < 8; v++) {
    int32_t word;
    memcpy(&word, p + 4 * v, 4);
    __m256i n = _mm256_srai_epi32(
        _mm256_sllv_epi32(_mm256_set1_epi32(word), sh), 28);
    a[v] = _mm256_fmadd_ps(x, _mm256_cvtepi32_ps(n), a[v]);
  }
}

static inline __attribute__((always_inline)) void
decB(const uint8_t *p, __m256 x, __m256 a[8]) {
  for (int c = 0; c < 4; c++) {
    __m256i d = _mm256_cvtepu8_epi32(
        _mm_loadl_epi64((const __m128i *)(p + 8 * c)));
    __m256i lo = _mm256_srai_epi32(_mm256_slli_epi32(d, 28), 28);
    __m256i hi = _mm256_srai_epi32(_mm256_slli_epi32(d, 24), 28);
    a[2 * c] = _mm256_fmadd_ps(x, _mm256_cvtepi32_ps(lo), a[2 * c]);
    a[2 * c + 1] = _mm256_fmadd_ps(x, _mm256_cvtepi32_ps(hi), a[2 * c + 1]);
  }
}

static inline __attribute__((always_inline)) void
decC(const uint8_t *p, __m256 x, __m256 a[8]) {
  /* The high byte of the f16 of each i4 value 0..7, -8..-1. */
  const __m256i t = _mm256_setr_epi8(
      0, 0x3C, 0x40, 0x42, 0x44, 0x45, 0x46, 0x47, (char)0xC8, (char)0xC7,
      (char)0xC6, (char)0xC5, (char)0xC4, (char)0xC2, (char)0xC0, (char)0xBC,
      0, 0x3C, 0x40, 0x42, 0x44, 0x45, 0x46, 0x47, (char)0xC8, (char)0xC7,
      (char)0xC6, (char)0xC5, (char)0xC4, (char)0xC2, (char)0xC0, (char)0xBC);
  const __m256i m = _mm256_set1_epi8(15), z = _mm256_setzero_si256();
  __m256i v = _mm256_loadu_si256((const __m256i *)p);
  __m256i tl = _mm256_shuffle_epi8(t, _mm256_and_si256(v, m));
  __m256i th =
      _mm256_shuffle_epi8(t, _mm256_and_si256(_mm256_srli_epi16(v, 4), m));
  __m256i u[4] = {_mm256_unpacklo_epi8(z, tl), _mm256_unpackhi_epi8(z, tl),
                  _mm256_unpacklo_epi8(z, th), _mm256_unpackhi_epi8(z, th)};
  for (int i = 0; i < 4; i++) {
    a[2 * i] = _mm256_fmadd_ps(
        x, _mm256_cvtph_ps(_mm256_castsi256_si128(u[i])), a[2 * i]);
    a[2 * i + 1] = _mm256_fmadd_ps(
        x, _mm256_cvtph_ps(_mm256_extracti128_si256(u[i], 1)), a[2 * i + 1]);
  }
}

static inline __attribute__((always_inline)) void
decD(const uint8_t *p, __m256 x, __m256 a[8]) {
  const __m256i m = _mm256_set1_epi32(15), mg = _mm256_set1_epi32(0x4B000000);
  const __m256 off = _mm256_set1_ps(8388616.0f); /* 2^23 + 8 */
  for (int c = 0; c < 4; c++) {
    __m256i d = _mm256_cvtepu8_epi32(
        _mm_loadl_epi64((const __m128i *)(p + 8 * c)));
    __m256 lo = _mm256_sub_ps(
        _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(d, m), mg)), off);
    __m256 hi = _mm256_sub_ps(
        _mm256_castsi256_ps(_mm256_or_si256(_mm256_srli_epi32(d, 4), mg)),
        off);
    a[2 * c] = _mm256_fmadd_ps(x, lo, a[2 * c]);
    a[2 * c + 1] = _mm256_fmadd_ps(x, hi, a[2 * c + 1]);
  }
}

/* y = x W for K x N i4 weights (row k: N / 2 bytes) with f32 scales per
 * group of G rows and column; `sums` / `tot` are the running sums. */
#define GEMV(NAME, DEC)                                                        \
  static void NAME(const uint8_t *w, const float *s, const float *x,          \
                   float *y, float *sums, float *tot) {                       \
    for (int k0 = 0; k0 < K; k0 += KR) {                                       \
      int first = k0 % G == 0, end = (k0 + KR) % G == 0;                       \
      for (int j = 0; j < N; j += 64) {                                        \
        __m256 a[8];                                                           \
        for (int v = 0; v < 8; v++)                                            \
          a[v] = first ? _mm256_setzero_ps()                                   \
                       : _mm256_loadu_ps(sums + j + 8 * v);                    \
        for (int r = 0; r < KR; r++) {                                         \
          const uint8_t *p = w + (size_t)(k0 + r) * (N / 2) + j / 2;           \
          if (k0 + r + 16 < K)                                                 \
            _mm_prefetch((const char *)(p + 16 * (N / 2)), _MM_HINT_NTA);      \
          DEC(p, _mm256_set1_ps(x[k0 + r]), a);                                \
        }                                                                      \
        for (int v = 0; v < 8; v++) {                                          \
          if (!end) {                                                          \
            _mm256_storeu_ps(sums + j + 8 * v, a[v]);                          \
            continue;                                                          \
          }                                                                    \
          __m256 sc = _mm256_loadu_ps(s + (size_t)(k0 / G) * N + j + 8 * v);   \
          __m256 t = k0 < G ? _mm256_setzero_ps()                              \
                            : _mm256_loadu_ps(tot + j + 8 * v);                \
          _mm256_storeu_ps(tot + j + 8 * v,                                    \
                           _mm256_add_ps(t, _mm256_mul_ps(a[v], sc)));         \
        }                                                                      \
      }                                                                        \
    }                                                                          \
    memcpy(y, tot, N * sizeof(float));                                         \
  }
GEMV(gemvA, decA)
GEMV(gemvB, decB)
GEMV(gemvC, decC)
GEMV(gemvD, decD)

static uint64_t readLoop(const uint8_t *p, size_t n) {
  __m256i acc = _mm256_setzero_si256();
  for (size_t i = 0; i < n; i += 64) {
    acc = _mm256_add_epi32(acc, _mm256_load_si256((const __m256i *)(p + i)));
    acc = _mm256_add_epi32(acc,
                           _mm256_load_si256((const __m256i *)(p + i + 32)));
  }
  return (uint64_t)_mm256_extract_epi64(acc, 0);
}

int main(void) {
  const size_t cb = (size_t)K * N / 2, sb = (size_t)K / G * N * 4;
  const int calls = 2 * COPIES * (K < 1024 ? 64 : 1);
  uint8_t *w[COPIES];
  float *s[COPIES];
  srand(7);
  for (int c = 0; c < COPIES; c++) {
    w[c] = aligned_alloc(64, cb);
    s[c] = aligned_alloc(64, sb);
    for (size_t i = 0; i < cb; i++)
      w[c][i] = (uint8_t)rand();
    for (size_t i = 0; i < sb / 4; i++)
      s[c][i] = 1.0f / (1 + rand() % 7);
  }
  float *x = malloc(K * 4), *y = malloc(N * 4);
  float *sums = aligned_alloc(64, N * 4), *tot = aligned_alloc(64, N * 4);
  for (int i = 0; i < K; i++)
    x[i] = (rand() % 100) / 50.0f - 1;
  void (*fs[4])(const uint8_t *, const float *, const float *, float *,
                float *, float *) = {gemvA, gemvB, gemvC, gemvD};
  const char *names[4] = {"A broadcast + sllv/srad + cvt (octet)",
                          "B vpmovzxbd + shifts + cvt",
                          "C vpshufb -> f16 + vcvtph2ps",
                          "D vpmovzxbd + 2^23 magic"};
  volatile uint64_t sink = 0;
  for (int round = 0; round < 3; round++) {
    double t = now();
    for (int i = 0; i < 2 * COPIES; i++) {
      sink += readLoop(w[i % COPIES], cb);
      sink += readLoop((const uint8_t *)s[i % COPIES], sb);
    }
    double read = 2.0 * COPIES * (cb + sb) / (now() - t) / 1e9;
    printf("round %d: read loop %.2f GB/s\n", round + 1, read);
    for (int f = 0; f < 4; f++) {
      t = now();
      for (int i = 0; i < calls; i++)
        fs[f](w[i % COPIES], s[i % COPIES], x, y, sums, tot);
      t = now() - t;
      double gbs = (double)calls * (cb + sb) / t / 1e9;
      printf("  %-38s %6.2f GB/s (%3.0f%% of read)  %6.2f G weights/s\n",
             names[f], gbs, 100 * gbs / read, (double)calls * K * N / t / 1e9);
    }
  }
  return (int)(sink & 0);
}
