//===- HostTarget.cpp - Resolve `host` from the running CPU ---------------===//

#include "octet/Target/Capabilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

std::optional<Arch> target::getTableArch(StringRef archName) {
  switch (llvm::Triple(archName + "-unknown-linux").getArch()) {
  case llvm::Triple::x86_64:
    return Arch::x86;
  case llvm::Triple::aarch64:
    return Arch::aarch64;
  default:
    return std::nullopt;
  }
}

const TargetInfo *target::findHostLevel(StringRef archName,
                                        const llvm::StringMap<bool> &features,
                                        std::string &whyNot) {
  std::optional<Arch> arch = getTableArch(archName);
  if (!arch) {
    whyNot = ("the capability table has no levels for architecture '" +
              archName + "' (x86_64 and aarch64 have)")
                 .str();
    return nullptr;
  }
  auto has = [&](StringRef feature) { return features.lookup(feature); };
  // Levels of one architecture go from the least to the most capable: the
  // last one whose features are all present wins.
  const TargetInfo *best = nullptr;
  const TargetInfo *lowest = nullptr;
  for (const TargetInfo &info : getTargets()) {
    if (info.arch != *arch)
      continue;
    if (!lowest)
      lowest = &info;
    SmallVector<StringRef> needed;
    info.hostFeatures.split(needed, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    if (llvm::all_of(needed, has))
      best = &info;
  }
  if (!best) {
    SmallVector<StringRef> needed, missing;
    lowest->hostFeatures.split(needed, ',', -1, false);
    for (StringRef feature : needed)
      if (!has(feature))
        missing.push_back(feature);
    whyNot = ("this " + archName + " CPU lacks " + llvm::join(missing, ", ") +
              ", which the lowest level '" + lowest->name +
              "' needs; name a target explicitly")
                 .str();
  }
  return best;
}

FailureOr<HostResolution>
target::resolveHostTarget(StringRef archName, StringRef cpu,
                          const llvm::StringMap<bool> &features,
                          function_ref<InFlightDiagnostic()> emitError) {
  std::string whyNot;
  const TargetInfo *best = findHostLevel(archName, features, whyNot);
  if (!best) {
    emitError() << "cannot resolve 'host': " << whyNot;
    return failure();
  }
  HostResolution result;
  result.target = best;
  result.cpu = cpu.str();
  result.reason =
      ("host (" + archName + (cpu.empty() ? Twine("") : Twine(", ") + cpu) +
       ") has " + best->hostFeatures + " -> '" + best->name + "'")
          .str();
  return result;
}

FailureOr<HostResolution>
target::resolveRunningHost(function_ref<InFlightDiagnostic()> emitError) {
  StringRef cpu = llvm::sys::getHostCPUName();
  if (const char *forced = std::getenv(kHostTargetEnvVar.data())) {
    const TargetInfo *info = lookupTarget(forced);
    if (!info || info->arch == Arch::cuda) {
      emitError() << kHostTargetEnvVar << "='" << forced
                  << "' is not a CPU target; valid: "
                  << llvm::join(llvm::map_range(
                                    llvm::make_filter_range(
                                        getTargets(),
                                        [](const TargetInfo &t) {
                                          return t.arch != Arch::cuda;
                                        }),
                                    [](const TargetInfo &t) { return t.name; }),
                                ", ");
      return failure();
    }
    HostResolution result;
    result.target = info;
    result.cpu = cpu.str();
    result.reason = (Twine("host forced by ") + kHostTargetEnvVar + " -> '" +
                     info->name + "'")
                        .str();
    return result;
  }
  llvm::StringMap<bool> features;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    features[entry.getKey()] = entry.getValue();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  return resolveHostTarget(triple.getArchName(), cpu, features, emitError);
}
