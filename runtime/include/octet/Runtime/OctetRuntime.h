/*===- OctetRuntime.h - Octet runtime C ABI -----------------------*- C -*-===*\
|*                                                                            *|
|* The C ABI of liboctet_runtime: buffer-at-a-time entry points for the       *|
|* scalar rules of octet/Runtime/Numerics.h, callable from generated code,    *|
|* from C, and from Python through ctypes. Every function applies exactly the *|
|* Numerics.h rule to each element, so its results are bit-identical to the  *|
|* compiler's constant folding and to the generated kernels.                 *|
|*                                                                            *|
|* Conventions: element counts are int64_t and a count <= 0 does nothing;     *|
|* pointers to n elements must be valid for n elements (they may be null     *|
|* when n <= 0). octet_quantize_int, octet_dequantize_int and                 *|
|* octet_round_half_even may run in place (out == input); otherwise input     *|
|* and output buffers must not overlap. No function allocates, throws, or     *|
|* keeps a pointer after it returns; all are thread-safe.                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef OCTET_RUNTIME_OCTETRUNTIME_H
#define OCTET_RUNTIME_OCTETRUNTIME_H

#include <stdint.h>

#if defined(_WIN32)
#define OCTET_RUNTIME_EXPORT __declspec(dllexport)
#else
#define OCTET_RUNTIME_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The ABI version this header describes. Bumped on any incompatible change
/// to a signature or to the meaning of an argument.
#define OCTET_RUNTIME_ABI_VERSION 1

/// FP8 formats, as taken by the `format` argument of the FP8 functions.
enum {
  OCTET_FP8_E4M3FN = 0, ///< OCP E4M3FN: max 448, no infinities.
  OCTET_FP8_E5M2 = 1    ///< OCP E5M2: max 57344, has infinities.
};

/// Storage formats, as taken by octet_symmetric_params; the values equal
/// those of octet::numerics::StorageFormat.
enum {
  OCTET_FORMAT_I8 = 0,
  OCTET_FORMAT_U8 = 1,
  OCTET_FORMAT_I4 = 2,
  OCTET_FORMAT_U4 = 3,
  OCTET_FORMAT_F8E4M3FN = 4,
  OCTET_FORMAT_F8E5M2 = 5
};

/// Returns OCTET_RUNTIME_ABI_VERSION as the library was built; a caller
/// compares it with the value of the header it was compiled against.
OCTET_RUNTIME_EXPORT int32_t octet_runtime_abi_version(void);

/// Integer quantization of `n` floats:
/// out[i] = clamp(roundHalfEven(x[i] / scale) + zp, qmin, qmax), computed in
/// f32 with a true division; NaN maps to `zp`, +-inf saturate to qmax/qmin.
/// Requires qmin <= zp <= qmax and |qmin|, |qmax| <= 2^24.
OCTET_RUNTIME_EXPORT void octet_quantize_int(const float *x, int64_t n,
                                             float scale, int32_t zp,
                                             int32_t qmin, int32_t qmax,
                                             int32_t *out);

/// Integer dequantization: out[i] = float(q[i] - zp) * scale, in f32.
OCTET_RUNTIME_EXPORT void octet_dequantize_int(const int32_t *q, int64_t n,
                                               float scale, int32_t zp,
                                               float *out);

/// Encodes `n` floats as FP8 codes with round-to-nearest-even. With
/// `saturate` nonzero, finite overflow and +-inf become +-max finite (the
/// behaviour of PTX cvt.rn.satfinite); with `saturate` zero, overflow follows
/// ml_dtypes (E4M3FN -> NaN, E5M2 -> +-inf). NaN stays NaN with its sign; -0
/// stays -0. An invalid `format` leaves `out` unchanged.
OCTET_RUNTIME_EXPORT void octet_encode_fp8(const float *x, int64_t n,
                                           int32_t format, int32_t saturate,
                                           uint8_t *out);

/// Decodes `n` FP8 codes to f32 (exact; NaN codes give a quiet NaN with the
/// code's sign). An invalid `format` leaves `out` unchanged.
OCTET_RUNTIME_EXPORT void octet_decode_fp8(const uint8_t *q, int64_t n,
                                           int32_t format, float *out);

/// FP8 quantization: out[i] = encode(x[i] / scale) (see octet_encode_fp8).
OCTET_RUNTIME_EXPORT void octet_quantize_fp8(const float *x, int64_t n,
                                             float scale, int32_t format,
                                             int32_t saturate, uint8_t *out);

/// FP8 dequantization: out[i] = decode(q[i]) * scale, in f32.
OCTET_RUNTIME_EXPORT void octet_dequantize_fp8(const uint8_t *q, int64_t n,
                                               float scale, int32_t format,
                                               float *out);

/// Rounds each element to the nearest integer, ties to even, independent of
/// the floating-point environment (the result of llvm.roundeven / np.rint).
OCTET_RUNTIME_EXPORT void octet_round_half_even(const float *x, int64_t n,
                                                float *out);

/// Symmetric parameters for a group whose largest magnitude is `absmax`:
/// *scale = absmax / target with target = qmax for the integer formats and
/// the largest finite value for the FP8 formats (`qmin`/`qmax` are then
/// ignored), *zp = 0. Guards: a zero or NaN absmax gives scale 1, +inf is
/// treated as FLT_MAX, a scale below FLT_MIN becomes FLT_MIN, so the scale
/// is always positive, finite and normal. `format` is an OCTET_FORMAT_*
/// value; any other value sets *scale to NaN and *zp to 0.
OCTET_RUNTIME_EXPORT void octet_symmetric_params(float absmax, int32_t format,
                                                 int32_t qmin, int32_t qmax,
                                                 float *scale, int32_t *zp);

/// Asymmetric parameters for the range [min, max] (qmin < qmax): the range
/// is first widened to include 0, then
/// *scale = (max - min) / (qmax - qmin) and
/// *zp = clamp(roundHalfEven(qmin - min / scale), qmin, qmax), so real 0
/// quantizes exactly to *zp. The scale guard of octet_symmetric_params
/// applies (a zero range gives scale 1 and zp = qmin).
OCTET_RUNTIME_EXPORT void octet_asymmetric_params(float min, float max,
                                                  int32_t qmin, int32_t qmax,
                                                  float *scale, int32_t *zp);

/// Signal-to-quantization-noise ratio in dB,
/// 10 * log10(sum x^2 / sum (x - xhat)^2), accumulated in double. +inf when
/// xhat == x exactly (including n <= 0); -inf for an all-zero x
/// reconstructed with error.
OCTET_RUNTIME_EXPORT double octet_sqnr_db(const float *x, const float *xhat,
                                          int64_t n);

/// Packs `n` 4-bit codes (the low 4 bits of each int8) two per byte, low
/// nibble first: element 2i in bits 0-3 of out[i], element 2i+1 in bits
/// 4-7. Writes (n + 1) / 2 bytes; an odd n leaves the last high nibble 0.
OCTET_RUNTIME_EXPORT void octet_pack_nibbles(const int8_t *codes, int64_t n,
                                             uint8_t *out);

/// Unpacks `n` 4-bit codes packed by octet_pack_nibbles, sign-extending them
/// when `is_signed` is nonzero (i4, [-8, 7]) and zero-extending otherwise
/// (u4, [0, 15]).
OCTET_RUNTIME_EXPORT void octet_unpack_nibbles(const uint8_t *packed, int64_t n,
                                               int32_t is_signed,
                                               int8_t *codes);

/// Seconds from an arbitrary fixed point, from a monotonic clock (never goes
/// backwards; unaffected by changes to the wall-clock time). For measuring
/// intervals.
OCTET_RUNTIME_EXPORT double octet_now_seconds(void);

#ifdef __cplusplus
} // extern "C"
#endif

#endif /* OCTET_RUNTIME_OCTETRUNTIME_H */
