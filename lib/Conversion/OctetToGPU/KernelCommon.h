//===- KernelCommon.h - Shared pieces of the CUDA kernels -------*- C++ -*-===//
//
// Internal to the OctetToGPU lowering: creating a kernel function, loading
// and storing tensor elements in their memory form, and the index of a
// quantization parameter for an element.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELCOMMON_H
#define OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELCOMMON_H

#include "KernelBuilder.h"
#include "Kernels.h"

namespace mlir {
namespace octet {
namespace cuda {

/// Creates `gpu.func @name(args) kernel` with a known block size of
/// `block` x `blockY` threads and moves `b` to its entry block (before the
/// gpu.return).
gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc, StringRef name,
                            TypeRange args, int64_t block, int64_t blockY = 1);

/// Loads element `index` of a tensor of element type `elem` (f32, f16,
/// bf16, i8, i4, f8E4M3FN, f8E5M2, i32) from `base` (global). i4 codes are
/// stored one per byte (low nibble); FP8 codes are bytes.
Value loadTensorElem(KernelBuilder &kb, Value base, Type elem, Value index);

/// Stores `v` (of a tensor element type) as element `index` of `base`.
void storeTensorElem(KernelBuilder &kb, Value v, Value base, Value index);

/// The index into the parameter tensor of `scheme` for the element at
/// linear `index` of a tensor with sizes `dims` (row-major).
Value paramIndex(KernelBuilder &kb, SchemeAttr scheme, Value index,
                 ArrayRef<Value> dims);

/// A string naming `t` for kernel names and keys ("f8E4M3FN", "i8", ...).
std::string typeString(Type t);
/// A string naming the scheme for kernel keys.
std::string schemeString(SchemeAttr scheme);

} // namespace cuda
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELCOMMON_H
