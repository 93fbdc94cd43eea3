//===- octet-opt.cpp - Octet optimizer driver -----------------------------===//
//
// mlir-opt with the octet dialect, passes and pipelines registered next to
// every upstream dialect and pass.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Pipelines/Pipelines.h"
#include "octet/Target/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::octet::OctetDialect>();
  // gpu-module-to-binary (octet-lower-to-cuda) translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  mlir::octet::registerAllOctetPasses();
  mlir::octet::registerOctetTargetTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Octet optimizer driver: quantization passes over MLIR\n",
      registry));
}
