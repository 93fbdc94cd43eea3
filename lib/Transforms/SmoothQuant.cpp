//===- SmoothQuant.cpp - Activation outliers moved into the weights -------===//
//
// The octet-smooth-quant pass (see its description in
// include/octet/Transforms/Passes.td): per group of contractions reading
// one activation, SmoothQuant's scales from the calibration statistics'
// per-channel absmax, folded with ChannelScaling.cpp.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeights/QuantizeWeightsInternal.h"

#include "octet/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETSMOOTHQUANT
#include "octet/Transforms/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::weight_quant;

namespace {

/// A report entry: a smoothed group (with its scales) or a skipped one.
struct GroupRecord {
  std::string layers, observer, fold, foldInto, skipReason;
  std::vector<std::string> names;
  std::vector<float> scales;
};

struct SmoothQuantPass
    : public mlir::octet::impl::OctetSmoothQuantBase<SmoothQuantPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    auto fail = [&](const Twine &msg) {
      return emitError(UnknownLoc::get(ctx)) << "octet-smooth-quant: " << msg;
    };
    if (stats.empty())
      return fail("needs stats=FILE.json (octet-run --calibrate=FILE.json "
                  "--channel-stats on a module instrumented with "
                  "octet-instrument{all=true})");
    if (!(alpha >= 0.0 && alpha <= 1.0))
      return fail("alpha must be in [0, 1], got " + std::to_string(alpha));
    return success();
  }

  void runOnOperation() override;

private:
  /// The scales of `g`, or failure with an error (statistics that do not
  /// match the module).
  FailureOr<std::vector<float>>
  groupScales(const ScaleGroup &g, const llvm::StringMap<ChannelEntry> &ch,
              std::string &skip);
  LogicalResult writeReport(ArrayRef<GroupRecord> records);
};

FailureOr<std::vector<float>>
SmoothQuantPass::groupScales(const ScaleGroup &g,
                             const llvm::StringMap<ChannelEntry> &channels,
                             std::string &skip) {
  Operation *first = g.weights.front().op;
  auto err = [&]() {
    return first->emitError() << "octet-smooth-quant: '" << g.layerList()
                              << "': ";
  };
  const ScaledWeight &w0 = g.weights.front();
  int64_t k = cast<RankedTensorType>(w0.op->getOperand(w0.operand).getType())
                  .getDimSize(w0.inAxis);
  std::vector<double> wmax(k, 0.0);
  for (const ScaledWeight &sw : g.weights) {
    if (isLmHead(sw.name) || sw.op->hasAttr("octet.skip")) {
      skip = "'" + sw.name + "' is not quantized (lm_head or octet.skip)";
      return std::vector<float>();
    }
    arith::ConstantOp cst = currentConstant(sw.op, sw.operand);
    std::string why;
    FailureOr<WeightData> data = getWeightData(cst, why);
    if (succeeded(data) && data->kind != ElemKind::F32)
      why = "only f32 weights are scaled";
    if (failed(data) || !why.empty()) {
      skip = "'" + sw.name + "': " + why;
      return std::vector<float>();
    }
    auto shape = cast<RankedTensorType>(cst.getType()).getShape();
    int64_t inner = sw.inAxis == 0 ? shape[1] : 1;
    withReader(*data, [&](auto read) {
      for (int64_t i = 0; i < data->numElements; ++i) {
        double v = std::fabs(static_cast<double>(read(i)));
        int64_t j = (i / inner) % k;
        if (!(v <= wmax[j])) // NaN propagates
          wmax[j] = v;
      }
    });
  }
  for (double v : wmax)
    if (!std::isfinite(v))
      return err() << "a weight has a non-finite element";
  auto ch = channels.find(g.observer);
  if (ch == channels.end())
    return err() << "'" << stats << "' has no channels for '" << g.observer
                 << "' (calibrate with octet-run --channel-stats)";
  if (ch->second.dim != k)
    return err() << "the channels of '" << g.observer << "' have "
                 << ch->second.dim << " entries; the weights' input dimension "
                 << "is " << k;
  std::vector<float> s(k);
  for (int64_t j = 0; j < k; ++j) {
    double a = ch->second.absmax[j];
    if (a == 0.0) {
      s[j] = 1.0f;
      continue;
    }
    double w = std::max(wmax[j], 1e-5);
    s[j] = static_cast<float>(
        std::max(std::pow(a, alpha) / std::pow(w, 1.0 - alpha), 1e-5));
  }
  return s;
}

void SmoothQuantPass::runOnOperation() {
  ModuleOp module = getOperation();
  std::string why;
  auto channels = readChannelEntries(stats, why);
  if (failed(channels)) {
    module.emitError() << "octet-smooth-quant: " << why;
    return signalPassFailure();
  }
  SmallVector<ScaleGroup> groups = collectScaleGroups(module);
  SmallVector<Operation *> replaced;
  std::vector<GroupRecord> records;
  bool ok = true;
  for (ScaleGroup &g : groups) {
    GroupRecord rec;
    rec.layers = g.layerList();
    rec.names = g.layerNames();
    rec.observer = g.observer;
    Location loc = g.weights.front().op->getLoc();
    if (!g.fold) {
      rec.skipReason = g.why;
    } else {
      rec.fold = g.fold->kindName();
      rec.foldInto = g.fold->name;
      FailureOr<std::vector<float>> s = groupScales(g, *channels,
                                                    rec.skipReason);
      if (failed(s)) {
        ok = false;
        continue;
      }
      if (rec.skipReason.empty()) {
        if (failed(applyChannelScales(g, *s, replaced, why))) {
          emitError(loc) << "octet-smooth-quant: " << why;
          ok = false;
          continue;
        }
        rec.scales = std::move(*s);
        if (remarks) {
          auto [lo, hi] = std::minmax_element(rec.scales.begin(),
                                              rec.scales.end());
          emitRemark(loc) << "smoothed '" << rec.layers << "' ("
                          << rec.scales.size() << " channels, scales in ["
                          << *lo << ", " << *hi << "]), folded into "
                          << rec.fold << " '" << rec.foldInto << "'";
        }
      }
    }
    if (!rec.skipReason.empty() && remarks)
      emitRemark(loc) << "'" << rec.layers
                      << "' not smoothed: " << rec.skipReason;
    records.push_back(std::move(rec));
  }
  for (Operation *op : replaced)
    if (op->use_empty())
      op->erase();
  removeObservers(module);
  if (failed(writeReport(records)))
    ok = false;
  if (!ok)
    signalPassFailure();
}

LogicalResult SmoothQuantPass::writeReport(ArrayRef<GroupRecord> records) {
  if (report.empty())
    return success();
  auto write = [&](llvm::raw_ostream &os) {
    llvm::json::OStream j(os, 1);
    j.object([&] {
      j.attribute("pass", "octet-smooth-quant");
      j.attribute("alpha", alpha.getValue());
      j.attribute("stats", stats.getValue());
      j.attributeArray("groups", [&] {
        for (const GroupRecord &r : records) {
          if (!r.skipReason.empty())
            continue;
          j.object([&] {
            j.attributeArray("layers", [&] {
              for (const std::string &n : r.names)
                j.value(n);
            });
            j.attribute("observer", r.observer);
            j.attribute("fold", r.fold);
            j.attribute("fold_into", r.foldInto);
            j.attributeArray("scales", [&] {
              for (float f : r.scales)
                j.value(static_cast<double>(f));
            });
          });
        }
      });
      j.attributeArray("skipped", [&] {
        for (const GroupRecord &r : records)
          if (!r.skipReason.empty())
            j.object([&] {
              j.attributeArray("layers", [&] {
              for (const std::string &n : r.names)
                j.value(n);
            });
              j.attribute("observer", r.observer);
              j.attribute("why", r.skipReason);
            });
      });
    });
    os << "\n";
  };
  if (report == "-") {
    write(llvm::outs());
    return success();
  }
  std::error_code ec;
  llvm::raw_fd_ostream file(report, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return getOperation().emitError()
           << "octet-smooth-quant: cannot write report '" << report
           << "': " << ec.message();
  write(file);
  return success();
}

} // namespace
