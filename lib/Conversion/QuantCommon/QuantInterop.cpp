//===- QuantInterop.cpp - Octet schemes <-> upstream quant types ----------===//
//
// Both directions of the mapping between octet schemes with constant
// parameters and upstream `!quant.uniform` element types.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/QuantCommon/QuantInterop.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::octet;

//===----------------------------------------------------------------------===//
// Storage formats
//===----------------------------------------------------------------------===//

/// Storage format of a quant type, or failure with a diagnostic.
static FailureOr<StorageFormat> importFormat(quant::QuantizedType qt,
                                             QuantEmitErrorFn emitError) {
  if (!isa<IntegerType>(qt.getStorageType()))
    return emitError() << "storage type " << qt.getStorageType() << " of " << qt
                       << " is not supported";
  unsigned width = qt.getStorageTypeIntegralWidth();
  if (width == 8)
    return qt.isSigned() ? StorageFormat::i8 : StorageFormat::u8;
  if (width == 4)
    return qt.isSigned() ? StorageFormat::i4 : StorageFormat::u4;
  return emitError() << "storage type of " << qt
                     << " is not supported: octet stores i8, u8, i4 and u4 "
                        "codes";
}

//===----------------------------------------------------------------------===//
// Import: !quant.uniform -> octet scheme + parameters
//===----------------------------------------------------------------------===//

namespace {
/// The parameters of a quant type in octet's layout, before validation.
struct ImportedParams {
  Granularity granularity = Granularity::per_tensor;
  int64_t axis = 0, groupSize = 0;
  SmallVector<float> scales;
  SmallVector<int32_t> zps;
  SmallVector<int64_t> paramShape;
};
} // namespace

/// Checks the kind, expressed type and storage range of `qt`; returns its
/// storage format, or failure with a diagnostic.
static FailureOr<StorageFormat> importStorage(quant::QuantizedType qt,
                                              QuantEmitErrorFn emitError) {
  if (!isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType,
           quant::UniformQuantizedSubChannelType>(qt))
    return emitError() << "only !quant.uniform types can be imported, not "
                       << qt;
  Type expressed = qt.getExpressedType();
  if (!expressed.isF32() && !expressed.isF16() && !expressed.isBF16())
    return emitError() << "expressed type " << expressed << " of " << qt
                       << " is not supported (f32, f16 or bf16)";
  FailureOr<StorageFormat> format = importFormat(qt, emitError);
  if (failed(format))
    return failure();
  auto full = getFullRange(*format);
  int64_t qmin = qt.getStorageTypeMin(), qmax = qt.getStorageTypeMax();
  if (qmin < full.first || qmax > full.second || qmin >= qmax)
    return emitError() << "storage range [" << qmin << ", " << qmax << "] of "
                       << qt << " is not a sub-range of "
                       << stringifyStorageFormat(*format);
  return format;
}

/// Per-axis parameters: one scale and zero point per index of the axis.
static LogicalResult importPerAxis(quant::UniformQuantizedPerAxisType pa,
                                   RankedTensorType type, ImportedParams &p,
                                   QuantEmitErrorFn emitError) {
  p.granularity = Granularity::per_axis;
  p.axis = pa.getQuantizedDimension();
  if (p.axis >= type.getRank())
    return emitError() << "quantized dimension " << p.axis << " of " << pa
                       << " is out of range for " << type;
  for (double s : pa.getScales())
    p.scales.push_back(static_cast<float>(s));
  for (int64_t z : pa.getZeroPoints())
    p.zps.push_back(static_cast<int32_t>(z));
  p.paramShape.push_back(p.scales.size());
  return success();
}

/// Chooses the representation of sub-channel `blocks` (block size per
/// dimension of `type`): per_tensor (one block), per_axis (blocks of 1 along
/// one dimension, whole elsewhere), else per_group along the dimension with
/// the largest proper block; parameters are replicated along other
/// dimensions whose block is larger than 1. Sets the granularity, axis,
/// group size and parameter shape of `p`.
static void chooseSubChannelLayout(RankedTensorType type,
                                   ArrayRef<int64_t> blocks,
                                   ImportedParams &p) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> partial;
  for (int64_t d = 0; d < rank; ++d)
    if (blocks[d] != type.getDimSize(d))
      partial.push_back(d);
  SmallVector<int64_t> scaleShape;
  if (partial.empty()) {
    p.granularity = Granularity::per_tensor;
  } else if (partial.size() == 1 && blocks[partial[0]] == 1) {
    p.granularity = Granularity::per_axis;
    p.axis = partial[0];
    scaleShape.push_back(type.getDimSize(p.axis));
  } else {
    p.granularity = Granularity::per_group;
    p.axis = partial[0];
    for (int64_t d : partial)
      if (blocks[d] > blocks[p.axis])
        p.axis = d;
    p.groupSize = blocks[p.axis];
    for (int64_t d = 0; d < rank; ++d)
      scaleShape.push_back(d == p.axis ? type.getDimSize(d) / p.groupSize
                                       : type.getDimSize(d));
  }
  p.paramShape = scaleShape;
}

/// Fills `p.scales` / `p.zps` (shape `p.paramShape`) from the source
/// parameters `srcScales` / `srcZps` (shape = dims / blocks).
static void expandSubChannelParams(RankedTensorType type,
                                   ArrayRef<int64_t> blocks,
                                   ArrayRef<float> srcScales,
                                   ArrayRef<int64_t> srcZps,
                                   ImportedParams &p) {
  int64_t rank = type.getRank();
  ArrayRef<int64_t> scaleShape = p.paramShape;
  SmallVector<int64_t> srcShape;
  for (int64_t d = 0; d < rank; ++d)
    srcShape.push_back(type.getDimSize(d) / blocks[d]);
  int64_t count = 1;
  for (int64_t s : scaleShape)
    count *= s;
  for (int64_t i = 0; i < count; ++i) {
    // Coordinates in the octet parameter tensor -> source coordinates.
    int64_t rem = i, src = 0, srcStride = 1;
    SmallVector<int64_t> coord(scaleShape.size());
    for (int64_t k = scaleShape.size() - 1; k >= 0; --k) {
      coord[k] = rem % scaleShape[k];
      rem /= scaleShape[k];
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t c = 0;
      if (p.granularity == Granularity::per_group)
        c = d == p.axis ? coord[d] : coord[d] / blocks[d];
      else if (p.granularity == Granularity::per_axis && d == p.axis)
        c = coord[0];
      src += c * srcStride;
      srcStride *= srcShape[d];
    }
    p.scales.push_back(srcScales[src]);
    p.zps.push_back(static_cast<int32_t>(srcZps[src]));
  }
}

/// Sub-channel parameters, mapped onto octet's per_tensor / per_axis /
/// per_group layout.
static LogicalResult importSubChannel(quant::UniformQuantizedSubChannelType sc,
                                      RankedTensorType type, ImportedParams &p,
                                      QuantEmitErrorFn emitError) {
  if (!type.hasStaticShape())
    return emitError() << "sub-channel type " << sc
                       << " needs a statically shaped tensor, got " << type;
  // Block size per dimension; unspecified dimensions are one block.
  SmallVector<int64_t> blocks(type.getShape());
  for (auto [d, b] : sc.getBlockSizeInfo())
    blocks[d] = b;
  chooseSubChannelLayout(type, blocks, p);
  // Read the source parameters (shape = dims / blocks) and expand.
  std::vector<float> srcScales;
  for (APFloat v : sc.getScales().getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    srcScales.push_back(v.convertToFloat());
  }
  // Zero points are stored in the signless storage type: read the low
  // `width` bits with the quant type's signedness, so u8 200 stays 200.
  // (Upstream prints u8 200 as -56 and its parser builds the APInt of a
  // negative literal without truncating it, so only the low bits count.)
  unsigned width = sc.getStorageTypeIntegralWidth();
  SmallVector<int64_t> srcZps;
  for (const APInt &v : sc.getZeroPoints().getValues<APInt>()) {
    uint64_t low = v.getRawData()[0] & llvm::maskTrailingOnes<uint64_t>(width);
    srcZps.push_back(sc.isSigned() ? llvm::SignExtend64(low, width)
                                   : static_cast<int64_t>(low));
  }
  expandSubChannelParams(type, blocks, srcScales, srcZps, p);
  return success();
}

/// Checks that scales are positive finite f32 and zero points lie in
/// [qmin, qmax].
static LogicalResult checkImportedParams(const ImportedParams &p,
                                         quant::QuantizedType qt,
                                         QuantEmitErrorFn emitError) {
  for (float s : p.scales)
    if (!(s > 0.0f) || !std::isfinite(s))
      return emitError() << "scale " << s << " of " << qt
                         << " is not a positive finite f32";
  int64_t qmin = qt.getStorageTypeMin(), qmax = qt.getStorageTypeMax();
  for (int32_t z : p.zps)
    if (z < qmin || z > qmax)
      return emitError() << "zero point " << z << " of " << qt
                         << " is outside its storage range";
  return success();
}

FailureOr<QuantParams> octet::importQuantType(RankedTensorType type,
                                              QuantEmitErrorFn emitError) {
  auto qt = cast<quant::QuantizedType>(type.getElementType());
  MLIRContext *ctx = qt.getContext();
  FailureOr<StorageFormat> format = importStorage(qt, emitError);
  if (failed(format))
    return failure();

  ImportedParams p;
  if (auto pt = dyn_cast<quant::UniformQuantizedType>(qt)) {
    p.scales.push_back(static_cast<float>(pt.getScale()));
    p.zps.push_back(static_cast<int32_t>(pt.getZeroPoint()));
  } else if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(qt)) {
    if (failed(importPerAxis(pa, type, p, emitError)))
      return failure();
  } else if (failed(importSubChannel(
                 cast<quant::UniformQuantizedSubChannelType>(qt), type, p,
                 emitError))) {
    return failure();
  }
  if (failed(checkImportedParams(p, qt, emitError)))
    return failure();
  bool symmetric = llvm::all_of(p.zps, [](int32_t z) { return z == 0; });

  Type f32 = Float32Type::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  QuantParams params;
  params.scheme = SchemeAttr::getChecked(
      emitError, ctx, *format, p.granularity, p.axis, p.groupSize, symmetric,
      /*saturate=*/true, static_cast<int32_t>(qt.getStorageTypeMin()),
      static_cast<int32_t>(qt.getStorageTypeMax()), ScaleFormat::f32,
      /*globalScaleBits=*/0u);
  if (!params.scheme)
    return failure();
  params.scale = DenseElementsAttr::get(
      RankedTensorType::get(p.paramShape, f32), ArrayRef<float>(p.scales));
  if (!symmetric)
    params.zeroPoint = DenseElementsAttr::get(
        RankedTensorType::get(p.paramShape, i32), ArrayRef<int32_t>(p.zps));
  return params;
}

//===----------------------------------------------------------------------===//
// Export: octet scheme + parameters -> !quant.uniform
//===----------------------------------------------------------------------===//

FailureOr<quant::QuantizedType>
octet::exportQuantType(SchemeAttr scheme, ArrayRef<int64_t> shape,
                       FloatType expressedType, DenseElementsAttr scale,
                       DenseElementsAttr zeroPoint,
                       QuantEmitErrorFn emitError) {
  // The octet verifiers guarantee f32 scales and i32 zero points shaped as
  // the granularity requires.
  MLIRContext *ctx = scheme.getContext();
  if (scheme.isNf4())
    return emitError() << "scheme " << scheme
                       << " cannot be exported: NF4 codes index a table of "
                          "16 values, which upstream !quant.uniform (an "
                          "affine map) cannot express";
  if (scheme.isFloat())
    return emitError() << "scheme " << scheme
                       << " cannot be exported: upstream !quant.uniform types "
                          "store integers only ('!quant.uniform<"
                       << scheme.getFormatName()
                       << ":f32, ...>' fails with \"illegal storage type "
                          "size\")";

  unsigned bits = scheme.getStorageBits();
  auto storageType = IntegerType::get(ctx, bits);
  unsigned flags = scheme.isUnsigned() ? 0 : quant::QuantizationFlags::Signed;
  int64_t qmin = scheme.getQmin(), qmax = scheme.getQmax();

  SmallVector<double> scales;
  for (float s : scale.getValues<float>())
    scales.push_back(static_cast<double>(s)); // f32 -> double is exact.
  SmallVector<int64_t> zps(scales.size(), 0);
  if (zeroPoint) {
    zps.clear();
    for (int32_t z : zeroPoint.getValues<int32_t>())
      zps.push_back(z);
  }
  // Upstream's own verifier message, behind a prefix that says who objects.
  auto emitUpstream = [&]() -> InFlightDiagnostic {
    return emitError() << "upstream quant rejects the exported type: ";
  };

  switch (scheme.getGranularity()) {
  case Granularity::per_tensor: {
    auto t = quant::UniformQuantizedType::getChecked(
        emitUpstream, flags, storageType, expressedType, scales[0], zps[0],
        qmin, qmax);
    if (!t)
      return failure();
    return cast<quant::QuantizedType>(t);
  }
  case Granularity::per_axis: {
    auto t = quant::UniformQuantizedPerAxisType::getChecked(
        emitUpstream, flags, storageType, expressedType, scales, zps,
        static_cast<int32_t>(scheme.getAxis()), qmin, qmax);
    if (!t)
      return failure();
    return cast<quant::QuantizedType>(t);
  }
  case Granularity::per_group:
    break;
  }

  // per_group -> sub-channel: one block of `groupSize` along the group axis
  // and of 1 along every other dimension, so the scale tensor keeps octet's
  // shape. Every dimension is listed explicitly.
  int64_t rank = shape.size();
  auto scaleType = cast<RankedTensorType>(scale.getType());
  if (llvm::is_contained(shape, 0))
    return emitError() << "per_group parameters of a tensor with a zero-sized "
                          "dimension cannot be exported: upstream sub-channel "
                          "types do not allow empty dimensions";
  SmallVector<int32_t> dims;
  SmallVector<int64_t> blocks;
  for (int64_t d = 0; d < rank; ++d) {
    dims.push_back(static_cast<int32_t>(d));
    blocks.push_back(d == scheme.getAxis() ? scheme.getGroupSize() : 1);
  }
  // Upstream stores sub-channel scales in the expressed type: each f32 scale
  // must survive the conversion exactly.
  const llvm::fltSemantics &sem = expressedType.getFloatSemantics();
  SmallVector<APFloat> expressedScales;
  for (float s : scale.getValues<float>()) {
    APFloat v(s);
    bool lost = false;
    APFloat::opStatus status =
        v.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    if (lost || status != APFloat::opOK) {
      SmallString<16> str;
      APFloat(s).toString(str);
      return emitError() << "per_group scale " << str
                         << " is not exactly representable in " << expressedType
                         << ", the type upstream sub-channel types store "
                            "scales in";
    }
    expressedScales.push_back(v);
  }
  SmallVector<APInt> storageZps;
  for (int64_t z : zps)
    storageZps.push_back(APInt(bits, static_cast<uint64_t>(z),
                               /*isSigned=*/!scheme.isUnsigned(),
                               /*implicitTrunc=*/true));
  auto scalesAttr = DenseElementsAttr::get(
      RankedTensorType::get(scaleType.getShape(), expressedType),
      expressedScales);
  auto zpsAttr = DenseElementsAttr::get(
      RankedTensorType::get(scaleType.getShape(), storageType), storageZps);
  auto t = quant::UniformQuantizedSubChannelType::getChecked(
      emitUpstream, flags, storageType, expressedType, scalesAttr, zpsAttr,
      dims, blocks, qmin, qmax);
  if (!t)
    return failure();
  return cast<quant::QuantizedType>(t);
}
