//===- Strategy.cpp - Kernel strategy selection ---------------------------===//

#include "octet/Target/Strategy.h"

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

/// "sm_89, sm_90a, sm_100a and sm_120a".
static std::string joinNames(ArrayRef<const TargetInfo *> targets) {
  std::string text;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i)
      text += i + 1 == targets.size() ? " and " : ", ";
    text += targets[i]->name.str();
  }
  return text;
}

/// What a dequantize fallback costs on `t`, and where the formats are native.
static std::string fallbackCost(const TargetInfo &t, Elem a, Elem b,
                                BlockScale s) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef floatName = stringifyElem(t.floatElem);
  os << familyOf(a, b) << " (" << stringifyElem(a) << " x " << stringifyElem(b)
     << ") on " << t.name << ": dequantized to " << floatName << ", ";
  if (t.arch == Arch::cuda)
    os << "no tensor-core speedup";
  else
    os << "no speedup over " << floatName << " FMA";
  SmallVector<const TargetInfo *> native;
  for (const TargetInfo *other : targetsWithKernel(a, b, s))
    if (other->arch == t.arch)
      native.push_back(other);
  if (native.empty())
    os << "; no " << stringifyArch(t.arch) << " target multiplies "
       << stringifyElem(a) << " x " << stringifyElem(b) << " natively";
  else
    os << "; native on " << joinNames(native);
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

  // Weight-only: the float operand's type decides the unit.
  Elem floatElem = q.aQuantized ? q.b : q.a;
  Elem quantElem = q.aQuantized ? q.a : q.b;
  StringRef quantName = q.aQuantized ? "A" : "B";
  choice.kind = StrategyKind::weight_only;
  choice.row = findKernel(t.id, floatElem, floatElem);
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
  const KernelRow *preferred = findKernel(t.id, t.floatElem, t.floatElem);
  if (choice.row->kind == RowKind::simd && preferred &&
      preferred->kind != RowKind::simd) {
    choice.cost =
        ("weight-only " + stringifyElem(quantElem) + " with " +
         stringifyElem(floatElem) + " activations on " + t.name + ": no " +
         stringifyElem(floatElem) + " tensor-core MMA, runs on " +
         choice.row->unit + " " + choice.row->instruction + "; use " +
         stringifyElem(t.floatElem) + " activations")
            .str();
  }
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
  StringRef unit, acc, shape;
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
    unit = t.arch == Arch::cuda ? "CUDA elementwise" : "vector";
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
    os << row->unit << " " << stringifyElem(a) << " x " << stringifyElem(b)
       << " " << row->shape;
  else
    os << "elementwise " << stringifyElem(a) << " -> " << stringifyElem(b);
  os << " (" << stringifyStrategyKind(kind) << ")";
  return text;
}
