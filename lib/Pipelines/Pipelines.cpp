//===- Pipelines.cpp - Octet pass pipelines -------------------------------===//

#include "octet/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "octet/Conversion/Passes.h"
#include "octet/Target/Passes.h"
#include "octet/Transforms/Passes.h"

using namespace mlir;

StringRef octet::getLowerToHostPipeline() {
  return "convert-octet-to-linalg,"
         "func.func(convert-elementwise-to-linalg),"
         "canonicalize,"
         "func.func(linalg-fuse-elementwise-ops),"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref,"
         "convert-linalg-to-loops,"
         "expand-strided-metadata,"
         "lower-affine,"
         "convert-scf-to-cf,"
         "arith-expand{include-bf16=true},"
         "convert-math-to-llvm,"
         "convert-arith-to-llvm,"
         "convert-cf-to-llvm,"
         "finalize-memref-to-llvm,"
         "convert-func-to-llvm,"
         "convert-index-to-llvm,"
         "reconcile-unrealized-casts";
}

LogicalResult octet::buildLowerToHostPipeline(OpPassManager &pm) {
  return parsePassPipeline(getLowerToHostPipeline(), pm, llvm::errs());
}

void octet::registerOctetPipelines() {
  PassPipelineRegistration<>(
      "octet-lower-to-host",
      "Lower a module with octet ops to the LLVM dialect for the host CPU "
      "(octet -> linalg -> bufferized loops -> LLVM); what octet-run uses",
      [](OpPassManager &pm) {
        if (failed(buildLowerToHostPipeline(pm)))
          llvm::report_fatal_error("invalid octet-lower-to-host pipeline");
      });
}

void octet::registerAllOctetPasses() {
  registerOctetConversionPasses();
  registerOctetTransformsPasses();
  registerOctetTargetPasses();
  registerOctetPipelines();
}
