// RUN: octet-opt %s -split-input-file --octet-outline-for-cuda=host-activations=true | FileCheck %s

// Each op becomes a call of a launch stub that describes it.
module attributes {octet.target = #octet.target<"sm_80">} {
// CHECK-LABEL: func.func @quantize
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[S:.*]]: tensor<64xf32>)
//       CHECK:   %[[Q:.*]] = call @[[$STUB:octet_cuda_quantize_[0-9]+]](%[[X]], %[[S]])
//       CHECK:   return %[[Q]]
//       CHECK: func.func private @[[$STUB]](tensor<?x64xf32> {bufferization.access = "read"}, tensor<64xf32> {bufferization.access = "read"}) -> tensor<?x64xi8>
//  CHECK-SAME:   octet.cuda.op = "quantize"
//  CHECK-SAME:   octet.cuda.roles = ["input", "out_scale"]
//  CHECK-SAME:   octet.cuda.schemes = {out_scheme = #octet.scheme<i8, per_axis(1)>}
func.func @quantize(%x: tensor<?x64xf32>, %s: tensor<64xf32>) -> tensor<?x64xi8> {
  %q = octet.quantize %x scale(%s : tensor<64xf32>) as <i8, per_axis(1)>
         : tensor<?x64xf32> -> tensor<?x64xi8>
  return %q : tensor<?x64xi8>
}
}

// -----

// Requantize and compute_params (two results); observers disappear.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @requantize
//       CHECK:   call @octet_cuda_requantize_0(
func.func @requantize(%q: tensor<8xi8>, %s0: tensor<f32>, %s1: tensor<f32>,
                      %z1: tensor<i32>) -> tensor<8xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <i8>
         to scale(%s1 : tensor<f32>) zero_point(%z1 : tensor<i32>) as <u8, asymmetric>
         : tensor<8xi8> -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// CHECK-LABEL: func.func @params
//   CHECK-NOT:   octet.observe
//       CHECK:   %{{.*}}:2 = call @octet_cuda_compute_params_1(
// CHECK-LABEL: func.func private @octet_cuda_requantize_0(
//  CHECK-SAME:   octet.cuda.roles = ["input", "in_scale", "out_scale", "out_zero_point"]
//  CHECK-SAME:   octet.cuda.schemes = {in_scheme = #octet.scheme<i8>, out_scheme = #octet.scheme<u8, asymmetric>}
// CHECK-LABEL: func.func private @octet_cuda_compute_params_1({{.*}}) -> (tensor<?xf32>, tensor<?xi32>)
//  CHECK-SAME:   octet.cuda.op = "compute_params"
func.func @params(%x: tensor<?x32xf32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %o = octet.observe %x {name = "x"} : tensor<?x32xf32>
  %s, %z = octet.compute_params %o as <u8, per_axis(0), asymmetric>
             : tensor<?x32xf32> -> tensor<?xf32>, tensor<?xi32>
  return %s, %z : tensor<?xf32>, tensor<?xi32>
}
}

// -----

// The matmul kernel follows the target: wgmma on sm_90a, with ReLU and
// every role named.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @fp8
//       CHECK:   call @octet_cuda_matmul_0(
// CHECK-LABEL: func.func @w8a16
//       CHECK:   call @octet_cuda_matmul_1(
// CHECK-LABEL: func.func private @octet_cuda_matmul_0(
//  CHECK-SAME:   octet.cuda.kernel = "wgmma"
//  CHECK-SAME:   octet.cuda.op = "matmul"
//  CHECK-SAME:   octet.cuda.relu
//  CHECK-SAME:   octet.cuda.roles = ["lhs", "rhs", "lhs_scale", "rhs_scale", "bias"]
//  CHECK-SAME:   lhs_scheme = #octet.scheme<f8E4M3FN, per_axis(0)>
//  CHECK-SAME:   rhs_scheme = #octet.scheme<f8E4M3FN, per_axis(1)>
func.func @fp8(%x: tensor<?x64xf8E4M3FN>, %w: tensor<64x32xf8E4M3FN>,
               %sx: tensor<?xf32>, %sw: tensor<32xf32>,
               %b: tensor<32xf32>) -> tensor<?x32xbf16> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?xf32>) lhs_scheme <f8E4M3FN, per_axis(0)>
         rhs_scale(%sw : tensor<32xf32>) rhs_scheme <f8E4M3FN, per_axis(1)>
         bias(%b : tensor<32xf32>) relu
         : tensor<?x64xf8E4M3FN>, tensor<64x32xf8E4M3FN> -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

// Weight-only: the gemv kernel.
// CHECK-LABEL: func.func private @octet_cuda_matmul_1(
//  CHECK-SAME:   octet.cuda.kernel = "gemv"
func.func @w8a16(%x: tensor<1x64xf16>, %w: tensor<64x32xi8>,
                 %sw: tensor<32xf32>) -> tensor<1x32xf16> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<32xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<1x64xf16>, tensor<64x32xi8> -> tensor<1x32xf16>
  return %y : tensor<1x32xf16>
}
}

// -----

// sm_80: mma_sync for integers; FP8 has no tensor-core row there (simt; the
// warning is octet-select-lowering's).
module attributes {octet.target = #octet.target<"sm_80">} {
// CHECK-LABEL: func.func private @octet_cuda_matmul_0(
//  CHECK-SAME:   octet.cuda.kernel = "mma_sync"
func.func @i8(%x: tensor<?x64xi8>, %w: tensor<64x32xi8>, %sx: tensor<f32>,
              %sw: tensor<f32>) -> tensor<?x32xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<?x64xi8>, tensor<64x32xi8> -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// CHECK-LABEL: func.func private @octet_cuda_matmul_1(
//  CHECK-SAME:   octet.cuda.kernel = "simt"
func.func @fp8_sm80(%x: tensor<?x64xf8E5M2>, %w: tensor<64x32xf8E5M2>,
                    %sx: tensor<f32>, %sw: tensor<f32>) -> tensor<?x32xf32> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <f8E5M2>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <f8E5M2>
         : tensor<?x64xf8E5M2>, tensor<64x32xf8E5M2> -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
}

// -----

// Constant weights of a tensor-core kernel are passed transposed (N x K),
// with their column sums when the lhs has a zero point.
module attributes {octet.target = #octet.target<"sm_89">} {
// CHECK-LABEL: func.func @const_weights
//   CHECK-DAG:   %[[BT:.*]] = arith.constant dense<{{\[}}[1, 4], [2, 5], [-3, -6]]> : tensor<3x2xi8>
//   CHECK-DAG:   %[[CS:.*]] = arith.constant dense<[5, 7, -9]> : tensor<3xi32>
//       CHECK:   call @octet_cuda_matmul_0(%{{.*}}, %[[BT]], %{{.*}}, %{{.*}}, %{{.*}}, %[[CS]])
// CHECK-LABEL: func.func private @octet_cuda_matmul_0({{.*}}tensor<3x2xi8>
//  CHECK-SAME:   octet.cuda.kernel = "mma_sync"
//  CHECK-SAME:   octet.cuda.resident = ["rhs_nk", "colsum"]
//  CHECK-SAME:   octet.cuda.roles = ["lhs", "rhs_nk", "lhs_scale", "lhs_zero_point", "rhs_scale", "colsum"]
func.func @const_weights(%x: tensor<?x2xi8>, %sx: tensor<f32>, %zx: tensor<i32>,
                         %sw: tensor<f32>) -> tensor<?x3xf32> {
  %w = arith.constant dense<[[1, 2, -3], [4, 5, -6]]> : tensor<2x3xi8>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_zero_point(%zx : tensor<i32>)
         lhs_scheme <u8, asymmetric> rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<?x2xi8>, tensor<2x3xi8> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
}

// -----

// Weights in a dense_resource blob (as octet-quantize-weights writes them)
// are transposed at compile time too, into a new blob; constants are
// marked resident (uploaded once), arguments are not.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @resource_weights
//       CHECK:   %[[BT:.*]] = arith.constant dense_resource<w_nk> : tensor<3x2xi8>
//       CHECK:   call @octet_cuda_matmul_0(%{{.*}}, %[[BT]], %{{.*}}, %{{.*}})
// CHECK-LABEL: func.func private @octet_cuda_matmul_0({{.*}}tensor<3x2xi8>
//  CHECK-SAME:   octet.cuda.resident = ["rhs_nk", "rhs_scale"]
//  CHECK-SAME:   octet.cuda.roles = ["lhs", "rhs_nk", "lhs_scale", "rhs_scale"]
//       CHECK: w_nk: "0x{{[0-9A-F]+}}01040205FDFA"
func.func @resource_weights(%x: tensor<?x2xi8>, %sx: tensor<f32>) -> tensor<?x3xf32> {
  %w = arith.constant dense_resource<w> : tensor<2x3xi8>
  %sw = arith.constant dense<0.5> : tensor<f32>
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <i8>
         : tensor<?x2xi8>, tensor<2x3xi8> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000102FD0405FA"
    }
  }
#-}

// -----

// Constant 4-bit weights for gemv with an even N are packed two per byte
// (K x N/2 bytes, column 2j in the low nibble): 2x4 i4 codes
// [[1, -2, 3, -4], [5, 6, 7, -8]] become [[0xE1, 0xC3], [0x65, 0x87]].
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @packed_weights
//       CHECK:   %[[P:.*]] = arith.constant dense<{{\[}}[-31, -61], [101, -121]]> : tensor<2x2xi8>
//       CHECK:   call @octet_cuda_matmul_0(%{{.*}}, %[[P]], %{{.*}})
// CHECK-LABEL: func.func private @octet_cuda_matmul_0({{.*}}tensor<2x2xi8>
//  CHECK-SAME:   octet.cuda.kernel = "gemv"
//  CHECK-SAME:   octet.cuda.resident = ["rhs_packed", "rhs_scale"]
//  CHECK-SAME:   octet.cuda.roles = ["lhs", "rhs_packed", "rhs_scale"]
func.func @packed_weights(%x: tensor<?x2xf16>) -> tensor<?x4xf32> {
  %w = arith.constant dense<[[1, -2, 3, -4], [5, 6, 7, -8]]> : tensor<2x4xi4>
  %sw = arith.constant dense<0.5> : tensor<4xf32>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<4xf32>) rhs_scheme <i4, per_axis(1)>
         : tensor<?x2xf16>, tensor<2x4xi4> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
}

// -----

// An odd N keeps one code per byte.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @odd_n
//       CHECK:   octet.cuda.roles = ["lhs", "rhs", "rhs_scale"]
func.func @odd_n(%x: tensor<?x2xf16>) -> tensor<?x3xf32> {
  %w = arith.constant dense<[[1, -2, 3], [5, 6, 7]]> : tensor<2x3xi4>
  %sw = arith.constant dense<0.5> : tensor<3xf32>
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<3xf32>) rhs_scheme <i4, per_axis(1)>
         : tensor<?x2xf16>, tensor<2x3xi4> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
}

// -----

// octet.attention has no device kernel yet: it becomes its linalg form
// (convert-octet-to-linalg's), which runs on the host.
// CHECK-LABEL: func.func @attention_on_host
// CHECK-NOT: octet.attention
// CHECK: linalg.generic
// CHECK: math.exp
module attributes {octet.target = #octet.target<"sm_90a">} {
  func.func @attention_on_host(%q: tensor<?x3x3x64xf32>, %k: tensor<3x64x?xf32>, %v: tensor<3x?x64xf32>, %pos: tensor<?xi32>) -> tensor<?x3x3x64xf32> {
    %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
    return %o : tensor<?x3x3x64xf32>
  }
}
