//===- QuantizeActivations.cpp - Activation quantization ------------------===//
//
// octet-instrument: observers on the activations of quantized contractions.
// octet-quantize-activations: dynamic per-token quantization (parameters
// computed at run time by octet.compute_params) or static per-tensor
// quantization with frozen parameters from calibration statistics.
// octet-fold-scales then turns the contractions into W8A8 octet.matmul.
//
//===----------------------------------------------------------------------===//

#include "octet/Transforms/Passes.h"

#include "octet/Runtime/Calibration.h"
#include "octet/Dialect/Octet/IR/OctetNumerics.h"
#include "octet/Runtime/Numerics.h"
#include "octet/Target/Capabilities.h"
#include "octet/Target/FormatResolution.h"
#include "octet/Transforms/ContractionMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETINSTRUMENT
#define GEN_PASS_DEF_OCTETQUANTIZEACTIVATIONS
#include "octet/Transforms/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
namespace num = ::octet::numerics;
namespace cal = ::octet::calibration;

namespace {

/// A contraction whose rhs is a quantized (dequantized) weight and whose lhs
/// is a float activation.
struct ActivationSite {
  linalg::LinalgOp op;
  unsigned lhsIndex; ///< Operand number of lhs.
  Contraction c;
  DequantizeOp weight;
};

static std::optional<ActivationSite> matchSite(linalg::LinalgOp op,
                                               bool requireQuantizedWeight) {
  std::string why;
  FailureOr<Contraction> c = matchContraction(op, why);
  if (failed(c))
    return std::nullopt;
  auto weight = c->rhs.getDefiningOp<DequantizeOp>();
  if (requireQuantizedWeight && !weight)
    return std::nullopt;
  if (c->lhs.getDefiningOp<DequantizeOp>())
    return std::nullopt;
  if (!isa<Float32Type, Float16Type, BFloat16Type>(
          cast<RankedTensorType>(c->lhs.getType()).getElementType()))
    return std::nullopt;
  return ActivationSite{op, 0, *c, weight};
}

/// A readable name for the activation of `op`: its location name, or
/// `act<N>`.
static std::string siteName(Operation *op, unsigned index) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (isa<NameLoc>(l)) {
        loc = l;
        break;
      }
  if (auto name = dyn_cast<NameLoc>(loc))
    return (name.getName().getValue() + ".input").str();
  return ("act" + Twine(index)).str();
}

static std::string fmtNum(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

static std::optional<StorageFormat> parseFormat(StringRef s) {
  return symbolizeStorageFormat(s);
}

//===----------------------------------------------------------------------===//
// octet-instrument
//===----------------------------------------------------------------------===//

struct OctetInstrumentPass
    : mlir::octet::impl::OctetInstrumentBase<OctetInstrumentPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<ActivationSite> sites;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (auto site = matchSite(op, !all))
        if (!site->c.lhs.getDefiningOp<ObserveOp>())
          sites.push_back(*site);
    });
    llvm::StringSet<> used;
    getOperation()->walk([&](ObserveOp op) { used.insert(op.getName()); });
    unsigned counter = 0;
    for (ActivationSite &site : sites) {
      std::string name = siteName(site.op, counter++);
      std::string unique = name;
      for (unsigned i = 1; used.contains(unique); ++i)
        unique = name + "." + std::to_string(i);
      used.insert(unique);
      OpBuilder b(site.op);
      auto obs = ObserveOp::create(b, site.op.getLoc(), site.c.lhs.getType(),
                                   site.c.lhs, b.getStringAttr(unique));
      site.op->setOperand(site.lhsIndex, obs.getResult());
    }
  }
};

//===----------------------------------------------------------------------===//
// octet-quantize-activations
//===----------------------------------------------------------------------===//

struct OctetQuantizeActivationsPass
    : mlir::octet::impl::OctetQuantizeActivationsBase<
          OctetQuantizeActivationsPass> {
  using Base::Base;

  void runOnOperation() override {
    // OCP MX activations: the element format, E8M0 scales per block of 32.
    std::optional<StorageFormat> fmt = parseMxFormatName(format);
    mx = fmt.has_value();
    // NVFP4: E2M1 in blocks of 16 along K, E4M3 block scales computed at
    // run time times a calibrated per-tensor global scale.
    nvfp4 = format == "nvfp4";
    if (nvfp4)
      fmt = StorageFormat::f4E2M1FN;
    if (!mx && !nvfp4)
      fmt = parseFormat(format);
    if (format == "auto") {
      // The chip and the recipe choose (e.g. W8A8 is FP8 E4M3 on sm_89+,
      // INT8 on sm_80, x86 and Arm).
      std::optional<target::Recipe> r = target::symbolizeRecipe(recipe);
      if (!r) {
        getOperation()->emitError()
            << "octet-quantize-activations: unknown recipe '" << recipe
            << "' for format=auto (expected "
            << target::getValidRecipeNames() << ")";
        return signalPassFailure();
      }
      TargetAttr t = target::getTargetAttr(getOperation());
      if (!t) {
        getOperation()->emitError()
            << "octet-quantize-activations: format=auto needs a "
               "#octet.target on the module; run octet-set-target first";
        return signalPassFailure();
      }
      FailureOr<StorageFormat> f = target::resolveAutoFormat(
          t, *r, target::OperandRole::activation,
          [&]() { return getOperation()->emitError(); });
      if (failed(f))
        return signalPassFailure();
      fmt = *f;
    }
    if (!fmt) {
      getOperation()->emitError()
          << "octet-quantize-activations: unknown format '" << format
          << "'; expected auto, i8, u8, i4, u4, f8E4M3FN, f8E5M2, mxfp8, "
             "mxfp8-e5m2, mxfp4 or nvfp4";
      return signalPassFailure();
    }
    if (num::isNf4(toNumerics(*fmt))) {
      getOperation()->emitError()
          << "octet-quantize-activations: nf4 activations are not supported "
             "(NF4 weights are weight-only: the activations stay float)";
      return signalPassFailure();
    }
    if (num::isFloat4(toNumerics(*fmt)) && !mx && !nvfp4) {
      getOperation()->emitError()
          << "octet-quantize-activations: f4E2M1FN activations need block "
             "scales; use format=mxfp4 (E2M1 in blocks of 32 with E8M0 "
             "scales) or nvfp4 (blocks of 16 with E4M3 scales and a "
             "calibrated global scale)";
      return signalPassFailure();
    }
    if (num::isFloatFormat(toNumerics(*fmt)) && !symmetric) {
      getOperation()->emitError()
          << "octet-quantize-activations: FP8 and FP4 activations are "
             "symmetric; drop symmetric=false";
      return signalPassFailure();
    }
    if (nvfp4 && mode != "static") {
      getOperation()->emitError()
          << "octet-quantize-activations: nvfp4 activations need a "
             "calibrated per-tensor global scale: use mode=static with "
             "stats=FILE.json (the E4M3 block scales are computed at run "
             "time)";
      return signalPassFailure();
    }
    if (nvfp4)
      return runNvfp4();
    if (mode == "dynamic")
      return runDynamic(*fmt);
    if (mode == "static" && mx) {
      getOperation()->emitError()
          << "octet-quantize-activations: " << format
          << " activations are dynamic (an E8M0 scale per token and block "
             "of 32, computed at run time); use mode=dynamic";
      return signalPassFailure();
    }
    if (mode == "static")
      return runStatic(*fmt);
    getOperation()->emitError()
        << "octet-quantize-activations: unknown mode '" << mode
        << "'; expected dynamic or static";
    signalPassFailure();
  }

  /// An OCP MX format (mxfp8, mxfp8-e5m2, mxfp4).
  bool mx = false;
  /// format=nvfp4.
  bool nvfp4 = false;
  static constexpr int64_t kNvfp4Block = 16;

  SchemeAttr makeScheme(StorageFormat fmt, Granularity g, int64_t axis,
                        int64_t group) {
    return SchemeAttr::get(&getContext(), fmt, g, axis, group, symmetric,
                           /*saturate=*/true);
  }

  /// The OCP MX block of one token: 32 elements along K, an E8M0 scale.
  SchemeAttr makeMxScheme(StorageFormat fmt, int64_t kDim) {
    MLIRContext *ctx = &getContext();
    return SchemeAttr::get(ctx, fmt, Granularity::per_group, kDim, kMxBlock,
                           /*symmetric=*/true, /*saturate=*/true,
                           ScaleFormat::e8m0);
  }
  static constexpr int64_t kMxBlock = 32;

  /// The weight's group size when it is quantized per group along K and
  /// the activation's K is static (per-token-group activations).
  static std::optional<int64_t> weightGroupAlongK(ActivationSite &site) {
    if (!site.weight)
      return std::nullopt;
    SchemeAttr ws = site.weight.getScheme();
    int64_t rrank = cast<RankedTensorType>(site.c.rhs.getType()).getRank();
    int64_t kAxis =
        site.c.rhsPerm.empty() ? rrank - 2 : site.c.rhsPerm[rrank - 2];
    auto type = cast<RankedTensorType>(site.c.lhs.getType());
    int64_t lrank = type.getRank();
    int64_t kDim = site.c.lhsPerm.empty() ? lrank - 1 : lrank - 2;
    if (ws.getGranularity() != Granularity::per_group ||
        ws.getAxis() != kAxis || type.isDynamicDim(kDim))
      return std::nullopt;
    return ws.getGroupSize();
  }

  /// The weight's format family must match the activation's: integer
  /// with integer, float codes (FP8 / FP4) with float codes; NF4 weights
  /// are weight-only.
  bool compatible(ActivationSite &site, StorageFormat fmt) {
    if (!site.weight)
      return true;
    if (!site.weight.getScheme().isNf4() &&
        site.weight.getScheme().isFloat() ==
            num::isFloatFormat(toNumerics(fmt)))
      return true;
    site.op->emitRemark()
        << "octet-quantize-activations: activation format '"
        << stringifyStorageFormat(fmt) << "' does not match the weight "
        << "format '" << site.weight.getScheme().getFormatName()
        << "'; activation left in float";
    return false;
  }

  /// Replaces lhs of the site with dequantize(quantize(x)).
  void insertQuantization(ActivationSite &site, Value x, SchemeAttr scheme,
                          Value scale, Value zp) {
    OpBuilder b(site.op);
    Location loc = site.op.getLoc();
    auto type = cast<RankedTensorType>(x.getType());
    auto storage =
        RankedTensorType::get(type.getShape(), scheme.getStorageElementType());
    Value q = QuantizeOp::create(b, loc, storage, x, scale, zp, scheme);
    Value d = DequantizeOp::create(b, loc, type, q, scale, zp, scheme);
    site.op->setOperand(site.lhsIndex, d);
  }

  void runDynamic(StorageFormat fmt) {
    bool perTokenGroup = granularity == "per-token-group";
    bool perToken = granularity == "per-token" || perTokenGroup;
    if (!perToken && granularity != "per-tensor") {
      getOperation()->emitError()
          << "octet-quantize-activations: unknown granularity '"
          << granularity
          << "'; expected per-token, per-token-group or per-tensor";
      return signalPassFailure();
    }
    if (mx && !perToken) {
      getOperation()->emitError()
          << "octet-quantize-activations: " << format
          << " scales are per token and block of 32 along K; "
             "granularity=per-tensor does not apply";
      return signalPassFailure();
    }
    SmallVector<ActivationSite> sites;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (auto site = matchSite(op, /*requireQuantizedWeight=*/true))
        sites.push_back(*site);
    });
    for (ActivationSite &site : sites) {
      if (!compatible(site, fmt))
        continue;
      Value x = site.c.lhs;
      auto type = cast<RankedTensorType>(x.getType());
      int64_t rank = type.getRank();
      int64_t kDim = site.c.lhsPerm.empty() ? rank - 1 : rank - 2;
      SchemeAttr scheme = makeScheme(fmt, Granularity::per_tensor, 0, 0);
      if (mx) {
        // The MX block of the activation must be the weight's K group for
        // octet-fold-scales to build a block-scaled octet.matmul.
        std::optional<int64_t> wg = weightGroupAlongK(site);
        if (wg != kMxBlock) {
          site.op->emitRemark()
              << "octet-quantize-activations: " << format
              << " activations need a weight quantized in blocks of 32 "
                 "along K (format=mxfp8 / mxfp4, or an FP8 / FP4 format "
                 "with granularity=per-group group-size=32) and a static "
                 "K; activation left in float";
          continue;
        }
        scheme = makeMxScheme(fmt, kDim);
      }
      std::optional<int64_t> group =
          perTokenGroup && !mx ? weightGroupAlongK(site) : std::nullopt;
      if (perTokenGroup && !mx && !group)
        site.op->emitRemark()
            << "octet-quantize-activations: per-token-group needs a weight "
               "quantized per group along K (and a static K); using one "
               "scale per token";
      if (mx) {
        // Chosen above.
      } else if (group) {
        // One scale per token and weight group (DeepSeek-V3's 1 x 128).
        scheme = makeScheme(fmt, Granularity::per_group, kDim, *group);
      } else if (perToken) {
        if (rank == 2) {
          scheme = makeScheme(fmt, Granularity::per_axis, site.c.lhsRowDim, 0);
        } else if (!type.isDynamicDim(kDim)) {
          // One scale per (batch, row): a group spanning all of K.
          scheme = makeScheme(fmt, Granularity::per_group, kDim,
                              type.getDimSize(kDim));
        } else {
          site.op->emitRemark()
              << "octet-quantize-activations: K is dynamic in a batched "
                 "contraction; using a per-tensor activation scale";
        }
      }
      OpBuilder b(site.op);
      Location loc = site.op.getLoc();
      RankedTensorType scaleType =
          getScaleType(scheme, type.getShape(), b.getF32Type());
      SmallVector<Type> results{scaleType};
      if (!scheme.isFloat8() && !scheme.getSymmetric())
        results.push_back(
            getScaleType(scheme, type.getShape(), b.getI32Type()));
      auto params = ComputeParamsOp::create(b, loc, results, x, scheme);
      insertQuantization(site, x, scheme, params.getScale(),
                         params.getZeroPoint());
    }
  }

  /// The module's octet.observe ops; an error naming `who` (what needs
  /// them) when there are none.
  LogicalResult collectObservers(StringRef who,
                                 SmallVectorImpl<ObserveOp> &out) {
    getOperation()->walk([&](ObserveOp op) { out.push_back(op); });
    if (!out.empty())
      return success();
    return getOperation()->emitError()
           << "octet-quantize-activations: " << who
           << " found no octet.observe ops; run octet-instrument and "
              "calibrate first";
  }

  /// The calibration statistics of `op`'s tensor, or null after an error
  /// at `op` naming the file.
  const cal::TensorStats *
  statsOf(ObserveOp op, const llvm::StringMap<cal::TensorStats> &table) {
    auto it = table.find(op.getName());
    if (it != table.end())
      return &it->second;
    op.emitError() << "calibration statistics '" << stats
                   << "' have no entry for observed tensor '" << op.getName()
                   << "'";
    return nullptr;
  }

  /// Reads the statistics file.
  LogicalResult readStats(llvm::StringMap<cal::TensorStats> &out) {
    auto emitErr = [&]() { return getOperation()->emitError(); };
    if (stats.empty())
      return emitErr() << "octet-quantize-activations: mode=static needs "
                          "stats=FILE.json (written by octet-run "
                          "--calibrate)";
    auto buffer = llvm::MemoryBuffer::getFile(stats);
    if (!buffer)
      return emitErr() << "cannot read calibration statistics '" << stats
                       << "': " << buffer.getError().message();
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse((*buffer)->getBuffer());
    if (!json)
      return emitErr() << "'" << stats << "' is not valid JSON: "
                       << llvm::toString(json.takeError());
    const llvm::json::Object *root = json->getAsObject();
    const llvm::json::Object *tensors =
        root ? root->getObject(cal::kTensorsKey) : nullptr;
    if (!tensors)
      return emitErr() << "'" << stats << "' has no \"" << cal::kTensorsKey
                       << "\" object; is it a file written by octet-run "
                          "--calibrate?";
    for (const auto &[key, value] : *tensors) {
      const llvm::json::Object *t = value.getAsObject();
      cal::TensorStats s;
      auto num = [&](StringRef field) -> std::optional<double> {
        return t ? t->getNumber(field) : std::nullopt;
      };
      if (!t || !num(cal::kMinKey) || !num(cal::kMaxKey) ||
          !num(cal::kAbsmaxKey) || !num(cal::kCountKey))
        return emitErr() << "'" << stats << "': entry '" << key.str()
                         << "' lacks " << cal::kMinKey << "/" << cal::kMaxKey
                         << "/" << cal::kAbsmaxKey << "/" << cal::kCountKey;
      // Refuse what calibration cannot write (a hand-edited or foreign
      // file): it would become a silently wrong scale, and a negative or
      // huge count does not convert to an integer.
      auto isCount = [](double v) {
        return v >= 0.0 && v <= 9007199254740992.0 && v == std::floor(v);
      };
      std::string name = key.str();
      auto bad = [&]() -> InFlightDiagnostic {
        return std::move(emitErr() << "'" << stats << "': entry '" << name
                                   << "' is inconsistent: ");
      };
      double minV = *num(cal::kMinKey), maxV = *num(cal::kMaxKey),
             absmax = *num(cal::kAbsmaxKey);
      double range = std::max(std::fabs(minV), std::fabs(maxV));
      if (!std::isfinite(minV) || !std::isfinite(maxV) ||
          !(absmax >= 0.0 && absmax <= ::octet::numerics::kFloatMax))
        return bad() << "min " << fmtNum("%g", minV) << ", max "
                     << fmtNum("%g", maxV) << ", absmax "
                     << fmtNum("%g", absmax)
                     << " (expected finite f32 values, absmax >= 0)";
      if (minV > maxV)
        return bad() << "min " << fmtNum("%g", minV) << " > max "
                     << fmtNum("%g", maxV);
      if (std::fabs(absmax - range) > 1e-6 * range)
        return bad() << "absmax " << fmtNum("%g", absmax)
                     << " is not max(|min|, |max|) = " << fmtNum("%g", range);
      if (!isCount(*num(cal::kCountKey)))
        return bad() << "count " << fmtNum("%g", *num(cal::kCountKey))
                     << " is not a non-negative integer";
      s.minV = minV;
      s.maxV = maxV;
      s.absmax = absmax;
      s.count = static_cast<uint64_t>(*num(cal::kCountKey));
      if (const llvm::json::Array *h = t->getArray(cal::kHistogramKey)) {
        for (auto [i, c] : llvm::enumerate(*h)) {
          std::optional<double> v = c.getAsNumber();
          if (!v || !isCount(*v))
            return bad() << "histogram bin " << i
                         << " is not a non-negative integer count";
          s.histogram.push_back(static_cast<uint64_t>(*v));
        }
      }
      out[key.str()] = std::move(s);
    }
    return success();
  }

  /// format=nvfp4 (mode=static): each observed activation of a contraction
  /// whose weight is FP4 in blocks of 16 along K becomes E2M1 per token and
  /// block of 16 along K, the block's E4M3 scale computed at run time
  /// (octet.compute_params) times the global scale g = absmax / (6 * 448)
  /// of the calibrated absmax (numerics::e4m3GlobalScale, as for NVFP4
  /// weights). Other observers are removed (the activation stays float),
  /// with a remark.
  void runNvfp4() {
    SmallVector<ObserveOp> observers;
    if (failed(collectObservers("format=nvfp4", observers)))
      return signalPassFailure();
    if (method != "minmax") {
      getOperation()->emitError()
          << "octet-quantize-activations: format=nvfp4 takes method=minmax "
             "(the global scale maps the calibrated absmax to 6 x 448; the "
             "block scales adapt at run time)";
      return signalPassFailure();
    }
    llvm::StringMap<cal::TensorStats> table;
    if (failed(readStats(table)))
      return signalPassFailure();
    bool failed = false;
    for (ObserveOp op : observers) {
      const cal::TensorStats *entry = statsOf(op, table);
      if (!entry) {
        failed = true;
        continue;
      }
      // The contraction the observer feeds (its lhs).
      std::optional<ActivationSite> site;
      for (Operation *user : op->getUsers())
        if (auto l = dyn_cast<linalg::LinalgOp>(user))
          if (auto s = matchSite(l, /*requireQuantizedWeight=*/true);
              s && s->c.lhs == op.getResult())
            site = s;
      if (!site || !site->weight.getScheme().isFloat4() ||
          weightGroupAlongK(*site) != kNvfp4Block || !op->hasOneUse()) {
        op.emitRemark()
            << "octet-quantize-activations: nvfp4 activations need a single "
               "contraction whose weight is FP4 in blocks of 16 along K "
               "(octet-quantize-weights format=nvfp4) and a static K; '"
            << op.getName() << "' left in float";
        op.replaceAllUsesWith(op.getInput());
        op.erase();
        continue;
      }
      const cal::TensorStats &st = *entry;
      float g = num::e4m3GlobalScale(static_cast<float>(st.absmax), 6.0f);
      auto type = cast<RankedTensorType>(op.getType());
      int64_t rank = type.getRank();
      int64_t kDim = site->c.lhsPerm.empty() ? rank - 1 : rank - 2;
      SchemeAttr scheme = SchemeAttr::get(
          &getContext(), StorageFormat::f4E2M1FN, Granularity::per_group,
          kDim, kNvfp4Block, /*symmetric=*/true, /*saturate=*/true,
          ScaleFormat::e4m3, num::bitsOf(g));
      if (remarks)
        op.emitRemark() << "octet-quantize-activations: '" << op.getName()
                        << "' nvfp4, calibrated absmax "
                        << fmtNum("%.6g", st.absmax) << ", global scale "
                        << fmtNum("%.6g", g);
      OpBuilder b(op);
      Location loc = NameLoc::get(op.getNameAttr(), op.getLoc());
      RankedTensorType scaleType =
          getScaleType(scheme, type.getShape(), b.getF32Type());
      auto params = ComputeParamsOp::create(b, loc, TypeRange{scaleType},
                                            op.getInput(), scheme);
      auto storage = RankedTensorType::get(type.getShape(),
                                           scheme.getStorageElementType());
      Value q = QuantizeOp::create(b, loc, storage, op.getInput(),
                                   params.getScale(), Value(), scheme);
      Value d = DequantizeOp::create(b, loc, type, q, params.getScale(),
                                     Value(), scheme);
      op.replaceAllUsesWith(d);
      op.erase();
    }
    if (failed)
      signalPassFailure();
  }

  void runStatic(StorageFormat fmt) {
    SmallVector<ObserveOp> observers;
    if (failed(collectObservers("mode=static", observers)))
      return signalPassFailure();
    llvm::StringMap<cal::TensorStats> table;
    if (failed(readStats(table)))
      return signalPassFailure();

    auto format = toNumerics(fmt);
    auto [qmin, qmax] = getFullRange(fmt);
    num::IntRange range{qmin, qmax};
    bool fp8 = num::isFloat8(format);
    double levels = fp8 ? 0.0 : static_cast<double>(qmax);

    StringRef methodName = method;
    double percent = 0.0;
    if (methodName.consume_front("percentile:")) {
      if (methodName.getAsDouble(percent) || percent <= 0 || percent > 100) {
        getOperation()->emitError()
            << "octet-quantize-activations: bad percentile '" << method
            << "'; expected percentile:P with 0 < P <= 100";
        return signalPassFailure();
      }
      methodName = "percentile";
    }
    if (methodName != "minmax" && methodName != "percentile" &&
        methodName != "mse") {
      getOperation()->emitError()
          << "octet-quantize-activations: unknown method '" << method
          << "'; expected minmax, percentile:P or mse";
      return signalPassFailure();
    }
    if (methodName == "mse" && fp8) {
      getOperation()->emitError()
          << "octet-quantize-activations: method=mse models uniform integer "
             "steps; use minmax or percentile:P for FP8";
      return signalPassFailure();
    }

    bool failed = false;
    for (ObserveOp op : observers) {
      const cal::TensorStats *entry = statsOf(op, table);
      if (!entry) {
        failed = true;
        continue;
      }
      const cal::TensorStats &s = *entry;
      double t = s.absmax;
      if (methodName == "percentile")
        t = cal::percentileThreshold(s, percent);
      else if (methodName == "mse")
        t = cal::mseThreshold(s, levels);
      num::QuantParams p;
      if (fp8 || symmetric) {
        p = num::symmetricParams(static_cast<float>(t), format, range);
      } else {
        p = num::asymmetricParams(static_cast<float>(std::max(s.minV, -t)),
                                  static_cast<float>(std::min(s.maxV, t)),
                                  range);
      }
      if (remarks) {
        auto d = op.emitRemark();
        d << "octet-quantize-activations: '" << op.getName() << "' "
          << method << " clip " << fmtNum("%.6g", t) << " of absmax "
          << fmtNum("%.6g", s.absmax) << ", scale " << fmtNum("%.6g", p.scale);
        if (!fp8 && !s.histogram.empty()) {
          double signal = 0.0, w = s.binWidth();
          for (size_t b = 0; b < s.histogram.size(); ++b)
            signal += s.histogram[b] * ((b + 0.5) * w) * ((b + 0.5) * w);
          double err = cal::histogramMse(s, t, levels);
          if (err > 0)
            d << ", estimated SQNR "
              << fmtNum("%.2f", 10.0 * std::log10(signal / err)) << " dB";
        }
      }
      OpBuilder b(op);
      // The observer's name ("fc.input") names the quantizer too: the
      // range monitor (octet-monitor-ranges) reports it under that name.
      Location loc = NameLoc::get(op.getNameAttr(), op.getLoc());
      auto type = cast<RankedTensorType>(op.getType());
      SchemeAttr scheme = makeScheme(fmt, Granularity::per_tensor, 0, 0);
      auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
      Value scale = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(scalarF32, p.scale));
      Value zp;
      if (!fp8 && !symmetric)
        zp = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(RankedTensorType::get({}, b.getI32Type()),
                                   p.zeroPoint));
      auto storage = RankedTensorType::get(type.getShape(),
                                           scheme.getStorageElementType());
      Value q = QuantizeOp::create(b, loc, storage, op.getInput(), scale, zp,
                                   scheme);
      Value d = DequantizeOp::create(b, loc, type, q, scale, zp, scheme);
      op.replaceAllUsesWith(d);
      op.erase();
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
