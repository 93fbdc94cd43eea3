// RUN: octet-opt %s --octet-quantize-weights="skip=^attn\. min-elements=8 remarks=true" 2>&1 | FileCheck %s
// RUN: octet-opt %s --octet-quantize-weights="skip-lm-head=false min-elements=8" | FileCheck %s --check-prefix=KEEP

// Skip rules: a name regex, the octet.skip attribute (on the contraction or
// on the weight constant), lm_head (the final vocabulary projection) and a
// minimum number of elements. Skipped weights stay float.

// CHECK-DAG: remark: {{.*}}weight of 'attn.q' not quantized: name matches skip='^attn\.'
// CHECK-DAG: remark: {{.*}}weight of 'marked' not quantized: marked octet.skip
// CHECK-DAG: remark: {{.*}}weight of 'marked_const' not quantized: marked octet.skip
// CHECK-DAG: remark: {{.*}}weight of 'model.lm_head' not quantized: lm_head (final vocabulary projection)
// CHECK-DAG: remark: {{.*}}weight of 'tiny' not quantized: 4 elements, fewer than min-elements=8
// CHECK-DAG: remark: {{.*}}quantized weight of 'mlp.fc1'
// CHECK-DAG: remark: {{.*}}quantized weight of 'lm_head_proj'
// CHECK: remark: {{.*}}octet-quantize-weights: 2 layers quantized, 5 skipped

// CHECK-LABEL: func.func @layers
// CHECK-COUNT-2: octet.dequantize
// CHECK-NOT:     octet.dequantize

// With skip-lm-head=false and no regex, lm_head and attn.q are quantized.
// KEEP-LABEL: func.func @layers
// KEEP-COUNT-4: octet.dequantize
// KEEP-NOT:     octet.dequantize
func.func @layers(%x: tensor<2x4xf32>, %x2: tensor<2x2xf32>, %o: tensor<2x4xf32>, %o2: tensor<2x2xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x4xf32>) {
  %w0 = arith.constant dense<1.0> : tensor<4x4xf32>
  %w1 = arith.constant dense<2.0> : tensor<4x4xf32>
  %w2 = arith.constant dense<3.0> : tensor<4x4xf32>
  %w3 = arith.constant {octet.skip} dense<4.0> : tensor<4x4xf32>
  %w4 = arith.constant dense<5.0> : tensor<4x4xf32>
  %w5 = arith.constant dense<6.0> : tensor<2x2xf32>
  %w6 = arith.constant dense<7.0> : tensor<4x4xf32>
  %a = linalg.matmul ins(%x, %w0 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32> loc("attn.q")
  %b = linalg.matmul {octet.skip} ins(%x, %w1 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32> loc("marked")
  %c = linalg.matmul ins(%x, %w2 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32> loc("mlp.fc1")
  %d = linalg.matmul ins(%x, %w3 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32> loc("marked_const")
  %e = linalg.matmul ins(%x, %w4 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32> loc("model.lm_head")
  %f = linalg.matmul ins(%x2, %w5 : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o2 : tensor<2x2xf32>) -> tensor<2x2xf32> loc("tiny")
  %g = linalg.matmul ins(%x, %w6 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32> loc("lm_head_proj")
  return %a, %b, %c, %d, %e, %f, %g : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x4xf32>
}
