// RUN: octet-opt %s --octet-monitor-ranges | FileCheck %s
// RUN: octet-opt %s --octet-monitor-ranges=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// Zero when off: the host pipeline without monitor=true has no call.
// RUN: octet-opt %s --octet-lower-to-host | FileCheck %s --check-prefix=OFF
// RUN: octet-opt %s --octet-lower-to-host=monitor=true | FileCheck %s --check-prefix=ON

// Static quantizers get a call with their name, parameters and format
// (OCTET_FORMAT_*: i8 0, u8 1, f8E4M3FN 4); f16 inputs are extended; the
// weight (a constant) and the dynamic quantizer are left alone, the
// per-axis one with a remark; a second quantizer named "fc" becomes "fc#1";
// an unnamed one is named by file:line:column.
// CHECK: func.func private @octet_monitor_quantize(tensor<*xf32> {bufferization.access = "read"}, tensor<*xi8> {bufferization.access = "read"}, f32, i32, i32, i32, i32)
// CHECK-LABEL: func.func @f
// CHECK: %[[X:.*]] = tensor.cast %arg0 : tensor<4x8xf32> to tensor<*xf32>
// CHECK: arith.constant dense<[102, 99, 0]> : tensor<3xi8>
// CHECK: %[[S:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[LO:.*]] = arith.constant -128 : i32
// CHECK: %[[HI:.*]] = arith.constant 127 : i32
// CHECK: %[[F:.*]] = arith.constant 0 : i32
// CHECK: call @octet_monitor_quantize(%[[X]], %{{.*}}, %[[S]], %[[Z]], %[[LO]], %[[HI]], %[[F]])
// CHECK: octet.quantize %arg0
// u8 asymmetric: zero point 3, range [0, 255], format 1.
// CHECK: arith.constant dense<[102, 99, 35, 49, 0]> : tensor<5xi8>
// CHECK: %[[S2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[Z2:.*]] = arith.constant 3 : i32
// CHECK: %[[LO2:.*]] = arith.constant 0 : i32
// CHECK: %[[HI2:.*]] = arith.constant 255 : i32
// CHECK: %[[F2:.*]] = arith.constant 1 : i32
// CHECK: call @octet_monitor_quantize(%{{.*}}, %{{.*}}, %[[S2]], %[[Z2]], %[[LO2]], %[[HI2]], %[[F2]])
// f16 input, FP8 E4M3FN: extended, qmin = qmax = 0, format 4; named by
// its location (file:line:column).
// CHECK: %[[E:.*]] = arith.extf %arg1 : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: tensor.cast %[[E]]
// CHECK: call @octet_monitor_quantize
// CHECK-NOT: call @octet_monitor_quantize
// CHECK: return
// REMARK: remark: loc("fc"): monitored as 'fc'
// REMARK: remark: loc("fc"): monitored as 'fc#1'
// REMARK: octet-monitor-ranges.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: monitored as 'octet-monitor-ranges.mlir:{{[0-9]+}}:{{[0-9]+}}'
// REMARK: remark: not monitored: static parameters per_axis(1) (only per-tensor quantizers are)
// REMARK-NOT: remark
// OFF-NOT: octet_monitor
// ON: llvm.func @octet_monitor_quantize(i64, !llvm.ptr, i64, !llvm.ptr, f32, i32, i32, i32, i32)
// ON-COUNT-3: llvm.call @octet_monitor_quantize(
// ON-NOT: llvm.call @octet_monitor_quantize(
func.func @f(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>) -> (tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xf8E4M3FN>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>) {
  %s = arith.constant dense<0.25> : tensor<f32>
  %s2 = arith.constant dense<0.5> : tensor<f32>
  %z2 = arith.constant dense<3> : tensor<i32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8> loc("fc")
  %q2 = octet.quantize %x scale(%s2 : tensor<f32>) zero_point(%z2 : tensor<i32>) as <u8, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8> loc("fc")
  %q3 = octet.quantize %h scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<4x8xf16> -> tensor<4x8xf8E4M3FN>
  %w = arith.constant dense<1.0> : tensor<4x8xf32>
  %q4 = octet.quantize %w scale(%s : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = octet.compute_params %x as <i8> : tensor<4x8xf32> -> tensor<f32>
  %q5 = octet.quantize %x scale(%sd : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sa = arith.constant dense<[0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5]> : tensor<8xf32>
  %q6 = octet.quantize %x scale(%sa : tensor<8xf32>) as <i8, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q, %q2, %q3, %q4, %q5, %q6 : tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xf8E4M3FN>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>
}
