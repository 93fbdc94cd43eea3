//===- WeightReader.cpp - Reading weight constants in place ---------------===//
//
// Part of octet-quantize-weights: views the elements of a float
// `arith.constant` (`dense` or `dense_resource`, f32 / f16 / bf16) without
// copying them, and scans them for non-finite values before quantization.
//
//===----------------------------------------------------------------------===//

#include "QuantizeWeightsInternal.h"

#include "octet/Runtime/NumericsRow.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Threading.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <limits>

namespace mlir::octet::weight_quant {

FailureOr<WeightData> getWeightData(arith::ConstantOp cst, std::string &why) {
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

/// The first non-finite element of `w` (linear index) or -1. Each chunk is
/// checked in blocks by a branch-free (vectorized) test; only a block that
/// holds one is searched element by element.
static int64_t findNonFinite(MLIRContext *ctx, const WeightData &w) {
  constexpr int64_t kBlock = 4096;
  int64_t n = w.numElements, chunks = numChunks(n);
  std::atomic<int64_t> first(std::numeric_limits<int64_t>::max());
  const F32Runs src(w);
  parallelFor(ctx, 0, chunks, [&](size_t c) {
    thread_local std::vector<float> buf;
    buf.resize(kBlock);
    int64_t end = std::min<int64_t>(n, (c + 1) * kChunk);
    for (int64_t b = c * kChunk; b < end; b += kBlock) {
      int64_t len = std::min(kBlock, end - b);
      const float *x = src.get(b, len, buf.data());
      if (!num::anyNonFiniteRow(x, len))
        continue;
      int64_t i = b;
      while (std::isfinite(x[i - b]))
        ++i;
      int64_t cur = first.load();
      while (i < cur && !first.compare_exchange_weak(cur, i)) {
      }
      return;
    }
  });
  int64_t f = first.load();
  return f == std::numeric_limits<int64_t>::max() ? -1 : f;
}

/// A linear index as `[i, j, ...]` in `shape`.
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

LogicalResult checkFinite(MLIRContext *ctx, Operation *contraction,
                          const std::string &name, const WeightData &data,
                          ArrayRef<int64_t> shape, bool clip) {
  int64_t bad = findNonFinite(ctx, data);
  if (bad < 0)
    return success();
  float v = 0.0f;
  withReader(data, [&](auto read) { v = read(bad); });
  std::string what = std::isnan(v) ? "nan" : (v > 0 ? "+inf" : "-inf");
  if (!clip) {
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
  return success();
}

} // namespace mlir::octet::weight_quant
