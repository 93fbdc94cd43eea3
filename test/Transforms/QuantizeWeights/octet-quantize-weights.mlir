// RUN: octet-opt %s -split-input-file --octet-quantize-weights | FileCheck %s

// The default: i8, per output channel, symmetric, absmax. The output
// channel of a plain matmul's B (KxN) is N, found from the indexing maps.
// Column 0 has absmax 0.5 (scale 0.5/127), column 1 absmax 2.

// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[Q:.*]] = arith.constant dense<{{\[}}[127, -64], [-127, 127]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<[0.00393700786, 0.0157480314]> : tensor<2xf32>
// CHECK:         %[[W:.*]] = octet.dequantize %[[Q]] scale(%[[S]] : tensor<2xf32>) as <i8, per_axis(1)> : tensor<2x2xi8> -> tensor<2x2xf32>
// CHECK:         linalg.matmul ins(%{{.*}}, %[[W]] : tensor<3x2xf32>, tensor<2x2xf32>)
// CHECK-NOT:     tensor<2x2xf32> = arith.constant
func.func @matmul(%x: tensor<3x2xf32>, %o: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[0.5, -1.0], [-0.5, 2.0]]> : tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Transposed B through indexing_maps: B is NxK, so the channel is axis 0.

// CHECK-LABEL: func.func @matmul_transposed_maps
// CHECK:         octet.dequantize %{{.*}} scale(%{{.*}} : tensor<3xf32>) as <i8, per_axis(0)> : tensor<3x2xi8> -> tensor<3x2xf32>
func.func @matmul_transposed_maps(%x: tensor<4x2xf32>, %o: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<4x2xf32>, tensor<3x2xf32>) outs(%o : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A constant reached through linalg.transpose is quantized in its own layout
// (channel = axis 0 of the 3x2 constant) and the transpose is re-applied to
// the dequantized value.

// CHECK-LABEL: func.func @through_transpose
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} as <i8, per_axis(0)> : tensor<3x2xi8> -> tensor<3x2xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[W]] : tensor<3x2xf32>) outs(%{{.*}} : tensor<2x3xf32>) permutation = [1, 0]
// CHECK:         linalg.matmul ins(%{{.*}}, %[[T]] : tensor<4x2xf32>, tensor<2x3xf32>)
// CHECK-NOT:     linalg.transpose
func.func @through_transpose(%x: tensor<4x2xf32>, %o: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %t = linalg.transpose ins(%w : tensor<3x2xf32>) outs(%e : tensor<2x3xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %t : tensor<4x2xf32>, tensor<2x3xf32>) outs(%o : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A broadcast weight of a batch_matmul: the 2x3 f16 constant is quantized
// once (channel = its axis 1) and broadcast after dequantization.

// CHECK-LABEL: func.func @batch_matmul_broadcast
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} scale(%{{.*}} : tensor<3xf32>) as <i8, per_axis(1)> : tensor<2x3xi8> -> tensor<2x3xf16>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%[[W]] : tensor<2x3xf16>) outs(%{{.*}} : tensor<5x2x3xf16>) dimensions = [0]
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %[[B]] : tensor<5x4x2xf16>, tensor<5x2x3xf16>)
func.func @batch_matmul_broadcast(%x: tensor<5x4x2xf16>, %o: tensor<5x4x3xf32>) -> tensor<5x4x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
  %e = tensor.empty() : tensor<5x2x3xf16>
  %b = linalg.broadcast ins(%w : tensor<2x3xf16>) outs(%e : tensor<5x2x3xf16>) dimensions = [0]
  %y = linalg.batch_matmul ins(%x, %b : tensor<5x4x2xf16>, tensor<5x2x3xf16>) outs(%o : tensor<5x4x3xf32>) -> tensor<5x4x3xf32>
  return %y : tensor<5x4x3xf32>
}

// -----

// An expand_shape that splits the constant's only dimension into (K, N):
// the output channel does not survive it, so the chain is folded and the
// weight is quantized in the contraction's layout.

// CHECK-LABEL: func.func @folded_expand
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} as <i8, per_axis(1)> : tensor<2x3xi8> -> tensor<2x3xbf16>
// CHECK:         linalg.matmul ins(%{{.*}}, %[[W]] : tensor<4x2xbf16>, tensor<2x3xbf16>)
func.func @folded_expand(%x: tensor<4x2xbf16>, %o: tensor<4x3xbf16>) -> tensor<4x3xbf16> {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xbf16>
  %e = tensor.expand_shape %w [[0, 1]] output_shape [2, 3] : tensor<6xbf16> into tensor<2x3xbf16>
  %y = linalg.matmul ins(%x, %e : tensor<4x2xbf16>, tensor<2x3xbf16>) outs(%o : tensor<4x3xbf16>) -> tensor<4x3xbf16>
  return %y : tensor<4x3xbf16>
}

// -----

// A collapse_shape that only drops a unit dimension keeps the channel.

// CHECK-LABEL: func.func @through_collapse
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} as <i8, per_axis(2)> : tensor<1x2x3xi8> -> tensor<1x2x3xf32>
// CHECK:         tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2]] : tensor<1x2x3xf32> into tensor<2x3xf32>
func.func @through_collapse(%x: tensor<4x2xf32>, %o: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %w = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<1x2x3xf32>
  %c = tensor.collapse_shape %w [[0, 1], [2]] : tensor<1x2x3xf32> into tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %c : tensor<4x2xf32>, tensor<2x3xf32>) outs(%o : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Convolution filters: HWCF has its output channel last, FCHW first.

// CHECK-LABEL: func.func @conv_nhwc_hwcf
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} scale(%{{.*}} : tensor<4xf32>) as <i8, per_axis(3)> : tensor<3x3x2x4xi8> -> tensor<3x3x2x4xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}}ins(%{{.*}}, %[[W]] :
func.func @conv_nhwc_hwcf(%x: tensor<1x5x5x2xf32>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  %w = arith.constant dense<0.25> : tensor<3x3x2x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// CHECK-LABEL: func.func @conv_nchw_fchw
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} scale(%{{.*}} : tensor<4xf32>) as <i8, per_axis(0)> : tensor<4x2x3x3xi8> -> tensor<4x2x3x3xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}}ins(%{{.*}}, %[[W]] :
func.func @conv_nchw_fchw(%x: tensor<1x2x5x5xf32>, %o: tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %w = arith.constant dense<0.25> : tensor<4x2x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) outs(%o : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}

// -----

// A linalg.generic that is a contraction, with the weight indexed (n, k).

#mx = affine_map<(m, n, k) -> (m, k)>
#mw = affine_map<(m, n, k) -> (n, k)>
#my = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @generic_contraction
// CHECK:         %[[W:.*]] = octet.dequantize %{{.*}} as <i8, per_axis(0)> : tensor<3x2xi8> -> tensor<3x2xf32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<4x2xf32>, tensor<3x2xf32>)
func.func @generic_contraction(%x: tensor<4x2xf32>, %o: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = linalg.generic {indexing_maps = [#mx, #mw, #my], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x2xf32>, tensor<3x2xf32>) outs(%o : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// A generic that is not a contraction (no reduction) is left alone.

// CHECK-LABEL: func.func @elementwise_untouched
// CHECK-NOT:     octet.dequantize
func.func @elementwise_untouched(%x: tensor<2xf32>, %o: tensor<2xf32>) -> tensor<2xf32> {
  %w = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %w : tensor<2xf32>, tensor<2xf32>) outs(%o : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// One constant used by two contractions is quantized once.

// CHECK-LABEL: func.func @shared_weight
// CHECK-COUNT-1: octet.dequantize
// CHECK-NOT:     octet.dequantize
func.func @shared_weight(%x: tensor<4x2xf32>, %o: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x2xf32>, tensor<2x3xf32>) outs(%o : tensor<4x3xf32>) -> tensor<4x3xf32>
  %z = linalg.matmul ins(%x, %w : tensor<4x2xf32>, tensor<2x3xf32>) outs(%o : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y, %z : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// dense_resource weights are read in place; the codes become a new
// dense_resource blob, the (small) scales a dense constant.

// CHECK-LABEL: func.func @resource
// CHECK-DAG:     %[[Q:.*]] = arith.constant dense_resource<w0_q> : tensor<2x2xi8>
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<[0.00393700786, 0.0157480314]> : tensor<2xf32>
// CHECK:         octet.dequantize %[[Q]] scale(%[[S]] : tensor<2xf32>) as <i8, per_axis(1)>
// CHECK:       dialect_resources
// CHECK-NOT:     w0:
// Codes [[127, -64], [-127, 127]] after the alignment (64) prefix:
// CHECK:         w0_q: "0x400000007FC0817F"
func.func @resource(%x: tensor<3x2xf32>, %o: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense_resource<w0> : tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
// [[0.5, -1.0], [-0.5, 2.0]] as f32, little endian.
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000003F000080BF000000BF00000040"
    }
  }
#-}
