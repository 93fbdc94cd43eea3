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
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
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
    OwningOpRef<ModuleOp> again = parseSourceString<ModuleOp>(once, config);
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
