//===- IntoEntries.cpp - Entries that write into the caller's buffers -----===//
//
// octet-into-entries: for each public function @f of a bufferized module
// whose results are all ranked identity-layout memrefs, adds
// @f_into(out buffers..., args...) -> i32, which writes the results into
// buffers the caller allocated (0), or reports a buffer that does not fit
// and returns 1. Results that are allocations of the body sized from the
// arguments are replaced by the caller's buffers (checked before anything
// runs), and @f becomes a wrapper that allocates them and calls @f_into;
// other results are copied.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETINTOENTRIES
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;

namespace {

/// The runtime's report of a buffer that does not fit (OctetRuntime.h).
constexpr StringLiteral kMismatchFn = "octet_into_mismatch";
/// What octet_into_mismatch reports (its `what` argument).
enum Mismatch : int64_t {
  kSize = 0,
  kStride = 1,
  kOffset = 2,
  kOverlapsArgument = 3,
  kOverlapsResult = 4
};

/// How one result reaches the caller's buffer.
struct ResultPlan {
  /// The allocation the caller's buffer replaces; null: copy the result.
  memref::AllocOp alloc;
  /// Its dynamic sizes and alignment (for @f's wrapper, made after the
  /// allocation is gone).
  SmallVector<Value> dynamicSizes;
  IntegerAttr alignment;
};

/// The root of `v` through memref.cast (the same buffer).
Value castRoot(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

/// Appends to `slice` (in block order) the operations of `entry` that
/// compute `v` from the entry block's arguments; false when one has memory
/// effects or regions or lies outside `entry`.
bool collectSizeSlice(Value v, Block *entry,
                      llvm::SetVector<Operation *> &slice) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == entry;
  Operation *def = v.getDefiningOp();
  if (slice.contains(def))
    return true;
  if (def->getBlock() != entry || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands())
    if (!collectSizeSlice(operand, entry, slice))
      return false;
  slice.insert(def);
  return true;
}

/// The type of an out buffer: `t`'s shape and element type with every
/// stride and the offset dynamic (checked at run time).
MemRefType outBufferType(MemRefType t) {
  SmallVector<int64_t> strides(t.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(t.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(t.getShape(), t.getElementType(), layout,
                         t.getMemorySpace());
}

class IntoEntriesBuilder {
public:
  IntoEntriesBuilder(ModuleOp module, func::FuncOp f)
      : module(module), f(f), b(f.getContext()), loc(f.getLoc()) {}

  LogicalResult run();

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i64(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }
  /// `ok` and, when false at run time, octet_into_mismatch(name, result,
  /// what, dim, expected, got) called.
  Value check(Value ok, int64_t result, Mismatch what, int64_t dim,
              Value expected, Value got);
  /// Checks `out` (the caller's buffer for result `result`) against the
  /// sizes `sizes`: its sizes, row-major strides (dimensions of size 1
  /// excepted), offset 0. Returns the conjunction.
  Value checkBuffer(Value out, int64_t result, ArrayRef<Value> sizes);
  /// Checks that no two of the out buffers `outs` and the memref arguments
  /// `args` share a byte (the kernels take every buffer as unaliased).
  Value checkOverlaps(ValueRange outs, ValueRange args);
  /// `out` as a memref of the result type `t` with sizes `sizes` (offset
  /// 0, row-major: what checkBuffer checked).
  Value asResult(Value out, MemRefType t, ArrayRef<Value> sizes);
  /// The byte range [first, end) of a contiguous buffer: its aligned
  /// pointer and sizes.
  std::pair<Value, Value> byteRange(Value buffer, ValueRange sizes);
  /// The sizes of result `i` of type `t` from `dynamicSizes` (the alloc's
  /// operands, mapped) and the static ones.
  SmallVector<Value> sizesOf(MemRefType t, ValueRange dynamicSizes);

  ModuleOp module;
  func::FuncOp f;
  OpBuilder b;
  Location loc;
  Value name; // the entry's name, a C string
};

Value IntoEntriesBuilder::check(Value ok, int64_t result, Mismatch what,
                                int64_t dim, Value expected, Value got) {
  Value bad = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantIntOp::create(b, loc, 1, /*width=*/1));
  auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, /*width=*/64);
  };
  octet::cpu::callRuntime(b, loc, module, kMismatchFn, TypeRange{},
                          ValueRange{name, c64(result), c64(what), c64(dim),
                                     i64(expected), i64(got)});
  return ok;
}

Value IntoEntriesBuilder::checkBuffer(Value out, int64_t result,
                                      ArrayRef<Value> sizes) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, out);
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  };
  Value ok = check(eq(meta.getOffset(), idx(0)), result, kOffset, 0, idx(0),
                   meta.getOffset());
  int64_t rank = sizes.size();
  for (int64_t d = 0; d < rank; ++d) {
    Value got = meta.getSizes()[d];
    ok = arith::AndIOp::create(
        b, loc, ok, check(eq(got, sizes[d]), result, kSize, d, sizes[d], got));
  }
  // Row-major strides; a dimension of size 1 is never stepped along.
  Value stride = idx(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value got = meta.getStrides()[d];
    Value fits = arith::OrIOp::create(
        b, loc, eq(got, stride),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, sizes[d],
                              idx(1)));
    ok = arith::AndIOp::create(b, loc, ok,
                               check(fits, result, kStride, d, stride, got));
    stride = arith::MulIOp::create(b, loc, stride, sizes[d]);
  }
  return ok;
}

std::pair<Value, Value> IntoEntriesBuilder::byteRange(Value buffer,
                                                      ValueRange sizes) {
  auto t = cast<MemRefType>(buffer.getType());
  Value bytes = idx(static_cast<int64_t>(
      DataLayout::closest(f).getTypeSize(t.getElementType())));
  for (Value size : sizes)
    bytes = arith::MulIOp::create(b, loc, bytes, size);
  Value first = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return {first, arith::AddIOp::create(b, loc, first, bytes)};
}

Value IntoEntriesBuilder::checkOverlaps(ValueRange outs, ValueRange args) {
  auto sizesOfBuffer = [&](Value v) {
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < cast<MemRefType>(v.getType()).getRank(); ++d)
      sizes.push_back(memref::DimOp::create(b, loc, v, d));
    return sizes;
  };
  // Two non-empty ranges overlap when each starts before the other ends.
  auto disjoint = [&](std::pair<Value, Value> x, std::pair<Value, Value> y) {
    auto lt = [&](Value p, Value q) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p, q);
    };
    Value overlap = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, lt(x.first, y.second),
                              lt(y.first, x.second)),
        arith::AndIOp::create(b, loc, lt(x.first, x.second),
                              lt(y.first, y.second)));
    return arith::XOrIOp::create(b, loc, overlap,
                                 arith::ConstantIntOp::create(b, loc, 1, 1));
  };
  SmallVector<std::pair<Value, Value>> outRanges, argRanges;
  SmallVector<int64_t> argIndex;
  for (Value out : outs)
    outRanges.push_back(byteRange(out, sizesOfBuffer(out)));
  for (auto [j, a] : llvm::enumerate(args))
    if (auto t = dyn_cast<MemRefType>(a.getType());
        t && t.getLayout().isIdentity()) {
      argRanges.push_back(byteRange(a, sizesOfBuffer(a)));
      argIndex.push_back(j);
    }
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  Value zero = idx(0);
  for (auto [i, r] : llvm::enumerate(outRanges)) {
    for (auto [j, a] : llvm::zip(argIndex, argRanges))
      ok = arith::AndIOp::create(
          b, loc, ok,
          check(disjoint(r, a), i, kOverlapsArgument, j, zero, zero));
    for (int64_t j = 0; j < static_cast<int64_t>(i); ++j)
      ok = arith::AndIOp::create(
          b, loc, ok,
          check(disjoint(r, outRanges[j]), i, kOverlapsResult, j, zero, zero));
  }
  return ok;
}

Value IntoEntriesBuilder::asResult(Value out, MemRefType t,
                                   ArrayRef<Value> sizes) {
  auto [strides, offset] = t.getStridesAndOffset();
  SmallVector<OpFoldResult> sizeOfr, strideOfr;
  Value stride = idx(1);
  SmallVector<Value> rowMajor(t.getRank());
  for (int64_t d = t.getRank() - 1; d >= 0; --d) {
    rowMajor[d] = stride;
    stride = arith::MulIOp::create(b, loc, stride, sizes[d]);
  }
  for (int64_t d = 0; d < t.getRank(); ++d) {
    int64_t s = t.getShape()[d];
    sizeOfr.push_back(ShapedType::isDynamic(s) ? OpFoldResult(sizes[d])
                                               : b.getIndexAttr(s));
    strideOfr.push_back(ShapedType::isDynamic(strides[d])
                            ? OpFoldResult(rowMajor[d])
                            : b.getIndexAttr(strides[d]));
  }
  return memref::ReinterpretCastOp::create(
      b, loc, t, out, b.getIndexAttr(offset), sizeOfr, strideOfr);
}

SmallVector<Value> IntoEntriesBuilder::sizesOf(MemRefType t,
                                               ValueRange dynamicSizes) {
  SmallVector<Value> sizes;
  unsigned next = 0;
  for (int64_t s : t.getShape())
    sizes.push_back(ShapedType::isDynamic(s) ? dynamicSizes[next++] : idx(s));
  return sizes;
}

LogicalResult IntoEntriesBuilder::run() {
  std::string intoName = (f.getSymName() + "_into").str();
  if (module.lookupSymbol(intoName))
    return f.emitError("cannot add the entry '")
           << intoName << "': a symbol of that name exists";
  if (!f.getBody().hasOneBlock())
    return f.emitError("cannot add the entry '")
           << intoName << "': the function has several blocks";
  SmallVector<MemRefType> resultTypes;
  for (Type t : f.getResultTypes())
    resultTypes.push_back(cast<MemRefType>(t));
  int64_t numResults = resultTypes.size();

  // The entry: a clone of @f with the out buffers first and an i32 status.
  auto into = cast<func::FuncOp>(f->clone());
  into.setSymName(intoName);
  module.getBody()->getOperations().insertAfter(Block::iterator(f), into);
  Block *entry = &into.getBody().front();
  SmallVector<unsigned> positions(numResults, 0);
  SmallVector<Type> outTypes;
  for (MemRefType t : resultTypes)
    outTypes.push_back(outBufferType(t));
  SmallVector<DictionaryAttr> noAttrs(numResults);
  SmallVector<Location> locs(numResults, loc);
  if (failed(into.insertArguments(positions, outTypes, noAttrs, locs)))
    return f.emitError("cannot add the out buffers of '") << intoName << "'";
  into.setFunctionType(FunctionType::get(
      f.getContext(), into.getArgumentTypes(), {b.getI32Type()}));
  into.removeResAttrsAttr();
  auto ret = cast<func::ReturnOp>(entry->getTerminator());

  // Which results replace an allocation of the body.
  SmallVector<ResultPlan> plans(numResults);
  llvm::SetVector<Operation *> slice;
  // An allocation returned twice (through casts) is copied for both.
  llvm::DenseMap<Operation *, int> returned;
  for (Value r : ret.getOperands())
    if (Operation *root = castRoot(r).getDefiningOp())
      ++returned[root];
  for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
    auto alloc = castRoot(r).getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != entry ||
        alloc.getType() != resultTypes[i] || returned[alloc] != 1 ||
        llvm::any_of(alloc->getUsers(),
                     [](Operation *u) { return isa<memref::DeallocOp>(u); }))
      continue;
    llvm::SetVector<Operation *> sizeSlice = slice;
    if (!llvm::all_of(alloc.getDynamicSizes(), [&](Value v) {
          return collectSizeSlice(v, entry, sizeSlice);
        }))
      continue;
    slice = std::move(sizeSlice);
    plans[i].alloc = alloc;
    plans[i].dynamicSizes = llvm::to_vector(alloc.getDynamicSizes());
    plans[i].alignment = alloc.getAlignmentAttr();
  }
  SmallVector<Operation *> sliceOps = slice.takeVector();
  llvm::sort(sliceOps,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });

  // Checks first: the sizes of the replaced allocations, computed again
  // from the arguments.
  b.setInsertionPointToStart(entry);
  // A C string: the terminating NUL is part of the global.
  std::string cName = intoName;
  cName.push_back('\0');
  name = LLVM::createGlobalString(loc, b, "__octet_into_" + intoName, cName,
                                  LLVM::Linkage::Internal);
  IRMapping map;
  for (Operation *op : sliceOps)
    b.clone(*op, map);
  SmallVector<Value> outs(into.getArguments().take_front(numResults));
  Value ok = checkOverlaps(outs, into.getArguments().drop_front(numResults));
  SmallVector<Value> views(numResults);
  for (auto [i, plan] : llvm::enumerate(plans)) {
    if (!plan.alloc)
      continue;
    SmallVector<Value> dyn =
        llvm::map_to_vector(plan.alloc.getDynamicSizes(),
                            [&](Value v) { return map.lookupOrDefault(v); });
    SmallVector<Value> sizes = sizesOf(resultTypes[i], dyn);
    ok = arith::AndIOp::create(b, loc, ok, checkBuffer(outs[i], i, sizes));
    // A view op (no access): where the allocation's users write.
    views[i] = asResult(outs[i], resultTypes[i], sizes);
  }

  // The body runs when every checked buffer fits.
  auto guardOp = scf::IfOp::create(b, loc, TypeRange{b.getI32Type()}, ok,
                                   /*withElseRegion=*/true);
  Block *body = guardOp.thenBlock();
  body->getOperations().splice(body->end(), entry->getOperations(),
                               std::next(Block::iterator(guardOp)),
                               Block::iterator(ret));
  // Fixed-size stack slots stay in the entry block (LLVM treats allocas
  // elsewhere as dynamic).
  for (Operation &op : llvm::make_early_inc_range(*body))
    if (auto alloca = dyn_cast<memref::AllocaOp>(op);
        alloca && alloca->getNumOperands() == 0)
      alloca->moveBefore(guardOp);
  b.setInsertionPointToEnd(guardOp.elseBlock());
  scf::YieldOp::create(b, loc,
                       ValueRange{arith::ConstantIntOp::create(b, loc, 1, 32)});

  b.setInsertionPointToEnd(body);
  Value status = arith::ConstantIntOp::create(b, loc, 0, 32);
  llvm::SmallPtrSet<Operation *, 4> freed;
  for (auto [i, plan] : llvm::enumerate(plans)) {
    if (plan.alloc) {
      plan.alloc.getResult().replaceAllUsesWith(views[i]);
      plan.alloc.erase();
      continue;
    }
    // Computed as in @f: checked, copied and freed.
    Value r = ret.getOperand(i);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < resultTypes[i].getRank(); ++d)
      sizes.push_back(memref::DimOp::create(b, loc, r, d));
    Value fits = checkBuffer(outs[i], i, sizes);
    Value view = asResult(outs[i], resultTypes[i], sizes);
    auto copyIf = scf::IfOp::create(b, loc, TypeRange{b.getI32Type()}, fits,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(copyIf.thenBlock());
      memref::CopyOp::create(b, loc, r, view);
      scf::YieldOp::create(
          b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 0, 32)});
      b.setInsertionPointToStart(copyIf.elseBlock());
      scf::YieldOp::create(
          b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 1, 32)});
    }
    status = arith::OrIOp::create(b, loc, status, copyIf.getResult(0));
    // The result was the caller's to free; now it is ours (once, when it
    // is returned twice).
    if (auto root = castRoot(r).getDefiningOp<memref::AllocOp>();
        root && freed.insert(root).second)
      memref::DeallocOp::create(b, loc, r);
  }
  scf::YieldOp::create(b, loc, ValueRange{status});
  b.setInsertionPoint(ret);
  func::ReturnOp::create(b, loc, guardOp.getResult(0));
  ret.erase();

  // @f: the allocations, then @f_into; no second copy of the body. The
  // size computations are cloned from @f_into (where they still are).
  if (llvm::any_of(plans, [](const ResultPlan &p) { return !p.alloc; }))
    return success();
  auto *wrapper = new Block();
  for (BlockArgument a : f.getBody().getArguments())
    wrapper->addArgument(a.getType(), a.getLoc());
  IRMapping wmap;
  wmap.map(into.getArguments().drop_front(numResults), wrapper->getArguments());
  b.setInsertionPointToStart(wrapper);
  for (Operation *op : sliceOps)
    b.clone(*op, wmap);
  SmallVector<Value> results, callArgs;
  for (auto [i, plan] : llvm::enumerate(plans)) {
    Value alloc = memref::AllocOp::create(
        b, loc, resultTypes[i],
        llvm::map_to_vector(plan.dynamicSizes,
                            [&](Value v) { return wmap.lookupOrDefault(v); }),
        plan.alignment);
    results.push_back(alloc);
    callArgs.push_back(memref::CastOp::create(b, loc, outTypes[i], alloc));
  }
  llvm::append_range(callArgs, wrapper->getArguments());
  func::CallOp::create(b, loc, into, callArgs);
  func::ReturnOp::create(b, loc, results);
  f.getBody().getBlocks().clear();
  f.getBody().push_back(wrapper);
  return success();
}

struct OctetIntoEntriesPass
    : public octet::impl::OctetIntoEntriesBase<OctetIntoEntriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal() && f.getNumResults() > 0 &&
          llvm::all_of(f.getResultTypes(), [](Type t) {
            auto m = dyn_cast<MemRefType>(t);
            return m && m.getLayout().isIdentity();
          }))
        funcs.push_back(f);
    for (func::FuncOp f : funcs)
      if (failed(IntoEntriesBuilder(module, f).run()))
        return signalPassFailure();
  }
};

} // namespace
