//===- octet_gpu_bench.cu - octet CUDA kernels against cuBLASLt -----------===//
//
// Runs on a machine with an NVIDIA GPU (built on a CPU-only machine by
// bench/gpu/CMakeLists.txt; scripts/gpu-check runs it). In one process:
//
//   copy         device-to-device cudaMemcpy of 1 GiB (the bandwidth
//                ceiling, bytes read + written per second)
//   gemv-w8a16   octet's weight-only decode GEMV, f16 x int8 [K x N] with
//                per-channel scales, 8192 x 8192, rotating over 16 weight
//                matrices (1 GiB) so that the 60 MB L2 serves none of them
//   gemv-w4a16   the same GEMV on i4 weights packed two per byte (as
//                constant weights are compiled), scales per group of 128,
//                rotating over 32 matrices (1 GiB)
//   prefill-w8a16, prefill-w4a16
//                the same weight-only products with M = 4096 (N = K =
//                4096): octet's wgmma weight-only kernel (bf16 parts, in
//                the same cubins) against cuBLASLt's f16 GEMM on the
//                dequantized weights (what a float model would run)
//   gemm-fp8     octet's wgmma kernel, e4m3 x e4m3 -> bf16, against
//                cuBLASLt (same layouts: A [M x K], B^T [N x K], "TN")
//   gemm-int8    octet's wgmma kernel, s8 x s8 -> f32, against cuBLASLt
//                (s8 x s8 -> s32)
//
// Every result is checked against cuBLASLt or a reference kernel (int8
// bit-exactly) and printed with the ratio to its baseline. The octet
// kernels come from cubins compiled by octet-compile --emit=cubin, with
// their manifests; they are launched through liboctet_runtime
// (octet_cuda_*), the runtime that generated host code uses.
//
// Usage: octet-gpu-bench --kernels DIR [--quick] [--sizes 4096,8192]
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/OctetRuntime.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failures = 0;

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    cudaError_t err_ = (expr);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, \
                   #expr, cudaGetErrorName(err_), cudaGetErrorString(err_));   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define OCTET_CHECK(expr)                                                      \
  do {                                                                         \
    if ((expr) != 0) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,      \
                   #expr, octet_cuda_last_error());                            \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// octet kernels: manifest, module, launch
//===----------------------------------------------------------------------===//

struct KernelInfo {
  std::string name, kind;
  int block = 0, blockY = 1, smem = 0, tileM = 0, tileN = 0, tileK = 0;
  void *function = nullptr;
};

struct OctetModule {
  std::vector<char> image;
  void *module = nullptr;
  std::vector<KernelInfo> kernels;

  /// The first kernel of `kind` (and tile M, when given).
  const KernelInfo *find(const std::string &kind, int tileM = 0) const {
    for (const KernelInfo &k : kernels)
      if (k.kind == kind && (tileM == 0 || k.tileM == tileM))
        return &k;
    return nullptr;
  }
};

bool loadModule(const std::string &cubin, OctetModule &m) {
  std::ifstream in(cubin, std::ios::binary);
  std::ifstream man(cubin + ".manifest");
  if (!in || !man)
    return false;
  m.image.assign(std::istreambuf_iterator<char>(in),
                 std::istreambuf_iterator<char>());
  std::string line;
  while (std::getline(man, line)) {
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (word != "kernel")
      continue;
    KernelInfo k;
    ls >> k.name >> k.kind >> k.block >> k.blockY >> k.smem >> k.tileM >>
        k.tileN >> k.tileK;
    m.kernels.push_back(k);
  }
  OCTET_CHECK(octet_cuda_module_load(m.image.data(), &m.module));
  for (KernelInfo &k : m.kernels)
    OCTET_CHECK(octet_cuda_module_get_function(m.module, k.name.c_str(),
                                               &k.function));
  return true;
}

/// The parameters of every octet matmul kernel (Kernels.h, docs/cuda.md).
struct MatmulArgs {
  void *ptrs[14] = {};
  int64_t ints[5] = {};
  void *params[19];
  MatmulArgs() {
    for (int i = 0; i < 14; ++i)
      params[i] = &ptrs[i];
    for (int i = 0; i < 5; ++i)
      params[14 + i] = &ints[i];
  }
  enum { A, B, Out, Sa, Za, Sb, Zb, RowSum, ColSum, Bias, Os, Oz, Ws, Cnt };
  enum { M, N, K, Batch, KChunk };
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The gemv split of K, as the generated host code computes it (with the
/// default gemv-rows=4).
void gemvSplit(int64_t M, int64_t N, int64_t K, int64_t &kChunk,
               int64_t &kSplit) {
  int64_t tiles = std::max<int64_t>(1, ceilDiv(N, 128) * ceilDiv(M, 4));
  int64_t want = std::max<int64_t>(1, ceilDiv(512, tiles));
  kChunk = std::max<int64_t>(128, ceilDiv(ceilDiv(K, want), 128) * 128);
  kSplit = std::max<int64_t>(1, ceilDiv(K, kChunk));
}

void launchMatmul(const KernelInfo &k, MatmulArgs &a, cudaStream_t s) {
  int64_t M = a.ints[MatmulArgs::M], N = a.ints[MatmulArgs::N];
  uint32_t grid[3] = {1, 1, 1};
  if (k.kind == "gemv") {
    int64_t chunk, split;
    gemvSplit(M, N, a.ints[MatmulArgs::K], chunk, split);
    a.ints[MatmulArgs::KChunk] = chunk;
    grid[0] = ceilDiv(N, 128);
    grid[1] = split;
    grid[2] = ceilDiv(M, k.tileM);
  } else {
    grid[0] = ceilDiv(N, k.tileN);
    grid[1] = ceilDiv(M, k.tileM);
  }
  uint32_t block[3] = {static_cast<uint32_t>(k.block),
                       static_cast<uint32_t>(k.blockY), 1};
  OCTET_CHECK(octet_cuda_launch(k.function, grid, block, k.smem, s, a.params));
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

__device__ uint32_t hash(uint64_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<uint32_t>(x);
}

__global__ void fillInt8(int8_t *p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<int8_t>(int(hash(i, seed) % 255) - 127);
}

__global__ void fillFp8(__nv_fp8_e4m3 *p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = __nv_fp8_e4m3((hash(i, seed) % 4001) / 1000.0f - 2.0f);
}

__global__ void fillHalf(__half *p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = __float2half((hash(i, seed) % 2001) / 1000.0f - 1.0f);
}

__global__ void fillFloat(float *p, int64_t n, float lo, float hi,
                          uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = lo + (hi - lo) * (hash(i, seed) % 10001) / 10000.0f;
}

/// Reference W8A16 GEMV: y[n] = half(sum_k x[k] * w[k, n] * s[n]).
/// Reads `n` 16-byte vectors (4 independent loads in flight per thread and
/// iteration, read-only path) and folds them into one word, written only
/// if it equals `never`, so the loads are live: the read-only bandwidth
/// the weight-only GEMV is measured against (the copy counts read +
/// write).
__global__ void readOnly(const uint4 *__restrict__ p, int64_t n,
                         uint32_t never, uint32_t *sink) {
  uint32_t acc = 0;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 v0 = __ldg(p + i), v1 = __ldg(p + i + stride),
          v2 = __ldg(p + i + 2 * stride), v3 = __ldg(p + i + 3 * stride);
    acc ^= v0.x ^ v0.y ^ v0.z ^ v0.w ^ v1.x ^ v1.y ^ v1.z ^ v1.w;
    acc ^= v2.x ^ v2.y ^ v2.z ^ v2.w ^ v3.x ^ v3.y ^ v3.z ^ v3.w;
  }
  for (; i < n; i += stride) {
    uint4 v = __ldg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never)
    sink[0] = acc;
}

__global__ void refGemv(const __half *x, const int8_t *w, const float *s,
                        float *y, int64_t N, int64_t K) {
  int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (n >= N)
    return;
  double acc = 0;
  for (int64_t k = 0; k < K; ++k)
    acc += double(__half2float(x[k])) * double(w[k * N + n]);
  y[n] = float(acc) * s[n];
}

/// Reference W4A16 GEMV on packed i4 codes (column 2j of a row in the low
/// nibble of byte j) with scales per group of 128 rows:
/// y[n] = sum_k x[k] * code(k, n) * s[k / 128, n].
__global__ void refGemv4(const __half *x, const uint8_t *w, const float *s,
                         float *y, int64_t N, int64_t K) {
  int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (n >= N)
    return;
  double acc = 0;
  for (int64_t k = 0; k < K; ++k) {
    int code = (w[k * (N / 2) + n / 2] >> (4 * (n % 2))) & 0xF;
    code = code >= 8 ? code - 16 : code;
    acc += double(__half2float(x[k])) * code * s[(k / 128) * N + n];
  }
  y[n] = float(acc);
}

/// B^T [N x K] in f16 of the W8A16 (`w4` false: int8 [K x N], scales per
/// column) or W4A16 weights (packed i4, scales per group of 128 rows): the
/// dequantized weights cuBLASLt's float baseline multiplies.
__global__ void dequantT(const int8_t *w, const float *s, __half *bt,
                         int64_t N, int64_t K, bool w4) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < N * K;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t n = i / K, k = i % K;
    float v;
    if (w4) {
      int code = (reinterpret_cast<const uint8_t *>(w)[k * (N / 2) + n / 2] >>
                  (4 * (n % 2))) & 0xF;
      v = float(code >= 8 ? code - 16 : code) * s[(k / 128) * N + n];
    } else {
      v = float(w[k * N + n]) * s[n];
    }
    bt[i] = __float2half(v);
  }
}

template <typename T> T *deviceAlloc(int64_t count) {
  void *p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, std::max<int64_t>(1, count) * sizeof(T)));
  return static_cast<T *>(p);
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

struct Timer {
  cudaEvent_t start, stop;
  Timer() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  /// Milliseconds per call of `f(i)` over `iters` calls after `warmup`.
  template <typename F>
  double time(int warmup, int iters, cudaStream_t s, F f) {
    for (int i = 0; i < warmup; ++i)
      f(i);
    CUDA_CHECK(cudaEventRecord(start, s));
    for (int i = 0; i < iters; ++i)
      f(i);
    CUDA_CHECK(cudaEventRecord(stop, s));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms / iters;
  }
};

const char *verdict(double ratio, double target) {
  return ratio >= target ? "MEETS" : "BELOW";
}

//===----------------------------------------------------------------------===//
// cuBLASLt
//===----------------------------------------------------------------------===//

/// D = A^T B in cuBLASLt's column-major terms with A stored K x M and B
/// K x N (both K-contiguous), i.e. row-major A [M x K] times B^T [N x K].
/// A failing cuBLASLt call is reported and makes the baseline absent (its
/// row still prints octet's numbers), not fatal: `error` holds the call and
/// status.
#define LT_TRY(expr)                                                           \
  do {                                                                         \
    cublasStatus_t st_ = (expr);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS && error.empty()) {                       \
      error = std::string(#expr).substr(0, std::string(#expr).find('(')) +     \
              " returned status " + std::to_string(static_cast<int>(st_));     \
      return;                                                                  \
    }                                                                          \
  } while (0)

struct LtGemm {
  std::string error; ///< Empty while cuBLASLt works.
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo;
  void *workspace = nullptr;
  size_t workspaceBytes = 64ull << 20;
  bool fp8, f16;

  // The benchmark's scales are 1.0 on both sides, so cuBLASLt runs without
  // A/B scale pointers: on the H200 (CUDA 13, 2026-12-01) cublasLtMatmul
  // returned NOT_SUPPORTED (15) for e4m3 -> bf16 with them set, and 1544
  // TFLOP/s without.
  // `f16`: f16 x f16 -> f16 with f32 accumulation (the weight-only rows'
  // float baseline).
  LtGemm(int64_t M, int64_t N, int64_t K, bool fp8, bool f16 = false)
      : fp8(fp8 || f16), f16(f16) {
    init(M, N, K);
  }
  void init(int64_t M, int64_t N, int64_t K) {
    LT_TRY(cublasLtCreate(&lt));
    cublasComputeType_t compute = fp8 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32I;
    cudaDataType_t scaleType = fp8 ? CUDA_R_32F : CUDA_R_32I;
    LT_TRY(cublasLtMatmulDescCreate(&desc, compute, scaleType));
    cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    LT_TRY(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                          &t, sizeof(t)));
    LT_TRY(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                          &n, sizeof(n)));
    cudaDataType_t in = f16 ? CUDA_R_16F : fp8 ? CUDA_R_8F_E4M3 : CUDA_R_8I;
    cudaDataType_t out = f16 ? CUDA_R_16F : fp8 ? CUDA_R_16BF : CUDA_R_32I;
    LT_TRY(cublasLtMatrixLayoutCreate(&la, in, K, M, K));
    LT_TRY(cublasLtMatrixLayoutCreate(&lb, in, K, N, K));
    LT_TRY(cublasLtMatrixLayoutCreate(&lc, out, M, N, M));
    CUDA_CHECK(cudaMalloc(&workspace, workspaceBytes));
    cublasLtMatmulPreference_t pref;
    LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
    LT_TRY(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
        sizeof(workspaceBytes)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
        lt, desc, la, lb, lc, lc, pref, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    LT_TRY(st);
    if (found == 0) {
      error = "cuBLASLt has no algorithm for this GEMM";
      return;
    }
    algo = result.algo;
  }
  ~LtGemm() {
    cudaFree(workspace);
    if (la)
      cublasLtMatrixLayoutDestroy(la);
    if (lb)
      cublasLtMatrixLayoutDestroy(lb);
    if (lc)
      cublasLtMatrixLayoutDestroy(lc);
    if (desc)
      cublasLtMatmulDescDestroy(desc);
    if (lt)
      cublasLtDestroy(lt);
  }
  /// One product, unless cuBLASLt already failed (then nothing).
  void run(const void *a, const void *b, void *d, cudaStream_t s) {
    if (!error.empty())
      return;
    float alphaF = 1, betaF = 0;
    int32_t alphaI = 1, betaI = 0;
    const void *alpha = fp8 ? static_cast<const void *>(&alphaF)
                            : static_cast<const void *>(&alphaI);
    const void *beta = fp8 ? static_cast<const void *>(&betaF)
                           : static_cast<const void *>(&betaI);
    LT_TRY(cublasLtMatmul(lt, desc, alpha, a, la, b, lb, beta, d, lc, d, lc,
                          &algo, workspace, workspaceBytes, s));
  }
};
#undef LT_TRY

//===----------------------------------------------------------------------===//
// The measurements
//===----------------------------------------------------------------------===//

double benchCopy(cudaStream_t s, bool quick) {
  const int64_t bytes = 1ll << 30;
  char *src = deviceAlloc<char>(bytes), *dst = deviceAlloc<char>(bytes);
  CUDA_CHECK(cudaMemset(src, 1, bytes));
  Timer t;
  double ms = t.time(2, quick ? 5 : 10, s, [&](int) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
  });
  double gbps = 2.0 * bytes / (ms * 1e-3) / 1e9;
  std::printf("copy        1 GiB device-to-device          %8.1f GB/s "
              "(bytes read + written)\n",
              gbps);
  cudaFree(src);
  cudaFree(dst);
  return gbps;
}

double benchRead(cudaStream_t s, bool quick, int sms) {
  const int64_t bytes = 1ll << 30;
  char *src = deviceAlloc<char>(bytes);
  uint32_t *sink = deviceAlloc<uint32_t>(1);
  CUDA_CHECK(cudaMemset(src, 1, bytes));
  Timer t;
  double ms = t.time(2, quick ? 5 : 10, s, [&](int) {
    readOnly<<<sms * 8, 512, 0, s>>>(reinterpret_cast<const uint4 *>(src),
                                     bytes / 16, 0x9e3779b9u, sink);
  });
  double gbps = bytes / (ms * 1e-3) / 1e9;
  std::printf("read        1 GiB read-only (ld.global.nc.v4)  %8.1f GB/s\n",
              gbps);
  cudaFree(src);
  cudaFree(sink);
  return gbps;
}

/// The decode GEMV (M = 1, 8192 x 8192): W8A16 (int8, per-channel scales)
/// or, with `w4`, W4A16 (i4 packed two per byte, scales per group of 128).
void benchGemv(const OctetModule &mod, cudaStream_t s, double copyGbps,
               double readGbps, bool quick, bool w4) {
  const char *label = w4 ? "gemv-w4a16" : "gemv-w8a16";
  const KernelInfo *k = mod.find("gemv", 1);
  if (!k)
    k = mod.find("gemv");
  if (!k) {
    std::printf("%s  no gemv kernel in the manifest\n", label);
    ++failures;
    return;
  }
  const int64_t N = 8192, K = 8192, M = 1;
  const int64_t wBytes = w4 ? K * N / 2 : K * N;
  const int64_t scales = w4 ? (K / 128) * N : N;
  // 1 GiB of weights: 16 x 64 MiB (int8) or 32 x 32 MiB (i4).
  const int copies = w4 ? 32 : 16;
  std::vector<int8_t *> w(copies);
  for (int i = 0; i < copies; ++i) {
    w[i] = deviceAlloc<int8_t>(wBytes);
    fillInt8<<<1024, 256, 0, s>>>(w[i], wBytes, 100 + i);
  }
  __half *x = deviceAlloc<__half>(M * K), *y = deviceAlloc<__half>(M * N);
  float *scale = deviceAlloc<float>(scales), *ref = deviceAlloc<float>(N);
  fillHalf<<<64, 256, 0, s>>>(x, M * K, 7);
  fillFloat<<<64, 256, 0, s>>>(scale, scales, 1e-3f, 2e-3f, 8);
  int64_t chunk, split;
  gemvSplit(M, N, K, chunk, split);
  float *ws = deviceAlloc<float>(split * M * N);
  int32_t *counters = deviceAlloc<int32_t>(ceilDiv(N, 128) * M);
  CUDA_CHECK(cudaMemsetAsync(counters, 0, ceilDiv(N, 128) * M * 4, s));
  MatmulArgs a;
  a.ptrs[MatmulArgs::A] = x;
  a.ptrs[MatmulArgs::Out] = y;
  a.ptrs[MatmulArgs::Sb] = scale;
  a.ptrs[MatmulArgs::Ws] = ws;
  a.ptrs[MatmulArgs::Cnt] = counters;
  a.ints[MatmulArgs::M] = M;
  a.ints[MatmulArgs::N] = N;
  a.ints[MatmulArgs::K] = K;
  a.ints[MatmulArgs::Batch] = 1;
  Timer t;
  int iters = quick ? 4 * copies : 8 * copies;
  double ms = t.time(copies, iters, s, [&](int i) {
    a.ptrs[MatmulArgs::B] = w[i % copies];
    launchMatmul(*k, a, s);
  });
  double bytes = double(wBytes) + 4.0 * scales + 2.0 * M * K + 2.0 * M * N;
  double gbps = bytes / (ms * 1e-3) / 1e9;

  // Check the last product against a double-precision reference.
  a.ptrs[MatmulArgs::B] = w[0];
  launchMatmul(*k, a, s);
  if (w4)
    refGemv4<<<ceilDiv(N, 256), 256, 0, s>>>(
        x, reinterpret_cast<const uint8_t *>(w[0]), scale, ref, N, K);
  else
    refGemv<<<ceilDiv(N, 256), 256, 0, s>>>(x, w[0], scale, ref, N, K);
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<__half> got(N);
  std::vector<float> want(N);
  CUDA_CHECK(cudaMemcpy(got.data(), y, N * 2, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(want.data(), ref, N * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int64_t n = 0; n < N; ++n) {
    double g = __half2float(got[n]), r = want[n];
    worst = std::max(worst, std::fabs(g - r) / (std::fabs(r) + 1e-2));
  }
  bool ok = worst < 1e-2;
  failures += !ok;
  double ratio = gbps / readGbps;
  std::printf("%s  %lldx%lld %s, f16 x, 1 GiB rotated %8.1f GB/s  "
              "%.2fx read-only (target >= 0.85: %s), %.2fx copy  %s (max rel "
              "err %.1e)  [%s, %.1f us]\n",
              label, (long long)K, (long long)N,
              w4 ? "i4 packed, g128" : "int8", gbps, ratio,
              verdict(ratio, 0.85),
              gbps / copyGbps, ok ? "check ok" : "CHECK FAILED", worst,
              k->name.c_str(), ms * 1e3);
  for (int8_t *p : w)
    cudaFree(p);
  cudaFree(x);
  cudaFree(y);
  cudaFree(scale);
  cudaFree(ref);
  cudaFree(ws);
  cudaFree(counters);
}

/// The weight-only product with many rows (M = N = K = 4096, f16
/// activations): octet's wgmma weight-only kernel of the gemv cubin against
/// cuBLASLt's f16 GEMM on the dequantized weights, checked against it.
void benchPrefill(const OctetModule &mod, cudaStream_t s, bool quick,
                  bool w4) {
  const char *label = w4 ? "prefill-w4a16" : "prefill-w8a16";
  const KernelInfo *k = mod.find("wgmma");
  if (!k) {
    std::printf("%s no wgmma weight-only kernel in the manifest\n", label);
    ++failures;
    return;
  }
  const int64_t M = 4096, N = 4096, K = 4096;
  const int64_t wBytes = w4 ? K * N / 2 : K * N;
  const int64_t scales = w4 ? (K / 128) * N : N;
  int8_t *w = deviceAlloc<int8_t>(wBytes);
  fillInt8<<<1024, 256, 0, s>>>(w, wBytes, 41);
  __half *x = deviceAlloc<__half>(M * K), *bt = deviceAlloc<__half>(N * K);
  __half *y = deviceAlloc<__half>(M * N), *ref = deviceAlloc<__half>(M * N);
  float *scale = deviceAlloc<float>(scales);
  fillHalf<<<1024, 256, 0, s>>>(x, M * K, 43);
  fillFloat<<<64, 256, 0, s>>>(scale, scales, 1e-3f, 2e-3f, 44);
  dequantT<<<1024, 256, 0, s>>>(w, scale, bt, N, K, w4);
  MatmulArgs a;
  a.ptrs[MatmulArgs::A] = x;
  a.ptrs[MatmulArgs::B] = w;
  a.ptrs[MatmulArgs::Out] = y;
  a.ptrs[MatmulArgs::Sb] = scale;
  a.ints[MatmulArgs::M] = M;
  a.ints[MatmulArgs::N] = N;
  a.ints[MatmulArgs::K] = K;
  a.ints[MatmulArgs::Batch] = 1;
  LtGemm lt(M, N, K, /*fp8=*/false, /*f16=*/true);
  Timer t;
  int iters = quick ? 5 : 20;
  double octetMs = t.time(2, iters, s, [&](int) { launchMatmul(*k, a, s); });
  double flop = 2.0 * M * N * K;
  double octetT = flop / (octetMs * 1e-3) / 1e12;
  double ltMs = 0;
  if (lt.error.empty())
    ltMs = t.time(2, iters, s, [&](int) { lt.run(x, bt, ref, s); });
  if (!lt.error.empty()) {
    ++failures;
    std::printf("%s %lld^3  octet %7.1f TFLOP/s  cuBLASLt FAILED (%s)  [%s]\n",
                label, (long long)M, octetT, lt.error.c_str(),
                k->name.c_str());
  } else {
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<__half> o(M * N), r(M * N);
    CUDA_CHECK(cudaMemcpy(o.data(), y, M * N * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r.data(), ref, M * N * 2, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int64_t i = 0; i < (1 << 16); ++i) {
      int64_t m = (i * 7919) % M, nn = (i * 104729 + i / 3) % N;
      double g = __half2float(o[m * N + nn]), want = __half2float(r[m + nn * M]);
      worst = std::max(worst, std::fabs(g - want) / (std::fabs(want) + 1e-1));
    }
    bool ok = worst < 2e-2;
    failures += !ok;
    double ltT = flop / (ltMs * 1e-3) / 1e12;
    std::printf("%s %lld^3  octet %7.1f TFLOP/s  cuBLASLt f16 on dequantized "
                "weights %7.1f  %.2fx  %s (max rel err %.1e)  [%s]\n",
                label, (long long)M, octetT, ltT, octetT / ltT,
                ok ? "check ok" : "CHECK FAILED", worst, k->name.c_str());
  }
  cudaFree(w);
  cudaFree(x);
  cudaFree(bt);
  cudaFree(y);
  cudaFree(ref);
  cudaFree(scale);
}

void benchGemm(const OctetModule &mod, const char *label, bool fp8, int64_t n,
               cudaStream_t s, bool quick) {
  const KernelInfo *k = mod.find("wgmma");
  if (!k)
    k = mod.find("mma_sync");
  if (!k) {
    std::printf("%s no tensor-core kernel in the manifest\n", label);
    ++failures;
    return;
  }
  const int64_t M = n, N = n, K = n;
  void *a = deviceAlloc<int8_t>(M * K), *b = deviceAlloc<int8_t>(N * K);
  if (fp8) {
    fillFp8<<<1024, 256, 0, s>>>(static_cast<__nv_fp8_e4m3 *>(a), M * K, 1);
    fillFp8<<<1024, 256, 0, s>>>(static_cast<__nv_fp8_e4m3 *>(b), N * K, 2);
  } else {
    fillInt8<<<1024, 256, 0, s>>>(static_cast<int8_t *>(a), M * K, 1);
    fillInt8<<<1024, 256, 0, s>>>(static_cast<int8_t *>(b), N * K, 2);
  }
  float *one = deviceAlloc<float>(2);
  fillFloat<<<1, 32, 0, s>>>(one, 2, 1.0f, 1.0f, 0);
  int64_t outBytes = fp8 ? 2 : 4;
  void *octetOut = deviceAlloc<char>(M * N * outBytes);
  void *ltOut = deviceAlloc<char>(M * N * outBytes);
  CUDA_CHECK(cudaStreamSynchronize(s));

  MatmulArgs args;
  args.ptrs[MatmulArgs::A] = a;
  args.ptrs[MatmulArgs::B] = b;
  args.ptrs[MatmulArgs::Out] = octetOut;
  args.ptrs[MatmulArgs::Sa] = one;
  args.ptrs[MatmulArgs::Sb] = one + 1;
  args.ints[MatmulArgs::M] = M;
  args.ints[MatmulArgs::N] = N;
  args.ints[MatmulArgs::K] = K;
  args.ints[MatmulArgs::Batch] = 1;
  LtGemm lt(M, N, K, fp8);

  Timer t;
  int iters = quick ? 5 : (n >= 8192 ? 10 : 30);
  double octetMs = t.time(2, iters, s, [&](int) { launchMatmul(*k, args, s); });
  double flop = 2.0 * M * N * K;
  double octetT = flop / (octetMs * 1e-3) / 1e12;
  double ltMs = 0;
  if (lt.error.empty())
    ltMs = t.time(2, iters, s, [&](int) { lt.run(a, b, ltOut, s); });
  if (!lt.error.empty()) {
    // The baseline failed: octet's row still prints, the failure is named
    // and counted.
    ++failures;
    std::printf("%s %5lld^3  octet %7.1f TFLOP/s  cuBLASLt FAILED (%s): no "
                "ratio, no check  [%s, %s]\n",
                label, (long long)n, octetT, lt.error.c_str(),
                k->name.c_str(), fp8 ? "e4m3->bf16" : "s8->f32");
    cudaFree(a);
    cudaFree(b);
    cudaFree(one);
    cudaFree(octetOut);
    cudaFree(ltOut);
    return;
  }
  double ltT = flop / (ltMs * 1e-3) / 1e12;

  // octet writes row-major [M x N]; cuBLASLt column-major [M x N].
  CUDA_CHECK(cudaStreamSynchronize(s));
  int64_t samples = 1 << 16;
  double worst = 0;
  int64_t mismatches = 0;
  std::vector<char> o(M * N * outBytes), r(M * N * outBytes);
  CUDA_CHECK(cudaMemcpy(o.data(), octetOut, o.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(r.data(), ltOut, r.size(), cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < samples; ++i) {
    int64_t m = (i * 7919) % M, nn = (i * 104729 + i / 3) % N;
    if (fp8) {
      float g = __bfloat162float(
          reinterpret_cast<const __nv_bfloat16 *>(o.data())[m * N + nn]);
      float w = __bfloat162float(
          reinterpret_cast<const __nv_bfloat16 *>(r.data())[m + nn * M]);
      worst = std::max<double>(worst, std::fabs(g - w) / (std::fabs(w) + 1.0));
    } else {
      float g = reinterpret_cast<const float *>(o.data())[m * N + nn];
      int32_t w = reinterpret_cast<const int32_t *>(r.data())[m + nn * M];
      mismatches += g != static_cast<float>(w);
    }
  }
  bool ok = fp8 ? worst < 2e-2 : mismatches == 0;
  failures += !ok;
  double ratio = octetT / ltT;
  char check[96];
  if (fp8)
    std::snprintf(check, sizeof(check), "%s (max rel err %.1e)",
                  ok ? "check ok" : "CHECK FAILED", worst);
  else
    std::snprintf(check, sizeof(check), "%s (%lld of %lld differ)",
                  ok ? "bit-exact" : "CHECK FAILED", (long long)mismatches,
                  (long long)samples);
  std::printf("%s %5lld^3  octet %7.1f TFLOP/s  cuBLASLt %7.1f  %.2fx "
              "(target >= 0.80: %s)  %s  [%s, %s]\n",
              label, (long long)n, octetT, ltT, ratio, verdict(ratio, 0.8),
              check, k->name.c_str(), fp8 ? "e4m3->bf16" : "s8->f32");
  cudaFree(a);
  cudaFree(b);
  cudaFree(one);
  cudaFree(octetOut);
  cudaFree(ltOut);
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = ".";
  bool quick = false;
  std::vector<int64_t> sizes = {4096, 8192};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--kernels" && i + 1 < argc)
      dir = argv[++i];
    else if (arg == "--quick")
      quick = true;
    else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::stringstream ss(argv[++i]);
      std::string item;
      while (std::getline(ss, item, ','))
        sizes.push_back(std::atoll(item.c_str()));
    } else {
      std::fprintf(stderr,
                   "usage: %s --kernels DIR [--quick] [--sizes 4096,8192]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!octet_cuda_available()) {
    std::fprintf(stderr, "octet-gpu-bench: %s\n", octet_cuda_last_error());
    return 3;
  }
  char name[256] = "";
  int32_t major = 0, minor = 0, sms = 0;
  OCTET_CHECK(octet_cuda_device_info(name, sizeof(name), &major, &minor, &sms));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device      %s, sm_%d%d, %d SMs, L2 %.0f MiB, %.0f GiB\n", name,
              major, minor, sms, prop.l2CacheSize / 1048576.0,
              prop.totalGlobalMem / 1073741824.0);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  double copy = benchCopy(s, quick);
  double read = benchRead(s, quick, sms);
  OctetModule gemv, gemv4, fp8, fp8Wide, int8;
  std::string arch = major == 9 ? "sm90a" : "sm" + std::to_string(major) +
                                                std::to_string(minor);
  if (loadModule(dir + "/gemv_w8a16_" + arch + ".cubin", gemv)) {
    benchGemv(gemv, s, copy, read, quick, /*w4=*/false);
    benchPrefill(gemv, s, quick, /*w4=*/false);
  } else
    std::printf("gemv-w8a16  no cubin for %s in %s\n", arch.c_str(),
                dir.c_str());
  if (loadModule(dir + "/gemv_w4a16_" + arch + ".cubin", gemv4)) {
    benchGemv(gemv4, s, copy, read, quick, /*w4=*/true);
    benchPrefill(gemv4, s, quick, /*w4=*/true);
  } else
    std::printf("gemv-w4a16  no cubin for %s in %s\n", arch.c_str(),
                dir.c_str());
  bool haveFp8 = loadModule(dir + "/gemm_fp8_" + arch + ".cubin", fp8);
  bool haveFp8Wide =
      loadModule(dir + "/gemm_fp8_n256_" + arch + ".cubin", fp8Wide);
  bool haveInt8 = loadModule(dir + "/gemm_int8_" + arch + ".cubin", int8);
  for (int64_t n : sizes) {
    if (haveFp8)
      benchGemm(fp8, "gemm-fp8   ", true, n, s, quick);
    if (haveFp8Wide)
      benchGemm(fp8Wide, "gemm-fp8-n256", true, n, s, quick);
    if (haveInt8)
      benchGemm(int8, "gemm-int8  ", false, n, s, quick);
  }
  if (!haveFp8 || !haveInt8)
    std::printf("gemm        missing cubins for %s in %s\n", arch.c_str(),
                dir.c_str());
  cudaStreamDestroy(s);
  std::printf("bench: %s\n", failures ? "CHECKS FAILED" : "all checks ok");
  return failures ? 1 : 0;
}
