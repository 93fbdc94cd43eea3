//===- Capabilities.h - The chip capability table ---------------*- C++ -*-===//
//
// Typed access to CapabilityTable.def: the targets octet knows, the kernel
// rows that say which (A, B, accumulator) formats run on which unit, and
// the resolution of `host` from the running CPU's features.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TARGET_CAPABILITIES_H
#define OCTET_TARGET_CAPABILITIES_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class ModuleOp;
namespace octet {
namespace target {

/// Instruction-set family of a target.
enum class Arch : uint8_t { cuda, x86, aarch64 };

/// Element formats an instruction can take (PTX spellings). The first six
/// correspond to octet storage formats; e2m1 (FP4) only appears with block
/// scaling; f16/bf16/f32 are the float operands of the fallback rows.
enum class Elem : uint8_t {
  s8,
  u8,
  s4,
  u4,
  e4m3,
  e5m2,
  e2m1,
  f16,
  bf16,
  f32,
  nf4 ///< QLoRA NF4 table indices (weight-only: no unit multiplies them).
};
constexpr unsigned kNumElems = 11;

/// A set of element formats (bit i = Elem i).
using ElemSet = uint32_t;
constexpr ElemSet elemBit(Elem e) { return 1u << static_cast<unsigned>(e); }

/// Accumulator of a kernel row.
enum class Acc : uint8_t { s32, f32 };

/// Block scaling done by the instruction itself.
enum class BlockScale : uint8_t {
  none,
  mx, ///< OCP MX: one ue8m0 scale per 32 elements of K.
  nv  ///< NVFP4: one ue4m3 scale per 16 elements of K.
};

/// How a kernel row takes its operands (see CapabilityTable.def).
enum class RowKind : uint8_t { native, compensated, simd };

/// Stable identifiers of the targets, in table order.
enum class TargetId : uint8_t {
#define OCTET_TARGET(ID, NAME, ARCH, SM, PTX, EMIT_PTX, FLOAT, HOST_FEATURES,  \
                     DESC)                                                     \
  ID,
#include "octet/Target/CapabilityTable.def"
};

/// One target of the table.
struct TargetInfo {
  TargetId id;
  StringRef name;
  Arch arch;
  unsigned sm;            ///< Compute capability x 10 (CUDA), else 0.
  unsigned minPtx;        ///< PTX ISA x 10 the target needs (CUDA), else 0.
  unsigned emitPtx;       ///< PTX ISA x 10 octet's kernels declare, else 0.
  Elem floatElem;         ///< Float type of the dequantize fallback.
  StringRef hostFeatures; ///< LLVM features `host` needs for this level.
  StringRef description;
};

/// One kernel row of the table.
struct KernelRow {
  TargetId target;
  ElemSet a, b;
  Acc acc;
  BlockScale scale;
  RowKind kind;
  KernelUnit unit;
  StringRef shape;
  unsigned minPtx; ///< PTX ISA x 10 that introduced the form (CUDA), else 0.
  StringRef instruction; ///< With `{a}`/`{b}` placeholders.
  StringRef note;

  bool matches(Elem ea, Elem eb, BlockScale s) const {
    return (a & elemBit(ea)) && (b & elemBit(eb)) && scale == s;
  }
  /// The instruction with the placeholders replaced by `ea` and `eb`.
  std::string instantiate(Elem ea, Elem eb) const;
};

/// Every target, in table order.
ArrayRef<TargetInfo> getTargets();
/// Every kernel row, in table order.
ArrayRef<KernelRow> getKernelRows();
/// The rows of one target, in table order.
SmallVector<const KernelRow *> getKernelRows(TargetId target);

const TargetInfo &getTargetInfo(TargetId id);
/// Looks a target up by the name users write; null when unknown.
const TargetInfo *lookupTarget(StringRef name);
/// "sm_75, sm_80, ..., i8mm" (every valid name, table order).
std::string getValidTargetNames();

/// The first row of `target` that takes `a` x `b` with block scaling `s`.
const KernelRow *findKernel(TargetId target, Elem a, Elem b,
                            BlockScale s = BlockScale::none);
/// Targets (of any architecture) with a non-simd row for `a` x `b`.
SmallVector<const TargetInfo *> targetsWithKernel(Elem a, Elem b, BlockScale s);

StringRef stringifyElem(Elem e);
std::optional<Elem> symbolizeElem(StringRef name);
StringRef stringifyAcc(Acc a);
StringRef stringifyArch(Arch a);
StringRef stringifyBlockScale(BlockScale s);
StringRef stringifyRowKind(RowKind k);
/// "s8/u8" for a set.
std::string stringifyElemSet(ElemSet set);
/// The table element of an octet storage format (i8 -> s8, ...).
Elem toElem(StorageFormat format);
/// The octet storage format of a table element; none for e2m1 and floats.
std::optional<StorageFormat> toStorageFormat(Elem e);
/// f16/bf16/f32 for a float type; none otherwise.
std::optional<Elem> toFloatElem(Type type);
/// "INT8", "INT4", "FP8", "FP4" or the float type's name.
StringRef getFormatFamily(Elem e);

/// Writes the capability table as markdown (the tables of docs/targets.md);
/// only `only`'s rows when given.
void printCapabilityTable(raw_ostream &os, const TargetInfo *only = nullptr);

//===----------------------------------------------------------------------===//
// The target attribute on a module
//===----------------------------------------------------------------------===//

/// Name of the discardable module attribute holding the #octet.target.
constexpr StringLiteral kTargetAttrName = "octet.target";

/// The #octet.target of the closest enclosing module of `op` (or `op`
/// itself); null when there is none.
TargetAttr getTargetAttr(Operation *op);
/// The table entry of `attr`; emits an error (valid names listed) and fails
/// for an unknown name.
FailureOr<const TargetInfo *>
getTargetInfo(TargetAttr attr, function_ref<InFlightDiagnostic()> emitError);

//===----------------------------------------------------------------------===//
// `host`
//===----------------------------------------------------------------------===//

/// Environment variable that forces the level `host` resolves to (any valid
/// CPU target name). For tests and for cross-deployment builds.
constexpr StringLiteral kHostTargetEnvVar = "OCTET_HOST_TARGET";

/// What `host` resolved to, and why.
struct HostResolution {
  const TargetInfo *target = nullptr;
  std::string cpu;    ///< LLVM CPU name (for -mcpu), may be empty.
  std::string reason; ///< One line: which features decided the level.
};

/// The table architecture of an LLVM architecture name ("x86_64" -> x86,
/// "aarch64" -> aarch64); none when the table has no levels for it.
std::optional<Arch> getTableArch(StringRef archName);

/// The level resolveHostTarget picks; null, with `whyNot` saying why (the
/// text of its error after "cannot resolve 'host': "), when there is none.
const TargetInfo *findHostLevel(StringRef arch,
                                const llvm::StringMap<bool> &features,
                                std::string &whyNot);

/// Resolves `host` for a CPU of architecture `arch` ("x86_64", "aarch64")
/// with the LLVM `features` (name -> enabled): the most capable level of
/// that architecture whose HOST_FEATURES are all enabled.
FailureOr<HostResolution>
resolveHostTarget(StringRef arch, StringRef cpu,
                  const llvm::StringMap<bool> &features,
                  function_ref<InFlightDiagnostic()> emitError);

/// Resolves `host` for the running process: OCTET_HOST_TARGET if set, else
/// llvm::sys::getHostCPUFeatures()/getHostCPUName() and the process triple.
FailureOr<HostResolution>
resolveRunningHost(function_ref<InFlightDiagnostic()> emitError);

} // namespace target
} // namespace octet
} // namespace mlir

#endif // OCTET_TARGET_CAPABILITIES_H
