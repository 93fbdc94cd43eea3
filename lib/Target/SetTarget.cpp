//===- SetTarget.cpp - octet-set-target -----------------------------------===//

#include "octet/Target/Capabilities.h"
#include "octet/Target/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETSETTARGET
#include "octet/Target/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

namespace {

struct OctetSetTargetPass
    : public octet::impl::OctetSetTargetBase<OctetSetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto emitError = [&] { return module.emitError(); };
    if (targetName.empty()) {
      emitError() << "octet-set-target needs target=NAME; valid: "
                  << getValidTargetNames() << ", host";
      return signalPassFailure();
    }

    TargetAttr attr;
    if (targetName == "host") {
      FailureOr<HostResolution> host = resolveHost(emitError);
      if (failed(host))
        return signalPassFailure();
      // Not module.emitRemark(): that would attach (print) the whole module.
      mlir::emitRemark(module.getLoc()) << host->reason;
      attr = TargetAttr::get(&getContext(), host->target->name, host->cpu);
    } else {
      const TargetInfo *info = lookupTarget(targetName);
      if (!info) {
        emitError() << "unknown target '" << targetName
                    << "'; valid: " << getValidTargetNames() << ", host";
        return signalPassFailure();
      }
      attr = TargetAttr::get(&getContext(), info->name, "");
    }
    module->setAttr(kTargetAttrName, attr);
  }

  /// `host`: the running machine, or what the host-* options say.
  FailureOr<HostResolution>
  resolveHost(function_ref<InFlightDiagnostic()> emitError) {
    if (hostArch.empty() && hostCpu.empty() && hostFeatures.empty())
      return resolveRunningHost(emitError);
    std::string arch = hostArch;
    if (arch.empty())
      arch = llvm::Triple(llvm::sys::getProcessTriple()).getArchName().str();
    llvm::StringMap<bool> features;
    if (hostFeatures.empty()) {
      for (const auto &entry : llvm::sys::getHostCPUFeatures())
        features[entry.getKey()] = entry.getValue();
    } else {
      // `avx2,+fma,-avx512f`: a leading '-' disables, '+' or nothing enables.
      SmallVector<StringRef> items;
      StringRef(hostFeatures).split(items, ',', -1, /*KeepEmpty=*/false);
      for (StringRef item : items) {
        item = item.trim();
        bool enabled = !item.consume_front("-");
        item.consume_front("+");
        features[item] = enabled;
      }
    }
    // With overrides the CPU name is only what host-cpu says: a detected
    // name next to replaced features would describe a different machine.
    return resolveHostTarget(arch, hostCpu, features, emitError);
  }
};

} // namespace
