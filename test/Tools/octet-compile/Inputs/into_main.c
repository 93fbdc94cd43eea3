/* Calls the `_into` entries of into_model.mlir (octet-compile
 * --into-entries) and checks them against values computed here: small
 * integers, exact in f32 in any order of summation. */
#include "into.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 37, K = 16, N = 8 };
static const float sentinel = -12345.0f;

static float weight(int k, int n) { return (float)((k * 3 + n) % 5 - 2); }

static int failures = 0;
static void expect(int ok, const char *what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    ++failures;
  }
}

static int untouched(const float *p, int count) {
  for (int i = 0; i < count; ++i)
    if (p[i] != sentinel)
      return 0;
  return 1;
}

int main(void) {
  static float x[M * K], y[(M + 1) * N], s[M + 1];
  for (int i = 0; i < M * K; ++i)
    x[i] = (float)((i * 7) % 11) - 5.0f;
  octet_memref_2d_f32 in = {x, x, 0, {M, K}, {K, 1}};

  /* Both results written where the caller says, equal to the sums. */
  for (int i = 0; i < (M + 1) * N; ++i)
    y[i] = sentinel;
  for (int i = 0; i < M + 1; ++i)
    s[i] = sentinel;
  octet_memref_2d_f32 yv = {y, y, 0, {M, N}, {N, 1}};
  octet_memref_1d_f32 sv = {s, s, 0, {M}, {1}};
  expect(_mlir_ciface_layer_into(&yv, &sv, &in) == 0, "layer_into returns 0");
  int wrong = 0;
  for (int m = 0; m < M; ++m) {
    float row = 0;
    for (int k = 0; k < K; ++k)
      row += x[m * K + k];
    wrong += s[m] != row;
    for (int n = 0; n < N; ++n) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += x[m * K + k] * weight(k, n);
      wrong += y[m * N + n] != acc;
    }
  }
  expect(wrong == 0, "layer_into's results equal the sums");
  expect(untouched(y + M * N, N) && s[M] == sentinel,
         "layer_into writes nothing past the results");

  /* The allocating entry gives the same. */
  layer_results r;
  _mlir_ciface_layer(&r, &in);
  expect(r.r0.sizes[0] == M && r.r1.sizes[0] == M, "layer's sizes");
  expect(memcmp(r.r0.aligned + r.r0.offset, y, sizeof(float) * M * N) == 0 &&
             memcmp(r.r1.aligned + r.r1.offset, s, sizeof(float) * M) == 0,
         "layer equals layer_into");
  free(r.r0.allocated);
  free(r.r1.allocated);

  /* Buffers that do not fit: 1, a message on stderr, nothing written. */
  for (int i = 0; i < (M + 1) * N; ++i)
    y[i] = sentinel;
  for (int i = 0; i < M + 1; ++i)
    s[i] = sentinel;
  octet_memref_2d_f32 tall = {y, y, 0, {M + 1, N}, {N, 1}};
  expect(_mlir_ciface_layer_into(&tall, &sv, &in) == 1, "rows: returns 1");
  octet_memref_2d_f32 strided = {y, y, 0, {M, N}, {N + 1, 1}};
  expect(_mlir_ciface_layer_into(&strided, &sv, &in) == 1,
         "stride: returns 1");
  octet_memref_1d_f32 offset = {s, s, 1, {M}, {1}};
  expect(_mlir_ciface_layer_into(&yv, &offset, &in) == 1,
         "offset: returns 1");
  /* A result buffer inside the input, or the two results sharing bytes. */
  octet_memref_1d_f32 inx = {x + 3, x + 3, 0, {M}, {1}};
  expect(_mlir_ciface_layer_into(&yv, &inx, &in) == 1, "overlap: returns 1");
  octet_memref_1d_f32 iny = {y + M * N - 1, y + M * N - 1, 0, {M}, {1}};
  expect(_mlir_ciface_layer_into(&yv, &iny, &in) == 1,
         "results overlap: returns 1");
  expect(untouched(y, (M + 1) * N) && untouched(s, M + 1),
         "nothing written on a mismatch");
  /* Adjacent buffers do not overlap. */
  octet_memref_1d_f32 next = {y + M * N, y + M * N, 0, {M}, {1}};
  float first = 0;
  for (int k = 0; k < K; ++k)
    first += x[k];
  expect(_mlir_ciface_layer_into(&yv, &next, &in) == 0 && y[M * N] == first,
         "adjacent buffers");

  /* A row of size 1 may have any stride. */
  octet_memref_2d_f32 one = {x, x, 0, {1, K}, {999, 1}};
  octet_memref_2d_f32 yone = {y, y, 0, {1, N}, {12345, 1}};
  octet_memref_1d_f32 sone = {s, s, 0, {1}, {7}};
  expect(_mlir_ciface_layer_into(&yone, &sone, &one) == 0 && s[0] == first,
         "one row, any stride");

  /* A size read from an input's value: computed, checked, copied. */
  float f[6];
  for (int i = 0; i < 6; ++i)
    f[i] = sentinel;
  int64_t five = 5;
  octet_memref_1d_i64 nv = {&five, &five, 0, {1}, {1}};
  octet_memref_1d_f32 fv = {f, f, 0, {5}, {1}};
  expect(_mlir_ciface_fill_into(&fv, &nv) == 0, "fill_into returns 0");
  expect(f[0] == 7 && f[4] == 7 && f[5] == sentinel, "fill_into's values");
  f[0] = sentinel;
  octet_memref_1d_f32 fsix = {f, f, 0, {6}, {1}};
  expect(_mlir_ciface_fill_into(&fsix, &nv) == 1, "fill_into: size 6");
  expect(f[0] == sentinel, "fill_into: nothing written on a mismatch");

  /* A scalar result comes back by value (no _into entry). */
  expect(_mlir_ciface_total(&(octet_memref_1d_f32){x, x, 0, {4}, {1}}) ==
             x[0],
         "total returns its value");

  printf("%s\n", failures ? "into entries: FAILED" : "into entries: all ok");
  return failures != 0;
}
