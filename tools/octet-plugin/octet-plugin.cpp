//===- octet-plugin.cpp - Octet as an mlir-opt plugin ---------------------===//
//
// A dialect + pass plugin for a stock `mlir-opt` built against the shared
// libMLIR.so (Debian's /usr/lib/llvm-22/bin/mlir-opt):
//
//   mlir-opt --load-dialect-plugin=libOctetPlugin.so \
//            --load-pass-plugin=libOctetPlugin.so \
//            --pass-pipeline='builtin.module(octet-import-quant)' in.mlir
//
// The plugin links libMLIR.so dynamically, so the dialect, pass and pipeline
// registries it fills are the tool's own.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Pipelines/Pipelines.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include <mutex>

using namespace mlir;

/// Registers octet's passes and pipelines once, whichever entry point runs
/// first: a named pipeline may only be registered once per process, and
/// both plugin kinds may be loaded from this library.
static void registerOctetPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { octet::registerAllOctetPasses(); });
}

/// Dialect plugin entry point (`--load-dialect-plugin`): the octet dialect,
/// plus the passes, so that one flag is enough.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Octet", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<octet::OctetDialect>();
            registerOctetPassesOnce();
          }};
}

/// Pass plugin entry point (`--load-pass-plugin`): every octet pass and
/// pipeline.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "OctetPasses", LLVM_VERSION_STRING,
          []() { registerOctetPassesOnce(); }};
}
