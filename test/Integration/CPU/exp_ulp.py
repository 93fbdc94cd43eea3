"""math.exp as lowered for the host (octet-expand-exp) against exp in f64.

usage: exp_ulp.py WORKDIR

The oracle is numpy's exp in float64 of each f32 input (accurate to well
under 1e-3 f32 ulp); the error of each result is measured in ulps of the
correctly rounded f32 result (2^-149 for subnormal results). Inputs: every
61st f32 bit pattern from -110 to +90, so the run covers all binades and
the edges: the largest finite result (x = 88.7228), +inf above it, the
subnormal results below -87.34, +0 below -103.97. Special values must be
exact: exp(0) = 1, exp(-inf) = +0, exp(+inf) = +inf, NaN -> NaN.
"""

import os
import subprocess
import sys

import numpy as np

F = np.float32
TEXT = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def run(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print("MISMATCH: %s failed:\n%s" % (" ".join(cmd), res.stderr))
        sys.exit(1)


def main():
    work = sys.argv[1]
    neg = np.arange(0x80000000, 0xC2DC0000, 61, dtype=np.uint64)
    pos = np.arange(0, 0x42B40000, 61, dtype=np.uint64)
    bits = np.concatenate([neg, pos]).astype(np.uint32)
    edges = np.array([0x42B17217, 0x42B17218, 0xC2CFF1B4, 0xC2CFF1B5,
                      0xC2AEAC4F, 0xC2AEAC50, 0x00000001, 0x80000001],
                     np.uint32)
    x = np.concatenate([bits, edges]).view(F)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], F)
    x = np.concatenate([x, special])
    mlir = os.path.join(work, "exp.mlir")
    with open(mlir, "w") as f:
        f.write(TEXT)
    xin = os.path.join(work, "x.npy")
    np.save(xin, x)
    yj = os.path.join(work, "y_jit.npy")
    run(["octet-run", mlir, "--input", xin, "--output", yj])
    lib = os.path.join(work, "libexp.so")
    run(["octet-compile", mlir, "--target=host", "-o", lib])
    yl = os.path.join(work, "y_lib.npy")
    run(["octet-run", lib, "--library", "--entry", "main", "--input", xin,
         "--output", yl])
    y = np.load(yj)
    ok = True

    with np.errstate(over="ignore"):
        exact = np.exp(x.astype(np.float64))
    rounded = exact.astype(F)
    n_special = len(special)
    body, ybody = x[:-n_special], y[:-n_special]
    e, r = exact[:-n_special], rounded[:-n_special]
    inf = np.isinf(r)
    # Above ln(FLT_MAX) the result is +inf; a result within 1 ulp of
    # FLT_MAX where exp rounds to +inf would also be within the bound.
    bad_inf = inf & ~(np.isinf(ybody) | (ybody == np.finfo(F).max))
    if bad_inf.any():
        print("MISMATCH: exp(%r) = %r, want +inf" %
              (body[bad_inf][0], ybody[bad_inf][0]))
        ok = False
    fin = ~inf & np.isfinite(ybody)
    if (~inf & ~np.isfinite(ybody)).any():
        i = np.flatnonzero(~inf & ~np.isfinite(ybody))[0]
        print("MISMATCH: exp(%r) = %r, want %r" % (body[i], ybody[i], r[i]))
        ok = False
    ulp = np.where(np.abs(r) < np.finfo(F).tiny, 2.0 ** -149,
                   np.spacing(np.abs(r).astype(F)).astype(np.float64))
    err = np.abs(ybody[fin].astype(np.float64) - e[fin]) / ulp[fin]
    worst = int(np.argmax(err))
    if err[worst] > 1.0:
        print("MISMATCH: exp(%r) = %r, %.3f ulp from %r" %
              (body[fin][worst], ybody[fin][worst], err[worst], e[fin][worst]))
        ok = False
    want_special = np.array([1.0, 1.0, np.inf, 0.0, np.nan, np.nan], F)
    got_special = y[-n_special:]
    same = (got_special == want_special) | (np.isnan(got_special) &
                                            np.isnan(want_special))
    if not same.all() or np.signbit(got_special[3]):
        print("MISMATCH: specials %r -> %r" % (special, got_special))
        ok = False
    print("jit: %d inputs, max error %.4f ulp (at %r), %.2f%% not correctly "
          "rounded" % (len(x), err[worst], body[fin][worst],
                       100.0 * np.mean(ybody[fin] != r[fin])))
    ylib = np.load(yl)
    if ylib.tobytes() == y.tobytes():
        print("library: bit-identical to the jit")
    else:
        print("MISMATCH: library and jit differ in %d values" %
              int(np.sum(ylib.view(np.uint32) != y.view(np.uint32))))
        ok = False
    print("exp: all checks pass" if ok else "exp: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
