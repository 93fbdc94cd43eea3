//===- AttentionLowering.cpp - octet.attention as linalg.generic ops ------===//
//
// The op's definition written out (OctetOps.td), one linalg.generic per
// step, with the S x N scores materialized:
//
//   sc[h, g, s, j]  = sum_d q[s, h, g, d] * k[h, d, j]        (d in order)
//   t[h, g, s, j]   = j <= positions[s] ? sc * scale : -inf
//   m[h, g, s]      = maxnum_j t                     (-inf for no key)
//   e[h, g, s, j]   = exp(t - m)
//   z[h, g, s]      = sum_j e                         (j in order)
//   p[h, g, s, j]   = e / z
//   out[s, h, g, d] = sum_j p * v[h, j, d]            (j in order)
//
// Separate multiplies and adds in index order, as the importer emitted
// before the op existed: the portable and GPU paths compute what they did.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToLinalg/AttentionLowering.h"
#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::octet;

namespace {

struct AttentionLowering : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    Value q = adaptor.getQuery(), k = adaptor.getKeys(),
          v = adaptor.getValues(), pos = adaptor.getPositions();
    // Extents as (static size, dynamic value).
    auto extent = [&](Value t, int64_t i) -> OpFoldResult {
      auto type = cast<RankedTensorType>(t.getType());
      if (!type.isDynamicDim(i))
        return b.getIndexAttr(type.getDimSize(i));
      return tensor::DimOp::create(b, loc, t, i).getResult();
    };
    OpFoldResult S = extent(q, 0), KV = extent(q, 1), G = extent(q, 2),
                 Dh = extent(q, 3), N = extent(k, 2);
    auto filled = [&](ArrayRef<OpFoldResult> shape, float value) {
      Value empty = tensor::EmptyOp::create(b, loc, shape, f32);
      Value c = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
      return linalg::FillOp::create(b, loc, c, empty).getResult(0);
    };
    auto empty = [&](ArrayRef<OpFoldResult> shape) {
      return tensor::EmptyOp::create(b, loc, shape, f32).getResult();
    };
    auto map = [&](unsigned dims, ArrayRef<unsigned> results) {
      SmallVector<AffineExpr> exprs;
      for (unsigned r : results)
        exprs.push_back(getAffineDimExpr(r, ctx));
      return AffineMap::get(dims, 0, exprs, ctx);
    };
    using IT = utils::IteratorType;
    auto generic =
        [&](ValueRange ins, Value init, ArrayRef<AffineMap> maps,
            ArrayRef<IT> iters,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
          return linalg::GenericOp::create(
                     b, loc, init.getType(), ins, ValueRange{init}, maps, iters,
                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                       linalg::YieldOp::create(nb, nl, body(nb, nl, args));
                     })
              .getResult(0);
        };
    const IT par = IT::parallel, red = IT::reduction;
    float ninf = -std::numeric_limits<float>::infinity();
    SmallVector<OpFoldResult> scoreShape{KV, G, S, N}, rowShape{KV, G, S};

    // Loops (h, g, s, j, d): the scores.
    Value sc =
        generic({q, k}, filled(scoreShape, 0.0f),
                {map(5, {2, 0, 1, 4}), map(5, {0, 4, 3}), map(5, {0, 1, 2, 3})},
                {par, par, par, par, red},
                [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                  Value m = arith::MulFOp::create(nb, nl, a[0], a[1]);
                  return arith::AddFOp::create(nb, nl, m, a[2]);
                });
    // Loops (h, g, s, j) from here to the context.
    AffineMap id4 = map(4, {0, 1, 2, 3}), row4 = map(4, {0, 1, 2});
    Value t = generic(
        {sc, pos}, empty(scoreShape), {id4, map(4, {2}), id4},
        {par, par, par, par},
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value j = linalg::IndexOp::create(nb, nl, 3);
          Value ji = arith::IndexCastOp::create(nb, nl, nb.getI32Type(), j);
          Value ok = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sle,
                                           ji, a[1]);
          Value scale = arith::ConstantOp::create(nb, nl, op.getScaleAttr());
          Value s = arith::MulFOp::create(nb, nl, a[0], scale);
          Value minf =
              arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(ninf));
          return arith::SelectOp::create(nb, nl, ok, s, minf);
        });
    Value mx =
        generic({t}, filled(rowShape, ninf), {id4, row4}, {par, par, par, red},
                [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                  return arith::MaxNumFOp::create(nb, nl, a[0], a[1]);
                });
    Value e = generic({t, mx}, empty(scoreShape), {id4, row4, id4},
                      {par, par, par, par},
                      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                        Value c = arith::SubFOp::create(nb, nl, a[0], a[1]);
                        return math::ExpOp::create(nb, nl, c);
                      });
    Value z =
        generic({e}, filled(rowShape, 0.0f), {id4, row4}, {par, par, par, red},
                [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                  return arith::AddFOp::create(nb, nl, a[0], a[1]);
                });
    Value p = generic({e, z}, empty(scoreShape), {id4, row4, id4},
                      {par, par, par, par},
                      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                        return arith::DivFOp::create(nb, nl, a[0], a[1]);
                      });
    // Loops (s, h, g, j, d): the context.
    Value out =
        generic({p, v}, filled({S, KV, G, Dh}, 0.0f),
                {map(5, {1, 2, 0, 3}), map(5, {1, 3, 4}), map(5, {0, 1, 2, 4})},
                {par, par, par, red, par},
                [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                  Value m = arith::MulFOp::create(nb, nl, a[0], a[1]);
                  return arith::AddFOp::create(nb, nl, m, a[2]);
                });
    if (out.getType() != op.getType())
      out = tensor::CastOp::create(b, loc, op.getType(), out);
    b.replaceOp(op, out);
    return success();
  }
};

} // namespace

void mlir::octet::populateAttentionLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<AttentionLowering>(patterns.getContext());
}
