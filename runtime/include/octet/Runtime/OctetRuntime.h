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

/// Float formats, as taken by the `format` argument of the FP8 functions.
enum {
  OCTET_FP8_E4M3FN = 0, ///< OCP E4M3FN: max 448, no infinities.
  OCTET_FP8_E5M2 = 1,   ///< OCP E5M2: max 57344, has infinities.
  OCTET_FP4_E2M1FN = 2  ///< OCP FP4 E2M1: max 6, no infinity or NaN; codes
                        ///< 0..15 (sign in bit 3), one per byte.
};

/// Storage formats, as taken by octet_symmetric_params; the values equal
/// those of octet::numerics::StorageFormat.
enum {
  OCTET_FORMAT_I8 = 0,
  OCTET_FORMAT_U8 = 1,
  OCTET_FORMAT_I4 = 2,
  OCTET_FORMAT_U4 = 3,
  OCTET_FORMAT_F8E4M3FN = 4,
  OCTET_FORMAT_F8E5M2 = 5,
  OCTET_FORMAT_F4E2M1FN = 6, ///< OCP FP4 (E2M1): max 6, no inf or NaN.
  OCTET_FORMAT_NF4 = 7 ///< QLoRA NF4: indices of 16 values in [-1, 1].
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
/// stays -0. OCTET_FP4_E2M1FN always saturates and encodes NaN as +0 (code
/// 0). An invalid `format` leaves `out` unchanged.
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
/// the largest finite value for the float formats (`qmin`/`qmax` are then
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

/// Writes to `missing` (NUL-terminated, at most `size` bytes) the
/// comma-separated LLVM feature names from `features` (e.g.
/// "avx2,avx512vnni,amx-int8") that this CPU lacks, per /proc/cpuinfo, and
/// returns how many there are (0 when the CPU cannot be inspected).
OCTET_RUNTIME_EXPORT int32_t octet_missing_cpu_features(const char *features,
                                                        char *missing,
                                                        int64_t size);

/// Called at load time by libraries from octet-compile: if this CPU lacks
/// any of `features`, prints which, naming `artifact`, and exits with
/// status 70 instead of letting the code fault on an illegal instruction.
OCTET_RUNTIME_EXPORT void octet_require_cpu_features(const char *artifact,
                                                     const char *features);

/// Called by the `_into` entries of libraries compiled with
/// `octet-compile --into-entries` (octet-into-entries) when the buffer the
/// caller passed for result `result` of `entry` does not fit: `what` 0: the
/// size of dimension `dim` is `got` where the result's is `expected`; 1:
/// the stride of dimension `dim` is `got` elements where a row-major
/// buffer has `expected`; 2: the offset is `got` (must be 0); 3 / 4: the
/// buffer shares bytes with argument / result buffer `dim`. Prints which
/// to stderr; the entry then returns 1 without writing that result.
OCTET_RUNTIME_EXPORT void octet_into_mismatch(const char *entry, int64_t result,
                                              int64_t what, int64_t dim,
                                              int64_t expected, int64_t got);

/*===-- CUDA (docs/cuda.md) -----------------------------------------------===*/
/* The CUDA driver API (libcuda.so.1, or $OCTET_CUDA_DRIVER) is loaded with  */
/* dlopen on first use: linking needs no GPU. Device 0, or                   */
/* $OCTET_CUDA_DEVICE, through its primary context (shared with the CUDA     */
/* runtime API). Each function returns 0 on success, -1 when there is no     */
/* usable driver or device, or the CUresult of the failed driver call;       */
/* octet_cuda_last_error() then says what failed, with the CUDA error name   */
/* (e.g. "cuModuleLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU (...)").     */
/* Pointers to device memory are CUdeviceptr values; streams, modules,       */
/* functions and events are the driver's handles (null stream: the default   */
/* stream).                                                                  */

/// The message of the last failed octet_cuda_* call in this thread ("" if
/// none).
OCTET_RUNTIME_EXPORT const char *octet_cuda_last_error(void);
/// 1 when a driver and a device are usable, else 0 (the reason is in
/// octet_cuda_last_error()).
OCTET_RUNTIME_EXPORT int32_t octet_cuda_available(void);
/// The device's name (NUL-terminated, at most `name_size` bytes), compute
/// capability and multiprocessor count; null outputs are skipped.
OCTET_RUNTIME_EXPORT int32_t octet_cuda_device_info(char *name,
                                                    int64_t name_size,
                                                    int32_t *cc_major,
                                                    int32_t *cc_minor,
                                                    int32_t *sm_count);
/// Loads a cubin/fatbin/PTX image (e.g. from octet-compile --emit=cubin).
OCTET_RUNTIME_EXPORT int32_t octet_cuda_module_load(const void *image,
                                                    void **module);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_module_unload(void *module);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_module_get_function(void *module,
                                                            const char *name,
                                                            void **function);
/// Launches `function` with `params` (pointers to each argument, as for
/// cuLaunchKernel). `shared_bytes` of dynamic shared memory; above 48 KiB
/// the kernel's limit is raised first.
OCTET_RUNTIME_EXPORT int32_t octet_cuda_launch(void *function,
                                               const uint32_t grid[3],
                                               const uint32_t block[3],
                                               uint32_t shared_bytes,
                                               void *stream, void **params);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_malloc(int64_t bytes, void **ptr);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_free(void *ptr);
/// Frees `ptr` once the work queued on `stream` is done: back to the
/// stream-ordered pool (cuMemFreeAsync) where the device has one, else
/// after waiting for `stream`. For the results of a compiled library's
/// `<function>_device` entries (docs/cuda.md "Device entries").
OCTET_RUNTIME_EXPORT int32_t octet_cuda_free_async(void *ptr, void *stream);
/// Makes compiled libraries run on `stream` in the calling thread (the
/// stream of a framework that owns the memory); null returns to the
/// thread's own stream. The library does not destroy it.
OCTET_RUNTIME_EXPORT void octet_cuda_set_stream(void *stream);
/// Copies `bytes` between any host/device pointers (unified addressing),
/// ordered on `stream`; with a null stream it returns once the copy is done.
OCTET_RUNTIME_EXPORT int32_t octet_cuda_memcpy(void *dst, const void *src,
                                               int64_t bytes, void *stream);
/// Sets `bytes` of device memory to the byte `value`, ordered on `stream`.
OCTET_RUNTIME_EXPORT int32_t octet_cuda_memset(void *dst, int32_t value,
                                               int64_t bytes, void *stream);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_stream_create(void **stream);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_stream_destroy(void *stream);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_stream_synchronize(void *stream);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_synchronize(void);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_event_create(void **event);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_event_destroy(void *event);
OCTET_RUNTIME_EXPORT int32_t octet_cuda_event_record(void *event,
                                                     void *stream);
/// Waits for `end`, then writes the time from `start` to `end`.
OCTET_RUNTIME_EXPORT int32_t octet_cuda_event_elapsed_ms(void *start,
                                                         void *end,
                                                         float *ms);

/// Libraries built with --emulate-gpu (docs/cuda.md "Emulation"): the
/// copies their host code made so far, as the GPU would see them:
/// stats = {host-to-device copies, their bytes, device-to-host copies,
/// their bytes}, counted over the process.
OCTET_RUNTIME_EXPORT void octet_emu_copy_stats(int64_t stats[4]);

//===----------------------------------------------------------------------===//
// CPU kernels: thread pool, scratch buffers and packing (generated GEMMs)
//===----------------------------------------------------------------------===//

/// Runs fn(ctx, begin, end) over disjoint chunks covering [0, n) on the
/// thread pool (the calling thread takes part) and returns when all are
/// done. The pool has OCTET_NUM_THREADS threads (default: the hardware
/// concurrency). Called from inside a task, it runs serially. Between
/// calls the workers, and the caller while it waits for them, spin for up
/// to 100 us (yielding the core every few checks) before sleeping, so that
/// back-to-back calls hand over in about a microsecond; a process that
/// shares the cores with other busy pools should size OCTET_NUM_THREADS
/// accordingly.
OCTET_RUNTIME_EXPORT void octet_parallel_for(int64_t n,
                                             void (*fn)(void *, int64_t,
                                                        int64_t),
                                             void *ctx);

/// Threads of the pool, the calling thread included.
OCTET_RUNTIME_EXPORT int32_t octet_get_num_threads(void);

/// Resizes the pool (threads < 1: back to the default). Not while a
/// parallel_for runs.
OCTET_RUNTIME_EXPORT void octet_set_num_threads(int32_t threads);

/// A 64-byte aligned buffer of at least `bytes` owned by the calling
/// thread, one per `slot` (0-3), kept and reused across calls (grown when
/// needed; the previous contents are then lost).
OCTET_RUNTIME_EXPORT void *octet_cpu_scratch(int32_t slot, int64_t bytes);

/// Packs the m x k lhs codes `a` (row stride `lda` bytes) into the layout
/// `mode` of octet/Runtime/CpuPack.h (LhsMode, | 0x10 for u8 codes), with
/// row panels of `mr` rows and k padded to `kpad`. `za` is null, one zero
/// point, or m of them (`za_per_row`); only the s16 mode subtracts it.
OCTET_RUNTIME_EXPORT void octet_cpu_pack_lhs(const void *a, int64_t m,
                                             int64_t k, int64_t lda,
                                             int32_t mode, const int32_t *za,
                                             int32_t za_per_row, int64_t mr,
                                             int64_t kpad, void *out);

/// The per-token dynamic quantization of an m x k f32 lhs `x` (row stride
/// `ldx` floats) fused into the packing of octet_cpu_pack_lhs: each row's
/// parameters are octet.compute_params's (numerics::paramsFromStats of the
/// row's statistics; `symmetric`, the storage `format` (StorageFormat) and
/// [qmin, qmax] from the scheme), written to `scale[i]` and, when
/// asymmetric, `zp[i]`; the row's codes (numerics::quantizeInt) are packed
/// as octet_cpu_pack_lhs packs codes in `mode` (the s16 mode subtracting
/// the row's zero point), never stored unpacked. Bit for bit what
/// compute_params, quantize and octet_cpu_pack_lhs give one after another.
OCTET_RUNTIME_EXPORT void
octet_cpu_quantize_pack_lhs(const float *x, int64_t m, int64_t k, int64_t ldx,
                            int32_t mode, int32_t format, int32_t qmin,
                            int32_t qmax, int32_t symmetric, float *scale,
                            int32_t *zp, int64_t mr, int64_t kpad, void *out);

/// octet.attention (docs/dialect: causal grouped-query attention in f32)
/// on the thread pool. `args` holds OCTET_ATTN_NUM_SLOTS int64 values at
/// the indices below: the addresses of q [S, KV, G, Dh], k [KV, Dh, N]
/// (the keys transposed, as a KV cache holds them), v [KV, N, Dh],
/// positions [S] (int32: query s sees keys 0 .. positions[s]) and the
/// output [S, KV, G, Dh] (contiguous); the five extents; q's, k's and v's
/// strides in elements; the f32 bits of the score scale in the low 32 bits
/// of OCTET_ATTN_SCALE; the element kinds of k and v (OCTET_ATTN_F32, or
/// OCTET_ATTN_I8 / OCTET_ATTN_F8E4M3FN: int8 / FP8 E4M3 codes whose values
/// are decode(code) * scale, an octet.dequantize of a per-head INT8 or FP8
/// KV cache fused into the call) with
/// the addresses of their f32 scales and the scales' stride (1 per KV
/// head, 0 for one scale). The result is under the Bounds contract (FMA,
/// any order; docs/numerics.md). OCTET_ATTN_LAYOUT holds
/// OCTET_ATTN_LAYOUT_TAG (else the call exits with status 70 and a message:
/// the library was compiled for another layout).
/// OCTET_ATTENTION_ISA=scalar|avx2 forces a
/// narrower form (tests).
enum {
  OCTET_ATTN_Q = 0,
  OCTET_ATTN_K = 1,
  OCTET_ATTN_V = 2,
  OCTET_ATTN_POSITIONS = 3,
  OCTET_ATTN_OUT = 4,
  OCTET_ATTN_S = 5,
  OCTET_ATTN_KV = 6,
  OCTET_ATTN_G = 7,
  OCTET_ATTN_DH = 8,
  OCTET_ATTN_N = 9,
  OCTET_ATTN_Q_STRIDES = 10, /* 4 slots */
  OCTET_ATTN_K_STRIDES = 14, /* 3 slots */
  OCTET_ATTN_V_STRIDES = 17, /* 3 slots */
  OCTET_ATTN_SCALE = 20,
  OCTET_ATTN_K_KIND = 21,
  OCTET_ATTN_V_KIND = 22,
  OCTET_ATTN_K_SCALES = 23,
  OCTET_ATTN_V_SCALES = 24,
  OCTET_ATTN_K_SCALE_STRIDE = 25,
  OCTET_ATTN_V_SCALE_STRIDE = 26,
  OCTET_ATTN_LAYOUT = 27, /* OCTET_ATTN_LAYOUT_TAG: this slot layout */
  OCTET_ATTN_NUM_SLOTS = 28
};
/* Changes with the slot layout: a library compiled for another layout
   gets a clear error instead of reading its arguments wrongly. */
#define OCTET_ATTN_LAYOUT_TAG 0x0C7E7A7702LL
enum { OCTET_ATTN_F32 = 0, OCTET_ATTN_I8 = 1, OCTET_ATTN_F8E4M3FN = 2 };
OCTET_RUNTIME_EXPORT void octet_cpu_attention_f32(const int64_t *args);

/// Called by generated kernels before their first use: exits with status 70
/// and a message (octet_require_cpu_features) when this CPU lacks one of
/// the comma-separated LLVM `features`; later calls with the same list
/// return at once.
OCTET_RUNTIME_EXPORT void octet_cpu_require_features(const char *features);

/// Asks Linux for permission to use the AMX tile data (once per process);
/// 0 on success.
OCTET_RUNTIME_EXPORT int32_t octet_cpu_enable_amx(void);

/// Called at load time by code with AMX kernels: exits with status 70 and a
/// message naming `artifact` when AMX cannot be enabled.
OCTET_RUNTIME_EXPORT void octet_cpu_require_amx(const char *artifact);

//===----------------------------------------------------------------------===//
// Range monitoring (code compiled with octet-compile --monitor)
//===----------------------------------------------------------------------===//

/// What the monitor counted for one static quantizer (one layer name).
typedef struct octet_monitor_stats {
  char name[128];        ///< The layer's name (truncated to 127 bytes).
  int32_t format;        ///< OCTET_FORMAT_*.
  float scale;           ///< The quantizer's scale, zero point and range.
  int32_t zero_point;
  int32_t qmin, qmax;    ///< Integer formats; 0 for FP8.
  float low_bound;       ///< x <= low_bound was clipped low (NaN: none can).
  float high_bound;      ///< x >= high_bound was clipped high (NaN: none can).
  int64_t calls;         ///< Runs of the quantizer since the last reset.
  int64_t values;        ///< Values seen.
  int64_t clipped_low;   ///< Values whose unclamped code was below qmin.
  int64_t clipped_high;  ///< ... above qmax (FP8: overflowing the format).
  int64_t nan;           ///< NaN inputs (quantized to the zero point).
  int64_t infinite;      ///< +-inf inputs (also counted as clipped).
  float absmax;          ///< Largest finite |x| seen (0 before any).
} octet_monitor_stats;

/// Called by code compiled with range monitoring, before each static
/// octet.quantize, with its f32 input (an unranked memref: rank and
/// descriptor), its name (a rank-1 i8 memref, NUL-terminated or not) and
/// its parameters: counts which values the quantizer clips. A value is
/// clipped when roundHalfEven(x / scale) + zp lies outside [qmin, qmax]
/// (FP8 formats: when x / scale overflows the format), by the rules of
/// Numerics.h. Thread-safe; process-wide, keyed by name (the first call of
/// a name fixes its parameters).
OCTET_RUNTIME_EXPORT void octet_monitor_quantize(
    int64_t rank, const void *descriptor, int64_t name_rank,
    const void *name_descriptor, float scale, int32_t zero_point,
    int32_t qmin, int32_t qmax, int32_t format);

/// How many quantizers have been monitored in this process (0 when no code
/// compiled with monitoring has run).
OCTET_RUNTIME_EXPORT int64_t octet_monitor_count(void);

/// Copies the counters of quantizer `i` (0 <= i < octet_monitor_count(), in
/// the order they first ran) to `out`; 0 on success, 1 for a bad `i`.
OCTET_RUNTIME_EXPORT int32_t octet_monitor_get(int64_t i,
                                               octet_monitor_stats *out);

/// Sets every counter to zero (the quantizers stay registered).
OCTET_RUNTIME_EXPORT void octet_monitor_reset(void);

/// Writes the counters as JSON (docs/monitoring.md) to `path`; 0 on
/// success, 1 when the file cannot be written.
OCTET_RUNTIME_EXPORT int32_t octet_monitor_write_json(const char *path);

/// The entry points above that code lowered by octet-lower-to-host calls
/// (generated kernels, octet-parallelize-loops), one X(name) each: a JIT
/// that resolves symbols by hand registers exactly these.
#define OCTET_RUNTIME_CPU_CODEGEN_SYMBOLS(X)                                   \
  X(octet_parallel_for)                                                        \
  X(octet_get_num_threads)                                                     \
  X(octet_cpu_scratch)                                                         \
  X(octet_cpu_pack_lhs)                                                        \
  X(octet_cpu_quantize_pack_lhs)                                               \
  X(octet_cpu_attention_f32)                                                   \
  X(octet_cpu_require_amx)                                                     \
  X(octet_cpu_require_features)                                                \
  X(octet_monitor_quantize)

#ifdef __cplusplus
} // extern "C"
#endif

#endif /* OCTET_RUNTIME_OCTETRUNTIME_H */
