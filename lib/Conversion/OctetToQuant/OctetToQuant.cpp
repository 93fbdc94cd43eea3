//===- OctetToQuant.cpp - Export octet ops as upstream quant casts --------===//
//
// octet-export-quant: octet.quantize / octet.dequantize with constant
// parameters become quant.qcast / quant.dcast on !quant.uniform types;
// quant.scast converts between quantized and storage types where values
// cross function boundaries or other ops. The inverse of octet-import-quant.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"
#include "octet/Conversion/QuantCommon/QuantInterop.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETEXPORTQUANT
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {

/// Reads the constant behind `value` (a scale or zero point) or reports why
/// it cannot be exported.
static FailureOr<DenseElementsAttr> getConstantParam(Operation *op, Value value,
                                                     StringRef what) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return op->emitOpError()
           << what
           << " is not a constant: upstream !quant.uniform types carry "
              "compile-time parameters only, so dynamic quantization cannot "
              "be exported";
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return op->emitOpError() << what << " constant " << attr
                             << " is not a dense elements attribute";
  return dense;
}

/// The `!quant.uniform` tensor type equivalent to a quantize or dequantize
/// with float type `floatType` and storage type `storageType`.
template <typename OpTy>
static FailureOr<RankedTensorType> exportOpType(OpTy op,
                                                RankedTensorType floatType,
                                                RankedTensorType storageType) {
  FailureOr<DenseElementsAttr> scale =
      getConstantParam(op, op.getScale(), "scale");
  if (failed(scale))
    return failure();
  DenseElementsAttr zeroPoint;
  if (Value zp = op.getZeroPoint()) {
    FailureOr<DenseElementsAttr> zpAttr =
        getConstantParam(op, zp, "zero point");
    if (failed(zpAttr))
      return failure();
    zeroPoint = *zpAttr;
  }
  FailureOr<quant::QuantizedType> qt =
      exportQuantType(op.getScheme(), storageType.getShape(),
                      cast<FloatType>(floatType.getElementType()), *scale,
                      zeroPoint, [&]() { return op.emitOpError(); });
  if (failed(qt))
    return failure();
  return RankedTensorType::get(storageType.getShape(), *qt,
                               storageType.getEncoding());
}

struct OctetExportQuantPass
    : octet::impl::OctetExportQuantBase<OctetExportQuantPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();

    // First decide every op's type and report everything upstream cannot
    // express, at its op; rewrite nothing unless all of it can be exported.
    SmallVector<std::pair<QuantizeOp, RankedTensorType>> quantizes;
    SmallVector<std::pair<DequantizeOp, RankedTensorType>> dequantizes;
    bool ok = true;
    module.walk([&](Operation *op) {
      if (auto q = dyn_cast<QuantizeOp>(op)) {
        FailureOr<RankedTensorType> t =
            exportOpType(q, q.getInput().getType(), q.getResult().getType());
        if (failed(t))
          ok = false;
        else
          quantizes.push_back({q, *t});
      } else if (auto d = dyn_cast<DequantizeOp>(op)) {
        FailureOr<RankedTensorType> t =
            exportOpType(d, d.getResult().getType(), d.getInput().getType());
        if (failed(t))
          ok = false;
        else
          dequantizes.push_back({d, *t});
      } else if (isa<RequantizeOp>(op)) {
        op->emitOpError()
            << "cannot be exported: upstream quant has no requantize "
               "operation (express it as octet.dequantize + octet.quantize)";
        ok = false;
      } else if (isa<MatmulOp>(op)) {
        // octet-quantize and octet-fold-scales fuse the dequantize into the
        // contraction; upstream has no op that takes quantized operands.
        op->emitOpError()
            << "cannot be exported: upstream quant has no contraction on "
               "quantized operands (export the unfused form, "
               "octet.dequantize + linalg: octet-quantize-weights without "
               "octet-fold-scales)";
        ok = false;
      } else if (isa<ComputeParamsOp>(op)) {
        op->emitOpError()
            << "cannot be exported: it computes parameters at run time, and "
               "upstream !quant.uniform types carry compile-time parameters "
               "only";
        ok = false;
      }
    });
    if (!ok)
      return signalPassFailure();

    // Rewrite. Quantize: qcast, then scast back to the storage type for
    // every user. Dequantize: read the qcast directly when its type matches,
    // else scast the storage value.
    OpBuilder b(&getContext());
    llvm::SetVector<Operation *> maybeDead;
    auto noteParam = [&](Value v) {
      if (v && v.getDefiningOp())
        maybeDead.insert(v.getDefiningOp());
    };
    for (auto [q, quantType] : quantizes) {
      b.setInsertionPoint(q);
      Value cast =
          quant::QuantizeCastOp::create(b, q.getLoc(), quantType, q.getInput());
      auto toStorage = quant::StorageCastOp::create(
          b, q.getLoc(), q.getResult().getType(), cast);
      noteParam(q.getScale());
      noteParam(q.getZeroPoint());
      q.getResult().replaceAllUsesWith(toStorage.getResult());
      q.erase();
      maybeDead.insert(toStorage);
    }
    for (auto [d, quantType] : dequantizes) {
      b.setInsertionPoint(d);
      Value input = d.getInput();
      auto fromStorage = input.getDefiningOp<quant::StorageCastOp>();
      if (fromStorage && fromStorage.getInput().getType() == quantType)
        input = fromStorage.getInput();
      else
        input = quant::StorageCastOp::create(b, d.getLoc(), quantType, input);
      Value cast = quant::DequantizeCastOp::create(
          b, d.getLoc(), d.getResult().getType(), input);
      noteParam(d.getScale());
      noteParam(d.getZeroPoint());
      d.getResult().replaceAllUsesWith(cast);
      d.erase();
    }

    // Drop the storage casts nobody reads and the parameter constants the
    // octet ops leave behind.
    for (Operation *op : maybeDead)
      if (op->use_empty() &&
          (isa<quant::StorageCastOp>(op) || matchPattern(op, m_Constant())))
        op->erase();
  }
};

} // namespace
