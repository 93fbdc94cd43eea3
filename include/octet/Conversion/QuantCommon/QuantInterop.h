//===- QuantInterop.h - Octet schemes <-> upstream quant types -*- C++ -*-===//
//
// The one mapping between an octet scheme with constant parameters and an
// upstream `!quant.uniform` element type, in both directions. Used by
// --octet-import-quant (QuantToOctet) and --octet-export-quant (OctetToQuant)
// so that export followed by import reproduces the scheme and parameters.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_CONVERSION_QUANTCOMMON_QUANTINTEROP_H
#define OCTET_CONVERSION_QUANTCOMMON_QUANTINTEROP_H

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "octet/Dialect/Octet/IR/Octet.h"

namespace mlir {
namespace octet {

/// An octet scheme with its constant parameters.
struct QuantParams {
  SchemeAttr scheme;
  /// f32 scales, shaped as the scheme's granularity requires.
  DenseElementsAttr scale;
  /// i32 zero points of the scale's shape; null for symmetric schemes.
  DenseElementsAttr zeroPoint;
};

using QuantEmitErrorFn = function_ref<InFlightDiagnostic()>;

/// Converts the `!quant.uniform` element type of `type` (per-tensor,
/// per-axis or sub-channel; i8/u8/i4/u4 storage; f32/f16/bf16 expressed) to
/// an octet scheme and constant parameters for a tensor of `type`'s shape.
/// Anything octet cannot represent is reported through `emitError`.
FailureOr<QuantParams> importQuantType(RankedTensorType type,
                                       QuantEmitErrorFn emitError);

/// Converts `scheme` with constant `scale` (f32) and `zeroPoint` (i32, may be
/// null for symmetric schemes) on a tensor of `shape` whose float side has
/// element type `expressedType` to the equivalent upstream quantized element
/// type: UniformQuantizedType (per_tensor), UniformQuantizedPerAxisType
/// (per_axis) or UniformQuantizedSubChannelType (per_group: block size
/// `groupSize` along the group axis, 1 along every other dimension).
/// What upstream cannot express (FP8 storage, parameters its verifier
/// rejects) is reported through `emitError`.
FailureOr<quant::QuantizedType>
exportQuantType(SchemeAttr scheme, ArrayRef<int64_t> shape,
                FloatType expressedType, DenseElementsAttr scale,
                DenseElementsAttr zeroPoint, QuantEmitErrorFn emitError);

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_QUANTCOMMON_QUANTINTEROP_H
