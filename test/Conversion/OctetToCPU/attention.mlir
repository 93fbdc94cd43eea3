// RUN: octet-opt %s --convert-octet-to-cpu | FileCheck %s
// RUN: octet-opt %s --convert-octet-to-cpu --octet-lower-to-host | FileCheck %s --check-prefix=LLVM

// octet.attention becomes one call of the runtime's kernel: every operand
// read in place through a strided view (the KV cache slices are not
// copied), a fresh contiguous result, the 28 argument slots
// (OCTET_ATTN_NUM_SLOTS) in an alloca.

// CHECK: func.func private @octet_cpu_attention_f32(!llvm.ptr)
// CHECK-LABEL: func.func @attention
// CHECK-NOT: octet.attention
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<?x3x3x64xf32> to memref<?x3x3x64xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: bufferization.to_buffer %[[K:.*]] read_only : tensor<3x64x?xf32> to memref<3x64x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<3x?x64xf32> to memref<3x?x64xf32, strided<[?, ?, ?], offset: ?>>
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<?xi32> to memref<?xi32, strided<[?], offset: ?>>
// The scale's f32 bits (0.125 = 0x3E000000).
// CHECK: arith.constant 1040187392 : i64
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3x3x64xf32>
// CHECK: memref.alloca() {alignment = 8 : i64} : memref<28xi64>
// CHECK: call @octet_cpu_attention_f32(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable

// After bufferization the key slice is still a view of the cache: no copy.
// LLVM-LABEL: llvm.func @attention
// LLVM-NOT: memcpy
// LLVM: llvm.call @octet_cpu_attention_f32
func.func @attention(%q: tensor<?x3x3x64xf32>, %kc: tensor<3x64x2048xf32>, %vc: tensor<3x2048x64xf32>, %pos: tensor<?xi32>, %n: index) -> tensor<?x3x3x64xf32> {
  %k = tensor.extract_slice %kc[0, 0, 0] [3, 64, %n] [1, 1, 1] : tensor<3x64x2048xf32> to tensor<3x64x?xf32>
  %v = tensor.extract_slice %vc[0, 0, 0] [3, %n, 64] [1, 1, 1] : tensor<3x2048x64xf32> to tensor<3x?x64xf32>
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}

// An INT8 KV cache with per-head scales: the dequantizes are fused into the
// call (the kernel reads the codes; kinds OCTET_ATTN_I8 = 1, the scales'
// addresses and stride), not materialized as f32 copies of the prefix.
// CHECK-LABEL: func.func @attention_i8_cache
// CHECK-NOT: octet.dequantize
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<3x64x?xi8> to memref<3x64x?xi8, strided<[?, ?, ?], offset: ?>>
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<3x?x64xi8> to memref<3x?x64xi8, strided<[?, ?, ?], offset: ?>>
// CHECK: %[[I8:.*]] = arith.constant 1 : i64
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<3xf32> to memref<3xf32, strided<[?], offset: ?>>
// CHECK: call @octet_cpu_attention_f32
// CHECK-NOT: octet.dequantize
func.func @attention_i8_cache(%q: tensor<?x3x3x64xf32>, %kc: tensor<3x64x2048xi8>, %vc: tensor<3x2048x64xi8>, %ks: tensor<3xf32>, %vs: tensor<3xf32>, %pos: tensor<?xi32>, %n: index) -> tensor<?x3x3x64xf32> {
  %k8 = tensor.extract_slice %kc[0, 0, 0] [3, 64, %n] [1, 1, 1] : tensor<3x64x2048xi8> to tensor<3x64x?xi8>
  %v8 = tensor.extract_slice %vc[0, 0, 0] [3, %n, 64] [1, 1, 1] : tensor<3x2048x64xi8> to tensor<3x?x64xi8>
  %k = octet.dequantize %k8 scale(%ks : tensor<3xf32>) as <i8, per_axis(0)> : tensor<3x64x?xi8> -> tensor<3x64x?xf32>
  %v = octet.dequantize %v8 scale(%vs : tensor<3xf32>) as <i8, per_axis(0)> : tensor<3x?x64xi8> -> tensor<3x?x64xf32>
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}

// Per-axis on another axis (not one scale per KV head): not fused.
// CHECK-LABEL: func.func @attention_i8_other_axis
// CHECK: octet.dequantize
// CHECK: call @octet_cpu_attention_f32
func.func @attention_i8_other_axis(%q: tensor<?x3x3x64xf32>, %k8: tensor<3x64x?xi8>, %v: tensor<3x?x64xf32>, %ks: tensor<64xf32>, %pos: tensor<?xi32>) -> tensor<?x3x3x64xf32> {
  %k = octet.dequantize %k8 scale(%ks : tensor<64xf32>) as <i8, per_axis(1)> : tensor<3x64x?xi8> -> tensor<3x64x?xf32>
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}

// An FP8 E4M3 KV cache with one scale: fused the same way (kind
// OCTET_ATTN_F8E4M3FN = 2, the scale's stride 0).
// CHECK-LABEL: func.func @attention_fp8_cache
// CHECK-NOT: octet.dequantize
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<3x64x?xf8E4M3FN> to memref<3x64x?xf8E4M3FN, strided<[?, ?, ?], offset: ?>>
// CHECK: arith.constant 2 : i64
// CHECK: call @octet_cpu_attention_f32
// CHECK-NOT: octet.dequantize
func.func @attention_fp8_cache(%q: tensor<?x3x3x64xf32>, %k8: tensor<3x64x?xf8E4M3FN>, %v8: tensor<3x?x64xf8E4M3FN>, %s: tensor<f32>, %pos: tensor<?xi32>) -> tensor<?x3x3x64xf32> {
  %k = octet.dequantize %k8 scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<3x64x?xf8E4M3FN> -> tensor<3x64x?xf32>
  %v = octet.dequantize %v8 scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<3x?x64xf8E4M3FN> -> tensor<3x?x64xf32>
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}

// INT8 keys and FP8 values: one code format per call, the values'
// dequantize stays.
// CHECK-LABEL: func.func @attention_mixed_codes
// CHECK: octet.dequantize %{{.*}} as <f8E4M3FN>
// CHECK-NOT: octet.dequantize
// CHECK: call @octet_cpu_attention_f32
func.func @attention_mixed_codes(%q: tensor<?x3x3x64xf32>, %k8: tensor<3x64x?xi8>, %v8: tensor<3x?x64xf8E4M3FN>, %s: tensor<f32>, %pos: tensor<?xi32>) -> tensor<?x3x3x64xf32> {
  %k = octet.dequantize %k8 scale(%s : tensor<f32>) as <i8> : tensor<3x64x?xi8> -> tensor<3x64x?xf32>
  %v = octet.dequantize %v8 scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<3x?x64xf8E4M3FN> -> tensor<3x?x64xf32>
  %o = octet.attention %q, %k, %v, %pos scale(0.125) : tensor<?x3x3x64xf32>, tensor<3x64x?xf32>, tensor<3x?x64xf32>, tensor<?xi32> -> tensor<?x3x3x64xf32>
  return %o : tensor<?x3x3x64xf32>
}
