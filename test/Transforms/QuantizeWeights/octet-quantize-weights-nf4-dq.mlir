// format=nf4-dq: NF4 per group of 64 (the default) along K with
// double-quantized scales. The weight's absmax is 1, so the global scale is
// g = f32(1 / 448) = 0.00223214296; block 0 (absmax 1) gets e4m3(448) * g =
// 1, block 1 (absmax 0.3) e4m3(134.4) = 128 (E4M3's step is 16 there), so
// its scale 128 g = 0.285714298 is below its absmax and 0.3 maps to the end
// code 15 (1.0), -0.15 / 0.2857 = -0.525 to code 2 (-0.5251). Values
// computed with numpy + ml_dtypes; the oracle tests in
// test/Integration/QuantizeWeights check every code and scale bit for bit.
// RUN: octet-opt %s --octet-quantize-weights=format=nf4-dq | FileCheck %s

// CHECK-LABEL: func.func @w
// Codes: 7 (0.0) everywhere but 15 at rows 5 and 70, 2 at row 71.
// CHECK-DAG:   arith.constant dense<"0x07070707070F070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070F020707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707070707"> : tensor<128x1xi4>
// CHECK-DAG:   arith.constant dense<{{\[}}[1.000000e+00], [0.285714298]]> : tensor<2x1xf32>
// CHECK:       octet.dequantize {{.*}} as <nf4, per_group(0, 64), e4m3(0.00223214296)> : tensor<128x1xi4> -> tensor<128x1xf32>
func.func @w(%x: tensor<1x128xf32>, %o: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %w = arith.constant dense<[
    [0.0], [0.0], [0.0], [0.0], [0.0], [1.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.3], [-0.15],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0],
    [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]> : tensor<128x1xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1x128xf32>, tensor<128x1xf32>) outs(%o : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}
