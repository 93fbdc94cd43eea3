//===- ScalarNumerics.h - Emit Octet's scalar rules as IR -----*- C++ -*-===//
//
// Builders that emit, with arith/math ops on scalars (or vectors), exactly the
// steps of octet/Runtime/Numerics.h. Every lowering that quantizes or
// dequantizes (linalg bodies, kernel epilogues) calls these, so the rules
// exist once in C++ (constant folding, runtime) and once as IR.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_CONVERSION_OCTETCOMMON_SCALARNUMERICS_H
#define OCTET_CONVERSION_OCTETCOMMON_SCALARNUMERICS_H

#include "octet/Dialect/Octet/IR/Octet.h"

namespace mlir {
class OpBuilder;
namespace octet {

/// Quantizes `x` (f32/f16/bf16) with `scale` (f32) and `zeroPoint` (i32, or
/// null for symmetric schemes). Returns a value of the scheme's storage
/// element type (i8, i4, f8E4M3FN, f8E5M2, f4E2M1FN).
Value emitQuantize(OpBuilder &b, Location loc, Value x, Value scale,
                   Value zeroPoint, SchemeAttr scheme);

/// Dequantizes a storage value to `resultType` (f32/f16/bf16); the
/// arithmetic is f32.
Value emitDequantize(OpBuilder &b, Location loc, Value q, Value scale,
                     Value zeroPoint, SchemeAttr scheme, Type resultType);

/// Rounds f32 to bf16 (nearest even), keeping the sign of NaN.
Value emitTruncF32ToBF16(OpBuilder &b, Location loc, Value x);

/// Running statistics of a group as IR values (all f32).
struct RangeStatsValues {
  Value absmax, minV, maxV;
};

/// Folds one element `x` (any float type) into `acc`: absmax for symmetric
/// schemes, min/max for asymmetric ones (the other fields stay null).
RangeStatsValues emitAccumulate(OpBuilder &b, Location loc,
                                RangeStatsValues acc, Value x);

/// Scale (f32) and, for asymmetric schemes, zero point (i32) from group
/// statistics; mirrors numerics::paramsFromStats.
std::pair<Value, Value> emitParamsFromStats(OpBuilder &b, Location loc,
                                            RangeStatsValues stats,
                                            SchemeAttr scheme);

/// Encodes an f32 value as the bits of an FP8 format (an i32 in [0, 255])
/// or of FP4 (f4E2M1FN: an i32 in [0, 15]).
Value emitF32ToFp8Bits(OpBuilder &b, Location loc, Value x,
                       StorageFormat format, bool saturate);

/// Decodes FP8 bits (an i32 in [0, 255]) or FP4 bits ([0, 15]) to f32.
Value emitFp8BitsToF32(OpBuilder &b, Location loc, Value bits,
                       StorageFormat format);

/// Decodes NF4 codes (an i32 in [0, 15]) to their f32 table values.
Value emitNf4ToF32(OpBuilder &b, Location loc, Value code);

/// Decodes a vector of FP8 codes (vector<N x i8>) to f32 through the f16
/// converter (`arith.extf` f16 -> f32: F16C's vcvtph2ps on x86): the same
/// values as emitFp8BitsToF32 for every code (NaN codes give a quiet NaN
/// of their sign, with another payload), in about half the operations.
/// For the CPU kernels, whose targets have F16C; the portable lowering
/// keeps emitFp8BitsToF32 (a scalar f16 extension is a library call
/// without F16C). `noNan`: the caller knows that no code is an E4M3 NaN
/// (constant weights checked at compile time); the NaN select is left out.
/// `e4m3Unscaled`: E4M3 values come out times 2^-8 (the f16 the codes map
/// to, without the final exact multiply by 2^8), for callers that scale
/// their sums instead (kE4M3ViaF16Scale).
Value emitFp8CodesToF32ViaF16(OpBuilder &b, Location loc, Value codes,
                              StorageFormat format, bool noNan = false,
                              bool e4m3Unscaled = false);

/// The factor between an E4M3 value and the f16 its code maps to in
/// emitFp8CodesToF32ViaF16 (bias 7 against 15).
constexpr float kE4M3ViaF16Scale = 256.0f;

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETCOMMON_SCALARNUMERICS_H
