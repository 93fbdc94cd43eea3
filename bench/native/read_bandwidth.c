/* Read bandwidth of this machine: T threads each sum their slice of a
 * buffer much larger than the last-level cache (the physical limit of
 * batch-1 decode, which reads every weight once per token). Built and
 * called by bench/llm_decode.py:
 *   clang -O3 -march=native -shared -fPIC -pthread read_bandwidth.c */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const uint64_t *p;
  size_t n;
  uint64_t sum;
} Slice;

static void *readSlice(void *arg) {
  Slice *s = (Slice *)arg;
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (size_t i = 0; i + 4 <= s->n; i += 4) {
    a += s->p[i];
    b += s->p[i + 1];
    c += s->p[i + 2];
    d += s->p[i + 3];
  }
  s->sum = a + b + c + d;
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Best of `reps` passes over `bytes` bytes with `threads` threads, in
 * bytes per second. */
double octet_read_bandwidth(size_t bytes, int threads, int reps) {
  size_t n = bytes / sizeof(uint64_t);
  uint64_t *buf = aligned_alloc(64, n * sizeof(uint64_t));
  if (!buf || threads < 1 || threads > 64)
    return -1;
  memset(buf, 1, n * sizeof(uint64_t));
  double best = 1e30;
  volatile uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    pthread_t tid[64];
    Slice s[64];
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      s[t].p = buf + n / threads * t;
      s[t].n = n / threads;
      pthread_create(&tid[t], NULL, readSlice, &s[t]);
    }
    for (int t = 0; t < threads; ++t) {
      pthread_join(tid[t], NULL);
      sink += s[t].sum;
    }
    double dt = now() - t0;
    if (dt < best)
      best = dt;
  }
  free(buf);
  (void)sink;
  return (double)(n / threads * threads * sizeof(uint64_t)) / best;
}
