// RUN: octet-opt %s -verify-diagnostics --octet-quantize-weights="nonfinite=clip" | FileCheck %s

// nonfinite=clip: a warning; the statistics ignore NaN and inf (column 1's
// scale comes from |-2| = 2), NaN quantizes to 0 and +inf saturates.

// CHECK-LABEL: func.func @clip_nonfinite
// CHECK-DAG:     arith.constant dense<{{\[}}[127, 127], [0, -127]]> : tensor<2x2xi8>
// CHECK-DAG:     arith.constant dense<[0.00787401571, 0.0157480314]> : tensor<2xf32>
func.func @clip_nonfinite(%x: tensor<3x2xf32>, %o: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 0x7F800000], [0x7FC00000, -2.0]]> : tensor<2x2xf32>
  // expected-warning-re @+1 {{weight of '{{.*}}' has a non-finite value (+inf) at index [0, 1]; NaN quantizes to the zero point, +-inf saturates}}
  %y = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
