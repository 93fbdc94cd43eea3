//===- FuzzPass.cpp - Fuzz octet's passes ---------------------------------===//
//
// octet-fuzz-pass: the first line of the input is a pass pipeline made of
// octet passes (and canonicalize/cse), the rest is a module. Inputs whose
// module does not parse and verify are skipped (octet-fuzz-parse covers
// those); the pipeline text itself is fuzzed too, so pass options see
// arbitrary values. Oracles:
//   - no crash, assertion, hang or sanitizer report;
//   - a failing pass says why (an error diagnostic);
//   - a pass that succeeds leaves a module that verifies, and that prints to
//     text that parses again.
// The seeds (scripts/fuzz builds them from test/) carry the pipelines of the
// tests' RUN lines. Options that write or run files (report=, manifest=,
// toolkit=) are refused.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "octet/Pipelines/Pipelines.h"
#include "octet/Target/Passes.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

/// Passes and op anchors a fuzzed pipeline may name.
static bool allowedName(llvm::StringRef name) {
  static const llvm::StringSet<> allowed = {
      // octet
      "octet-import-quant", "octet-export-quant", "convert-octet-to-linalg",
      "octet-quantize-weights", "octet-quantize-activations",
      "octet-instrument", "octet-fold-scales", "octet-set-target",
      "octet-smooth-quant",
      "octet-select-lowering", "octet-quantize", "octet-lower-to-host",
      "octet-lower-observers", "octet-monitor-ranges", "octet-print-capabilities",
      "octet-test-resolve-format", "convert-octet-to-cpu",
      "octet-emit-cpu-kernels", "octet-outline-for-cuda",
      "convert-octet-to-gpu", "octet-store-fp8-as-i8",
      // cleanups the tests and pipelines use
      "canonicalize", "cse",
      // anchors
      "builtin.module", "func.func"};
  return allowed.contains(name);
}

/// Checks the pass and anchor names outside option braces; refuses options
/// that write files or start programs.
static bool pipelineIsSafe(llvm::StringRef p) {
  for (llvm::StringRef bad : {"report", "manifest", "toolkit"})
    if (p.contains(bad))
      return false;
  int depth = 0;
  std::string name;
  auto flush = [&]() {
    bool ok = name.empty() || allowedName(name);
    name.clear();
    return ok;
  };
  for (char c : p) {
    if (c == '{') {
      if (depth++ == 0 && !flush())
        return false;
    } else if (c == '}') {
      if (--depth < 0)
        return false;
    } else if (depth == 0) {
      if (c == '(' || c == ')' || c == ',' || c == ' ') {
        if (!flush())
          return false;
      } else {
        name += c;
      }
    }
  }
  return flush();
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registerAllPasses();
  mlir::octet::registerAllOctetPasses();
  mlir::octet::registerOctetTargetTestPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    octet_fuzz::registerDialects(*r);
    return r;
  }();
  llvm::StringRef all(reinterpret_cast<const char *>(data), size);
  auto [pipeline, text] = all.split('\n');
  // No newline, no module. (split returns a default StringRef then, and
  // MLIR's lexer takes its null data pointer for the code-completion
  // location: a crash in Parser::codeCompleteDialectOrElidedOpName.)
  if (!text.data())
    return 0;
  pipeline = pipeline.trim();
  if (pipeline.consume_front("//"))
    pipeline = pipeline.trim();
  if (pipeline.empty() || !pipelineIsSafe(pipeline))
    return 0;

  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  octet_fuzz::DiagnosticCounter diags(&ctx);
  ParserConfig config(&ctx);
  // NUL-terminated, as every buffer the tools parse is (see FuzzParse.cpp).
  std::string owned = text.str();
  if (octet_fuzz::hitsKnownUpstreamCrash(owned))
    return 0;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(owned, config);
  if (!module || octet_fuzz::tooLarge(*module))
    return 0;

  PassManager pm(&ctx);
  // Verify once at the end: a pass that leaves invalid IR is the bug we
  // look for, not a failure to report as the pass's own.
  pm.enableVerifier(false);
  std::string pipelineErrors;
  llvm::raw_string_ostream errs(pipelineErrors);
  if (failed(parsePassPipeline(pipeline, pm, errs))) {
    if (octet_fuzz::verbose())
      llvm::errs() << pipelineErrors << "\n";
    return 0;
  }
  unsigned before = diags.errors;
  if (failed(pm.run(*module))) {
    if (diags.errors == before)
      octet_fuzz::fail("a pass failed without an error diagnostic", pipeline);
    return 0;
  }
  if (failed(verify(*module))) {
    std::string s;
    llvm::raw_string_ostream os(s);
    module->print(os, OpPrintingFlags().printGenericOpForm());
    octet_fuzz::fail(("'" + pipeline + "' produced IR that does not verify")
                         .str(),
                     s);
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  if (!parseSourceString<ModuleOp>(out, config))
    octet_fuzz::fail(("the output of '" + pipeline + "' does not parse again")
                         .str(),
                     out);
  return 0;
}
