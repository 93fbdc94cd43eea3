//===- RuntimeAbiTest.cpp - Tests for liboctet_runtime's C ABI ------------===//
//
// Links against the shared library, as generated code does. The scalar rules
// themselves are tested in NumericsTest.cpp and, against numpy and
// ml_dtypes, by test/Runtime/numerics_oracle.py; this checks the buffer
// plumbing, the argument conventions and the exported symbol set.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/CpuPack.h"
#include "octet/Runtime/Numerics.h"
#include "octet/Runtime/OctetRuntime.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <dlfcn.h>

using namespace octet::numerics;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(RuntimeAbi, Version) {
  EXPECT_EQ(octet_runtime_abi_version(), OCTET_RUNTIME_ABI_VERSION);
}

TEST(RuntimeAbi, EveryEntryPointIsExported) {
  void *lib = dlopen(OCTET_RUNTIME_SO_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const char *name :
       {"octet_runtime_abi_version", "octet_quantize_int",
        "octet_dequantize_int", "octet_encode_fp8", "octet_decode_fp8",
        "octet_quantize_fp8", "octet_dequantize_fp8", "octet_round_half_even",
        "octet_symmetric_params", "octet_asymmetric_params", "octet_sqnr_db",
        "octet_pack_nibbles", "octet_unpack_nibbles", "octet_now_seconds",
        "octet_monitor_quantize", "octet_monitor_count", "octet_monitor_get",
        "octet_monitor_reset", "octet_monitor_write_json"})
    EXPECT_NE(dlsym(lib, name), nullptr) << name;
  dlclose(lib);
}

/// A rank-2 memref descriptor as generated code passes it.
struct Desc2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
struct Desc1 {
  void *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};

TEST(RuntimeAbi, MonitorCountsByTheQuantizerRule) {
  // A 7 x 5 view with strides (1, 9) of a 9 x 9 buffer (a transposed
  // slice), offset 10: values around the ends of i8 with scale 0.1 and
  // zero point 3 (range [-13.1, 12.4] in real units), ties included.
  std::vector<float> buf(81);
  for (int i = 0; i < 81; ++i)
    buf[i] = -14.0f + 0.35f * i;
  buf[10] = 12.45f; // (12.45 / 0.1) rounds to 124 or 125 by the f32 quotient
  buf[11] = kNaN;
  buf[19] = kInf;
  buf[20] = -kInf;
  Desc2 x{buf.data(), buf.data(), 10, {7, 5}, {1, 9}};
  const char name[] = "layer.input";
  Desc1 n{(void *)name, (void *)name, 0, {sizeof(name)}, {1}};
  octet_monitor_reset();
  int64_t before = octet_monitor_count();
  octet_monitor_quantize(2, &x, 1, &n, 0.1f, 3, -128, 127, OCTET_FORMAT_I8);
  octet_monitor_quantize(2, &x, 1, &n, 0.1f, 3, -128, 127, OCTET_FORMAT_I8);
  ASSERT_EQ(octet_monitor_count(), before + 1); // one name, one entry
  octet_monitor_stats s;
  int64_t idx = -1;
  for (int64_t i = 0; i < octet_monitor_count(); ++i)
    if (octet_monitor_get(i, &s) == 0 && std::strcmp(s.name, name) == 0)
      idx = i;
  ASSERT_GE(idx, 0);
  ASSERT_EQ(octet_monitor_get(idx, &s), 0);
  // The rule, element by element.
  int64_t low = 0, high = 0, nan = 0, inf = 0;
  float amax = 0;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) {
      float v = buf[10 + i * 1 + j * 9];
      float u = roundHalfEven(v / 0.1f) + 3.0f;
      high += u > 127.0f;
      low += u < -128.0f;
      nan += std::isnan(v);
      inf += std::isinf(v);
      if (std::isfinite(v))
        amax = std::max(amax, std::fabs(v));
    }
  EXPECT_GT(low, 0);
  EXPECT_GT(high, 0);
  EXPECT_EQ(s.calls, 2);
  EXPECT_EQ(s.values, 70);
  EXPECT_EQ(s.clipped_low, 2 * low);
  EXPECT_EQ(s.clipped_high, 2 * high);
  EXPECT_EQ(s.nan, 2 * nan);
  EXPECT_EQ(s.infinite, 2 * inf);
  EXPECT_EQ(s.absmax, amax);
  EXPECT_EQ(s.scale, 0.1f);
  EXPECT_EQ(s.zero_point, 3);
  // The bounds are where the rule flips.
  EXPECT_GT(roundHalfEven(s.high_bound / 0.1f) + 3.0f, 127.0f);
  EXPECT_LE(roundHalfEven(std::nextafter(s.high_bound, -kInf) / 0.1f) + 3.0f,
            127.0f);
  EXPECT_LT(roundHalfEven(s.low_bound / 0.1f) + 3.0f, -128.0f);
  EXPECT_GE(roundHalfEven(std::nextafter(s.low_bound, kInf) / 0.1f) + 3.0f,
            -128.0f);

  octet_monitor_reset();
  ASSERT_EQ(octet_monitor_get(idx, &s), 0);
  EXPECT_EQ(s.values, 0);
  EXPECT_EQ(s.calls, 0);
  EXPECT_NE(octet_monitor_get(-1, &s), 0);
  EXPECT_NE(octet_monitor_get(octet_monitor_count(), &s), 0);
  EXPECT_NE(octet_monitor_write_json("/nonexistent-dir/m.json"), 0);
}

TEST(RuntimeAbi, QuantizeDequantizeInt) {
  // DESIGN.md's example: scale 0.1 -> [3, -17, 35, 25, 127, -128]; NaN -> zp.
  const float x[] = {0.26f, -1.74f, 3.5f, 2.5f, 400.0f, -1000.0f, kNaN};
  int32_t q[7];
  octet_quantize_int(x, 7, 0.1f, 0, -128, 127, q);
  const int32_t want[] = {3, -17, 35, 25, 127, -128, 0};
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(q[i], want[i]) << i;
  float back[7];
  octet_dequantize_int(q, 7, 0.5f, 25, back);
  EXPECT_EQ(back[3], 0.0f);
  EXPECT_EQ(back[0], -11.0f);
}

// octet_cpu_quantize_pack_lhs against the steps it fuses, written with the
// scalar rules: each row's RangeStats and paramsFromStats, quantizeInt,
// then the packing octet_cpu_pack_lhs does (CpuPack.h's scalar
// packLhsPanels): every packed byte, scale and zero point equal, for each
// layout (s16 minus the zero point, u8 shifted, AMX tiles), symmetric and
// asymmetric i8 / u8, a narrow range, M and K tails and a row stride,
// with ties, NaN, +-inf, zero and subnormal rows; whole u8-shifted panels
// with K a multiple of 16 take the in-place AVX-512 path on CPUs with it.
TEST(RuntimeAbi, QuantizePackLhsEqualsTheSteps) {
  using octet::cpu::LhsMode;
  struct Layout {
    LhsMode mode;
    int64_t mr, kAlign, elem;
  } layouts[] = {{LhsMode::s16MinusZp, 6, 2, 2},
                 {LhsMode::u8Shifted, 8, 4, 1},
                 {LhsMode::s8Tiles, 32, 64, 1}};
  struct Scheme {
    StorageFormat f;
    IntRange r;
    bool symmetric;
  } schemes[] = {{StorageFormat::I8, {-128, 127}, true},
                 {StorageFormat::I8, {-127, 127}, true},
                 {StorageFormat::U8, {0, 255}, false},
                 {StorageFormat::I8, {-128, 127}, false}};
  for (const Layout &l : layouts)
    for (const Scheme &sc : schemes)
      for (auto [m, k] : {std::pair<int64_t, int64_t>{1, 17},
                          {7, 64},
                          {16, 48},
                          {45, 131},
                          {45, 320},
                          {70, 300}}) {
        if (l.mode == LhsMode::s8Tiles && sc.f == StorageFormat::U8)
          continue; // AMX takes s8 codes only
        const int64_t ldx = k + 3, kpad = octet::cpu::roundUp(k, l.kAlign);
        std::vector<float> x(static_cast<size_t>(m * ldx), 0.0f);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j)
            x[i * ldx + j] =
                std::ldexp(static_cast<float>((i * 37 + j * 11) % 255) - 120.5f,
                           static_cast<int>(i % 9) - 4);
        if (m > 5) {
          x[1 * ldx + 2] = kNaN;
          x[2 * ldx + 0] = kInf;
          x[2 * ldx + k - 1] = -kInf;
          for (int64_t j = 0; j < k; ++j) {
            x[3 * ldx + j] = 0.0f;
            x[4 * ldx + j] = 1e-40f * static_cast<float>(j % 7 - 3);
            // Ties: symmetric i8 gets scale s = 130 / 127 and the other
            // values are fl(s (n + 1/2)), 8 of 50 of which x * fl(1 / s)
            // rounds the wrong way (the vector forms divide there).
            x[5 * ldx + j] = j == 0 ? 130.0f
                                    : (130.0f / 127.0f) *
                                          (static_cast<float>(j % 50) - 24.5f);
          }
        }
        int32_t mode =
            static_cast<int32_t>(l.mode) |
            (sc.f == StorageFormat::U8 ? octet::cpu::kLhsUnsignedBit : 0);
        // The steps, scalar.
        std::vector<float> wantScale(m);
        std::vector<int32_t> wantZp(m);
        std::vector<int8_t> codes(static_cast<size_t>(m * k));
        for (int64_t i = 0; i < m; ++i) {
          RangeStats st;
          for (int64_t j = 0; j < k; ++j)
            st.add(x[i * ldx + j]);
          QuantParams p = paramsFromStats(st, sc.f, sc.r, sc.symmetric);
          wantScale[i] = p.scale;
          wantZp[i] = p.zeroPoint;
          for (int64_t j = 0; j < k; ++j)
            codes[i * k + j] = static_cast<int8_t>(
                quantizeInt(x[i * ldx + j], p.scale, p.zeroPoint, sc.r.qmin,
                            sc.r.qmax) &
                0xff);
        }
        const int64_t bytes = octet::cpu::roundUp(m, l.mr) * kpad * l.elem;
        std::vector<int8_t> want(bytes, 0x5a), got(bytes, 0x5a);
        octet::cpu::packLhsPanels(
            codes.data(), m, k, k, mode, sc.symmetric ? nullptr : wantZp.data(),
            true, l.mr, kpad, want.data(), 0, (m + l.mr - 1) / l.mr);
        std::vector<float> scale(m, -1.0f);
        std::vector<int32_t> zp(m, -999);
        octet_cpu_quantize_pack_lhs(
            x.data(), m, k, ldx, mode, static_cast<int32_t>(sc.f), sc.r.qmin,
            sc.r.qmax, sc.symmetric ? 1 : 0, scale.data(), zp.data(), l.mr,
            kpad, got.data());
        for (int64_t i = 0; i < m; ++i) {
          ASSERT_EQ(bitsOf(scale[i]), bitsOf(wantScale[i])) << "row " << i;
          if (!sc.symmetric)
            ASSERT_EQ(zp[i], wantZp[i]) << "row " << i;
        }
        ASSERT_EQ(std::memcmp(got.data(), want.data(), bytes), 0)
            << "mode " << static_cast<int>(l.mode) << " m " << m << " k " << k
            << " qmin " << sc.r.qmin << " symmetric " << sc.symmetric;
      }
}

// The u8-shifted layout written out from its definition (VNNI quads: byte
// kk of row r of panel p at p * mr * kpad + (kk / 4) * mr * 4 + r * 4 +
// kk % 4; codes + 128 for signed ones, the shifted zero code 128 past K
// and in the rows past M), for the decode shape M = 1 (mr - 1 padding
// rows, the fast quad fill) and M = 11 (a partial second panel), K with a
// tail.
TEST(RuntimeAbi, PackLhsU8ShiftedPaddingRows) {
  using octet::cpu::LhsMode;
  const int64_t mr = 8, k = 37, kpad = 40;
  for (int64_t m : {1, 11}) {
    std::vector<int8_t> a(m * k);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = static_cast<int8_t>(i * 37 % 251 - 125);
    int64_t panels = (m + mr - 1) / mr;
    std::vector<uint8_t> out(panels * mr * kpad, 0xEE);
    octet_cpu_pack_lhs(a.data(), m, k, k,
                       static_cast<int32_t>(LhsMode::u8Shifted), nullptr, 0, mr,
                       kpad, out.data());
    for (int64_t i = 0; i < panels * mr; ++i)
      for (int64_t kk = 0; kk < kpad; ++kk) {
        int64_t p = i / mr, r = i % mr;
        uint8_t want =
            i < m && kk < k ? static_cast<uint8_t>(a[i * k + kk] + 128) : 128;
        ASSERT_EQ(out[p * mr * kpad + (kk / 4) * mr * 4 + r * 4 + kk % 4], want)
            << "m " << m << " row " << i << " k " << kk;
      }
  }
}

TEST(RuntimeAbi, NonPositiveCountDoesNothing) {
  float x[2] = {1.0f, 2.0f};
  int32_t q[2] = {-7, -7};
  octet_quantize_int(x, 0, 1.0f, 0, -128, 127, q);
  octet_quantize_int(x, -5, 1.0f, 0, -128, 127, q);
  EXPECT_EQ(q[0], -7);
  uint8_t c[2] = {0xAA, 0xAA};
  octet_encode_fp8(x, -1, OCTET_FP8_E4M3FN, 1, c);
  octet_pack_nibbles(nullptr, 0, nullptr);
  octet_unpack_nibbles(nullptr, -3, 1, nullptr);
  EXPECT_EQ(c[0], 0xAA);
  EXPECT_EQ(octet_sqnr_db(nullptr, nullptr, 0),
            std::numeric_limits<double>::infinity());
}

TEST(RuntimeAbi, Fp8MatchesScalarRules) {
  // Every code decodes as decodeFp8 says and re-encodes to itself.
  for (int format : {OCTET_FP8_E4M3FN, OCTET_FP8_E5M2}) {
    StorageFormat f = format == OCTET_FP8_E4M3FN ? StorageFormat::F8E4M3FN
                                                 : StorageFormat::F8E5M2;
    std::vector<uint8_t> codes(256);
    for (int i = 0; i < 256; ++i)
      codes[i] = static_cast<uint8_t>(i);
    std::vector<float> vals(256);
    octet_decode_fp8(codes.data(), 256, format, vals.data());
    for (int i = 0; i < 256; ++i) {
      float want = decodeFp8(codes[i], f);
      EXPECT_EQ(std::memcmp(&vals[i], &want, 4), 0) << i;
    }
    std::vector<uint8_t> again(256);
    octet_encode_fp8(vals.data(), 256, format, 0, again.data());
    for (int i = 0; i < 256; ++i) {
      if (!std::isnan(vals[i])) {
        EXPECT_EQ(again[i], codes[i]) << i;
      }
    }
  }
  // OCP E4M3FN: 464 ties to 448 (0x7E); 465 is NaN non-saturating, 0x7E
  // saturating. E5M2: 61440 -> inf (0x7C) non-saturating.
  const float x[] = {464.0f, 465.0f, -kInf, -0.0f};
  uint8_t nonSat[4], sat[4], e5[4];
  octet_encode_fp8(x, 4, OCTET_FP8_E4M3FN, 0, nonSat);
  octet_encode_fp8(x, 4, OCTET_FP8_E4M3FN, 1, sat);
  EXPECT_EQ(nonSat[0], 0x7E);
  EXPECT_EQ(nonSat[1], 0x7F);
  EXPECT_EQ(nonSat[2], 0xFF);
  EXPECT_EQ(nonSat[3], 0x80);
  EXPECT_EQ(sat[1], 0x7E);
  EXPECT_EQ(sat[2], 0xFE);
  const float y[] = {61440.0f};
  octet_encode_fp8(y, 1, OCTET_FP8_E5M2, 0, e5);
  EXPECT_EQ(e5[0], 0x7C);
  // quantize = encode(x / scale), dequantize = decode(q) * scale.
  const float z[] = {896.0f, 930.0f};
  uint8_t qz[2];
  octet_quantize_fp8(z, 2, 2.0f, OCTET_FP8_E4M3FN, 0, qz);
  EXPECT_EQ(qz[0], 0x7E);
  EXPECT_EQ(qz[1], 0x7F); // 465
  octet_quantize_fp8(z, 2, 2.0f, OCTET_FP8_E4M3FN, 1, qz);
  EXPECT_EQ(qz[1], 0x7E);
  float dz[2];
  octet_dequantize_fp8(qz, 2, 2.0f, OCTET_FP8_E4M3FN, dz);
  EXPECT_EQ(dz[0], 896.0f);
}

TEST(RuntimeAbi, InvalidFp8FormatLeavesOutputAlone) {
  const float x[] = {1.0f};
  uint8_t c[1] = {0xAA};
  octet_encode_fp8(x, 1, 7, 1, c);
  octet_quantize_fp8(x, 1, 1.0f, -1, 1, c);
  EXPECT_EQ(c[0], 0xAA);
  float f[1] = {42.0f};
  octet_decode_fp8(c, 1, 3, f);
  octet_dequantize_fp8(c, 1, 1.0f, 3, f);
  EXPECT_EQ(f[0], 42.0f);
}

TEST(RuntimeAbi, Fp4ThroughTheFp8EntryPoints) {
  // E2M1 codes: 0x7 is 6, 0xF is -6, 0x5 is 3; 7 saturates to 6 and NaN
  // encodes as +0.
  const uint8_t codes[] = {0x7, 0xF, 0x5};
  float f[3];
  octet_decode_fp8(codes, 3, OCTET_FP4_E2M1FN, f);
  EXPECT_EQ(f[0], 6.0f);
  EXPECT_EQ(f[1], -6.0f);
  EXPECT_EQ(f[2], 3.0f);
  const float x[] = {7.0f, std::nanf(""), -2.5f};
  uint8_t c[3];
  octet_encode_fp8(x, 3, OCTET_FP4_E2M1FN, /*saturate=*/0, c);
  EXPECT_EQ(c[0], 0x7);
  EXPECT_EQ(c[1], 0x0);
  EXPECT_EQ(c[2], 0xC); // -2.5 ties to even: -2
}

TEST(RuntimeAbi, RoundHalfEvenInPlace) {
  float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 8388609.0f};
  octet_round_half_even(x, 6, x);
  EXPECT_EQ(x[0], 0.0f);
  EXPECT_EQ(x[1], 2.0f);
  EXPECT_EQ(x[2], 2.0f);
  EXPECT_EQ(x[3], 0.0f);
  EXPECT_TRUE(std::signbit(x[3]));
  EXPECT_EQ(x[4], -2.0f);
  EXPECT_EQ(x[5], 8388609.0f);
}

TEST(RuntimeAbi, Params) {
  float scale;
  int32_t zp = 99;
  octet_symmetric_params(12.7f, OCTET_FORMAT_I8, -128, 127, &scale, &zp);
  EXPECT_EQ(scale, 12.7f / 127.0f);
  EXPECT_EQ(zp, 0);
  octet_symmetric_params(896.0f, OCTET_FORMAT_F8E4M3FN, 0, 0, &scale, &zp);
  EXPECT_EQ(scale, 2.0f);
  octet_symmetric_params(0.0f, OCTET_FORMAT_I4, -8, 7, &scale, &zp);
  EXPECT_EQ(scale, 1.0f);
  octet_symmetric_params(12.0f, OCTET_FORMAT_F4E2M1FN, 0, 0, &scale, &zp);
  EXPECT_EQ(scale, 2.0f);
  octet_symmetric_params(0.75f, OCTET_FORMAT_NF4, 0, 15, &scale, &zp);
  EXPECT_EQ(scale, 0.75f); // NF4: scale = absmax
  octet_symmetric_params(1.0f, 8, -8, 7, &scale, &zp);
  EXPECT_TRUE(std::isnan(scale));
  EXPECT_EQ(zp, 0);
  octet_asymmetric_params(-1.0f, 3.0f, 0, 255, &scale, &zp);
  EXPECT_EQ(scale, 4.0f / 255.0f);
  EXPECT_EQ(zp, 64);
  octet_asymmetric_params(0.0f, 0.0f, 0, 255, &scale, &zp);
  EXPECT_EQ(scale, 1.0f);
}

TEST(RuntimeAbi, Sqnr) {
  const float x[] = {3.0f, 4.0f};
  const float xhat[] = {3.0f, 4.5f};
  EXPECT_DOUBLE_EQ(octet_sqnr_db(x, xhat, 2), 20.0);
  EXPECT_EQ(octet_sqnr_db(x, x, 2), std::numeric_limits<double>::infinity());
}

TEST(RuntimeAbi, Nibbles) {
  const int8_t codes[] = {1, -2, 7, -8, 5};
  uint8_t packed[3];
  octet_pack_nibbles(codes, 5, packed);
  EXPECT_EQ(packed[0], 0xE1);
  EXPECT_EQ(packed[1], 0x87);
  EXPECT_EQ(packed[2], 0x05);
  int8_t back[5];
  octet_unpack_nibbles(packed, 5, 1, back);
  EXPECT_EQ(std::memcmp(back, codes, 5), 0);
}

TEST(RuntimeAbi, MonotonicClock) {
  double t0 = octet_now_seconds();
  double t1 = t0;
  for (int i = 0; i < 1000; ++i) {
    double t = octet_now_seconds();
    EXPECT_GE(t, t1);
    t1 = t;
  }
  EXPECT_GE(t1, t0);
  EXPECT_TRUE(std::isfinite(t0));
}

} // namespace
