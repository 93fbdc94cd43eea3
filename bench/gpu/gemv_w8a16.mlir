// W8A16 decode GEMV of bench/gpu (octet-gpu-bench): f16 activations times
// int8 weights [K x N] with per-channel scales, f16 result.
func.func @gemv_w8a16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>,
    %s: tensor<?xf32>) -> tensor<?x?xf16> {
  %y = octet.matmul %x, %w rhs_scale(%s : tensor<?xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x?xf16>, tensor<?x?xi8> -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
