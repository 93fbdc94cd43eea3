// The bundled example: a two-layer MLP, y = relu(x W1) W2, with
// x: 32x256, W1: 256x512, W2: 512x128 (weights as arguments, written by
// examples/demo.py from a fixed seed, with a few outlier output channels).
//
// @quantize_weights quantizes each weight with five schemes and returns the
// dequantized tensors; @forward_* run the model with float weights and with
// weights that went through quantize -> dequantize. Every scale and zero
// point is computed by octet.compute_params from the data, and every op is
// lowered by octet's host pipeline (octet-run), so the numbers the demo
// prints come from the same code a compiled model runs.
//
// Run: scripts/demo (or octet-run examples/mlp.mlir --entry ... directly).

func.func @quantize_weights(%w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>)
    -> (tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>) {
  %w1_i8_tensor_s = octet.compute_params %w1 as <i8> : tensor<256x512xf32> -> tensor<f32>
  %w1_i8_tensor_q = octet.quantize %w1 scale(%w1_i8_tensor_s : tensor<f32>) as <i8> : tensor<256x512xf32> -> tensor<256x512xi8>
  %w1_i8_tensor_d = octet.dequantize %w1_i8_tensor_q scale(%w1_i8_tensor_s : tensor<f32>) as <i8> : tensor<256x512xi8> -> tensor<256x512xf32>
  %w1_i8_channel_s = octet.compute_params %w1 as <i8, per_axis(1)> : tensor<256x512xf32> -> tensor<512xf32>
  %w1_i8_channel_q = octet.quantize %w1 scale(%w1_i8_channel_s : tensor<512xf32>) as <i8, per_axis(1)> : tensor<256x512xf32> -> tensor<256x512xi8>
  %w1_i8_channel_d = octet.dequantize %w1_i8_channel_q scale(%w1_i8_channel_s : tensor<512xf32>) as <i8, per_axis(1)> : tensor<256x512xi8> -> tensor<256x512xf32>
  %w1_u8_channel_asym_s, %w1_u8_channel_asym_z = octet.compute_params %w1 as <u8, per_axis(1), asymmetric> : tensor<256x512xf32> -> tensor<512xf32>, tensor<512xi32>
  %w1_u8_channel_asym_q = octet.quantize %w1 scale(%w1_u8_channel_asym_s : tensor<512xf32>) zero_point(%w1_u8_channel_asym_z : tensor<512xi32>) as <u8, per_axis(1), asymmetric> : tensor<256x512xf32> -> tensor<256x512xi8>
  %w1_u8_channel_asym_d = octet.dequantize %w1_u8_channel_asym_q scale(%w1_u8_channel_asym_s : tensor<512xf32>) zero_point(%w1_u8_channel_asym_z : tensor<512xi32>) as <u8, per_axis(1), asymmetric> : tensor<256x512xi8> -> tensor<256x512xf32>
  %w1_i4_group64_s = octet.compute_params %w1 as <i4, per_group(0, 64)> : tensor<256x512xf32> -> tensor<4x512xf32>
  %w1_i4_group64_q = octet.quantize %w1 scale(%w1_i4_group64_s : tensor<4x512xf32>) as <i4, per_group(0, 64)> : tensor<256x512xf32> -> tensor<256x512xi4>
  %w1_i4_group64_d = octet.dequantize %w1_i4_group64_q scale(%w1_i4_group64_s : tensor<4x512xf32>) as <i4, per_group(0, 64)> : tensor<256x512xi4> -> tensor<256x512xf32>
  %w1_e4m3_channel_s = octet.compute_params %w1 as <f8E4M3FN, per_axis(1)> : tensor<256x512xf32> -> tensor<512xf32>
  %w1_e4m3_channel_q = octet.quantize %w1 scale(%w1_e4m3_channel_s : tensor<512xf32>) as <f8E4M3FN, per_axis(1)> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>
  %w1_e4m3_channel_d = octet.dequantize %w1_e4m3_channel_q scale(%w1_e4m3_channel_s : tensor<512xf32>) as <f8E4M3FN, per_axis(1)> : tensor<256x512xf8E4M3FN> -> tensor<256x512xf32>
  %w2_i8_tensor_s = octet.compute_params %w2 as <i8> : tensor<512x128xf32> -> tensor<f32>
  %w2_i8_tensor_q = octet.quantize %w2 scale(%w2_i8_tensor_s : tensor<f32>) as <i8> : tensor<512x128xf32> -> tensor<512x128xi8>
  %w2_i8_tensor_d = octet.dequantize %w2_i8_tensor_q scale(%w2_i8_tensor_s : tensor<f32>) as <i8> : tensor<512x128xi8> -> tensor<512x128xf32>
  %w2_i8_channel_s = octet.compute_params %w2 as <i8, per_axis(1)> : tensor<512x128xf32> -> tensor<128xf32>
  %w2_i8_channel_q = octet.quantize %w2 scale(%w2_i8_channel_s : tensor<128xf32>) as <i8, per_axis(1)> : tensor<512x128xf32> -> tensor<512x128xi8>
  %w2_i8_channel_d = octet.dequantize %w2_i8_channel_q scale(%w2_i8_channel_s : tensor<128xf32>) as <i8, per_axis(1)> : tensor<512x128xi8> -> tensor<512x128xf32>
  %w2_u8_channel_asym_s, %w2_u8_channel_asym_z = octet.compute_params %w2 as <u8, per_axis(1), asymmetric> : tensor<512x128xf32> -> tensor<128xf32>, tensor<128xi32>
  %w2_u8_channel_asym_q = octet.quantize %w2 scale(%w2_u8_channel_asym_s : tensor<128xf32>) zero_point(%w2_u8_channel_asym_z : tensor<128xi32>) as <u8, per_axis(1), asymmetric> : tensor<512x128xf32> -> tensor<512x128xi8>
  %w2_u8_channel_asym_d = octet.dequantize %w2_u8_channel_asym_q scale(%w2_u8_channel_asym_s : tensor<128xf32>) zero_point(%w2_u8_channel_asym_z : tensor<128xi32>) as <u8, per_axis(1), asymmetric> : tensor<512x128xi8> -> tensor<512x128xf32>
  %w2_i4_group64_s = octet.compute_params %w2 as <i4, per_group(0, 64)> : tensor<512x128xf32> -> tensor<8x128xf32>
  %w2_i4_group64_q = octet.quantize %w2 scale(%w2_i4_group64_s : tensor<8x128xf32>) as <i4, per_group(0, 64)> : tensor<512x128xf32> -> tensor<512x128xi4>
  %w2_i4_group64_d = octet.dequantize %w2_i4_group64_q scale(%w2_i4_group64_s : tensor<8x128xf32>) as <i4, per_group(0, 64)> : tensor<512x128xi4> -> tensor<512x128xf32>
  %w2_e4m3_channel_s = octet.compute_params %w2 as <f8E4M3FN, per_axis(1)> : tensor<512x128xf32> -> tensor<128xf32>
  %w2_e4m3_channel_q = octet.quantize %w2 scale(%w2_e4m3_channel_s : tensor<128xf32>) as <f8E4M3FN, per_axis(1)> : tensor<512x128xf32> -> tensor<512x128xf8E4M3FN>
  %w2_e4m3_channel_d = octet.dequantize %w2_e4m3_channel_q scale(%w2_e4m3_channel_s : tensor<128xf32>) as <f8E4M3FN, per_axis(1)> : tensor<512x128xf8E4M3FN> -> tensor<512x128xf32>
  return %w1_i8_tensor_d, %w1_i8_channel_d, %w1_u8_channel_asym_d, %w1_i4_group64_d, %w1_e4m3_channel_d, %w2_i8_tensor_d, %w2_i8_channel_d, %w2_u8_channel_asym_d, %w2_i4_group64_d, %w2_e4m3_channel_d
    : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>
}

// The float model.
func.func @forward_float(%x: tensor<32x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>) -> tensor<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x512xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x256xf32>, tensor<256x512xf32>) outs(%i1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %er = tensor.empty() : tensor<32x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x512xf32>) outs(%er : tensor<32x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<32x512xf32>, tensor<512x128xf32>) outs(%i2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// The model with <i8> weights (quantize -> dequantize).
func.func @forward_i8_tensor(%x: tensor<32x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>) -> tensor<32x128xf32> {
  %a_s = octet.compute_params %w1 as <i8> : tensor<256x512xf32> -> tensor<f32>
  %a_q = octet.quantize %w1 scale(%a_s : tensor<f32>) as <i8> : tensor<256x512xf32> -> tensor<256x512xi8>
  %a_d = octet.dequantize %a_q scale(%a_s : tensor<f32>) as <i8> : tensor<256x512xi8> -> tensor<256x512xf32>
  %b_s = octet.compute_params %w2 as <i8> : tensor<512x128xf32> -> tensor<f32>
  %b_q = octet.quantize %w2 scale(%b_s : tensor<f32>) as <i8> : tensor<512x128xf32> -> tensor<512x128xi8>
  %b_d = octet.dequantize %b_q scale(%b_s : tensor<f32>) as <i8> : tensor<512x128xi8> -> tensor<512x128xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x512xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.matmul ins(%x, %a_d : tensor<32x256xf32>, tensor<256x512xf32>) outs(%i1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %er = tensor.empty() : tensor<32x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x512xf32>) outs(%er : tensor<32x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y = linalg.matmul ins(%r, %b_d : tensor<32x512xf32>, tensor<512x128xf32>) outs(%i2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// The model with <i8, per_axis(1)> weights (quantize -> dequantize).
func.func @forward_i8_channel(%x: tensor<32x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>) -> tensor<32x128xf32> {
  %a_s = octet.compute_params %w1 as <i8, per_axis(1)> : tensor<256x512xf32> -> tensor<512xf32>
  %a_q = octet.quantize %w1 scale(%a_s : tensor<512xf32>) as <i8, per_axis(1)> : tensor<256x512xf32> -> tensor<256x512xi8>
  %a_d = octet.dequantize %a_q scale(%a_s : tensor<512xf32>) as <i8, per_axis(1)> : tensor<256x512xi8> -> tensor<256x512xf32>
  %b_s = octet.compute_params %w2 as <i8, per_axis(1)> : tensor<512x128xf32> -> tensor<128xf32>
  %b_q = octet.quantize %w2 scale(%b_s : tensor<128xf32>) as <i8, per_axis(1)> : tensor<512x128xf32> -> tensor<512x128xi8>
  %b_d = octet.dequantize %b_q scale(%b_s : tensor<128xf32>) as <i8, per_axis(1)> : tensor<512x128xi8> -> tensor<512x128xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x512xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.matmul ins(%x, %a_d : tensor<32x256xf32>, tensor<256x512xf32>) outs(%i1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %er = tensor.empty() : tensor<32x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x512xf32>) outs(%er : tensor<32x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y = linalg.matmul ins(%r, %b_d : tensor<32x512xf32>, tensor<512x128xf32>) outs(%i2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// The model with <u8, per_axis(1), asymmetric> weights (quantize -> dequantize).
func.func @forward_u8_channel_asym(%x: tensor<32x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>) -> tensor<32x128xf32> {
  %a_s, %a_z = octet.compute_params %w1 as <u8, per_axis(1), asymmetric> : tensor<256x512xf32> -> tensor<512xf32>, tensor<512xi32>
  %a_q = octet.quantize %w1 scale(%a_s : tensor<512xf32>) zero_point(%a_z : tensor<512xi32>) as <u8, per_axis(1), asymmetric> : tensor<256x512xf32> -> tensor<256x512xi8>
  %a_d = octet.dequantize %a_q scale(%a_s : tensor<512xf32>) zero_point(%a_z : tensor<512xi32>) as <u8, per_axis(1), asymmetric> : tensor<256x512xi8> -> tensor<256x512xf32>
  %b_s, %b_z = octet.compute_params %w2 as <u8, per_axis(1), asymmetric> : tensor<512x128xf32> -> tensor<128xf32>, tensor<128xi32>
  %b_q = octet.quantize %w2 scale(%b_s : tensor<128xf32>) zero_point(%b_z : tensor<128xi32>) as <u8, per_axis(1), asymmetric> : tensor<512x128xf32> -> tensor<512x128xi8>
  %b_d = octet.dequantize %b_q scale(%b_s : tensor<128xf32>) zero_point(%b_z : tensor<128xi32>) as <u8, per_axis(1), asymmetric> : tensor<512x128xi8> -> tensor<512x128xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x512xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.matmul ins(%x, %a_d : tensor<32x256xf32>, tensor<256x512xf32>) outs(%i1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %er = tensor.empty() : tensor<32x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x512xf32>) outs(%er : tensor<32x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y = linalg.matmul ins(%r, %b_d : tensor<32x512xf32>, tensor<512x128xf32>) outs(%i2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// The model with <i4, per_group(0, 64)> weights (quantize -> dequantize).
func.func @forward_i4_group64(%x: tensor<32x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>) -> tensor<32x128xf32> {
  %a_s = octet.compute_params %w1 as <i4, per_group(0, 64)> : tensor<256x512xf32> -> tensor<4x512xf32>
  %a_q = octet.quantize %w1 scale(%a_s : tensor<4x512xf32>) as <i4, per_group(0, 64)> : tensor<256x512xf32> -> tensor<256x512xi4>
  %a_d = octet.dequantize %a_q scale(%a_s : tensor<4x512xf32>) as <i4, per_group(0, 64)> : tensor<256x512xi4> -> tensor<256x512xf32>
  %b_s = octet.compute_params %w2 as <i4, per_group(0, 64)> : tensor<512x128xf32> -> tensor<8x128xf32>
  %b_q = octet.quantize %w2 scale(%b_s : tensor<8x128xf32>) as <i4, per_group(0, 64)> : tensor<512x128xf32> -> tensor<512x128xi4>
  %b_d = octet.dequantize %b_q scale(%b_s : tensor<8x128xf32>) as <i4, per_group(0, 64)> : tensor<512x128xi4> -> tensor<512x128xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x512xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.matmul ins(%x, %a_d : tensor<32x256xf32>, tensor<256x512xf32>) outs(%i1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %er = tensor.empty() : tensor<32x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x512xf32>) outs(%er : tensor<32x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y = linalg.matmul ins(%r, %b_d : tensor<32x512xf32>, tensor<512x128xf32>) outs(%i2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// The model with <f8E4M3FN, per_axis(1)> weights (quantize -> dequantize).
func.func @forward_e4m3_channel(%x: tensor<32x256xf32>, %w1: tensor<256x512xf32>, %w2: tensor<512x128xf32>) -> tensor<32x128xf32> {
  %a_s = octet.compute_params %w1 as <f8E4M3FN, per_axis(1)> : tensor<256x512xf32> -> tensor<512xf32>
  %a_q = octet.quantize %w1 scale(%a_s : tensor<512xf32>) as <f8E4M3FN, per_axis(1)> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>
  %a_d = octet.dequantize %a_q scale(%a_s : tensor<512xf32>) as <f8E4M3FN, per_axis(1)> : tensor<256x512xf8E4M3FN> -> tensor<256x512xf32>
  %b_s = octet.compute_params %w2 as <f8E4M3FN, per_axis(1)> : tensor<512x128xf32> -> tensor<128xf32>
  %b_q = octet.quantize %w2 scale(%b_s : tensor<128xf32>) as <f8E4M3FN, per_axis(1)> : tensor<512x128xf32> -> tensor<512x128xf8E4M3FN>
  %b_d = octet.dequantize %b_q scale(%b_s : tensor<128xf32>) as <f8E4M3FN, per_axis(1)> : tensor<512x128xf8E4M3FN> -> tensor<512x128xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x512xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h = linalg.matmul ins(%x, %a_d : tensor<32x256xf32>, tensor<256x512xf32>) outs(%i1 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %er = tensor.empty() : tensor<32x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x512xf32>) outs(%er : tensor<32x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x512xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y = linalg.matmul ins(%r, %b_d : tensor<32x512xf32>, tensor<512x128xf32>) outs(%i2 : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}
