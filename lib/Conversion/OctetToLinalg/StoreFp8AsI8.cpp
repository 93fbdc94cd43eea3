//===- StoreFp8AsI8.cpp - FP8 storage as i8 for FP8-less consumers --------===//
//
// octet-store-fp8-as-i8: after convert-octet-to-linalg, FP8 values are only
// stored and moved (the numerics work on their bits through arith.bitcast),
// so every FP8 element type can become i8 with the same bytes. For
// consumers that cannot hold FP8 constants (IREE's constant serializer).
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::octet {
#define GEN_PASS_DEF_OCTETSTOREFP8ASI8
#include "octet/Conversion/Passes.h.inc"
} // namespace mlir::octet

using namespace mlir;

namespace {

bool isFp8(Type t) {
  auto f = dyn_cast<FloatType>(t);
  return f && f.getWidth() == 8;
}

/// `t` with an FP8 element (or scalar) type replaced by i8; other types
/// unchanged.
Type storageType(Type t) {
  IntegerType i8 = IntegerType::get(t.getContext(), 8);
  if (isFp8(t))
    return i8;
  if (auto s = dyn_cast<ShapedType>(t))
    if (isFp8(s.getElementType()))
      return s.clone(i8);
  if (auto f = dyn_cast<FunctionType>(t)) {
    SmallVector<Type> ins, outs;
    for (Type a : f.getInputs())
      ins.push_back(storageType(a));
    for (Type r : f.getResults())
      outs.push_back(storageType(r));
    return FunctionType::get(t.getContext(), ins, outs);
  }
  return t;
}

bool hasFp8(Type t) { return storageType(t) != t; }

/// Ops that may hold or move FP8 values without computing on them.
bool onlyMoves(Operation *op) {
  if (isa<arith::BitcastOp, arith::ConstantOp, arith::SelectOp>(op))
    return true;
  if (isa<linalg::GenericOp, linalg::YieldOp, linalg::FillOp, linalg::CopyOp,
          linalg::TransposeOp, linalg::BroadcastOp>(op))
    return true;
  Dialect *d = op->getDialect();
  return d && isa<tensor::TensorDialect, memref::MemRefDialect,
                  func::FuncDialect, scf::SCFDialect,
                  bufferization::BufferizationDialect>(d);
}

/// The constant's value with FP8 elements stored as i8 (same bytes).
FailureOr<TypedAttr> storageValue(TypedAttr value) {
  if (auto f = dyn_cast<FloatAttr>(value))
    return TypedAttr(IntegerAttr::get(storageType(f.getType()),
                                      f.getValue().bitcastToAPInt()));
  auto shaped = dyn_cast<ShapedType>(value.getType());
  if (!shaped)
    return failure();
  auto newType = cast<ShapedType>(storageType(shaped));
  if (auto r = dyn_cast<DenseResourceElementsAttr>(value))
    return TypedAttr(DenseResourceElementsAttr::get(newType, r.getRawHandle()));
  if (auto d = dyn_cast<DenseElementsAttr>(value))
    return TypedAttr(DenseElementsAttr::getFromRawBuffer(newType,
                                                         d.getRawData()));
  return failure();
}

struct OctetStoreFp8AsI8Pass
    : octet::impl::OctetStoreFp8AsI8Base<OctetStoreFp8AsI8Pass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Check everything first: rewrite nothing unless all of it can be.
    bool ok = true;
    module.walk([&](Operation *op) {
      bool touches = llvm::any_of(op->getOperandTypes(), hasFp8) ||
                     llvm::any_of(op->getResultTypes(), hasFp8);
      if (auto f = dyn_cast<func::FuncOp>(op))
        touches |= hasFp8(f.getFunctionType());
      if (!touches)
        return;
      if (!onlyMoves(op)) {
        op->emitOpError("computes on FP8 values; octet-store-fp8-as-i8 "
                        "only stores them as i8 (run it after "
                        "convert-octet-to-linalg, whose FP8 numerics work "
                        "on the bits)");
        ok = false;
      } else if (auto c = dyn_cast<arith::ConstantOp>(op)) {
        if (failed(storageValue(c.getValue()))) {
          op->emitOpError("has an FP8 value octet-store-fp8-as-i8 cannot "
                          "store as i8");
          ok = false;
        }
      }
    });
    if (!ok)
      return signalPassFailure();

    module.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(storageType(arg.getType()));
      for (OpResult r : op->getResults())
        r.setType(storageType(r.getType()));
      if (auto f = dyn_cast<func::FuncOp>(op))
        f.setFunctionType(cast<FunctionType>(storageType(f.getFunctionType())));
      if (auto c = dyn_cast<arith::ConstantOp>(op))
        if (hasFp8(c.getValue().getType()))
          c.setValueAttr(*storageValue(c.getValue()));
    });
    // The bitcasts between FP8 and i8 are now i8 -> i8.
    module.walk([](arith::BitcastOp op) {
      if (op.getIn().getType() == op.getType()) {
        op.replaceAllUsesWith(op.getIn());
        op.erase();
      }
    });
  }
};

} // namespace
