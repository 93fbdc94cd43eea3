//===- Calibration.h - Activation statistics and clip selection -*- C++ -*-===//
//
// Statistics that calibration collects for an observed activation tensor
// (octet-run --calibrate) and the clip thresholds that
// octet-quantize-activations derives from them (minmax, percentile, MSE).
// Header-only, no MLIR dependency.
//
// The histogram covers |x| over [0, absmax] in kHistogramBins equal bins;
// it is filled in a second pass over the calibration batches, once absmax
// is known, so no re-binning is needed.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_CALIBRATION_H
#define OCTET_RUNTIME_CALIBRATION_H

#include "octet/Runtime/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace octet {
namespace calibration {

constexpr int kHistogramBins = 2048;

/// Statistics of one observed tensor over all calibration batches.
struct TensorStats {
  double minV = 0.0, maxV = 0.0; ///< Over finite values; 0 when none.
  double absmax = 0.0;
  uint64_t count = 0;            ///< Finite values seen.
  uint64_t nonFinite = 0;        ///< NaN and +-inf values (ignored).
  std::vector<uint64_t> histogram; ///< |x| in kHistogramBins bins.

  /// First pass: range.
  void addRange(const float *x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      if (!std::isfinite(v)) {
        ++nonFinite;
        continue;
      }
      if (count == 0) {
        minV = maxV = v;
      } else {
        minV = std::min<double>(minV, v);
        maxV = std::max<double>(maxV, v);
      }
      absmax = std::max<double>(absmax, std::fabs(v));
      ++count;
    }
  }

  /// Second pass: histogram of |x| over [0, absmax].
  void addHistogram(const float *x, int64_t n) {
    if (histogram.empty())
      histogram.assign(kHistogramBins, 0);
    if (absmax <= 0.0)
      return;
    double scale = kHistogramBins / absmax;
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      if (!std::isfinite(v))
        continue;
      int64_t b = static_cast<int64_t>(std::fabs(v) * scale);
      histogram[std::min<int64_t>(b, kHistogramBins - 1)] += 1;
    }
  }

  double binWidth() const {
    return histogram.empty() ? 0.0 : absmax / histogram.size();
  }
};

/// The second moment sum_r x_r x_r^T of an activation whose rows x_r are
/// its last dimension (the reduction dimension of the contraction it feeds):
/// GPTQ's Hessian, up to the factor 2. Accumulated in f64 over the upper
/// triangle; rows with a non-finite value are skipped (`skippedRows`).
struct SecondMoment {
  int64_t dim = 0;
  uint64_t rows = 0, skippedRows = 0;
  std::vector<double> sum; ///< dim x dim, row-major; upper triangle filled.

  /// Adds an increment computed by gramUpper over `numRows` finite rows
  /// (and `skipped` non-finite ones).
  void addIncrement(const double *inc, uint64_t numRows, uint64_t skipped) {
    if (sum.empty())
      sum.assign(static_cast<size_t>(dim) * dim, 0.0);
    for (int64_t i = 0; i < dim; ++i)
      for (int64_t j = i; j < dim; ++j)
        sum[i * dim + j] += inc[i * dim + j];
    rows += numRows;
    skippedRows += skipped;
  }
  /// The full symmetric matrix (the lower triangle mirrored).
  std::vector<double> full() const {
    std::vector<double> m(sum);
    for (int64_t i = 0; i < dim; ++i)
      for (int64_t j = 0; j < i; ++j)
        m[i * dim + j] = m[j * dim + i];
    return m;
  }
};

/// Per-channel statistics of an activation whose rows are its last
/// dimension (the input channels of the contraction it feeds): each
/// channel's absmax and sum |x| over the rows, f64, in row order. Rows with
/// a non-finite value are skipped (`skippedRows`). SmoothQuant reads the
/// absmax, AWQ the mean |x|.
struct ChannelStats {
  int64_t dim = 0;
  uint64_t rows = 0, skippedRows = 0;
  std::vector<double> absmax, sumAbs;

  /// Adds the n / dim rows of `x`.
  void add(const float *x, int64_t n) {
    if (absmax.empty()) {
      absmax.assign(dim, 0.0);
      sumAbs.assign(dim, 0.0);
    }
    for (int64_t r = 0; r + dim <= n; r += dim) {
      const float *row = x + r;
      bool finite = true;
      for (int64_t j = 0; j < dim && finite; ++j)
        finite = std::isfinite(row[j]);
      if (!finite) {
        ++skippedRows;
        continue;
      }
      for (int64_t j = 0; j < dim; ++j) {
        double a = std::fabs(static_cast<double>(row[j]));
        absmax[j] = std::max(absmax[j], a);
        sumAbs[j] += a;
      }
      ++rows;
    }
  }
  double meanAbs(int64_t j) const { return rows ? sumAbs[j] / rows : 0.0; }
};

/// Rows [i0, i1) of the upper triangle of X^T X for the `numRows` rows of
/// `x` (f64, `dim` columns each), written to `out` (dim x dim). Four rows of
/// X at a time: out_ij = sum over blocks of 4 rows r of
/// (x_r0i x_r0j + x_r1i x_r1j) + (x_r2i x_r2j + x_r3i x_r3j), in row order
/// (a fixed order: the result does not depend on how [0, dim) is split).
/// Inline so that a caller compiled for AVX2/FMA gets a vectorized copy.
__attribute__((always_inline)) inline void
gramUpper(const double *x, int64_t numRows, int64_t dim, int64_t i0,
          int64_t i1, double *out) {
  for (int64_t i = i0; i < i1; ++i) {
    double *__restrict h = out + i * dim;
    for (int64_t j = i; j < dim; ++j)
      h[j] = 0.0;
    int64_t r = 0;
    for (; r + 4 <= numRows; r += 4) {
      const double *__restrict x0 = x + r * dim, *__restrict x1 = x0 + dim,
                               *__restrict x2 = x1 + dim,
                               *__restrict x3 = x2 + dim;
      const double a0 = x0[i], a1 = x1[i], a2 = x2[i], a3 = x3[i];
      for (int64_t j = i; j < dim; ++j)
        h[j] += (a0 * x0[j] + a1 * x1[j]) + (a2 * x2[j] + a3 * x3[j]);
    }
    for (; r < numRows; ++r) {
      const double *__restrict x0 = x + r * dim;
      const double a0 = x0[i];
      for (int64_t j = i; j < dim; ++j)
        h[j] += a0 * x0[j];
    }
  }
}

/// The smallest threshold t (a bin's upper edge) such that at least
/// `percent` % of the |x| values are <= t.
inline double percentileThreshold(const TensorStats &s, double percent) {
  if (s.histogram.empty() || s.count == 0)
    return s.absmax;
  uint64_t total = 0;
  for (uint64_t c : s.histogram)
    total += c;
  double need = total * std::min(100.0, std::max(0.0, percent)) / 100.0;
  uint64_t acc = 0;
  for (size_t b = 0; b < s.histogram.size(); ++b) {
    acc += s.histogram[b];
    if (acc >= need)
      return (b + 1) * s.binWidth();
  }
  return s.absmax;
}

/// Expected squared error of symmetric quantization with clip threshold t
/// and `levels` steps per side (qmax), estimated from the histogram:
/// values inside [0, t] get uniform rounding noise step^2 / 12, values
/// beyond t get their clipping error (|x| - t)^2 (bin centres).
inline double histogramMse(const TensorStats &s, double t, double levels) {
  double step = t / levels;
  double inside = step * step / 12.0;
  double w = s.binWidth();
  double err = 0.0;
  for (size_t b = 0; b < s.histogram.size(); ++b) {
    if (!s.histogram[b])
      continue;
    double c = (b + 0.5) * w;
    double e = c <= t ? inside : (c - t) * (c - t);
    err += e * s.histogram[b];
  }
  return err;
}

/// The threshold minimizing histogramMse over the upper edges of bins
/// [kHistogramBins / 16, kHistogramBins].
inline double mseThreshold(const TensorStats &s, double levels) {
  if (s.histogram.empty() || s.count == 0 || s.absmax <= 0.0)
    return s.absmax;
  double best = s.absmax, bestErr = histogramMse(s, s.absmax, levels);
  size_t n = s.histogram.size();
  for (size_t b = n / 16; b < n; ++b) {
    double t = (b + 1) * s.binWidth();
    double err = histogramMse(s, t, levels);
    if (err < bestErr) {
      bestErr = err;
      best = t;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// The statistics file
//===----------------------------------------------------------------------===//
//
// octet-run --calibrate writes the statistics as one JSON object, and
// octet-quantize-activations (mode=static stats=FILE) reads it back. The
// top level says what the file is and how it was made; "tensors" maps the
// name of each octet.observe to its TensorStats, the histogram as
// kHistogramBins counts:
//
//   {
//    "format": "octet-calibration",
//    "version": 1,
//    "entry": "main",
//    "batches": 8,
//    "histogram_bins": 2048,
//    "tensors": {
//     "fc1.input": {
//      "min": -3.25,
//      "max": 8,
//      "absmax": 8,
//      "count": 4096,
//      "non_finite": 0,
//      "histogram": [310,287,...,1]
//     }
//    }
//   }
//
// The reader needs "tensors" and, in each entry, min, max, absmax and count;
// the histogram is optional (without it, percentile and mse fall back to
// absmax).
//
// With octet-run --second-moment, each entry also has
//
//     "second_moment": {"file": "stats.second-moment/0.npy", "dim": 576,
//                       "rows": 512, "skipped_rows": 0}
//
// the sum of x x^T over the rows x of the tensor's last dimension, a
// dim x dim float64 .npy (both triangles) whose path is relative to the
// statistics file's directory; observers that saw the same rows share one
// file. octet-quantize-weights algorithm=gptq reads it.
//
// With octet-run --channel-stats, each entry also has
//
//     "channels": {"dim": 576, "rows": 512, "skipped_rows": 0,
//                  "absmax": [...], "mean_abs": [...]}
//
// per channel of the last dimension, over its finite rows (ChannelStats).
// octet-smooth-quant reads absmax, octet-quantize-weights algorithm=awq
// mean_abs (and the second moment).

/// The "format" of a statistics file and its "version".
constexpr char kStatsFormat[] = "octet-calibration";
constexpr int kStatsVersion = 1;

/// Keys of the top-level object.
constexpr char kFormatKey[] = "format";
constexpr char kVersionKey[] = "version";
constexpr char kEntryKey[] = "entry"; ///< The function that ran.
constexpr char kBatchesKey[] = "batches";
constexpr char kHistogramBinsKey[] = "histogram_bins";
constexpr char kTensorsKey[] = "tensors";

/// Keys of one tensor's object (the fields of TensorStats).
constexpr char kMinKey[] = "min";
constexpr char kMaxKey[] = "max";
constexpr char kAbsmaxKey[] = "absmax";
constexpr char kCountKey[] = "count";
constexpr char kNonFiniteKey[] = "non_finite";
constexpr char kHistogramKey[] = "histogram";
constexpr char kSecondMomentKey[] = "second_moment";

/// Keys of a second_moment object.
constexpr char kSecondMomentFileKey[] = "file";
constexpr char kSecondMomentDimKey[] = "dim";
constexpr char kSecondMomentRowsKey[] = "rows";
constexpr char kSecondMomentSkippedKey[] = "skipped_rows";

/// Keys of a channels object (dim, rows and skipped_rows as above).
constexpr char kChannelsKey[] = "channels";
constexpr char kChannelsAbsmaxKey[] = "absmax";
constexpr char kChannelsMeanAbsKey[] = "mean_abs";

} // namespace calibration
} // namespace octet

#endif // OCTET_RUNTIME_CALIBRATION_H
