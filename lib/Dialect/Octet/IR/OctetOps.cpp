//===- OctetOps.cpp - Octet operations ------------------------------------===//

#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Dialect/Octet/IR/OctetFolding.h"
#include "octet/Runtime/Numerics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

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
      if (scheme.hasE4M3Scales() &&
          !::octet::numerics::isE4M3Scale(v.convertToFloat(),
                                          scheme.getGlobalScale())) {
        SmallString<16> str;
        v.toString(str);
        return emitError() << paramPrefix
                           << "e4m3 scales are E4M3 values (at most 448) "
                              "times the global scale "
                           << scheme.getGlobalScale() << ", got " << str;
      }
      if (scheme.hasE8M0Scales()) {
        int e = v.getExactLog2Abs();
        if (e == std::numeric_limits<int>::min() || e < -127 || e > 127) {
          SmallString<16> str;
          v.toString(str);
          return emitError() << paramPrefix
                             << "e8m0 scales are powers of two in 2^-127 .. "
                                "2^127, got "
                             << str;
        }
      }
    }
  }

  if (scheme.isFloat()) {
    if (zeroPoint)
      return emitError() << paramPrefix
                         << (scheme.isFloat8() ? "FP8" : "FP4")
                         << " schemes take no zero point, but one is given";
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
      sameParameterValues(getInZeroPoint(), getOutZeroPoint()) &&
      isIdentityRoundTrip(getInScheme(), getInScale(),
                          Float32Type::get(getContext())))
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
  bool wantZp = !scheme.isFloat() && !scheme.getSymmetric();
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

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Whether two dimension sizes may be equal (either one is dynamic).
static bool dimsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Ranks and shapes: lhs [B x] M x K, rhs [B x] K x N, result [B x] M x N.
/// On success `expected` is the product shape.
static LogicalResult verifyMatmulShapes(MatmulOp op,
                                        SmallVectorImpl<int64_t> &expected) {
  auto lhsType = op.getLhs().getType();
  auto rhsType = op.getRhs().getType();
  auto resType = op.getResult().getType();
  int64_t rank = lhsType.getRank();
  if (rank != 2 && rank != 3)
    return op.emitOpError()
           << "lhs must be M x K or B x M x K, got " << lhsType;
  if (rhsType.getRank() != 2 && rhsType.getRank() != rank)
    return op.emitOpError()
           << "rhs must be K x N" << (rank == 3 ? " or B x K x N" : "")
           << ", got " << rhsType;
  int64_t k = lhsType.getDimSize(rank - 1);
  if (!dimsAgree(k, rhsType.getDimSize(rhsType.getRank() - 2)))
    return op.emitOpError() << "reduction dimensions differ: lhs " << lhsType
                            << " vs rhs " << rhsType;
  if (rhsType.getRank() == 3 &&
      !dimsAgree(lhsType.getDimSize(0), rhsType.getDimSize(0)))
    return op.emitOpError() << "batch dimensions differ: lhs " << lhsType
                            << " vs rhs " << rhsType;
  expected.assign(lhsType.getShape().drop_back().begin(),
                  lhsType.getShape().drop_back().end());
  expected.push_back(rhsType.getDimSize(rhsType.getRank() - 1));
  if (resType.getRank() != rank ||
      !llvm::all_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
        return dimsAgree(resType.getDimSize(d), expected[d]);
      }))
    return op.emitOpError()
           << "result type " << resType << " does not match the product shape "
           << RankedTensorType::get(expected, resType.getElementType());
  return success();
}

/// lhs: float (weight-only) or storage with parameters that do not vary
/// along K.
static LogicalResult verifyMatmulLhs(MatmulOp op) {
  auto emit = [&]() { return op.emitOpError(); };
  auto lhsType = op.getLhs().getType();
  int64_t rank = lhsType.getRank();
  int64_t k = lhsType.getDimSize(rank - 1);
  std::optional<SchemeAttr> lhsScheme = op.getLhsScheme();
  if (!lhsScheme) {
    if (!isa<Float32Type, Float16Type, BFloat16Type>(lhsType.getElementType()))
      return op.emitOpError()
             << "lhs of element type " << lhsType.getElementType()
             << " needs lhs_scale and lhs_scheme (a float "
                "lhs is f32, f16 or bf16)";
    if (op.getLhsScale() || op.getLhsZeroPoint())
      return op.emitOpError()
             << "lhs parameters are given without an lhs_scheme";
    return success();
  }
  if (!op.getLhsScale())
    return op.emitOpError() << "a quantized lhs needs lhs_scale";
  if (failed(verifyStorage(emit, *lhsScheme, RankedTensorType(), lhsType,
                           "lhs")) ||
      failed(verifyParameters(emit, *lhsScheme, lhsType.getShape(),
                              op.getLhsScale(), op.getLhsZeroPoint(), "lhs ")))
    return failure();
  Granularity g = lhsScheme->getGranularity();
  bool perToken = g == Granularity::per_group &&
                  lhsScheme->getAxis() == rank - 1 &&
                  lhsScheme->getGroupSize() == k;
  if (!(g == Granularity::per_tensor || perToken || op.hasGroupedLhs() ||
        (g == Granularity::per_axis && lhsScheme->getAxis() == rank - 2)))
    return op.emitOpError()
           << "lhs scale " << lhsScheme->getGranularityString()
           << " cannot be factored out of the sum over K; use per_tensor, "
              "per_axis("
           << rank - 2 << ") (one scale per row), per_group(" << rank - 1
           << ", K) (one scale per token, batches included) or per_group("
           << rank - 1 << ", G) with the rhs scale per_group("
           << op.getRhs().getType().getRank() - 2
           << ", G) (block-wise scales on both operands)";
  return success();
}

bool MatmulOp::hasGroupedLhs() {
  std::optional<SchemeAttr> lhs = getLhsScheme();
  SchemeAttr rhs = getRhsScheme();
  return lhs && lhs->getGranularity() == Granularity::per_group &&
         lhs->getAxis() == getLhs().getType().getRank() - 1 &&
         rhs.getGranularity() == Granularity::per_group &&
         rhs.getAxis() == getRhs().getType().getRank() - 2 &&
         lhs->getGroupSize() == rhs.getGroupSize();
}

/// rhs: storage with parameters per output channel or in groups along K,
/// of the same family (integer or FP8) as a quantized lhs, and small enough
/// codes for exact i32 accumulation.
static LogicalResult verifyMatmulRhs(MatmulOp op) {
  auto emit = [&]() { return op.emitOpError(); };
  auto lhsType = op.getLhs().getType();
  auto rhsType = op.getRhs().getType();
  int64_t k = lhsType.getDimSize(lhsType.getRank() - 1);
  std::optional<SchemeAttr> lhsScheme = op.getLhsScheme();
  SchemeAttr rhsScheme = op.getRhsScheme();
  int64_t rrank = rhsType.getRank();
  if (failed(
          verifyStorage(emit, rhsScheme, RankedTensorType(), rhsType, "rhs")) ||
      failed(verifyParameters(emit, rhsScheme, rhsType.getShape(),
                              op.getRhsScale(), op.getRhsZeroPoint(), "rhs ")))
    return failure();
  Granularity rg = rhsScheme.getGranularity();
  if (!(rg == Granularity::per_tensor ||
        (rg == Granularity::per_axis && rhsScheme.getAxis() == rrank - 1) ||
        (rg == Granularity::per_group && rhsScheme.getAxis() == rrank - 2)))
    return op.emitOpError()
           << "rhs scale " << rhsScheme.getGranularityString()
           << " is not supported; use per_tensor, per_axis(" << rrank - 1
           << ") (per output channel) or per_group(" << rrank - 2
           << ", size) (groups along K)";
  if (lhsScheme && (lhsScheme->isNf4() || rhsScheme.isNf4()))
    return op.emitOpError()
           << "NF4 operands are weight-only: the rhs may be NF4 when the lhs "
              "is float, but lhs '"
           << lhsScheme->getFormatName() << "' is quantized";
  // FP8 and FP4 codes decode to floats and mix (Blackwell's kind::f8f6f4).
  if (lhsScheme && lhsScheme->isFloat() != rhsScheme.isFloat())
    return op.emitOpError()
           << "lhs '" << lhsScheme->getFormatName() << "' and rhs '"
           << rhsScheme.getFormatName()
           << "' must both be integer or both float codes (FP8 / FP4)";

  // Exact i32 accumulation.
  if (lhsScheme && !rhsScheme.isFloat() && !ShapedType::isDynamic(k)) {
    int64_t bound = maxCodeMagnitude(*lhsScheme) * maxCodeMagnitude(rhsScheme);
    if (bound * k > std::numeric_limits<int32_t>::max())
      return op.emitOpError() << "K = " << k
                              << " can overflow the i32 accumulator (|a| * "
                                 "|b| up to "
                              << bound << " per term)";
  }
  return success();
}

/// bias: one f32 per output column (`n` of them).
static LogicalResult verifyMatmulBias(MatmulOp op, int64_t n) {
  Value bias = op.getBias();
  if (!bias)
    return success();
  auto bt = cast<RankedTensorType>(bias.getType());
  if (bt.getRank() != 1 || !dimsAgree(bt.getDimSize(0), n))
    return op.emitOpError()
           << "bias of type " << bt << " must be tensor<"
           << (ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n))
           << "xf32> (one value per output column)";
  return success();
}

/// Result: float, or storage with parameters per tensor or per column.
static LogicalResult verifyMatmulOutput(MatmulOp op) {
  auto emit = [&]() { return op.emitOpError(); };
  auto resType = op.getResult().getType();
  int64_t rank = op.getLhs().getType().getRank();
  std::optional<SchemeAttr> outScheme = op.getOutScheme();
  if (!outScheme) {
    if (op.getOutScale() || op.getOutZeroPoint())
      return op.emitOpError()
             << "output parameters are given without an out_scheme";
    if (!isa<Float32Type, Float16Type, BFloat16Type>(resType.getElementType()))
      return op.emitOpError()
             << "result element type " << resType.getElementType()
             << " needs out_scale and out_scheme (a float "
                "result is f32, f16 or bf16)";
    return success();
  }
  if (!op.getOutScale())
    return op.emitOpError() << "a quantized result needs out_scale";
  if (failed(verifyStorage(emit, *outScheme, RankedTensorType(), resType,
                           "result")) ||
      failed(verifyParameters(emit, *outScheme, resType.getShape(),
                              op.getOutScale(), op.getOutZeroPoint(),
                              "output ")))
    return failure();
  Granularity og = outScheme->getGranularity();
  if (!(og == Granularity::per_tensor ||
        (og == Granularity::per_axis && outScheme->getAxis() == rank - 1)))
    return op.emitOpError()
           << "output scale " << outScheme->getGranularityString()
           << " is not supported; use per_tensor or per_axis(" << rank - 1
           << ")";
  return success();
}

LogicalResult MatmulOp::verify() {
  SmallVector<int64_t> expected;
  if (failed(verifyMatmulShapes(*this, expected)) ||
      failed(verifyMatmulLhs(*this)) || failed(verifyMatmulRhs(*this)) ||
      failed(verifyMatmulBias(*this, expected.back())))
    return failure();
  return verifyMatmulOutput(*this);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType(), k = getKeys().getType(),
       v = getValues().getType(), pos = getPositions().getType(),
       res = getResult().getType();
  struct Rank {
    const char *name;
    RankedTensorType type;
    int64_t rank;
    const char *layout;
  };
  for (const Rank &r :
       {Rank{"query", q, 4, "S x KV x G x Dh"},
        Rank{"keys", k, 3, "KV x Dh x N (keys transposed)"},
        Rank{"values", v, 3, "KV x N x Dh"}, Rank{"positions", pos, 1, "S"},
        Rank{"result", res, 4, "S x KV x G x Dh"}})
    if (r.type.getRank() != r.rank)
      return emitOpError() << r.name << " must have rank " << r.rank << " ("
                           << r.layout << "), got " << r.type;
  // Each named extent: where it is read first, then every other place.
  struct Dim {
    const char *extent;
    const char *name;
    RankedTensorType type;
    unsigned dim;
  };
  auto check = [&](std::initializer_list<Dim> dims) -> LogicalResult {
    const Dim &first = *dims.begin();
    for (const Dim &d : dims) {
      int64_t a = first.type.getDimSize(first.dim);
      int64_t b = d.type.getDimSize(d.dim);
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return emitOpError()
               << d.extent << " differs: " << first.name << " dimension "
               << first.dim << " is " << a << " but " << d.name << " dimension "
               << d.dim << " is " << b;
    }
    return success();
  };
  if (failed(check({{"S", "query", q, 0},
                    {"S", "positions", pos, 0},
                    {"S", "result", res, 0}})) ||
      failed(check({{"KV", "query", q, 1},
                    {"KV", "keys", k, 0},
                    {"KV", "values", v, 0},
                    {"KV", "result", res, 1}})) ||
      failed(check({{"G", "query", q, 2}, {"G", "result", res, 2}})) ||
      failed(check({{"Dh", "query", q, 3},
                    {"Dh", "keys", k, 1},
                    {"Dh", "values", v, 2},
                    {"Dh", "result", res, 3}})) ||
      failed(check({{"N", "keys", k, 2}, {"N", "values", v, 1}})))
    return failure();
  float scale = getScale().convertToFloat();
  if (!std::isfinite(scale))
    return emitOpError() << "scale must be finite, got " << scale;
  return success();
}
