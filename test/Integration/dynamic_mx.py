"""Dynamic OCP MX parameters: octet.compute_params with E8M0 scales, then
quantize / dequantize with them, JIT-run by octet-run and compared bit for
bit with an independent oracle.

The oracle of the shared scale is written from the OCP Microscaling
Formats spec v1.0 (section 6.3), in float64 with numpy's frexp
(test/lib/octet_oracle.py's e8m0_scale, which the weight tests use too):
X = 2^(floor(log2(absmax)) - emax), emax the element format's largest
normal exponent (E4M3 8, E5M2 15, E2M1 2), as an E8M0 value (ml_dtypes
float8_e8m0fnu, 2^-127 .. 2^127: smaller exponents clamp to 2^-127), with
octet's documented conventions for what the spec leaves open: NaN elements
are ignored, +-inf counts as the largest finite f32, an all-zero (or
all-NaN) block gets 1. The codes and dequantized values come from
test/lib/octet_oracle.py (ml_dtypes' conversions).

Each format runs twice: the input as a function argument (the lowering's
compute_params: linalg + the scalar numerics emitter) and as a constant
(the folder's path). The input blocks hit: random values over the whole
f32 range, absmax exactly a power of two and the f32 just below it, absmax
mantissas that make the OCP rule clip (1.75 .. 2 x 2^e for E4M3), ties
between element codes (exact: the scale is a power of two), subnormal
maxima (one that clamps the scale to 2^-127), +-inf, NaN, all-zero and
all-NaN blocks, and f32's largest value.

Usage: dynamic_mx.py [--workdir DIR] [--formats f8E4M3FN,...]
"""

import argparse
import sys

import numpy as np

import octet_oracle as o

F32 = np.float32
FLT_MAX = float(np.finfo(np.float32).max)
ROWS, BLOCKS, B = 12, 8, 32


def spec_scale(block, fmt):
    """The OCP shared scale of one block (octet_oracle.e8m0_scale: float64
    frexp, ml_dtypes float8_e8m0fnu) with octet's conventions for run-time
    data: NaN ignored, +-inf as FLT_MAX, 1 for an all-zero block."""
    v = np.asarray(block, np.float64)
    v = v[~np.isnan(v)]
    v = np.minimum(np.abs(v), FLT_MAX)
    return o.e8m0_scale(v.max() if v.size else 0.0, fmt)


def make_input(fmt, rng):
    f = o.FORMATS[fmt]
    mx = float(f.max_finite)
    # Element values of the format (for ties): its positive finite values.
    codes = np.arange(256 if f.bits == 8 else 16, dtype=np.uint8)
    vals = np.unique(np.abs(codes.view(f.fp8).astype(np.float64)))
    vals = vals[np.isfinite(vals)]
    mids = (vals[:-1] + vals[1:]) / 2  # ties between neighbouring codes
    x = np.zeros((ROWS, BLOCKS * B), np.float64)
    blocks = []
    for r in range(ROWS):
        for b in range(BLOCKS):
            blocks.append((r, b))
    rng.shuffle(blocks)
    kinds = ["random", "pow2", "below_pow2", "clip_mantissa", "ties",
             "subnormal", "tiny_clamp", "inf", "neg_inf", "nan", "zero",
             "all_nan", "flt_max"]
    for i, (r, b) in enumerate(blocks):
        kind = kinds[i % len(kinds)] if i < 3 * len(kinds) else "random"
        e = int(rng.integers(-120, 120))
        blk = rng.standard_normal(B) * 2.0 ** e
        if kind == "pow2":
            blk = np.clip(blk, -2.0 ** e, 2.0 ** e)
            blk[rng.integers(B)] = -2.0 ** e
        elif kind == "below_pow2":
            blk = np.clip(blk, -2.0 ** e, 2.0 ** e) * 0.5
            blk[rng.integers(B)] = float(np.nextafter(F32(2.0 ** e), F32(0)))
        elif kind == "clip_mantissa":
            # max in [2^emax' * 1.75, 2^(emax'+1)) above the format's max
            # in the block's binade: the OCP rule saturates it.
            m = 1.75 + 0.24 * rng.random()
            blk = np.clip(blk, -2.0 ** e, 2.0 ** e) * 0.5
            blk[rng.integers(B)] = m * 2.0 ** e
            blk[rng.integers(B)] = -(mx / 2 ** o.MX_EMAX[fmt]) * 2.0 ** e
        elif kind == "ties":
            # scale 2^(e - emax): absmax 2^e exactly, then midpoints.
            s = 2.0 ** (e - o.MX_EMAX[fmt])
            t = rng.choice(mids, B) * s * rng.choice([-1.0, 1.0], B)
            blk = t
            blk[0] = 2.0 ** e
        elif kind == "subnormal":
            blk = rng.standard_normal(B) * 2.0 ** -140
        elif kind == "tiny_clamp":
            blk = np.zeros(B)
            blk[rng.integers(B)] = 3 * 2.0 ** -149
            blk[rng.integers(B)] = -2.0 ** -149
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


def run_format(fmt, ck, rng, workdir):
    x = make_input(fmt, rng)
    scheme = o.Scheme(fmt, "per_group", 1, B, e8m0=True)
    want_s = np.array([[spec_scale(x[r, b * B:(b + 1) * B], fmt)
                        for b in range(BLOCKS)] for r in range(ROWS)], F32)
    o.check_dynamic_params(ck, x, scheme, want_s, workdir, fmt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir")
    ap.add_argument("--formats", default="f8E4M3FN,f8E5M2,f4E2M1FN")
    args = ap.parse_args()
    ck = o.Checker("dynamic_mx")
    rng = np.random.default_rng(20261203)
    for fmt in args.formats.split(","):
        run_format(fmt, ck, rng, args.workdir)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
