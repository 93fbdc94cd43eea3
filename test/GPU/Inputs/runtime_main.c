/* The CUDA part of the runtime's C ABI on a machine where the driver cannot
 * be used: every entry point fails with a message, nothing crashes. */
#include "octet/Runtime/OctetRuntime.h"

#include <stdio.h>

int main(void) {
  printf("available=%d\n", octet_cuda_available());
  printf("reason=%s\n", octet_cuda_last_error());
  void *p = 0;
  int rc = octet_cuda_malloc(16, &p);
  printf("malloc rc=%d ptr=%p error=%s\n", rc, p, octet_cuda_last_error());
  void *module = 0;
  rc = octet_cuda_module_load("", &module);
  printf("module_load rc=%d\n", rc);
  return 0;
}
