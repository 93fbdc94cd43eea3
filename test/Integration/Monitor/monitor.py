"""Range monitoring (octet-run --monitor, octet-compile --monitor) against a
numpy count of the same values.

The model quantizes its two arguments with static (constant) parameters in
seven schemes -- i8, u8 asymmetric (zero point 37), narrow i8 <-127:127>,
i4, FP8 E4M3FN, FP8 E5M2 and a strided slice of y (every 2nd row, every
3rd column: the runtime walks a strided view) -- plus two quantizers that
share a name (reported as "dup" and "dup#1"), a dynamic quantizer
(compute_params: parameters from the data, never clips) and a static
per-axis one (not monitored); neither of the last two may appear.

The oracle, for every value x a quantizer saw (two batches):
  integer formats: v = rint(f32(x) / f32(scale)) + zp in f32 (numpy's rint
    is round-half-even; the division is IEEE f32, as the contract says),
    clipped high when v > qmax, low when v < qmin (NaN: neither);
  FP8: x / scale converted by ml_dtypes (round-to-nearest-even, no
    saturation: overflow becomes NaN for E4M3FN, inf for E5M2), clipped
    when that overflowed (the sign of x / scale says high or low);
  nan / infinite: counts of NaN and +-inf inputs; absmax: max finite |x|;
  values: the element count; calls: 2.
The inputs hold, for every quantizer, the 9 floats around each end of its
range (the exact ties x / scale = qmax + 1/2, where round-half-even decides,
among them) besides Gaussian values and +-inf, NaN, +-0. The reported
bounds are checked too: clip_from is clipped by the oracle and the float
below it is not; clip_below is clipped and the float above it is not.

Then the same model compiled by octet-compile --monitor and run with
octet-run --library --monitor reports the same numbers.

Usage: monitor.py WORKDIR ; prints one line per check group.
"""

import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
import octet_oracle as oo  # noqa: E402

F32 = np.float32
ROWS, COLS = 64, 48

# name, scheme text, scale, zero point, qmin, qmax, fp8 dtype (or None)
QUANTIZERS = [
    ("a.i8", "i8", 0.0371, 0, -128, 127, None),
    ("a.u8", "u8, asymmetric", 0.0213, 37, 0, 255, None),
    ("a.narrow", "i8<-127:127>", 0.0297, 0, -127, 127, None),
    ("a.i4", "i4", 0.613, 0, -8, 7, None),
    ("a.e4m3", "f8E4M3FN", 0.00917, 0, 0, 0, ml_dtypes.float8_e4m3fn),
    ("a.e5m2", "f8E5M2", 0.0000733, 0, 0, 0, ml_dtypes.float8_e5m2),
]
STRIDED = ("b.strided", "i8", 0.0451, 0, -128, 127, None)
DUP_SCALES = (0.0299, 0.0511)


def storage(scheme):
    return {"i8": "i8", "u8": "i8", "i4": "i4", "f8E4M3FN": "f8E4M3FN",
            "f8E5M2": "f8E5M2"}[scheme.split(",")[0].split("<")[0]]


def model():
    lines = ["func.func @main(%x: tensor<64x48xf32>, %y: tensor<64x48xf32>)"
             " -> (" + ", ".join(["tensor<64x48xf32>"] * 10 +
                                  ["tensor<32x16xf32>"]) + ") {"]
    results = []

    def quant(i, src, shape, name, scheme, scale, zp):
        st = storage(scheme)
        lines.append("  %%s%d = arith.constant dense<%s> : tensor<f32>"
                     % (i, repr(float(F32(scale)))))
        zpart = ""
        if "asymmetric" in scheme:
            lines.append("  %%z%d = arith.constant dense<%d> : tensor<i32>"
                         % (i, zp))
            zpart = " zero_point(%%z%d : tensor<i32>)" % i
        lines.append(
            '  %%q%d = octet.quantize %s scale(%%s%d : tensor<f32>)%s as <%s>'
            ' : tensor<%sxf32> -> tensor<%sx%s> loc("%s")'
            % (i, src, i, zpart, scheme, shape, shape, st, name))
        lines.append(
            '  %%d%d = octet.dequantize %%q%d scale(%%s%d : tensor<f32>)%s as'
            ' <%s> : tensor<%sx%s> -> tensor<%sxf32>'
            % (i, i, i, zpart, scheme, shape, st, shape))
        results.append("%%d%d" % i)

    for i, (name, scheme, scale, zp, _, _, _) in enumerate(QUANTIZERS):
        quant(i, "%x", "64x48", name, scheme, scale, zp)
    quant(10, "%y", "64x48", "dup", "i8", DUP_SCALES[0], 0)
    quant(11, "%y", "64x48", "dup", "i8", DUP_SCALES[1], 0)
    # Dynamic: parameters from the data.
    lines.append("  %sd = octet.compute_params %y as <i8> : tensor<64x48xf32>"
                 " -> tensor<f32>")
    lines.append('  %qd = octet.quantize %y scale(%sd : tensor<f32>) as <i8>'
                 ' : tensor<64x48xf32> -> tensor<64x48xi8> loc("dynamic")')
    lines.append("  %dd = octet.dequantize %qd scale(%sd : tensor<f32>) as"
                 " <i8> : tensor<64x48xi8> -> tensor<64x48xf32>")
    results.append("%dd")
    # Static per-axis: not monitored.
    axis = ", ".join(repr(0.01 + 0.001 * j) for j in range(48))
    lines.append("  %%sa = arith.constant dense<[%s]> : tensor<48xf32>" % axis)
    lines.append('  %qa = octet.quantize %y scale(%sa : tensor<48xf32>) as'
                 ' <i8, per_axis(1)> : tensor<64x48xf32> -> tensor<64x48xi8>'
                 ' loc("peraxis")')
    lines.append("  %da = octet.dequantize %qa scale(%sa : tensor<48xf32>) as"
                 " <i8, per_axis(1)> : tensor<64x48xi8> -> tensor<64x48xf32>")
    results.append("%da")
    lines.append("  %ys = tensor.extract_slice %y[0, 1] [32, 16] [2, 3] :"
                 " tensor<64x48xf32> to tensor<32x16xf32>")
    name, scheme, scale, zp = STRIDED[:4]
    quant(20, "%ys", "32x16", name, scheme, scale, zp)
    lines.append("  return " + ", ".join(results) + " : " + ", ".join(
        ["tensor<64x48xf32>"] * 10 + ["tensor<32x16xf32>"]))
    lines.append("}")
    return "\n".join(lines) + "\n"


def side(x, q):
    """+1 / -1 where the quantizer q clips x high / low, else 0 (oracle)."""
    _, _, scale, zp, qmin, qmax, fp8 = q
    x = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        v = x / F32(scale)
        if fp8 is not None:
            enc = v.astype(fp8).astype(np.float64)
            over = ~np.isnan(v) & (np.isnan(enc) | np.isinf(enc))
            return np.where(over, np.sign(v), 0).astype(int)
        v = np.rint(v) + F32(zp)
        return np.where(v > qmax, 1, np.where(v < qmin, -1, 0))


def edges(q):
    """The floats around both ends of q's range (9 each)."""
    _, _, scale, zp, qmin, qmax, fp8 = q
    out = []
    if fp8 is not None:
        top = float(ml_dtypes.finfo(fp8).max)
        # Halfway to the next power of the format (the rounding boundary).
        step = 2.0 ** (np.floor(np.log2(top)) -
                       ml_dtypes.finfo(fp8).nmant)
        ends = [top + step / 2, -(top + step / 2)]
    else:
        ends = [qmax - zp + 0.5, qmin - zp - 0.5]
    for e in ends:
        c = F32(e) * F32(scale)
        # The float whose quotient is closest to the boundary, then 4 on
        # each side.
        for _ in range(8):
            d = F32(c) / F32(scale) - F32(e)
            if d == 0:
                break
            c = np.nextafter(c, F32(-np.inf) if d > 0 else F32(np.inf),
                             dtype=F32)
        for k in range(-4, 5):
            v = c
            for _ in range(abs(k)):
                v = np.nextafter(v, F32(np.inf) if k > 0 else F32(-np.inf),
                                 dtype=F32)
            out.append(v)
    return out


def inputs(seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((ROWS, COLS)) * 2.5).astype(F32)
    y = (rng.standard_normal((ROWS, COLS)) * 3.0).astype(F32)
    probes = []
    for q in QUANTIZERS:
        probes += edges(q)
    probes += [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30]
    idx = rng.choice(ROWS * COLS, len(probes), replace=False)
    x.flat[idx] = np.asarray(probes, F32)
    yprobes = edges(STRIDED) + [np.inf, np.nan]
    # Into the strided view (rows 0, 2, ..; columns 1, 4, ..) and outside it.
    for k, v in enumerate(yprobes):
        y[2 * (k % 32), 1 + 3 * (k % 16)] = v
        y[2 * (k % 32) + 1, 3 * (k % 16)] = -v
    return x, y


def expected(batches):
    exp = {}

    def add(name, q, vals):
        vals = np.asarray(vals, F32).ravel()
        s = side(vals, q)
        e = exp.setdefault(name, dict(calls=0, values=0, clipped_low=0,
                                      clipped_high=0, nan=0, infinite=0,
                                      absmax=0.0, q=q))
        e["calls"] += 1
        e["values"] += vals.size
        e["clipped_low"] += int((s < 0).sum())
        e["clipped_high"] += int((s > 0).sum())
        e["nan"] += int(np.isnan(vals).sum())
        e["infinite"] += int(np.isinf(vals).sum())
        fin = np.abs(vals[np.isfinite(vals)])
        e["absmax"] = max(e["absmax"], float(fin.max()) if fin.size else 0.0)

    for x, y in batches:
        for q in QUANTIZERS:
            add(q[0], q, x)
        add("dup", ("dup", "i8", DUP_SCALES[0], 0, -128, 127, None), y)
        add("dup#1", ("dup#1", "i8", DUP_SCALES[1], 0, -128, 127, None), y)
        add(STRIDED[0], STRIDED, y[0::2, 1::3][:32, :16])
    return exp


def check(report, exp, label):
    fails = []
    layers = {l["name"]: l for l in report["layers"]}
    if report.get("format") != "octet-monitor":
        fails.append("format %r" % report.get("format"))
    if sorted(layers) != sorted(exp):
        fails.append("layers %s, expected %s" % (sorted(layers), sorted(exp)))
    checks = 0
    clipped_total = 0
    for name, e in exp.items():
        l = layers.get(name)
        if l is None:
            continue
        q = e["q"]
        for key in ("calls", "values", "clipped_low", "clipped_high", "nan",
                    "infinite"):
            checks += 1
            if l[key] != e[key]:
                fails.append("%s %s: %s, numpy %s" % (name, key, l[key],
                                                      e[key]))
        checks += 1
        if F32(l["absmax"]) != F32(e["absmax"]):
            fails.append("%s absmax %r, numpy %r" % (name, l["absmax"],
                                                     e["absmax"]))
        checks += 1
        if l["clipped"] != e["clipped_low"] + e["clipped_high"]:
            fails.append("%s clipped %s" % (name, l["clipped"]))
        checks += 1
        if F32(l["scale"]) != F32(q[2]) or l["zero_point"] != q[3]:
            fails.append("%s parameters %s %s" % (name, l["scale"],
                                                  l["zero_point"]))
        # The bounds: the first clipped float from either side.
        hi, lo = F32(l["clip_from"]), F32(l["clip_below"])
        below_hi = np.nextafter(hi, F32(-np.inf), dtype=F32)
        above_lo = np.nextafter(lo, F32(np.inf), dtype=F32)
        got = [int(side([v], q)[0]) for v in (hi, below_hi, lo, above_lo)]
        checks += 1
        if got != [1, 0, -1, 0]:
            fails.append("%s bounds %r %r: oracle sides %s" % (
                name, float(hi), float(lo), got))
        clipped_total += e["clipped_low"] + e["clipped_high"]
    print("%s: %d layers, %d checks, %d values clipped, %d failures"
          % (label, len(layers), checks, clipped_total, len(fails)))
    for f in fails[:20]:
        print("  FAIL " + f)
    return len(fails)


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    mlir = os.path.join(work, "monitor.mlir")
    with open(mlir, "w") as fh:
        fh.write(model())
    batches = [inputs(1), inputs(2)]
    files = []
    for b, (x, y) in enumerate(batches):
        for n, a in (("x", x), ("y", y)):
            p = os.path.join(work, "%s%d.npy" % (n, b))
            np.save(p, a)
            files.append(p)
    xin = files[0] + "," + files[2]
    yin = files[1] + "," + files[3]
    exp = expected(batches)
    # The inputs must exercise what the test claims: exact ties at qmax +
    # 1/2 (round-half-even keeps even ones in range) and clipping on every
    # quantizer, at both ends.
    for name, e in exp.items():
        assert e["clipped_low"] > 0 and e["clipped_high"] > 0, name
    x0 = batches[0][0]
    for q in QUANTIZERS:
        if q[6] is None:
            t = x0[np.float32(x0) / F32(q[2]) == F32(q[5] - q[3] + 0.5)]
            assert t.size > 0, "no exact tie for " + q[0]

    fails = 0
    jit = os.path.join(work, "jit.json")
    subprocess.run([oo.find_tool("octet-run"), mlir, "--entry", "main",
                    "--input", xin, "--input", yin, "--monitor", jit],
                   check=True, capture_output=True)
    fails += check(json.load(open(jit)), exp, "octet-run --monitor")

    lib = os.path.join(work, "libmonitor.so")
    subprocess.run([oo.find_tool("octet-compile"), mlir, "--target=host",
                    "--monitor", "-o", lib], check=True)
    libjson = os.path.join(work, "lib.json")
    subprocess.run([oo.find_tool("octet-run"), lib, "--library", "--entry",
                    "main", "--input", xin, "--input", yin, "--monitor",
                    libjson], check=True, capture_output=True)
    fails += check(json.load(open(libjson)), exp,
                   "octet-compile --monitor library")
    print("monitor oracle: %d failures" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
