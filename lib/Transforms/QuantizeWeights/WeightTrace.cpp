//===- WeightTrace.cpp - From a contraction operand to its constant -------===//
//
// Part of octet-quantize-weights: decides which inputs of a contraction are
// weights and along which axes they are quantized, follows a weight back
// through transpose / broadcast / expand_shape / collapse_shape to its
// `arith.constant`, maps axes through that chain (or folds the chain into
// the values when an axis does not survive it), and names layers from their
// locations.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"

namespace mlir::octet::weight_quant {

//===----------------------------------------------------------------------===//
// Contractions and their weight axes
//===----------------------------------------------------------------------===//

bool isContractionLike(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || !op.hasPureTensorSemantics())
    return false;
  Operation *o = op.getOperation();
  if (isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(o))
    return true;
  return linalg::isaContractionOpInterface(op) ||
         linalg::isaConvolutionOpInterface(op);
}

std::optional<WeightAxes> analyzeWeight(linalg::LinalgOp op,
                                        OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto type = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!type || !map.isProjectedPermutation() ||
      map.getNumResults() != type.getRank())
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  llvm::SmallDenseSet<unsigned> inOthers, plainInOthers, inOutputs;
  for (OpOperand *other : op.getDpsInputOperands()) {
    if (other == &operand)
      continue;
    AffineMap m = op.getMatchingIndexingMap(other);
    for (AffineExpr e : m.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        plainInOthers.insert(d.getPosition());
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub))
          inOthers.insert(d.getPosition());
      });
    }
  }
  for (OpOperand &out : op.getDpsInitsMutable()) {
    AffineMap m = op.getMatchingIndexingMap(&out);
    for (AffineExpr e : m.getResults())
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub))
          inOutputs.insert(d.getPosition());
      });
  }
  SmallVector<int64_t> channels, reductions, sharedReductions;
  for (int64_t d = 0, e = map.getNumResults(); d < e; ++d) {
    unsigned loop = map.getDimPosition(d);
    if (iters[loop] == utils::IteratorType::parallel) {
      if (inOutputs.contains(loop) && !inOthers.contains(loop))
        channels.push_back(d);
    } else if (iters[loop] == utils::IteratorType::reduction) {
      reductions.push_back(d);
      if (plainInOthers.contains(loop))
        sharedReductions.push_back(d);
    }
  }
  if (reductions.empty())
    return std::nullopt;
  WeightAxes axes;
  if (channels.size() == 1)
    axes.channel = channels.front();
  else if (channels.empty())
    axes.channelWhy = "the weight has no output-channel dimension";
  else
    axes.channelWhy = "the weight has " + std::to_string(channels.size()) +
                      " candidate output-channel dimensions";
  axes.reduction =
      sharedReductions.empty() ? reductions.back() : sharedReductions.back();
  return axes;
}

//===----------------------------------------------------------------------===//
// Layout chains between a constant and its use
//===----------------------------------------------------------------------===//

std::optional<Trace> traceToConstant(Value v) {
  Trace t;
  while (Operation *def = v.getDefiningOp()) {
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      if (!isa<RankedTensorType>(c.getType()))
        return std::nullopt;
      t.constant = c;
      std::reverse(t.chain.begin(), t.chain.end());
      return t;
    }
    if (auto tr = dyn_cast<linalg::TransposeOp>(def)) {
      if (!tr.hasPureTensorSemantics())
        return std::nullopt;
      v = tr.getInput();
    } else if (auto b = dyn_cast<linalg::BroadcastOp>(def)) {
      if (!b.hasPureTensorSemantics())
        return std::nullopt;
      v = b.getInput();
    } else if (auto e = dyn_cast<tensor::ExpandShapeOp>(def)) {
      v = e.getSrc();
    } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def)) {
      v = c.getSrc();
    } else {
      return std::nullopt;
    }
    t.chain.push_back(def);
  }
  return std::nullopt;
}

/// Maps dimension `axis` of `op`'s result to the dimension of its input
/// holding the same index, when the mapping keeps every slice along the axis
/// intact (so that per-axis and per-group parameters carry over).
static std::optional<int64_t> mapAxisToInput(Operation *op, int64_t axis) {
  if (auto t = dyn_cast<linalg::TransposeOp>(op))
    return t.getPermutation()[axis];
  if (auto b = dyn_cast<linalg::BroadcastOp>(op)) {
    ArrayRef<int64_t> added = b.getDimensions();
    if (llvm::is_contained(added, axis))
      return std::nullopt;
    return axis - llvm::count_if(added, [&](int64_t d) { return d < axis; });
  }
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    ArrayRef<int64_t> shape = e.getResultType().getShape();
    for (auto [src, group] : llvm::enumerate(e.getReassociationIndices())) {
      if (!llvm::is_contained(group, axis))
        continue;
      for (int64_t d : group)
        if (d != axis && shape[d] != 1)
          return std::nullopt;
      return static_cast<int64_t>(src);
    }
    return std::nullopt;
  }
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> shape = c.getSrcType().getShape();
    ReassociationIndices group = c.getReassociationIndices()[axis];
    std::optional<int64_t> found;
    for (int64_t d : group) {
      if (shape[d] == 1)
        continue;
      if (found)
        return std::nullopt;
      found = d;
    }
    return found ? *found : group.back();
  }
  return std::nullopt;
}

std::optional<int64_t> mapAxisToConstant(ArrayRef<Operation *> chain,
                                         int64_t axis) {
  std::optional<int64_t> a = axis;
  for (Operation *op : llvm::reverse(chain)) {
    a = mapAxisToInput(op, *a);
    if (!a)
      return std::nullopt;
  }
  return a;
}

std::vector<float> foldChain(const WeightData &w, ArrayRef<int64_t> srcShape,
                             ArrayRef<Operation *> chain) {
  std::vector<float> cur(w.numElements);
  withReader(w, [&](auto read) {
    for (int64_t i = 0; i < w.numElements; ++i)
      cur[i] = read(i);
  });
  SmallVector<int64_t> shape(srcShape);
  auto strides = [](ArrayRef<int64_t> s) {
    SmallVector<int64_t> st(s.size(), 1);
    for (int64_t i = static_cast<int64_t>(s.size()) - 2; i >= 0; --i)
      st[i] = st[i + 1] * s[i + 1];
    return st;
  };
  for (Operation *op : chain) {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> outShape = resultType.getShape();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
      shape.assign(outShape.begin(), outShape.end());
      continue; // Row-major reshapes keep the linear order.
    }
    SmallVector<int64_t> inStrides = strides(shape);
    std::vector<float> next(resultType.getNumElements());
    SmallVector<int64_t> idx(outShape.size(), 0);
    // For each output dimension, the input stride it advances (0 for a
    // broadcast dimension).
    SmallVector<int64_t> step(outShape.size(), 0);
    if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
      for (auto [i, p] : llvm::enumerate(t.getPermutation()))
        step[i] = inStrides[p];
    } else {
      auto b = cast<linalg::BroadcastOp>(op);
      int64_t in = 0;
      for (int64_t i = 0, e = outShape.size(); i < e; ++i)
        if (!llvm::is_contained(b.getDimensions(), i))
          step[i] = inStrides[in++];
    }
    for (int64_t o = 0, e = next.size(); o < e; ++o) {
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        src += idx[d] * step[d];
      next[o] = cur[src];
      for (int64_t d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < outShape[d])
          break;
        idx[d] = 0;
      }
    }
    cur = std::move(next);
    shape.assign(outShape.begin(), outShape.end());
  }
  return cur;
}

//===----------------------------------------------------------------------===//
// Names and skip rules
//===----------------------------------------------------------------------===//

static std::optional<std::string> findName(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      if (auto r = findName(l))
        return r;
    return std::nullopt;
  }
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return findName(c.getCallee());
  return std::nullopt;
}

static std::optional<std::string> findFileLoc(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(f.getFilename().getValue()) + ":" +
            Twine(f.getLine()) + ":" + Twine(f.getColumn()))
        .str();
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      if (auto r = findFileLoc(l))
        return r;
    return std::nullopt;
  }
  if (auto n = dyn_cast<NameLoc>(loc))
    return findFileLoc(n.getChildLoc());
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return findFileLoc(c.getCallee());
  return std::nullopt;
}

std::string layerName(Operation *op, Operation *constant, unsigned index) {
  if (auto n = findName(op->getLoc()))
    return *n;
  if (constant)
    if (auto n = findName(constant->getLoc()))
      return *n;
  if (auto f = findFileLoc(op->getLoc()))
    return *f;
  return (op->getName().getStringRef() + "#" + Twine(index)).str();
}

bool isLmHead(StringRef name) {
  // GGUF names the vocabulary projection `output` (output.weight).
  if (name == "output")
    return true;
  if (!name.ends_with("lm_head"))
    return false;
  StringRef before = name.drop_back(strlen("lm_head"));
  return before.empty() || before.ends_with(".") || before.ends_with("/") ||
         before.ends_with(":");
}

} // namespace mlir::octet::weight_quant
