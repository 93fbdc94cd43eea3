/* Calls the compiled model through its generated header. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  float x[6] = {0.26f, -1.74f, 3.5f, 2.5f, 400.f, -1000.f};
  octet_memref_1d_f32 in = {x, x, 0, {6}, {1}};
  octet_memref_1d_i8 out;
  _mlir_ciface_quantize(&out, &in);
  for (int i = 0; i < 6; ++i)
    printf("%d%s", out.aligned[out.offset + i], i < 5 ? " " : "\n");
  free(out.allocated);

  float rows[2 * 16];
  for (int i = 0; i < 32; ++i)
    rows[i] = (float)((i * 7) % 11) - 5.0f;
  octet_memref_2d_f32 xin = {rows, rows, 0, {2, 16}, {16, 1}};
  layer_results r;
  _mlir_ciface_layer(&r, &xin);
  printf("layer: %lldx%lld, scales %lld\n", (long long)r.r0.sizes[0],
         (long long)r.r0.sizes[1], (long long)r.r1.sizes[0]);
  free(r.r0.allocated);
  free(r.r1.allocated);
  return 0;
}
