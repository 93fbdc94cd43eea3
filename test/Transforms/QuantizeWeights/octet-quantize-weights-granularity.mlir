// RUN: octet-opt %s -split-input-file --octet-quantize-weights=granularity=per-tensor | FileCheck %s --check-prefix=TENSOR
// RUN: octet-opt %s -split-input-file --octet-quantize-weights=granularity=per-channel | FileCheck %s --check-prefix=CHANNEL
// RUN: octet-opt %s -split-input-file --octet-quantize-weights="granularity=per-group group-size=2" | FileCheck %s --check-prefix=GROUP

// A 4x3 (KxN) matmul weight: per-channel is along N (axis 1), per-group
// splits K (axis 0) into groups of 2 with one scale row per output channel.

// TENSOR-LABEL:  func.func @kn
// TENSOR:          octet.dequantize {{.*}} scale({{.*}} : tensor<f32>) as <i8> : tensor<4x3xi8>
// CHANNEL-LABEL: func.func @kn
// CHANNEL:         octet.dequantize {{.*}} scale({{.*}} : tensor<3xf32>) as <i8, per_axis(1)> : tensor<4x3xi8>
// GROUP-LABEL:   func.func @kn
// GROUP-DAG:       arith.constant dense<{{\[}}[0.00787401571, 0.0236220472, 0.00787401571], [0.00787401571, 0.0118110236, 0.0157480314]]> : tensor<2x3xf32>
// GROUP:           octet.dequantize {{.*}} scale({{.*}} : tensor<2x3xf32>) as <i8, per_group(0, 2)> : tensor<4x3xi8>
func.func @kn(%x: tensor<5x4xf32>, %o: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %w = arith.constant dense<[[1.0, -2.0, 0.5], [0.25, 3.0, -1.0], [0.0, 1.5, 2.0], [-1.0, 0.1, 2.0]]> : tensor<4x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<5x4xf32>, tensor<4x3xf32>) outs(%o : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// The same weight stored NxK (transposed maps): the axes swap.

// TENSOR-LABEL:  func.func @nk
// TENSOR:          as <i8> : tensor<3x4xi8>
// CHANNEL-LABEL: func.func @nk
// CHANNEL:         scale({{.*}} : tensor<3xf32>) as <i8, per_axis(0)> : tensor<3x4xi8>
// GROUP-LABEL:   func.func @nk
// GROUP:           scale({{.*}} : tensor<3x2xf32>) as <i8, per_group(1, 2)> : tensor<3x4xi8>
func.func @nk(%x: tensor<5x4xf32>, %o: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %w = arith.constant dense<1.0> : tensor<3x4xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<5x4xf32>, tensor<3x4xf32>) outs(%o : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// A conv filter (HWCF): per-group runs along the input channel C (axis 2),
// the reduction dimension the filter shares with the input.

// GROUP-LABEL:   func.func @conv
// GROUP:           scale({{.*}} : tensor<3x3x2x8xf32>) as <i8, per_group(2, 2)> : tensor<3x3x4x8xi8>
// CHANNEL-LABEL: func.func @conv
// CHANNEL:         scale({{.*}} : tensor<8xf32>) as <i8, per_axis(3)>
func.func @conv(%x: tensor<1x5x5x4xf32>, %o: tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x4x8xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x5x5x4xf32>, tensor<3x3x4x8xf32>) outs(%o : tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  return %y : tensor<1x3x3x8xf32>
}

// -----

// An all-zero output channel gets the guarded scale 1 (codes 0), never NaN.

// CHANNEL-LABEL: func.func @zero_channel
// CHANNEL-DAG:     arith.constant dense<{{\[}}[0, 127], [0, -127]]> : tensor<2x2xi8>
// CHANNEL-DAG:     arith.constant dense<[1.000000e+00, 0.0157480314]> : tensor<2xf32>
func.func @zero_channel(%x: tensor<3x2xf32>, %o: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[0.0, 2.0], [0.0, -2.0]]> : tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
