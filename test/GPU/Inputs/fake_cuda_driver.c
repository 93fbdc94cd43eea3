/* A fake libcuda.so for the dry run of scripts/gpu-check
   (gpu-check-dry-run.test): one "device" of compute capability 9.0 and no
   other entry point, so that octet's runtime refuses it. */
#include <string.h>
int cuInit(unsigned f) { (void)f; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { (void)i; *d = 0; return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = a == 75 ? 9 : 0; return 0; }
int cuDeviceGetName(char *b, int n, int d) { (void)d; strncpy(b, "Fake H200", n); return 0; }
