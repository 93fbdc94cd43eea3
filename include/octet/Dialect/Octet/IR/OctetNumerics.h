//===- OctetNumerics.h - The dialect's formats in the C++ rules -*- C++ -*-===//
//
// The one bridge between the dialect's StorageFormat (generated from
// OctetEnums.td) and the runtime's numerics::StorageFormat
// (octet/Runtime/Numerics.h, which has no MLIR dependency and is what the
// runtime, constant folding and compile-time quantization compute with).
// The two enums have the same enumerators in the same order; this header
// checks it, so no other file casts between them.
//
// Not included by Octet.h: the runtime's global `::octet` namespace would
// make `octet::` ambiguous in files that say `using namespace mlir`.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETNUMERICS_H
#define OCTET_DIALECT_OCTET_IR_OCTETNUMERICS_H

#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Runtime/Numerics.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
namespace octet {

static_assert(static_cast<int>(StorageFormat::i8) ==
                      static_cast<int>(::octet::numerics::StorageFormat::I8) &&
                  static_cast<int>(StorageFormat::u8) ==
                      static_cast<int>(::octet::numerics::StorageFormat::U8) &&
                  static_cast<int>(StorageFormat::i4) ==
                      static_cast<int>(::octet::numerics::StorageFormat::I4) &&
                  static_cast<int>(StorageFormat::u4) ==
                      static_cast<int>(::octet::numerics::StorageFormat::U4) &&
                  static_cast<int>(StorageFormat::f8E4M3FN) ==
                      static_cast<int>(
                          ::octet::numerics::StorageFormat::F8E4M3FN) &&
                  static_cast<int>(StorageFormat::f8E5M2) ==
                      static_cast<int>(
                          ::octet::numerics::StorageFormat::F8E5M2) &&
                  static_cast<int>(StorageFormat::f4E2M1FN) ==
                      static_cast<int>(
                          ::octet::numerics::StorageFormat::F4E2M1FN) &&
                  static_cast<int>(StorageFormat::nf4) ==
                      static_cast<int>(::octet::numerics::StorageFormat::NF4),
              "dialect and numerics storage formats must agree");

/// The runtime's format of a dialect format.
inline ::octet::numerics::StorageFormat toNumerics(StorageFormat format) {
  return static_cast<::octet::numerics::StorageFormat>(format);
}

/// The element format of an OCP MX format name, as octet-quantize-weights
/// and octet-quantize-activations take it: mxfp8 / mxfp8-e4m3 (E4M3),
/// mxfp8-e5m2 (E5M2), mxfp4 (E2M1); none for any other name. The scales
/// are E8M0 (ScaleFormat::e8m0), one per block along the reduction axis.
inline std::optional<StorageFormat> parseMxFormatName(llvm::StringRef name) {
  if (name == "mxfp8" || name == "mxfp8-e4m3")
    return StorageFormat::f8E4M3FN;
  if (name == "mxfp8-e5m2")
    return StorageFormat::f8E5M2;
  if (name == "mxfp4")
    return StorageFormat::f4E2M1FN;
  return std::nullopt;
}

} // namespace octet
} // namespace mlir

#endif // OCTET_DIALECT_OCTET_IR_OCTETNUMERICS_H
