//===- NumericsRowTest.cpp - The row kernels against the scalar rules -----===//
//
// octet/Runtime/NumericsRow.h promises each element's result of
// Numerics.h bit for bit (codes and reconstructions), and error sums that
// equal a sequential accumulation up to the order of the double additions
// (counts and maxima exactly). Checked here for the portable build of the
// templates and for the AVX2 build octet-quantize-weights dispatches to
// (where the CPU has AVX2), on inputs chosen to break a wrong vector
// formulation: exact ties, NaN with either sign, +-inf, -0, values far
// outside the code range, subnormals, and lengths that leave tails.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/NumericsRow.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace octet::numerics;

namespace {

//===----------------------------------------------------------------------===//
// The two builds of each template
//===----------------------------------------------------------------------===//

struct Kernels {
  void (*qInt)(const float *, int64_t, const float *, const int32_t *,
               IntRange, uint8_t, uint8_t *, float *);
  void (*qIntUniform)(const float *, int64_t, const float *, const int32_t *,
                      IntRange, uint8_t, uint8_t *, float *);
  void (*qFp8)(const float *, int64_t, const float *, StorageFormat, bool,
               bool, const Fp8Table &, uint8_t *, float *);
  void (*errors)(const float *, const float *, int64_t, const float *,
                 RowErrors &);
  void (*minMax)(const float *, int64_t, float &, float &);
  void (*minMaxUpd)(const float *, int64_t, float *, float *);
  const char *name;
};

#define ROW_KERNELS(SUFFIX, ATTR, ERRORS)                                      \
  ATTR void qInt##SUFFIX(const float *x, int64_t n, const float *s,           \
                         const int32_t *z, IntRange r, uint8_t m, uint8_t *c, \
                         float *h) {                                          \
    quantizeIntRow<true>(x, n, s, z, r, m, c, h);                             \
  }                                                                           \
  ATTR void qIntU##SUFFIX(const float *x, int64_t n, const float *s,          \
                          const int32_t *z, IntRange r, uint8_t m,            \
                          uint8_t *c, float *h) {                             \
    quantizeIntRow<false>(x, n, s, z, r, m, c, h);                            \
  }                                                                           \
  ATTR void qFp8##SUFFIX(const float *x, int64_t n, const float *s,           \
                         StorageFormat f, bool sat, bool nz,                  \
                         const Fp8Table &t, uint8_t *c, float *h) {           \
    quantizeFp8Row<true>(x, n, s, f, sat, nz, t, c, h);                       \
  }                                                                           \
  ATTR void err##SUFFIX(const float *x, const float *h, int64_t n,            \
                        const float *s, RowErrors &e) {                       \
    ERRORS<true>(x, h, n, s, e);                                              \
  }                                                                           \
  ATTR void mm##SUFFIX(const float *x, int64_t n, float &lo, float &hi) {     \
    minMaxRow<true>(x, n, lo, hi);                                            \
  }                                                                           \
  ATTR void mu##SUFFIX(const float *x, int64_t n, float *lo, float *hi) {     \
    minMaxUpdate<true>(x, n, lo, hi);                                         \
  }

ROW_KERNELS(Base, , accumulateErrorRow)
#ifdef OCTET_NUMERICS_ROW_AVX2
ROW_KERNELS(Avx2, __attribute__((target("avx2"))), accumulateErrorRowAvx2)
#endif

std::vector<Kernels> builds() {
  std::vector<Kernels> k = {
      {qIntBase, qIntUBase, qFp8Base, errBase, mmBase, muBase, "portable"}};
#ifdef OCTET_NUMERICS_ROW_AVX2
  if (__builtin_cpu_supports("avx2"))
    k.push_back(
        {qIntAvx2, qIntUAvx2, qFp8Avx2, errAvx2, mmAvx2, muAvx2, "avx2"});
#endif
  return k;
}

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

/// Values that break wrong vector formulations of the rules, for scale s:
/// exact ties k.5 * s (both parities, both signs), NaN of both signs,
/// +-inf, +-0, far out of range, subnormal, plus random ones.
std::vector<float> adversarial(float s, size_t n, unsigned seed) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          kFloatMax,
                          -kFloatMax,
                          1e-45f,
                          -1e-45f,
                          1e30f,
                          -1e30f};
  for (int k = -300; k <= 300; ++k)
    v.push_back((static_cast<float>(k) + 0.5f) * s); // exact: s a power of 2
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 40.0f * s);
  while (v.size() < n)
    v.push_back(d(g));
  std::shuffle(v.begin(), v.end(), g);
  return v;
}

//===----------------------------------------------------------------------===//
// Codes
//===----------------------------------------------------------------------===//

TEST(NumericsRow, IntegerCodesEqualTheScalarRule) {
  struct Case {
    IntRange r;
    uint8_t mask;
    int32_t zp;
  } cases[] = {{{-128, 127}, 0xff, 0},  {{0, 255}, 0xff, 131},
               {{-8, 7}, 0x0f, 0},      {{0, 15}, 0x0f, 9},
               {{-16, 15}, 0xff, 0},    {{-127, 127}, 0xff, 0}};
  for (const Kernels &k : builds())
    for (const Case &c : cases)
      for (int64_t n : {1, 7, 8, 9, 31, 1003}) {
        std::vector<float> x = adversarial(0.0625f, n + 700, 7 + n);
        x.resize(std::max<size_t>(x.size(), n));
        const int64_t len = static_cast<int64_t>(x.size());
        // Per-element parameters: scales with short odd mantissas (3/64,
        // 5/128, 7/256: x / s of a tie is exact, x * (1 / s) is not) and a
        // power of two, zero points around c.zp (kept in range). A third
        // of the elements are exact ties of their own scale, a third ties
        // of the first element's (for the uniform version).
        const float scales[] = {0.046875f, 0.0390625f, 0.02734375f, 0.0625f};
        std::vector<float> sc(len);
        std::vector<int32_t> z(len);
        for (int64_t i = 0; i < len; ++i) {
          sc[i] = scales[i % 4];
          z[i] = std::clamp(c.zp + static_cast<int32_t>(i % 3) - 1, c.r.qmin,
                            c.r.qmax);
        }
        for (int64_t i = 0; i < len; ++i) {
          float k = static_cast<float>((i * 7919) % 601 - 300) + 0.5f;
          if (i % 3 == 0)
            x[i] = k * sc[i];
          else if (i % 3 == 1)
            x[i] = k * sc[0];
        }
        std::vector<uint8_t> codes(len), codesU(len);
        std::vector<float> xhat(len), xhatU(len);
        k.qInt(x.data(), len, sc.data(), z.data(), c.r, c.mask, codes.data(),
               xhat.data());
        k.qIntUniform(x.data(), len, sc.data(), z.data(), c.r, c.mask,
                      codesU.data(), xhatU.data());
        for (int64_t i = 0; i < len; ++i) {
          int32_t q = quantizeInt(x[i], sc[i], z[i], c.r.qmin, c.r.qmax);
          ASSERT_EQ(codes[i], static_cast<uint8_t>(q & c.mask))
              << k.name << " x=" << x[i] << " i=" << i;
          ASSERT_EQ(bits(xhat[i]), bits(dequantizeInt(q, sc[i], z[i])))
              << k.name << " x=" << x[i];
          int32_t qu = quantizeInt(x[i], sc[0], z[0], c.r.qmin, c.r.qmax);
          ASSERT_EQ(codesU[i], static_cast<uint8_t>(qu & c.mask))
              << k.name << " uniform x=" << x[i];
          ASSERT_EQ(bits(xhatU[i]), bits(dequantizeInt(qu, sc[0], z[0])));
        }
      }
}

/// The AVX2 and AVX-512 forms of a row kernel this CPU can run, named.
template <typename Fn>
std::vector<std::pair<const char *, Fn>> vectorForms(Fn avx2, Fn avx512) {
  std::vector<std::pair<const char *, Fn>> fns;
#if defined(OCTET_NUMERICS_ROW_AVX2)
  if (__builtin_cpu_supports("avx2"))
    fns.push_back({"avx2", avx2});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    fns.push_back({"avx512", avx512});
#else
  (void)avx2;
  (void)avx512;
#endif
  return fns;
}

// quantizeIntCodesRow and its AVX2 / AVX-512 forms (the per-token
// activations octet_cpu_quantize_pack_lhs quantizes): one scale and zero
// point per row, each byte the scalar rule's code. The ties are exact ties
// of the scale (0.0625 * (k + 1/2)) and of a scale with a short odd
// mantissa (3/64); lengths leave every tail of 8 and 16.
TEST(NumericsRow, ByteCodesOfOneRowEqualTheScalarRule) {
  using Fn =
      void (*)(const float *, int64_t, float, int32_t, IntRange, int8_t *);
  std::vector<std::pair<const char *, Fn>> fns = {
      {"portable", quantizeIntCodesRow}};
  for (auto f :
       vectorForms<Fn>(quantizeIntCodesRowAvx2, quantizeIntCodesRowAvx512))
    fns.push_back(f);
  struct Case {
    IntRange r;
    int32_t zp;
  } cases[] = {{{-128, 127}, 0},
               {{0, 255}, 131},
               {{-127, 127}, 0},
               {{-128, 127}, -17},
               {{0, 255}, 0}};
  // Values near ties of 0.1 whose code differs when x / 0.1 is computed as
  // x * (1 / 0.1) (what a "faster" vector form might do).
  std::vector<float> traps;
  for (int k = -300; k <= 300; ++k) {
    float t = (static_cast<float>(k) + 0.5f) * 0.1f;
    for (float v : {t, std::nextafter(t, 1e9f), std::nextafter(t, -1e9f)})
      if (roundHalfEven(v / 0.1f) != roundHalfEven(v * (1.0f / 0.1f)))
        traps.push_back(v);
  }
  ASSERT_GT(traps.size(), 20u);
  for (auto [name, fn] : fns)
    for (const Case &c : cases)
      for (float scale : {0.0625f, 0.046875f, 0.1f, 3.0e-39f, 1.0e30f})
        for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 1003}) {
          std::vector<float> x = adversarial(0.0625f, n + 700, 11 + n);
          for (size_t i = 0; i < x.size(); i += 5)
            x[i] =
                (static_cast<float>(static_cast<int>(i % 301) - 150) + 0.5f) *
                0.046875f; // ties of 3/64
          for (size_t i = 0; i < traps.size() && 3 * i + 1 < x.size(); ++i)
            x[3 * i + 1] = traps[i];
          // The special values early in the row (every length but 1 sees
          // some), away from the ties and traps.
          const float nan = std::numeric_limits<float>::quiet_NaN();
          const float inf = std::numeric_limits<float>::infinity();
          const std::pair<size_t, float> specials[] = {
              {2, nan},    {8, -nan},       {11, inf},   {14, -inf},
              {17, -0.0f}, {23, kFloatMax}, {26, 1e-45f}};
          for (auto [at, v] : specials)
            x[at] = v;
          const int64_t len = std::min<int64_t>(n, x.size());
          std::vector<int8_t> codes(len + 16, 0x5a);
          fn(x.data(), len, scale, c.zp, c.r, codes.data());
          for (int64_t i = 0; i < len; ++i) {
            int32_t q = quantizeInt(x[i], scale, c.zp, c.r.qmin, c.r.qmax);
            ASSERT_EQ(static_cast<uint8_t>(codes[i]),
                      static_cast<uint8_t>(q & 0xff))
                << name << " x=" << x[i] << " scale=" << scale << " i=" << i;
          }
          for (int64_t i = len; i < len + 16; ++i) // nothing past the row
            ASSERT_EQ(codes[i], 0x5a) << name << " wrote past n=" << len;
        }
}

// The vector forms divide by multiplying with the reciprocal away from
// the midpoints k + 1/2 (reciprocalQuantizeOk): for scales across the f32
// range (log-uniform), values on, and 1-3 ulps around, every midpoint of
// the code range and beyond it, and uniform values, every code equals the
// scalar rule's (which divides).
TEST(NumericsRow, ReciprocalQuantizeEqualsTheDivision) {
  using Fn =
      void (*)(const float *, int64_t, float, int32_t, IntRange, int8_t *);
  auto fns =
      vectorForms<Fn>(quantizeIntCodesRowAvx2, quantizeIntCodesRowAvx512);
  std::mt19937 g(2026);
  std::uniform_real_distribution<float> e(-126.0f, 127.0f), u(-600.0f, 600.0f);
  int64_t checked = 0, differs = 0;
  for (int t = 0; t < 300; ++t) {
    float scale =
        std::ldexp(1.0f + std::uniform_real_distribution<float>(0.0f, 1.0f)(g),
                   static_cast<int>(e(g)));
    if (t < 4) // the ends of the guarded scales and the reciprocal's range
      scale = std::array<float, 4>{kFloatMinNormal, 0x1.fffffep125f, 0x1p126f,
                                   kFloatMax}[t];
    std::vector<float> x;
    for (int k = -520; k <= 520; ++k) {
      float mid = (static_cast<float>(k) + 0.5f) * scale;
      float up = mid, down = mid;
      x.push_back(mid);
      for (int j = 0; j < 3; ++j) {
        up = std::nextafter(up, 3e38f);
        down = std::nextafter(down, -3e38f);
        x.push_back(up);
        x.push_back(down);
      }
    }
    for (int j = 0; j < 2000; ++j)
      x.push_back(u(g) * scale);
    for (float v : x)
      differs += roundHalfEven(v / scale) != roundHalfEven(v * (1 / scale));
    const int64_t n = static_cast<int64_t>(x.size());
    std::vector<int8_t> codes(n);
    for (auto [name, fn] : fns)
      for (auto [r, zp] : {std::pair<IntRange, int32_t>{{-128, 127}, 0},
                           {{0, 255}, 255},
                           {{0, 255}, 17},
                           {{-128, 127}, -128}}) {
        fn(x.data(), n, scale, zp, r, codes.data());
        for (int64_t i = 0; i < n; ++i) {
          int32_t q = quantizeInt(x[i], scale, zp, r.qmin, r.qmax);
          ASSERT_EQ(static_cast<uint8_t>(codes[i]),
                    static_cast<uint8_t>(q & 0xff))
              << name << " x=" << x[i] << " scale=" << scale << " zp=" << zp;
          ++checked;
        }
      }
  }
  // The inputs do hold values where the reciprocal alone rounds otherwise.
  EXPECT_GT(differs, 1000);
  (void)checked;
}

// minMaxRowAvx2 / Avx512 against the template: NaN (either sign)
// ignored, +-inf kept, -0 never replacing the initial +0, accumulators
// that do not start at 0, every tail length.
TEST(NumericsRow, VectorRangesEqualTheTemplate) {
  using Fn = void (*)(const float *, int64_t, float &, float &);
  auto fns = vectorForms<Fn>(minMaxRowAvx2, minMaxRowAvx512);
  for (auto [name, fn] : fns)
    for (int64_t n : {0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 100, 1003})
      for (unsigned seed : {1u, 2u, 3u}) {
        std::vector<float> x = adversarial(0.5f, n + 700, seed + n);
        if (seed == 2) // only negative values and -0: max stays at +0
          for (float &v : x)
            v = -std::fabs(v);
        if (seed == 3) // no special values: min and max from the row
          for (float &v : x)
            if (!(std::fabs(v) <= 1e3f))
              v = 1.5f;
        for (float start : {0.0f, -7.0f}) {
          float mn = start, mx = -start, wmn = start, wmx = -start;
          fn(x.data(), n, mn, mx);
          minMaxRow<false>(x.data(), n, wmn, wmx);
          ASSERT_EQ(bits(mn), bits(wmn)) << name << " n=" << n;
          ASSERT_EQ(bits(mx), bits(wmx)) << name << " n=" << n;
        }
      }
}

TEST(NumericsRow, Fp8CodesEqualTheScalarRule) {
  // Every 4099th f32 bit pattern (all exponents, both signs, NaN payloads)
  // plus the adversarial set, for both formats, saturating or not, with
  // and without nonfinite=clip's NaN -> 0.
  std::vector<float> x = adversarial(1.0f, 2000, 3);
  for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
    uint32_t b = static_cast<uint32_t>(u);
    float f;
    std::memcpy(&f, &b, 4);
    x.push_back(f);
  }
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> sc(n);
  for (int64_t i = 0; i < n; ++i)
    sc[i] = i % 3 == 0 ? 1.0f : (i % 3 == 1 ? 0.37f : 3.0e-3f);
  for (const Kernels &k : builds())
    for (StorageFormat f : {StorageFormat::F8E4M3FN, StorageFormat::F8E5M2}) {
      Fp8Table table(f);
      for (bool sat : {true, false})
        for (bool nanZero : {false, true}) {
          std::vector<uint8_t> codes(n);
          std::vector<float> xhat(n);
          k.qFp8(x.data(), n, sc.data(), f, sat, nanZero, table, codes.data(),
                 xhat.data());
          for (int64_t i = 0; i < n; ++i) {
            float v = (nanZero && std::isnan(x[i])) ? 0.0f : x[i];
            uint8_t q = quantizeFp8(v, sc[i], f, sat);
            ASSERT_EQ(codes[i], q) << k.name << " x=" << x[i];
            ASSERT_EQ(bits(xhat[i]), bits(dequantizeFp8(q, sc[i], f)))
                << k.name << " x=" << x[i];
          }
        }
    }
}

//===----------------------------------------------------------------------===//
// Ranges
//===----------------------------------------------------------------------===//

TEST(NumericsRow, RangesEqualRangeStatsOfTheFiniteValues) {
  for (const Kernels &k : builds())
    for (int64_t n : {0, 1, 15, 16, 17, 100, 4099}) {
      std::vector<float> x = adversarial(0.5f, n, 11 + n);
      x.resize(n);
      // Groups of one element per position, updated by two rows.
      std::vector<float> y = adversarial(0.25f, n, 99 + n);
      y.resize(n);
      RangeStats want;
      for (float v : x)
        if (std::isfinite(v))
          want.add(v);
      float lo = 0.0f, hi = 0.0f;
      k.minMax(x.data(), n, lo, hi);
      EXPECT_EQ(lo, want.minV) << k.name << " n=" << n;
      EXPECT_EQ(hi, want.maxV) << k.name << " n=" << n;
      EXPECT_EQ(std::max(-lo, hi), want.absmax) << k.name << " n=" << n;
      std::vector<float> mn(n, 0.0f), mx(n, 0.0f);
      k.minMaxUpd(x.data(), n, mn.data(), mx.data());
      k.minMaxUpd(y.data(), n, mn.data(), mx.data());
      for (int64_t i = 0; i < n; ++i) {
        RangeStats s;
        for (float v : {x[i], y[i]})
          if (std::isfinite(v))
            s.add(v);
        ASSERT_EQ(mn[i], s.minV) << k.name << " i=" << i;
        ASSERT_EQ(mx[i], s.maxV) << k.name << " i=" << i;
      }
    }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(NumericsRow, ErrorSumsMatchTheSequentialMetrics) {
  std::vector<RowErrors> results;
  for (const Kernels &k : builds()) {
    const int64_t n = 5003; // a tail
    std::vector<float> x = adversarial(0.125f, n, 5);
    x.resize(n);
    std::vector<float> sc(n), xhat(n);
    for (int64_t i = 0; i < n; ++i) {
      sc[i] = i % 2 ? 0.125f : 0.5f;
      // Reconstructions with errors in every histogram bin, exact edge
      // multiples (0.5 and 1.0 steps), and some NaN.
      float err = static_cast<float>((i * 37) % 23) * 0.25f * sc[i];
      xhat[i] = i % 97 == 0 ? std::numeric_limits<float>::quiet_NaN()
                            : x[i] + (i % 2 ? err : -err);
    }
    RowErrors acc;
    // In two calls, as writeCodes does per step.
    k.errors(x.data(), xhat.data(), 2000, sc.data(), acc);
    k.errors(x.data() + 2000, xhat.data() + 2000, n - 2000, sc.data() + 2000,
             acc);
    SqnrAccumulator sqnr, wantSqnr;
    ErrorHistogram hist, wantHist;
    double maxAbs = 0.0, wantMax = 0.0;
    acc.mergeInto(sqnr, maxAbs, hist);
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(x[i]))
        continue;
      wantSqnr.add(x[i], xhat[i]);
      wantMax = std::max(wantMax, std::fabs(static_cast<double>(x[i]) -
                                            static_cast<double>(xhat[i])));
      wantHist.add(x[i], xhat[i], sc[i]);
    }
    for (unsigned b = 0; b < ErrorHistogram::kBins; ++b)
      EXPECT_EQ(hist.counts[b], wantHist.counts[b]) << k.name << " bin " << b;
    EXPECT_EQ(maxAbs, wantMax) << k.name;
    // NaN reconstructions make the noise NaN in both.
    EXPECT_TRUE(std::isnan(sqnr.noise) && std::isnan(wantSqnr.noise));
    EXPECT_NEAR(sqnr.signal, wantSqnr.signal, 1e-12 * wantSqnr.signal)
        << k.name;
    results.push_back(acc);
  }
  // The AVX2 build accumulates the same lanes with the same operations.
  for (size_t r = 1; r < results.size(); ++r)
    EXPECT_EQ(std::memcmp(&results[r], &results[0], sizeof(RowErrors)), 0);
}

TEST(NumericsRow, ErrorNoiseIsTheSequentialNoise) {
  for (const Kernels &k : builds()) {
    const int64_t n = 777;
    std::vector<float> x(n), xhat(n), sc(n, 0.01f);
    std::mt19937 g(17);
    std::normal_distribution<float> d(0.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = d(g);
      xhat[i] = dequantizeInt(quantizeInt(x[i], 0.01f, 0, -128, 127), 0.01f,
                              0);
    }
    RowErrors acc;
    k.errors(x.data(), xhat.data(), n, sc.data(), acc);
    SqnrAccumulator sqnr, want;
    ErrorHistogram hist;
    double maxAbs = 0.0;
    acc.mergeInto(sqnr, maxAbs, hist);
    for (int64_t i = 0; i < n; ++i)
      want.add(x[i], xhat[i]);
    EXPECT_NEAR(sqnr.noise, want.noise, 1e-12 * want.noise) << k.name;
    EXPECT_NEAR(sqnr.db(), want.db(), 1e-9) << k.name;
  }
}

} // namespace
