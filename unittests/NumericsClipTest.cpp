//===- NumericsClipTest.cpp - Clipping helpers of Numerics.h -------------===//
//
// Tests for the functions added for compile-time weight quantization:
// 16-bit float decoding, percentile, the clip searches and the error
// histogram. Expected values are literals from IEEE 754 (binary16 /
// bfloat16 encodings), numpy's documented "linear" percentile definition
// and small hand computations written next to each check.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/Numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace octet::numerics;

namespace {

constexpr IntRange kI8{-128, 127};
constexpr IntRange kI4{-8, 7};

TEST(NumericsF16, SpecValues) {
  // IEEE 754 binary16: 0x3C00 = 1, 0xC000 = -2, 0x7BFF = 65504 (max),
  // 0x0400 = 2^-14 (min normal), 0x0001 = 2^-24 (min subnormal).
  EXPECT_EQ(decodeF16(0x3C00), 1.0f);
  EXPECT_EQ(decodeF16(0xC000), -2.0f);
  EXPECT_EQ(decodeF16(0x7BFF), 65504.0f);
  EXPECT_EQ(decodeF16(0x0400), 0x1p-14f);
  EXPECT_EQ(decodeF16(0x0001), 0x1p-24f);
  EXPECT_EQ(decodeF16(0x03FF), 1023 * 0x1p-24f);
  EXPECT_EQ(decodeF16(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(decodeF16(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(decodeF16(0x7E00)));
  EXPECT_EQ(bitsOf(decodeF16(0x8000)), 0x80000000u); // -0 keeps its sign
}

TEST(NumericsF16, EveryFiniteCodeMatchesTheFormula) {
  // value = (-1)^s * 2^(e - 15) * (1 + m / 1024), or 2^-14 * m / 1024 for
  // e = 0; computed in double with ldexp, independent of the bit shuffling.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f)
      continue;
    double v = e == 0 ? std::ldexp(static_cast<double>(m), -24)
                      : std::ldexp(1.0 + m / 1024.0, static_cast<int>(e) - 15);
    if (h & 0x8000)
      v = -v;
    ASSERT_EQ(decodeF16(static_cast<uint16_t>(h)), static_cast<float>(v))
        << "h = 0x" << std::hex << h;
  }
}

TEST(NumericsBF16, SpecValues) {
  // bfloat16 is the top half of binary32: 0x3F80 = 1, 0xC040 = -3,
  // 0x7F80 = +inf.
  EXPECT_EQ(decodeBF16(0x3F80), 1.0f);
  EXPECT_EQ(decodeBF16(0xC040), -3.0f);
  EXPECT_EQ(decodeBF16(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(decodeBF16(0x0001), 0x1p-133f); // smallest bf16 subnormal
}

TEST(NumericsClip, PercentileLinear) {
  // numpy.percentile([1..5], p) with linear interpolation: rank p/100*(n-1).
  std::vector<float> v = {5, 1, 4, 2, 3};
  EXPECT_EQ(percentile(v.data(), v.size(), 50.0), 3.0f);   // rank 2
  EXPECT_EQ(percentile(v.data(), v.size(), 100.0), 5.0f);  // rank 4
  EXPECT_EQ(percentile(v.data(), v.size(), 0.0), 1.0f);    // rank 0
  EXPECT_EQ(percentile(v.data(), v.size(), 90.0), 4.6f);   // 4 + 1 * 0.6
  EXPECT_EQ(percentile(v.data(), v.size(), 12.5), 1.5f);   // 1 + 1 * 0.5
  EXPECT_EQ(percentile(nullptr, 0, 50.0), 0.0f);
}

TEST(NumericsClip, AbsmaxIsComputeParams) {
  RangeStats s;
  for (float x : {0.5f, -2.0f, 1.0f})
    s.add(x);
  ClipResult c = absmaxClip(s, StorageFormat::I8, kI8, true);
  EXPECT_EQ(c.params.scale, 2.0f / 127.0f);
  EXPECT_EQ(c.hi, 2.0f);
  EXPECT_EQ(c.ratio, 1.0f);
  ClipResult a = absmaxClip(s, StorageFormat::U8, {0, 255}, false);
  EXPECT_EQ(a.params.scale, asymmetricParams(-2.0f, 1.0f, {0, 255}).scale);
}

TEST(NumericsClip, PercentileSymmetric) {
  // |x| = 0.1 ... 1.0 and 100: the 90th percentile of 11 values is the
  // 10th smallest (rank 9), 1.0, so scale = 1 / 127.
  std::vector<float> v;
  for (int i = 1; i <= 10; ++i)
    v.push_back(i % 2 ? -0.1f * i : 0.1f * i);
  v.push_back(100.0f);
  ClipResult c =
      percentileClip(v.data(), v.size(), 90.0, StorageFormat::I8, kI8, true);
  EXPECT_EQ(c.hi, 1.0f);
  EXPECT_EQ(c.params.scale, 1.0f / 127.0f);
  EXPECT_EQ(c.ratio, 0.01f);
}

TEST(NumericsClip, MseKeepsAnExactThreshold) {
  // Values +-1: T = 1 reconstructs exactly (error 0); every smaller
  // candidate T = k/100 either clips 1 or cannot represent it (1 = q * T / 7
  // needs T = 7 / q >= 1). So the search returns ratio 1.
  std::vector<float> v;
  for (int i = 0; i < 64; ++i)
    v.push_back(i % 2 ? -1.0f : 1.0f);
  RangeStats s;
  for (float x : v)
    s.add(x);
  ClipResult c = mseClip(v.data(), v.size(), s, StorageFormat::I4, kI4, true,
                         true);
  EXPECT_EQ(c.ratio, 1.0f);
  EXPECT_EQ(c.params.scale, 1.0f / 7.0f);
}

TEST(NumericsClip, MseNeverWorseThanAbsmax) {
  // The absmax threshold is one of the candidates.
  std::vector<float> v;
  for (int i = -50; i <= 50; ++i)
    v.push_back(i / 50.0f);
  RangeStats s;
  for (float x : v)
    s.add(x);
  ClipResult c = mseClip(v.data(), v.size(), s, StorageFormat::I4, kI4, true,
                         true);
  double best = quantizationError(v.data(), v.size(), c.params,
                                  StorageFormat::I4, kI4, true);
  double full = quantizationError(v.data(), v.size(),
                                  symmetricParams(1.0f, StorageFormat::I4, kI4),
                                  StorageFormat::I4, kI4, true);
  EXPECT_LE(best, full);
  EXPECT_GT(c.ratio, 0.0f);
  EXPECT_LE(c.ratio, 1.0f);
}

TEST(NumericsClip, MseClipsHeavyTails) {
  // 1000 values at +-0.01..0.1 and one outlier at 1.5: with 4 bits and
  // T = 1.5 the step is 0.21, so nearly every small value rounds to 0; a
  // smaller threshold loses a little on the outlier and gains on the rest.
  std::vector<float> v;
  for (int i = 0; i < 1000; ++i)
    v.push_back((i % 2 ? -1 : 1) * 0.01f * (1 + i % 10));
  v.push_back(1.5f);
  RangeStats s;
  for (float x : v)
    s.add(x);
  ClipResult c = mseClip(v.data(), v.size(), s, StorageFormat::I4, kI4, true,
                         true);
  EXPECT_LT(c.ratio, 1.0f);
  double clipped = quantizationError(v.data(), v.size(), c.params,
                                     StorageFormat::I4, kI4, true);
  double full = quantizationError(v.data(), v.size(),
                                  symmetricParams(1.5f, StorageFormat::I4, kI4),
                                  StorageFormat::I4, kI4, true);
  EXPECT_LT(clipped, full);
}

TEST(NumericsClip, MseClipWithMatchesMseClip) {
  // The caller-driven search may evaluate the candidates in any order; the
  // choice must be mseClip's, including ties (here: several thresholds
  // reconstruct the same values). Candidates are visited in reverse.
  auto reversed = [](unsigned steps, auto eval) {
    for (unsigned j = steps; j-- > 0;)
      eval(j);
  };
  std::vector<float> heavy;
  for (int i = 0; i < 1000; ++i)
    heavy.push_back((i % 2 ? -1 : 1) * 0.01f * (1 + i % 10));
  heavy.push_back(1.5f);
  std::vector<float> skewed;
  for (int i = 0; i < 257; ++i)
    skewed.push_back(-0.25f + 0.01f * static_cast<float>(i % 97));
  std::vector<float> zeros(16, 0.0f);
  const IntRange kU8{0, 255};
  struct Case {
    const std::vector<float> *v;
    StorageFormat f;
    IntRange r;
    bool sym;
  } cases[] = {{&heavy, StorageFormat::I4, kI4, true},
               {&heavy, StorageFormat::U8, kU8, false},
               {&skewed, StorageFormat::I8, kI8, false},
               {&skewed, StorageFormat::F8E4M3FN, kI8, false},
               {&zeros, StorageFormat::I8, kI8, true}};
  for (const Case &c : cases) {
    RangeStats s;
    for (float x : *c.v)
      s.add(x);
    ClipResult a = mseClip(c.v->data(), c.v->size(), s, c.f, c.r, c.sym, true);
    ClipResult b = mseClipWith(c.v->data(), c.v->size(), s, c.f, c.r, c.sym,
                               true, reversed);
    EXPECT_EQ(a.ratio, b.ratio);
    EXPECT_EQ(a.lo, b.lo);
    EXPECT_EQ(a.hi, b.hi);
    EXPECT_EQ(a.params.scale, b.params.scale);
    EXPECT_EQ(a.params.zeroPoint, b.params.zeroPoint);
  }
}

TEST(NumericsClip, ZeroGroupIsGuarded) {
  std::vector<float> v(16, 0.0f);
  RangeStats s;
  for (float x : v)
    s.add(x);
  ClipResult c = mseClip(v.data(), v.size(), s, StorageFormat::I8, kI8, true,
                         true);
  EXPECT_EQ(c.params.scale, 1.0f);
  ClipResult p =
      percentileClip(v.data(), v.size(), 99.0, StorageFormat::I8, kI8, true);
  EXPECT_EQ(p.params.scale, 1.0f);
}

TEST(NumericsClip, FakeQuantize) {
  // 0.3 / 0.1 = 2.9999998 in f32 -> 3 -> 0.3 (3 * 0.1f).
  EXPECT_EQ(fakeQuantize(0.3f, {0.1f, 0}, StorageFormat::I8, kI8, true),
            3 * 0.1f);
  // Saturation at qmax: 100 / 0.1 -> 127 -> 12.7.
  EXPECT_EQ(fakeQuantize(100.0f, {0.1f, 0}, StorageFormat::I8, kI8, true),
            127 * 0.1f);
  // FP8 E4M3FN: 1000 saturates to 448.
  EXPECT_EQ(fakeQuantize(1000.0f, {1.0f, 0}, StorageFormat::F8E4M3FN, kI8,
                         true),
            448.0f);
}

TEST(NumericsHistogram, BinsInScaleUnits) {
  ErrorHistogram h;
  h.add(1.0f, 1.0f, 1.0f);   // 0      -> [0, 0.1]
  h.add(1.0f, 0.75f, 1.0f);  // 0.25   -> (0.2, 0.3]
  h.add(1.0f, 0.5f, 1.0f);   // 0.5    -> (0.4, 0.5]
  h.add(3.0f, 0.0f, 1.0f);   // 3      -> (2, 4]
  h.add(100.0f, 0.0f, 1.0f); // 100    -> (8, inf)
  EXPECT_EQ(h.counts[0], 1u);
  EXPECT_EQ(h.counts[2], 1u);
  EXPECT_EQ(h.counts[4], 1u);
  EXPECT_EQ(h.counts[7], 1u);
  EXPECT_EQ(h.counts[9], 1u);
  ErrorHistogram g;
  g.add(1.0f, 1.0f, 1.0f);
  h.merge(g);
  EXPECT_EQ(h.counts[0], 2u);
}

// The MX shared scale against std::frexp (floor(log2 x) = e - 1 for
// x = m 2^e, m in [0.5, 1)) and std::ldexp, on exact powers of two, their
// neighbours, subnormals, the clamps at 2^-127 / FLT_MAX and zero ranges.
TEST(NumericsClip, E8M0ScaleIsTheMxRule) {
  auto want = [](float a, int emax) {
    if (!(a > 0.0f) || !std::isfinite(a))
      return 1.0f;
    int e;
    std::frexp(static_cast<double>(a), &e);
    int x = std::min(std::max(e - 1 - emax, -127), 127);
    return static_cast<float>(std::ldexp(1.0, x));
  };
  std::vector<float> xs = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           kFloatMax, 1e-45f, 3e-39f, 1e-30f, 1.0f, 448.0f,
                           449.0f, 57344.0f, 0.1f};
  for (int k = -149; k <= 127; ++k) {
    float p = std::ldexp(1.0f, k);
    xs.push_back(p);
    xs.push_back(std::nextafter(p, 0.0f));
    xs.push_back(std::nextafter(p, kFloatMax));
  }
  for (float a : xs)
    for (auto [f, emax] : {std::pair{StorageFormat::F8E4M3FN, 8},
                           std::pair{StorageFormat::F8E5M2, 15}}) {
      float got = e8m0Scale(a, f);
      EXPECT_EQ(got, want(a, emax)) << "absmax=" << a << " emax=" << emax;
      // mx-scale=ceil: the smallest power of two 2^x (clamped to E8M0)
      // with a <= max * 2^x, by search.
      float up = 1.0f;
      if (a > 0.0f && std::isfinite(a)) {
        int x = -300;
        while (static_cast<double>(a) >
               static_cast<double>(fp8MaxFinite(f)) * std::ldexp(1.0, x))
          ++x;
        up = static_cast<float>(std::ldexp(1.0, std::min(std::max(x, -127), 127)));
      }
      EXPECT_EQ(e8m0Scale(a, f, /*roundUp=*/true), up)
          << "absmax=" << a << " emax=" << emax << " (ceil)";
      // And the clip result: threshold min(absmax, max * X), zp 0.
      RangeStats st;
      st.add(a);
      ClipResult c = e8m0Clip(st, f);
      EXPECT_EQ(c.params.scale, got);
      EXPECT_EQ(c.params.zeroPoint, 0);
      if (std::isfinite(a) && a > 0)
        EXPECT_EQ(c.hi, std::min(a, fp8MaxFinite(f) * got));
    }
  // Spot values: floor(log2(500)) = 8, X = 2^(8 - 8) = 1 ... as computed by
  // hand: 500 = 1.95 * 2^8 -> X = 2^0 = 1 (and 500 > 448: it clips).
  EXPECT_EQ(e8m0Scale(500.0f, StorageFormat::F8E4M3FN), 1.0f);
  EXPECT_EQ(e8m0Scale(255.9f, StorageFormat::F8E4M3FN), 0.5f);
  EXPECT_EQ(e8m0Scale(512.0f, StorageFormat::F8E4M3FN), 2.0f);
  EXPECT_EQ(e8m0Clip([] { RangeStats s; s.add(500.0f); return s; }(),
                     StorageFormat::F8E4M3FN).hi, 448.0f);
  // Rounded up, 500 gets X = 2 and does not clip; 448 keeps X = 1.
  EXPECT_EQ(e8m0Scale(500.0f, StorageFormat::F8E4M3FN, true), 2.0f);
  EXPECT_EQ(e8m0Scale(448.0f, StorageFormat::F8E4M3FN, true), 1.0f);
  EXPECT_EQ(e8m0Clip([] { RangeStats s; s.add(500.0f); return s; }(),
                     StorageFormat::F8E4M3FN, true).hi, 500.0f);
}

} // namespace
