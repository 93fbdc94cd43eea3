//===- Numerics.h - Octet's scalar quantization rules -------------*- C++ -*-===//
//
// The one implementation of Octet's numerics contract (docs/numerics.md).
// Header-only, no MLIR or LLVM dependency: the compiler links it for
// compile-time constant folding, the runtime links it for its helpers, and the
// MLIR lowering (lib/Conversion/OctetToLinalg) emits IR that performs exactly
// these steps, in this order, so every path produces the same bits.
//
// Rules (see docs/numerics.md for the rationale and the oracles):
//   integer quantize   q = clamp(roundHalfEven(x / scale) + zp, qmin, qmax),
//                      computed in f32, clamped in f32 before narrowing;
//                      NaN quantizes to the zero point.
//   integer dequantize x = float(q - zp) * scale, in f32.
//   fp8 quantize       encode(x / scale): round to nearest even; saturating
//                      (default) clamps finite overflow and +-inf to +-max
//                      finite; non-saturating follows ml_dtypes (E4M3FN
//                      overflow -> NaN, E5M2 overflow -> inf). NaN stays NaN
//                      (sign kept), -0 stays -0.
//   fp8 dequantize     x = decode(q) * scale, in f32.
//
// Preconditions for every caller (compiler, runtime, generated code): the
// default floating-point environment (round-to-nearest-even, no flush to
// zero), and no -ffast-math / -ffinite-math-only / --use_fast_math, which
// would drop the NaN rules and change x / scale.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_NUMERICS_H
#define OCTET_RUNTIME_NUMERICS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__CUDACC__)
#define OCTET_HD __host__ __device__ inline
#else
#define OCTET_HD inline
#endif

namespace octet {
namespace numerics {

/// Smallest positive normal and largest finite f32 (FLT_MIN, FLT_MAX), as
/// plain constants so that host-device code needs no constexpr relaxation.
constexpr float kFloatMinNormal = 0x1p-126f;
constexpr float kFloatMax = 0x1.fffffep127f;

/// Storage formats. Signedness of the integer formats is part of the format;
/// the storage element type in IR is signless (i8 / i4) or the builtin float
/// type (f8E4M3FN, f8E5M2, f4E2M1FN); NF4 codes are i4 holding the index
/// 0..15 of the NF4 value table.
enum class StorageFormat : uint8_t {
  I8,
  U8,
  I4,
  U4,
  F8E4M3FN,
  F8E5M2,
  F4E2M1FN,
  NF4
};

OCTET_HD bool isFloat8(StorageFormat f) {
  return f == StorageFormat::F8E4M3FN || f == StorageFormat::F8E5M2;
}
/// OCP FP4 (E2M1): the element format of MXFP4 and NVFP4.
OCTET_HD bool isFloat4(StorageFormat f) {
  return f == StorageFormat::F4E2M1FN;
}
/// The float formats (FP8 and FP4): always symmetric, codes are floats.
OCTET_HD bool isFloatFormat(StorageFormat f) {
  return isFloat8(f) || isFloat4(f);
}
/// QLoRA's NormalFloat4: 4-bit indices into a table of 16 values in
/// [-1, 1]; always symmetric (scale = absmax), no zero point.
OCTET_HD bool isNf4(StorageFormat f) { return f == StorageFormat::NF4; }
OCTET_HD bool isUnsigned(StorageFormat f) {
  return f == StorageFormat::U8 || f == StorageFormat::U4;
}
/// Width in bits of one stored code.
OCTET_HD unsigned storageBits(StorageFormat f) {
  return (f == StorageFormat::I4 || f == StorageFormat::U4 ||
          f == StorageFormat::F4E2M1FN || f == StorageFormat::NF4)
             ? 4
             : 8;
}

/// Inclusive integer code range.
struct IntRange {
  int32_t qmin;
  int32_t qmax;
};

/// The full range of an integer format (i8 [-128,127], u8 [0,255],
/// i4 [-8,7], u4 [0,15]). Not meaningful for the float formats.
OCTET_HD IntRange fullRange(StorageFormat f) {
  switch (f) {
  case StorageFormat::I8:
    return {-128, 127};
  case StorageFormat::U8:
    return {0, 255};
  case StorageFormat::I4:
    return {-8, 7};
  case StorageFormat::U4:
  case StorageFormat::NF4: // the table indices
    return {0, 15};
  default:
    return {0, 0};
  }
}

//===----------------------------------------------------------------------===//
// Bit casts and rounding
//===----------------------------------------------------------------------===//

OCTET_HD uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}
OCTET_HD float floatOf(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

/// Round to nearest integer, ties to even, independent of the floating-point
/// environment. NaN and +-inf are returned unchanged, -0 stays -0. Same
/// result as llvm.roundeven / math.roundeven.
OCTET_HD float roundHalfEven(float x) {
  // |x| >= 2^23 (and inf/NaN) is already integral.
  if (!(std::fabs(x) < 8388608.0f))
    return x;
  // Truncation through int32 (exact: |x| < 2^23); its low bit says
  // whether t is odd (std::fmod, used before, is a libm call per element).
  const int32_t ti = static_cast<int32_t>(x);
  float t = static_cast<float>(ti);
  float d = x - t; // exact for |x| < 2^23
  float ad = std::fabs(d);
  if (ad > 0.5f || (ad == 0.5f && (ti & 1) != 0))
    t += (x < 0.0f) ? -1.0f : 1.0f;
  // Keep the sign of zero (e.g. -0.4 -> -0).
  return std::copysign(t, x);
}

//===----------------------------------------------------------------------===//
// Integer formats
//===----------------------------------------------------------------------===//

/// q = clamp(roundHalfEven(x / scale) + zp, qmin, qmax). Divides (ONNX and
/// StableHLO semantics; multiplying by a reciprocal changes ties). The sum and
/// the clamp happen in f32, so no out-of-range float is ever narrowed. NaN
/// maps to zp (which callers keep inside [qmin, qmax]); +-inf saturate.
OCTET_HD int32_t quantizeInt(float x, float scale, int32_t zp, int32_t qmin,
                             int32_t qmax) {
  float v = x / scale;
  v = roundHalfEven(v);
  if (std::isnan(v))
    v = 0.0f;
  v = v + static_cast<float>(zp);
  v = std::fmax(v, static_cast<float>(qmin));
  v = std::fmin(v, static_cast<float>(qmax));
  return static_cast<int32_t>(v);
}

/// x = float(q - zp) * scale, in f32.
OCTET_HD float dequantizeInt(int32_t q, float scale, int32_t zp) {
  return static_cast<float>(q - zp) * scale;
}

//===----------------------------------------------------------------------===//
// Float formats: FP8 (OCP E4M3FN and E5M2) and FP4 (OCP E2M1)
//===----------------------------------------------------------------------===//
//
// The functions below are named for FP8, their first formats; every one of
// them also takes F4E2M1FN, whose 4-bit code is sign.ee.m in the low nibble.

/// Parameters of a small float format.
struct Fp8Spec {
  unsigned expBits;
  unsigned manBits;
  int bias;
  uint8_t maxCode;   ///< Largest finite magnitude code.
  uint8_t nanCode;   ///< Canonical (positive) NaN code.
  uint8_t infCode;   ///< Infinity code; equals nanCode when there is no inf.
  bool hasInf;
  bool hasNan;       ///< False for E2M1 (no NaN and no infinity).
  uint8_t signBit;   ///< 0x80 for FP8, 0x08 for FP4.
  float maxFinite;
};

OCTET_HD Fp8Spec fp8Spec(StorageFormat f) {
  if (f == StorageFormat::F8E5M2)
    return {5, 2, 15, 0x7B, 0x7E, 0x7C, true, true, 0x80, 57344.0f};
  // E2M1 (OCP Microscaling v1.0, 5.3.3): 0, 0.5, 1, 1.5, 2, 3, 4, 6; no
  // infinities or NaN.
  if (f == StorageFormat::F4E2M1FN)
    return {2, 1, 1, 0x7, 0x7, 0x7, false, false, 0x08, 6.0f};
  // E4M3FN: no infinities, only S.1111.111 is NaN.
  return {4, 3, 7, 0x7E, 0x7F, 0x7F, false, true, 0x80, 448.0f};
}

/// Largest finite value of a float format (448 for E4M3FN, 57344 for E5M2,
/// 6 for E2M1).
OCTET_HD float fp8MaxFinite(StorageFormat f) { return fp8Spec(f).maxFinite; }

/// Encodes an f32 value as FP8 (or FP4) with round-to-nearest-even.
///
/// The steps are written so that the MLIR lowering can emit the same
/// branch-free sequence (see emitF32ToFp8 in lib/Conversion/OctetToLinalg):
///   a = |bits(x)|;
///   NaN                 -> sign | nanCode (E2M1, which has no NaN: +0,
///                          code 0, as an integer format's NaN becomes its
///                          zero point; ml_dtypes writes -0, the same value)
///   a < minNormal(fp8)  -> subnormal: float(|x|) + magic, minus magic's bits
///                          (the FPU's own round-to-nearest-even at the fp8
///                          subnormal quantum)
///   otherwise           -> add the round-to-nearest-even bias to the bits,
///                          shift, rebias the exponent
///   code > maxCode      -> saturate ? maxCode : (hasInf ? inf : NaN)
///                          (E2M1 always saturates: OCP defines no other
///                          conversion for it)
OCTET_HD uint8_t encodeFp8(float x, StorageFormat f, bool saturate) {
  const Fp8Spec s = fp8Spec(f);
  const uint32_t u = bitsOf(x);
  const uint32_t sign = (u >> 31) ? s.signBit : 0u;
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)
    return s.hasNan ? static_cast<uint8_t>(sign | s.nanCode) : 0;
  const unsigned shift = 23 - s.manBits;
  const uint32_t rebias = static_cast<uint32_t>(127 - s.bias);
  // f32 bits of the smallest fp8 normal, 2^(1 - bias).
  const uint32_t minNormal = (rebias + 1) << 23;
  uint32_t code;
  if (a < minNormal) {
    // Magic constant 2^(1 - bias - manBits + 23): its ulp is the fp8
    // subnormal quantum, so the addition rounds |x| to that quantum.
    const uint32_t magic = (rebias + 1 - s.manBits + 23) << 23;
    code = bitsOf(floatOf(a) + floatOf(magic)) - magic;
  } else {
    const uint32_t odd = (a >> shift) & 1u;
    const uint32_t rounded = a + ((1u << (shift - 1)) - 1u) + odd;
    code = (rounded >> shift) - (rebias << s.manBits);
  }
  if (code > s.maxCode)
    code = (saturate || !s.hasNan) ? s.maxCode : s.infCode;
  return static_cast<uint8_t>(sign | code);
}

/// Decodes an FP8 (or FP4) code to f32 (exact).
OCTET_HD float decodeFp8(uint8_t c, StorageFormat f) {
  const Fp8Spec s = fp8Spec(f);
  const uint32_t sign = (c & s.signBit) ? 0x80000000u : 0u;
  const uint32_t mag = c & (s.signBit - 1u);
  const uint32_t e = mag >> s.manBits;
  const uint32_t m = mag & ((1u << s.manBits) - 1u);
  uint32_t bits;
  if (s.hasNan &&
      (s.hasInf ? (e == (1u << s.expBits) - 1u) : (mag == s.nanCode))) {
    bits = (s.hasInf && m == 0) ? 0x7f800000u : 0x7fc00000u;
  } else if (e == 0) {
    // Subnormal: m * 2^(1 - bias - manBits), exact in f32.
    float v = static_cast<float>(m) *
              std::ldexp(1.0f, 1 - s.bias - static_cast<int>(s.manBits));
    bits = bitsOf(v);
  } else {
    bits = ((e + 127u - static_cast<uint32_t>(s.bias)) << 23) |
           (m << (23 - s.manBits));
  }
  return floatOf(bits | sign);
}

//===----------------------------------------------------------------------===//
// NF4 (QLoRA's NormalFloat4)
//===----------------------------------------------------------------------===//

/// The 16 NF4 values (Dettmers et al., QLoRA, appendix E; bitsandbytes'
/// dDequantizeNF4), as f32.
constexpr float kNf4Values[16] = {
    -1.0f,
    -0.6961928009986877f,
    -0.5250730514526367f,
    -0.39491748809814453f,
    -0.28444138169288635f,
    -0.18477343022823334f,
    -0.09105003625154495f,
    0.0f,
    0.07958029955625534f,
    0.16093020141124725f,
    0.24611230194568634f,
    0.33791524171829224f,
    0.44070982933044434f,
    0.5626170039176941f,
    0.7229568362236023f,
    1.0f};

/// bitsandbytes' decision thresholds between neighbouring NF4 values
/// (dQuantizeNF4), as f32: code c is the number of thresholds below v.
constexpr float kNf4Thresholds[15] = {
    -0.8480964004993439f,  -0.6106329262256622f, -0.4599952697753906f,
    -0.33967943489551544f, -0.23460740596055984f, -0.13791173323988914f,
    -0.045525018125772476f, 0.03979014977812767f, 0.1202552504837513f,
    0.2035212516784668f,   0.2920137718319893f,  0.3893125355243683f,
    0.5016634166240692f,   0.6427869200706482f,  0.8614784181118011f};

/// The NF4 code of v (in units of the scale): bitsandbytes' decision tree,
/// v > threshold going up (a tie goes down), written as the count of
/// thresholds below v. NaN gives code 7 (0.0, as an integer format's NaN
/// gives its zero point; bitsandbytes' tree gives code 0, -1.0); +-inf and
/// values beyond +-1 give the end codes.
OCTET_HD uint8_t encodeNf4(float v) {
  if (v != v)
    return 7;
  uint8_t c = 0;
  for (int i = 0; i < 15; ++i)
    c += v > kNf4Thresholds[i];
  return c;
}

/// The NF4 value of a code (its low 4 bits).
OCTET_HD float decodeNf4(uint8_t c) { return kNf4Values[c & 15u]; }

/// FP8 quantize: encode(x / scale).
OCTET_HD uint8_t quantizeFp8(float x, float scale, StorageFormat f,
                             bool saturate) {
  return encodeFp8(x / scale, f, saturate);
}

/// FP8 dequantize: decode(q) * scale, in f32.
OCTET_HD float dequantizeFp8(uint8_t q, float scale, StorageFormat f) {
  return decodeFp8(q, f) * scale;
}

//===----------------------------------------------------------------------===//
// Parameter computation
//===----------------------------------------------------------------------===//

/// Scale and zero point of one quantization group.
struct QuantParams {
  float scale;
  int32_t zeroPoint;
};

/// The guard applied to every computed scale: a zero range gives scale 1 (all
/// codes equal the zero point and dequantize to exactly 0); a scale that
/// underflows below the smallest normal f32 becomes FLT_MIN; an infinite
/// range becomes the largest finite one. The result is always a positive,
/// finite, normal float.
OCTET_HD float guardScale(float scale, bool zeroRange) {
  if (zeroRange)
    return 1.0f;
  if (!(scale >= kFloatMinNormal))
    return kFloatMinNormal;
  if (!(scale <= kFloatMax))
    return kFloatMax;
  return scale;
}

/// The largest magnitude the symmetric mapping targets: qmax for integers
/// (127 for i8, 7 for i4; for unsigned formats, which have no negative side,
/// the symmetric scheme uses zp 0 and maps absmax to qmax) or the largest
/// finite value of a float format.
OCTET_HD float symmetricTarget(StorageFormat f, IntRange r) {
  if (isFloatFormat(f))
    return fp8MaxFinite(f);
  if (isNf4(f)) // the table's largest magnitude: scale = absmax
    return 1.0f;
  return static_cast<float>(r.qmax);
}

/// Symmetric parameters from an absolute maximum: scale = absmax / target,
/// zp = 0. A NaN absmax is treated as zero range; +inf as FLT_MAX.
OCTET_HD QuantParams symmetricParams(float absmax, StorageFormat f,
                                     IntRange r) {
  if (std::isnan(absmax))
    absmax = 0.0f;
  absmax = std::fmin(std::fabs(absmax), kFloatMax);
  float scale = absmax / symmetricTarget(f, r);
  return {guardScale(scale, absmax == 0.0f), 0};
}

/// Symmetric parameters that use both ends of a signed integer range: the
/// smallest scale at which neither max(x) passes qmax nor min(x) passes
/// qmin, scale = max(max / qmax, min / qmin), zp = 0. A group whose largest
/// magnitude is negative reaches qmin (-8 for i4) and keeps the step
/// absmax / 8 instead of absmax / 7 (llama.cpp's Q4_0 gets the same from
/// a signed scale). Never larger than symmetricParams' scale; unsigned
/// formats and FP8 (symmetric ranges) get symmetricParams. NaN is treated
/// as 0, infinities as +-FLT_MAX.
OCTET_HD QuantParams symmetricMinMaxParams(float minV, float maxV,
                                           StorageFormat f, IntRange r) {
  if (std::isnan(minV))
    minV = 0.0f;
  if (std::isnan(maxV))
    maxV = 0.0f;
  if (isFloatFormat(f) || r.qmin >= 0)
    return symmetricParams(std::fmax(std::fabs(minV), std::fabs(maxV)), f, r);
  minV = std::fmax(std::fmin(minV, 0.0f), -kFloatMax);
  maxV = std::fmin(std::fmax(maxV, 0.0f), kFloatMax);
  float scale = std::fmax(maxV / static_cast<float>(r.qmax),
                          minV / static_cast<float>(r.qmin));
  return {guardScale(scale, minV == 0.0f && maxV == 0.0f), 0};
}

/// Asymmetric parameters from a [min, max] range. The range is widened to
/// include 0 so that real 0 is exactly representable; then
/// scale = (max - min) / (qmax - qmin) and
/// zp = clamp(roundHalfEven(qmin - min / scale), qmin, qmax).
OCTET_HD QuantParams asymmetricParams(float minV, float maxV, IntRange r) {
  const float big = kFloatMax;
  if (std::isnan(minV))
    minV = 0.0f;
  if (std::isnan(maxV))
    maxV = 0.0f;
  minV = std::fmax(std::fmin(minV, 0.0f), -big);
  maxV = std::fmin(std::fmax(maxV, 0.0f), big);
  float range = maxV - minV; // may overflow to +inf; guarded below
  float scale = range / static_cast<float>(r.qmax - r.qmin);
  scale = guardScale(scale, range == 0.0f);
  float zp = roundHalfEven(static_cast<float>(r.qmin) - minV / scale);
  zp = std::fmin(std::fmax(zp, static_cast<float>(r.qmin)),
                 static_cast<float>(r.qmax));
  return {scale, static_cast<int32_t>(zp)};
}

/// Running statistics of one quantization group. Every accumulator starts
/// at 0, which both widens asymmetric ranges to include 0 (as the contract
/// requires) and makes an empty or all-NaN group a zero range. fmax/fmin
/// ignore NaN (IEEE maxNum/minNum, like arith.maxnumf/minnumf).
struct RangeStats {
  float absmax = 0.0f;
  float minV = 0.0f;
  float maxV = 0.0f;
  OCTET_HD void add(float x) {
    absmax = std::fmax(absmax, std::fabs(x));
    minV = std::fmin(minV, x);
    maxV = std::fmax(maxV, x);
  }
};

/// Parameters of a group from its statistics (symmetric or asymmetric).
OCTET_HD QuantParams paramsFromStats(const RangeStats &stats, StorageFormat f,
                                     IntRange r, bool symmetric) {
  if (symmetric)
    return symmetricParams(stats.absmax, f, r);
  return asymmetricParams(stats.minV, stats.maxV, r);
}

//===----------------------------------------------------------------------===//
// Error metrics and packing
//===----------------------------------------------------------------------===//

/// Running sums for SQNR: 10 log10(sum x^2 / sum (x - xhat)^2), in double.
struct SqnrAccumulator {
  double signal = 0.0;
  double noise = 0.0;
  void add(float x, float xhat) {
    double dx = static_cast<double>(x);
    double e = dx - static_cast<double>(xhat);
    signal += dx * dx;
    noise += e * e;
  }
  void merge(const SqnrAccumulator &o) {
    signal += o.signal;
    noise += o.noise;
  }
  /// +inf when the reconstruction is exact; -inf for an all-zero signal
  /// reconstructed with error.
  double db() const {
    if (noise == 0.0)
      return std::numeric_limits<double>::infinity();
    if (signal == 0.0)
      return -std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(signal / noise);
  }
};

/// Packs two 4-bit codes per byte, low nibble first (element 2i in bits 0-3,
/// element 2i+1 in bits 4-7). An odd count leaves the last high nibble 0.
inline void packNibbles(const int8_t *codes, size_t n, uint8_t *out) {
  for (size_t i = 0; i < n; i += 2) {
    uint8_t lo = static_cast<uint8_t>(codes[i]) & 0x0fu;
    uint8_t hi = (i + 1 < n) ? (static_cast<uint8_t>(codes[i + 1]) & 0x0fu)
                             : 0u;
    out[i / 2] = static_cast<uint8_t>(lo | (hi << 4));
  }
}

/// Inverse of packNibbles; sign-extends when the format is signed.
inline void unpackNibbles(const uint8_t *packed, size_t n, bool isSigned,
                          int8_t *codes) {
  for (size_t i = 0; i < n; ++i) {
    uint8_t v = (packed[i / 2] >> ((i & 1) * 4)) & 0x0fu;
    codes[i] = static_cast<int8_t>(isSigned && (v & 0x8u) ? (v | 0xf0u) : v);
  }
}

//===----------------------------------------------------------------------===//
// 16-bit float inputs
//===----------------------------------------------------------------------===//

/// Decodes IEEE binary16 bits to f32 (exact: every f16 value is an f32
/// value). NaN payloads and the sign of zero are kept.
OCTET_HD float decodeF16(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  if (e == 0x1fu)
    return floatOf(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    // Subnormal (or zero): m * 2^-24, exact in f32.
    float v = static_cast<float>(m) * 0x1p-24f;
    return floatOf(sign | bitsOf(v));
  }
  return floatOf(sign | ((e + 112u) << 23) | (m << 13));
}

/// Decodes bfloat16 bits to f32 (exact: bf16 is the top half of an f32).
OCTET_HD float decodeBF16(uint16_t b) {
  return floatOf(static_cast<uint32_t>(b) << 16);
}

//===----------------------------------------------------------------------===//
// Clipping (compile-time weight quantization and calibration)
//===----------------------------------------------------------------------===//
//
// These host-only helpers choose the range that parameters are computed
// from. They only decide a threshold; the parameters then come from
// symmetricParams / asymmetricParams and every code from quantizeInt /
// quantizeFp8, so a clipped tensor quantized at compile time and the same
// tensor quantized at run time with the same scale have identical bits.

/// quantize then dequantize one value with `p` (integer formats use the code
/// range `r`; FP8 formats ignore it and the zero point).
OCTET_HD float fakeQuantize(float x, QuantParams p, StorageFormat f,
                            IntRange r, bool saturate) {
  if (isFloatFormat(f))
    return dequantizeFp8(quantizeFp8(x, p.scale, f, saturate), p.scale, f);
  if (isNf4(f))
    return decodeNf4(encodeNf4(x / p.scale)) * p.scale;
  return dequantizeInt(quantizeInt(x, p.scale, p.zeroPoint, r.qmin, r.qmax),
                       p.scale, p.zeroPoint);
}

/// Sum of squared quantization errors, sum (x - fakeQuantize(x))^2,
/// accumulated in double in index order.
inline double quantizationError(const float *x, size_t n, QuantParams p,
                                StorageFormat f, IntRange r, bool saturate) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double e = static_cast<double>(x[i]) -
               static_cast<double>(fakeQuantize(x[i], p, f, r, saturate));
    sum += e * e;
  }
  return sum;
}

/// The p-th percentile (0 <= p <= 100) of v[0, n) by linear interpolation
/// between the closest ranks (numpy's default "linear" method):
///   rank = (p / 100) * (n - 1), i = floor(rank), t = rank - i,
///   result = f32(v(i) + (v(i+1) - v(i)) * t), in double,
/// where v(k) is the k-th smallest value. Reorders `v`. 0 for n == 0.
inline float percentile(float *v, size_t n, double p) {
  if (n == 0)
    return 0.0f;
  double rank = (p / 100.0) * static_cast<double>(n - 1);
  if (!(rank > 0.0))
    rank = 0.0;
  if (rank > static_cast<double>(n - 1))
    rank = static_cast<double>(n - 1);
  size_t i = static_cast<size_t>(std::floor(rank));
  double t = rank - static_cast<double>(i);
  std::nth_element(v, v + i, v + n);
  double lo = v[i];
  if (i + 1 >= n || t == 0.0)
    return static_cast<float>(lo);
  // The next order statistic is the smallest value above position i.
  double hi = *std::min_element(v + i + 1, v + n);
  return static_cast<float>(lo + (hi - lo) * t);
}

/// A chosen clip range and the parameters computed from it.
struct ClipResult {
  QuantParams params;
  /// Symmetric: the clip threshold T (values beyond +-T saturate);
  /// asymmetric: the clipped range [lo, hi] before widening to include 0.
  float lo;
  float hi;
  /// T / absmax (symmetric) or the range scaling factor (asymmetric); 1 for
  /// no clipping.
  float ratio;
};

/// No clipping: the parameters of compute_params (absmax or [min, max]).
OCTET_HD ClipResult absmaxClip(const RangeStats &stats, StorageFormat f,
                               IntRange r, bool symmetric) {
  if (symmetric || isFloatFormat(f))
    return {symmetricParams(stats.absmax, f, r), -stats.absmax, stats.absmax,
            1.0f};
  return {asymmetricParams(stats.minV, stats.maxV, r), stats.minV, stats.maxV,
          1.0f};
}

/// The largest normal exponent of an MX element format (E4M3: 8, E5M2:
/// 15, E2M1: 2).
OCTET_HD int mxEmax(StorageFormat f) {
  return f == StorageFormat::F8E5M2 ? 15
                                    : (f == StorageFormat::F4E2M1FN ? 2 : 8);
}

/// The shared scale of an OCP Microscaling block (MX formats v1.0, 6.3):
/// X = 2^(floor(log2(absmax)) - emax), emax the element format's largest
/// normal exponent (E4M3: 8, E5M2: 15, E2M1: 2), clamped to E8M0's 2^-127 .. 2^127.
/// floor(log2) is read from the f32 exponent bits (exact, subnormals too).
/// A zero, NaN or infinite absmax gives 1, like symmetricParams' zero-range
/// guard. The block's values then quantize as FP8 with this scale
/// (x / X is exact), saturating: magnitudes in [maxFinite * X, 2^(emax+1)
/// * X) clip to maxFinite, as the spec's conversion does.
/// With `roundUp` (octet-quantize-weights mx-scale=ceil) X is instead the
/// smallest power of two with absmax <= maxFinite * X: one binade higher
/// exactly when the OCP rule would clip, so nothing clips.
OCTET_HD float e8m0Scale(float absmax, StorageFormat f, bool roundUp = false) {
  if (!(absmax > 0.0f) || !(absmax <= kFloatMax))
    return 1.0f;
  const uint32_t u = bitsOf(absmax);
  const int biased = static_cast<int>(u >> 23);
  int e;
  if (biased != 0) {
    e = biased - 127;
  } else {
    // Subnormal: absmax = m * 2^-149, floor(log2) = msb(m) - 149.
    uint32_t m = u & 0x7fffffu;
    int msb = 0;
    while (m >>= 1)
      ++msb;
    e = msb - 149;
  }
  int x = e - mxEmax(f);
  // maxFinite * 2^x in double is exact (no overflow or underflow there).
  if (roundUp && static_cast<double>(absmax) >
                     static_cast<double>(fp8MaxFinite(f)) * std::ldexp(1.0, x))
    ++x;
  x = x < -127 ? -127 : (x > 127 ? 127 : x);
  // 2^x: a normal f32 for x >= -126, the subnormal 2^-127 otherwise.
  return x >= -126 ? floatOf(static_cast<uint32_t>(x + 127) << 23)
                   : floatOf(0x00400000u);
}

/// clip=absmax for a scheme with E8M0 scales (MXFP8): the scale is
/// e8m0Scale; the threshold is what saturates, maxFinite * X (below absmax
/// when the block's largest values exceed the format's range).
OCTET_HD ClipResult e8m0Clip(const RangeStats &stats, StorageFormat f,
                             bool roundUp = false) {
  const float scale = e8m0Scale(stats.absmax, f, roundUp);
  const float t = fp8MaxFinite(f) * scale;
  const float hi = t < stats.absmax ? t : stats.absmax;
  const float ratio = stats.absmax > 0.0f ? hi / stats.absmax : 1.0f;
  return {{scale, 0}, -hi, hi, ratio};
}

/// Two-level E4M3 scales (NVFP4, NVIDIA's FP4 scaling for Blackwell's
/// `mxf4nvf4` MMA, and NF4 with double-quantized scales): every block
/// scale is an E4M3 value sb times one f32 global scale g per tensor.
/// `target` is the element format's largest magnitude (6 for E2M1, 1 for
/// NF4). g = absmax(tensor) / (target * 448) (one f32 division; guarded as
/// every scale, 1 for a zero tensor), so that the block holding the
/// tensor's largest value gets sb = 448 and the other blocks use E4M3's
/// range below it. A NaN absmax is a zero range.
OCTET_HD float e4m3GlobalScale(float absmax, float target) {
  if (std::isnan(absmax))
    absmax = 0.0f;
  absmax = std::fmin(std::fabs(absmax), kFloatMax);
  return guardScale(absmax / (target * 448.0f), absmax == 0.0f);
}

/// A block's two-level scale: sb = e4m3((absmax / target) / g), rounded to
/// nearest even and saturating at 448 (the cast `cvt.rn.satfinite.e4m3x2
/// .f32` and NVIDIA's reference NVFP4 quantizers do; rounding up instead
/// would avoid clipping a block's top value by up to 6.25% at the price of
/// a coarser step for the whole block, as mx-scale=ceil measures for
/// MXFP8), with a block that rounds to 0 taking E4M3's smallest value
/// 2^-9. Returns the f32 scale the IR holds, s = sb * g (one f32 multiply;
/// dequantize is decode(q) * s).
OCTET_HD float e4m3BlockScale(float absmax, float g, float target) {
  const float t = (absmax / target) / g;
  float sb = decodeFp8(encodeFp8(t, StorageFormat::F8E4M3FN, true),
                       StorageFormat::F8E4M3FN);
  if (!(sb > 0.0f))
    sb = 0x1p-9f;
  return sb * g;
}

/// Whether `s` is a two-level E4M3 scale of global scale `g`: the E4M3
/// value nearest s / g, positive, times g is s.
OCTET_HD bool isE4M3Scale(float s, float g) {
  const uint8_t c = encodeFp8(s / g, StorageFormat::F8E4M3FN, false);
  if (c == 0 || c >= 0x7f) // zero, negative, NaN
    return false;
  return decodeFp8(c, StorageFormat::F8E4M3FN) * g == s;
}

/// clip=absmax with two-level E4M3 scales: the scale is e4m3BlockScale;
/// the threshold is what saturates, target * s.
OCTET_HD ClipResult e4m3Clip(const RangeStats &stats, float g, float target) {
  const float scale = e4m3BlockScale(stats.absmax, g, target);
  const float t = target * scale;
  const float hi = t < stats.absmax ? t : stats.absmax;
  const float ratio = stats.absmax > 0.0f ? hi / stats.absmax : 1.0f;
  return {{scale, 0}, -hi, hi, ratio};
}

/// No clipping, both ends of the range (clip=minmax): symmetric integer
/// schemes take symmetricMinMaxParams, everything else absmaxClip.
OCTET_HD ClipResult minmaxClip(const RangeStats &stats, StorageFormat f,
                               IntRange r, bool symmetric) {
  if (symmetric && !isFloatFormat(f))
    return {symmetricMinMaxParams(stats.minV, stats.maxV, f, r), stats.minV,
            stats.maxV, 1.0f};
  return absmaxClip(stats, f, r, symmetric);
}

/// Percentile clipping with percentile P in (0, 100]. Symmetric:
/// T = percentile(|x|, P); asymmetric: lo = percentile(x, 100 - P),
/// hi = percentile(x, P). `scratch` holds the group's values on entry and is
/// reordered (and overwritten with |x| in the symmetric case).
inline ClipResult percentileClip(float *scratch, size_t n, double p,
                                 StorageFormat f, IntRange r, bool symmetric) {
  if (symmetric || isFloatFormat(f)) {
    for (size_t i = 0; i < n; ++i)
      scratch[i] = std::fabs(scratch[i]);
    float t = percentile(scratch, n, p);
    float absmax = n ? *std::max_element(scratch, scratch + n) : 0.0f;
    return {symmetricParams(t, f, r), -t, t,
            absmax > 0.0f ? t / absmax : 1.0f};
  }
  float minV = 0.0f, maxV = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    minV = std::fmin(minV, scratch[i]);
    maxV = std::fmax(maxV, scratch[i]);
  }
  float hi = percentile(scratch, n, p);
  float lo = percentile(scratch, n, 100.0 - p);
  float range = maxV - minV;
  float ratio = range > 0.0f ? (std::fmax(hi, 0.0f) - std::fmin(lo, 0.0f)) / range
                             : 1.0f;
  return {asymmetricParams(lo, hi, r), lo, hi, ratio};
}

/// Number of candidate thresholds of the MSE search.
constexpr unsigned kMseClipSteps = 100;

/// Candidate k (1 <= k <= steps) of the MSE search: ratio_k = k / steps (f32
/// arithmetic), symmetric T_k = absmax * ratio_k, asymmetric
/// [min * ratio_k, max * ratio_k]. k == steps is absmaxClip (no clipping).
/// `sym` already includes FP8 (which is always symmetric).
inline ClipResult mseClipCandidate(const RangeStats &stats, StorageFormat f,
                                   IntRange r, bool sym, unsigned k,
                                   unsigned steps) {
  if (k == steps)
    return absmaxClip(stats, f, r, sym);
  float ratio = static_cast<float>(k) / static_cast<float>(steps);
  if (sym) {
    float t = stats.absmax * ratio;
    return {symmetricParams(t, f, r), -t, t, ratio};
  }
  float lo = stats.minV * ratio, hi = stats.maxV * ratio;
  return {asymmetricParams(lo, hi, r), lo, hi, ratio};
}

/// MSE-optimal clipping: among the candidates k = steps, steps - 1, ..., 1
/// of mseClipCandidate, picks the one whose parameters give the smallest
/// quantizationError over x[0, n); on a tie the larger threshold (less
/// clipping) wins. `stats` are the group's statistics (absmax, min, max) of
/// the same values.
inline ClipResult mseClip(const float *x, size_t n, const RangeStats &stats,
                          StorageFormat f, IntRange r, bool symmetric,
                          bool saturate, unsigned steps = kMseClipSteps) {
  bool sym = symmetric || isFloatFormat(f);
  ClipResult best = absmaxClip(stats, f, r, sym);
  double bestErr = quantizationError(x, n, best.params, f, r, saturate);
  for (unsigned k = steps; k-- > 1;) {
    ClipResult c = mseClipCandidate(stats, f, r, sym, k, steps);
    double err = quantizationError(x, n, c.params, f, r, saturate);
    if (err < bestErr) {
      bestErr = err;
      best = c;
    }
  }
  return best;
}

/// mseClip for one large group, its candidates evaluated by the caller's
/// loop: `forEach(steps, eval)` must call eval(j) exactly once for every j
/// in [0, steps) (candidate k = steps - j), in any order and possibly
/// concurrently. Each candidate's error is computed as in mseClip and the
/// choice is the same, so the result is mseClip's bit for bit.
template <typename ForEach>
ClipResult mseClipWith(const float *x, size_t n, const RangeStats &stats,
                       StorageFormat f, IntRange r, bool symmetric,
                       bool saturate, ForEach &&forEach,
                       unsigned steps = kMseClipSteps) {
  bool sym = symmetric || isFloatFormat(f);
  if (steps == 0)
    return absmaxClip(stats, f, r, sym);
  std::vector<ClipResult> cand(steps);
  std::vector<double> err(steps);
  forEach(steps, [&](unsigned j) {
    cand[j] = mseClipCandidate(stats, f, r, sym, steps - j, steps);
    err[j] = quantizationError(x, n, cand[j].params, f, r, saturate);
  });
  // mseClip's choice: strict improvement, largest threshold first.
  unsigned best = 0;
  for (unsigned j = 1; j < steps; ++j)
    if (err[j] < err[best])
      best = j;
  return cand[best];
}

//===----------------------------------------------------------------------===//
// Error histogram
//===----------------------------------------------------------------------===//

/// Histogram of |x - xhat| / scale, the reconstruction error in units of the
/// element's quantization step (its group's scale). For integer formats
/// rounding errors fall in [0, 0.5] and larger ones come from clipping.
/// Bins are (edge[i], edge[i+1]] (the first one includes 0), computed in
/// double.
struct ErrorHistogram {
  static constexpr unsigned kBins = 10;
  /// Upper edges of the bins; the last bin is unbounded.
  static constexpr double kUpper[kBins] = {0.1, 0.2, 0.3, 0.4, 0.5,
                                           1.0, 2.0, 4.0, 8.0,
      std::numeric_limits<double>::infinity()};
  uint64_t counts[kBins] = {};
  void add(float x, float xhat, float scale) {
    double u = std::fabs(static_cast<double>(x) - static_cast<double>(xhat)) /
               static_cast<double>(scale);
    // The bin is the number of upper edges below u (branch-free: the
    // errors of neighbouring elements land in random bins). NaN counts in
    // the last bin.
    unsigned b = 0;
    for (unsigned k = 0; k + 1 < kBins; ++k)
      b += u > kUpper[k];
    if (u != u)
      b = kBins - 1;
    ++counts[b];
  }
  void merge(const ErrorHistogram &o) {
    for (unsigned b = 0; b < kBins; ++b)
      counts[b] += o.counts[b];
  }
};

} // namespace numerics
} // namespace octet

#endif // OCTET_RUNTIME_NUMERICS_H
