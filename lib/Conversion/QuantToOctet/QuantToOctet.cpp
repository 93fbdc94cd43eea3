//===- QuantToOctet.cpp - Import upstream quant casts and types -----------===//
//
// octet-import-quant: quant.qcast / quant.dcast / quant.scast on
// !quant.uniform types become octet ops with constant parameters, and every
// quantized type becomes its storage type.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETIMPORTQUANT
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {

/// Scheme and constant parameters equivalent to a !quant.uniform type on a
/// tensor of a given shape.
struct ImportedParams {
  SchemeAttr scheme;
  DenseElementsAttr scale;
  DenseElementsAttr zeroPoint; ///< Null for symmetric schemes.
};

using EmitFn = function_ref<InFlightDiagnostic()>;

/// Storage format of a quant type, or failure with a diagnostic.
static FailureOr<StorageFormat> importFormat(quant::QuantizedType qt,
                                             EmitFn emitError) {
  if (!isa<IntegerType>(qt.getStorageType()))
    return emitError() << "storage type " << qt.getStorageType()
                       << " of " << qt << " is not supported";
  unsigned width = qt.getStorageTypeIntegralWidth();
  if (width == 8)
    return qt.isSigned() ? StorageFormat::i8 : StorageFormat::u8;
  if (width == 4)
    return qt.isSigned() ? StorageFormat::i4 : StorageFormat::u4;
  return emitError() << "storage type of " << qt
                     << " is not supported: octet stores i8, u8, i4 and u4 "
                        "codes";
}

/// Converts a quantized element type on a tensor of `type`'s shape.
static FailureOr<ImportedParams> importParams(RankedTensorType type,
                                              EmitFn emitError) {
  auto qt = cast<quant::QuantizedType>(type.getElementType());
  MLIRContext *ctx = qt.getContext();
  if (!isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType,
           quant::UniformQuantizedSubChannelType>(qt))
    return emitError() << "only !quant.uniform types can be imported, not "
                       << qt;
  Type expressed = qt.getExpressedType();
  if (!expressed.isF32() && !expressed.isF16() && !expressed.isBF16())
    return emitError() << "expressed type " << expressed << " of " << qt
                       << " is not supported (f32, f16 or bf16)";
  FailureOr<StorageFormat> format = importFormat(qt, emitError);
  if (failed(format))
    return failure();
  auto full = getFullRange(*format);
  int64_t qmin = qt.getStorageTypeMin(), qmax = qt.getStorageTypeMax();
  if (qmin < full.first || qmax > full.second || qmin >= qmax)
    return emitError() << "storage range [" << qmin << ", " << qmax << "] of "
                       << qt << " is not a sub-range of "
                       << stringifyStorageFormat(*format);

  Type f32 = Float32Type::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  Granularity granularity = Granularity::per_tensor;
  int64_t axis = 0, groupSize = 0;
  SmallVector<float> scales;
  SmallVector<int32_t> zps;
  SmallVector<int64_t> paramShape;

  if (auto pt = dyn_cast<quant::UniformQuantizedType>(qt)) {
    scales.push_back(static_cast<float>(pt.getScale()));
    zps.push_back(static_cast<int32_t>(pt.getZeroPoint()));
  } else if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(qt)) {
    granularity = Granularity::per_axis;
    axis = pa.getQuantizedDimension();
    if (axis >= type.getRank())
      return emitError() << "quantized dimension " << axis << " of " << qt
                         << " is out of range for " << type;
    for (double s : pa.getScales())
      scales.push_back(static_cast<float>(s));
    for (int64_t z : pa.getZeroPoints())
      zps.push_back(static_cast<int32_t>(z));
    paramShape.push_back(scales.size());
  } else {
    auto sc = cast<quant::UniformQuantizedSubChannelType>(qt);
    if (!type.hasStaticShape())
      return emitError() << "sub-channel type " << qt
                         << " needs a statically shaped tensor, got " << type;
    int64_t rank = type.getRank();
    // Block size per dimension; unspecified dimensions are one block.
    SmallVector<int64_t> blocks(type.getShape());
    for (auto [d, b] : sc.getBlockSizeInfo())
      blocks[d] = b;
    // Choose the representation: per_tensor (one block), per_axis (blocks of
    // 1 along one dimension, whole elsewhere), else per_group along the
    // dimension with the largest proper block; parameters are replicated
    // along other dimensions whose block is larger than 1.
    SmallVector<int64_t> partial;
    for (int64_t d = 0; d < rank; ++d)
      if (blocks[d] != type.getDimSize(d))
        partial.push_back(d);
    SmallVector<int64_t> scaleShape;
    if (partial.empty()) {
      granularity = Granularity::per_tensor;
    } else if (partial.size() == 1 && blocks[partial[0]] == 1) {
      granularity = Granularity::per_axis;
      axis = partial[0];
      scaleShape.push_back(type.getDimSize(axis));
    } else {
      granularity = Granularity::per_group;
      axis = partial[0];
      for (int64_t d : partial)
        if (blocks[d] > blocks[axis])
          axis = d;
      groupSize = blocks[axis];
      for (int64_t d = 0; d < rank; ++d)
        scaleShape.push_back(d == axis ? type.getDimSize(d) / groupSize
                                       : type.getDimSize(d));
    }
    paramShape = scaleShape;
    // Read the source parameters (shape = dims / blocks) and expand.
    std::vector<float> srcScales;
    for (APFloat v : sc.getScales().getValues<APFloat>()) {
      bool lost;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      srcScales.push_back(v.convertToFloat());
    }
    SmallVector<int64_t> srcZps;
    for (const APInt &v : sc.getZeroPoints().getValues<APInt>())
      srcZps.push_back(v.getSExtValue());
    SmallVector<int64_t> srcShape;
    for (int64_t d = 0; d < rank; ++d)
      srcShape.push_back(type.getDimSize(d) / blocks[d]);
    int64_t count = 1;
    for (int64_t s : scaleShape)
      count *= s;
    for (int64_t i = 0; i < count; ++i) {
      // Coordinates in the octet parameter tensor -> source coordinates.
      int64_t rem = i, src = 0, srcStride = 1;
      SmallVector<int64_t> coord(scaleShape.size());
      for (int64_t k = scaleShape.size() - 1; k >= 0; --k) {
        coord[k] = rem % scaleShape[k];
        rem /= scaleShape[k];
      }
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t c = 0;
        if (granularity == Granularity::per_group)
          c = d == axis ? coord[d] : coord[d] / blocks[d];
        else if (granularity == Granularity::per_axis && d == axis)
          c = coord[0];
        src += c * srcStride;
        srcStride *= srcShape[d];
      }
      scales.push_back(srcScales[src]);
      zps.push_back(static_cast<int32_t>(srcZps[src]));
    }
  }

  for (float s : scales)
    if (!(s > 0.0f) || !std::isfinite(s))
      return emitError() << "scale " << s << " of " << qt
                         << " is not a positive finite f32";
  bool symmetric = llvm::all_of(zps, [](int32_t z) { return z == 0; });
  for (int32_t z : zps)
    if (z < qmin || z > qmax)
      return emitError() << "zero point " << z << " of " << qt
                         << " is outside its storage range";

  ImportedParams params;
  params.scheme = SchemeAttr::getChecked(
      emitError, ctx, *format, granularity, axis, groupSize, symmetric,
      /*saturate=*/true, static_cast<int32_t>(qmin),
      static_cast<int32_t>(qmax));
  if (!params.scheme)
    return failure();
  params.scale = DenseElementsAttr::get(RankedTensorType::get(paramShape, f32),
                                        ArrayRef<float>(scales));
  if (!symmetric)
    params.zeroPoint = DenseElementsAttr::get(
        RankedTensorType::get(paramShape, i32), ArrayRef<int32_t>(zps));
  return params;
}

/// The element type a quantized element type becomes.
static Type storageElementType(quant::QuantizedType qt) {
  return IntegerType::get(qt.getContext(), qt.getStorageTypeIntegralWidth());
}

static bool containsQuantType(Type t) {
  if (isa<quant::QuantizedType>(t))
    return true;
  if (auto st = dyn_cast<ShapedType>(t))
    return isa<quant::QuantizedType>(st.getElementType());
  if (auto ft = dyn_cast<FunctionType>(t))
    return llvm::any_of(ft.getInputs(), containsQuantType) ||
           llvm::any_of(ft.getResults(), containsQuantType);
  return false;
}

/// Checks that `t` can be imported; reports at `op` otherwise.
static LogicalResult checkImportable(Type t, Operation *op) {
  auto emit = [&]() { return op->emitError(); };
  if (auto ft = dyn_cast<FunctionType>(t)) {
    for (Type in : llvm::concat<const Type>(ft.getInputs(), ft.getResults()))
      if (failed(checkImportable(in, op)))
        return failure();
    return success();
  }
  if (!containsQuantType(t))
    return success();
  if (isa<quant::QuantizedType>(t))
    return emit() << "scalar quantized value of type " << t
                  << " cannot be imported: octet ops work on ranked tensors";
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return emit() << "quantized type " << t
                  << " cannot be imported: octet ops work on ranked tensors";
  return importParams(rt, emit);
}

struct QuantTypeConverter : TypeConverter {
  QuantTypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](RankedTensorType t) -> Type {
      if (auto qt = dyn_cast<quant::QuantizedType>(t.getElementType()))
        return RankedTensorType::get(t.getShape(), storageElementType(qt),
                                     t.getEncoding());
      return t;
    });
  }
};

/// Materializes the constants of `params` at `loc`.
static std::pair<Value, Value> buildParams(OpBuilder &b, Location loc,
                                           const ImportedParams &params) {
  Value scale = arith::ConstantOp::create(b, loc, params.scale);
  Value zp;
  if (params.zeroPoint)
    zp = arith::ConstantOp::create(b, loc, params.zeroPoint);
  return {scale, zp};
}

struct QCastLowering : OpConversionPattern<quant::QuantizeCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(quant::QuantizeCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "not a ranked tensor");
    FailureOr<ImportedParams> params =
        importParams(type, [&]() { return op.emitError(); });
    if (failed(params))
      return failure();
    auto [scale, zp] = buildParams(rewriter, op.getLoc(), *params);
    Type resultType = getTypeConverter()->convertType(type);
    rewriter.replaceOpWithNewOp<QuantizeOp>(op, resultType, adaptor.getInput(),
                                            scale, zp, params->scheme);
    return success();
  }
};

struct DCastLowering : OpConversionPattern<quant::DequantizeCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(quant::DequantizeCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "not a ranked tensor");
    FailureOr<ImportedParams> params =
        importParams(type, [&]() { return op.emitError(); });
    if (failed(params))
      return failure();
    auto [scale, zp] = buildParams(rewriter, op.getLoc(), *params);
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getResult().getType(),
                                              adaptor.getInput(), scale, zp,
                                              params->scheme);
    return success();
  }
};

struct SCastLowering : OpConversionPattern<quant::StorageCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(quant::StorageCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter()->convertType(op.getType());
    Value input = adaptor.getInput();
    if (input.getType() != resultType) {
      // e.g. a signed/unsigned storage type on the non-quantized side.
      auto inT = dyn_cast<ShapedType>(input.getType());
      auto outT = dyn_cast<ShapedType>(resultType);
      if (!inT || !outT || inT.getShape() != outT.getShape() ||
          inT.getElementTypeBitWidth() != outT.getElementTypeBitWidth())
        return op.emitError() << "cannot import storage cast from "
                              << input.getType() << " to " << resultType;
      input = arith::BitcastOp::create(rewriter, op.getLoc(), resultType,
                                       input);
    }
    rewriter.replaceOp(op, input);
    return success();
  }
};

/// Any other op that merely carries quantized tensors (reshapes, slices,
/// ...) is rebuilt with storage types; its verifier decides whether that is
/// still valid.
struct GenericTypeRewrite : ConversionPattern {
  GenericTypeRewrite(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/0, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "ops with regions not handled");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs(), op->getSuccessors());
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

struct OctetImportQuantPass
    : octet::impl::OctetImportQuantBase<OctetImportQuantPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    // First report everything that cannot be represented, at its op.
    // Each offending type is reported once, at the first op that uses it.
    bool ok = true;
    DenseSet<Type> checked;
    auto check = [&](Type t, Operation *op) {
      if (checked.insert(t).second)
        ok &= succeeded(checkImportable(t, op));
    };
    module.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        check(t, op);
      for (Type t : op->getOperandTypes())
        check(t, op);
      if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
        for (Type t : fn.getArgumentTypes())
          check(t, op);
        for (Type t : fn.getResultTypes())
          check(t, op);
      }
    });
    if (!ok)
      return signalPassFailure();

    QuantTypeConverter converter;
    ConversionTarget target(*ctx);
    auto isLegal = [&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op))
        return !containsQuantType(fn.getFunctionType());
      return !llvm::any_of(op->getOperandTypes(), containsQuantType) &&
             !llvm::any_of(op->getResultTypes(), containsQuantType);
    };
    target.markUnknownOpDynamicallyLegal(isLegal);
    target.addIllegalOp<quant::QuantizeCastOp, quant::DequantizeCastOp,
                        quant::StorageCastOp>();

    RewritePatternSet patterns(ctx);
    patterns.add<QCastLowering, DCastLowering, SCastLowering>(converter, ctx);
    patterns.add<GenericTypeRewrite>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    // Never fold: quant.dcast(quant.qcast(x)) folds to x upstream, which
    // would silently erase the quantization error the program asks for.
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(module, target, std::move(patterns),
                                      config)))
      signalPassFailure();
  }
};

} // namespace
