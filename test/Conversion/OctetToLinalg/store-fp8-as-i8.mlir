// RUN: octet-opt %s --split-input-file --octet-store-fp8-as-i8 --verify-diagnostics | FileCheck %s

// FP8 constants (dense and dense_resource), tensors, block arguments and
// function types become i8 with the same bytes; the FP8 <-> i8 bitcasts go.

// CHECK-LABEL: func.func @store(
// CHECK-SAME: %[[X:.*]]: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xi8>)
// CHECK-DAG: arith.constant dense<[56, -72, 127, 0]> : tensor<4xi8>
// CHECK-DAG: arith.constant dense_resource<w> : tensor<2xi8>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: i8, %[[C:.*]]: i8, %{{.*}}: i32):
// CHECK-NOT: arith.bitcast
// CHECK: arith.extsi %[[IN]] : i8 to i32
// CHECK: arith.extsi %[[C]] : i8 to i32
// CHECK: return %{{.*}}, %[[X]] : tensor<4xi32>, tensor<4xi8>
// CHECK-NOT: f8E4M3FN
func.func @store(%x: tensor<4xf8E4M3FN>) -> (tensor<4xi32>, tensor<4xf8E4M3FN>) {
  // 1.0, -1.0, NaN, 0.0 as E4M3.
  %c = arith.constant dense<[1.0, -1.0, 0x7F, 0.0]> : tensor<4xf8E4M3FN>
  %w = arith.constant dense_resource<w> : tensor<2xf8E4M3FN>
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %c : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN, %o: i32):
    %ai = arith.bitcast %a : f8E4M3FN to i8
    %bi = arith.bitcast %b : f8E4M3FN to i8
    %aw = arith.extsi %ai : i8 to i32
    %bw = arith.extsi %bi : i8 to i32
    %s = arith.addi %aw, %bw : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r, %x : tensor<4xi32>, tensor<4xf8E4M3FN>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000003840"
    }
  }
#-}

// -----

// Codes written as FP8: the i8 -> FP8 bitcast before the yield goes, the
// result tensor is i8.

// CHECK-LABEL: func.func @encode(
// CHECK-SAME: -> tensor<3xi8>
// CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: i8):
// CHECK: %[[T:.*]] = arith.trunci
// CHECK-NEXT: linalg.yield %[[T]] : i8
func.func @encode(%x: tensor<3xi32>) -> tensor<3xf8E5M2> {
  %e = tensor.empty() : tensor<3xf8E5M2>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xi32>) outs(%e : tensor<3xf8E5M2>) {
  ^bb0(%a: i32, %o: f8E5M2):
    %t = arith.trunci %a : i32 to i8
    %f = arith.bitcast %t : i8 to f8E5M2
    linalg.yield %f : f8E5M2
  } -> tensor<3xf8E5M2>
  return %r : tensor<3xf8E5M2>
}

// -----

// Arithmetic on FP8 values cannot be stored as i8: an error at the op, and
// nothing is rewritten.

func.func @computes(%x: tensor<2xf8E4M3FN>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf8E4M3FN>) outs(%e : tensor<2xf32>) {
  ^bb0(%a: f8E4M3FN, %o: f32):
    // expected-error @+1 {{'arith.extf' op computes on FP8 values; octet-store-fp8-as-i8 only stores them as i8 (run it after convert-octet-to-linalg, whose FP8 numerics work on the bits)}}
    %f = arith.extf %a : f8E4M3FN to f32
    linalg.yield %f : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}
