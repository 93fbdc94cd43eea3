//===- Kernels.h - The CUDA kernels of the OctetToGPU lowering --*- C++ -*-===//
//
// Internal to the OctetToGPU lowering: what each kernel computes, its
// parameters (the ABI the host code and bench/gpu use, see docs/cuda.md) and
// the builders that write it into the kernel module.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELS_H
#define OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELS_H

#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <optional>
#include <string>

namespace mlir {
namespace octet {
namespace cuda {

/// Launch facts of one kernel, also written to the kernel manifest.
struct LaunchInfo {
  std::string kind;           ///< simt, mma_sync, wgmma, tcgen05, gemv, ...
  int64_t block = 256;        ///< Threads per block (x).
  int64_t blockY = 1;         ///< Threads per block (y).
  int64_t sharedBytes = 0;    ///< Dynamic shared memory.
  int64_t tileM = 0, tileN = 0, tileK = 0; ///< Output tile of one block.
};

/// Attaches `info` to `func` (octet.launch) for the manifest.
void setLaunchInfo(gpu::GPUFuncOp func, const LaunchInfo &info);
/// Reads what setLaunchInfo attached.
std::optional<LaunchInfo> getLaunchInfo(gpu::GPUFuncOp func);

//===----------------------------------------------------------------------===//
// Element-wise kernels
//===----------------------------------------------------------------------===//

enum class ElementwiseKind { quantize, dequantize, requantize };

/// quantize / dequantize / requantize of a tensor of rank `rank`.
/// Parameters: (in, out, in_scale, in_zp, out_scale, out_zp : !llvm.ptr,
/// numel, d0 .. d{rank-1} : i64); absent parameters are null pointers.
/// A grid-stride loop over the elements.
struct ElementwiseConfig {
  ElementwiseKind kind;
  int64_t rank;
  Type inElem, outElem;   ///< Tensor element types (storage or float).
  SchemeAttr inScheme;    ///< dequantize, requantize.
  SchemeAttr outScheme;   ///< quantize, requantize.
  bool inZp = false, outZp = false;
  std::string key() const;
};
gpu::GPUFuncOp buildElementwiseKernel(OpBuilder &b, Location loc,
                                      StringRef name,
                                      const ElementwiseConfig &config);

/// compute_params: one block of 256 threads per parameter group.
/// Parameters: (in, scale, zp : !llvm.ptr, d0 .. d{rank-1} : i64).
struct ComputeParamsConfig {
  int64_t rank;
  Type inElem;
  SchemeAttr scheme;
  std::string key() const;
};
gpu::GPUFuncOp buildComputeParamsKernel(OpBuilder &b, Location loc,
                                        StringRef name,
                                        const ComputeParamsConfig &config);

/// Sums of the codes of each row of a [rows x cols] matrix into i32
/// (rows of A for lhs zero points, rows of B^T = columns of B for rhs ones).
/// Parameters: (src, out : !llvm.ptr, rows, cols : i64). One thread per row.
gpu::GPUFuncOp buildRowSumKernel(OpBuilder &b, Location loc, StringRef name,
                                 Type elem, bool isUnsigned);

/// dst[n, k] = src[k, n] for 8-bit codes: [K x N] -> [N x K].
/// Parameters: (src, dst : !llvm.ptr, K, N : i64). 32x8 threads per block,
/// 32x32 tiles through shared memory.
gpu::GPUFuncOp buildTransposeKernel(OpBuilder &b, Location loc,
                                    StringRef name);

//===----------------------------------------------------------------------===//
// Matrix multiplication kernels
//===----------------------------------------------------------------------===//

enum class MatmulKernelKind {
  simt,    ///< One thread per output, any formats, batches, groups.
  mmaSync, ///< sm_80+: mma.sync m16n8k32 (s8/u8; e4m3/e5m2 on sm_89+).
  wgmma,   ///< sm_90a: wgmma m64nNk32 from swizzled shared memory.
  tcgen05, ///< sm_100a: tcgen05.mma M128 N128 K32, accumulators in TMEM.
  gemv     ///< Weight-only (float lhs) decode GEMV, split over K.
};
StringRef stringifyMatmulKernelKind(MatmulKernelKind kind);
std::optional<MatmulKernelKind> symbolizeMatmulKernelKind(StringRef name);

/// Every matmul kernel takes the same parameters, in this order (absent
/// ones are null / 0):
///   0 a, 1 b, 2 out, 3 lhs_scale, 4 lhs_zp, 5 rhs_scale, 6 rhs_zp,
///   7 rowsum(A), 8 colsum(B), 9 bias, 10 out_scale, 11 out_zp,
///   12 workspace, 13 counters : !llvm.ptr;
///   14 M, 15 N, 16 K, 17 batch, 18 k_chunk : i64.
/// `b` is B^T ([N x K], K contiguous) for mma_sync and wgmma, B ([K x N])
/// for simt and gemv.
enum MatmulParam : unsigned {
  kA = 0, kB, kOut, kSa, kZa, kSb, kZb, kRowSum, kColSum, kBias, kOs, kOz,
  kWorkspace, kCounters, kM, kN, kK, kBatch, kKChunk, kNumMatmulParams
};

/// The block scales a product's two operands carry that a block-scaled MMA
/// multiplies inside the instruction (per-group schemes along K with the
/// same group on both sides), named by the MMA kind that takes them:
/// - mxf8f6f4: OCP MX, E8M0 scales per block of 32, FP8 codes on both
///   sides or FP8 and E2M1 (MXFP8 x MXFP4): sm_120a's mma.sync m16n8k32
///   (one scale per row / column), sm_100a's tcgen05.mma (E2M1 codes
///   padded to FP8's byte per code in shared memory);
/// - mxf4: OCP MXFP4 on both (E2M1, E8M0 per 32): mma.sync m16n8k64 and
///   tcgen05.mma K = 64, two scales (scale_vec::2X);
/// - mxf4nvf4: NVFP4 on both (E2M1, E4M3 scales per 16 times the schemes'
///   global scales): mma.sync m16n8k64 and tcgen05.mma K = 64, four
///   scales (scale_vec::4X), the global scales multiplying the sums in the
///   epilogue.
enum class BlockScaleKind { none, mxf8f6f4, mxf4, mxf4nvf4 };
/// The kind's PTX name (`kind::<name>.block_scale`).
inline StringRef stringifyBlockScaleKind(BlockScaleKind kind) {
  switch (kind) {
  case BlockScaleKind::none:
    return "none";
  case BlockScaleKind::mxf8f6f4:
    return "mxf8f6f4";
  case BlockScaleKind::mxf4:
    return "mxf4";
  case BlockScaleKind::mxf4nvf4:
    return "mxf4nvf4";
  }
  llvm_unreachable("unknown block scale kind");
}
inline BlockScaleKind blockScaleKindOf(SchemeAttr lhs, SchemeAttr rhs) {
  if (lhs.getGranularity() != Granularity::per_group ||
      rhs.getGranularity() != Granularity::per_group ||
      lhs.getGroupSize() != rhs.getGroupSize())
    return BlockScaleKind::none;
  auto isE2m1 = [](SchemeAttr s) {
    return s.getFormat() == StorageFormat::f4E2M1FN;
  };
  auto isMxElem = [&](SchemeAttr s) {
    return isE2m1(s) || s.getFormat() == StorageFormat::f8E4M3FN ||
           s.getFormat() == StorageFormat::f8E5M2;
  };
  bool e2m1 = isE2m1(lhs) && isE2m1(rhs);
  int64_t group = rhs.getGroupSize();
  if (lhs.hasE8M0Scales() && rhs.hasE8M0Scales() && group == 32 &&
      isMxElem(lhs) && isMxElem(rhs))
    return e2m1 ? BlockScaleKind::mxf4 : BlockScaleKind::mxf8f6f4;
  if (lhs.hasE4M3Scales() && rhs.hasE4M3Scales() && group == 16 && e2m1)
    return BlockScaleKind::mxf4nvf4;
  return BlockScaleKind::none;
}

struct MatmulConfig {
  MatmulKernelKind kind = MatmulKernelKind::simt;
  Type lhsElem;                      ///< f32/f16/bf16 or a storage type.
  std::optional<SchemeAttr> lhsScheme;
  SchemeAttr rhsScheme;
  std::optional<SchemeAttr> outScheme;
  Type rhsElem, resultElem;
  bool lhsZp = false, rhsZp = false, bias = false, relu = false,
       outZp = false;
  bool batched = false, rhsBatched = false; ///< simt only.
  /// mma_sync / wgmma tile; gemv: tileN columns per block.
  int64_t tileM = 128, tileN = 128, tileK = 64, stages = 3;
  /// gemv: rows of the lhs handled per block.
  int64_t gemvRows = 4;
  /// gemv: 4-bit codes packed two per byte (K x N/2, column 2j in the low
  /// nibble; the stub's `rhs_packed`).
  bool packedNibbles = false;

  bool floatLhs() const { return !lhsScheme.has_value(); }
  /// Float codes on both sides (FP8 and / or FP4), decoded to f32.
  bool fp8() const { return !floatLhs() && rhsScheme.isFloat(); }
  bool intAcc() const { return !floatLhs() && !rhsScheme.isFloat(); }
  bool grouped() const {
    return rhsScheme.getGranularity() == Granularity::per_group;
  }
  /// Block-wise lhs parameters (MatmulOp::hasGroupedLhs): one per row and
  /// rhs group, applied per group (simt only).
  bool lhsGrouped() const {
    return lhsScheme && grouped() &&
           lhsScheme->getGranularity() == Granularity::per_group &&
           lhsScheme->getGroupSize() == rhsScheme.getGroupSize();
  }
  /// The block scaling both operands carry (blockScaleKindOf).
  using BlockScaleKind = cuda::BlockScaleKind;
  BlockScaleKind blockScaleKind() const {
    return lhsScheme ? blockScaleKindOf(*lhsScheme, rhsScheme)
                     : BlockScaleKind::none;
  }
  std::string key() const;
};

/// Whether the wgmma weight-only kernel (WgmmaKernel.cpp) takes the gemv
/// product `c`: f32 / f16 / bf16 activations, any 8- or 4-bit weight
/// format, per-tensor, per-channel or per-group scales, zero points per
/// tensor or channel, no batch.
bool wgmmaTakesWeightOnly(const MatmulConfig &c);

/// Builds the kernel for `config` and sets its LaunchInfo.
gpu::GPUFuncOp buildMatmulKernel(OpBuilder &b, Location loc, StringRef name,
                                 const MatmulConfig &config);

} // namespace cuda
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELS_H
