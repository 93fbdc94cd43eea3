//===- PrintCapabilities.cpp - octet-print-capabilities -------------------===//

#include "octet/Target/Capabilities.h"
#include "octet/Target/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETPRINTCAPABILITIES
#include "octet/Target/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

namespace {

struct OctetPrintCapabilitiesPass
    : public octet::impl::OctetPrintCapabilitiesBase<
          OctetPrintCapabilitiesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const TargetInfo *only = nullptr;
    if (!targetName.empty()) {
      only = lookupTarget(targetName);
      if (!only) {
        module.emitError() << "unknown target '" << targetName
                           << "'; valid: " << getValidTargetNames();
        return signalPassFailure();
      }
    } else if (auto attr = module->getAttrOfType<TargetAttr>(kTargetAttrName)) {
      FailureOr<const TargetInfo *> info =
          getTargetInfo(attr, [&] { return module.emitError(); });
      if (failed(info))
        return signalPassFailure();
      only = *info;
    }
    printCapabilityTable(llvm::outs(), only);
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};

} // namespace
