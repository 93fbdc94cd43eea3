//===- Passes.h - Octet target passes ---------------------*- C++ -*-===//

#ifndef OCTET_TARGET_PASSES_H
#define OCTET_TARGET_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "octet/Dialect/Octet/IR/Octet.h"

namespace mlir {
namespace octet {

#define GEN_PASS_DECL
#include "octet/Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "octet/Target/Passes.h.inc"

/// Registers the target test passes (octet-test-resolve-format): octet-opt
/// only, not part of registerAllOctetPasses.
void registerOctetTargetTestPasses();

} // namespace octet
} // namespace mlir

#endif // OCTET_TARGET_PASSES_H
