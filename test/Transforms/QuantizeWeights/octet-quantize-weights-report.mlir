// RUN: octet-opt %s --octet-quantize-weights="format=i4 granularity=per-group group-size=2 report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json

// The JSON report: options, one entry per layer (quantized or skipped) and
// a summary. i4 codes count packed, two per byte: 8 codes -> 4 bytes, plus
// 4 bytes per scale (2 groups x 2 channels).

// CHECK:      "pass": "octet-quantize-weights",
// CHECK:      "options": {
// CHECK-NEXT:   "format": "i4",
// CHECK-NEXT:   "granularity": "per-group",
// CHECK-NEXT:   "group_size": 2,
// CHECK-NEXT:   "symmetric": true,
// CHECK-NEXT:   "clip": "absmax",
// CHECK:      "layers": [
// CHECK:          "name": "proj",
// CHECK-NEXT:     "op": "linalg.matmul",
// CHECK-NEXT:     "operand": 1,
// CHECK-NEXT:     "shape": [
// CHECK-NEXT:       4,
// CHECK-NEXT:       2
// CHECK-NEXT:     ],
// CHECK-NEXT:     "element_type": "f32",
// CHECK-NEXT:     "elements": 8,
// CHECK-NEXT:     "quantized": true,
// CHECK-NEXT:     "format": "i4",
// CHECK-NEXT:     "granularity": "per_group(0, 2)",
// CHECK-NEXT:     "scheme": "#octet.scheme<i4, per_group(0, 2)>",
// CHECK-NEXT:     "symmetric": true,
// CHECK-NEXT:     "layout": "constant",
// CHECK-NEXT:     "clip": "absmax",
// CHECK-NEXT:     "clip_threshold": {
// CHECK-NEXT:       "min": 0.5,
// CHECK-NEXT:       "max": 7,
// CHECK:          "sqnr_db": {{[0-9.]+}},
// CHECK-NEXT:     "clip_curve": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "ratio": 0.25,
// CHECK:                "ratio": 1,
// CHECK-NEXT:         "sqnr_db": {{[0-9.]+}}
// CHECK-NEXT:       }
// CHECK-NEXT:     ],
// CHECK-NEXT:     "max_abs_error": {{[0-9.e-]+}},
// CHECK-NEXT:     "bytes_before": 32,
// CHECK-NEXT:     "bytes_after": 20,
// CHECK-NEXT:     "code_bytes": 4,
// CHECK-NEXT:     "param_bytes": 16,
// CHECK-NEXT:     "error_histogram": {
// CHECK-NEXT:       "unit": "scale",
// CHECK-NEXT:       "upper_edges": [
// CHECK-NEXT:         0.1{{0*1?}},
// CHECK:              null
// CHECK-NEXT:       ],
// CHECK-NEXT:       "counts": [
// CHECK:          "name": "lm_head",
// CHECK:          "quantized": false,
// CHECK-NEXT:     "skip_reason": "lm_head (final vocabulary projection)",
// CHECK-NEXT:     "bytes_before": 32
// CHECK:      "summary": {
// CHECK-NEXT:   "layers_quantized": 1,
// CHECK-NEXT:   "layers_skipped": 1,
// CHECK-NEXT:   "bytes_before": 32,
// CHECK-NEXT:   "bytes_after": 20,
// CHECK-NEXT:   "compression": 1.6000000000000001,
// CHECK-NEXT:   "sqnr_db_min": {{[0-9.]+}},
// CHECK-NEXT:   "sqnr_db_median": {{[0-9.]+}}
func.func @f(%x: tensor<3x4xf32>, %o: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<[[0.5, 7.0], [-0.25, 1.0], [3.0, -2.0], [1.0, 0.5]]> : tensor<4x2xf32>
  %h = arith.constant dense<1.0> : tensor<4x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x4xf32>, tensor<4x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32> loc("proj")
  %z = linalg.matmul ins(%x, %h : tensor<3x4xf32>, tensor<4x2xf32>) outs(%o : tensor<3x2xf32>) -> tensor<3x2xf32> loc("lm_head")
  return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}
