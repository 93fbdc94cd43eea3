"""quantize / dequantize on a dynamically shaped tensor<?x8xf32>, each
module run with two different row counts and compared bit for bit with the
oracle.

Module "static_params": per-tensor and per_axis(1) parameters (static
parameter shapes). Module "dynamic_params": per_axis(0) (tensor<?xf32>),
per_group(1, 4) (tensor<?x2xf32>) and per_group(0, 2) (tensor<?x8xf32>),
whose parameter shapes follow the dynamic dimension.
"""

import argparse
import zlib

import numpy as np

import octet_oracle as o
from octet_oracle import Scheme
from quant_matrix import make_inputs

DYN = (None, 8)

MODULES = {
    "static_params": [
        (Scheme("i8"), "f32"),
        (Scheme("u8", "per_axis", 1, symmetric=False), "f16"),
        (Scheme("f8E5M2", "per_axis", 1), "f32"),
    ],
    "dynamic_params": [
        (Scheme("i4", "per_axis", 0), "f32"),
        (Scheme("f8E4M3FN", "per_group", 1, 4), "f32"),
        (Scheme("u4", "per_group", 0, 2, symmetric=False), "f32"),
        (Scheme("i8", "per_group", 1, 4, symmetric=False,
                qmin=-127, qmax=127), "f16"),
    ],
}


def run_module(mname, cases, rows, ck, workdir):
    shape = (rows, 8)
    fb = o.FunctionBuilder("case")
    checks = []
    for ci, (scheme, out_ft) in enumerate(cases):
        rng = np.random.default_rng(zlib.crc32(
            ("dyn|%s|%d" % (scheme.attr(), rows)).encode()))
        x64, special_pos, scale, zp, codes = make_inputs(scheme, shape, rng)
        xin = o.floats_to_npy(x64, "f32")
        xin.reshape(-1)[special_pos] = o.SPECIAL_F32
        # Parameter types are written with the dynamic dimension; the arrays
        # have the concrete shape.
        p = o.Params(scheme, scale, zp, DYN, const=False, prefix="p%d_" % ci)
        x = fb.arg("%%x%d" % ci, o.tensor_type(DYN, "f32"), xin)
        fb.params(p)
        c = fb.arg("%%c%d" % ci, o.tensor_type(DYN, scheme.format.storage),
                   o.codes_to_npy(codes, scheme))
        q, qt = fb.quantize(x, DYN, "f32", p)
        d, dt = fb.dequantize(c, DYN, p, out_ft)
        r, _ = fb.dequantize(q, DYN, p, out_ft)
        fb.result(q, qt)
        fb.result(d, dt)
        fb.result(r, dt)
        want_q = o.quantize(xin, scheme, scale, zp)
        S = scheme.expand(scale, shape)
        Z = np.zeros(shape, np.int32) if zp is None else \
            scheme.expand(zp, shape)
        ctx = [("scale", S, "float"), ("zp", Z, "int")]
        label = "%s rows=%d %s" % (mname, rows, scheme.attr())
        checks += [
            (label + " [quantize]", want_q, "code", scheme,
             [("x", xin, "float")] + ctx),
            (label + " [dequantize -> %s]" % out_ft,
             o.dequantize(codes, scheme, scale, zp, out_ft), out_ft, scheme,
             [("code", codes, "code")] + ctx),
            (label + " [roundtrip -> %s]" % out_ft,
             o.dequantize(want_q, scheme, scale, zp, out_ft), out_ft, scheme,
             [("x", xin, "float"), ("code", want_q, "code")] + ctx),
        ]
    tag = "%s_rows%d" % (mname, rows)
    ck.program()
    try:
        outs = o.run_octet(fb.text(), "case", fb.inputs(), len(fb.results),
                           workdir=workdir, tag=tag)
    except o.OctetRunError as e:
        ck.error(tag, str(e))
        return
    for (label, want, kind, scheme, ctx), got in zip(checks, outs):
        if kind == "code":
            ck.compare(label, want, o.npy_to_codes(got, scheme), ctx, scheme,
                       kind="code")
        else:
            ck.compare(label, want, o.npy_to_floats(got, kind), ctx, scheme)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    ck = o.Checker("dynamic_shape")
    for mname, cases in MODULES.items():
        for rows in (4, 36):
            run_module(mname, cases, rows, ck, args.workdir)
    ck.finish()


if __name__ == "__main__":
    main()
