//===- OctetToGPU.h - Lowering octet ops to CUDA ----------------*- C++ -*-===//
//
// The CUDA lowering runs in two passes around bufferization
// (docs/cuda.md):
//
//  1. octet-outline-for-cuda (tensors): every octet op becomes a call of a
//     private "launch stub" function declared with the op's description
//     (the attributes below); the kernel strategy is chosen here, from the
//     module's #octet.target and the capability table.
//  2. convert-octet-to-gpu (memrefs, after bufferization and deallocation,
//     which do not accept gpu dialect ops): each stub gets its body (device
//     buffers, copies, kernel launches) and the kernels are written into
//     the gpu.module @octet_kernels with NVVM ops.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_CONVERSION_OCTETTOGPU_OCTETTOGPU_H
#define OCTET_CONVERSION_OCTETTOGPU_OCTETTOGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
namespace octet {

/// The gpu.module that holds the generated kernels.
constexpr StringLiteral kCudaKernelModuleName = "octet_kernels";

/// Attributes of a launch stub (the contract between the two passes).
/// The octet op kind: quantize, dequantize, requantize, compute_params,
/// matmul; or a copy at the edge of the device: upload (host -> device),
/// download (device -> host).
constexpr StringLiteral kCudaOpAttr = "octet.cuda.op";
/// One role per stub argument (lhs, rhs, rhs_nk, lhs_scale, ...).
constexpr StringLiteral kCudaRolesAttr = "octet.cuda.roles";
/// The op's schemes by name (scheme, in_scheme, out_scheme, lhs_scheme,
/// rhs_scheme).
constexpr StringLiteral kCudaSchemesAttr = "octet.cuda.schemes";
/// matmul: the kernel kind (simt, mma_sync, wgmma, tcgen05, gemv).
constexpr StringLiteral kCudaKernelAttr = "octet.cuda.kernel";
/// matmul: ReLU in the epilogue.
constexpr StringLiteral kCudaReluAttr = "octet.cuda.relu";
/// The roles whose argument is a constant at the call site (weights, their
/// scales, zero points, column sums, bias): convert-octet-to-gpu uploads
/// these once, at the stub's first call, and keeps them on the device.
constexpr StringLiteral kCudaResidentAttr = "octet.cuda.resident";

/// The memory space of values that live on the device between launch stubs
/// (the tensor encoding octet-outline-for-cuda gives them, the memref memory
/// space after bufferization): a stub argument or result of this space is a
/// device buffer, which the stub uses or returns without a copy; any other
/// is host memory, copied to the device (or kept there, if resident) and
/// the result copied back.
constexpr unsigned kCudaDeviceMemorySpace = 1;

/// Whether `type` is a memref in kCudaDeviceMemorySpace.
bool isCudaDeviceMemRef(Type type);

/// Writes the kernel manifest of a module after convert-octet-to-gpu: one
/// line per kernel, `kernel NAME KIND BLOCK_X BLOCK_Y SHARED_BYTES TILE_M
/// TILE_N TILE_K` (docs/cuda.md describes the parameters of each kind).
LogicalResult writeCudaKernelManifest(ModuleOp module, raw_ostream &os);

/// Renames the declarations of MLIR's GPU runtime calls (mgpuModuleLoad,
/// mgpuLaunchKernel, ...) in a translated module to the octet runtime's
/// octet_mgpu* implementations. Returns how many were renamed.
unsigned prefixGpuRuntimeCalls(llvm::Module &module);

} // namespace octet
} // namespace mlir

#endif // OCTET_CONVERSION_OCTETTOGPU_OCTETTOGPU_H
