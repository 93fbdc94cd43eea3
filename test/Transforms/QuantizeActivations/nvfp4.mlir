// RUN: octet-opt %s --octet-quantize-activations="mode=static format=nvfp4 stats=%S/Inputs/stats.json remarks=true" --split-input-file 2>&1 | FileCheck %s
// RUN: octet-opt %s --octet-quantize-activations="mode=static format=nvfp4 stats=%S/Inputs/stats.json" --octet-fold-scales --split-input-file 2>&1 | FileCheck %s --check-prefix=FOLD
// RUN: not octet-opt %s --octet-quantize-activations="format=nvfp4 stats=%S/Inputs/stats.json" --split-input-file 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not octet-opt %s --octet-quantize-activations="mode=static format=nvfp4 stats=%S/Inputs/stats.json method=mse" --split-input-file 2>&1 | FileCheck %s --check-prefix=MSE

// format=nvfp4 (mode=static): the calibrated absmax 8 of fc1.input gives
// the global scale g = 8 / 2688 = 0.00297619053 (f32); the E4M3 block
// scales per token and 16 along K are computed at run time.
// (The remarks of both functions come first: stderr.)
// CHECK: remark: octet-quantize-activations: 'fc1.input' nvfp4, calibrated absmax 8, global scale 0.00297619
// CHECK: remark: octet-quantize-activations: nvfp4 activations need a single contraction whose weight is FP4 in blocks of 16 along K (octet-quantize-weights format=nvfp4) and a static K; 'fc1.input' left in float
// CHECK-LABEL: func.func @nvfp4_weight
// CHECK: %[[S:.*]] = octet.compute_params %{{.*}} as <f4E2M1FN, per_group(1, 16), e4m3(0.00297619053)> : tensor<4x64xf32> -> tensor<4x4xf32>
// CHECK: %[[Q:.*]] = octet.quantize %{{.*}} scale(%[[S]] : tensor<4x4xf32>) as <f4E2M1FN, per_group(1, 16), e4m3(0.00297619053)> : tensor<4x64xf32> -> tensor<4x64xf4E2M1FN>
// CHECK: octet.dequantize %[[Q]] scale(%[[S]] : tensor<4x4xf32>) as <f4E2M1FN, per_group(1, 16), e4m3(0.00297619053)>
// CHECK-NOT: octet.observe
// FOLD-LABEL: func.func @nvfp4_weight
// FOLD: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<4x4xf32>) lhs_scheme <f4E2M1FN, per_group(1, 16), e4m3(0.00297619053)> rhs_scale(%{{.*}} : tensor<4x8xf32>) rhs_scheme <f4E2M1FN, per_group(0, 16), e4m3(0.5)> : tensor<4x64xf4E2M1FN>, tensor<64x8xf4E2M1FN> -> tensor<4x8xf32>
// DYNAMIC: error: octet-quantize-activations: nvfp4 activations need a calibrated per-tensor global scale: use mode=static with stats=FILE.json (the E4M3 block scales are computed at run time)
// MSE: error: octet-quantize-activations: format=nvfp4 takes method=minmax (the global scale maps the calibrated absmax to 6 x 448; the block scales adapt at run time)
func.func @nvfp4_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xf4E2M1FN>) -> tensor<4x8xf32> {
  %sw = arith.constant dense<1.0> : tensor<4x8xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<4x8xf32>) as <f4E2M1FN, per_group(0, 16), e4m3(0.5)> : tensor<64x8xf4E2M1FN> -> tensor<64x8xf32>
  %xo = octet.observe %x {name = "fc1.input"} : tensor<4x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%xo, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An INT8 weight per channel: no FP4 blocks for the activation; the
// observer goes, the activation stays float (the remark above).
// CHECK-LABEL: func.func @int8_weight
// CHECK-NOT: octet.observe
// CHECK-NOT: octet.compute_params
// CHECK: linalg.matmul ins(%arg0,
func.func @int8_weight(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %xo = octet.observe %x {name = "fc1.input"} : tensor<4x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%xo, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
