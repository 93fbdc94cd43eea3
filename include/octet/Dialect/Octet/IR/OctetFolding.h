//===- OctetFolding.h - Compile-time evaluation of octet ops --*- C++ -*-===//
//
// Helpers shared by the op folders and the compile-time quantization passes.
// All arithmetic goes through the numerics core (octet/Runtime/Numerics.h).
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETFOLDING_H
#define OCTET_DIALECT_OCTET_IR_OCTETFOLDING_H

#include "octet/Dialect/Octet/IR/Octet.h"

#include <vector>

namespace mlir {
namespace octet {

/// Maps the linear (row-major) index of a tensor element to the linear index
/// of its scale / zero point under a scheme's granularity.
class ParamIndexer {
public:
  ParamIndexer(SchemeAttr scheme, ArrayRef<int64_t> shape);
  int64_t operator()(int64_t linearIndex) const {
    switch (kind) {
    case Granularity::per_tensor:
      return 0;
    case Granularity::per_axis:
      return (linearIndex / inner) % dim;
    case Granularity::per_group: {
      int64_t outer = linearIndex / (dim * inner);
      int64_t c = (linearIndex / inner) % dim;
      int64_t in = linearIndex % inner;
      return (outer * (dim / group) + c / group) * inner + in;
    }
    }
    return 0;
  }

private:
  Granularity kind;
  int64_t dim = 1, inner = 1, group = 1;
};

/// True when `a` and `b` hold the same parameter values: the same SSA value,
/// or equal constants. Two null values are equal (no zero point).
bool sameParameterValues(Value a, Value b);

/// True when quantize(dequantize(q)) is exactly q: same scheme, same
/// parameters, and an intermediate float type that cannot lose a code (f32;
/// f16 for integer formats with constant scales in f16's normal range).
bool isExactRoundTrip(DequantizeOp dequantize, QuantizeOp quantize);

/// Reads a float DenseElementsAttr (f32, f16, bf16) as f32 values.
std::vector<float> getFloatValues(DenseElementsAttr attr);

/// Evaluates octet.quantize on constants. Returns null if `input` is not a
/// float tensor the numerics core supports.
DenseElementsAttr foldQuantize(DenseElementsAttr input, DenseElementsAttr scale,
                               DenseElementsAttr zeroPoint, SchemeAttr scheme,
                               RankedTensorType resultType);

/// Evaluates octet.compute_params on a constant; the zero point is null for
/// symmetric schemes. Returns nulls if `input` is not a supported float
/// tensor.
std::pair<DenseElementsAttr, DenseElementsAttr>
foldComputeParams(DenseElementsAttr input, SchemeAttr scheme,
                  RankedTensorType scaleType, RankedTensorType zeroPointType);

/// Builds a storage constant of `type` from codes (integer codes, or FP8 bit
/// patterns in the low byte).
DenseElementsAttr getStorageAttr(RankedTensorType type,
                                 ArrayRef<int32_t> codes);

} // namespace octet
} // namespace mlir

#endif // OCTET_DIALECT_OCTET_IR_OCTETFOLDING_H
