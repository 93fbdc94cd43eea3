//===- Strategy.cpp - Kernel strategy selection ---------------------------===//

#include "octet/Target/Strategy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

/// A row that is a real matrix/dot unit for `a` x `b` (not a simd path).
static const KernelRow *findUnitRow(const TargetInfo &t, Elem a, Elem b,
                                    BlockScale s) {
  const KernelRow *row = findKernel(t.id, a, b, s);
  return row && row->kind != RowKind::simd ? row : nullptr;
}

/// The 8-bit integer an unpacked 4-bit integer becomes.
static Elem widen(Elem e) {
  if (e == Elem::s4)
    return Elem::s8;
  if (e == Elem::u4)
    return Elem::u8;
  return e;
}

static StrategyKind kindOf(const KernelRow &row) {
  return row.kind == RowKind::compensated ? StrategyKind::compensated
                                          : StrategyKind::native;
}

/// "FP8" or "INT8/FP8" for the families of `a` and `b`.
static std::string familyOf(Elem a, Elem b) {
  StringRef fa = getFormatFamily(a), fb = getFormatFamily(b);
  return fa == fb ? fa.str() : (fa + "/" + fb).str();
}

/// "a, b and c".
static std::string joinList(ArrayRef<std::string> items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

/// "sm_89, sm_90a, sm_100a and sm_120a".
static std::string joinNames(ArrayRef<const TargetInfo *> targets) {
  SmallVector<std::string> names;
  for (const TargetInfo *t : targets)
    names.push_back(t->name.str());
  return joinList(names);
}

/// The bf16 row that FP8 x FP8 without block scales runs on at `t` as exact
/// bf16 values, or null: an x86 level's bf16 dot product (vdpbf16ps zmm
/// pairs; on amx-int8 the AMX-BF16 tiles, tdpbf16ps: Sapphire, Emerald and
/// Granite Rapids multiply bf16 with vdpbf16ps no faster than with their
/// two FMA ports, 0.65x of FP8 decoded to f32 for MiniLM's FP8 W8A8 on
/// Emerald Rapids, 2026-12-05).
static const KernelRow *fp8PairRow(const TargetInfo &t) {
  if (t.arch != Arch::x86)
    return nullptr;
  return findUnitRow(t, Elem::bf16, Elem::bf16, BlockScale::none);
}

/// What a dequantize fallback costs on `t`, and where the formats are native.
static std::string fallbackCost(const TargetInfo &t, Elem a, Elem b,
                                BlockScale s) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef floatName = stringifyElem(t.floatElem);
  os << (s == BlockScale::mx ? "MX " : "") << familyOf(a, b) << " ("
     << stringifyElem(a) << " x " << stringifyElem(b)
     << (s == BlockScale::mx   ? ", E8M0 scales per block of 32"
         : s == BlockScale::nv ? ", NVFP4: E4M3 scales per block of 16"
                               : "")
     << ") on " << t.name << ": dequantized to " << floatName << ", ";
  if (t.arch == Arch::cuda)
    os << "no tensor-core speedup";
  else
    os << "no speedup over " << floatName << " FMA";
  SmallVector<const TargetInfo *> native;
  for (const TargetInfo *other : targetsWithKernel(a, b, s))
    if (other->arch == t.arch)
      native.push_back(other);
  if (!native.empty()) {
    os << "; native on " << joinNames(native);
    return text;
  }
  os << "; no " << stringifyArch(t.arch) << " target multiplies "
     << stringifyElem(a) << " x " << stringifyElem(b) << " natively";
  // x86 levels with a bf16 dot product take FP8 as exact bf16 values.
  if (t.arch == Arch::x86 && s == BlockScale::none && familyOf(a, b) == "FP8") {
    SmallVector<std::string> bf16;
    for (const TargetInfo *other :
         targetsWithKernel(Elem::bf16, Elem::bf16, BlockScale::none))
      if (const KernelRow *row = fp8PairRow(*other))
        bf16.push_back((other->name + " (" +
                        row->instantiate(Elem::bf16, Elem::bf16) + ")")
                           .str());
    if (!bf16.empty())
      os << "; as exact bf16 values on " << joinList(bf16);
  }
  return text;
}

StrategyChoice target::selectContraction(const TargetInfo &t,
                                         const ContractionQuery &q) {
  assert((q.aQuantized || q.bQuantized) && "a float x float contraction");
  StrategyChoice choice;
  if (q.aQuantized && q.bQuantized) {
    // The formats as they are.
    if (const KernelRow *row = findUnitRow(t, q.a, q.b, q.scale)) {
      choice.kind = kindOf(*row);
      choice.row = row;
      choice.a = q.a;
      choice.b = q.b;
      return choice;
    }
    // 4-bit integers unpacked to 8 bits in registers.
    Elem a8 = widen(q.a), b8 = widen(q.b);
    if (a8 != q.a || b8 != q.b) {
      if (const KernelRow *row = findUnitRow(t, a8, b8, q.scale)) {
        SmallVector<std::string> notes;
        if (a8 != q.a)
          notes.push_back(
              ("A " + stringifyElem(q.a) + " unpacked to " + stringifyElem(a8))
                  .str());
        if (b8 != q.b)
          notes.push_back(
              ("B " + stringifyElem(q.b) + " unpacked to " + stringifyElem(b8))
                  .str());
        choice.kind = kindOf(*row);
        choice.row = row;
        choice.a = a8;
        choice.b = b8;
        choice.note = llvm::join(notes, ", ");
        return choice;
      }
    }
    // x86: E4M3 and E5M2 values are exact in bf16, so a level with a bf16
    // dot product (vdpbf16ps or AMX-BF16 tdpbf16ps, products exact in f32)
    // multiplies FP8 codes converted to bf16 (fp8PairRow). Block-scaled
    // formats keep the f32 fallback (their scales multiply the operands,
    // which bf16 would round).
    if (q.scale == BlockScale::none && familyOf(q.a, q.b) == "FP8") {
      if (const KernelRow *row = fp8PairRow(t)) {
        choice.kind = kindOf(*row);
        choice.row = row;
        choice.a = choice.b = Elem::bf16;
        choice.note = ("A " + stringifyElem(q.a) + " and B " +
                       stringifyElem(q.b) + " converted to bf16 (exact)")
                          .str();
        return choice;
      }
    }
    // Nothing takes these formats: dequantize both.
    choice.kind = StrategyKind::fallback;
    choice.row = findKernel(t.id, t.floatElem, t.floatElem);
    assert(choice.row && "every target has a row for its float type");
    choice.a = choice.b = t.floatElem;
    choice.note =
        ("A and B dequantized to " + stringifyElem(t.floatElem)).str();
    choice.cost = fallbackCost(t, q.a, q.b, q.scale);
    return choice;
  }

  // Weight-only.
  Elem floatElem = q.aQuantized ? q.b : q.a;
  Elem quantElem = q.aQuantized ? q.a : q.b;
  StringRef quantName = q.aQuantized ? "A" : "B";
  choice.kind = StrategyKind::weight_only;
  if (t.arch == Arch::cuda) {
    // convert-octet-to-gpu runs every weight-only product on its gemv
    // kernel (CUDA cores: codes decoded to f32, f32 FMA) whatever the
    // activations' float type and M: memory-bound at decode sizes, and no
    // tensor-core path for larger M yet (docs/cuda.md, known gaps). No
    // activation type would do better, so there is no cost to warn of.
    choice.row = findKernel(t.id, Elem::f32, Elem::f32);
    assert(choice.row && "every target has an f32 row");
    choice.a = choice.b = Elem::f32;
    choice.note = (quantName + " " + stringifyElem(quantElem) +
                   " decoded to f32 in the gemv kernel (" +
                   stringifyElem(floatElem) + " activations)")
                      .str();
    return choice;
  }
  // CPUs: the float operand's type decides the unit. (The x86 bf16 rows
  // serve FP8 x FP8 above: the generated weight-only kernels take f32
  // activations, so bf16 ones are widened.)
  choice.row = t.arch == Arch::x86 && floatElem == Elem::bf16
                   ? nullptr
                   : findKernel(t.id, floatElem, floatElem);
  Elem unitElem = floatElem;
  std::string widened;
  if (!choice.row) {
    // No row for this float type (bf16 before sm_80, f16 on CPUs): widen it
    // to f32, which is exact and which every target has.
    unitElem = Elem::f32;
    choice.row = findKernel(t.id, Elem::f32, Elem::f32);
    assert(choice.row && "every target has an f32 row");
    widened = (", " + stringifyElem(floatElem) + " widened to f32").str();
  }
  choice.a = choice.b = unitElem;
  choice.note = (quantName + " " + stringifyElem(quantElem) + " converted to " +
                 stringifyElem(unitElem) + " in the kernel" + widened)
                    .str();
  return choice;
}

StrategyChoice target::selectElementwise(const TargetInfo &t, Elem in,
                                         Elem out) {
  StrategyChoice choice;
  choice.kind = StrategyKind::elementwise;
  choice.a = in;
  choice.b = out;
  choice.note = t.arch == Arch::cuda
                    ? "CUDA element-wise kernel"
                    : "vectorized loops (convert-octet-to-linalg)";
  return choice;
}

StrategyAttr StrategyChoice::getAttr(MLIRContext *ctx,
                                     const TargetInfo &t) const {
  KernelUnit unit;
  StringRef acc, shape;
  std::string instruction, fullNote;
  SmallVector<StringRef> notes;
  if (row) {
    unit = row->unit;
    acc = stringifyAcc(row->acc);
    shape = row->shape;
    instruction = row->instantiate(a, b);
    if (!row->note.empty())
      notes.push_back(row->note);
  } else {
    unit = t.arch == Arch::cuda ? KernelUnit::cuda_elementwise
                                : KernelUnit::vector;
  }
  if (!note.empty())
    notes.push_back(note);
  fullNote = llvm::join(notes, "; ");
  return StrategyAttr::get(ctx, kind, unit, stringifyElem(a), stringifyElem(b),
                           acc, shape, instruction, fullNote);
}

std::string StrategyChoice::getSummary(const TargetInfo &t) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (t.arch == Arch::cuda ? "cuda " : "cpu ");
  if (row)
    os << stringifyKernelUnit(row->unit) << " " << stringifyElem(a) << " x " << stringifyElem(b)
       << " " << row->shape;
  else
    os << "elementwise " << stringifyElem(a) << " -> " << stringifyElem(b);
  os << " (" << stringifyStrategyKind(kind) << ")";
  return text;
}

//===----------------------------------------------------------------------===//
// Ops and their #octet.strategy
//===----------------------------------------------------------------------===//

StrategyAttr target::getStrategyAttr(Operation *op) {
  return op->getAttrOfType<StrategyAttr>(kStrategyAttrName);
}

void target::setStrategyAttr(Operation *op, StrategyAttr strategy) {
  op->setAttr(kStrategyAttrName, strategy);
}

/// Whether `scheme` is an OCP MX operand as the block-scaled MMA reads it:
/// E8M0 scales per group of 32 along the reduction axis `kAxis`.
static bool isMxScheme(SchemeAttr scheme, int64_t kAxis) {
  return scheme && scheme.hasE8M0Scales() &&
         scheme.getGranularity() == Granularity::per_group &&
         scheme.getGroupSize() == 32 && scheme.getAxis() == kAxis;
}

/// Whether `scheme` is an NVFP4 operand as the block-scaled MMA reads it:
/// E2M1 codes, E4M3 scales (times a global scale) per group of 16 along
/// `kAxis`.
static bool isNvfp4Scheme(SchemeAttr scheme, int64_t kAxis) {
  return scheme && scheme.hasE4M3Scales() &&
         scheme.getFormat() == StorageFormat::f4E2M1FN &&
         scheme.getGranularity() == Granularity::per_group &&
         scheme.getGroupSize() == 16 && scheme.getAxis() == kAxis;
}

/// The block scaling of a contraction whose two quantized operands have
/// these schemes: MX when both are MX blocks along K (A's K is its last
/// axis, B's K its first), NVFP4 when both are NVFP4 blocks along K, else
/// none (the scales are then ordinary scale tensors: E8M0 values are f32
/// values too).
static BlockScale blockScaleOf(SchemeAttr a, int64_t aK, SchemeAttr b,
                               int64_t bK) {
  if (isMxScheme(a, aK) && isMxScheme(b, bK))
    return BlockScale::mx;
  if (isNvfp4Scheme(a, aK) && isNvfp4Scheme(b, bK))
    return BlockScale::nv;
  return BlockScale::none;
}

namespace {
/// The format of one contraction operand: the storage element of the
/// octet.dequantize that produces it, else its float element type.
struct OperandFormat {
  Elem elem;
  bool quantized;
  SchemeAttr scheme;
};
} // namespace

static std::optional<OperandFormat> getOperandFormat(Value operand) {
  if (auto dequantize = operand.getDefiningOp<DequantizeOp>())
    return OperandFormat{toElem(dequantize.getScheme().getFormat()), true,
                         dequantize.getScheme()};
  if (std::optional<Elem> elem =
          toFloatElem(getElementTypeOrSelf(operand.getType())))
    return OperandFormat{*elem, false, SchemeAttr()};
  return std::nullopt;
}

/// A linalg contraction (or convolution: an implicit GEMM over the filter
/// window) with at least one dequantized input, as a query.
static std::optional<ContractionQuery> getLinalgQuery(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
      !(linalg::isaContractionOpInterface(linalgOp) ||
        linalg::isaConvolutionOpInterface(linalgOp)))
    return std::nullopt;
  std::optional<OperandFormat> a =
      getOperandFormat(linalgOp.getDpsInputOperand(0)->get());
  std::optional<OperandFormat> b =
      getOperandFormat(linalgOp.getDpsInputOperand(1)->get());
  if (!a || !b || (!a->quantized && !b->quantized))
    return std::nullopt;
  ContractionQuery query;
  query.a = a->elem;
  query.b = b->elem;
  query.aQuantized = a->quantized;
  query.bQuantized = b->quantized;
  // MX blocks for linalg.matmul with its default maps (A m x k, B k x n).
  auto matmul = dyn_cast<linalg::MatmulOp>(op);
  if (a->quantized && b->quantized && matmul && !matmul.hasUserDefinedMaps())
    query.scale = blockScaleOf(a->scheme, 1, b->scheme, 0);
  return query;
}

/// octet.matmul: A and B come from its schemes (a float lhs is weight-only).
static std::optional<ContractionQuery> getMatmulQuery(Operation *op) {
  auto matmul = dyn_cast<MatmulOp>(op);
  if (!matmul)
    return std::nullopt;
  ContractionQuery query;
  query.b = toElem(matmul.getRhsScheme().getFormat());
  query.bQuantized = true;
  if (SchemeAttr lhsScheme = matmul.getLhsSchemeAttr()) {
    query.a = toElem(lhsScheme.getFormat());
    query.aQuantized = true;
    // octet.matmul: lhs M x K, rhs K x N.
    query.scale =
        blockScaleOf(lhsScheme, 1, matmul.getRhsScheme(), 0);
    return query;
  }
  std::optional<Elem> lhs =
      toFloatElem(getElementTypeOrSelf(matmul.getLhs().getType()));
  if (!lhs)
    return std::nullopt;
  query.a = *lhs;
  return query;
}

std::optional<ContractionQuery> target::getContractionQuery(Operation *op) {
  if (std::optional<ContractionQuery> query = getMatmulQuery(op))
    return query;
  return getLinalgQuery(op);
}

std::optional<std::pair<Elem, Elem>>
target::getElementwiseFormats(Operation *op) {
  auto floatOf = [](Value v) {
    return toFloatElem(getElementTypeOrSelf(v.getType())).value_or(Elem::f32);
  };
  if (auto q = dyn_cast<QuantizeOp>(op))
    return std::make_pair(floatOf(q.getInput()),
                          toElem(q.getScheme().getFormat()));
  if (auto d = dyn_cast<DequantizeOp>(op))
    return std::make_pair(toElem(d.getScheme().getFormat()),
                          floatOf(d.getResult()));
  if (auto r = dyn_cast<RequantizeOp>(op))
    return std::make_pair(toElem(r.getInScheme().getFormat()),
                          toElem(r.getOutScheme().getFormat()));
  if (auto p = dyn_cast<ComputeParamsOp>(op))
    return std::make_pair(floatOf(p.getInput()),
                          toElem(p.getScheme().getFormat()));
  return std::nullopt;
}

std::optional<StrategyChoice> target::selectStrategy(Operation *op,
                                                     const TargetInfo &t) {
  if (std::optional<ContractionQuery> query = getContractionQuery(op))
    return selectContraction(t, *query);
  if (std::optional<std::pair<Elem, Elem>> formats = getElementwiseFormats(op))
    return selectElementwise(t, formats->first, formats->second);
  return std::nullopt;
}

StrategyAttr target::getOrSelectStrategy(Operation *op, const TargetInfo &t) {
  if (StrategyAttr attr = getStrategyAttr(op))
    return attr;
  if (std::optional<StrategyChoice> choice = selectStrategy(op, t))
    return choice->getAttr(op->getContext(), t);
  return {};
}

FailureOr<const TargetInfo *>
target::getModuleTargetOrHost(ModuleOp module,
                              function_ref<InFlightDiagnostic()> emitError,
                              std::string *cpu) {
  if (auto attr = module->getAttrOfType<TargetAttr>(kTargetAttrName)) {
    if (cpu)
      *cpu = attr.getCpu().str();
    return getTargetInfo(attr, emitError);
  }
  FailureOr<HostResolution> host = resolveRunningHost(emitError);
  if (failed(host))
    return failure();
  if (cpu)
    *cpu = host->cpu;
  return host->target;
}
