//===- WeightQuantizer.cpp - The weight quantization kernel ---------------===//
//
// Part of octet-quantize-weights: quantizes one weight's values under a
// #octet.scheme. Chooses each parameter group's clip range (absmax,
// percentile or MSE search, all from octet/Runtime/Numerics.h), computes the
// codes, and measures what the report shows (SQNR, error histogram, clip
// thresholds and the clip trade-off curve). Work is split into fixed chunks
// merged in order, so the results do not depend on the number of threads.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "octet/Dialect/Octet/IR/OctetNumerics.h"
#include "octet/Runtime/NumericsRow.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <optional>

namespace mlir::octet::weight_quant {

namespace {

//===----------------------------------------------------------------------===//
// Parameter groups
//===----------------------------------------------------------------------===//

/// Ratios of the clip-threshold curve in the report.
constexpr int kCurvePoints = 24;
/// Elements sampled (evenly strided) for the curve.
constexpr int64_t kCurveSamples = 16384;

/// Enumerates the element indices of parameter group `p`.
struct GroupLayout {
  Granularity kind;
  int64_t numElements = 1, outer = 1, dim = 1, inner = 1, group = 1;
  GroupLayout(SchemeAttr scheme, ArrayRef<int64_t> shape)
      : kind(scheme.getGranularity()) {
    for (int64_t d : shape)
      numElements *= d;
    if (kind == Granularity::per_tensor)
      return;
    int64_t axis = scheme.getAxis();
    dim = shape[axis];
    for (int64_t d : shape.take_front(axis))
      outer *= d;
    for (int64_t d : shape.drop_front(axis + 1))
      inner *= d;
    if (kind == Granularity::per_group)
      group = scheme.getGroupSize();
  }
  int64_t numGroups() const {
    switch (kind) {
    case Granularity::per_tensor:
      return 1;
    case Granularity::per_axis:
      return dim;
    case Granularity::per_group:
      return outer * (dim / group) * inner;
    }
    return 1;
  }
  int64_t groupElements() const {
    switch (kind) {
    case Granularity::per_tensor:
      return numElements;
    case Granularity::per_axis:
      return outer * inner;
    case Granularity::per_group:
      return group;
    }
    return numElements;
  }
  template <typename Fn> void forEach(int64_t p, Fn &&fn) const {
    switch (kind) {
    case Granularity::per_tensor:
      for (int64_t i = 0; i < numElements; ++i)
        fn(i);
      return;
    case Granularity::per_axis:
      for (int64_t o = 0; o < outer; ++o) {
        int64_t base = (o * dim + p) * inner;
        for (int64_t in = 0; in < inner; ++in)
          fn(base + in);
      }
      return;
    case Granularity::per_group: {
      int64_t groupsPerRow = (dim / group) * inner;
      int64_t o = p / groupsPerRow, rem = p % groupsPerRow;
      int64_t cg = rem / inner, in = rem % inner;
      for (int64_t c = cg * group, e = c + group; c < e; ++c)
        fn((o * dim + c) * inner + in);
      return;
    }
    }
  }
};

/// Walks elements in memory order and tracks the parameter index of each
/// without dividing per element (64-bit divisions dominate otherwise).
struct ParamCursor {
  const GroupLayout &l;
  int64_t in = 0, c = 0, o = 0, cIn = 0, cg = 0;
  int64_t param = 0;
  ParamCursor(const GroupLayout &layout, int64_t i) : l(layout) {
    if (l.kind == Granularity::per_tensor)
      return;
    in = i % l.inner;
    c = (i / l.inner) % l.dim;
    o = i / (l.inner * l.dim);
    cIn = c % l.group;
    cg = c / l.group;
    update();
  }
  void update() {
    if (l.kind == Granularity::per_axis)
      param = c;
    else if (l.kind == Granularity::per_group)
      param = (o * (l.dim / l.group) + cg) * l.inner + in;
  }
  void next() {
    if (l.kind == Granularity::per_tensor)
      return;
    if (++in == l.inner) {
      in = 0;
      if (++cIn == l.group) {
        cIn = 0;
        ++cg;
      }
      if (++c == l.dim) {
        c = cIn = cg = 0;
        ++o;
      }
      update();
    } else if (l.kind == Granularity::per_group) {
      ++param;
    }
  }
};

/// One weight's scheme, unpacked for the steps of quantizeWeight.
struct Kernel {
  MLIRContext *ctx;
  const Config &cfg;
  GroupLayout layout;
  num::StorageFormat format;
  num::IntRange range;
  bool symmetric, saturate, skipNonFinite;
  /// E8M0 scales (MXFP8): every group's scale by the MX rule.
  bool e8m0;
  /// Two-level E4M3 scales (NVFP4, NF4 with double-quantized scales):
  /// every group's scale by e4m3Clip with the scheme's global scale and
  /// the format's largest magnitude.
  bool e4m3;
  float globalScale, e4m3Target;

  Kernel(MLIRContext *ctx, const Config &cfg, SchemeAttr scheme,
         ArrayRef<int64_t> shape)
      : ctx(ctx), cfg(cfg), layout(scheme, shape),
        format(toNumerics(scheme.getFormat())), range{scheme.getQmin(),
                                                      scheme.getQmax()},
        symmetric(scheme.isFloat() || scheme.getSymmetric()),
        saturate(scheme.getSaturate()), skipNonFinite(cfg.nonfiniteClip),
        e8m0(scheme.hasE8M0Scales()), e4m3(scheme.hasE4M3Scales()),
        globalScale(scheme.getGlobalScale()),
        e4m3Target(num::symmetricTarget(format, range)) {}
};

/// Elements per step of the row kernels: the values, reference values,
/// reconstructions and per-element parameters of one step stay in L2.
constexpr int64_t kRowBlock = 4096;

/// The row kernels of octet/Runtime/NumericsRow.h, compiled for the
/// baseline ISA and for AVX2, picked once for the running CPU. Same results
/// either way (the AVX2 versions are the same element-wise operations).
struct RowKernels {
  void (*quantizeInt)(const float *, int64_t, const float *, const int32_t *,
                      num::IntRange, uint8_t, uint8_t *, float *);
  void (*quantizeIntUniform)(const float *, int64_t, const float *,
                             const int32_t *, num::IntRange, uint8_t,
                             uint8_t *, float *);
  void (*errors)(const float *, const float *, int64_t, const float *,
                 num::RowErrors &);
  void (*errorsUniform)(const float *, const float *, int64_t, const float *,
                        num::RowErrors &);
  void (*minMax)(const float *, int64_t, float &, float &);
  void (*minMaxUpdate)(const float *, int64_t, float *, float *);
  void (*quantizeFp8)(const float *, int64_t, const float *,
                      num::StorageFormat, bool, bool, const num::Fp8Table &,
                      uint8_t *, float *);
  void (*quantizeFp8Uniform)(const float *, int64_t, const float *,
                             num::StorageFormat, bool, bool,
                             const num::Fp8Table &, uint8_t *, float *);
};

#define OCTET_ROW_KERNELS(SUFFIX, ATTR, ERRORS)                               \
  ATTR void quantizeIntRow##SUFFIX(const float *x, int64_t n,               \
                                   const float *s, const int32_t *z,        \
                                   num::IntRange r, uint8_t m, uint8_t *c,  \
                                   float *h) {                              \
    num::quantizeIntRow<true>(x, n, s, z, r, m, c, h);                      \
  }                                                                         \
  ATTR void quantizeIntUniform##SUFFIX(const float *x, int64_t n,           \
                                       const float *s, const int32_t *z,    \
                                       num::IntRange r, uint8_t m,          \
                                       uint8_t *c, float *h) {              \
    num::quantizeIntRow<false>(x, n, s, z, r, m, c, h);                     \
  }                                                                         \
  ATTR void errorRow##SUFFIX(const float *x, const float *h, int64_t n,     \
                             const float *s, num::RowErrors &e) {           \
    num::ERRORS<true>(x, h, n, s, e);                                       \
  }                                                                         \
  ATTR void errorUniform##SUFFIX(const float *x, const float *h, int64_t n, \
                                 const float *s, num::RowErrors &e) {       \
    num::ERRORS<false>(x, h, n, s, e);                                      \
  }                                                                         \
  ATTR void minMaxRow##SUFFIX(const float *x, int64_t n, float &lo,         \
                              float &hi) {                                  \
    num::minMaxRow<true>(x, n, lo, hi);                                     \
  }                                                                         \
  ATTR void minMaxUpdate##SUFFIX(const float *x, int64_t n, float *lo,      \
                                 float *hi) {                               \
    num::minMaxUpdate<true>(x, n, lo, hi);                                  \
  }                                                                         \
  ATTR void quantizeFp8Row##SUFFIX(                                         \
      const float *x, int64_t n, const float *s, num::StorageFormat f,      \
      bool sat, bool nanZero, const num::Fp8Table &t, uint8_t *c,           \
      float *h) {                                                           \
    num::quantizeFp8Row<true>(x, n, s, f, sat, nanZero, t, c, h);           \
  }                                                                         \
  ATTR void quantizeFp8Uniform##SUFFIX(                                     \
      const float *x, int64_t n, const float *s, num::StorageFormat f,      \
      bool sat, bool nanZero, const num::Fp8Table &t, uint8_t *c,           \
      float *h) {                                                           \
    num::quantizeFp8Row<false>(x, n, s, f, sat, nanZero, t, c, h);          \
  }

OCTET_ROW_KERNELS(Base, , accumulateErrorRow)
#ifdef OCTET_NUMERICS_ROW_AVX2
OCTET_ROW_KERNELS(Avx2, __attribute__((target("avx2"))),
                  accumulateErrorRowAvx2)
#endif
#undef OCTET_ROW_KERNELS

const RowKernels &rowKernels() {
  static const RowKernels base = {quantizeIntRowBase, quantizeIntUniformBase,
                                  errorRowBase,       errorUniformBase,
                                  minMaxRowBase,      minMaxUpdateBase,
                                  quantizeFp8RowBase, quantizeFp8UniformBase};
#ifdef OCTET_NUMERICS_ROW_AVX2
  static const RowKernels avx2 = {quantizeIntRowAvx2, quantizeIntUniformAvx2,
                                  errorRowAvx2,       errorUniformAvx2,
                                  minMaxRowAvx2,      minMaxUpdateAvx2,
                                  quantizeFp8RowAvx2, quantizeFp8UniformAvx2};
  static const bool hasAvx2 = __builtin_cpu_supports("avx2");
  if (hasAvx2)
    return avx2;
#endif
  return base;
}

/// Walks [begin, end) in memory order as runs of one parameter group
/// (fn(i, len, p, false): elements i..i+len-1 all use group p) or of
/// consecutive groups (fn(i, len, p, true): element i + j uses group
/// p + j). No division per run.
template <typename Fn>
void forEachRun(const GroupLayout &l, int64_t begin, int64_t end, Fn &&fn) {
  if (begin >= end)
    return;
  if (l.kind == Granularity::per_tensor) {
    fn(begin, end - begin, int64_t(0), false);
    return;
  }
  const bool perGroup = l.kind == Granularity::per_group;
  const int64_t groupsPerRow = l.dim / l.group;
  int64_t in = begin % l.inner;
  int64_t c = (begin / l.inner) % l.dim;
  int64_t o = begin / (l.inner * l.dim);
  int64_t cIn = c % l.group, cg = c / l.group;
  for (int64_t i = begin; i < end;) {
    int64_t len, p;
    bool consecutive;
    if (l.inner == 1) {
      if (perGroup) {
        len = l.group - cIn;
        p = o * groupsPerRow + cg;
        consecutive = false;
      } else {
        len = l.dim - c;
        p = c;
        consecutive = true;
      }
    } else {
      len = l.inner - in;
      p = perGroup ? (o * groupsPerRow + cg) * l.inner + in : c;
      consecutive = perGroup;
    }
    len = std::min(len, end - i);
    fn(i, len, p, consecutive);
    i += len;
    // Advance the coordinates by len elements.
    int64_t steps; // how many positions c moves
    if (l.inner == 1) {
      steps = len;
    } else {
      in += len;
      steps = in == l.inner ? 1 : 0;
      if (steps)
        in = 0;
    }
    if (!steps)
      continue;
    c += steps;
    if (perGroup) {
      cIn += steps;
      if (cIn == l.group) {
        cIn = 0;
        ++cg;
      }
    }
    if (c == l.dim) {
      c = cIn = cg = 0;
      ++o;
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Clip ranges
//===----------------------------------------------------------------------===//

/// Each group's absmax / [min, max] of its finite values (NaN and +-inf are
/// left out: quantizeToAttrs rejects a weight with non-finite values unless
/// nonfinite=clip, which leaves them out of the ranges). Parallel over
/// disjoint sets of groups (no merging, except per-tensor), with the row
/// kernels; min and max are exact, so the order does not matter.
static std::vector<num::RangeStats> groupStats(const Kernel &k,
                                               const F32Runs &src) {
  const RowKernels &rk = rowKernels();
  const GroupLayout &l = k.layout;
  const int64_t n = l.numElements;
  const int64_t groups = l.numGroups();
  std::vector<float> mn(groups, 0.0f), mx(groups, 0.0f);
  auto buffer = [] {
    thread_local std::vector<float> buf;
    buf.resize(kRowBlock);
    return buf.data();
  };
  // Min/max of the elements [i, i + len) into (lo, hi).
  auto reduce = [&](int64_t i, int64_t len, float &lo, float &hi) {
    float *buf = buffer();
    for (int64_t j = 0; j < len; j += kRowBlock) {
      int64_t m = std::min(kRowBlock, len - j);
      rk.minMax(src.get(i + j, m, buf), m, lo, hi);
    }
  };
  // Element-wise into lo[0..len), hi[0..len).
  auto update = [&](int64_t i, int64_t len, float *lo, float *hi) {
    float *buf = buffer();
    for (int64_t j = 0; j < len; j += kRowBlock) {
      int64_t m = std::min(kRowBlock, len - j);
      rk.minMaxUpdate(src.get(i + j, m, buf), m, lo + j, hi + j);
    }
  };
  switch (l.kind) {
  case Granularity::per_tensor: {
    int64_t chunks = numChunks(n);
    std::vector<float> cmn(chunks, 0.0f), cmx(chunks, 0.0f);
    parallelFor(k.ctx, 0, chunks, [&](size_t c) {
      int64_t begin = c * kChunk;
      reduce(begin, std::min<int64_t>(n, begin + kChunk) - begin, cmn[c],
             cmx[c]);
    });
    for (int64_t c = 0; c < chunks; ++c) {
      mn[0] = std::min(mn[0], cmn[c]);
      mx[0] = std::max(mx[0], cmx[c]);
    }
    break;
  }
  case Granularity::per_axis: {
    if (l.inner == 1) {
      // Channels along the last axis: tasks own column blocks and walk
      // every row.
      constexpr int64_t kCols = 512;
      int64_t tasks = (l.dim + kCols - 1) / kCols;
      parallelFor(k.ctx, 0, tasks, [&](size_t t) {
        int64_t c0 = t * kCols, w = std::min(kCols, l.dim - c0);
        for (int64_t o = 0; o < l.outer; ++o)
          update(o * l.dim + c0, w, &mn[c0], &mx[c0]);
      });
    } else {
      // Each channel is `outer` contiguous runs of `inner` elements.
      int64_t per = std::max<int64_t>(1, kChunk / (l.inner * l.outer));
      int64_t tasks = (l.dim + per - 1) / per;
      parallelFor(k.ctx, 0, tasks, [&](size_t t) {
        int64_t c0 = t * per, c1 = std::min(l.dim, c0 + per);
        for (int64_t c = c0; c < c1; ++c)
          for (int64_t o = 0; o < l.outer; ++o)
            reduce((o * l.dim + c) * l.inner, l.inner, mn[c], mx[c]);
      });
    }
    break;
  }
  case Granularity::per_group: {
    // Blocks (outer index, group index) are contiguous (group x inner
    // elements) and own their groups.
    int64_t blocks = l.outer * (l.dim / l.group);
    int64_t blockElems = l.group * l.inner;
    int64_t per = std::max<int64_t>(1, kChunk / blockElems);
    int64_t tasks = (blocks + per - 1) / per;
    parallelFor(k.ctx, 0, tasks, [&](size_t t) {
      int64_t b0 = t * per, b1 = std::min(blocks, b0 + per);
      for (int64_t b = b0; b < b1; ++b) {
        int64_t base = b * blockElems;
        if (l.inner == 1) {
          reduce(base, l.group, mn[b], mx[b]);
          continue;
        }
        float *lo = &mn[b * l.inner], *hi = &mx[b * l.inner];
        for (int64_t cc = 0; cc < l.group; ++cc)
          update(base + cc * l.inner, l.inner, lo, hi);
      }
    });
    break;
  }
  }
  std::vector<num::RangeStats> st(groups);
  for (int64_t g = 0; g < groups; ++g) {
    st[g].minV = mn[g];
    st[g].maxV = mx[g];
    st[g].absmax = std::max(-mn[g], mx[g]);
  }
  return st;
}

/// channel-block=B: each group's range becomes that of its block of B
/// output channels (the same groups along K; the last block may be
/// shorter), so the channels of a block share the group's scale:
/// DeepSeek-V3's 128 x 128 weight blocks. `st` is per_group on axis
/// `axis` of a 2-D weight, whose channels are the other axis.
static void mergeChannelBlocks(const GroupLayout &l, int64_t axis,
                               int64_t block,
                               std::vector<num::RangeStats> &st) {
  const int64_t groupsPerRow = l.dim / l.group;
  const bool channelInner = axis == 0; // [K, N]: groups p = cg * N + ch
  const int64_t channels = channelInner ? l.inner : l.outer;
  auto index = [&](int64_t cg, int64_t ch) {
    return channelInner ? cg * l.inner + ch : ch * groupsPerRow + cg;
  };
  for (int64_t cg = 0; cg < groupsPerRow; ++cg)
    for (int64_t c0 = 0; c0 < channels; c0 += block) {
      int64_t c1 = std::min(channels, c0 + block);
      num::RangeStats m;
      for (int64_t ch = c0; ch < c1; ++ch) {
        const num::RangeStats &s = st[index(cg, ch)];
        m.minV = std::min(m.minV, s.minV);
        m.maxV = std::max(m.maxV, s.maxV);
        m.absmax = std::max(m.absmax, s.absmax);
      }
      for (int64_t ch = c0; ch < c1; ++ch)
        st[index(cg, ch)] = m;
    }
}

/// clip=absmax: each group's range is its absmax / [min, max]; clip=minmax:
/// symmetric integer groups use both ends of the code range.
static void absmaxClips(const Kernel &k, ArrayRef<num::RangeStats> st,
                        std::vector<num::ClipResult> &clips) {
  const bool minmax = k.cfg.clip == ClipKind::MinMax;
  for (size_t g = 0; g < st.size(); ++g)
    clips[g] = k.e8m0   ? num::e8m0Clip(st[g], k.format, k.cfg.mxCeil)
               : k.e4m3 ? num::e4m3Clip(st[g], k.globalScale, k.e4m3Target)
               : minmax
                   ? num::minmaxClip(st[g], k.format, k.range, k.symmetric)
                   : num::absmaxClip(st[g], k.format, k.range, k.symmetric);
}

/// Whether `clip` needs only each group's range (no search).
static bool rangeOnly(ClipKind clip) {
  return clip == ClipKind::AbsMax || clip == ClipKind::MinMax;
}

/// clip=percentile:P and clip=mse, which need each group's values together.
template <typename Read>
static void searchClips(const Kernel &k, Read read,
                        std::vector<num::ClipResult> &clips) {
  const int64_t groups = k.layout.numGroups();
  auto gather = [&](int64_t g, std::vector<float> &buf) {
    buf.clear();
    k.layout.forEach(g, [&](int64_t i) {
      float x = read(i);
      if (!k.skipNonFinite || std::isfinite(x))
        buf.push_back(x);
    });
  };
  if (groups == 1 && k.cfg.clip == ClipKind::Mse) {
    // One large group: evaluate the candidate thresholds in parallel.
    std::vector<float> buf;
    gather(0, buf);
    num::RangeStats s;
    for (float x : buf)
      s.add(x);
    clips[0] = num::mseClipWith(
        buf.data(), buf.size(), s, k.format, k.range, k.symmetric, k.saturate,
        [&](unsigned steps, auto eval) {
          parallelFor(k.ctx, 0, steps, [&](size_t j) { eval(j); });
        });
    return;
  }
  parallelFor(k.ctx, 0, groups, [&](size_t g) {
    thread_local std::vector<float> buf;
    gather(g, buf);
    if (k.cfg.clip == ClipKind::Percentile) {
      clips[g] = num::percentileClip(buf.data(), buf.size(), k.cfg.percentile,
                                     k.format, k.range, k.symmetric);
      return;
    }
    num::RangeStats s;
    for (float x : buf)
      s.add(x);
    clips[g] = num::mseClip(buf.data(), buf.size(), s, k.format, k.range,
                            k.symmetric, k.saturate);
  });
}

/// The clip thresholds and ratios of the report: min, max and mean over the
/// groups.
static void summarizeClips(ArrayRef<num::ClipResult> clips, LayerStats &stats) {
  const int64_t groups = clips.size();
  double tsum = 0, rsum = 0;
  stats.thresholdMin = stats.ratioMin = std::numeric_limits<double>::infinity();
  stats.thresholdMax = stats.ratioMax =
      -std::numeric_limits<double>::infinity();
  for (const num::ClipResult &c : clips) {
    double t = std::max(std::fabs(c.lo), std::fabs(c.hi));
    stats.thresholdMin = std::min(stats.thresholdMin, t);
    stats.thresholdMax = std::max(stats.thresholdMax, t);
    stats.ratioMin = std::min<double>(stats.ratioMin, c.ratio);
    stats.ratioMax = std::max<double>(stats.ratioMax, c.ratio);
    tsum += t;
    rsum += c.ratio;
  }
  stats.thresholdMean = tsum / groups;
  stats.ratioMean = rsum / groups;
}

/// The clip trade-off curve for the report: each group clipped at ratio r of
/// its own range (`full`: every group's finite range), SQNR on an evenly
/// strided sample.
template <typename Read>
static void clipCurve(const Kernel &k, Read read,
                      ArrayRef<num::RangeStats> full, LayerStats &stats) {
  const GroupLayout &layout = k.layout;
  const int64_t n = layout.numElements;
  int64_t stride = std::max<int64_t>(1, n / kCurveSamples);
  std::vector<std::pair<int64_t, float>> sample;
  for (int64_t i = 0; i < n; i += stride) {
    float x = read(i);
    if (std::isfinite(x))
      sample.emplace_back(ParamCursor(layout, i).param, x);
  }
  stats.clipCurve.resize(kCurvePoints);
  parallelFor(k.ctx, 0, kCurvePoints, [&](size_t p) {
    double r = 0.25 + 0.75 * static_cast<double>(p) / (kCurvePoints - 1);
    float rf = static_cast<float>(r);
    num::SqnrAccumulator acc;
    // Parameters of the sampled groups only (per-group schemes have many
    // more groups than samples).
    for (const auto &[g, x] : sample) {
      num::QuantParams params =
          k.e8m0   ? num::QuantParams{num::e8m0Scale(full[g].absmax * rf,
                                                     k.format, k.cfg.mxCeil),
                                    0}
          : k.e4m3 ? num::QuantParams{num::e4m3BlockScale(full[g].absmax * rf,
                                                          k.globalScale,
                                                          k.e4m3Target),
                                      0}
          : k.symmetric
              ? num::symmetricParams(full[g].absmax * rf, k.format, k.range)
              : num::asymmetricParams(full[g].minV * rf, full[g].maxV * rf,
                                      k.range);
      acc.add(x, num::fakeQuantize(x, params, k.format, k.range, k.saturate));
    }
    stats.clipCurve[p] = {r, acc.db()};
  });
}

//===----------------------------------------------------------------------===//
// Codes and errors
//===----------------------------------------------------------------------===//

/// Writes the codes of the values `src` and measures the reconstruction
/// error against `reference` (the same values, except after GPTQ's error
/// feedback), in fixed chunks merged in order, each in steps of kRowBlock
/// elements through the row kernels.
static void writeCodes(const Kernel &k, SchemeAttr scheme, const F32Runs &src,
                       const F32Runs &reference,
                       ArrayRef<num::ClipResult> clips, uint8_t *codes,
                       LayerStats &stats) {
  const RowKernels &rk = rowKernels();
  const GroupLayout &layout = k.layout;
  const int64_t n = layout.numElements;
  const num::StorageFormat format = k.format;
  const num::IntRange range = k.range;
  const bool saturate = k.saturate;
  const bool skipNonFinite = k.skipNonFinite;
  const bool sameRef = &src == &reference;
  const bool uniform = layout.kind == Granularity::per_tensor;
  const bool fp8 = scheme.isFloat();
  const bool nf4 = scheme.isNf4();
  const uint8_t mask = scheme.getStorageBits() == 4 ? 0x0f : 0xff;
  std::optional<num::Fp8Table> fp8Table;
  if (fp8)
    fp8Table.emplace(format);
  // Every group's parameters as arrays.
  const int64_t groups = clips.size();
  std::vector<float> groupScale(groups);
  std::vector<int32_t> groupZp(groups);
  for (int64_t g = 0; g < groups; ++g) {
    groupScale[g] = clips[g].params.scale;
    groupZp[g] = clips[g].params.zeroPoint;
  }
  int64_t chunks = numChunks(n);
  std::vector<num::RowErrors> parts(chunks);
  parallelFor(k.ctx, 0, chunks, [&](size_t c) {
    struct Buffers {
      std::vector<float> x, ref, xhat, scale;
      std::vector<int32_t> zp;
    };
    thread_local Buffers b;
    b.x.resize(kRowBlock);
    b.ref.resize(kRowBlock);
    b.xhat.resize(kRowBlock);
    b.scale.resize(kRowBlock);
    b.zp.resize(kRowBlock);
    num::RowErrors part;
    int64_t cend = std::min<int64_t>(n, (c + 1) * kChunk);
    for (int64_t begin = c * kChunk; begin < cend; begin += kRowBlock) {
      const int64_t len = std::min(kRowBlock, cend - begin);
      const float *x = src.get(begin, len, b.x.data());
      const float *ref = sameRef ? x : reference.get(begin, len, b.ref.data());
      // Each element's parameters (one pair for a per-tensor scheme).
      const float *scale = groupScale.data();
      const int32_t *zp = groupZp.data();
      if (!uniform) {
        float *sc = b.scale.data();
        int32_t *z = b.zp.data();
        forEachRun(layout, begin, begin + len,
                   [&](int64_t i, int64_t m, int64_t p, bool consecutive) {
                     int64_t o = i - begin;
                     if (consecutive) {
                       std::memcpy(sc + o, &groupScale[p], m * sizeof(float));
                       std::memcpy(z + o, &groupZp[p], m * sizeof(int32_t));
                     } else {
                       std::fill(sc + o, sc + o + m, groupScale[p]);
                       std::fill(z + o, z + o + m, groupZp[p]);
                     }
                   });
        scale = sc;
        zp = z;
      }
      uint8_t *out = codes + begin;
      float *xhat = b.xhat.data();
      if (nf4) {
        // NF4: scalar (the table rule has no row kernel); NaN gives the
        // code of 0.0 by the rule itself.
        for (int64_t i = 0; i < len; ++i) {
          const float s = scale[uniform ? 0 : i];
          out[i] = num::encodeNf4(x[i] / s);
          xhat[i] = num::decodeNf4(out[i]) * s;
        }
      } else if (fp8) {
        // nonfinite=clip: NaN quantizes like 0 (FP8 would keep NaN); +-inf
        // saturates.
        (uniform ? rk.quantizeFp8Uniform : rk.quantizeFp8)(
            x, len, scale, format, saturate, skipNonFinite, *fp8Table, out,
            xhat);
      } else {
        // NaN quantizes to the zero point by the integer rule itself.
        (uniform ? rk.quantizeIntUniform : rk.quantizeInt)(
            x, len, scale, zp, range, mask, out, xhat);
      }
      // Non-finite reference values (nonfinite=clip) are not part of the
      // error.
      (uniform ? rk.errorsUniform : rk.errors)(ref, xhat, len, scale, part);
    }
    parts[c] = part;
  });
  for (const num::RowErrors &part : parts)
    part.mergeInto(stats.sqnr, stats.maxAbsError, stats.histogram);
}

//===----------------------------------------------------------------------===//
// GPTQ
//===----------------------------------------------------------------------===//

/// The clip range of one group's values `x` (n of them) under the
/// configured clip method, as searchClips computes it.
static num::ClipResult groupClip(const Kernel &k, float *x, size_t n) {
  if (k.cfg.clip == ClipKind::Percentile)
    return num::percentileClip(x, n, k.cfg.percentile, k.format, k.range,
                               k.symmetric);
  num::RangeStats s;
  for (size_t i = 0; i < n; ++i)
    s.add(x[i]);
  if (k.e8m0)
    return num::e8m0Clip(s, k.format, k.cfg.mxCeil);
  if (k.e4m3)
    return num::e4m3Clip(s, k.globalScale, k.e4m3Target);
  if (k.cfg.clip == ClipKind::Mse)
    return num::mseClip(x, n, s, k.format, k.range, k.symmetric, k.saturate);
  if (k.cfg.clip == ClipKind::MinMax)
    return num::minmaxClip(s, k.format, k.range, k.symmetric);
  return num::absmaxClip(s, k.format, k.range, k.symmetric);
}

/// GPTQ (see the pass description): writes the error-corrected values to
/// `out` (the constant's layout) and, for per-group schemes, each group's
/// clip range computed from the corrected values when the group starts
/// (per-channel and per-tensor `clips` are the original weight's, filled
/// by the caller). Rows (output channels) are independent; tiles of
/// kTile rows share each row of U.
template <typename Read>
static void gptqValues(const Kernel &k, Read read, const GptqJob &job,
                       ArrayRef<int64_t> shape,
                       std::vector<num::ClipResult> &clips,
                       std::vector<float> &out) {
  constexpr int64_t kTile = 8;
  const GptqFactor &f = *job.factor;
  const int64_t kdim = f.dim;
  const int64_t raxis = job.reductionAxis;
  const int64_t rows = shape[1 - raxis];
  // Element (row n, input c) of the constant.
  const int64_t strideRow = raxis == 0 ? 1 : kdim;
  const int64_t strideIn = raxis == 0 ? rows : 1;
  // Per-group scales follow the corrected values when the inputs go in
  // index order; with act-order the groups are static (the original
  // weight's, computed by the caller, like per-channel scales), and so
  // they are with AWQ's clip search (its ranges).
  const bool perGroup = k.layout.kind == Granularity::per_group;
  const bool dynamicGroups = perGroup && !k.cfg.actOrder && !job.staticGroups;
  const int64_t group = perGroup ? k.layout.group : kdim;
  const int64_t *order = f.order.data();
  out.assign(rows * kdim, 0.0f);
  const int64_t tiles = (rows + kTile - 1) / kTile;
  parallelFor(k.ctx, 0, tiles, [&](size_t t) {
    const int64_t r0 = static_cast<int64_t>(t) * kTile;
    const int64_t nr = std::min(kTile, rows - r0);
    std::vector<double> w(nr * kdim);
    std::vector<float> buf(group);
    num::QuantParams p[kTile];
    double err[kTile];
    // w holds the row's inputs in processing order: position c is input
    // order[c].
    for (int64_t r = 0; r < nr; ++r)
      for (int64_t c = 0; c < kdim; ++c) {
        int64_t in = order[c];
        w[r * kdim + c] =
            f.dead[in] ? 0.0 : read((r0 + r) * strideRow + in * strideIn);
      }
    if (!perGroup)
      for (int64_t r = 0; r < nr; ++r)
        p[r] = clips[ParamCursor(k.layout, (r0 + r) * strideRow).param].params;
    for (int64_t c = 0; c < kdim; ++c) {
      if (perGroup && !dynamicGroups)
        for (int64_t r = 0; r < nr; ++r)
          p[r] = clips[ParamCursor(k.layout, (r0 + r) * strideRow +
                                                 order[c] * strideIn)
                           .param]
                     .params;
      if (dynamicGroups && c % group == 0) {
        for (int64_t r = 0; r < nr; ++r) {
          for (int64_t j = 0; j < group; ++j)
            buf[j] = static_cast<float>(w[r * kdim + c + j]);
          int64_t param =
              ParamCursor(k.layout, (r0 + r) * strideRow + c * strideIn).param;
          clips[param] = groupClip(k, buf.data(), group);
          p[r] = clips[param].params;
        }
      }
      const double *__restrict urow = &f.u[c * kdim];
      for (int64_t r = 0; r < nr; ++r) {
        float x = static_cast<float>(w[r * kdim + c]);
        float xhat =
            num::fakeQuantize(x, p[r], k.format, k.range, k.saturate);
        out[(r0 + r) * strideRow + order[c] * strideIn] = x;
        err[r] = (w[r * kdim + c] - static_cast<double>(xhat)) / urow[c];
      }
      for (int64_t r = 0; r < nr; ++r) {
        const double e = err[r];
        if (e == 0.0)
          continue;
        double *__restrict wr = &w[r * kdim];
        for (int64_t j = c + 1; j < kdim; ++j)
          wr[j] -= e * urow[j];
      }
    }
  });
}

//===----------------------------------------------------------------------===//
// AWQ's clip search
//===----------------------------------------------------------------------===//

/// Candidates of the search: ratios k / kAwqClipSteps of the range for k =
/// kAwqClipSteps down to kAwqClipSteps / 2 + 1 (1, 0.95, ..., 0.55: AWQ's
/// max_shrink 0.5 on a grid of 20).
constexpr unsigned kAwqClipSteps = 20;

/// The candidate of AWQ's clip search (ratios 1 ... 0.55 of the range of
/// the values `x`) whose rounding error d gives the smallest d^T H d, `h`
/// the n x n form (row-major, n = x.size()); on a tie the larger range
/// wins. The sums run in a fixed order (`dot`), so the choice does not
/// depend on the thread count.
static num::ClipResult bestAwqClip(const Kernel &k, ArrayRef<float> x,
                                   const double *h) {
  const int64_t n = static_cast<int64_t>(x.size());
  num::RangeStats st;
  for (float v : x)
    st.add(v);
  std::vector<double> d(n);
  num::ClipResult best;
  double bestErr = 0.0;
  for (unsigned step = kAwqClipSteps; step > kAwqClipSteps / 2; --step) {
    num::ClipResult c = num::mseClipCandidate(st, k.format, k.range,
                                              k.symmetric, step, kAwqClipSteps);
    for (int64_t a = 0; a < n; ++a) {
      float xhat =
          num::fakeQuantize(x[a], c.params, k.format, k.range, k.saturate);
      d[a] = static_cast<double>(xhat) - x[a];
    }
    double err = 0.0;
    for (int64_t a = 0; a < n; ++a)
      if (d[a] != 0.0)
        err += d[a] * dot(h + a * n, d.data(), n);
    if (step == kAwqClipSteps || err < bestErr) {
      bestErr = err;
      best = c;
    }
  }
  return best;
}

/// algorithm=awq awq-clip=true, per-group schemes: each group's clip range
/// is the candidate whose rounding error d (over the group's inputs c0 ..
/// c0 + G) gives the smallest d^T H_b d, H_b the group's diagonal block of
/// the scaled input's second moment; on a tie the larger range wins. This
/// is AWQ's auto_clip, whose error sum over tokens of (x_g . d)^2 is the
/// same quadratic form.
template <typename Read>
static void awqClips(const Kernel &k, Read read, const AwqClipJob &job,
                     std::vector<num::ClipResult> &clips) {
  const GroupLayout &l = k.layout;
  const int64_t g = l.group, dim = l.dim;
  const std::vector<double> &h = *job.h;
  parallelFor(k.ctx, 0, l.numGroups(), [&](size_t p) {
    const int64_t groupsPerRow = (dim / g) * l.inner;
    const int64_t c0 = ((static_cast<int64_t>(p) % groupsPerRow) / l.inner) *
                       g;
    std::vector<float> x;
    x.reserve(g);
    l.forEach(p, [&](int64_t i) { x.push_back(read(i)); });
    std::vector<double> hb(g * g);
    for (int64_t a = 0; a < g; ++a)
      for (int64_t b = 0; b < g; ++b)
        hb[a * g + b] = h[(c0 + a) * dim + (c0 + b)] /
                        (static_cast<double>(job.scales[c0 + a]) *
                         job.scales[c0 + b]);
    clips[p] = bestAwqClip(k, x, hb.data());
  });
}

/// algorithm=awq awq-clip=true, per-channel schemes: each output channel's
/// range is the candidate (the same ratios as per group) whose rounding
/// error d over the channel's K inputs gives the smallest d^T H d, H the
/// scaled input's second moment (K x K, shared by every channel); on a tie
/// the larger range wins. Per channel a clip is chosen by what it does to
/// the layer's output, not to the weight's MSE (clip=mse), so the inputs H
/// weighs heavily keep their range.
template <typename Read>
static void awqClipsPerAxis(const Kernel &k, Read read, const AwqClipJob &job,
                            std::vector<num::ClipResult> &clips) {
  const GroupLayout &l = k.layout;
  const int64_t n = l.groupElements();
  const std::vector<double> &h = *job.h;
  if (static_cast<int64_t>(job.scales.size()) != n ||
      static_cast<int64_t>(h.size()) != n * n)
    return;
  std::vector<double> hs(n * n);
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b)
      hs[a * n + b] = h[a * n + b] / (static_cast<double>(job.scales[a]) *
                                      job.scales[b]);
  parallelFor(k.ctx, 0, l.numGroups(), [&](size_t p) {
    std::vector<float> x;
    x.reserve(n);
    l.forEach(p, [&](int64_t i) { x.push_back(read(i)); });
    clips[p] = bestAwqClip(k, x, hs.data());
  });
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Quantizes `w` (shape `shape`) under `scheme` with the configured clip
/// method. Writes one code per byte to `codes` (i4/u4: the code's low nibble)
/// and the parameters to `scales` / `zeroPoints` (may be null for symmetric
/// schemes).
static void quantizeWeight(MLIRContext *ctx, const WeightData &w,
                           ArrayRef<int64_t> shape, SchemeAttr scheme,
                           const Config &cfg, const std::optional<GptqJob> &gptq,
                           const std::optional<AwqClipJob> &awqClip,
                           uint8_t *codes, float *scales, int32_t *zeroPoints,
                           LayerStats &stats) {
  Kernel k(ctx, cfg, scheme, shape);
  const int64_t groups = k.layout.numGroups();
  std::vector<num::ClipResult> clips(groups);
  const F32Runs src(w);
  // Every group's finite range (for clip=absmax/minmax and the report);
  // with channel-block, every block's.
  std::vector<num::RangeStats> ranges = groupStats(k, src);
  if (cfg.channelBlock > 0 && k.layout.kind == Granularity::per_group &&
      shape.size() == 2)
    mergeChannelBlocks(k.layout, scheme.getAxis(), cfg.channelBlock, ranges);
  withReader(w, [&](auto read) {
    // 1. Parameters of every group (GPTQ per-group: from the corrected
    // values, in gptqValues).
    if (rangeOnly(cfg.clip))
      absmaxClips(k, ranges, clips);
    else
      searchClips(k, read, clips);
    if (awqClip && k.layout.kind == Granularity::per_group)
      awqClips(k, read, *awqClip, clips);
    else if (awqClip && k.layout.kind == Granularity::per_axis)
      awqClipsPerAxis(k, read, *awqClip, clips);
    std::vector<float> corrected;
    if (gptq)
      gptqValues(k, read, *gptq, shape, clips, corrected);
    summarizeClips(clips, stats);
    for (int64_t g = 0; g < groups; ++g) {
      scales[g] = clips[g].params.scale;
      if (zeroPoints)
        zeroPoints[g] = clips[g].params.zeroPoint;
    }
    clipCurve(k, read, ranges, stats);
    // 2. Codes and errors.
    if (gptq)
      writeCodes(k, scheme, F32Runs(corrected.data()), src, clips, codes,
                 stats);
    else
      writeCodes(k, scheme, src, src, clips, codes, stats);
  });
}

std::vector<float> fakeQuantize(MLIRContext *ctx, const Config &cfg,
                                SchemeAttr scheme, ArrayRef<int64_t> shape,
                                const float *values) {
  Kernel k(ctx, cfg, scheme, shape);
  std::vector<num::ClipResult> clips(k.layout.numGroups());
  auto read = [values](int64_t i) { return values[i]; };
  if (rangeOnly(cfg.clip))
    absmaxClips(k, groupStats(k, F32Runs(values)), clips);
  else
    searchClips(k, read, clips);
  const int64_t n = k.layout.numElements;
  std::vector<float> out(n);
  parallelFor(ctx, 0, numChunks(n), [&](size_t c) {
    int64_t begin = c * kChunk;
    int64_t end = std::min<int64_t>(n, begin + kChunk);
    ParamCursor cur(k.layout, begin);
    for (int64_t i = begin; i < end; ++i, cur.next()) {
      const num::QuantParams p = clips[cur.param].params;
      out[i] = num::fakeQuantize(values[i], p, k.format, k.range, k.saturate);
    }
  });
  return out;
}

//===----------------------------------------------------------------------===//
// The constants that replace a weight
//===----------------------------------------------------------------------===//

namespace {
/// Where the codes and parameters go: a buffer owned by a resource blob
/// (dense_resource results) or by a vector (dense results).
struct OutBuffer {
  std::optional<AsmResourceBlob> blob;
  std::vector<char> vec;
  char *data() { return blob ? blob->getMutableData().data() : vec.data(); }
  void allocate(size_t bytes, bool asBlob) {
    if (asBlob)
      blob = HeapAsmResourceBlob::allocate(std::max<size_t>(bytes, 1), 64);
    else
      vec.assign(bytes, 0);
  }
};

} // namespace

static std::string attrString(Attribute attr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << attr;
  return s;
}

FailureOr<QuantizedAttrs> quantizeToAttrs(MLIRContext *ctx, const Config &cfg,
                                          Operation *contraction,
                                          const std::string &name,
                                          const WeightJob &job,
                                          LayerRecord &rec) {
  Builder builder(ctx);
  RankedTensorType type = job.type;
  SchemeAttr scheme = job.scheme;
  ArrayRef<int64_t> shape = type.getShape();

  // Bad input first.
  if (failed(checkFinite(ctx, contraction, name, job.data, shape,
                         cfg.nonfiniteClip)))
    return failure();
  if (cfg.channelBlock > 0 && shape.size() != 2) {
    contraction->emitError()
        << "octet-quantize-weights: channel-block=" << cfg.channelBlock
        << " needs a 2-D weight (output channels x K); the weight of '"
        << name << "' has rank " << shape.size();
    return failure();
  }

  RankedTensorType scaleType =
      getScaleType(scheme, shape, builder.getF32Type());
  RankedTensorType zpType;
  bool symmetricScheme = scheme.isFloat() || scheme.getSymmetric();
  if (!symmetricScheme)
    zpType = RankedTensorType::get(scaleType.getShape(), builder.getI32Type());
  auto storageType =
      RankedTensorType::get(shape, scheme.getStorageElementType());

  int64_t n = type.getNumElements();
  int64_t numParams = scaleType.getNumElements();
  // 4-bit codes stay `dense`: MLIR's LLVM translation has no conversion
  // for i4 dense_resource constants.
  bool codesAsResource = job.asResource && scheme.getStorageBits() == 8;
  // Scales and zero points are small (at most 1/group-size of the codes)
  // and always `dense`, which every folder and lowering reads.
  OutBuffer codes, scales, zps;
  codes.allocate(n, codesAsResource);
  scales.allocate(numParams * sizeof(float), /*asBlob=*/false);
  if (zpType)
    zps.allocate(numParams * sizeof(int32_t), /*asBlob=*/false);

  quantizeWeight(ctx, job.data, shape, scheme, cfg, job.gptq, job.awqClip,
                 reinterpret_cast<uint8_t *>(codes.data()),
                 reinterpret_cast<float *>(scales.data()),
                 zpType ? reinterpret_cast<int32_t *>(zps.data()) : nullptr,
                 rec.stats);

  rec.shape.assign(shape.begin(), shape.end());
  rec.numElements = n;
  rec.scheme = attrString(scheme);
  rec.granularity = scheme.getGranularityString();
  rec.symmetric = symmetricScheme;
  // The weight as stored (a folded chain is quantized from f32 values).
  rec.bytesBefore =
      static_cast<uint64_t>(n) * (type.getElementTypeBitWidth() / 8);
  rec.codeBytes = scheme.getStorageBits() == 4 ? (n + 1) / 2 : n;
  // f32 scales (and i32 zero points); E8M0 and E4M3 scales are one byte in
  // the formats that define them (the IR holds them as f32), plus NVFP4's
  // f32 global scale.
  // channel-block=B: one scale per block (the IR repeats it over the B
  // channels; a serialized model stores it once).
  int64_t storedParams = numParams;
  if (cfg.channelBlock > 0) {
    int64_t channels = shape[1 - scheme.getAxis()];
    storedParams = numParams / channels *
                   ((channels + cfg.channelBlock - 1) / cfg.channelBlock);
  }
  rec.paramBytes =
      scheme.hasE8M0Scales() || scheme.hasE4M3Scales()
          ? storedParams + (scheme.hasE4M3Scales() ? 4 : 0)
          : storedParams * (zpType ? 8 : 4);
  rec.bytesAfter = rec.codeBytes + rec.paramBytes;

  // Build the constants.
  auto makeAttr = [&](RankedTensorType t, OutBuffer &buf, size_t bytes,
                      StringRef suffix) -> TypedAttr {
    if (buf.blob)
      return DenseResourceElementsAttr::get(t, (job.blobBase + suffix).str(),
                                            std::move(*buf.blob));
    return DenseElementsAttr::getFromRawBuffer(
        t, ArrayRef<char>(buf.data(), bytes));
  };
  QuantizedAttrs attrs;
  attrs.codes = makeAttr(storageType, codes, n, "_q");
  attrs.scales =
      makeAttr(scaleType, scales, numParams * sizeof(float), "_scale");
  if (zpType)
    attrs.zeroPoints =
        makeAttr(zpType, zps, numParams * sizeof(int32_t), "_zp");
  return attrs;
}

} // namespace mlir::octet::weight_quant
