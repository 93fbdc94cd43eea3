/* Calls a function of a library compiled by octet-compile --target=sm_90a
 * (Inputs/kernels.mlir) through its C header. */
#include "k.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  static float x[2 * 256];
  for (int i = 0; i < 2 * 256; ++i)
    x[i] = (float)(i % 17) - 8.0f;
  octet_memref_2d_f32 in = {x, x, 0, {2, 256}, {256, 1}};
  token_quantize_results r;
  _mlir_ciface_token_quantize(&r, &in);
  printf("q[0][0]=%d scale[0]=%g\n", r.r0.aligned[0], r.r1.aligned[0]);
  free(r.r0.allocated);
  free(r.r1.allocated);
  return 0;
}
