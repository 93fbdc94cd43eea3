// RUN: octet-opt %s -split-input-file --octet-outline-for-cuda | FileCheck %s

// Activations stay on the device between octet ops: the arguments are
// uploaded once each (in their order, %x once although two stubs read it),
// every stub result is a device tensor (encoding 1 : i64), the constant
// weight and its scales stay host arguments (resident), and only the
// returned value is downloaded.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @chain
//  CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[B:.*]]: tensor<32xf32>)
//       CHECK:   %[[XD:.*]] = call @[[$UP:octet_cuda_upload_[0-9]+]](%[[X]]) : (tensor<4x64xf32>) -> tensor<4x64xf32, 1 : i64>
//       CHECK:   %[[BD:.*]] = call @{{octet_cuda_upload_[0-9]+}}(%[[B]]) : (tensor<32xf32>) -> tensor<32xf32, 1 : i64>
//       CHECK:   %[[S:.*]] = call @octet_cuda_compute_params_{{[0-9]+}}(%[[XD]]) : (tensor<4x64xf32, 1 : i64>) -> tensor<4xf32, 1 : i64>
//       CHECK:   %[[Q:.*]] = call @octet_cuda_quantize_{{[0-9]+}}(%[[XD]], %[[S]])
//       CHECK:   %[[Y:.*]] = call @octet_cuda_matmul_{{[0-9]+}}(%[[Q]], %{{.*}}, %[[S]], %{{.*}}, %[[BD]]) : (tensor<4x64xi8, 1 : i64>, tensor<32x64xi8>, tensor<4xf32, 1 : i64>, tensor<32xf32>, tensor<32xf32, 1 : i64>) -> tensor<4x32xf32, 1 : i64>
//       CHECK:   %[[H:.*]] = call @[[$DOWN:octet_cuda_download_[0-9]+]](%[[Y]]) : (tensor<4x32xf32, 1 : i64>) -> tensor<4x32xf32>
//   CHECK-NOT:   call
//       CHECK:   return %[[H]]
// The device entry: the same stubs, no copies at the edges.
// CHECK-LABEL: func.func @chain_device
//  CHECK-SAME: (%[[XD2:.*]]: tensor<4x64xf32, 1 : i64>, %[[BD2:.*]]: tensor<32xf32, 1 : i64>) -> tensor<4x32xf32, 1 : i64>
//   CHECK-NOT:   octet_cuda_upload
//       CHECK:   %[[S2:.*]] = call @octet_cuda_compute_params_{{[0-9]+}}(%[[XD2]])
//       CHECK:   %[[Y2:.*]] = call @octet_cuda_matmul_{{[0-9]+}}(%{{.*}}, %{{.*}}, %[[S2]], %{{.*}}, %[[BD2]])
//   CHECK-NOT:   octet_cuda_download
//       CHECK:   return %[[Y2]] : tensor<4x32xf32, 1 : i64>
//       CHECK: func.func private @{{octet_cuda_matmul_[0-9]+}}({{.*}}) -> tensor<4x32xf32, 1 : i64>
//  CHECK-SAME:   octet.cuda.resident = ["rhs_nk", "rhs_scale"]
//       CHECK: func.func private @[[$UP]](tensor<4x64xf32> {bufferization.access = "read"}) -> tensor<4x64xf32, 1 : i64>
//  CHECK-SAME:   octet.cuda.op = "upload"
//  CHECK-SAME:   octet.cuda.roles = ["input"]
//       CHECK: func.func private @[[$DOWN]](tensor<4x32xf32, 1 : i64> {bufferization.access = "read"}) -> tensor<4x32xf32>
//  CHECK-SAME:   octet.cuda.op = "download"
func.func @chain(%x: tensor<4x64xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %w = arith.constant dense<3> : tensor<64x32xi8>
  %sw = arith.constant dense<0.5> : tensor<32xf32>
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<4x64xf32> -> tensor<4xf32>
  %q = octet.quantize %x scale(%s : tensor<4xf32>) as <i8, per_axis(0)>
         : tensor<4x64xf32> -> tensor<4x64xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<4xf32>) lhs_scheme <i8, per_axis(0)>
         rhs_scale(%sw : tensor<32xf32>) rhs_scheme <i8, per_axis(1)>
         bias(%b : tensor<32xf32>)
         : tensor<4x64xi8>, tensor<64x32xi8> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
}

// -----

// A host op between two octet ops: the first result is downloaded once
// (for both host uses) and stays on the device for the second octet op;
// the host op's result is uploaded for the next one.
module attributes {octet.target = #octet.target<"sm_90a">} {
// CHECK-LABEL: func.func @host_between
//       CHECK:   %[[Q:.*]] = call @octet_cuda_quantize_{{[0-9]+}}(
//       CHECK:   %[[QH:.*]] = call @octet_cuda_download_{{[0-9]+}}(%[[Q]])
//       CHECK:   %[[D:.*]] = call @octet_cuda_dequantize_{{[0-9]+}}(%[[Q]],
//       CHECK:   %[[DH:.*]] = call @octet_cuda_download_{{[0-9]+}}(%[[D]])
//       CHECK:   %[[E:.*]] = tensor.empty
//       CHECK:   %[[A:.*]] = linalg.add ins(%[[DH]], %[[DH]] : {{.*}}) outs(%[[E]]
//       CHECK:   %[[AD:.*]] = call @octet_cuda_upload_{{[0-9]+}}(%[[A]])
//       CHECK:   %[[R:.*]] = call @octet_cuda_quantize_{{[0-9]+}}(%[[AD]],
//       CHECK:   %[[RH:.*]] = call @octet_cuda_download_{{[0-9]+}}(%[[R]])
//       CHECK:   return %[[RH]], %[[QH]], %[[QH]]
// Its device entry downloads only for the host op and uploads its result;
// the results stay on the device.
// CHECK-LABEL: func.func @host_between_device
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32, 1 : i64>) -> (tensor<8xi8, 1 : i64>, tensor<8xi8, 1 : i64>, tensor<8xi8, 1 : i64>)
//       CHECK:   %[[Q:.*]] = call @octet_cuda_quantize_{{[0-9]+}}(%[[X]],
//       CHECK:   %[[D:.*]] = call @octet_cuda_dequantize_{{[0-9]+}}(%[[Q]],
//       CHECK:   %[[DH:.*]] = call @octet_cuda_download_{{[0-9]+}}(%[[D]])
//       CHECK:   linalg.add ins(%[[DH]], %[[DH]]
//       CHECK:   %[[AD:.*]] = call @octet_cuda_upload_{{[0-9]+}}(
//       CHECK:   %[[R:.*]] = call @octet_cuda_quantize_{{[0-9]+}}(%[[AD]],
//       CHECK:   return %[[R]], %[[Q]], %[[Q]]
func.func @host_between(%x: tensor<8xf32>) -> (tensor<8xi8>, tensor<8xi8>, tensor<8xi8>) {
  %s = arith.constant dense<0.25> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<8xf32> -> tensor<8xi8>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.add ins(%d, %d : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = octet.quantize %a scale(%s : tensor<f32>) as <i8> : tensor<8xf32> -> tensor<8xi8>
  return %r, %q, %q : tensor<8xi8>, tensor<8xi8>, tensor<8xi8>
}
}
