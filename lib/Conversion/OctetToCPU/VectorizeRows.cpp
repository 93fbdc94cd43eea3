//===- VectorizeRows.cpp - Row reductions and element-wise rows as vectors ===//
//
// octet-vectorize-rows: bit-identical rewrites of linalg.generic ops on
// buffers whose bodies are element-wise arith / math on scalars.
//
// Row reductions: an op that reduces its last loop into an output indexed by
// the other loops (LayerNorm's sum and sum of squares, softmax's max and sum,
// the per-token absmax) runs as L rows at a time, one row per vector lane:
//
//   for r0 in [0, R - R % L) step L:          (rows: the last parallel loop)
//     acc = out[r0 .. r0 + L)
//     for k0 in [0, K - K % L) step L:
//       load L x L of each full operand (L rows, L consecutive k) and
//       transpose it in registers (log2 L rounds of two-source shuffles)
//       for j in [0, L): acc = body(column j of each operand, ..., acc)
//     for k in [K - K % L, K): acc = body(element k of the L rows, ..., acc)
//     out[r0 .. r0 + L) = acc
//   the rows R - R % L .. R: the original op on that slice
//
// Lane i computes exactly what the scalar loop computes for row r0 + i,
// with the same operations in the same k order, so the results are
// bit-identical (float sums keep their order: docs/numerics.md). What
// changes is that L independent rows share every instruction, where the
// scalar loop was one dependent chain of additions per row (4 cycles per
// element on the FP adder's latency; 8% of MiniLM W8A8 dynamic's time).
//
// Element-wise rows: an op with only parallel loops, writing f32 rows whose
// length is a static multiple of L, runs its last loop L elements at a time
// (vector loads of the inputs along it, one broadcast value of the others);
// LLVM otherwise unrolls short rows (softmax's 32 keys) completely and
// vectorizes across rows with gathers and scatters.
//
//===----------------------------------------------------------------------===//

#include "RegisterTranspose.h"

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETVECTORIZEROWS
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using mlir::octet::cpu::transposeInRegisters;
using mlir::octet::cpu::viewRoot;

namespace {

/// How an operand of the reduction is indexed by the loops (d0 .. dP-1
/// parallel, dP the reduction).
enum class Access { full, row, column };

/// The reductions this pass takes, and how each operand is read.
struct Candidate {
  linalg::GenericOp op;
  SmallVector<Access> access; // per input
  unsigned parallel = 0;      // P
};

bool isProjection(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumSymbols() != 0 || map.getNumResults() != dims.size())
    return false;
  for (auto [expr, d] : llvm::zip(map.getResults(), dims)) {
    auto de = dyn_cast<AffineDimExpr>(expr);
    if (!de || de.getPosition() != d)
      return false;
  }
  return true;
}

/// The op's body may be computed on vectors lane by lane: element-wise
/// arith / math ops on scalars (and constants), nothing that reads memory
/// or the loop indices.
bool vectorizableBody(Block &body) {
  for (Operation &op : body.without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return false;
    if (!isMemoryEffectFree(&op) || op.getNumRegions() != 0)
      return false;
    if (!op.hasTrait<OpTrait::Elementwise>() && !isa<arith::ConstantOp>(op))
      return false;
    for (Type t :
         llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
      if (!t.isIntOrFloat())
        return false;
  }
  return true;
}

/// The ops of a linalg body on vectors of `lanes` elements, lane by lane:
/// `args` are the values of the block's arguments (vectors, or scalars the
/// same for every lane; a null value for an argument the body does not
/// use). Ops whose operands are all scalars stay scalar; the others are
/// cloned with their uniform operands broadcast and their results retyped.
/// Returns the yielded value as a vector.
Value vectorBody(OpBuilder &b, Block &blk, ArrayRef<Value> args,
                 int64_t lanes) {
  IRMapping map;
  DenseSet<Value> vectors;
  for (auto [arg, v] : llvm::zip(blk.getArguments(), args)) {
    if (!v)
      continue;
    map.map(arg, v);
    if (isa<VectorType>(v.getType()))
      vectors.insert(v);
  }
  auto broadcast = [&](Value s) -> Value {
    return vector::BroadcastOp::create(
        b, s.getLoc(), VectorType::get({lanes}, s.getType()), s);
  };
  for (Operation &o : blk.without_terminator()) {
    bool anyVector = llvm::any_of(o.getOperands(), [&](Value v) {
      return vectors.contains(map.lookupOrDefault(v));
    });
    if (!anyVector) { // the same for every lane: stays a scalar
      b.clone(o, map);
      continue;
    }
    // The op itself (attributes, fastmath flags) on vectors: uniform
    // operands broadcast, results retyped.
    SmallVector<Value> operands;
    for (Value v : o.getOperands()) {
      Value m = map.lookupOrDefault(v);
      operands.push_back(vectors.contains(m) ? m : broadcast(m));
    }
    Operation *n = b.clone(o, map);
    n->setOperands(operands);
    for (auto [r, nr] : llvm::zip(o.getResults(), n->getResults())) {
      nr.setType(VectorType::get({lanes}, r.getType()));
      map.map(r, nr);
      vectors.insert(nr);
    }
  }
  Value y = map.lookupOrDefault(blk.getTerminator()->getOperand(0));
  return vectors.contains(y) ? y : broadcast(y);
}

/// Whether `a` and `b` are the same view: the same value, or subviews of
/// the same source with the same offsets, sizes and strides (a task body
/// slices an in-place op's buffer once per operand).
bool sameView(Value a, Value b) {
  if (a == b)
    return true;
  auto sa = a.getDefiningOp<memref::SubViewOp>();
  auto sb = b.getDefiningOp<memref::SubViewOp>();
  if (!sa || !sb || !sameView(sa.getSource(), sb.getSource()))
    return false;
  return isEqualConstantIntOrValueArray(sa.getMixedOffsets(),
                                        sb.getMixedOffsets()) &&
         isEqualConstantIntOrValueArray(sa.getMixedSizes(),
                                        sb.getMixedSizes()) &&
         isEqualConstantIntOrValueArray(sa.getMixedStrides(),
                                        sb.getMixedStrides());
}

std::optional<Candidate> analyze(linalg::GenericOp op, int64_t lanes) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return std::nullopt;
  unsigned loops = op.getNumLoops();
  if (loops < 2)
    return std::nullopt;
  auto iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return std::nullopt;
  if (iters.back() != utils::IteratorType::reduction)
    return std::nullopt;
  unsigned p = loops - 1;
  SmallVector<unsigned> all, rows;
  for (unsigned d = 0; d < loops; ++d)
    all.push_back(d);
  rows.assign(all.begin(), all.end() - 1);

  Candidate c{op, {}, p};
  OpOperand *init = op.getDpsInitOperand(0);
  auto outTy = dyn_cast<MemRefType>(init->get().getType());
  if (!outTy || !outTy.getElementType().isF32() ||
      !isProjection(op.getMatchingIndexingMap(init), rows))
    return std::nullopt;
  // The running value is carried in registers and stored once per group:
  // no input may read the output's buffer (the scalar loop would see the
  // partial sums).
  Value outRoot = viewRoot(init->get());
  bool anyFull = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto t = dyn_cast<MemRefType>(in->get().getType());
    if (!t || !t.getElementType().isIntOrFloat() ||
        viewRoot(in->get()) == outRoot)
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(in);
    if (isProjection(map, all) && t.isLastDimUnitStride()) {
      c.access.push_back(Access::full);
      anyFull = true;
    } else if (isProjection(map, rows)) {
      c.access.push_back(Access::row);
    } else if (isProjection(map, {p})) {
      c.access.push_back(Access::column);
    } else {
      return std::nullopt;
    }
  }
  if (!anyFull || !vectorizableBody(*op.getBlock()))
    return std::nullopt;
  // Worth it only with whole groups of rows and, for static K, at least
  // one whole square (shorter rows would be gathered element by element).
  ArrayRef<int64_t> shape = outTy.getShape();
  if (!ShapedType::isDynamic(shape.back()) && shape.back() < lanes)
    return std::nullopt;
  auto full = cast<MemRefType>(
      op
          .getDpsInputOperand(static_cast<unsigned>(
              llvm::find(c.access, Access::full) - c.access.begin()))
          ->get()
          .getType());
  int64_t k = full.getShape().back();
  if (!ShapedType::isDynamic(k) && k < lanes)
    return std::nullopt;
  return c;
}

class Rewriter {
public:
  Rewriter(const Candidate &c, int64_t lanes)
      : c(c), op(c.op), lanes(lanes), b(op), loc(op.getLoc()) {}

  void run() {
    Value out = op.getDpsInitOperand(0)->get();
    unsigned p = c.parallel;
    Value fullOperand;
    for (auto [in, a] : llvm::zip(op.getDpsInputOperands(), c.access))
      if (a == Access::full && !fullOperand)
        fullOperand = in->get();
    Value rowsR = memref::DimOp::create(b, loc, out, p - 1);
    Value kK = memref::DimOp::create(b, loc, fullOperand, p);
    Value rowsV = roundDown(rowsR), kV = roundDown(kK);

    // The leading parallel loops, then the groups of L rows.
    SmallVector<Value> lead;
    {
      OpBuilder::InsertionGuard g(b);
      for (unsigned d = 0; d + 1 < p; ++d) {
        auto loop = scf::ForOp::create(
            b, loc, idx(0), memref::DimOp::create(b, loc, out, d), idx(1));
        b.setInsertionPointToStart(loop.getBody());
        lead.push_back(loop.getInductionVar());
      }
      auto rLoop = scf::ForOp::create(b, loc, idx(0), rowsV, idx(lanes));
      b.setInsertionPointToStart(rLoop.getBody());
      emitRows(lead, rLoop.getInductionVar(), kV, kK, out);
    }
    // The rows left over: the op itself on that slice.
    auto rest =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rowsV, rowsR);
    auto ifOp = scf::IfOp::create(b, loc, rest, false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value count = arith::SubIOp::create(b, loc, rowsR, rowsV);
    auto slice = [&](Value v, unsigned rowDim) -> Value {
      auto t = cast<MemRefType>(v.getType());
      SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(t.getRank(), b.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < t.getRank(); ++d)
        sizes.push_back(memref::getMixedSize(b, loc, v, d));
      offsets[rowDim] = rowsV;
      sizes[rowDim] = count;
      return memref::SubViewOp::create(b, loc, v, offsets, sizes, strides);
    };
    SmallVector<Value> operands;
    for (auto [i, a] : llvm::enumerate(c.access)) {
      Value in = op.getDpsInputOperand(i)->get();
      operands.push_back(a == Access::column ? in : slice(in, p - 1));
    }
    operands.push_back(slice(out, p - 1));
    b.clone(*op)->setOperands(operands);
    op.erase();
  }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value roundDown(Value v) {
    return arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, v, idx(lanes)), idx(lanes));
  }
  VectorType vecOf(Type t) { return VectorType::get({lanes}, t); }

  /// The L rows r0 .. r0 + L - 1 of a per-row buffer (rank P) as a vector.
  Value loadRows(Value mem, ArrayRef<Value> lead, Value r0) {
    auto t = cast<MemRefType>(mem.getType());
    SmallVector<Value> at(lead.begin(), lead.end());
    at.push_back(r0);
    if (t.isLastDimUnitStride())
      return vector::LoadOp::create(b, loc, vecOf(t.getElementType()), mem, at);
    SmallVector<Value> elems;
    for (int64_t i = 0; i < lanes; ++i) {
      at.back() = add(r0, idx(i));
      elems.push_back(memref::LoadOp::create(b, loc, mem, at));
    }
    return vector::FromElementsOp::create(b, loc, vecOf(t.getElementType()),
                                          elems);
  }
  void storeRows(Value v, Value mem, ArrayRef<Value> lead, Value r0) {
    auto t = cast<MemRefType>(mem.getType());
    SmallVector<Value> at(lead.begin(), lead.end());
    at.push_back(r0);
    if (t.isLastDimUnitStride()) {
      vector::StoreOp::create(b, loc, v, mem, at);
      return;
    }
    for (int64_t i = 0; i < lanes; ++i) {
      at.back() = add(r0, idx(i));
      Value e = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i});
      memref::StoreOp::create(b, loc, e, mem, at);
    }
  }

  /// Element k of rows r0 .. r0 + L - 1 of a full operand, as a vector.
  Value gatherColumn(Value mem, ArrayRef<Value> lead, Value r0, Value k) {
    auto t = cast<MemRefType>(mem.getType());
    SmallVector<Value> elems;
    for (int64_t i = 0; i < lanes; ++i) {
      SmallVector<Value> at(lead.begin(), lead.end());
      at.push_back(add(r0, idx(i)));
      at.push_back(k);
      elems.push_back(memref::LoadOp::create(b, loc, mem, at));
    }
    return vector::FromElementsOp::create(b, loc, vecOf(t.getElementType()),
                                          elems);
  }

  /// Rows r0 .. r0 + L - 1, k0 .. k0 + L - 1 of a full operand, transposed:
  /// vector j holds element k0 + j of every row (transposeInRegisters).
  SmallVector<Value> loadSquare(Value mem, ArrayRef<Value> lead, Value r0,
                                Value k0) {
    auto t = cast<MemRefType>(mem.getType());
    SmallVector<Value> v;
    for (int64_t i = 0; i < lanes; ++i) {
      SmallVector<Value> at(lead.begin(), lead.end());
      at.push_back(add(r0, idx(i)));
      at.push_back(k0);
      v.push_back(
          vector::LoadOp::create(b, loc, vecOf(t.getElementType()), mem, at));
    }
    transposeInRegisters(b, loc, v);
    return v;
  }

  Value body(ArrayRef<Value> args, Value acc) {
    SmallVector<Value> all(args.begin(), args.end());
    all.push_back(acc);
    return vectorBody(b, *op.getBlock(), all, lanes);
  }

  void emitRows(ArrayRef<Value> lead, Value r0, Value kV, Value kK, Value out) {
    // Per-row operands once per group of rows.
    SmallVector<Value> rowVals(c.access.size());
    for (auto [i, a] : llvm::enumerate(c.access))
      if (a == Access::row)
        rowVals[i] = loadRows(op.getDpsInputOperand(i)->get(), lead, r0);
    Value acc = loadRows(out, lead, r0);
    auto columnArgs = [&](Value k, auto fullValue) {
      SmallVector<Value> args;
      for (auto [i, a] : llvm::enumerate(c.access)) {
        Value mem = op.getDpsInputOperand(i)->get();
        if (a == Access::row)
          args.push_back(rowVals[i]);
        else if (a == Access::column)
          args.push_back(memref::LoadOp::create(b, loc, mem, k).getResult());
        else
          args.push_back(fullValue(i));
      }
      return args;
    };
    // Whole squares.
    auto kLoop = scf::ForOp::create(b, loc, idx(0), kV, idx(lanes), acc);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value k0 = kLoop.getInductionVar();
      Value a = kLoop.getRegionIterArgs()[0];
      SmallVector<SmallVector<Value>> squares(c.access.size());
      for (auto [i, acc2] : llvm::enumerate(c.access))
        if (acc2 == Access::full)
          squares[i] =
              loadSquare(op.getDpsInputOperand(i)->get(), lead, r0, k0);
      for (int64_t j = 0; j < lanes; ++j) {
        Value k = add(k0, idx(j));
        a = body(columnArgs(k, [&](size_t i) { return squares[i][j]; }), a);
      }
      scf::YieldOp::create(b, loc, a);
    }
    // The last K % L elements of the rows.
    auto tLoop = scf::ForOp::create(b, loc, kV, kK, idx(1), kLoop.getResult(0));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(tLoop.getBody());
      Value k = tLoop.getInductionVar();
      Value a =
          body(columnArgs(k,
                          [&](size_t i) {
                            return gatherColumn(op.getDpsInputOperand(i)->get(),
                                                lead, r0, k);
                          }),
               tLoop.getRegionIterArgs()[0]);
      scf::YieldOp::create(b, loc, a);
    }
    storeRows(tLoop.getResult(0), out, lead, r0);
  }

  const Candidate &c;
  linalg::GenericOp op;
  int64_t lanes;
  OpBuilder b;
  Location loc;
};

/// An element-wise op on f32 rows: every loop parallel, the output f32 with
/// the identity map and a static, contiguous last dimension that is a
/// multiple of `lanes`. Inputs are read as vectors along the last loop
/// (indexed by it last, contiguous, 32-bit elements) or as one value per
/// vector (not indexed by it). Only the output's own view, read at the
/// element it writes, may share its buffer.
struct Elementwise {
  linalg::GenericOp op;
  SmallVector<bool> vectorInput; // per input
};

std::optional<Elementwise> analyzeElementwise(linalg::GenericOp op,
                                              int64_t lanes) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.getNumLoops() < 1)
    return std::nullopt;
  unsigned n = op.getNumLoops();
  OpOperand *init = op.getDpsInitOperand(0);
  auto outTy = dyn_cast<MemRefType>(init->get().getType());
  if (!outTy || !outTy.getElementType().isF32() ||
      !op.getMatchingIndexingMap(init).isIdentity() ||
      !outTy.isLastDimUnitStride())
    return std::nullopt;
  int64_t width = outTy.getShape().back();
  if (ShapedType::isDynamic(width) || width == 0 || width % lanes != 0)
    return std::nullopt;
  Elementwise e{op, {}};
  Value outRoot = viewRoot(init->get());
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto t = dyn_cast<MemRefType>(in->get().getType());
    if (!t) {
      if (!in->get().getType().isIntOrFloat())
        return std::nullopt;
      e.vectorInput.push_back(false); // a scalar operand
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(in);
    if (map.getNumSymbols() != 0 || !t.getElementType().isIntOrFloat())
      return std::nullopt;
    // Results: loop dimensions in increasing order (a broadcast).
    int64_t last = -1;
    for (AffineExpr r : map.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(r);
      if (!d || static_cast<int64_t>(d.getPosition()) <= last)
        return std::nullopt;
      last = d.getPosition();
    }
    bool vectorized = last == static_cast<int64_t>(n) - 1;
    if (vectorized && (!t.isLastDimUnitStride() ||
                       t.getElementType().getIntOrFloatBitWidth() != 32))
      return std::nullopt;
    // An input may share the output's buffer only as the very same view
    // read at the same element (an in-place op).
    if (viewRoot(in->get()) == outRoot &&
        !(map.isIdentity() && sameView(in->get(), init->get())))
      return std::nullopt;
    e.vectorInput.push_back(vectorized);
  }
  if (!vectorizableBody(*op.getBlock()))
    return std::nullopt;
  return e;
}

/// for d0 .. dn-2, for c0 in [0, width) step L: each input's vector at
/// c0 (or its value), the body on vectors, the output's vector stored.
void rewriteElementwise(const Elementwise &e, int64_t lanes) {
  linalg::GenericOp op = e.op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned n = op.getNumLoops();
  Value out = op.getDpsInitOperand(0)->get();
  auto cIdx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < n; ++d) {
    Value ub = d + 1 < n ? memref::DimOp::create(b, loc, out, d).getResult()
                         : cIdx(cast<MemRefType>(out.getType()).getShape()[d]);
    auto loop =
        scf::ForOp::create(b, loc, cIdx(0), ub, cIdx(d + 1 < n ? 1 : lanes));
    b.setInsertionPointToStart(loop.getBody());
    ivs.push_back(loop.getInductionVar());
  }
  Block &blk = *op.getBlock();
  SmallVector<Value> args;
  for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
    Value v = in->get();
    auto t = dyn_cast<MemRefType>(v.getType());
    if (!t || blk.getArgument(i).use_empty()) {
      args.push_back(t ? Value() : v);
      continue;
    }
    SmallVector<Value> at;
    for (AffineExpr r : op.getMatchingIndexingMap(in).getResults())
      at.push_back(ivs[cast<AffineDimExpr>(r).getPosition()]);
    if (e.vectorInput[i])
      args.push_back(vector::LoadOp::create(
          b, loc, VectorType::get({lanes}, t.getElementType()), v, at));
    else
      args.push_back(memref::LoadOp::create(b, loc, v, at));
  }
  Value outArg;
  if (!blk.getArguments().back().use_empty())
    outArg = vector::LoadOp::create(
        b, loc, VectorType::get({lanes}, b.getF32Type()), out, ivs);
  args.push_back(outArg);
  Value y = vectorBody(b, blk, args, lanes);
  vector::StoreOp::create(b, loc, y, out, ivs);
  op.erase();
}

struct OctetVectorizeRowsPass
    : public mlir::octet::impl::OctetVectorizeRowsBase<OctetVectorizeRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (lanes < 2 || lanes > 64 || (lanes & (lanes - 1)) != 0) {
      getOperation()->emitError()
          << "octet-vectorize-rows: lanes must be a power of two "
             "from 2 to 64, got "
          << static_cast<int64_t>(lanes);
      return signalPassFailure();
    }
    SmallVector<Candidate> found;
    SmallVector<Elementwise> elementwise;
    getOperation()->walk([&](Operation *o) {
      if (isa<gpu::GPUModuleOp>(o))
        return WalkResult::skip();
      if (auto g = dyn_cast<linalg::GenericOp>(o)) {
        if (std::optional<Candidate> c = analyze(g, lanes))
          found.push_back(std::move(*c));
        else if (std::optional<Elementwise> e = analyzeElementwise(g, lanes))
          elementwise.push_back(std::move(*e));
      }
      return WalkResult::advance();
    });
    for (const Candidate &c : found)
      Rewriter(c, lanes).run();
    for (const Elementwise &e : elementwise)
      rewriteElementwise(e, lanes);
  }
};

} // namespace
