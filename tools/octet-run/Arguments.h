//===- Arguments.h - octet-run's signatures and arguments -------*- C++ -*-===//
//
// What octet-run checks before it calls a function: the signature a library
// built by octet-compile embeds as text (`octet_signature_NAME`), whether
// its argument and result types can travel as .npy files, and the memref
// descriptor (or scalar) each .npy argument becomes. Errors come back as
// messages, never as exits, so that the fuzz harness
// (fuzz/FuzzRunArguments.cpp) can drive the same code.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_TOOLS_OCTET_RUN_ARGUMENTS_H
#define OCTET_TOOLS_OCTET_RUN_ARGUMENTS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "octet/Runtime/Npy.h"

#include <optional>
#include <string>
#include <vector>

namespace octet_run {

std::string typeString(mlir::Type t);

/// The .npy dtype that carries elements of type `t`, or nullopt.
std::optional<octet::runtime::NpyDType> npyTypeFor(mlir::Type t);

/// Whether an .npy file of dtype `have` may feed elements of type `t`:
/// the exact carrier, or the other signedness of the same width for
/// signless integers (u8 codes live in i8 tensors).
bool acceptsDType(mlir::Type t, octet::runtime::NpyDType have);

/// Bytes one element occupies in memory as the generated code sees it.
size_t elementBytes(mlir::Type t);

/// Number of 8-byte words a result occupies in the returned struct.
int64_t resultWords(mlir::Type t);

/// Memory for one argument, kept alive across calls.
struct Slot {
  mlir::Type type;           ///< The function's argument type.
  mlir::Type elementType;
  int64_t rank = 0;          ///< -1 for scalars.
  void *buffer = nullptr;    ///< Aligned allocation (std::free) for arrays.
  std::vector<int64_t> desc; ///< Memref descriptor words or a scalar value.
};

/// Parses the signature text a library embeds for `entry` (a builtin
/// function type) and checks that octet-run can call it from a library:
/// every result a ranked tensor or memref of a type with an .npy form.
/// Null with `error` set otherwise.
mlir::FunctionType parseLibrarySignature(llvm::StringRef text,
                                         llvm::StringRef entry,
                                         mlir::MLIRContext &context,
                                         std::string &error);

/// Whether octet-run can return each result of `type` as .npy: ranked
/// tensors and memrefs, or 64-bit scalars. Empty string when it can.
std::string checkResults(mlir::FunctionType type);

/// Whether `numInputs` --input and `numOutputs` --output files (0: none
/// written) fit `type`. Empty string when they do.
std::string checkArity(mlir::FunctionType type, llvm::StringRef entry,
                       size_t numInputs, size_t numOutputs);

/// Builds argument #`index` of type `type` from `array` (read from
/// `path`): a 64-byte aligned copy of the data and its row-major memref
/// descriptor, or the scalar of a 0-d array. Nullopt with `error` set when
/// the array does not match the type (dtype, rank, static dimensions) or
/// the type cannot be passed.
std::optional<Slot> makeArgument(unsigned index, mlir::Type type,
                                 const octet::runtime::NpyArray &array,
                                 llvm::StringRef path, std::string &error);

} // namespace octet_run

#endif // OCTET_TOOLS_OCTET_RUN_ARGUMENTS_H
