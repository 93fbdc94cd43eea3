//===- QuantizeWeights.cpp - Compile-time weight quantization -------------===//
//
// octet-quantize-weights: finds contractions whose weight is a constant,
// quantizes the constant with the numerics core and feeds the contraction
// an octet.dequantize of the codes. See the pass description in
// include/octet/Transforms/Passes.td.
//
// This file holds the pass: its options, the walk over contractions, the
// skip rules, and the rewrite of each weight operand. The other files of
// this directory read the constants (WeightReader.cpp), trace operands back
// to them (WeightTrace.cpp), quantize (WeightQuantizer.cpp) and write the
// report (WeightReport.cpp).
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "octet/Transforms/Passes.h"

#include "octet/Target/Capabilities.h"
#include "octet/Target/FormatResolution.h"
#include "octet/Dialect/Octet/IR/OctetNumerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <vector>

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETQUANTIZEWEIGHTS
#include "octet/Transforms/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::weight_quant;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The granularity, axis and group size of a weight's scheme, in the
/// operand's dimensions.
struct OperandScheme {
  Granularity gran = Granularity::per_tensor;
  int64_t axis = 0, group = 0;
};

/// A weight operand found by the walk (collected first, rewritten after:
/// rewriting inserts ops).
struct Work {
  linalg::LinalgOp op;
  unsigned operandNumber;
  Trace trace;
  WeightAxes axes;
};

/// Creates the constants and the octet.dequantize of `attrs`.
static Value materialize(OpBuilder &builder, Location loc,
                         RankedTensorType type, const QuantizedAttrs &attrs,
                         SchemeAttr scheme) {
  Value q = arith::ConstantOp::create(builder, loc, attrs.codes);
  Value s = arith::ConstantOp::create(builder, loc, attrs.scales);
  Value z;
  if (attrs.zeroPoints)
    z = arith::ConstantOp::create(builder, loc, attrs.zeroPoints);
  return DequantizeOp::create(builder, loc, type, q, s, z, scheme).getResult();
}

static std::string shapeString(ArrayRef<int64_t> shape, Type et) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : shape)
    os << d << "x";
  os << et;
  return s;
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct QuantizeWeightsPass
    : public mlir::octet::impl::OctetQuantizeWeightsBase<QuantizeWeightsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override;
  void runOnOperation() override;

private:
  Config cfg;

  /// The dequantized value of a quantized constant, per (constant, scheme).
  DenseMap<std::pair<Operation *, Attribute>, Value> dequantized;
  /// Quantized constants per (weight attribute, scheme): a weight constant
  /// repeated in several functions is quantized once.
  DenseMap<std::pair<Attribute, Attribute>, QuantizedAttrs> quantizedAttrs;
  /// Clones of layout ops on a dequantized value, per (dequantized value,
  /// original op).
  DenseMap<std::pair<Value, Operation *>, Value> clonedChain;
  std::vector<LayerRecord> records;
  SmallVector<Operation *> maybeDead;
  uint64_t totalBytes = 0, doneBytes = 0;
  /// An error was reported; the pass fails once every weight was tried.
  bool hadError = false;

  LogicalResult resolveAutoFormat(ModuleOp module);
  std::vector<Work> collectWork(ModuleOp module);
  void eraseDeadWeights();
  void progress(unsigned layer, unsigned layers);

  void processOperand(linalg::LinalgOp op, OpOperand &operand,
                      const Trace &trace, const WeightAxes &axes,
                      unsigned index);
  std::optional<std::string> skipRule(Operation *op, arith::ConstantOp cst,
                                      StringRef name,
                                      int64_t numElements) const;
  FailureOr<OperandScheme> operandScheme(Operation *op,
                                         RankedTensorType operandType,
                                         const WeightAxes &axes, StringRef name,
                                         std::string &why);
  void prepareJob(WeightJob &job, const Trace &trace, const WeightData &data,
                  RankedTensorType operandType, const OperandScheme &os);
  Value dequantizedWeight(Operation *op, const std::string &name,
                          arith::ConstantOp cst, const WeightJob &job,
                          LayerRecord &rec);
  FailureOr<QuantizedAttrs> quantizeAndRecord(Operation *op,
                                              const std::string &name,
                                              const WeightJob &job,
                                              LayerRecord &rec);
  Value reapplyChain(Value deq, ArrayRef<Operation *> chain);

  /// algorithm=gptq: the statistics' second moments by observer name and
  /// the factors loaded so far, by file.
  llvm::StringMap<MomentEntry> moments;
  llvm::StringMap<std::shared_ptr<const GptqFactor>> factors;
  LogicalResult prepareGptq(linalg::LinalgOp op, OpOperand &operand,
                            const Trace &trace, const WeightAxes &axes,
                            const std::string &name, WeightJob &job);

  /// algorithm=awq: the searched (and skipped) groups, for the report.
  std::vector<AwqRecord> awqRecords;
  /// awq-clip=true: the clip search's inputs per searched contraction.
  DenseMap<Operation *, AwqClipJob> awqClipJobs;
  /// algorithm=awq-gptq: GPTQ's factor of each scaled (or clip-searched)
  /// contraction's input, H_ij / (s_i s_j).
  DenseMap<Operation *, std::shared_ptr<const GptqFactor>> awqFactors;
  LogicalResult setAwqFactor(ScaleGroup &g, const std::string &layers,
                             const std::vector<double> &h,
                             ArrayRef<float> scales);
  LogicalResult runAwq(ModuleOp module);
  LogicalResult clipOnlyGroup(ScaleGroup &g, AwqRecord &rec);
  LogicalResult awqGroup(ScaleGroup &g, const llvm::StringMap<ChannelEntry> &ch,
                         AwqRecord &rec, SmallVectorImpl<Operation *> &replaced);
};

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// The largest magnitude of a format with two-level E4M3 scales (6 for
/// E2M1, 1 for NF4): the numerics core's symmetric target.
static float e4m3Target(StorageFormat format) {
  return num::symmetricTarget(toNumerics(format), num::IntRange{0, 0});
}

LogicalResult QuantizeWeightsPass::initialize(MLIRContext *ctx) {
  auto fail = [&](const Twine &msg) {
    return emitError(UnknownLoc::get(ctx)) << "octet-quantize-weights: " << msg;
  };
  cfg.formatName = format;
  cfg.granularityName = granularity;
  cfg.nonfiniteName = nonfinite;
  std::optional<StorageFormat> f = symbolizeStorageFormat(format);
  // N-bit codes for N in 2, 3, 5, 6, 7: the N-bit ranges ([-2^(N-1),
  // 2^(N-1) - 1] / [0, 2^N - 1]) of the next storage format, i4 / u4 up to
  // 4 bits, i8 / u8 above (stored, packed and multiplied as that format):
  // i3 is [-4, 3] in i4, i5 [-16, 15] in i8 (llama.cpp's Q5_0 range).
  cfg.narrowRange.reset();
  StringRef fmt = format;
  if (!f && fmt.size() == 2 && (fmt[0] == 'i' || fmt[0] == 'u') &&
      fmt[1] >= '2' && fmt[1] <= '7') {
    int bits = fmt[1] - '0';
    bool isSigned = fmt[0] == 'i';
    f = bits <= 4 ? (isSigned ? StorageFormat::i4 : StorageFormat::u4)
                  : (isSigned ? StorageFormat::i8 : StorageFormat::u8);
    cfg.narrowRange = isSigned ? std::make_pair(-(1 << (bits - 1)),
                                                (1 << (bits - 1)) - 1)
                               : std::make_pair(0, (1 << bits) - 1);
  }
  // OCP MXFP8 / MXFP4: FP8 or FP4 (E2M1) per group (32 by default) with
  // E8M0 scales.
  cfg.e8m0 = false;
  if (std::optional<StorageFormat> mx = parseMxFormatName(fmt); !f && mx) {
    f = *mx;
    cfg.e8m0 = true;
  }
  // NVFP4: E2M1 per group (16 by default) with E4M3 scales times one f32
  // global scale per weight. NF4 with double-quantized scales (QLoRA's
  // second level): NF4 per group (64 by default), the absmax scales as
  // E4M3 values times one f32 global scale per weight.
  cfg.e4m3 = false;
  if (!f && (fmt == "nvfp4" || fmt == "nf4-dq")) {
    f = fmt == "nvfp4" ? StorageFormat::f4E2M1FN : StorageFormat::nf4;
    cfg.e4m3 = true;
  }
  cfg.autoFormat = format == "auto";
  if (cfg.autoFormat) {
    if (!target::symbolizeRecipe(recipe))
      return fail("unknown recipe '" + recipe + "' for format=auto (expected " +
                  target::getValidRecipeNames() + ")");
    f = StorageFormat::i8; // Replaced in runOnOperation.
  }
  if (!f)
    return fail("unknown format '" + format +
                "' (expected auto, i8, u8, i4, u4, f8E4M3FN, f8E5M2, "
                "f4E2M1FN, nf4, nf4-dq, mxfp8, mxfp8-e5m2, mxfp4, nvfp4, "
                "or iN / uN with N in 2..7)");
  cfg.format = *f;
  cfg.symmetricGiven = symmetric.hasValue();
  if (granularity == "per-tensor")
    cfg.granularity = GranularityKind::PerTensor;
  else if (granularity == "per-channel")
    cfg.granularity = GranularityKind::PerChannel;
  else if (granularity == "per-group")
    cfg.granularity = GranularityKind::PerGroup;
  else
    return fail("unknown granularity '" + granularity +
                "' (expected per-tensor, per-channel or per-group)");
  if (groupSize <= 0)
    return fail("group-size must be positive, got " + Twine(groupSize));
  cfg.groupSize = groupSize;
  if (cfg.e8m0 || cfg.e4m3) {
    // per-channel is the option's default: MX formats, NVFP4 and NF4-DQ
    // are per-group.
    if (granularity == "per-tensor")
      return fail("format=" + format + " has one " +
                  (cfg.e8m0 ? "E8M0" : "E4M3") +
                  " scale per block along the reduction axis: "
                  "granularity must be per-group (per-channel, the default, "
                  "means per-group here), not " + granularity);
    cfg.granularity = GranularityKind::PerGroup;
    if (!groupSize.hasValue())
      cfg.groupSize = cfg.e8m0                           ? 32
                      : cfg.format == StorageFormat::nf4 ? 64
                                                         : 16;
  }
  // Unsigned formats have no negative codes: unless symmetric is given
  // explicitly, they use the asymmetric mapping (a symmetric u8 scheme
  // would clamp every negative weight to 0).
  cfg.symmetric = symmetric;
  if ((cfg.format == StorageFormat::u8 || cfg.format == StorageFormat::u4) &&
      !symmetric.hasValue())
    cfg.symmetric = false;
  StringRef c = clip;
  if (c == "absmax") {
    cfg.clip = ClipKind::AbsMax;
  } else if (c == "minmax") {
    cfg.clip = ClipKind::MinMax;
  } else if (c == "mse") {
    cfg.clip = ClipKind::Mse;
  } else if (c.consume_front("percentile:")) {
    double p;
    if (c.getAsDouble(p) || !(p > 0.0 && p <= 100.0))
      return fail("percentile must be a number in (0, 100], got '" + c + "'");
    cfg.clip = ClipKind::Percentile;
    cfg.percentile = p;
  } else {
    return fail("unknown clip '" + clip +
                "' (expected absmax, minmax, percentile:P or mse)");
  }
  cfg.clipName = clip;
  if (mxScale == "ocp" || mxScale == "ceil")
    cfg.mxCeil = mxScale == "ceil";
  else
    return fail("unknown mx-scale '" + mxScale + "' (expected ocp or ceil)");
  // (Values, not hasValue(): a pass built from an options struct has a
  // value for every option.)
  if (cfg.mxCeil && !cfg.e8m0)
    return fail("mx-scale applies to format=mxfp8 / mxfp8-e5m2 / mxfp4 only, "
                "not format=" + format);
  if (cfg.e8m0 && cfg.clip != ClipKind::AbsMax)
    return fail("format=" + format + " takes clip=absmax only (the MX rule, "
                "2^(floor(log2(absmax)) - emax), fixes each block's scale), "
                "not clip=" + clip);
  if (cfg.format == StorageFormat::nf4 && symmetric.hasValue() &&
      !symmetric)
    return fail("format=nf4 is symmetric (scale = absmax); drop "
                "symmetric=false");
  if (cfg.e4m3 && cfg.clip != ClipKind::AbsMax)
    return fail("format=" + format +
                " takes clip=absmax only (each block's E4M3 scale is "
                "e4m3(absmax / " +
                Twine(static_cast<int>(e4m3Target(cfg.format))) +
                " / global)), not clip=" + clip);
  std::string regexError;
  if (!skip.empty() && !llvm::Regex(skip).isValid(regexError))
    return fail("invalid skip regex '" + skip + "': " + regexError);
  cfg.skip = skip;
  cfg.skipLmHead = skipLmHead;
  if (minElements < 0)
    return fail("min-elements must not be negative");
  cfg.minElements = minElements;
  cfg.report = report;
  if (nonfinite == "error")
    cfg.nonfiniteClip = false;
  else if (nonfinite == "clip")
    cfg.nonfiniteClip = true;
  else
    return fail("unknown nonfinite '" + nonfinite +
                "' (expected error or clip)");
  cfg.remarks = remarks;
  if (algorithm == "gptq" || algorithm == "awq-gptq") {
    cfg.gptq = true;
    if (stats.empty())
      return fail("algorithm=" + algorithm +
                  " needs stats=FILE.json (octet-run "
                  "--calibrate=FILE.json --second-moment" +
                  (algorithm == "gptq" ? "" : " --channel-stats") +
                  " on a module instrumented with "
                  "octet-instrument{all=true})");
    if (!(damp > 0.0 && damp <= 1.0))
      return fail("damp must be in (0, 1], got " + std::to_string(damp));
    if (cfg.nonfiniteClip)
      return fail("algorithm=" + algorithm +
                  " does not take nonfinite=clip (a non-finite "
                  "weight would spread through the error feedback)");
  }
  if (algorithm == "awq" || algorithm == "awq-gptq") {
    cfg.awq = true;
    if (stats.empty())
      return fail("algorithm=awq needs stats=FILE.json (octet-run "
                  "--calibrate=FILE.json --channel-stats --second-moment on "
                  "a module instrumented with octet-instrument{all=true})");
    if (awqGrid < 1 || awqGrid > 1000)
      return fail("awq-grid must be in [1, 1000], got " + Twine(awqGrid));
    if (cfg.nonfiniteClip)
      return fail("algorithm=awq does not take nonfinite=clip (a non-finite "
                  "weight has no error to minimize)");
  } else if (algorithm != "rtn" && algorithm != "gptq") {
    return fail("unknown algorithm '" + algorithm +
                "' (expected rtn, gptq, awq or awq-gptq)");
  }
  cfg.algorithmName = algorithm;
  if (cfg.awq && cfg.e4m3)
    return fail("format=" + format +
                " does not take algorithm=awq yet (AWQ's "
                "channel scales would move the weights past the global "
                "scale computed before them)");
  if (cfg.awq && cfg.e8m0 && awqClip)
    return fail("format=" + format + " with algorithm=awq needs "
                "awq-clip=false (the clip search would move the scales off "
                "powers of two)");
  cfg.awqGrid = awqGrid;
  cfg.awqClip = awqClip;
  cfg.stats = stats;
  cfg.damp = damp;
  if (actOrder && !cfg.gptq)
    return fail("act-order=true needs algorithm=gptq or awq-gptq");
  cfg.actOrder = actOrder;
  if (channelBlock < 0)
    return fail("channel-block must not be negative, got " +
                Twine(channelBlock));
  cfg.channelBlock = channelBlock;
  if (channelBlock > 0) {
    if (cfg.granularity != GranularityKind::PerGroup)
      return fail("channel-block=" + Twine(channelBlock) +
                  " needs granularity=per-group (blocks of channel-block "
                  "output channels x group-size inputs)");
    if (cfg.e8m0 || cfg.e4m3)
      return fail("channel-block does not apply to format=" + format +
                  " (its blocks are 1-D by definition)");
    if (cfg.clip != ClipKind::AbsMax && cfg.clip != ClipKind::MinMax)
      return fail("channel-block takes clip=absmax or minmax, not clip=" +
                  clip);
    if (cfg.gptq || cfg.awq)
      return fail("channel-block takes algorithm=rtn, not algorithm=" +
                  algorithm);
  }
  return success();
}

void QuantizeWeightsPass::progress(unsigned layer, unsigned layers) {
  // Only for long runs, only on a terminal.
  if (totalBytes < (64u << 20) || !llvm::errs().is_displayed())
    return;
  llvm::errs() << "\roctet-quantize-weights: layer " << layer << "/" << layers
               << ", " << (doneBytes >> 20) << "/" << (totalBytes >> 20)
               << " MiB";
  if (layer == layers)
    llvm::errs() << "\n";
  llvm::errs().flush();
}

/// Quantizes the weight, adds it to the report and says so (remarks=true).
FailureOr<QuantizedAttrs>
QuantizeWeightsPass::quantizeAndRecord(Operation *op, const std::string &name,
                                       const WeightJob &job, LayerRecord &rec) {
  FailureOr<QuantizedAttrs> attrs =
      quantizeToAttrs(&getContext(), cfg, op, name, job, rec);
  doneBytes += rec.bytesBefore;
  if (failed(attrs))
    return failure();
  records.push_back(rec);
  if (cfg.remarks)
    emitRemark(op->getLoc())
        << "quantized weight of '" << name << "' ("
        << shapeString(job.type.getShape(), job.type.getElementType())
        << (job.folded ? ", layout chain folded" : "") << ") as " << rec.scheme
        << ": SQNR " << fixed2(rec.stats.sqnr.db()) << " dB, "
        << rec.bytesBefore << " -> " << rec.bytesAfter << " bytes";
  return attrs;
}

//===----------------------------------------------------------------------===//
// Rewriting one operand
//===----------------------------------------------------------------------===//

/// The report entry of a weight operand, before it is quantized.
static LayerRecord describeOperand(Operation *op, OpOperand &operand,
                                   const std::string &name) {
  auto operandType = cast<RankedTensorType>(operand.get().getType());
  LayerRecord rec;
  rec.name = name;
  rec.opName = op->getName().getStringRef().str();
  rec.operandIndex = operand.getOperandNumber();
  rec.elementType = typeString(operandType.getElementType());
  rec.shape.assign(operandType.getShape().begin(),
                   operandType.getShape().end());
  rec.numElements = operandType.getNumElements();
  return rec;
}

/// Why the skip rules leave the weight alone, if they do.
std::optional<std::string>
QuantizeWeightsPass::skipRule(Operation *op, arith::ConstantOp cst,
                              StringRef name, int64_t numElements) const {
  if (op->hasAttr("octet.skip") || cst->hasAttr("octet.skip"))
    return std::string("marked octet.skip");
  if (!cfg.skip.empty() && llvm::Regex(cfg.skip).match(name))
    return "name matches skip='" + cfg.skip + "'";
  if (cfg.skipLmHead && isLmHead(name))
    return std::string("lm_head (final vocabulary projection)");
  if (numElements < cfg.minElements)
    return std::to_string(numElements) + " elements, fewer than min-elements=" +
           std::to_string(cfg.minElements);
  return std::nullopt;
}

/// The configured granularity in the operand's dimensions. Fails with `why`
/// set when the weight is skipped (per-channel without a channel), and with
/// an error at `op` when the group size does not divide the reduction
/// dimension.
FailureOr<OperandScheme>
QuantizeWeightsPass::operandScheme(Operation *op, RankedTensorType operandType,
                                   const WeightAxes &axes, StringRef name,
                                   std::string &why) {
  OperandScheme os;
  if (cfg.granularity == GranularityKind::PerChannel) {
    if (!axes.channel) {
      why = "per-channel: " + axes.channelWhy;
      return failure();
    }
    os.gran = Granularity::per_axis;
    os.axis = *axes.channel;
  } else if (cfg.granularity == GranularityKind::PerGroup) {
    os.gran = Granularity::per_group;
    os.axis = *axes.reduction;
    os.group = cfg.groupSize;
    int64_t size = operandType.getDimSize(os.axis);
    if (size % os.group != 0) {
      op->emitError() << "group-size " << os.group
                      << " does not divide the reduction dimension (dimension "
                      << os.axis << ", size " << size << ") of the weight of '"
                      << name << "'";
      return failure();
    }
  }
  return os;
}

/// Fills `job`: the scheme's axis follows the operand axis back to the
/// constant through the layout chain; when it does not survive the chain,
/// the chain is folded into the values and the scheme is the operand's.
void QuantizeWeightsPass::prepareJob(WeightJob &job, const Trace &trace,
                                     const WeightData &data,
                                     RankedTensorType operandType,
                                     const OperandScheme &os) {
  arith::ConstantOp cst = trace.constant;
  std::optional<int64_t> srcAxis =
      os.gran == Granularity::per_tensor
          ? std::optional<int64_t>(0)
          : mapAxisToConstant(trace.chain, os.axis);
  auto cstType = cast<RankedTensorType>(cst.getType());
  job.folded = !trace.chain.empty() && !srcAxis;
  job.asResource = isa<DenseResourceElementsAttr>(cst.getValue());
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue()))
    job.blobBase = res.getRawHandle().getKey().str();
  job.data = data;
  job.type = cstType;
  int64_t qaxis = srcAxis.value_or(0);
  if (job.folded) {
    job.foldedValues = foldChain(data, cstType.getShape(), trace.chain);
    job.data.data = reinterpret_cast<const char *>(job.foldedValues.data());
    job.data.kind = ElemKind::F32;
    job.data.splat = false;
    job.data.numElements = job.foldedValues.size();
    job.type = operandType;
    qaxis = os.axis;
  }
  // Float (FP8 / FP4) and NF4 schemes are always symmetric.
  bool sym = cfg.symmetric || num::isFloatFormat(toNumerics(cfg.format)) ||
             num::isNf4(toNumerics(cfg.format));
  // The global scale of two-level E4M3 scales (NVFP4, NF4-DQ), from the
  // weight's largest finite magnitude.
  uint32_t globalScaleBits = 0;
  if (cfg.e4m3) {
    float absmax = 0.0f;
    withReader(job.data, [&](auto read) {
      for (int64_t i = 0, e = job.data.numElements; i < e; ++i) {
        float v = std::fabs(read(i));
        if (v <= num::kFloatMax) // NaN and inf: reported or clipped later
          absmax = std::max(absmax, v);
      }
    });
    globalScaleBits =
        num::bitsOf(num::e4m3GlobalScale(absmax, e4m3Target(cfg.format)));
  }
  job.scheme = SchemeAttr::get(&getContext(), cfg.format, os.gran,
                               os.gran == Granularity::per_tensor ? 0 : qaxis,
                               os.group, sym,
                               /*saturate=*/true,
                               cfg.e8m0   ? ScaleFormat::e8m0
                               : cfg.e4m3 ? ScaleFormat::e4m3
                                          : ScaleFormat::f32,
                               globalScaleBits);
  if (cfg.narrowRange)
    job.scheme = SchemeAttr::get(
        &getContext(), cfg.format, job.scheme.getGranularity(),
        job.scheme.getAxis(), job.scheme.getGroupSize(), sym,
        /*saturate=*/true, cfg.narrowRange->first, cfg.narrowRange->second);
}

/// The dequantized weight. Unless the chain is folded, it is quantized once
/// per (constant, scheme) and placed after the constant, shared by every
/// user; a folded chain's values belong to this operand alone, so they are
/// quantized and placed right before the contraction. Null on failure.
Value QuantizeWeightsPass::dequantizedWeight(Operation *op,
                                             const std::string &name,
                                             arith::ConstantOp cst,
                                             const WeightJob &job,
                                             LayerRecord &rec) {
  auto key = std::make_pair(cst.getOperation(), Attribute(job.scheme));
  auto attrKey = std::make_pair(cst.getValue(), Attribute(job.scheme));
  bool shared = !job.folded;
  if (shared)
    if (Value deq = dequantized.lookup(key))
      return deq;
  std::optional<QuantizedAttrs> attrs;
  if (shared) {
    // The same weight values may have been quantized for another constant.
    auto cached = quantizedAttrs.find(attrKey);
    if (cached != quantizedAttrs.end())
      attrs = cached->second;
  }
  if (!attrs) {
    FailureOr<QuantizedAttrs> fresh = quantizeAndRecord(op, name, job, rec);
    if (failed(fresh))
      return Value();
    attrs = *fresh;
    if (shared)
      quantizedAttrs[attrKey] = *attrs;
  }
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (shared) {
    b.setInsertionPointAfter(cst);
    loc = cst.getLoc();
  }
  Value deq = materialize(b, loc, job.type, *attrs, job.scheme);
  if (shared)
    dequantized[key] = deq;
  return deq;
}

/// Re-applies the layout chain on the dequantized value (once per value and
/// layout op).
Value QuantizeWeightsPass::reapplyChain(Value deq,
                                        ArrayRef<Operation *> chain) {
  Value cur = deq;
  for (Operation *layoutOp : chain) {
    auto ckey = std::make_pair(deq, layoutOp);
    if (Value c = clonedChain.lookup(ckey)) {
      cur = c;
      continue;
    }
    OpBuilder b(layoutOp);
    IRMapping mapping;
    mapping.map(layoutOp->getOperand(0), cur);
    Operation *clone = b.clone(*layoutOp, mapping);
    cur = clone->getResult(0);
    clonedChain[ckey] = cur;
  }
  return cur;
}

void QuantizeWeightsPass::processOperand(linalg::LinalgOp op,
                                         OpOperand &operand, const Trace &trace,
                                         const WeightAxes &axes,
                                         unsigned index) {
  arith::ConstantOp cst = trace.constant;
  auto operandType = cast<RankedTensorType>(operand.get().getType());
  std::string name = layerName(op, cst, index);
  LayerRecord rec = describeOperand(op, operand, name);

  auto skipWith = [&](const std::string &reason) {
    rec.skipReason = reason;
    if (cfg.remarks)
      emitRemark(op->getLoc())
          << "weight of '" << name << "' not quantized: " << reason;
    records.push_back(rec);
  };
  if (std::optional<std::string> reason =
          skipRule(op, cst, name, rec.numElements))
    return skipWith(*reason);

  std::string why;
  FailureOr<WeightData> data = getWeightData(cst, why);
  if (failed(data))
    return skipWith(why);
  FailureOr<OperandScheme> os = operandScheme(op, operandType, axes, name, why);
  if (failed(os)) {
    if (!why.empty())
      return skipWith(why);
    hadError = true;
    return;
  }

  WeightJob job;
  prepareJob(job, trace, *data, operandType, *os);
  if (cfg.gptq && failed(prepareGptq(op, operand, trace, axes, name, job))) {
    hadError = true;
    return;
  }
  auto clipJob = awqClipJobs.find(op);
  if (clipJob != awqClipJobs.end() && trace.chain.empty())
    job.awqClip = clipJob->second;
  rec.layout = trace.chain.empty() ? "constant"
               : job.folded        ? "folded chain"
                                   : "chain re-applied";
  Value deq = dequantizedWeight(op, name, cst, job, rec);
  if (!deq) {
    hadError = true;
    return;
  }
  operand.set(job.folded ? deq : reapplyChain(deq, trace.chain));
  maybeDead.push_back(cst);
  llvm::append_range(maybeDead, trace.chain);
}

/// algorithm=gptq: finds the observed activation of `op`, its second moment
/// and factor, and the weight's reduction axis in the quantized layout.
LogicalResult QuantizeWeightsPass::prepareGptq(linalg::LinalgOp op,
                                               OpOperand &operand,
                                               const Trace &trace,
                                               const WeightAxes &axes,
                                               const std::string &name,
                                               WeightJob &job) {
  auto err = [&]() {
    return op->emitError() << "octet-quantize-weights algorithm="
                           << cfg.algorithmName << ": '" << name << "': ";
  };
  if (job.type.getRank() != 2 || !axes.reduction)
    return err() << "GPTQ takes 2-D weights (matmuls), this one is "
                 << job.type;
  std::optional<int64_t> raxis =
      job.folded ? axes.reduction
                 : mapAxisToConstant(trace.chain, *axes.reduction);
  if (!raxis)
    return err() << "the reduction axis does not survive the layout chain";
  SmallVector<OpOperand *> inputs = op.getDpsInputOperands();
  if (inputs.size() != 2)
    return err() << "expected two inputs (activation and weight), got "
                 << inputs.size();
  OpOperand *act = inputs[0] == &operand ? inputs[1] : inputs[0];
  auto observe = act->get().getDefiningOp<ObserveOp>();
  if (!observe)
    return err() << "the activation is not an octet.observe; instrument the "
                    "module with octet-instrument{all=true} and calibrate it "
                    "with octet-run --calibrate=FILE --second-moment";
  // The second moment sums over the activation's last dimension: it must be
  // the contraction's reduction loop that the weight's reduction axis uses.
  unsigned loop = op.getMatchingIndexingMap(&operand).getDimPosition(
      *axes.reduction);
  AffineMap actMap = op.getMatchingIndexingMap(act);
  if (actMap.getNumResults() == 0 ||
      actMap.getResults().back() != getAffineDimExpr(loop, op->getContext()))
    return err() << "the activation's reduction dimension is not its last; "
                    "its second moment would sum the wrong products";
  auto it = moments.find(observe.getName());
  if (it == moments.end())
    return err() << "'" << cfg.stats << "' has no second_moment for '"
                 << observe.getName()
                 << "' (calibrate with octet-run --second-moment)";
  int64_t k = job.type.getDimSize(*raxis);
  if (it->second.dim != k)
    return err() << "the second moment of '" << observe.getName()
                 << "' is " << it->second.dim << "x" << it->second.dim
                 << ", the weight's reduction dimension is " << k;
  if (it->second.rows == 0)
    return err() << "the second moment of '" << observe.getName()
                 << "' was accumulated over no rows";
  auto awqFactor = awqFactors.find(op);
  if (awqFactor != awqFactors.end()) {
    // algorithm=awq-gptq: the factor of the scaled input's second moment;
    // with AWQ's clip search (processOperand) its ranges are the grid.
    bool clipped = awqClipJobs.count(op) != 0 && trace.chain.empty();
    job.gptq = GptqJob{awqFactor->second, *raxis, clipped};
    return success();
  }
  std::shared_ptr<const GptqFactor> &factor = factors[it->second.file];
  if (!factor) {
    std::string why;
    auto loaded =
        loadGptqFactor(&getContext(), it->second.file, k, cfg.damp,
                       cfg.actOrder, why);
    if (failed(loaded)) {
      factors.erase(it->second.file);
      return err() << why;
    }
    factor = *loaded;
  }
  job.gptq = GptqJob{factor, *raxis};
  return success();
}

//===----------------------------------------------------------------------===//
// AWQ
//===----------------------------------------------------------------------===//

/// algorithm=awq: searches the scales of every group of contractions that
/// read one observed activation, and folds them (before the weights are
/// quantized by round to nearest).
LogicalResult QuantizeWeightsPass::runAwq(ModuleOp module) {
  std::string why;
  auto channels = readChannelEntries(cfg.stats, why);
  if (failed(channels))
    return module.emitError() << "octet-quantize-weights: " << why;
  SmallVector<ScaleGroup> groups = collectScaleGroups(module);
  SmallVector<Operation *> replaced;
  bool ok = true;
  for (auto [i, g] : llvm::enumerate(groups)) {
    AwqRecord rec;
    rec.layers = g.layerList();
    rec.names = g.layerNames();
    rec.observer = g.observer;
    if (failed(awqGroup(g, *channels, rec, replaced)))
      ok = false;
    if (!rec.skipReason.empty() && cfg.remarks)
      emitRemark(g.weights.front().op->getLoc())
          << "AWQ leaves '" << rec.layers << "' unscaled: " << rec.skipReason
          << (rec.clipOnly ? " (its ranges from the clip search)" : "");
    awqRecords.push_back(std::move(rec));
    if (llvm::errs().is_displayed() && groups.size() > 8) {
      llvm::errs() << "\roctet-quantize-weights: AWQ group " << i + 1 << "/"
                   << groups.size();
      if (i + 1 == groups.size())
        llvm::errs() << "\n";
      llvm::errs().flush();
    }
  }
  for (Operation *op : replaced)
    if (op->use_empty())
      op->erase();
  return success(ok);
}

/// awq-clip on a group without a fold target: AWQ's clip search for its
/// weights with unit scales, on the observed activation's second moment
/// when the statistics have one (else the weights stay round to nearest).
LogicalResult QuantizeWeightsPass::clipOnlyGroup(ScaleGroup &g,
                                                 AwqRecord &rec) {
  auto mo = moments.find(g.observer);
  if (mo == moments.end())
    return success();
  const ScaledWeight &sw0 = g.weights.front();
  auto type = cast<RankedTensorType>(
      currentConstant(sw0.op, sw0.operand).getType());
  int64_t k = type.getDimSize(sw0.inAxis);
  auto err = [&]() {
    return sw0.op->emitError() << "octet-quantize-weights algorithm=awq: '"
                               << rec.layers << "': ";
  };
  if (mo->second.dim != k)
    return err() << "the second moment of '" << g.observer << "' is "
                 << mo->second.dim << "x" << mo->second.dim
                 << "; the weights' input dimension is " << k;
  if (mo->second.rows == 0)
    return err() << "the second moment of '" << g.observer
                 << "' was accumulated over no rows";
  std::string why;
  FailureOr<std::vector<double>> h = loadSecondMoment(mo->second.file, k, why);
  if (failed(h))
    return err() << why;
  std::vector<float> unit(k, 1.0f);
  if (cfg.gptq && failed(setAwqFactor(g, rec.layers, *h, unit)))
    return failure();
  auto shared = std::make_shared<const std::vector<double>>(std::move(*h));
  for (const ScaledWeight &sw : g.weights)
    awqClipJobs[sw.op] = AwqClipJob{shared, unit};
  rec.clipOnly = true;
  return success();
}

/// algorithm=awq-gptq: GPTQ's factor of the input of `g`'s weights after
/// AWQ divided its channels by `scales` (H_ij / (s_i s_j)), shared by them.
LogicalResult QuantizeWeightsPass::setAwqFactor(ScaleGroup &g,
                                                const std::string &layers,
                                                const std::vector<double> &h,
                                                ArrayRef<float> scales) {
  const int64_t k = static_cast<int64_t>(scales.size());
  std::vector<double> hs(k * k);
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b)
      hs[a * k + b] = h[a * k + b] / (static_cast<double>(scales[a]) *
                                      static_cast<double>(scales[b]));
  std::string why;
  auto factor = factorGptq(&getContext(), std::move(hs), k,
                           "'" + g.observer + "' (AWQ-scaled)", cfg.damp,
                           cfg.actOrder, why);
  if (failed(factor))
    return g.weights.front().op->emitError()
           << "octet-quantize-weights algorithm=awq-gptq: '" << layers
           << "': " << why;
  for (const ScaledWeight &sw : g.weights)
    awqFactors[sw.op] = *factor;
  return success();
}

/// One AWQ group: the search and the rewrite, or a skip reason in `rec`.
/// Fails (with an error) when the statistics do not match the module.
LogicalResult QuantizeWeightsPass::awqGroup(
    ScaleGroup &g, const llvm::StringMap<ChannelEntry> &channels,
    AwqRecord &rec, SmallVectorImpl<Operation *> &replaced) {
  if (!g.fold) {
    // No op to fold scales into: the weights keep their scales of 1, and
    // with awq-clip AWQ's clip search still picks their ranges (llm-awq
    // clips every linear layer; without it these layers stay plain round
    // to nearest).
    rec.skipReason = g.why;
    if (cfg.awqClip)
      return clipOnlyGroup(g, rec);
    return success();
  }
  rec.fold = g.fold->kindName();
  rec.foldInto = g.fold->name;
  Operation *first = g.weights.front().op;
  auto err = [&]() {
    return first->emitError() << "octet-quantize-weights algorithm=awq: '"
                              << rec.layers << "': ";
  };
  std::vector<AwqWeight> ws;
  for (ScaledWeight &sw : g.weights) {
    arith::ConstantOp cst = currentConstant(sw.op, sw.operand);
    auto type = cast<RankedTensorType>(cst.getType());
    if (std::optional<std::string> reason =
            skipRule(sw.op, cst, sw.name, type.getNumElements())) {
      rec.skipReason = "'" + sw.name + "' is not quantized: " + *reason;
      return success();
    }
    std::string why;
    FailureOr<WeightData> data = getWeightData(cst, why);
    if (succeeded(data) && data->kind != ElemKind::F32)
      why = "only f32 weights are scaled";
    if (failed(data) || !why.empty()) {
      rec.skipReason = "'" + sw.name + "': " + why;
      return success();
    }
    OpOperand &operand = sw.op->getOpOperand(sw.operand);
    std::optional<WeightAxes> axes = analyzeWeight(sw.op, operand);
    FailureOr<OperandScheme> os =
        operandScheme(sw.op, type, *axes, sw.name, why);
    if (failed(os)) {
      if (why.empty())
        return failure(); // group-size error, reported
      rec.skipReason = "'" + sw.name + "': " + why;
      return success();
    }
    WeightJob job;
    prepareJob(job, Trace{cst, {}}, *data, type, *os);
    AwqWeight w;
    w.values = *readF32(cst, why);
    w.shape.assign(type.getShape().begin(), type.getShape().end());
    w.inAxis = sw.inAxis;
    w.scheme = job.scheme;
    if (failed(checkFinite(&getContext(), sw.op, sw.name, *data,
                           type.getShape(), /*clip=*/false)))
      return failure();
    ws.push_back(std::move(w));
  }
  int64_t k = ws.front().shape[ws.front().inAxis];
  auto ch = channels.find(g.observer);
  if (ch == channels.end())
    return err() << "'" << cfg.stats << "' has no channels for '" << g.observer
                 << "' (calibrate with octet-run --channel-stats)";
  auto mo = moments.find(g.observer);
  if (mo == moments.end())
    return err() << "'" << cfg.stats << "' has no second_moment for '"
                 << g.observer << "' (calibrate with octet-run --second-moment)";
  if (ch->second.dim != k || mo->second.dim != k)
    return err() << "the statistics of '" << g.observer << "' have "
                 << ch->second.dim << " channels and a " << mo->second.dim
                 << "x" << mo->second.dim
                 << " second moment; the weights' input dimension is " << k;
  if (ch->second.rows == 0 || mo->second.rows == 0)
    return err() << "the statistics of '" << g.observer
                 << "' were accumulated over no rows";
  std::string why;
  FailureOr<std::vector<double>> h = loadSecondMoment(mo->second.file, k, why);
  if (failed(h))
    return err() << why;
  rec.result = awqSearch(&getContext(), cfg, ws, *h, ch->second.meanAbs);
  if (cfg.gptq && failed(setAwqFactor(g, rec.layers, *h, rec.result.scales)))
    return failure();
  if (cfg.awqClip) {
    auto shared = std::make_shared<const std::vector<double>>(std::move(*h));
    for (const ScaledWeight &sw : g.weights)
      awqClipJobs[sw.op] = AwqClipJob{shared, rec.result.scales};
  }
  if (cfg.remarks)
    emitRemark(first->getLoc())
        << "AWQ scales for '" << rec.layers << "' (folded into "
        << rec.fold << " '" << rec.foldInto << "'): alpha "
        << fixed2(rec.result.alpha) << ", output error "
        << fixed2(rec.result.errorRtn > 0 ? rec.result.error /
                                                rec.result.errorRtn
                                          : 1.0)
        << "x round-to-nearest's";
  if (rec.result.alpha == 0.0)
    return success(); // Scales of 1: nothing to fold.
  if (failed(applyChannelScales(g, rec.result.scales, replaced, why)))
    return err() << why;
  return success();
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

/// format=auto: the module's chip and the recipe choose the weight format.
LogicalResult QuantizeWeightsPass::resolveAutoFormat(ModuleOp module) {
  TargetAttr targetAttr = target::getTargetAttr(module);
  if (!targetAttr) {
    module.emitError() << "octet-quantize-weights: format=auto needs a "
                          "#octet.target on the module; run "
                          "octet-set-target first";
    return failure();
  }
  FailureOr<StorageFormat> f = target::resolveAutoFormat(
      targetAttr, *target::symbolizeRecipe(recipe), target::OperandRole::weight,
      [&]() { return module.emitError(); });
  if (failed(f))
    return failure();
  cfg.format = *f;
  cfg.symmetric = symmetric;
  if ((cfg.format == StorageFormat::u8 || cfg.format == StorageFormat::u4) &&
      !cfg.symmetricGiven)
    cfg.symmetric = false;
  return success();
}

/// The weight operands of every contraction, with remarks for contractions
/// that have none. Adds their sizes to `totalBytes`.
std::vector<Work> QuantizeWeightsPass::collectWork(ModuleOp module) {
  std::vector<Work> work;
  module.walk([&](linalg::LinalgOp op) {
    if (!isContractionLike(op))
      return;
    bool any = false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      std::optional<WeightAxes> axes = analyzeWeight(op, *in);
      if (!axes)
        continue;
      std::optional<Trace> trace = traceToConstant(in->get());
      if (!trace)
        continue;
      any = true;
      work.push_back({op, in->getOperandNumber(), std::move(*trace), *axes});
      auto t = cast<RankedTensorType>(in->get().getType());
      if (t.hasStaticShape())
        totalBytes += t.getNumElements() * (t.getElementTypeBitWidth() / 8);
    }
    if (!any)
      emitRemark(op->getLoc())
          << "contraction has no constant weight operand; left unquantized";
  });
  return work;
}

/// Erases the float constants and layout ops nothing uses any more.
void QuantizeWeightsPass::eraseDeadWeights() {
  SmallVector<Operation *> worklist(maybeDead.rbegin(), maybeDead.rend());
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !op->use_empty() || !isOpTriviallyDead(op))
      continue;
    SmallVector<Operation *> defs;
    for (Value v : op->getOperands())
      if (Operation *d = v.getDefiningOp())
        defs.push_back(d);
    erased.insert(op);
    op->erase();
    for (Operation *d : defs)
      if (!erased.contains(d) && d->use_empty() && isOpTriviallyDead(d) &&
          isa<tensor::EmptyOp, linalg::TransposeOp, linalg::BroadcastOp,
              tensor::ExpandShapeOp, tensor::CollapseShapeOp,
              arith::ConstantOp>(d))
        worklist.push_back(d);
  }
}

void QuantizeWeightsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (cfg.autoFormat && failed(resolveAutoFormat(module)))
    return signalPassFailure();
  dequantized.clear();
  quantizedAttrs.clear();
  clonedChain.clear();
  records.clear();
  maybeDead.clear();
  hadError = false;
  totalBytes = doneBytes = 0;

  moments.clear();
  factors.clear();
  awqRecords.clear();
  awqClipJobs.clear();
  awqFactors.clear();
  if (cfg.gptq || cfg.awq) {
    std::string why;
    auto entries = readMomentEntries(cfg.stats, why);
    if (failed(entries)) {
      module.emitError() << "octet-quantize-weights: " << why;
      return signalPassFailure();
    }
    moments = std::move(*entries);
  }
  if (cfg.awq && failed(runAwq(module)))
    return signalPassFailure();

  std::vector<Work> work = collectWork(module);
  for (auto [i, w] : llvm::enumerate(work)) {
    processOperand(w.op, w.op->getOpOperand(w.operandNumber), w.trace, w.axes,
                   i);
    progress(i + 1, work.size());
  }
  eraseDeadWeights();
  if (cfg.gptq || cfg.awq) {
    // The observers were there for calibration only.
    removeObservers(module);
    factors.clear();
    awqFactors.clear();
  }

  if (failed(writeReport(module, cfg, records, awqRecords)))
    hadError = true;
  if (hadError)
    signalPassFailure();
}

} // namespace
