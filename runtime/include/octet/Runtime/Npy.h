//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// A small, dependency-free reader and writer for the NumPy .npy format
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html),
// versions 1.0, 2.0 and 3.0, for the little-endian numeric dtypes Octet uses.
//
// The reader treats its input as untrusted: every field is bounds-checked,
// nothing is allocated before the file is known to hold the bytes the header
// promises, and every rejection comes with a message that says what was wrong
// (and, where it helps, how to fix it). No exceptions and no RTTI are used, so
// the code links into LLVM/MLIR tools built with -fno-exceptions -fno-rtti.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_NPY_H
#define OCTET_RUNTIME_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace octet {
namespace runtime {

/// Element types a .npy file may hold. All multi-byte types are stored
/// little-endian.
enum class NpyDType : uint8_t {
  F16,
  F32,
  F64,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  Bool
};

/// The NumPy name of a dtype ("float32", "int8", "bool", ...).
const char *dtypeName(NpyDType dtype);

/// The .npy descriptor string the writer emits ("<f4", "|i1", "|b1", ...).
const char *dtypeDescr(NpyDType dtype);

/// Size in bytes of one element.
size_t dtypeSize(NpyDType dtype);

/// Number of elements of an array with this shape: the product of the
/// dimensions, 1 for a scalar (shape ()). The shape must be valid (no negative
/// dimension, no overflow), as every shape produced by the reader is; returns
/// -1 otherwise.
int64_t numElements(const std::vector<int64_t> &shape);

/// An n-dimensional array as stored in a .npy file.
struct NpyArray {
  NpyDType dtype = NpyDType::F32;
  /// Dimensions, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
  /// The elements in C (row-major) order, as raw little-endian bytes;
  /// numElements(shape) * dtypeSize(dtype) bytes.
  std::vector<uint8_t> data;

  int64_t numElements() const { return runtime::numElements(shape); }
  size_t sizeInBytes() const { return data.size(); }
  /// The element data reinterpreted as T (the caller checks the dtype).
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(data.data());
  }
  template <typename T> T *as() { return reinterpret_cast<T *>(data.data()); }
};

/// Reads the .npy file at `path` into `out`. On failure returns false, leaves
/// `out` unspecified and sets `error` to a message that starts with the path.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// Parses a complete .npy image held in memory (`size` bytes at `bytes`). On
/// failure returns false and sets `error`. Safe on arbitrary input.
bool readNpyFromMemory(const uint8_t *bytes, size_t size, NpyArray &out,
                       std::string &error);

/// Writes `array` to `path` (format version 1.0, or 2.0 when the header does
/// not fit in 64 KiB). Fails if `array.data` does not hold exactly
/// numElements(shape) * dtypeSize(dtype) bytes or if the file cannot be
/// written.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

/// Writes `numElements(shape) * dtypeSize(dtype)` bytes starting at `data`
/// (C order, little-endian) to `path` without copying them first. `shape`
/// holds `rank` dimensions (rank 0 is a scalar).
bool writeNpy(const std::string &path, NpyDType dtype, const int64_t *shape,
              size_t rank, const void *data, std::string &error);

/// Serializes `array` into a .npy image in memory (`out` is replaced).
bool writeNpyToMemory(const NpyArray &array, std::vector<uint8_t> &out,
                      std::string &error);

} // namespace runtime
} // namespace octet

#endif // OCTET_RUNTIME_NPY_H
