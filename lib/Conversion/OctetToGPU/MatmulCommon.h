//===- MatmulCommon.h - Shared pieces of the matmul kernels -----*- C++ -*-===//
//
// Internal to the OctetToGPU lowering: what the four octet.matmul kernel
// families share (the kernel parameters as values, the index of a
// quantization parameter, the fused epilogue, code extension and FP8
// decoding, staging 8-bit tiles into shared memory; MatmulCommon.cpp), and
// the body builder of each family (SimtMatmul.cpp, MmaSyncKernel.cpp,
// WgmmaKernel.cpp, GemvKernel.cpp), which buildMatmulKernel
// (MatmulKernels.cpp) dispatches to.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOGPU_MATMULCOMMON_H
#define OCTET_LIB_CONVERSION_OCTETTOGPU_MATMULCOMMON_H

#include "KernelCommon.h"

namespace mlir {
namespace octet {
namespace cuda {

//===----------------------------------------------------------------------===//
// Operands and the epilogue (MatmulCommon.cpp)
//===----------------------------------------------------------------------===//

/// The kernel parameters, global pointers already cast.
struct Params {
  Value a, b, out, sa, za, sb, zb, rowSum, colSum, bias, os, oz, ws, counters;
  Value M, N, K, batch, kChunk;

  Params(KernelBuilder &kb, ValueRange p)
      : a(kb.global(p[kA])), b(kb.global(p[kB])), out(kb.global(p[kOut])),
        sa(kb.global(p[kSa])), za(kb.global(p[kZa])), sb(kb.global(p[kSb])),
        zb(kb.global(p[kZb])), rowSum(kb.global(p[kRowSum])),
        colSum(kb.global(p[kColSum])), bias(kb.global(p[kBias])),
        os(kb.global(p[kOs])), oz(kb.global(p[kOz])),
        ws(kb.global(p[kWorkspace])), counters(kb.global(p[kCounters])),
        M(p[kM]), N(p[kN]), K(p[kK]), batch(p[kBatch]), kChunk(p[kKChunk]) {}
};

/// The types of the matmul kernel parameters, in MatmulParam order.
SmallVector<Type> matmulParamTypes(KernelBuilder &kb);

/// Index of an lhs parameter (scale, zero point) for row `m` of batch `bi`
/// (null when not batched).
Value lhsParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value m,
                    Value bi, Value M);
/// Index of an rhs parameter for column `n` (not per_group).
Value rhsParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value n);
/// Index of an output parameter for column `n`.
Value outParamIndex(KernelBuilder &kb, const MatmulConfig &c, Value n);

/// Applies the fused epilogue to the accumulator `acc` of output (bi, m, n)
/// and stores the result (exactly MatmulLowering's epilogue). `zpInAcc`:
/// the zero points are already folded into `acc`.
void emitEpilogue(KernelBuilder &kb, const MatmulConfig &c, const Params &p,
                  Value acc, Value m, Value n, Value bi, bool zpInAcc);

/// The E8M0 code of a scale of an `e8m0` scheme (an f32 power of two): its
/// exponent byte, 0x00400000 (2^-127) giving 0; any other value (zero,
/// negative, not a power of two, infinite) gives 0xFF, E8M0's NaN. For the
/// block-scaled MMAs (mma_sync on sm_120a, tcgen05 on sm_100a).
Value e8m0ScaleCode(KernelBuilder &kb, Value scale);

/// The ue4m3 code of a scale of an `e4m3(g)` scheme (NVFP4: an E4M3 value
/// times the global scale g): e4m3(s / g), checked as the verifier checks a
/// constant scale (numerics::isE4M3Scale: positive, finite, and
/// decode(code) * g == s in f32). Any other value (nothing octet's
/// quantizers or compute_params write) becomes 0x7F, E4M3's NaN. For the
/// NVFP4 block-scaled MMAs.
Value e4m3ScaleCode(KernelBuilder &kb, Value scale, float global);

/// The code the block-scaled MMAs take for the f32 block scale at `index`
/// of `base` (e8m0ScaleCode or e4m3ScaleCode per the scheme's scale
/// format), or the code of 1.0 where `ok` is false (outside the matrix,
/// where the codes are zero).
Value blockScaleCode(KernelBuilder &kb, Value base, SchemeAttr scheme, Value ok,
                     Value index);

/// Eight E2M1 codes, one per byte in `lo` (k 0-3) and `hi` (k 4-7), packed
/// two per byte, k 0 in the low nibble of byte 0: the register form of the
/// m16n8k64 FP4 fragments and the shared-memory form of kind::mxf4 /
/// kind::mxf4nvf4 operands.
Value packE2m1(KernelBuilder &kb, Value lo, Value hi);

/// A stored code as an i32 per the scheme's signedness.
Value extendCode(KernelBuilder &kb, Value code, SchemeAttr scheme);

/// Decodes an FP8 code (a value of the FP8 type) to f32.
Value decodeFp8(KernelBuilder &kb, Value code, SchemeAttr scheme);

/// The byte offset of 16-byte chunk `ch` of row `r` in a K-major tile of
/// 128-byte rows with the 128-byte swizzle (chunk ch of row r at chunk ch ^
/// (r % 8)): the layout the wgmma and tcgen05 matrix descriptors read.
Value swizzled128(KernelBuilder &kb, Value r, Value ch);

/// Stages one K tile of 128 bytes of A (rows bm.., `rowsA` rows) at `base`
/// and of B^T (rows bn.., `rowsB`) right after it, both with 128-byte rows
/// in the swizzled128 layout (the wgmma and tcgen05 kernels).
void stageSwizzled128(KernelBuilder &kb, const Params &p, Value base, Value bm,
                      Value bn, Value k0, Value kAligned, Value tid,
                      int64_t threads, int64_t rowsA, int64_t rowsB);

/// Copies a [rows x 16 * chunksPerRow] byte tile of the K-contiguous
/// [limit x K] matrix `src` (rows from `row0`, bytes from `k0`) into shared
/// memory at `dst`, zero outside the matrix; `place(row, chunk)` gives a
/// 16-byte chunk's offset in the tile. cp.async when `kAligned` holds.
void stageTile(KernelBuilder &kb, Value dst, Value src, Value row0,
               Value limit, Value k0, Value K, Value kAligned, Value tid,
               int64_t threads, int64_t rows, int64_t chunksPerRow,
               function_ref<Value(Value, Value)> place);

//===----------------------------------------------------------------------===//
// Kernel bodies, one per MatmulKernelKind
//===----------------------------------------------------------------------===//

/// simt (SimtMatmul.cpp): one thread per output, 16 x 16 threads a block.
void buildSimtBody(KernelBuilder &kb, const MatmulConfig &c, const Params &p);
/// mma_sync (MmaSyncKernel.cpp): 128 x 128 tiles of mma.sync.m16n8k32.
void buildMmaSyncBody(KernelBuilder &kb, const MatmulConfig &c,
                      const Params &p);
/// tcgen05 (Tcgen05Kernel.cpp): 128 x 128 tiles of tcgen05.mma (M = N =
/// 128, K = 32 bytes), accumulators in tensor memory.
void buildTcgen05Body(KernelBuilder &kb, const MatmulConfig &c,
                      const Params &p);
/// The 32-bit instruction descriptor of the tcgen05 kernel's MMA (`sfId`:
/// the scale-factor byte of the block-scaled form).
uint32_t tcgen05InstrDescriptor(const MatmulConfig &c, int sfId = 0);
/// The tcgen05 kernel's dynamic shared memory in bytes.
int64_t tcgen05SharedBytes();
/// wgmma (WgmmaKernel.cpp): 128 x tileN tiles of wgmma.mma_async m64nNk32;
/// for a weight-only product (float lhs) the bf16 form below.
void buildWgmmaBody(KernelBuilder &kb, const MatmulConfig &c,
                    const Params &p);
/// gemv (GemvKernel.cpp): weight-only products, K split over blocks.
void buildGemvBody(KernelBuilder &kb, const MatmulConfig &c,
                   const Params &p);
/// The gemv's weights of row `k` of B ([K x N], or packed 4-bit codes),
/// columns n0 .. n0 + 15, as 16 f32 values: float(code - zb) for integer
/// codes, the decoded FP8 / FP4 / NF4 value, times the group's scale with
/// per-group scales (rounded once; other scales go to the epilogue); zero
/// where `valid` is false or outside B.
SmallVector<Value> loadRhsChunk(KernelBuilder &kb, const MatmulConfig &c,
                                const Params &p, Value k, Value n0,
                                Value valid);
/// The wgmma weight-only kernel's dynamic shared memory in bytes.
int64_t wgmmaWeightOnlySharedBytes(const MatmulConfig &c);

} // namespace cuda
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOGPU_MATMULCOMMON_H
