"""f16 and bf16 inputs of quantize, f16 and bf16 results of dequantize (and
of the round trip), for every storage format, JIT-run by octet-run and
compared bit for bit with the oracle. bf16 tensors travel as uint16 bits.

Two programs per format, one per result type T in {f16, bf16} (each with
its own scheme: per_axis for f16 results, per_group for bf16 results):

  quantize(x as f16), quantize(x as bf16)
  dequantize(all codes) -> T
  dequantize(quantize(x as f16)) -> T, dequantize(quantize(x as bf16)) -> T
"""

import argparse
import zlib

import numpy as np

import octet_oracle as o
from quant_matrix import SHAPE, make_inputs

# Specials per float type, as bit patterns: +-0, +-inf, +-NaN, a NaN with a
# payload, +-smallest subnormal, another subnormal, smallest normal, +-max.
SPECIALS = {
    "f16": np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7D00,
                     0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF],
                    np.uint16).view(np.float16),
    "bf16": np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FA0,
                      0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F],
                     np.uint16),
}


def schemes(fmt):
    """(scheme, result float type) pairs: one program each."""
    if o.FORMATS[fmt].is_fp8:
        # (FP4 always saturates.)
        return [(o.Scheme(fmt, "per_axis", 0), "f16"),
                (o.Scheme(fmt, "per_group", 1, 32,
                          saturate=o.FORMATS[fmt].bits == 4), "bf16")]
    if o.FORMATS[fmt].is_nf4:  # symmetric only
        return [(o.Scheme(fmt, "per_axis", 1), "f16"),
                (o.Scheme(fmt, "per_group", 0, 3), "bf16")]
    return [(o.Scheme(fmt, "per_axis", 1, symmetric=False), "f16"),
            (o.Scheme(fmt, "per_group", 0, 3), "bf16")]


def run(scheme, out_ft, ck, rng, workdir, tag):
    shape = SHAPE
    x64, special_pos, scale, zp, codes = make_inputs(scheme, shape, rng)
    storage = scheme.format.storage
    st = o.tensor_type(shape, storage)
    xs = {}
    for ft in ("f16", "bf16"):
        a = o.floats_to_npy(x64, ft)
        sp = SPECIALS[ft]
        a.reshape(-1)[special_pos[: sp.size]] = sp.view(a.dtype)
        xs[ft] = a
    xv = {ft: o.npy_to_floats(xs[ft], ft) for ft in xs}
    wq = {ft: o.quantize(xv[ft], scheme, scale, zp) for ft in xs}
    S = scheme.expand(scale, shape)
    Z = np.zeros(shape, np.int32) if zp is None else scheme.expand(zp, shape)
    ctx_s = [("scale", S, "float"), ("zp", Z, "int")]

    fb = o.FunctionBuilder("case")
    xarg = {ft: fb.arg("%x_" + ft, o.tensor_type(shape, ft), xs[ft])
            for ft in ("f16", "bf16")}
    p = o.Params(scheme, scale, zp, shape, const=False, prefix="")
    fb.params(p)
    cs = fb.arg("%codes", st, o.codes_to_npy(codes, scheme))
    checks = []  # (what, expected, npy -> values, context, kind)
    q = {}
    for ft in ("f16", "bf16"):
        q[ft], _ = fb.quantize(xarg[ft], shape, ft, p)
        fb.result(q[ft], st)
        checks.append(("quantize %s" % ft, wq[ft],
                       lambda a: o.npy_to_codes(a, scheme),
                       [("x", xv[ft], "float")] + ctx_s, "code"))
    d, dt = fb.dequantize(cs, shape, p, out_ft)
    fb.result(d, dt)
    checks.append(("dequantize -> %s" % out_ft,
                   o.dequantize(codes, scheme, scale, zp, out_ft),
                   lambda a: o.npy_to_floats(a, out_ft),
                   [("code", codes, "code")] + ctx_s, "float"))
    for ft in ("f16", "bf16"):
        r, _ = fb.dequantize(q[ft], shape, p, out_ft)
        fb.result(r, dt)
        checks.append(("roundtrip %s -> %s" % (ft, out_ft),
                       o.dequantize(wq[ft], scheme, scale, zp, out_ft),
                       lambda a: o.npy_to_floats(a, out_ft),
                       [("x", xv[ft], "float"), ("code", wq[ft], "code")]
                       + ctx_s, "float"))

    ptag = "%s_to_%s" % (tag, out_ft)
    name = "%s %s (%s results)" % (ptag, scheme.attr(), out_ft)
    ck.program()
    try:
        outs = o.run_octet(fb.text(), "case", fb.inputs(), len(fb.results),
                           workdir=workdir, tag=ptag)
    except o.OctetRunError as e:
        ck.error(name, str(e))
        return
    for (what, want, conv, ctx, kind), got in zip(checks, outs):
        ck.compare("%s [%s]" % (name, what), want, conv(got), ctx, scheme,
                   kind)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default=",".join(o.FORMATS))
    ap.add_argument("--results", default="f16,bf16",
                    help="result float types to test (f16, bf16)")
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    ck = o.Checker("float_types %s results %s" % (args.formats, args.results))
    for fmt in args.formats.split(","):
        for i, (scheme, out_ft) in enumerate(schemes(fmt)):
            if out_ft not in args.results.split(","):
                continue
            rng = np.random.default_rng(zlib.crc32(
                ("float_types|" + scheme.attr()).encode()))
            run(scheme, out_ft, ck, rng, args.workdir, "%s_%d" % (fmt, i))
    ck.finish()


if __name__ == "__main__":
    main()
