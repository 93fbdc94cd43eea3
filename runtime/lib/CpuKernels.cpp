//===- CpuKernels.cpp - Run-time support of the generated CPU GEMMs -------===//
//
// Packing of the activations (the lhs) into the layout of the generated
// kernels (octet/Runtime/CpuPack.h), spread over the thread pool, and the
// Linux permission request that AMX tiles need before their first use.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/CpuPack.h"
#include "octet/Runtime/OctetRuntime.h"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>
#include <cstdlib>

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {

struct PackLhsJob {
  const int8_t *a;
  int64_t m, k, lda;
  int32_t mode;
  const int32_t *za;
  int32_t zaPerRow;
  int64_t mr, kpad;
  void *out;
};

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define OCTET_HAVE_AVX512_PACK 1
#include <immintrin.h>

/// LhsMode::e4m3Bf16Tiles / e5m2Bf16Tiles for row panels [p0, p1): 32 codes
/// at a time, the bits of fp8ToBf16Bits (CpuPack.h) computed on 16-bit lanes,
/// subnormal codes from a table (vpermw). Only the AMX-BF16 kernels use
/// this mode, so the CPU has AVX-512BW and VL.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
packBf16Tiles(const PackLhsJob &j, int64_t p0, int64_t p1) {
  bool e5m2 = static_cast<octet::cpu::LhsMode>(j.mode & 0xf) ==
              octet::cpu::LhsMode::e5m2Bf16Tiles;
  int mbits = e5m2 ? 2 : 3;
  alignas(64) uint16_t sub[32] = {};
  for (int m = 0; m < (1 << mbits); ++m)
    sub[m] = octet::cpu::fp8ToBf16Bits(static_cast<uint8_t>(m), e5m2);
  __m512i table = _mm512_load_si512(sub);
  __m512i magMask = _mm512_set1_epi16(0x7F), signMask = _mm512_set1_epi16(0x80);
  __m512i biasAdd =
      _mm512_set1_epi16(static_cast<short>((127 - (e5m2 ? 15 : 7)) << 7));
  __m512i minNormal = _mm512_set1_epi16(static_cast<short>(1 << mbits));
  __m512i nan = _mm512_set1_epi16(0x7FC0), inf = _mm512_set1_epi16(0x7F80);
  __m512i special = _mm512_set1_epi16(e5m2 ? 0x7C : 0x7F);
  for (int64_t i = p0 * j.mr; i < p1 * j.mr; ++i) {
    auto *tiles = static_cast<uint16_t *>(j.out) +
                  octet::cpu::bf16TileOffset(i, 0, j.kpad);
    const int8_t *src = j.a + i * j.lda;
    int64_t valid = i < j.m ? j.k : 0;
    for (int64_t kk = 0; kk < j.kpad; kk += 32) {
      int64_t left = valid - kk;
      __mmask32 load = left >= 32  ? ~__mmask32{0}
                       : left <= 0 ? __mmask32{0}
                                   : (__mmask32{1} << left) - 1;
      __m512i c = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(load, src + kk));
      __m512i mag = _mm512_and_si512(c, magMask);
      __m512i sign = _mm512_slli_epi16(_mm512_and_si512(c, signMask), 8);
      __m512i r = _mm512_add_epi16(_mm512_slli_epi16(mag, 7 - mbits), biasAdd);
      r = _mm512_mask_mov_epi16(r, _mm512_cmplt_epu16_mask(mag, minNormal),
                                _mm512_permutexvar_epi16(mag, table));
      __mmask32 specials = e5m2 ? _mm512_cmpge_epu16_mask(mag, special)
                                : _mm512_cmpeq_epu16_mask(mag, special);
      r = _mm512_mask_mov_epi16(r, specials, nan);
      if (e5m2)
        r = _mm512_mask_mov_epi16(r, _mm512_cmpeq_epu16_mask(mag, special),
                                  inf);
      // kpad is a multiple of 32 (the AMX-BF16 kernels' K step).
      _mm512_storeu_si512(tiles + kk / 32 * 512, _mm512_or_si512(r, sign));
    }
  }
}
#endif

void packLhsTask(void *ctx, int64_t begin, int64_t end) {
  auto *j = static_cast<PackLhsJob *>(ctx);
#if defined(OCTET_HAVE_AVX512_PACK)
  auto kind = static_cast<octet::cpu::LhsMode>(j->mode & 0xf);
  if ((kind == octet::cpu::LhsMode::e4m3Bf16Tiles ||
       kind == octet::cpu::LhsMode::e5m2Bf16Tiles) &&
      j->kpad % 32 == 0 && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl")) {
    packBf16Tiles(*j, begin, end);
    return;
  }
#endif
  octet::cpu::packLhsPanels(j->a, j->m, j->k, j->lda, j->mode, j->za,
                            j->zaPerRow != 0, j->mr, j->kpad, j->out, begin,
                            end);
}

} // namespace

extern "C" void octet_cpu_pack_lhs(const void *a, int64_t m, int64_t k,
                                   int64_t lda, int32_t mode,
                                   const int32_t *za, int32_t za_per_row,
                                   int64_t mr, int64_t kpad, void *out) {
  if (m <= 0 || mr <= 0)
    return;
  PackLhsJob job{static_cast<const int8_t *>(a), m, k, lda, mode, za,
                 za_per_row, mr, kpad, out};
  int64_t panels = (m + mr - 1) / mr;
  // Small operands are not worth waking the pool.
  if (panels * mr * kpad < (int64_t{1} << 16))
    packLhsTask(&job, 0, panels);
  else
    octet_parallel_for(panels, packLhsTask, &job);
}

extern "C" int32_t octet_cpu_enable_amx(void) {
#if defined(__linux__) && defined(__x86_64__)
  // ARCH_REQ_XCOMP_PERM (0x1023) for XFEATURE_XTILEDATA (18).
  static const int32_t status = [] {
    long rc = syscall(SYS_arch_prctl, 0x1023, 18);
    return rc == 0 ? int32_t{0} : int32_t{-1};
  }();
  return status;
#else
  return -1;
#endif
}

extern "C" void octet_cpu_require_amx(const char *artifact) {
  if (octet_cpu_enable_amx() == 0)
    return;
  std::fprintf(stderr,
               "octet: %s uses AMX tiles, but the kernel refused them "
               "(arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) failed).\n",
               artifact ? artifact : "this code");
  std::exit(70);
}

extern "C" void octet_cpu_require_features(const char *features) {
  static std::mutex mutex;
  static std::vector<std::string> checked;
  std::lock_guard<std::mutex> lock(mutex);
  for (const std::string &f : checked)
    if (f == features)
      return;
  octet_require_cpu_features("this octet CPU kernel", features);
  checked.emplace_back(features);
}
