// RUN: octet-opt %s --octet-quantize-weights="remarks=true" 2>&1 | FileCheck %s
// RUN: octet-opt %s --octet-quantize="recipe=w8a16 skip-lm-head=false" | FileCheck %s --check-prefix=KEEP
// RUN: octet-opt %s --octet-quantize="recipe=w8a16 skip=ffn_" | FileCheck %s --check-prefix=SKIP
// RUN: octet-opt %s --octet-quantize="recipe=w4a16 group-size=0" | FileCheck %s --check-prefix=W4CH
// RUN: octet-opt %s --octet-quantize="recipe=w4a16 group-size=4" | FileCheck %s --check-prefix=W4G

// GGUF names the vocabulary projection `output` (output.weight): it is the
// lm_head and stays float by default; `blk.0.attn_output` is not. The
// octet-quantize recipes pass skip and skip-lm-head through.

// CHECK-DAG: remark: {{.*}}weight of 'output' not quantized: lm_head (final vocabulary projection)
// CHECK-DAG: remark: {{.*}}quantized weight of 'blk.0.attn_output'
// CHECK-DAG: remark: {{.*}}quantized weight of 'blk.0.ffn_up'
// CHECK: remark: {{.*}}octet-quantize-weights: 2 layers quantized, 1 skipped

// KEEP-LABEL: func.func @decoder
// KEEP-COUNT-3: octet.dequantize
// KEEP-NOT:     octet.dequantize

// SKIP-LABEL: func.func @decoder
// SKIP-COUNT-1: octet.dequantize
// SKIP-NOT:     octet.dequantize
// w4a16 group-size=0: one scale per output channel.
// W4CH-COUNT-2: octet.dequantize {{.*}} as <i4, per_axis(1)> : tensor<8x8xi4> -> tensor<8x8xf32>
// W4G-COUNT-2: octet.dequantize {{.*}} as <i4, per_group(0, 4)> : tensor<8x8xi4> -> tensor<8x8xf32>
func.func @decoder(%x: tensor<2x8xf32>, %o: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %w0 = arith.constant dense<1.0> : tensor<8x8xf32>
  %w1 = arith.constant dense<2.0> : tensor<8x8xf32>
  %w2 = arith.constant dense<3.0> : tensor<8x8xf32>
  %a = linalg.matmul ins(%x, %w0 : tensor<2x8xf32>, tensor<8x8xf32>) outs(%o : tensor<2x8xf32>) -> tensor<2x8xf32> loc("blk.0.attn_output")
  %b = linalg.matmul ins(%x, %w1 : tensor<2x8xf32>, tensor<8x8xf32>) outs(%o : tensor<2x8xf32>) -> tensor<2x8xf32> loc("blk.0.ffn_up")
  %c = linalg.matmul ins(%x, %w2 : tensor<2x8xf32>, tensor<8x8xf32>) outs(%o : tensor<2x8xf32>) -> tensor<2x8xf32> loc("output")
  return %a, %b, %c : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
