// RUN: octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json" | FileCheck %s --check-prefix=MINMAX
// RUN: octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json method=percentile:90" | FileCheck %s --check-prefix=PCT
// RUN: octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json format=u8 symmetric=false" | FileCheck %s --check-prefix=ASYM
// RUN: octet-opt %s --octet-quantize-activations="mode=static stats=%S/Inputs/stats.json method=mse remarks=true" 2>&1 | FileCheck %s --check-prefix=MSE

// The statistics (4 bins over |x| in [0, 8]) give:
//   minmax:          absmax 8 -> scale 8 / 127 = 0.0629921257
//   percentile:90:   90% of the values are in the first bin -> clip 2,
//                    scale 2 / 127 = 0.0157480314
//   u8 asymmetric:   [-3, 8] -> scale 11 / 255 = 0.0431372561,
//                    zp = rint(0 + 3 / scale) = 70
//   mse:             step^2/12 inside vs (|x| - t)^2 beyond, over bin edges
// MINMAX: %[[S:.*]] = arith.constant dense<0.0629921257> : tensor<f32>
// MINMAX: %[[Q:.*]] = octet.quantize %{{.*}} scale(%[[S]] : tensor<f32>) as <i8>
// MINMAX: %[[D:.*]] = octet.dequantize %[[Q]] scale(%[[S]] : tensor<f32>) as <i8>
// MINMAX-NOT: octet.observe
// MINMAX: linalg.matmul ins(%[[D]],
// PCT: arith.constant dense<0.0157480314> : tensor<f32>
// ASYM-DAG: arith.constant dense<0.0431372561> : tensor<f32>
// ASYM-DAG: arith.constant dense<70> : tensor<i32>
// MSE: remark: octet-quantize-activations: 'fc1.input' mse clip {{.*}} of absmax 8, scale {{.*}}, estimated SQNR {{.*}} dB
func.func @main(%x: tensor<4x64xf32>, %wq: tensor<64x8xi8>, %sw: tensor<8xf32>) -> tensor<4x8xf32> {
  %w = octet.dequantize %wq scale(%sw : tensor<8xf32>) as <i8, per_axis(1)> : tensor<64x8xi8> -> tensor<64x8xf32>
  %xo = octet.observe %x {name = "fc1.input"} : tensor<4x64xf32>
  %init = arith.constant dense<0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%xo, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
