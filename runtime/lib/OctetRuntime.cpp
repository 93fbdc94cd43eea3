//===- OctetRuntime.cpp - Octet runtime C ABI -----------------------------===//
//
// Thin loops over the scalar rules of Numerics.h; no rule is restated here.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/OctetRuntime.h"
#include "octet/Runtime/Numerics.h"

#include <chrono>
#include <limits>

using namespace octet::numerics;

static_assert(OCTET_FORMAT_I8 == static_cast<int>(StorageFormat::I8) &&
                  OCTET_FORMAT_U8 == static_cast<int>(StorageFormat::U8) &&
                  OCTET_FORMAT_I4 == static_cast<int>(StorageFormat::I4) &&
                  OCTET_FORMAT_U4 == static_cast<int>(StorageFormat::U4) &&
                  OCTET_FORMAT_F8E4M3FN ==
                      static_cast<int>(StorageFormat::F8E4M3FN) &&
                  OCTET_FORMAT_F8E5M2 ==
                      static_cast<int>(StorageFormat::F8E5M2) &&
                  OCTET_FORMAT_F4E2M1FN ==
                      static_cast<int>(StorageFormat::F4E2M1FN) &&
                  OCTET_FORMAT_NF4 == static_cast<int>(StorageFormat::NF4),
              "OCTET_FORMAT_* must match octet::numerics::StorageFormat");

namespace {

/// Maps the `format` argument of the FP8 entry points to a StorageFormat.
bool fp8Format(int32_t format, StorageFormat &f) {
  if (format == OCTET_FP8_E4M3FN) {
    f = StorageFormat::F8E4M3FN;
    return true;
  }
  if (format == OCTET_FP8_E5M2) {
    f = StorageFormat::F8E5M2;
    return true;
  }
  if (format == OCTET_FP4_E2M1FN) {
    f = StorageFormat::F4E2M1FN;
    return true;
  }
  return false;
}

} // namespace

extern "C" {

int32_t octet_runtime_abi_version(void) { return OCTET_RUNTIME_ABI_VERSION; }

void octet_quantize_int(const float *x, int64_t n, float scale, int32_t zp,
                        int32_t qmin, int32_t qmax, int32_t *out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = quantizeInt(x[i], scale, zp, qmin, qmax);
}

void octet_dequantize_int(const int32_t *q, int64_t n, float scale, int32_t zp,
                          float *out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = dequantizeInt(q[i], scale, zp);
}

void octet_encode_fp8(const float *x, int64_t n, int32_t format,
                      int32_t saturate, uint8_t *out) {
  StorageFormat f;
  if (!fp8Format(format, f))
    return;
  for (int64_t i = 0; i < n; ++i)
    out[i] = encodeFp8(x[i], f, saturate != 0);
}

void octet_decode_fp8(const uint8_t *q, int64_t n, int32_t format, float *out) {
  StorageFormat f;
  if (!fp8Format(format, f))
    return;
  for (int64_t i = 0; i < n; ++i)
    out[i] = decodeFp8(q[i], f);
}

void octet_quantize_fp8(const float *x, int64_t n, float scale, int32_t format,
                        int32_t saturate, uint8_t *out) {
  StorageFormat f;
  if (!fp8Format(format, f))
    return;
  for (int64_t i = 0; i < n; ++i)
    out[i] = quantizeFp8(x[i], scale, f, saturate != 0);
}

void octet_dequantize_fp8(const uint8_t *q, int64_t n, float scale,
                          int32_t format, float *out) {
  StorageFormat f;
  if (!fp8Format(format, f))
    return;
  for (int64_t i = 0; i < n; ++i)
    out[i] = dequantizeFp8(q[i], scale, f);
}

void octet_round_half_even(const float *x, int64_t n, float *out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = roundHalfEven(x[i]);
}

void octet_symmetric_params(float absmax, int32_t format, int32_t qmin,
                            int32_t qmax, float *scale, int32_t *zp) {
  if (format < OCTET_FORMAT_I8 || format > OCTET_FORMAT_NF4) {
    *scale = std::numeric_limits<float>::quiet_NaN();
    *zp = 0;
    return;
  }
  QuantParams p = symmetricParams(absmax, static_cast<StorageFormat>(format),
                                  IntRange{qmin, qmax});
  *scale = p.scale;
  *zp = p.zeroPoint;
}

void octet_asymmetric_params(float min, float max, int32_t qmin, int32_t qmax,
                             float *scale, int32_t *zp) {
  QuantParams p = asymmetricParams(min, max, IntRange{qmin, qmax});
  *scale = p.scale;
  *zp = p.zeroPoint;
}

double octet_sqnr_db(const float *x, const float *xhat, int64_t n) {
  SqnrAccumulator acc;
  for (int64_t i = 0; i < n; ++i)
    acc.add(x[i], xhat[i]);
  return acc.db();
}

void octet_pack_nibbles(const int8_t *codes, int64_t n, uint8_t *out) {
  if (n > 0)
    packNibbles(codes, static_cast<size_t>(n), out);
}

void octet_unpack_nibbles(const uint8_t *packed, int64_t n, int32_t is_signed,
                          int8_t *codes) {
  if (n > 0)
    unpackNibbles(packed, static_cast<size_t>(n), is_signed != 0, codes);
}

double octet_now_seconds(void) {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

} // extern "C"
