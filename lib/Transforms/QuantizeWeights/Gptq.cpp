//===- Gptq.cpp - GPTQ's inverse-Hessian factor ---------------------------===//
//
// Part of octet-quantize-weights (algorithm=gptq): reads a layer's second
// moment H = sum x x^T (written by octet-run --calibrate --second-moment),
// dampens it and computes U, the upper Cholesky factor of H^-1, which the
// quantization loop (WeightQuantizer.cpp) uses for its error feedback.
//
// U is computed without forming H^-1: with J the reversal permutation,
// J H J = L L^T (Cholesky), so H = V V^T with V = J L J upper triangular and
// H^-1 = (V^-1)^T V^-1; U = V^-1 = J L^-1 J. One Cholesky and one
// triangular inverse, in f64, both with a fixed summation order (the result
// does not depend on the number of threads).
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "octet/Runtime/Calibration.h"

#include "mlir/IR/Threading.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

namespace mlir::octet::weight_quant {

FailureOr<llvm::StringMap<MomentEntry>>
readMomentEntries(const std::string &path, std::string &why) {
  namespace cal = ::octet::calibration;
  FailureOr<StatsFile> statsFile = openStatsFile(path, why);
  if (failed(statsFile))
    return failure();
  const llvm::json::Object *tensors = statsFile->tensors;
  llvm::SmallString<256> dir(statsFile->dir);
  llvm::StringMap<MomentEntry> out;
  for (const auto &[key, value] : *tensors) {
    const llvm::json::Object *t = value.getAsObject();
    const llvm::json::Object *m =
        t ? t->getObject(cal::kSecondMomentKey) : nullptr;
    if (!m)
      continue;
    std::optional<llvm::StringRef> file =
        m->getString(cal::kSecondMomentFileKey);
    std::optional<int64_t> dim = m->getInteger(cal::kSecondMomentDimKey);
    std::optional<int64_t> rows = m->getInteger(cal::kSecondMomentRowsKey);
    if (!file || file->empty() || !dim || *dim <= 0 || *dim > (1 << 20) ||
        !rows || *rows < 0) {
      why = "'" + path + "': the " + cal::kSecondMomentKey + " of '" +
            key.str() + "' needs \"" + cal::kSecondMomentFileKey +
            "\" (a path), \"" + cal::kSecondMomentDimKey +
            "\" (a positive integer) and \"" + cal::kSecondMomentRowsKey +
            "\" (a non-negative integer)";
      return failure();
    }
    MomentEntry e;
    llvm::SmallString<256> full(*file);
    if (llvm::sys::path::is_relative(full)) {
      full = dir;
      llvm::sys::path::append(full, *file);
    }
    e.file = full.str().str();
    e.dim = *dim;
    e.rows = static_cast<uint64_t>(*rows);
    out[key] = std::move(e);
  }
  return out;
}

FailureOr<std::shared_ptr<const GptqFactor>>
loadGptqFactor(MLIRContext *ctx, const std::string &file, int64_t dim,
               double damp, bool actOrder, std::string &why) {
  FailureOr<std::vector<double>> moment = loadSecondMoment(file, dim, why);
  if (failed(moment))
    return failure();
  return factorGptq(ctx, std::move(*moment), dim, "'" + file + "'", damp,
                    actOrder, why);
}

FailureOr<std::shared_ptr<const GptqFactor>>
factorGptq(MLIRContext *ctx, std::vector<double> h, int64_t dim,
           const std::string &what, double damp, bool actOrder,
           std::string &why) {
  const int64_t k = dim;
  auto factor = std::make_shared<GptqFactor>();
  factor->dim = k;
  factor->dead.assign(k, 0);
  double diagSum = 0;
  for (int64_t i = 0; i < k; ++i) {
    if (h[i * k + i] == 0) {
      // An input that was always zero: its row and column are zero too.
      factor->dead[i] = 1;
      h[i * k + i] = 1;
    }
    diagSum += h[i * k + i];
  }
  double add = damp * diagSum / k;
  for (int64_t i = 0; i < k; ++i)
    h[i * k + i] += add;
  // act-order: inputs with the largest second moment first (ties in index
  // order), H permuted to match.
  factor->order.resize(k);
  for (int64_t i = 0; i < k; ++i)
    factor->order[i] = i;
  if (actOrder) {
    std::stable_sort(factor->order.begin(), factor->order.end(),
                     [&](int64_t a, int64_t b) {
                       return h[a * k + a] > h[b * k + b];
                     });
    std::vector<double> p(k * k);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j)
        p[i * k + j] = h[factor->order[i] * k + factor->order[j]];
    h.swap(p);
  }

  // L = chol(J H J), row by row.
  std::vector<double> l(k * k, 0.0);
  for (int64_t i = 0; i < k; ++i) {
    double *li = &l[i * k];
    const double *hi = &h[(k - 1 - i) * k];
    for (int64_t j = 0; j <= i; ++j) {
      double s = hi[k - 1 - j] - dot(li, &l[j * k], j);
      if (j < i) {
        li[j] = s / l[j * k + j];
      } else if (s > 0 && std::isfinite(s)) {
        li[i] = std::sqrt(s);
      } else {
        why = "the damped Hessian of " + what +
              " is not positive definite (pivot " + std::to_string(k - 1 - i) +
              "); raise damp";
        return failure();
      }
    }
  }
  // Column j of L^-1 solves L x = e_j: x_j = 1 / L_jj, then forward
  // substitution. Columns are independent. U = J L^-1 J.
  factor->u.assign(k * k, 0.0);
  double *u = factor->u.data();
  parallelFor(ctx, 0, k, [&](size_t jj) {
    int64_t j = static_cast<int64_t>(jj);
    std::vector<double> x(k, 0.0);
    x[j] = 1.0 / l[j * k + j];
    for (int64_t i = j + 1; i < k; ++i)
      x[i] = -dot(&l[i * k + j], &x[j], i - j) / l[i * k + i];
    for (int64_t i = j; i < k; ++i)
      u[(k - 1 - i) * k + (k - 1 - j)] = x[i];
  });
  return std::shared_ptr<const GptqFactor>(std::move(factor));
}

} // namespace mlir::octet::weight_quant
