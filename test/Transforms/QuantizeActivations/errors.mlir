// RUN: not octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not octet-opt %s --octet-quantize-activations="mode=static" 2>&1 | FileCheck %s --check-prefix=NOSTATS
// RUN: not octet-opt %s --octet-quantize-activations="mode=static stats=%t.nope" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json method=median" 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json method=percentile:120" 2>&1 | FileCheck %s --check-prefix=PCT
// RUN: not octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json format=f8E4M3FN method=mse" 2>&1 | FileCheck %s --check-prefix=FP8MSE
// RUN: not octet-opt %s --octet-quantize-activations="mode=sometimes" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not octet-opt %s --octet-quantize-activations="format=i16" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not octet-opt %s --octet-quantize-activations="format=f8E5M2 symmetric=false" 2>&1 | FileCheck %s --check-prefix=FP8ASYM
// RUN: not octet-opt %s --octet-quantize-activations="granularity=per-channel" 2>&1 | FileCheck %s --check-prefix=GRAN
// RUN: echo '{"tensors": 3}' > %t.bad.json
// RUN: not octet-opt %s --octet-quantize-activations="mode=static stats=%t.bad.json" 2>&1 | FileCheck %s --check-prefix=BADJSON
// RUN: echo 'func.func @f() { return }' | not octet-opt --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json" 2>&1 | FileCheck %s --check-prefix=NOOBS
// RUN: not octet-opt %s --octet-quantize-activations="mode=dynamic format=nf4" 2>&1 | FileCheck %s --check-prefix=NF4ACT
// RUN: not octet-opt %s --octet-quantize-activations="mode=dynamic format=f4E2M1FN" 2>&1 | FileCheck %s --check-prefix=FP4ACT
// RUN: not octet-opt %s --octet-quantize-activations="mode=static format=mxfp8 stats=%S/Inputs/stats.json" 2>&1 | FileCheck %s --check-prefix=MXSTATIC
// RUN: not octet-opt %s --octet-quantize-activations="format=mxfp8 granularity=per-tensor" 2>&1 | FileCheck %s --check-prefix=MXTENSOR

// MISSING: error: calibration statistics '{{.*}}stats.json' have no entry for observed tensor 'fc2.input'
// NOSTATS: error: octet-quantize-activations: mode=static needs stats=FILE.json (written by octet-run --calibrate)
// NOFILE: error: cannot read calibration statistics '{{.*}}.nope'
// METHOD: error: octet-quantize-activations: unknown method 'median'; expected minmax, percentile:P or mse
// PCT: error: octet-quantize-activations: bad percentile 'percentile:120'; expected percentile:P with 0 < P <= 100
// FP8MSE: error: octet-quantize-activations: method=mse models uniform integer steps; use minmax or percentile:P for FP8
// MODE: error: octet-quantize-activations: unknown mode 'sometimes'; expected dynamic or static
// FORMAT: error: octet-quantize-activations: unknown format 'i16'; expected auto, i8, u8, i4, u4, f8E4M3FN, f8E5M2, mxfp8, mxfp8-e5m2, mxfp4 or nvfp4
// FP8ASYM: error: octet-quantize-activations: FP8 and FP4 activations are symmetric; drop symmetric=false
// GRAN: error: octet-quantize-activations: unknown granularity 'per-channel'; expected per-token, per-token-group or per-tensor
// BADJSON: error: '{{.*}}.bad.json' has no "tensors" object; is it a file written by octet-run --calibrate?
// MXSTATIC: error: octet-quantize-activations: mxfp8 activations are dynamic (an E8M0 scale per token and block of 32, computed at run time); use mode=dynamic
// MXTENSOR: error: octet-quantize-activations: mxfp8 scales are per token and block of 32 along K; granularity=per-tensor does not apply
// NOOBS: error: octet-quantize-activations: mode=static found no octet.observe ops; run octet-instrument and calibrate first
func.func @main(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %xo = octet.observe %x {name = "fc2.input"} : tensor<4x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%xo, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// NF4ACT: octet-quantize-activations: nf4 activations are not supported (NF4 weights are weight-only: the activations stay float)
// FP4ACT: octet-quantize-activations: f4E2M1FN activations need block scales; use format=mxfp4 (E2M1 in blocks of 32 with E8M0 scales)
