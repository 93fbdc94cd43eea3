// RUN: octet-opt %s --octet-instrument | FileCheck %s
// RUN: octet-opt %s --octet-instrument=all=true | FileCheck %s --check-prefix=ALL

// Observers go on the activations of contractions with quantized weights,
// named after the contraction's location (or act<N>).
// CHECK-LABEL: func.func @model
// CHECK: %[[O1:.*]] = octet.observe %{{.*}} {name = "fc1.input"} : tensor<4x64xf32>
// CHECK: linalg.matmul ins(%[[O1]],
// CHECK: %[[O2:.*]] = octet.observe %{{.*}} {name = "act1"} : tensor<4x8xf32>
// CHECK: linalg.matmul ins(%[[O2]],
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>)
// ALL-COUNT-3: octet.observe
func.func @model(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>, %wq2: tensor<8x8xi8>, %wf: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %w2 = octet.dequantize %wq2 scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<8x8xi8> -> tensor<8x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32> loc("fc1")
  %h2 = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%h2, %wf : tensor<4x8xf32>, tensor<8x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
