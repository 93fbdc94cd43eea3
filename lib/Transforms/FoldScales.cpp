//===- FoldScales.cpp - Move quantization scales out of the arithmetic ----===//
//
// octet-fold-scales: the algebra that turns "dequantize, then float math"
// into integer (or FP8) math with the scales applied once, in an epilogue.
//
//   contraction(dequantize(A), dequantize(B))  -> octet.matmul (W8A8)
//   contraction(x, dequantize(B))              -> octet.matmul (weight-only)
//   quantize(dequantize(q, p1), p2)            -> octet.requantize
//   requantize(requantize(q))                  -> one requantize, when exact
//   layout(dequantize(q))                      -> dequantize(layout(q))
//   relu(dequantize(q))                        -> dequantize(max(q, zp))
//   octet.matmul + bias / relu / quantize      -> epilogue of the matmul
//
// dequantize(quantize(x)) is never removed. A contraction fed by
// dequantize that cannot be folded keeps its IR and gets a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "octet/Transforms/Passes.h"

#include "octet/Dialect/Octet/IR/OctetFolding.h"
#include "octet/Transforms/ContractionMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETFOLDSCALES
#include "octet/Transforms/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The scheme with its axis moved by a permutation: result dim i is source
/// dim perm[i].
static SchemeAttr permuteScheme(SchemeAttr s, ArrayRef<int64_t> perm) {
  if (s.getGranularity() == Granularity::per_tensor)
    return s;
  int64_t axis = llvm::find(perm, s.getAxis()) - perm.begin();
  return s.withAxis(axis);
}

static SchemeAttr withAxis(SchemeAttr s, int64_t axis) {
  return s.withAxis(axis);
}

/// linalg.transpose of `v` by `perm`.
static Value transpose(OpBuilder &b, Location loc, Value v,
                       ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  SmallVector<OpFoldResult> permuted;
  for (int64_t p : perm)
    permuted.push_back(sizes[p]);
  Value init = tensor::EmptyOp::create(b, loc, permuted, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

/// Transposes a parameter tensor that has the data's rank (per_group);
/// per_tensor / per_axis parameters do not change.
static Value permuteParam(OpBuilder &b, Location loc, Value p,
                          SchemeAttr scheme, ArrayRef<int64_t> perm) {
  if (!p || scheme.getGranularity() != Granularity::per_group)
    return p;
  return transpose(b, loc, p, perm);
}

//===----------------------------------------------------------------------===//
// Contractions -> octet.matmul
//===----------------------------------------------------------------------===//

/// Why the parameters of `lhs`/`rhs` (after transposition to canonical
/// layouts of rank `rank`) cannot be applied outside the sum, or "".
static std::string schemeProblem(std::optional<SchemeAttr> lhs,
                                 SchemeAttr rhs, int64_t lrank, int64_t rrank,
                                 int64_t k) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (lhs) {
    Granularity g = lhs->getGranularity();
    bool alongK = g == Granularity::per_group && lhs->getAxis() == lrank - 1;
    // per_group over the whole K is a per-token scale; in the weight's
    // groups along K, a block-wise one (octet.matmul's grouped lhs).
    bool perToken = alongK && lhs->getGroupSize() == k;
    bool blockWise = alongK && rhs.getGranularity() == Granularity::per_group &&
                     rhs.getAxis() == rrank - 2 &&
                     rhs.getGroupSize() == lhs->getGroupSize();
    if (!(g == Granularity::per_tensor || perToken || blockWise ||
          (g == Granularity::per_axis && lhs->getAxis() == lrank - 2)))
      os << "the activation scale (" << lhs->getGranularityString()
         << ") varies along the reduction dimension"
         << (alongK ? " in groups that are not the weight's" : "");
    else if (lhs->isFloat() != rhs.isFloat())
      os << "mixed integer and float-coded (FP8 / FP4) operands";
    return why.empty() ? why : why;
  }
  Granularity g = rhs.getGranularity();
  if (!(g == Granularity::per_tensor ||
        (g == Granularity::per_axis && rhs.getAxis() == rrank - 1) ||
        (g == Granularity::per_group && rhs.getAxis() == rrank - 2)))
    os << "the weight scale (" << rhs.getGranularityString()
       << ") varies along the reduction dimension per element";
  return why;
}

/// The full check: returns the octet.matmul ingredients or a reason.
struct MatmulPlan {
  Contraction c;
  DequantizeOp lhsDq, rhsDq; ///< lhsDq is null for a float lhs.
};

static FailureOr<MatmulPlan> planMatmul(linalg::LinalgOp op,
                                        std::string &why) {
  FailureOr<Contraction> c = matchContraction(op, why);
  if (failed(c))
    return failure();
  MatmulPlan plan{*c, c->lhs.getDefiningOp<DequantizeOp>(),
                  c->rhs.getDefiningOp<DequantizeOp>()};
  if (!plan.rhsDq) {
    why = plan.lhsDq ? "only the lhs is dequantized; octet.matmul takes "
                       "quantized weights as rhs"
                     : "no operand is dequantized";
    return failure();
  }
  int64_t lrank = cast<RankedTensorType>(c->lhs.getType()).getRank();
  int64_t rrank = cast<RankedTensorType>(c->rhs.getType()).getRank();
  std::optional<SchemeAttr> ls;
  if (plan.lhsDq)
    ls = c->lhsPerm.empty() ? plan.lhsDq.getScheme()
                            : permuteScheme(plan.lhsDq.getScheme(),
                                            c->lhsPerm);
  SchemeAttr rs = c->rhsPerm.empty()
                      ? plan.rhsDq.getScheme()
                      : permuteScheme(plan.rhsDq.getScheme(), c->rhsPerm);
  auto lhsType = cast<RankedTensorType>(c->lhs.getType());
  int64_t k = lhsType.getDimSize(c->lhsPerm.empty() ? lrank - 1
                                                   : c->lhsPerm[lrank - 1]);
  why = schemeProblem(ls, rs, lrank, rrank, k);
  if (why.empty() && ls)
    why = schemeProblem(std::nullopt, rs, lrank, rrank, k);
  if (!why.empty())
    return failure();
  auto resType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isa<Float32Type, Float16Type, BFloat16Type>(resType.getElementType())) {
    why = "the result is not f32, f16 or bf16";
    return failure();
  }
  return plan;
}

struct ContractionToMatmul
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    FailureOr<MatmulPlan> plan = planMatmul(op, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op.getLoc();
    auto perm = [&](Value v, ArrayRef<int64_t> p) {
      return p.empty() ? v : transpose(rewriter, loc, v, p);
    };
    Value lhs, lhsScale, lhsZp;
    std::optional<SchemeAttr> lhsScheme;
    if (DequantizeOp dq = plan->lhsDq) {
      SchemeAttr s = dq.getScheme();
      lhs = perm(dq.getInput(), plan->c.lhsPerm);
      lhsScale = permuteParam(rewriter, loc, dq.getScale(), s,
                              plan->c.lhsPerm);
      lhsZp = permuteParam(rewriter, loc, dq.getZeroPoint(), s,
                           plan->c.lhsPerm);
      lhsScheme = plan->c.lhsPerm.empty() ? s : permuteScheme(s,
                                                              plan->c.lhsPerm);
    } else {
      lhs = perm(plan->c.lhs, plan->c.lhsPerm);
    }
    DequantizeOp rdq = plan->rhsDq;
    SchemeAttr rs = rdq.getScheme();
    Value rhs = perm(rdq.getInput(), plan->c.rhsPerm);
    Value rhsScale =
        permuteParam(rewriter, loc, rdq.getScale(), rs, plan->c.rhsPerm);
    Value rhsZp =
        permuteParam(rewriter, loc, rdq.getZeroPoint(), rs, plan->c.rhsPerm);
    SchemeAttr rhsScheme =
        plan->c.rhsPerm.empty() ? rs : permuteScheme(rs, plan->c.rhsPerm);
    Type resType = op->getResult(0).getType();
    auto mm = MatmulOp::create(
        rewriter, loc, resType, lhs, rhs, lhsScale, lhsZp, rhsScale, rhsZp,
        /*bias=*/Value(), /*out_scale=*/Value(), /*out_zero_point=*/Value(),
        lhsScheme ? *lhsScheme : SchemeAttr(), rhsScheme, SchemeAttr(),
        /*relu=*/false);
    rewriter.replaceOp(op, mm.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// quantize(dequantize) and requantize chains
//===----------------------------------------------------------------------===//

/// quantize(dequantize(q, p1), p2) -> requantize(q, p1 -> p2): exactly the
/// definition of requantize when the intermediate is f32. (Identical
/// parameters fold away in QuantizeOp::fold.)
struct QuantizeOfDequantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getInput().getDefiningOp<DequantizeOp>();
    if (!dq)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    if (!dq.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(
          op, "the intermediate is not f32; requantize is defined with an "
              "f32 intermediate");
    rewriter.replaceOpWithNewOp<RequantizeOp>(
        op, op.getType(), dq.getInput(), dq.getScale(), dq.getZeroPoint(),
        op.getScale(), op.getZeroPoint(), dq.getScheme(), op.getScheme());
    return success();
  }
};

/// requantize(requantize(q, p0 -> p1), p1 -> p2) -> requantize(q, p0 -> p2)
/// when the first step is exact: same scale, same format family, and its
/// codes are a pure shift by z1 - z0 that fits the intermediate range
/// (then dequantize(p1) of its result equals dequantize(p0) of q bit for
/// bit). Otherwise the intermediate rounding is observable and the chain
/// stays.
struct FuseRequantizeChain : OpRewritePattern<RequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RequantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto first = op.getInput().getDefiningOp<RequantizeOp>();
    if (!first)
      return rewriter.notifyMatchFailure(op, "input is not a requantize");
    SchemeAttr s0 = first.getInScheme(), s1 = first.getOutScheme();
    if (!sameParameterValues(first.getInScale(), first.getOutScale()) ||
        s0.isFloat() || s1.isFloat() || s0.isNf4() || s1.isNf4() ||
        s0.getGranularity() != s1.getGranularity() ||
        s0.getAxis() != s1.getAxis() ||
        s0.getGroupSize() != s1.getGroupSize())
      return rewriter.notifyMatchFailure(
          op, "the first requantize changes the scale: its rounding is "
              "observable");
    // Zero points must be constants so that the shifted range can be
    // checked.
    auto zpRange = [](Value zp) -> std::optional<std::pair<int64_t, int64_t>> {
      if (!zp)
        return std::make_pair<int64_t, int64_t>(0, 0);
      DenseIntElementsAttr attr;
      if (!matchPattern(zp, m_Constant(&attr)))
        return std::nullopt;
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (const APInt &v : attr.getValues<APInt>()) {
        lo = std::min(lo, v.getSExtValue());
        hi = std::max(hi, v.getSExtValue());
      }
      return std::make_pair(lo, hi);
    };
    auto z0 = zpRange(first.getInZeroPoint());
    auto z1 = zpRange(first.getOutZeroPoint());
    if (!z0 || !z1 || z0->first != z0->second || z1->first != z1->second)
      return rewriter.notifyMatchFailure(
          op, "zero points are not uniform constants");
    // Every storage value (not only s0's range) must shift into s1's range,
    // and ((c - z0) * s) / s must round back to c - z0 in f32: a constant
    // scale keeping all of them normal and finite.
    int64_t shift = z1->first - z0->first;
    auto full = getFullRange(s0.getFormat());
    if (full.first + shift < s1.getQmin() || full.second + shift > s1.getQmax())
      return rewriter.notifyMatchFailure(
          op, "the shifted codes do not fit the intermediate range");
    double maxMag = std::max(std::abs(full.first - z0->first),
                             std::abs(full.second - z0->first));
    if (!matchPattern(first.getInScale(), m_Constant()) ||
        !scalesKeepCodesExact(first.getInScale(), 1.0, maxMag,
                              rewriter.getF32Type(), s0.getStorageBits()))
      return rewriter.notifyMatchFailure(
          op, "the scale is not a constant that keeps every code exact");
    rewriter.replaceOpWithNewOp<RequantizeOp>(
        op, op.getType(), first.getInput(), first.getInScale(),
        first.getInZeroPoint(), op.getOutScale(), op.getOutZeroPoint(), s0,
        op.getOutScheme());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Moving dequantize through layout ops
//===----------------------------------------------------------------------===//

/// transpose(dequantize(q)) -> dequantize(transpose(q)).
struct TransposeOfDequantize : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    auto dq = op.getInput().getDefiningOp<DequantizeOp>();
    if (!dq)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    Location loc = op.getLoc();
    ArrayRef<int64_t> perm = op.getPermutation();
    SchemeAttr s = dq.getScheme();
    Value codes = transpose(rewriter, loc, dq.getInput(), perm);
    Value scale = permuteParam(rewriter, loc, dq.getScale(), s, perm);
    Value zp = permuteParam(rewriter, loc, dq.getZeroPoint(), s, perm);
    rewriter.replaceOpWithNewOp<DequantizeOp>(
        op, op->getResult(0).getType(), codes, scale, zp,
        permuteScheme(s, perm));
    return success();
  }
};

/// The position of source dim `axis` after a reshape with `reassociation`
/// (groups of result dims per source dim for expand, or groups of source
/// dims per result dim for collapse), if the parameter axis survives: its
/// group must hold exactly one non-unit dimension, the axis itself.
template <typename ReshapeOp>
static std::optional<int64_t> reshapedAxis(ReshapeOp op, int64_t axis) {
  constexpr bool isExpand = std::is_same_v<ReshapeOp, tensor::ExpandShapeOp>;
  auto src = cast<RankedTensorType>(op.getSrc().getType());
  auto dst = cast<RankedTensorType>(op.getResult().getType());
  for (auto [idx, group] : llvm::enumerate(op.getReassociationIndices())) {
    if constexpr (isExpand) {
      if (static_cast<int64_t>(idx) != axis)
        continue;
      std::optional<int64_t> found;
      for (int64_t d : group) {
        if (dst.getDimSize(d) == 1)
          continue;
        if (found || dst.getDimSize(d) != src.getDimSize(axis))
          return std::nullopt;
        found = d;
      }
      return found;
    } else {
      if (!llvm::is_contained(group, axis))
        continue;
      for (int64_t d : group)
        if (d != axis && src.getDimSize(d) != 1)
          return std::nullopt;
      return static_cast<int64_t>(idx);
    }
  }
  return std::nullopt;
}

/// expand_shape / collapse_shape of dequantize(q) -> dequantize of the
/// reshaped codes, for per-tensor parameters and for per-axis parameters
/// whose axis survives the reshape unchanged.
template <typename ReshapeOp>
struct ReshapeOfDequantize : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern<ReshapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getSrc().template getDefiningOp<DequantizeOp>();
    if (!dq)
      return rewriter.notifyMatchFailure(op, "source is not a dequantize");
    SchemeAttr s = dq.getScheme();
    SchemeAttr newScheme = s;
    if (s.getGranularity() == Granularity::per_group)
      return rewriter.notifyMatchFailure(op, "per-group parameters");
    if (s.getGranularity() == Granularity::per_axis) {
      std::optional<int64_t> axis = reshapedAxis(op, s.getAxis());
      if (!axis)
        return rewriter.notifyMatchFailure(
            op, "the parameter axis is split or merged");
      newScheme = withAxis(s, *axis);
    }
    auto resType = cast<RankedTensorType>(op.getResult().getType());
    auto codeType = RankedTensorType::get(
        resType.getShape(), dq.getInput().getType().getElementType());
    Value codes;
    if constexpr (std::is_same_v<ReshapeOp, tensor::ExpandShapeOp>)
      codes = tensor::ExpandShapeOp::create(
          rewriter, op.getLoc(), codeType, dq.getInput(),
          op.getReassociationIndices(), op.getMixedOutputShape());
    else
      codes = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), codeType,
                                              dq.getInput(),
                                              op.getReassociationIndices());
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, resType, codes,
                                              dq.getScale(),
                                              dq.getZeroPoint(), newScheme);
    return success();
  }
};

/// broadcast(dequantize(q)) -> dequantize(broadcast(q)).
struct BroadcastOfDequantize : OpRewritePattern<linalg::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    auto dq = op.getInput().getDefiningOp<DequantizeOp>();
    if (!dq)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    SchemeAttr s = dq.getScheme();
    if (s.getGranularity() == Granularity::per_group)
      return rewriter.notifyMatchFailure(op, "per-group parameters");
    ArrayRef<int64_t> added = op.getDimensions();
    SchemeAttr newScheme = s;
    if (s.getGranularity() == Granularity::per_axis) {
      // Source dim i becomes the i-th result dim that is not added.
      int64_t seen = -1, axis = -1;
      auto resRank = cast<RankedTensorType>(op->getResult(0).getType())
                         .getRank();
      for (int64_t d = 0; d < resRank; ++d) {
        if (llvm::is_contained(added, d))
          continue;
        if (++seen == s.getAxis()) {
          axis = d;
          break;
        }
      }
      newScheme = withAxis(s, axis);
    }
    auto resType = cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, op.getInit()),
        dq.getInput().getType().getElementType());
    Value codes =
        linalg::BroadcastOp::create(rewriter, loc, dq.getInput(), init, added)
            .getResult()[0];
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, resType, codes,
                                              dq.getScale(),
                                              dq.getZeroPoint(), newScheme);
    return success();
  }
};

/// extract_slice(dequantize(q)) -> dequantize(extract_slice(q)) with the
/// per-axis parameters sliced along the axis.
struct SliceOfDequantize : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getSource().getDefiningOp<DequantizeOp>();
    if (!dq)
      return rewriter.notifyMatchFailure(op, "source is not a dequantize");
    if (op.getType().getRank() != op.getSourceType().getRank())
      return rewriter.notifyMatchFailure(op, "rank-reducing slice");
    SchemeAttr s = dq.getScheme();
    if (s.getGranularity() == Granularity::per_group)
      return rewriter.notifyMatchFailure(op, "per-group parameters");
    Location loc = op.getLoc();
    auto codeType = RankedTensorType::get(
        op.getType().getShape(), dq.getInput().getType().getElementType());
    Value codes = tensor::ExtractSliceOp::create(
        rewriter, loc, codeType, dq.getInput(), op.getMixedOffsets(),
        op.getMixedSizes(), op.getMixedStrides());
    Value scale = dq.getScale(), zp = dq.getZeroPoint();
    if (s.getGranularity() == Granularity::per_axis) {
      int64_t a = s.getAxis();
      auto slice1d = [&](Value p) -> Value {
        if (!p)
          return p;
        auto pt = cast<RankedTensorType>(p.getType());
        auto t = RankedTensorType::get({op.getType().getDimSize(a)},
                                       pt.getElementType());
        return tensor::ExtractSliceOp::create(
            rewriter, loc, t, p, {op.getMixedOffsets()[a]},
            {op.getMixedSizes()[a]}, {op.getMixedStrides()[a]});
      };
      scale = slice1d(scale);
      zp = slice1d(zp);
    }
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getType(), codes, scale,
                                              zp, s);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Element-wise ops and the matmul epilogue
//===----------------------------------------------------------------------===//

/// Matches an element-wise linalg.generic with identity maps whose body
/// yields `maximumf(in, 0)`; returns its input.
static Value matchRelu(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto max = yield.getValues()[0].getDefiningOp<arith::MaximumFOp>();
  if (!max || body.getOperations().size() > 3)
    return {};
  Value in = body.getArgument(0);
  Value other = max.getLhs() == in ? max.getRhs() : max.getLhs();
  if ((max.getLhs() != in && max.getRhs() != in) ||
      !matchPattern(other, m_AnyZeroFloat()))
    return {};
  return op.getDpsInputs()[0];
}

/// relu(dequantize(q, s, zp)) -> dequantize(max(q, zp), s, zp): ReLU
/// commutes with a positive scale, and max(x, 0) on (q - zp) * s is
/// (max(q, zp) - zp) * s. Integer schemes only.
struct ReluOfDequantize : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    Value in = matchRelu(op);
    if (!in)
      return rewriter.notifyMatchFailure(op, "not a ReLU");
    auto dq = in.getDefiningOp<DequantizeOp>();
    if (!dq || dq.getScheme().isFloat() || dq.getScheme().isNf4())
      return rewriter.notifyMatchFailure(
          op, "input is not an integer dequantize");
    if (dq.getScheme().getGranularity() != Granularity::per_tensor &&
        dq.getZeroPoint())
      return rewriter.notifyMatchFailure(
          op, "per-axis zero points: keep the float ReLU");
    Location loc = op.getLoc();
    SchemeAttr s = dq.getScheme();
    auto codeType = dq.getInput().getType();
    Value zpScalar;
    if (Value zp = dq.getZeroPoint())
      zpScalar = tensor::ExtractOp::create(rewriter, loc, zp, ValueRange{});
    unsigned rank = codeType.getRank();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    Value init = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, dq.getInput()),
        codeType.getElementType());
    SmallVector<utils::IteratorType> iters(rank,
                                           utils::IteratorType::parallel);
    Value clamped =
        linalg::GenericOp::create(
            rewriter, loc, codeType, ValueRange{dq.getInput()},
            ValueRange{init}, ArrayRef<AffineMap>{id, id}, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Type et = args[0].getType();
              Value floor;
              if (zpScalar)
                floor = arith::TruncIOp::create(b, l, et, zpScalar);
              else
                floor = arith::ConstantOp::create(b, l,
                                                  b.getIntegerAttr(et, 0));
              Value r = s.isUnsigned()
                            ? arith::MaxUIOp::create(b, l, args[0], floor)
                                  .getResult()
                            : arith::MaxSIOp::create(b, l, args[0], floor)
                                  .getResult();
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);
    rewriter.replaceOpWithNewOp<DequantizeOp>(
        op, op->getResult(0).getType(), clamped, dq.getScale(),
        dq.getZeroPoint(), s);
    return success();
  }
};

/// relu(octet.matmul) -> octet.matmul {relu}.
struct ReluIntoMatmul : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    Value in = matchRelu(op);
    auto mm = in ? in.getDefiningOp<MatmulOp>() : MatmulOp();
    if (!mm || mm.getRelu() || mm.hasQuantizedResult() || !mm->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a ReLU of a free matmul");
    if (mm.getType() != op->getResult(0).getType())
      return rewriter.notifyMatchFailure(op, "type change");
    rewriter.modifyOpInPlace(mm, [&] { mm.setRelu(true); });
    rewriter.replaceOp(op, mm.getResult());
    return success();
  }
};

/// matmul + bias[n] (a linalg.generic add whose second operand is indexed
/// by the last dimension only) -> octet.matmul bias(...).
struct BiasIntoMatmul : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0)
      return rewriter.notifyMatchFailure(op, "not a binary element-wise op");
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
    if (!add || body.getOperations().size() != 2)
      return rewriter.notifyMatchFailure(op, "body is not a single addf");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!maps[2].isIdentity())
      return rewriter.notifyMatchFailure(op, "result map is not identity");
    unsigned rank = maps[2].getNumDims();
    AffineMap lastDim = AffineMap::get(
        rank, 0, getAffineDimExpr(rank - 1, op.getContext()));
    for (unsigned i = 0; i < 2; ++i) {
      auto mm = op.getDpsInputs()[i].getDefiningOp<MatmulOp>();
      Value bias = op.getDpsInputs()[1 - i];
      if (!mm || !maps[i].isIdentity() || maps[1 - i] != lastDim ||
          mm.getBias() || mm.getRelu() || mm.hasQuantizedResult() ||
          !mm->hasOneUse() || mm.getType() != op->getResult(0).getType() ||
          !mm.getType().getElementType().isF32() ||
          !cast<RankedTensorType>(bias.getType()).getElementType().isF32())
        continue;
      // The body must add the two block arguments.
      if (!((add.getLhs() == body.getArgument(0) &&
             add.getRhs() == body.getArgument(1)) ||
            (add.getLhs() == body.getArgument(1) &&
             add.getRhs() == body.getArgument(0))))
        continue;
      rewriter.modifyOpInPlace(mm, [&] {
        mm.getBiasMutable().assign(bias);
      });
      rewriter.replaceOp(op, mm.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not matmul + bias[n]");
  }
};

/// quantize(octet.matmul -> f32) -> octet.matmul with a requantize epilogue.
struct QuantizeIntoMatmul : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto mm = op.getInput().getDefiningOp<MatmulOp>();
    if (!mm || mm.hasQuantizedResult() || !mm->hasOneUse() ||
        !mm.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a quantize of an f32 matmul");
    SchemeAttr s = op.getScheme();
    int64_t rank = mm.getType().getRank();
    if (!(s.getGranularity() == Granularity::per_tensor ||
          (s.getGranularity() == Granularity::per_axis &&
           s.getAxis() == rank - 1)))
      return rewriter.notifyMatchFailure(
          op, "output parameters are not per-tensor or per-column");
    auto fused = MatmulOp::create(
        rewriter, mm.getLoc(), op.getType(), mm.getLhs(), mm.getRhs(),
        mm.getLhsScale(), mm.getLhsZeroPoint(), mm.getRhsScale(),
        mm.getRhsZeroPoint(), mm.getBias(), op.getScale(), op.getZeroPoint(),
        mm.getLhsSchemeAttr(), mm.getRhsScheme(), s, mm.getRelu());
    rewriter.replaceOp(op, fused.getResult());
    rewriter.eraseOp(mm);
    return success();
  }
};

/// octet.matmul(dequantize(a), B) with a float lhs -> octet.matmul(a, B)
/// with a's parameters: the contraction became a weight-only octet.matmul
/// before its lhs dequantize was sunk below a reshape or transpose (e.g.
/// dequantize -> collapse_shape -> matmul, the patterns apply in any order);
/// this finishes the fold ContractionToMatmul would have made. The epilogue
/// (bias, ReLU, requantize) stays.
struct LhsDequantizeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm,
                                PatternRewriter &rewriter) const override {
    auto dq = mm.getLhs().getDefiningOp<DequantizeOp>();
    if (!dq || mm.getLhsSchemeAttr())
      return rewriter.notifyMatchFailure(mm, "the lhs is not a dequantize "
                                             "of a float-lhs matmul");
    int64_t lrank = cast<RankedTensorType>(mm.getLhs().getType()).getRank();
    int64_t rrank = cast<RankedTensorType>(mm.getRhs().getType()).getRank();
    std::string why =
        schemeProblem(dq.getScheme(), mm.getRhsScheme(), lrank, rrank,
                      mm.getLhs().getType().getDimSize(lrank - 1));
    if (!why.empty())
      return rewriter.notifyMatchFailure(mm, why);
    auto fused = MatmulOp::create(
        rewriter, mm.getLoc(), mm.getType(), dq.getInput(), mm.getRhs(),
        dq.getScale(), dq.getZeroPoint(), mm.getRhsScale(),
        mm.getRhsZeroPoint(), mm.getBias(), mm.getOutScale(),
        mm.getOutZeroPoint(), dq.getScheme(), mm.getRhsScheme(),
        mm.getOutSchemeAttr(), mm.getRelu());
    rewriter.replaceOp(mm, fused.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct OctetFoldScalesPass
    : octet::impl::OctetFoldScalesBase<OctetFoldScalesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateFoldScalesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Say why each remaining contraction fed by dequantize was left alone.
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!llvm::any_of(op.getDpsInputs(), [](Value v) {
            return v.getDefiningOp<DequantizeOp>();
          }))
        return;
      std::string why;
      if (succeeded(planMatmul(op, why)))
        return;
      if (!linalg::isaContractionOpInterface(op))
        return;
      op->emitRemark() << "octet-fold-scales: contraction not folded into "
                          "octet.matmul: "
                       << why;
    });
  }
};

} // namespace

void mlir::octet::populateFoldScalesPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ContractionToMatmul, QuantizeOfDequantize, FuseRequantizeChain,
               TransposeOfDequantize, ReshapeOfDequantize<tensor::ExpandShapeOp>,
               ReshapeOfDequantize<tensor::CollapseShapeOp>,
               BroadcastOfDequantize, SliceOfDequantize, ReluOfDequantize,
               ReluIntoMatmul, BiasIntoMatmul, QuantizeIntoMatmul,
               LhsDequantizeIntoMatmul>(ctx);
}
