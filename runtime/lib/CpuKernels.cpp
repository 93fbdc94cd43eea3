//===- CpuKernels.cpp - Run-time support of the generated CPU GEMMs -------===//
//
// Packing of the activations (the lhs) into the layout of the generated
// kernels (octet/Runtime/CpuPack.h), spread over the thread pool, and the
// Linux permission request that AMX tiles need before their first use.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/CpuPack.h"
#include "octet/Runtime/OctetRuntime.h"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>
#include <cstdlib>

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {

struct PackLhsJob {
  const int8_t *a;
  int64_t m, k, lda;
  int32_t mode;
  const int32_t *za;
  int32_t zaPerRow;
  int64_t mr, kpad;
  void *out;
};

void packLhsTask(void *ctx, int64_t begin, int64_t end) {
  auto *j = static_cast<PackLhsJob *>(ctx);
  octet::cpu::packLhsPanels(j->a, j->m, j->k, j->lda, j->mode, j->za,
                            j->zaPerRow != 0, j->mr, j->kpad, j->out, begin,
                            end);
}

} // namespace

extern "C" void octet_cpu_pack_lhs(const void *a, int64_t m, int64_t k,
                                   int64_t lda, int32_t mode,
                                   const int32_t *za, int32_t za_per_row,
                                   int64_t mr, int64_t kpad, void *out) {
  if (m <= 0 || mr <= 0)
    return;
  PackLhsJob job{static_cast<const int8_t *>(a), m, k, lda, mode, za,
                 za_per_row, mr, kpad, out};
  int64_t panels = (m + mr - 1) / mr;
  // Small operands are not worth waking the pool.
  if (panels * mr * kpad < (int64_t{1} << 16))
    packLhsTask(&job, 0, panels);
  else
    octet_parallel_for(panels, packLhsTask, &job);
}

extern "C" int32_t octet_cpu_enable_amx(void) {
#if defined(__linux__) && defined(__x86_64__)
  // ARCH_REQ_XCOMP_PERM (0x1023) for XFEATURE_XTILEDATA (18).
  static const int32_t status = [] {
    long rc = syscall(SYS_arch_prctl, 0x1023, 18);
    return rc == 0 ? int32_t{0} : int32_t{-1};
  }();
  return status;
#else
  return -1;
#endif
}

extern "C" void octet_cpu_require_amx(const char *artifact) {
  if (octet_cpu_enable_amx() == 0)
    return;
  std::fprintf(stderr,
               "octet: %s uses AMX tiles, but the kernel refused them "
               "(arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) failed).\n",
               artifact ? artifact : "this code");
  std::exit(70);
}

extern "C" void octet_cpu_require_features(const char *features) {
  static std::mutex mutex;
  static std::vector<std::string> checked;
  std::lock_guard<std::mutex> lock(mutex);
  for (const std::string &f : checked)
    if (f == features)
      return;
  octet_require_cpu_features("this octet CPU kernel", features);
  checked.emplace_back(features);
}
