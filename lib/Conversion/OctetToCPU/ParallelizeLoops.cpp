//===- ParallelizeLoops.cpp - Outer loops of linalg ops on the thread pool ===//
//
// octet-parallelize-loops runs the outer parallel loops of the bufferized
// linalg ops that are left after the generated kernels (LayerNorm, softmax,
// GELU, the dynamic per-token quantize, transposes, ...) on the runtime's
// thread pool. For each op with enough work it
//
//   - picks a prefix of its parallel loops (d0 .. dP-1) that every output
//     indexes by a plain dimension, so that disjoint slices of the prefix
//     write disjoint parts of the outputs;
//   - outlines a task function (ctx, begin, end) that loads the buffers'
//     pointers from a block of i64 slots and calls a body function taking
//     them as noalias arguments; the body rebuilds the operands'
//     descriptors, slices them with memref.subview to the task's part of
//     the prefix and clones the op on the slices (linalg.index of a prefix
//     dimension gets the slice's offset added);
//   - replaces the op by octet_parallel_for(tasks, task, ctx), or when the
//     work is only known at run time, by a branch between that and a direct
//     call of the task over all of it.
//
// Consecutive ops of a block with the same static prefix ranges form a
// group when every buffer one of them writes is reached by all of them
// through the same view with each split loop on the same dimension
// (row-local, rowLocal()): one task function then runs its part of the
// prefix through all members in turn, in chunks of rows sized to stay in
// the L2 cache when the prefix is one loop (LayerNorm's add, statistics
// and normalization, softmax's five ops), and the pool is woken once per
// group instead of once per op.
//
// Each element is computed by the same loop body in the same order as
// before (only parallel loops are split; reductions stay inside one task),
// so results are bit-identical to the serial loops.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include <vector>

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETPARALLELIZELOOPS
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

Value mlir::octet::cpu::viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

using mlir::octet::cpu::viewRoot;

namespace {

/// A `memref.copy` between views that are not contiguous (a
/// `tensor.insert_slice` into a KV cache bufferizes to one) lowers to a call
/// of the C runner utilities' `memrefCopy`, which a compiled library does
/// not link. As `linalg.copy` it becomes loops like every other op (and is
/// split over the thread pool when large).
void stridedCopiesToLinalg(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  module.walk([&](memref::CopyOp copy) {
    auto src = cast<MemRefType>(copy.getSource().getType());
    auto dst = cast<MemRefType>(copy.getTarget().getType());
    if (!src.getLayout().isIdentity() || !dst.getLayout().isIdentity())
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies) {
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    copy.erase();
  }
}

/// Marks the outlined task functions (their ops are not parallelized
/// again).
constexpr llvm::StringLiteral kTaskAttrName = "octet.parallel_task";

/// How one linalg op is split.
struct Split {
  linalg::LinalgOp op;
  /// Loops d0 .. d(prefix-1) are split between tasks.
  unsigned prefix = 0;
  /// For each operand (in op order) and prefix loop: the operand dimension
  /// indexed by that loop, or -1 when the operand does not depend on it.
  SmallVector<SmallVector<int64_t>> dimOf;
  /// Values from above used in the op's region: constants (cloned into the
  /// task) and the rest (scalars and buffers, passed in slots).
  SmallVector<Value> constants, captures;
  /// Static iterations x payload ops; none when a loop range is dynamic.
  std::optional<int64_t> staticWork;
  int64_t payloadOps = 1;
};

/// Scalars that travel through an i64 slot.
bool isSlotScalar(Type t) {
  if (t.isIndex())
    return true;
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth() <= 64;
  if (auto f = dyn_cast<FloatType>(t))
    return f.getWidth() <= 64 && f.getWidth() % 8 == 0;
  return false;
}

/// Memrefs whose descriptor the task can rebuild: strided layout, default
/// memory space.
bool isSlotMemRef(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && !m.getMemorySpace() && m.isStrided();
}

/// The descriptor fields after the pointers (offset, sizes, strides) that
/// the type fixes; ShapedType::kDynamic for those only known at run time.
SmallVector<int64_t> staticFields(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> fields = {offset};
  llvm::append_range(fields, type.getShape());
  llvm::append_range(fields, strides);
  return fields;
}

/// How `op` can be split; `groupRanges`, when given, are the ranges of the
/// prefix of the group it would join (its leading loops must be parallel
/// with exactly these static ranges).
std::optional<Split> analyze(linalg::LinalgOp op, int64_t minTasks,
                             ArrayRef<int64_t> groupRanges = {}) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() != 0 ||
      op->getNumRegions() != 1)
    return std::nullopt;
  for (Value v : op->getOperands())
    if (!isSlotMemRef(v.getType()) && !isSlotScalar(v.getType()))
      return std::nullopt;

  Split s;
  s.op = op;
  // The payload computes values, or reads buffers the op does not write
  // (an embedding gather); no stores, no calls that record.
  SmallVector<Value> written;
  for (Value init : op.getDpsInits())
    written.push_back(viewRoot(init));
  s.payloadOps = 0;
  for (Operation &inner : op->getRegion(0).front()) {
    if (isa<linalg::YieldOp>(inner))
      continue;
    if (inner.getNumRegions() != 0)
      return std::nullopt;
    ++s.payloadOps;
    if (isMemoryEffectFree(&inner))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects)
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (!isa<MemoryEffects::Read>(e.getEffect()) || !e.getValue() ||
          llvm::is_contained(written, viewRoot(e.getValue())))
        return std::nullopt;
  }
  s.payloadOps = std::max<int64_t>(s.payloadOps, 1);
  SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above) {
    if (matchPattern(v, m_Constant())) {
      s.constants.push_back(v);
      continue;
    }
    if (!isSlotScalar(v.getType()) && !isSlotMemRef(v.getType()))
      return std::nullopt;
    s.captures.push_back(v);
  }

  // The prefix: leading parallel loops until there are enough tasks (or
  // the group's).
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t tasks = 1;
  if (!groupRanges.empty()) {
    if (groupRanges.size() > iters.size())
      return std::nullopt;
    for (auto [l, r] : llvm::enumerate(groupRanges)) {
      if (iters[l] != utils::IteratorType::parallel || ranges[l] != r)
        return std::nullopt;
      tasks *= r;
    }
    s.prefix = groupRanges.size();
  }
  while (groupRanges.empty() && s.prefix < iters.size() &&
         iters[s.prefix] == utils::IteratorType::parallel) {
    int64_t r = ranges[s.prefix++];
    if (ShapedType::isDynamic(r))
      break;
    tasks *= r;
    if (tasks >= minTasks)
      break;
  }
  if (s.prefix == 0)
    return std::nullopt;
  bool allStatic = !llvm::any_of(ranges, ShapedType::isDynamic);
  if (allStatic && tasks < 2)
    return std::nullopt;
  if (allStatic) {
    constexpr int64_t kCap = int64_t{1} << 50;
    int64_t work = s.payloadOps;
    for (int64_t r : ranges)
      work = r == 0 ? 0 : work > kCap / r ? kCap : work * r;
    s.staticWork = work;
  }

  // Each operand is indexed by a prefix loop through a plain dimension (or
  // not at all); every output by all of them.
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<int64_t> dims(s.prefix, -1);
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(expr)) {
        if (d.getPosition() < s.prefix) {
          if (dims[d.getPosition()] != -1)
            return std::nullopt;
          dims[d.getPosition()] = pos;
        }
        continue;
      }
      for (unsigned l = 0; l < s.prefix; ++l)
        if (expr.isFunctionOfDim(l))
          return std::nullopt;
    }
    if (op.isDpsInit(&operand) && llvm::is_contained(dims, -1))
      return std::nullopt;
    s.dimOf.push_back(std::move(dims));
  }

  // An input that aliases an output must be read where it is written.
  for (OpOperand &init : op.getDpsInitsMutable())
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          viewRoot(input->get()) == viewRoot(init.get()) &&
          (input->get() != init.get() ||
           op.getMatchingIndexingMap(input) !=
               op.getMatchingIndexingMap(&init)))
        return std::nullopt;
  return s;
}

/// Whether the buffers a group writes are accessed row-locally: every
/// member reaches each of them through the same view, indexing every split
/// loop by the same dimension. Then a slice of the prefix can run all the
/// members one after another before the next slice starts: what a member
/// reads of a buffer another one writes is the same slice, already written
/// by the earlier members (or not yet overwritten by the later ones).
bool rowLocal(ArrayRef<Split> members) {
  DenseSet<Value> written;
  for (const Split &s : members)
    for (Value init : linalg::LinalgOp(s.op).getDpsInits())
      written.insert(viewRoot(init));
  DenseMap<Value, std::pair<Value, ArrayRef<int64_t>>> access;
  for (const Split &s : members) {
    for (auto [i, v] : llvm::enumerate(s.op->getOperands())) {
      if (!isa<MemRefType>(v.getType()) || !written.contains(viewRoot(v)))
        continue;
      ArrayRef<int64_t> dims = s.dimOf[i];
      if (llvm::is_contained(dims, -1))
        return false;
      auto [it, inserted] = access.try_emplace(viewRoot(v), v, dims);
      if (!inserted && (it->second.first != v || it->second.second != dims))
        return false;
    }
    for (Value v : s.captures)
      if (isa<MemRefType>(v.getType()) && written.contains(viewRoot(v)))
        return false;
  }
  return true;
}

/// Consecutive ops of a block split the same way (one task function for
/// all of them), the deallocations between them that move after the call,
/// and how many prefix points a task runs through all members at a time.
struct Group {
  SmallVector<Split> members;
  SmallVector<Operation *> sink;
  int64_t chunk = 0; // 0: the task's whole range at once
};

/// Bytes one prefix point of the group touches in the buffers it splits
/// (each distinct view once); nullopt when a shape is dynamic.
std::optional<int64_t> bytesPerPoint(ArrayRef<Split> members) {
  DenseMap<Value, int64_t> bytes;
  for (const Split &s : members)
    for (auto [i, v] : llvm::enumerate(s.op->getOperands())) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || llvm::all_of(s.dimOf[i], [](int64_t d) { return d < 0; }))
        continue;
      int64_t n = (type.getElementTypeBitWidth() + 7) / 8;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (llvm::is_contained(s.dimOf[i], d))
          continue;
        if (type.isDynamicDim(d))
          return std::nullopt;
        n *= type.getDimSize(d);
      }
      bytes[v] = n;
    }
  int64_t total = 0;
  for (auto &entry : bytes)
    total += entry.second;
  return total;
}

/// Builds the task function and the call site of a group of splits (one
/// op, or consecutive ops of one block with the same prefix).
class Outliner {
public:
  Outliner(ModuleOp module, const Group &g, int64_t minWork)
      : module(module), g(g), members(g.members), minWork(minWork),
        loc(members.front().op->getLoc()), b(members.back().op) {
    MLIRContext *ctx = module.getContext();
    i64 = IntegerType::get(ctx, 64);
    ptrTy = LLVM::LLVMPointerType::get(ctx);
  }

  void run(StringRef name);

private:
  Value cstI64(OpBuilder &ob, int64_t v) {
    return arith::ConstantIntOp::create(ob, loc, i64, v);
  }
  Value toI64(OpBuilder &ob, Value v);
  /// Appends the slots that carry `v` to the task.
  void pushSlots(Value v, SmallVectorImpl<Value> &slots);
  Value fromI64(OpBuilder &ob, Value v, Type t);
  func::FuncOp buildTask(StringRef name, unsigned numSlots);
  /// The member's clone on the slice [offsets, offsets + sizes) of the
  /// prefix, at `tb`.
  void emitMember(OpBuilder &tb, const Split &s, const IRMapping &shared,
                  ArrayRef<Value> offsets, ArrayRef<OpFoldResult> sizes,
                  scf::ForOp pointLoop);

  ModuleOp module;
  const Group &g;
  ArrayRef<Split> members;
  int64_t minWork;
  Location loc;
  OpBuilder b;
  Type i64, ptrTy;
  /// The operands and captures of all members, each once, in slot order.
  SetVector<Value> values;
};

Value Outliner::toI64(OpBuilder &ob, Value v) {
  Type t = v.getType();
  if (t.isIndex())
    return arith::IndexCastOp::create(ob, loc, i64, v);
  if (auto f = dyn_cast<FloatType>(t))
    v = arith::BitcastOp::create(ob, loc, ob.getIntegerType(f.getWidth()), v);
  if (v.getType() == i64)
    return v;
  return arith::ExtUIOp::create(ob, loc, i64, v);
}

Value Outliner::fromI64(OpBuilder &ob, Value v, Type t) {
  if (t.isIndex())
    return arith::IndexCastOp::create(ob, loc, t, v);
  unsigned width = t.getIntOrFloatBitWidth();
  if (width < 64)
    v = arith::TruncIOp::create(ob, loc, ob.getIntegerType(width), v);
  if (isa<FloatType>(t))
    v = arith::BitcastOp::create(ob, loc, t, v);
  return v;
}

void Outliner::pushSlots(Value v, SmallVectorImpl<Value> &slots) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type) {
    slots.push_back(toI64(b, v));
    return;
  }
  slots.push_back(
      toI64(b, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v)));
  // Only the fields the type leaves dynamic travel.
  SmallVector<int64_t> fields = staticFields(type);
  if (!llvm::any_of(fields, ShapedType::isDynamic))
    return;
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, v);
  SmallVector<Value> values = {meta.getOffset()};
  llvm::append_range(values, meta.getSizes());
  llvm::append_range(values, meta.getStrides());
  for (auto [field, value] : llvm::zip_equal(fields, values))
    if (ShapedType::isDynamic(field))
      slots.push_back(toI64(b, value));
}

void Outliner::run(StringRef name) {
  // Slots: per memref operand its aligned pointer and the offset, sizes and
  // strides its type leaves dynamic; per scalar operand or capture its
  // bits. Each value once, however many members use it.
  for (const Split &s : members) {
    values.insert(s.op->operand_begin(), s.op->operand_end());
    values.insert(s.captures.begin(), s.captures.end());
  }
  SmallVector<Value> slots;
  for (Value v : values)
    pushSlots(v, slots);
  // Tasks: the product of the prefix ranges, read off the first member's
  // first output (which indexes all of them).
  const Split &first = members.front();
  linalg::LinalgOp firstOp = first.op;
  OpOperand *init = firstOp.getDpsInitOperand(0);
  unsigned initIdx = init->getOperandNumber();
  Value tasks;
  for (unsigned l = 0; l < first.prefix; ++l) {
    Value dim = b.createOrFold<memref::DimOp>(loc, init->get(),
                                              first.dimOf[initIdx][l]);
    Value range = b.createOrFold<arith::IndexCastOp>(loc, i64, dim);
    tasks = tasks ? b.createOrFold<arith::MulIOp>(loc, tasks, range) : range;
  }

  func::FuncOp task = buildTask(name, slots.size());

  // The slot block lives in the entry block of the function (the op may
  // sit in a loop).
  auto parent = first.op->getParentOfType<FunctionOpInterface>();
  OpBuilder entry(parent.getFunctionBody());
  auto ctxType = MemRefType::get({static_cast<int64_t>(slots.size())}, i64);
  Value ctx = memref::AllocaOp::create(entry, loc, ctxType,
                                       entry.getI64IntegerAttr(8));
  for (auto [i, v] : llvm::enumerate(slots))
    memref::StoreOp::create(
        b, loc, v, ctx,
        ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
  Value ctxAddr = toI64(
      b, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, ctx));
  Value ctxPtr = LLVM::IntToPtrOp::create(b, loc, ptrTy, ctxAddr);
  Value fn = func::ConstantOp::create(b, loc, task.getFunctionType(),
                                      SymbolRefAttr::get(task));
  auto parallelFor = [&](OpBuilder &ob) {
    cpu::callRuntime(ob, loc, module, "octet_parallel_for", {},
                     {tasks, fn, ctxPtr});
  };

  if (llvm::all_of(members, [](const Split &s) { return s.staticWork; })) {
    parallelFor(b);
  } else {
    // Work known at run time: iterations x payload ops against minWork.
    Value work;
    for (const Split &s : members) {
      Value w = cstI64(b, s.payloadOps);
      linalg::LinalgOp op = s.op;
      for (Range r : op.createLoopRanges(b, loc))
        w = b.createOrFold<arith::MulIOp>(
            loc, w, toI64(b, getValueOrCreateConstantIndexOp(b, loc, r.size)));
      work = work ? b.createOrFold<arith::AddIOp>(loc, work, w) : w;
    }
    Value big = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, work,
                                      cstI64(b, minWork));
    auto ifOp = scf::IfOp::create(b, loc, big, /*withElseRegion=*/true);
    OpBuilder thenB = ifOp.getThenBodyBuilder();
    parallelFor(thenB);
    OpBuilder elseB = ifOp.getElseBodyBuilder();
    func::CallOp::create(elseB, loc, task,
                         ValueRange{ctxPtr, cstI64(elseB, 0), tasks});
  }
  // Buffers freed between the members are freed after the call.
  for (Operation *dealloc : g.sink)
    dealloc->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
  for (const Split &s : members)
    s.op->erase();
}

void Outliner::emitMember(OpBuilder &tb, const Split &s,
                          const IRMapping &shared, ArrayRef<Value> offsets,
                          ArrayRef<OpFoldResult> sizes, scf::ForOp pointLoop) {
  linalg::LinalgOp op = s.op;
  // The clone's operands, set by position: one buffer may be two operands
  // with different slices (x and x transposed).
  SmallVector<Value> operands;
  for (auto [i, orig] : llvm::enumerate(op->getOperands())) {
    Value v = shared.lookup(orig);
    operands.push_back(v);
    auto memrefType = dyn_cast<MemRefType>(v.getType());
    const SmallVector<int64_t> &dims = s.dimOf[i];
    if (!memrefType || llvm::all_of(dims, [](int64_t d) { return d < 0; }))
      continue;
    int64_t rank = memrefType.getRank();
    SmallVector<OpFoldResult> offs(rank, tb.getIndexAttr(0)), szs;
    SmallVector<OpFoldResult> strides(rank, tb.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      szs.push_back(memref::getMixedSize(tb, loc, v, d));
    for (unsigned l = 0; l < s.prefix; ++l)
      if (dims[l] >= 0) {
        offs[dims[l]] = offsets[l];
        szs[dims[l]] = sizes[l];
      }
    operands.back() = memref::SubViewOp::create(tb, loc, v, offs, szs, strides);
  }
  // A reduction (LayerNorm's statistics, softmax's max and sum, the
  // per-token absmax of dynamic quantization) accumulates into its outputs
  // with a load and a store per element: LLVM cannot keep the running value
  // in a register while the output is a pointer it cannot prove distinct
  // from the inputs (all are rebuilt from slots; analyze() left serial the
  // ops whose inputs share a buffer with an output). The task reduces into
  // a fresh buffer instead (malloc: nothing else aliases it), copied in
  // before and out after: the same operations in the same order.
  struct LocalOutput {
    Value local, slice;
    bool perTask; // allocated before the point loop, freed after it
  };
  SmallVector<LocalOutput> copyOut;
  if (op.getNumReductionLoops() > 0)
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Value slice = operands[init.getOperandNumber()];
      auto type = dyn_cast<MemRefType>(slice.getType());
      if (!type)
        continue;
      // One buffer per task when the slice's shape is static (a prefix
      // point's), else one per slice.
      bool hoist = pointLoop && type.hasStaticShape();
      OpBuilder ab = tb;
      if (hoist)
        ab.setInsertionPoint(pointLoop);
      SmallVector<Value> dynSizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dynSizes.push_back(memref::DimOp::create(ab, loc, slice, d));
      Value local = memref::AllocOp::create(
          ab, loc, MemRefType::get(type.getShape(), type.getElementType()),
          dynSizes);
      linalg::CopyOp::create(tb, loc, slice, local);
      operands[init.getOperandNumber()] = local;
      copyOut.push_back({local, slice, hoist});
      if (hoist) {
        OpBuilder db = tb;
        db.setInsertionPointAfter(pointLoop);
        memref::DeallocOp::create(db, loc, local);
      }
    }
  IRMapping mapping = shared;
  Operation *clone = tb.clone(*op, mapping);
  clone->setOperands(operands);
  for (const LocalOutput &out : copyOut) {
    linalg::CopyOp::create(tb, loc, out.local, out.slice);
    if (!out.perTask)
      memref::DeallocOp::create(tb, loc, out.local);
  }
  // linalg.index of a prefix loop counts from the slice's offset.
  SmallVector<linalg::IndexOp> indices;
  clone->walk([&](linalg::IndexOp idx) {
    if (idx.getDim() < s.prefix)
      indices.push_back(idx);
  });
  for (linalg::IndexOp idx : indices) {
    OpBuilder ib(idx->getContext());
    ib.setInsertionPointAfter(idx);
    auto sum = arith::AddIOp::create(ib, loc, idx, offsets[idx.getDim()]);
    idx.getResult().replaceAllUsesExcept(sum, sum.getOperation());
  }
}

func::FuncOp Outliner::buildTask(StringRef name,
                                 [[maybe_unused]] unsigned numSlots) {
  MLIRContext *ctx = module.getContext();
  OpBuilder mb(ctx);
  mb.setInsertionPointToEnd(module.getBody());
  // The buffers the members read and write, in the order of their slots,
  // and which of them LLVM may treat as `noalias`: a buffer no other
  // value's view shares, or one that shares it only with other read-only
  // values. Without that LLVM cannot reorder loads and stores of pointers
  // it rebuilds from integers, and the loops of a transpose or a broadcast
  // stay scalar.
  DenseSet<Value> writtenValues;
  for (const Split &s : members)
    for (Value init : linalg::LinalgOp(s.op).getDpsInits())
      writtenValues.insert(init);
  SmallVector<Value> buffers;
  SmallVector<bool> isWritten;
  for (Value v : values)
    if (isa<MemRefType>(v.getType())) {
      buffers.push_back(v);
      isWritten.push_back(writtenValues.contains(v));
    }
  SmallVector<Type> bodyArgs = {ptrTy, i64, i64};
  bodyArgs.append(buffers.size(), ptrTy);

  // The task (ctx, begin, end) loads the buffers' pointers and calls the
  // body, which takes them as `noalias` arguments where that holds; LLVM
  // inlines it and keeps the aliasing facts as scoped metadata.
  auto bodyFn = func::FuncOp::create(mb, loc, (name + "_body").str(),
                                     FunctionType::get(ctx, bodyArgs, {}));
  bodyFn.setPrivate();
  bodyFn->setAttr(kTaskAttrName, UnitAttr::get(ctx));
  for (size_t i = 0; i < buffers.size(); ++i) {
    bool shared = false;
    for (size_t j = 0; j < buffers.size(); ++j)
      shared |= j != i && viewRoot(buffers[j]) == viewRoot(buffers[i]) &&
                (isWritten[i] || isWritten[j]);
    if (!shared)
      bodyFn.setArgAttr(3 + i, LLVM::LLVMDialect::getNoAliasAttrName(),
                        UnitAttr::get(ctx));
  }
  auto type = FunctionType::get(ctx, {ptrTy, i64, i64}, {});
  auto f = func::FuncOp::create(mb, loc, name, type);
  f.setPrivate();
  f->setAttr(kTaskAttrName, UnitAttr::get(ctx));
  Block *body = bodyFn.addEntryBlock();
  OpBuilder tb = OpBuilder::atBlockBegin(body);
  Value ctxArg = body->getArgument(0);
  Value lo = body->getArgument(1), hi = body->getArgument(2);

  unsigned next = 0;
  auto slotAt = [&](OpBuilder &lb, Value ctxPtr, unsigned i) {
    Value p =
        LLVM::GEPOp::create(lb, loc, ptrTy, i64, ctxPtr,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    return LLVM::LoadOp::create(lb, loc, i64, p, /*alignment=*/8).getResult();
  };
  auto slot = [&]() { return slotAt(tb, ctxArg, next++); };
  SmallVector<unsigned> pointerSlots;
  auto index = [&](Value v) {
    return arith::IndexCastOp::create(tb, loc, tb.getIndexType(), v)
        .getResult();
  };

  // The operands and captures, rebuilt from their slots.
  auto rebuild = [&](Type type) -> Value {
    auto memrefType = dyn_cast<MemRefType>(type);
    if (!memrefType)
      return fromI64(tb, slot(), type);
    int64_t rank = memrefType.getRank();
    SmallVector<Type> fields = {ptrTy, ptrTy, i64};
    if (rank > 0) {
      fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
      fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    }
    auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
    Value desc = LLVM::PoisonOp::create(tb, loc, descType);
    // The pointer is the body's argument; the task loads its slot.
    Value ptr = body->getArgument(3 + pointerSlots.size());
    pointerSlots.push_back(next++);
    desc = LLVM::InsertValueOp::create(tb, loc, desc, ptr,
                                       ArrayRef<int64_t>{0});
    desc = LLVM::InsertValueOp::create(tb, loc, desc, ptr,
                                       ArrayRef<int64_t>{1});
    SmallVector<SmallVector<int64_t>> positions = {{2}};
    for (int64_t field : {3, 4})
      for (int64_t d = 0; d < rank; ++d)
        positions.push_back({field, d});
    for (auto [field, pos] :
         llvm::zip_equal(staticFields(memrefType), positions)) {
      Value value = ShapedType::isDynamic(field) ? slot()
                                                 : cstI64(tb, field);
      desc = LLVM::InsertValueOp::create(tb, loc, desc, value, pos);
    }
    return UnrealizedConversionCastOp::create(tb, loc, memrefType, desc)
        .getResult(0);
  };
  IRMapping shared;
  for (Value v : values)
    shared.map(v, rebuild(v.getType()));
  SetVector<Value> constants;
  for (const Split &s : members)
    constants.insert(s.constants.begin(), s.constants.end());
  for (Value v : constants)
    shared.map(v, tb.clone(*v.getDefiningOp())
                      ->getResult(cast<OpResult>(v).getResultNumber()));
  assert(next == numSlots && "slot layout mismatch");

  // The task's part of the prefix: one range of d0 when the prefix is one
  // loop (for a group, `chunk` points at a time through all members), else
  // one point of the prefix per iteration.
  const Split &first = members.front();
  Value one = arith::ConstantIndexOp::create(tb, loc, 1);
  SmallVector<Value> offsets;
  SmallVector<OpFoldResult> sizes;
  scf::ForOp pointLoop; // one prefix point per iteration (prefix > 1)
  if (first.prefix == 1 && g.chunk > 0) {
    Value hiIdx = index(hi);
    Value step = arith::ConstantIndexOp::create(tb, loc, g.chunk);
    auto loop = scf::ForOp::create(tb, loc, index(lo), hiIdx, step);
    tb.setInsertionPoint(loop.getBody()->getTerminator());
    Value at = loop.getInductionVar();
    Value left = arith::SubIOp::create(tb, loc, hiIdx, at);
    offsets.push_back(at);
    sizes.push_back(arith::MinSIOp::create(tb, loc, left, step).getResult());
  } else if (first.prefix == 1) {
    offsets.push_back(index(lo));
    sizes.push_back(index(arith::SubIOp::create(tb, loc, hi, lo)));
  } else {
    auto loop = scf::ForOp::create(tb, loc, index(lo), index(hi), one);
    pointLoop = loop;
    tb.setInsertionPoint(loop.getBody()->getTerminator());
    Value rest = loop.getInductionVar();
    // The prefix ranges, from the rebuilt first output: constants when the
    // type fixes them.
    unsigned initIdx =
        linalg::LinalgOp(first.op).getDpsInitOperand(0)->getOperandNumber();
    Value firstInit = shared.lookup(first.op->getOperand(initIdx));
    offsets.resize(first.prefix);
    for (int l = static_cast<int>(first.prefix) - 1; l >= 0; --l) {
      Value r = getValueOrCreateConstantIndexOp(
          tb, loc,
          memref::getMixedSize(tb, loc, firstInit, first.dimOf[initIdx][l]));
      offsets[l] = l == 0 ? rest : arith::RemUIOp::create(tb, loc, rest, r);
      if (l > 0)
        rest = arith::DivUIOp::create(tb, loc, rest, r);
    }
    sizes.assign(first.prefix, tb.getIndexAttr(1));
  }
  for (const Split &s : members)
    emitMember(tb, s, shared, offsets, sizes, pointLoop);
  tb.setInsertionPointToEnd(body);
  func::ReturnOp::create(tb, loc);

  Block *entry = f.addEntryBlock();
  OpBuilder eb = OpBuilder::atBlockBegin(entry);
  SmallVector<Value> args(entry->getArguments());
  for (unsigned i : pointerSlots)
    args.push_back(LLVM::IntToPtrOp::create(
        eb, loc, ptrTy, slotAt(eb, entry->getArgument(0), i)));
  func::CallOp::create(eb, loc, bodyFn, args);
  func::ReturnOp::create(eb, loc);
  return f;
}

/// Splits the ops of one block into groups: runs of consecutive splittable
/// ops with the same static prefix ranges whose buffers are row-local
/// (rowLocal), with only allocations, deallocations (moved after the
/// group) and ops without memory effects between them. A `memref.copy` of
/// whole contiguous buffers joins a group as `linalg.copy` (the reduction
/// outputs' initial values); alone it stays a copy.
class Grouper {
public:
  Grouper(int64_t minTasks, int64_t minWork, int64_t chunkBytes)
      : minTasks(minTasks), minWork(minWork), chunkBytes(chunkBytes) {}

  void scan(Block &block);
  /// Drops the `linalg.copy` ops made for copies that joined no group and
  /// the `memref.copy` ops of those that did.
  void settleCopies();

  std::vector<Group> groups;

private:
  void flush();

  int64_t minTasks, minWork, chunkBytes;
  SmallVector<Split> current;
  SmallVector<int64_t> ranges;
  SmallVector<Operation *> pendingSink;
  size_t sinkBeforeLast = 0;
  /// linalg.copy made for a memref.copy -> that memref.copy.
  DenseMap<Operation *, Operation *> madeCopies;
  DenseSet<Operation *> keptCopies;
};

void Grouper::flush() {
  auto isMadeCopy = [&](const Split &s) {
    return madeCopies.count(static_cast<Operation *>(s.op)) != 0;
  };
  int64_t work = 0;
  bool allStatic = true;
  for (const Split &s : current) {
    allStatic &= s.staticWork.has_value();
    if (s.staticWork)
      work += *s.staticWork;
  }
  if (current.size() >= 2 && allStatic && work >= minWork) {
    Group g;
    g.members = current;
    g.sink.assign(pendingSink.begin(), pendingSink.begin() + sinkBeforeLast);
    std::optional<int64_t> bytes = bytesPerPoint(current);
    // Points a task runs through all members before the next ones: enough
    // that their buffers stay in the L2 cache, a multiple of 16 (the rows
    // octet-vectorize-rows puts in the lanes of a vector).
    if (current.front().prefix == 1 && bytes && *bytes > 0)
      g.chunk = std::max<int64_t>(16, chunkBytes / *bytes / 16 * 16);
    for (const Split &s : current)
      if (isMadeCopy(s))
        keptCopies.insert(static_cast<Operation *>(s.op));
    groups.push_back(std::move(g));
  } else if (current.size() == 1 && !isMadeCopy(current.front()) &&
             (!current.front().staticWork ||
              *current.front().staticWork >= minWork)) {
    Group g;
    g.members = current;
    groups.push_back(std::move(g));
  }
  current.clear();
  ranges.clear();
  pendingSink.clear();
  sinkBeforeLast = 0;
}

void Grouper::scan(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    Operation *candidate = &op;
    if (auto copy = dyn_cast<memref::CopyOp>(op); copy && chunkBytes > 0) {
      auto src = cast<MemRefType>(copy.getSource().getType());
      auto dst = cast<MemRefType>(copy.getTarget().getType());
      if (!src.getLayout().isIdentity() || !dst.getLayout().isIdentity() ||
          src.getShape() != dst.getShape()) {
        flush();
        continue;
      }
      OpBuilder cb(copy);
      candidate = linalg::CopyOp::create(cb, copy.getLoc(), copy.getSource(),
                                         copy.getTarget());
      madeCopies[candidate] = copy;
    }
    if (auto lop = dyn_cast<linalg::LinalgOp>(candidate)) {
      if (!current.empty() && chunkBytes > 0) {
        if (std::optional<Split> s = analyze(lop, minTasks, ranges)) {
          current.push_back(std::move(*s));
          if (rowLocal(current)) {
            sinkBeforeLast = pendingSink.size();
            continue;
          }
          current.pop_back();
        }
        flush();
      }
      flush();
      if (std::optional<Split> s = analyze(lop, minTasks)) {
        SmallVector<int64_t> r = lop.getStaticLoopRanges();
        current.push_back(std::move(*s));
        ranges.assign(r.begin(), r.begin() + current.back().prefix);
        if (llvm::any_of(ranges, ShapedType::isDynamic))
          flush(); // a group needs static prefix ranges
      }
      continue;
    }
    if (isa<memref::DeallocOp>(op)) {
      if (!current.empty())
        pendingSink.push_back(&op);
      continue;
    }
    if (isa<memref::AllocOp, memref::AllocaOp>(op) || isMemoryEffectFree(&op))
      continue;
    flush();
  }
  flush();
}

void Grouper::settleCopies() {
  for (auto [made, copy] : madeCopies) {
    if (keptCopies.contains(made))
      copy->erase();
    else
      made->erase();
  }
}

struct OctetParallelizeLoopsPass
    : public mlir::octet::impl::OctetParallelizeLoopsBase<
          OctetParallelizeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (minWork < 0 || minTasks < 1 || chunkBytes < 0) {
      module.emitError() << "octet-parallelize-loops: min-work must be >= 0, "
                            "min-tasks >= 1 and chunk-bytes >= 0";
      return signalPassFailure();
    }
    stridedCopiesToLinalg(module);
    // chunk-bytes=0: every op on its own, as before groups existed.
    Grouper grouper(minTasks, minWork, chunkBytes);
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal() || f->hasAttr(kTaskAttrName))
        continue;
      SmallVector<Block *> blocks;
      f.walk([&](Block *block) { blocks.push_back(block); });
      for (Block *block : blocks)
        grouper.scan(*block);
    }
    unsigned counter = 0;
    SymbolTable symbols(module);
    for (const Group &g : grouper.groups) {
      std::string name;
      do {
        name = "__octet_parallel_" + std::to_string(counter++);
      } while (symbols.lookup(name));
      Outliner(module, g, minWork).run(name);
    }
    grouper.settleCopies();
  }
};

} // namespace
