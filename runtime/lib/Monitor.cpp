//===- Monitor.cpp - Range monitoring of static quantization ---------------===//
//
// The counters behind octet_monitor_* (OctetRuntime.h). Code compiled with
// range monitoring (octet-monitor-ranges) calls octet_monitor_quantize with
// the input of every static octet.quantize; this file counts, per layer
// name, the values the quantizer clipped and the largest finite |x|.
//
// "Clipped" is decided by the quantizer's own rule (Numerics.h), not by an
// approximation of it: a value x is clipped high when the unclamped code
// roundHalfEven(x / scale) + zp exceeds qmax (an FP8 format: when the
// non-saturating encoding of x / scale overflows), low when it falls below
// qmin. Both sets are intervals of the float line (x / scale, rounding and
// the encoding are monotone), so the first call of a layer finds their
// exact bounds by bisection over the ordered floats, and the hot loop is
// two compares per value.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/Numerics.h"
#include "octet/Runtime/OctetRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace octet::numerics;

namespace {

/// One monitored quantizer.
struct Entry {
  std::string name;
  int32_t format;
  float scale;
  int32_t zp, qmin, qmax;
  float lowBound;  ///< x <= lowBound is clipped low (NaN: nothing is).
  float highBound; ///< x >= highBound is clipped high (NaN: nothing is).
  octet_monitor_stats stats;
};

struct State {
  std::mutex mutex;
  std::vector<Entry> entries;
  std::map<std::string, size_t> index;
};

State &state() {
  static State s;
  return s;
}

/// Floats in their numeric order as unsigned integers (-0 and +0 adjacent).
uint32_t orderedKey(float x) {
  uint32_t u = bitsOf(x);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
float fromOrderedKey(uint32_t k) {
  return floatOf((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/// The unclamped result of quantizing `x`: +1 above the format's range, -1
/// below it, 0 inside. NaN is 0 (the quantizer maps it to the zero point).
int side(float x, const Entry &e) {
  float v = x / e.scale;
  if (e.format == OCTET_FORMAT_F8E4M3FN || e.format == OCTET_FORMAT_F8E5M2) {
    auto f = static_cast<StorageFormat>(e.format);
    if (std::isnan(v))
      return 0;
    uint8_t code = encodeFp8(v, f, /*saturate=*/false);
    if ((code & 0x7f) <= fp8Spec(f).maxCode)
      return 0;
    return v > 0 ? 1 : -1;
  }
  v = roundHalfEven(v);
  if (std::isnan(v))
    return 0;
  v += static_cast<float>(e.zp);
  if (v > static_cast<float>(e.qmax))
    return 1;
  if (v < static_cast<float>(e.qmin))
    return -1;
  return 0;
}

/// The smallest float (by ordered key in [lo, hi]) for which `pred` holds,
/// `pred` being false then true along the line; `hi` when it only holds
/// there.
template <typename Pred>
uint32_t firstTrue(uint32_t lo, uint32_t hi, Pred pred) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (pred(fromOrderedKey(mid)))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// The exact bounds of the clipped sets (NaN where a set is empty, so that
/// no compare holds).
void computeBounds(Entry &e) {
  const float inf = std::numeric_limits<float>::infinity();
  const float none = std::numeric_limits<float>::quiet_NaN();
  const uint32_t kMinusInf = orderedKey(-inf), kPlusInf = orderedKey(inf);
  e.highBound = side(inf, e) > 0
                    ? fromOrderedKey(firstTrue(kMinusInf, kPlusInf,
                                               [&](float x) {
                                                 return side(x, e) > 0;
                                               }))
                    : none;
  // The largest x clipped low: the one below the first that is not.
  e.lowBound = side(-inf, e) < 0
                   ? fromOrderedKey(firstTrue(kMinusInf, kPlusInf,
                                              [&](float x) {
                                                return side(x, e) >= 0;
                                              }) -
                                    1)
                   : none;
}

/// Counts over n contiguous floats. Four lanes at a time with SSE2 (every
/// x86-64 has it; the scalar loop did not vectorize and cost ~5% of a
/// one-thread prefill): the same compares, so the same counts.
void countContiguous(const float *x, int64_t n, float lowB, float highB,
                     octet_monitor_stats &s) {
  int64_t low = 0, high = 0, nan = 0, inf = 0;
  float amax = 0.0f; // the largest finite |x|
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 vlow = _mm_set1_ps(lowB), vhigh = _mm_set1_ps(highB);
  const __m128 absMask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128 vinf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  __m128 vmax = _mm_setzero_ps();
  while (n - i >= 4) {
    // 32-bit lane counters, flushed every block (no overflow).
    int64_t block = std::min<int64_t>((n - i) / 4, int64_t(1) << 20);
    __m128i cl = _mm_setzero_si128(), ch = cl, cn = cl, ci = cl;
    for (int64_t b = 0; b < block; ++b, i += 4) {
      __m128 v = _mm_loadu_ps(x + i);
      __m128 a = _mm_and_ps(v, absMask);
      // Masks are all ones (-1) where true: subtracting them counts.
      cl = _mm_sub_epi32(cl, _mm_castps_si128(_mm_cmple_ps(v, vlow)));
      ch = _mm_sub_epi32(ch, _mm_castps_si128(_mm_cmpge_ps(v, vhigh)));
      cn = _mm_sub_epi32(cn, _mm_castps_si128(_mm_cmpunord_ps(v, v)));
      ci = _mm_sub_epi32(ci, _mm_castps_si128(_mm_cmpeq_ps(a, vinf)));
      // Finite |x| (a < inf is false for NaN and inf), else 0.
      vmax = _mm_max_ps(vmax, _mm_and_ps(a, _mm_cmplt_ps(a, vinf)));
    }
    alignas(16) int32_t lanes[4][4];
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes[0]), cl);
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes[1]), ch);
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes[2]), cn);
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes[3]), ci);
    for (int l = 0; l < 4; ++l) {
      low += lanes[0][l];
      high += lanes[1][l];
      nan += lanes[2][l];
      inf += lanes[3][l];
    }
  }
  alignas(16) float m[4];
  _mm_store_ps(m, vmax);
  for (float v : m)
    amax = v > amax ? v : amax;
#endif
  for (; i < n; ++i) {
    float v = x[i];
    low += v <= lowB;
    high += v >= highB;
    float a = std::fabs(v);
    nan += v != v;
    inf += a == std::numeric_limits<float>::infinity();
    if (a < std::numeric_limits<float>::infinity() && a > amax)
      amax = a;
  }
  s.values += n;
  s.clipped_low += low;
  s.clipped_high += high;
  s.nan += nan;
  s.infinite += inf;
  if (amax > s.absmax)
    s.absmax = amax;
}

/// A memref descriptor of rank r: allocated, aligned, offset, sizes[r],
/// strides[r].
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizesAndStrides[1];
};

void countStrided(const float *base, const int64_t *sizes,
                  const int64_t *strides, int64_t rank, float lowB,
                  float highB, octet_monitor_stats &s,
                  std::vector<float> &row) {
  if (rank == 0) {
    countContiguous(base, 1, lowB, highB, s);
    return;
  }
  int64_t n = sizes[rank - 1], stride = strides[rank - 1];
  int64_t outer = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    outer *= sizes[d];
  if (n <= 0 || outer <= 0)
    return;
  std::vector<int64_t> idx(rank > 1 ? rank - 1 : 1, 0);
  row.resize(stride == 1 ? 0 : n);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off = 0;
    for (int64_t d = 0; d + 1 < rank; ++d)
      off += idx[d] * strides[d];
    const float *p = base + off;
    if (stride == 1) {
      countContiguous(p, n, lowB, highB, s);
    } else {
      for (int64_t i = 0; i < n; ++i)
        row[i] = p[i * stride];
      countContiguous(row.data(), n, lowB, highB, s);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
  }
}

bool validFormat(int32_t format) {
  return format >= OCTET_FORMAT_I8 && format <= OCTET_FORMAT_F8E5M2;
}

const char *formatName(int32_t format) {
  static const char *const names[] = {"i8", "u8", "i4", "u4", "f8E4M3FN",
                                      "f8E5M2"};
  return validFormat(format) ? names[format] : "?";
}

void writeJsonString(FILE *f, const std::string &s) {
  std::fputc('"', f);
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      std::fprintf(f, "\\%c", c);
    else if (c < 0x20)
      std::fprintf(f, "\\u%04x", c);
    else
      std::fputc(c, f);
  }
  std::fputc('"', f);
}

/// %.9g, which round-trips an f32; JSON has no inf: null.
void writeJsonFloat(FILE *f, double v) {
  if (std::isfinite(v))
    std::fprintf(f, "%.9g", v);
  else
    std::fputs("null", f);
}

} // namespace

extern "C" {

OCTET_RUNTIME_EXPORT void octet_monitor_quantize(
    int64_t rank, const void *descriptor, int64_t nameRank,
    const void *nameDescriptor, float scale, int32_t zp, int32_t qmin,
    int32_t qmax, int32_t format) {
  if (!descriptor || !nameDescriptor || nameRank != 1 || rank < 0 ||
      !validFormat(format))
    return;
  const auto *nd = static_cast<const Descriptor *>(nameDescriptor);
  const char *chars = static_cast<const char *>(nd->aligned) + nd->offset;
  std::string name(chars, strnlen(chars, nd->sizesAndStrides[0]));

  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto [it, inserted] = st.index.try_emplace(name, st.entries.size());
  if (inserted) {
    Entry e{};
    e.name = name;
    e.format = format;
    e.scale = scale;
    e.zp = zp;
    e.qmin = qmin;
    e.qmax = qmax;
    computeBounds(e);
    st.entries.push_back(e);
  }
  Entry &e = st.entries[it->second];
  e.stats.calls += 1;
  const auto *d = static_cast<const Descriptor *>(descriptor);
  const float *base = static_cast<const float *>(d->aligned) + d->offset;
  std::vector<float> row;
  countStrided(base, d->sizesAndStrides, d->sizesAndStrides + rank, rank,
               e.lowBound, e.highBound, e.stats, row);
}

OCTET_RUNTIME_EXPORT int64_t octet_monitor_count(void) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  return static_cast<int64_t>(st.entries.size());
}

OCTET_RUNTIME_EXPORT int32_t octet_monitor_get(int64_t i,
                                               octet_monitor_stats *out) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!out || i < 0 || i >= static_cast<int64_t>(st.entries.size()))
    return 1;
  const Entry &e = st.entries[i];
  *out = e.stats;
  std::snprintf(out->name, sizeof(out->name), "%s", e.name.c_str());
  out->format = e.format;
  out->scale = e.scale;
  out->zero_point = e.zp;
  out->qmin = e.qmin;
  out->qmax = e.qmax;
  out->low_bound = e.lowBound;
  out->high_bound = e.highBound;
  return 0;
}

OCTET_RUNTIME_EXPORT void octet_monitor_reset(void) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  for (Entry &e : st.entries)
    e.stats = octet_monitor_stats{};
}

OCTET_RUNTIME_EXPORT int32_t octet_monitor_write_json(const char *path) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  FILE *f = path ? std::fopen(path, "w") : nullptr;
  if (!f)
    return 1;
  std::fputs("{\n \"format\": \"octet-monitor\",\n \"version\": 1,\n"
             " \"layers\": [",
             f);
  for (size_t i = 0; i < st.entries.size(); ++i) {
    const Entry &e = st.entries[i];
    const octet_monitor_stats &s = e.stats;
    bool fp8 = e.format >= OCTET_FORMAT_F8E4M3FN;
    // The representable range in real units.
    double lo = fp8 ? -double(fp8MaxFinite(StorageFormat(e.format))) * e.scale
                    : double(e.qmin - e.zp) * e.scale;
    double hi = fp8 ? double(fp8MaxFinite(StorageFormat(e.format))) * e.scale
                    : double(e.qmax - e.zp) * e.scale;
    int64_t clipped = s.clipped_low + s.clipped_high;
    std::fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
    writeJsonString(f, e.name);
    std::fprintf(f, ", \"format\": \"%s\", \"scale\": ", formatName(e.format));
    writeJsonFloat(f, e.scale);
    std::fprintf(f, ", \"zero_point\": %d, \"qmin\": %d, \"qmax\": %d",
                 e.zp, e.qmin, e.qmax);
    std::fputs(", \"range\": [", f);
    writeJsonFloat(f, lo);
    std::fputs(", ", f);
    writeJsonFloat(f, hi);
    std::fputs("], \"clip_below\": ", f);
    writeJsonFloat(f, e.lowBound);
    std::fputs(", \"clip_from\": ", f);
    writeJsonFloat(f, e.highBound);
    std::fprintf(f,
                 ",\n   \"calls\": %lld, \"values\": %lld, \"clipped\": %lld,"
                 " \"clipped_low\": %lld, \"clipped_high\": %lld, "
                 "\"nan\": %lld, \"infinite\": %lld, \"clip_rate\": ",
                 (long long)s.calls, (long long)s.values, (long long)clipped,
                 (long long)s.clipped_low, (long long)s.clipped_high,
                 (long long)s.nan, (long long)s.infinite);
    writeJsonFloat(f, s.values ? double(clipped) / double(s.values) : 0.0);
    std::fputs(", \"absmax\": ", f);
    writeJsonFloat(f, s.absmax);
    std::fputs(", \"absmax_over_range\": ", f);
    double top = std::fmax(std::fabs(lo), std::fabs(hi));
    writeJsonFloat(f, top > 0 ? s.absmax / top : 0.0);
    std::fputs("}", f);
  }
  std::fputs("\n ]\n}\n", f);
  return std::fclose(f) == 0 ? 0 : 1;
}

} // extern "C"
