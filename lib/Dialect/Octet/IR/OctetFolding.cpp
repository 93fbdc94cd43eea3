//===- OctetFolding.cpp - Compile-time evaluation of octet ops ------------===//

#include "octet/Dialect/Octet/IR/OctetFolding.h"

#include "mlir/IR/Matchers.h"
#include "octet/Dialect/Octet/IR/OctetNumerics.h"
#include "octet/Runtime/Numerics.h"

using namespace mlir;
using namespace mlir::octet;
namespace num = ::octet::numerics;

ParamIndexer::ParamIndexer(SchemeAttr scheme, ArrayRef<int64_t> shape)
    : kind(scheme.getGranularity()) {
  if (kind == Granularity::per_tensor)
    return;
  int64_t axis = scheme.getAxis();
  dim = shape[axis];
  for (int64_t d : shape.drop_front(axis + 1))
    inner *= d;
  if (kind == Granularity::per_group)
    group = scheme.getGroupSize();
}

bool mlir::octet::sameParameterValues(Value a, Value b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  Attribute ca, cb;
  if (!matchPattern(a, m_Constant(&ca)) || !matchPattern(b, m_Constant(&cb)))
    return false;
  return ca == cb;
}

int64_t mlir::octet::maxCodeMagnitude(SchemeAttr scheme) {
  if (!scheme.getSymmetric())
    return static_cast<int64_t>(scheme.getQmax()) - scheme.getQmin();
  return std::max<int64_t>(std::abs(static_cast<int64_t>(scheme.getQmin())),
                           std::abs(static_cast<int64_t>(scheme.getQmax())));
}

bool mlir::octet::isIdentityRoundTrip(SchemeAttr scheme, Value scale,
                                      Type floatType) {
  // E5M2: quantize maps inf codes to max finite (saturating) and NaN
  // payloads to the canonical NaN, so some codes never come back.
  // (FP4 is left unfolded: nothing produces such round trips.)
  if (scheme.getFormat() == StorageFormat::f8E5M2 || scheme.isFloat4() ||
      scheme.isNf4())
    return false;
  // Codes outside a narrowed range are clamped by quantize.
  if (scheme.hasNarrowRange())
    return false;
  bool fp8 = scheme.isFloat8();
  // Smallest and largest non-zero |code - zp| (E4M3FN: decoded magnitudes).
  double minMag = fp8 ? 0x1p-9 : 1.0;
  double maxMag = fp8 ? 448.0 : static_cast<double>(maxCodeMagnitude(scheme));
  if (!scalesKeepCodesExact(scale, minMag, maxMag, floatType,
                            /*allowIntegerBits=*/!fp8 ? scheme.getStorageBits()
                                                      : 4))
    return false;
  if (matchPattern(scale, m_Constant()))
    return true;
  // Scales computed by octet.compute_params for the same integer scheme are
  // guarded to [FLT_MIN, FLT_MAX / target], which keeps every f32 product
  // finite (or saturating to the very code it came from).
  auto params = scale.getDefiningOp<ComputeParamsOp>();
  if (!params || fp8 || !floatType.isF32())
    return false;
  SchemeAttr ps = params.getScheme();
  return ps.getFormat() == scheme.getFormat() &&
         ps.getQmin() == scheme.getQmin() && ps.getQmax() == scheme.getQmax() &&
         ps.getSymmetric() == scheme.getSymmetric();
}

bool mlir::octet::scalesKeepCodesExact(Value scale, double minMag,
                                       double maxMag, Type floatType,
                                       unsigned codeBits) {
  // The intermediate must hold every scaled code as a normal number with
  // enough precision to round back: f32 always (24 bits); f16 (11 bits)
  // for codes up to 8 bits; bf16 (8 bits) only for up to 4-bit codes.
  double minNormal, maxFinite;
  if (floatType.isF32()) {
    minNormal = 0x1p-126;
    maxFinite = 3.4028234663852886e38;
  } else if (floatType.isF16()) {
    minNormal = 0x1p-14;
    maxFinite = 65504.0;
  } else if (floatType.isBF16() && codeBits <= 4) {
    minNormal = 0x1p-126;
    maxFinite = 3.3895313892515355e38;
  } else {
    return false;
  }
  DenseElementsAttr scales;
  if (!matchPattern(scale, m_Constant(&scales)))
    return true; // Checked by the caller's own rule for run-time scales.
  for (float s : getFloatValues(scales))
    if (!(s * minMag >= minNormal) || !(s * maxMag <= maxFinite))
      return false;
  return true;
}

bool mlir::octet::isExactRoundTrip(DequantizeOp dq, QuantizeOp q) {
  if (dq.getScheme() != q.getScheme() ||
      dq.getInput().getType() != q.getResult().getType() ||
      !sameParameterValues(dq.getScale(), q.getScale()) ||
      !sameParameterValues(dq.getZeroPoint(), q.getZeroPoint()))
    return false;
  return isIdentityRoundTrip(dq.getScheme(), dq.getScale(),
                             dq.getResult().getType().getElementType());
}

std::vector<float> mlir::octet::getFloatValues(DenseElementsAttr attr) {
  std::vector<float> out;
  out.reserve(attr.getNumElements());
  Type et = attr.getElementType();
  if (et.isF32()) {
    for (float v : attr.getValues<float>())
      out.push_back(v);
    return out;
  }
  for (APFloat v : attr.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(v.convertToFloat());
  }
  return out;
}

DenseElementsAttr mlir::octet::getStorageAttr(RankedTensorType type,
                                              ArrayRef<int32_t> codes) {
  Type et = type.getElementType();
  if (auto intType = dyn_cast<IntegerType>(et)) {
    SmallVector<APInt> values;
    values.reserve(codes.size());
    for (int32_t c : codes)
      values.push_back(APInt(intType.getWidth(), static_cast<uint64_t>(c),
                             /*isSigned=*/false, /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, values);
  }
  auto floatType = cast<FloatType>(et);
  SmallVector<APFloat> values;
  values.reserve(codes.size());
  for (int32_t c : codes)
    values.push_back(APFloat(
        floatType.getFloatSemantics(),
        APInt(floatType.getWidth(),
              static_cast<uint64_t>(c) & ((1u << floatType.getWidth()) - 1))));
  return DenseElementsAttr::get(type, values);
}

DenseElementsAttr mlir::octet::foldQuantize(DenseElementsAttr input,
                                            DenseElementsAttr scale,
                                            DenseElementsAttr zeroPoint,
                                            SchemeAttr scheme,
                                            RankedTensorType resultType) {
  if (!resultType.hasStaticShape() || !isa<FloatType>(input.getElementType()))
    return {};
  std::vector<float> x = getFloatValues(input);
  std::vector<float> s = getFloatValues(scale);
  SmallVector<int32_t> zp;
  if (zeroPoint)
    for (const APInt &v : zeroPoint.getValues<APInt>())
      zp.push_back(static_cast<int32_t>(v.getSExtValue()));
  for (float v : s)
    if (!(v > 0.0f) || !std::isfinite(v))
      return {}; // The verifier reports invalid scales.

  auto format = toNumerics(scheme.getFormat());
  ParamIndexer index(scheme, resultType.getShape());
  SmallVector<int32_t> codes(x.size());
  for (size_t i = 0, e = x.size(); i < e; ++i) {
    int64_t p = index(i);
    if (scheme.isFloat())
      codes[i] = num::quantizeFp8(x[i], s[p], format, scheme.getSaturate());
    else if (scheme.isNf4())
      codes[i] = num::encodeNf4(x[i] / s[p]);
    else
      codes[i] = num::quantizeInt(x[i], s[p], zp.empty() ? 0 : zp[p],
                                  scheme.getQmin(), scheme.getQmax());
  }
  return getStorageAttr(resultType, codes);
}

std::pair<DenseElementsAttr, DenseElementsAttr>
mlir::octet::foldComputeParams(DenseElementsAttr input, SchemeAttr scheme,
                               RankedTensorType scaleType,
                               RankedTensorType zeroPointType) {
  auto inType = dyn_cast<RankedTensorType>(input.getType());
  if (!inType || !inType.hasStaticShape() ||
      !isa<FloatType>(input.getElementType()))
    return {};
  std::vector<float> x = getFloatValues(input);
  ParamIndexer index(scheme, inType.getShape());
  std::vector<num::RangeStats> stats(scaleType.getNumElements());
  for (size_t i = 0, e = x.size(); i < e; ++i)
    stats[index(i)].add(x[i]);
  auto format = toNumerics(scheme.getFormat());
  num::IntRange range{scheme.getQmin(), scheme.getQmax()};
  bool symmetric = scheme.isFloat() || scheme.getSymmetric();
  SmallVector<float> scales;
  SmallVector<int32_t> zps;
  for (const num::RangeStats &st : stats) {
    if (scheme.hasE8M0Scales()) {
      // +-inf counts as the largest finite float, as in every lowering.
      scales.push_back(
          num::e8m0Scale(std::fmin(st.absmax, num::kFloatMax), format));
      zps.push_back(0);
      continue;
    }
    if (scheme.hasE4M3Scales()) {
      scales.push_back(num::e4m3BlockScale(
          std::fmin(st.absmax, num::kFloatMax), scheme.getGlobalScale(),
          num::symmetricTarget(format, range)));
      zps.push_back(0);
      continue;
    }
    num::QuantParams p = num::paramsFromStats(st, format, range, symmetric);
    scales.push_back(p.scale);
    zps.push_back(p.zeroPoint);
  }
  DenseElementsAttr scaleAttr =
      DenseElementsAttr::get(scaleType, ArrayRef<float>(scales));
  DenseElementsAttr zpAttr;
  if (zeroPointType)
    zpAttr = DenseElementsAttr::get(zeroPointType, ArrayRef<int32_t>(zps));
  return {scaleAttr, zpAttr};
}
