//===- Capabilities.cpp - The chip capability table -----------------------===//
//
// Builds the typed table from CapabilityTable.def and answers lookups.
//
//===----------------------------------------------------------------------===//

#include "octet/Target/Capabilities.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

static constexpr TargetInfo kTargets[] = {
#define OCTET_TARGET(ID, NAME, ARCH, SM, PTX, EMIT_PTX, FLOAT, HOST_FEATURES,  \
                     DESC)                                                     \
  {TargetId::ID, NAME,          Arch::ARCH,    SM,  PTX,                       \
   EMIT_PTX,     Elem::FLOAT,   HOST_FEATURES, DESC},
#include "octet/Target/CapabilityTable.def"
};

#define E(X) elemBit(Elem::X)
static constexpr KernelRow kKernels[] = {
#define OCTET_KERNEL(TARGET, A, B, ACC, SCALE, KIND, UNIT, SHAPE, PTX, INST,   \
                     NOTE)                                                     \
  {TargetId::TARGET,                                                           \
   A,                                                                          \
   B,                                                                          \
   Acc::ACC,                                                                   \
   BlockScale::SCALE,                                                          \
   RowKind::KIND,                                                              \
   KernelUnit::UNIT,                                                           \
   SHAPE,                                                                      \
   PTX,                                                                        \
   INST,                                                                       \
   NOTE},
#include "octet/Target/CapabilityTable.def"
};
#undef E

/// Whether `id` has a row for `e` x `e` (optionally: a matrix/dot row).
static constexpr bool hasFloatRow(TargetId id, Elem e, bool unit) {
  for (const KernelRow &row : kKernels)
    if (row.target == id && (row.a & elemBit(e)) && (row.b & elemBit(e)) &&
        row.scale == BlockScale::none && (!unit || row.kind != RowKind::simd))
      return true;
  return false;
}

/// The invariants strategy selection relies on, checked when octet is built:
/// every target has an f32 row (the weight-only path of last resort) and a
/// row for its fallback float type; targets are in TargetId order.
static constexpr bool isWellFormed() {
  for (unsigned i = 0; i < std::size(kTargets); ++i) {
    const TargetInfo &info = kTargets[i];
    if (static_cast<unsigned>(info.id) != i ||
        !hasFloatRow(info.id, Elem::f32, /*unit=*/false) ||
        !hasFloatRow(info.id, info.floatElem, /*unit=*/false))
      return false;
    // On NVIDIA the fallback type runs on tensor cores.
    if (info.arch == Arch::cuda && !hasFloatRow(info.id, info.floatElem, true))
      return false;
    // The PTX version the kernels declare is valid for the target.
    if (info.emitPtx < info.minPtx)
      return false;
  }
  return true;
}
static_assert(isWellFormed(),
              "CapabilityTable.def: every target needs an f32 row and a row "
              "for its fallback float type, and an EMIT_PTX at least its PTX");

ArrayRef<TargetInfo> target::getTargets() { return kTargets; }
ArrayRef<KernelRow> target::getKernelRows() { return kKernels; }

const TargetInfo &target::getTargetInfo(TargetId id) {
  return kTargets[static_cast<unsigned>(id)];
}

SmallVector<const KernelRow *> target::getKernelRows(TargetId id) {
  SmallVector<const KernelRow *> rows;
  for (const KernelRow &row : kKernels)
    if (row.target == id)
      rows.push_back(&row);
  return rows;
}

const TargetInfo *target::lookupTarget(StringRef name) {
  for (const TargetInfo &info : kTargets)
    if (info.name == name)
      return &info;
  return nullptr;
}

std::string target::getValidTargetNames() {
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(kTargets, os,
                        [&](const TargetInfo &info) { os << info.name; });
  return names;
}

const KernelRow *target::findKernel(TargetId id, Elem a, Elem b, BlockScale s) {
  for (const KernelRow &row : kKernels)
    if (row.target == id && row.matches(a, b, s))
      return &row;
  return nullptr;
}

SmallVector<const TargetInfo *> target::targetsWithKernel(Elem a, Elem b,
                                                          BlockScale s) {
  SmallVector<const TargetInfo *> result;
  for (const TargetInfo &info : kTargets) {
    const KernelRow *row = findKernel(info.id, a, b, s);
    if (row && row->kind != RowKind::simd)
      result.push_back(&info);
  }
  return result;
}

std::string KernelRow::instantiate(Elem ea, Elem eb) const {
  std::string text = instruction.str();
  auto replace = [&](StringRef hole, StringRef with) {
    size_t pos;
    while ((pos = text.find(hole.str())) != std::string::npos)
      text.replace(pos, hole.size(), with.str());
  };
  replace("{a}", stringifyElem(ea));
  replace("{b}", stringifyElem(eb));
  return text;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kElemNames[kNumElems] = {
    "s8", "u8", "s4", "u4", "e4m3", "e5m2", "e2m1", "f16", "bf16", "f32",
    "nf4"};

StringRef target::stringifyElem(Elem e) {
  return kElemNames[static_cast<unsigned>(e)];
}

std::optional<Elem> target::symbolizeElem(StringRef name) {
  for (unsigned i = 0; i < kNumElems; ++i)
    if (kElemNames[i] == name)
      return static_cast<Elem>(i);
  return std::nullopt;
}

StringRef target::stringifyAcc(Acc a) { return a == Acc::s32 ? "s32" : "f32"; }

StringRef target::stringifyArch(Arch a) {
  switch (a) {
  case Arch::cuda:
    return "cuda";
  case Arch::x86:
    return "x86";
  case Arch::aarch64:
    return "aarch64";
  }
  llvm_unreachable("unknown arch");
}

StringRef target::stringifyBlockScale(BlockScale s) {
  switch (s) {
  case BlockScale::none:
    return "";
  case BlockScale::mx:
    return "ue8m0 / 32";
  case BlockScale::nv:
    return "ue4m3 / 16";
  }
  llvm_unreachable("unknown block scale");
}

StringRef target::stringifyRowKind(RowKind k) {
  switch (k) {
  case RowKind::native:
    return "native";
  case RowKind::compensated:
    return "compensated";
  case RowKind::simd:
    return "simd";
  }
  llvm_unreachable("unknown row kind");
}

std::string target::stringifyElemSet(ElemSet set) {
  SmallVector<StringRef> names;
  for (unsigned i = 0; i < kNumElems; ++i)
    if (set & (1u << i))
      names.push_back(kElemNames[i]);
  return llvm::join(names, "/");
}

Elem target::toElem(StorageFormat format) {
  switch (format) {
  case StorageFormat::i8:
    return Elem::s8;
  case StorageFormat::u8:
    return Elem::u8;
  case StorageFormat::i4:
    return Elem::s4;
  case StorageFormat::u4:
    return Elem::u4;
  case StorageFormat::f8E4M3FN:
    return Elem::e4m3;
  case StorageFormat::f8E5M2:
    return Elem::e5m2;
  case StorageFormat::f4E2M1FN:
    return Elem::e2m1;
  case StorageFormat::nf4:
    return Elem::nf4;
  }
  llvm_unreachable("unknown storage format");
}

std::optional<StorageFormat> target::toStorageFormat(Elem e) {
  switch (e) {
  case Elem::s8:
    return StorageFormat::i8;
  case Elem::u8:
    return StorageFormat::u8;
  case Elem::s4:
    return StorageFormat::i4;
  case Elem::u4:
    return StorageFormat::u4;
  case Elem::e4m3:
    return StorageFormat::f8E4M3FN;
  case Elem::e5m2:
    return StorageFormat::f8E5M2;
  case Elem::nf4:
    return StorageFormat::nf4;
  default:
    return std::nullopt;
  }
}

std::optional<Elem> target::toFloatElem(Type type) {
  if (type.isF16())
    return Elem::f16;
  if (type.isBF16())
    return Elem::bf16;
  if (type.isF32())
    return Elem::f32;
  return std::nullopt;
}

StringRef target::getFormatFamily(Elem e) {
  switch (e) {
  case Elem::s8:
  case Elem::u8:
    return "INT8";
  case Elem::s4:
  case Elem::u4:
    return "INT4";
  case Elem::e4m3:
  case Elem::e5m2:
    return "FP8";
  case Elem::e2m1:
    return "FP4";
  default:
    return stringifyElem(e);
  }
}

//===----------------------------------------------------------------------===//
// Markdown
//===----------------------------------------------------------------------===//

/// `text` as a markdown table cell: `|` escaped, empty shown as a dash.
static std::string cell(StringRef text, bool code = false) {
  if (text.empty())
    return "-";
  std::string escaped;
  for (char c : text) {
    if (c == '|')
      escaped += '\\';
    escaped += c;
  }
  return code ? "`" + escaped + "`" : escaped;
}

static std::string ptxVersion(unsigned v) {
  if (v == 0)
    return "-";
  return (Twine(v / 10) + "." + Twine(v % 10)).str();
}

void target::printCapabilityTable(raw_ostream &os, const TargetInfo *only) {
  os << "| target | arch | sm | PTX ISA | emitted PTX | fallback float | "
        "host needs | chips |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const TargetInfo &info : kTargets) {
    if (only && only != &info)
      continue;
    os << "| " << cell(info.name, /*code=*/true) << " | "
       << stringifyArch(info.arch) << " | "
       << (info.sm ? std::to_string(info.sm) : std::string("-")) << " | "
       << ptxVersion(info.minPtx) << " | " << ptxVersion(info.emitPtx)
       << " | " << stringifyElem(info.floatElem)
       << " | " << cell(info.hostFeatures) << " | " << cell(info.description)
       << " |\n";
  }
  os << "\n"
     << "| target | A | B | acc | block scale | kind | unit | shape | "
        "instruction | PTX | note |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
        "|\n";
  for (const KernelRow &row : kKernels) {
    const TargetInfo &info = getTargetInfo(row.target);
    if (only && only != &info)
      continue;
    os << "| " << cell(info.name, /*code=*/true) << " | "
       << stringifyElemSet(row.a) << " | " << stringifyElemSet(row.b) << " | "
       << stringifyAcc(row.acc) << " | " << cell(stringifyBlockScale(row.scale))
       << " | " << stringifyRowKind(row.kind) << " | " << cell(stringifyKernelUnit(row.unit))
       << " | " << cell(row.shape) << " | "
       << cell(row.instruction, /*code=*/true) << " | "
       << ptxVersion(row.minPtx) << " | " << cell(row.note) << " |\n";
  }
}

//===----------------------------------------------------------------------===//
// The module attribute
//===----------------------------------------------------------------------===//

TargetAttr target::getTargetAttr(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto attr = op->getAttrOfType<TargetAttr>(kTargetAttrName))
      return attr;
  return {};
}

FailureOr<const TargetInfo *>
target::getTargetInfo(TargetAttr attr,
                      function_ref<InFlightDiagnostic()> emitError) {
  if (const TargetInfo *info = lookupTarget(attr.getName()))
    return info;
  // TargetAttr's verifier rejects unknown names; this is for attributes
  // built without it.
  emitError() << "unknown target '" << attr.getName()
              << "'; valid: " << getValidTargetNames();
  return failure();
}
