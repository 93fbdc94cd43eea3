// RUN: octet-opt %s --octet-lower-observers | FileCheck %s

// Observers become calls to the runner's octet_observe with an id; names
// are listed in id order on the module; f16 is extended to f32.
// CHECK: module attributes {octet.observers = ["a", "b"]}
// CHECK: func.func private @octet_observe(i64, tensor<*xf32> {bufferization.access = "read"}) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<2xf16>)
// CHECK: %[[C0:.*]] = tensor.cast %[[X]] : tensor<4xf32> to tensor<*xf32>
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK: call @octet_observe(%[[ID0]], %[[C0]])
// CHECK: %[[E:.*]] = arith.extf %[[H]] : tensor<2xf16> to tensor<2xf32>
// CHECK: %[[C1:.*]] = tensor.cast %[[E]] : tensor<2xf32> to tensor<*xf32>
// CHECK: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK: call @octet_observe(%[[ID1]], %[[C1]])
// CHECK: %[[ID0B:.*]] = arith.constant 0 : i64
// CHECK: call @octet_observe(%[[ID0B]],
// CHECK-NOT: octet.observe
// CHECK: return %[[X]], %[[H]]
func.func @f(%x: tensor<4xf32>, %h: tensor<2xf16>) -> (tensor<4xf32>, tensor<2xf16>) {
  %a = octet.observe %x {name = "a"} : tensor<4xf32>
  %b = octet.observe %h {name = "b"} : tensor<2xf16>
  %a2 = octet.observe %x {name = "a"} : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<2xf16>
}
