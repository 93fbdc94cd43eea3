// REQUIRES: oracles
// DESIGN.md's regression: scale 0.1, [0.26, -1.74, 3.5, 2.5, 400, -1000]
// quantizes to i8 [3, -17, 35, 25, 127, -128] (round half to even on a true
// division, saturation), at run time and through the folder.

// RUN: %python -m npytool save %t.x.npy float32 0.26,-1.74,3.5,2.5,400,-1000
// RUN: octet-run %s --entry main --input %t.x.npy --output %t.q.npy
// RUN: %python -m npytool print %t.q.npy | FileCheck %s
// RUN: %python -m npytool check-quantize %t.x.npy %t.q.npy --scheme i8 --scale 0.1
// RUN: octet-run %s --entry folded --output %t.f.npy
// RUN: %python -m npytool print %t.f.npy | FileCheck %s
// RUN: %python -m npytool check-quantize %t.x.npy %t.f.npy --scheme i8 --scale 0.1
// CHECK: int8 [3, -17, 35, 25, 127, -128]

func.func @main(%x: tensor<6xf32>) -> tensor<6xi8> {
  %s = arith.constant dense<0.1> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<6xf32> -> tensor<6xi8>
  return %q : tensor<6xi8>
}

func.func @folded() -> tensor<6xi8> {
  %x = arith.constant dense<[0.26, -1.74, 3.5, 2.5, 400.0, -1000.0]> : tensor<6xf32>
  %s = arith.constant dense<0.1> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<6xf32> -> tensor<6xi8>
  return %q : tensor<6xi8>
}
