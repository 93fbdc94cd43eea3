//===- FuzzParse.cpp - Fuzz parsing and verification ----------------------===//
//
// octet-fuzz-parse: arbitrary text is parsed (and so verified) with the octet
// dialect and the dialects of its inputs registered. Oracles:
//   - no crash, assertion, hang or sanitizer report;
//   - a rejected input produced at least one error diagnostic;
//   - an accepted module prints, in the custom and in the generic form, to
//     text that parses and verifies again and prints identically (the
//     printers and parsers of octet's ops and attributes agree).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

static std::string print(ModuleOp module, bool generic) {
  std::string s;
  llvm::raw_string_ostream os(s);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    octet_fuzz::registerDialects(*r);
    return r;
  }();
  MLIRContext ctx(*registry, MLIRContext::Threading::DISABLED);
  octet_fuzz::DiagnosticCounter diags(&ctx);
  // NUL-terminated, as every buffer the tools parse is (files are read
  // with a terminator): MLIR's lexer reads one character past the end of
  // a token at the end of the text, an overflow of libFuzzer's exact-size
  // buffer otherwise.
  std::string owned(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(owned);
  if (octet_fuzz::hitsKnownUpstreamCrash(text))
    return 0;
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module) {
    if (diags.errors == 0)
      octet_fuzz::fail("the parser rejected the input without an error");
    return 0;
  }
  if (octet_fuzz::tooLarge(*module))
    return 0;
  for (bool generic : {false, true}) {
    std::string once = print(*module, generic);
    // Parsed again in a fresh context: in the same one, the keys of the
    // module's dense_resource blobs are taken and the copies get renamed
    // (`scale` -> `scale_1`), which is not a printer/parser disagreement.
    MLIRContext fresh(*registry, MLIRContext::Threading::DISABLED);
    octet_fuzz::DiagnosticCounter freshDiags(&fresh);
    ParserConfig freshConfig(&fresh);
    OwningOpRef<ModuleOp> again = parseSourceString<ModuleOp>(once, freshConfig);
    if (!again)
      octet_fuzz::fail(generic ? "the generic form does not parse again"
                               : "the printed module does not parse again",
                       once);
    std::string twice = print(*again, generic);
    if (once != twice)
      octet_fuzz::fail("printing is not stable under a round trip",
                       once + "\n--- vs ---\n" + twice);
  }
  return 0;
}
