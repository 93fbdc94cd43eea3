//===- SelectLowering.cpp - octet-select-lowering -------------------------===//
//
// Annotates every quantized op with the kernel strategy the module's target
// gives it. The policy itself (which ops, their formats, the table lookup)
// is in Strategy.cpp, shared with the lowerings that meet an op without a
// strategy; this pass adds the warnings, `strict`, and the `fused` strategy
// of a dequantize whose users are all annotated contractions.
//
//===----------------------------------------------------------------------===//

#include "octet/Target/Capabilities.h"
#include "octet/Target/Passes.h"
#include "octet/Target/Strategy.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETSELECTLOWERING
#include "octet/Target/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

namespace {

struct OctetSelectLoweringPass
    : public octet::impl::OctetSelectLoweringBase<OctetSelectLoweringPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto attr = module->getAttrOfType<TargetAttr>(kTargetAttrName);
    if (!attr) {
      module.emitError() << "octet-select-lowering needs the module's "
                            "#octet.target; run --octet-set-target first";
      return signalPassFailure();
    }
    FailureOr<const TargetInfo *> info =
        getTargetInfo(attr, [&] { return module.emitError(); });
    if (failed(info))
      return signalPassFailure();
    const TargetInfo &target = **info;

    // Contractions first: their choice decides what their dequantized
    // operands become.
    bool strictFailure = false;
    DenseMap<Operation *, StrategyChoice> contractions;
    module.walk([&](Operation *op) {
      std::optional<ContractionQuery> query = getContractionQuery(op);
      if (!query)
        return;
      StrategyChoice choice = selectContraction(target, *query);
      setStrategyAttr(op, choice.getAttr(ctx, target));
      if (!choice.cost.empty()) {
        if (strict) {
          op->emitError() << choice.cost << " (strict)";
          strictFailure = true;
        } else {
          op->emitWarning() << choice.cost;
        }
      }
      contractions.try_emplace(op, std::move(choice));
    });

    module.walk([&](Operation *op) {
      std::optional<std::pair<Elem, Elem>> formats = getElementwiseFormats(op);
      if (!formats)
        return;
      if (isa<DequantizeOp>(op) && !op->use_empty() &&
          llvm::all_of(op->getUsers(), [&](Operation *user) {
            return contractions.count(user);
          })) {
        const StrategyChoice &consumer =
            contractions.find(*op->getUsers().begin())->second;
        setStrategyAttr(op, getFusedAttr(ctx, consumer, formats->first,
                                         formats->second));
        return;
      }
      StrategyChoice choice =
          selectElementwise(target, formats->first, formats->second);
      setStrategyAttr(op, choice.getAttr(ctx, target));
    });

    if (strictFailure)
      signalPassFailure();
  }

  /// A dequantize that runs inside its consumer's kernel.
  static StrategyAttr getFusedAttr(MLIRContext *ctx,
                                   const StrategyChoice &consumer, Elem in,
                                   Elem out) {
    std::string note;
    if (consumer.kind == StrategyKind::native ||
        consumer.kind == StrategyKind::compensated)
      note = "codes feed the consumer's " +
             stringifyKernelUnit(consumer.row->unit).str() +
             " directly; the scale is applied in its epilogue";
    else
      note = ("converted to " + stringifyElem(consumer.a) +
              " inside the consumer's kernel")
                 .str();
    return StrategyAttr::get(ctx, StrategyKind::fused, consumer.row->unit,
                             stringifyElem(in), stringifyElem(out), "", "", "",
                             note);
  }
};

} // namespace
