//===- MatmulEpilogue.cpp - The one quantized-matmul epilogue -------------===//
//
// The epilogue every octet.matmul lowering emits (MatmulEpilogue.h).
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetCommon/MatmulEpilogue.h"
#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::octet;

/// `elemType` in the shape of `like` (a scalar or a vector).
static Type withShapeOf(Value like, Type elemType) {
  if (auto vec = dyn_cast<VectorType>(like.getType()))
    return vec.clone(elemType);
  return elemType;
}

Value octet::emitZeroPointCorrection(OpBuilder &b, Location loc,
                                     const MatmulEpilogueOperands &o) {
  Value a = o.acc;
  Value za = o.lhsZeroPoint, zb = o.rhsZeroPoint;
  if (za)
    a = arith::SubIOp::create(b, loc, a,
                              arith::MulIOp::create(b, loc, za, o.colSum));
  if (zb)
    a = arith::SubIOp::create(b, loc, a,
                              arith::MulIOp::create(b, loc, zb, o.rowSum));
  if (za && zb)
    a = arith::AddIOp::create(
        b, loc, a,
        arith::MulIOp::create(b, loc, o.kCount,
                              arith::MulIOp::create(b, loc, za, zb)));
  return a;
}

Value octet::emitMatmulEpilogue(OpBuilder &b, Location loc,
                                const MatmulEpilogueOperands &o,
                                const MatmulEpilogueResult &r) {
  Type f32 = b.getF32Type();
  Value y = o.acc;
  if (isa<IntegerType>(getElementTypeOrSelf(y.getType()))) {
    y = emitZeroPointCorrection(b, loc, o);
    y = arith::SIToFPOp::create(b, loc, withShapeOf(y, f32), y);
  }
  // float(acc) * (sa * sb).
  if (o.rhsScale) {
    Value s = o.rhsScale;
    if (o.lhsScale)
      s = arith::MulFOp::create(b, loc, o.lhsScale, s);
    y = arith::MulFOp::create(b, loc, y, s);
  } else if (o.lhsScale) {
    y = arith::MulFOp::create(b, loc, y, o.lhsScale);
  }
  if (o.bias)
    y = arith::AddFOp::create(b, loc, y, o.bias);
  if (r.relu) {
    Type type = y.getType();
    TypedAttr zero = b.getZeroAttr(type);
    y = arith::MaximumFOp::create(
        b, loc, y, arith::ConstantOp::create(b, loc, type, zero));
  }
  if (r.outScheme)
    return emitQuantize(b, loc, y, o.outScale, o.outZeroPoint, *r.outScheme);
  if (r.resultElem && r.resultElem.isBF16())
    return emitTruncF32ToBF16(b, loc, y);
  if (r.resultElem && r.resultElem.isF16())
    return arith::TruncFOp::create(b, loc, withShapeOf(y, r.resultElem), y);
  return y;
}
