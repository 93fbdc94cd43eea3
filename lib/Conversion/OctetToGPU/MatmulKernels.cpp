//===- MatmulKernels.cpp - CUDA kernels for octet.matmul ------------------===//
//
// Four kernels compute octet.matmul on the GPU, all with the same fused
// epilogue as the CPU lowering (MatmulLowering.cpp), op for op:
//
//  - simt (SimtMatmul.cpp): one thread per output element; any formats
//    (including 4-bit codes), batches and per-group rhs scales. Sums run
//    sequentially over K in the CPU's order, so its results equal the CPU's
//    bit for bit.
//  - mma_sync (MmaSyncKernel.cpp, sm_80+): 128x128 block tiles, 8 warps of
//    64x32, mma.sync.m16n8k32 on s8/u8 (i32 accumulators) or, on sm_89+, on
//    e4m3/e5m2 (f32 accumulators, through inline PTX: MLIR 22's nvvm.mma.sync
//    rejects FP8). A and B^T (both K-contiguous) are staged with 16-byte
//    cp.async (zero-filled outside the matrix) into a 3-stage ring of
//    padded shared-memory tiles.
//  - wgmma (WgmmaKernel.cpp, sm_90a): 128 x N (N = 128 or 256) block tiles,
//    two warpgroups of m64nNk32 wgmma.mma_async (nvvm.wgmma.mma_async:
//    s8/u8 -> s32, e4m3/e5m2 -> f32) reading both operands from
//    128-byte-swizzled shared memory through matrix descriptors; a 4-stage
//    cp.async ring, one wgmma group in flight.
//  - gemv (GemvKernel.cpp): weight-only products (float lhs, 8-bit rhs, few
//    rows): streams B with 16-byte loads, converts int8 codes with a byte
//    permute into the mantissa of 2^23 (exact), splits K over blocks and
//    reduces the partial sums deterministically in the last block of each
//    column tile.
//
// Integer accumulation is exact in i32 on every path, so integer results
// match the CPU bit for bit; f32 sums (FP8, weight-only) differ from the CPU
// only in the order of the additions on the tensor-core and gemv paths.
//
// This file holds what names a kernel (its kind, its key) and
// buildMatmulKernel, which sets the launch facts and dispatches to the
// family's body builder; the families share MatmulCommon.h/.cpp.
//
//===----------------------------------------------------------------------===//

#include "MatmulCommon.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;

StringRef cuda::stringifyMatmulKernelKind(MatmulKernelKind kind) {
  switch (kind) {
  case MatmulKernelKind::simt:
    return "simt";
  case MatmulKernelKind::mmaSync:
    return "mma_sync";
  case MatmulKernelKind::wgmma:
    return "wgmma";
  case MatmulKernelKind::tcgen05:
    return "tcgen05";
  case MatmulKernelKind::gemv:
    return "gemv";
  }
  return "simt";
}

std::optional<MatmulKernelKind>
cuda::symbolizeMatmulKernelKind(StringRef name) {
  return llvm::StringSwitch<std::optional<MatmulKernelKind>>(name)
      .Case("simt", MatmulKernelKind::simt)
      .Case("mma_sync", MatmulKernelKind::mmaSync)
      .Case("wgmma", MatmulKernelKind::wgmma)
      .Case("tcgen05", MatmulKernelKind::tcgen05)
      .Case("gemv", MatmulKernelKind::gemv)
      .Default(std::nullopt);
}

std::string MatmulConfig::key() const {
  std::string k = stringifyMatmulKernelKind(kind).str();
  k += "_" + typeString(lhsElem) + "_" +
       schemeString(lhsScheme ? *lhsScheme : SchemeAttr()) + "_" +
       typeString(rhsElem) + "_" + schemeString(rhsScheme) + "_" +
       typeString(resultElem) + "_" +
       schemeString(outScheme ? *outScheme : SchemeAttr());
  k += lhsZp ? "_za" : "";
  k += rhsZp ? "_zb" : "";
  k += bias ? "_bias" : "";
  k += relu ? "_relu" : "";
  k += outZp ? "_oz" : "";
  k += batched ? "_b" : "";
  k += rhsBatched ? "_rb" : "";
  k += packedNibbles ? "_pk" : "";
  if (kind != MatmulKernelKind::simt)
    k += "_t" + std::to_string(tileM) + "x" + std::to_string(tileN) + "x" +
         std::to_string(tileK) + "s" + std::to_string(stages);
  return k;
}
gpu::GPUFuncOp cuda::buildMatmulKernel(OpBuilder &b, Location loc,
                                       StringRef name,
                                       const MatmulConfig &config) {
  KernelBuilder kb(b, loc);
  LaunchInfo info;
  info.kind = stringifyMatmulKernelKind(config.kind).str();
  int64_t block = 256;
  switch (config.kind) {
  case MatmulKernelKind::simt:
    info.tileM = 16;
    info.tileN = 16;
    break;
  case MatmulKernelKind::mmaSync:
    info.tileM = 128;
    info.tileN = 128;
    info.tileK = 64;
    info.sharedBytes = 3 * 2 * 128 * (64 + 16);
    break;
  case MatmulKernelKind::wgmma:
    info.tileM = 128;
    info.tileN = config.tileN;
    info.tileK = config.tileK;
    info.sharedBytes = config.floatLhs()
                           ? wgmmaWeightOnlySharedBytes(config)
                           : config.stages * (128 + config.tileN) * 128;
    break;
  case MatmulKernelKind::tcgen05:
    block = 128;
    info.tileM = 128;
    info.tileN = 128;
    info.tileK = 128;
    info.sharedBytes = tcgen05SharedBytes();
    break;
  case MatmulKernelKind::gemv:
    info.tileM = config.gemvRows;
    info.tileN = 128;
    info.tileK = 128; // k_chunk must be a multiple of this
    info.sharedBytes = config.gemvRows * 128 * 8 * 4 + 16;
    break;
  }
  info.block = block;
  gpu::GPUFuncOp func =
      createKernel(b, loc, name, matmulParamTypes(kb), block);
  setLaunchInfo(func, info);
  Params p(kb, func.getArguments());
  switch (config.kind) {
  case MatmulKernelKind::simt:
    buildSimtBody(kb, config, p);
    break;
  case MatmulKernelKind::mmaSync:
    buildMmaSyncBody(kb, config, p);
    break;
  case MatmulKernelKind::wgmma:
    buildWgmmaBody(kb, config, p);
    break;
  case MatmulKernelKind::tcgen05:
    buildTcgen05Body(kb, config, p);
    break;
  case MatmulKernelKind::gemv:
    buildGemvBody(kb, config, p);
    break;
  }
  return func;
}
