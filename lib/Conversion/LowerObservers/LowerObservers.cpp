//===- LowerObservers.cpp - octet.observe -> runtime calls ----------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETLOWEROBSERVERS
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {
struct OctetLowerObserversPass
    : octet::impl::OctetLowerObserversBase<OctetLowerObserversPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<ObserveOp> observers;
    module.walk([&](ObserveOp op) { observers.push_back(op); });
    if (observers.empty())
      return;

    OpBuilder b(ctx);
    Type f32 = b.getF32Type();
    auto unranked = UnrankedTensorType::get(f32);
    auto fnType = b.getFunctionType({b.getI64Type(), unranked}, {});
    auto callee = module.lookupSymbol<func::FuncOp>("octet_observe");
    if (!callee) {
      b.setInsertionPointToStart(module.getBody());
      callee = func::FuncOp::create(b, module.getLoc(), "octet_observe",
                                    fnType);
      callee.setPrivate();
      callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
      // The runner only reads the tensor: no copy before the call.
      callee.setArgAttr(1, "bufferization.access", b.getStringAttr("read"));
    } else if (callee.getFunctionType() != fnType) {
      module.emitError() << "octet_observe is already defined with type "
                         << callee.getFunctionType();
      return signalPassFailure();
    }

    // One id per distinct name, in first-seen order.
    SmallVector<Attribute> names;
    llvm::StringMap<int64_t> ids;
    for (ObserveOp op : observers) {
      auto [it, inserted] = ids.try_emplace(op.getName(), names.size());
      if (inserted)
        names.push_back(op.getNameAttr());
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value x = op.getInput();
      auto type = cast<RankedTensorType>(x.getType());
      if (!type.getElementType().isF32())
        x = arith::ExtFOp::create(b, loc,
                                  RankedTensorType::get(type.getShape(), f32),
                                  x);
      Value cast = tensor::CastOp::create(b, loc, unranked, x);
      Value id = arith::ConstantOp::create(b, loc,
                                           b.getI64IntegerAttr(it->second));
      func::CallOp::create(b, loc, callee, ValueRange{id, cast});
      op.replaceAllUsesWith(op.getInput());
      op.erase();
    }
    module->setAttr("octet.observers", b.getArrayAttr(names));
  }
};
} // namespace
