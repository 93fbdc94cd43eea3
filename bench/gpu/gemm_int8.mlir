// INT8 GEMM of bench/gpu (octet-gpu-bench): s8 x s8 with per-tensor scales,
// f32 result (4 bytes per output, as cuBLASLt's s32). Any M, N, K.
func.func @gemm_int8(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>,
    %sa: tensor<f32>, %sb: tensor<f32>) -> tensor<?x?xf32> {
  %y = octet.matmul %a, %b lhs_scale(%sa : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%sb : tensor<f32>) rhs_scheme <i8>
         : tensor<?x?xi8>, tensor<?x?xi8> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
