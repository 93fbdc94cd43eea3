// RUN: octet-opt %s -split-input-file -verify-diagnostics --convert-octet-to-gpu
// RUN: not octet-opt %s --convert-octet-to-gpu="wgmma-tile-n=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not octet-opt %s --convert-octet-to-gpu="wgmma-stages=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not octet-opt %s --convert-octet-to-gpu="gemv-rows=9" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// TILE: convert-octet-to-gpu: wgmma-tile-n must be 128 or 256, got 64
// STAGES: convert-octet-to-gpu: wgmma-stages must be at least 3 and fit 227 KiB of shared memory, got 2
// ROWS: convert-octet-to-gpu: gemv-rows must be in [1, 8], got 9

// expected-error @below {{convert-octet-to-gpu needs the module's #octet.target (a CUDA target)}}
module {
func.func private @octet_cuda_quantize_0(memref<4xf32>, memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

// expected-error @below {{convert-octet-to-gpu: #octet.target<"amx-int8"> is not a CUDA target}}
module attributes {octet.target = #octet.target<"amx-int8">} {
func.func private @octet_cuda_quantize_0(memref<4xf32>, memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{convert-octet-to-gpu expects bufferized launch stubs with identity-layout memrefs (run one-shot-bufferize with function-boundary-type-conversion=identity-layout-map first), got 'tensor<4xf32>'}}
func.func private @octet_cuda_quantize_0(tensor<4xf32>, tensor<f32>) -> tensor<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub without a role for each argument}}
func.func private @octet_cuda_quantize_0(memref<4xf32>, memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub already has a body}}
func.func private @octet_cuda_quantize_0(%x: memref<4xf32>, %s: memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}} {
  %0 = memref.alloc() : memref<4xi8>
  return %0 : memref<4xi8>
}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub: octet.cuda.resident must list roles of the stub's arguments}}
func.func private @octet_cuda_quantize_0(memref<4xf32>, memref<f32>) -> memref<4xi8> attributes {octet.cuda.op = "quantize", octet.cuda.roles = ["input", "out_scale"], octet.cuda.resident = ["scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_90a">} {
// expected-error @below {{matmul launch stub: 'rhs_packed' (4-bit codes two per byte) needs the gemv kernel, rank 2 and a 4-bit rhs_scheme}}
func.func private @octet_cuda_matmul_0(memref<?x8xf16>, memref<8x4xi8>, memref<f32>) -> memref<?x8xf32> attributes {octet.cuda.kernel = "gemv", octet.cuda.op = "matmul", octet.cuda.roles = ["lhs", "rhs_packed", "rhs_scale"], octet.cuda.schemes = {rhs_scheme = #octet.scheme<i8>}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub 'upload' needs one 'input' argument in host memory and one result of its shape and element type in the device memory space (memref memory space 1)}}
func.func private @octet_cuda_upload_0(memref<4xf32>) -> memref<4xf32> attributes {octet.cuda.op = "upload", octet.cuda.roles = ["input"], octet.cuda.schemes = {}}
}

// -----

module attributes {octet.target = #octet.target<"sm_80">} {
// expected-error @below {{launch stub 'download' needs one 'input' argument in the device memory space (memref memory space 1) and one result of its shape and element type in host memory}}
func.func private @octet_cuda_download_0(memref<4xf32, 1>) -> memref<4xi8> attributes {octet.cuda.op = "download", octet.cuda.roles = ["input"], octet.cuda.schemes = {}}
}

// -----

// A host op that reads a device buffer (the outlining never makes one).
module attributes {octet.target = #octet.target<"sm_80">} {
func.func private @octet_cuda_upload_0(memref<4xf32>) -> memref<4xf32, 1> attributes {octet.cuda.op = "upload", octet.cuda.roles = ["input"], octet.cuda.schemes = {}}
func.func @f(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %d = call @octet_cuda_upload_0(%x) : (memref<4xf32>) -> memref<4xf32, 1>
  // expected-error @below {{a host op uses a device buffer ('memref<4xf32, 1>'); only launch stubs may}}
  %v = memref.load %d[%c0] : memref<4xf32, 1>
  return %v : f32
}
}
