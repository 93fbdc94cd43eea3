//===- FuzzRunArguments.cpp - Fuzz octet-run's signatures and arguments ---===//
//
// octet-fuzz-run-arguments: what `octet-run --library` does with a library's
// embedded signature and the .npy files given for it, before any call
// (tools/octet-run/Arguments.h). The input:
//
//   line 1     the signature text (as octet-compile embeds it,
//              `(tensor<?x16xf32>) -> (tensor<?x4xf32>)`)
//   then       up to 8 chunks of [u16 little-endian length][.npy bytes]
//
// Oracles:
//   - no crash, hang or sanitizer report;
//   - parseLibrarySignature accepts a function type whose results octet-run
//     can return (ranked tensors/memrefs with an .npy form), which prints
//     and parses back to the same type, or rejects with a message;
//   - checkArity accepts exactly the matching --input / --output counts;
//   - every .npy chunk the reader accepts, given as argument #(k mod
//     inputs): makeArgument either rejects it with a message that names
//     the argument, or returns a descriptor the generated code can use:
//     aligned pointer = allocated pointer, offset 0, the array's shape,
//     row-major strides, and exactly numElements * elementBytes bytes of
//     data behind it (what the callee reads); a scalar comes from a 0-d
//     array of at most 8 bytes.
//
//===----------------------------------------------------------------------===//

#include "../tools/octet-run/Arguments.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;
namespace npy = ::octet::runtime;

[[noreturn]] static void fail(const std::string &why) {
  std::fprintf(stderr, "octet-fuzz-run-arguments: ORACLE FAILURE: %s\n",
               why.c_str());
  std::abort();
}

static bool verbose() {
  static bool v = std::getenv("OCTET_FUZZ_VERBOSE") != nullptr;
  return v;
}

static void checkSlot(const octet_run::Slot &slot,
                      const npy::NpyArray &array) {
  if (slot.rank < 0) {
    if (slot.desc.size() != 1 || !array.shape.empty() ||
        array.data.size() > 8)
      fail("scalar slot not from a 0-d array of at most 8 bytes");
    return;
  }
  size_t rank = static_cast<size_t>(slot.rank);
  if (slot.desc.size() != 3 + 2 * rank || array.shape.size() != rank)
    fail("descriptor size does not match the rank");
  if (!slot.buffer || slot.desc[0] != reinterpret_cast<int64_t>(slot.buffer) ||
      slot.desc[1] != slot.desc[0] || slot.desc[2] != 0 ||
      reinterpret_cast<uintptr_t>(slot.buffer) % 64 != 0)
    fail("descriptor pointers or offset are wrong");
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    if (slot.desc[3 + d] != array.shape[d])
      fail("descriptor size " + std::to_string(d) + " is not the shape's");
    if (slot.desc[3 + rank + d] != stride)
      fail("descriptor stride " + std::to_string(d) + " is not row-major");
    stride *= array.shape[d];
  }
  uint64_t need = static_cast<uint64_t>(array.numElements()) *
                  octet_run::elementBytes(slot.elementType);
  if (need != array.data.size())
    fail("the callee reads " + std::to_string(need) + " bytes, the argument "
         "holds " + std::to_string(array.data.size()));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  size_t eol = text.find('\n');
  std::string signature = text.substr(0, eol);
  static MLIRContext *context = [] {
    auto *ctx = new MLIRContext();
    ctx->getDiagEngine().registerHandler([](Diagnostic &diag) {
      if (verbose())
        llvm::errs() << diag << "\n";
      return success();
    });
    return ctx;
  }();

  std::string error;
  FunctionType type =
      octet_run::parseLibrarySignature(signature, "f", *context, error);
  if (!type) {
    if (error.empty())
      fail("a rejected signature has no message");
    return 0;
  }
  if (!error.empty())
    fail("an accepted signature comes with a message: " + error);
  if (!octet_run::checkResults(type).empty())
    fail("an accepted signature has results octet-run cannot return");
  std::string printed = octet_run::typeString(type);
  if (parseType(printed, context) != type)
    fail("the signature does not round-trip: " + printed);

  // The .npy chunks.
  size_t pos = eol == std::string::npos ? size : eol + 1;
  unsigned chunks = 0;
  while (pos + 2 <= size && chunks < 8) {
    size_t len = data[pos] | (static_cast<size_t>(data[pos + 1]) << 8);
    pos += 2;
    len = std::min(len, size - pos);
    npy::NpyArray array;
    std::string readError;
    bool read = npy::readNpyFromMemory(data + pos, len, array, readError);
    pos += len;
    unsigned index = chunks++;
    if (!read || type.getNumInputs() == 0)
      continue;
    // A huge (but valid) array is a big model, not a bug.
    if (array.data.size() > (64u << 20))
      continue;
    Type argType = type.getInput(index % type.getNumInputs());
    std::string argError;
    std::optional<octet_run::Slot> slot =
        octet_run::makeArgument(index, argType, array, "chunk", argError);
    if (!slot) {
      if (argError.rfind("argument #", 0) != 0)
        fail("a rejected argument has no message naming it: " + argError);
      continue;
    }
    if (slot->type != argType)
      fail("the slot has another type");
    checkSlot(*slot, array);
    std::free(slot->buffer);
  }

  bool fits = chunks == type.getNumInputs();
  for (size_t outputs : {size_t(0), size_t(type.getNumResults()),
                         size_t(type.getNumResults() + 1)}) {
    bool want = fits && (outputs == 0 || outputs == type.getNumResults());
    if (octet_run::checkArity(type, "f", chunks, outputs).empty() != want)
      fail("checkArity disagrees for " + std::to_string(chunks) +
           " inputs and " + std::to_string(outputs) + " outputs");
  }
  return 0;
}
