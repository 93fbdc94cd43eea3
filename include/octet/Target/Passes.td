//===- Passes.td - Octet target passes ------------------*- tablegen -*-===//
//
// Target selection: the chip capability table, octet-set-target and
// octet-select-lowering. Each pass: summary, description with an
// `mlir` example, options, dependent dialects.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TARGET_PASSES_TD
#define OCTET_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // OCTET_TARGET_PASSES_TD
