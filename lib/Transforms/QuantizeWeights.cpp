//===- QuantizeWeights.cpp - Compile-time weight quantization -------------===//
//
// octet-quantize-weights: finds contractions whose weight is a constant,
// quantizes the constant with the numerics core and feeds the contraction
// an octet.dequantize of the codes. See the pass description in
// include/octet/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "octet/Transforms/Passes.h"

#include "octet/Target/Capabilities.h"
#include "octet/Target/FormatResolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Threading.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "octet/Runtime/Numerics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
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
namespace num = ::octet::numerics;

namespace {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

enum class GranularityKind { PerTensor, PerChannel, PerGroup };
enum class ClipKind { AbsMax, Percentile, Mse };

/// The pass options, parsed and checked once.
struct Config {
  StorageFormat format = StorageFormat::i8;
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
  bool remarks = false;
};

//===----------------------------------------------------------------------===//
// Reading weights in place
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
static unsigned elemBytes(ElemKind k) { return k == ElemKind::F32 ? 4 : 2; }

/// Calls `fn(reader)` with a reader functor `float(int64_t)` specialised for
/// the element type (so the hot loops are not dispatching per element).
template <typename Fn>
static void withReader(const WeightData &w, Fn &&fn) {
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

/// Views the value of a float `arith.constant`; fails (with the reason) for
/// other element types or unavailable resource blobs.
static FailureOr<WeightData> getWeightData(arith::ConstantOp cst,
                                           std::string &why) {
  auto type = dyn_cast<RankedTensorType>(cst.getType());
  if (!type || !type.hasStaticShape()) {
    why = "the weight is not a statically shaped tensor";
    return failure();
  }
  WeightData w;
  Type et = type.getElementType();
  if (et.isF32())
    w.kind = ElemKind::F32;
  else if (et.isF16())
    w.kind = ElemKind::F16;
  else if (et.isBF16())
    w.kind = ElemKind::BF16;
  else {
    why = "the weight's element type is not f32, f16 or bf16";
    return failure();
  }
  w.numElements = type.getNumElements();
  uint64_t bytes = static_cast<uint64_t>(w.numElements) * elemBytes(w.kind);
  Attribute value = cst.getValue();
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    ArrayRef<char> raw = dense.getRawData();
    w.splat = dense.isSplat();
    if (!w.splat && raw.size() != bytes) {
      why = "unexpected dense storage size";
      return failure();
    }
    w.data = raw.data();
    return w;
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) {
      why = "the dense_resource blob '" + res.getRawHandle().getKey().str() +
            "' has no data";
      return failure();
    }
    ArrayRef<char> raw = blob->getData();
    if (raw.size() != bytes) {
      why = "the dense_resource blob '" + res.getRawHandle().getKey().str() +
            "' holds " + std::to_string(raw.size()) + " bytes, expected " +
            std::to_string(bytes);
      return failure();
    }
    w.data = raw.data();
    return w;
  }
  why = "the weight constant is neither dense nor dense_resource";
  return failure();
}

//===----------------------------------------------------------------------===//
// Contractions, weights and their axes
//===----------------------------------------------------------------------===//

/// A contraction or convolution whose weights this pass quantizes.
static bool isContractionLike(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || !op.hasPureTensorSemantics())
    return false;
  Operation *o = op.getOperation();
  if (isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(o))
    return true;
  return linalg::isaContractionOpInterface(op) ||
         linalg::isaConvolutionOpInterface(op);
}

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
static std::optional<WeightAxes> analyzeWeight(linalg::LinalgOp op,
                                               OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto type = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!type || !map.isProjectedPermutation() ||
      map.getNumResults() != type.getRank())
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  llvm::SmallDenseSet<unsigned> inOthers, plainInOthers, inOutputs;
  for (OpOperand *other : op.getDpsInputOperands()) {
    if (other == &operand)
      continue;
    AffineMap m = op.getMatchingIndexingMap(other);
    for (AffineExpr e : m.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        plainInOthers.insert(d.getPosition());
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub))
          inOthers.insert(d.getPosition());
      });
    }
  }
  for (OpOperand &out : op.getDpsInitsMutable()) {
    AffineMap m = op.getMatchingIndexingMap(&out);
    for (AffineExpr e : m.getResults())
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub))
          inOutputs.insert(d.getPosition());
      });
  }
  SmallVector<int64_t> channels, reductions, sharedReductions;
  for (int64_t d = 0, e = map.getNumResults(); d < e; ++d) {
    unsigned loop = map.getDimPosition(d);
    if (iters[loop] == utils::IteratorType::parallel) {
      if (inOutputs.contains(loop) && !inOthers.contains(loop))
        channels.push_back(d);
    } else if (iters[loop] == utils::IteratorType::reduction) {
      reductions.push_back(d);
      if (plainInOthers.contains(loop))
        sharedReductions.push_back(d);
    }
  }
  if (reductions.empty())
    return std::nullopt;
  WeightAxes axes;
  if (channels.size() == 1)
    axes.channel = channels.front();
  else if (channels.empty())
    axes.channelWhy = "the weight has no output-channel dimension";
  else
    axes.channelWhy = "the weight has " + std::to_string(channels.size()) +
                      " candidate output-channel dimensions";
  axes.reduction =
      sharedReductions.empty() ? reductions.back() : sharedReductions.back();
  return axes;
}

/// A constant reached from an operand through layout ops.
struct Trace {
  arith::ConstantOp constant;
  /// Layout ops from the constant (front) to the operand (back).
  SmallVector<Operation *> chain;
};

/// Follows `v` back through transpose / broadcast / expand_shape /
/// collapse_shape to an `arith.constant` with a tensor value.
static std::optional<Trace> traceToConstant(Value v) {
  Trace t;
  while (Operation *def = v.getDefiningOp()) {
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      if (!isa<RankedTensorType>(c.getType()))
        return std::nullopt;
      t.constant = c;
      std::reverse(t.chain.begin(), t.chain.end());
      return t;
    }
    if (auto tr = dyn_cast<linalg::TransposeOp>(def)) {
      if (!tr.hasPureTensorSemantics())
        return std::nullopt;
      v = tr.getInput();
    } else if (auto b = dyn_cast<linalg::BroadcastOp>(def)) {
      if (!b.hasPureTensorSemantics())
        return std::nullopt;
      v = b.getInput();
    } else if (auto e = dyn_cast<tensor::ExpandShapeOp>(def)) {
      v = e.getSrc();
    } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def)) {
      v = c.getSrc();
    } else {
      return std::nullopt;
    }
    t.chain.push_back(def);
  }
  return std::nullopt;
}

/// Maps dimension `axis` of `op`'s result to the dimension of its input
/// holding the same index, when the mapping keeps every slice along the axis
/// intact (so that per-axis and per-group parameters carry over).
static std::optional<int64_t> mapAxisToInput(Operation *op, int64_t axis) {
  if (auto t = dyn_cast<linalg::TransposeOp>(op))
    return t.getPermutation()[axis];
  if (auto b = dyn_cast<linalg::BroadcastOp>(op)) {
    ArrayRef<int64_t> added = b.getDimensions();
    if (llvm::is_contained(added, axis))
      return std::nullopt;
    return axis - llvm::count_if(added, [&](int64_t d) { return d < axis; });
  }
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    ArrayRef<int64_t> shape = e.getResultType().getShape();
    for (auto [src, group] : llvm::enumerate(e.getReassociationIndices())) {
      if (!llvm::is_contained(group, axis))
        continue;
      for (int64_t d : group)
        if (d != axis && shape[d] != 1)
          return std::nullopt;
      return static_cast<int64_t>(src);
    }
    return std::nullopt;
  }
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> shape = c.getSrcType().getShape();
    ReassociationIndices group = c.getReassociationIndices()[axis];
    std::optional<int64_t> found;
    for (int64_t d : group) {
      if (shape[d] == 1)
        continue;
      if (found)
        return std::nullopt;
      found = d;
    }
    return found ? *found : group.back();
  }
  return std::nullopt;
}

/// Maps an operand axis back through the whole chain to the constant.
static std::optional<int64_t> mapAxisToConstant(ArrayRef<Operation *> chain,
                                                int64_t axis) {
  std::optional<int64_t> a = axis;
  for (Operation *op : llvm::reverse(chain)) {
    a = mapAxisToInput(op, *a);
    if (!a)
      return std::nullopt;
  }
  return a;
}

/// Evaluates a layout chain on the constant's values (as f32): the weight
/// as the contraction sees it. Only used when an axis does not survive the
/// chain.
static std::vector<float> foldChain(const WeightData &w,
                                    ArrayRef<int64_t> srcShape,
                                    ArrayRef<Operation *> chain) {
  std::vector<float> cur(w.numElements);
  withReader(w, [&](auto read) {
    for (int64_t i = 0; i < w.numElements; ++i)
      cur[i] = read(i);
  });
  SmallVector<int64_t> shape(srcShape);
  auto strides = [](ArrayRef<int64_t> s) {
    SmallVector<int64_t> st(s.size(), 1);
    for (int64_t i = static_cast<int64_t>(s.size()) - 2; i >= 0; --i)
      st[i] = st[i + 1] * s[i + 1];
    return st;
  };
  for (Operation *op : chain) {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> outShape = resultType.getShape();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
      shape.assign(outShape.begin(), outShape.end());
      continue; // Row-major reshapes keep the linear order.
    }
    SmallVector<int64_t> inStrides = strides(shape);
    std::vector<float> next(resultType.getNumElements());
    SmallVector<int64_t> idx(outShape.size(), 0);
    // For each output dimension, the input stride it advances (0 for a
    // broadcast dimension).
    SmallVector<int64_t> step(outShape.size(), 0);
    if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
      for (auto [i, p] : llvm::enumerate(t.getPermutation()))
        step[i] = inStrides[p];
    } else {
      auto b = cast<linalg::BroadcastOp>(op);
      int64_t in = 0;
      for (int64_t i = 0, e = outShape.size(); i < e; ++i)
        if (!llvm::is_contained(b.getDimensions(), i))
          step[i] = inStrides[in++];
    }
    for (int64_t o = 0, e = next.size(); o < e; ++o) {
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        src += idx[d] * step[d];
      next[o] = cur[src];
      for (int64_t d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < outShape[d])
          break;
        idx[d] = 0;
      }
    }
    cur = std::move(next);
    shape.assign(outShape.begin(), outShape.end());
  }
  return cur;
}

//===----------------------------------------------------------------------===//
// Names and skip rules
//===----------------------------------------------------------------------===//

static std::optional<std::string> findName(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      if (auto r = findName(l))
        return r;
    return std::nullopt;
  }
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return findName(c.getCallee());
  return std::nullopt;
}

static std::optional<std::string> findFileLoc(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(f.getFilename().getValue()) + ":" +
            Twine(f.getLine()) + ":" + Twine(f.getColumn()))
        .str();
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      if (auto r = findFileLoc(l))
        return r;
    return std::nullopt;
  }
  if (auto n = dyn_cast<NameLoc>(loc))
    return findFileLoc(n.getChildLoc());
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return findFileLoc(c.getCallee());
  return std::nullopt;
}

/// The layer's name: a NameLoc of the contraction, else of the weight
/// constant, else the contraction's file:line:col.
static std::string layerName(Operation *op, Operation *constant,
                             unsigned index) {
  if (auto n = findName(op->getLoc()))
    return *n;
  if (constant)
    if (auto n = findName(constant->getLoc()))
      return *n;
  if (auto f = findFileLoc(op->getLoc()))
    return *f;
  return (op->getName().getStringRef() + "#" + Twine(index)).str();
}

/// True for the final vocabulary projection: `lm_head`, alone or as the last
/// component of a dotted / slashed / colon-separated name.
static bool isLmHead(StringRef name) {
  if (!name.ends_with("lm_head"))
    return false;
  StringRef before = name.drop_back(strlen("lm_head"));
  return before.empty() || before.ends_with(".") || before.ends_with("/") ||
         before.ends_with(":");
}

//===----------------------------------------------------------------------===//
// The quantization kernel
//===----------------------------------------------------------------------===//

/// Where the codes and parameters go: a buffer owned by a resource blob
/// (dense_resource results) or by a vector (dense results).
struct OutBuffer {
  std::optional<AsmResourceBlob> blob;
  std::vector<char> vec;
  char *data() {
    return blob ? blob->getMutableData().data() : vec.data();
  }
  void allocate(size_t bytes, bool asBlob) {
    if (asBlob)
      blob = HeapAsmResourceBlob::allocate(std::max<size_t>(bytes, 1), 64);
    else
      vec.assign(bytes, 0);
  }
};

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

/// Ratios of the clip-threshold curve in the report.
static constexpr int kCurvePoints = 24;
/// Elements sampled (evenly strided) for the curve.
static constexpr int64_t kCurveSamples = 16384;

/// Enumerates the element indices of parameter group `p`.
struct GroupLayout {
  Granularity kind;
  int64_t numElements = 1, outer = 1, dim = 1, inner = 1, group = 1;
  GroupLayout(SchemeAttr scheme, ArrayRef<int64_t> shape)
      : kind(scheme.getGranularity()) {
    for (int64_t d : shape)
      numElements *= d;
    if (kind == Granularity::per_tensor)
      return;
    int64_t axis = scheme.getAxis();
    dim = shape[axis];
    for (int64_t d : shape.take_front(axis))
      outer *= d;
    for (int64_t d : shape.drop_front(axis + 1))
      inner *= d;
    if (kind == Granularity::per_group)
      group = scheme.getGroupSize();
  }
  int64_t numGroups() const {
    switch (kind) {
    case Granularity::per_tensor:
      return 1;
    case Granularity::per_axis:
      return dim;
    case Granularity::per_group:
      return outer * (dim / group) * inner;
    }
    return 1;
  }
  int64_t groupElements() const {
    switch (kind) {
    case Granularity::per_tensor:
      return numElements;
    case Granularity::per_axis:
      return outer * inner;
    case Granularity::per_group:
      return group;
    }
    return numElements;
  }
  template <typename Fn>
  void forEach(int64_t p, Fn &&fn) const {
    switch (kind) {
    case Granularity::per_tensor:
      for (int64_t i = 0; i < numElements; ++i)
        fn(i);
      return;
    case Granularity::per_axis:
      for (int64_t o = 0; o < outer; ++o) {
        int64_t base = (o * dim + p) * inner;
        for (int64_t in = 0; in < inner; ++in)
          fn(base + in);
      }
      return;
    case Granularity::per_group: {
      int64_t groupsPerRow = (dim / group) * inner;
      int64_t o = p / groupsPerRow, rem = p % groupsPerRow;
      int64_t cg = rem / inner, in = rem % inner;
      for (int64_t c = cg * group, e = c + group; c < e; ++c)
        fn((o * dim + c) * inner + in);
      return;
    }
    }
  }
};

/// Walks elements in memory order and tracks the parameter index of each
/// without dividing per element (64-bit divisions dominate otherwise).
struct ParamCursor {
  const GroupLayout &l;
  int64_t in = 0, c = 0, o = 0, cIn = 0, cg = 0;
  int64_t param = 0;
  ParamCursor(const GroupLayout &layout, int64_t i) : l(layout) {
    if (l.kind == Granularity::per_tensor)
      return;
    in = i % l.inner;
    c = (i / l.inner) % l.dim;
    o = i / (l.inner * l.dim);
    cIn = c % l.group;
    cg = c / l.group;
    update();
  }
  void update() {
    if (l.kind == Granularity::per_axis)
      param = c;
    else if (l.kind == Granularity::per_group)
      param = (o * (l.dim / l.group) + cg) * l.inner + in;
  }
  void next() {
    if (l.kind == Granularity::per_tensor)
      return;
    if (++in == l.inner) {
      in = 0;
      if (++cIn == l.group) {
        cIn = 0;
        ++cg;
      }
      if (++c == l.dim) {
        c = cIn = cg = 0;
        ++o;
      }
      update();
    } else if (l.kind == Granularity::per_group) {
      ++param;
    }
  }
};

/// Splits [0, n) into chunks of a fixed size (independent of the number of
/// threads, so that merged sums do not depend on threading).
static constexpr int64_t kChunk = 1 << 16;
static int64_t numChunks(int64_t n) { return std::max<int64_t>(1, (n + kChunk - 1) / kChunk); }

/// Quantizes `w` (shape `shape`) under `scheme` with the configured clip
/// method. Writes one code per byte to `codes` (i4/u4: the code's low nibble)
/// and the parameters to `scales` / `zeroPoints` (may be null for symmetric
/// schemes).
static void quantizeWeight(MLIRContext *ctx, const WeightData &w,
                           ArrayRef<int64_t> shape, SchemeAttr scheme,
                           const Config &cfg, uint8_t *codes, float *scales,
                           int32_t *zeroPoints, LayerStats &stats) {
  const auto format = static_cast<num::StorageFormat>(scheme.getFormat());
  const num::IntRange range{scheme.getQmin(), scheme.getQmax()};
  const bool symmetric = scheme.isFloat8() || scheme.getSymmetric();
  const bool saturate = scheme.getSaturate();
  const bool skipNonFinite = cfg.nonfiniteClip;
  GroupLayout layout(scheme, shape);
  const int64_t n = layout.numElements;
  const int64_t groups = layout.numGroups();
  std::vector<num::ClipResult> clips(groups);

  withReader(w, [&](auto read) {
    // 1. Parameters of every group.
    if (cfg.clip == ClipKind::AbsMax) {
      std::vector<num::RangeStats> st(groups);
      auto addTo = [&](num::RangeStats &s, float x) {
        if (!skipNonFinite || std::isfinite(x))
          s.add(x);
      };
      if (layout.kind == Granularity::per_group) {
        // Blocks (outer index, group index) are contiguous and own their
        // groups: no merging.
        int64_t blocks = layout.outer * (layout.dim / layout.group);
        int64_t blockElems = layout.group * layout.inner;
        parallelFor(ctx, 0, blocks, [&](size_t b) {
          int64_t base = static_cast<int64_t>(b) * blockElems;
          num::RangeStats *row = &st[b * layout.inner];
          for (int64_t cc = 0; cc < layout.group; ++cc, base += layout.inner)
            for (int64_t in = 0; in < layout.inner; ++in)
              addTo(row[in], read(base + in));
        });
      } else {
        int64_t chunks = numChunks(n);
        std::vector<std::vector<num::RangeStats>> local(chunks);
        parallelFor(ctx, 0, chunks, [&](size_t c) {
          std::vector<num::RangeStats> &l = local[c];
          l.assign(groups, num::RangeStats());
          int64_t begin = c * kChunk;
          int64_t end = std::min<int64_t>(n, begin + kChunk);
          ParamCursor cur(layout, begin);
          for (int64_t i = begin; i < end; ++i, cur.next())
            addTo(l[cur.param], read(i));
        });
        for (const auto &l : local)
          for (int64_t g = 0; g < groups; ++g) {
            // Same result as accumulating in order: max/min are exact.
            st[g].absmax = std::fmax(st[g].absmax, l[g].absmax);
            st[g].minV = std::fmin(st[g].minV, l[g].minV);
            st[g].maxV = std::fmax(st[g].maxV, l[g].maxV);
          }
      }
      for (int64_t g = 0; g < groups; ++g)
        clips[g] = num::absmaxClip(st[g], format, range, symmetric);
    } else {
      // Percentile and MSE need each group's values together.
      auto gather = [&](int64_t g, std::vector<float> &buf) {
        buf.clear();
        layout.forEach(g, [&](int64_t i) {
          float x = read(i);
          if (!skipNonFinite || std::isfinite(x))
            buf.push_back(x);
        });
      };
      auto solve = [&](std::vector<float> &buf) -> num::ClipResult {
        if (cfg.clip == ClipKind::Percentile)
          return num::percentileClip(buf.data(), buf.size(), cfg.percentile,
                                     format, range, symmetric);
        num::RangeStats s;
        for (float x : buf)
          s.add(x);
        return num::mseClip(buf.data(), buf.size(), s, format, range,
                            symmetric, saturate);
      };
      if (groups == 1 && cfg.clip == ClipKind::Mse) {
        // One large group: evaluate the candidate thresholds in parallel.
        std::vector<float> buf;
        gather(0, buf);
        num::RangeStats s;
        for (float x : buf)
          s.add(x);
        bool sym = symmetric;
        unsigned steps = num::kMseClipSteps;
        std::vector<num::ClipResult> cand(steps);
        std::vector<double> err(steps);
        parallelFor(ctx, 0, steps, [&](size_t j) {
          unsigned k = steps - j; // k = steps ... 1
          num::ClipResult c;
          if (k == steps) {
            c = num::absmaxClip(s, format, range, sym);
          } else {
            float ratio = static_cast<float>(k) / static_cast<float>(steps);
            if (sym) {
              float t = s.absmax * ratio;
              c = {num::symmetricParams(t, format, range), -t, t, ratio};
            } else {
              float lo = s.minV * ratio, hi = s.maxV * ratio;
              c = {num::asymmetricParams(lo, hi, range), lo, hi, ratio};
            }
          }
          cand[j] = c;
          err[j] = num::quantizationError(buf.data(), buf.size(), c.params,
                                          format, range, saturate);
        });
        // The same choice as num::mseClip: strict improvement, largest
        // threshold first.
        size_t best = 0;
        for (size_t j = 1; j < steps; ++j)
          if (err[j] < err[best])
            best = j;
        clips[0] = cand[best];
      } else {
        parallelFor(ctx, 0, groups, [&](size_t g) {
          thread_local std::vector<float> buf;
          gather(g, buf);
          clips[g] = solve(buf);
        });
      }
    }

    // Clip summary.
    double tsum = 0, rsum = 0;
    stats.thresholdMin = stats.ratioMin = std::numeric_limits<double>::infinity();
    stats.thresholdMax = stats.ratioMax = -std::numeric_limits<double>::infinity();
    for (const num::ClipResult &c : clips) {
      double t = std::max(std::fabs(c.lo), std::fabs(c.hi));
      stats.thresholdMin = std::min(stats.thresholdMin, t);
      stats.thresholdMax = std::max(stats.thresholdMax, t);
      stats.ratioMin = std::min<double>(stats.ratioMin, c.ratio);
      stats.ratioMax = std::max<double>(stats.ratioMax, c.ratio);
      tsum += t;
      rsum += c.ratio;
    }
    stats.thresholdMean = tsum / groups;
    stats.ratioMean = rsum / groups;
    for (int64_t g = 0; g < groups; ++g) {
      scales[g] = clips[g].params.scale;
      if (zeroPoints)
        zeroPoints[g] = clips[g].params.zeroPoint;
    }

    // The clip trade-off curve for the report: each group clipped at
    // ratio r of its own range, SQNR on an evenly strided sample.
    {
      std::vector<num::RangeStats> full(groups);
      for (int64_t i = 0; i < n; ++i) {
        float x = read(i);
        if (std::isfinite(x))
          full[ParamCursor(layout, i).param].add(x);
      }
      int64_t stride = std::max<int64_t>(1, n / kCurveSamples);
      std::vector<std::pair<int64_t, float>> sample;
      for (int64_t i = 0; i < n; i += stride) {
        float x = read(i);
        if (std::isfinite(x))
          sample.emplace_back(ParamCursor(layout, i).param, x);
      }
      stats.clipCurve.resize(kCurvePoints);
      parallelFor(ctx, 0, kCurvePoints, [&](size_t k) {
        double r = 0.25 + 0.75 * static_cast<double>(k) / (kCurvePoints - 1);
        std::vector<num::QuantParams> params(groups);
        for (int64_t g = 0; g < groups; ++g) {
          float rf = static_cast<float>(r);
          params[g] = symmetric
                          ? num::symmetricParams(full[g].absmax * rf, format,
                                                 range)
                          : num::asymmetricParams(full[g].minV * rf,
                                                  full[g].maxV * rf, range);
        }
        num::SqnrAccumulator acc;
        for (const auto &[g, x] : sample)
          acc.add(x, num::fakeQuantize(x, params[g], format, range, saturate));
        stats.clipCurve[k] = {r, acc.db()};
      });
    }

    // 2. Codes and errors, in fixed chunks merged in order.
    int64_t chunks = numChunks(n);
    struct Partial {
      num::SqnrAccumulator sqnr;
      double maxAbs = 0.0;
      num::ErrorHistogram hist;
    };
    std::vector<Partial> parts(chunks);
    const bool fp8 = scheme.isFloat8();
    const bool fourBit = scheme.getStorageBits() == 4;
    parallelFor(ctx, 0, chunks, [&](size_t c) {
      // Locals and restrict: the byte stores to the codes would otherwise
      // alias every accumulator and force reloads.
      Partial part;
      uint8_t *__restrict out = codes;
      const num::ClipResult *__restrict cl = clips.data();
      int64_t begin = c * kChunk;
      int64_t end = std::min<int64_t>(n, begin + kChunk);
      ParamCursor cur(layout, begin);
      for (int64_t i = begin; i < end; ++i, cur.next()) {
        float x = read(i);
        const num::QuantParams p = cl[cur.param].params;
        // nonfinite=clip: NaN quantizes like 0 (the zero point) in every
        // format; +-inf saturates (integer clamp, saturating FP8).
        float xq = (skipNonFinite && std::isnan(x)) ? 0.0f : x;
        float xhat;
        if (fp8) {
          uint8_t q = num::quantizeFp8(xq, p.scale, format, saturate);
          out[i] = q;
          xhat = num::dequantizeFp8(q, p.scale, format);
        } else {
          int32_t q =
              num::quantizeInt(xq, p.scale, p.zeroPoint, range.qmin, range.qmax);
          out[i] = static_cast<uint8_t>(fourBit ? (q & 0x0f) : (q & 0xff));
          xhat = num::dequantizeInt(q, p.scale, p.zeroPoint);
        }
        if (!std::isfinite(x))
          continue; // Only with nonfinite=clip: not part of the error.
        part.sqnr.add(x, xhat);
        part.maxAbs = std::max(
            part.maxAbs,
            std::fabs(static_cast<double>(x) - static_cast<double>(xhat)));
        part.hist.add(x, xhat, p.scale);
      }
      parts[c] = part;
    });
    for (const Partial &part : parts) {
      stats.sqnr.merge(part.sqnr);
      stats.maxAbsError = std::max(stats.maxAbsError, part.maxAbs);
      stats.histogram.merge(part.hist);
    }
  });
}

/// The first non-finite element of `w` (linear index) or -1.
static int64_t findNonFinite(MLIRContext *ctx, const WeightData &w) {
  int64_t n = w.numElements, chunks = numChunks(n);
  std::atomic<int64_t> first(std::numeric_limits<int64_t>::max());
  withReader(w, [&](auto read) {
    parallelFor(ctx, 0, chunks, [&](size_t c) {
      int64_t end = std::min<int64_t>(n, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i) {
        if (std::isfinite(read(i)))
          continue;
        int64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    });
  });
  int64_t f = first.load();
  return f == std::numeric_limits<int64_t>::max() ? -1 : f;
}

static std::string indexString(int64_t linear, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(idx, os);
  os << "]";
  return s;
}

/// `v` with two decimals (diagnostics take no llvm::format objects).
static std::string fixed2(double v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.2f", v);
  return s;
}

static std::string shapeString(ArrayRef<int64_t> shape, Type et) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : shape)
    os << d << "x";
  os << et;
  return s;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The constants that replace one weight.
struct QuantizedAttrs {
  TypedAttr codes, scales, zeroPoints;
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

/// A report entry.
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
  bool failed = false;

  void processOperand(linalg::LinalgOp op, OpOperand &operand,
                      const Trace &trace, const WeightAxes &axes,
                      unsigned index);
  FailureOr<QuantizedAttrs> quantizeToAttrs(Operation *contraction,
                                            const std::string &name,
                                            const WeightData &data,
                                            RankedTensorType type,
                                            SchemeAttr scheme, bool asResource,
                                            StringRef blobBase,
                                            LayerRecord &rec);
  void writeReport(ModuleOp module);
  void progress(unsigned layer, unsigned layers);
};

LogicalResult QuantizeWeightsPass::initialize(MLIRContext *ctx) {
  auto fail = [&](const Twine &msg) {
    return emitError(UnknownLoc::get(ctx))
           << "octet-quantize-weights: " << msg;
  };
  std::optional<StorageFormat> f = symbolizeStorageFormat(format);
  cfg.autoFormat = format == "auto";
  if (cfg.autoFormat) {
    if (!target::symbolizeRecipe(recipe))
      return fail("unknown recipe '" + recipe + "' for format=auto (expected " +
                  target::getValidRecipeNames() + ")");
    f = StorageFormat::i8; // Replaced in runOnOperation.
  }
  if (!f)
    return fail("unknown format '" + format +
                "' (expected auto, i8, u8, i4, u4, f8E4M3FN or f8E5M2)");
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
                "' (expected absmax, percentile:P or mse)");
  }
  cfg.clipName = clip;
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

FailureOr<QuantizedAttrs> QuantizeWeightsPass::quantizeToAttrs(
    Operation *contraction, const std::string &name, const WeightData &data,
    RankedTensorType type, SchemeAttr scheme, bool asResource,
    StringRef blobBase, LayerRecord &rec) {
  Builder builder(&getContext());
  MLIRContext *ctx = &getContext();
  ArrayRef<int64_t> shape = type.getShape();

  // Bad input first.
  if (int64_t bad = findNonFinite(ctx, data); bad >= 0) {
    float v = 0.0f;
    withReader(data, [&](auto read) { v = read(bad); });
    std::string what = std::isnan(v) ? "nan" : (v > 0 ? "+inf" : "-inf");
    if (!cfg.nonfiniteClip) {
      contraction->emitError()
          << "weight of '" << name << "' has a non-finite value (" << what
          << ") at index " << indexString(bad, shape)
          << " (nonfinite=clip makes this a warning)";
      return failure();
    }
    contraction->emitWarning()
        << "weight of '" << name << "' has a non-finite value (" << what
        << ") at index " << indexString(bad, shape)
        << "; NaN quantizes to the zero point, +-inf saturates";
  }

  RankedTensorType scaleType = getScaleType(scheme, shape, builder.getF32Type());
  RankedTensorType zpType;
  bool symmetricScheme = scheme.isFloat8() || scheme.getSymmetric();
  if (!symmetricScheme)
    zpType = RankedTensorType::get(scaleType.getShape(), builder.getI32Type());
  auto storageType =
      RankedTensorType::get(shape, scheme.getStorageElementType());

  int64_t n = type.getNumElements();
  int64_t numParams = scaleType.getNumElements();
  // 4-bit codes stay `dense`: MLIR's LLVM translation has no conversion
  // for i4 dense_resource constants.
  bool codesAsResource = asResource && scheme.getStorageBits() == 8;
  // Scales and zero points are small (at most 1/group-size of the codes)
  // and always `dense`, which every folder and lowering reads.
  OutBuffer codes, scales, zps;
  codes.allocate(n, codesAsResource);
  scales.allocate(numParams * sizeof(float), /*asBlob=*/false);
  if (zpType)
    zps.allocate(numParams * sizeof(int32_t), /*asBlob=*/false);

  quantizeWeight(ctx, data, shape, scheme, cfg,
                 reinterpret_cast<uint8_t *>(codes.data()),
                 reinterpret_cast<float *>(scales.data()),
                 zpType ? reinterpret_cast<int32_t *>(zps.data()) : nullptr,
                 rec.stats);

  rec.shape.assign(shape.begin(), shape.end());
  rec.numElements = n;
  rec.scheme = [&] {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << Attribute(scheme);
    return s;
  }();
  rec.granularity = scheme.getGranularityString();
  rec.symmetric = symmetricScheme;
  // The weight as stored (a folded chain is quantized from f32 values).
  rec.bytesBefore =
      static_cast<uint64_t>(n) * (type.getElementTypeBitWidth() / 8);
  rec.codeBytes = scheme.getStorageBits() == 4 ? (n + 1) / 2 : n;
  rec.paramBytes = numParams * (zpType ? 8 : 4);
  rec.bytesAfter = rec.codeBytes + rec.paramBytes;

  // Build the constants.
  auto makeAttr = [&](RankedTensorType t, OutBuffer &buf, size_t bytes,
                      StringRef suffix) -> Attribute {
    if (buf.blob) {
      return DenseResourceElementsAttr::get(t, (blobBase + suffix).str(),
                                            std::move(*buf.blob));
    }
    return DenseElementsAttr::getFromRawBuffer(
        t, ArrayRef<char>(buf.data(), bytes));
  };
  QuantizedAttrs attrs;
  attrs.codes = cast<TypedAttr>(makeAttr(storageType, codes, n, "_q"));
  attrs.scales = cast<TypedAttr>(
      makeAttr(scaleType, scales, numParams * sizeof(float), "_scale"));
  if (zpType)
    attrs.zeroPoints = cast<TypedAttr>(
        makeAttr(zpType, zps, numParams * sizeof(int32_t), "_zp"));
  return attrs;
}

void QuantizeWeightsPass::processOperand(linalg::LinalgOp op,
                                         OpOperand &operand,
                                         const Trace &trace,
                                         const WeightAxes &axes,
                                         unsigned index) {
  MLIRContext *ctx = &getContext();
  arith::ConstantOp cst = trace.constant;
  auto operandType = cast<RankedTensorType>(operand.get().getType());
  std::string name = layerName(op, cst, index);
  LayerRecord rec;
  rec.name = name;
  rec.opName = op->getName().getStringRef().str();
  rec.operandIndex = operand.getOperandNumber();
  {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << operandType.getElementType();
    rec.elementType = s;
  }
  rec.shape.assign(operandType.getShape().begin(),
                   operandType.getShape().end());
  rec.numElements = operandType.getNumElements();

  auto skipWith = [&](const std::string &reason) {
    rec.skipReason = reason;
    if (cfg.remarks)
      emitRemark(op->getLoc()) << "weight of '" << name << "' not quantized: "
                       << reason;
    records.push_back(rec);
  };

  // Skip rules.
  if (op->hasAttr("octet.skip") || cst->hasAttr("octet.skip"))
    return skipWith("marked octet.skip");
  if (!cfg.skip.empty() && llvm::Regex(cfg.skip).match(name))
    return skipWith("name matches skip='" + cfg.skip + "'");
  if (cfg.skipLmHead && isLmHead(name))
    return skipWith("lm_head (final vocabulary projection)");
  if (rec.numElements < cfg.minElements)
    return skipWith(std::to_string(rec.numElements) +
                    " elements, fewer than min-elements=" +
                    std::to_string(cfg.minElements));

  std::string why;
  FailureOr<WeightData> data = getWeightData(cst, why);
  if (::mlir::failed(data))
    return skipWith(why);

  // The scheme in the operand's dimensions.
  bool sym = cfg.symmetric;
  bool isFp8 = cfg.format == StorageFormat::f8E4M3FN ||
               cfg.format == StorageFormat::f8E5M2;
  if (isFp8)
    sym = true;
  Granularity gran = Granularity::per_tensor;
  int64_t axis = 0, group = 0;
  if (cfg.granularity == GranularityKind::PerChannel) {
    if (!axes.channel)
      return skipWith("per-channel: " + axes.channelWhy);
    gran = Granularity::per_axis;
    axis = *axes.channel;
  } else if (cfg.granularity == GranularityKind::PerGroup) {
    gran = Granularity::per_group;
    axis = *axes.reduction;
    group = cfg.groupSize;
    int64_t size = operandType.getDimSize(axis);
    if (size % group != 0) {
      op->emitError() << "group-size " << group
                      << " does not divide the reduction dimension (dimension "
                      << axis << ", size " << size << ") of the weight of '"
                      << name << "'";
      failed = true;
      return;
    }
  }

  // Follow the axis back to the constant; else fold the chain.
  std::optional<int64_t> srcAxis =
      gran == Granularity::per_tensor ? std::optional<int64_t>(0)
                                      : mapAxisToConstant(trace.chain, axis);
  bool fold = !trace.chain.empty() && !srcAxis;
  auto cstType = cast<RankedTensorType>(cst.getType());
  bool asResource = isa<DenseResourceElementsAttr>(cst.getValue());
  std::string blobBase = "octet_w";
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue()))
    blobBase = res.getRawHandle().getKey().str();

  std::vector<float> folded;
  WeightData qdata = *data;
  RankedTensorType qtype = cstType;
  int64_t qaxis = srcAxis.value_or(0);
  if (fold) {
    folded = foldChain(*data, cstType.getShape(), trace.chain);
    qdata.data = reinterpret_cast<const char *>(folded.data());
    qdata.kind = ElemKind::F32;
    qdata.splat = false;
    qdata.numElements = folded.size();
    qtype = operandType;
    qaxis = axis;
  }
  auto scheme = SchemeAttr::get(ctx, cfg.format, gran,
                                gran == Granularity::per_tensor ? 0 : qaxis,
                                group, sym, /*saturate=*/true);
  rec.layout = trace.chain.empty() ? "constant"
               : fold             ? "folded chain"
                                  : "chain re-applied";

  Value newValue;
  if (!fold) {
    auto key = std::make_pair(cst.getOperation(), Attribute(scheme));
    Value deq = dequantized.lookup(key);
    auto attrKey = std::make_pair(cst.getValue(), Attribute(scheme));
    if (!deq) {
      OpBuilder b(cst);
      b.setInsertionPointAfter(cst);
      auto cached = quantizedAttrs.find(attrKey);
      if (cached != quantizedAttrs.end()) {
        // The same weight values were quantized for another constant.
        deq = materialize(b, cst.getLoc(), qtype, cached->second, scheme);
      } else {
        FailureOr<QuantizedAttrs> attrs = quantizeToAttrs(
            op, name, qdata, qtype, scheme, asResource, blobBase, rec);
        doneBytes += rec.bytesBefore;
        if (::mlir::failed(attrs)) {
          failed = true;
          return;
        }
        quantizedAttrs[attrKey] = *attrs;
        deq = materialize(b, cst.getLoc(), qtype, *attrs, scheme);
        records.push_back(rec);
        if (cfg.remarks)
          emitRemark(op->getLoc())
              << "quantized weight of '" << name << "' ("
              << shapeString(qtype.getShape(), qtype.getElementType())
              << ") as " << rec.scheme << ": SQNR "
              << fixed2(rec.stats.sqnr.db()) << " dB, " << rec.bytesBefore
              << " -> " << rec.bytesAfter << " bytes";
      }
      dequantized[key] = deq;
    }
    // Re-apply the layout chain on the dequantized value.
    Value cur = deq;
    for (Operation *layoutOp : trace.chain) {
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
    newValue = cur;
  } else {
    OpBuilder b(op);
    FailureOr<QuantizedAttrs> attrs = quantizeToAttrs(
        op, name, qdata, qtype, scheme, asResource, blobBase, rec);
    doneBytes += rec.bytesBefore;
    if (::mlir::failed(attrs)) {
      failed = true;
      return;
    }
    newValue = materialize(b, op->getLoc(), qtype, *attrs, scheme);
    records.push_back(rec);
    if (cfg.remarks)
      emitRemark(op->getLoc()) << "quantized weight of '" << name << "' ("
                       << shapeString(qtype.getShape(), qtype.getElementType())
                       << ", layout chain folded) as " << rec.scheme
                       << ": SQNR "
                       << fixed2(rec.stats.sqnr.db()) << " dB, "
                       << rec.bytesBefore << " -> " << rec.bytesAfter
                       << " bytes";
  }
  operand.set(newValue);
  maybeDead.push_back(cst);
  llvm::append_range(maybeDead, trace.chain);
}

void QuantizeWeightsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (cfg.autoFormat) {
    // The module's chip and the recipe choose the weight format.
    TargetAttr targetAttr = target::getTargetAttr(module);
    if (!targetAttr) {
      module.emitError() << "octet-quantize-weights: format=auto needs a "
                            "#octet.target on the module; run "
                            "octet-set-target first";
      return signalPassFailure();
    }
    FailureOr<StorageFormat> f = target::resolveAutoFormat(
        targetAttr, *target::symbolizeRecipe(recipe),
        target::OperandRole::weight, [&]() { return module.emitError(); });
    if (mlir::failed(f))
      return signalPassFailure();
    cfg.format = *f;
    cfg.symmetric = symmetric;
    if ((cfg.format == StorageFormat::u8 || cfg.format == StorageFormat::u4) &&
        !cfg.symmetricGiven)
      cfg.symmetric = false;
  }
  dequantized.clear();
  quantizedAttrs.clear();
  clonedChain.clear();
  records.clear();
  maybeDead.clear();
  failed = false;
  totalBytes = doneBytes = 0;

  // Collect first, rewrite after: rewriting inserts ops.
  struct Work {
    linalg::LinalgOp op;
    unsigned operandNumber;
    Trace trace;
    WeightAxes axes;
  };
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
      emitRemark(op->getLoc()) << "contraction has no constant weight operand; left "
                          "unquantized";
  });

  for (auto [i, w] : llvm::enumerate(work)) {
    processOperand(w.op, w.op->getOpOperand(w.operandNumber), w.trace, w.axes,
                   i);
    progress(i + 1, work.size());
  }

  // Erase the float constants and layout ops nothing uses any more.
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

  writeReport(module);
  if (failed)
    signalPassFailure();
}

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

void QuantizeWeightsPass::writeReport(ModuleOp module) {
  uint64_t before = 0, after = 0;
  SmallVector<double> sqnrs;
  unsigned quantized = 0, skipped = 0;
  for (const LayerRecord &r : records) {
    if (!r.skipReason.empty()) {
      ++skipped;
      continue;
    }
    ++quantized;
    before += r.bytesBefore;
    after += r.bytesAfter;
    sqnrs.push_back(r.stats.sqnr.db());
  }
  double sqnrMin, sqnrMedian;
  std::tie(sqnrMin, sqnrMedian) = sqnrMinMedian(sqnrs);

  if (cfg.remarks && !records.empty()) {
    InFlightDiagnostic d = emitRemark(module.getLoc());
    d << "octet-quantize-weights: " << quantized << " layers quantized, "
      << skipped << " skipped; " << before << " -> " << after << " bytes";
    if (after)
      d << " (" << fixed2(double(before) / double(after))
        << "x)";
    if (quantized)
      d << "; SQNR min " << fixed2(sqnrMin) << " dB, median "
        << fixed2(sqnrMedian) << " dB";
  }
  if (cfg.report.empty())
    return;

  std::error_code ec;
  std::optional<llvm::raw_fd_ostream> file;
  llvm::raw_ostream *os = &llvm::outs();
  if (cfg.report != "-") {
    file.emplace(cfg.report, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      module.emitError() << "cannot write report '" << cfg.report
                         << "': " << ec.message();
      failed = true;
      return;
    }
    os = &*file;
  }
  // JSON has no infinities: an exact reconstruction has SQNR null.
  auto jnum = [](double v) -> llvm::json::Value {
    if (std::isfinite(v))
      return v;
    return nullptr;
  };
  llvm::json::OStream j(*os, 2);
  j.object([&] {
    j.attribute("pass", "octet-quantize-weights");
    j.attributeObject("options", [&] {
      j.attribute("format", format);
      j.attribute("granularity", granularity);
      j.attribute("group_size", static_cast<int64_t>(groupSize));
      j.attribute("symmetric", cfg.symmetric);
      j.attribute("clip", cfg.clipName);
      j.attribute("skip", skip);
      j.attribute("skip_lm_head", static_cast<bool>(skipLmHead));
      j.attribute("min_elements", static_cast<int64_t>(minElements));
      j.attribute("nonfinite", nonfinite);
    });
    j.attributeArray("layers", [&] {
      for (const LayerRecord &r : records) {
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
          if (!r.skipReason.empty()) {
            j.attribute("quantized", false);
            j.attribute("skip_reason", r.skipReason);
            j.attribute("bytes_before", r.numElements *
                                            (r.elementType == "f32" ? 4 : 2));
            return;
          }
          j.attribute("quantized", true);
          j.attribute("format", format);
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
        });
      }
    });
    j.attributeObject("summary", [&] {
      j.attribute("layers_quantized", static_cast<int64_t>(quantized));
      j.attribute("layers_skipped", static_cast<int64_t>(skipped));
      j.attribute("bytes_before", static_cast<int64_t>(before));
      j.attribute("bytes_after", static_cast<int64_t>(after));
      j.attribute("compression",
                  after ? llvm::json::Value(double(before) / double(after))
                        : llvm::json::Value(nullptr));
      j.attribute("sqnr_db_min", jnum(sqnrMin));
      j.attribute("sqnr_db_median", jnum(sqnrMedian));
    });
  });
  *os << "\n";
  os->flush();
}

} // namespace
