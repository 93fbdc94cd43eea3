//===- CudaRuntime.cpp - CUDA driver API loaded at run time ---------------===//
//
// The CUDA part of liboctet_runtime: the driver API (libcuda.so.1) is loaded
// with dlopen on first use, so the runtime links and every CPU-only use runs
// on machines without a GPU or driver. Two interfaces sit on top:
//
//  - octet_cuda_*: the C ABI of OctetRuntime.h (module load, memory, launch,
//    streams, events). Every function returns 0 or an error code and leaves
//    a message with the CUDA error name for octet_cuda_last_error().
//  - octet_mgpu*: the calls that MLIR's gpu-to-llvm lowering and the
//    gpu.binary translation emit (mgpuModuleLoad, mgpuLaunchKernel, ...),
//    renamed with the octet_ prefix by octet-compile. They cannot return
//    errors to generated code, so a failure prints the CUDA error and exits
//    with status 69 (EX_UNAVAILABLE). Module loading is lazy: generated
//    libraries register their cubin in a constructor, and a library loaded
//    on a machine without a GPU fails only when it launches a kernel.
//
// No CUDA header is needed to build this file: the handful of driver types
// and entry points used are declared here.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/OctetRuntime.h"

#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace {

// Driver API types (cuda.h): handles are opaque pointers, results ints.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmemoryPool = struct CUmemPoolHandle_st *;

constexpr CUresult kSuccess = 0;
constexpr int kStreamNonBlocking = 0x1;          // CU_STREAM_NON_BLOCKING
constexpr int kEventDefault = 0x0;               // CU_EVENT_DEFAULT
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_...
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kFuncAttrMaxDynamicSharedBytes = 8; // CU_FUNC_ATTRIBUTE_...
constexpr int kAttrMemoryPoolsSupported = 115;    // CU_DEVICE_ATTRIBUTE_...
constexpr int kPoolAttrReleaseThreshold = 4;      // CU_MEMPOOL_ATTR_RELEASE_...

/// The driver entry points, by their exported (versioned) names.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  // Optional (CUDA 11.2 and later): the stream-ordered allocator.
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
};

/// The message of the last failure in this thread.
thread_local char lastError[512] = "";

void setError(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(lastError, sizeof(lastError), format, args);
  va_end(args);
}

/// The loaded driver and the primary context of device 0, or why there is
/// none. Initialized once, on first use.
struct State {
  Driver driver{};
  bool ok = false;
  CUresult initResult = -1;
  char why[384] = "";
  CUcontext context = nullptr;
  CUdevice device = 0;
  /// Generated code allocates from the device's default memory pool, in
  /// stream order (cuMemAllocAsync / cuMemFreeAsync), and the pool keeps
  /// what is freed for the next allocation. Off when the driver or device
  /// lacks it, or with OCTET_CUDA_ALLOCATOR=sync.
  bool streamOrderedAlloc = false;
};

/// The names of the CUresult codes most likely here (cuda.h), for drivers
/// whose cuGetErrorName cannot answer: the toolkit's stub libcuda.so, which
/// containers without a GPU often have, fails every call with
/// CUDA_ERROR_STUB_LIBRARY, cuGetErrorName included.
const char *knownErrorName(CUresult result) {
  switch (result) {
  case 1: return "CUDA_ERROR_INVALID_VALUE";
  case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
  case 3: return "CUDA_ERROR_NOT_INITIALIZED";
  case 4: return "CUDA_ERROR_DEINITIALIZED";
  case 34: return "CUDA_ERROR_STUB_LIBRARY";
  case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 36: return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
  case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
  case 100: return "CUDA_ERROR_NO_DEVICE";
  case 101: return "CUDA_ERROR_INVALID_DEVICE";
  case 200: return "CUDA_ERROR_INVALID_IMAGE";
  case 201: return "CUDA_ERROR_INVALID_CONTEXT";
  case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case 218: return "CUDA_ERROR_INVALID_PTX";
  case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case 400: return "CUDA_ERROR_INVALID_HANDLE";
  case 500: return "CUDA_ERROR_NOT_FOUND";
  case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
  case 702: return "CUDA_ERROR_LAUNCH_TIMEOUT";
  case 715: return "CUDA_ERROR_ILLEGAL_INSTRUCTION";
  case 716: return "CUDA_ERROR_MISALIGNED_ADDRESS";
  case 719: return "CUDA_ERROR_LAUNCH_FAILED";
  case 801: return "CUDA_ERROR_NOT_SUPPORTED";
  case 999: return "CUDA_ERROR_UNKNOWN";
  }
  return nullptr;
}

/// The CUDA error name and description of `result`: "NAME (description)",
/// or "NAME (error N)" where the driver has no description for it.
void describe(const State &s, CUresult result, char *out, size_t size) {
  const char *name = nullptr, *text = nullptr;
  if (!s.driver.cuGetErrorName ||
      s.driver.cuGetErrorName(result, &name) != kSuccess)
    name = nullptr;
  if (!s.driver.cuGetErrorString ||
      s.driver.cuGetErrorString(result, &text) != kSuccess)
    text = nullptr;
  if (!name)
    name = knownErrorName(result);
  if (name && text)
    std::snprintf(out, size, "%s (%s)", name, text);
  else if (name)
    std::snprintf(out, size, "%s (error %d)", name, result);
  else
    std::snprintf(out, size, "CUDA error %d (%s)", result,
                  text ? text : "no description");
}

State &state() {
  static State s;
  static std::once_flag once;
  std::call_once(once, [] {
    // OCTET_CUDA_DRIVER overrides the library (tests point it at a file that
    // is not a driver to exercise the failure path).
    const char *path = std::getenv("OCTET_CUDA_DRIVER");
    if (!path || !*path)
      path = "libcuda.so.1";
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *err = dlerror();
      std::snprintf(s.why, sizeof(s.why),
                    "no CUDA driver: %s cannot be loaded (%s); this needs an "
                    "NVIDIA GPU with its driver installed",
                    path, err ? err : "unknown reason");
      return;
    }
    bool missing = false;
    const char *missingName = "";
    auto load = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      if (!fn && !missing) {
        missing = true;
        missingName = name;
      }
    };
    Driver &d = s.driver;
    load(d.cuInit, "cuInit");
    load(d.cuGetErrorName, "cuGetErrorName");
    load(d.cuGetErrorString, "cuGetErrorString");
    load(d.cuDeviceGetCount, "cuDeviceGetCount");
    load(d.cuDeviceGet, "cuDeviceGet");
    load(d.cuDeviceGetName, "cuDeviceGetName");
    load(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    load(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    load(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    load(d.cuCtxSynchronize, "cuCtxSynchronize");
    load(d.cuModuleLoadData, "cuModuleLoadData");
    load(d.cuModuleUnload, "cuModuleUnload");
    load(d.cuModuleGetFunction, "cuModuleGetFunction");
    load(d.cuFuncSetAttribute, "cuFuncSetAttribute");
    load(d.cuLaunchKernel, "cuLaunchKernel");
    load(d.cuMemAlloc, "cuMemAlloc_v2");
    load(d.cuMemFree, "cuMemFree_v2");
    load(d.cuMemcpyAsync, "cuMemcpyAsync");
    load(d.cuMemsetD8Async, "cuMemsetD8Async");
    load(d.cuMemsetD16Async, "cuMemsetD16Async");
    load(d.cuMemsetD32Async, "cuMemsetD32Async");
    load(d.cuStreamCreate, "cuStreamCreate");
    load(d.cuStreamDestroy, "cuStreamDestroy_v2");
    load(d.cuStreamSynchronize, "cuStreamSynchronize");
    load(d.cuStreamWaitEvent, "cuStreamWaitEvent");
    load(d.cuEventCreate, "cuEventCreate");
    load(d.cuEventDestroy, "cuEventDestroy_v2");
    load(d.cuEventRecord, "cuEventRecord");
    load(d.cuEventSynchronize, "cuEventSynchronize");
    load(d.cuEventElapsedTime, "cuEventElapsedTime");
    bool hasPools = !missing;
    auto loadOptional = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      hasPools = hasPools && fn;
    };
    loadOptional(d.cuMemAllocAsync, "cuMemAllocAsync");
    loadOptional(d.cuMemFreeAsync, "cuMemFreeAsync");
    loadOptional(d.cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool");
    loadOptional(d.cuMemPoolSetAttribute, "cuMemPoolSetAttribute");
    if (missing) {
      std::snprintf(s.why, sizeof(s.why),
                    "%s is not a usable CUDA driver: it lacks %s", path,
                    missingName);
      return;
    }
    char text[256];
    CUresult r = d.cuInit(0);
    s.initResult = r;
    if (r != kSuccess) {
      describe(s, r, text, sizeof(text));
      std::snprintf(s.why, sizeof(s.why), "cuInit failed: %s", text);
      return;
    }
    int count = 0;
    r = d.cuDeviceGetCount(&count);
    if (r != kSuccess || count == 0) {
      if (r != kSuccess)
        describe(s, r, text, sizeof(text));
      std::snprintf(s.why, sizeof(s.why), "no CUDA device%s%s",
                    r != kSuccess ? ": " : "", r != kSuccess ? text : "");
      return;
    }
    const char *ordinal = std::getenv("OCTET_CUDA_DEVICE");
    int index = ordinal ? std::atoi(ordinal) : 0;
    if ((r = d.cuDeviceGet(&s.device, index)) != kSuccess ||
        (r = d.cuDevicePrimaryCtxRetain(&s.context, s.device)) != kSuccess) {
      describe(s, r, text, sizeof(text));
      std::snprintf(s.why, sizeof(s.why),
                    "cannot use CUDA device %d: %s", index, text);
      return;
    }
    s.ok = true;
    // The stream-ordered allocator, with a pool that keeps freed memory
    // (release threshold: everything) so that every op's buffers are
    // reused instead of returned to the driver.
    const char *allocator = std::getenv("OCTET_CUDA_ALLOCATOR");
    int pools = 0;
    CUmemoryPool pool = nullptr;
    unsigned long long keepAll = ~0ull;
    if (hasPools && !(allocator && std::strcmp(allocator, "sync") == 0) &&
        d.cuDeviceGetAttribute(&pools, kAttrMemoryPoolsSupported, s.device) ==
            kSuccess &&
        pools && d.cuDeviceGetDefaultMemPool(&pool, s.device) == kSuccess &&
        d.cuMemPoolSetAttribute(pool, kPoolAttrReleaseThreshold, &keepAll) ==
            kSuccess)
      s.streamOrderedAlloc = true;
  });
  return s;
}

/// Makes the primary context current in this thread. Returns 0 or -1 (no
/// driver/device; the message is set).
int32_t ready() {
  State &s = state();
  if (!s.ok) {
    setError("%s", s.why);
    return -1;
  }
  CUresult r = s.driver.cuCtxSetCurrent(s.context);
  if (r != kSuccess) {
    char text[256];
    describe(s, r, text, sizeof(text));
    setError("cuCtxSetCurrent failed: %s", text);
    return r;
  }
  return 0;
}

/// Records a failed call (`what` names it) and returns its code.
int32_t check(CUresult r, const char *what) {
  if (r == kSuccess)
    return 0;
  char text[256];
  describe(state(), r, text, sizeof(text));
  setError("%s failed: %s", what, text);
  return r;
}

#define OCTET_CUDA_CALL(expr)                                                  \
  do {                                                                         \
    if (int32_t rc_ = check((expr), #expr))                                    \
      return rc_;                                                              \
  } while (false)

const Driver &drv() { return state().driver; }

/// Generated code cannot handle errors: report and exit.
[[noreturn]] void fatal(const char *what) {
  std::fprintf(stderr, "octet: CUDA: %s: %s\n", what, lastError);
  std::fflush(stderr);
  std::exit(69);
}

void mustSucceed(int32_t rc, const char *what) {
  if (rc != 0)
    fatal(what);
}

/// A module of generated code: the image registered at load time and, once
/// a kernel is first looked up, the loaded CUmodule.
struct LazyModule {
  const void *image;
  CUmodule module;
  std::mutex mutex;
};

} // namespace

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

extern "C" {

const char *octet_cuda_last_error(void) { return lastError; }

int32_t octet_cuda_available(void) { return ready() == 0 ? 1 : 0; }

int32_t octet_cuda_device_info(char *name, int64_t name_size, int32_t *cc_major,
                               int32_t *cc_minor, int32_t *sm_count) {
  if (int32_t rc = ready())
    return rc;
  const State &s = state();
  if (name && name_size > 0)
    OCTET_CUDA_CALL(drv().cuDeviceGetName(
        name, static_cast<int>(name_size > 1 << 20 ? 1 << 20 : name_size),
        s.device));
  int v = 0;
  if (cc_major) {
    OCTET_CUDA_CALL(
        drv().cuDeviceGetAttribute(&v, kAttrComputeCapabilityMajor, s.device));
    *cc_major = v;
  }
  if (cc_minor) {
    OCTET_CUDA_CALL(
        drv().cuDeviceGetAttribute(&v, kAttrComputeCapabilityMinor, s.device));
    *cc_minor = v;
  }
  if (sm_count) {
    OCTET_CUDA_CALL(
        drv().cuDeviceGetAttribute(&v, kAttrMultiprocessorCount, s.device));
    *sm_count = v;
  }
  return 0;
}

int32_t octet_cuda_module_load(const void *image, void **module) {
  if (int32_t rc = ready())
    return rc;
  CUmodule m = nullptr;
  OCTET_CUDA_CALL(drv().cuModuleLoadData(&m, image));
  *module = m;
  return 0;
}

int32_t octet_cuda_module_unload(void *module) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuModuleUnload(static_cast<CUmodule>(module)));
  return 0;
}

int32_t octet_cuda_module_get_function(void *module, const char *name,
                                       void **function) {
  if (int32_t rc = ready())
    return rc;
  CUfunction f = nullptr;
  if (CUresult r = drv().cuModuleGetFunction(&f, static_cast<CUmodule>(module),
                                             name)) {
    check(r, "cuModuleGetFunction");
    // lastError is both the message and the destination: copy it first.
    char message[sizeof(lastError)];
    std::snprintf(message, sizeof(message), "%s", lastError);
    setError("%s (kernel '%s')", message, name);
    return r;
  }
  *function = f;
  return 0;
}

int32_t octet_cuda_launch(void *function, const uint32_t grid[3],
                          const uint32_t block[3], uint32_t shared_bytes,
                          void *stream, void **params) {
  if (int32_t rc = ready())
    return rc;
  auto f = static_cast<CUfunction>(function);
  // Above 48 KiB a kernel must opt in to dynamic shared memory.
  if (shared_bytes > 48 * 1024)
    OCTET_CUDA_CALL(drv().cuFuncSetAttribute(
        f, kFuncAttrMaxDynamicSharedBytes, static_cast<int>(shared_bytes)));
  OCTET_CUDA_CALL(drv().cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0],
                                       block[1], block[2], shared_bytes,
                                       static_cast<CUstream>(stream), params,
                                       nullptr));
  return 0;
}

int32_t octet_cuda_malloc(int64_t bytes, void **ptr) {
  if (int32_t rc = ready())
    return rc;
  CUdeviceptr p = 0;
  OCTET_CUDA_CALL(
      drv().cuMemAlloc(&p, static_cast<size_t>(bytes > 0 ? bytes : 1)));
  *ptr = reinterpret_cast<void *>(p);
  return 0;
}

int32_t octet_cuda_free(void *ptr) {
  if (!ptr)
    return 0;
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
  return 0;
}

int32_t octet_cuda_free_async(void *ptr, void *stream) {
  if (!ptr)
    return 0;
  if (int32_t rc = ready())
    return rc;
  if (stream && state().streamOrderedAlloc) {
    // Back to the pool once the stream's queued work is done.
    OCTET_CUDA_CALL(drv().cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(ptr),
                                         static_cast<CUstream>(stream)));
    return 0;
  }
  // Stream-ordered semantics: the buffer may still be in use by queued work.
  if (stream)
    if (int32_t rc = octet_cuda_stream_synchronize(stream))
      return rc;
  return octet_cuda_free(ptr);
}

int32_t octet_cuda_memcpy(void *dst, const void *src, int64_t bytes,
                          void *stream) {
  if (bytes <= 0)
    return 0;
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuMemcpyAsync(
      reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src),
      static_cast<size_t>(bytes), static_cast<CUstream>(stream)));
  if (!stream)
    OCTET_CUDA_CALL(drv().cuStreamSynchronize(nullptr));
  return 0;
}

int32_t octet_cuda_memset(void *dst, int32_t value, int64_t bytes,
                          void *stream) {
  if (bytes <= 0)
    return 0;
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuMemsetD8Async(
      reinterpret_cast<CUdeviceptr>(dst), static_cast<unsigned char>(value),
      static_cast<size_t>(bytes), static_cast<CUstream>(stream)));
  return 0;
}

int32_t octet_cuda_stream_create(void **stream) {
  if (int32_t rc = ready())
    return rc;
  CUstream s = nullptr;
  OCTET_CUDA_CALL(drv().cuStreamCreate(&s, kStreamNonBlocking));
  *stream = s;
  return 0;
}

int32_t octet_cuda_stream_destroy(void *stream) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuStreamDestroy(static_cast<CUstream>(stream)));
  return 0;
}

int32_t octet_cuda_stream_synchronize(void *stream) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuStreamSynchronize(static_cast<CUstream>(stream)));
  return 0;
}

int32_t octet_cuda_synchronize(void) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuCtxSynchronize());
  return 0;
}

int32_t octet_cuda_event_create(void **event) {
  if (int32_t rc = ready())
    return rc;
  CUevent e = nullptr;
  OCTET_CUDA_CALL(drv().cuEventCreate(&e, kEventDefault));
  *event = e;
  return 0;
}

int32_t octet_cuda_event_destroy(void *event) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuEventDestroy(static_cast<CUevent>(event)));
  return 0;
}

int32_t octet_cuda_event_record(void *event, void *stream) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuEventRecord(static_cast<CUevent>(event),
                                      static_cast<CUstream>(stream)));
  return 0;
}

int32_t octet_cuda_event_elapsed_ms(void *start, void *end, float *ms) {
  if (int32_t rc = ready())
    return rc;
  OCTET_CUDA_CALL(drv().cuEventSynchronize(static_cast<CUevent>(end)));
  OCTET_CUDA_CALL(drv().cuEventElapsedTime(ms, static_cast<CUevent>(start),
                                           static_cast<CUevent>(end)));
  return 0;
}

//===----------------------------------------------------------------------===//
// The mgpu* ABI of MLIR's GPU lowering (octet-compile renames the calls to
// octet_mgpu*). Signatures as emitted by MLIR 22's gpu-to-llvm and the
// gpu.binary translation.
//===----------------------------------------------------------------------===//

OCTET_RUNTIME_EXPORT void *octet_mgpuModuleLoad(void *data,
                                                int64_t /*size*/) {
  // Called from a constructor when the library is loaded: only remember the
  // image, so that loading the library needs no GPU.
  auto *m = new LazyModule;
  m->image = data;
  m->module = nullptr;
  return m;
}

/// PTX images (gpu-module-to-binary format=isa): the driver compiles them
/// when the module is first used.
OCTET_RUNTIME_EXPORT void *octet_mgpuModuleLoadJIT(void *data,
                                                   int32_t /*optLevel*/) {
  return octet_mgpuModuleLoad(data, 0);
}

OCTET_RUNTIME_EXPORT void octet_mgpuModuleUnload(void *module) {
  auto *m = static_cast<LazyModule *>(module);
  if (!m)
    return;
  // At exit the driver may already be shutting down; unloading is best
  // effort and never fatal.
  if (m->module && state().ok)
    drv().cuModuleUnload(m->module);
  delete m;
}

OCTET_RUNTIME_EXPORT void *octet_mgpuModuleGetFunction(void *module,
                                                       const char *name) {
  auto *m = static_cast<LazyModule *>(module);
  {
    std::lock_guard<std::mutex> lock(m->mutex);
    if (!m->module) {
      void *loaded = nullptr;
      mustSucceed(octet_cuda_module_load(m->image, &loaded),
                  "loading the kernels");
      m->module = static_cast<CUmodule>(loaded);
    }
  }
  void *f = nullptr;
  mustSucceed(octet_cuda_module_get_function(m->module, name, &f),
              "finding a kernel");
  return f;
}

OCTET_RUNTIME_EXPORT void
octet_mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                       intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                       intptr_t blockZ, int32_t smem, void *stream,
                       void **params, void ** /*extra*/,
                       int64_t /*paramsCount*/) {
  const uint32_t grid[3] = {static_cast<uint32_t>(gridX),
                            static_cast<uint32_t>(gridY),
                            static_cast<uint32_t>(gridZ)};
  const uint32_t block[3] = {static_cast<uint32_t>(blockX),
                             static_cast<uint32_t>(blockY),
                             static_cast<uint32_t>(blockZ)};
  // An empty grid (a zero-sized tensor) launches nothing.
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return;
  mustSucceed(octet_cuda_launch(function, grid, block,
                                static_cast<uint32_t>(smem), stream, params),
              "launching a kernel");
}

// Generated code creates a stream per op and destroys it at the op's end;
// each thread gets one stream, created at its first request and kept (until
// the process exits), and the "destroy" of that stream keeps it.
namespace {
thread_local void *threadStream = nullptr;
/// The stream set by octet_cuda_set_stream (not owned), if any.
thread_local void *userStream = nullptr;
} // namespace

OCTET_RUNTIME_EXPORT void octet_cuda_set_stream(void *stream) {
  userStream = stream;
}

OCTET_RUNTIME_EXPORT void *octet_mgpuStreamCreate(void) {
  if (userStream)
    return userStream;
  if (!threadStream)
    mustSucceed(octet_cuda_stream_create(&threadStream), "creating a stream");
  return threadStream;
}

OCTET_RUNTIME_EXPORT void octet_mgpuStreamDestroy(void *stream) {
  if (stream == threadStream || stream == userStream)
    return;
  mustSucceed(octet_cuda_stream_destroy(stream), "destroying a stream");
}

OCTET_RUNTIME_EXPORT void octet_mgpuStreamSynchronize(void *stream) {
  mustSucceed(octet_cuda_stream_synchronize(stream),
              "waiting for the GPU (a kernel failed)");
}

OCTET_RUNTIME_EXPORT void octet_mgpuStreamWaitEvent(void *stream,
                                                    void *event) {
  mustSucceed(ready(), "waiting for an event");
  if (check(drv().cuStreamWaitEvent(static_cast<CUstream>(stream),
                                    static_cast<CUevent>(event), 0),
            "cuStreamWaitEvent"))
    fatal("waiting for an event");
}

OCTET_RUNTIME_EXPORT void *octet_mgpuEventCreate(void) {
  void *e = nullptr;
  mustSucceed(octet_cuda_event_create(&e), "creating an event");
  return e;
}

OCTET_RUNTIME_EXPORT void octet_mgpuEventDestroy(void *event) {
  mustSucceed(octet_cuda_event_destroy(event), "destroying an event");
}

OCTET_RUNTIME_EXPORT void octet_mgpuEventSynchronize(void *event) {
  mustSucceed(ready(), "waiting for an event");
  if (check(drv().cuEventSynchronize(static_cast<CUevent>(event)),
            "cuEventSynchronize"))
    fatal("waiting for an event");
}

OCTET_RUNTIME_EXPORT void octet_mgpuEventRecord(void *event, void *stream) {
  mustSucceed(octet_cuda_event_record(event, stream), "recording an event");
}

OCTET_RUNTIME_EXPORT void *octet_mgpuMemAlloc(uint64_t bytes, void *stream,
                                              bool /*isHostShared*/) {
  void *p = nullptr;
  if (stream && state().streamOrderedAlloc) {
    // From the pool, in stream order: no device-wide synchronization.
    mustSucceed(ready(), "allocating device memory");
    CUdeviceptr d = 0;
    if (check(drv().cuMemAllocAsync(&d, bytes > 0 ? bytes : 1,
                                    static_cast<CUstream>(stream)),
              "cuMemAllocAsync"))
      fatal("allocating device memory");
    return reinterpret_cast<void *>(d);
  }
  mustSucceed(octet_cuda_malloc(static_cast<int64_t>(bytes), &p),
              "allocating device memory");
  return p;
}

OCTET_RUNTIME_EXPORT void octet_mgpuMemFree(void *ptr, void *stream) {
  mustSucceed(octet_cuda_free_async(ptr, stream), "freeing device memory");
}

OCTET_RUNTIME_EXPORT void octet_mgpuMemcpy(void *dst, void *src, size_t bytes,
                                           void *stream) {
  mustSucceed(octet_cuda_memcpy(dst, src, static_cast<int64_t>(bytes), stream),
              "copying memory");
}

OCTET_RUNTIME_EXPORT void octet_mgpuMemset32(void *dst, unsigned value,
                                             size_t count, void *stream) {
  mustSucceed(ready(), "setting memory");
  if (check(drv().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                   count, static_cast<CUstream>(stream)),
            "cuMemsetD32Async"))
    fatal("setting memory");
}

OCTET_RUNTIME_EXPORT void octet_mgpuMemset16(void *dst, unsigned short value,
                                             size_t count, void *stream) {
  mustSucceed(ready(), "setting memory");
  if (check(drv().cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                   count, static_cast<CUstream>(stream)),
            "cuMemsetD16Async"))
    fatal("setting memory");
}

OCTET_RUNTIME_EXPORT void octet_mgpuSetDefaultDevice(int32_t device) {
  // The device is chosen once, at first use (OCTET_CUDA_DEVICE); a later
  // request for another one is an error rather than silently ignored.
  if (device != 0 && !std::getenv("OCTET_CUDA_DEVICE")) {
    setError("device %d requested; set OCTET_CUDA_DEVICE=%d before the first "
             "CUDA call",
             device, device);
    fatal("selecting a device");
  }
}

} // extern "C"
