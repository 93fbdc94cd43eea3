#!/usr/bin/env python3
"""The block-scaled matmuls of a library compiled for a CUDA target with
block-scaled MMAs (sm_120a's mma.sync, sm_100a's tcgen05.mma), run by the
emulator, against an oracle written from the formats' definitions with
numpy and ml_dtypes, independent of octet:

  mx_e4m3        MXFP8: E4M3 codes, E8M0 scales per block of 32 along K
                 (kind::mxf8f6f4), K = 128;
  mx_e4m3_x_e2m1_codes
                 MXFP8 x MXFP4: E4M3 and E2M1 codes (kind::mxf8f6f4, the
                 E2M1 codes in the middle of 8-bit containers), K = 96;
  mx_e2m1_codes  MXFP4: E2M1 codes (one per byte), E8M0 scales per 32
                 (kind::mxf4 scale_vec::2X), K = 160: a K tile of 64 with
                 one block in it;
  nv_e2m1_codes  NVFP4: E2M1 codes, scales E4M3 x global (0.5 for A, 0.25
                 for B) per block of 16 (kind::mxf4nvf4 scale_vec::4X),
                 K = 80;
  mx_e2m1_codes_k544, nv_e2m1_codes_k528, mx_e4m3_x_e2m1_codes_k544
                 the same three at K = 544 / 528 and N = 136
                 (Inputs/fp4-tiles.mlir: several K and column tiles);

  y[m, n] = sum_g sa[m, g] * sb[g, n] * sum_{k in block g} a[m, k] b[k, n]

in float64, with the Bounds promise of docs/numerics.md for the f32 sums:
|y - y64| <= gamma(B + G + 2) * sum |terms|, gamma(n) = n u / (1 - n u),
u = 2^-24 (B the block, G the blocks; one more rounding than the block
sums and their accumulation: NVFP4's global scales). The scales cover the
ranges' edges: E8M0 2^-127 (the f32 subnormal, code 0) and 2^-126 (code
1); E4M3 2^-9 (its smallest subnormal) and 448 (its largest) times the
global scale. Scales that are not values of the scale format (E8M0: 1.5,
0, -2; E4M3 x g: 0.3, 0, -g), which octet's quantizers never write, must
make every output they scale NaN (the kernel maps them to the format's NaN
code) and leave the others alone.

  mx_scales.py LIB [--rows 77,150] [--only mx_e4m3,...]

(default: the four functions of Inputs/numerics.mlir).

Prints one line per function and row count and exits 1 on any failure.
"""

import argparse
import ctypes
import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_numerics  # noqa: E402  (ctypes calls of octet-compile's libraries)


def e4m3(rng, shape):
    """Finite E4M3 codes (no NaN: 0x7F / 0xFF excluded)."""
    codes = rng.integers(0, 256, size=shape).astype(np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0x38  # 1.0
    return codes


def e2m1(rng, shape):
    """Any of the 16 E2M1 codes, one per byte."""
    return rng.integers(0, 16, size=shape).astype(np.uint8)


def pow2(rng, shape):
    return np.ldexp(np.float32(1), rng.integers(-8, 9, size=shape)).astype(np.float32)


def e4m3_times(rng, shape, g):
    """E4M3 block scales (1 + m/8) 2^e times the global scale g."""
    m = rng.integers(0, 8, size=shape)
    e = rng.integers(-6, 7, size=shape)
    return (np.ldexp(1 + m / 8.0, e) * g).astype(np.float32)


E4M3 = (e4m3, ml_dtypes.float8_e4m3fn)
E2M1 = (e2m1, ml_dtypes.float4_e2m1fn)
# name -> (K, N, block, A's and B's (code generator, ml_dtypes type))
FUNCS = {
    "mx_e4m3": (128, 40, 32, E4M3, E4M3),
    "mx_e4m3_x_e2m1_codes": (96, 40, 32, E4M3, E2M1),
    "mx_e2m1_codes": (160, 40, 32, E2M1, E2M1),
    "nv_e2m1_codes": (80, 24, 16, E2M1, E2M1),
    "mx_e2m1_codes_k544": (544, 136, 32, E2M1, E2M1),
    "nv_e2m1_codes_k528": (528, 136, 16, E2M1, E2M1),
    "mx_e4m3_x_e2m1_codes_k544": (544, 136, 32, E4M3, E2M1),
}
NUMERICS_FUNCS = ["mx_e4m3", "mx_e4m3_x_e2m1_codes", "mx_e2m1_codes",
                  "nv_e2m1_codes"]


def scales(name, rng, m, G, N):
    """sx [m, G], sw [G, N] with edge values, and the rows and columns a
    non-scale value must turn into NaN."""
    f32 = np.float32
    if name.startswith("nv_"):
        ga, gb = 0.5, 0.25
        sx, sw = e4m3_times(rng, (m, G), ga), e4m3_times(rng, (G, N), gb)
        sx[1, 0] = f32(2.0 ** -9 * ga)   # E4M3's smallest subnormal
        sx[2, 1] = f32(448 * ga)         # its largest value
        sw[3, 2] = f32(2.0 ** -9 * 3 * gb)  # a subnormal, code 3
        sx[3, 2] = f32(0.3)              # not an E4M3 value times 0.5
        sw[1, 5] = f32(0.0)              # zero
        sw[2, 7] = f32(-gb)              # negative
    else:
        sx, sw = pow2(rng, (m, G)), pow2(rng, (G, N))
        sx[1, 0] = f32(2.0 ** -127)      # E8M0 code 0 (an f32 subnormal)
        sx[2, 1] = f32(2.0 ** -126)      # code 1
        sx[3, 2] = f32(1.5)              # not a power of two
        sw[1, 5] = f32(0.0)              # zero
        sw[2, 7] = f32(-2.0)             # negative
    return sx, sw, [3], [5, 7]


def check(lib, name, m, seed):
    K, N, BLOCK, (gen_a, elem_a), (gen_b, elem_b) = FUNCS[name]
    G = K // BLOCK
    rng = np.random.default_rng(seed)
    x, w = gen_a(rng, (m, K)), gen_b(rng, (K, N))
    sx, sw, bad_rows, bad_cols = scales(name, rng, m, G, N)
    (y,) = run_numerics.call(lib, name, [x, w, sx, sw])

    a = x.view(elem_a).astype(np.float64)
    b = w.view(elem_b).astype(np.float64)
    want = np.zeros((m, N))
    mag = np.zeros((m, N))
    for g in range(G):
        blk = slice(g * BLOCK, (g + 1) * BLOCK)
        s = sx[:, g:g + 1].astype(np.float64) * sw[g:g + 1, :].astype(np.float64)
        want += (a[:, blk] @ b[blk, :]) * s
        mag += (np.abs(a[:, blk]) @ np.abs(b[blk, :])) * s
    u = 2.0 ** -24
    n = BLOCK + G + 2
    bound = n * u / (1 - n * u) * np.abs(mag)

    nan_mask = np.zeros((m, N), bool)
    nan_mask[bad_rows, :] = True
    nan_mask[:, bad_cols] = True
    got = y.astype(np.float64)
    problems = []
    if not np.all(np.isnan(got[nan_mask])):
        problems.append("%d outputs scaled by a non-scale value are not NaN"
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
    p.add_argument("--only", default=",".join(NUMERICS_FUNCS),
                   help="comma-separated functions (default: those of "
                   "Inputs/numerics.mlir)")
    opts = p.parse_args()
    lib = ctypes.CDLL(os.path.abspath(opts.lib))
    failed = 0
    for name in opts.only.split(","):
        for m in [int(r) for r in opts.rows.split(",")]:
            problems, worst = check(lib, name, m, 7 + m)
            if problems:
                failed += 1
                for text in problems:
                    print("MISMATCH %s M=%d: %s" % (name, m, text))
            else:
                print("%s M=%d: ok (max error / bound %.3f)" % (name, m, worst))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
