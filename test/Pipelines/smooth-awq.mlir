// RUN: rm -rf %t && mkdir -p %t/stats.second-moment
// RUN: %python -c "import json, numpy as np; x = np.random.default_rng(1).standard_normal((32, 64)); np.save('%t/stats.second-moment/0.npy', x.T @ x); json.dump({'format': 'octet-calibration', 'version': 1, 'tensors': {'fc.input': {'min': -1, 'max': 1, 'absmax': 1, 'count': 2048, 'second_moment': {'file': 'stats.second-moment/0.npy', 'dim': 64, 'rows': 32}, 'channels': {'dim': 64, 'rows': 32, 'absmax': [1.0] * 64, 'mean_abs': [0.5] * 63 + [4.0]}}}}, open('%t/stats.json', 'w'))"
// RUN: octet-opt %s --octet-quantize="recipe=w8a8-dynamic smooth=0.5 stats=%t/stats.json" | FileCheck %s --check-prefix=SMOOTH
// RUN: octet-opt %s --octet-pipeline="recipe=w8a8 target=avx2 smooth=0.5 stats=%t/stats.json lower=false" | FileCheck %s --check-prefix=SMOOTH
// RUN: octet-opt %s --octet-quantize="recipe=w4a16 group-size=32 algorithm=awq stats=%t/stats.json report=%t/report.json" | FileCheck %s --check-prefix=AWQ
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.json
// RUN: octet-opt %s --octet-quantize="recipe=w4a16 group-size=32 algorithm=awq-gptq act-order=true stats=%t/stats.json report=%t/ag.json" | FileCheck %s --check-prefix=AWQ
// RUN: FileCheck %s --check-prefix=AGREPORT < %t/ag.json
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-static algorithm=awq-gptq stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=AGSTATIC
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-static smooth=0.5 stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-static algorithm=awq stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=AWQSTATIC
// RUN: not octet-opt %s --octet-pipeline="recipe=w8a8-static target=avx2 algorithm=awq stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=AWQSTATIC-PIPE
// RUN: not octet-opt %s --octet-quantize="recipe=w4a16 smooth=0.5 stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=WEIGHTONLY
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-dynamic smooth=0.5 algorithm=gptq stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=GPTQ
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-dynamic smooth=1.5 stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=RANGE

// smooth=0.5: s = sqrt(absmax 1) / sqrt(max|W| 0.25) = 2, so the norm's
// weight 1.0 becomes 0.5 and the weights 0.25 become 0.5 (before their
// quantization: a scale of 0.5 / 127).
// SMOOTH-NOT: octet.observe
// SMOOTH: arith.constant dense<5.000000e-01> : tensor<64xf32>
// SMOOTH: dense<0.00393700786> : tensor<16xf32>
// SMOOTH: linalg.generic
// SMOOTH-NOT: octet.observe
// AWQ-NOT: octet.observe
// AWQ: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<2x16xf32>) rhs_scheme <i4, per_group(0, 32)>
// REPORT: "algorithm": "awq"
// REPORT: "awq": [
// REPORT: "layers": [
// REPORT-NEXT: "fc"
// REPORT-NEXT: ]
// REPORT: "fold": "multiplier"
// REPORT: "fold_into": "norm"
// AGREPORT: "algorithm": "awq-gptq"
// AGREPORT: "stats":
// AGREPORT-NOT: "stats":
// AGREPORT: "act_order": true
// AGREPORT: "awq": [
// AGREPORT: "fold_into": "norm"
// AGSTATIC: octet-quantize: algorithm=awq-gptq does not combine with w8a8-static in one step
// STATIC: octet-quantize: smooth= does not combine with w8a8-static in one step (the activation ranges must be measured after smoothing); run octet-smooth-quant, then octet-instrument, octet-run --calibrate and octet-quantize recipe=w8a8-static
// AWQSTATIC: octet-quantize: algorithm=awq does not combine with w8a8-static in one step
// AWQSTATIC-PIPE: octet-pipeline: algorithm=awq does not combine with w8a8-static in one step
// WEIGHTONLY: octet-quantize: smooth= is for recipes that quantize activations; 'w4a16' does not
// GPTQ: octet-quantize: smooth= does not combine with algorithm=gptq (its statistics describe the activations before smoothing)
// RANGE: octet-quantize: smooth must be in [0, 1] (or negative: off), got 1.5
#id = affine_map<(d0, d1) -> (d0, d1)>
#last = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %g = arith.constant dense<1.0> : tensor<64xf32>
  %w = arith.constant dense<0.25> : tensor<64x16xf32>
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x64xf32>
  %h = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %g : tensor<4x64xf32>, tensor<64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = math.tanh %a : f32
    %r = arith.mulf %t, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32> loc("norm")
  %xo = octet.observe %h {name = "fc.input"} : tensor<4x64xf32>
  %y = linalg.matmul ins(%xo, %w : tensor<4x64xf32>, tensor<64x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32> loc("fc")
  return %y : tensor<4x16xf32>
}
