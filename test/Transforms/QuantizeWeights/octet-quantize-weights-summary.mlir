// RUN: octet-opt %s --octet-quantize-weights="remarks=true" -o /dev/null 2>&1 | FileCheck %s

// The summary remark: layers, bytes before/after, min and median SQNR.
// The 2x2 weight quantizes exactly (SQNR +inf); the other does not.

// CHECK: remark: {{.*}}quantized weight of 'exact' (2x2xf32) as #octet.scheme<i8, per_axis(1)>: SQNR inf dB
// CHECK: remark: {{.*}}quantized weight of 'lossy'
// CHECK: remark: octet-quantize-weights: 2 layers quantized, 0 skipped; 32 -> 24 bytes (1.33x); SQNR min {{[0-9]+\.[0-9][0-9]}} dB, median inf dB
func.func @two(%x: tensor<2x2xf32>, %o: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, -1.0], [-1.0, 1.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[0.3, -1.0], [-0.7, 2.0]]> : tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32> loc("exact")
  %z = linalg.matmul ins(%x, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32> loc("lossy")
  return %y, %z : tensor<2x2xf32>, tensor<2x2xf32>
}
