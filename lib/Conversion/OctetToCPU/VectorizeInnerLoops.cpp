//===- VectorizeInnerLoops.cpp - Element-wise innermost loops as vectors --===//
//
// octet-vectorize-inner-loops: an innermost scf.for of static trip count
// (a multiple of the vector width) whose body only loads and stores along
// the loop's contiguous last dimension (or at addresses the loop does not
// change) and computes element-wise arith / math ops becomes a loop over
// vectors: vector.load / vector.store and the same ops on vectors, uniform
// values broadcast. The operations and their order per element are the
// same, so the results are bit-identical; what changes is that LLVM no
// longer fully unrolls such short rows (softmax's 32) and then vectorizes
// the loop around them with gathers and scatters.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETVECTORIZEINNERLOOPS
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;

namespace {

constexpr int64_t kWidth = 16;

bool isScalar(Type t) { return t.isIntOrIndexOrFloat() && !t.isIndex(); }

/// Whether `op` maps element-wise onto vectors (arith / math ops with the
/// ElementwiseMappable traits, on integer or float scalars).
bool isVectorizable(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() ||
      !op->hasTrait<OpTrait::Vectorizable>() || op->getNumRegions() != 0)
    return false;
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  for (Type t : op->getOperandTypes())
    if (!isScalar(t))
      return false;
  for (Type t : op->getResultTypes())
    if (!isScalar(t))
      return false;
  return true;
}

/// Whether `memref`'s last dimension has a static unit stride.
bool unitInnerStride(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() == 0)
    return false;
  auto [strides, offset] = type.getStridesAndOffset();
  (void)offset;
  return !strides.empty() && strides.back() == 1;
}

/// Rewrites `loop` when it qualifies; returns whether it did.
bool vectorize(scf::ForOp loop) {
  if (loop.getNumResults() != 0 || !loop.getRegion().hasOneBlock())
    return false;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub < kWidth ||
      *ub % kWidth != 0)
    return false;
  Value iv = loop.getInductionVar();
  Block *body = loop.getBody();
  // Classify: varying values (depend on iv through a contiguous load or
  // an element-wise op) and uniform ones (defined outside the loop or by
  // ops that read no varying value). iv itself may only appear as the
  // last index of a load or store.
  DenseSet<Value> varying;
  bool anyStore = false;
  // A max / min reduction into one address the loop does not move
  // (softmax's row max): `acc = load A[i]; m = max(v, acc); store m, A[i]`
  // with max / min NaN-propagating or NaN-ignoring. These are exact in any
  // order and idempotent, so 16 lanes that all start from A[i], reduced at
  // the end, give the same value.
  std::optional<vector::CombiningKind> kind;
  memref::LoadOp accLoad;
  memref::StoreOp accStore;
  Operation *combiner = nullptr;
  for (Operation &op : body->without_terminator()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || llvm::is_contained(store.getIndices(), iv))
      continue;
    Operation *c = store.getValueToStore().getDefiningOp();
    if (!c || c->getBlock() != body || c->getNumOperands() != 2 ||
        !c->hasOneUse() || accStore)
      return false;
    if (isa<arith::MaximumFOp>(c))
      kind = vector::CombiningKind::MAXIMUMF;
    else if (isa<arith::MinimumFOp>(c))
      kind = vector::CombiningKind::MINIMUMF;
    else if (isa<arith::MaxNumFOp>(c))
      kind = vector::CombiningKind::MAXNUMF;
    else if (isa<arith::MinNumFOp>(c))
      kind = vector::CombiningKind::MINNUMF;
    else
      return false;
    for (Value v : c->getOperands())
      if (auto l = v.getDefiningOp<memref::LoadOp>();
          l && l.getMemRef() == store.getMemRef() &&
          l.getIndices() == store.getIndices() && l->hasOneUse())
        accLoad = l;
    if (!accLoad || llvm::any_of(store.getIndices(), [&](Value v) {
          return loop->isAncestor(v.getParentRegion()->getParentOp());
        }))
      return false;
    accStore = store;
    combiner = c;
  }
  // Nothing else in the loop may touch the accumulator's buffer.
  if (accStore)
    for (Operation &op : body->without_terminator())
      if (&op != accLoad && &op != accStore &&
          llvm::is_contained(op.getOperands(), accStore.getMemRef()))
        return false;
  for (Operation &op : body->without_terminator()) {
    if (&op == accLoad || &op == accStore)
      continue;
    auto dependsOnIv = [&](ValueRange vs) {
      return llvm::any_of(vs, [&](Value v) { return v == iv; });
    };
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      ValueRange idx = load.getIndices();
      if (llvm::any_of(idx, [&](Value v) { return varying.contains(v); }))
        return false;
      if (!dependsOnIv(idx))
        continue; // uniform
      if (idx.empty() || idx.back() != iv || dependsOnIv(idx.drop_back()) ||
          !unitInnerStride(load.getMemRef()) || !isScalar(load.getType()))
        return false;
      varying.insert(load.getResult());
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      ValueRange idx = store.getIndices();
      if (idx.empty() || idx.back() != iv || dependsOnIv(idx.drop_back()) ||
          llvm::any_of(idx, [&](Value v) { return varying.contains(v); }) ||
          !unitInnerStride(store.getMemRef()) ||
          !isScalar(store.getValueToStore().getType()))
        return false;
      anyStore = true;
      continue;
    }
    if (op.getNumRegions() != 0 || dependsOnIv(op.getOperands()))
      return false;
    bool reads = llvm::any_of(op.getOperands(),
                              [&](Value v) { return varying.contains(v); });
    if (&op == combiner) {
      if (!reads)
        return false;
      continue;
    }
    if (!reads) {
      if (!isMemoryEffectFree(&op))
        return false;
      continue; // uniform: stays scalar
    }
    if (!isVectorizable(&op))
      return false;
    for (Value r : op.getResults())
      varying.insert(r);
  }
  if (!anyStore && !accStore)
    return false;

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  Value accInit;
  if (accStore) {
    accInit = memref::LoadOp::create(b, loc, accStore.getMemRef(),
                                     accStore.getIndices());
    inits.push_back(vector::BroadcastOp::create(
        b, loc, VectorType::get({kWidth}, accInit.getType()), accInit));
  }
  auto newLoop =
      scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                         arith::ConstantIndexOp::create(b, loc, kWidth), inits);
  OpBuilder nb = OpBuilder::atBlockBegin(newLoop.getBody());
  IRMapping map;
  map.map(iv, newLoop.getInductionVar());
  if (accStore)
    map.map(accLoad.getResult(), newLoop.getRegionIterArgs()[0]);
  auto vecOf = [&](Value v) -> Value {
    Value m = map.lookupOrDefault(v);
    if (isa<VectorType>(m.getType()))
      return m;
    return vector::BroadcastOp::create(
        nb, loc, VectorType::get({kWidth}, m.getType()), m);
  };
  for (Operation &op : body->without_terminator()) {
    if (&op == accLoad)
      continue;
    if (&op == accStore)
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && varying.contains(load.getResult())) {
      SmallVector<Value> idx;
      for (Value v : load.getIndices())
        idx.push_back(map.lookupOrDefault(v));
      map.map(load.getResult(),
              vector::LoadOp::create(nb, loc,
                                     VectorType::get({kWidth}, load.getType()),
                                     load.getMemRef(), idx));
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      SmallVector<Value> idx;
      for (Value v : store.getIndices())
        idx.push_back(map.lookupOrDefault(v));
      vector::StoreOp::create(nb, loc, vecOf(store.getValueToStore()),
                              store.getMemRef(), idx);
      continue;
    }
    if (&op != combiner && llvm::none_of(op.getResults(), [&](Value r) {
          return varying.contains(r);
        })) {
      nb.clone(op, map);
      continue;
    }
    OperationState state(op.getLoc(), op.getName());
    for (Value v : op.getOperands())
      state.addOperands(vecOf(v));
    for (Type t : op.getResultTypes())
      state.addTypes(VectorType::get({kWidth}, t));
    state.addAttributes(op.getAttrs());
    Operation *vop = nb.create(state);
    for (auto [r, vr] : llvm::zip_equal(op.getResults(), vop->getResults()))
      map.map(r, vr);
  }
  if (accStore) {
    scf::YieldOp::create(nb, loc, map.lookup(accStore.getValueToStore()));
    OpBuilder ab(loop);
    Value r = vector::ReductionOp::create(ab, loc, *kind, newLoop.getResult(0));
    memref::StoreOp::create(ab, loc, r, accStore.getMemRef(),
                            accStore.getIndices());
  }
  loop.erase();
  return true;
}

struct OctetVectorizeInnerLoopsPass
    : public mlir::octet::impl::OctetVectorizeInnerLoopsBase<
          OctetVectorizeInnerLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
      if (innermost)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      vectorize(loop);
  }
};

} // namespace
