// Two layers with quantized weights on two inputs; octet-instrument puts
// an observer on each layer's input ('fc1.input', 'fc2.input').
func.func @main(%x: tensor<4x8xf32>, %h: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wq = arith.constant dense<3> : tensor<8x2xi8>
  %s = arith.constant dense<0.01> : tensor<2xf32>
  %w = octet.dequantize %wq scale(%s : tensor<2xf32>) as <i8, per_axis(1)> : tensor<8x2xi8> -> tensor<8x2xf32>
  %init = arith.constant dense<0.0> : tensor<4x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32> loc("fc1")
  %z = linalg.matmul ins(%h, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32> loc("fc2")
  return %y, %z : tensor<4x2xf32>, tensor<4x2xf32>
}
