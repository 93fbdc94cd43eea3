//===- QuantizeWeightsInternal.h - Pass-private declarations ----*- C++ -*-===//
//
// Declarations shared by the files of octet-quantize-weights and by nothing
// else: the parsed options, reading a weight constant in place, tracing an
// operand back to its constant through layout ops, layer names, the
// quantization kernel and the JSON report. Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_TRANSFORMS_QUANTIZEWEIGHTS_QUANTIZEWEIGHTSINTERNAL_H
#define OCTET_LIB_TRANSFORMS_QUANTIZEWEIGHTS_QUANTIZEWEIGHTSINTERNAL_H

#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Runtime/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::octet::weight_quant {

/// dot(a[0:n], b[0:n]) with four partial sums (a fixed order: the result
/// does not depend on the thread count). GPTQ's triangular solves and
/// AWQ's clip search use it.
inline double dot(const double *__restrict a, const double *__restrict b,
                  int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

namespace num = ::octet::numerics;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

enum class GranularityKind { PerTensor, PerChannel, PerGroup };
enum class ClipKind { AbsMax, MinMax, Percentile, Mse };

/// The pass options, parsed and checked once.
struct Config {
  StorageFormat format = StorageFormat::i8;
  /// format=iN / uN (N in 2..7): the code range [qmin, qmax] inside the
  /// 4- or 8-bit storage format.
  std::optional<std::pair<int32_t, int32_t>> narrowRange;
  /// format=auto: resolved per module from its #octet.target and `recipe`.
  bool autoFormat = false;
  bool symmetricGiven = false;
  GranularityKind granularity = GranularityKind::PerChannel;
  int64_t groupSize = 128;
  bool symmetric = true;
  ClipKind clip = ClipKind::AbsMax;
  double percentile = 100.0;
  std::string clipName = "absmax";
  std::string skip;
  bool skipLmHead = true;
  int64_t minElements = 0;
  std::string report;
  bool nonfiniteClip = false;
  /// format=mxfp8 / mxfp8-e5m2: E8M0 (power-of-two) scales.
  bool e8m0 = false;
  /// mx-scale=ceil: E8M0 scales rounded up so that nothing clips.
  bool mxCeil = false;
  /// format=nvfp4 / nf4-dq: E2M1 (NF4) with E4M3 block scales times a
  /// per-tensor global scale (#octet.scheme<..., e4m3(g)>).
  bool e4m3 = false;
  /// channel-block=B (per-group, 2-D weights): the B output channels of a
  /// block share each group's scale (B x group-size blocks; 0: off).
  int64_t channelBlock = 0;
  bool remarks = false;
  /// algorithm=gptq (or awq-gptq), its statistics file and dampening.
  bool gptq = false;
  std::string stats;
  double damp = 0.01;
  bool actOrder = false;
  /// algorithm=awq (or awq-gptq: AWQ's scales and clip ranges, then GPTQ
  /// on the scaled input's second moment) and its grid of alphas (0,
  /// 1/grid, ...).
  bool awq = false;
  int64_t awqGrid = 20;
  /// algorithm=awq: per-group clip ranges searched by output error.
  bool awqClip = true;
  /// The options as written, for the report.
  std::string formatName, granularityName, nonfiniteName;
  /// rtn, gptq, awq or awq-gptq.
  std::string algorithmName = "rtn";
};

//===----------------------------------------------------------------------===//
// Reading weights in place (WeightReader.cpp)
//===----------------------------------------------------------------------===//

enum class ElemKind { F32, F16, BF16 };

/// A read-only view of a float constant's elements: the raw bytes of a
/// `dense` attribute or of a `dense_resource` blob, never copied.
struct WeightData {
  const char *data = nullptr;
  ElemKind kind = ElemKind::F32;
  int64_t numElements = 0;
  bool splat = false;
};

/// Byte width of an element kind.
inline unsigned elemBytes(ElemKind k) { return k == ElemKind::F32 ? 4 : 2; }

/// Calls `fn(reader)` with a reader functor `float(int64_t)` specialised for
/// the element type (so the hot loops are not dispatching per element).
template <typename Fn> void withReader(const WeightData &w, Fn &&fn) {
  const char *d = w.data;
  if (w.splat) {
    float v;
    if (w.kind == ElemKind::F32) {
      std::memcpy(&v, d, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, d, 2);
      v = w.kind == ElemKind::F16 ? num::decodeF16(h) : num::decodeBF16(h);
    }
    fn([v](int64_t) { return v; });
    return;
  }
  switch (w.kind) {
  case ElemKind::F32:
    fn([d](int64_t i) {
      float v;
      std::memcpy(&v, d + 4 * i, 4);
      return v;
    });
    return;
  case ElemKind::F16:
    fn([d](int64_t i) {
      uint16_t h;
      std::memcpy(&h, d + 2 * i, 2);
      return num::decodeF16(h);
    });
    return;
  case ElemKind::BF16:
    fn([d](int64_t i) {
      uint16_t h;
      std::memcpy(&h, d + 2 * i, 2);
      return num::decodeBF16(h);
    });
    return;
  }
}

/// Runs of a weight's values as f32: a pointer into the data where it is
/// f32 (the constant's own bytes, or GPTQ's corrected values), else the
/// elements decoded into the caller's buffer (f16, bf16, splats). The row
/// kernels (octet/Runtime/NumericsRow.h) read these.
struct F32Runs {
  const float *f32 = nullptr;
  WeightData w;
  explicit F32Runs(const WeightData &data) : w(data) {
    if (!w.splat && w.kind == ElemKind::F32 &&
        reinterpret_cast<uintptr_t>(w.data) % alignof(float) == 0)
      f32 = reinterpret_cast<const float *>(w.data);
  }
  explicit F32Runs(const float *values) : f32(values) {}
  /// Elements [i, i + n); `buf` holds at least n floats.
  const float *get(int64_t i, int64_t n, float *buf) const {
    if (f32)
      return f32 + i;
    withReader(w, [&](auto read) {
      for (int64_t j = 0; j < n; ++j)
        buf[j] = read(i + j);
    });
    return buf;
  }
};

/// Views the value of a float `arith.constant`; fails (with the reason) for
/// other element types or unavailable resource blobs.
FailureOr<WeightData> getWeightData(arith::ConstantOp cst, std::string &why);

/// Splits [0, n) into chunks of a fixed size (independent of the number of
/// threads, so that merged sums do not depend on threading).
constexpr int64_t kChunk = 1 << 16;
inline int64_t numChunks(int64_t n) {
  return std::max<int64_t>(1, (n + kChunk - 1) / kChunk);
}

/// Checks the weight (of shape `shape`, used by `contraction` and named
/// `name`) for non-finite values: an error at the contraction, or with
/// nonfinite=clip (`clip`) a warning.
LogicalResult checkFinite(MLIRContext *ctx, Operation *contraction,
                          const std::string &name, const WeightData &data,
                          ArrayRef<int64_t> shape, bool clip);

//===----------------------------------------------------------------------===//
// Contractions, weights and layout chains (WeightTrace.cpp)
//===----------------------------------------------------------------------===//

/// A contraction or convolution whose weights this pass quantizes.
bool isContractionLike(linalg::LinalgOp op);

/// Axes of a weight operand, in the operand's own dimensions.
struct WeightAxes {
  /// The output channel: maps to a parallel loop that indexes the result
  /// and no other input. Unset when there is none or it is ambiguous.
  std::optional<int64_t> channel;
  std::string channelWhy;
  /// The reduction dimension used for per-group quantization.
  std::optional<int64_t> reduction;
};

/// The axes of input `operand` of `op` when it can be a weight: its indexing
/// map is a projected permutation involving a reduction loop.
std::optional<WeightAxes> analyzeWeight(linalg::LinalgOp op,
                                        OpOperand &operand);

/// A constant reached from an operand through layout ops.
struct Trace {
  arith::ConstantOp constant;
  /// Layout ops from the constant (front) to the operand (back).
  SmallVector<Operation *> chain;
};

/// Follows `v` back through transpose / broadcast / expand_shape /
/// collapse_shape to an `arith.constant` with a tensor value.
std::optional<Trace> traceToConstant(Value v);

/// Maps an operand axis back through the whole chain to the constant.
std::optional<int64_t> mapAxisToConstant(ArrayRef<Operation *> chain,
                                         int64_t axis);

/// Evaluates a layout chain on the constant's values (as f32): the weight
/// as the contraction sees it. Only used when an axis does not survive the
/// chain.
std::vector<float> foldChain(const WeightData &w, ArrayRef<int64_t> srcShape,
                             ArrayRef<Operation *> chain);

/// The layer's name: a NameLoc of the contraction, else of the weight
/// constant, else the contraction's file:line:col.
std::string layerName(Operation *op, Operation *constant, unsigned index);

/// True for the final vocabulary projection: `lm_head`, alone or as the last
/// component of a dotted / slashed / colon-separated name.
bool isLmHead(StringRef name);

//===----------------------------------------------------------------------===//
// The quantization kernel (WeightQuantizer.cpp)
//===----------------------------------------------------------------------===//

/// Everything measured while quantizing one weight.
struct LayerStats {
  num::SqnrAccumulator sqnr;
  double maxAbsError = 0.0;
  num::ErrorHistogram histogram;
  double thresholdMin = 0.0, thresholdMax = 0.0, thresholdMean = 0.0;
  double ratioMin = 0.0, ratioMax = 0.0, ratioMean = 0.0;
  /// The clip trade-off: (clip ratio of each group's range, SQNR dB) on a
  /// fixed sample of the layer's elements, for the report.
  std::vector<std::pair<double, double>> clipCurve;
};

/// A report entry: a quantized weight, or a skipped one with the reason.
struct LayerRecord {
  std::string name, opName, elementType, scheme, granularity, layout;
  std::string skipReason; // Empty when quantized.
  SmallVector<int64_t> shape;
  int64_t operandIndex = 0;
  int64_t numElements = 0;
  uint64_t bytesBefore = 0, bytesAfter = 0, codeBytes = 0, paramBytes = 0;
  bool symmetric = true;
  LayerStats stats;
};

/// The constants that replace one weight.
struct QuantizedAttrs {
  TypedAttr codes, scales, zeroPoints;
};

/// GPTQ's view of one layer's calibration inputs (Gptq.cpp).
struct GptqFactor {
  int64_t dim = 0;
  /// U, upper triangular, dim x dim row-major: H^-1 = U^T U for the damped
  /// Hessian H.
  std::vector<double> u;
  /// Inputs that were zero in every calibration row (H_ii = 0): their
  /// weight column is zeroed before quantization.
  std::vector<uint8_t> dead;
  /// The order in which inputs are quantized: U is the factor of H with
  /// rows and columns in this order (act-order: descending diag(H);
  /// otherwise 0, 1, ...).
  std::vector<int64_t> order;
};

/// A tensor's second_moment entry in a statistics file.
struct MomentEntry {
  std::string file; ///< Resolved against the statistics file's directory.
  int64_t dim = 0;
  uint64_t rows = 0;
};

/// The second_moment entries of the statistics file `path`, by observer
/// name (tensors without one are left out). Fails with `why`.
FailureOr<llvm::StringMap<MomentEntry>> readMomentEntries(const std::string &path,
                                                          std::string &why);

/// Reads the second moment of `file` (dim x dim float64 .npy), dampens it
/// by `damp` times its mean diagonal and factors it. Fails with `why`.
FailureOr<std::shared_ptr<const GptqFactor>>
loadGptqFactor(MLIRContext *ctx, const std::string &file, int64_t dim,
               double damp, bool actOrder, std::string &why);

/// The factor of the second moment `h` (dim x dim, row-major), dampened
/// as loadGptqFactor does; `what` names it in `why` on failure.
FailureOr<std::shared_ptr<const GptqFactor>>
factorGptq(MLIRContext *ctx, std::vector<double> h, int64_t dim,
           const std::string &what, double damp, bool actOrder,
           std::string &why);

//===----------------------------------------------------------------------===//
// Per-input-channel scaling: SmoothQuant and AWQ (ChannelScaling.cpp)
//===----------------------------------------------------------------------===//

/// A statistics file written by octet-run --calibrate, parsed.
struct StatsFile {
  std::shared_ptr<llvm::json::Value> root;
  const llvm::json::Object *tensors = nullptr; ///< Points into root.
  std::string path, dir;
};

/// Reads and parses `path` and finds its "tensors" object. Fails with
/// `why` (unreadable, not JSON, no "tensors").
FailureOr<StatsFile> openStatsFile(const std::string &path, std::string &why);

/// A tensor's channels entry (octet-run --channel-stats).
struct ChannelEntry {
  int64_t dim = 0;
  uint64_t rows = 0;
  std::vector<double> absmax, meanAbs;
};

/// The channels entries of the statistics file `path`, by observer name
/// (tensors without one are left out). Fails with `why`.
FailureOr<llvm::StringMap<ChannelEntry>>
readChannelEntries(const std::string &path, std::string &why);

/// A 2-D constant weight of a contraction whose input channels are scaled.
struct ScaledWeight {
  linalg::LinalgOp op;
  unsigned operand = 0;
  /// The constant when the group was collected (applyChannelScales may
  /// replace it: currentConstant gives the one in use).
  arith::ConstantOp cst;
  /// The constant's axis that the activation's channels index.
  int64_t inAxis = 0;
  std::string name;
};

/// The op that absorbs 1/s: see ChannelScaling.cpp.
struct FoldTarget {
  enum Kind { Multiplier, Producer } kind = Multiplier;
  Operation *op = nullptr;
  unsigned operand = 0;
  arith::ConstantOp cst;
  /// The constant's axis indexed by the activation's channels.
  int64_t axis = 0;
  std::string name;
  const char *kindName() const {
    return kind == Multiplier ? "multiplier" : "producer";
  }
};

/// The contractions that read one observed activation (through their own
/// octet.observe each) with a 2-D constant weight whose reduction axis is
/// the activation's last dimension.
struct ScaleGroup {
  Value input;
  /// The first observer's name: its statistics describe `input`.
  std::string observer;
  SmallVector<ScaledWeight> weights;
  /// Unset, with `why`, when the activation cannot absorb scales.
  std::optional<FoldTarget> fold;
  std::string why;
  /// The weights' names, comma-separated.
  std::string layerList() const;
  std::vector<std::string> layerNames() const;
};

/// The groups of `module`, in the order of their first contraction.
SmallVector<ScaleGroup> collectScaleGroups(ModuleOp module);

/// The values of the f32 constant `cst`, copied. Fails with `why` for
/// other element types or unavailable resource blobs.
FailureOr<std::vector<float>> readF32(arith::ConstantOp cst, std::string &why);

/// The constant operand `operand` of `op` now (null if not a constant).
arith::ConstantOp currentConstant(Operation *op, unsigned operand);

/// Multiplies input channel j of every weight of `g` by s[j] and divides
/// channel j of its fold target by s[j] (f32 arithmetic), with new
/// constants; the replaced ones are appended to `replaced` (erase them when
/// unused). Fails with `why`, changing nothing, for non-f32 constants.
LogicalResult applyChannelScales(ScaleGroup &g, ArrayRef<float> s,
                                 SmallVectorImpl<Operation *> &replaced,
                                 std::string &why);

/// Replaces every octet.observe by its input.
void removeObservers(ModuleOp module);

//===----------------------------------------------------------------------===//
// AWQ (Awq.cpp)
//===----------------------------------------------------------------------===//

/// Output channels of a weight sampled by AWQ's error (at most).
constexpr int64_t kAwqRows = 128;

/// One weight of an AWQ group: its f32 values in the constant's layout
/// (2-D), the axis the activation's channels index, and its scheme.
struct AwqWeight {
  std::vector<float> values;
  SmallVector<int64_t, 2> shape;
  int64_t inAxis = 0;
  SchemeAttr scheme;
};

/// The search's outcome: the best alpha (the first minimum on the grid),
/// its scales and error, the error at alpha = 0 (round to nearest) and the
/// error at every grid point.
struct AwqResult {
  double alpha = 0.0, error = 0.0, errorRtn = 0.0;
  std::vector<float> scales;
  std::vector<double> curve;
};

/// Reads a second moment (.npy, dim x dim float64): finite, symmetric up to
/// 1e-9 relative, no negative diagonal element. Fails with `why`. GPTQ's
/// factor and AWQ's error both start from it.
FailureOr<std::vector<double>> loadSecondMoment(const std::string &file,
                                                int64_t dim, std::string &why);

/// AWQ's grid search over alpha in {0, 1/grid, ...} (see Awq.cpp).
AwqResult awqSearch(MLIRContext *ctx, const Config &cfg,
                    ArrayRef<AwqWeight> weights, const std::vector<double> &h,
                    ArrayRef<double> meanAbs);

/// A report entry of an AWQ group: searched, or skipped with the reason.
struct AwqRecord {
  std::string layers, observer, fold, foldInto, skipReason;
  std::vector<std::string> names; ///< The layers, one by one.
  AwqResult result;
  /// Skipped (no fold target), but its weights get AWQ's clip search.
  bool clipOnly = false;
};

/// The GPTQ part of a weight job: the factor of its layer's inputs and the
/// constant's reduction axis (the weight is 2-D; the other axis is the
/// output channel).
struct GptqJob {
  std::shared_ptr<const GptqFactor> factor;
  int64_t reductionAxis = 0;
  /// algorithm=awq-gptq with AWQ's clip search: every group's range is the
  /// search's (computed before the error feedback), not recomputed from
  /// the corrected values when the group starts.
  bool staticGroups = false;
};

/// AWQ's clip search for one weight (per-group schemes): the second moment
/// of the layer's original input (K x K) and the scales s its input was
/// divided by (the scaled input's second moment is H_ij / (s_i s_j)).
struct AwqClipJob {
  std::shared_ptr<const std::vector<double>> h;
  std::vector<float> scales;
};

/// A weight operand ready to quantize: the values and type that are
/// quantized (the constant's, or the folded layout chain's) and the scheme.
struct WeightJob {
  WeightData data;
  RankedTensorType type;
  SchemeAttr scheme;
  /// The weight was a dense_resource: the 8-bit codes become one too, named
  /// after `blobBase`.
  bool asResource = false;
  std::string blobBase = "octet_w";
  /// The layout chain is folded into `data` (which then points into
  /// `foldedValues`): the result feeds this operand only.
  bool folded = false;
  std::vector<float> foldedValues;
  /// algorithm=gptq: set for every quantized weight.
  std::optional<GptqJob> gptq;
  /// algorithm=awq awq-clip=true: set for the per-group weights of
  /// searched groups.
  std::optional<AwqClipJob> awqClip;

  WeightJob() = default;
  // `data` may point into `foldedValues`.
  WeightJob(const WeightJob &) = delete;
  WeightJob &operator=(const WeightJob &) = delete;
};

/// Checks `job`'s values with checkFinite, then quantizes them: the codes,
/// scales and zero points as constants, the measurements in `rec`.
/// `contraction` and `name` are the weight's user and layer name, for
/// diagnostics.
FailureOr<QuantizedAttrs> quantizeToAttrs(MLIRContext *ctx, const Config &cfg,
                                          Operation *contraction,
                                          const std::string &name,
                                          const WeightJob &job,
                                          LayerRecord &rec);

/// `values` (of `shape`, the constant's layout) quantized and dequantized
/// under `scheme` with the configured clip method: what quantizeToAttrs
/// would produce for them, as f32 (AWQ's search).
std::vector<float> fakeQuantize(MLIRContext *ctx, const Config &cfg,
                                SchemeAttr scheme, ArrayRef<int64_t> shape,
                                const float *values);

//===----------------------------------------------------------------------===//
// The report (WeightReport.cpp)
//===----------------------------------------------------------------------===//

/// Emits the summary remark (with `remarks`) and writes the JSON report
/// (with `report`, "-" for stdout). Fails, with an error at `module`, when
/// the report file cannot be written.
LogicalResult writeReport(ModuleOp module, const Config &cfg,
                          ArrayRef<LayerRecord> records,
                          ArrayRef<AwqRecord> awq);

/// `v` with two decimals (diagnostics take no llvm::format objects).
std::string fixed2(double v);

} // namespace mlir::octet::weight_quant

#endif // OCTET_LIB_TRANSFORMS_QUANTIZEWEIGHTS_QUANTIZEWEIGHTSINTERNAL_H
