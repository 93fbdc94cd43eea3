//===- FuzzCommon.h - Shared helpers of the MLIR fuzz harnesses -*- C++ -*-===//
//
// What the parse and pass harnesses share: the dialects a model given to
// octet uses, a diagnostic handler that counts errors (quiet unless
// OCTET_FUZZ_VERBOSE is set), a size filter that keeps the fuzzer away from
// legitimately huge work (a 10^9-element constant is a big model, not a
// bug), and the abort used when an oracle fails.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_FUZZ_FUZZCOMMON_H
#define OCTET_FUZZ_FUZZCOMMON_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace octet_fuzz {

/// The dialects of the models octet takes (and of what its passes emit).
inline void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::quant::QuantDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                  mlir::octet::OctetDialect>();
}

inline bool verbose() {
  static bool v = std::getenv("OCTET_FUZZ_VERBOSE") != nullptr;
  return v;
}

/// Counts error diagnostics; prints them only with OCTET_FUZZ_VERBOSE.
class DiagnosticCounter {
public:
  explicit DiagnosticCounter(mlir::MLIRContext *ctx)
      : handler(ctx, [this](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            ++errors;
          if (verbose())
            llvm::errs() << diag.getLocation() << ": " << diag << "\n";
          return mlir::success();
        }) {}
  unsigned errors = 0;

private:
  mlir::ScopedDiagnosticHandler handler;
};

/// An oracle failed: print why (and the offending text) and abort, which
/// libFuzzer records as a crash with the input that caused it.
[[noreturn]] inline void fail(llvm::StringRef why, llvm::StringRef detail = "") {
  llvm::errs() << "octet-fuzz: ORACLE FAILURE: " << why << "\n";
  if (!detail.empty())
    llvm::errs() << "---\n" << detail << "\n---\n";
  llvm::errs().flush();
  std::abort();
}

/// True when `text` would reach a known crash of upstream MLIR 22 that
/// octet cannot avoid (fuzz/known-upstream/): linalg.broadcast / transpose /
/// reduce parse `dimensions = ...` / `permutation = ...` with
/// DenseI64ArrayAttr::parse and store its result even when that failed (a
/// null attribute, SEGV in NamedAttrList::set). Such inputs are skipped so
/// that fuzzing goes on; the check accepts exactly what that parser
/// accepts: `[` integers separated by commas `]`.
inline bool hitsKnownUpstreamCrash(llvm::StringRef text) {
  // MLIR's lexer skips an embedded NUL like a space (only the one at the
  // end of the buffer is EOF), so it counts as whitespace here too.
  auto skipSpace = [](llvm::StringRef s) {
    return s.ltrim(llvm::StringRef(" \t\n\v\f\r\0", 7));
  };
  auto isIdent = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  };
  for (llvm::StringRef keyword : {"dimensions", "permutation"}) {
    for (size_t at = text.find(keyword); at != llvm::StringRef::npos;
         at = text.find(keyword, at + 1)) {
      if ((at > 0 && isIdent(text[at - 1])) ||
          (at + keyword.size() < text.size() &&
           isIdent(text[at + keyword.size()])))
        continue;
      llvm::StringRef rest = skipSpace(text.drop_front(at + keyword.size()));
      if (!rest.consume_front("="))
        continue;
      rest = skipSpace(rest);
      if (!rest.consume_front("["))
        return true;
      rest = skipSpace(rest);
      if (rest.consume_front("]"))
        continue;
      while (true) {
        rest.consume_front("-");
        size_t digits = 0;
        while (digits < rest.size() && llvm::isDigit(rest[digits]))
          ++digits;
        if (digits == 0 || digits > 18)
          return true;
        rest = skipSpace(rest.drop_front(digits));
        if (rest.consume_front("]"))
          break;
        if (!rest.consume_front(","))
          return true;
        rest = skipSpace(rest);
      }
    }
  }
  return false;
}

/// Elements of a shaped type with a static shape (saturating; dynamic
/// dimensions count as 1).
inline uint64_t staticElements(mlir::ShapedType t) {
  if (!t.hasRank())
    return 1;
  uint64_t n = 1;
  for (int64_t d : t.getShape()) {
    if (mlir::ShapedType::isDynamic(d) || d <= 0)
      continue;
    if (n > (uint64_t(1) << 40) / static_cast<uint64_t>(d))
      return uint64_t(1) << 40;
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

/// True when any value in `module` has a static type of more than
/// `maxElements` elements or a rank above 8: compile-time work on such
/// tensors is proportional to their size, which is legitimate (the stress
/// test in bench/ covers it), so the fuzzer skips them.
inline bool tooLarge(mlir::Operation *module, uint64_t maxElements = 1 << 14) {
  auto big = [&](mlir::Type t) {
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(t);
    return shaped && shaped.hasRank() &&
           (shaped.getRank() > 8 || staticElements(shaped) > maxElements);
  };
  bool found = false;
  module->walk([&](mlir::Operation *op) {
    for (mlir::Type t : op->getResultTypes())
      found |= big(t);
    for (mlir::Region &r : op->getRegions())
      for (mlir::Block &b : r)
        for (mlir::BlockArgument a : b.getArguments())
          found |= big(a.getType());
    return found ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
  });
  return found;
}

} // namespace octet_fuzz

#endif // OCTET_FUZZ_FUZZCOMMON_H
