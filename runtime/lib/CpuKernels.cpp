//===- CpuKernels.cpp - Run-time support of the generated CPU GEMMs -------===//
//
// Packing of the activations (the lhs) into the layout of the generated
// kernels (octet/Runtime/CpuPack.h), spread over the thread pool (with the
// per-token dynamic quantization fused into it: octet_cpu_quantize_pack_lhs),
// and the Linux permission request that AMX tiles need before their first
// use.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/CpuPack.h"
#include "octet/Runtime/NumericsRow.h"
#include "octet/Runtime/OctetRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

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

//===----------------------------------------------------------------------===//
// Per-token quantization fused into the packing
//===----------------------------------------------------------------------===//

struct QuantizePackJob {
  const float *x;
  int64_t m, k, ldx;
  int32_t mode;
  octet::numerics::StorageFormat format;
  octet::numerics::IntRange range;
  bool symmetric;
  float *scale;
  int32_t *zp;
  int64_t mr, kpad;
  void *out;
  int64_t elemBytes; // of the packed lhs (2: s16MinusZp)
};

void minMaxRowScalar(const float *x, int64_t k, float &mn, float &mx) {
  octet::numerics::minMaxRow<false>(x, k, mn, mx);
}

/// The row kernels of the running CPU.
struct QuantizeRowKernels {
  void (*minMax)(const float *, int64_t, float &, float &);
  void (*quantize)(const float *, int64_t, float, int32_t,
                   octet::numerics::IntRange, int8_t *);
};

const QuantizeRowKernels &quantizeRowKernels() {
  static const QuantizeRowKernels kernels = [] {
    namespace num = octet::numerics;
    QuantizeRowKernels k{minMaxRowScalar, num::quantizeIntCodesRow};
#if defined(OCTET_NUMERICS_ROW_AVX2)
    if (__builtin_cpu_supports("avx2"))
      k = {num::minMaxRowAvx2, num::quantizeIntCodesRowAvx2};
    if (__builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
      k = {num::minMaxRowAvx512, num::quantizeIntCodesRowAvx512};
#endif
    return k;
  }();
  return kernels;
}

/// compute_params of one row: numerics::paramsFromStats of its RangeStats.
octet::numerics::QuantParams rowParams(const QuantizePackJob &j,
                                       const QuantizeRowKernels &kern,
                                       const float *x) {
  namespace num = octet::numerics;
  float mn = 0.0f, mx = 0.0f;
  kern.minMax(x, j.k, mn, mx);
  num::RangeStats stats;
  stats.absmax = std::fmax(-mn, mx);
  stats.minV = mn;
  stats.maxV = mx;
  return num::paramsFromStats(stats, j.format, j.range, j.symmetric);
}

#if defined(OCTET_NUMERICS_ROW_AVX2)
/// One whole row panel of the VNNI kernel's lhs (LhsMode::u8Shifted, K a
/// multiple of 16) with AVX-512: four rows at a time, each row's
/// parameters, then 16 codes of each of the four rows (quantizeInt16Avx512,
/// the steps of quantizeIntCodesRowAvx512), their 4 x 4 quads transposed
/// in registers, shifted and stored where packLhsPanels puts them
/// (storeQuadsTransposed, which packLhsPanels uses too): no
/// codes buffer and no second pass.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
quantizePanelU8Avx512(const QuantizePackJob &j, const QuantizeRowKernels &kern,
                      int64_t p) {
  namespace num = octet::numerics;
  const int64_t row0 = p * j.mr;
  auto *panel = static_cast<uint8_t *>(j.out) + row0 * j.kpad;
  const bool isUnsigned = j.mode & octet::cpu::kLhsUnsignedBit;
  const __m128i flip = _mm_set1_epi8(isUnsigned ? 0 : static_cast<char>(0x80));
  for (int64_t r0 = 0; r0 < j.mr; r0 += 4) {
    const float *x[4];
    num::QuantizeVectorsAvx512 c[4];
    for (int64_t r = 0; r < 4; ++r) {
      const int64_t i = row0 + r0 + r;
      x[r] = j.x + i * j.ldx;
      num::QuantParams q = rowParams(j, kern, x[r]);
      j.scale[i] = q.scale;
      if (j.zp)
        j.zp[i] = q.zeroPoint;
      c[r] = num::quantizeVectorsAvx512(q.scale, q.zeroPoint, j.range);
    }
    uint8_t *dst = panel + r0 * 4;
    for (int64_t kk = 0; kk < j.k; kk += 16) {
      __m128i b[4];
      for (int64_t r = 0; r < 4; ++r)
        b[r] = num::quantizeInt16Avx512(_mm512_loadu_ps(x[r] + kk), c[r]);
      octet::cpu::storeQuadsTransposed(b[0], b[1], b[2], b[3], flip,
                                       dst + (kk / 4) * j.mr * 4, j.mr * 4);
    }
    // Quads past K: the shifted zero code, as packLhsPanels writes them.
    for (int64_t kk = j.k; kk < j.kpad; kk += 4)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + (kk / 4) * j.mr * 4),
                       flip);
  }
}
#endif

/// Row panels [p0, p1): each row's statistics and parameters (the rules of
/// numerics::RangeStats / paramsFromStats, as compute_params), its codes
/// into a per-thread buffer of one panel (L1/L2-resident), then the panel
/// packed from there by the same packLhsPanels as octet_cpu_pack_lhs;
/// whole panels of the VNNI layout straight into place with AVX-512
/// (quantizePanelU8Avx512).
void quantizePackTask(void *ctx, int64_t p0, int64_t p1) {
  namespace num = octet::numerics;
  const auto &j = *static_cast<QuantizePackJob *>(ctx);
  const QuantizeRowKernels &kern = quantizeRowKernels();
#if defined(OCTET_NUMERICS_ROW_AVX2)
  // AMX tiles (the CPU has AVX-512): the codes straight into the row's
  // 64-byte pieces, zeros past K and in the rows past M.
  if (static_cast<octet::cpu::LhsMode>(j.mode & 0xf) ==
          octet::cpu::LhsMode::s8Tiles &&
      kern.quantize == num::quantizeIntCodesRowAvx512) {
    for (int64_t i = p0 * j.mr; i < p1 * j.mr; ++i) {
      int8_t *tiles =
          static_cast<int8_t *>(j.out) + octet::cpu::s8TileOffset(i, 0, j.kpad);
      int64_t valid = 0;
      if (i < j.m) {
        const float *x = j.x + i * j.ldx;
        num::QuantParams q = rowParams(j, kern, x);
        j.scale[i] = q.scale;
        if (j.zp)
          j.zp[i] = q.zeroPoint;
        num::quantizeIntCodesPiecesAvx512(x, j.k, q.scale, q.zeroPoint, j.range,
                                          tiles, 64, 1024);
        valid = j.k;
      }
      for (int64_t kk = valid / 64 * 64; kk < j.kpad; kk += 64) {
        int64_t keep = std::max<int64_t>(valid - kk, 0);
        std::memset(tiles + kk / 64 * 1024 + keep, 0,
                    static_cast<size_t>(64 - keep));
      }
    }
    return;
  }
#endif
#if defined(OCTET_NUMERICS_ROW_AVX2)
  const bool panelsInPlace = static_cast<octet::cpu::LhsMode>(j.mode & 0xf) ==
                                 octet::cpu::LhsMode::u8Shifted &&
                             kern.quantize == num::quantizeIntCodesRowAvx512 &&
                             j.mr % 4 == 0 && j.k % 16 == 0 && j.kpad % 4 == 0;
#endif
  thread_local std::vector<int8_t> codes;
  codes.resize(static_cast<size_t>(j.mr * j.k));
  for (int64_t p = p0; p < p1; ++p) {
    int64_t row0 = p * j.mr;
#if defined(OCTET_NUMERICS_ROW_AVX2)
    if (panelsInPlace && row0 + j.mr <= j.m) {
      quantizePanelU8Avx512(j, kern, p);
      continue;
    }
#endif
    int64_t rows = std::min(j.mr, j.m - row0);
    for (int64_t r = 0; r < rows; ++r) {
      const float *x = j.x + (row0 + r) * j.ldx;
      num::QuantParams q = rowParams(j, kern, x);
      j.scale[row0 + r] = q.scale;
      if (j.zp)
        j.zp[row0 + r] = q.zeroPoint;
      kern.quantize(x, j.k, q.scale, q.zeroPoint, j.range,
                    codes.data() + r * j.k);
    }
    octet::cpu::packLhsPanels(
        codes.data(), rows, j.k, j.k, j.mode, j.zp ? j.zp + row0 : nullptr,
        /*zaPerRow=*/true, j.mr, j.kpad,
        static_cast<char *>(j.out) + row0 * j.kpad * j.elemBytes, 0, 1);
  }
}

} // namespace

extern "C" void
octet_cpu_quantize_pack_lhs(const float *x, int64_t m, int64_t k, int64_t ldx,
                            int32_t mode, int32_t format, int32_t qmin,
                            int32_t qmax, int32_t symmetric, float *scale,
                            int32_t *zp, int64_t mr, int64_t kpad, void *out) {
  if (m <= 0 || mr <= 0)
    return;
  auto kind = static_cast<octet::cpu::LhsMode>(mode & 0xf);
  QuantizePackJob job{x,
                      m,
                      k,
                      ldx,
                      mode,
                      static_cast<octet::numerics::StorageFormat>(format),
                      {qmin, qmax},
                      symmetric != 0,
                      scale,
                      symmetric != 0 ? nullptr : zp,
                      mr,
                      kpad,
                      out,
                      kind == octet::cpu::LhsMode::s16MinusZp ? 2 : 1};
  int64_t panels = (m + mr - 1) / mr;
  if (panels * mr * kpad < (int64_t{1} << 16))
    quantizePackTask(&job, 0, panels);
  else
    octet_parallel_for(panels, quantizePackTask, &job);
}

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
