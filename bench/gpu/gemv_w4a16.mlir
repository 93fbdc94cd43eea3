// W4A16 decode GEMV of bench/gpu (octet-gpu-bench): f16 activations times
// i4 weights [K x N] packed two per byte (K x N/2 bytes, column 2j in the
// low nibble, as octet-outline-for-cuda packs constant weights) with
// per-group scales [K/128 x N], f16 result. Written as the launch stub
// convert-octet-to-gpu builds, since only constant weights are packed.
module {
func.func @gemv_w4a16(%x: memref<?x?xf16>, %w: memref<?x?xi8>, %s: memref<?x?xf32>) -> memref<?x?xf16> {
  %y = call @octet_cuda_matmul_0(%x, %w, %s) : (memref<?x?xf16>, memref<?x?xi8>, memref<?x?xf32>) -> memref<?x?xf16>
  return %y : memref<?x?xf16>
}
func.func private @octet_cuda_matmul_0(memref<?x?xf16>, memref<?x?xi8>, memref<?x?xf32>) -> memref<?x?xf16> attributes {octet.cuda.kernel = "gemv", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs_packed", "rhs_scale"], octet.cuda.schemes = {rhs_scheme = #octet.scheme<i4, per_group(0, 128)>}}
}
