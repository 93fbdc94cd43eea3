"""tensor.bitcast of a constant: FP8 weights stored as i8 bytes, read as
f8E4M3FN / f8E5M2 and widened to f32 (x * w), against ml_dtypes' decoding
of all 256 codes, bit for bit (NaN codes: any NaN with the code's sign).
octet-compile and octet-run used to stop with "op was not bufferized"
(One-Shot Bufferize has no model of tensor.bitcast), and E5M2's signaling
NaN codes, whose arith.extf MLIR does not fold, with "LLVM Translation
failed" (convert-octet-to-linalg now folds FP8 extensions of constants
with numerics::decodeFp8)."""

import sys

import ml_dtypes
import numpy as np

import octet_oracle as o

FORMATS = {"f8E4M3FN": ml_dtypes.float8_e4m3fn,
           "f8E5M2": ml_dtypes.float8_e5m2}


def main():
    ok = True
    for name, dtype in FORMATS.items():
        codes = np.arange(256, dtype=np.uint8)
        n = len(codes)
        codes = codes.view(np.int8)
        x = np.ones(n, np.float32)
        text = """
func.func @main(%%x: tensor<%(n)dxf32>) -> tensor<%(n)dxf32> {
  %%c = arith.constant dense<[%(codes)s]> : tensor<%(n)dxi8>
  %%w = tensor.bitcast %%c : tensor<%(n)dxi8> to tensor<%(n)dx%(t)s>
  %%f = arith.extf %%w : tensor<%(n)dx%(t)s> to tensor<%(n)dxf32>
  %%e = tensor.empty() : tensor<%(n)dxf32>
  %%r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                        affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      ins(%%x, %%f : tensor<%(n)dxf32>, tensor<%(n)dxf32>)
      outs(%%e : tensor<%(n)dxf32>) {
  ^bb0(%%a: f32, %%b: f32, %%o: f32):
    %%0 = arith.mulf %%a, %%b : f32
    linalg.yield %%0 : f32
  } -> tensor<%(n)dxf32>
  return %%r : tensor<%(n)dxf32>
}
""" % {"codes": ", ".join(str(int(c)) for c in codes), "t": name,
                "n": n}
        (got,) = o.run_octet(text, "main", [x], 1, tag="bitcast_" + name)
        want = codes.view(np.uint8).view(dtype).astype(np.float32)
        nan = np.isnan(want)
        same = np.array_equal(got[~nan].view(np.uint32),
                              want[~nan].view(np.uint32)) and \
            np.all(np.isnan(got[nan])) and \
            np.array_equal(np.signbit(got[nan]), np.signbit(want[nan]))
        print("%-9s %s" % (name, "ok" if same else "MISMATCH"))
        ok &= bool(same)
    print("tensor.bitcast: %s" % ("all codes match" if ok else "MISMATCHES"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
