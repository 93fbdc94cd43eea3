//===- MatmulLowering.cpp - Lower octet.matmul to linalg ------------------===//
//
// octet.matmul becomes:
//   1. a contraction linalg.generic on the stored codes (exact i32 sums for
//      integers; f32 sums for FP8 and float-lhs weight-only products), split
//      into groups along K for per-group rhs scales;
//   2. for zero points, row sums of lhs and column sums of rhs (computed at
//      compile time when rhs is a constant), combined in the epilogue as
//      sum (A - za)(B - zb) = sum AB - za colsum(B) - zb rowsum(A) + K za zb;
//   3. an element-wise epilogue: float(acc) * (sa * sb) (+ bias) (relu)
//      (quantize), or for groups sa * sum_g float(acc_g) * sb[g].
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToLinalg/MatmulLowering.h"
#include "octet/Conversion/OctetCommon/MatmulEpilogue.h"
#include "octet/Conversion/OctetCommon/ScalarNumerics.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::octet;

namespace {

/// One input of a linalg.generic with its indexing map (dims given as
/// positions in the iteration space).
struct Operand {
  Value value;
  SmallVector<unsigned> dims;
};

/// Builds a linalg.generic over `numDims` dims with the given inputs and
/// outputs; `body` gets the block arguments (inputs, then outputs) and
/// returns the values to yield.
static SmallVector<Value>
buildGeneric(OpBuilder &b, Location loc, unsigned numDims,
             ArrayRef<utils::IteratorType> iterators, ArrayRef<Operand> ins,
             ArrayRef<Operand> outs,
             function_ref<SmallVector<Value>(OpBuilder &, Location,
                                             ValueRange)>
                 body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<Value> inVals, outVals;
  auto mapOf = [&](const Operand &o) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : o.dims)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  for (const Operand &o : ins) {
    maps.push_back(mapOf(o));
    inVals.push_back(o.value);
  }
  for (const Operand &o : outs) {
    maps.push_back(mapOf(o));
    outVals.push_back(o.value);
  }
  auto generic = linalg::GenericOp::create(
      b, loc, ValueRange(outVals).getTypes(), inVals, outVals, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return SmallVector<Value>(generic.getResults().begin(),
                            generic.getResults().end());
}

/// tensor.empty + fill with `value`.
static Value filled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                    TypedAttr value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, value.getType());
  Value v = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, v, empty).getResult(0);
}

/// Expands dimension `axis` of `v` into (size / g, g).
static Value expandGroups(OpBuilder &b, Location loc, Value v, int64_t axis,
                          int64_t g) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> outShape;
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getDimSize(d);
    OpFoldResult ofr =
        ShapedType::isDynamic(size)
            ? OpFoldResult(tensor::DimOp::create(b, loc, v, d).getResult())
            : OpFoldResult(b.getIndexAttr(size));
    if (d != axis) {
      reassoc.push_back({static_cast<int64_t>(shape.size())});
      shape.push_back(size);
      outShape.push_back(ofr);
      continue;
    }
    reassoc.push_back({static_cast<int64_t>(shape.size()),
                       static_cast<int64_t>(shape.size() + 1)});
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      outShape.push_back(
          arith::DivUIOp::create(b, loc, cast<Value>(ofr),
                                 arith::ConstantIndexOp::create(b, loc, g))
              .getResult());
    } else {
      shape.push_back(size / g);
      outShape.push_back(b.getIndexAttr(size / g));
    }
    shape.push_back(g);
    outShape.push_back(b.getIndexAttr(g));
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, reassoc,
      outShape);
}

/// Extends a stored integer code to i32 per the scheme's signedness.
static Value extendCode(OpBuilder &b, Location loc, Value code,
                        SchemeAttr scheme) {
  Type i32 = b.getI32Type();
  if (scheme.isUnsigned())
    return arith::ExtUIOp::create(b, loc, i32, code);
  return arith::ExtSIOp::create(b, loc, i32, code);
}

/// Decodes an FP8 storage value to f32.
static Value decodeFp8(OpBuilder &b, Location loc, Value code,
                       SchemeAttr scheme) {
  Value raw = arith::BitcastOp::create(
      b, loc, b.getIntegerType(scheme.getStorageBits()), code);
  Value bits = arith::ExtUIOp::create(b, loc, b.getI32Type(), raw);
  return emitFp8BitsToF32(b, loc, bits, scheme.getFormat());
}

/// Sums the codes of `v` (extended per `scheme`) along dimension `reduced`
/// into `init` (the shape of `v` without that dimension).
static Value sumCodes(OpBuilder &b, Location loc, Value v, Value init,
                      unsigned reduced, SchemeAttr scheme) {
  unsigned rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<unsigned> all, kept;
  for (unsigned d = 0; d < rank; ++d) {
    all.push_back(d);
    if (d != reduced)
      kept.push_back(d);
  }
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[reduced] = utils::IteratorType::reduction;
  return buildGeneric(b, loc, rank, iters, {{v, all}}, {{init, kept}},
                      [&](OpBuilder &nb, Location l, ValueRange args) {
                        return SmallVector<Value>{arith::AddIOp::create(
                            nb, l, args[1],
                            extendCode(nb, l, args[0], scheme))};
                      })[0];
}

/// Column sums of a constant rhs (`[B x] K x N`, codes per `scheme`),
/// grouped along K when `group` > 0: shape `[B x] (G x) N`.
static DenseElementsAttr constantColumnSums(DenseElementsAttr rhs,
                                            SchemeAttr scheme,
                                            RankedTensorType sumType,
                                            int64_t group) {
  auto type = cast<RankedTensorType>(rhs.getType());
  int64_t rank = type.getRank();
  int64_t k = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
  int64_t batch = rank == 3 ? type.getDimSize(0) : 1;
  int64_t groups = group ? k / group : 1;
  SmallVector<int32_t> sums(batch * groups * n, 0);
  int64_t i = 0;
  for (const APInt &v : rhs.getValues<APInt>()) {
    int64_t bi = i / (k * n), ki = (i / n) % k, ni = i % n;
    int64_t code = scheme.isUnsigned() ? static_cast<int64_t>(v.getZExtValue())
                                       : v.getSExtValue();
    int64_t gi = group ? ki / group : 0;
    sums[(bi * groups + gi) * n + ni] += static_cast<int32_t>(code);
    ++i;
  }
  return DenseElementsAttr::get(sumType, ArrayRef<int32_t>(sums));
}

/// Dims of an rhs parameter tensor in the contraction's iteration space.
static SmallVector<unsigned> paramDims(SchemeAttr scheme, bool batched,
                                       unsigned dB, unsigned dG, unsigned dN) {
  SmallVector<unsigned> dims;
  switch (scheme.getGranularity()) {
  case Granularity::per_tensor:
    return dims;
  case Granularity::per_axis:
    dims.push_back(dN);
    return dims;
  case Granularity::per_group:
    if (batched)
      dims.push_back(dB);
    dims.push_back(dG);
    dims.push_back(dN);
    return dims;
  }
  return dims;
}

/// The per-op state of one octet.matmul lowering, and its steps in the
/// order matchAndRewrite runs them. Each step emits at the builder's
/// insertion point, so the step order is the order of the emitted IR.
struct MatmulSteps {
  MatmulSteps(MatmulOp op, MatmulOp::Adaptor adaptor, OpBuilder &b);

  /// Sizes of lhs/rhs; splits K into groups; lhs per-token parameters
  /// ([b] m 1) are collapsed to [b] m.
  void prepareOperands();
  /// 1. The contraction on codes into `acc`.
  void emitContraction();
  /// 2. Row sums, column sums and K for the zero-point terms (integer
  /// accumulation only).
  void emitZeroPointSums();
  /// For groups: `groupSum` = sum_g float(acc_g) * sb[g] (corrected for zero
  /// points first).
  void emitGroupSum();
  /// 3. The element-wise epilogue; returns the result tensor.
  Value emitEpilogue();

  /// `rest` prefixed with the batch dim of the contraction when `isBatched`.
  SmallVector<unsigned> withBatch(std::initializer_list<unsigned> rest,
                                  bool isBatched) const;
  /// Body of the contraction: accumulates one product of codes.
  Value emitProduct(OpBuilder &nb, Location l, ValueRange args,
                    bool rhsZpInLoop) const;
  /// Column sums of rhs codes (constant-folded when rhs is a constant).
  Value emitColumnSums();
  /// Sizes of the [b] m n result.
  SmallVector<OpFoldResult> outputSizes() const;

  MatmulOp op;
  MatmulOp::Adaptor adaptor;
  OpBuilder &b;
  Location loc;

  // Schemes and the form of the product.
  std::optional<SchemeAttr> lhsScheme;
  SchemeAttr rhsScheme;
  bool floatLhs, fp8, intAcc, batched, rhsBatched, grouped, lhsPerToken;
  /// Block-wise lhs parameters (per row and rhs group, [b] m g): applied
  /// per group in emitGroupSum, not in the epilogue.
  bool lhsGrouped;
  int64_t g;
  Type i32, f32;

  // Iteration space dims. Non-grouped: [b] m n k. Grouped: [b] m gi n kk.
  unsigned nb, dB, dM, dG, dN, dK, numDims;

  // Operands and sizes (prepareOperands).
  Value lhs, rhs;
  RankedTensorType lhsType, rhsType;
  SmallVector<OpFoldResult> lhsSizes, rhsSizes;
  OpFoldResult mSize, nSize, kSize, gSize;
  Value lhsIn, rhsIn;
  Value lhsScaleV, lhsZpV;

  // The contraction (emitContraction).
  SmallVector<unsigned> accDims, rhsParamDims;
  Value acc;

  // Zero-point terms (emitZeroPointSums); null unless integer accumulation.
  Value lhsZp, rhsZp, rowSum, colSum, kCount;
  SmallVector<unsigned> lhsParamDims, rowDims, colDims;

  // sum_g float(acc_g) * sb[g] (emitGroupSum), f32 [b] m n.
  Value groupSum;
};

MatmulSteps::MatmulSteps(MatmulOp op, MatmulOp::Adaptor adaptor, OpBuilder &b)
    : op(op), adaptor(adaptor), b(b), loc(op.getLoc()) {
  lhs = adaptor.getLhs();
  rhs = adaptor.getRhs();
  lhsType = cast<RankedTensorType>(lhs.getType());
  rhsType = cast<RankedTensorType>(rhs.getType());
  lhsScheme = op.getLhsScheme();
  rhsScheme = op.getRhsScheme();
  floatLhs = !lhsScheme;
  // Float codes on both sides (FP8 and / or FP4): decoded to f32.
  fp8 = rhsScheme.isFloat() && !floatLhs;
  intAcc = !floatLhs && !fp8;
  batched = lhsType.getRank() == 3;
  rhsBatched = rhsType.getRank() == 3;
  grouped = rhsScheme.getGranularity() == Granularity::per_group;
  g = grouped ? rhsScheme.getGroupSize() : 0;
  lhsGrouped = op.hasGroupedLhs();
  lhsPerToken = lhsScheme &&
                lhsScheme->getGranularity() == Granularity::per_group &&
                !lhsGrouped;
  i32 = b.getI32Type();
  f32 = b.getF32Type();

  nb = batched ? 1 : 0;
  dB = 0;
  dM = nb;
  dG = nb + 1;
  dN = grouped ? nb + 2 : nb + 1;
  dK = grouped ? nb + 3 : nb + 2;
  numDims = dK + 1;
}

SmallVector<unsigned>
MatmulSteps::withBatch(std::initializer_list<unsigned> rest,
                       bool isBatched) const {
  SmallVector<unsigned> dims;
  if (isBatched)
    dims.push_back(dB);
  dims.append(rest);
  return dims;
}

void MatmulSteps::prepareOperands() {
  lhsSizes = tensor::getMixedSizes(b, loc, lhs);
  rhsSizes = tensor::getMixedSizes(b, loc, rhs);
  mSize = lhsSizes[nb];
  nSize = rhsSizes.back();
  kSize = lhsSizes.back();
  lhsIn = lhs;
  rhsIn = rhs;
  if (grouped) {
    lhsIn = expandGroups(b, loc, lhs, lhsType.getRank() - 1, g);
    rhsIn = expandGroups(b, loc, rhs, rhsType.getRank() - 2, g);
    gSize = tensor::getMixedSizes(b, loc, rhsIn)[rhsType.getRank() - 2];
  }

  // Per-token lhs parameters (per_group over the whole K, shape
  // [b] m 1) are used as [b] m.
  lhsScaleV = adaptor.getLhsScale();
  lhsZpV = adaptor.getLhsZeroPoint();
  if (lhsPerToken) {
    auto dropLast = [&](Value p) -> Value {
      if (!p)
        return p;
      auto pt = cast<RankedTensorType>(p.getType());
      SmallVector<ReassociationIndices> re;
      for (int64_t d = 0; d + 2 < pt.getRank(); ++d)
        re.push_back({d});
      re.push_back({pt.getRank() - 2, pt.getRank() - 1});
      return tensor::CollapseShapeOp::create(b, loc, p, re);
    };
    lhsScaleV = dropLast(lhsScaleV);
    lhsZpV = dropLast(lhsZpV);
  }
}

Value MatmulSteps::emitProduct(OpBuilder &nb2, Location l, ValueRange args,
                               bool rhsZpInLoop) const {
  Value a = args[0], w = args[1];
  Value prod;
  if (intAcc) {
    prod = arith::MulIOp::create(nb2, l, extendCode(nb2, l, a, *lhsScheme),
                                 extendCode(nb2, l, w, rhsScheme));
    return arith::AddIOp::create(nb2, l, args.back(), prod);
  }
  Value af, wf;
  if (fp8) {
    af = decodeFp8(nb2, l, a, *lhsScheme);
    wf = decodeFp8(nb2, l, w, rhsScheme);
  } else {
    af = a.getType() == f32 ? a
                            : arith::ExtFOp::create(nb2, l, f32, a).getResult();
    if (rhsScheme.isFloat()) {
      wf = decodeFp8(nb2, l, w, rhsScheme);
    } else if (rhsScheme.isNf4()) {
      wf = emitNf4ToF32(nb2, l, arith::ExtUIOp::create(nb2, l, i32, w));
    } else {
      Value wi = extendCode(nb2, l, w, rhsScheme);
      if (rhsZpInLoop)
        wi = arith::SubIOp::create(nb2, l, wi, args[2]);
      wf = arith::SIToFPOp::create(nb2, l, f32, wi);
    }
  }
  prod = arith::MulFOp::create(nb2, l, af, wf);
  return arith::AddFOp::create(nb2, l, args.back(), prod);
}

void MatmulSteps::emitContraction() {
  SmallVector<OpFoldResult> accSizes;
  if (batched) {
    accSizes.push_back(lhsSizes[0]);
    accDims.push_back(dB);
  }
  accSizes.push_back(mSize);
  accDims.push_back(dM);
  if (grouped) {
    accSizes.push_back(gSize);
    accDims.push_back(dG);
  }
  accSizes.push_back(nSize);
  accDims.push_back(dN);
  Value accInit = filled(b, loc, accSizes,
                         intAcc ? TypedAttr(b.getI32IntegerAttr(0))
                                : TypedAttr(b.getF32FloatAttr(0.0f)));
  SmallVector<utils::IteratorType> iters(numDims,
                                         utils::IteratorType::parallel);
  iters[dK] = utils::IteratorType::reduction;
  SmallVector<unsigned> lhsDims =
      grouped ? withBatch({dM, dG, dK}, batched) : withBatch({dM, dK}, batched);
  SmallVector<unsigned> rhsDims = grouped ? withBatch({dG, dK, dN}, rhsBatched)
                                          : withBatch({dK, dN}, rhsBatched);
  SmallVector<Operand> ins{{lhsIn, lhsDims}, {rhsIn, rhsDims}};
  // Float lhs keeps the rhs zero point inside the loop (float(B - zb)).
  Value rhsZpIn = adaptor.getRhsZeroPoint();
  rhsParamDims = paramDims(rhsScheme, rhsBatched, dB, dG, dN);
  if (floatLhs && rhsZpIn)
    ins.push_back({rhsZpIn, rhsParamDims});
  bool rhsZpInLoop = static_cast<bool>(rhsZpIn);
  acc = buildGeneric(b, loc, numDims, iters, ins, {{accInit, accDims}},
                     [&](OpBuilder &nb2, Location l, ValueRange args) {
                       return SmallVector<Value>{
                           emitProduct(nb2, l, args, rhsZpInLoop)};
                     })[0];
}

Value MatmulSteps::emitColumnSums() {
  SmallVector<OpFoldResult> sizes;
  SmallVector<int64_t> shape;
  if (rhsBatched) {
    sizes.push_back(rhsSizes[0]);
    shape.push_back(rhsType.getDimSize(0));
  }
  if (grouped) {
    sizes.push_back(gSize);
    shape.push_back(
        ShapedType::isDynamic(rhsType.getDimSize(rhsType.getRank() - 2))
            ? ShapedType::kDynamic
            : rhsType.getDimSize(rhsType.getRank() - 2) / g);
  }
  sizes.push_back(nSize);
  shape.push_back(rhsType.getDimSize(rhsType.getRank() - 1));
  DenseElementsAttr constRhs;
  if (matchPattern(rhs, m_Constant(&constRhs)) && rhsType.hasStaticShape())
    return arith::ConstantOp::create(
        b, loc,
        constantColumnSums(constRhs, rhsScheme,
                           RankedTensorType::get(shape, i32), g));
  Value init = filled(b, loc, sizes, b.getI32IntegerAttr(0));
  return sumCodes(b, loc, rhsIn, init, /*reduced=*/
                  cast<RankedTensorType>(rhsIn.getType()).getRank() - 2,
                  rhsScheme);
}

void MatmulSteps::emitZeroPointSums() {
  lhsZp = intAcc ? lhsZpV : Value();
  rhsZp = intAcc ? adaptor.getRhsZeroPoint() : Value();
  if (lhsGrouped)
    lhsParamDims = withBatch({dM, dG}, batched);
  else if (lhsScheme)
    lhsParamDims = lhsScheme->getGranularity() == Granularity::per_tensor
                       ? SmallVector<unsigned>{}
                       : withBatch({dM}, lhsPerToken && batched);
  rowDims = grouped ? withBatch({dM, dG}, batched) : withBatch({dM}, batched);
  colDims =
      grouped ? withBatch({dG, dN}, rhsBatched) : withBatch({dN}, rhsBatched);
  if (rhsZp) {
    // rowsum(A) over K (per group).
    SmallVector<OpFoldResult> sizes;
    if (batched)
      sizes.push_back(lhsSizes[0]);
    sizes.push_back(mSize);
    if (grouped)
      sizes.push_back(gSize);
    Value init = filled(b, loc, sizes, b.getI32IntegerAttr(0));
    rowSum = sumCodes(b, loc, lhsIn, init, /*reduced=*/
                      cast<RankedTensorType>(lhsIn.getType()).getRank() - 1,
                      *lhsScheme);
  }
  if (lhsZp)
    colSum = emitColumnSums();
  if (lhsZp && rhsZp) {
    OpFoldResult count = grouped ? OpFoldResult(b.getIndexAttr(g)) : kSize;
    Value idx = getValueOrCreateConstantIndexOp(b, loc, count);
    kCount = arith::IndexCastOp::create(b, loc, i32, idx);
  }
}

SmallVector<OpFoldResult> MatmulSteps::outputSizes() const {
  SmallVector<OpFoldResult> outSizes;
  if (batched)
    outSizes.push_back(lhsSizes[0]);
  outSizes.push_back(mSize);
  outSizes.push_back(nSize);
  return outSizes;
}

void MatmulSteps::emitGroupSum() {
  // y'[m, n] = sum_g float(acc_g) * sb[g, n] (sequential in g); with a
  // grouped lhs, sum_g (float(acc_g) * sa[m, g]) * sb[g, n].
  Value init = filled(b, loc, outputSizes(), b.getF32FloatAttr(0.0f));
  SmallVector<utils::IteratorType> giters(numDims - 1,
                                          utils::IteratorType::parallel);
  // dims: [b] m gi n  (dK dropped): gi is the reduction.
  giters[dG] = utils::IteratorType::reduction;
  SmallVector<Operand> gins{{acc, accDims}};
  gins.push_back({adaptor.getRhsScale(), rhsParamDims});
  unsigned zaIdx = 0, csIdx = 0, zbIdx = 0, rsIdx = 0, saIdx = 0;
  if (lhsGrouped) {
    saIdx = gins.size();
    gins.push_back({lhsScaleV, lhsParamDims});
  }
  if (lhsZp) {
    zaIdx = gins.size();
    gins.push_back({lhsZp, lhsParamDims});
    csIdx = gins.size();
    gins.push_back({colSum, colDims});
  }
  if (rhsZp) {
    zbIdx = gins.size();
    gins.push_back({rhsZp, rhsParamDims});
    rsIdx = gins.size();
    gins.push_back({rowSum, rowDims});
  }
  groupSum = buildGeneric(
      b, loc, numDims - 1, giters, gins, {{init, withBatch({dM, dN}, batched)}},
      [&](OpBuilder &nb2, Location l, ValueRange args) {
        Value a = args[0];
        if (intAcc) {
          MatmulEpilogueOperands zp;
          zp.acc = a;
          zp.lhsZeroPoint = lhsZp ? args[zaIdx] : Value();
          zp.colSum = lhsZp ? args[csIdx] : Value();
          zp.rhsZeroPoint = rhsZp ? args[zbIdx] : Value();
          zp.rowSum = rhsZp ? args[rsIdx] : Value();
          zp.kCount = kCount;
          a = emitZeroPointCorrection(nb2, l, zp);
          a = arith::SIToFPOp::create(nb2, l, f32, a);
        }
        if (lhsGrouped)
          a = arith::MulFOp::create(nb2, l, a, args[saIdx]);
        Value t = arith::MulFOp::create(nb2, l, a, args[1]);
        return SmallVector<Value>{
            arith::AddFOp::create(nb2, l, args.back(), t)};
      })[0];
}

Value MatmulSteps::emitEpilogue() {
  // Dims of the final element-wise epilogue: [b] m n (numbered 0..).
  unsigned eB = 0, eM = nb, eN = nb + 1, eDims = nb + 2;
  auto eWithBatch = [&](std::initializer_list<unsigned> rest, bool isB) {
    SmallVector<unsigned> dims;
    if (isB)
      dims.push_back(eB);
    dims.append(rest);
    return dims;
  };
  SmallVector<unsigned> eLhsParam;
  if (lhsScheme && lhsScheme->getGranularity() != Granularity::per_tensor)
    eLhsParam = eWithBatch({eM}, lhsPerToken && batched);

  Type resElem = op.getResult().getType().getElementType();
  Value outInit = tensor::EmptyOp::create(b, loc, outputSizes(), resElem);
  SmallVector<Operand> eins;
  unsigned idx = 0;
  auto add = [&](Value v, SmallVector<unsigned> dims) {
    eins.push_back({v, std::move(dims)});
    return idx++;
  };
  unsigned accI = add(grouped ? groupSum : acc, eWithBatch({eM, eN}, batched));
  std::optional<unsigned> saI, sbI, zaI, csI, zbI, rsI, biasI, osI, ozI;
  if (lhsScheme && !lhsGrouped)
    saI = add(lhsScaleV, eLhsParam);
  if (!grouped) {
    // Per-axis rhs parameters are one value per column N ([N]), shared
    // by every batch of a batched rhs.
    SmallVector<unsigned> sbDims;
    if (rhsScheme.getGranularity() == Granularity::per_axis)
      sbDims.push_back(eN);
    sbI = add(adaptor.getRhsScale(), sbDims);
    if (lhsZp) {
      zaI = add(lhsZp, eLhsParam);
      csI = add(colSum, eWithBatch({eN}, rhsBatched));
    }
    if (rhsZp) {
      zbI = add(rhsZp, sbDims);
      rsI = add(rowSum, eWithBatch({eM}, batched));
    }
  }
  if (Value bias = adaptor.getBias())
    biasI = add(bias, {eN});
  std::optional<SchemeAttr> outScheme = op.getOutScheme();
  if (outScheme) {
    SmallVector<unsigned> oDims;
    if (outScheme->getGranularity() == Granularity::per_axis)
      oDims.push_back(eN);
    osI = add(adaptor.getOutScale(), oDims);
    if (Value oz = adaptor.getOutZeroPoint())
      ozI = add(oz, oDims);
  }
  bool relu = op.getRelu();
  SmallVector<utils::IteratorType> eiters(eDims, utils::IteratorType::parallel);
  return buildGeneric(
      b, loc, eDims, eiters, eins, {{outInit, eWithBatch({eM, eN}, batched)}},
      [&](OpBuilder &nb2, Location l, ValueRange args) {
        auto arg = [&](std::optional<unsigned> i) {
          return i ? args[*i] : Value();
        };
        MatmulEpilogueOperands v;
        v.acc = args[accI];
        v.lhsScale = arg(saI);
        v.rhsScale = arg(sbI);
        v.lhsZeroPoint = arg(zaI);
        v.colSum = arg(csI);
        v.rhsZeroPoint = arg(zbI);
        v.rowSum = arg(rsI);
        v.kCount = kCount;
        v.bias = arg(biasI);
        v.outScale = arg(osI);
        v.outZeroPoint = arg(ozI);
        MatmulEpilogueResult r;
        r.relu = relu;
        r.outScheme = outScheme;
        r.resultElem = resElem;
        return SmallVector<Value>{emitMatmulEpilogue(nb2, l, v, r)};
      })[0];
}

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MatmulSteps steps(op, adaptor, rewriter);
    steps.prepareOperands();
    steps.emitContraction();
    steps.emitZeroPointSums();
    if (steps.grouped)
      steps.emitGroupSum();
    Value result = steps.emitEpilogue();
    auto resType = op.getResult().getType();
    if (result.getType() != resType)
      result = tensor::CastOp::create(rewriter, op.getLoc(), resType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::octet::populateMatmulLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering>(patterns.getContext());
}
