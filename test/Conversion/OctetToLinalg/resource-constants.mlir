// Rank-0 and i4 dense_resource constants become dense ones with the same
// bytes (upstream finalize-memref-to-llvm aborts on a rank-0 resource global
// and has no conversion for an i4 one); other resources stay resources.
// RUN: octet-opt %s --convert-octet-to-linalg --split-input-file | FileCheck %s
// RUN: octet-opt %s --octet-lower-to-host --split-input-file -o /dev/null

// CHECK-LABEL: func.func @scalar
// CHECK: arith.constant dense<-1> : tensor<i8>
// CHECK: arith.constant dense<2.500000e+00> : tensor<f32>
// CHECK: arith.constant dense_resource<big> : tensor<4xf32>
func.func @scalar(%x: tensor<4xf32>) -> (tensor<f32>, tensor<f32>, tensor<4xf32>) {
  %c = arith.constant dense_resource<code> : tensor<i8>
  %f = arith.constant dense_resource<half> : tensor<f32>
  %b = arith.constant dense_resource<big> : tensor<4xf32>
  %s = arith.constant dense<0.5> : tensor<f32>
  %d = octet.dequantize %c scale(%s : tensor<f32>) as <i8> : tensor<i8> -> tensor<f32>
  return %d, %f, %b : tensor<f32>, tensor<f32>, tensor<4xf32>
}
{-#
  dialect_resources: { builtin: {
    code: "0x01000000FF",
    half: "0x0400000000002040",
    big: "0x040000000000803F000000400000404000008040"
  } }
#-}

// -----

// CHECK-LABEL: func.func @nibbles
// CHECK: arith.constant dense<[1, -1, 7, -8]> : tensor<4xi4>
func.func @nibbles() -> tensor<4xf32> {
  %c = arith.constant dense_resource<codes4> : tensor<4xi4>
  %s = arith.constant dense<0.25> : tensor<f32>
  %d = octet.dequantize %c scale(%s : tensor<f32>) as <i4> : tensor<4xi4> -> tensor<4xf32>
  return %d : tensor<4xf32>
}
{-#
  dialect_resources: { builtin: { codes4: "0x0100000001FF07F8" } }
#-}
