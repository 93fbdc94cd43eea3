// Round trip: octet-import-quant(octet-export-quant(x)) reproduces x, the
// same schemes and parameters, for every form upstream can represent: i8, u8,
// i4, u4 x per_tensor, per_axis, per_group x symmetric, asymmetric, narrowed
// ranges, f16/bf16 expressed types, storage values crossing function
// boundaries and other ops, dynamic shapes. Parameters are f32 values that
// are not short decimals, and unsigned zero points above the signed range
// (u8 255, u4 15), so any lossy conversion shows.
//
// The input is written with one constant per parameter, right before its op,
// as octet-import-quant creates them, so the round trip must print exactly
// what octet-opt prints for the input (the diff); the CHECK lines spell the
// schemes and parameters out. The textual path goes through the stock
// mlir-opt, which proves upstream parses and verifies the exported IR.
//
// RUN: octet-opt %s > %t.expected.mlir
// RUN: octet-opt %s --octet-export-quant --octet-import-quant > %t.memory.mlir
// RUN: diff %t.expected.mlir %t.memory.mlir
// RUN: octet-opt %s --octet-export-quant | mlir-opt | octet-opt --octet-import-quant > %t.text.mlir
// RUN: diff %t.expected.mlir %t.text.mlir
// RUN: FileCheck %s --input-file=%t.text.mlir
// The exported module holds only upstream ops.
// RUN: octet-opt %s --octet-export-quant | FileCheck %s --check-prefix=EXPORT
// EXPORT-NOT: octet.

// CHECK-LABEL: func.func @i8_per_tensor_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<7.500000e+00> : tensor<f32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<7.500000e+00> : tensor<f32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) as <i8> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i8_per_tensor_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<7.5e+00> : tensor<f32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) as <i8> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<7.5e+00> : tensor<f32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) as <i8> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i8_per_tensor_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<127> : tensor<i32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) zero_point(%[[ZQ]] : tensor<i32>) as <i8, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: %[[ZD:.*]] = arith.constant dense<127> : tensor<i32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) zero_point(%[[ZD]] : tensor<i32>) as <i8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i8_per_tensor_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<1.1920929e-07> : tensor<f32>
  %zq = arith.constant dense<127> : tensor<i32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) zero_point(%zq : tensor<i32>) as <i8, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<1.1920929e-07> : tensor<f32>
  %zd = arith.constant dense<127> : tensor<i32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) zero_point(%zd : tensor<i32>) as <i8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i8_per_axis_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}4.200000e+01, 0.336666673, 0.101999991, 7.725000e+00, 1283.95056, 0.0129629625, 2.88137865, 6.53076203E-5]> : tensor<8xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) as <i8, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}4.200000e+01, 0.336666673, 0.101999991, 7.725000e+00, 1283.95056, 0.0129629625, 2.88137865, 6.53076203E-5]> : tensor<8xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) as <i8, per_axis(1)> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i8_per_axis_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[4.2e+01, 3.3666667e-01, 1.0199999e-01, 7.725e+00, 1.2839506e+03, 1.29629625e-02, 2.8813787e+00, 6.530762e-05]> : tensor<8xf32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) as <i8, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[4.2e+01, 3.3666667e-01, 1.0199999e-01, 7.725e+00, 1.2839506e+03, 1.29629625e-02, 2.8813787e+00, 6.530762e-05]> : tensor<8xf32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) as <i8, per_axis(1)> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i8_per_axis_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}0.0123456791, 2.74546456, 6.22558582E-5, 1.22785565E-7, 8.125000e-03, 3.20434556E-5, 1.060000e-01, 4.494000e+01]> : tensor<8xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}127, -128, 101, 20, 70, 85, -71, -114]> : tensor<8xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) zero_point(%[[ZQ]] : tensor<8xi32>) as <i8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}0.0123456791, 2.74546456, 6.22558582E-5, 1.22785565E-7, 8.125000e-03, 3.20434556E-5, 1.060000e-01, 4.494000e+01]> : tensor<8xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}127, -128, 101, 20, 70, 85, -71, -114]> : tensor<8xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) zero_point(%[[ZD]] : tensor<8xi32>) as <i8, per_axis(1), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i8_per_axis_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[1.2345679e-02, 2.7454646e+00, 6.225586e-05, 1.2278556e-07, 8.125e-03, 3.2043456e-05, 1.06e-01, 4.494e+01]> : tensor<8xf32>
  %zq = arith.constant dense<[127, -128, 101, 20, 70, 85, -71, -114]> : tensor<8xi32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) zero_point(%zq : tensor<8xi32>) as <i8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[1.2345679e-02, 2.7454646e+00, 6.225586e-05, 1.2278556e-07, 8.125e-03, 3.2043456e-05, 1.06e-01, 4.494e+01]> : tensor<8xf32>
  %zd = arith.constant dense<[127, -128, 101, 20, 70, 85, -71, -114]> : tensor<8xi32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) zero_point(%zd : tensor<8xi32>) as <i8, per_axis(1), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i8_per_group_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}3.05175781E-5, 1.010000e-01], {{\[}}4.284000e+01, 0.343333334], {{\[}}0.103999995, 7.875000e+00], {{\[}}1308.64185, 0.0132098766]]> : tensor<4x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) as <i8, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}3.05175781E-5, 1.010000e-01], {{\[}}4.284000e+01, 0.343333334], {{\[}}0.103999995, 7.875000e+00], {{\[}}1308.64185, 0.0132098766]]> : tensor<4x2xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) as <i8, per_group(1, 4)> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i8_per_group_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[3.0517578e-05, 1.01e-01], [4.284e+01, 3.4333333e-01], [1.03999995e-01, 7.875e+00], [1.3086418e+03, 1.3209877e-02]]> : tensor<4x2xf32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) as <i8, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[[3.0517578e-05, 1.01e-01], [4.284e+01, 3.4333333e-01], [1.03999995e-01, 7.875e+00], [1.3086418e+03, 1.3209877e-02]]> : tensor<4x2xf32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) as <i8, per_group(1, 4)> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i8_per_group_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}7.500000e+00, 1246.91345], {{\[}}0.0125925923, 2.7998302], {{\[}}6.34765601E-5, 1.25169748E-7], {{\[}}0.00828124955, 3.26538102E-5]]> : tensor<4x2xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}127, -128], {{\[}}95, 105], {{\[}}-127, -1], {{\[}}82, -95]]> : tensor<4x2xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) zero_point(%[[ZQ]] : tensor<4x2xi32>) as <i8, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}7.500000e+00, 1246.91345], {{\[}}0.0125925923, 2.7998302], {{\[}}6.34765601E-5, 1.25169748E-7], {{\[}}0.00828124955, 3.26538102E-5]]> : tensor<4x2xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}127, -128], {{\[}}95, 105], {{\[}}-127, -1], {{\[}}82, -95]]> : tensor<4x2xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) zero_point(%[[ZD]] : tensor<4x2xi32>) as <i8, per_group(1, 4), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i8_per_group_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[7.5e+00, 1.2469135e+03], [1.2592592e-02, 2.7998302e+00], [6.347656e-05, 1.2516975e-07], [8.28125e-03, 3.265381e-05]]> : tensor<4x2xf32>
  %zq = arith.constant dense<[[127, -128], [95, 105], [-127, -1], [82, -95]]> : tensor<4x2xi32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) zero_point(%zq : tensor<4x2xi32>) as <i8, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[[7.5e+00, 1.2469135e+03], [1.2592592e-02, 2.7998302e+00], [6.347656e-05, 1.2516975e-07], [8.28125e-03, 3.265381e-05]]> : tensor<4x2xf32>
  %zd = arith.constant dense<[[127, -128], [95, 105], [-127, -1], [82, -95]]> : tensor<4x2xi32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) zero_point(%zd : tensor<4x2xi32>) as <i8, per_group(1, 4), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u8_per_tensor_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<7.812500e-03> : tensor<f32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) as <u8> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<7.812500e-03> : tensor<f32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) as <u8> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u8_per_tensor_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<7.8125e-03> : tensor<f32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) as <u8> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<7.8125e-03> : tensor<f32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) as <u8> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u8_per_tensor_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<0.099999994> : tensor<f32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<255> : tensor<i32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) zero_point(%[[ZQ]] : tensor<i32>) as <u8, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<0.099999994> : tensor<f32>
// CHECK: %[[ZD:.*]] = arith.constant dense<255> : tensor<i32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) zero_point(%[[ZD]] : tensor<i32>) as <u8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u8_per_tensor_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<9.9999994e-02> : tensor<f32>
  %zq = arith.constant dense<255> : tensor<i32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) zero_point(%zq : tensor<i32>) as <u8, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<9.9999994e-02> : tensor<f32>
  %zd = arith.constant dense<255> : tensor<i32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) zero_point(%zd : tensor<i32>) as <u8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u8_per_axis_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}2.71828175, 6.16455072E-5, 1.21593473E-7, 0.00804687477, 3.17382801E-5, 1.050000e-01, 4.452000e+01, 0.356666684]> : tensor<8xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) as <u8, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}2.71828175, 6.16455072E-5, 1.21593473E-7, 0.00804687477, 3.17382801E-5, 1.050000e-01, 4.452000e+01, 0.356666684]> : tensor<8xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) as <u8, per_axis(1)> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u8_per_axis_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[2.7182817e+00, 6.164551e-05, 1.2159347e-07, 8.046875e-03, 3.173828e-05, 1.05e-01, 4.452e+01, 3.5666668e-01]> : tensor<8xf32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) as <u8, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[2.7182817e+00, 6.164551e-05, 1.2159347e-07, 8.046875e-03, 3.173828e-05, 1.05e-01, 4.452e+01, 3.5666668e-01]> : tensor<8xf32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) as <u8, per_axis(1)> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u8_per_axis_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}1.000000e-01, 4.242000e+01, 3.400000e-01, 0.102999993, 7.800000e+00, 1296.29614, 0.0130864196, 2.90856147]> : tensor<8xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}255, 254, 209, 77, 87, 71, 184, 65]> : tensor<8xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) zero_point(%[[ZQ]] : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}1.000000e-01, 4.242000e+01, 3.400000e-01, 0.102999993, 7.800000e+00, 1296.29614, 0.0130864196, 2.90856147]> : tensor<8xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}255, 254, 209, 77, 87, 71, 184, 65]> : tensor<8xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) zero_point(%[[ZD]] : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u8_per_axis_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[1.e-01, 4.242e+01, 3.4e-01, 1.0299999e-01, 7.8e+00, 1.2962961e+03, 1.308642e-02, 2.9085615e+00]> : tensor<8xf32>
  %zq = arith.constant dense<[255, 254, 209, 77, 87, 71, 184, 65]> : tensor<8xi32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) zero_point(%zq : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[1.e-01, 4.242e+01, 3.4e-01, 1.0299999e-01, 7.8e+00, 1.2962961e+03, 1.308642e-02, 2.9085615e+00]> : tensor<8xf32>
  %zd = arith.constant dense<[255, 254, 209, 77, 87, 71, 184, 65]> : tensor<8xi32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) zero_point(%zd : tensor<8xi32>) as <u8, per_axis(1), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u8_per_group_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}1234.56775, 0.0124691352], {{\[}}2.77264738, 6.28662092E-5], {{\[}}1.23977657E-7, 0.00820312462], {{\[}}3.23486311E-5, 1.070000e-01]]> : tensor<4x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) as <u8, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}1234.56775, 0.0124691352], {{\[}}2.77264738, 6.28662092E-5], {{\[}}1.23977657E-7, 0.00820312462], {{\[}}3.23486311E-5, 1.070000e-01]]> : tensor<4x2xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) as <u8, per_group(1, 4)> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u8_per_group_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[1.2345677e+03, 1.2469135e-02], [2.7726474e+00, 6.286621e-05], [1.2397766e-07, 8.203125e-03], [3.234863e-05, 1.07e-01]]> : tensor<4x2xf32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) as <u8, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[[1.2345677e+03, 1.2469135e-02], [2.7726474e+00, 6.286621e-05], [1.2397766e-07, 8.203125e-03], [3.234863e-05, 1.07e-01]]> : tensor<4x2xf32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) as <u8, per_group(1, 4)> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u8_per_group_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}7.812500e-03, 3.08227536E-5], {{\[}}1.020000e-01, 4.326000e+01], {{\[}}0.346666664, 1.050000e-01], {{\[}}7.9499998, 1320.98755]]> : tensor<4x2xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}255, 254], {{\[}}122, 129], {{\[}}149, 141], {{\[}}130, 254]]> : tensor<4x2xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) zero_point(%[[ZQ]] : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}7.812500e-03, 3.08227536E-5], {{\[}}1.020000e-01, 4.326000e+01], {{\[}}0.346666664, 1.050000e-01], {{\[}}7.9499998, 1320.98755]]> : tensor<4x2xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}255, 254], {{\[}}122, 129], {{\[}}149, 141], {{\[}}130, 254]]> : tensor<4x2xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) zero_point(%[[ZD]] : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u8_per_group_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[7.8125e-03, 3.0822754e-05], [1.02e-01, 4.326e+01], [3.4666666e-01, 1.05e-01], [7.95e+00, 1.3209875e+03]]> : tensor<4x2xf32>
  %zq = arith.constant dense<[[255, 254], [122, 129], [149, 141], [130, 254]]> : tensor<4x2xi32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) zero_point(%zq : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[[7.8125e-03, 3.0822754e-05], [1.02e-01, 4.326e+01], [3.4666666e-01, 1.05e-01], [7.95e+00, 1.3209875e+03]]> : tensor<4x2xf32>
  %zd = arith.constant dense<[[255, 254], [122, 129], [149, 141], [130, 254]]> : tensor<4x2xi32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) zero_point(%zd : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i4_per_tensor_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<7.500000e+00> : tensor<f32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) as <i4> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<7.500000e+00> : tensor<f32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) as <i4> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i4_per_tensor_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<7.5e+00> : tensor<f32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) as <i4> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<7.5e+00> : tensor<f32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) as <i4> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i4_per_tensor_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<7> : tensor<i32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) zero_point(%[[ZQ]] : tensor<i32>) as <i4, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: %[[ZD:.*]] = arith.constant dense<7> : tensor<i32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) zero_point(%[[ZD]] : tensor<i32>) as <i4, asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i4_per_tensor_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<1.1920929e-07> : tensor<f32>
  %zq = arith.constant dense<7> : tensor<i32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) zero_point(%zq : tensor<i32>) as <i4, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<1.1920929e-07> : tensor<f32>
  %zd = arith.constant dense<7> : tensor<i32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) zero_point(%zd : tensor<i32>) as <i4, asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i4_per_axis_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}4.200000e+01, 0.336666673, 0.101999991, 7.725000e+00, 1283.95056, 0.0129629625, 2.88137865, 6.53076203E-5]> : tensor<8xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) as <i4, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}4.200000e+01, 0.336666673, 0.101999991, 7.725000e+00, 1283.95056, 0.0129629625, 2.88137865, 6.53076203E-5]> : tensor<8xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) as <i4, per_axis(1)> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i4_per_axis_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[4.2e+01, 3.3666667e-01, 1.0199999e-01, 7.725e+00, 1.2839506e+03, 1.29629625e-02, 2.8813787e+00, 6.530762e-05]> : tensor<8xf32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) as <i4, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[4.2e+01, 3.3666667e-01, 1.0199999e-01, 7.725e+00, 1.2839506e+03, 1.29629625e-02, 2.8813787e+00, 6.530762e-05]> : tensor<8xf32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) as <i4, per_axis(1)> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i4_per_axis_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}0.0123456791, 2.74546456, 6.22558582E-5, 1.22785565E-7, 8.125000e-03, 3.20434556E-5, 1.060000e-01, 4.494000e+01]> : tensor<8xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}7, -8, 1, -3, 7, -1, -5, 5]> : tensor<8xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) zero_point(%[[ZQ]] : tensor<8xi32>) as <i4, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}0.0123456791, 2.74546456, 6.22558582E-5, 1.22785565E-7, 8.125000e-03, 3.20434556E-5, 1.060000e-01, 4.494000e+01]> : tensor<8xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}7, -8, 1, -3, 7, -1, -5, 5]> : tensor<8xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) zero_point(%[[ZD]] : tensor<8xi32>) as <i4, per_axis(1), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i4_per_axis_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[1.2345679e-02, 2.7454646e+00, 6.225586e-05, 1.2278556e-07, 8.125e-03, 3.2043456e-05, 1.06e-01, 4.494e+01]> : tensor<8xf32>
  %zq = arith.constant dense<[7, -8, 1, -3, 7, -1, -5, 5]> : tensor<8xi32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) zero_point(%zq : tensor<8xi32>) as <i4, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[1.2345679e-02, 2.7454646e+00, 6.225586e-05, 1.2278556e-07, 8.125e-03, 3.2043456e-05, 1.06e-01, 4.494e+01]> : tensor<8xf32>
  %zd = arith.constant dense<[7, -8, 1, -3, 7, -1, -5, 5]> : tensor<8xi32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) zero_point(%zd : tensor<8xi32>) as <i4, per_axis(1), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i4_per_group_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}3.05175781E-5, 1.010000e-01], {{\[}}4.284000e+01, 0.343333334], {{\[}}0.103999995, 7.875000e+00], {{\[}}1308.64185, 0.0132098766]]> : tensor<4x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}3.05175781E-5, 1.010000e-01], {{\[}}4.284000e+01, 0.343333334], {{\[}}0.103999995, 7.875000e+00], {{\[}}1308.64185, 0.0132098766]]> : tensor<4x2xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i4_per_group_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[3.0517578e-05, 1.01e-01], [4.284e+01, 3.4333333e-01], [1.03999995e-01, 7.875e+00], [1.3086418e+03, 1.3209877e-02]]> : tensor<4x2xf32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[[3.0517578e-05, 1.01e-01], [4.284e+01, 3.4333333e-01], [1.03999995e-01, 7.875e+00], [1.3086418e+03, 1.3209877e-02]]> : tensor<4x2xf32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @i4_per_group_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}7.500000e+00, 1246.91345], {{\[}}0.0125925923, 2.7998302], {{\[}}6.34765601E-5, 1.25169748E-7], {{\[}}0.00828124955, 3.26538102E-5]]> : tensor<4x2xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}7, -8], {{\[}}1, -7], {{\[}}-8, -1], {{\[}}-8, -6]]> : tensor<4x2xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) zero_point(%[[ZQ]] : tensor<4x2xi32>) as <i4, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}7.500000e+00, 1246.91345], {{\[}}0.0125925923, 2.7998302], {{\[}}6.34765601E-5, 1.25169748E-7], {{\[}}0.00828124955, 3.26538102E-5]]> : tensor<4x2xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}7, -8], {{\[}}1, -7], {{\[}}-8, -1], {{\[}}-8, -6]]> : tensor<4x2xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) zero_point(%[[ZD]] : tensor<4x2xi32>) as <i4, per_group(1, 4), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @i4_per_group_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[7.5e+00, 1.2469135e+03], [1.2592592e-02, 2.7998302e+00], [6.347656e-05, 1.2516975e-07], [8.28125e-03, 3.265381e-05]]> : tensor<4x2xf32>
  %zq = arith.constant dense<[[7, -8], [1, -7], [-8, -1], [-8, -6]]> : tensor<4x2xi32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) zero_point(%zq : tensor<4x2xi32>) as <i4, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[[7.5e+00, 1.2469135e+03], [1.2592592e-02, 2.7998302e+00], [6.347656e-05, 1.2516975e-07], [8.28125e-03, 3.265381e-05]]> : tensor<4x2xf32>
  %zd = arith.constant dense<[[7, -8], [1, -7], [-8, -1], [-8, -6]]> : tensor<4x2xi32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) zero_point(%zd : tensor<4x2xi32>) as <i4, per_group(1, 4), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u4_per_tensor_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<7.812500e-03> : tensor<f32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) as <u4> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<7.812500e-03> : tensor<f32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) as <u4> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u4_per_tensor_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<7.8125e-03> : tensor<f32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) as <u4> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<7.8125e-03> : tensor<f32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) as <u4> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u4_per_tensor_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<0.099999994> : tensor<f32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<15> : tensor<i32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) zero_point(%[[ZQ]] : tensor<i32>) as <u4, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<0.099999994> : tensor<f32>
// CHECK: %[[ZD:.*]] = arith.constant dense<15> : tensor<i32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) zero_point(%[[ZD]] : tensor<i32>) as <u4, asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u4_per_tensor_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<9.9999994e-02> : tensor<f32>
  %zq = arith.constant dense<15> : tensor<i32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) zero_point(%zq : tensor<i32>) as <u4, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<9.9999994e-02> : tensor<f32>
  %zd = arith.constant dense<15> : tensor<i32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) zero_point(%zd : tensor<i32>) as <u4, asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u4_per_axis_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}2.71828175, 6.16455072E-5, 1.21593473E-7, 0.00804687477, 3.17382801E-5, 1.050000e-01, 4.452000e+01, 0.356666684]> : tensor<8xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) as <u4, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}2.71828175, 6.16455072E-5, 1.21593473E-7, 0.00804687477, 3.17382801E-5, 1.050000e-01, 4.452000e+01, 0.356666684]> : tensor<8xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) as <u4, per_axis(1)> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u4_per_axis_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[2.7182817e+00, 6.164551e-05, 1.2159347e-07, 8.046875e-03, 3.173828e-05, 1.05e-01, 4.452e+01, 3.5666668e-01]> : tensor<8xf32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) as <u4, per_axis(1)> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[2.7182817e+00, 6.164551e-05, 1.2159347e-07, 8.046875e-03, 3.173828e-05, 1.05e-01, 4.452e+01, 3.5666668e-01]> : tensor<8xf32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) as <u4, per_axis(1)> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u4_per_axis_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}1.000000e-01, 4.242000e+01, 3.400000e-01, 0.102999993, 7.800000e+00, 1296.29614, 0.0130864196, 2.90856147]> : tensor<8xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}15, 14, 12, 14, 13, 10, 7, 8]> : tensor<8xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<8xf32>) zero_point(%[[ZQ]] : tensor<8xi32>) as <u4, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}1.000000e-01, 4.242000e+01, 3.400000e-01, 0.102999993, 7.800000e+00, 1296.29614, 0.0130864196, 2.90856147]> : tensor<8xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}15, 14, 12, 14, 13, 10, 7, 8]> : tensor<8xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<8xf32>) zero_point(%[[ZD]] : tensor<8xi32>) as <u4, per_axis(1), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u4_per_axis_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[1.e-01, 4.242e+01, 3.4e-01, 1.0299999e-01, 7.8e+00, 1.2962961e+03, 1.308642e-02, 2.9085615e+00]> : tensor<8xf32>
  %zq = arith.constant dense<[15, 14, 12, 14, 13, 10, 7, 8]> : tensor<8xi32>
  %q = octet.quantize %x scale(%sq : tensor<8xf32>) zero_point(%zq : tensor<8xi32>) as <u4, per_axis(1), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[1.e-01, 4.242e+01, 3.4e-01, 1.0299999e-01, 7.8e+00, 1.2962961e+03, 1.308642e-02, 2.9085615e+00]> : tensor<8xf32>
  %zd = arith.constant dense<[15, 14, 12, 14, 13, 10, 7, 8]> : tensor<8xi32>
  %d = octet.dequantize %q scale(%sd : tensor<8xf32>) zero_point(%zd : tensor<8xi32>) as <u4, per_axis(1), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u4_per_group_sym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}1234.56775, 0.0124691352], {{\[}}2.77264738, 6.28662092E-5], {{\[}}1.23977657E-7, 0.00820312462], {{\[}}3.23486311E-5, 1.070000e-01]]> : tensor<4x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) as <u4, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}1234.56775, 0.0124691352], {{\[}}2.77264738, 6.28662092E-5], {{\[}}1.23977657E-7, 0.00820312462], {{\[}}3.23486311E-5, 1.070000e-01]]> : tensor<4x2xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) as <u4, per_group(1, 4)> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u4_per_group_sym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[1.2345677e+03, 1.2469135e-02], [2.7726474e+00, 6.286621e-05], [1.2397766e-07, 8.203125e-03], [3.234863e-05, 1.07e-01]]> : tensor<4x2xf32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) as <u4, per_group(1, 4)> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[[1.2345677e+03, 1.2469135e-02], [2.7726474e+00, 6.286621e-05], [1.2397766e-07, 8.203125e-03], [3.234863e-05, 1.07e-01]]> : tensor<4x2xf32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) as <u4, per_group(1, 4)> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @u4_per_group_asym
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}7.812500e-03, 3.08227536E-5], {{\[}}1.020000e-01, 4.326000e+01], {{\[}}0.346666664, 1.050000e-01], {{\[}}7.9499998, 1320.98755]]> : tensor<4x2xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}15, 14], {{\[}}6, 3], {{\[}}15, 0], {{\[}}1, 3]]> : tensor<4x2xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) zero_point(%[[ZQ]] : tensor<4x2xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}7.812500e-03, 3.08227536E-5], {{\[}}1.020000e-01, 4.326000e+01], {{\[}}0.346666664, 1.050000e-01], {{\[}}7.9499998, 1320.98755]]> : tensor<4x2xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}15, 14], {{\[}}6, 3], {{\[}}15, 0], {{\[}}1, 3]]> : tensor<4x2xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) zero_point(%[[ZD]] : tensor<4x2xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @u4_per_group_asym(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[7.8125e-03, 3.0822754e-05], [1.02e-01, 4.326e+01], [3.4666666e-01, 1.05e-01], [7.95e+00, 1.3209875e+03]]> : tensor<4x2xf32>
  %zq = arith.constant dense<[[15, 14], [6, 3], [15, 0], [1, 3]]> : tensor<4x2xi32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) zero_point(%zq : tensor<4x2xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[[7.8125e-03, 3.0822754e-05], [1.02e-01, 4.326e+01], [3.4666666e-01, 1.05e-01], [7.95e+00, 1.3209875e+03]]> : tensor<4x2xf32>
  %zd = arith.constant dense<[[15, 14], [6, 3], [15, 0], [1, 3]]> : tensor<4x2xi32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) zero_point(%zd : tensor<4x2xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// Narrowed code ranges.
// CHECK-LABEL: func.func @narrow_i8_per_axis0
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}2.71828175, 6.16455072E-5, 1.21593473E-7, 0.00804687477]> : tensor<4xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4xf32>) as <i8<-127:127>, per_axis(0)> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}2.71828175, 6.16455072E-5, 1.21593473E-7, 0.00804687477]> : tensor<4xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4xf32>) as <i8<-127:127>, per_axis(0)> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @narrow_i8_per_axis0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[2.7182817e+00, 6.164551e-05, 1.2159347e-07, 8.046875e-03]> : tensor<4xf32>
  %q = octet.quantize %x scale(%sq : tensor<4xf32>) as <i8<-127:127>, per_axis(0)> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<[2.7182817e+00, 6.164551e-05, 1.2159347e-07, 8.046875e-03]> : tensor<4xf32>
  %d = octet.dequantize %q scale(%sd : tensor<4xf32>) as <i8<-127:127>, per_axis(0)> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @narrow_u8_per_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<255> : tensor<i32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) zero_point(%[[ZQ]] : tensor<i32>) as <u8<1:255>, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<1.1920929E-7> : tensor<f32>
// CHECK: %[[ZD:.*]] = arith.constant dense<255> : tensor<i32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) zero_point(%[[ZD]] : tensor<i32>) as <u8<1:255>, asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @narrow_u8_per_tensor(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<1.1920929e-07> : tensor<f32>
  %zq = arith.constant dense<255> : tensor<i32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) zero_point(%zq : tensor<i32>) as <u8<1:255>, asymmetric> : tensor<4x8xf32> -> tensor<4x8xi8>
  %sd = arith.constant dense<1.1920929e-07> : tensor<f32>
  %zd = arith.constant dense<255> : tensor<i32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) zero_point(%zd : tensor<i32>) as <u8<1:255>, asymmetric> : tensor<4x8xi8> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @narrow_i4_per_group0
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}1234.56775, 0.0124691352, 2.77264738, 6.28662092E-5, 1.23977657E-7, 0.00820312462, 3.23486311E-5, 1.070000e-01], {{\[}}4.536000e+01, 0.363333344, 0.109999992, 8.3249998, 1382.71594, 0.0139506171, 3.09884119, 7.01904282E-5]]> : tensor<2x8xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}7, -7, -4, 3, -2, 0, -7, 2], {{\[}}5, 2, -5, 1, -3, 7, 6, -5]]> : tensor<2x8xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<2x8xf32>) zero_point(%[[ZQ]] : tensor<2x8xi32>) as <i4<-7:7>, per_group(0, 2), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}1234.56775, 0.0124691352, 2.77264738, 6.28662092E-5, 1.23977657E-7, 0.00820312462, 3.23486311E-5, 1.070000e-01], {{\[}}4.536000e+01, 0.363333344, 0.109999992, 8.3249998, 1382.71594, 0.0139506171, 3.09884119, 7.01904282E-5]]> : tensor<2x8xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}7, -7, -4, 3, -2, 0, -7, 2], {{\[}}5, 2, -5, 1, -3, 7, 6, -5]]> : tensor<2x8xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<2x8xf32>) zero_point(%[[ZD]] : tensor<2x8xi32>) as <i4<-7:7>, per_group(0, 2), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
// CHECK: return %[[D]]
func.func @narrow_i4_per_group0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq = arith.constant dense<[[1.2345677e+03, 1.2469135e-02, 2.7726474e+00, 6.286621e-05, 1.2397766e-07, 8.203125e-03, 3.234863e-05, 1.07e-01], [4.536e+01, 3.6333334e-01, 1.0999999e-01, 8.325e+00, 1.382716e+03, 1.3950617e-02, 3.0988412e+00, 7.019043e-05]]> : tensor<2x8xf32>
  %zq = arith.constant dense<[[7, -7, -4, 3, -2, 0, -7, 2], [5, 2, -5, 1, -3, 7, 6, -5]]> : tensor<2x8xi32>
  %q = octet.quantize %x scale(%sq : tensor<2x8xf32>) zero_point(%zq : tensor<2x8xi32>) as <i4<-7:7>, per_group(0, 2), asymmetric> : tensor<4x8xf32> -> tensor<4x8xi4>
  %sd = arith.constant dense<[[1.2345677e+03, 1.2469135e-02, 2.7726474e+00, 6.286621e-05, 1.2397766e-07, 8.203125e-03, 3.234863e-05, 1.07e-01], [4.536e+01, 3.6333334e-01, 1.0999999e-01, 8.325e+00, 1.382716e+03, 1.3950617e-02, 3.0988412e+00, 7.019043e-05]]> : tensor<2x8xf32>
  %zd = arith.constant dense<[[7, -7, -4, 3, -2, 0, -7, 2], [5, 2, -5, 1, -3, 7, 6, -5]]> : tensor<2x8xi32>
  %d = octet.dequantize %q scale(%sd : tensor<2x8xf32>) zero_point(%zd : tensor<2x8xi32>) as <i4<-7:7>, per_group(0, 2), asymmetric> : tensor<4x8xi4> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// Three dimensions, groups along the middle one.
// CHECK-LABEL: func.func @rank3_per_group
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x3xf32>) -> tensor<2x8x3xf32>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}0.333333343, 0.100999996, 7.650000e+00], {{\[}}1271.60486, 0.0128395064, 2.85419583]], {{\[}}{{\[}}6.46972621E-5, 1.27553946E-7, 8.437500e-03], {{\[}}3.32641612E-5, 1.100000e-01, 4.662000e+01]]]> : tensor<2x2x3xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}15, 14, 13], {{\[}}11, 10, 0]], {{\[}}{{\[}}11, 7, 1], {{\[}}3, 8, 11]]]> : tensor<2x2x3xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<2x2x3xf32>) zero_point(%[[ZQ]] : tensor<2x2x3xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<2x8x3xf32> -> tensor<2x8x3xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}0.333333343, 0.100999996, 7.650000e+00], {{\[}}1271.60486, 0.0128395064, 2.85419583]], {{\[}}{{\[}}6.46972621E-5, 1.27553946E-7, 8.437500e-03], {{\[}}3.32641612E-5, 1.100000e-01, 4.662000e+01]]]> : tensor<2x2x3xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}15, 14, 13], {{\[}}11, 10, 0]], {{\[}}{{\[}}11, 7, 1], {{\[}}3, 8, 11]]]> : tensor<2x2x3xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<2x2x3xf32>) zero_point(%[[ZD]] : tensor<2x2x3xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<2x8x3xi4> -> tensor<2x8x3xf32>
// CHECK: return %[[D]]
func.func @rank3_per_group(%x: tensor<2x8x3xf32>) -> tensor<2x8x3xf32> {
  %sq = arith.constant dense<[[[3.3333334e-01, 1.00999996e-01, 7.65e+00], [1.2716049e+03, 1.2839506e-02, 2.8541958e+00]], [[6.469726e-05, 1.2755395e-07, 8.4375e-03], [3.326416e-05, 1.1e-01, 4.662e+01]]]> : tensor<2x2x3xf32>
  %zq = arith.constant dense<[[[15, 14, 13], [11, 10, 0]], [[11, 7, 1], [3, 8, 11]]]> : tensor<2x2x3xi32>
  %q = octet.quantize %x scale(%sq : tensor<2x2x3xf32>) zero_point(%zq : tensor<2x2x3xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<2x8x3xf32> -> tensor<2x8x3xi4>
  %sd = arith.constant dense<[[[3.3333334e-01, 1.00999996e-01, 7.65e+00], [1.2716049e+03, 1.2839506e-02, 2.8541958e+00]], [[6.469726e-05, 1.2755395e-07, 8.4375e-03], [3.326416e-05, 1.1e-01, 4.662e+01]]]> : tensor<2x2x3xf32>
  %zd = arith.constant dense<[[[15, 14, 13], [11, 10, 0]], [[11, 7, 1], [3, 8, 11]]]> : tensor<2x2x3xi32>
  %d = octet.dequantize %q scale(%sd : tensor<2x2x3xf32>) zero_point(%zd : tensor<2x2x3xi32>) as <u4, per_group(1, 4), asymmetric> : tensor<2x8x3xi4> -> tensor<2x8x3xf32>
  return %d : tensor<2x8x3xf32>
}

// f16 and bf16 expressed types (sub-channel scales are stored in the
// expressed type, so they are exact f16 / bf16 values here).
// CHECK-LABEL: func.func @f16_per_axis
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}0.099999994, 7.5749998, 1259.25916, 0.0127160493]> : tensor<4xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}255, 254, 223, 175]> : tensor<4xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4xf32>) zero_point(%[[ZQ]] : tensor<4xi32>) as <u8, per_axis(0), asymmetric> : tensor<4x8xf16> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}0.099999994, 7.5749998, 1259.25916, 0.0127160493]> : tensor<4xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}255, 254, 223, 175]> : tensor<4xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4xf32>) zero_point(%[[ZD]] : tensor<4xi32>) as <u8, per_axis(0), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf16>
// CHECK: return %[[D]]
func.func @f16_per_axis(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %sq = arith.constant dense<[9.9999994e-02, 7.575e+00, 1.2592592e+03, 1.2716049e-02]> : tensor<4xf32>
  %zq = arith.constant dense<[255, 254, 223, 175]> : tensor<4xi32>
  %q = octet.quantize %x scale(%sq : tensor<4xf32>) zero_point(%zq : tensor<4xi32>) as <u8, per_axis(0), asymmetric> : tensor<4x8xf16> -> tensor<4x8xi8>
  %sd = arith.constant dense<[9.9999994e-02, 7.575e+00, 1.2592592e+03, 1.2716049e-02]> : tensor<4xf32>
  %zd = arith.constant dense<[255, 254, 223, 175]> : tensor<4xi32>
  %d = octet.dequantize %q scale(%sd : tensor<4xf32>) zero_point(%zd : tensor<4xi32>) as <u8, per_axis(0), asymmetric> : tensor<4x8xi8> -> tensor<4x8xf16>
  return %d : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @f16_per_group
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}5.000000e-01, 2.500000e-01], {{\[}}1.500000e+00, 3.05175781E-5], {{\[}}0.0999755859, 7.500000e+00], {{\[}}2.000000e+00, 1.250000e-01]]> : tensor<4x2xf32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xf16> -> tensor<4x8xi4>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}5.000000e-01, 2.500000e-01], {{\[}}1.500000e+00, 3.05175781E-5], {{\[}}0.0999755859, 7.500000e+00], {{\[}}2.000000e+00, 1.250000e-01]]> : tensor<4x2xf32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xi4> -> tensor<4x8xf16>
// CHECK: return %[[D]]
func.func @f16_per_group(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %sq = arith.constant dense<[[5.e-01, 2.5e-01], [1.5e+00, 3.0517578e-05], [9.9975586e-02, 7.5e+00], [2.e+00, 1.25e-01]]> : tensor<4x2xf32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xf16> -> tensor<4x8xi4>
  %sd = arith.constant dense<[[5.e-01, 2.5e-01], [1.5e+00, 3.0517578e-05], [9.9975586e-02, 7.5e+00], [2.e+00, 1.25e-01]]> : tensor<4x2xf32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) as <i4, per_group(1, 4)> : tensor<4x8xi4> -> tensor<4x8xf16>
  return %d : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @bf16_per_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK: %[[SQ:.*]] = arith.constant dense<1234.56775> : tensor<f32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<127> : tensor<i32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<f32>) zero_point(%[[ZQ]] : tensor<i32>) as <i8, asymmetric> : tensor<4x8xbf16> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<1234.56775> : tensor<f32>
// CHECK: %[[ZD:.*]] = arith.constant dense<127> : tensor<i32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<f32>) zero_point(%[[ZD]] : tensor<i32>) as <i8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xbf16>
// CHECK: return %[[D]]
func.func @bf16_per_tensor(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %sq = arith.constant dense<1.2345677e+03> : tensor<f32>
  %zq = arith.constant dense<127> : tensor<i32>
  %q = octet.quantize %x scale(%sq : tensor<f32>) zero_point(%zq : tensor<i32>) as <i8, asymmetric> : tensor<4x8xbf16> -> tensor<4x8xi8>
  %sd = arith.constant dense<1.2345677e+03> : tensor<f32>
  %zd = arith.constant dense<127> : tensor<i32>
  %d = octet.dequantize %q scale(%sd : tensor<f32>) zero_point(%zd : tensor<i32>) as <i8, asymmetric> : tensor<4x8xi8> -> tensor<4x8xbf16>
  return %d : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @bf16_per_group
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK: %[[SQ:.*]] = arith.constant dense<{{\[}}{{\[}}5.000000e-01, 0.0123291016], {{\[}}1.500000e+00, 3.000000e+00], {{\[}}0.099609375, 7.500000e+00], {{\[}}2.000000e+00, 1.250000e-01]]> : tensor<4x2xf32>
// CHECK: %[[ZQ:.*]] = arith.constant dense<{{\[}}{{\[}}255, 254], {{\[}}27, 15], {{\[}}169, 99], {{\[}}153, 82]]> : tensor<4x2xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[SQ]] : tensor<4x2xf32>) zero_point(%[[ZQ]] : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xbf16> -> tensor<4x8xi8>
// CHECK: %[[SD:.*]] = arith.constant dense<{{\[}}{{\[}}5.000000e-01, 0.0123291016], {{\[}}1.500000e+00, 3.000000e+00], {{\[}}0.099609375, 7.500000e+00], {{\[}}2.000000e+00, 1.250000e-01]]> : tensor<4x2xf32>
// CHECK: %[[ZD:.*]] = arith.constant dense<{{\[}}{{\[}}255, 254], {{\[}}27, 15], {{\[}}169, 99], {{\[}}153, 82]]> : tensor<4x2xi32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[SD]] : tensor<4x2xf32>) zero_point(%[[ZD]] : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xi8> -> tensor<4x8xbf16>
// CHECK: return %[[D]]
func.func @bf16_per_group(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %sq = arith.constant dense<[[5.e-01, 1.2329102e-02], [1.5e+00, 3.e+00], [9.9609375e-02, 7.5e+00], [2.e+00, 1.25e-01]]> : tensor<4x2xf32>
  %zq = arith.constant dense<[[255, 254], [27, 15], [169, 99], [153, 82]]> : tensor<4x2xi32>
  %q = octet.quantize %x scale(%sq : tensor<4x2xf32>) zero_point(%zq : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xbf16> -> tensor<4x8xi8>
  %sd = arith.constant dense<[[5.e-01, 1.2329102e-02], [1.5e+00, 3.e+00], [9.9609375e-02, 7.5e+00], [2.e+00, 1.25e-01]]> : tensor<4x2xf32>
  %zd = arith.constant dense<[[255, 254], [27, 15], [169, 99], [153, 82]]> : tensor<4x2xi32>
  %d = octet.dequantize %q scale(%sd : tensor<4x2xf32>) zero_point(%zd : tensor<4x2xi32>) as <u8, per_group(1, 4), asymmetric> : tensor<4x8xi8> -> tensor<4x8xbf16>
  return %d : tensor<4x8xbf16>
}

// Storage values crossing function boundaries and other ops: the export
// puts quant.scast there, the import removes it again.
// CHECK-LABEL: func.func @produce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<6xi8>
// CHECK: %[[S:.*]] = arith.constant dense<{{\[}}0.0123456791, 5.000000e-01, 2.002500e+02]> : tensor<3xf32>
// CHECK: %[[Z:.*]] = arith.constant dense<{{\[}}255, 0, 128]> : tensor<3xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[S]] : tensor<3xf32>) zero_point(%[[Z]] : tensor<3xi32>) as <u8, per_axis(1), asymmetric> : tensor<2x3xf32> -> tensor<2x3xi8>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1]] : tensor<2x3xi8> into tensor<6xi8>
// CHECK: return %[[R]]
func.func @produce(%x: tensor<2x3xf32>) -> tensor<6xi8> {
  %s = arith.constant dense<[0.0123456789, 0.5, 200.25]> : tensor<3xf32>
  %z = arith.constant dense<[255, 0, 128]> : tensor<3xi32>
  %q = octet.quantize %x scale(%s : tensor<3xf32>) zero_point(%z : tensor<3xi32>) as <u8, per_axis(1), asymmetric> : tensor<2x3xf32> -> tensor<2x3xi8>
  %r = tensor.collapse_shape %q [[0, 1]] : tensor<2x3xi8> into tensor<6xi8>
  return %r : tensor<6xi8>
}

// CHECK-LABEL: func.func @consume
// CHECK-SAME: (%[[A:.*]]: tensor<6xi8>) -> tensor<6xf32>
// CHECK: %[[S:.*]] = arith.constant dense<7.812500e-03> : tensor<f32>
// CHECK: %[[D:.*]] = octet.dequantize %[[A]] scale(%[[S]] : tensor<f32>) as <i8<-127:127>> : tensor<6xi8> -> tensor<6xf32>
// CHECK: return %[[D]]
func.func @consume(%a: tensor<6xi8>) -> tensor<6xf32> {
  %s = arith.constant dense<0.0078125> : tensor<f32>
  %d = octet.dequantize %a scale(%s : tensor<f32>) as <i8<-127:127>> : tensor<6xi8> -> tensor<6xf32>
  return %d : tensor<6xf32>
}

// CHECK-LABEL: func.func @caller
// CHECK: %[[P:.*]] = call @produce(%{{.*}}) : (tensor<2x3xf32>) -> tensor<6xi8>
// CHECK: call @consume(%[[P]]) : (tensor<6xi8>) -> tensor<6xf32>
func.func @caller(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %p = call @produce(%x) : (tensor<2x3xf32>) -> tensor<6xi8>
  %d = call @consume(%p) : (tensor<6xi8>) -> tensor<6xf32>
  return %d : tensor<6xf32>
}

// Codes dequantized with other parameters than they were quantized with
// (quant.qcast, two quant.scast, quant.dcast in between).
// CHECK-LABEL: func.func @reinterpret
// CHECK: %[[S1:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[Q:.*]] = octet.quantize %{{.*}} scale(%[[S1]] : tensor<f32>) as <i4> : tensor<8xf32> -> tensor<8xi4>
// CHECK: %[[S:.*]] = arith.constant dense<6.250000e-02> : tensor<f32>
// CHECK: %[[Z:.*]] = arith.constant dense<15> : tensor<i32>
// CHECK: octet.dequantize %[[Q]] scale(%[[S]] : tensor<f32>) zero_point(%[[Z]] : tensor<i32>) as <u4, asymmetric> : tensor<8xi4> -> tensor<8xf32>
func.func @reinterpret(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = arith.constant dense<0.25> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i4> : tensor<8xf32> -> tensor<8xi4>
  %s2 = arith.constant dense<0.0625> : tensor<f32>
  %z2 = arith.constant dense<15> : tensor<i32>
  %d = octet.dequantize %q scale(%s2 : tensor<f32>) zero_point(%z2 : tensor<i32>) as <u4, asymmetric> : tensor<8xi4> -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// Dynamic dimensions (per_tensor, and per_axis along a static one).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>) -> tensor<?x3xi8>
// CHECK: %[[S:.*]] = arith.constant dense<{{\[}}5.000000e-01, 0.0123456791, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[Z:.*]] = arith.constant dense<{{\[}}-128, 5, 127]> : tensor<3xi32>
// CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[S]] : tensor<3xf32>) zero_point(%[[Z]] : tensor<3xi32>) as <i8, per_axis(1), asymmetric> : tensor<?x3xf32> -> tensor<?x3xi8>
// CHECK: %[[S2:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[S2]] : tensor<f32>) as <i8> : tensor<?x3xi8> -> tensor<?x3xf32>
// CHECK: %[[S3:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK: %[[R:.*]] = octet.quantize %[[D]] scale(%[[S3]] : tensor<f32>) as <i8> : tensor<?x3xf32> -> tensor<?x3xi8>
// CHECK: return %[[R]]
func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xi8> {
  %s = arith.constant dense<[0.5, 0.0123456789, 3.0]> : tensor<3xf32>
  %z = arith.constant dense<[-128, 5, 127]> : tensor<3xi32>
  %q = octet.quantize %x scale(%s : tensor<3xf32>) zero_point(%z : tensor<3xi32>) as <i8, per_axis(1), asymmetric> : tensor<?x3xf32> -> tensor<?x3xi8>
  %s2 = arith.constant dense<0.1> : tensor<f32>
  %d = octet.dequantize %q scale(%s2 : tensor<f32>) as <i8> : tensor<?x3xi8> -> tensor<?x3xf32>
  %s3 = arith.constant dense<0.1> : tensor<f32>
  %r = octet.quantize %d scale(%s3 : tensor<f32>) as <i8> : tensor<?x3xf32> -> tensor<?x3xi8>
  return %r : tensor<?x3xi8>
}

