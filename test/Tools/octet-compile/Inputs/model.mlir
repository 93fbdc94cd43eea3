// The DESIGN.md regression, compiled ahead of time.
func.func @quantize(%x: tensor<6xf32>) -> tensor<6xi8> {
  %s = arith.constant dense<0.1> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<6xf32> -> tensor<6xi8>
  return %q : tensor<6xi8>
}

// W8A8 with dynamic per-row activation scales and two results.
func.func @layer(%x: tensor<?x16xf32>) -> (tensor<?x4xf32>, tensor<?xf32>) {
  %w = arith.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, 14, 15, 16],
                             [1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, 14, 15, 16],
                             [1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, 14, 15, 16],
                             [1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, 14, 15, 16]]> : tensor<16x4xi8>
  %sw = arith.constant dense<[0.5, 0.25, 0.125, 1.0]> : tensor<4xf32>
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<?x16xf32> -> tensor<?xf32>
  %q = octet.quantize %x scale(%s : tensor<?xf32>) as <i8, per_axis(0)> : tensor<?x16xf32> -> tensor<?x16xi8>
  %y = octet.matmul %q, %w lhs_scale(%s : tensor<?xf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%sw : tensor<4xf32>) rhs_scheme <i8, per_axis(1)> : tensor<?x16xi8>, tensor<16x4xi8> -> tensor<?x4xf32>
  return %y, %s : tensor<?x4xf32>, tensor<?xf32>
}
