// RUN: rm -rf %t && mkdir -p %t/stats.second-moment
// RUN: %python -c "import json, numpy as np; x = np.random.default_rng(1).standard_normal((32, 64)); np.save('%t/stats.second-moment/0.npy', x.T @ x); json.dump({'format': 'octet-calibration', 'version': 1, 'tensors': {'fc.input': {'min': -1, 'max': 1, 'absmax': 1, 'count': 2048, 'second_moment': {'file': 'stats.second-moment/0.npy', 'dim': 64, 'rows': 32}}}}, open('%t/stats.json', 'w'))"
// RUN: octet-opt %s --octet-quantize="recipe=w4a16 group-size=32 algorithm=gptq damp=0.05 stats=%t/stats.json report=%t/report.json" | FileCheck %s --check-prefix=GPTQ
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.json
// RUN: not octet-opt %s --octet-quantize="recipe=w8a8-static algorithm=gptq stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not octet-opt %s --octet-pipeline="recipe=w8a8-static target=avx2 algorithm=gptq stats=%t/stats.json" 2>&1 | FileCheck %s --check-prefix=STATIC-PIPE
// RUN: not octet-opt %s --octet-quantize="recipe=w4a16 algorithm=gptq" 2>&1 | FileCheck %s --check-prefix=NOSTATS

// octet-quantize forwards algorithm=gptq, stats= and damp= to the weights.
// GPTQ-NOT: octet.observe
// GPTQ: octet.matmul %{{.*}}, %{{.*}} rhs_scale(%{{.*}} : tensor<2x16xf32>) rhs_scheme <i4, per_group(0, 32)>
// GPTQ-NOT: octet.observe
// REPORT: "algorithm": "gptq"
// REPORT: "damp": 0.05
// STATIC: octet-quantize: algorithm=gptq does not combine with w8a8-static in one step
// STATIC-PIPE: octet-pipeline: algorithm=gptq does not combine with w8a8-static in one step
// NOSTATS: octet-quantize-weights: algorithm=gptq needs stats=FILE.json
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<0.3> : tensor<64x16xf32>
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %xo = octet.observe %x {name = "fc.input"} : tensor<4x64xf32>
  %y = linalg.matmul ins(%xo, %w : tensor<4x64xf32>, tensor<64x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32> loc("fc")
  return %y : tensor<4x16xf32>
}
