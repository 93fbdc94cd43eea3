// One RUN line per storage format. The weight's columns have absmax 0.5 and
// 2 (the per-channel scales are absmax / target).
// RUN: octet-opt %s --octet-quantize-weights=format=i8 | FileCheck %s --check-prefix=I8
// RUN: octet-opt %s --octet-quantize-weights=format=u8 | FileCheck %s --check-prefix=U8
// RUN: octet-opt %s --octet-quantize-weights="format=u8 symmetric=true" | FileCheck %s --check-prefix=U8SYM
// RUN: octet-opt %s --octet-quantize-weights=format=i4 | FileCheck %s --check-prefix=I4
// RUN: octet-opt %s --octet-quantize-weights=format=u4 | FileCheck %s --check-prefix=U4
// RUN: octet-opt %s --octet-quantize-weights=format=f8E4M3FN | FileCheck %s --check-prefix=E4M3
// RUN: octet-opt %s --octet-quantize-weights=format=f8E5M2 | FileCheck %s --check-prefix=E5M2

// I8-LABEL:  func.func @w
// I8-DAG:      arith.constant dense<{{\[}}[127, -64], [-127, 127]]> : tensor<2x2xi8>
// I8-DAG:      arith.constant dense<[0.00393700786, 0.0157480314]> : tensor<2xf32>
// I8:          octet.dequantize {{.*}} as <i8, per_axis(1)> : tensor<2x2xi8> -> tensor<2x2xf32>

// u8 defaults to asymmetric: [-0.5, 0.5] -> scale 1/255, zp
// rint(0.5 / scale) = rint(127.49998) = 127 in f32, so -0.5 maps to code 0
// and 0.5 to 254 (stored as -2); [-1, 2] -> scale 3/255, zp 85, 2 -> 255.
// U8-LABEL:  func.func @w
// U8-DAG:      arith.constant dense<{{\[}}[-2, 0], [0, -1]]> : tensor<2x2xi8>
// U8-DAG:      arith.constant dense<[0.00392156886, 0.0117647061]> : tensor<2xf32>
// U8-DAG:      arith.constant dense<[127, 85]> : tensor<2xi32>
// U8:          octet.dequantize {{.*}} zero_point({{.*}} : tensor<2xi32>) as <u8, per_axis(1), asymmetric>

// Symmetric u8 (explicit) has no negative codes.
// U8SYM:       octet.dequantize {{.*}} as <u8, per_axis(1)> : tensor<2x2xi8>

// 4-bit: codes in [-8, 7], scales absmax / 7; -1 / (2 / 7) is -3.4999998
// in f32 (the scale rounds up), so it rounds to -3.
// I4-LABEL:  func.func @w
// I4-DAG:      arith.constant dense<{{\[}}[7, -3], [-7, 7]]> : tensor<2x2xi4>
// I4-DAG:      arith.constant dense<[0.0714285746, 0.285714298]> : tensor<2xf32>
// I4:          octet.dequantize {{.*}} as <i4, per_axis(1)> : tensor<2x2xi4> -> tensor<2x2xf32>

// U4-LABEL:  func.func @w
// U4:          octet.dequantize {{.*}} zero_point({{.*}} : tensor<2xi32>) as <u4, per_axis(1), asymmetric> : tensor<2x2xi4>

// FP8: scale absmax / 448 (E4M3FN) or / 57344 (E5M2); the largest
// magnitude maps to the largest finite value.
// E4M3-LABEL: func.func @w
// E4M3-DAG:    arith.constant dense<{{\[}}[4.480000e+02, -2.240000e+02], [-4.480000e+02, 4.480000e+02]]> : tensor<2x2xf8E4M3FN>
// E4M3-DAG:    arith.constant dense<[0.00111607148, 0.00446428591]> : tensor<2xf32>
// E4M3:        octet.dequantize {{.*}} as <f8E4M3FN, per_axis(1)> : tensor<2x2xf8E4M3FN> -> tensor<2x2xf32>

// E5M2-LABEL: func.func @w
// E5M2-DAG:    arith.constant dense<{{\[}}[5.734400e+04, -2.867200e+04], [-5.734400e+04, 5.734400e+04]]> : tensor<2x2xf8E5M2>
// E5M2:        octet.dequantize {{.*}} as <f8E5M2, per_axis(1)> : tensor<2x2xf8E5M2> -> tensor<2x2xf32>
func.func @w(%x: tensor<3x2xf32>, %o: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[0.5, -1.0], [-0.5, 2.0]]> : tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
