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

/// Largest |code - zero point| a scheme can produce.
int64_t maxCodeMagnitude(SchemeAttr scheme);

/// True when quantize(dequantize(c, s, zp), s, zp) == c for every storage
/// value c through an intermediate of `floatType`: full-range integer
/// formats or E4M3FN, and every scale keeping the scaled codes normal and
/// finite in the intermediate (checked on constant scales; scales from a
/// matching octet.compute_params qualify for f32). Never for E5M2 (inf
/// codes saturate, NaN payloads canonicalize) or narrowed ranges (codes
/// outside the range clamp).
bool isIdentityRoundTrip(SchemeAttr scheme, Value scale, Type floatType);

/// True when every value v with minMag <= |v| <= maxMag, scaled by each
/// constant scale, is a normal finite number of `floatType` with enough
/// precision to round back to v (codes of `codeBits` bits; FP8 counts as 4).
/// Run-time (non-constant) scales pass; callers decide about those.
bool scalesKeepCodesExact(Value scale, double minMag, double maxMag,
                          Type floatType, unsigned codeBits);

/// True when quantize(dequantize(q)) is exactly q: same scheme and
/// parameters, and isIdentityRoundTrip.
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
