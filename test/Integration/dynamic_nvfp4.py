"""Dynamic two-level E4M3 block scales: octet.compute_params with an
e4m3(g) scheme (NVFP4: E2M1 elements; NF4 with double-quantized scales:
NF4 codes; blocks of 16, each block's scale an E4M3 value times the
scheme's static global scale g), then quantize / dequantize with them,
JIT-run by octet-run and compared bit for bit with an independent oracle.

The oracle is written from NVIDIA's two-level NVFP4 recipe as octet
documents it (docs/numerics.md, "NVFP4"): a block's E4M3 scale is
sb = E4M3((absmax / T) / g), T the element format's largest magnitude (6
for E2M1, 1 for NF4), the f32 quotients in that order, rounded to
nearest even by ml_dtypes' float8_e4m3fn after saturating at 448; a block
whose sb rounds to 0 takes E4M3's smallest value 2^-9; the f32 scale is
sb * g. Run-time conventions, as for every dynamic scale: NaN elements are
ignored, +-inf counts as the largest finite f32, an all-zero (or all-NaN)
block has absmax 0 (scale 2^-9 g). The codes and dequantized values come
from test/lib/octet_oracle.py (ml_dtypes' conversions).

Each global scale runs twice: the input as a function argument (the
lowering's compute_params: linalg + the scalar numerics emitter) and as a
constant (the folder's path). The blocks hit: random values over a wide
range around T g, maxima far above 448 T g (sb saturates at 448 and the
block clips), maxima so small that sb rounds to 0 (2^-9), (absmax / T) / g
exactly halfway between two E4M3 values (both tie directions), ties
between E2M1 codes (values on NF4's decision thresholds), E4M3-subnormal
block scales, +-inf, NaN, all-zero and all-NaN blocks and f32's largest
value.

Usage: dynamic_nvfp4.py [--workdir DIR]
"""

import argparse
import sys

import ml_dtypes
import numpy as np

import octet_oracle as o

F32 = np.float32
FLT_MAX = float(np.finfo(np.float32).max)
ROWS, BLOCKS, B = 12, 8, 16
# Global scales: powers of two and two that are not (f32 values).
GLOBALS = [2.0 ** -10, float(F32(0.0012345)), 1.0, float(F32(3.7e-6))]


def e4m3_values():
    """E4M3's positive finite values (ml_dtypes), ascending."""
    v = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)
    v = np.unique(v.astype(np.float64))
    return v[np.isfinite(v) & (v > 0)]


# The element formats: (scheme format, T, the values where codes tie).
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)
FORMATS = [("f4E2M1FN", 6, (E2M1[:-1] + E2M1[1:]) / 2),
           ("nf4", 1, o.NF4_THRESHOLDS[o.NF4_THRESHOLDS > 0].astype(
               np.float64))]


def spec_scale(block, g, target):
    """The f32 scale of one block (see the module docstring)."""
    v = np.asarray(block, np.float64)
    v = v[~np.isnan(v)]
    absmax = F32(np.minimum(np.abs(v), FLT_MAX).max()) if v.size else F32(0)
    return o.nvfp4_block_scale(absmax, g, target)


def make_input(g, rng, T, code_ties):
    e4m3 = e4m3_values()
    e4m3_mids = (e4m3[:-1] + e4m3[1:]) / 2
    x = np.zeros((ROWS, BLOCKS * B), np.float64)
    blocks = [(r, b) for r in range(ROWS) for b in range(BLOCKS)]
    rng.shuffle(blocks)
    kinds = ["random", "saturate", "round_to_zero", "e4m3_tie",
             "e2m1_ties", "e4m3_subnormal", "inf", "neg_inf", "nan", "zero",
             "all_nan", "flt_max"]
    for i, (r, b) in enumerate(blocks):
        kind = kinds[i % len(kinds)] if i < 3 * len(kinds) else "random"
        blk = rng.standard_normal(B) * T * g * 2.0 ** rng.uniform(-8, 9)
        if kind == "saturate":
            blk = rng.standard_normal(B) * 448 * T * g * \
                2.0 ** rng.uniform(1, 6)
        elif kind == "round_to_zero":
            blk = rng.standard_normal(B) * T * g * 2.0 ** -13
        elif kind == "e4m3_tie":
            # (absmax / T) / g exactly halfway between two E4M3 values
            # (exact in f32 for a power-of-two g; otherwise near it).
            m = float(rng.choice(e4m3_mids))
            am = float(F32(m * T * g))
            blk = np.clip(blk, -am, am) * 0.5
            blk[rng.integers(B)] = am * rng.choice([-1.0, 1.0])
        elif kind == "e2m1_ties":
            # With a power-of-two g, a block of absmax T g * 2^k has scale
            # g * 2^k: the midpoints between E2M1 codes (NF4's thresholds)
            # are exact ties.
            k = int(rng.integers(-5, 6))
            s = g * 2.0 ** k
            blk = rng.choice(code_ties, B) * s * rng.choice([-1.0, 1.0], B)
            blk[0] = T * s
        elif kind == "e4m3_subnormal":
            blk = rng.standard_normal(B) * T * g * 2.0 ** -8
        elif kind == "inf":
            blk[rng.integers(B)] = np.inf
        elif kind == "neg_inf":
            blk[rng.integers(B)] = -np.inf
        elif kind == "nan":
            blk[rng.integers(B, size=3)] = np.nan
        elif kind == "zero":
            blk = np.zeros(B)
            blk[::3] = -0.0
        elif kind == "all_nan":
            blk = np.full(B, np.nan)
        elif kind == "flt_max":
            blk[rng.integers(B)] = FLT_MAX
        x[r, b * B:(b + 1) * B] = blk
    with np.errstate(over="ignore"):
        return x.astype(F32)


def run_global(g, fmt, ck, rng, workdir):
    name, T, code_ties = fmt
    x = make_input(g, rng, T, code_ties)
    scheme = o.Scheme(name, "per_group", 1, B, e4m3=True, glob=g)
    want_s = np.array([[spec_scale(x[r, b * B:(b + 1) * B], g, T)
                        for b in range(BLOCKS)] for r in range(ROWS)], F32)
    o.check_dynamic_params(ck, x, scheme, want_s, workdir,
                           "%s_g%.9g" % (name, g))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir")
    args = ap.parse_args()
    ck = o.Checker("dynamic_nvfp4")
    rng = np.random.default_rng(20261203)
    for fmt in FORMATS:
        for g in GLOBALS:
            run_global(g, fmt, ck, rng, args.workdir)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
