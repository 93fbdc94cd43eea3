//===- MonitorRanges.cpp - count what static quantizers clip --------------===//
//
// octet-monitor-ranges: a call of the runtime's octet_monitor_quantize
// before every static octet.quantize (Passes.td has the contract).
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Path.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETMONITORRANGES
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {

constexpr StringLiteral kCallee = "octet_monitor_quantize";

/// The first name in `loc` (outermost first), else its file:line:column.
std::string locationName(Location loc) {
  std::string fileLine;
  std::string name;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l)) {
      name = n.getName().str();
      return WalkResult::interrupt();
    }
    if (auto f = dyn_cast<FileLineColLoc>(l); f && fileLine.empty())
      fileLine = (llvm::sys::path::filename(f.getFilename().getValue()) +
                  ":" + Twine(f.getLine()) + ":" + Twine(f.getColumn()))
                     .str();
    return WalkResult::advance();
  });
  return name.empty() ? fileLine : name;
}

/// The one value of a constant scalar (or splat) tensor.
template <typename T> std::optional<T> constantScalar(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<T>();
}

struct OctetMonitorRangesPass
    : octet::impl::OctetMonitorRangesBase<OctetMonitorRangesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Type f32 = b.getF32Type(), i32 = b.getI32Type(), i8 = b.getI8Type();
    auto fnType = b.getFunctionType(
        {UnrankedTensorType::get(f32), UnrankedTensorType::get(i8), f32, i32,
         i32, i32, i32},
        {});

    SmallVector<QuantizeOp> quantizers;
    module.walk([&](QuantizeOp op) { quantizers.push_back(op); });
    func::FuncOp callee;
    llvm::StringMap<unsigned> seen;
    unsigned unnamed = 0;
    for (QuantizeOp op : quantizers) {
      // Weights fold at compile time; their quantizer never runs.
      if (matchPattern(op.getInput(), m_Constant()))
        continue;
      SchemeAttr scheme = op.getScheme();
      std::optional<float> scale = constantScalar<float>(op.getScale());
      std::optional<int32_t> zp =
          op.getZeroPoint() ? constantScalar<int32_t>(op.getZeroPoint())
                            : std::optional<int32_t>(0);
      if (!matchPattern(op.getScale(), m_Constant()) ||
          (op.getZeroPoint() && !matchPattern(op.getZeroPoint(), m_Constant())))
        continue; // dynamic: parameters from the data, nothing to clip
      if (!scale || !zp) {
        if (remarks)
          op.emitRemark() << "not monitored: static " << "parameters "
                          << scheme.getGranularityString()
                          << " (only per-tensor quantizers are)";
        continue;
      }
      auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
      if (!type) {
        if (remarks)
          op.emitRemark() << "not monitored: unranked input";
        continue;
      }

      if (!callee) {
        callee = module.lookupSymbol<func::FuncOp>(kCallee);
        if (!callee) {
          b.setInsertionPointToStart(module.getBody());
          callee = func::FuncOp::create(b, module.getLoc(), kCallee, fnType);
          callee.setPrivate();
          // The runtime only reads the tensors: no copies before the call.
          callee.setArgAttr(0, "bufferization.access", b.getStringAttr("read"));
          callee.setArgAttr(1, "bufferization.access", b.getStringAttr("read"));
        } else if (callee.getFunctionType() != fnType) {
          module.emitError() << kCallee << " is already defined with type "
                             << callee.getFunctionType();
          return signalPassFailure();
        }
      }

      std::string name = locationName(op.getLoc());
      if (name.empty())
        name = ("quantize." + Twine(unnamed++)).str();
      // Two quantizers of one name would share counters: number the others.
      if (unsigned n = seen[name]++)
        name = (name + "#" + Twine(n)).str();

      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value x = op.getInput();
      if (!type.getElementType().isF32())
        x = arith::ExtFOp::create(
            b, loc, RankedTensorType::get(type.getShape(), f32), x);
      Value input =
          tensor::CastOp::create(b, loc, UnrankedTensorType::get(f32), x);
      SmallVector<int8_t> bytes(name.begin(), name.end());
      bytes.push_back(0);
      auto nameType =
          RankedTensorType::get({static_cast<int64_t>(bytes.size())}, i8);
      Value nameBytes = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(nameType, ArrayRef<int8_t>(bytes)));
      Value nameArg = tensor::CastOp::create(
          b, loc, UnrankedTensorType::get(i8), nameBytes);
      auto i32Const = [&](int32_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
      };
      Value scaleArg =
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(*scale));
      bool fp8 = scheme.isFloat();
      func::CallOp::create(
          b, loc, callee,
          ValueRange{input, nameArg, scaleArg, i32Const(*zp),
                     i32Const(fp8 ? 0 : scheme.getQmin()),
                     i32Const(fp8 ? 0 : scheme.getQmax()),
                     i32Const(static_cast<int32_t>(scheme.getFormat()))});
      if (remarks)
        op.emitRemark() << "monitored as '" << name << "'";
    }
  }
};

} // namespace
