//===- Arguments.cpp - octet-run's signatures and arguments ---------------===//

#include "Arguments.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace mlir;
namespace npy = ::octet::runtime;

std::string octet_run::typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::optional<npy::NpyDType> octet_run::npyTypeFor(Type t) {
  using D = npy::NpyDType;
  if (t.isF32())
    return D::F32;
  if (t.isF64())
    return D::F64;
  if (t.isF16())
    return D::F16;
  if (t.isBF16())
    return D::U16;
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType>(t))
    return D::U8;
  if (t.isIndex())
    return D::I64;
  if (auto it = dyn_cast<IntegerType>(t)) {
    switch (it.getWidth()) {
    case 1:
      return D::Bool;
    case 4:
    case 8:
      return D::I8;
    case 16:
      return D::I16;
    case 32:
      return D::I32;
    case 64:
      return D::I64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool octet_run::acceptsDType(Type t, npy::NpyDType have) {
  using D = npy::NpyDType;
  std::optional<D> want = npyTypeFor(t);
  if (!want)
    return false;
  if (*want == have)
    return true;
  if (auto it = dyn_cast<IntegerType>(t)) {
    switch (it.getWidth()) {
    case 4:
    case 8:
      return have == D::U8;
    case 16:
      return have == D::U16;
    case 32:
      return have == D::U32;
    case 64:
      return have == D::U64;
    }
  }
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType>(t))
    return have == D::I8;
  return false;
}

size_t octet_run::elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits <= 8 ? 1 : bits / 8;
}

int64_t octet_run::resultWords(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return 3 + 2 * shaped.getRank();
  return 1;
}

FunctionType octet_run::parseLibrarySignature(StringRef text, StringRef entry,
                                              MLIRContext &context,
                                              std::string &error) {
  // The parser reports through the context: keep its message.
  std::string parseError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (parseError.empty())
      parseError = diag.str();
    return success();
  });
  // Without numRead the whole text must be one type.
  auto type = dyn_cast_if_present<FunctionType>(parseType(text, &context));
  if (!type) {
    error = ("unreadable signature for '" + entry + "': '" + text + "'" +
             (parseError.empty() ? "" : " (" + parseError + ")"))
                .str();
    return nullptr;
  }
  for (Type t : type.getResults())
    if (!isa<RankedTensorType, MemRefType>(t)) {
      error = ("result type " + typeString(t) + " of '" + entry +
               "' is not supported by --library (ranked tensors and "
               "memrefs)")
                  .str();
      return nullptr;
    }
  error = checkResults(type);
  return error.empty() ? type : nullptr;
}

std::string octet_run::checkResults(FunctionType type) {
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    bool ok = false;
    if (auto shaped = dyn_cast<ShapedType>(t))
      ok = isa<RankedTensorType, MemRefType>(t) &&
           npyTypeFor(shaped.getElementType()).has_value();
    else
      ok = t.isIntOrIndexOrFloat() && elementBytes(t) == 8 &&
           npyTypeFor(t).has_value();
    if (!ok)
      return ("result #" + llvm::Twine(i) + " of type " + typeString(t) +
              " is not supported (ranked tensors and memrefs of types with "
              "an .npy form, and 64-bit scalars)")
          .str();
  }
  return "";
}

std::string octet_run::checkArity(FunctionType type, StringRef entry,
                                  size_t numInputs, size_t numOutputs) {
  if (numInputs != type.getNumInputs())
    return ("'" + entry + "' takes " + llvm::Twine(type.getNumInputs()) +
            " argument(s) but " + llvm::Twine(numInputs) +
            " --input file(s) were given")
        .str();
  if (numOutputs && numOutputs != type.getNumResults())
    return ("'" + entry + "' returns " + llvm::Twine(type.getNumResults()) +
            " result(s) but " + llvm::Twine(numOutputs) +
            " --output file(s) were given")
        .str();
  return "";
}

std::optional<octet_run::Slot>
octet_run::makeArgument(unsigned index, Type type, const npy::NpyArray &array,
                        StringRef path, std::string &error) {
  Slot slot;
  slot.type = type;
  auto fail = [&](const llvm::Twine &why) -> std::optional<Slot> {
    error = ("argument #" + llvm::Twine(index) + " (" + typeString(type) +
             ") from '" + path + "': " + why)
                .str();
    return std::nullopt;
  };
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasRank() || !isa<RankedTensorType, MemRefType>(type))
      return fail("only ranked tensors and memrefs are supported");
    slot.elementType = shaped.getElementType();
    slot.rank = shaped.getRank();
    std::optional<npy::NpyDType> want = npyTypeFor(slot.elementType);
    if (!acceptsDType(slot.elementType, array.dtype))
      return fail(llvm::Twine("dtype ") + npy::dtypeName(array.dtype) +
                  " does not match element type " +
                  typeString(slot.elementType) +
                  (want ? " (expected " + std::string(npy::dtypeName(*want)) +
                              ")"
                        : std::string(" (unsupported element type)")));
    if (static_cast<int64_t>(array.shape.size()) != slot.rank)
      return fail("rank " + llvm::Twine(array.shape.size()) +
                  " does not match rank " + llvm::Twine(slot.rank));
    for (int64_t d = 0; d < slot.rank; ++d)
      if (!shaped.isDynamicDim(d) && shaped.getDimSize(d) != array.shape[d])
        return fail("dimension " + llvm::Twine(d) + " is " +
                    llvm::Twine(array.shape[d]) + ", expected " +
                    llvm::Twine(shaped.getDimSize(d)));
    size_t size = std::max<size_t>(array.data.size(), 1);
    size_t rounded = (size + 63) / 64 * 64;
    slot.buffer = std::aligned_alloc(64, rounded);
    if (!slot.buffer)
      return fail("out of memory allocating " + llvm::Twine(rounded) +
                  " bytes");
    // An empty array's data() may be null: memcpy must not see it.
    if (!array.data.empty())
      std::memcpy(slot.buffer, array.data.data(), array.data.size());
    // i4 and f4E2M1FN elements occupy a byte each and the generated code
    // may read the whole byte: keep only the low nibble (accepts zero- and
    // sign-extended carriers alike).
    if (slot.elementType.isInteger(4) ||
        isa<Float4E2M1FNType>(slot.elementType)) {
      auto *bytes = static_cast<uint8_t *>(slot.buffer);
      for (size_t i = 0, e = array.data.size(); i < e; ++i)
        bytes[i] &= 0x0f;
    }
    int64_t ptr = reinterpret_cast<int64_t>(slot.buffer);
    slot.desc = {ptr, ptr, 0};
    for (int64_t d : array.shape)
      slot.desc.push_back(d);
    std::vector<int64_t> strides(slot.rank, 1);
    for (int64_t d = slot.rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * array.shape[d + 1];
    slot.desc.insert(slot.desc.end(), strides.begin(), strides.end());
    return slot;
  }
  // Scalars come from 0-d arrays.
  slot.elementType = type;
  slot.rank = -1;
  if (!type.isIntOrIndexOrFloat() || !acceptsDType(type, array.dtype))
    return fail(llvm::Twine("expected a 0-d array of ") +
                (npyTypeFor(type) ? npy::dtypeName(*npyTypeFor(type))
                                  : "a supported scalar type") +
                ", got dtype " + npy::dtypeName(array.dtype));
  if (!array.shape.empty())
    return fail("a scalar argument needs a 0-d array, got rank " +
                llvm::Twine(array.shape.size()));
  slot.desc.assign(1, 0);
  if (!array.data.empty())
    std::memcpy(slot.desc.data(), array.data.data(),
                std::min<size_t>(array.data.size(), 8));
  return slot;
}
