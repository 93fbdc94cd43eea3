//===- OctetOps.cpp - Octet operations ------------------------------------===//

#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Dialect/Octet/IR/OctetFolding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::octet;

#define GET_OP_CLASSES
#include "octet/Dialect/Octet/IR/OctetOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Parameter shapes
//===----------------------------------------------------------------------===//

RankedTensorType mlir::octet::getScaleType(SchemeAttr scheme,
                                           ArrayRef<int64_t> shape,
                                           Type elementType) {
  switch (scheme.getGranularity()) {
  case Granularity::per_tensor:
    return RankedTensorType::get({}, elementType);
  case Granularity::per_axis:
    return RankedTensorType::get({shape[scheme.getAxis()]}, elementType);
  case Granularity::per_group: {
    SmallVector<int64_t> dims(shape);
    int64_t &d = dims[scheme.getAxis()];
    if (!ShapedType::isDynamic(d))
      d /= scheme.getGroupSize();
    return RankedTensorType::get(dims, elementType);
  }
  }
  llvm_unreachable("unknown granularity");
}

/// Two shapes agree when every pair of static sizes is equal.
static bool shapesAgree(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

static std::string shapeString(ArrayRef<int64_t> shape, Type elementType) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << RankedTensorType::get(shape, elementType);
  return s;
}

LogicalResult mlir::octet::verifyParameters(
    function_ref<InFlightDiagnostic()> emitError, SchemeAttr scheme,
    ArrayRef<int64_t> shape, Value scale, Value zeroPoint,
    StringRef paramPrefix) {
  int64_t rank = shape.size();
  if (scheme.getGranularity() != Granularity::per_tensor) {
    if (scheme.getAxis() >= rank)
      return emitError() << paramPrefix << "axis " << scheme.getAxis()
                         << " is out of range for a rank-" << rank
                         << " tensor";
  }
  if (scheme.getGranularity() == Granularity::per_group) {
    int64_t dim = shape[scheme.getAxis()];
    if (!ShapedType::isDynamic(dim) && dim % scheme.getGroupSize() != 0)
      return emitError() << paramPrefix << "group size "
                         << scheme.getGroupSize() << " does not divide dimension "
                         << scheme.getAxis() << " of size " << dim;
  }

  auto scaleType = cast<RankedTensorType>(scale.getType());
  RankedTensorType expected =
      getScaleType(scheme, shape, scaleType.getElementType());
  if (!shapesAgree(scaleType.getShape(), expected.getShape()))
    return emitError() << paramPrefix << "scale of type " << scaleType
                       << " does not match the "
                       << scheme.getGranularityString()
                       << " granularity; expected "
                       << shapeString(expected.getShape(),
                                      scaleType.getElementType());

  // Constant scales must be usable: positive and finite.
  DenseFPElementsAttr scaleValues;
  if (matchPattern(scale, m_Constant(&scaleValues))) {
    for (APFloat v : scaleValues.getValues<APFloat>()) {
      if (v.isNaN() || v.isInfinity() || v.isNegative() || v.isZero()) {
        SmallString<16> str;
        v.toString(str);
        return emitError() << paramPrefix
                           << "scale must be positive and finite, got "
                           << str;
      }
    }
  }

  if (scheme.isFloat8()) {
    if (zeroPoint)
      return emitError() << paramPrefix
                         << "FP8 schemes take no zero point, but one is given";
    return success();
  }
  if (scheme.getSymmetric() && zeroPoint)
    return emitError() << paramPrefix
                       << "a zero point is given for a symmetric scheme; use "
                          "'asymmetric' or drop the zero point";
  if (!scheme.getSymmetric() && !zeroPoint)
    return emitError() << paramPrefix
                       << "the asymmetric scheme requires a zero point";
  if (!zeroPoint)
    return success();

  auto zpType = cast<RankedTensorType>(zeroPoint.getType());
  if (!shapesAgree(zpType.getShape(), scaleType.getShape()))
    return emitError() << paramPrefix << "zero point of type " << zpType
                       << " must have the scale's shape; expected "
                       << shapeString(scaleType.getShape(),
                                      zpType.getElementType());
  DenseIntElementsAttr zpValues;
  if (matchPattern(zeroPoint, m_Constant(&zpValues))) {
    for (const APInt &v : zpValues.getValues<APInt>()) {
      int64_t z = v.getSExtValue();
      if (z < scheme.getQmin() || z > scheme.getQmax())
        return emitError() << paramPrefix << "zero point " << z
                           << " is outside the code range ["
                           << scheme.getQmin() << ", " << scheme.getQmax()
                           << "] of '" << scheme.getFormatName() << "'";
    }
  }
  return success();
}

/// Checks that `storageType` is what `scheme` stores and that the float and
/// storage tensors have the same shape.
static LogicalResult verifyStorage(function_ref<InFlightDiagnostic()> emitError,
                                   SchemeAttr scheme, RankedTensorType floatType,
                                   RankedTensorType storageType,
                                   StringRef what) {
  Type expected = scheme.getStorageElementType();
  if (storageType.getElementType() != expected)
    return emitError() << what << " element type "
                       << storageType.getElementType()
                       << " does not match the scheme's storage format '"
                       << scheme.getFormatName() << "' (expected " << expected
                       << ")";
  if (floatType && !shapesAgree(floatType.getShape(), storageType.getShape()))
    return emitError() << "float and storage shapes differ: " << floatType
                       << " vs " << storageType;
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  auto emit = [&]() { return emitOpError(); };
  auto inType = getInput().getType();
  auto outType = getResult().getType();
  if (failed(verifyStorage(emit, getScheme(), inType, outType, "result")))
    return failure();
  return verifyParameters(emit, getScheme(), inType.getShape(), getScale(),
                          getZeroPoint());
}

OpFoldResult QuantizeOp::fold(FoldAdaptor adaptor) {
  // quantize(dequantize(q)) with identical parameters is q.
  if (auto dq = getInput().getDefiningOp<DequantizeOp>())
    if (isExactRoundTrip(dq, *this))
      return dq.getInput();

  // Constant folding with the numerics core (the same code the runtime and
  // the generated kernels implement).
  auto input = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  auto scale = dyn_cast_if_present<DenseElementsAttr>(adaptor.getScale());
  auto zp = dyn_cast_if_present<DenseElementsAttr>(adaptor.getZeroPoint());
  if (!input || !scale || (getZeroPoint() && !zp))
    return {};
  return foldQuantize(input, scale, zp, getScheme(), getResult().getType());
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  auto emit = [&]() { return emitOpError(); };
  auto inType = getInput().getType();
  auto outType = getResult().getType();
  if (failed(verifyStorage(emit, getScheme(), outType, inType, "input")))
    return failure();
  return verifyParameters(emit, getScheme(), inType.getShape(), getScale(),
                          getZeroPoint());
}

//===----------------------------------------------------------------------===//
// RequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult RequantizeOp::verify() {
  auto emit = [&]() { return emitOpError(); };
  auto inType = getInput().getType();
  auto outType = getResult().getType();
  if (failed(verifyStorage(emit, getInScheme(), RankedTensorType(), inType,
                           "input")) ||
      failed(verifyStorage(emit, getOutScheme(), RankedTensorType(), outType,
                           "result")))
    return failure();
  if (!shapesAgree(inType.getShape(), outType.getShape()))
    return emitOpError() << "input and result shapes differ: " << inType
                         << " vs " << outType;
  if (failed(verifyParameters(emit, getInScheme(), inType.getShape(),
                              getInScale(), getInZeroPoint(), "input ")))
    return failure();
  return verifyParameters(emit, getOutScheme(), outType.getShape(),
                          getOutScale(), getOutZeroPoint(), "output ");
}

OpFoldResult RequantizeOp::fold(FoldAdaptor) {
  // Identity: same scheme and the same parameters.
  if (getInScheme() == getOutScheme() &&
      getInput().getType() == getResult().getType() &&
      sameParameterValues(getInScale(), getOutScale()) &&
      sameParameterValues(getInZeroPoint(), getOutZeroPoint()))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ComputeParamsOp
//===----------------------------------------------------------------------===//

LogicalResult ComputeParamsOp::verify() {
  auto emit = [&]() { return emitOpError(); };
  SchemeAttr scheme = getScheme();
  auto inType = getInput().getType();
  bool wantZp = !scheme.isFloat8() && !scheme.getSymmetric();
  if (wantZp && !getZeroPoint())
    return emitOpError()
           << "the asymmetric scheme produces a zero point; add a second "
              "result of type "
           << getScaleType(scheme, inType.getShape(),
                           IntegerType::get(getContext(), 32));
  if (!wantZp && getZeroPoint())
    return emitOpError() << "a symmetric scheme produces no zero point; drop "
                            "the second result";
  // Shapes, axis and group size are checked like the operands of quantize.
  return verifyParameters(emit, scheme, inType.getShape(), getScale(),
                          getZeroPoint());
}

LogicalResult ComputeParamsOp::fold(FoldAdaptor adaptor,
                                    SmallVectorImpl<OpFoldResult> &results) {
  auto input = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (!input || !getScale().getType().hasStaticShape())
    return failure();
  auto [scale, zp] = foldComputeParams(input, getScheme(),
                                       getScale().getType(),
                                       getZeroPoint()
                                           ? getZeroPoint().getType()
                                           : RankedTensorType());
  if (!scale)
    return failure();
  results.push_back(scale);
  if (zp)
    results.push_back(zp);
  return success();
}
