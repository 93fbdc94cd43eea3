//===- Passes.td - Octet transform passes ------------------*- tablegen -*-===//
//
// Quantization rewrites: weight quantization, scale folding, activation
// quantization and calibration. Each pass: summary, description with an
// `mlir` example, options, dependent dialects.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TRANSFORMS_PASSES_TD
#define OCTET_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // OCTET_TRANSFORMS_PASSES_TD
