// FP8 GEMM of bench/gpu (octet-gpu-bench): e4m3 x e4m3 with per-tensor
// scales, bf16 result, as cuBLASLt's FP8 GEMM. Any M, N, K.
func.func @gemm_fp8(%a: tensor<?x?xf8E4M3FN>, %b: tensor<?x?xf8E4M3FN>,
    %sa: tensor<f32>, %sb: tensor<f32>) -> tensor<?x?xbf16> {
  %y = octet.matmul %a, %b lhs_scale(%sa : tensor<f32>) lhs_scheme <f8E4M3FN>
         rhs_scale(%sb : tensor<f32>) rhs_scheme <f8E4M3FN>
         : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN> -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
