"""Small .npy helper for lit RUN lines (run as `%python -m npytool ...`).

  npytool save OUT.npy DTYPE V,V,...       write a 1-D array; V is a number,
                                           nan, -nan, inf, -inf, -0.0, or 0x...
                                           (raw bits of DTYPE); DTYPE is a
                                           numpy name, bfloat16 (stored as
                                           uint16 bits), or a scalar shape
                                           suffix like float32[] for 0-d
  npytool print FILE.npy [--view DTYPE] [--bits] [--hex]
                                           print "DTYPE [v, v, ...]": floats
                                           as repr (--bits adds their bit
                                           pattern), integers in decimal or
                                           (--hex) as hex bit patterns
  npytool check-quantize X.npy Q.npy --scheme FMT --scale S [--zp Z]
                                           compare octet-run's quantize
                                           result with the oracle (per-tensor)
"""

import argparse
import sys

import numpy as np

import octet_oracle as o


def parse_dtype(name):
    scalar = name.endswith("[]")
    name = name[:-2] if scalar else name
    if name == "bfloat16":
        return "bfloat16", scalar
    return np.dtype(name), scalar


def parse_values(text, dtype):
    vals = [v.strip() for v in text.split(",") if v.strip()]
    if dtype == "bfloat16":
        import ml_dtypes
        raw = []
        for v in vals:
            if v.lower().startswith("0x"):
                raw.append(int(v, 16))
            else:
                raw.append(int(np.array([float(v)], np.float32)
                               .astype(ml_dtypes.bfloat16).view(np.uint16)[0]))
        return np.array(raw, np.uint16)
    out = np.zeros(len(vals), dtype)
    bits_type = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
    for i, v in enumerate(vals):
        if v.lower().startswith("0x"):
            out.view(bits_type[dtype.itemsize])[i] = int(v, 16)
        elif v.lower() == "-nan":
            out[i] = np.copysign(np.nan, -1.0)
        elif dtype.kind == "f":
            out[i] = float(v)
        else:
            out[i] = int(v)
    return out


def cmd_save(args):
    dtype, scalar = parse_dtype(args.dtype)
    a = parse_values(",".join(args.values), dtype)
    if scalar:
        assert a.size == 1, "a 0-d array takes one value"
        a = a.reshape(())
    np.save(args.out, a)


def fmt_value(v, show_bits, hex_ints=False):
    if hex_ints and v.dtype.kind in "iu":
        return "0x%0*x" % (v.dtype.itemsize * 2,
                           int(v) & ((1 << (8 * v.dtype.itemsize)) - 1))
    if v.dtype.kind == "f":
        s = repr(float(v))
        if show_bits:
            s += "(0x%0*x)" % (v.dtype.itemsize * 2,
                               int(o.bits(v.reshape(1))[0]))
        return s
    return str(int(v))


def cmd_print(args):
    a = np.load(args.file)
    if args.view:
        a = a.view(np.dtype(args.view))
    flat = a.reshape(-1)
    print("%s [%s]" % (a.dtype, ", ".join(fmt_value(v, args.bits, args.hex)
                                          for v in flat)))


def cmd_check_quantize(args):
    x = np.load(args.x)
    q = np.load(args.q)
    fmt = args.scheme
    scheme = o.Scheme(fmt, symmetric=args.zp is None)
    want = o.quantize(x, scheme, np.float32(args.scale), args.zp)
    got = o.npy_to_codes(q, scheme)
    ck = o.Checker("check-quantize")
    ck.compare("quantize %s scale=%r" % (scheme.attr(), args.scale), want,
               got, [("x", x, "float")], scheme, kind="code")
    ck.finish()


def main():
    ap = argparse.ArgumentParser(prog="npytool")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save")
    s.add_argument("out")
    s.add_argument("dtype")
    # REMAINDER: values may start with '-' (-128,0,127).
    s.add_argument("values", nargs=argparse.REMAINDER)
    s.set_defaults(fn=cmd_save)
    p = sub.add_parser("print")
    p.add_argument("file")
    p.add_argument("--view", default=None)
    p.add_argument("--bits", action="store_true")
    p.add_argument("--hex", action="store_true",
                   help="print integers as hex bit patterns")
    p.set_defaults(fn=cmd_print)
    c = sub.add_parser("check-quantize")
    c.add_argument("x")
    c.add_argument("q")
    c.add_argument("--scheme", required=True)
    c.add_argument("--scale", type=float, required=True)
    c.add_argument("--zp", type=int, default=None)
    c.set_defaults(fn=cmd_check_quantize)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
