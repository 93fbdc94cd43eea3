//===- OctetToLinalg.cpp - Lower octet ops to linalg.generic --------------===//

#include "octet/Conversion/OctetCommon/ScalarNumerics.h"
#include "octet/Conversion/OctetToLinalg/AttentionLowering.h"
#include "octet/Conversion/OctetToLinalg/MatmulLowering.h"
#include "octet/Conversion/Passes.h"
#include "octet/Runtime/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_CONVERTOCTETTOLINALG
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

static void densifyResourcesLlvmCannotLower(Operation *root);
static void bitcastsAsArith(Operation *root);
static LogicalResult foldFp8Extensions(Operation *root);

namespace {

/// The iteration space of an element-wise octet op and how its parameters
/// are indexed. Per-group schemes expand the grouped dimension `a` into
/// (size / g, g) so that every indexing map is a projected permutation.
struct ElementwiseSpace {
  Value input;                  ///< Input, expanded for per-group.
  SmallVector<AffineMap> paramMaps;
  unsigned rank = 0;            ///< Rank of the iteration space.
  std::optional<SmallVector<ReassociationIndices>> reassociation;
};

/// The map from the iteration space to a parameter tensor of `scheme`.
static AffineMap paramMap(MLIRContext *ctx, SchemeAttr scheme, unsigned rank) {
  switch (scheme.getGranularity()) {
  case Granularity::per_tensor:
    return AffineMap::get(rank, 0, ctx);
  case Granularity::per_axis:
    return AffineMap::get(rank, 0, getAffineDimExpr(scheme.getAxis(), ctx));
  case Granularity::per_group: {
    // Iteration space has rank + 1 dims; drop the in-group dim (axis + 1).
    SmallVector<AffineExpr> exprs;
    for (unsigned d = 0; d < rank; ++d)
      if (d != scheme.getAxis() + 1)
        exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(rank, 0, exprs, ctx);
  }
  }
  llvm_unreachable("unknown granularity");
}

static FailureOr<ElementwiseSpace>
buildSpace(OpBuilder &b, Location loc, Value input, SchemeAttr scheme) {
  auto type = cast<RankedTensorType>(input.getType());
  ElementwiseSpace space;
  space.rank = type.getRank();
  space.input = input;
  if (scheme.getGranularity() == Granularity::per_group) {
    int64_t axis = scheme.getAxis();
    int64_t g = scheme.getGroupSize();
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> outputShape;
    SmallVector<ReassociationIndices> reassociation;
    for (int64_t d = 0, r = type.getRank(); d < r; ++d) {
      int64_t size = type.getDimSize(d);
      OpFoldResult dimSize =
          ShapedType::isDynamic(size)
              ? OpFoldResult(tensor::DimOp::create(b, loc, input, d).getResult())
              : OpFoldResult(b.getIndexAttr(size));
      if (d != axis) {
        reassociation.push_back({static_cast<int64_t>(shape.size())});
        shape.push_back(size);
        outputShape.push_back(dimSize);
        continue;
      }
      reassociation.push_back({static_cast<int64_t>(shape.size()),
                               static_cast<int64_t>(shape.size() + 1)});
      if (ShapedType::isDynamic(size)) {
        Value groups = arith::DivUIOp::create(
            b, loc, cast<Value>(dimSize),
            arith::ConstantIndexOp::create(b, loc, g));
        shape.push_back(ShapedType::kDynamic);
        outputShape.push_back(groups);
      } else {
        shape.push_back(size / g);
        outputShape.push_back(b.getIndexAttr(size / g));
      }
      shape.push_back(g);
      outputShape.push_back(b.getIndexAttr(g));
    }
    auto expandedType = RankedTensorType::get(shape, type.getElementType());
    space.input = tensor::ExpandShapeOp::create(b, loc, expandedType, input,
                                                reassociation, outputShape);
    space.reassociation = reassociation;
    space.rank = shape.size();
  }
  return space;
}

/// Builds `linalg.generic` applying `body` element-wise to `space.input` with
/// the parameters broadcast by `paramMap`, producing `resultElementType`.
static Value buildGeneric(
    OpBuilder &b, Location loc, const ElementwiseSpace &space,
    SchemeAttr scheme, ValueRange params, Type resultElementType,
    Type finalType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, space.input);
  Value init = tensor::EmptyOp::create(b, loc, sizes, resultElementType);

  AffineMap id = AffineMap::getMultiDimIdentityMap(space.rank, ctx);
  SmallVector<AffineMap> maps{id};
  SmallVector<Value> inputs{space.input};
  for (Value p : params) {
    if (!p)
      continue;
    inputs.push_back(p);
    maps.push_back(paramMap(ctx, scheme, space.rank));
  }
  maps.push_back(id);
  SmallVector<utils::IteratorType> iterators(space.rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  Value result = generic.getResult(0);
  if (space.reassociation)
    result = tensor::CollapseShapeOp::create(b, loc, finalType, result,
                                             *space.reassociation);
  return result;
}

/// quantize and dequantize: one element-wise generic whose body is the
/// scalar rule (emitQuantize / emitDequantize), parameters broadcast by the
/// indexing maps.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SchemeAttr scheme = op.getScheme();
    FailureOr<ElementwiseSpace> space =
        buildSpace(rewriter, loc, adaptor.getInput(), scheme);
    if (failed(space))
      return rewriter.notifyMatchFailure(op, "cannot build iteration space");
    bool hasZp = static_cast<bool>(adaptor.getZeroPoint());
    constexpr bool isQuantize = std::is_same_v<OpTy, QuantizeOp>;
    Type resultElement = isQuantize ? scheme.getStorageElementType()
                                    : op.getType().getElementType();
    Value result = buildGeneric(
        rewriter, loc, *space, scheme,
        {adaptor.getScale(), adaptor.getZeroPoint()}, resultElement,
        op.getType(), [&](OpBuilder &b, Location l, ValueRange args) {
          Value zp = hasZp ? args[2] : Value();
          if constexpr (isQuantize)
            return emitQuantize(b, l, args[0], args[1], zp, scheme);
          else
            return emitDequantize(b, l, args[0], args[1], zp, scheme,
                                  resultElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// requantize is defined as quantize(dequantize(x)) with an f32
/// intermediate; lower it as exactly that pair (elementwise fusion merges the
/// two generics when the granularities allow).
struct RequantizeLowering : OpConversionPattern<RequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto f32Type = RankedTensorType::get(op.getType().getShape(),
                                         rewriter.getF32Type());
    Value x = DequantizeOp::create(rewriter, loc, f32Type, adaptor.getInput(),
                                   adaptor.getInScale(),
                                   adaptor.getInZeroPoint(),
                                   op.getInScheme());
    rewriter.replaceOpWithNewOp<QuantizeOp>(
        op, op.getType(), x, adaptor.getOutScale(), adaptor.getOutZeroPoint(),
        op.getOutScheme());
    return success();
  }
};

/// compute_params: a reduction generic accumulating the group statistics
/// (all accumulators start at 0, see numerics::RangeStats), then an
/// element-wise generic turning them into parameters.
struct ComputeParamsLowering : OpConversionPattern<ComputeParamsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ComputeParamsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SchemeAttr scheme = op.getScheme();
    FailureOr<ElementwiseSpace> space =
        buildSpace(rewriter, loc, adaptor.getInput(), scheme);
    if (failed(space))
      return rewriter.notifyMatchFailure(op, "cannot build iteration space");
    bool symmetric = scheme.isFloat() || scheme.getSymmetric();

    // Parameter tensor sizes: the iteration dims the parameter map keeps.
    AffineMap pmap = paramMap(ctx, scheme, space->rank);
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, space->input);
    SmallVector<OpFoldResult> paramSizes;
    SmallVector<utils::IteratorType> iterators(space->rank,
                                               utils::IteratorType::reduction);
    for (AffineExpr r : pmap.getResults()) {
      unsigned d = cast<AffineDimExpr>(r).getPosition();
      paramSizes.push_back(inSizes[d]);
      iterators[d] = utils::IteratorType::parallel;
    }

    Type f32 = rewriter.getF32Type();
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    auto makeAcc = [&]() {
      Value empty = tensor::EmptyOp::create(rewriter, loc, paramSizes, f32);
      return linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    };
    SmallVector<Value> accs;
    if (symmetric) {
      accs.push_back(makeAcc());
    } else {
      accs.push_back(makeAcc());
      accs.push_back(makeAcc());
    }
    AffineMap id = AffineMap::getMultiDimIdentityMap(space->rank, ctx);
    SmallVector<AffineMap> maps{id};
    maps.append(accs.size(), pmap);
    auto reduce = linalg::GenericOp::create(
        rewriter, loc, ValueRange(accs).getTypes(), space->input, accs, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          RangeStatsValues acc;
          if (symmetric)
            acc.absmax = args[1];
          else
            std::tie(acc.minV, acc.maxV) = std::make_pair(args[1], args[2]);
          RangeStatsValues next = emitAccumulate(b, l, acc, args[0]);
          if (symmetric)
            linalg::YieldOp::create(b, l, next.absmax);
          else
            linalg::YieldOp::create(b, l, ValueRange{next.minV, next.maxV});
        });

    // Element-wise: statistics -> parameters.
    unsigned prank = paramSizes.size();
    AffineMap pid = AffineMap::getMultiDimIdentityMap(prank, ctx);
    SmallVector<Value> outs{tensor::EmptyOp::create(rewriter, loc, paramSizes,
                                                    f32)};
    if (!symmetric)
      outs.push_back(tensor::EmptyOp::create(rewriter, loc, paramSizes,
                                             rewriter.getI32Type()));
    SmallVector<AffineMap> fmaps(reduce.getNumResults() + outs.size(), pid);
    SmallVector<utils::IteratorType> par(prank, utils::IteratorType::parallel);
    auto finalize = linalg::GenericOp::create(
        rewriter, loc, ValueRange(outs).getTypes(), reduce.getResults(), outs,
        fmaps, par, [&](OpBuilder &b, Location l, ValueRange args) {
          RangeStatsValues stats;
          if (symmetric)
            stats.absmax = args[0];
          else
            std::tie(stats.minV, stats.maxV) =
                std::make_pair(args[0], args[1]);
          auto [scale, zp] = emitParamsFromStats(b, l, stats, scheme);
          SmallVector<Value> yields{scale};
          if (zp)
            yields.push_back(zp);
          linalg::YieldOp::create(b, l, yields);
        });

    // Cast to the op's (possibly more static) result types.
    SmallVector<Value> results;
    for (auto [v, t] : llvm::zip(finalize.getResults(), op.getResultTypes()))
      results.push_back(v.getType() == t ? Value(v)
                                         : Value(tensor::CastOp::create(
                                               rewriter, loc, t, v)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Outside calibration an observer is the identity.
struct ObserveLowering : OpConversionPattern<ObserveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ObserveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

struct ConvertOctetToLinalgPass
    : mlir::octet::impl::ConvertOctetToLinalgBase<ConvertOctetToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    densifyResourcesLlvmCannotLower(getOperation());
    bitcastsAsArith(getOperation());
    if (failed(foldFp8Extensions(getOperation())))
      return signalPassFailure();
    ConversionTarget target(*ctx);
    target.addIllegalOp<QuantizeOp, DequantizeOp, RequantizeOp, ComputeParamsOp,
                        MatmulOp, ObserveOp, AttentionOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateOctetToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

/// `tensor.bitcast` (i8 codes read as FP8, say) becomes the element-wise
/// `arith.bitcast`, or for a constant the constant of the new type with the
/// same bytes: One-Shot Bufferize has no model of tensor.bitcast and
/// stopped with "op was not bufferized"; arith.bitcast becomes a
/// linalg.generic after convert-elementwise-to-linalg.
static void bitcastsAsArith(Operation *root) {
  SmallVector<tensor::BitcastOp> casts;
  root->walk([&](tensor::BitcastOp op) {
    if (arith::BitcastOp::areCastCompatible(op->getOperandTypes(),
                                            op->getResultTypes()))
      casts.push_back(op);
  });
  for (tensor::BitcastOp op : casts) {
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(op.getType());
    DenseElementsAttr dense;
    Value v;
    // A constant is reinterpreted here (the FP8 codes of a weight stored as
    // i8 bytes); the host lowering computes nothing on FP8-typed values.
    if (matchPattern(op.getSource(), m_Constant(&dense)) &&
        type.hasStaticShape())
      v = arith::ConstantOp::create(b, op.getLoc(), type,
                                    dense.bitcast(type.getElementType()));
    else
      v = arith::BitcastOp::create(b, op.getLoc(), type, op.getSource());
    op.getResult().replaceAllUsesWith(v);
    op.erase();
  }
}

/// The storage format of an FP8 / FP4 element type; none for others.
static std::optional<::octet::numerics::StorageFormat> lowFloatFormat(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return ::octet::numerics::StorageFormat::F8E4M3FN;
  if (isa<Float8E5M2Type>(t))
    return ::octet::numerics::StorageFormat::F8E5M2;
  if (isa<Float4E2M1FNType>(t))
    return ::octet::numerics::StorageFormat::F4E2M1FN;
  return std::nullopt;
}

/// `arith.extf` of an FP8 / FP4 constant to f32 becomes the f32 constant of
/// ::octet::numerics::decodeFp8 (exact; MLIR's folder leaves E5M2's signaling
/// NaNs alone). The host lowering has no arithmetic on FP8 / FP4-typed values
/// (octet's own ops work on their bits), so any other extf / truncf from or
/// to those types is an error here, at the op, instead of "LLVM
/// Translation failed" at the end.
static LogicalResult foldFp8Extensions(Operation *root) {
  SmallVector<arith::ExtFOp> folds;
  WalkResult walk = root->walk([&](Operation *op) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return WalkResult::advance();
    Type in = getElementTypeOrSelf(op->getOperand(0).getType());
    Type out = getElementTypeOrSelf(op->getResult(0).getType());
    std::optional<::octet::numerics::StorageFormat> fmt =
        lowFloatFormat(isa<arith::ExtFOp>(op) ? in : out);
    if (!fmt)
      return WalkResult::advance();
    auto ext = dyn_cast<arith::ExtFOp>(op);
    DenseElementsAttr dense;
    if (ext && out.isF32() && matchPattern(ext.getIn(), m_Constant(&dense))) {
      folds.push_back(ext);
      return WalkResult::advance();
    }
    if (!ext && matchPattern(op->getOperand(0), m_Constant()))
      return WalkResult::advance(); // folded by the canonicalizer
    op->emitError() << op->getName() << " " << (ext ? "of" : "to") << " "
                    << (ext ? in : out)
                    << " values: the host lowering has no FP8 / FP4 "
                       "arithmetic (octet ops work on their codes); "
                       "decode them with octet.dequantize";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();
  for (arith::ExtFOp ext : folds) {
    DenseElementsAttr dense;
    matchPattern(ext.getIn(), m_Constant(&dense));
    ::octet::numerics::StorageFormat fmt =
        *lowFloatFormat(getElementTypeOrSelf(ext.getIn().getType()));
    SmallVector<float> values;
    for (APFloat v : dense.getValues<APFloat>())
      values.push_back(::octet::numerics::decodeFp8(
          static_cast<uint8_t>(v.bitcastToAPInt().getZExtValue()), fmt));
    OpBuilder b(ext);
    TypedAttr attr;
    if (auto shaped = dyn_cast<ShapedType>(ext.getType()))
      attr = DenseElementsAttr::get(shaped, ArrayRef<float>(values));
    else
      attr = b.getF32FloatAttr(values.front());
    Value c = arith::ConstantOp::create(b, ext.getLoc(), attr);
    ext.getResult().replaceAllUsesWith(c);
    ext.erase();
  }
  return success();
}

/// Rank-0 and sub-byte `dense_resource` constants become `dense` ones with
/// the same bytes (one byte per i4 element either way):
/// finalize-memref-to-llvm turns a rank-0 memref.global's value into its
/// splat, which DenseResourceElementsAttr cannot give (MLIR 22 aborts:
/// "ElementsAttr does not provide iteration facilities"), and has no
/// conversion for an i4 resource global.
static void densifyResourcesLlvmCannotLower(Operation *root) {
  root->walk([](arith::ConstantOp op) {
    auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue());
    if (!res || (res.getType().getRank() != 0 &&
                 res.getType().getElementTypeBitWidth() >= 8))
      return;
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return;
    ArrayRef<char> data = blob->getData();
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(res.getType(), data, splat))
      return;
    op.setValueAttr(DenseElementsAttr::getFromRawBuffer(res.getType(), data));
  });
}

void mlir::octet::populateOctetToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<QuantizeOp>,
               ElementwiseLowering<DequantizeOp>, RequantizeLowering,
               ComputeParamsLowering, ObserveLowering>(
      patterns.getContext());
  populateMatmulLoweringPatterns(patterns);
  populateAttentionLoweringPatterns(patterns);
}
