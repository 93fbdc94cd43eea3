//===- ExpandExp.cpp - math.exp as octet's own vectorizable f32 exp -------===//
//
// octet-expand-exp: math.exp on f32 (and on f16 / bf16 through f32) becomes
// arith / math operations that compute exp with a documented error of at
// most one ulp, the same bits on every CPU, and no library call, so that
// LLVM vectorizes the loops around it (softmax, SiLU, GELU's tanh form).
//
//   x' = clamp(x, -104, 88.75)     (NaN -> -104; the result is x + x)
//   k  = roundeven(x' * log2(e))   (an integer in [-150, 128])
//   r  = x' - k * ln2              (two FMAs, ln2 split in ln2hi + ln2lo)
//   p  = 1 + r + r^2 * q(r)        (q of degree 5, Horner with FMAs)
//   y  = p * 2^(k >> 1) * 2^(k - (k >> 1)), or +0 where x' = -104
//
// r is exact after the first FMA and rounded once by the second; the two
// power-of-two factors are normal numbers, so the first product is exact
// and the second rounds once, to a subnormal where exp(x) is one (and to
// +inf above ln(FLT_MAX), to +0 below ln(2^-150)). At the clamp's lower
// end the result is +0 without the multiplication: products that
// underflow run at microcode speed on AMD Zen (MiniLM's softmax, 2/3 of
// its keys masked: its share of a W8A8 pass fell from 4.9% to 2.9% on Zen
// 5, bits unchanged). The coefficients of q
// are a near-minimax fit of (e^r - 1 - r) / r^2 on |r| <= 0.3468 (relative
// error of p below 0.02 ulp), rounded to f32. Measured over every f32
// input against exp in f64: at most 0.988 ulp (subnormal results in ulps of
// 2^-149), +inf / +0 / NaN where exp gives them (docs/numerics.md).
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETEXPANDEXP
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;

namespace {

/// A constant of `like`'s shape (scalar or splat vector) of element type
/// `elem`.
Value splat(OpBuilder &b, Location loc, Type like, Type elem, TypedAttr value) {
  if (auto v = dyn_cast<VectorType>(like))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v.clone(elem), value));
  return arith::ConstantOp::create(b, loc, value);
}

/// exp(x) for f32 `x` (scalar or vector), as described at the top.
Value expandExpF32(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto fc = [&](float v) {
    return splat(b, loc, type, f32, b.getF32FloatAttr(v));
  };
  auto ic = [&](int32_t v) {
    return splat(b, loc, type, i32, b.getI32IntegerAttr(v));
  };
  Type itype = i32;
  if (auto v = dyn_cast<VectorType>(type))
    itype = v.clone(i32);
  auto select = [&](arith::CmpFPredicate pred, Value a, Value bnd) {
    Value c = arith::CmpFOp::create(b, loc, pred, a, bnd);
    return arith::SelectOp::create(b, loc, c, a, bnd).getResult();
  };
  // NaN fails both compares and is replaced by the lower bound; x86 codegen
  // turns each compare-and-select into one vmaxps / vminps.
  Value lo = fc(-104.0f), hi = fc(88.75f);
  Value xc = select(arith::CmpFPredicate::OGT, x, lo);
  xc = select(arith::CmpFPredicate::OLT, xc, hi);
  Value k = math::RoundEvenOp::create(
      b, loc, arith::MulFOp::create(b, loc, xc, fc(0x1.715476p+0f)));
  Value r = math::FmaOp::create(b, loc, k, fc(-0x1.62e43p-1f), xc);
  r = math::FmaOp::create(b, loc, k, fc(0x1.05c61p-29f), r);
  const float q[] = {0x1.9f0844p-13f, 0x1.6d8d7p-10f, 0x1.111272p-7f,
                     0x1.55548ep-5f,  0x1.555554p-3f, 0.5f};
  Value poly = fc(q[0]);
  for (float c : ArrayRef<float>(q).drop_front())
    poly = math::FmaOp::create(b, loc, poly, r, fc(c));
  Value r2 = arith::MulFOp::create(b, loc, r, r);
  Value p = arith::AddFOp::create(
      b, loc, math::FmaOp::create(b, loc, r2, poly, r), fc(1.0f));
  // 2^k as two normal factors: k1 = k >> 1 and k - k1 lie in [-75, 64].
  Value ki = arith::FPToSIOp::create(b, loc, itype, k);
  Value k1 = arith::ShRSIOp::create(b, loc, ki, ic(1));
  Value k2 = arith::SubIOp::create(b, loc, ki, k1);
  auto pow2 = [&](Value e) {
    Value bits = arith::ShLIOp::create(
        b, loc, arith::AddIOp::create(b, loc, e, ic(127)), ic(23));
    return arith::BitcastOp::create(b, loc, type, bits).getResult();
  };
  // At x' = -104 (every x <= -104: softmax's masked keys) exp is +0:
  // p * 2^-150 with p < 1 rounds to +0. The second factor is 1 there and
  // the product replaced by +0, so that no multiplication underflows to a
  // subnormal or zero (a microcode-speed case on some CPUs); the bits are
  // the same.
  Value under =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, xc, lo);
  Value f2 = arith::SelectOp::create(b, loc, under, fc(1.0f), pow2(k2));
  Value y = arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, p, pow2(k1)), f2);
  y = arith::SelectOp::create(b, loc, under, fc(0.0f), y);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, loc, isNan,
                                 arith::AddFOp::create(b, loc, x, x), y);
}

struct OctetExpandExpPass
    : public mlir::octet::impl::OctetExpandExpBase<OctetExpandExpPass> {
  void runOnOperation() override {
    SmallVector<math::ExpOp> ops;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      // Device code keeps the GPU's own exp (libdevice / ex2.approx).
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto exp = dyn_cast<math::ExpOp>(op)) {
        Type elem = getElementTypeOrSelf(exp.getType());
        if (elem.isF32() || elem.isF16() || elem.isBF16())
          ops.push_back(exp);
      }
      return WalkResult::advance();
    });
    for (math::ExpOp exp : ops) {
      OpBuilder b(exp);
      Location loc = exp.getLoc();
      Value x = exp.getOperand();
      Type type = x.getType();
      Type f32Type = b.getF32Type();
      if (auto v = dyn_cast<VectorType>(type))
        f32Type = v.clone(b.getF32Type());
      bool narrow = !getElementTypeOrSelf(type).isF32();
      if (narrow)
        x = arith::ExtFOp::create(b, loc, f32Type, x);
      Value y = expandExpF32(b, loc, x);
      if (narrow)
        y = arith::TruncFOp::create(b, loc, type, y);
      exp.replaceAllUsesWith(y);
      exp.erase();
    }
  }
};

} // namespace
