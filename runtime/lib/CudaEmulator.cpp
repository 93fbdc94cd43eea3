//===- CudaEmulator.cpp - Run octet's CUDA kernels on the CPU -------------===//
//
// The CPU side of octet-emulate-cuda (docs/cuda.md, "Emulation"): kernels
// compiled for the host call these functions in place of the NVVM
// operations, and generated host code calls octet_emu_launch in place of a
// kernel launch. Every thread of a block is a fiber (a ucontext with its own
// stack) on the launching host thread, switched at barriers, so barriers,
// warp-collective operations (mma.sync, shfl) and warpgroup-collective ones
// (wgmma) synchronize as on the GPU. (It was one host thread per GPU
// thread: a block barrier woke 256 threads contending for one mutex, and
// the emulated tests spent most of their time in the kernel's futex calls.
// OCTET_EMU_OS_THREADS=1 restores that, e.g. for sanitizers that do not
// follow swapcontext.)
//
//  - mma.sync.m16n8k32: the 32 lanes of a warp deposit their fragments, one
//    lane rebuilds A (16 x 32), B (32 x 8) and C (16 x 8) from the fragment
//    layouts of the PTX ISA and computes D = A * B + C (s8/u8: exact,
//    wrapping i32; e4m3/e5m2: decoded exactly, f32 sums); the MXFP8
//    block-scaled form (sm_120a) also gathers each row's and column's E8M0
//    scale and adds (sum_k a b) * 2^(sa - 127) * 2^(sb - 127) to C;
//  - wgmma.mma_async.m64nNk32: the 128 threads of a warpgroup deposit their
//    accumulators; A (64 x 32) and B (N x 32) are read from shared memory
//    through the matrix descriptors (start address, stride byte offset,
//    128-byte swizzle applied to the address bits, as the hardware does);
//  - cp.async copies at once (the wait operations are no-ops); shfl.bfly
//    exchanges through the warp.
//
// The codes octet-emulate-cuda passes (operand types, special registers)
// are those of octet/Runtime/CudaEmulatorAbi.h; FP8 operands are decoded by
// Numerics.h's decodeFp8, as everywhere else.
//
// The emulation checks the kernels' indexing, fragment and descriptor use,
// staging and reductions on machines without a GPU; it does not model the
// asynchronous proxies, timing, or the tensor cores' internal FP8 rounding.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/CudaEmulatorAbi.h"
#include "octet/Runtime/Numerics.h"
#include "octet/Runtime/OctetRuntime.h"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>

namespace {

/// The fibers of the block being emulated on this host thread (null when
/// the GPU threads are host threads).
struct Fibers {
  ucontext_t scheduler;
  std::vector<ucontext_t> contexts;
  std::vector<char> done;
  char *stacks = nullptr;
  size_t stackBytes = 0, mappedBytes = 0;
  /// Barrier releases and finished fibers: a scheduling round without
  /// either is a deadlock.
  uint64_t progress = 0;
  void (*kernel)(void **) = nullptr;
  void **args = nullptr;
};
thread_local Fibers *fibers = nullptr;

/// The GPU thread this host thread (or fiber) runs.
thread_local int threadIndex = 0;

/// Gives the host thread back to the block's scheduler (a fiber waiting at
/// a barrier).
void yieldFiber() {
  swapcontext(&fibers->contexts[size_t(threadIndex)], &fibers->scheduler);
}

/// A reusable barrier for a fixed number of threads: fibers yield until the
/// last one arrives; host threads wait on a condition variable.
class Barrier {
public:
  explicit Barrier(int n = 0) : count(n) {}
  void reset(int n) {
    count = n;
    arrived = 0;
    generation = 0;
  }
  void wait() {
    if (fibers) {
      unsigned gen = generation;
      if (++arrived == count) {
        arrived = 0;
        ++generation;
        ++fibers->progress;
        return;
      }
      while (gen == generation)
        yieldFiber();
      return;
    }
    std::unique_lock<std::mutex> lock(mutex);
    unsigned gen = generation;
    if (++arrived == count) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return gen != generation; });
  }

private:
  std::mutex mutex;
  std::condition_variable cv;
  int count = 0, arrived = 0;
  unsigned generation = 0;
};

constexpr int kMaxThreads = 1024;
constexpr int kMaxWarps = kMaxThreads / 32;
constexpr size_t kSharedAlign = size_t(1) << 18; // low 18 bits = offset

/// One launch: grid, block, shared memory and the exchange areas of the
/// collective operations.
struct Launch {
  int64_t grid[3], block[3];
  int threads;
  int64_t blockIndex[3];
  char *shared;
  Barrier blockBarrier;
  Barrier warpBarrier[kMaxWarps];
  Barrier groupBarrier[kMaxWarps / 4];
  uint32_t mmaIn[kMaxWarps][32][16];
  uint32_t mmaOut[kMaxWarps][32][4];
  uint32_t shfl[kMaxWarps][32];
  uint32_t *groupAcc[kMaxWarps / 4][128];
  /// The block's tensor memory (sm_100): 128 lanes x 512 columns of 32
  /// bits, filled with a NaN pattern at each tcgen05.alloc.
  uint32_t tmem[128][512];
};

thread_local Launch *current = nullptr;

[[noreturn]] void die(const char *message) {
  std::fprintf(stderr, "octet: CUDA emulation: %s\n", message);
  std::exit(70);
}

//===----------------------------------------------------------------------===//
// Element formats
//===----------------------------------------------------------------------===//

// Operand type codes (`type`, from octet-emulate-cuda): CudaEmulatorAbi.h.
using octet::emu::OperandType;
using octet::emu::SpecialRegister;

int32_t intCode(uint8_t byte, int32_t type) {
  return type == int32_t(OperandType::u8) ? int32_t(byte)
                                          : int32_t(int8_t(byte));
}

/// Exact FP8 decoding (OCP E4M3FN / E5M2), the numerics contract's
/// (Numerics.h).
float fp8Value(uint8_t byte, int32_t type) {
  using octet::numerics::StorageFormat;
  if (type == int32_t(OperandType::e2m1)) // the middle 4 bits
    return octet::numerics::decodeFp8((byte >> 2) & 0xF,
                                      StorageFormat::F4E2M1FN);
  return octet::numerics::decodeFp8(byte,
                                    type == int32_t(OperandType::e4m3)
                                        ? StorageFormat::F8E4M3FN
                                        : StorageFormat::F8E5M2);
}

uint8_t byteOf(uint32_t word, int i) { return uint8_t(word >> (8 * i)); }

/// acc += a * b for one element pair, as an i32 (wrapping) or f32 value.
void multiplyAdd(uint32_t &acc, uint8_t a, uint8_t b, int32_t typeA,
                 int32_t typeB, bool floatAcc) {
  if (floatAcc) {
    float f;
    std::memcpy(&f, &acc, 4);
    f += fp8Value(a, typeA) * fp8Value(b, typeB);
    std::memcpy(&acc, &f, 4);
  } else {
    acc += uint32_t(intCode(a, typeA) * intCode(b, typeB));
  }
}

/// Copies between host and (emulated) device memory: calls and bytes, host
/// to device at [0], device to host at [1] (octet_emu_copy_stats).
std::atomic<int64_t> copyCalls[2], copyBytes[2];

int warpIndex() { return threadIndex / 32; }
int laneIndex() { return threadIndex % 32; }

/// Runs `runBlock` for every block of `launch` in turn, each with its
/// block index set and its shared memory zeroed.
template <typename RunBlock>
void forEachBlock(Launch *launch, int64_t sharedBytes, RunBlock runBlock) {
  for (int64_t z = 0; z < launch->grid[2]; ++z)
    for (int64_t y = 0; y < launch->grid[1]; ++y)
      for (int64_t x = 0; x < launch->grid[0]; ++x) {
        launch->blockIndex[0] = x, launch->blockIndex[1] = y,
        launch->blockIndex[2] = z;
        std::memset(launch->shared, 0, size_t(sharedBytes));
        runBlock();
      }
}

void fiberEntry() {
  Fibers *f = fibers;
  f->kernel(f->args);
  f->done[size_t(threadIndex)] = 1;
  ++f->progress;
  // Returning resumes uc_link, the scheduler.
}

/// Runs every block of `launch` with its `threads` GPU threads as fibers on
/// this host thread: round-robin, each fiber until it finishes or waits at
/// a barrier.
void runFibers(Launch *launch, void (*kernel)(void **), void **args,
               int threads, int64_t sharedBytes) {
  Fibers f;
  f.kernel = kernel;
  f.args = args;
  f.contexts.resize(size_t(threads));
  f.done.resize(size_t(threads));
  // 1 MiB of stack per GPU thread, committed as it is touched.
  f.stackBytes = size_t(1) << 20;
  f.mappedBytes = f.stackBytes * size_t(threads);
  void *mem = mmap(nullptr, f.mappedBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED)
    die("cannot map the fibers' stacks");
  f.stacks = static_cast<char *>(mem);
  fibers = &f;
  current = launch;
  forEachBlock(launch, sharedBytes, [&] {
    for (int t = 0; t < threads; ++t) {
      ucontext_t &c = f.contexts[size_t(t)];
      getcontext(&c);
      c.uc_stack.ss_sp = f.stacks + size_t(t) * f.stackBytes;
      c.uc_stack.ss_size = f.stackBytes;
      c.uc_link = &f.scheduler;
      makecontext(&c, fiberEntry, 0);
      f.done[size_t(t)] = 0;
    }
    int remaining = threads;
    while (remaining > 0) {
      uint64_t before = f.progress;
      for (int t = 0; t < threads; ++t) {
        if (f.done[size_t(t)])
          continue;
        threadIndex = t;
        swapcontext(&f.scheduler, &f.contexts[size_t(t)]);
        if (f.done[size_t(t)])
          --remaining;
      }
      if (remaining > 0 && f.progress == before)
        die("deadlock: every thread of a block waits at a barrier that the "
            "others never reach");
    }
  });
  fibers = nullptr;
  munmap(f.stacks, f.mappedBytes);
}

/// The same with one host thread per GPU thread (OCTET_EMU_OS_THREADS).
void runHostThreads(Launch *launch, void (*kernel)(void **), void **args,
                    int threads, int64_t sharedBytes) {
  std::vector<std::thread> pool;
  Barrier blockStart(threads + 1), blockEnd(threads + 1);
  std::atomic<bool> done{false};
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      current = launch;
      threadIndex = t;
      while (true) {
        blockStart.wait();
        if (done.load())
          return;
        kernel(args);
        blockEnd.wait();
      }
    });
  forEachBlock(launch, sharedBytes, [&] {
    blockStart.wait();
    blockEnd.wait();
  });
  done.store(true);
  blockStart.wait();
  for (std::thread &t : pool)
    t.join();
}

} // namespace

extern "C" {

OCTET_RUNTIME_EXPORT void octet_emu_count_copy(int64_t bytes,
                                               int32_t toDevice) {
  int d = toDevice ? 0 : 1;
  copyCalls[d].fetch_add(1);
  copyBytes[d].fetch_add(bytes);
}

OCTET_RUNTIME_EXPORT void octet_emu_copy_stats(int64_t stats[4]) {
  stats[0] = copyCalls[0].load(), stats[1] = copyBytes[0].load();
  stats[2] = copyCalls[1].load(), stats[3] = copyBytes[1].load();
}

OCTET_RUNTIME_EXPORT void octet_emu_launch(void (*kernel)(void **),
                                           int64_t gx, int64_t gy, int64_t gz,
                                           int64_t bx, int64_t by, int64_t bz,
                                           int64_t sharedBytes, void **args) {
  if (gx <= 0 || gy <= 0 || gz <= 0)
    return;
  int64_t threads = bx * by * bz;
  if (threads <= 0 || threads > kMaxThreads || threads % 32)
    die("blocks must have a positive multiple of 32 threads, at most 1024");
  if (sharedBytes > int64_t(kSharedAlign))
    die("too much shared memory");
  auto *launch = new Launch();
  launch->grid[0] = gx, launch->grid[1] = gy, launch->grid[2] = gz;
  launch->block[0] = bx, launch->block[1] = by, launch->block[2] = bz;
  launch->threads = int(threads);
  launch->shared =
      static_cast<char *>(std::aligned_alloc(kSharedAlign, kSharedAlign));
  launch->blockBarrier.reset(int(threads));
  for (int w = 0; w < int(threads / 32); ++w)
    launch->warpBarrier[w].reset(32);
  for (int g = 0; g < int(threads / 128); ++g)
    launch->groupBarrier[g].reset(128);

  if (std::getenv("OCTET_EMU_OS_THREADS"))
    runHostThreads(launch, kernel, args, int(threads), sharedBytes);
  else
    runFibers(launch, kernel, args, int(threads), sharedBytes);
  std::free(launch->shared);
  delete launch;
}

/// Special registers, numbered as CudaEmulatorAbi.h's SpecialRegister:
/// 0-2 tid.x/y/z, 3-5 ctaid.x/y/z, 6-8 nctaid.x/y/z, 9-11 ntid.x/y/z,
/// 12 laneid, 13 warpid.
OCTET_RUNTIME_EXPORT int32_t octet_emu_sreg(int32_t which) {
  Launch *l = current;
  int64_t bx = l->block[0], by = l->block[1];
  switch (SpecialRegister(which)) {
  case SpecialRegister::tidX:
    return int32_t(threadIndex % bx);
  case SpecialRegister::tidY:
    return int32_t((threadIndex / bx) % by);
  case SpecialRegister::tidZ:
    return int32_t(threadIndex / (bx * by));
  case SpecialRegister::ctaidX:
  case SpecialRegister::ctaidY:
  case SpecialRegister::ctaidZ:
    return int32_t(l->blockIndex[which - int32_t(SpecialRegister::ctaidX)]);
  case SpecialRegister::nctaidX:
  case SpecialRegister::nctaidY:
  case SpecialRegister::nctaidZ:
    return int32_t(l->grid[which - int32_t(SpecialRegister::nctaidX)]);
  case SpecialRegister::ntidX:
  case SpecialRegister::ntidY:
  case SpecialRegister::ntidZ:
    return int32_t(l->block[which - int32_t(SpecialRegister::ntidX)]);
  case SpecialRegister::laneId:
    return laneIndex();
  case SpecialRegister::warpId:
    return warpIndex();
  }
  die("unknown special register");
}

OCTET_RUNTIME_EXPORT void *octet_emu_shared(void) { return current->shared; }

OCTET_RUNTIME_EXPORT void octet_emu_barrier(void) {
  current->blockBarrier.wait();
}

OCTET_RUNTIME_EXPORT void octet_emu_cp_async(void *dst, const void *src,
                                             int32_t size, int32_t srcSize) {
  if (srcSize > size || srcSize < 0)
    die("cp.async source size out of range");
  std::memcpy(dst, src, size_t(srcSize));
  std::memset(static_cast<char *>(dst) + srcSize, 0, size_t(size - srcSize));
}

OCTET_RUNTIME_EXPORT int32_t octet_emu_prmt(int32_t a, int32_t b,
                                            int32_t selector) {
  uint8_t bytes[8];
  for (int i = 0; i < 4; ++i) {
    bytes[i] = byteOf(uint32_t(a), i);
    bytes[4 + i] = byteOf(uint32_t(b), i);
  }
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    int sel = (selector >> (4 * i)) & 0xF;
    uint8_t v = bytes[sel & 7];
    if (sel & 8) // sign replication
      v = (v & 0x80) ? 0xFF : 0x00;
    d |= uint32_t(v) << (8 * i);
  }
  return int32_t(d);
}

OCTET_RUNTIME_EXPORT float octet_emu_shfl_bfly(float value, int32_t mask) {
  Launch *l = current;
  int w = warpIndex(), lane = laneIndex();
  std::memcpy(&l->shfl[w][lane], &value, 4);
  l->warpBarrier[w].wait();
  float other;
  std::memcpy(&other, &l->shfl[w][(lane ^ mask) & 31], 4);
  l->warpBarrier[w].wait();
  return other;
}

/// The A (16 x 32) and B (32 x 8) codes and the C (16 x 8) accumulators of
/// warp `w`'s deposited mma.sync.m16n8k32 fragments, of lane (g = lane / 4,
/// t = lane % 4):
///   A reg 0: row g, k 4t..4t+3;  1: row g+8, same k;  2: row g, k 16+4t..;
///   3: row g+8, k 16+4t..;  B reg 0: k 4t..4t+3, column g;  1: k 16+4t..;
///   C/D i: row g (+8 for i >= 2), column 2t + i % 2.
static void gatherMma(const Launch *l, int w, uint8_t (&a)[16][32],
                      uint8_t (&b)[32][8], uint32_t (&c)[16][8]) {
  for (int ln = 0; ln < 32; ++ln) {
    int g = ln / 4, t = ln % 4;
    const uint32_t *r = l->mmaIn[w][ln];
    for (int i = 0; i < 4; ++i) {
      a[g][4 * t + i] = byteOf(r[0], i);
      a[g + 8][4 * t + i] = byteOf(r[1], i);
      a[g][16 + 4 * t + i] = byteOf(r[2], i);
      a[g + 8][16 + 4 * t + i] = byteOf(r[3], i);
      b[4 * t + i][g] = byteOf(r[4], i);
      b[16 + 4 * t + i][g] = byteOf(r[5], i);
    }
    for (int i = 0; i < 4; ++i)
      c[g + (i / 2) * 8][2 * t + i % 2] = r[6 + i];
  }
}

/// Hands D (16 x 8) back to the lanes of warp `w` (layout as gatherMma's C)
/// and waits for the warp.
static void scatterMma(Launch *l, int w, int lane, const uint32_t (&c)[16][8],
                       uint32_t *out) {
  if (lane == 0)
    for (int ln = 0; ln < 32; ++ln) {
      int g = ln / 4, t = ln % 4;
      for (int i = 0; i < 4; ++i)
        l->mmaOut[w][ln][i] = c[g + (i / 2) * 8][2 * t + i % 2];
    }
  l->warpBarrier[w].wait();
  std::memcpy(out, l->mmaOut[w][lane], sizeof(uint32_t) * 4);
  l->warpBarrier[w].wait();
}

/// mma.sync.aligned.m16n8k32.row.col: in = A regs (4), B regs (2), C (4);
/// out = D (4) (fragment layouts: gatherMma).
OCTET_RUNTIME_EXPORT void octet_emu_mma_sync(const uint32_t *in,
                                             uint32_t *out, int32_t typeA,
                                             int32_t typeB,
                                             int32_t floatAcc) {
  Launch *l = current;
  int w = warpIndex(), lane = laneIndex();
  std::memcpy(l->mmaIn[w][lane], in, sizeof(uint32_t) * 10);
  l->warpBarrier[w].wait();
  uint8_t a[16][32], b[32][8];
  uint32_t c[16][8];
  if (lane == 0) {
    gatherMma(l, w, a, b, c);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n)
        for (int k = 0; k < 32; ++k)
          multiplyAdd(c[m][n], a[m][k], b[k][n], typeA, typeB, floatAcc);
  }
  scatterMma(l, w, lane, c, out);
}

/// A lane's block-scaled mma.sync operands (A, B, C, then the scale
/// registers and their selectors), deposited for lane 0 of its warp; only
/// the selectors {0, 0} are emulated.
static void depositScaledMma(Launch *l, int w, int lane, const uint32_t *in) {
  std::memcpy(l->mmaIn[w][lane], in, sizeof(uint32_t) * 16);
  if (in[11] != 0 || in[12] != 0 || in[14] != 0 || in[15] != 0)
    die("block-scaled mma.sync: only the scale selectors {0, 0} are "
        "emulated");
  l->warpBarrier[w].wait();
}

/// `acc` + `sum` 2^(sa - 127) 2^(sb - 127) for E8M0 codes sa and sb (0xFF,
/// NaN, gives NaN), scaled in double and rounded once to f32.
static float addE8m0Scaled(float acc, float sum, int sa, int sb) {
  double scaled = sa == 0xFF || sb == 0xFF
                      ? std::numeric_limits<double>::quiet_NaN()
                      : std::ldexp(double(sum), sa + sb - 254);
  return float(double(acc) + scaled);
}

/// mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32
/// .row.col.f32.<a>.<b>.f32.ue8m0 on FP8 codes (or E2M1 ones in 8-bit
/// containers): in = A regs (4), B regs
/// (2), C (4), then A's scale register and its {byte-id, thread-id}, B's
/// and its. With the selectors {0, 0} (the only ones emulated) row g of A
/// takes byte 0 of lane 4g's register, row g + 8 lane 4g + 1's, column g
/// of B lane 4g's. D = C + (sum_k a b) * 2^(sa - 127) * 2^(sb - 127): the
/// block's f32 sum (exact products) scaled in double and rounded once; an
/// E8M0 code of 0xFF (NaN) gives NaN.
OCTET_RUNTIME_EXPORT void octet_emu_mma_sync_mx(const uint32_t *in,
                                                uint32_t *out, int32_t typeA,
                                                int32_t typeB) {
  Launch *l = current;
  int w = warpIndex(), lane = laneIndex();
  depositScaledMma(l, w, lane, in);
  uint8_t a[16][32], b[32][8];
  uint32_t c[16][8];
  if (lane == 0) {
    gatherMma(l, w, a, b, c);
    int sa[16], sb[8];
    for (int g = 0; g < 8; ++g) {
      sa[g] = byteOf(l->mmaIn[w][4 * g][10], 0);
      sa[g + 8] = byteOf(l->mmaIn[w][4 * g + 1][10], 0);
      sb[g] = byteOf(l->mmaIn[w][4 * g][13], 0);
    }
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        uint32_t sum = 0;
        for (int k = 0; k < 32; ++k)
          multiplyAdd(sum, a[m][k], b[k][n], typeA, typeB, /*floatAcc=*/1);
        float s, acc;
        std::memcpy(&s, &sum, 4);
        std::memcpy(&acc, &c[m][n], 4);
        float d = addE8m0Scaled(acc, s, sa[m], sb[n]);
        std::memcpy(&c[m][n], &d, 4);
      }
  }
  scatterMma(l, w, lane, c, out);
}

/// The value of an E2M1 code (its low 4 bits).
static double e2m1Value(uint8_t code) {
  return double(octet::numerics::decodeFp8(
      code & 0xF, octet::numerics::StorageFormat::F4E2M1FN));
}

/// The value of an FP4 block scale: E8M0 (2^(code - 127), 0xFF NaN) or,
/// without `ue8m0`, UE4M3 (0x7F NaN).
static double fp4ScaleValue(uint8_t code, bool ue8m0) {
  if (ue8m0)
    return code == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                        : std::ldexp(1.0, int(code) - 127);
  return double(octet::numerics::decodeFp8(
      code & 0x7F, octet::numerics::StorageFormat::F8E4M3FN));
}

/// mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64 (E8M0
/// scales per 32 of K, `scaleFormat` ue8m0) or
/// kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64 (E4M3 scales per 16,
/// ue4m3) .row.col.f32.e2m1.e2m1.f32: in = A regs (4), B regs (2), C (4),
/// then the scale registers and selectors as octet_emu_mma_sync_mx's. The
/// registers hold 8 E2M1 codes each, k ascending from the low nibble: A
/// reg 0 row g, k 8t..8t+7; 1 row g+8; 2 row g, k 32+8t..; 3 row g+8, k
/// 32+8t..; B reg 0 k 8t.., column g; 1 k 32+8t.. (g = lane / 4, t = lane %
/// 4). Row g's scales are the bytes of lane 4g's register, row g + 8's of
/// lane 4g + 1's, column g's of lane 4g's; byte j scales K block j. D = C +
/// sum_j (sum_{k in block j} a b) * sa_j * sb_j: each block's sum is exact
/// (E2M1 products are multiples of 1/4 up to 36), scaled and summed in
/// double and rounded once; an E8M0 code 0xFF or an E4M3 code 0x7F gives
/// NaN.
OCTET_RUNTIME_EXPORT void
octet_emu_mma_sync_fp4(const uint32_t *in, uint32_t *out, int32_t scaleFormat) {
  Launch *l = current;
  int w = warpIndex(), lane = laneIndex();
  depositScaledMma(l, w, lane, in);
  uint32_t c[16][8];
  if (lane == 0) {
    const bool nv = scaleFormat == int32_t(::octet::emu::Fp4ScaleFormat::ue4m3);
    const int blocks = nv ? 4 : 2, blockK = 64 / blocks;
    auto nibble = [](uint32_t word, int i) {
      return uint8_t(word >> (4 * i) & 0xF);
    };
    auto e2m1 = e2m1Value;
    auto scaleOf = [&](uint8_t code) { return fp4ScaleValue(code, !nv); };
    double a[16][64], b[64][8], sa[16][4], sb[8][4];
    for (int ln = 0; ln < 32; ++ln) {
      int g = ln / 4, t = ln % 4;
      const uint32_t *r = l->mmaIn[w][ln];
      for (int i = 0; i < 8; ++i) {
        a[g][8 * t + i] = e2m1(nibble(r[0], i));
        a[g + 8][8 * t + i] = e2m1(nibble(r[1], i));
        a[g][32 + 8 * t + i] = e2m1(nibble(r[2], i));
        a[g + 8][32 + 8 * t + i] = e2m1(nibble(r[3], i));
        b[8 * t + i][g] = e2m1(nibble(r[4], i));
        b[32 + 8 * t + i][g] = e2m1(nibble(r[5], i));
      }
      for (int i = 0; i < 4; ++i)
        c[g + (i / 2) * 8][2 * t + i % 2] = r[6 + i];
    }
    for (int g = 0; g < 8; ++g)
      for (int j = 0; j < blocks; ++j) {
        sa[g][j] = scaleOf(byteOf(l->mmaIn[w][4 * g][10], j));
        sa[g + 8][j] = scaleOf(byteOf(l->mmaIn[w][4 * g + 1][10], j));
        sb[g][j] = scaleOf(byteOf(l->mmaIn[w][4 * g][13], j));
      }
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        float acc;
        std::memcpy(&acc, &c[m][n], 4);
        double d = acc;
        for (int j = 0; j < blocks; ++j) {
          double sum = 0;
          for (int k = j * blockK; k < (j + 1) * blockK; ++k)
            sum += a[m][k] * b[k][n];
          d += sum * sa[m][j] * sb[n][j];
        }
        float f = float(d);
        std::memcpy(&c[m][n], &f, 4);
      }
  }
  scatterMma(l, w, lane, c, out);
}

/// The byte at (row, kbyte) of a K-major operand with 128-byte rows and the
/// 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8), applied
/// to the address bits as the hardware does) starting at shared address
/// `start`, groups of 8 rows `sbo` bytes apart.
static uint8_t swizzledByte(const Launch *l, uint64_t start, uint64_t sbo,
                            int row, int kbyte) {
  uint64_t addr = start + uint64_t(row / 8) * sbo + uint64_t(row % 8) * 128 +
                  uint64_t(kbyte);
  uint64_t phys = addr ^ (((addr >> 7) & 7) << 4);
  if (phys >= kSharedAlign)
    die("matrix descriptor addresses beyond shared memory");
  return uint8_t(l->shared[phys]);
}

/// The byte at (row, kbyte) of a K-major operand in shared memory described
/// by an sm_90 matrix descriptor with 128-byte swizzling.
static uint8_t describedByte(const Launch *l, uint64_t desc, int row,
                             int kbyte) {
  uint64_t start = (desc & 0x3FFF) << 4;
  uint64_t sbo = ((desc >> 32) & 0x3FFF) << 4;
  uint64_t baseOffset = (desc >> 49) & 0x7;
  if ((desc >> 62) != 1 || baseOffset != 0)
    die("wgmma descriptor: only 128-byte swizzling with base offset 0 is "
        "emulated");
  return swizzledByte(l, start, sbo, row, kbyte);
}

/// The same through an sm_100 (tcgen05) shared-memory descriptor: start
/// address >> 4 in bits 0-13, stride byte offset >> 4 in bits 32-45,
/// version 1 in bits 46-47, base offset in bits 49-51, layout type in bits
/// 61-63 (2 = SWIZZLE_128B, CUTLASS's UMMA::SmemDescriptor).
static uint8_t describedByte100(const Launch *l, uint64_t desc, int row,
                                int kbyte) {
  if (((desc >> 46) & 0x3) != 1)
    die("tcgen05 matrix descriptor: version (bits 46-47) must be 1");
  if (((desc >> 61) & 0x7) != 2 || ((desc >> 49) & 0x7) != 0)
    die("tcgen05 matrix descriptor: only SWIZZLE_128B with base offset 0 "
        "is emulated");
  return swizzledByte(l, (desc & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4,
                      row, kbyte);
}

//===----------------------------------------------------------------------===//
// sm_100: tensor memory, tcgen05 and mbarriers
//===----------------------------------------------------------------------===//

/// tcgen05.alloc.cta_group::1.sync.aligned (by one warp): the allocation
/// starts at lane 0, column 0; its address goes to `slot`. The columns are
/// filled with 0x7FC0DEAD (a NaN) so that reading what no MMA wrote shows.
OCTET_RUNTIME_EXPORT void octet_emu_tcgen05_alloc(void *slot, int32_t columns) {
  Launch *l = current;
  if (columns < 32 || columns > 512 || (columns & (columns - 1)))
    die("tcgen05.alloc: the column count must be a power of 2 in [32, 512]");
  int w = warpIndex();
  l->warpBarrier[w].wait();
  if (laneIndex() == 0) {
    for (auto &laneCols : l->tmem)
      for (int c = 0; c < columns; ++c)
        laneCols[c] = 0x7FC0DEADu;
    uint32_t address = 0;
    std::memcpy(slot, &address, 4);
  }
  l->warpBarrier[w].wait();
}

/// The operands of a tcgen05.mma with K = 32 bytes: A's `m` and B's `n`
/// K-major rows through their sm_100 descriptors; and the first column of
/// D (`d`: lane 0, `n` columns within tensor memory).
static int tcgen05Operands(const Launch *l, int32_t d, uint64_t descA,
                           uint64_t descB, int m, int n, uint8_t (&a)[128][32],
                           uint8_t (&b)[256][32]) {
  int col0 = int(uint32_t(d) & 0xFFFF);
  if ((uint32_t(d) >> 16) != 0 || col0 + n > 512)
    die("tcgen05.mma: D outside tensor memory");
  for (int r = 0; r < m; ++r)
    for (int k = 0; k < 32; ++k)
      a[r][k] = describedByte100(l, descA, r, k);
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < 32; ++k)
      b[r][k] = describedByte100(l, descB, r, k);
  return col0;
}

/// tcgen05.mma.cta_group::1.kind::{i8, f8f6f4} [d], adesc, bdesc, idesc,
/// enable-input-d, issued by one thread and completed at once: D (M x N at
/// tensor-memory lane `d >> 16` + m, column `d & 0xFFFF` + n) = A (M x 32
/// bytes, K-major) * B (N x 32 bytes, K-major)^T (+ D). The instruction
/// descriptor (CUTLASS's UMMA::InstrDescriptor): D format bits 4-5 (1 f32,
/// 2 s32), A / B formats bits 7-9 / 10-12 (kind::i8: 0 u8, 1 s8;
/// kind::f8f6f4: 0 E4M3, 1 E5M2), K-major bits 15 / 16 = 0, N >> 3 bits
/// 17-22, M >> 4 bits 24-28; only M = 128 (one row per lane) is emulated.
OCTET_RUNTIME_EXPORT void octet_emu_tcgen05_mma(int32_t d, uint64_t descA,
                                                uint64_t descB, int32_t idesc,
                                                int32_t accumulate,
                                                int32_t kindI8) {
  Launch *l = current;
  uint32_t id = uint32_t(idesc);
  int m = int((id >> 24) & 0x1F) << 4, n = int((id >> 17) & 0x3F) << 3;
  int cFormat = int((id >> 4) & 0x3), aFormat = int((id >> 7) & 0x7),
      bFormat = int((id >> 10) & 0x7);
  if (m != 128 || n < 8 || n > 256 || ((id >> 15) & 0x3) != 0 ||
      (id & 0xF) != 0)
    die("tcgen05.mma: only dense K-major M = 128 instructions are emulated");
  if (aFormat > 1 || bFormat > 1 || cFormat != (kindI8 ? 2 : 1))
    die("tcgen05.mma: unsupported operand or accumulator format");
  auto type = [&](int format) {
    if (kindI8)
      return int32_t(format == 0 ? OperandType::u8 : OperandType::s8);
    return int32_t(format == 0 ? OperandType::e4m3 : OperandType::e5m2);
  };
  int32_t typeA = type(aFormat), typeB = type(bFormat);
  uint8_t a[128][32], b[256][32];
  int col0 = tcgen05Operands(l, d, descA, descB, m, n, a, b);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      uint32_t acc = accumulate ? l->tmem[r][col0 + c] : 0;
      for (int k = 0; k < 32; ++k)
        multiplyAdd(acc, a[r][k], b[c][k], typeA, typeB, !kindI8);
      l->tmem[r][col0 + c] = acc;
    }
}

/// The E8M0 scale factor of row (or column) `r` of a block-scaled
/// tcgen05.mma with M = 128 (N = 128): tensor-memory lane r % 32, column
/// `col` + r / 32, byte `sfId`, which must be the same in all four 32-lane
/// partitions (PTX ISA: the scale factors "need to be duplicated to all 32
/// lane partitions of tensor memory").
static uint8_t tmemScale(const Launch *l, int col, int r, int sfId) {
  int c = col + r / 32;
  if (c >= 512)
    die("tcgen05.mma: scale factors beyond tensor memory");
  uint8_t v = byteOf(l->tmem[r % 32][c], sfId);
  for (int part = 1; part < 4; ++part)
    if (byteOf(l->tmem[32 * part + r % 32][c], sfId) != v)
      die("tcgen05.mma: scale factors differ between the 32-lane "
          "partitions of tensor memory");
  return v;
}

/// tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [d], adesc, bdesc,
/// idesc, [sfa], [sfb], enable-input-d on FP8 codes, or E2M1 ones padded
/// (format 5: 16 codes in 8 bytes, then 8 bytes of gap) on either side
/// (OCP MXFP8 / MXFP4, one E8M0 scale per row / column for the
/// instruction's 32 of K): D (+)= (sum_k a
/// b) 2^(sa - 127) 2^(sb - 127), the block's exact-product f32 sum scaled
/// in double and added with one rounding (E8M0 0xFF: NaN). The block-scaled
/// instruction descriptor (CUTLASS's UMMA::InstrDescriptorBlockScaled): B's
/// scale-factor id bits 4-5, A / B formats bits 7-9 / 10-12 (0 E4M3, 1
/// E5M2), N >> 3 bits 17-22, scale format bit 23 (1 UE8M0), M >> 4 bits
/// 24-28, A's scale-factor id bits 29-30.
OCTET_RUNTIME_EXPORT void octet_emu_tcgen05_mma_mx(int32_t d, uint64_t descA,
                                                   uint64_t descB,
                                                   int32_t idesc,
                                                   int32_t accumulate,
                                                   int32_t sfa, int32_t sfb) {
  Launch *l = current;
  uint32_t id = uint32_t(idesc);
  int m = int((id >> 24) & 0x1F) << 4, n = int((id >> 17) & 0x3F) << 3;
  int aFormat = int((id >> 7) & 0x7), bFormat = int((id >> 10) & 0x7);
  int sfIdB = int((id >> 4) & 0x3), sfIdA = int((id >> 29) & 0x3);
  if (m != 128 || n != 128 || ((id >> 15) & 0x3) != 0 || (id & 0xF) != 0 ||
      (id >> 31) != 0)
    die("tcgen05.mma block_scale: only dense K-major M = N = 128 "
        "instructions are emulated");
  auto known = [](int f) { return f == 0 || f == 1 || f == 5; };
  if (!known(aFormat) || !known(bFormat) || ((id >> 23) & 1) != 1)
    die("tcgen05.mma block_scale: only E4M3 / E5M2 / E2M1 with UE8M0 scales "
        "are emulated");
  if ((uint32_t(sfa) >> 16) != 0 || (uint32_t(sfb) >> 16) != 0)
    die("tcgen05.mma block_scale: scale factors must start at lane 0");
  auto type = [](int f) {
    return int32_t(f == 0   ? OperandType::e4m3
                   : f == 1 ? OperandType::e5m2
                            : OperandType::e2m1);
  };
  int32_t typeA = type(aFormat), typeB = type(bFormat);
  uint8_t a[128][32], b[256][32];
  int col0 = tcgen05Operands(l, d, descA, descB, m, n, a, b);
  // E2M1 (format 5) in shared memory: 16 codes packed into the first 8
  // bytes of each 16-byte chunk (code k in the low nibble of byte k / 2),
  // 8 bytes of gap after them; as the 8-bit container multiplyAdd takes
  // (the code in bits 5..2).
  auto unpad = [](uint8_t(&row)[32]) {
    uint8_t out[32];
    for (int k = 0; k < 32; ++k)
      out[k] = uint8_t(
          ((row[16 * (k / 16) + (k % 16) / 2] >> (4 * (k % 2))) & 0xF) << 2);
    std::memcpy(row, out, 32);
  };
  if (aFormat == 5)
    for (auto &row : a)
      unpad(row);
  if (bFormat == 5)
    for (auto &row : b)
      unpad(row);
  int sa[128], sb[128];
  for (int r = 0; r < 128; ++r) {
    sa[r] = tmemScale(l, int(uint32_t(sfa) & 0xFFFF), r, sfIdA);
    sb[r] = tmemScale(l, int(uint32_t(sfb) & 0xFFFF), r, sfIdB);
  }
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c) {
      uint32_t sum = 0;
      for (int k = 0; k < 32; ++k)
        multiplyAdd(sum, a[r][k], b[c][k], typeA, typeB, /*floatAcc=*/true);
      float s, acc = 0.0f;
      std::memcpy(&s, &sum, 4);
      if (accumulate)
        std::memcpy(&acc, &l->tmem[r][col0 + c], 4);
      float out = addE8m0Scaled(acc, s, sa[r], sb[c]);
      std::memcpy(&l->tmem[r][col0 + c], &out, 4);
    }
  }
}

/// tcgen05.mma.cta_group::1.kind::mxf4.block_scale (`scaleVec` 2: two
/// E8M0 scales per row / column, blocks of 32) or kind::mxf4nvf4
/// .block_scale.block16 (`scaleVec` 4: four scales, blocks of 16; UE4M3 or
/// UE8M0 per the instruction descriptor's bit 23) [d], adesc, bdesc, idesc,
/// [sfa], [sfb], enable-input-d, K = 64: A and B hold E2M1 codes packed two
/// per byte (code k in the low nibble of byte k / 2 of the 32-byte row
/// slice), formats 1 (E2M1) in bits 7-9 / 10-12. The MMA's block j takes
/// byte sfId + j of its row's scale word (tmemScale; sfId: 0 or 2 for 2X, 0
/// for 4X). D (+)= sum_j (sum_{k in block j} a b) sa_j sb_j: each block's
/// sum is exact (E2M1 products are multiples of 1/4 up to 36), scaled and
/// summed in double and rounded once; an E8M0 code 0xFF or an E4M3 code
/// 0x7F gives NaN.
OCTET_RUNTIME_EXPORT void
octet_emu_tcgen05_mma_fp4(int32_t d, uint64_t descA, uint64_t descB,
                          int32_t idesc, int32_t accumulate, int32_t sfa,
                          int32_t sfb, int32_t scaleVec) {
  Launch *l = current;
  uint32_t id = uint32_t(idesc);
  int m = int((id >> 24) & 0x1F) << 4, n = int((id >> 17) & 0x3F) << 3;
  int aFormat = int((id >> 7) & 0x7), bFormat = int((id >> 10) & 0x7);
  int sfIdB = int((id >> 4) & 0x3), sfIdA = int((id >> 29) & 0x3);
  const bool ue8m0 = ((id >> 23) & 1) != 0;
  if (m != 128 || n != 128 || ((id >> 15) & 0x3) != 0 || (id & 0xF) != 0 ||
      (id >> 31) != 0)
    die("tcgen05.mma block_scale (FP4): only dense K-major M = N = 128, "
        "K = 64 instructions are emulated");
  if (aFormat != 1 || bFormat != 1)
    die("tcgen05.mma kind::mxf4 / mxf4nvf4: A and B must be E2M1 (format 1)");
  if (scaleVec != 2 && scaleVec != 4)
    die("tcgen05.mma kind::mxf4 / mxf4nvf4: the scale vector must be 2X or "
        "4X");
  if (scaleVec == 2 && !ue8m0)
    die("tcgen05.mma block_scale scale_vec::2X takes UE8M0 scales only");
  if (sfIdA != sfIdB || sfIdA % scaleVec != 0)
    die("tcgen05.mma block_scale: the scale-factor ids must select whole "
        "scale vectors (0 or 2 for 2X, 0 for 4X)");
  if ((uint32_t(sfa) >> 16) != 0 || (uint32_t(sfb) >> 16) != 0)
    die("tcgen05.mma block_scale: scale factors must start at lane 0");
  uint8_t a[128][32], b[256][32];
  int col0 = tcgen05Operands(l, d, descA, descB, m, n, a, b);
  auto e2m1 = [](const uint8_t *row, int k) {
    return e2m1Value(uint8_t(row[k / 2] >> (4 * (k % 2))));
  };
  auto scaleOf = [&](uint8_t code) { return fp4ScaleValue(code, ue8m0); };
  const int blockK = 64 / scaleVec;
  double sa[128][4], sb[128][4];
  for (int r = 0; r < 128; ++r)
    for (int j = 0; j < scaleVec; ++j) {
      sa[r][j] =
          scaleOf(tmemScale(l, int(uint32_t(sfa) & 0xFFFF), r, sfIdA + j));
      sb[r][j] =
          scaleOf(tmemScale(l, int(uint32_t(sfb) & 0xFFFF), r, sfIdB + j));
    }
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      float acc = 0.0f;
      if (accumulate)
        std::memcpy(&acc, &l->tmem[r][col0 + c], 4);
      double sum = acc;
      for (int j = 0; j < scaleVec; ++j) {
        double block = 0;
        for (int k = j * blockK; k < (j + 1) * blockK; ++k)
          block += e2m1(a[r], k) * e2m1(b[c], k);
        sum += block * sa[r][j] * sb[c][j];
      }
      float out = float(sum);
      std::memcpy(&l->tmem[r][col0 + c], &out, 4);
    }
}

/// The `count` tensor-memory words this thread of a warp-wide 32x32b access
/// (tcgen05.ld / tcgen05.st) reaches: lane (taddr >> 16) + its lane index,
/// columns (taddr & 0xFFFF) .. + count - 1. Warp w may only access lanes
/// 32 (w % 4) .. 32 (w % 4) + 31.
static uint32_t *tmemRow(int32_t taddr, int32_t count) {
  int lane0 = int(uint32_t(taddr) >> 16), col0 = int(uint32_t(taddr) & 0xFFFF);
  if (lane0 != 32 * (warpIndex() % 4))
    die("tcgen05.ld/st: a warp may only access its own 32 tensor-memory "
        "lanes");
  if (col0 + count > 512)
    die("tcgen05.ld/st: columns beyond tensor memory");
  return &current->tmem[lane0 + laneIndex()][col0];
}

/// tcgen05.st.sync.aligned.32x32b.x`count`.b32 (by one warp): tmemRow.
OCTET_RUNTIME_EXPORT void octet_emu_tcgen05_st(int32_t taddr, int32_t count,
                                               const uint32_t *in) {
  std::memcpy(tmemRow(taddr, count), in, sizeof(uint32_t) * size_t(count));
}

/// The state an emulated mbarrier keeps in its 8 bytes of shared memory:
/// the expected and pending arrival counts and the completed phases.
struct MbarrierState {
  uint16_t expected, pending;
  uint32_t phases;
};
static_assert(sizeof(MbarrierState) == 8, "an mbarrier is 8 bytes");

OCTET_RUNTIME_EXPORT void octet_emu_mbarrier_init(void *bar, int32_t count) {
  if (count < 1 || count > 0xFFFF)
    die("mbarrier.init: count out of range");
  MbarrierState s{uint16_t(count), uint16_t(count), 0};
  std::memcpy(bar, &s, sizeof s);
}

/// One arrival (tcgen05.commit's arrive::one: the MMAs it tracks are
/// complete when they are issued here).
OCTET_RUNTIME_EXPORT void octet_emu_mbarrier_arrive(void *bar) {
  MbarrierState s;
  std::memcpy(&s, bar, sizeof s);
  if (s.expected == 0)
    die("mbarrier arrive on an uninitialized barrier");
  if (--s.pending == 0) {
    s.pending = s.expected;
    ++s.phases;
  }
  std::memcpy(bar, &s, sizeof s);
}

/// mbarrier.try_wait.parity in a loop until the phase with `parity` has
/// completed. The emulator cannot wait for another fiber here (the kernels
/// order their arrivals before the waits with a barrier): a phase that has
/// not completed stops the run.
OCTET_RUNTIME_EXPORT void octet_emu_mbarrier_wait_parity(void *bar,
                                                         int32_t parity) {
  MbarrierState s;
  std::memcpy(&s, bar, sizeof s);
  if (s.expected == 0)
    die("mbarrier wait on an uninitialized barrier");
  if (int32_t(s.phases & 1) == (parity & 1))
    die("mbarrier.try_wait.parity: the phase has not completed (it would "
        "wait forever)");
}

/// tcgen05.ld.sync.aligned.32x32b.x`count`.b32 (by one warp): tmemRow.
OCTET_RUNTIME_EXPORT void octet_emu_tcgen05_ld(int32_t taddr, int32_t count,
                                               uint32_t *out) {
  std::memcpy(out, tmemRow(taddr, count), sizeof(uint32_t) * size_t(count));
}

/// wgmma.mma_async.sync.aligned.m64nNk32 (A and B from shared memory; or
/// m64nNk16 on bf16 values, `typeA` == `typeB` == bf16: the same 32 bytes
/// of each row, two per value, each product exact in f32, added in k
/// order), D = A * B + D. `acc` holds this thread's N/2 accumulators:
/// value 4j + r is row 16 * warp + lane / 4 (+8 for r >= 2), column 8j + 2
/// (lane % 4) + r % 2 of the warpgroup's 64 x N tile.
OCTET_RUNTIME_EXPORT void octet_emu_wgmma(uint32_t *acc, int32_t n,
                                          uint64_t descA, uint64_t descB,
                                          int32_t typeA, int32_t typeB,
                                          int32_t floatAcc) {
  Launch *l = current;
  int group = threadIndex / 128, t = threadIndex % 128;
  l->groupAcc[group][t] = acc;
  l->groupBarrier[group].wait();
  if (t == 0) {
    std::vector<uint32_t> d(size_t(64) * n);
    auto index = [&](int thread, int v, int &m, int &col) {
      int warp = thread / 32, lane = thread % 32, j = v / 4, r = v % 4;
      m = 16 * warp + lane / 4 + (r / 2) * 8;
      col = 8 * j + 2 * (lane % 4) + r % 2;
    };
    for (int th = 0; th < 128; ++th)
      for (int v = 0; v < n / 2; ++v) {
        int m, col;
        index(th, v, m, col);
        d[size_t(m) * n + col] = l->groupAcc[group][th][v];
      }
    const bool bf16 = typeA == int32_t(OperandType::bf16);
    auto bf16At = [&](uint64_t desc, int row, int k) {
      uint32_t bits = uint32_t(describedByte(l, desc, row, 2 * k)) |
                      uint32_t(describedByte(l, desc, row, 2 * k + 1)) << 8;
      bits <<= 16;
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    };
    for (int m = 0; m < 64; ++m)
      for (int col = 0; col < n; ++col) {
        if (bf16) {
          float f;
          std::memcpy(&f, &d[size_t(m) * n + col], 4);
          for (int k = 0; k < 16; ++k)
            f += bf16At(descA, m, k) * bf16At(descB, col, k);
          std::memcpy(&d[size_t(m) * n + col], &f, 4);
          continue;
        }
        for (int k = 0; k < 32; ++k)
          multiplyAdd(d[size_t(m) * n + col], describedByte(l, descA, m, k),
                      describedByte(l, descB, col, k), typeA, typeB,
                      floatAcc);
      }
    for (int th = 0; th < 128; ++th)
      for (int v = 0; v < n / 2; ++v) {
        int m, col;
        index(th, v, m, col);
        l->groupAcc[group][th][v] = d[size_t(m) * n + col];
      }
  }
  l->groupBarrier[group].wait();
}

} // extern "C"
