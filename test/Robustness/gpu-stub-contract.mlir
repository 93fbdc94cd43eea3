// RUN: octet-opt %s -split-input-file -verify-diagnostics --convert-octet-to-gpu

// Regression (docs/robustness.md; octet-fuzz-pass found it): launch stubs
// that break the contract octet-outline-for-cuda keeps are errors. Before,
// a stub whose octet.cuda.schemes lacked a scheme crashed in the kernel
// builder (a null #octet.scheme dereferenced), and one without a valid
// octet.cuda.op or octet.cuda.kernel dereferenced a null attribute or an
// empty optional.

module attributes {octet.target = #octet.target<"sm_90a">} {
// expected-error @below {{launch stub 'matmul' has no #octet.scheme 'lhs_scheme' in octet.cuda.schemes}}
func.func private @octet_cuda_matmul_1(memref<?x64xf8E4M3FN>, memref<64x32xf8E4M3FN>, memref<f32>, memref<f32>) -> memref<?x32xf32> attributes {octet.cuda.kernel = "wgmma", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale"], octarith.remuet.cuda.schemes = {lhs_scheme = #octet.scheme<f8E4M3FN>, rhs_scheme = #octet.scheme<f8E4M3FN>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_90a">} {
// expected-error @below {{launch stub 'matmul' has no #octet.scheme 'rhs_scheme' in octet.cuda.schemes}}
func.func private @octet_cuda_matmul_1(memref<?x64xf16>, memref<64x32xi8>, memref<32xf32>) -> memref<?x32xf16> attributes {octet.cuda.kernel = "gemv", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "rhs_scale"], octet.cuda.schemes = {rhs = #octet.scheme<i8, per_axis(1)>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_90a">} {
// expected-error @below {{matmul launch stub without a valid octet.cuda.kernel}}
func.func private @octet_cuda_matmul_1(memref<?x64xi8>, memref<64x32xi8>, memref<f32>, memref<f32>) -> memref<?x32xf32> attributes {octet.cuda.kernel = "tensorcore", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale"], octet.cuda.schemes = {lhs_scheme = #octet.scheme<i8>, rhs_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{matmul launch stub needs an 'lhs' and an 'rhs' (or 'rhs_nk', 'rhs_packed') argument of rank 2 or 3 and one result}}
func.func private @octet_cuda_matmul_1(memref<64xi8>, memref<64x32xi8>, memref<f32>, memref<f32>) -> memref<32xf32> attributes {octet.cuda.kernel = "mma_sync", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale"], octet.cuda.schemes = {lhs_scheme = #octet.scheme<i8>, rhs_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub: octet.cuda.op must be one of matmul, compute_params, quantize, dequantize, requantize}}
func.func private @octet_cuda_x_0(memref<4xf32>, memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = 3 : i32, octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub without a role for each argument}}
func.func private @octet_cuda_quantize_0(memref<4xf32>, memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", 7], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub 'dequantize' has no #octet.scheme 'in_scheme' in octet.cuda.schemes}}
func.func private @octet_cuda_dequantize_0(memref<4xi8>, memref<f32>) -> memref<4xf32> attributes {octet.cuda.op = "dequantize", octet.cuda.roles = ["input", "in_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub 'compute_params' needs an 'input' argument and one or two results}}
func.func private @octet_cuda_compute_params_0(memref<4xf32>) attributes {octet.cuda.op = "compute_params", octet.cuda.roles = ["input"], octet.cuda.schemes = {scheme = #octet.scheme<i8>}}
}
