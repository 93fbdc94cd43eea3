//===- cpu_kernels_bench.cpp - Octet CPU kernels vs oneDNN and OpenBLAS ---===//
//
// Driven by bench/cpu_kernels.py, which builds the octet libraries. Modes:
//
//   gemm LIB M K N REPS   INT8 GEMM with the full epilogue (per-tensor
//                          activation scale, per-channel weight scales,
//                          bias, ReLU, f32 out): the octet library (its
//                          main_into entry writing into a buffer of the
//                          caller's, and main, which allocates), oneDNN
//                          2.6 s8 x s8 -> f32 matmul with the same
//                          epilogue (output scales, bias, ReLU post-op;
//                          weights reordered to the layout oneDNN picks,
//                          outside the timing), OpenBLAS sgemm on the float
//                          model (+ bias and ReLU).
//   fgemm LIB M K N REPS f32|i8|i4|e4m3
//                          Float activations: the octet library with f32
//                          weights (a float linalg.matmul, the generated
//                          f32 kernel) or i8 weights with per-channel
//                          scales (W8A32, the weight-only kernel), weights
//                          passed at run time, or constant i4 weights with
//                          f32 scales per group of 128 along K (W4A32
//                          g128, what W4A16 recipes run; `main(A)`),
//                          or FP8 W8A8 (E4M3 activation codes with
//                          per-row scales, constant E4M3 weights with
//                          per-channel scales: the w8a8-fp8 recipe),
//                          against OpenBLAS sgemm on the f32 weights; max
//                          error of both against f64.
//   ceiling REPS           The compute ceiling of the W8A32 decode GEMV on
//                          one core (the decode kernel's loop with
//                          intrinsics, FMA, weights in L2), GB/s.
//   gemv LIB K N GIB REPS  Decode GEMV (M = 1), W8A32: the octet library
//                          with GIB GiB of i8 weights rotated (more than
//                          the L3 holds), a plain read loop over the same
//                          bytes, OpenBLAS sgemv with f32 weights (also
//                          rotated over GIB GiB).
//   gemvc LIB K N LAYERS BYTES REPS
//                          Decode GEMV with constant weights (the 4-bit
//                          formats): LAYERS functions main0.. with their
//                          own K x N weights of BYTES bytes each, called in
//                          turn, rounds interleaved with a read loop over
//                          LAYERS x BYTES bytes (the faster of a plain and
//                          a prefetching one; medians, and the median of
//                          the rounds' ratios), each timed pass after a
//                          read of twice the L3's bytes (evictCaches;
//                          not with OCTET_GEMVC_WARM=1, for the compute
//                          ceiling of a library that fits in L2).
//   attention RUNTIME P KIND REPS
//                          Decode attention (octet.attention's runtime
//                          kernel, octet_cpu_attention_f32 from the
//                          RUNTIME library) over a SmolLM2-135M KV cache:
//                          30 layers of 3 KV heads x 3 query heads, head
//                          dim 64, 2048 positions (K's rows padded as the
//                          importer pads them), the query at position
//                          P, the cache in f32, int8 or FP8 E4M3 codes
//                          (KIND f32|i8|e4m3); one timed pass = the 30
//                          layers' calls, from caches that hold none of
//                          the keys and values (evictCaches), in rounds
//                          with the faster of a plain and a prefetching
//                          read loop over as many bytes as the pass reads
//                          (the keys and values of positions 0 .. P).
//
// Threads come from OCTET_NUM_THREADS, OMP_NUM_THREADS (oneDNN) and
// OPENBLAS_NUM_THREADS, set by the driver script. DNNL_MAX_CPU_ISA selects
// oneDNN's ISA. Each line printed is `key value` pairs for the script.
//
//===----------------------------------------------------------------------===//

#include <oneapi/dnnl/dnnl.hpp>

#include "octet/Runtime/OctetRuntime.h"

#include <cblas.h>
#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

template <typename T> struct Memref2d {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

/// A std::vector on 64-byte boundaries: the activations and output of the
/// INT8 GEMM, as oneDNN's own memory objects are (and as a framework's
/// tensors are). A large std::vector<float> starts 16 bytes into its pages,
/// so every 64-byte store of a row of outputs split two cache lines:
/// 1070-1700 GOPS against 1720-1990 aligned, 2048^3 on AMX.
template <typename T> struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U> Aligned64(const Aligned64<U> &) {}
  T *allocate(size_t n) {
    size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    if (void *p = std::aligned_alloc(64, bytes ? bytes : 64))
      return static_cast<T *>(p);
    std::fprintf(stderr, "out of memory\n");
    std::exit(1);
  }
  void deallocate(T *p, size_t) { std::free(p); }
  template <typename U> bool operator==(const Aligned64<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const Aligned64<U> &) const {
    return false;
  }
};
template <typename T> using AlignedVector = std::vector<T, Aligned64<T>>;

template <typename T> Memref2d<T> view(T *p, int64_t rows, int64_t cols) {
  return {p, p, 0, {rows, cols}, {cols, 1}};
}

template <typename T> struct Memref1d {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};

template <typename T> Memref1d<T> view1(T *p, int64_t n) {
  return {p, p, 0, {n}, {1}};
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Median seconds of each of `fns` over `reps` rounds that run every one
/// once in turn, after a warm-up of each. The VMs this runs on change speed
/// by up to 2x from one second to the next (other tenants of the memory
/// system): timed in rounds, a slow stretch hits both sides of a ratio.
std::vector<double> timeRounds(int reps,
                               const std::vector<std::function<void()>> &fns) {
  std::vector<std::vector<double>> t(fns.size());
  for (const auto &fn : fns)
    fn();
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < fns.size(); ++i) {
      double t0 = now();
      fns[i]();
      t[i].push_back(now() - t0);
    }
  std::vector<double> medians;
  for (auto &ti : t) {
    std::sort(ti.begin(), ti.end());
    medians.push_back(ti[ti.size() / 2]);
  }
  return medians;
}

/// Median seconds of `reps` runs of `fn` after one warm-up.
template <typename F> double timeMedian(int reps, F fn) {
  return timeRounds(reps, {fn})[0];
}

void *openLibrary(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    std::exit(1);
  }
  return h;
}

/// The weights, scales and bias of the benchmark models, from the same
/// seed as bench/cpu_kernels.py writes into the .mlir (a small generator
/// shared by both: w[k][n] = ((k * 7 + n * 13) % 255) - 127).
int8_t weightCode(int64_t k, int64_t n) {
  return static_cast<int8_t>((k * 7 + n * 13) % 255 - 127);
}
// Computed in double and rounded once, as numpy does for the .mlir.
float weightScale(int64_t n) { return static_cast<float>(0.001 * (1 + n % 7)); }
float biasValue(int64_t n) { return static_cast<float>(0.01 * (n % 11 - 5)); }
constexpr float kActScale = 0.05f;

int gemm(int argc, char **argv) {
  if (argc < 7)
    return 2;
  const char *lib = argv[2];
  int64_t M = std::atoll(argv[3]), K = std::atoll(argv[4]),
          N = std::atoll(argv[5]);
  int reps = std::atoi(argv[6]);
  double ops = 2.0 * M * N * K;

  std::mt19937 gen(42);
  std::uniform_int_distribution<int> dist(-128, 127);
  AlignedVector<int8_t> a(M * K);
  for (auto &v : a)
    v = static_cast<int8_t>(dist(gen));

  // --- octet ---------------------------------------------------------------
  // Two entries (the library is compiled with --into-entries): main_into
  // writes into a buffer the caller owns, as oneDNN does into its dst
  // (what the ratios use); main allocates its result per call, which for
  // a result above glibc's 32 MB mmap threshold means fresh pages, faulted
  // in and zeroed on every call (4096 x 4096 f32: 16,384 faults, ~12%).
  void *h = openLibrary(lib);
  using Fn = void (*)(Memref2d<float> *, Memref2d<int8_t> *);
  using IntoFn = int32_t (*)(Memref2d<float> *, Memref2d<int8_t> *);
  auto fn = reinterpret_cast<Fn>(dlsym(h, "_mlir_ciface_main"));
  auto into = reinterpret_cast<IntoFn>(dlsym(h, "_mlir_ciface_main_into"));
  if (!fn || !into) {
    std::fprintf(stderr,
                 "no _mlir_ciface_main / _mlir_ciface_main_into in "
                 "%s (compile it with --into-entries)\n",
                 lib);
    return 1;
  }
  Memref2d<int8_t> av = view(a.data(), M, K);
  AlignedVector<float> octetOut(M * N);
  Memref2d<float> outv = view(octetOut.data(), M, N);

  // --- oneDNN ----------------------------------------------------------------
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::dims sd = {M, K}, wd = {K, N}, bd = {1, N}, dd = {M, N};
  auto srcMd = memory::desc(sd, memory::data_type::s8, memory::format_tag::ab);
  auto wAny = memory::desc(wd, memory::data_type::s8, memory::format_tag::any);
  auto biasMd = memory::desc(bd, memory::data_type::f32, memory::format_tag::ab);
  auto dstMd = memory::desc(dd, memory::data_type::f32, memory::format_tag::ab);
  primitive_attr attr;
  std::vector<float> scales(N);
  for (int64_t n = 0; n < N; ++n)
    scales[n] = kActScale * weightScale(n);
  attr.set_output_scales(1 << 1, scales);
  post_ops po;
  po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(po);
  auto pd = matmul::primitive_desc(
      matmul::desc(srcMd, wAny, biasMd, dstMd), attr, eng);
  std::vector<int8_t> w(K * N);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      w[k * N + n] = weightCode(k, n);
  std::vector<float> bias(N);
  for (int64_t n = 0; n < N; ++n)
    bias[n] = biasValue(n);
  memory srcMem(srcMd, eng, a.data());
  memory wPlain(memory::desc(wd, memory::data_type::s8,
                             memory::format_tag::ab),
                eng, w.data());
  memory wMem(pd.weights_desc(), eng);
  reorder(wPlain, wMem).execute(s, wPlain, wMem);
  memory biasMem(biasMd, eng, bias.data());
  AlignedVector<float> dnnlOut(M * N);
  memory dstMem(dstMd, eng, dnnlOut.data());
  matmul mm(pd);

  // octet's two entries and oneDNN, timed in rounds. The allocating entry
  // is timed with freeing its result, not with the copy out for the
  // comparison below.
  int32_t status = 0;
  Memref2d<float> out{};
  std::vector<double> t =
      timeRounds(reps, {[&] { status |= into(&outv, &av); },
                        [&] {
                          fn(&out, &av);
                          std::free(out.allocated);
                        },
                        [&] {
                          mm.execute(s, {{DNNL_ARG_SRC, srcMem},
                                         {DNNL_ARG_WEIGHTS, wMem},
                                         {DNNL_ARG_BIAS, biasMem},
                                         {DNNL_ARG_DST, dstMem}});
                          s.wait();
                        }});
  double tOctet = t[0], tOctetAlloc = t[1], tDnnl = t[2];
  if (status != 0) {
    std::fprintf(stderr, "main_into returned %d\n", status);
    return 1;
  }
  fn(&out, &av);
  int64_t entriesDiffer = 0;
  for (int64_t i = 0; i < M * N; ++i)
    entriesDiffer +=
        std::memcmp(&octetOut[i], out.aligned + out.offset + i, 4) != 0;
  std::free(out.allocated);
  std::string impl = pd.impl_info_str();
  for (char &c : impl)
    if (c == ' ')
      c = '_';

  // Exactness on 4096 sampled entries against the definition (exact i32
  // sum, float(acc) * (sa * sb) + bias, ReLU): octet must match bit for
  // bit; oneDNN's AVX2 int8 kernels use vpmaddubsw, whose s16 pair sums
  // saturate, so it may not.
  int64_t octetWrong = 0, dnnlWrong = 0;
  double dnnlMaxRel = 0, yMax = 0;
  std::mt19937 pick(7);
  for (int i = 0; i < 4096; ++i) {
    int64_t m = pick() % M, n = pick() % N;
    int64_t acc = 0;
    for (int64_t k = 0; k < K; ++k)
      acc += int64_t(a[m * K + k]) * int64_t(w[k * N + n]);
    float y = float(int32_t(acc)) * (kActScale * weightScale(n)) + bias[n];
    y = std::max(y, 0.0f);
    octetWrong += octetOut[m * N + n] != y;
    dnnlWrong += dnnlOut[m * N + n] != y;
    dnnlMaxRel = std::max(dnnlMaxRel, double(std::fabs(dnnlOut[m * N + n] - y)));
    yMax = std::max(yMax, double(std::fabs(y)));
  }

  // --- OpenBLAS sgemm on the float model -------------------------------------
  std::vector<float> af(M * K), wf(K * N), cf(M * N);
  for (int64_t i = 0; i < M * K; ++i)
    af[i] = kActScale * a[i];
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      wf[k * N + n] = weightScale(n) * w[k * N + n];
  double tBlas = timeMedian(reps, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f,
                af.data(), K, wf.data(), N, 0.0f, cf.data(), N);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        cf[m * N + n] = std::max(cf[m * N + n] + bias[n], 0.0f);
  });

  std::printf("gemm M %lld K %lld N %lld octet_gops %.1f "
              "octet_alloc_gops %.1f entries_differ %lld onednn_gops %.1f "
              "openblas_gops %.1f onednn_impl %s octet_wrong %lld "
              "onednn_wrong %lld onednn_max_rel %.3g\n",
              (long long)M, (long long)K, (long long)N, ops / tOctet * 1e-9,
              ops / tOctetAlloc * 1e-9, (long long)entriesDiffer,
              ops / tDnnl * 1e-9, ops / tBlas * 1e-9, impl.c_str(),
              (long long)octetWrong, (long long)dnnlWrong,
              dnnlMaxRel / std::max(yMax, 1e-30));
  return 0;
}

/// A plain read of `n` bytes (vectorized by the compiler): the bandwidth
/// baseline. `prefetch`: each 128-byte step also requests the lines 2 KB
/// ahead (prefetcht0, as the 4-bit decode kernel does).
int64_t readAll(const int8_t *p, int64_t n, bool prefetch = false) {
  const __m256i *q = reinterpret_cast<const __m256i *>(p);
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  for (int64_t i = 0; i + 4 <= n / 32; i += 4) {
    if (prefetch) {
      _mm_prefetch(reinterpret_cast<const char *>(q + i) + 2048, _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(q + i) + 2112, _MM_HINT_T0);
    }
    s0 = _mm256_xor_si256(s0, _mm256_loadu_si256(q + i));
    s1 = _mm256_xor_si256(s1, _mm256_loadu_si256(q + i + 1));
    s2 = _mm256_xor_si256(s2, _mm256_loadu_si256(q + i + 2));
    s3 = _mm256_xor_si256(s3, _mm256_loadu_si256(q + i + 3));
  }
  __m256i s = _mm256_xor_si256(_mm256_xor_si256(s0, s1),
                               _mm256_xor_si256(s2, s3));
  return _mm256_extract_epi64(s, 0) ^ _mm256_extract_epi64(s, 1) ^
         _mm256_extract_epi64(s, 2) ^ _mm256_extract_epi64(s, 3);
}

/// One pass of the plain read loop over `total` bytes at `p` with `threads`
/// threads (with `prefetch`, of the read loop with software prefetch). The
/// bytes are read in chunks of 1 MB that the threads take in turn from a
/// shared counter: a thread the VM stalls for a while does not hold up the
/// pass with a fixed half of the buffer (the first version split the
/// buffer in one chunk per thread, and octet's two-thread GEMVs, split per
/// layer, read faster than it).
void readPass(const int8_t *p, int64_t total, int threads,
              bool prefetch = false) {
  constexpr int64_t kChunk = int64_t{1} << 20;
  int64_t chunks = (total + kChunk - 1) / kChunk;
  std::atomic<int64_t> next{0};
  std::vector<int64_t> sums(threads, 0);
  auto work = [&](int i) {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;)
      sums[i] ^= readAll(p + c * kChunk, std::min(kChunk, total - c * kChunk),
                         prefetch);
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back(work, i);
  work(0);
  for (auto &th : pool)
    th.join();
  volatile int64_t sink = sums[0];
  (void)sink;
}

/// GB/s of readPass (the median of `reps` passes after a warm-up one).
double readBandwidth(const int8_t *p, int64_t total, int threads, int reps,
                     bool prefetch = false) {
  double t = timeMedian(reps, [&] { readPass(p, total, threads, prefetch); });
  return double(total) / t * 1e-9;
}

/// The last-level cache's bytes (Linux sysfs; 32 MiB where it says none).
int64_t lastLevelCacheBytes() {
  int64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    std::string path = "/sys/devices/system/cpu/cpu0/cache/index" +
                       std::to_string(i) + "/size";
    if (FILE *f = std::fopen(path.c_str(), "r")) {
      long long v = 0;
      char unit = 0;
      if (std::fscanf(f, "%lld%c", &v, &unit) >= 1)
        best = std::max<int64_t>(best, v * (unit == 'K'   ? 1024
                                            : unit == 'M' ? 1 << 20
                                                          : 1));
      std::fclose(f);
    }
  }
  return best ? best : int64_t{32} << 20;
}

/// Reads a buffer of twice the last-level cache: whatever runs next finds
/// none of its own bytes in the caches. (Emerald Rapids' L3 holds 300 MiB:
/// the constant-weight GEMVs' 264-352 MB, read twice in a row, came
/// partly from L3 without it.)
void evictCaches() {
  static std::vector<int8_t> junk(2 * lastLevelCacheBytes(), 1);
  readPass(junk.data(), static_cast<int64_t>(junk.size()), 1);
}

/// GB/s of one readPass, timed without a warm-up, after evictCaches().
double coldReadBandwidth(const int8_t *p, int64_t total, int threads,
                         bool prefetch) {
  evictCaches();
  double t0 = now();
  readPass(p, total, threads, prefetch);
  return double(total) / (now() - t0) * 1e-9;
}

int envThreads() {
  int threads = 1;
  if (const char *t = std::getenv("OCTET_NUM_THREADS"))
    threads = std::max(1, std::atoi(t));
  return threads;
}

/// Medians of rounds that each time one `pass` and then the faster of the
/// plain and the prefetching read loop over `readBytes` of `buf`, both
/// from evicted caches (evictCaches; with `warm`, `pass` after an untimed
/// pass of its own): the VM's bandwidth drifts by up to 2x over seconds,
/// so the ratio is the median of each round's own ratio. At least 15
/// rounds: single rounds' ratios spread over +-15% on the VM. `t`: one
/// pass's seconds divided by `per`; `ratio`: (`bytes` / t) / read.
struct ColdRounds {
  double t, readGBs, ratio;
};
ColdRounds coldRounds(int reps, int threads, const int8_t *buf,
                      int64_t readBytes, double bytes, double per, bool warm,
                      const std::function<void()> &pass) {
  pass();
  std::vector<double> tPass, readGBs, ratio;
  for (int r = 0; r < std::max(3 * reps, 15); ++r) {
    if (warm)
      pass();
    else
      evictCaches();
    double t0 = now();
    pass();
    double t = (now() - t0) / per;
    double read = std::max(coldReadBandwidth(buf, readBytes, threads, false),
                           coldReadBandwidth(buf, readBytes, threads, true));
    tPass.push_back(t);
    readGBs.push_back(read);
    ratio.push_back(bytes / t * 1e-9 / read);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median(tPass), median(readGBs), median(ratio)};
}

/// Decode GEMV with constant weights (4-bit formats: the kernels take them
/// packed at compile time only): LIB holds main0 .. main{L-1}, each one
/// x (1 x K) times its own K x N constant; one timed call = one GEMV, the
/// functions taken in turn, so the L weights (more than the L3 holds) come
/// from memory. BYTES: the weight bytes one GEMV reads (codes and scales).
int gemvConst(int argc, char **argv) {
  if (argc < 8)
    return 2;
  const char *lib = argv[2];
  int64_t K = std::atoll(argv[3]), N = std::atoll(argv[4]);
  int64_t layers = std::atoll(argv[5]), bytes = std::atoll(argv[6]);
  int reps = std::atoi(argv[7]);
  int threads = envThreads();
  void *h = openLibrary(lib);
  using Fn = void (*)(Memref2d<float> *, Memref2d<float> *);
  std::vector<Fn> fns;
  for (int64_t l = 0; l < layers; ++l) {
    std::string name = "_mlir_ciface_main" + std::to_string(l);
    auto fn = reinterpret_cast<Fn>(dlsym(h, name.c_str()));
    if (!fn) {
      std::fprintf(stderr, "%s: no %s\n", lib, name.c_str());
      return 1;
    }
    fns.push_back(fn);
  }
  std::vector<float> x(K);
  for (int64_t k = 0; k < K; ++k)
    x[k] = 0.01f * static_cast<float>(k % 17 - 8);
  Memref2d<float> xv = view(x.data(), 1, K);
  std::vector<int8_t> buf(bytes * layers);
  for (int64_t i = 0; i < bytes * layers; ++i)
    buf[i] = static_cast<int8_t>((i * 2654435761u) >> 24);
  // One pass: the L functions in turn (each GEMV's weights from memory,
  // as a model's are). OCTET_GEMVC_WARM=1: an untimed pass first instead
  // of evicting the caches, so that a library small enough for L2 shows
  // the kernel's compute ceiling.
  auto pass = [&] {
    for (int64_t l = 0; l < layers; ++l) {
      Memref2d<float> out{};
      fns[l](&out, &xv);
      std::free(out.allocated);
    }
  };
  ColdRounds res = coldRounds(reps, threads, buf.data(), bytes * layers,
                              double(bytes), double(layers),
                              std::getenv("OCTET_GEMVC_WARM") != nullptr, pass);
  std::printf("gemvc K %lld N %lld layers %lld octet_ms %.3f octet_gbs %.2f "
              "read_gbs %.2f ratio %.3f\n",
              (long long)K, (long long)N, (long long)layers, res.t * 1e3,
              double(bytes) / res.t * 1e-9, res.readGBs, res.ratio);
  return 0;
}

int gemv(int argc, char **argv) {
  if (argc < 7)
    return 2;
  const char *lib = argv[2];
  int64_t K = std::atoll(argv[3]), N = std::atoll(argv[4]);
  double gib = std::atof(argv[5]);
  int reps = std::atoi(argv[6]);
  int threads = envThreads();
  int64_t bytes = K * N;
  int64_t copies = static_cast<int64_t>(
      std::ceil(gib * 1024.0 * 1024.0 * 1024.0 / double(bytes)));
  std::vector<int8_t> w(bytes * copies);
  for (int64_t i = 0; i < bytes * copies; ++i)
    w[i] = static_cast<int8_t>((i * 2654435761u) >> 24);
  std::vector<float> x(K);
  for (int64_t k = 0; k < K; ++k)
    x[k] = 0.01f * static_cast<float>(k % 17 - 8);

  void *h = openLibrary(lib);
  using Fn = void (*)(Memref2d<float> *, Memref2d<float> *, Memref2d<int8_t> *);
  auto fn = reinterpret_cast<Fn>(dlsym(h, "_mlir_ciface_main"));
  if (!fn)
    return 1;
  Memref2d<float> xv = view(x.data(), 1, K);
  int64_t next = 0;
  // One timed call = one GEMV over the next copy of the weights.
  double tOctet = timeMedian(reps * int(copies), [&] {
    Memref2d<int8_t> wv = view(w.data() + (next++ % copies) * bytes, K, N);
    Memref2d<float> out{};
    fn(&out, &xv, &wv);
    std::free(out.allocated);
  });

  // Read bandwidth over the same bytes, same thread count, whole buffer.
  double readGBs = readBandwidth(w.data(), bytes * copies, threads, reps);
  double octetGBs = double(bytes) / tOctet * 1e-9;

  // OpenBLAS sgemv, f32 weights rotated over the same amount of memory.
  w.clear();
  w.shrink_to_fit();
  int64_t fcopies = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(gib * 1024.0 * 1024.0 * 1024.0 /
                                        double(bytes * 4))));
  std::vector<float> wf(bytes * fcopies);
  for (int64_t i = 0; i < bytes * fcopies; ++i)
    wf[i] = 0.001f * static_cast<float>(int(i % 251) - 125);
  std::vector<float> y(N);
  next = 0;
  double tBlas = timeMedian(reps * int(fcopies), [&] {
    const float *wp = wf.data() + (next++ % fcopies) * bytes;
    cblas_sgemv(CblasRowMajor, CblasTrans, K, N, 1.0f, wp, N, x.data(), 1,
                0.0f, y.data(), 1);
  });
  double blasGBs = double(bytes * 4) / tBlas * 1e-9;
  std::printf("gemv K %lld N %lld copies %lld octet_ms %.3f octet_gbs %.2f "
              "read_gbs %.2f openblas_ms %.3f openblas_gbs %.2f\n",
              (long long)K, (long long)N, (long long)copies, tOctet * 1e3,
              octetGBs, readGBs, tBlas * 1e3, blasGBs);
  return 0;
}

/// The constant 4-bit weights of the `fgemm ... i4` model (the same
/// generator in bench/cpu_kernels.py): codes in [-8, 7], scales per group
/// of kGroup4 rows, computed in double and rounded once.
constexpr int64_t kGroup4 = 128;
int weightCode4(int64_t k, int64_t n) {
  return static_cast<int>((k * 7 + n * 13) % 16) - 8;
}
float weightScale4(int64_t g, int64_t n) {
  return static_cast<float>(0.001 * (1 + (g * 3 + n) % 7));
}

/// The constant E4M3 weight codes of the `fgemm ... e4m3` model (the same
/// generator in bench/cpu_kernels.py; never 0x7F / 0xFF, the NaN codes),
/// and the value of an E4M3 code.
uint8_t weightCodeE4m3(int64_t k, int64_t n) {
  return static_cast<uint8_t>(((k * 7 + n * 13) % 0x7E) | (((k + n) & 1) << 7));
}
float e4m3Value(uint8_t code) {
  int e = (code >> 3) & 15, m = code & 7;
  float v = e ? std::ldexp(1.0f + m / 8.0f, e - 7) : std::ldexp(m / 8.0f, -6);
  return code & 0x80 ? -v : v;
}

/// Float-activation GEMM: the octet library `main(A f32 M x K, W K x N)`
/// with W f32 (a float linalg.matmul: the f32 kernel) or i8 (a W8A32
/// octet.matmul with per-channel scales: the weight-only kernel), or
/// `main(A)` with constant i4 weights per group of 128, or FP8 W8A8
/// `main(A E4M3 codes, per-row scales)` with constant E4M3 weights and
/// per-channel scales, against OpenBLAS sgemm on the f32 values the codes
/// stand for. Results are compared with the f64 sums.
int fgemm(int argc, char **argv) {
  if (argc < 8)
    return 2;
  const char *lib = argv[2];
  int64_t M = std::atoll(argv[3]), K = std::atoll(argv[4]),
          N = std::atoll(argv[5]);
  int reps = std::atoi(argv[6]);
  std::string kind = argv[7];
  bool codes = kind == "i8", codes4 = kind == "i4", fp8 = kind == "e4m3";
  if (!codes && !codes4 && !fp8 && kind != "f32") {
    std::fprintf(stderr, "fgemm: weights must be f32, i8, i4 or e4m3\n");
    return 2;
  }
  double ops = 2.0 * M * N * K;
  std::vector<float> a(M * K), wf(K * N);
  std::vector<int8_t> wq(K * N);
  // FP8: activation codes (finite, |value| <= 120) with a scale of 1 per
  // row; `a` holds their values.
  std::vector<uint8_t> aq(fp8 ? M * K : 0);
  std::vector<float> rowScale(fp8 ? M : 0, 1.0f);
  for (int64_t i = 0; i < M * K; ++i) {
    if (fp8) {
      aq[i] = static_cast<uint8_t>((i * 5 % 0x70) | ((i / 3 & 1) << 7));
      a[i] = e4m3Value(aq[i]);
    } else {
      a[i] = 0.01f * static_cast<float>(int(i % 23) - 11);
    }
  }
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      wq[k * N + n] = weightCode(k, n);
      // The float weights the codes stand for (the i8 model's scales are
      // weightScale(n), see gemv_model-style MLIR written by the script).
      wf[k * N + n] =
          fp8      ? e4m3Value(weightCodeE4m3(k, n)) * weightScale(n)
          : codes4 ? float(weightCode4(k, n)) * weightScale4(k / kGroup4, n)
          : codes  ? float(wq[k * N + n]) * weightScale(n)
                   : 0.001f * float(wq[k * N + n]);
    }
  void *h = openLibrary(lib);
  auto fn = dlsym(h, "_mlir_ciface_main");
  if (!fn) {
    std::fprintf(stderr, "no _mlir_ciface_main in %s\n", lib);
    return 1;
  }
  Memref2d<float> av = view(a.data(), M, K), out{};
  std::vector<float> octetOut(M * N);
  auto call = [&] {
    if (fp8) {
      Memref2d<uint8_t> xv = view(aq.data(), M, K);
      Memref1d<float> sv = view1(rowScale.data(), M);
      reinterpret_cast<void (*)(Memref2d<float> *, Memref2d<uint8_t> *,
                                Memref1d<float> *)>(fn)(&out, &xv, &sv);
    } else if (codes4) {
      reinterpret_cast<void (*)(Memref2d<float> *, Memref2d<float> *)>(fn)(&out,
                                                                           &av);
    } else if (codes) {
      Memref2d<int8_t> wv = view(wq.data(), K, N);
      reinterpret_cast<void (*)(Memref2d<float> *, Memref2d<float> *,
                                Memref2d<int8_t> *)>(fn)(&out, &av, &wv);
    } else {
      Memref2d<float> wv = view(wf.data(), K, N);
      reinterpret_cast<void (*)(Memref2d<float> *, Memref2d<float> *,
                                Memref2d<float> *)>(fn)(&out, &av, &wv);
    }
  };
  // Timed in rounds with sgemm: the call and freeing the result it
  // allocates, not the copy out.
  std::vector<float> c(M * N);
  std::vector<double> t = timeRounds(
      reps, {[&] {
               call();
               std::free(out.allocated);
             },
             [&] {
               cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K,
                           1.0f, a.data(), K, wf.data(), N, 0.0f, c.data(), N);
             }});
  double tOctet = t[0], tBlas = t[1];
  call();
  std::memcpy(octetOut.data(), out.aligned + out.offset, sizeof(float) * M * N);
  std::free(out.allocated);
  // Accuracy of both against f64 sums on sampled outputs (relative to the
  // sum of |products|).
  double octetErr = 0, blasErr = 0;
  std::mt19937 gen(7);
  for (int s = 0; s < 512; ++s) {
    int64_t m = gen() % M, n = gen() % N;
    double ref = 0, mag = 0;
    for (int64_t k = 0; k < K; ++k) {
      double p = double(a[m * K + k]) * double(wf[k * N + n]);
      ref += p;
      mag += std::fabs(p);
    }
    double o = octetOut[m * N + n];
    octetErr = std::max(octetErr, std::fabs(o - ref) / (mag + 1e-30));
    blasErr = std::max(blasErr, std::fabs(c[m * N + n] - ref) / (mag + 1e-30));
  }
  std::printf("fgemm M %lld K %lld N %lld weights %s octet_gflops %.1f "
              "openblas_gflops %.1f octet_max_rel %.1e openblas_max_rel "
              "%.1e\n",
              (long long)M, (long long)K, (long long)N, kind.c_str(),
              ops / tOctet * 1e-9, ops / tBlas * 1e-9, octetErr, blasErr);
  return 0;
}

/// The compute ceiling of the W8A32 decode GEMV on one core: the loop the
/// generated kernel (emitWeightOnlyDecode) runs, written with intrinsics:
/// 16 rows at a time, each group of 8 vectors of columns loading its
/// running sums, one vpmovsxbd, vcvtdq2ps and FMA per vector of weights,
/// storing the sums back; zmm (16 columns) where the driver is built with
/// AVX-512, ymm (8) otherwise. Over 32 x 14336 weights (448 KiB, in L2)
/// and 56 KiB of sums, so memory does not limit it. GB/s of weights;
/// compare with the read loop's GB/s from DRAM: a kernel whose loads are
/// not overlapped with this work runs near 1 / (1 / ceiling + 1 / read).
int ceiling(int argc, char **argv) {
  if (argc < 3)
    return 2;
  int reps = std::atoi(argv[2]);
  constexpr int K = 32, N = 14336, kRows = 16;
#if defined(__AVX512F__)
  using Vec = __m512;
  constexpr int W = 16;
  auto zero = [] { return _mm512_setzero_ps(); };
  auto loadV = [](const float *p) { return _mm512_loadu_ps(p); };
  auto storeV = [](float *p, Vec v) { _mm512_storeu_ps(p, v); };
  auto bcast = [](float x) { return _mm512_set1_ps(x); };
  auto weights = [](const int8_t *p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(p))));
  };
  auto fma = [](Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); };
#else
  using Vec = __m256;
  constexpr int W = 8;
  auto zero = [] { return _mm256_setzero_ps(); };
  auto loadV = [](const float *p) { return _mm256_loadu_ps(p); };
  auto storeV = [](float *p, Vec v) { _mm256_storeu_ps(p, v); };
  auto bcast = [](float x) { return _mm256_set1_ps(x); };
  auto weights = [](const int8_t *p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p))));
  };
  auto fma = [](Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); };
#endif
  std::vector<int8_t> w(K * N);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<int8_t>((i * 2654435761u) >> 24);
  std::vector<float> x(K, 0.5f), sums(N), out(N);
  auto once = [&] {
    for (int k0 = 0; k0 < K; k0 += kRows) {
      for (int n0 = 0; n0 < N; n0 += 8 * W) {
        Vec acc[8];
        for (int v = 0; v < 8; ++v)
          acc[v] = k0 ? loadV(&sums[n0 + W * v]) : zero();
        for (int r = 0; r < kRows; ++r) {
          Vec xv = bcast(x[k0 + r]);
          const int8_t *row = w.data() + static_cast<size_t>(k0 + r) * N + n0;
          for (int v = 0; v < 8; ++v)
            acc[v] = fma(xv, weights(row + W * v), acc[v]);
        }
        float *dst = k0 + kRows == K ? out.data() : sums.data();
        for (int v = 0; v < 8; ++v)
          storeV(dst + n0 + W * v, acc[v]);
      }
    }
  };
  double t = timeMedian(reps, [&] {
    for (int i = 0; i < 20; ++i) {
      once();
      // The results are read below: no pass may be skipped or merged.
      asm volatile("" : : "r"(out.data()), "r"(w.data()) : "memory");
    }
  });
  volatile float sink = out[0] + out[N - 1];
  (void)sink;
  std::printf("ceiling gbs %.2f\n", 20.0 * K * N / t * 1e-9);
  return 0;
}

/// Decode attention over a SmolLM2-shaped KV cache (the header's
/// `attention` mode).
int attention(int argc, char **argv) {
  if (argc < 6)
    return 2;
  constexpr int64_t kLayers = 30, kKv = 3, kG = 3, kDh = 64, kN = 2048;
  const char *lib = argv[2];
  int64_t p = std::atoll(argv[3]);
  std::string kindName = argv[4];
  int reps = std::atoi(argv[5]);
  int threads = envThreads();
  if (p < 0 || p >= kN) {
    std::fprintf(stderr, "attention: P must be in [0, %lld)\n", (long long)kN);
    return 2;
  }
  int32_t kind = kindName == "f32"    ? OCTET_ATTN_F32
                 : kindName == "i8"   ? OCTET_ATTN_I8
                 : kindName == "e4m3" ? OCTET_ATTN_F8E4M3FN
                                      : -1;
  if (kind < 0) {
    std::fprintf(stderr, "attention: KIND is f32, i8 or e4m3\n");
    return 2;
  }
  using Fn = void (*)(const int64_t *);
  auto fn =
      reinterpret_cast<Fn>(dlsym(openLibrary(lib), "octet_cpu_attention_f32"));
  if (!fn) {
    std::fprintf(stderr, "%s: no octet_cpu_attention_f32\n", lib);
    return 1;
  }
  const int64_t elem = kind == OCTET_ATTN_F32 ? 4 : 1;
  // K's rows padded to an odd number of 64-byte lines, as the importer
  // lays the cache out (llama_mlir.k_cache_pad: 2064 f32 or 2112 codes).
  int64_t lines = (kN * elem + 63) / 64;
  const int64_t kRow = (lines + (lines % 2 == 0)) * 64 / elem;
  const int64_t cacheBytes = kKv * kDh * kRow * elem; // K (V: less) per layer
  // Every layer's K [KV, Dh, N] and V [KV, N, Dh]: codes and floats from a
  // fixed hash (finite E4M3 codes: no 0x7F / 0xFF).
  AlignedVector<int8_t> k(kLayers * cacheBytes), v(kLayers * cacheBytes);
  for (int64_t i = 0; i < kLayers * cacheBytes / elem; ++i) {
    uint32_t hk = static_cast<uint32_t>(i * 2654435761u) >> 20;
    uint32_t hv = static_cast<uint32_t>((i + 7) * 2246822519u) >> 20;
    if (elem == 4) {
      reinterpret_cast<float *>(k.data())[i] = float(int(hk % 201) - 100) / 64;
      reinterpret_cast<float *>(v.data())[i] = float(int(hv % 201) - 100) / 64;
    } else if (kind == OCTET_ATTN_I8) {
      k[i] = static_cast<int8_t>(hk);
      v[i] = static_cast<int8_t>(hv);
    } else {
      k[i] = static_cast<int8_t>(hk % 0x7F | (hk & 0x80));
      v[i] = static_cast<int8_t>(hv % 0x7F | (hv & 0x80));
    }
  }
  std::vector<float> q(kKv * kG * kDh), out(kKv * kG * kDh);
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = 0.01f * static_cast<float>(int(i % 37) - 18);
  std::vector<float> scales(kKv, 0.02f);
  int32_t pos = static_cast<int32_t>(p);
  float scale = 0.125f;
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, sizeof scale);
  auto pass = [&] {
    for (int64_t l = 0; l < kLayers; ++l) {
      int64_t a[OCTET_ATTN_NUM_SLOTS] = {};
      a[OCTET_ATTN_Q] = reinterpret_cast<int64_t>(q.data());
      a[OCTET_ATTN_K] = reinterpret_cast<int64_t>(k.data() + l * cacheBytes);
      a[OCTET_ATTN_V] = reinterpret_cast<int64_t>(v.data() + l * cacheBytes);
      a[OCTET_ATTN_POSITIONS] = reinterpret_cast<int64_t>(&pos);
      a[OCTET_ATTN_OUT] = reinterpret_cast<int64_t>(out.data());
      a[OCTET_ATTN_S] = 1;
      a[OCTET_ATTN_KV] = kKv;
      a[OCTET_ATTN_G] = kG;
      a[OCTET_ATTN_DH] = kDh;
      a[OCTET_ATTN_N] = p + 1; // the cache's first P + 1 positions
      const int64_t qs[4] = {kKv * kG * kDh, kG * kDh, kDh, 1};
      const int64_t ks[3] = {kDh * kRow, kRow, 1}, vs[3] = {kN * kDh, kDh, 1};
      for (int i = 0; i < 4; ++i)
        a[OCTET_ATTN_Q_STRIDES + i] = qs[i];
      for (int i = 0; i < 3; ++i) {
        a[OCTET_ATTN_K_STRIDES + i] = ks[i];
        a[OCTET_ATTN_V_STRIDES + i] = vs[i];
      }
      a[OCTET_ATTN_SCALE] = scaleBits;
      a[OCTET_ATTN_K_KIND] = a[OCTET_ATTN_V_KIND] = kind;
      a[OCTET_ATTN_K_SCALES] = a[OCTET_ATTN_V_SCALES] =
          reinterpret_cast<int64_t>(scales.data());
      a[OCTET_ATTN_K_SCALE_STRIDE] = a[OCTET_ATTN_V_SCALE_STRIDE] = 1;
      a[OCTET_ATTN_LAYOUT] = OCTET_ATTN_LAYOUT_TAG;
      fn(a);
    }
  };
  const int64_t bytes = 2 * kLayers * kKv * kDh * (p + 1) * elem;
  AlignedVector<int8_t> buf(bytes, 1);
  ColdRounds res = coldRounds(reps, threads, buf.data(), bytes, double(bytes),
                              1.0, false, pass);
  volatile float sink = out[0];
  (void)sink;
  std::printf("attention p %lld kind %s octet_ms %.3f octet_gbs %.2f "
              "read_gbs %.2f ratio %.3f\n",
              (long long)p, kindName.c_str(), res.t * 1e3,
              double(bytes) / res.t * 1e-9, res.readGBs, res.ratio);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && std::string(argv[1]) == "attention")
    return attention(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "ceiling")
    return ceiling(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "fgemm")
    return fgemm(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "gemm")
    return gemm(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "gemv")
    return gemv(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "gemvc")
    return gemvConst(argc, argv);
  std::fprintf(stderr,
               "usage: %s gemm LIB M K N REPS | gemv LIB K N GIB "
               "REPS | attention RUNTIME P f32|i8|e4m3 "
               "REPS | gemvc LIB K N LAYERS BYTES REPS | fgemm LIB M "
               "K N REPS f32|i8|i4|e4m3 | ceiling REPS\n",
               argv[0]);
  return 2;
}
