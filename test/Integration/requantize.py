"""octet.requantize between different formats, granularities and
symmetries, compared bit for bit with the oracle's
quantize(dequantize(codes)) (f32 intermediate).

Each case feeds every storage code of the input format and returns

  r_rt    requantize, parameters as function arguments
  r_cp    requantize, parameters as constants
  r_fold  requantize of constant codes with constant parameters (folder)
  r_pair  the unfused octet.dequantize -> octet.quantize pair (runtime)
  r_sh    (equal-parameter cases) the same SSA values as in and out
          parameters

Cases are grouped into a few modules (one function each) to keep the
number of octet-run calls small.
"""

import argparse
import zlib

import numpy as np

import octet_oracle as o
from octet_oracle import Scheme

SHAPE = (12, 128)

# (in scheme, out scheme, same parameters?[, scale choices])
GROUPS = [
    [
        (Scheme("i8"), Scheme("u8", symmetric=False), False),
        (Scheme("i8", "per_axis", 0), Scheme("i8", "per_axis", 1), False),
        (Scheme("u8", "per_group", 1, 32, symmetric=False),
         Scheme("i4", "per_axis", 1), False),
        (Scheme("i4", "per_group", 0, 3),
         Scheme("u4", "per_group", 1, 16, symmetric=False), False),
        (Scheme("u4", "per_axis", 1, symmetric=False),
         Scheme("i8", "per_group", 0, 4, qmin=-127, qmax=127), False),
    ],
    [
        (Scheme("i8", "per_axis", 1, symmetric=False), Scheme("f8E4M3FN"),
         False),
        (Scheme("f8E4M3FN", "per_group", 1, 32),
         Scheme("f8E5M2", "per_axis", 0, saturate=False), False),
        (Scheme("f8E5M2"), Scheme("f8E4M3FN", "per_group", 0, 3), False),
        (Scheme("f8E5M2", "per_axis", 1),
         Scheme("f8E4M3FN", saturate=False), False),
        (Scheme("f8E4M3FN", "per_axis", 0),
         Scheme("i8", "per_group", 0, 2, symmetric=False), False),
    ],
    [
        (Scheme("f8E5M2", "per_group", 0, 2),
         Scheme("u4", symmetric=False), False),
        # Equal parameters: not an identity when the output range is
        # narrower than the codes (i8 -128 -> -127) or when a code is
        # +-inf (E5M2, saturating -> +-57344).
        (Scheme("i8", qmin=-127, qmax=127), Scheme("i8", qmin=-127,
                                                   qmax=127), True),
        (Scheme("i8"), Scheme("i8", qmin=-127, qmax=127), True),
        (Scheme("f8E5M2", "per_axis", 1), Scheme("f8E5M2", "per_axis", 1),
         True),
        (Scheme("u8", "per_axis", 0, symmetric=False),
         Scheme("u8", "per_axis", 0, symmetric=False), True),
        # Equal parameters, full range, but huge scales: (q - zp) * scale
        # overflows to +-inf, which quantizes to qmin / qmax.
        (Scheme("i8", "per_axis", 1), Scheme("i8", "per_axis", 1), True,
         [1e38, 3e38, 3.4028235e38, 1e-45, 1.0]),
    ],
]


def params_for(scheme, rng, scales=None):
    pshape = scheme.param_shape(SHAPE)
    choices = o.SCALE_CHOICES_FP8 if scheme.format.is_fp8 else \
        o.SCALE_CHOICES_INT
    if scales is not None:
        choices = np.asarray(scales, np.float32)
    scale = rng.choice(choices, size=pshape).astype(np.float32)
    zp = None if scheme.symmetric else o.pick_zero_points(scheme, pshape,
                                                          rng)
    return scale, zp


def run_group(gi, cases, ck, workdir):
    fb = o.FunctionBuilder("case")
    checks = []
    for ci, case in enumerate(cases):
        sin, sout, same = case[:3]
        scales = case[3] if len(case) > 3 else None
        rng = np.random.default_rng(zlib.crc32(
            ("requantize|%s|%s" % (sin.attr(), sout.attr())).encode()))
        n = int(np.prod(SHAPE))
        codes = rng.permutation(np.resize(o.all_codes(sin), n)).reshape(SHAPE)
        s0, z0 = params_for(sin, rng, scales)
        if same:
            s1, z1 = s0, z0
        else:
            s1, z1 = params_for(sout, rng)
        pin = o.Params(sin, s0, z0, SHAPE, const=False, prefix="a%d_" % ci)
        pout = o.Params(sout, s1, z1, SHAPE, const=False, prefix="b%d_" % ci)
        cin = o.Params(sin, s0, z0, SHAPE, const=True, prefix="ca%d_" % ci)
        cout = o.Params(sout, s1, z1, SHAPE, const=True, prefix="cb%d_" % ci)
        st_in = o.tensor_type(SHAPE, sin.format.storage)
        st_out = o.tensor_type(SHAPE, sout.format.storage)
        c = fb.arg("%%codes%d" % ci, st_in, o.codes_to_npy(codes, sin))
        for p in (pin, pout, cin, cout):
            fb.params(p)
        r_rt, _ = fb.requantize(c, SHAPE, pin, pout)
        r_cp, _ = fb.requantize(c, SHAPE, cin, cout)
        cc = fb.const(o.storage_literal_codes(codes, sin), SHAPE,
                      sin.format.storage, stem="cc")
        r_fold, _ = fb.requantize(cc, SHAPE, cin, cout)
        d, _ = fb.dequantize(c, SHAPE, pin, "f32")
        r_pair, _ = fb.quantize(d, SHAPE, "f32", pout)
        want = o.requantize(codes, sin, s0, z0, sout, s1, z1)
        S0, S1 = sin.expand(s0, SHAPE), sout.expand(s1, SHAPE)
        ctx = [("code", codes, ("code", sin)), ("in_scale", S0, "float")]
        if z0 is not None:
            ctx.append(("in_zp", sin.expand(z0, SHAPE), "int"))
        ctx.append(("out_scale", S1, "float"))
        if z1 is not None:
            ctx.append(("out_zp", sout.expand(z1, SHAPE), "int"))
        label = "requantize %s -> %s%s" % (sin.attr(), sout.attr(),
                                           " (same params)" if same else "")
        variants = [(r_rt, "runtime-params"), (r_cp, "const-params"),
                    (r_fold, "folded-constant"),
                    (r_pair, "dequantize+quantize")]
        if same:
            # The very same SSA values as in and out parameters.
            shared = o.Params(sout, s0, z0, SHAPE, const=False,
                              prefix="a%d_" % ci)
            r_sh, _ = fb.requantize(c, SHAPE, pin, shared)
            variants.append((r_sh, "shared runtime-params"))
        for v, kind in variants:
            fb.result(v, st_out)
            checks.append(("%s [%s]" % (label, kind), want, sout, sin, ctx))
    tag = "requant_group%d" % gi
    ck.program()
    try:
        outs = o.run_octet(fb.text(), "case", fb.inputs(), len(fb.results),
                           workdir=workdir, tag=tag)
    except o.OctetRunError as e:
        ck.error(tag, str(e))
        return
    for (label, want, sout, sin, ctx), got in zip(checks, outs):
        ck.compare(label, want, o.npy_to_codes(got, sout), ctx, sout,
                   kind="code")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    ck = o.Checker("requantize")
    for gi, cases in enumerate(GROUPS):
        run_group(gi, cases, ck, args.workdir)
    ck.finish()


if __name__ == "__main__":
    main()
