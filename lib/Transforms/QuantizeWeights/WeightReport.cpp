//===- WeightReport.cpp - The octet-quantize-weights report ---------------===//
//
// Part of octet-quantize-weights: the summary remark (remarks=true) and the
// JSON report (report=PATH or report=-): the options, one entry per weight
// (quantized with its scheme, clip thresholds, SQNR, clip curve, error
// histogram and sizes, or skipped with the reason) and module totals.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir::octet::weight_quant {

std::string fixed2(double v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.2f", v);
  return s;
}

namespace {
/// Totals over the quantized layers.
struct Summary {
  uint64_t before = 0, after = 0;
  unsigned quantized = 0, skipped = 0;
  /// min / median SQNR of the quantized layers (NaN when there are none).
  double sqnrMin = 0.0, sqnrMedian = 0.0;
};
} // namespace

/// min / median of the SQNRs of the quantized layers (+inf for exact).
static std::pair<double, double> sqnrMinMedian(ArrayRef<double> v) {
  if (v.empty())
    return {std::nan(""), std::nan("")};
  SmallVector<double> s(v);
  llvm::sort(s);
  size_t m = s.size() / 2;
  double med = s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2.0;
  return {s.front(), med};
}

static Summary summarize(ArrayRef<LayerRecord> records) {
  Summary sum;
  SmallVector<double> sqnrs;
  for (const LayerRecord &r : records) {
    if (!r.skipReason.empty()) {
      ++sum.skipped;
      continue;
    }
    ++sum.quantized;
    sum.before += r.bytesBefore;
    sum.after += r.bytesAfter;
    sqnrs.push_back(r.stats.sqnr.db());
  }
  std::tie(sum.sqnrMin, sum.sqnrMedian) = sqnrMinMedian(sqnrs);
  return sum;
}

static void emitSummaryRemark(ModuleOp module, const Summary &sum) {
  InFlightDiagnostic d = emitRemark(module.getLoc());
  d << "octet-quantize-weights: " << sum.quantized << " layers quantized, "
    << sum.skipped << " skipped; " << sum.before << " -> " << sum.after
    << " bytes";
  if (sum.after)
    d << " (" << fixed2(double(sum.before) / double(sum.after)) << "x)";
  if (sum.quantized)
    d << "; SQNR min " << fixed2(sum.sqnrMin) << " dB, median "
      << fixed2(sum.sqnrMedian) << " dB";
}

/// JSON has no infinities: an exact reconstruction has SQNR null.
static llvm::json::Value jnum(double v) {
  if (std::isfinite(v))
    return v;
  return nullptr;
}

static void writeOptions(llvm::json::OStream &j, const Config &cfg) {
  j.attributeObject("options", [&] {
    j.attribute("format", cfg.formatName);
    j.attribute("granularity", cfg.granularityName);
    j.attribute("group_size", cfg.groupSize);
    j.attribute("symmetric", cfg.symmetric);
    j.attribute("clip", cfg.clipName);
    j.attribute("skip", cfg.skip);
    j.attribute("skip_lm_head", cfg.skipLmHead);
    j.attribute("min_elements", cfg.minElements);
    j.attribute("nonfinite", cfg.nonfiniteName);
    j.attribute("algorithm", cfg.algorithmName);
    if (cfg.awq || cfg.gptq)
      j.attribute("stats", cfg.stats);
    if (cfg.awq)
      j.attribute("awq_grid", cfg.awqGrid);
    if (cfg.gptq) {
      j.attribute("damp", cfg.damp);
      j.attribute("act_order", cfg.actOrder);
    }
  });
}

/// The measurements of a quantized layer.
static void writeQuantizedLayer(llvm::json::OStream &j, const LayerRecord &r,
                                const Config &cfg) {
  j.attribute("quantized", true);
  j.attribute("format", cfg.formatName);
  j.attribute("granularity", r.granularity);
  j.attribute("scheme", r.scheme);
  j.attribute("symmetric", r.symmetric);
  j.attribute("layout", r.layout);
  j.attribute("clip", cfg.clipName);
  j.attributeObject("clip_threshold", [&] {
    j.attribute("min", jnum(r.stats.thresholdMin));
    j.attribute("max", jnum(r.stats.thresholdMax));
    j.attribute("mean", jnum(r.stats.thresholdMean));
  });
  j.attributeObject("clip_ratio", [&] {
    j.attribute("min", jnum(r.stats.ratioMin));
    j.attribute("max", jnum(r.stats.ratioMax));
    j.attribute("mean", jnum(r.stats.ratioMean));
  });
  j.attribute("sqnr_db", jnum(r.stats.sqnr.db()));
  // SQNR when every group is clipped at a fraction of its range
  // (sampled); the chosen clip is clip_ratio above.
  j.attributeArray("clip_curve", [&] {
    for (const auto &point : r.stats.clipCurve)
      j.object([&] {
        j.attribute("ratio", jnum(point.first));
        j.attribute("sqnr_db", jnum(point.second));
      });
  });
  j.attribute("max_abs_error", r.stats.maxAbsError);
  j.attribute("bytes_before", static_cast<int64_t>(r.bytesBefore));
  j.attribute("bytes_after", static_cast<int64_t>(r.bytesAfter));
  j.attribute("code_bytes", static_cast<int64_t>(r.codeBytes));
  j.attribute("param_bytes", static_cast<int64_t>(r.paramBytes));
  j.attributeObject("error_histogram", [&] {
    j.attribute("unit", "scale");
    j.attributeArray("upper_edges", [&] {
      for (double e : num::ErrorHistogram::kUpper)
        j.value(jnum(e));
    });
    j.attributeArray("counts", [&] {
      for (uint64_t c : r.stats.histogram.counts)
        j.value(static_cast<int64_t>(c));
    });
  });
}

static void writeLayer(llvm::json::OStream &j, const LayerRecord &r,
                       const Config &cfg) {
  j.object([&] {
    j.attribute("name", r.name);
    j.attribute("op", r.opName);
    j.attribute("operand", r.operandIndex);
    j.attributeArray("shape", [&] {
      for (int64_t d : r.shape)
        j.value(d);
    });
    j.attribute("element_type", r.elementType);
    j.attribute("elements", r.numElements);
    if (r.skipReason.empty()) {
      writeQuantizedLayer(j, r, cfg);
      return;
    }
    j.attribute("quantized", false);
    j.attribute("skip_reason", r.skipReason);
    j.attribute("bytes_before",
                r.numElements * (r.elementType == "f32" ? 4 : 2));
  });
}

/// An AWQ group: the layers, the fold, the chosen alpha, the errors and
/// the scales; or why it was skipped.
static void writeAwq(llvm::json::OStream &j, const AwqRecord &r) {
  j.object([&] {
    j.attributeArray("layers", [&] {
      for (const std::string &n : r.names)
        j.value(n);
    });
    j.attribute("observer", r.observer);
    if (!r.skipReason.empty()) {
      j.attribute("skip_reason", r.skipReason);
      if (r.clipOnly)
        j.attribute("clip_only", true);
      return;
    }
    j.attribute("fold", r.fold);
    j.attribute("fold_into", r.foldInto);
    j.attribute("alpha", r.result.alpha);
    j.attribute("error", r.result.error);
    j.attribute("error_rtn", r.result.errorRtn);
    j.attributeArray("error_curve", [&] {
      for (double e : r.result.curve)
        j.value(e);
    });
    j.attributeArray("scales", [&] {
      for (float f : r.result.scales)
        j.value(static_cast<double>(f));
    });
  });
}

static void writeJson(llvm::raw_ostream &os, const Config &cfg,
                      ArrayRef<LayerRecord> records, ArrayRef<AwqRecord> awq,
                      const Summary &sum) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("pass", "octet-quantize-weights");
    writeOptions(j, cfg);
    j.attributeArray("layers", [&] {
      for (const LayerRecord &r : records)
        writeLayer(j, r, cfg);
    });
    if (cfg.awq)
      j.attributeArray("awq", [&] {
        for (const AwqRecord &r : awq)
          writeAwq(j, r);
      });
    j.attributeObject("summary", [&] {
      j.attribute("layers_quantized", static_cast<int64_t>(sum.quantized));
      j.attribute("layers_skipped", static_cast<int64_t>(sum.skipped));
      j.attribute("bytes_before", static_cast<int64_t>(sum.before));
      j.attribute("bytes_after", static_cast<int64_t>(sum.after));
      j.attribute(
          "compression",
          sum.after ? llvm::json::Value(double(sum.before) / double(sum.after))
                    : llvm::json::Value(nullptr));
      j.attribute("sqnr_db_min", jnum(sum.sqnrMin));
      j.attribute("sqnr_db_median", jnum(sum.sqnrMedian));
    });
  });
  os << "\n";
  os.flush();
}

LogicalResult writeReport(ModuleOp module, const Config &cfg,
                          ArrayRef<LayerRecord> records,
                          ArrayRef<AwqRecord> awq) {
  Summary sum = summarize(records);
  if (cfg.remarks && !records.empty())
    emitSummaryRemark(module, sum);
  if (cfg.report.empty())
    return success();
  if (cfg.report == "-") {
    writeJson(llvm::outs(), cfg, records, awq, sum);
    return success();
  }
  std::error_code ec;
  llvm::raw_fd_ostream file(cfg.report, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    module.emitError() << "cannot write report '" << cfg.report
                       << "': " << ec.message();
    return failure();
  }
  writeJson(file, cfg, records, awq, sum);
  return success();
}

} // namespace mlir::octet::weight_quant
