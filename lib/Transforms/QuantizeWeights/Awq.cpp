//===- Awq.cpp - AWQ's search for per-input-channel scales ----------------===//
//
// Part of octet-quantize-weights (algorithm=awq; Lin et al., "AWQ:
// Activation-aware Weight Quantization for LLM Compression and
// Acceleration", 2023): for a group of weights reading one activation X,
// the scales s = mean|x|^alpha (normalized by sqrt(max(s) min(s))) for
// alpha on a grid, each scored by the error the quantized, rescaled
// weights cause in the layers' outputs over the calibration rows,
//
//   sum over weights and output channels n of  d_n^T H d_n,
//   d_n = Q(W diag(s))_n / s - W_n,   H = sum x x^T,
//
// which is sum ||X (W - What)^T||^2 without X (the second moment carries
// it). Output channels are sampled (every ceil(N / 128)-th): the search
// costs 128 K^2 per weight and grid point instead of N K^2.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "octet/Runtime/Npy.h"

#include "mlir/IR/Threading.h"

#include <cmath>

namespace mlir::octet::weight_quant {

namespace npy = ::octet::runtime;

FailureOr<std::vector<double>> loadSecondMoment(const std::string &file,
                                                int64_t dim, std::string &why) {
  npy::NpyArray a;
  if (!npy::readNpy(file, a, why))
    return failure();
  if (a.dtype != npy::NpyDType::F64 || a.shape.size() != 2 ||
      a.shape[0] != dim || a.shape[1] != dim) {
    why = "'" + file + "' is not a " + std::to_string(dim) + "x" +
          std::to_string(dim) + " float64 array (got " +
          npy::dtypeName(a.dtype) + ", rank " +
          std::to_string(a.shape.size()) + ")";
    return failure();
  }
  std::vector<double> h(dim * dim);
  std::memcpy(h.data(), a.data.data(), h.size() * sizeof(double));
  // Symmetric up to the rounding of a sum in another order (a file written
  // by another tool).
  for (int64_t i = 0; i < dim; ++i) {
    for (int64_t j = 0; j < dim; ++j) {
      double x = h[i * dim + j], y = h[j * dim + i];
      if (!std::isfinite(x) ||
          std::fabs(x - y) > 1e-9 * (std::fabs(x) + std::fabs(y))) {
        why = "'" + file + "' is not a finite symmetric matrix (element " +
              std::to_string(i) + ", " + std::to_string(j) + ")";
        return failure();
      }
    }
    if (h[i * dim + i] < 0) {
      why = "'" + file + "' has a negative diagonal element " +
            std::to_string(i) + " (not a second moment)";
      return failure();
    }
  }
  return h;
}

namespace {

/// Columns per block of y = H d (a tile's y blocks stay in L1).
constexpr int64_t kColumns = 128;
/// Rows of d per tile (each row of H is loaded once per tile).
constexpr int64_t kTile = 32;

/// out[r] = d_r^T H d_r for the `nr` rows of `d` (K values each), from
/// H's upper triangle: sum_i H_ii d_i^2 + 2 sum_j d_j z_j with z_j =
/// sum_{i<j} d_i H_ij, z accumulated row of H by row of H (i ascending,
/// separate multiply and add), the two sums with four partial sums each.
/// Inline, so that the AVX2 copy below vectorizes the j loops; without
/// FMA, both copies round the same way.
__attribute__((always_inline)) inline void
quadraticForms(const double *h, const double *d, int64_t nr, int64_t k,
               double *z, double *out) {
  for (int64_t i = 0; i < nr * k; ++i)
    z[i] = 0.0;
  for (int64_t jb = 0; jb < k; jb += kColumns) {
    int64_t je = std::min(k, jb + kColumns);
    for (int64_t i = 0; i + 1 < je; ++i) {
      const double *__restrict hi = h + i * k;
      const int64_t j0 = std::max(jb, i + 1);
      for (int64_t r = 0; r < nr; ++r) {
        const double a = d[r * k + i];
        if (a == 0.0)
          continue;
        double *__restrict zr = z + r * k;
        for (int64_t j = j0; j < je; ++j)
          zr[j] += a * hi[j];
      }
    }
  }
  for (int64_t r = 0; r < nr; ++r) {
    const double *dr = d + r * k, *zr = z + r * k;
    double s[4] = {0, 0, 0, 0}, t[4] = {0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 4 <= k; j += 4)
      for (int64_t l = 0; l < 4; ++l) {
        s[l] += h[(j + l) * k + j + l] * dr[j + l] * dr[j + l];
        t[l] += dr[j + l] * zr[j + l];
      }
    for (; j < k; ++j) {
      s[0] += h[j * k + j] * dr[j] * dr[j];
      t[0] += dr[j] * zr[j];
    }
    out[r] = ((s[0] + s[1]) + (s[2] + s[3])) +
             2.0 * ((t[0] + t[1]) + (t[2] + t[3]));
  }
}

__attribute__((target("avx2"))) void
quadraticFormsAvx2(const double *h, const double *d, int64_t nr, int64_t k,
                   double *y, double *out) {
  quadraticForms(h, d, nr, k, y, out);
}
void quadraticFormsBaseline(const double *h, const double *d, int64_t nr,
                            int64_t k, double *y, double *out) {
  quadraticForms(h, d, nr, k, y, out);
}

/// The output error of the weights `ws` under scales `sf`.
double awqError(MLIRContext *ctx, const Config &cfg, ArrayRef<AwqWeight> ws,
                const std::vector<double> &h, ArrayRef<float> sf) {
  static auto quad = __builtin_cpu_supports("avx2") ? quadraticFormsAvx2
                                                    : quadraticFormsBaseline;
  const int64_t k = sf.size();
  double total = 0.0;
  for (const AwqWeight &w : ws) {
    const int64_t rows = w.shape[1 - w.inAxis];
    // Element (row n, input j) of the constant.
    const int64_t strideRow = w.inAxis == 0 ? 1 : k;
    const int64_t strideIn = w.inAxis == 0 ? rows : 1;
    const int64_t stride = (rows + kAwqRows - 1) / kAwqRows;
    const int64_t sampled = (rows + stride - 1) / stride;
    // Only the sampled rows are quantized when each parameter group lies
    // within one output channel (per-channel, per-group along the inputs):
    // as a sampled x K matrix with the same grid, groups and clip rules.
    Granularity gran = w.scheme.getGranularity();
    bool rowwise = (gran == Granularity::per_axis &&
                    w.scheme.getAxis() == 1 - w.inAxis) ||
                   (gran == Granularity::per_group &&
                    w.scheme.getAxis() == w.inAxis);
    std::vector<float> q(sampled * k);
    if (rowwise) {
      std::vector<float> sub(sampled * k);
      for (int64_t r = 0; r < sampled; ++r)
        for (int64_t j = 0; j < k; ++j)
          sub[r * k + j] =
              w.values[r * stride * strideRow + j * strideIn] * sf[j];
      SchemeAttr rowScheme = SchemeAttr::get(
          ctx, w.scheme.getFormat(), gran,
          gran == Granularity::per_axis ? 0 : 1, w.scheme.getGroupSize(),
          w.scheme.getSymmetric(), w.scheme.getSaturate(),
          w.scheme.getQmin(), w.scheme.getQmax(), w.scheme.getScaleFormat(),
          w.scheme.getGlobalScaleBits());
      q = fakeQuantize(ctx, cfg, rowScheme, {sampled, k}, sub.data());
    } else {
      std::vector<float> scaled(w.values.size());
      for (int64_t n = 0; n < rows; ++n)
        for (int64_t j = 0; j < k; ++j) {
          int64_t i = n * strideRow + j * strideIn;
          scaled[i] = w.values[i] * sf[j];
        }
      std::vector<float> all =
          fakeQuantize(ctx, cfg, w.scheme, w.shape, scaled.data());
      for (int64_t r = 0; r < sampled; ++r)
        for (int64_t j = 0; j < k; ++j)
          q[r * k + j] = all[r * stride * strideRow + j * strideIn];
    }
    std::vector<double> err(sampled);
    const int64_t tiles = (sampled + kTile - 1) / kTile;
    parallelFor(ctx, 0, tiles, [&](size_t t) {
      const int64_t r0 = static_cast<int64_t>(t) * kTile;
      const int64_t nr = std::min(kTile, sampled - r0);
      std::vector<double> d(nr * k), y(nr * k);
      for (int64_t r = 0; r < nr; ++r) {
        int64_t n = (r0 + r) * stride;
        for (int64_t j = 0; j < k; ++j) {
          d[r * k + j] =
              static_cast<double>(q[(r0 + r) * k + j]) / sf[j] -
              static_cast<double>(w.values[n * strideRow + j * strideIn]);
        }
      }
      quad(h.data(), d.data(), nr, k, y.data(), &err[r0]);
    });
    for (double e : err)
      total += e;
  }
  return total;
}

} // namespace

AwqResult awqSearch(MLIRContext *ctx, const Config &cfg,
                    ArrayRef<AwqWeight> weights, const std::vector<double> &h,
                    ArrayRef<double> meanAbs) {
  const int64_t k = meanAbs.size();
  AwqResult best;
  best.scales.assign(k, 1.0f);
  std::vector<float> sf(k);
  for (int64_t step = 0; step < cfg.awqGrid; ++step) {
    double alpha = static_cast<double>(step) / cfg.awqGrid;
    std::vector<double> s(k);
    double lo = INFINITY, hi = 0.0;
    for (int64_t j = 0; j < k; ++j) {
      s[j] = std::pow(std::max(meanAbs[j], 1e-4), alpha);
      lo = std::min(lo, s[j]);
      hi = std::max(hi, s[j]);
    }
    double norm = std::sqrt(hi * lo);
    for (int64_t j = 0; j < k; ++j)
      sf[j] = static_cast<float>(s[j] / norm);
    double e = awqError(ctx, cfg, weights, h, sf);
    best.curve.push_back(e);
    if (step == 0)
      best.errorRtn = e;
    if (step == 0 || e < best.error) {
      best.error = e;
      best.alpha = alpha;
      best.scales = sf;
    }
  }
  return best;
}

} // namespace mlir::octet::weight_quant
