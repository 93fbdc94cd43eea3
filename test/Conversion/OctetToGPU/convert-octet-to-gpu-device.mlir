// RUN: octet-opt %s -split-input-file --convert-octet-to-gpu | FileCheck %s

// Device-resident activations (octet-outline-for-cuda's default, after
// bufferization): arguments and results in memory space 1 are device
// buffers. The upload stub copies and returns its device buffer without
// waiting; the quantize stub reads its device input and returns its device
// result (no copy, no wait: the next stub runs on the same stream); the
// download stub copies to a new host buffer and waits; the caller frees
// the device buffers with a stream-ordered gpu.dealloc.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @caller
//       CHECK:   %[[U:.*]] = call @octet_cuda_upload_0(
//       CHECK:   %[[Q:.*]] = call @octet_cuda_quantize_1(%[[U]],
//       CHECK:   %[[H:.*]] = call @octet_cuda_download_2(%[[Q]])
//       CHECK:   %[[T:.*]] = gpu.wait async
//       CHECK:   %[[P:.*]] = memref.memory_space_cast %[[U]] : memref<8xf32, 1> to memref<8xf32>
//       CHECK:   gpu.dealloc async [%[[T]]] %[[P]]
//       CHECK:   gpu.wait async
//       CHECK:   memref.memory_space_cast %[[Q]] : memref<8xi8, 1> to memref<8xi8>
//       CHECK:   gpu.dealloc async
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return %[[H]]
func.func @caller(%x: memref<8xf32>, %s: memref<f32>) -> memref<8xi8> {
  %u = call @octet_cuda_upload_0(%x) : (memref<8xf32>) -> memref<8xf32, 1>
  %q = call @octet_cuda_quantize_1(%u, %s) : (memref<8xf32, 1>, memref<f32>) -> memref<8xi8, 1>
  %h = call @octet_cuda_download_2(%q) : (memref<8xi8, 1>) -> memref<8xi8>
  memref.dealloc %u : memref<8xf32, 1>
  memref.dealloc %q : memref<8xi8, 1>
  return %h : memref<8xi8>
}

// CHECK-LABEL: func.func private @octet_cuda_upload_0
//  CHECK-SAME:   (%[[X:.*]]: memref<8xf32> {{.*}}) -> memref<8xf32, 1>
//       CHECK:   %[[D:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<8xf32>
//       CHECK:   gpu.memcpy async [%{{.*}}] %[[D]], %[[X]]
//       CHECK:   %[[R:.*]] = memref.memory_space_cast %[[D]] : memref<8xf32> to memref<8xf32, 1>
//   CHECK-NOT:   gpu.dealloc
//   CHECK-NOT:   gpu.wait [
//       CHECK:   return %[[R]]
func.func private @octet_cuda_upload_0(memref<8xf32> {bufferization.access = "read"}) -> memref<8xf32, 1> attributes {octet.cuda.op = "upload", octet.cuda.roles = ["input"], octet.cuda.schemes = {}}

// CHECK-LABEL: func.func private @octet_cuda_quantize_1
//  CHECK-SAME:   (%[[X:.*]]: memref<8xf32, 1> {{.*}}, %[[S:.*]]: memref<f32> {{.*}}) -> memref<8xi8, 1>
//       CHECK:   %[[XP:.*]] = memref.memory_space_cast %[[X]] : memref<8xf32, 1> to memref<8xf32>
//   CHECK-NOT:   gpu.memcpy async [%{{.*}}] %{{.*}}, %[[X]]
//       CHECK:   %[[DQ:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<8xi8>
//       CHECK:   gpu.launch_func
//   CHECK-NOT:   gpu.memcpy
//       CHECK:   %[[R:.*]] = memref.memory_space_cast %[[DQ]] : memref<8xi8> to memref<8xi8, 1>
//   CHECK-NOT:   gpu.wait [
//       CHECK:   return %[[R]]
func.func private @octet_cuda_quantize_1(memref<8xf32, 1> {bufferization.access = "read"}, memref<f32> {bufferization.access = "read"}) -> memref<8xi8, 1> attributes {octet.cuda.op = "quantize", octet.cuda.resident = ["out_scale"], octet.cuda.roles = ["input", "out_scale"], octet.cuda.schemes = {out_scheme = #octet.scheme<i8>}}

// CHECK-LABEL: func.func private @octet_cuda_download_2
//  CHECK-SAME:   (%[[X:.*]]: memref<8xi8, 1> {{.*}}) -> memref<8xi8>
//       CHECK:   %[[XP:.*]] = memref.memory_space_cast %[[X]]
//       CHECK:   %[[H:.*]] = memref.alloc() : memref<8xi8>
//       CHECK:   gpu.memcpy async [%{{.*}}] %[[H]], %[[XP]]
//       CHECK:   gpu.wait [
//       CHECK:   return %[[H]]
func.func private @octet_cuda_download_2(memref<8xi8, 1> {bufferization.access = "read"}) -> memref<8xi8> attributes {octet.cuda.op = "download", octet.cuda.roles = ["input"], octet.cuda.schemes = {}}
}

// -----

// A device entry that returns its argument: the deallocation pipeline
// copies it (memref.alloc + memref.copy in memory space 1), which becomes
// gpu.alloc + a device-to-device gpu.memcpy (no wait); a copy to the host
// waits.
module attributes {octet.target = #octet.target<"sm_90a">} {
func.func private @octet_cuda_upload_0(memref<4xf32>) -> memref<4xf32, 1> attributes {octet.cuda.op = "upload", octet.cuda.roles = ["input"], octet.cuda.schemes = {}}
// CHECK-LABEL: func.func @id_device
//  CHECK-SAME: (%[[X:.*]]: memref<4xf32, 1>)
//       CHECK:   %[[D:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<4xf32>
//       CHECK:   %[[R:.*]] = memref.memory_space_cast %[[D]] : memref<4xf32> to memref<4xf32, 1>
//       CHECK:   %[[XP:.*]] = memref.memory_space_cast %[[X]] : memref<4xf32, 1> to memref<4xf32>
//       CHECK:   gpu.memcpy async [%{{.*}}] %{{.*}}, %[[XP]]
//   CHECK-NOT:   gpu.wait [
//       CHECK:   return %[[R]]
func.func @id_device(%x: memref<4xf32, 1>) -> memref<4xf32, 1> {
  %a = memref.alloc() : memref<4xf32, 1>
  memref.copy %x, %a : memref<4xf32, 1> to memref<4xf32, 1>
  return %a : memref<4xf32, 1>
}
// A dynamic size: the alloc's operand is the size, the buffer its result.
// CHECK-LABEL: func.func @id_dynamic_device
//       CHECK:   gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
//   CHECK-NOT:   memref.alloc
//       CHECK:   gpu.memcpy async
func.func @id_dynamic_device(%x: memref<?xf32, 1>) -> memref<?xf32, 1> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32, 1>
  %a = memref.alloc(%n) : memref<?xf32, 1>
  memref.copy %x, %a : memref<?xf32, 1> to memref<?xf32, 1>
  return %a : memref<?xf32, 1>
}
// CHECK-LABEL: func.func @to_host
//       CHECK:   gpu.memcpy async
//       CHECK:   gpu.wait [
func.func @to_host(%x: memref<4xf32, 1>, %h: memref<4xf32>) {
  memref.copy %x, %h : memref<4xf32, 1> to memref<4xf32>
  return
}
}
