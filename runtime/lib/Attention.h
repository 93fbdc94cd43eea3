//===- Attention.h - octet.attention's CPU kernel, internal -------*- C++
//-*-===//
//
// The arguments of octet_cpu_attention_f32 (OctetRuntime.h) unpacked, and
// the row-group kernel that runs one task: one KV head and a block of query
// positions. AttentionKernel.inc defines it once over a vector type; it is
// compiled for AVX-512 (AttentionAvx512.cpp) and AVX2 + FMA
// (AttentionAvx2.cpp), and Attention.cpp holds the scalar form, the choice
// by CPU and the thread pool's loop.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_LIB_ATTENTION_H
#define OCTET_RUNTIME_LIB_ATTENTION_H

#include "octet/Runtime/OctetRuntime.h"

#include <cstdint>

namespace octet {
namespace rt {

/// octet.attention's operands: q [S, KV, G, Dh], k [KV, Dh, N] (the keys
/// transposed), v [KV, N, Dh], positions [S], out [S, KV, G, Dh]
/// (contiguous); strides in elements. K and V are f32, or int8 / FP8 E4M3
/// codes whose values are decode(code) * scale[h * scaleStride] (a KV
/// cache quantized per head: octet.dequantize fused into the call).
struct AttentionArgs {
  const float *q;
  const void *k, *v;
  const int32_t *pos;
  float *out;
  int64_t s, kv, g, dh, n;
  int64_t qs[4], ks[3], vs[3];
  float scale;
  int32_t kKind, vKind; // OCTET_ATTN_F32, _I8 or _F8E4M3FN
  const float *kScale, *vScale;
  int64_t kScaleStride, vScaleStride;
};

/// An FP8 E4M3 (OCP, "FN": no infinities) code, as the kernel's element
/// type of an FP8 KV cache.
struct E4M3 {
  uint8_t bits;
};

/// Query positions per task (a task: one KV head, this many positions and
/// all G query heads of the group).
constexpr int64_t kAttentionBlock = 8;
/// Rows (query vectors) of a register tile.
constexpr int kAttentionRows = 6;

/// Floats between two rows of a task's scores: N padded to whole vectors.
inline int64_t attentionRowStride(int64_t n) { return (n + 31) / 32 * 32 + 32; }

/// Floats of scratch a task needs: kAttentionRows rows of scores.
inline int64_t attentionScratch(int64_t n) {
  return kAttentionRows * attentionRowStride(n);
}

/// Runs the task (head `h`, positions [s0, s1)) with `scratch` of
/// attentionScratch(n) floats. The vector forms need k's and v's last
/// strides to be 1 and Dh a multiple of the vector length
/// (attentionVectorOk).
void attentionTaskScalar(const AttentionArgs &a, int64_t h, int64_t s0,
                         int64_t s1, float *scratch);
void attentionTaskAvx512(const AttentionArgs &a, int64_t h, int64_t s0,
                         int64_t s1, float *scratch);
void attentionTaskAvx2(const AttentionArgs &a, int64_t h, int64_t s0,
                       int64_t s1, float *scratch);

inline bool attentionVectorOk(const AttentionArgs &a, int64_t lanes) {
  return a.ks[2] == 1 && a.vs[2] == 1 && a.dh % lanes == 0;
}

/// exp(x) in f32 by octet-expand-exp's steps (lib/Conversion/OctetToCPU/
/// ExpandExp.cpp: at most one ulp, the same bits as the compiled exp).
float attentionExpScalar(float x);

} // namespace rt
} // namespace octet

#endif // OCTET_RUNTIME_LIB_ATTENTION_H
