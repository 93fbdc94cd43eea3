//===- ChannelScaling.cpp - Per-input-channel scales folded away ----------===//
//
// What SmoothQuant (octet-smooth-quant) and AWQ (octet-quantize-weights
// algorithm=awq) share: the calibration statistics file, the groups of
// contractions that read one activation X, the op before X that can absorb
// a per-channel factor (the fold target), and the rewrite itself:
//
//   y = X W^T = (X diag(1/s)) (W diag(s))^T
//
// W's input channel j is multiplied by s_j and the fold target divides X's
// channel j by s_j, so the graph keeps its shape and costs nothing at run
// time. Fold targets:
//
//  - "multiplier": X = generic(..., g) yielding mulf(y, g_j), g a 1-D
//    constant indexed by X's last dimension (RMSNorm's / LayerNorm's
//    weight): g_j / s_j.
//  - "producer": X = generic(..., u) yielding mulf(y, u), u a matmul's
//    result with a constant weight and a zero init (SwiGLU's up
//    projection): u's output channel j divided by s_j.
//
// Scales are f32; the new constants are f32 products / quotients (one
// rounding each), so an oracle can recompute them exactly from the scales.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "octet/Runtime/Calibration.h"
#include "octet/Runtime/Npy.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>

namespace mlir::octet::weight_quant {

namespace cal = ::octet::calibration;

//===----------------------------------------------------------------------===//
// The statistics file
//===----------------------------------------------------------------------===//

FailureOr<StatsFile> openStatsFile(const std::string &path, std::string &why) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    why = "cannot read calibration statistics '" + path +
          "': " + buffer.getError().message();
    return failure();
  }
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    why = "'" + path + "' is not valid JSON: " + llvm::toString(json.takeError());
    return failure();
  }
  StatsFile f;
  f.root = std::make_shared<llvm::json::Value>(std::move(*json));
  const llvm::json::Object *root = f.root->getAsObject();
  f.tensors = root ? root->getObject(cal::kTensorsKey) : nullptr;
  if (!f.tensors) {
    why = "'" + path + "' has no \"" + cal::kTensorsKey +
          "\" object; is it a file written by octet-run --calibrate?";
    return failure();
  }
  f.path = path;
  f.dir = llvm::sys::path::parent_path(path).str();
  return f;
}

FailureOr<llvm::StringMap<ChannelEntry>>
readChannelEntries(const std::string &path, std::string &why) {
  FailureOr<StatsFile> file = openStatsFile(path, why);
  if (failed(file))
    return failure();
  llvm::StringMap<ChannelEntry> out;
  for (const auto &kv : *file->tensors) {
    const llvm::json::ObjectKey &key = kv.first;
    const llvm::json::Object *t = kv.second.getAsObject();
    const llvm::json::Object *c = t ? t->getObject(cal::kChannelsKey) : nullptr;
    if (!c)
      continue;
    auto bad = [&](const std::string &what) {
      why = "'" + path + "': the " + cal::kChannelsKey + " of '" + key.str() +
            "' " + what;
      return failure();
    };
    std::optional<int64_t> dim = c->getInteger(cal::kSecondMomentDimKey);
    std::optional<int64_t> rows = c->getInteger(cal::kSecondMomentRowsKey);
    if (!dim || *dim <= 0 || *dim > (1 << 20) || !rows || *rows < 0)
      return bad(std::string("needs \"") + cal::kSecondMomentDimKey +
                 "\" (a positive integer) and \"" + cal::kSecondMomentRowsKey +
                 "\" (a non-negative integer)");
    ChannelEntry e;
    e.dim = *dim;
    e.rows = static_cast<uint64_t>(*rows);
    for (auto [k, vec] : {std::pair<const char *, std::vector<double> *>{
                              cal::kChannelsAbsmaxKey, &e.absmax},
                          {cal::kChannelsMeanAbsKey, &e.meanAbs}}) {
      const llvm::json::Array *a = c->getArray(k);
      if (!a || static_cast<int64_t>(a->size()) != e.dim)
        return bad(std::string("needs \"") + k + "\", an array of " +
                   std::to_string(e.dim) + " numbers");
      for (const llvm::json::Value &v : *a) {
        std::optional<double> d = v.getAsNumber();
        if (!d || !std::isfinite(*d) || *d < 0)
          return bad(std::string("has a \"") + k +
                     "\" element that is not a finite non-negative number");
        vec->push_back(*d);
      }
    }
    out[key] = std::move(e);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Groups and fold targets
//===----------------------------------------------------------------------===//

/// The inputs of `generic` whose block argument is a factor of the value
/// it yields, mulf(a, b), and used nowhere else (both, for mulf(x, g)).
static SmallVector<unsigned, 2> yieldedFactors(linalg::GenericOp generic) {
  SmallVector<unsigned, 2> out;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return out;
  auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul)
    return out;
  for (unsigned side = 0; side < 2; ++side) {
    auto arg = dyn_cast<BlockArgument>(mul->getOperand(side));
    if (arg && arg.getOwner() == &body &&
        arg.getArgNumber() < generic.getNumDpsInputs() && arg.hasOneUse())
      out.push_back(arg.getArgNumber());
  }
  return out;
}

/// Input `index` of `generic` (which yields a multiple of it) as a fold
/// target of its result `x`, or why not.
static FailureOr<FoldTarget> foldTargetAt(linalg::GenericOp generic,
                                          unsigned index, Value x,
                                          std::string &why) {
  auto type = cast<RankedTensorType>(x.getType());
  OpOperand *operand = generic.getDpsInputOperand(index);
  AffineMap map = generic.getMatchingIndexingMap(operand);
  unsigned rank = type.getRank();
  FoldTarget t;
  t.op = generic;
  t.operand = operand->getOperandNumber();
  t.name = layerName(generic, nullptr, 0);
  if (map.getNumResults() == 1 &&
      map.getResult(0) == getAffineDimExpr(rank - 1, x.getContext())) {
    auto cst = operand->get().getDefiningOp<arith::ConstantOp>();
    auto ct = cst ? dyn_cast<RankedTensorType>(cst.getType()) : nullptr;
    if (!ct || ct.getRank() != 1 || !ct.getElementType().isF32() ||
        ct.getDimSize(0) != type.getDimSize(rank - 1)) {
      why = "the factor of the activation's producer is not a 1-D f32 "
            "constant";
      return failure();
    }
    t.kind = FoldTarget::Multiplier;
    t.cst = cst;
    t.axis = 0;
    return t;
  }
  if (!map.isIdentity()) {
    why = "the factor of the activation's producer is neither a vector "
          "along the channels nor a full tensor";
    return failure();
  }
  auto producer = operand->get().getDefiningOp<linalg::LinalgOp>();
  if (!producer || !isContractionLike(producer) ||
      producer->getNumResults() != 1 || !operand->get().hasOneUse() ||
      producer.getNumDpsInputs() != 2) {
    why = "the activation's producer multiplies by neither a constant "
          "vector nor a contraction's result used only there";
    return failure();
  }
  // A zero init: the rows of the weight are the whole result.
  Value init = producer.getDpsInitOperand(0)->get();
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr zero;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&zero)) ||
      !zero.getValue().isZero()) {
    why = "the contraction before the activation ('" +
          layerName(producer, nullptr, 0) + "') does not start from zero";
    return failure();
  }
  AffineMap outMap =
      producer.getMatchingIndexingMap(producer.getDpsInitOperand(0));
  if (outMap.getNumResults() != rank || !outMap.isProjectedPermutation()) {
    why = "unexpected result map of '" + layerName(producer, nullptr, 0) + "'";
    return failure();
  }
  unsigned lastLoop = outMap.getDimPosition(rank - 1);
  for (OpOperand *in : producer.getDpsInputOperands()) {
    auto cst = in->get().getDefiningOp<arith::ConstantOp>();
    auto ct = cst ? dyn_cast<RankedTensorType>(cst.getType()) : nullptr;
    if (!ct || ct.getRank() != 2 || !ct.getElementType().isF32())
      continue;
    AffineMap wm = producer.getMatchingIndexingMap(in);
    if (!wm.isProjectedPermutation() || wm.getNumResults() != 2)
      continue;
    for (unsigned a = 0; a < 2; ++a)
      if (wm.getDimPosition(a) == lastLoop) {
        t.kind = FoldTarget::Producer;
        t.op = producer;
        t.operand = in->getOperandNumber();
        t.cst = cst;
        t.axis = a;
        t.name = layerName(producer, cst, 0);
        return t;
      }
  }
  why = "the contraction before the activation ('" +
        layerName(producer, nullptr, 0) +
        "') has no 2-D f32 constant weight indexed by the channel";
  return failure();
}

/// The fold target of `x`, or why there is none.
static FailureOr<FoldTarget> findFoldTarget(Value x, std::string &why) {
  auto generic = x.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic->getNumResults() != 1 ||
      !generic.hasPureTensorSemantics()) {
    why = "the activation is not produced by a linalg.generic";
    return failure();
  }
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() < 1 || !type.getElementType().isF32() ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getIndexingMapsArray().back().isIdentity()) {
    why = "the activation's producer is not an elementwise f32 "
          "linalg.generic";
    return failure();
  }
  SmallVector<unsigned, 2> factors = yieldedFactors(generic);
  if (factors.empty()) {
    why = "the activation's producer does not end in a multiplication by "
          "one of its inputs used nowhere else in its body";
    return failure();
  }
  for (unsigned index : factors) {
    FailureOr<FoldTarget> t = foldTargetAt(generic, index, x, why);
    if (succeeded(t))
      return t;
  }
  return failure();
}

SmallVector<ScaleGroup> collectScaleGroups(ModuleOp module) {
  llvm::MapVector<Value, ScaleGroup> groups;
  module.walk([&](linalg::LinalgOp op) {
    if (!isContractionLike(op) || op.getNumDpsInputs() != 2)
      return;
    for (unsigned w = 0; w < 2; ++w) {
      OpOperand *wop = op.getDpsInputOperand(w);
      OpOperand *act = op.getDpsInputOperand(1 - w);
      auto observe = act->get().getDefiningOp<ObserveOp>();
      auto cst = wop->get().getDefiningOp<arith::ConstantOp>();
      auto ct = cst ? dyn_cast<RankedTensorType>(cst.getType()) : nullptr;
      if (!observe || !ct || ct.getRank() != 2)
        continue;
      std::optional<WeightAxes> axes = analyzeWeight(op, *wop);
      if (!axes || !axes->reduction)
        continue;
      unsigned loop =
          op.getMatchingIndexingMap(wop).getDimPosition(*axes->reduction);
      AffineMap actMap = op.getMatchingIndexingMap(act);
      if (actMap.getNumResults() == 0 ||
          actMap.getResults().back() !=
              getAffineDimExpr(loop, op->getContext()))
        continue;
      ScaleGroup &g = groups[observe.getInput()];
      g.input = observe.getInput();
      if (g.observer.empty())
        g.observer = observe.getName().str();
      ScaledWeight sw;
      sw.op = op;
      sw.operand = wop->getOperandNumber();
      sw.cst = cst;
      sw.inAxis = *axes->reduction;
      sw.name = layerName(op, cst, 0);
      g.weights.push_back(sw);
      return;
    }
  });
  SmallVector<ScaleGroup> out;
  for (auto &[x, g] : groups) {
    // Every use of X must be an observer feeding only the group's weights'
    // contractions: anything else would see X scaled.
    llvm::SmallPtrSet<Operation *, 8> members;
    for (const ScaledWeight &w : g.weights)
      members.insert(w.op);
    for (OpOperand &use : x.getUses()) {
      auto o = dyn_cast<ObserveOp>(use.getOwner());
      bool ok = static_cast<bool>(o);
      if (ok)
        for (Operation *user : o->getUsers())
          ok &= members.contains(user);
      if (!ok) {
        g.why = "the activation has another user ('" +
                use.getOwner()->getName().getStringRef().str() +
                "') that would see it scaled";
        break;
      }
    }
    if (g.why.empty()) {
      FailureOr<FoldTarget> t = findFoldTarget(x, g.why);
      if (succeeded(t))
        g.fold = *t;
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::string> ScaleGroup::layerNames() const {
  std::vector<std::string> out;
  for (const ScaledWeight &w : weights)
    out.push_back(w.name);
  return out;
}

std::string ScaleGroup::layerList() const {
  std::string s;
  for (const ScaledWeight &w : weights)
    s += (s.empty() ? "" : ", ") + w.name;
  return s;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

FailureOr<std::vector<float>> readF32(arith::ConstantOp cst,
                                             std::string &why) {
  FailureOr<WeightData> data = getWeightData(cst, why);
  if (failed(data))
    return failure();
  if (data->kind != ElemKind::F32) {
    why = "only f32 constants are scaled";
    return failure();
  }
  std::vector<float> v(data->numElements);
  withReader(*data, [&](auto read) {
    for (int64_t i = 0; i < data->numElements; ++i)
      v[i] = read(i);
  });
  return v;
}

/// A new f32 constant of `type` with `values` (a dense_resource when `like`
/// is one), right after `like`.
static arith::ConstantOp makeConstant(arith::ConstantOp like,
                                      ArrayRef<float> values,
                                      StringRef suffix) {
  auto type = cast<RankedTensorType>(like.getType());
  OpBuilder b(like);
  b.setInsertionPointAfter(like);
  TypedAttr attr;
  if (auto res = dyn_cast<DenseResourceElementsAttr>(like.getValue())) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float)),
        alignof(float));
    attr = DenseResourceElementsAttr::get(
        type, (res.getRawHandle().getKey() + suffix).str(), std::move(blob));
  } else {
    attr = DenseElementsAttr::get(type, values);
  }
  return arith::ConstantOp::create(b, like.getLoc(), attr);
}

/// `values` (a 2-D constant's, or 1-D with axis 0) with element i scaled
/// along `axis`: multiplied by s[j] (divide=false) or divided.
static void scaleAlong(std::vector<float> &values, ArrayRef<int64_t> shape,
                       int64_t axis, ArrayRef<float> s, bool divide) {
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  int64_t dim = shape[axis];
  for (size_t i = 0; i < values.size(); ++i) {
    float f = s[(i / inner) % dim];
    values[i] = divide ? values[i] / f : values[i] * f;
  }
}

arith::ConstantOp currentConstant(Operation *op, unsigned operand) {
  return op->getOperand(operand).getDefiningOp<arith::ConstantOp>();
}

LogicalResult applyChannelScales(ScaleGroup &g, ArrayRef<float> s,
                                 SmallVectorImpl<Operation *> &replaced,
                                 std::string &why) {
  assert(g.fold && "a group without a fold target");
  // The constants as they are now (an earlier group may have replaced
  // one: SwiGLU's up projection is scaled by two groups). Read everything
  // first: nothing changes unless everything can.
  SmallVector<arith::ConstantOp> csts;
  for (const ScaledWeight &sw : g.weights)
    csts.push_back(currentConstant(sw.op, sw.operand));
  csts.push_back(currentConstant(g.fold->op, g.fold->operand));
  std::vector<std::vector<float>> values(csts.size());
  for (auto [i, c] : llvm::enumerate(csts)) {
    const std::string &name =
        i < g.weights.size() ? g.weights[i].name : g.fold->name;
    FailureOr<std::vector<float>> v =
        c ? readF32(c, why) : FailureOr<std::vector<float>>(failure());
    if (failed(v)) {
      why = "'" + name + "': " + (c ? why : "the operand is not a constant");
      return failure();
    }
    values[i] = std::move(*v);
  }
  for (auto [i, c] : llvm::enumerate(csts)) {
    bool fold = i == g.weights.size();
    Operation *user = fold ? g.fold->op : g.weights[i].op.getOperation();
    unsigned operand = fold ? g.fold->operand : g.weights[i].operand;
    int64_t axis = fold ? g.fold->axis : g.weights[i].inAxis;
    scaleAlong(values[i], cast<RankedTensorType>(c.getType()).getShape(),
               axis, s, /*divide=*/fold);
    user->setOperand(operand, makeConstant(c, values[i], "_scaled"));
    replaced.push_back(c);
  }
  return success();
}

void removeObservers(ModuleOp module) {
  SmallVector<ObserveOp> observers;
  module.walk([&](ObserveOp o) { observers.push_back(o); });
  for (ObserveOp o : observers) {
    o.replaceAllUsesWith(o.getInput());
    o.erase();
  }
}

} // namespace mlir::octet::weight_quant
