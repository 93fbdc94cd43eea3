convert-octet-to-gpu
module attributes {octet.target = #octet.target<"sm_90a">} {
func.func private @octet_cuda_quantize_0(memref<?x16xf32> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}) -> memref<?x16xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}

func.func private @octet_cuda_matmul_1(memref<?x64xf8E4M3FN> {bufferization.access = "read"}, memref<64x32xf8E4M3FN> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}) -> memref<?x32xf32> attributes {octet.cuda.kernel = "wgmma", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale"], octarith.remuet.cuda.schemes = {lhs_scheme = #octet.scheme<f8E4M3FN>, rhs_scheme = #octet.scheme<f8E4M3FN>}}

}
