//===- ScalarNumerics.cpp - Emit Octet's scalar rules as IR ---------------===//
//
// Mirrors octet/Runtime/Numerics.h step by step; keep the two in sync (the
// integration tests compare both against numpy/ml_dtypes bit for bit).
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "octet/Runtime/Numerics.h"

#include <limits>

using namespace mlir;
using namespace mlir::octet;
namespace num = ::octet::numerics;

namespace {
/// Small helper that builds constants and ops of a (possibly vector) shape.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Type shapeOf; ///< Scalar or vector type whose shape new values take.

  Type like(Type elementType) const {
    if (auto vt = dyn_cast<VectorType>(shapeOf))
      return VectorType::get(vt.getShape(), elementType, vt.getScalableDims());
    return elementType;
  }
  Value i32(uint32_t v) const {
    Type t = like(b.getI32Type());
    return arith::ConstantOp::create(
        b, loc, t,
        isa<VectorType>(t)
            ? cast<TypedAttr>(DenseElementsAttr::get(
                  cast<ShapedType>(t), b.getI32IntegerAttr(v).getValue()))
            : cast<TypedAttr>(b.getI32IntegerAttr(v)));
  }
  Value f32(float v) const {
    Type t = like(b.getF32Type());
    return arith::ConstantOp::create(
        b, loc, t,
        isa<VectorType>(t)
            ? cast<TypedAttr>(DenseElementsAttr::get(
                  cast<ShapedType>(t), b.getF32FloatAttr(v).getValue()))
            : cast<TypedAttr>(b.getF32FloatAttr(v)));
  }
  Value and_(Value a, Value c) const { return arith::AndIOp::create(b, loc, a, c); }
  Value or_(Value a, Value c) const { return arith::OrIOp::create(b, loc, a, c); }
  Value add(Value a, Value c) const { return arith::AddIOp::create(b, loc, a, c); }
  Value sub(Value a, Value c) const { return arith::SubIOp::create(b, loc, a, c); }
  Value shl(Value a, uint32_t n) const {
    return arith::ShLIOp::create(b, loc, a, i32(n));
  }
  Value shr(Value a, uint32_t n) const {
    return arith::ShRUIOp::create(b, loc, a, i32(n));
  }
  Value cmp(arith::CmpIPredicate p, Value a, Value c) const {
    return arith::CmpIOp::create(b, loc, p, a, c);
  }
  Value select(Value c, Value t, Value f) const {
    return arith::SelectOp::create(b, loc, c, t, f);
  }
  Value bitcast(Value v, Type elementType) const {
    return arith::BitcastOp::create(b, loc, like(elementType), v);
  }
};
} // namespace

Value mlir::octet::emitF32ToFp8Bits(OpBuilder &b, Location loc, Value x,
                                    StorageFormat format, bool saturate) {
  using P = arith::CmpIPredicate;
  Emitter e{b, loc, x.getType()};
  const num::Fp8Spec s = num::fp8Spec(static_cast<num::StorageFormat>(format));
  const unsigned shift = 23 - s.manBits;
  const uint32_t rebias = static_cast<uint32_t>(127 - s.bias);
  const uint32_t minNormal = (rebias + 1) << 23;
  const uint32_t magic = (rebias + 1 - s.manBits + 23) << 23;

  Value u = e.bitcast(x, b.getI32Type());
  // The sign moves from bit 31 to the code's top bit (7, or 3 for FP4).
  Value sign = e.and_(e.shr(u, s.signBit == 0x80 ? 24 : 28),
                      e.i32(s.signBit));
  Value a = e.and_(u, e.i32(0x7fffffff));
  Value isNan = e.cmp(P::ugt, a, e.i32(0x7f800000));

  // Subnormal (and zero) path: the FPU rounds at the fp8 quantum.
  Value sum = arith::AddFOp::create(b, loc, e.bitcast(a, b.getF32Type()),
                                    e.f32(num::floatOf(magic)));
  Value sub = e.sub(e.bitcast(sum, b.getI32Type()), e.i32(magic));

  // Normal path: round-to-nearest-even on the bits, then rebias.
  Value odd = e.and_(e.shr(a, shift), e.i32(1));
  Value rounded = e.add(e.add(a, e.i32((1u << (shift - 1)) - 1u)), odd);
  Value norm = e.sub(e.shr(rounded, shift), e.i32(rebias << s.manBits));

  Value code = e.select(e.cmp(P::ult, a, e.i32(minNormal)), sub, norm);
  Value over = e.cmp(P::ugt, code, e.i32(s.maxCode));
  code = e.select(over,
                  e.i32((saturate || !s.hasNan) ? s.maxCode : s.infCode), code);
  if (!s.hasNan) // E2M1: NaN encodes as +0.
    return e.select(isNan, e.i32(0), e.or_(sign, code));
  code = e.select(isNan, e.i32(s.nanCode), code);
  return e.or_(sign, code);
}

Value mlir::octet::emitFp8BitsToF32(OpBuilder &b, Location loc, Value c,
                                    StorageFormat format) {
  using P = arith::CmpIPredicate;
  Emitter e{b, loc, c.getType()};
  const num::Fp8Spec s = num::fp8Spec(static_cast<num::StorageFormat>(format));
  const uint32_t manMask = (1u << s.manBits) - 1u;

  Value sign = e.shl(e.and_(c, e.i32(s.signBit)), s.signBit == 0x80 ? 24 : 28);
  Value mag = e.and_(c, e.i32(s.signBit - 1u));
  Value ex = e.shr(mag, s.manBits);
  Value m = e.and_(mag, e.i32(manMask));

  Value normal = e.or_(e.shl(e.add(ex, e.i32(127u - s.bias)), 23),
                       e.shl(m, 23 - s.manBits));
  // Subnormal: m * 2^(1 - bias - manBits), exact in f32.
  Value mf = arith::UIToFPOp::create(b, loc, e.like(b.getF32Type()), m);
  Value subf = arith::MulFOp::create(
      b, loc, mf,
      e.f32(std::ldexp(1.0f, 1 - s.bias - static_cast<int>(s.manBits))));
  Value bits = e.select(e.cmp(P::eq, ex, e.i32(0)),
                        e.bitcast(subf, b.getI32Type()), normal);
  if (s.hasInf) {
    Value special = e.cmp(P::eq, ex, e.i32((1u << s.expBits) - 1u));
    Value infOrNan = e.select(e.cmp(P::eq, m, e.i32(0)), e.i32(0x7f800000),
                              e.i32(0x7fc00000));
    bits = e.select(special, infOrNan, bits);
  } else if (s.hasNan) {
    bits = e.select(e.cmp(P::eq, mag, e.i32(s.nanCode)), e.i32(0x7fc00000),
                    bits);
  }
  return e.bitcast(e.or_(bits, sign), b.getF32Type());
}

Value mlir::octet::emitNf4ToF32(OpBuilder &b, Location loc, Value code) {
  // numerics::decodeNf4 as a chain of selects (a table lookup in scalar IR).
  Emitter e{b, loc, code.getType()};
  Value x = e.f32(num::kNf4Values[0]);
  for (uint32_t c = 1; c < 16; ++c)
    x = e.select(e.cmp(arith::CmpIPredicate::eq, code, e.i32(c)),
                 e.f32(num::kNf4Values[c]), x);
  return x;
}

Value mlir::octet::emitFp8CodesToF32ViaF16(OpBuilder &b, Location loc,
                                           Value codes, StorageFormat format,
                                           bool noNan, bool e4m3Unscaled) {
  auto vt = cast<VectorType>(codes.getType());
  auto like = [&](Type t) { return VectorType::get(vt.getShape(), t); };
  VectorType i16v = like(b.getI16Type()), f32v = like(b.getF32Type());
  auto c16 = [&](uint16_t v) {
    return arith::ConstantOp::create(
        b, loc, i16v, DenseElementsAttr::get(i16v, APInt(16, v)));
  };
  auto toF32 = [&](Value halfBits) {
    Value h = arith::BitcastOp::create(b, loc, like(b.getF16Type()), halfBits);
    return arith::ExtFOp::create(b, loc, f32v, h).getResult();
  };
  if (format == StorageFormat::f8E5M2) {
    // E5M2 is the top byte of an f16 (same exponent bias 15): inf and NaN
    // included.
    Value wide = arith::ExtUIOp::create(b, loc, i16v, codes);
    return toF32(arith::ShLIOp::create(b, loc, wide, c16(8)));
  }
  // E4M3FN: the code sign-extended and shifted left by 7 puts the sign in
  // bit 15 and the exponent and mantissa in bits 13..7; clearing bit 14
  // leaves the f16 whose value is 2^-8 times the code's (bias 15 vs 7; the
  // subnormals line up too), so one exact multiply by 2^8 finishes. The
  // NaN codes (0x7F, 0xFF: all of bits 0..6 set) get an all-ones f16
  // exponent instead, a quiet NaN (mantissa 0x380) with their sign.
  Value wide = arith::ExtSIOp::create(b, loc, i16v, codes);
  Value half = arith::AndIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, wide, c16(7)), c16(0xBF80));
  Emitter e{b, loc, f32v};
  auto scaled = [&](Value x) -> Value {
    if (e4m3Unscaled)
      return x;
    return arith::MulFOp::create(b, loc, x, e.f32(kE4M3ViaF16Scale));
  };
  if (noNan)
    return scaled(toF32(half));
  VectorType i8v = like(b.getI8Type());
  auto c8 = [&](uint8_t v) {
    return arith::ConstantOp::create(
        b, loc, i8v, DenseElementsAttr::get(i8v, APInt(8, v)));
  };
  Value nan = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::OrIOp::create(b, loc, codes, c8(0x80)), c8(0xFF));
  half = arith::SelectOp::create(
      b, loc, nan, arith::OrIOp::create(b, loc, half, c16(0x7C00)), half);
  return scaled(toF32(half));
}

Value mlir::octet::emitQuantize(OpBuilder &b, Location loc, Value x,
                                Value scale, Value zeroPoint,
                                SchemeAttr scheme) {
  Emitter e{b, loc, x.getType()};
  Type f32 = e.like(b.getF32Type());
  if (getElementTypeOrSelf(x.getType()) != b.getF32Type())
    x = arith::ExtFOp::create(b, loc, f32, x);
  Value v = arith::DivFOp::create(b, loc, x, scale);
  Type storage = e.like(scheme.getStorageElementType());

  if (scheme.isFloat()) {
    // A NaN input keeps its sign (the contract: -NaN -> 0xFF in E4M3). The
    // quotient's sign is not enough: a GPU's division returns the canonical
    // NaN 0x7FFFFFFF whatever the operand's sign, x86's keeps it.
    Value xNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    v = e.select(xNan, x, v);
    Value bits =
        emitF32ToFp8Bits(b, loc, v, scheme.getFormat(), scheme.getSaturate());
    Value code = arith::TruncIOp::create(
        b, loc, e.like(b.getIntegerType(scheme.getStorageBits())), bits);
    return arith::BitcastOp::create(b, loc, storage, code);
  }

  if (scheme.isNf4()) {
    // numerics::encodeNf4: the number of thresholds below v; NaN -> 7.
    Value code = e.i32(0);
    for (float t : num::kNf4Thresholds) {
      Value above =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v, e.f32(t));
      code = e.add(code, arith::ExtUIOp::create(
                             b, loc, e.like(b.getI32Type()), above));
    }
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    code = e.select(nan, e.i32(7), code);
    return arith::TruncIOp::create(b, loc, storage, code);
  }
  v = math::RoundEvenOp::create(b, loc, v);
  Value isNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  v = e.select(isNan, e.f32(0.0f), v);
  if (zeroPoint)
    v = arith::AddFOp::create(
        b, loc, v, arith::SIToFPOp::create(b, loc, f32, zeroPoint));
  v = arith::MaxNumFOp::create(b, loc, v,
                               e.f32(static_cast<float>(scheme.getQmin())));
  v = arith::MinNumFOp::create(b, loc, v,
                               e.f32(static_cast<float>(scheme.getQmax())));
  // In range now: convert to i32 first (u8 codes above 127 do not fit a
  // signed i8), then keep the low bits.
  Value i = arith::FPToSIOp::create(b, loc, e.like(b.getI32Type()), v);
  return arith::TruncIOp::create(b, loc, storage, i);
}

Value mlir::octet::emitDequantize(OpBuilder &b, Location loc, Value q,
                                  Value scale, Value zeroPoint,
                                  SchemeAttr scheme, Type resultType) {
  Emitter e{b, loc, q.getType()};
  Type i32 = e.like(b.getI32Type());
  Type f32 = e.like(b.getF32Type());
  Value x;
  if (scheme.isFloat()) {
    Value code = arith::BitcastOp::create(
        b, loc, e.like(b.getIntegerType(scheme.getStorageBits())), q);
    Value bits = arith::ExtUIOp::create(b, loc, i32, code);
    x = emitFp8BitsToF32(b, loc, bits, scheme.getFormat());
  } else if (scheme.isNf4()) {
    x = emitNf4ToF32(b, loc, arith::ExtUIOp::create(b, loc, i32, q));
  } else {
    Value wide = scheme.isUnsigned()
                     ? arith::ExtUIOp::create(b, loc, i32, q).getResult()
                     : arith::ExtSIOp::create(b, loc, i32, q).getResult();
    if (zeroPoint)
      wide = arith::SubIOp::create(b, loc, wide, zeroPoint);
    x = arith::SIToFPOp::create(b, loc, f32, wide);
  }
  x = arith::MulFOp::create(b, loc, x, scale);
  Type target = e.like(getElementTypeOrSelf(resultType));
  if (getElementTypeOrSelf(target).isBF16())
    return emitTruncF32ToBF16(b, loc, x);
  if (target != f32)
    x = arith::TruncFOp::create(b, loc, target, x);
  return x;
}

Value mlir::octet::emitTruncF32ToBF16(OpBuilder &b, Location loc, Value x) {
  // Round to nearest even on the bits; NaN keeps its sign and becomes quiet
  // (arith-expand's bf16 truncation returns +NaN for every NaN).
  Emitter e{b, loc, x.getType()};
  Value u = e.bitcast(x, b.getI32Type());
  Value odd = e.and_(e.shr(u, 16), e.i32(1));
  Value rounded = e.shr(e.add(e.add(u, e.i32(0x7fff)), odd), 16);
  Value quiet = e.or_(e.shr(u, 16), e.i32(0x40));
  Value isNan = e.cmp(arith::CmpIPredicate::ugt,
                      e.and_(u, e.i32(0x7fffffff)), e.i32(0x7f800000));
  Value bits = e.select(isNan, quiet, rounded);
  Value half = arith::TruncIOp::create(b, loc, e.like(b.getI16Type()), bits);
  return e.bitcast(half, b.getBF16Type());
}

RangeStatsValues mlir::octet::emitAccumulate(OpBuilder &b, Location loc,
                                             RangeStatsValues acc, Value x) {
  Emitter e{b, loc, x.getType()};
  if (getElementTypeOrSelf(x.getType()) != b.getF32Type())
    x = arith::ExtFOp::create(b, loc, e.like(b.getF32Type()), x);
  RangeStatsValues out;
  if (acc.absmax)
    out.absmax = arith::MaxNumFOp::create(b, loc, acc.absmax,
                                          math::AbsFOp::create(b, loc, x));
  if (acc.minV)
    out.minV = arith::MinNumFOp::create(b, loc, acc.minV, x);
  if (acc.maxV)
    out.maxV = arith::MaxNumFOp::create(b, loc, acc.maxV, x);
  return out;
}

/// Mirrors numerics::guardScale.
static Value emitGuardScale(const Emitter &e, Value scale, Value zeroRange) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  using P = arith::CmpFPredicate;
  Value minNormal = e.f32(num::kFloatMinNormal);
  Value maxFinite = e.f32(num::kFloatMax);
  Value s = e.select(arith::CmpFOp::create(b, loc, P::OGE, scale, minNormal),
                     scale, minNormal);
  s = e.select(arith::CmpFOp::create(b, loc, P::OLE, s, maxFinite), s,
               maxFinite);
  return e.select(zeroRange, e.f32(1.0f), s);
}

std::pair<Value, Value>
mlir::octet::emitParamsFromStats(OpBuilder &b, Location loc,
                                 RangeStatsValues stats, SchemeAttr scheme) {
  using P = arith::CmpFPredicate;
  Value any = stats.absmax ? stats.absmax : stats.minV;
  Emitter e{b, loc, any.getType()};
  const float big = num::kFloatMax;
  if (scheme.hasE8M0Scales()) {
    // numerics::e8m0Scale (OCP MX's shared scale) of absmax clamped to
    // FLT_MAX (+-inf counts as the largest finite float).
    auto format = static_cast<num::StorageFormat>(scheme.getFormat());
    using IP = arith::CmpIPredicate;
    Value absmax = arith::MinNumFOp::create(b, loc, stats.absmax, e.f32(big));
    // floor(log2(absmax)) from the exponent bits. A subnormal absmax
    // (biased exponent 0) is below 2^-126, so its scale clamps to 2^-127
    // whatever its exact exponent (emax >= 2).
    Value biased = e.shr(e.bitcast(absmax, b.getI32Type()), 23);
    // x = floor(log2(absmax)) - emax + 127: the scale's biased exponent.
    Value x = e.sub(biased, e.i32(num::mxEmax(format)));
    // Clamp to E8M0's smallest value 2^-127 (biased 0); the largest f32
    // gives 2^(127 - emax), inside E8M0's range.
    x = arith::MaxSIOp::create(b, loc, x, e.i32(0));
    // 2^(x - 127): a normal f32 for x >= 1, the subnormal 2^-127 for 0.
    Value bits = e.select(e.cmp(IP::eq, x, e.i32(0)), e.i32(0x00400000u),
                          e.shl(x, 23));
    Value scale = e.bitcast(bits, b.getF32Type());
    Value zero = arith::CmpFOp::create(b, loc, P::OEQ, absmax, e.f32(0.0f));
    return {e.select(zero, e.f32(1.0f), scale), Value()};
  }
  if (scheme.hasE4M3Scales()) {
    // numerics::e4m3BlockScale of absmax clamped to FLT_MAX, with the
    // scheme's global scale g and the format's largest magnitude (6 for
    // E2M1, 1 for NF4): sb = e4m3((absmax / target) / g) rounded to nearest
    // even and saturating, 2^-9 for a block that rounds to 0; the scale is
    // sb * g.
    float g = scheme.getGlobalScale();
    float target = num::symmetricTarget(
        static_cast<num::StorageFormat>(scheme.getFormat()),
        num::IntRange{scheme.getQmin(), scheme.getQmax()});
    Value absmax = arith::MinNumFOp::create(b, loc, stats.absmax, e.f32(big));
    Value t = arith::DivFOp::create(
        b, loc, arith::DivFOp::create(b, loc, absmax, e.f32(target)), e.f32(g));
    Value code = emitF32ToFp8Bits(b, loc, t, StorageFormat::f8E4M3FN,
                                  /*saturate=*/true);
    Value sb = emitFp8BitsToF32(b, loc, code, StorageFormat::f8E4M3FN);
    Value positive = arith::CmpFOp::create(b, loc, P::OGT, sb, e.f32(0.0f));
    sb = e.select(positive, sb, e.f32(0x1p-9f));
    return {arith::MulFOp::create(b, loc, sb, e.f32(g)), Value()};
  }
  if (scheme.isFloat() || scheme.getSymmetric()) {
    // numerics::symmetricParams; absmax is already >= 0 and not NaN.
    auto format = static_cast<num::StorageFormat>(scheme.getFormat());
    float target = num::symmetricTarget(
        format, num::IntRange{scheme.getQmin(), scheme.getQmax()});
    Value absmax = arith::MinNumFOp::create(b, loc, stats.absmax, e.f32(big));
    Value scale = arith::DivFOp::create(b, loc, absmax, e.f32(target));
    Value zero = arith::CmpFOp::create(b, loc, P::OEQ, absmax, e.f32(0.0f));
    return {emitGuardScale(e, scale, zero), Value()};
  }
  // numerics::asymmetricParams.
  float qmin = static_cast<float>(scheme.getQmin());
  float qmax = static_cast<float>(scheme.getQmax());
  Value minV = arith::MaxNumFOp::create(
      b, loc, arith::MinNumFOp::create(b, loc, stats.minV, e.f32(0.0f)),
      e.f32(-big));
  Value maxV = arith::MinNumFOp::create(
      b, loc, arith::MaxNumFOp::create(b, loc, stats.maxV, e.f32(0.0f)),
      e.f32(big));
  Value range = arith::SubFOp::create(b, loc, maxV, minV);
  Value scale = arith::DivFOp::create(
      b, loc, range, e.f32(static_cast<float>(scheme.getQmax() -
                                              scheme.getQmin())));
  Value zero = arith::CmpFOp::create(b, loc, P::OEQ, range, e.f32(0.0f));
  scale = emitGuardScale(e, scale, zero);
  Value zp = arith::SubFOp::create(b, loc, e.f32(qmin),
                                   arith::DivFOp::create(b, loc, minV, scale));
  zp = math::RoundEvenOp::create(b, loc, zp);
  zp = arith::MaxNumFOp::create(b, loc, zp, e.f32(qmin));
  zp = arith::MinNumFOp::create(b, loc, zp, e.f32(qmax));
  Value zpInt = arith::FPToSIOp::create(b, loc, e.like(b.getI32Type()), zp);
  return {scale, zpInt};
}
