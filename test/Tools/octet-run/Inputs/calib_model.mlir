func.func @main(%x: tensor<4x64xf32>) -> tensor<4x8xf32> {
  %wq = arith.constant dense<3> : tensor<64x8xi8>
  %s = arith.constant dense<0.01> : tensor<8xf32>
  %w = octet.dequantize %wq scale(%s : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32> loc("fc1")
  return %y : tensor<4x8xf32>
}
