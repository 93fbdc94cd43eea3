//===- QuantToOctet.cpp - Import upstream quant casts and types -----------===//
//
// octet-import-quant: quant.qcast / quant.dcast / quant.scast on
// !quant.uniform types become octet ops with constant parameters, and every
// quantized type becomes its storage type.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"
#include "octet/Conversion/QuantCommon/QuantInterop.h"

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
  return importQuantType(rt, emit);
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
                                           const QuantParams &params) {
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
    FailureOr<QuantParams> params =
        importQuantType(type, [&]() { return op.emitError(); });
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
    FailureOr<QuantParams> params =
        importQuantType(type, [&]() { return op.emitError(); });
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
