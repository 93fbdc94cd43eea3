//===- Octet.cpp - C API for the octet dialect ----------------------------===//

#include "octet-c/Dialect/Octet.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "octet/Dialect/Octet/IR/Octet.h"

using namespace mlir;
using namespace mlir::octet;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Octet, octet, OctetDialect)

bool octetAttributeIsAScheme(MlirAttribute attr) {
  return isa<SchemeAttr>(unwrap(attr));
}

MlirTypeID octetSchemeAttrGetTypeID(void) {
  return wrap(SchemeAttr::getTypeID());
}

MlirAttribute octetSchemeAttrGetWithRange(MlirContext ctx,
                                          OctetStorageFormat format,
                                          OctetGranularity granularity,
                                          int64_t axis, int64_t groupSize,
                                          bool symmetric, bool saturate,
                                          int32_t qmin, int32_t qmax) {
  MLIRContext *context = unwrap(ctx);
  auto emit = [&]() { return emitError(UnknownLoc::get(context)); };
  std::optional<StorageFormat> fmt =
      symbolizeStorageFormat(static_cast<uint32_t>(format));
  if (!fmt) {
    emit() << "invalid octet storage format " << static_cast<int>(format);
    return {nullptr};
  }
  std::optional<Granularity> gran =
      symbolizeGranularity(static_cast<uint32_t>(granularity));
  if (!gran) {
    emit() << "invalid octet granularity " << static_cast<int>(granularity);
    return {nullptr};
  }
  return wrap(SchemeAttr::getChecked(emit, context, *fmt, *gran, axis,
                                     groupSize, symmetric, saturate, qmin,
                                     qmax, ScaleFormat::f32,
                                     /*globalScaleBits=*/0u));
}

MlirAttribute octetSchemeAttrGet(MlirContext ctx, OctetStorageFormat format,
                                 OctetGranularity granularity, int64_t axis,
                                 int64_t groupSize, bool symmetric,
                                 bool saturate) {
  std::pair<int32_t, int32_t> range = {0, 0};
  if (std::optional<StorageFormat> fmt =
          symbolizeStorageFormat(static_cast<uint32_t>(format)))
    range = getFullRange(*fmt);
  return octetSchemeAttrGetWithRange(ctx, format, granularity, axis, groupSize,
                                     symmetric, saturate, range.first,
                                     range.second);
}

static SchemeAttr unwrapScheme(MlirAttribute attr) {
  return cast<SchemeAttr>(unwrap(attr));
}

OctetStorageFormat octetSchemeAttrGetFormat(MlirAttribute scheme) {
  return static_cast<OctetStorageFormat>(unwrapScheme(scheme).getFormat());
}

MlirStringRef octetSchemeAttrGetFormatName(MlirAttribute scheme) {
  // Points into the enum's static string table.
  return wrap(stringifyStorageFormat(unwrapScheme(scheme).getFormat()));
}

OctetGranularity octetSchemeAttrGetGranularity(MlirAttribute scheme) {
  return static_cast<OctetGranularity>(unwrapScheme(scheme).getGranularity());
}

int64_t octetSchemeAttrGetAxis(MlirAttribute scheme) {
  return unwrapScheme(scheme).getAxis();
}

int64_t octetSchemeAttrGetGroupSize(MlirAttribute scheme) {
  return unwrapScheme(scheme).getGroupSize();
}

bool octetSchemeAttrIsSymmetric(MlirAttribute scheme) {
  return unwrapScheme(scheme).getSymmetric();
}

bool octetSchemeAttrIsSaturating(MlirAttribute scheme) {
  return unwrapScheme(scheme).getSaturate();
}

int32_t octetSchemeAttrGetQmin(MlirAttribute scheme) {
  return unwrapScheme(scheme).getQmin();
}

int32_t octetSchemeAttrGetQmax(MlirAttribute scheme) {
  return unwrapScheme(scheme).getQmax();
}

MlirType octetSchemeAttrGetStorageElementType(MlirAttribute scheme) {
  return wrap(unwrapScheme(scheme).getStorageElementType());
}
