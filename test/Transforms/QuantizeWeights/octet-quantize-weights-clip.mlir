// RUN: octet-opt %s --octet-quantize-weights="granularity=per-tensor clip=absmax report=-" -o /dev/null | FileCheck %s --check-prefix=ABSMAX
// RUN: octet-opt %s --octet-quantize-weights="granularity=per-tensor clip=percentile:90 report=-" | FileCheck %s --check-prefix=PCT
// RUN: octet-opt %s --octet-quantize-weights="granularity=per-tensor clip=percentile:95 report=-" -o /dev/null | FileCheck %s --check-prefix=PCT95
// RUN: octet-opt %s --octet-quantize-weights="granularity=per-tensor format=i4 clip=mse report=-" -o /dev/null | FileCheck %s --check-prefix=MSE

// Eleven values 0.1 ... 1.0 and one outlier, 100.

// absmax: T = 100.
// ABSMAX:      "clip": "absmax"
// ABSMAX:      "clip_threshold": {
// ABSMAX-NEXT:   "min": 100,
// ABSMAX:      "clip_ratio": {
// ABSMAX-NEXT:   "min": 1,

// percentile:90 of the 11 magnitudes: rank 0.9 * 10 = 9 -> the 10th
// smallest, 1.0 (exactly), so T = 1 and scale = 1 / 127; the outlier
// saturates to 127.
// PCT:         "clip_threshold": {
// PCT-NEXT:      "min": 1,
// PCT:         "clip_ratio": {
// PCT-NEXT:      "min": 0.0099999997764825821,
// PCT-LABEL:   func.func @w
// PCT-DAG:       arith.constant dense<0.00787401571> : tensor<f32>
// PCT-DAG:       arith.constant dense<{{\[}}[13], [25], [38], [51], [64], [76], [89], [102], [114], [127], [127]]> : tensor<11x1xi8>

// percentile:95: rank 9.5 -> 1.0 + (100 - 1.0) * 0.5 = 50.5.
// PCT95:       "clip_threshold": {
// PCT95-NEXT:    "min": 50.5,

// mse keeps the outlier here: clipping it costs more squared error than
// the finer step saves.
// MSE:         "clip": "mse"
// MSE:         "clip_ratio": {
// MSE-NEXT:      "min": 1,

// On Laplace quantiles (64 values up to 4.16) 4-bit MSE clips: ratio < 1.
// MSE-LABEL:   "name": "laplace"
// MSE:         "clip_ratio": {
// MSE-NEXT:      "min": 0.{{[0-9]+}},
func.func @w(%x: tensor<3x11xf32>, %o: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %w = arith.constant dense<[[0.1], [0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8], [0.9], [1.0], [100.0]]> : tensor<11x1xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x11xf32>, tensor<11x1xf32>) outs(%o : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}

func.func @laplace(%x: tensor<3x64xf32>, %o: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %w = arith.constant dense<[[0.0157], [-0.0157], [0.0480], [-0.0480], [0.0813], [-0.0813], [0.1158], [-0.1158], [0.1515], [-0.1515], [0.1886], [-0.1886], [0.2271], [-0.2271], [0.2671], [-0.2671], [0.3087], [-0.3087], [0.3522], [-0.3522], [0.3977], [-0.3977], [0.4453], [-0.4453], [0.4953], [-0.4953], [0.5480], [-0.5480], [0.6035], [-0.6035], [0.6624], [-0.6624], [0.7249], [-0.7249], [0.7916], [-0.7916], [0.8630], [-0.8630], [0.9400], [-0.9400], [1.0234], [-1.0234], [1.1144], [-1.1144], [1.2144], [-1.2144], [1.3257], [-1.3257], [1.4508], [-1.4508], [1.5939], [-1.5939], [1.7610], [-1.7610], [1.9617], [-1.9617], [2.2130], [-2.2130], [2.5494], [-2.5494], [3.0603], [-3.0603], [4.1589], [-4.1589]]> : tensor<64x1xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x64xf32>, tensor<64x1xf32>) outs(%o : tensor<3x1xf32>) -> tensor<3x1xf32> loc("laplace")
  return %y : tensor<3x1xf32>
}
