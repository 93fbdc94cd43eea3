// Kernels timed by bench/quantize_throughput.py (64 MiB of f32).

func.func @copy_f32(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %e = tensor.empty() : tensor<16777216xf32>
  %c = linalg.copy ins(%x : tensor<16777216xf32>) outs(%e : tensor<16777216xf32>) -> tensor<16777216xf32>
  return %c : tensor<16777216xf32>
}

func.func @quantize_i8(%x: tensor<16777216xf32>) -> tensor<16777216xi8> {
  %s = arith.constant dense<0.03> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<16777216xf32> -> tensor<16777216xi8>
  return %q : tensor<16777216xi8>
}

func.func @quantize_i8_axis(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xi8> {
  %s = arith.constant dense<0.03> : tensor<4096xf32>
  %q = octet.quantize %x scale(%s : tensor<4096xf32>) as <i8, per_axis(0)> : tensor<4096x4096xf32> -> tensor<4096x4096xi8>
  return %q : tensor<4096x4096xi8>
}

func.func @quantize_u8_asym(%x: tensor<16777216xf32>) -> tensor<16777216xi8> {
  %s = arith.constant dense<0.03> : tensor<f32>
  %z = arith.constant dense<128> : tensor<i32>
  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : tensor<i32>) as <u8, asymmetric> : tensor<16777216xf32> -> tensor<16777216xi8>
  return %q : tensor<16777216xi8>
}

func.func @quantize_i4_group(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xi4> {
  %s = arith.constant dense<0.5> : tensor<4096x32xf32>
  %q = octet.quantize %x scale(%s : tensor<4096x32xf32>) as <i4, per_group(1, 128)> : tensor<4096x4096xf32> -> tensor<4096x4096xi4>
  return %q : tensor<4096x4096xi4>
}

func.func @quantize_e4m3(%x: tensor<16777216xf32>) -> tensor<16777216xf8E4M3FN> {
  %s = arith.constant dense<0.01> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16777216xf32> -> tensor<16777216xf8E4M3FN>
  return %q : tensor<16777216xf8E4M3FN>
}

func.func @quantize_e5m2(%x: tensor<16777216xf32>) -> tensor<16777216xf8E5M2> {
  %s = arith.constant dense<0.01> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <f8E5M2> : tensor<16777216xf32> -> tensor<16777216xf8E5M2>
  return %q : tensor<16777216xf8E5M2>
}

func.func @dequantize_i8(%q: tensor<16777216xi8>) -> tensor<16777216xf32> {
  %s = arith.constant dense<0.03> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <i8> : tensor<16777216xi8> -> tensor<16777216xf32>
  return %d : tensor<16777216xf32>
}

func.func @dequantize_e4m3(%q: tensor<16777216xf8E4M3FN>) -> tensor<16777216xf32> {
  %s = arith.constant dense<0.01> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <f8E4M3FN> : tensor<16777216xf8E4M3FN> -> tensor<16777216xf32>
  return %d : tensor<16777216xf32>
}

func.func @compute_params_row(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<4096x4096xf32> -> tensor<4096xf32>
  return %s : tensor<4096xf32>
}
