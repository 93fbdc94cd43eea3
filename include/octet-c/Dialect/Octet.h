/*===-- octet-c/Dialect/Octet.h - C API for the octet dialect -----*- C -*-===*\
|*                                                                            *|
|* Registration of the octet dialect and the #octet.scheme attribute, in the  *|
|* style of the mlir-c/Dialect headers. Functions are prefixed `octet`; the  *|
|* MlirXxx handles are MLIR's own (mlir-c/IR.h).                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef OCTET_C_DIALECT_OCTET_H
#define OCTET_C_DIALECT_OCTET_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Dialect handle: mlirGetDialectHandle__octet__().
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Octet, octet);

//===----------------------------------------------------------------------===//
// #octet.scheme
//===----------------------------------------------------------------------===//

/// Storage format of quantized codes (the values of the dialect's
/// StorageFormat enum).
typedef enum OctetStorageFormat {
  OctetStorageFormatI8 = 0,
  OctetStorageFormatU8 = 1,
  OctetStorageFormatI4 = 2,
  OctetStorageFormatU4 = 3,
  OctetStorageFormatF8E4M3FN = 4,
  OctetStorageFormatF8E5M2 = 5,
  OctetStorageFormatF4E2M1FN = 6, ///< OCP FP4 (E2M1), always saturating.
  OctetStorageFormatNF4 = 7,      ///< QLoRA NF4 (table indices in i4).
  /// Not a format: makes every int value a valid OctetStorageFormat in C++,
  /// so that the functions below can reject an out-of-range value from C
  /// (loading one of an enum whose values span 0..7 is undefined behaviour).
  OctetStorageFormatMaxEnum_ = 0x7FFFFFFF,
} OctetStorageFormat;

/// Granularity of the scale/zero-point parameters (the values of the
/// dialect's Granularity enum).
typedef enum OctetGranularity {
  OctetGranularityPerTensor = 0,
  OctetGranularityPerAxis = 1,
  OctetGranularityPerGroup = 2,
  /// Not a granularity (see OctetStorageFormatMaxEnum_).
  OctetGranularityMaxEnum_ = 0x7FFFFFFF,
} OctetGranularity;

/// Returns true if `attr` is a #octet.scheme attribute.
MLIR_CAPI_EXPORTED bool octetAttributeIsAScheme(MlirAttribute attr);

/// Returns the TypeID of #octet.scheme attributes.
MLIR_CAPI_EXPORTED MlirTypeID octetSchemeAttrGetTypeID(void);

/// Creates a scheme with the format's full code range. `axis` is used by
/// per_axis and per_group, `groupSize` by per_group; `saturate` = false is
/// the FP8 `non_saturating` mode. Invalid combinations (an asymmetric FP8
/// scheme, a negative axis, ...) emit an error diagnostic through the
/// context's handlers and return a null attribute.
MLIR_CAPI_EXPORTED MlirAttribute octetSchemeAttrGet(
    MlirContext ctx, OctetStorageFormat format, OctetGranularity granularity,
    int64_t axis, int64_t groupSize, bool symmetric, bool saturate);

/// As octetSchemeAttrGet, with the integer code range narrowed to
/// [qmin, qmax] (e.g. i8 with [-127, 127]).
MLIR_CAPI_EXPORTED MlirAttribute octetSchemeAttrGetWithRange(
    MlirContext ctx, OctetStorageFormat format, OctetGranularity granularity,
    int64_t axis, int64_t groupSize, bool symmetric, bool saturate,
    int32_t qmin, int32_t qmax);

/// Storage format of a scheme.
MLIR_CAPI_EXPORTED OctetStorageFormat
octetSchemeAttrGetFormat(MlirAttribute scheme);

/// The format's name as written in the syntax ("i8", "f8E4M3FN", ...). The
/// string is owned by the library.
MLIR_CAPI_EXPORTED MlirStringRef
octetSchemeAttrGetFormatName(MlirAttribute scheme);

/// Granularity of a scheme.
MLIR_CAPI_EXPORTED OctetGranularity
octetSchemeAttrGetGranularity(MlirAttribute scheme);

/// Parameter axis (per_axis, per_group); 0 for per_tensor.
MLIR_CAPI_EXPORTED int64_t octetSchemeAttrGetAxis(MlirAttribute scheme);

/// Group size (per_group); 0 otherwise.
MLIR_CAPI_EXPORTED int64_t octetSchemeAttrGetGroupSize(MlirAttribute scheme);

/// True for symmetric schemes (no zero point).
MLIR_CAPI_EXPORTED bool octetSchemeAttrIsSymmetric(MlirAttribute scheme);

/// True unless the scheme is FP8 `non_saturating`.
MLIR_CAPI_EXPORTED bool octetSchemeAttrIsSaturating(MlirAttribute scheme);

/// Smallest and largest integer code; 0 for FP8 formats.
MLIR_CAPI_EXPORTED int32_t octetSchemeAttrGetQmin(MlirAttribute scheme);
MLIR_CAPI_EXPORTED int32_t octetSchemeAttrGetQmax(MlirAttribute scheme);

/// The builtin element type of storage tensors (i8, i4, f8E4M3FN, f8E5M2).
MLIR_CAPI_EXPORTED MlirType
octetSchemeAttrGetStorageElementType(MlirAttribute scheme);

#ifdef __cplusplus
}
#endif

#endif // OCTET_C_DIALECT_OCTET_H
