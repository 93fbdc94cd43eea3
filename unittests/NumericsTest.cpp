//===- NumericsTest.cpp - Tests for octet/Runtime/Numerics.h --------------===//
//
// Expected values are literals taken from the OCP 8-bit Floating Point
// Specification (OFP8) rev. 1.0, Table 1 ("E4M3" and "E5M2" columns), from
// IEEE 754 facts about binary32, and from DESIGN.md's numerics contract; each
// test says which. They are never computed with the code under test.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/Numerics.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cfenv>
#include <cmath>
#include <limits>
#include <vector>

using namespace octet::numerics;

namespace {

constexpr StorageFormat E4M3 = StorageFormat::F8E4M3FN;
constexpr StorageFormat E5M2 = StorageFormat::F8E5M2;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Non-saturating and saturating encodes.
uint8_t enc(float x, StorageFormat f) { return encodeFp8(x, f, false); }
uint8_t encSat(float x, StorageFormat f) { return encodeFp8(x, f, true); }

/// The sign bit of a float.
bool signBit(float x) { return std::signbit(x); }

//===----------------------------------------------------------------------===//
// Format descriptions
//===----------------------------------------------------------------------===//

TEST(NumericsFormat, RangesAndWidths) {
  // DESIGN.md / two's complement: i8 [-128,127], u8 [0,255], i4 [-8,7],
  // u4 [0,15].
  EXPECT_EQ(fullRange(StorageFormat::I8).qmin, -128);
  EXPECT_EQ(fullRange(StorageFormat::I8).qmax, 127);
  EXPECT_EQ(fullRange(StorageFormat::U8).qmin, 0);
  EXPECT_EQ(fullRange(StorageFormat::U8).qmax, 255);
  EXPECT_EQ(fullRange(StorageFormat::I4).qmin, -8);
  EXPECT_EQ(fullRange(StorageFormat::I4).qmax, 7);
  EXPECT_EQ(fullRange(StorageFormat::U4).qmin, 0);
  EXPECT_EQ(fullRange(StorageFormat::U4).qmax, 15);
  EXPECT_EQ(storageBits(StorageFormat::I4), 4u);
  EXPECT_EQ(storageBits(StorageFormat::U4), 4u);
  EXPECT_EQ(storageBits(StorageFormat::I8), 8u);
  EXPECT_EQ(storageBits(E4M3), 8u);
  EXPECT_TRUE(isFloat8(E4M3));
  EXPECT_TRUE(isFloat8(E5M2));
  EXPECT_FALSE(isFloat8(StorageFormat::I8));
  EXPECT_TRUE(isUnsigned(StorageFormat::U8));
  EXPECT_TRUE(isUnsigned(StorageFormat::U4));
  EXPECT_FALSE(isUnsigned(StorageFormat::I4));
}

TEST(NumericsFormat, Fp8MaxFinite) {
  // OFP8 Table 1: max normal E4M3 = S.1111.110 = 448, E5M2 = S.11110.11 =
  // 57344.
  EXPECT_EQ(fp8MaxFinite(E4M3), 448.0f);
  EXPECT_EQ(fp8MaxFinite(E5M2), 57344.0f);
}

//===----------------------------------------------------------------------===//
// FP8 decode
//===----------------------------------------------------------------------===//

TEST(NumericsFp8Decode, E4M3FNSpecValues) {
  // OFP8 Table 1 (E4M3): exponent bias 7.
  EXPECT_EQ(decodeFp8(0x7E, E4M3), 448.0f); // max normal S.1111.110
  EXPECT_EQ(decodeFp8(0xFE, E4M3), -448.0f);
  EXPECT_EQ(decodeFp8(0x08, E4M3), 0.015625f);    // min normal 2^-6
  EXPECT_EQ(decodeFp8(0x07, E4M3), 0.013671875f); // max subnormal 0.875*2^-6
  EXPECT_EQ(decodeFp8(0x01, E4M3), 0.001953125f); // min subnormal 2^-9
  EXPECT_EQ(decodeFp8(0x38, E4M3), 1.0f);         // S.0111.000
  EXPECT_EQ(decodeFp8(0x00, E4M3), 0.0f);
  EXPECT_FALSE(signBit(decodeFp8(0x00, E4M3)));
  EXPECT_EQ(decodeFp8(0x80, E4M3), 0.0f); // -0
  EXPECT_TRUE(signBit(decodeFp8(0x80, E4M3)));
  // S.1111.111 is the only NaN; no infinities ("FN" = finite).
  EXPECT_TRUE(std::isnan(decodeFp8(0x7F, E4M3)));
  EXPECT_TRUE(std::isnan(decodeFp8(0xFF, E4M3)));
  EXPECT_TRUE(signBit(decodeFp8(0xFF, E4M3)));
  EXPECT_EQ(decodeFp8(0x78, E4M3), 256.0f); // S.1111.000 is a normal number
  int nans = 0;
  for (int c = 0; c < 256; ++c) {
    float v = decodeFp8(static_cast<uint8_t>(c), E4M3);
    nans += std::isnan(v);
    EXPECT_FALSE(std::isinf(v)) << "code " << c;
  }
  EXPECT_EQ(nans, 2);
}

TEST(NumericsFp8Decode, E5M2SpecValues) {
  // OFP8 Table 1 (E5M2): exponent bias 15, IEEE-like specials.
  EXPECT_EQ(decodeFp8(0x7B, E5M2), 57344.0f);           // max normal S.11110.11
  EXPECT_EQ(decodeFp8(0x04, E5M2), 6.103515625e-05f);   // min normal 2^-14
  EXPECT_EQ(decodeFp8(0x03, E5M2), 4.57763671875e-05f); // max sub 0.75*2^-14
  EXPECT_EQ(decodeFp8(0x01, E5M2), 1.52587890625e-05f); // min sub 2^-16
  EXPECT_EQ(decodeFp8(0x3C, E5M2), 1.0f);               // S.01111.00
  EXPECT_EQ(decodeFp8(0x7C, E5M2), kInf);               // S.11111.00
  EXPECT_EQ(decodeFp8(0xFC, E5M2), -kInf);
  for (uint8_t c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF})
    EXPECT_TRUE(std::isnan(decodeFp8(c, E5M2))) << "code " << int(c);
  EXPECT_TRUE(signBit(decodeFp8(0x80, E5M2)));
  EXPECT_EQ(decodeFp8(0x80, E5M2), 0.0f);
}

//===----------------------------------------------------------------------===//
// FP8 encode
//===----------------------------------------------------------------------===//

TEST(NumericsFp8Encode, E4M3FNMaxAndOverflow) {
  // 448 = 1.75 * 2^8 is the max normal (0x7E). The next step would be
  // 480 = 1.875 * 2^8 (S.1111.111, the NaN pattern), so 464 is the midpoint:
  // a tie, rounded to the even mantissa 110 -> 448.
  EXPECT_EQ(enc(448.0f, E4M3), 0x7E);
  EXPECT_EQ(enc(464.0f, E4M3), 0x7E);
  EXPECT_EQ(enc(-464.0f, E4M3), 0xFE);
  // Just above the midpoint rounds towards 480, which does not exist:
  // non-saturating gives NaN (ml_dtypes), saturating gives 448.
  EXPECT_EQ(enc(465.0f, E4M3), 0x7F);
  EXPECT_EQ(encSat(465.0f, E4M3), 0x7E);
  EXPECT_EQ(enc(-465.0f, E4M3), 0xFF);
  EXPECT_EQ(encSat(-465.0f, E4M3), 0xFE);
  EXPECT_EQ(enc(1000.0f, E4M3), 0x7F);
  EXPECT_EQ(encSat(1000.0f, E4M3), 0x7E);
  EXPECT_EQ(enc(FLT_MAX, E4M3), 0x7F);
  EXPECT_EQ(encSat(FLT_MAX, E4M3), 0x7E);
  // Infinity: saturating -> +-max finite; non-saturating -> NaN (no inf).
  EXPECT_EQ(encSat(kInf, E4M3), 0x7E);
  EXPECT_EQ(encSat(-kInf, E4M3), 0xFE);
  EXPECT_EQ(enc(kInf, E4M3), 0x7F);
  EXPECT_EQ(enc(-kInf, E4M3), 0xFF);
}

TEST(NumericsFp8Encode, E5M2MaxAndOverflow) {
  // 57344 = 1.75 * 2^15 is the max normal (0x7B); the next value would be
  // 2^16 (the infinity pattern 0x7C), so 61440 is the midpoint. Its lower
  // neighbour has the odd mantissa 11, so the tie goes up: to inf when not
  // saturating (ml_dtypes), to 57344 when saturating.
  EXPECT_EQ(enc(57344.0f, E5M2), 0x7B);
  EXPECT_EQ(enc(61440.0f, E5M2), 0x7C);
  EXPECT_EQ(enc(-61440.0f, E5M2), 0xFC);
  EXPECT_EQ(encSat(61440.0f, E5M2), 0x7B);
  EXPECT_EQ(encSat(-61440.0f, E5M2), 0xFB);
  EXPECT_EQ(enc(61439.996f, E5M2), 0x7B); // one f32 ulp below the midpoint
  EXPECT_EQ(enc(kInf, E5M2), 0x7C);
  EXPECT_EQ(enc(-kInf, E5M2), 0xFC);
  EXPECT_EQ(encSat(kInf, E5M2), 0x7B);
  EXPECT_EQ(encSat(-kInf, E5M2), 0xFB);
  EXPECT_EQ(enc(FLT_MAX, E5M2), 0x7C);
  EXPECT_EQ(encSat(FLT_MAX, E5M2), 0x7B);
}

TEST(NumericsFp8Encode, Subnormals) {
  // E4M3FN min subnormal 2^-9 = 0.001953125 (0x01); half of it is a tie
  // between 0 and 0x01 and goes to the even code 0; 1.5 * 2^-9 is a tie
  // between 0x01 and 0x02 and goes to 0x02.
  EXPECT_EQ(enc(0.001953125f, E4M3), 0x01);
  EXPECT_EQ(enc(0.0009765625f, E4M3), 0x00);
  EXPECT_EQ(enc(-0.0009765625f, E4M3), 0x80);
  EXPECT_EQ(enc(std::nextafter(0.0009765625f, 1.0f), E4M3), 0x01);
  EXPECT_EQ(enc(0.0029296875f, E4M3), 0x02);
  // 7.5 * 2^-9 is the tie between the max subnormal 0x07 and the min normal
  // 0x08 (2^-6); 0x08 is even.
  EXPECT_EQ(enc(0.0146484375f, E4M3), 0x08);
  // E5M2 min subnormal 2^-16 (0x01); half of it ties to 0.
  EXPECT_EQ(enc(1.52587890625e-05f, E5M2), 0x01);
  EXPECT_EQ(enc(7.62939453125e-06f, E5M2), 0x00);
  EXPECT_EQ(enc(-7.62939453125e-06f, E5M2), 0x80);
  EXPECT_EQ(enc(std::nextafter(7.62939453125e-06f, 1.0f), E5M2), 0x01);
  // The smallest f32 subnormal (2^-149) rounds to zero, keeping its sign.
  EXPECT_EQ(enc(1.4e-45f, E4M3), 0x00);
  EXPECT_EQ(enc(-1.4e-45f, E5M2), 0x80);
}

TEST(NumericsFp8Encode, ZerosAndNaN) {
  for (StorageFormat f : {E4M3, E5M2}) {
    EXPECT_EQ(enc(0.0f, f), 0x00);
    EXPECT_EQ(enc(-0.0f, f), 0x80); // -0 stays -0
    EXPECT_EQ(encSat(-0.0f, f), 0x80);
  }
  // NaN stays NaN with its sign, in both modes. E4M3FN NaN is S.1111.111;
  // for E5M2 the canonical quiet NaN is S.11111.10 (what ml_dtypes produces).
  EXPECT_EQ(enc(kNaN, E4M3), 0x7F);
  EXPECT_EQ(encSat(kNaN, E4M3), 0x7F);
  EXPECT_EQ(enc(-kNaN, E4M3), 0xFF);
  EXPECT_EQ(encSat(-kNaN, E4M3), 0xFF);
  EXPECT_EQ(enc(kNaN, E5M2), 0x7E);
  EXPECT_EQ(encSat(-kNaN, E5M2), 0xFE);
  // A signalling-NaN bit pattern is still NaN.
  EXPECT_EQ(enc(floatOf(0x7F800001u), E5M2), 0x7E);
  EXPECT_EQ(enc(floatOf(0xFF800001u), E4M3), 0xFF);
}

TEST(NumericsFp8Encode, SimpleValues) {
  // 1.0: E4M3 S.0111.000, E5M2 S.01111.00. 1.0625 lies halfway between
  // 1 and 1.125 (E4M3 step 2^-3): ties to the even mantissa 000.
  EXPECT_EQ(enc(1.0f, E4M3), 0x38);
  EXPECT_EQ(enc(-1.0f, E4M3), 0xB8);
  EXPECT_EQ(enc(1.0625f, E4M3), 0x38);
  EXPECT_EQ(enc(1.1875f, E4M3), 0x3A); // tie between 001 and 010 -> 010
  EXPECT_EQ(enc(1.0f, E5M2), 0x3C);
  EXPECT_EQ(enc(1.125f, E5M2), 0x3C); // tie (step 2^-2) -> even 00
  EXPECT_EQ(enc(1.375f, E5M2), 0x3E); // tie between 01 and 10 -> 10
  // Rounding that carries into the exponent: 1.9375 -> 2.0 (E4M3 0x40).
  EXPECT_EQ(enc(1.9375f, E4M3), 0x40);
}

TEST(NumericsFp8Encode, EveryCodeRoundTrips) {
  // decode is exact and encode rounds to nearest, so every non-NaN code is
  // a fixed point of encode(decode(c)), in both saturation modes.
  for (StorageFormat f : {E4M3, E5M2}) {
    for (int c = 0; c < 256; ++c) {
      uint8_t code = static_cast<uint8_t>(c);
      float v = decodeFp8(code, f);
      if (std::isnan(v))
        continue;
      EXPECT_EQ(enc(v, f), code) << "code " << c;
      if (!std::isinf(v)) {
        EXPECT_EQ(encSat(v, f), code) << "code " << c;
      }
    }
  }
}

TEST(NumericsFp8Encode, QuantizeDividesByScale) {
  // fp8 quantize = encode(x / scale); dequantize = decode(q) * scale.
  EXPECT_EQ(quantizeFp8(896.0f, 2.0f, E4M3, true), 0x7E);   // 448
  EXPECT_EQ(quantizeFp8(1000.0f, 2.0f, E4M3, false), 0x7F); // 500 -> NaN
  EXPECT_EQ(quantizeFp8(1000.0f, 2.0f, E4M3, true), 0x7E);
  EXPECT_EQ(dequantizeFp8(0x7E, 2.0f, E4M3), 896.0f);
  EXPECT_EQ(dequantizeFp8(0x3C, 0.5f, E5M2), 0.5f);
}

//===----------------------------------------------------------------------===//
// Rounding and integer quantization
//===----------------------------------------------------------------------===//

TEST(NumericsRound, HalfEven) {
  // IEEE 754 roundTiesToEven (also C rint in the default mode, np.rint).
  EXPECT_EQ(roundHalfEven(0.5f), 0.0f);
  EXPECT_EQ(roundHalfEven(1.5f), 2.0f);
  EXPECT_EQ(roundHalfEven(2.5f), 2.0f);
  EXPECT_EQ(roundHalfEven(3.5f), 4.0f);
  EXPECT_EQ(roundHalfEven(-1.5f), -2.0f);
  EXPECT_EQ(roundHalfEven(-2.5f), -2.0f);
  EXPECT_EQ(roundHalfEven(-0.5f), 0.0f);
  EXPECT_TRUE(signBit(roundHalfEven(-0.5f))); // -0.5 -> -0
  EXPECT_TRUE(signBit(roundHalfEven(-0.25f)));
  EXPECT_TRUE(signBit(roundHalfEven(-0.0f)));
  EXPECT_EQ(roundHalfEven(0.49999997f), 0.0f); // largest float below 0.5
  EXPECT_EQ(roundHalfEven(2.5000002f), 3.0f);
  // 2^23 + 1 is an integer (f32 ulp is 1 there) and is returned unchanged;
  // 2^23 - 0.5 = 8388607.5 is a tie that goes to the even 2^23.
  EXPECT_EQ(roundHalfEven(8388609.0f), 8388609.0f);
  EXPECT_EQ(roundHalfEven(8388607.5f), 8388608.0f);
  EXPECT_EQ(roundHalfEven(-8388607.5f), -8388608.0f);
  EXPECT_EQ(roundHalfEven(1e30f), 1e30f);
  EXPECT_EQ(roundHalfEven(kInf), kInf);
  EXPECT_EQ(roundHalfEven(-kInf), -kInf);
  EXPECT_TRUE(std::isnan(roundHalfEven(kNaN)));
}

TEST(NumericsRound, HalfEvenMatchesNearbyint) {
  // Against the FPU's own round-to-nearest-even (std::nearbyint in the
  // default mode): a strided sweep of the floats below 2^23 (and 2^23 to
  // 2^24, which are integral), both signs, and every tie k + 1/2 below 2^22.
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  int64_t checked = 0, wrong = 0;
  auto check = [&](float x) {
    float got = roundHalfEven(x), want = std::nearbyint(x);
    ++checked;
    if (bitsOf(got) != bitsOf(want) && ++wrong <= 5)
      ADD_FAILURE() << x << ": " << got << ", nearbyint " << want;
  };
  for (uint32_t u = 0; u < 0x4B800000u; u += 97) {
    check(floatOf(u));
    check(floatOf(u | 0x80000000u));
  }
  for (int32_t k = 0; k < (1 << 22); ++k) {
    check(static_cast<float>(k) + 0.5f);
    check(-(static_cast<float>(k) + 0.5f));
  }
  EXPECT_EQ(wrong, 0) << "of " << checked;
}

TEST(NumericsInt, DesignExample) {
  // DESIGN.md: scale 0.1 on [0.26, -1.74, 3.5, 2.5, 400, -1000] gives i8
  // [3, -17, 35, 25, 127, -128] (upstream --lower-quant-ops gets
  // [2, -17, 35, 25, -96, -16]).
  const float x[] = {0.26f, -1.74f, 3.5f, 2.5f, 400.0f, -1000.0f};
  const int32_t want[] = {3, -17, 35, 25, 127, -128};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(quantizeInt(x[i], 0.1f, 0, -128, 127), want[i]) << "x=" << x[i];
}

TEST(NumericsInt, TiesSpecialsAndSaturation) {
  // Scale 0.5 makes x / scale exact, so these are true ties.
  EXPECT_EQ(quantizeInt(0.25f, 0.5f, 0, -128, 127), 0);   // 0.5 -> 0
  EXPECT_EQ(quantizeInt(0.75f, 0.5f, 0, -128, 127), 2);   // 1.5 -> 2
  EXPECT_EQ(quantizeInt(1.25f, 0.5f, 0, -128, 127), 2);   // 2.5 -> 2
  EXPECT_EQ(quantizeInt(-1.25f, 0.5f, 0, -128, 127), -2); // -2.5 -> -2
  EXPECT_EQ(quantizeInt(-0.25f, 0.5f, 0, -128, 127), 0);  // -0.5 -> 0
  // Ties at the edge of the range: 127.5 -> 128 -> 127, -128.5 -> -128.
  EXPECT_EQ(quantizeInt(63.75f, 0.5f, 0, -128, 127), 127);
  EXPECT_EQ(quantizeInt(-64.25f, 0.5f, 0, -128, 127), -128);
  // NaN -> zero point; +-inf and far out-of-range values saturate.
  EXPECT_EQ(quantizeInt(kNaN, 0.1f, 0, -128, 127), 0);
  EXPECT_EQ(quantizeInt(kNaN, 0.1f, 10, -128, 127), 10);
  EXPECT_EQ(quantizeInt(kNaN, 0.1f, 128, 0, 255), 128);
  EXPECT_EQ(quantizeInt(kInf, 0.1f, 0, -128, 127), 127);
  EXPECT_EQ(quantizeInt(-kInf, 0.1f, 0, -128, 127), -128);
  EXPECT_EQ(quantizeInt(1e30f, 1e-30f, 0, -128, 127), 127);
  EXPECT_EQ(quantizeInt(-FLT_MAX, 1e-3f, 0, -128, 127), -128);
  EXPECT_EQ(quantizeInt(-0.0f, 0.1f, 0, -128, 127), 0);
  // Subnormal inputs are tiny and quantize to the zero point.
  EXPECT_EQ(quantizeInt(1e-40f, 0.1f, 3, -128, 127), 3);
  // The zero point is added after rounding.
  EXPECT_EQ(quantizeInt(0.25f, 0.5f, 1, -128, 127), 1); // 0 + 1
  EXPECT_EQ(quantizeInt(0.75f, 0.5f, -3, -128, 127), -1);
}

TEST(NumericsInt, OtherFormats) {
  // u8 [0, 255] with zp 128, i4 [-8, 7], u4 [0, 15] with zp 8, and the
  // narrowed symmetric i8 range [-127, 127].
  EXPECT_EQ(quantizeInt(0.0f, 1.0f, 128, 0, 255), 128);
  EXPECT_EQ(quantizeInt(-200.0f, 1.0f, 128, 0, 255), 0);
  EXPECT_EQ(quantizeInt(200.0f, 1.0f, 128, 0, 255), 255);
  EXPECT_EQ(quantizeInt(126.5f, 1.0f, 128, 0, 255), 254); // 126 + 128
  EXPECT_EQ(quantizeInt(127.5f, 1.0f, 128, 0, 255), 255); // 256 -> 255
  EXPECT_EQ(quantizeInt(7.0f, 1.0f, 0, -8, 7), 7);
  EXPECT_EQ(quantizeInt(7.5f, 1.0f, 0, -8, 7), 7); // 8 -> 7
  EXPECT_EQ(quantizeInt(-100.0f, 1.0f, 0, -8, 7), -8);
  EXPECT_EQ(quantizeInt(-8.5f, 1.0f, 0, -8, 7), -8);
  EXPECT_EQ(quantizeInt(-1.0f, 1.0f, 0, 0, 15), 0);
  EXPECT_EQ(quantizeInt(16.0f, 1.0f, 0, 0, 15), 15);
  EXPECT_EQ(quantizeInt(0.0f, 1.0f, 8, 0, 15), 8);
  EXPECT_EQ(quantizeInt(-8.5f, 1.0f, 8, 0, 15), 0); // -8 + 8
  EXPECT_EQ(quantizeInt(-1000.0f, 1.0f, 0, -127, 127), -127);
  EXPECT_EQ(quantizeInt(-kInf, 1.0f, 0, -127, 127), -127);
}

TEST(NumericsInt, Dequantize) {
  // x = float(q - zp) * scale, in f32.
  EXPECT_EQ(dequantizeInt(3, 0.1f, 0), 3.0f * 0.1f);
  EXPECT_EQ(dequantizeInt(-128, 0.5f, 0), -64.0f);
  EXPECT_EQ(dequantizeInt(128, 0.25f, 128), 0.0f);
  EXPECT_EQ(dequantizeInt(255, 1.0f, 128), 127.0f);
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

TEST(NumericsParams, Symmetric) {
  // DESIGN.md: scale = absmax / qmax, zp = 0; FP8 uses the max finite value.
  QuantParams p = symmetricParams(12.7f, StorageFormat::I8, {-128, 127});
  EXPECT_EQ(p.scale, 12.7f / 127.0f);
  EXPECT_EQ(p.zeroPoint, 0);
  p = symmetricParams(-14.0f, StorageFormat::I4, {-8, 7}); // |absmax|
  EXPECT_EQ(p.scale, 2.0f);
  p = symmetricParams(896.0f, E4M3, {0, 0});
  EXPECT_EQ(p.scale, 2.0f);
  p = symmetricParams(229376.0f, E5M2, {0, 0}); // 4 * 57344
  EXPECT_EQ(p.scale, 4.0f);
  p = symmetricParams(510.0f, StorageFormat::U8, {0, 255});
  EXPECT_EQ(p.scale, 2.0f);
  EXPECT_EQ(p.zeroPoint, 0);
}

TEST(NumericsParams, SymmetricGuards) {
  // Zero range: scale 1 (every code is the zero point and dequantizes to 0),
  // never 0 or NaN. A NaN absmax counts as a zero range.
  QuantParams p = symmetricParams(0.0f, StorageFormat::I8, {-128, 127});
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zeroPoint, 0);
  EXPECT_EQ(quantizeInt(0.0f, p.scale, p.zeroPoint, -128, 127), 0);
  p = symmetricParams(kNaN, StorageFormat::I8, {-128, 127});
  EXPECT_EQ(p.scale, 1.0f);
  // Infinite range: FLT_MAX / 127, finite.
  p = symmetricParams(kInf, StorageFormat::I8, {-128, 127});
  EXPECT_EQ(p.scale, FLT_MAX / 127.0f);
  EXPECT_TRUE(std::isfinite(p.scale));
  // Subnormal absmax (and a normal one whose quotient underflows): the scale
  // is clamped to FLT_MIN = 2^-126, the smallest normal f32, so x / scale
  // stays finite and the scale survives flush-to-zero.
  p = symmetricParams(1e-40f, StorageFormat::I8, {-128, 127});
  EXPECT_EQ(p.scale, FLT_MIN);
  EXPECT_TRUE(std::isnormal(p.scale));
  p = symmetricParams(1e-37f, StorageFormat::I8, {-128, 127});
  EXPECT_EQ(p.scale, FLT_MIN);
  EXPECT_EQ(quantizeInt(1e-40f, FLT_MIN, 0, -128, 127), 0);
}

TEST(NumericsParams, Asymmetric) {
  // [-1, 3] on u8: scale = 4 / 255, zp = rhe(0 - (-1) / scale) = rhe(63.75)
  // = 64.
  QuantParams p = asymmetricParams(-1.0f, 3.0f, {0, 255});
  EXPECT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zeroPoint, 64);
  // [-2, 6] on i8: scale 8 / 255, zp = rhe(-128 + 63.75) = -64.
  p = asymmetricParams(-2.0f, 6.0f, {-128, 127});
  EXPECT_EQ(p.scale, 8.0f / 255.0f);
  EXPECT_EQ(p.zeroPoint, -64);
  // [1, 3] does not contain 0: widened to [0, 3], so zp = qmin.
  p = asymmetricParams(1.0f, 3.0f, {0, 255});
  EXPECT_EQ(p.scale, 3.0f / 255.0f);
  EXPECT_EQ(p.zeroPoint, 0);
  // [-5, -1] is widened to [-5, 0]: zp = qmax.
  p = asymmetricParams(-5.0f, -1.0f, {0, 15});
  EXPECT_EQ(p.scale, 5.0f / 15.0f);
  EXPECT_EQ(p.zeroPoint, 15);
}

TEST(NumericsParams, AsymmetricZeroIsExact) {
  // Real 0 quantizes to exactly zp, which dequantizes to exactly 0.
  const float ranges[][2] = {{-1.0f, 3.0f},   {-2.0f, 6.0f}, {0.1f, 7.3f},
                             {-7.3f, -0.1f},  {-0.3f, 1e6f}, {-1e-3f, 1e-3f},
                             {-123.4f, 5.6f}, {0.0f, 0.0f}};
  const IntRange fmts[] = {{0, 255}, {-128, 127}, {-8, 7}, {0, 15}};
  for (const auto &r : ranges) {
    for (IntRange q : fmts) {
      QuantParams p = asymmetricParams(r[0], r[1], q);
      EXPECT_GE(p.zeroPoint, q.qmin);
      EXPECT_LE(p.zeroPoint, q.qmax);
      EXPECT_EQ(quantizeInt(0.0f, p.scale, p.zeroPoint, q.qmin, q.qmax),
                p.zeroPoint);
      EXPECT_EQ(dequantizeInt(p.zeroPoint, p.scale, p.zeroPoint), 0.0f);
      EXPECT_TRUE(std::isfinite(p.scale) && p.scale > 0.0f);
    }
  }
}

TEST(NumericsParams, AsymmetricGuards) {
  // Zero range: scale 1, no NaN; zp = rhe(qmin - 0) = qmin.
  QuantParams p = asymmetricParams(0.0f, 0.0f, {0, 255});
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zeroPoint, 0);
  p = asymmetricParams(0.0f, 0.0f, {-128, 127});
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zeroPoint, -128);
  p = asymmetricParams(kNaN, kNaN, {-128, 127});
  EXPECT_EQ(p.scale, 1.0f);
  // An infinite range is clamped to the largest finite one.
  p = asymmetricParams(-kInf, kInf, {0, 255});
  EXPECT_TRUE(std::isfinite(p.scale));
  EXPECT_EQ(p.scale, FLT_MAX);
  EXPECT_EQ(p.zeroPoint, 1); // rhe(0 - (-FLT_MAX) / FLT_MAX) = 1
  // A subnormal range gets the FLT_MIN scale.
  p = asymmetricParams(-1e-40f, 1e-40f, {0, 255});
  EXPECT_EQ(p.scale, FLT_MIN);
}

TEST(NumericsParams, RangeStats) {
  // Accumulators start at 0 (so asymmetric ranges include 0) and ignore NaN
  // (IEEE maxNum/minNum).
  RangeStats st;
  for (float x : {1.5f, kNaN, 3.0f, 0.5f})
    st.add(x);
  EXPECT_EQ(st.absmax, 3.0f);
  EXPECT_EQ(st.minV, 0.0f);
  EXPECT_EQ(st.maxV, 3.0f);
  st.add(-6.0f);
  EXPECT_EQ(st.absmax, 6.0f);
  EXPECT_EQ(st.minV, -6.0f);
  QuantParams sym =
      paramsFromStats(st, StorageFormat::I8, {-128, 127}, /*symmetric=*/true);
  EXPECT_EQ(sym.scale, 6.0f / 127.0f);
  EXPECT_EQ(sym.zeroPoint, 0);
  // [-6, 3] on u8: scale 9 / 255, zp = rhe(6 / (9 / 255)) = rhe(170) = 170.
  QuantParams asym =
      paramsFromStats(st, StorageFormat::U8, {0, 255}, /*symmetric=*/false);
  EXPECT_EQ(asym.scale, 9.0f / 255.0f);
  EXPECT_EQ(asym.zeroPoint, 170);
  // An empty or all-NaN group is a zero range: scale 1.
  RangeStats empty;
  empty.add(kNaN);
  EXPECT_EQ(paramsFromStats(empty, StorageFormat::I8, {-128, 127}, true).scale,
            1.0f);
  EXPECT_EQ(paramsFromStats(empty, StorageFormat::U8, {0, 255}, false).scale,
            1.0f);
}

//===----------------------------------------------------------------------===//
// SQNR and nibble packing
//===----------------------------------------------------------------------===//

TEST(NumericsSqnr, Values) {
  // x = [3, 4], xhat = [3, 4.5]: signal 25, noise 0.25, 10 log10(100) = 20.
  SqnrAccumulator acc;
  acc.add(3.0f, 3.0f);
  acc.add(4.0f, 4.5f);
  EXPECT_DOUBLE_EQ(acc.db(), 20.0);
  SqnrAccumulator exact;
  exact.add(1.0f, 1.0f);
  EXPECT_EQ(exact.db(), std::numeric_limits<double>::infinity());
  SqnrAccumulator zero;
  zero.add(0.0f, 1.0f);
  EXPECT_EQ(zero.db(), -std::numeric_limits<double>::infinity());
  SqnrAccumulator a, b;
  a.add(3.0f, 3.0f);
  b.add(4.0f, 4.5f);
  a.merge(b);
  EXPECT_DOUBLE_EQ(a.db(), 20.0);
}

TEST(NumericsPack, LowNibbleFirst) {
  // Element 2i goes to bits 0-3, element 2i+1 to bits 4-7; an odd count
  // leaves the last high nibble 0. -2 is 0xE and -8 is 0x8 in 4 bits.
  const int8_t codes[] = {1, -2, 7, -8, 5};
  uint8_t packed[3] = {0xAA, 0xAA, 0xAA};
  packNibbles(codes, 5, packed);
  EXPECT_EQ(packed[0], 0xE1);
  EXPECT_EQ(packed[1], 0x87);
  EXPECT_EQ(packed[2], 0x05);
  int8_t back[5];
  unpackNibbles(packed, 5, /*isSigned=*/true, back);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(back[i], codes[i]) << i;
  unpackNibbles(packed, 5, /*isSigned=*/false, back);
  const int8_t unsignedWant[] = {1, 14, 7, 8, 5};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(back[i], unsignedWant[i]) << i;
}

TEST(NumericsPack, RoundTripAllCodes) {
  std::vector<int8_t> s, u;
  for (int v = -8; v <= 7; ++v)
    for (int w = -8; w <= 7; ++w) {
      s.push_back(static_cast<int8_t>(v));
      s.push_back(static_cast<int8_t>(w));
      u.push_back(static_cast<int8_t>(v + 8));
      u.push_back(static_cast<int8_t>(w + 8));
    }
  std::vector<uint8_t> packed(s.size() / 2);
  std::vector<int8_t> back(s.size());
  packNibbles(s.data(), s.size(), packed.data());
  unpackNibbles(packed.data(), s.size(), true, back.data());
  EXPECT_EQ(back, s);
  packNibbles(u.data(), u.size(), packed.data());
  unpackNibbles(packed.data(), u.size(), false, back.data());
  EXPECT_EQ(back, u);
}

} // namespace
