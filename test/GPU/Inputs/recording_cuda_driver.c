/* A fake libcuda.so that records what the runtime asks of the driver
   (runtime-recording-driver.test): one "device" of compute capability 9.0
   whose memory is host memory (malloc), copies done with memcpy and told
   apart by the blocks the fake handed out, kernels launched as no-ops (so
   results are garbage: only the host side of a compiled library runs).
   fake_cuda_stats() gives the counters, fake_cuda_last_launch_stream() the
   stream of the last launch; FAKE_CUDA_NO_POOLS=1 reports a
   device without the stream-ordered allocator. Single-threaded use only. */
#include <stdlib.h>
#include <string.h>

enum {
  kStreamCreate, kStreamDestroy, kMemAlloc, kMemFree, kMemAllocAsync,
  kMemFreeAsync, kUploads, kUploadBytes, kDownloads, kDownloadBytes,
  kLaunches, kLiveBlocks, kStreamSyncs, kCounters
};
static long long counters[kCounters];

void fake_cuda_stats(long long out[kCounters]) {
  memcpy(out, counters, sizeof(counters));
}

/* The stream of the last kernel launch. */
static void *lastLaunchStream;
void *fake_cuda_last_launch_stream(void) { return lastLaunchStream; }

/* The blocks handed out, to tell device pointers from host ones. */
static struct { char *p; size_t n; } blocks[4096];
static int nblocks;

static int isDevice(unsigned long long a) {
  for (int i = 0; i < nblocks; ++i)
    if (a >= (unsigned long long)blocks[i].p &&
        a < (unsigned long long)blocks[i].p + blocks[i].n)
      return 1;
  return 0;
}

static int allocate(unsigned long long *d, size_t n) {
  if (nblocks == 4096)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  char *p = malloc(n ? n : 1);
  blocks[nblocks].p = p, blocks[nblocks].n = n ? n : 1;
  ++nblocks;
  ++counters[kLiveBlocks];
  *d = (unsigned long long)p;
  return 0;
}

static int release(unsigned long long d) {
  for (int i = 0; i < nblocks; ++i)
    if ((unsigned long long)blocks[i].p == d) {
      free(blocks[i].p);
      blocks[i] = blocks[--nblocks];
      --counters[kLiveBlocks];
      return 0;
    }
  return 1; /* CUDA_ERROR_INVALID_VALUE */
}

static int dummy;
int cuInit(unsigned f) { (void)f; return 0; }
int cuGetErrorName(int r, const char **s) { (void)r; *s = "CUDA_ERROR_FAKE"; return 0; }
int cuGetErrorString(int r, const char **s) { (void)r; *s = "fake driver"; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { (void)i; *d = 0; return 0; }
int cuDeviceGetName(char *b, int n, int d) { (void)d; strncpy(b, "Fake H200", n); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) {
  (void)d;
  const char *noPools = getenv("FAKE_CUDA_NO_POOLS");
  *v = a == 75 ? 9 : a == 16 ? 132 : a == 115 ? !(noPools && *noPools == '1') : 0;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &dummy; return 0; }
int cuCtxSetCurrent(void *c) { (void)c; return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuModuleLoadData(void **m, const void *img) { (void)img; *m = &dummy; return 0; }
int cuModuleUnload(void *m) { (void)m; return 0; }
int cuModuleGetFunction(void **f, void *m, const char *n) { (void)m; (void)n; *f = &dummy; return 0; }
int cuFuncSetAttribute(void *f, int a, int v) { (void)f; (void)a; (void)v; return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned smem, void *s,
                   void **params, void **extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz;
  (void)smem, (void)params, (void)extra;
  ++counters[kLaunches];
  lastLaunchStream = s;
  return 0;
}
int cuMemAlloc_v2(unsigned long long *d, size_t n) { ++counters[kMemAlloc]; return allocate(d, n); }
int cuMemFree_v2(unsigned long long d) { ++counters[kMemFree]; return release(d); }
int cuMemAllocAsync(unsigned long long *d, size_t n, void *s) { (void)s; ++counters[kMemAllocAsync]; return allocate(d, n); }
int cuMemFreeAsync(unsigned long long d, void *s) { (void)s; ++counters[kMemFreeAsync]; return release(d); }
int cuDeviceGetDefaultMemPool(void **p, int d) { (void)d; *p = &dummy; return 0; }
int cuMemPoolSetAttribute(void *p, int a, void *v) { (void)p; (void)a; (void)v; return 0; }
int cuMemcpyAsync(unsigned long long dst, unsigned long long src, size_t n, void *s) {
  (void)s;
  int toDevice = isDevice(dst), fromDevice = isDevice(src);
  if (toDevice && !fromDevice) ++counters[kUploads], counters[kUploadBytes] += n;
  if (fromDevice && !toDevice) ++counters[kDownloads], counters[kDownloadBytes] += n;
  memcpy((void *)dst, (const void *)src, n);
  return 0;
}
int cuMemsetD8Async(unsigned long long d, unsigned char v, size_t n, void *s) { (void)s; memset((void *)d, v, n); return 0; }
int cuMemsetD16Async(unsigned long long d, unsigned short v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; ++i) ((unsigned short *)d)[i] = v;
  return 0;
}
int cuMemsetD32Async(unsigned long long d, unsigned v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; ++i) ((unsigned *)d)[i] = v;
  return 0;
}
int cuStreamCreate(void **s, unsigned f) { (void)f; ++counters[kStreamCreate]; *s = malloc(1); return 0; }
int cuStreamDestroy_v2(void *s) { ++counters[kStreamDestroy]; free(s); return 0; }
int cuStreamSynchronize(void *s) { (void)s; ++counters[kStreamSyncs]; return 0; }
int cuStreamWaitEvent(void *s, void *e, unsigned f) { (void)s; (void)e; (void)f; return 0; }
int cuEventCreate(void **e, unsigned f) { (void)f; *e = &dummy; return 0; }
int cuEventDestroy_v2(void *e) { (void)e; return 0; }
int cuEventRecord(void *e, void *s) { (void)e; (void)s; return 0; }
int cuEventSynchronize(void *e) { (void)e; return 0; }
int cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 0; return 0; }
