//===- Passes.cpp - C API for octet passes and pipelines ------------------===//

#include "octet-c/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "octet/Conversion/Passes.h"
#include "octet/Pipelines/Pipelines.h"
#include "octet/Target/Passes.h"
#include "octet/Transforms/Passes.h"

#include <mutex>

using namespace mlir;
using namespace mlir::octet;

// Generated: mlirRegisterOctet<Group>Passes, mlirCreateOctet<Group><Pass>,
// mlirRegisterOctet<Group><Pass>.
#include "octet-c/OctetConversionPasses.capi.cpp.inc"
#include "octet-c/OctetTargetPasses.capi.cpp.inc"
#include "octet-c/OctetTransformsPasses.capi.cpp.inc"

void octetRegisterAllPasses(void) {
  // A named pipeline may be registered only once per process.
  static std::once_flag once;
  std::call_once(once, [] { registerAllOctetPasses(); });
}

MlirLogicalResult octetRunPassPipeline(MlirModule module,
                                       MlirStringRef pipeline) {
  ModuleOp moduleOp = unwrap(module);
  MLIRContext *ctx = moduleOp.getContext();
  StringRef full = unwrap(pipeline).trim();
  StringRef text = full;
  // Accept the anchored form too; the manager is anchored on the module.
  if (text.consume_front(ModuleOp::getOperationName())) {
    text = text.trim();
    if (!text.consume_front("(") || !text.consume_back(")")) {
      emitError(moduleOp.getLoc())
          << "invalid pass pipeline '" << full
          << "': expected 'builtin.module(...)' or a bare pass list";
      return mlirLogicalResultFailure();
    }
  }
  PassManager pm(ctx, ModuleOp::getOperationName());
  std::string message;
  llvm::raw_string_ostream os(message);
  if (failed(parsePassPipeline(text, pm, os))) {
    emitError(moduleOp.getLoc())
        << "invalid pass pipeline '" << full
        << "': " << StringRef(message).split('\n').first.trim();
    return mlirLogicalResultFailure();
  }
  return wrap(pm.run(moduleOp));
}

MlirStringRef octetGetLowerToHostPipeline(void) {
  return wrap(getLowerToHostPipeline());
}
