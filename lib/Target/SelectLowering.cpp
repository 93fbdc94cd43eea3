//===- SelectLowering.cpp - octet-select-lowering -------------------------===//
//
// Annotates every quantized op with the kernel strategy the module's target
// gives it. The decision itself is target::selectContraction /
// selectElementwise over the capability table; this file only finds the
// ops and says what their operand formats are.
//
//===----------------------------------------------------------------------===//

#include "octet/Target/Capabilities.h"
#include "octet/Target/Passes.h"
#include "octet/Target/Strategy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
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

/// Name of the discardable attribute holding an op's #octet.strategy.
static constexpr StringLiteral kStrategyAttrName = "octet.strategy";

namespace {

/// The format of one contraction operand: the storage element of the
/// octet.dequantize that produces it, else its float element type.
struct OperandFormat {
  Elem elem;
  bool quantized;
};

std::optional<OperandFormat> getOperandFormat(Value operand) {
  if (auto dequantize = operand.getDefiningOp<DequantizeOp>())
    return OperandFormat{toElem(dequantize.getScheme().getFormat()), true};
  if (std::optional<Elem> elem =
          toFloatElem(getElementTypeOrSelf(operand.getType())))
    return OperandFormat{*elem, false};
  return std::nullopt;
}

/// A linalg contraction (or convolution: an implicit GEMM over the filter
/// window) with at least one dequantized input, as a query.
std::optional<ContractionQuery> matchLinalgContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
      !(linalg::isaContractionOpInterface(linalgOp) ||
        linalg::isaConvolutionOpInterface(linalgOp)))
    return std::nullopt;
  std::optional<OperandFormat> a =
      getOperandFormat(linalgOp.getDpsInputOperand(0)->get());
  std::optional<OperandFormat> b =
      getOperandFormat(linalgOp.getDpsInputOperand(1)->get());
  if (!a || !b || (!a->quantized && !b->quantized))
    return std::nullopt;
  ContractionQuery query;
  query.a = a->elem;
  query.b = b->elem;
  query.aQuantized = a->quantized;
  query.bQuantized = b->quantized;
  return query;
}

/// octet.matmul: A and B come from its schemes (a float lhs is weight-only).
std::optional<ContractionQuery> matchOctetMatmul(Operation *op) {
  auto matmul = dyn_cast<MatmulOp>(op);
  if (!matmul)
    return std::nullopt;
  ContractionQuery query;
  query.b = toElem(matmul.getRhsScheme().getFormat());
  query.bQuantized = true;
  if (SchemeAttr lhsScheme = matmul.getLhsSchemeAttr()) {
    query.a = toElem(lhsScheme.getFormat());
    query.aQuantized = true;
    return query;
  }
  std::optional<Elem> lhs =
      toFloatElem(getElementTypeOrSelf(matmul.getLhs().getType()));
  if (!lhs)
    return std::nullopt;
  query.a = *lhs;
  return query;
}

/// Every kind of quantized contraction: each matcher says what A and B are,
/// the table lookup is the same for all.
std::optional<ContractionQuery> matchContraction(Operation *op) {
  if (std::optional<ContractionQuery> query = matchOctetMatmul(op))
    return query;
  return matchLinalgContraction(op);
}

/// The input and output formats of a standalone octet op.
std::optional<std::pair<Elem, Elem>> getElementwiseFormats(Operation *op) {
  auto floatOf = [](Value v) {
    return toFloatElem(getElementTypeOrSelf(v.getType())).value_or(Elem::f32);
  };
  if (auto q = dyn_cast<QuantizeOp>(op))
    return std::make_pair(floatOf(q.getInput()),
                          toElem(q.getScheme().getFormat()));
  if (auto d = dyn_cast<DequantizeOp>(op))
    return std::make_pair(toElem(d.getScheme().getFormat()),
                          floatOf(d.getResult()));
  if (auto r = dyn_cast<RequantizeOp>(op))
    return std::make_pair(toElem(r.getInScheme().getFormat()),
                          toElem(r.getOutScheme().getFormat()));
  if (auto p = dyn_cast<ComputeParamsOp>(op))
    return std::make_pair(floatOf(p.getInput()),
                          toElem(p.getScheme().getFormat()));
  return std::nullopt;
}

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
      std::optional<ContractionQuery> query = matchContraction(op);
      if (!query)
        return;
      StrategyChoice choice = selectContraction(target, *query);
      op->setAttr(kStrategyAttrName, choice.getAttr(ctx, target));
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
        op->setAttr(
            kStrategyAttrName,
            getFusedAttr(ctx, consumer, formats->first, formats->second));
        return;
      }
      StrategyChoice choice =
          selectElementwise(target, formats->first, formats->second);
      op->setAttr(kStrategyAttrName, choice.getAttr(ctx, target));
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
      note = "codes feed the consumer's " + consumer.row->unit.str() +
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
