// REQUIRES: oracles
// KNOWN BUG (fails today): u4 codes 8..15 handed to octet-run sign-extended
// (the form in which octet-run itself writes i4 results, as its header
// documents: "i4 as int8 (sign-extended)") dequantize as 248..255 instead of
// 8..15. octet-run copies the int8 bytes into the i4 buffer unchanged
// (0xFE for code 14) and the generated code does `llvm.load ... -> i4` then
// `llvm.zext i4 to i32`; LLVM assumes the unused high bits of an in-memory
// i4 are zero (what `store i4` leaves), so the zext keeps 0xFE = 254.
// Expected: octet-run clears the high nibble of i4 inputs (or the lowering
// masks), so that its own i4 output can be fed back to it.
// Signed i4 is unaffected (sign extension gives the same value either way).

// quantize to u4 and write the codes (sign-extended, as documented) ...
// RUN: %python -m npytool save %t.x.npy float32 7,8,14,15
// RUN: octet-run %s --entry quant --input %t.x.npy --output %t.q.npy
// RUN: %python -m npytool print %t.q.npy | FileCheck %s --check-prefix=CODES
// CODES: int8 [7, -8, -2, -1]
// ... zero-extended codes dequantize correctly ...
// RUN: %python -m npytool save %t.z.npy int8 7,8,14,15
// RUN: octet-run %s --entry dequant --input %t.z.npy --output %t.dz.npy
// RUN: %python -m npytool print %t.dz.npy | FileCheck %s
// ... and so must octet-run's own output fed back to it:
// RUN: octet-run %s --entry dequant --input %t.q.npy --output %t.d.npy
// RUN: %python -m npytool print %t.d.npy | FileCheck %s
// CHECK: float32 [7.0, 8.0, 14.0, 15.0]

func.func @quant(%x: tensor<4xf32>) -> tensor<4xi4> {
  %s = arith.constant dense<1.0> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <u4> : tensor<4xf32> -> tensor<4xi4>
  return %q : tensor<4xi4>
}

func.func @dequant(%q: tensor<4xi4>) -> tensor<4xf32> {
  %s = arith.constant dense<1.0> : tensor<f32>
  %d = octet.dequantize %q scale(%s : tensor<f32>) as <u4> : tensor<4xi4> -> tensor<4xf32>
  return %d : tensor<4xf32>
}
