#!/usr/bin/env python3
"""Weight-only matmuls (float activations, 8- and 4-bit integer or FP8
weights, per-tensor or per-channel scales) against an oracle written from
the numerics contract with numpy and ml_dtypes, independent of octet:

  y[m, n] = s[n] * sum_k x[m, k] * w[k, n]  (+ bias[n], ReLU)

in float64 from the activations as given (f32, f16, bf16) and the decoded
codes. The Bounds promise (docs/numerics.md) for an f32 accumulation of the
exact products: |y - y64| <= gamma(n) * sum_k |x w| |s| (+ |bias| u), with
gamma(n) = n u / (1 - n u), u = 2^-24 and n = 3 K + 3: on sm_90a's wgmma
weight-only kernel an f32 activation is the sum of three bf16 parts, each
multiplied exactly, so K products become 3 K additions (the gemv and the
CPU add K); the scale, the bias and the result's rounding (f16 / bf16: half
an ulp of the result) come on top.

  weight_only_wgmma.py emit OUT.mlir   writes the functions (the constant
                                       4-bit weights come from a seed)
  weight_only_wgmma.py check LIB [--rows 1,63,64,150]

The functions cover K tails (K = 200 = 3 tiles of 64 and 8; 130; 4),
N tails (70, 24, 20), two column tiles (136), f32 / f16 / bf16
activations, i8 / u8 / i4 (packed constant) / e4m3 / e5m2 codes, bias,
ReLU and f16 / bf16 results. `wo_cancel_f32` is built so that every output
is the difference of two nearly equal products, exact only if the third
bf16 part of the activation is kept: with K = 4 its bound (about 2^-19 q)
is below the part's contribution (q 2^-16). `wo_specials_f32` puts +inf,
NaN and -inf / +inf pairs into the first rows: the oracle's inf, NaN and
-inf results must come back exactly (every bf16 part after an infinity's
first is 0, not inf - inf). Prints one line per function and row count; exit
status 1 on any failure.
"""

import argparse
import ctypes
import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import octet_oracle  # noqa: E402  (NF4's codebook)
import run_numerics  # noqa: E402  (ctypes calls of octet-compile's libraries)

SEED = 20261206


class Fn:
    """One weight-only matmul: K, N, activation type, weight format (i8,
    u8, i4, u4, e4m3, e5m2, nf4, e2m1), granularity ("tensor", "channel"
    or a group size along K), scale kind ("f32", "e8m0" powers of two,
    "e4m3" E4M3 values times the global scale 0.5), zero points (per
    channel), bias, ReLU, result type, constant packed 4-bit weights, and
    the cancellation construction ("cancel", "gcancel") or None."""

    def __init__(self, K, N, act, fmt, gran, res="f32", scale="f32",
                 zp=False, bias=False, relu=False, const=False, special=None):
        self.K, self.N, self.act, self.fmt, self.gran = K, N, act, fmt, gran
        self.res, self.scale, self.zp, self.bias = res, scale, zp, bias
        self.relu, self.const, self.special = relu, const, special

    @property
    def group(self):
        return self.gran if isinstance(self.gran, int) else None

    @property
    def weight_parts(self):
        """The bf16 parts of each weight on the wgmma kernel (its
        weightParts): 3 for per-group scales and NF4, 2 for 8-bit codes
        minus a zero point, else 1."""
        if self.group or self.fmt == "nf4":
            return 3
        return 2 if self.zp and self.fmt in ("u8", "i8") else 1


FUNCS = {
    "wo_i8_channel_f32": Fn(200, 70, "f32", "i8", "channel"),
    "wo_u8_tensor_f16": Fn(130, 24, "f16", "u8", "tensor", res="f16"),
    "wo_i4_const_bf16": Fn(192, 48, "bf16", "i4", "channel", bias=True,
                           const=True),
    "wo_e4m3_channel_f32": Fn(136, 136, "f32", "e4m3", "channel", res="bf16",
                              bias=True, relu=True),
    "wo_e5m2_tensor_f32": Fn(96, 40, "f32", "e5m2", "tensor"),
    "wo_cancel_f32": Fn(4, 20, "f32", "i8", "tensor", special="cancel"),
    "wo_i4_group128_f16": Fn(256, 72, "f16", "i4", 128),
    "wo_u4_zp_channel_f32": Fn(160, 40, "f32", "u4", "channel", zp=True),
    "wo_u8_zp_channel_bf16": Fn(128, 56, "bf16", "u8", "channel", zp=True,
                                res="bf16"),
    "wo_nf4_group64_f32": Fn(192, 40, "f32", "nf4", 64),
    "wo_mxfp4_f32": Fn(160, 48, "f32", "e2m1", 32, scale="e8m0"),
    "wo_nvfp4_f16": Fn(96, 40, "f16", "e2m1", 16, scale="e4m3", res="f16"),
    "wo_group_cancel_f32": Fn(4, 20, "f32", "i8", 2, special="gcancel"),
    "wo_specials_f32": Fn(64, 24, "f32", "i8", "channel", special="inf"),
}
MLIR_ELEM = {"f32": "f32", "f16": "f16", "bf16": "bf16", "i8": "i8",
             "u8": "i8", "i4": "i4", "u4": "i4", "nf4": "i4", "e2m1": "i4",
             "e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}
SCHEME = {"i8": "i8", "u8": "u8", "i4": "i4", "u4": "u4", "nf4": "nf4",
          "e2m1": "f4E2M1FN", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}
GLOBAL = 0.5  # the e4m3 scale kind's global scale


def const_i4(K, N):
    rng = np.random.default_rng(SEED)
    return rng.integers(-8, 8, size=(K, N))


def scale_shape(f):
    if f.group:
        return [f.K // f.group, f.N]
    return [f.N] if f.gran == "channel" else []


def tensor(shape, elem):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [elem])


def emit(path):
    out = ["// Generated by weight_only_wgmma.py emit: weight-only matmuls "
           "for its oracle."]
    for name, f in FUNCS.items():
        K, N = f.K, f.N
        args = ["%%x: tensor<?x%dx%s>" % (K, f.act)]
        wt = tensor([K, N], MLIR_ELEM[f.fmt])
        if not f.const:
            args.append("%%w: %s" % wt)
        st = tensor(scale_shape(f), "f32")
        args.append("%%s: %s" % st)
        if f.zp:
            args.append("%%z: tensor<%dxi32>" % N)
        if f.bias:
            args.append("%%b: tensor<%dxf32>" % N)
        body = []
        w = "%w"
        if f.const:
            rows = ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]"
                             for row in const_i4(K, N))
            body.append("  %%w = arith.constant dense<[%s]> : %s" % (rows, wt))
        if f.fmt == "e2m1":
            w = "%wf"
            wt = tensor([K, N], "f4E2M1FN")
            body.append("  %%wf = arith.bitcast %%w : %s to %s" % (
                tensor([K, N], "i4"), wt))
        scheme = SCHEME[f.fmt]
        if f.group:
            scheme += ", per_group(0, %d)" % f.group
        elif f.gran == "channel":
            scheme += ", per_axis(1)"
        if f.scale == "e8m0":
            scheme += ", e8m0"
        elif f.scale == "e4m3":
            scheme += ", e4m3(%g)" % GLOBAL
        if f.zp:
            scheme += ", asymmetric"
        op = "  %%y = octet.matmul %%x, %s rhs_scale(%%s : %s)" % (w, st)
        if f.zp:
            op += " rhs_zero_point(%%z : tensor<%dxi32>)" % N
        op += " rhs_scheme <%s>" % scheme
        if f.bias:
            op += " bias(%%b : tensor<%dxf32>)" % N
        if f.relu:
            op += " relu"
        rt = "tensor<?x%dx%s>" % (N, f.res)
        op += "\n         : tensor<?x%dx%s>, %s -> %s" % (K, f.act, wt, rt)
        body.append(op)
        body.append("  return %%y : %s" % rt)
        out.append("func.func @%s(%s) -> %s {\n%s\n}" % (
            name, ", ".join(args), rt, "\n".join(body)))
    with open(path, "w") as fh:
        fh.write("\n\n".join(out) + "\n")


def activations(rng, m, f):
    """Full-mantissa values of mixed magnitudes (rows scaled by 2^-20 ..
    2^20; 2^-8 .. 2^2 for f16), as the activation type's bits, and their
    float64 values."""
    K, act = f.K, f.act
    if f.special == "inf":
        # Infinities and NaN in the first rows (their further bf16 parts
        # must be 0, not inf - inf); the others full-mantissa values.
        x = rng.standard_normal((m, K)).astype(np.float32)
        x[0, 3] = np.inf
        if m > 1:
            x[1, 5] = np.nan
        if m > 2:
            x[2, 7], x[2, 9] = -np.inf, np.inf
        return x, x.astype(np.float64)
    if f.special:
        # x[0] = 1 + 2^-8 + c 2^-16 (c odd): bf16 parts 1, 2^-8 and 2^-16
        # c (the ninth significant bit of the remainder); x[2] = -(1 +
        # 2^-8) cancels the first two.
        x = np.zeros((m, K), np.float32)
        c = 1 + 2 * (np.arange(m) % 4)
        x[:, 0] = (1 + np.ldexp(1.0, -8) + np.ldexp(1.0, -16) * c).astype(
            np.float32)
        x[:, 2] = np.float32(-(1 + np.ldexp(1.0, -8)))
    else:
        lo, hi = (-8, 3) if act == "f16" else (-20, 21)
        x = rng.standard_normal((m, K)).astype(np.float32)
        x *= np.ldexp(np.float32(1), rng.integers(lo, hi, size=(m, 1)))
    if act == "f16":
        v = x.astype(np.float16)
        return v, v.astype(np.float64)
    if act == "bf16":
        v = x.astype(ml_dtypes.bfloat16)
        return v.view(np.uint16), v.astype(np.float64)
    return x, x.astype(np.float64)


def weights(rng, f):
    """Codes as passed in (None for constants) and their decoded float64
    values (before zero points and scales)."""
    K, N, fmt = f.K, f.N, f.fmt
    if f.special == "inf":
        # Nonzero codes: inf * 0 would be NaN on every path.
        w = rng.integers(1, 128, size=(K, N)) * rng.choice([-1, 1], (K, N))
        return w.astype(np.int8), w.astype(np.float64)
    if f.special:
        q = rng.integers(1, 4, size=(1, N))
        w = np.zeros((K, N), np.int64)
        w[0] = w[2] = q
        return w.astype(np.int8), w.astype(np.float64)
    if f.const:
        return None, const_i4(K, N).astype(np.float64)
    if fmt in ("i8", "u8", "i4", "u4"):
        lo, hi = {"i8": (-128, 128), "u8": (0, 256), "i4": (-8, 8),
                  "u4": (0, 16)}[fmt]
        w = rng.integers(lo, hi, size=(K, N))
        # u4 codes 0..15 one per byte, as octet's i4 buffers hold them.
        return w.astype(np.uint8).view(np.int8), w.astype(np.float64)
    if fmt in ("nf4", "e2m1"):
        c = rng.integers(0, 16, size=(K, N))
        codes = c.astype(np.int8)
        if fmt == "nf4":
            return codes, octet_oracle.NF4_VALUES[c].astype(np.float64)
        return codes, c.astype(np.uint8).view(
            ml_dtypes.float4_e2m1fn).astype(np.float64)
    codes = rng.integers(0, 256, size=(K, N)).astype(np.uint8)
    dt = ml_dtypes.float8_e4m3fn if fmt == "e4m3" else ml_dtypes.float8_e5m2
    bad = ~np.isfinite(codes.view(dt).astype(np.float64))
    codes[bad] = 0x38 if fmt == "e4m3" else 0x3C  # 1.0 for NaN / inf codes
    return codes, codes.view(dt).astype(np.float64)


def scales(rng, f):
    shape = scale_shape(f)
    if f.special == "gcancel":
        # Group 0: 1 + 2^-8 (two bf16 parts); group 1: the same in even
        # columns, 1 + 2^-8 + 2^-16 in odd ones (three parts).
        s = np.full(shape, 1 + 2.0 ** -8)
        s[1, 1::2] += 2.0 ** -16
        return s.astype(np.float32)
    if f.special == "cancel":
        return np.float32(1.0)
    if f.scale == "e8m0":
        return np.ldexp(np.float32(1), rng.integers(-4, 5, size=shape)).astype(
            np.float32)
    if f.scale == "e4m3":
        m = rng.integers(0, 8, size=shape)
        e = rng.integers(-4, 3, size=shape)
        return (np.ldexp(1 + m / 8.0, e) * GLOBAL).astype(np.float32)
    lo = -10 if f.act == "f16" else -6
    s = (np.ldexp(1.0, rng.integers(lo, lo + 7, size=shape)) *
         rng.uniform(0.5, 1, size=shape))
    return np.asarray(s, np.float32)


def check(lib, name, m):
    f = FUNCS[name]
    N = f.N
    rng = np.random.default_rng(SEED + m)
    x, x64 = activations(rng, m, f)
    codes, w64 = weights(rng, f)
    s = scales(rng, f)
    z = rng.integers(0, 256 if f.fmt == "u8" else 16, size=N).astype(
        np.int32) if f.zp else None
    b = rng.standard_normal(N).astype(np.float32) if f.bias else None
    arrays = ([x] + ([] if f.const else [codes]) + [s] +
              ([z] if f.zp else []) + ([b] if f.bias else []))
    (y,) = run_numerics.call(lib, name, arrays)
    with np.errstate(invalid="ignore", over="ignore"):
        return compare(f, x64, w64, s, z, b, y)


def compare(f, x64, w64, s, z, b, y):
    got = run_numerics.as_float(y, f.res).astype(np.float64)

    if f.zp:
        w64 = w64 - z.astype(np.float64)
    s64 = np.asarray(s, np.float64)
    if f.group:
        # The gemv and the wgmma kernel round each scaled weight to f32
        # once: one more rounding per product (in the bound below).
        w64 = w64 * np.repeat(s64, f.group, axis=0)
        want = x64 @ w64
        mag = np.abs(x64) @ np.abs(w64)
    else:
        want = (x64 @ w64) * s64
        mag = (np.abs(x64) @ np.abs(w64)) * np.abs(s64)
    u = 2.0 ** -24
    # 3 K additions of exact part products; per-group: the scaled weight's
    # rounding and the dropped part pairs (below 2 u of the product).
    n = 3 * f.K + 3 if f.weight_parts == 1 else 6 * f.K + 6
    bound = n * u / (1 - n * u) * mag
    if f.bias:
        want = want + b.astype(np.float64)
        bound = bound + u * np.abs(b.astype(np.float64))
    if f.relu:
        want = np.maximum(want, 0)
    out_u = {"f32": 0.0, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}[f.res]
    bound = bound + out_u * (np.abs(want) + bound)
    # Non-finite results must match exactly (NaN where the oracle has NaN,
    # the same infinity); the finite ones are within the bound.
    special = ~np.isfinite(want)
    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    err = np.where(special, 0.0, np.abs(got - want))
    over = np.where(special, ~same, ~(err <= bound))
    if np.any(over):
        i = np.unravel_index(int(np.argmax(np.where(
            over, err / np.maximum(bound, 1e-300), 0))), err.shape)
        return ("%d of %d outputs outside the bound (e.g. [%d, %d] got %r, "
                "want %r, bound %r)" % (np.count_nonzero(over), err.size,
                                        i[0], i[1], got[i], want[i],
                                        bound[i])), None
    ratio = np.where(special, 0.0, err / np.maximum(bound, 1e-300))
    return None, float(np.max(ratio))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("emit")
    e.add_argument("out")
    c = sub.add_parser("check")
    c.add_argument("lib")
    c.add_argument("--rows", default="1,63,64,150")
    c.add_argument("--only", default=",".join(FUNCS))
    opts = p.parse_args()
    if opts.cmd == "emit":
        emit(opts.out)
        return 0
    lib = ctypes.CDLL(os.path.abspath(opts.lib))
    failed = 0
    for name in opts.only.split(","):
        for m in [int(r) for r in opts.rows.split(",")]:
            problem, worst = check(lib, name, m)
            if problem:
                failed += 1
                print("MISMATCH %s M=%d: %s" % (name, m, problem))
            else:
                print("%s M=%d: ok (max error / bound %.3f)" % (name, m, worst))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
