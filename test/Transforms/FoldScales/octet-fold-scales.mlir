// RUN: octet-opt %s --octet-fold-scales --split-input-file --allow-unregistered-dialect | FileCheck %s

// W8A8: both operands dequantized, per-row activation and per-channel
// weight scales -> octet.matmul on the codes.
// CHECK-LABEL: func.func @w8a8
// CHECK-SAME: (%[[A:.*]]: tensor<4x64xi8>, %[[SA:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<64x8xi8>, %[[SW:.*]]: tensor<8xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[Y:.*]] = octet.matmul %[[A]], %[[W]] lhs_scale(%[[SA]] : tensor<4xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%[[SW]] : tensor<8xf32>) rhs_scheme <i8, per_axis(1)> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[Y]]
func.func @w8a8(%aq: tensor<4x64xi8>, %sa: tensor<4xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = octet.dequantize %aq scale(%sa : tensor<4xf32>) as <i8, per_axis(0)> : tensor<4x64xi8> -> tensor<4x64xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Asymmetric activations keep their zero point (folded by the lowering).
// CHECK-LABEL: func.func @asymmetric
// CHECK: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<f32>) lhs_zero_point(%{{.*}} : tensor<i32>) lhs_scheme <u8, asymmetric> rhs_scale(%{{.*}} : tensor<f32>) rhs_scheme <i8>
func.func @asymmetric(%aq: tensor<4x64xi8>, %sa: tensor<f32>, %za: tensor<i32>, %wq: tensor<64x8xi8>, %sw: tensor<f32>) -> tensor<4x8xf32> {
  %a = octet.dequantize %aq scale(%sa : tensor<f32>) zero_point(%za : tensor<i32>) as <u8, asymmetric> : tensor<4x64xi8> -> tensor<4x64xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<f32>) as <i8> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Weight-only (W4A16, groups along K): float lhs, the weight scale moves
// to the epilogue.
// CHECK-LABEL: func.func @weight_only_grouped
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf16>,
// CHECK: octet.matmul %[[X]], %{{.*}} rhs_scale(%{{.*}} : tensor<2x8xf32>) rhs_scheme <i4, per_group(0, 32)> : tensor<4x64xf16>, tensor<64x8xi4> -> tensor<4x8xf16>
func.func @weight_only_grouped(%x: tensor<4x64xf16>, %wq: tensor<64x8xi4>, %sw: tensor<2x8xf32>) -> tensor<4x8xf16> {
  %w = octet.dequantize %wq scale(%sw : tensor<2x8xf32>) as <i4, per_group(0, 32)> : tensor<64x8xi4> -> tensor<64x8xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x8xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<4x8xf16>) -> tensor<4x8xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf16>, tensor<64x8xf16>) outs(%init : tensor<4x8xf16>) -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// A weight stored as [N, K] (matmul with a transposed rhs map): the codes
// are transposed and the scheme's axis follows.
// CHECK-LABEL: func.func @transposed_rhs
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x64xi8>) outs(%{{.*}} : tensor<64x8xi8>) permutation = [1, 0]
// CHECK: octet.matmul %{{.*}}, %[[T]] rhs_scale(%{{.*}} : tensor<8xf32>) rhs_scheme <i8, per_axis(1)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_rhs(%x: tensor<4x64xf32>, %wq: tensor<8x64xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(0)> : tensor<8x64xi8> -> tensor<8x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w : tensor<4x64xf32>, tensor<8x64xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Batched (linalg.batch_matmul) with a per-row activation scale.
// CHECK-LABEL: func.func @batch
// CHECK: octet.matmul %{{.*}}, %{{.*}} lhs_scale(%{{.*}} : tensor<4xf32>) lhs_scheme <i8, per_axis(1)> rhs_scale(%{{.*}} : tensor<f32>) rhs_scheme <i8> : tensor<2x4x16xi8>, tensor<2x16x8xi8> -> tensor<2x4x8xf32>
func.func @batch(%aq: tensor<2x4x16xi8>, %sa: tensor<4xf32>, %wq: tensor<2x16x8xi8>, %sw: tensor<f32>) -> tensor<2x4x8xf32> {
  %a = octet.dequantize %aq scale(%sa : tensor<4xf32>) as <i8, per_axis(1)> : tensor<2x4x16xi8> -> tensor<2x4x16xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<f32>) as <i8> : tensor<2x16x8xi8> -> tensor<2x16x8xf32>
  %init = arith.constant dense<0.0> : tensor<2x4x8xf32>
  %y = linalg.batch_matmul ins(%a, %w : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%init : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// A scale along K cannot leave the sum: the IR stays and a remark says why.
// CHECK-LABEL: func.func @scale_along_k
// CHECK: linalg.matmul
// CHECK-NOT: octet.matmul
func.func @scale_along_k(%aq: tensor<4x64xi8>, %sa: tensor<64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = octet.dequantize %aq scale(%sa : tensor<64xf32>) as <i8, per_axis(1)> : tensor<4x64xi8> -> tensor<4x64xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A non-zero accumulator is not a plain product: left alone.
// CHECK-LABEL: func.func @accumulating
// CHECK: linalg.matmul
// CHECK-NOT: octet.matmul
func.func @accumulating(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// quantize(dequantize(q, p1), p2) -> requantize.
// CHECK-LABEL: func.func @requantize
// CHECK-SAME: (%[[Q:.*]]: tensor<8xi8>, %[[S0:.*]]: tensor<f32>, %[[S1:.*]]: tensor<f32>, %[[Z1:.*]]: tensor<i32>)
// CHECK: %[[R:.*]] = octet.requantize %[[Q]] scale(%[[S0]] : tensor<f32>) as <i8> to scale(%[[S1]] : tensor<f32>) zero_point(%[[Z1]] : tensor<i32>) as <u8, asymmetric>
// CHECK: return %[[R]]
func.func @requantize(%q: tensor<8xi8>, %s0: tensor<f32>, %s1: tensor<f32>, %z1: tensor<i32>) -> tensor<8xi8> {
  %d = octet.dequantize %q scale(%s0 : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xf32>
  %r = octet.quantize %d scale(%s1 : tensor<f32>) zero_point(%z1 : tensor<i32>) as <u8, asymmetric> : tensor<8xf32> -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// -----

// Through f16 the pair rounds twice: not the same as requantize.
// CHECK-LABEL: func.func @no_requantize_through_f16
// CHECK: octet.dequantize
// CHECK: octet.quantize
func.func @no_requantize_through_f16(%q: tensor<8xi8>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<8xi8> {
  %d = octet.dequantize %q scale(%s0 : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xf16>
  %r = octet.quantize %d scale(%s1 : tensor<f32>) as <i8> : tensor<8xf16> -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// -----

// dequantize(quantize(x)) is never removed.
// CHECK-LABEL: func.func @keep_error
// CHECK: octet.quantize
// CHECK: octet.dequantize
func.func @keep_error(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xf32> {
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<8xf32> -> tensor<8xi8>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// A requantize chain whose first step only shifts the zero point (same
// scale, the shifted codes fit) is exact and fuses.
// CHECK-LABEL: func.func @chain_fuses
// CHECK-SAME: (%[[Q:.*]]: tensor<8xi8>, %[[S2:.*]]: tensor<f32>)
// CHECK: %[[S:.*]] = arith.constant dense<5.000000e-02> : tensor<f32>
// CHECK: %[[R:.*]] = octet.requantize %[[Q]] scale(%[[S]] : tensor<f32>) as <i8<-127:127>> to scale(%[[S2]] : tensor<f32>) as <i8>
// CHECK-NOT: octet.requantize
// CHECK: return %[[R]]
func.func @chain_fuses(%q: tensor<8xi8>, %s2: tensor<f32>) -> tensor<8xi8> {
  %s = arith.constant dense<0.05> : tensor<f32>
  %z = arith.constant dense<128> : tensor<i32>
  %r1 = octet.requantize %q scale(%s : tensor<f32>) as <i8<-127:127>> to scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<8xi8> -> tensor<8xi8>
  %r2 = octet.requantize %r1 scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> to scale(%s2 : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xi8>
  return %r2 : tensor<8xi8>
}

// -----

// A chain whose first step changes the scale rounds in between: kept.
// CHECK-LABEL: func.func @chain_kept
// CHECK: octet.requantize
// CHECK: octet.requantize
func.func @chain_kept(%q: tensor<8xi8>, %s0: tensor<f32>, %s1: tensor<f32>, %s2: tensor<f32>) -> tensor<8xi8> {
  %r1 = octet.requantize %q scale(%s0 : tensor<f32>) as <i8> to scale(%s1 : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xi8>
  %r2 = octet.requantize %r1 scale(%s1 : tensor<f32>) as <i8> to scale(%s2 : tensor<f32>) as <i8> : tensor<8xi8> -> tensor<8xi8>
  return %r2 : tensor<8xi8>
}

// -----

// Layout ops: dequantize moves below them so the contraction sees it.
// CHECK-LABEL: func.func @through_transpose
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x64xi8>)
// CHECK: %[[D:.*]] = octet.dequantize %[[T]] scale(%{{.*}} : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
// CHECK: return %[[D]]
func.func @through_transpose(%wq: tensor<8x64xi8>, %s: tensor<8xf32>) -> tensor<64x8xf32> {
  %w = octet.dequantize %wq scale(%s : tensor<8xf32>) as <i8, per_axis(0)> : tensor<8x64xi8> -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<64x8xf32>
  %t = linalg.transpose ins(%w : tensor<8x64xf32>) outs(%e : tensor<64x8xf32>) permutation = [1, 0]
  return %t : tensor<64x8xf32>
}

// -----

// CHECK-LABEL: func.func @through_collapse
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x64x8xi8> into tensor<64x8xi8>
// CHECK: octet.dequantize %[[C]] scale(%{{.*}} : tensor<8xf32>) as <i8, per_axis(1)>
func.func @through_collapse(%wq: tensor<1x64x8xi8>, %s: tensor<8xf32>) -> tensor<64x8xf32> {
  %w = octet.dequantize %wq scale(%s : tensor<8xf32>) as <i8, per_axis(2)> : tensor<1x64x8xi8> -> tensor<1x64x8xf32>
  %c = tensor.collapse_shape %w [[0, 1], [2]] : tensor<1x64x8xf32> into tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

// CHECK-LABEL: func.func @through_expand
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 32, 8] : tensor<64x8xi8> into tensor<2x32x8xi8>
// CHECK: octet.dequantize %{{.*}} as <i8, per_axis(2)> : tensor<2x32x8xi8> -> tensor<2x32x8xf32>
func.func @through_expand(%wq: tensor<64x8xi8>, %s: tensor<8xf32>) -> tensor<2x32x8xf32> {
  %w = octet.dequantize %wq scale(%s : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %e = tensor.expand_shape %w [[0, 1], [2]] output_shape [2, 32, 8] : tensor<64x8xf32> into tensor<2x32x8xf32>
  return %e : tensor<2x32x8xf32>
}

// -----

// Splitting the parameter axis would need new parameters: kept.
// CHECK-LABEL: func.func @expand_splits_axis
// CHECK: octet.dequantize %{{.*}} : tensor<64x8xi8> -> tensor<64x8xf32>
// CHECK: tensor.expand_shape
func.func @expand_splits_axis(%wq: tensor<64x8xi8>, %s: tensor<64xf32>) -> tensor<2x32x8xf32> {
  %w = octet.dequantize %wq scale(%s : tensor<64xf32>) as <i8, per_axis(0)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %e = tensor.expand_shape %w [[0, 1], [2]] output_shape [2, 32, 8] : tensor<64x8xf32> into tensor<2x32x8xf32>
  return %e : tensor<2x32x8xf32>
}

// -----

// CHECK-LABEL: func.func @through_broadcast
// CHECK: %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<8xi8>) outs(%{{.*}} : tensor<4x8xi8>) dimensions = [0]
// CHECK: octet.dequantize %[[B]] scale(%{{.*}} : tensor<8xf32>) as <i8, per_axis(1)>
func.func @through_broadcast(%q: tensor<8xi8>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %d = octet.dequantize %q scale(%s : tensor<8xf32>) as <i8, per_axis(0)> : tensor<8xi8> -> tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%d : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  return %b : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @through_slice
// CHECK-DAG: %[[QS:.*]] = tensor.extract_slice %{{.*}}[0, 2] [64, 4] [1, 1] : tensor<64x8xi8> to tensor<64x4xi8>
// CHECK-DAG: %[[SS:.*]] = tensor.extract_slice %{{.*}}[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK: octet.dequantize %[[QS]] scale(%[[SS]] : tensor<4xf32>) as <i8, per_axis(1)>
func.func @through_slice(%wq: tensor<64x8xi8>, %s: tensor<8xf32>) -> tensor<64x4xf32> {
  %w = octet.dequantize %wq scale(%s : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %sl = tensor.extract_slice %w[0, 2] [64, 4] [1, 1] : tensor<64x8xf32> to tensor<64x4xf32>
  return %sl : tensor<64x4xf32>
}

// -----

// ReLU commutes with a positive scale: max(q, zp) on the codes.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu_of_dequantize
// CHECK: %[[M:.*]] = linalg.generic
// CHECK:   arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK: octet.dequantize %[[M]] scale(%{{.*}} : tensor<f32>) zero_point(%{{.*}} : tensor<i32>) as <u8, asymmetric>
func.func @relu_of_dequantize(%q: tensor<8xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<8xf32> {
  %d = octet.dequantize %q scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<8xi8> -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%d : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Bias, ReLU and the next layer's quantize fuse into the matmul epilogue.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<8xf32>, %[[SO:[a-z0-9]+]]: tensor<f32>)
// CHECK: %[[Y:.*]] = octet.matmul %{{.*}}, %{{.*}} lhs_scale({{.*}}) lhs_scheme <i8, per_axis(0)> rhs_scale({{.*}}) rhs_scheme <i8, per_axis(1)> bias(%[[B]] : tensor<8xf32>) relu out_scale(%[[SO]] : tensor<f32>) out_scheme <i8> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xi8>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @epilogue(%aq: tensor<4x64xi8>, %sa: tensor<4xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>, %b: tensor<8xf32>, %so: tensor<f32>) -> tensor<4x8xi8> {
  %a = octet.dequantize %aq scale(%sa : tensor<4xf32>) as <i8, per_axis(0)> : tensor<4x64xi8> -> tensor<4x64xf32>
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%a, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %yb = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %yr = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %q = octet.quantize %yr scale(%so : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
  return %q : tensor<4x8xi8>
}

// -----

// The lhs dequantize sits above a collapse_shape (as an ONNX import writes
// it: QDQ on [1, S, K], then the matmul on [S, K]) and is shared by two
// contractions. Whichever pattern applies first, both end as W8A8
// octet.matmul on the collapsed codes (none stays weight-only with a float
// lhs).
// CHECK-LABEL: func.func @lhs_dequantize_above_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x64xi8>, %[[SX:.*]]: tensor<f32>, %[[ZX:.*]]: tensor<i32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<1x4x64xi8> into tensor<4x64xi8>
// CHECK-NOT: octet.dequantize
// CHECK: octet.matmul %[[C]], %{{.*}} lhs_scale(%[[SX]] : tensor<f32>) lhs_zero_point(%[[ZX]] : tensor<i32>) lhs_scheme <u8, asymmetric> rhs_scale(%{{.*}} : tensor<8xf32>) rhs_scheme <i8, per_axis(1)> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
// CHECK: octet.matmul %[[C]], %{{.*}} lhs_scale(%[[SX]] : tensor<f32>) lhs_zero_point(%[[ZX]] : tensor<i32>) lhs_scheme <u8, asymmetric> rhs_scale(%{{.*}} : tensor<8xf32>) rhs_scheme <i8, per_axis(1)> : tensor<4x64xi8>, tensor<64x8xi8> -> tensor<4x8xf32>
func.func @lhs_dequantize_above_reshape(%xq: tensor<1x4x64xi8>, %sx: tensor<f32>, %zx: tensor<i32>, %w1q: tensor<64x8xi8>, %w2q: tensor<64x8xi8>, %sw: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %x = octet.dequantize %xq scale(%sx : tensor<f32>) zero_point(%zx : tensor<i32>) as <u8, asymmetric> : tensor<1x4x64xi8> -> tensor<1x4x64xf32>
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x4x64xf32> into tensor<4x64xf32>
  %w1 = octet.dequantize %w1q scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %w2 = octet.dequantize %w2q scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y1 = linalg.matmul ins(%x2, %w1 : tensor<4x64xf32>, tensor<64x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y2 = linalg.matmul ins(%x2, %w2 : tensor<4x64xf32>, tensor<64x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y1, %y2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A float-lhs octet.matmul whose lhs is a dequantize with a per-column
// (along K) scale keeps the float lhs: the scale varies along the sum.
// CHECK-LABEL: func.func @lhs_dequantize_along_k
// CHECK: octet.dequantize
// CHECK: octet.matmul %{{.*}}, %{{.*}} rhs_scale
func.func @lhs_dequantize_along_k(%xq: tensor<4x64xi8>, %sx: tensor<64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %x = octet.dequantize %xq scale(%sx : tensor<64xf32>) as <i8, per_axis(1)> : tensor<4x64xi8> -> tensor<4x64xf32>
  %y = octet.matmul %x, %wq rhs_scale(%sw : tensor<8xf32>) rhs_scheme <i8, per_axis(1)> : tensor<4x64xf32>, tensor<64x8xi8> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
