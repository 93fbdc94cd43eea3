/*===-- octet-c/Passes.h - C API for octet passes and pipelines ---*- C -*-===*\
|*                                                                            *|
|* Registration and creation of every octet pass (generated from the pass    *|
|* .td files, in the style of mlir-c/Transforms.h), registration of the       *|
|* named pipelines, and a helper that runs a textual pipeline on a module.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef OCTET_C_PASSES_H
#define OCTET_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

// mlirRegisterOctet{Conversion,Transforms,Target}Passes(),
// mlirCreateOctetConversionOctetImportQuant(), ... (one per pass).
#include "octet-c/OctetConversionPasses.capi.h.inc"
#include "octet-c/OctetTargetPasses.capi.h.inc"
#include "octet-c/OctetTransformsPasses.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every octet pass and named pipeline (`octet-lower-to-host`)
/// with the global registries, like octet-opt does; safe to call more than
/// once. Upstream passes used by the pipelines are registered separately
/// (mlirRegisterAllPasses, mlir-c/RegisterEverything.h).
MLIR_CAPI_EXPORTED void octetRegisterAllPasses(void);

/// Parses the textual pass pipeline `pipeline` and runs it on `module`.
/// `pipeline` is either anchored (`builtin.module(octet-import-quant)`) or
/// a bare list nested under the module (`octet-import-quant,canonicalize`).
/// A malformed pipeline and every pass failure are reported as diagnostics
/// through the context's handlers; returns failure in both cases.
MLIR_CAPI_EXPORTED MlirLogicalResult
octetRunPassPipeline(MlirModule module, MlirStringRef pipeline);

/// The textual form of the `octet-lower-to-host` pipeline (octet -> linalg
/// -> bufferized loops -> LLVM dialect). The string is owned by the library.
MLIR_CAPI_EXPORTED MlirStringRef octetGetLowerToHostPipeline(void);

#ifdef __cplusplus
}
#endif

#endif // OCTET_C_PASSES_H
