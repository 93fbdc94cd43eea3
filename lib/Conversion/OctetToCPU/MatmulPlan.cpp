//===- MatmulPlan.cpp - Which CPU kernel runs a matmul --------------------===//
//
// The coverage rules of convert-octet-to-cpu: which octet.matmul ops a
// generated x86 kernel runs (formats, scale and zero-point granularities,
// epilogue, constant weights) and with which GemmConfig, and which f32
// linalg contractions the f32 loop nests take. Everything else keeps the
// portable lowering, with the reason as a remark.
//
//===----------------------------------------------------------------------===//

#include "MatmulPlan.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

/// Records `reason` in `why`; returns failure.
static LogicalResult reject(std::string &why, const Twine &reason) {
  why = reason.str();
  return failure();
}

//===----------------------------------------------------------------------===//
// Kernel family and operand checks
//===----------------------------------------------------------------------===//

std::optional<Isa> mlir::octet::cpu::getKernelIsa(StrategyAttr strategy,
                                                  MatmulOp op) {
  switch (strategy.getKind()) {
  case StrategyKind::fallback:
    // A dequantize fallback of FP8 / FP4 codes on both sides is what the
    // float-code kernels do (decode to f32 in registers); other fallbacks
    // take the portable path.
    if (!op.getRhsScheme().isFloat8() &&
        !(op.getRhsScheme().isFloat4() && op.getLhsScheme()))
      return std::nullopt;
    [[fallthrough]];
  case StrategyKind::weight_only:
    // The f32 loop nests on an x86 float unit.
    if (strategy.getUnit() == KernelUnit::fma)
      return Isa::fma;
    // bf16 activations on a level with a bf16 row: the planner takes f32
    // activations only.
    if (strategy.getUnit() == KernelUnit::avx512_fma ||
        strategy.getUnit() == KernelUnit::avx512_bf16)
      return Isa::fma512;
    return std::nullopt;
  case StrategyKind::native:
  case StrategyKind::compensated:
    switch (strategy.getUnit()) {
    // tdpbssd for 8-bit integers; FP8 x FP8 as bf16 (the amx-int8 bf16
    // row) takes tdpbf16ps (planWeightOnly).
    case KernelUnit::amx:
      return Isa::amx;
    case KernelUnit::avx512_vnni:
      return Isa::vnni512;
    // FP8 x FP8 as bf16 (octet-select-lowering's x86 rule); the planner
    // keeps the f32 tiles where bf16 pairs do not apply.
    case KernelUnit::avx512_bf16:
      return Isa::dpbf16;
    // The 256-bit VNNI levels run the AVX2 kernels (exact s16 products).
    case KernelUnit::avx2:
    case KernelUnit::avx_vnni:
    case KernelUnit::avx_vnni_int8:
      return Isa::avx2;
    default:
      return std::nullopt;
    }
  case StrategyKind::fused:
  case StrategyKind::elementwise:
    return std::nullopt;
  }
  return std::nullopt;
}

/// Per-row/per-column kind of an lhs (`rowAxis` 0) or rhs/output (1)
/// parameter under `scheme`; none when the kernels do not take it.
static std::optional<Param> paramKind(SchemeAttr scheme, int64_t axis,
                                      int64_t k) {
  switch (scheme.getGranularity()) {
  case Granularity::per_tensor:
    return Param::scalar;
  case Granularity::per_axis:
    if (scheme.getAxis() == axis)
      return Param::vector;
    return std::nullopt;
  case Granularity::per_group:
    // Per-token lhs parameters are a group over the whole K.
    if (axis == 0 && scheme.getAxis() == 1 && scheme.getGroupSize() == k)
      return Param::vector;
    return std::nullopt;
  }
  return std::nullopt;
}

static bool isByteInteger(SchemeAttr scheme) {
  return scheme.getFormat() == StorageFormat::i8 ||
         scheme.getFormat() == StorageFormat::u8;
}

/// The input of `v` = `linalg.transpose` [1, 0] (how PyTorch-style [out,
/// in] weights and their scales reach octet.matmul), with `transposed`
/// set; else `v` itself.
static Value peelTranspose10(Value v, bool &transposed) {
  transposed = false;
  if (auto t =
          v ? v.getDefiningOp<linalg::TransposeOp>() : linalg::TransposeOp())
    if (t.getPermutation() == ArrayRef<int64_t>{1, 0}) {
      transposed = true;
      return t.getInput();
    }
  return v;
}

/// Matches `rhs` = constant or `linalg.transpose` [1, 0] of a constant with
/// readable bytes (dense or a dense_resource blob).
static bool matchRhsConstant(Value rhs, Plan &plan) {
  Value source = peelTranspose10(rhs, plan.rhsTransposed);
  ElementsAttr attr;
  if (!matchPattern(source, m_Constant(&attr)) || !rawBytes(attr))
    return false;
  // 8-bit codes, or 4-bit ones (a byte each in the attribute's storage).
  unsigned width = cast<ShapedType>(attr.getType()).getElementTypeBitWidth();
  if (width != 8 && width != 4)
    return false;
  plan.rhsConstant = attr;
  return true;
}

//===----------------------------------------------------------------------===//
// octet.matmul
//===----------------------------------------------------------------------===//

/// The rhs scale of `plan`: per tensor or per column, or, for a float lhs,
/// per group of K rows; the reason otherwise.
static LogicalResult planRhsScale(MatmulOp op, Plan &plan, std::string &why) {
  GemmConfig &c = plan.config;
  SchemeAttr rhsScheme = op.getRhsScheme();
  std::optional<Param> sb = paramKind(rhsScheme, 1, plan.k);
  // Weight-only, or block-wise FP8 (the lhs in the same groups): per-group
  // scales along K (groups of a multiple of 8 rows that divides K), applied
  // per group in the kernel.
  bool blockFp8 = op.hasGroupedLhs() && op.getLhsScheme()->isFloat();
  if (!sb && (op.hasFloatLhs() || blockFp8) &&
      rhsScheme.getGranularity() == Granularity::per_group &&
      rhsScheme.getAxis() == 0 && rhsScheme.getGroupSize() % 8 == 0 &&
      plan.k % rhsScheme.getGroupSize() == 0) {
    sb = Param::vector;
    c.group = rhsScheme.getGroupSize();
  }
  if (!sb)
    return reject(why,
                  op.hasFloatLhs()
                      ? "rhs scale is not per-tensor, per-column or per-group "
                        "of a multiple of 8 rows dividing K"
                      : "rhs scale is not per-tensor or per-column");
  c.sb = *sb;
  return success();
}

/// The epilogue of `plan`: bias, ReLU and an f32 or requantized i8/u8
/// result; the reason otherwise.
static LogicalResult planEpilogue(MatmulOp op, Plan &plan, std::string &why) {
  GemmConfig &c = plan.config;
  auto resType = cast<RankedTensorType>(op.getResult().getType());
  c.bias = static_cast<bool>(op.getBias());
  c.relu = op.getRelu();
  Type resElem = resType.getElementType();
  if (std::optional<SchemeAttr> out = op.getOutScheme()) {
    if (!isByteInteger(*out))
      return reject(why, "requantized result is not i8/u8");
    std::optional<Param> os = paramKind(*out, 1, plan.k);
    if (!os)
      return reject(why, "output scale is not per-tensor or per-column");
    c.outScheme = *out;
    c.os = *os;
    c.oz = op.getOutZeroPoint() ? *os : Param::none;
  } else if (!resElem.isF32()) {
    return reject(why, "result is not f32");
  }
  return success();
}

/// The weight-only / FP8 kernel of a float or FP8 lhs (`lhsFp8`: its
/// scheme when FP8; `fp8`: FP8 codes on the rhs; `nibbles`: 4-bit rhs
/// codes), with zmm vectors when `isa` is fma512; the reason otherwise.
static LogicalResult planWeightOnly(MatmulOp op, Isa isa,
                                    std::optional<SchemeAttr> lhsFp8, bool fp8,
                                    bool nibbles, StringRef cpu, Plan &plan,
                                    std::string &why) {
  GemmConfig &c = plan.config;
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  SchemeAttr rhsScheme = op.getRhsScheme();
  if (!lhsFp8 && !lhsType.getElementType().isF32())
    return reject(why, "float lhs is not f32");
  c.weightOnly = true;
  c.isa = isa == Isa::fma512 || isa == Isa::dpbf16 || isa == Isa::amx
              ? Isa::fma512
              : Isa::fma;
  if (fp8)
    c.rhsFp8 = rhsScheme.getFormat();
  if (lhsFp8) {
    // FP8 or FP4 lhs codes, decoded as the kernel reads them.
    c.lhsFp8 = lhsFp8->getFormat();
    if (op.hasGroupedLhs()) {
      // Block-wise: planRhsScale took the rhs groups; the lhs scale of
      // each row and group multiplies the decoded lhs.
      c.lhsGroupScale = true;
      c.sa = Param::none;
    } else {
      std::optional<Param> sa = paramKind(*lhsFp8, 0, plan.k);
      if (!sa)
        return reject(why, "lhs scale is not per-tensor or per-row");
      c.sa = *sa;
    }
  }
  // The epilogue applies no lhs scale after per-group rhs scales.
  if (c.group && lhsFp8 && !c.lhsGroupScale)
    return reject(why, "per-group float-coded rhs scales with a per-row or "
                       "per-tensor lhs scale");
  // Constant codes are packed in panels here (GemmConfig::panelColumns;
  // 4-bit codes two per byte, so they must be constant); any other rhs is
  // read where it is.
  bool constant = matchRhsConstant(op.getRhs(), plan);
  if (nibbles && !constant)
    return reject(why, "4-bit rhs is not a constant (packed at compile time)");
  c.rhsNibbles = nibbles;
  c.rhsPanels = constant;
  // Constant per-group scales go with the codes' panels (a transpose of
  // a constant too, the importer's form beside transposed codes: those
  // were read unpacked, [K / group][N] rows beside the panels).
  ElementsAttr scales;
  bool scaleTransposed;
  Value scaleSource = peelTranspose10(op.getRhsScale(), scaleTransposed);
  if (constant && c.group && scaleSource &&
      matchPattern(scaleSource, m_Constant(&scales)) &&
      scales.getElementType().isF32()) {
    std::optional<ArrayRef<char>> raw = rawBytes(scales);
    if (raw &&
        (scales.isSplat() ||
         raw->size() == static_cast<size_t>(plan.k / c.group * plan.n * 4))) {
      plan.rhsScaleConstant = scales;
      plan.rhsScaleTransposed = scaleTransposed;
      c.scalePanels = true;
    }
  }
  c.rhsFp4 = rhsScheme.isFloat4();
  c.rhsNf4 = rhsScheme.isNf4();
  // Constant E4M3 weights without a NaN code (0x7F / 0xFF: every one the
  // quantizer writes from finite weights) decode without the NaN select.
  if (constant && c.rhsFp8 == StorageFormat::f8E4M3FN) {
    ArrayRef<char> raw = *rawBytes(plan.rhsConstant);
    c.rhsNoNan = llvm::none_of(
        raw, [](char code) { return (code & 0x7F) == 0x7F; });
  }
  if (!constant)
    plan.rhsConstant = nullptr;
  if (op.getRhsZeroPoint() && c.group)
    return reject(why, "per-group rhs zero points");
  c.zb = op.getRhsZeroPoint() ? c.sb : Param::none;
  // bf16 pairs (vdpbf16ps): E4M3 / E5M2 on both sides are exact in bf16,
  // and so is every product of two in f32; scales applied per group would
  // multiply the operands (not exact), and pairs need an even K.
  // (rhsFp8 is set for FP8 rhs codes only.)
  bool bf16Exact =
      lhsFp8 && lhsFp8->isFloat8() && c.rhsFp8 && !c.group && !c.lhsGroupScale;
  if (isa == Isa::dpbf16 && bf16Exact && plan.k % 2 == 0)
    c.isa = Isa::dpbf16;
  // AMX-BF16 tiles (any K: both operands are zero-padded to 32) read
  // constant codes from their panels (converted per column strip of a
  // task); rows below MR keep the FP8 decode kernel on the same panels.
  if (isa == Isa::amx && bf16Exact && c.rhsPanels)
    c.isa = Isa::amxBf16;
  setTileSizes(c);
  c.panelPrefetchL1 = prefersL1Prefetch(cpu) && c.rhsPanels;
  if (c.rhsPanels)
    c.panelPrefetchBytes = panelPrefetchBytes(cpu);
  return success();
}

/// The integer kernel (`isa`, or the one the operands' signedness allows)
/// of an i8/u8 lhs and constant weights; the reason otherwise.
static LogicalResult planInteger(MatmulOp op, Isa isa, Plan &plan,
                                 std::string &why) {
  GemmConfig &c = plan.config;
  std::optional<SchemeAttr> lhsScheme = op.getLhsScheme();
  if (!lhsScheme || !isByteInteger(*lhsScheme))
    return reject(why, "lhs format is not i8/u8");
  if (op.getRhsZeroPoint())
    return reject(why, "integer GEMM with an rhs zero point");
  if (isa == Isa::fma || isa == Isa::fma512 || isa == Isa::dpbf16 ||
      isa == Isa::amxBf16)
    return reject(why, "the strategy's unit does not multiply integers");
  if (!matchRhsConstant(op.getRhs(), plan))
    return reject(why, "rhs is not a constant or a transposed constant "
                       "(weights are packed at compile time)");
  c.lhsUnsigned = lhsScheme->isUnsigned();
  std::optional<Param> sa = paramKind(*lhsScheme, 0, plan.k);
  if (!sa)
    return reject(why, "lhs scale is not per-tensor or per-row");
  c.sa = *sa;
  c.za = op.getLhsZeroPoint() ? *sa : Param::none;
  c.isa = isa;
  // AMX here is tdpbssd (s8 x s8); VNNI takes an unsigned rhs only through
  // a second compensation, which the AVX2 kernel does not need.
  if (c.isa == Isa::amx && (c.lhsUnsigned || c.rhsUnsigned))
    c.isa = Isa::vnni512;
  if (c.isa == Isa::vnni512 && c.rhsUnsigned)
    c.isa = Isa::avx2;
  setTileSizes(c);
  return success();
}

bool mlir::octet::cpu::prefersL1Prefetch(StringRef cpu) {
  return cpu.starts_with("znver");
}

int64_t mlir::octet::cpu::panelPrefetchBytes(StringRef cpu) {
  return cpu == "znver4" ? 4096 : kDefaultPanelPrefetchBytes;
}

FailureOr<Plan> mlir::octet::cpu::planMatmul(MatmulOp op,
                                             std::optional<Isa> isaChoice,
                                             StringRef cpu, std::string &why) {
  Plan plan;
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  if (!isaChoice)
    return reject(why, "no generated x86 kernel for the strategy's unit");
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2)
    return reject(why, "batched matmul");
  if (!rhsType.hasStaticShape() || ShapedType::isDynamic(lhsType.getDimSize(1)))
    return reject(why, "dynamic K or N");
  plan.k = rhsType.getDimSize(0);
  plan.n = rhsType.getDimSize(1);
  if (plan.k == 0 || plan.n == 0)
    return reject(why, "empty K or N");
  SchemeAttr rhsScheme = op.getRhsScheme();
  bool nibbles = rhsScheme.getStorageBits() == 4; // i4, u4, f4E2M1FN, nf4
  // An FP8 or FP4 lhs (one code per byte; named lhsFp8 in the config).
  std::optional<SchemeAttr> lhsFp8;
  if (std::optional<SchemeAttr> ls = op.getLhsScheme(); ls && ls->isFloat())
    lhsFp8 = *ls;
  // FP8 / FP4 x FP8 / FP4 (or f32 x FP8): decoded to f32 in the f32 loop
  // nests (x86 has no FP8 or FP4 arithmetic; this is the dequantize
  // fallback, done in the kernel's registers).
  bool fp8 = rhsScheme.isFloat8() && (lhsFp8 || op.hasFloatLhs());
  if (lhsFp8 && !rhsScheme.isFloat())
    return reject(why, "float-coded lhs with an integer rhs");
  if (!isByteInteger(rhsScheme) && !fp8 &&
      !(nibbles && (op.hasFloatLhs() || rhsScheme.isFloat4())))
    return reject(why, op.hasFloatLhs() ? "rhs format is not i8/u8/i4/u4/FP8/FP4/NF4"
                                        : "rhs format is not i8/u8");
  plan.config.rhsUnsigned = rhsScheme.isUnsigned();
  if (failed(planRhsScale(op, plan, why)) ||
      failed(planEpilogue(op, plan, why)))
    return failure();
  if (op.hasFloatLhs() || lhsFp8) {
    if (failed(planWeightOnly(op, *isaChoice, lhsFp8, fp8, nibbles, cpu, plan,
                              why)))
      return failure();
    return plan;
  }
  if (failed(planInteger(op, *isaChoice, plan, why)))
    return failure();
  return plan;
}

//===----------------------------------------------------------------------===//
// f32 linalg contractions
//===----------------------------------------------------------------------===//

FailureOr<FloatContraction>
mlir::octet::cpu::matchFloatContraction(linalg::LinalgOp op,
                                        std::string &why) {
  auto fail = [&](const Twine &reason) -> FailureOr<FloatContraction> {
    why = reason.str();
    return failure();
  };
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  if (!batched && !isa<linalg::MatmulOp>(op.getOperation()))
    return fail("not a matmul");
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return fail("not on tensors");
  FloatContraction fc;
  fc.lhs = op.getDpsInputOperand(0)->get();
  fc.rhs = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto lt = dyn_cast<RankedTensorType>(fc.lhs.getType());
  auto rt = dyn_cast<RankedTensorType>(fc.rhs.getType());
  auto ct = dyn_cast<RankedTensorType>(init.getType());
  if (!lt || !rt || !ct || !lt.getElementType().isF32() ||
      !rt.getElementType().isF32() || !ct.getElementType().isF32())
    return fail("not f32");
  // The maps: standard or with the rhs transposed.
  MLIRContext *ctx = op->getContext();
  unsigned dims = batched ? 4 : 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> bp;
  if (batched)
    bp.push_back(d(0));
  unsigned o = batched ? 1 : 0; // m = o, n = o + 1, k = o + 2
  auto map = [&](ArrayRef<AffineExpr> r) {
    SmallVector<AffineExpr> e(bp);
    e.append(r.begin(), r.end());
    return AffineMap::get(dims, 0, e, ctx);
  };
  AffineMap aMap = map({d(o), d(o + 2)}), bMap = map({d(o + 2), d(o + 1)}),
            btMap = map({d(o + 1), d(o + 2)}), cMap = map({d(o), d(o + 1)});
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[0] != aMap || maps[2] != cMap ||
      (maps[1] != bMap && maps[1] != btMap))
    return fail("indexing maps other than (m, k) x (k, n) or (n, k)");
  fc.rhsTransposed = maps[1] == btMap;
  if (!rt.hasStaticShape() || ShapedType::isDynamic(lt.getDimSize(o + 1)))
    return fail("dynamic K, N or batch");
  if (batched) {
    fc.batch = rt.getDimSize(0);
    if (lt.getDimSize(0) != fc.batch || ct.getDimSize(0) != fc.batch)
      return fail("batch sizes differ");
  }
  fc.k = fc.rhsTransposed ? rt.getDimSize(o + 1) : rt.getDimSize(o);
  fc.n = fc.rhsTransposed ? rt.getDimSize(o) : rt.getDimSize(o + 1);
  if (fc.k == 0 || fc.n == 0 || (batched && fc.batch == 0))
    return fail("empty K, N or batch");
  // A +0.0 init: the kernels start their sums at +0.0.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr zero;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&zero)) ||
      !zero.getValue().isPosZero())
    return fail("init is not filled with +0.0");
  return fc;
}

Plan mlir::octet::cpu::planFloatContraction(const FloatContraction &fc,
                                            Isa isa) {
  Plan plan;
  GemmConfig &c = plan.config;
  c.isa = isa;
  c.weightOnly = true;
  c.floatRhs = true;
  c.sb = Param::none;
  c.batched = fc.batch != 0;
  plan.k = fc.k;
  plan.n = fc.n;
  // A constant rhs read through (K x N, or N x K transposed here).
  ElementsAttr attr;
  if (!c.batched && matchPattern(fc.rhs, m_Constant(&attr)) &&
      rawBytes(attr)) {
    plan.rhsConstant = attr;
    plan.rhsTransposed = fc.rhsTransposed;
  } else {
    c.rhsTransposed = fc.rhsTransposed;
  }
  setTileSizes(c);
  return plan;
}
