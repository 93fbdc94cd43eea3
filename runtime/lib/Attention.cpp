//===- Attention.cpp - octet.attention on the CPU -------------------------===//
//
// octet_cpu_attention_f32: causal grouped-query attention in one pass per
// query row over the keys it sees (no S x N score tensor, masked keys
// skipped), spread over the thread pool by KV head and blocks of
// kAttentionBlock query positions, the blocks with the most keys first. The
// vector tasks (AttentionKernel.inc) run where the CPU has AVX-512 or AVX2
// and FMA and the keys' and values' rows are contiguous; the scalar task
// below otherwise (same steps, one lane).
//
//===----------------------------------------------------------------------===//

#include "Attention.h"
#include "octet/Runtime/Numerics.h"
#include "octet/Runtime/OctetRuntime.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

using namespace octet::rt;

float octet::rt::attentionExpScalar(float x) {
  if (std::isnan(x))
    return x + x;
  float xc = x > -104.0f ? x : -104.0f;
  xc = xc < 88.75f ? xc : 88.75f;
  if (xc <= -104.0f)
    return 0.0f;
  float k = std::nearbyint(xc * 0x1.715476p+0f); // round to nearest even
  float r = std::fma(k, -0x1.62e43p-1f, xc);
  r = std::fma(k, 0x1.05c61p-29f, r);
  float poly = 0x1.9f0844p-13f;
  for (float c :
       {0x1.6d8d7p-10f, 0x1.111272p-7f, 0x1.55548ep-5f, 0x1.555554p-3f, 0.5f})
    poly = std::fma(poly, r, c);
  float p = std::fma(r * r, poly, r) + 1.0f;
  int32_t ki = static_cast<int32_t>(k);
  int32_t k1 = ki >> 1, k2 = ki - k1;
  auto pow2 = [](int32_t e) {
    uint32_t bits = static_cast<uint32_t>(e + 127) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  return p * pow2(k1) * pow2(k2);
}

namespace {

/// Element i of a K or V operand as its value.
inline float element(const void *base, int32_t kind, int64_t i, float scale) {
  if (kind == OCTET_ATTN_I8)
    return static_cast<float>(static_cast<const int8_t *>(base)[i]) * scale;
  if (kind == OCTET_ATTN_F8E4M3FN)
    return octet::numerics::decodeFp8(
               static_cast<const uint8_t *>(base)[i],
               octet::numerics::StorageFormat::F8E4M3FN) *
           scale;
  return static_cast<const float *>(base)[i];
}

} // namespace

void octet::rt::attentionTaskScalar(const AttentionArgs &a, int64_t h,
                                    int64_t s0, int64_t s1, float *scratch) {
  const float inf = std::numeric_limits<float>::infinity();
  float ksc = a.kKind != OCTET_ATTN_F32 ? a.kScale[h * a.kScaleStride] : 1.0f;
  float vsc = a.vKind != OCTET_ATTN_F32 ? a.vScale[h * a.vScaleStride] : 1.0f;
  for (int64_t s = s0; s < s1; ++s) {
    int64_t lim = static_cast<int64_t>(a.pos[s]) + 1;
    lim = lim < 0 ? 0 : (lim > a.n ? a.n : lim);
    for (int64_t gi = 0; gi < a.g; ++gi) {
      const float *q = a.q + s * a.qs[0] + h * a.qs[1] + gi * a.qs[2];
      float *out = a.out + ((s * a.kv + h) * a.g + gi) * a.dh;
      if (a.n == 0 || lim == 0) {
        for (int64_t d = 0; d < a.dh; ++d)
          out[d] = a.n == 0 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      float m = -inf;
      for (int64_t j = 0; j < lim; ++j) {
        float acc = 0.0f;
        for (int64_t d = 0; d < a.dh; ++d)
          acc = std::fma(q[d * a.qs[3]],
                         element(a.k, a.kKind,
                                 h * a.ks[0] + d * a.ks[1] + j * a.ks[2], ksc),
                         acc);
        scratch[j] = acc * a.scale;
        m = scratch[j] > m ? scratch[j] : m;
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < lim; ++j) {
        scratch[j] = attentionExpScalar(scratch[j] - m);
        sum += scratch[j];
      }
      for (int64_t d = 0; d < a.dh; ++d) {
        float acc = 0.0f;
        for (int64_t j = 0; j < lim; ++j)
          acc = std::fma(scratch[j],
                         element(a.v, a.vKind,
                                 h * a.vs[0] + j * a.vs[1] + d * a.vs[2], vsc),
                         acc);
        out[d] = acc / sum;
      }
    }
  }
}

namespace {

enum class Isa { scalar, avx2, avx512 };

Isa detectIsa() {
#if defined(OCTET_ATTENTION_X86)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
    return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return Isa::avx2;
#endif
  return Isa::scalar;
}

struct Job {
  AttentionArgs a;
  Isa isa;
  int64_t blocks;
};

void runTasks(void *ctx, int64_t begin, int64_t end) {
  const Job &job = *static_cast<const Job *>(ctx);
  const AttentionArgs &a = job.a;
  thread_local std::vector<float> scratch;
  size_t need = static_cast<size_t>(attentionScratch(a.n));
  if (scratch.size() < need)
    scratch.resize(need);
  for (int64_t t = begin; t < end; ++t) {
    // The blocks of the last positions (the most keys) first.
    int64_t h = t % a.kv, blk = job.blocks - 1 - t / a.kv;
    int64_t s0 = blk * kAttentionBlock;
    int64_t s1 = s0 + kAttentionBlock < a.s ? s0 + kAttentionBlock : a.s;
    switch (job.isa) {
#if defined(OCTET_ATTENTION_X86)
    case Isa::avx512:
      attentionTaskAvx512(a, h, s0, s1, scratch.data());
      break;
    case Isa::avx2:
      attentionTaskAvx2(a, h, s0, s1, scratch.data());
      break;
#endif
    default:
      attentionTaskScalar(a, h, s0, s1, scratch.data());
      break;
    }
  }
}

} // namespace

extern "C" void octet_cpu_attention_f32(const int64_t *args) {
  if (args[OCTET_ATTN_LAYOUT] != OCTET_ATTN_LAYOUT_TAG) {
    std::fprintf(stderr,
                 "octet runtime: octet_cpu_attention_f32 was called with "
                 "another argument layout (a library compiled by another "
                 "octet-compile); recompile it with this one\n");
    std::exit(70);
  }
  Job job;
  AttentionArgs &a = job.a;
  auto addr = [&](int i) {
    return reinterpret_cast<const void *>(static_cast<intptr_t>(args[i]));
  };
  a.q = static_cast<const float *>(addr(OCTET_ATTN_Q));
  a.k = addr(OCTET_ATTN_K);
  a.v = addr(OCTET_ATTN_V);
  a.kKind = static_cast<int32_t>(args[OCTET_ATTN_K_KIND]);
  a.vKind = static_cast<int32_t>(args[OCTET_ATTN_V_KIND]);
  a.kScale = static_cast<const float *>(addr(OCTET_ATTN_K_SCALES));
  a.vScale = static_cast<const float *>(addr(OCTET_ATTN_V_SCALES));
  a.kScaleStride = args[OCTET_ATTN_K_SCALE_STRIDE];
  a.vScaleStride = args[OCTET_ATTN_V_SCALE_STRIDE];
  a.pos = static_cast<const int32_t *>(addr(OCTET_ATTN_POSITIONS));
  a.out = const_cast<float *>(static_cast<const float *>(addr(OCTET_ATTN_OUT)));
  a.s = args[OCTET_ATTN_S];
  a.kv = args[OCTET_ATTN_KV];
  a.g = args[OCTET_ATTN_G];
  a.dh = args[OCTET_ATTN_DH];
  a.n = args[OCTET_ATTN_N];
  for (int i = 0; i < 4; ++i)
    a.qs[i] = args[OCTET_ATTN_Q_STRIDES + i];
  for (int i = 0; i < 3; ++i) {
    a.ks[i] = args[OCTET_ATTN_K_STRIDES + i];
    a.vs[i] = args[OCTET_ATTN_V_STRIDES + i];
  }
  uint32_t bits = static_cast<uint32_t>(args[OCTET_ATTN_SCALE]);
  std::memcpy(&a.scale, &bits, sizeof a.scale);
  if (a.s <= 0 || a.kv <= 0 || a.g <= 0 || a.dh <= 0)
    return;
  static const Isa best = detectIsa();
  job.isa = best;
  if (job.isa == Isa::avx512 && !attentionVectorOk(a, 16))
    job.isa = attentionVectorOk(a, 8) ? Isa::avx2 : Isa::scalar;
  if (job.isa == Isa::avx2 && !attentionVectorOk(a, 8))
    job.isa = Isa::scalar;
  if (const char *forced = std::getenv("OCTET_ATTENTION_ISA")) {
    // Tests: the scalar or AVX2 task on a CPU that would pick another.
    if (!std::strcmp(forced, "scalar"))
      job.isa = Isa::scalar;
    else if (!std::strcmp(forced, "avx2") && best != Isa::scalar &&
             attentionVectorOk(a, 8))
      job.isa = Isa::avx2;
  }
  // The vector forms take one code format per call (or f32 on a side);
  // the scalar form any mix.
  if (a.kKind != OCTET_ATTN_F32 && a.vKind != OCTET_ATTN_F32 &&
      a.kKind != a.vKind)
    job.isa = Isa::scalar;
  job.blocks = (a.s + kAttentionBlock - 1) / kAttentionBlock;
  octet_parallel_for(job.blocks * a.kv, runTasks, &job);
}
