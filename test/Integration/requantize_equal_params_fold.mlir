// REQUIRES: oracles
// KNOWN BUG (fails today): RequantizeOp::fold (lib/Dialect/Octet/IR/OctetOps.cpp)
// replaces a requantize whose in and out schemes are equal and whose scale /
// zero-point operands are the same SSA value or equal constants with its
// input. requantize is quantize(dequantize(x)) with an f32 intermediate,
// which is not an identity when
//   - the range is narrowed: i8<-127:127> code -128 -> -127;
//   - an E5M2 code is +-inf: saturating quantize gives +-57344 (0x7b/0xfb),
//     and a NaN code becomes the canonical NaN (0x7d -> 0x7e);
//   - (q - zp) * scale overflows f32: scale 3e38, code 100 -> +inf -> 127.
// With the same values in two different function arguments (@*_args) the op
// is not folded and the lowering gives the right codes; with one argument
// used twice (@*_same) or with constants (@*_cst) it is folded away and the
// input codes come back unchanged.

// RUN: %python -m npytool save %t.n.npy int8 -128,0,127
// RUN: %python -m npytool save %t.s1.npy "float32[]" 1.0
// RUN: %python -m npytool save %t.e.npy uint8 0x7c,0xfc,0x7d,0x3c
// RUN: %python -m npytool save %t.s2.npy "float32[]" 2.0
// RUN: %python -m npytool save %t.h.npy int8 100,-100,0
// RUN: %python -m npytool save %t.s3.npy "float32[]" 3e38
// Distinct arguments: not folded, right.
// RUN: octet-run %s --entry narrow_args --input %t.n.npy --input %t.s1.npy --input %t.s1.npy --output %t.narrow_args.npy
// RUN: %python -m npytool print %t.narrow_args.npy | FileCheck %s --check-prefix=NARROW
// RUN: octet-run %s --entry e5m2_args --input %t.e.npy --input %t.s2.npy --input %t.s2.npy --output %t.e5m2_args.npy
// RUN: %python -m npytool print %t.e5m2_args.npy --hex | FileCheck %s --check-prefix=E5M2
// RUN: octet-run %s --entry huge_args --input %t.h.npy --input %t.s3.npy --input %t.s3.npy --output %t.huge_args.npy
// RUN: %python -m npytool print %t.huge_args.npy | FileCheck %s --check-prefix=HUGE
// One argument used twice, then constants: folded today, wrong.
// RUN: octet-run %s --entry narrow_same --input %t.n.npy --input %t.s1.npy --output %t.narrow_same.npy
// RUN: %python -m npytool print %t.narrow_same.npy | FileCheck %s --check-prefix=NARROW
// RUN: octet-run %s --entry e5m2_same --input %t.e.npy --input %t.s2.npy --output %t.e5m2_same.npy
// RUN: %python -m npytool print %t.e5m2_same.npy --hex | FileCheck %s --check-prefix=E5M2
// RUN: octet-run %s --entry huge_same --input %t.h.npy --input %t.s3.npy --output %t.huge_same.npy
// RUN: %python -m npytool print %t.huge_same.npy | FileCheck %s --check-prefix=HUGE
// RUN: octet-run %s --entry narrow_cst --input %t.n.npy --output %t.narrow_cst.npy
// RUN: %python -m npytool print %t.narrow_cst.npy | FileCheck %s --check-prefix=NARROW
// RUN: octet-run %s --entry e5m2_cst --input %t.e.npy --output %t.e5m2_cst.npy
// RUN: %python -m npytool print %t.e5m2_cst.npy --hex | FileCheck %s --check-prefix=E5M2
// RUN: octet-run %s --entry huge_cst --input %t.h.npy --output %t.huge_cst.npy
// RUN: %python -m npytool print %t.huge_cst.npy | FileCheck %s --check-prefix=HUGE

// NARROW: int8 [-127, 0, 127]
// E5M2: uint8 [0x7b, 0xfb, 0x7e, 0x3c]
// HUGE: int8 [127, -128, 0]

// The folder must not drop these requantize ops.
// RUN: octet-opt --canonicalize %s | FileCheck %s --check-prefix=FOLD
// FOLD-LABEL: func.func @narrow_same
// FOLD: octet.requantize
// FOLD-LABEL: func.func @narrow_cst
// FOLD: octet.requantize
// FOLD-LABEL: func.func @e5m2_same
// FOLD: octet.requantize
// FOLD-LABEL: func.func @e5m2_cst
// FOLD: octet.requantize
// FOLD-LABEL: func.func @huge_same
// FOLD: octet.requantize
// FOLD-LABEL: func.func @huge_cst
// FOLD: octet.requantize

func.func @narrow_args(%q: tensor<3xi8>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<3xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <i8<-127:127>> to scale(%s1 : tensor<f32>) as <i8<-127:127>> : tensor<3xi8> -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @narrow_same(%q: tensor<3xi8>, %s: tensor<f32>) -> tensor<3xi8> {
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8<-127:127>> to scale(%s : tensor<f32>) as <i8<-127:127>> : tensor<3xi8> -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @narrow_cst(%q: tensor<3xi8>) -> tensor<3xi8> {
  %s = arith.constant dense<1.0> : tensor<f32>
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8<-127:127>> to scale(%s : tensor<f32>) as <i8<-127:127>> : tensor<3xi8> -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @e5m2_args(%q: tensor<4xf8E5M2>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<4xf8E5M2> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <f8E5M2> to scale(%s1 : tensor<f32>) as <f8E5M2> : tensor<4xf8E5M2> -> tensor<4xf8E5M2>
  return %r : tensor<4xf8E5M2>
}

func.func @e5m2_same(%q: tensor<4xf8E5M2>, %s: tensor<f32>) -> tensor<4xf8E5M2> {
  %r = octet.requantize %q scale(%s : tensor<f32>) as <f8E5M2> to scale(%s : tensor<f32>) as <f8E5M2> : tensor<4xf8E5M2> -> tensor<4xf8E5M2>
  return %r : tensor<4xf8E5M2>
}

func.func @e5m2_cst(%q: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  %s = arith.constant dense<2.0> : tensor<f32>
  %r = octet.requantize %q scale(%s : tensor<f32>) as <f8E5M2> to scale(%s : tensor<f32>) as <f8E5M2> : tensor<4xf8E5M2> -> tensor<4xf8E5M2>
  return %r : tensor<4xf8E5M2>
}

func.func @huge_args(%q: tensor<3xi8>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<3xi8> {
  %r = octet.requantize %q scale(%s0 : tensor<f32>) as <i8> to scale(%s1 : tensor<f32>) as <i8> : tensor<3xi8> -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @huge_same(%q: tensor<3xi8>, %s: tensor<f32>) -> tensor<3xi8> {
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s : tensor<f32>) as <i8> : tensor<3xi8> -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @huge_cst(%q: tensor<3xi8>) -> tensor<3xi8> {
  %s = arith.constant dense<3.0e38> : tensor<f32>
  %r = octet.requantize %q scale(%s : tensor<f32>) as <i8> to scale(%s : tensor<f32>) as <i8> : tensor<3xi8> -> tensor<3xi8>
  return %r : tensor<3xi8>
}
