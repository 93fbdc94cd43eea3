#!/usr/bin/env python3
"""The MXFP8 matmul of a library compiled for sm_120a (`mx_e4m3` of
Inputs/numerics.mlir: E4M3 codes on both operands, E8M0 scales per block of
32 along K, run by the block-scaled mma.sync kernel) against an oracle
written from the OCP MX definition with numpy and ml_dtypes, independent of
octet:

  y[m, n] = sum_g sa[m, g] * sb[g, n] * sum_{k in block g} a[m, k] b[k, n]

in float64, with the Bounds promise of docs/numerics.md for the f32 sums:
|y - y64| <= gamma(32 + G + 1) * sum |terms|, gamma(n) = n u / (1 - n u),
u = 2^-24. The scales cover the E8M0 range's edges: 2^-127 (the f32
subnormal, E8M0 code 0) and 2^-126 (code 1). Scales that are not E8M0
values (1.5, 0, -2), which octet's quantizers never write, must make every
output they scale NaN (the kernel maps them to E8M0's NaN code) and leave
the others alone.

  mx_scales.py LIB [--rows 77,150]

Prints one line per row count and exits 1 on any failure.
"""

import argparse
import ctypes
import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_numerics  # noqa: E402  (ctypes calls of octet-compile's libraries)

K, N, BLOCK = 128, 40, 32
G = K // BLOCK


def e4m3(rng, shape):
    """Finite E4M3 codes (no NaN: 0x7F / 0xFF excluded)."""
    codes = rng.integers(0, 256, size=shape).astype(np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0x38  # 1.0
    return codes


def check(lib, m, seed):
    rng = np.random.default_rng(seed)
    x, w = e4m3(rng, (m, K)), e4m3(rng, (K, N))
    sx = np.ldexp(np.float32(1), rng.integers(-8, 9, size=(m, G))).astype(np.float32)
    sw = np.ldexp(np.float32(1), rng.integers(-8, 9, size=(G, N))).astype(np.float32)
    sx[1, 0] = np.float32(2.0 ** -127)   # E8M0 code 0 (an f32 subnormal)
    sx[2, 1] = np.float32(2.0 ** -126)   # code 1
    bad_rows, bad_cols = [3], [5, 7]
    sx[3, 2] = np.float32(1.5)           # not a power of two
    sw[1, 5] = np.float32(0.0)           # zero
    sw[2, 7] = np.float32(-2.0)          # negative
    (y,) = run_numerics.call(lib, "mx_e4m3", [x, w, sx, sw])

    a = x.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    b = w.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    want = np.zeros((m, N))
    mag = np.zeros((m, N))
    for g in range(G):
        blk = slice(g * BLOCK, (g + 1) * BLOCK)
        s = sx[:, g:g + 1].astype(np.float64) * sw[g:g + 1, :].astype(np.float64)
        want += (a[:, blk] @ b[blk, :]) * s
        mag += (np.abs(a[:, blk]) @ np.abs(b[blk, :])) * s
    u = 2.0 ** -24
    n = BLOCK + G + 1
    bound = n * u / (1 - n * u) * mag

    nan_mask = np.zeros((m, N), bool)
    nan_mask[bad_rows, :] = True
    nan_mask[:, bad_cols] = True
    got = y.astype(np.float64)
    problems = []
    if not np.all(np.isnan(got[nan_mask])):
        problems.append("%d outputs scaled by a non-E8M0 scale are not NaN"
                        % np.count_nonzero(~np.isnan(got[nan_mask])))
    ok = ~nan_mask
    err = np.abs(got[ok] - want[ok])
    over = ~(err <= bound[ok])
    if np.any(over):
        i = int(np.argmax(np.where(over, err / np.maximum(bound[ok], 1e-300), 0)))
        problems.append("%d of %d outputs outside the bound (e.g. got %r, "
                        "want %r, bound %r)" % (np.count_nonzero(over), err.size,
                                                got[ok][i], want[ok][i],
                                                bound[ok][i]))
    worst = float(np.max(err / np.maximum(bound[ok], 1e-300)))
    return problems, worst


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("lib")
    p.add_argument("--rows", default="77,150")
    opts = p.parse_args()
    lib = ctypes.CDLL(os.path.abspath(opts.lib))
    failed = 0
    for m in [int(r) for r in opts.rows.split(",")]:
        problems, worst = check(lib, m, 7 + m)
        if problems:
            failed += 1
            for text in problems:
                print("MISMATCH mx_e4m3 M=%d: %s" % (m, text))
        else:
            print("mx_e4m3 M=%d: ok (max error / bound %.3f)" % (m, worst))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
