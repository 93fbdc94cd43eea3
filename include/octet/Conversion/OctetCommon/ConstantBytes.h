//===- ConstantBytes.h - The bytes of a constant ----------------*- C++ -*-===//
//
// The raw bytes of a constant's elements, for the lowerings that lay out
// constant weights at compile time (the CPU kernels' packing, the CUDA
// lowering's transposed and packed weights): a dense attribute's data or a
// dense_resource blob's (what octet-quantize-weights writes for large
// weights). Elements of up to 8 bits take one byte each; a dense splat
// holds one element.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_CONVERSION_OCTETCOMMON_CONSTANTBYTES_H
#define OCTET_CONVERSION_OCTETCOMMON_CONSTANTBYTES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>

namespace mlir {
namespace octet {

/// The raw bytes of a dense or dense_resource constant, or none.
inline std::optional<ArrayRef<char>> rawBytes(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.getRawData();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETCOMMON_CONSTANTBYTES_H
