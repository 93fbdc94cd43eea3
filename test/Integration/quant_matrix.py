"""quantize / dequantize / quantize->dequantize round trip for one or more
storage formats across every granularity and symmetry, JIT-run by octet-run
and compared bit for bit with the numpy/ml_dtypes oracle (octet_oracle).

Each (format, granularity, symmetric|asymmetric or saturating|non_saturating)
case is one module with one function that returns

  q_rt, d_rt, r_rt     scale / zero point as function arguments (runtime)
  q_cp, r_cp           scale / zero point as arith.constant (what a compiled
                       model has; a lowering must not turn x/scale into a
                       multiplication by a reciprocal)
  q_fold               quantize of a constant input (the folder's path)

where q = quantize(x), d = dequantize(all storage codes), r = dequantize(q).

Usage: quant_matrix.py --formats i8,u8 [--workdir DIR] [--in-type f32]
                       [--out-type f32] [--narrow] [--grans 0,2]
                       [--scales 1e-40,3e38] [--rank3] [--only SUBSTRING]
"""

import argparse
import zlib

import numpy as np

import octet_oracle as o

# Rank 2 keeps the JIT compile time down (each static loop level costs at
# -O3) while still giving a first and a last axis.
SHAPE = (12, 128)

# per_tensor, per_axis on the first and the last axis, per_group along the
# last and along the first (non-last) axis.
GRANULARITIES = [
    ("per_tensor", 0, 0),
    ("per_axis", 0, 0),
    ("per_axis", 1, 0),
    ("per_group", 1, 32),
    ("per_group", 0, 3),
]

# --rank3: the middle axis of a rank-3 tensor (per_axis and per_group).
SHAPE_3D = (4, 6, 64)
GRANULARITIES_3D = [
    ("per_axis", 1, 0),
    ("per_group", 1, 3),
]


def variants(fmt, narrow, grans=None, table=GRANULARITIES):
    f = o.FORMATS[fmt]
    for k, (gran, axis, group) in enumerate(table):
        if grans is not None and k not in grans:
            continue
        if f.is_fp8:
            # FP4 (E2M1) always saturates.
            for sat in ((True,) if f.bits == 4 else (True, False)):
                yield o.Scheme(fmt, gran, axis, group, saturate=sat)
        else:
            if f.is_nf4:  # symmetric only, the full table
                yield o.Scheme(fmt, gran, axis, group)
                continue
            if narrow:
                # Narrowed ranges: i8<-127:127> and i4<-7:7> symmetric (the
                # usual restricted range), u8<1:254> and u4<1:14> asymmetric.
                lo, hi = f.qmin + 1, f.qmax
                if f.is_unsigned:
                    hi = f.qmax - 1
                yield o.Scheme(fmt, gran, axis, group,
                               symmetric=not f.is_unsigned, qmin=lo, qmax=hi)
                continue
            for sym in (True, False):
                yield o.Scheme(fmt, gran, axis, group, symmetric=sym)


# Extreme scales: an f32 subnormal, the smallest normal (FLT_MIN), 1e-30,
# 1e30, 3e38 and FLT_MAX. x / scale then overflows to +-inf or underflows to
# (signed) zero or a subnormal, and dequantize overflows to +-inf.
EXTREME_SCALES = np.float32([1e-40, 1.17549435e-38, 1e-30, 1e30, 3e38,
                             3.4028235e38])


def make_inputs(scheme, shape, rng, scales=None):
    """x (float64 before rounding to the input type), the positions of the
    specials, scale, zp, codes. per_axis on the last axis (many channels)
    also gets one channel with each of EXTREME_SCALES."""
    f = scheme.format
    pshape = scheme.param_shape(shape)
    choices = o.SCALE_CHOICES_FP8 if f.is_fp8 else o.SCALE_CHOICES_INT
    if scales is not None:
        choices = np.asarray(scales, np.float32)
    scale = rng.choice(choices, size=pshape).astype(np.float32)
    if scales is None and scheme.gran == "per_axis" and \
            scheme.axis == len(shape) - 1 and scale.size >= 32:
        # Channel 5 is all zero (below); skip it.
        pos = rng.choice(np.setdiff1d(np.arange(scale.size), [5]),
                         EXTREME_SCALES.size, replace=False)
        scale[pos] = EXTREME_SCALES
    zp = None if scheme.symmetric else o.pick_zero_points(scheme, pshape, rng)
    S = scheme.expand(scale, shape).astype(np.float64)
    n = int(np.prod(shape))
    if f.is_fp8:
        units = o.fp8_unit_values(scheme.fmt, n, rng).astype(np.float64)
        limit = f.max_finite
    elif f.is_nf4:
        units = o.nf4_unit_values(n, rng).astype(np.float64)
        limit = 1.0
    else:
        Z = np.zeros(shape, np.int32) if zp is None else \
            scheme.expand(zp, shape)
        units = o.int_unit_values(scheme, Z, rng)
        limit = scheme.qmax - scheme.qmin
    units = units.reshape(shape)
    # Far out-of-range values (relative to each element's scale).
    far = o.far_values(limit)
    o.place_specials(units, far, rng)
    with np.errstate(all="ignore"):
        x = units * S
    # Positions of the absolute specials (+-0, +-inf, NaNs, f32 subnormals,
    # FLT_MIN/MAX), written after the conversion to the input type so that
    # their bits survive.
    # Not in the all-zero channels.
    keep = np.ones(shape, bool)
    keep[1, ...] = False
    keep[..., 5] = False
    special_pos = rng.choice(np.flatnonzero(keep), o.SPECIAL_F32.size,
                             replace=False)
    # All-zero channels (index 1 of the first axis and index 5 of the last
    # one), with both zero signs.
    x[1, ...] = 0.0
    x[1, ..., ::2] = -0.0
    x[..., 5] = 0.0
    x[::2, ..., 5] = -0.0
    codes = np.resize(o.all_codes(scheme), n)
    codes = rng.permutation(codes).reshape(shape)
    return x, special_pos, scale, zp, codes


def run_case(scheme, ck, rng, workdir, in_ft="f32", out_ft="f32",
             shape=SHAPE, tag=None, scales=None):
    x64, special_pos, scale, zp, codes = make_inputs(scheme, shape, rng,
                                                     scales)
    xin = o.floats_to_npy(x64, in_ft)          # what octet-run receives
    xin.reshape(-1)[special_pos] = o.floats_to_npy(o.SPECIAL_F32, in_ft)
    x = o.npy_to_floats(xin, in_ft)            # the exact values
    storage = scheme.format.storage

    fb = o.FunctionBuilder("case")
    xs = fb.arg("%x", o.tensor_type(shape, in_ft), xin)
    prt = o.Params(scheme, scale, zp, shape, const=False, prefix="rt_")
    pcp = o.Params(scheme, scale, zp, shape, const=True, prefix="cp_")
    fb.params(prt)
    cs = fb.arg("%codes", o.tensor_type(shape, storage),
                o.codes_to_npy(codes, scheme))
    fb.params(pcp)
    labels = []
    for p, kind in ((prt, "runtime-params"), (pcp, "const-params")):
        q, _ = fb.quantize(xs, shape, in_ft, p)
        fb.result(q, o.tensor_type(shape, storage))
        labels.append(("quantize", kind))
        if kind == "runtime-params":
            d, dt = fb.dequantize(cs, shape, p, out_ft)
            fb.result(d, dt)
            labels.append(("dequantize", kind))
        r, dt = fb.dequantize(q, shape, p, out_ft)
        fb.result(r, dt)
        labels.append(("roundtrip", kind))
    xc = fb.const(x, shape, in_ft, stem="xc")
    qf, _ = fb.quantize(xc, shape, in_ft, pcp)
    fb.result(qf, o.tensor_type(shape, storage))
    labels.append(("quantize", "folded-constant"))

    tag = tag or "%s_%s_%s" % (scheme.fmt, in_ft, out_ft)
    name = "%s %s in=%s out=%s shape=%s" % (
        tag, scheme.attr(), in_ft, out_ft, "x".join(map(str, shape)))
    ck.program()
    try:
        outs = o.run_octet(fb.text(), "case", fb.inputs(), len(fb.results),
                           workdir=workdir, tag=tag)
    except o.OctetRunError as e:
        ck.error(name, str(e))
        return

    want_q = o.quantize(x, scheme, scale, zp)
    want_d = o.dequantize(codes, scheme, scale, zp, out_ft)
    want_r = o.dequantize(want_q, scheme, scale, zp, out_ft)
    S = scheme.expand(scale, shape)
    Z = np.zeros(shape, np.int32) if zp is None else scheme.expand(zp, shape)
    for (what, kind), got in zip(labels, outs):
        label = "%s [%s, %s]" % (name, what, kind)
        if what == "quantize":
            ck.compare(label, want_q, o.npy_to_codes(got, scheme),
                       [("x", x, "float"), ("scale", S, "float"),
                        ("zp", Z, "int")], scheme, kind="code")
        elif what == "dequantize":
            ck.compare(label, want_d, o.npy_to_floats(got, out_ft),
                       [("code", codes, "code"), ("scale", S, "float"),
                        ("zp", Z, "int")], scheme)
        else:
            ck.compare(label, want_r, o.npy_to_floats(got, out_ft),
                       [("x", x, "float"), ("code", want_q, "code"),
                        ("scale", S, "float"), ("zp", Z, "int")], scheme)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", required=True)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--in-type", default="f32")
    ap.add_argument("--out-type", default="f32")
    ap.add_argument("--narrow", action="store_true")
    ap.add_argument("--rank3", action="store_true",
                    help="rank-3 input, granularities along the middle axis")
    ap.add_argument("--grans", default=None,
                    help="comma-separated indices into GRANULARITIES")
    ap.add_argument("--scales", default=None,
                    help="comma-separated scale values to draw from")
    ap.add_argument("--only", default=None,
                    help="substring of the scheme to run (debugging)")
    args = ap.parse_args()
    ck = o.Checker("quant_matrix %s%s in=%s out=%s" % (
        args.formats, " narrow" if args.narrow else "", args.in_type,
        args.out_type))
    for fmt in args.formats.split(","):
        grans = None if args.grans is None else \
            [int(g) for g in args.grans.split(",")]
        table = GRANULARITIES_3D if args.rank3 else GRANULARITIES
        shape = SHAPE_3D if args.rank3 else SHAPE
        for i, scheme in enumerate(variants(fmt, args.narrow, grans, table)):
            if args.only and args.only not in scheme.attr():
                continue
            seed = zlib.crc32(("%s|%s|%s" % (scheme.attr(), args.in_type,
                                             args.out_type)).encode())
            rng = np.random.default_rng(seed)
            tag = "%s_%d%s%s_%s_%s" % (fmt, i, "n" if args.narrow else "",
                                       "r3" if args.rank3 else "",
                                       args.in_type, args.out_type)
            scales = None if args.scales is None else \
                [float(v) for v in args.scales.split(",")]
            run_case(scheme, ck, rng, args.workdir, args.in_type,
                     args.out_type, shape=shape, tag=tag, scales=scales)
    ck.finish()


if __name__ == "__main__":
    main()
