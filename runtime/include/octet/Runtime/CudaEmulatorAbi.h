//===- CudaEmulatorAbi.h - Codes of the CUDA emulator's ABI -----*- C++ -*-===//
//
// The integer codes that host code made by octet-emulate-cuda
// (lib/Conversion/OctetToGPU/EmulateCuda.cpp) passes to the CUDA emulator
// (runtime/lib/CudaEmulator.cpp, docs/cuda.md "Emulation"): the operand
// types of octet_emu_mma_sync and octet_emu_wgmma, the scale format of
// octet_emu_mma_sync_fp4, and the special register
// numbers of octet_emu_sreg. Header-only and MLIR-free: both sides include
// it, so each code is declared once. The values are part of the compiled
// libraries' ABI with liboctet_runtime: never renumber them.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_RUNTIME_CUDAEMULATORABI_H
#define OCTET_RUNTIME_CUDAEMULATORABI_H

#include <cstdint>

namespace octet {
namespace emu {

/// Element type of the A and B operands (`typeA`, `typeB`) of
/// octet_emu_mma_sync, octet_emu_mma_sync_mx and octet_emu_wgmma: 8-bit
/// integer codes (i32 accumulators), FP8 codes (f32 accumulators), E2M1
/// codes in an 8-bit container (bits 5..2, kind::mxf8f6f4 only) or bf16
/// values (two bytes each, f32 accumulators; wgmma k16 only).
enum class OperandType : int32_t {
  s8 = 0,
  u8 = 1,
  e4m3 = 2,
  e5m2 = 3,
  e2m1 = 4,
  bf16 = 5
};

/// The scale format of the FP4 block-scaled mma.sync emulated by
/// octet_emu_mma_sync_fp4 (`scaleFormat`): kind::mxf4 scale_vec::2X with
/// E8M0 scales per 32 of K (MXFP4), kind::mxf4nvf4 scale_vec::4X with E4M3
/// scales per 16 (NVFP4).
enum class Fp4ScaleFormat : int32_t { ue8m0 = 0, ue4m3 = 1 };

/// The special register read by octet_emu_sreg(`which`).
enum class SpecialRegister : int32_t {
  tidX = 0,     ///< %tid.x
  tidY = 1,     ///< %tid.y
  tidZ = 2,     ///< %tid.z
  ctaidX = 3,   ///< %ctaid.x
  ctaidY = 4,   ///< %ctaid.y
  ctaidZ = 5,   ///< %ctaid.z
  nctaidX = 6,  ///< %nctaid.x
  nctaidY = 7,  ///< %nctaid.y
  nctaidZ = 8,  ///< %nctaid.z
  ntidX = 9,    ///< %ntid.x
  ntidY = 10,   ///< %ntid.y
  ntidZ = 11,   ///< %ntid.z
  laneId = 12,  ///< %laneid
  warpId = 13   ///< %warpid
};

} // namespace emu
} // namespace octet

#endif // OCTET_RUNTIME_CUDAEMULATORABI_H
