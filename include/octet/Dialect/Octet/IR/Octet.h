//===- Octet.h - Octet dialect --------------------------------*- C++ -*-===//
//
// Dialect, attributes and ops of the octet dialect.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTET_H
#define OCTET_DIALECT_OCTET_IR_OCTET_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "octet/Dialect/Octet/IR/OctetDialect.h.inc"
#include "octet/Dialect/Octet/IR/OctetEnums.h.inc"

namespace mlir {
namespace octet {
/// Full code range [qmin, qmax] of an integer storage format; {0, 0} for FP8.
std::pair<int32_t, int32_t> getFullRange(StorageFormat format);
} // namespace octet
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "octet/Dialect/Octet/IR/OctetAttrs.h.inc"

#define GET_OP_CLASSES
#include "octet/Dialect/Octet/IR/OctetOps.h.inc"

namespace mlir {
namespace octet {

/// Checks that `scale` (and `zeroPoint`, may be null) fit `scheme` for a
/// float/storage tensor of `shape`; reports through `emitError`.
LogicalResult verifyParameters(function_ref<InFlightDiagnostic()> emitError,
                               SchemeAttr scheme, ArrayRef<int64_t> shape,
                               Value scale, Value zeroPoint,
                               StringRef paramPrefix = "");

/// The scale tensor type a scheme requires for a tensor of `shape`.
RankedTensorType getScaleType(SchemeAttr scheme, ArrayRef<int64_t> shape,
                              Type elementType);

} // namespace octet
} // namespace mlir

#endif // OCTET_DIALECT_OCTET_IR_OCTET_H
