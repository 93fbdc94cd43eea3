//===- ContractionMatch.cpp - Recognize quantizable contractions ----------===//

#include "octet/Transforms/ContractionMatch.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::octet;

/// True if `v` is a tensor of float zeros (a zero fill or a zero constant).
static bool isZeroTensor(Value v) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
           matchPattern(fill.getInputs()[0], m_Zero());
  return matchPattern(v, m_AnyZeroFloat());
}

/// Matches a linalg contraction C[b, m, n] = sum_k A * B with a zero
/// accumulator; on failure `why` says what does not fit.
FailureOr<Contraction> mlir::octet::matchContraction(linalg::LinalgOp op,
                                               std::string &why) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1) {
    why = "not a two-input contraction on tensors";
    return failure();
  }
  if (!linalg::isaContractionOpInterface(op)) {
    why = "the body is not a multiply-accumulate contraction";
    return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1) {
    why = "needs exactly one M, one N, one K and at most one batch dimension";
    return failure();
  }
  if (!isZeroTensor(op.getDpsInits()[0])) {
    why = "the accumulator is not zero-initialized";
    return failure();
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto positions = [](AffineMap map, SmallVector<unsigned> &out) {
    for (AffineExpr e : map.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d)
        return false;
      out.push_back(d.getPosition());
    }
    return true;
  };
  SmallVector<unsigned> a, bdims, c;
  if (!positions(maps[0], a) || !positions(maps[1], bdims) ||
      !positions(maps[2], c)) {
    why = "indexing maps are not plain dimension lists";
    return failure();
  }
  bool batched = !dims->batch.empty();
  unsigned bd = batched ? dims->batch[0] : 0;
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  SmallVector<unsigned> wantC, wantA, wantB, wantBT, wantAT;
  if (batched) {
    wantC.push_back(bd);
    wantA.push_back(bd);
    wantAT.push_back(bd);
    wantB.push_back(bd);
    wantBT.push_back(bd);
  }
  wantC.append({m, n});
  wantA.append({m, k});
  wantAT.append({k, m});
  wantB.append({k, n});
  wantBT.append({n, k});
  if (c != wantC) {
    why = "the result is not laid out as [batch,] M, N";
    return failure();
  }
  Contraction res;
  res.lhs = op.getDpsInputs()[0];
  res.rhs = op.getDpsInputs()[1];
  SmallVector<int64_t> swap =
      batched ? SmallVector<int64_t>{0, 2, 1} : SmallVector<int64_t>{1, 0};
  if (a == wantAT)
    res.lhsPerm = swap;
  else if (a != wantA) {
    why = "the lhs is not laid out as [batch,] M, K or K, M";
    return failure();
  }
  res.lhsRowDim = (batched ? 1 : 0) + (res.lhsPerm.empty() ? 0 : 1);
  // A rank-2 rhs shared by every batch is fine too.
  if (batched && bdims.size() == 2) {
    if (bdims == SmallVector<unsigned>{n, k})
      res.rhsPerm = {1, 0};
    else if (bdims != SmallVector<unsigned>{k, n}) {
      why = "the rhs is not laid out as K, N or N, K";
      return failure();
    }
    return res;
  }
  if (bdims == wantBT)
    res.rhsPerm = swap;
  else if (bdims != wantB) {
    why = "the rhs is not laid out as [batch,] K, N or N, K";
    return failure();
  }
  return res;
}

