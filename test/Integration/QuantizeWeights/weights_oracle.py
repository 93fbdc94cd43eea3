"""numpy oracle for octet-quantize-weights, and helpers to run the pass and
read its results back.

The expected parameters, codes, SQNR and error histograms are computed here
from the rules written in the pass description (include/octet/Transforms/
Passes.td) and docs/numerics.md, in numpy float32 / float64 arithmetic; the
codes themselves come from test/lib/octet_oracle.py's quantize(). Nothing is
computed by octet.

  symmetric    scale = min(T, FLT_MAX) / target (qmax or the FP8 max), f32
  asymmetric   [lo, hi] widened to include 0, scale = (hi - lo) / (qmax - qmin),
               zp = clamp(rint(qmin - lo / scale), qmin, qmax), f32
  guard        zero range -> 1, below FLT_MIN -> FLT_MIN, inf -> FLT_MAX
  absmax       T = max |x| (asymmetric: [min, max])
  minmax       symmetric integers: scale = max(max / qmax, min / qmin), the
               range widened to include 0; otherwise as absmax
  percentile   T = P-th percentile of |x| (asymmetric: [pct(x, 100-P),
               pct(x, P)]), linear interpolation between closest ranks in
               float64, rounded to f32
  mse          ratio_k = f32(k) / f32(100), k = 100 ... 1; T_k = absmax *
               ratio_k (asymmetric: [min * ratio_k, max * ratio_k]); the k
               with the smallest sum of squared errors, ties to the larger k
  e8m0 (MXFP8) scale = 2^(floor(log2(absmax)) - emax), emax 8 (E4M3) / 15
               (E5M2), clamped to 2^-127 .. 2^127 (ml_dtypes float8_e8m0fnu),
               zero range -> 1; threshold min(absmax, max_finite * scale);
               mx-scale=ceil: the smallest power of two with absmax <=
               max_finite * scale
  SQNR         10 log10(sum x^2 / sum (x - xhat)^2), float64
  histogram    |x - xhat| / scale in float64, bins (e_i, e_i+1], first [0, .1]
"""

import dataclasses
import json
import os
import re
import subprocess
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "lib"))
import octet_oracle as oo  # noqa: E402

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
FLT_MIN = F32(np.finfo(np.float32).tiny)
HIST_UPPER = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 1.0, 2.0, 4.0, 8.0, np.inf])
MSE_STEPS = 100


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


def guard(scale, zero_range):
    if zero_range:
        return F32(1)
    if not scale >= FLT_MIN:
        return FLT_MIN
    if not scale <= FLT_MAX:
        return FLT_MAX
    return F32(scale)


def symmetric_params(t, scheme):
    f = scheme.format
    t = F32(0) if np.isnan(t) else F32(min(abs(F32(t)), FLT_MAX))
    # NF4: the table's largest magnitude, 1 (scale = absmax).
    target = F32(f.max_finite) if f.is_fp8 else (
        F32(1) if f.is_nf4 else F32(scheme.qmax))
    with np.errstate(all="ignore"):
        s = F32(t / target)
    return guard(s, t == 0), 0


def asymmetric_params(lo, hi, scheme):
    lo = F32(0) if np.isnan(lo) else F32(lo)
    hi = F32(0) if np.isnan(hi) else F32(hi)
    lo = F32(max(min(lo, F32(0)), -FLT_MAX))
    hi = F32(min(max(hi, F32(0)), FLT_MAX))
    with np.errstate(all="ignore"):
        rng = F32(hi - lo)
        s = guard(F32(rng / F32(scheme.qmax - scheme.qmin)), rng == 0)
        zp = np.rint(F32(F32(scheme.qmin) - F32(lo / s)))
    zp = min(max(zp, F32(scheme.qmin)), F32(scheme.qmax))
    return s, int(zp)


def params_for(scheme, lo, hi):
    if scheme.symmetric:
        return symmetric_params(hi, scheme)
    return asymmetric_params(lo, hi, scheme)


def percentile(v, p):
    v = np.sort(np.asarray(v, np.float32)).astype(np.float64)
    n = v.size
    if n == 0:
        return F32(0)
    rank = (p / 100.0) * (n - 1)
    rank = min(max(rank, 0.0), n - 1)
    i = int(np.floor(rank))
    t = rank - i
    if i + 1 >= n or t == 0.0:
        return F32(v[i])
    return F32(v[i] + (v[i + 1] - v[i]) * t)


def sq_errors(x, scheme, cands):
    """Sum of squared errors of `x` for each candidate (scale, zp), float64;
    all candidates at once (one row each, a per_axis(0) scheme)."""
    rows = dataclasses.replace(scheme, gran="per_axis", axis=0, group=0)
    X = np.broadcast_to(x, (len(cands), x.size))
    s = np.array([c[0] for c in cands], np.float32)
    z = None if scheme.symmetric else np.array([c[1] for c in cands],
                                               np.int32)
    xhat = oo.dequantize(oo.quantize(X, rows, s, z), rows, s, z)
    e = X.astype(np.float64) - xhat.astype(np.float64)
    return np.sum(e * e, axis=1)


# The OCP MX shared scale (test/lib/octet_oracle.py, shared with the
# run-time MX tests).
MX_EMAX = oo.MX_EMAX
e8m0_scale = oo.e8m0_scale


nvfp4_global = oo.nvfp4_global
nvfp4_block_scale = oo.nvfp4_block_scale


def group_params(x, scheme, clip):
    """(scale, zp, threshold, ratio) of one group's finite values `x`."""
    x = np.asarray(x, np.float32)
    sym = scheme.symmetric
    absmax = F32(np.max(np.abs(x))) if x.size else F32(0)
    if scheme.e4m3:  # NVFP4 (E2M1: 6) or NF4-DQ (NF4: 1)
        assert clip == "absmax", clip
        target = scheme.e4m3_target
        s = nvfp4_block_scale(absmax, scheme.glob, target)
        t = min(float(absmax), float(F32(target) * s))
        return s, 0, t, t / float(absmax) if absmax > 0 else 1.0
    if scheme.e8m0:
        assert clip in ("absmax", "mx-ceil"), clip
        s = e8m0_scale(absmax, scheme.fmt, ceil=clip == "mx-ceil")
        t = min(float(absmax), float(F32(scheme.format.max_finite) * s))
        return s, 0, t, t / float(absmax) if absmax > 0 else 1.0
    mn = F32(min(F32(0), np.min(x))) if x.size else F32(0)
    mx = F32(max(F32(0), np.max(x))) if x.size else F32(0)
    if clip == "absmax":
        if sym:
            s, zp = symmetric_params(absmax, scheme)
            return s, zp, float(absmax), 1.0
        s, zp = asymmetric_params(mn, mx, scheme)
        return s, zp, float(max(abs(mn), abs(mx))), 1.0
    if clip == "minmax":
        # Symmetric integers: the smallest scale clipping neither end,
        # max(max / qmax, min / qmin) (infinities as +-FLT_MAX); otherwise
        # as absmax.
        if not sym or scheme.format.is_fp8 or scheme.qmin >= 0:
            return group_params(x, scheme, "absmax")
        lo = F32(max(mn, -FLT_MAX))
        hi = F32(min(mx, FLT_MAX))
        with np.errstate(all="ignore"):
            s = max(F32(hi / F32(scheme.qmax)), F32(lo / F32(scheme.qmin)))
        return guard(F32(s), lo == 0 and hi == 0), 0, float(absmax), 1.0
    if clip.startswith("percentile:"):
        p = float(clip.split(":", 1)[1])
        if sym:
            t = percentile(np.abs(x), p)
            s, zp = symmetric_params(t, scheme)
            return s, zp, float(t), float(t / absmax) if absmax > 0 else 1.0
        hi = percentile(x, p)
        lo = percentile(x, 100.0 - p)
        s, zp = asymmetric_params(lo, hi, scheme)
        return s, zp, float(max(abs(lo), abs(hi))), None
    assert clip == "mse", clip
    cands = []
    for k in range(MSE_STEPS, 0, -1):
        ratio = F32(k) / F32(MSE_STEPS)
        if sym:
            t = F32(absmax * ratio)
            s, zp = symmetric_params(t, scheme)
            thr = float(t)
        else:
            lo, hi = F32(mn * ratio), F32(mx * ratio)
            s, zp = asymmetric_params(lo, hi, scheme)
            thr = float(max(abs(lo), abs(hi)))
        cands.append((s, zp, thr, float(ratio)))
    # argmin keeps the first minimum: the largest threshold on ties.
    best = int(np.argmin(sq_errors(x, scheme, cands)))
    return cands[best]


def groups_of(shape, scheme):
    """Yields (param_index_tuple, element index arrays) per group."""
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    if scheme.gran == "per_tensor":
        yield (), idx.reshape(-1)
        return
    a = scheme.axis
    if scheme.gran == "per_axis":
        for c in range(shape[a]):
            yield (c,), np.take(idx, c, axis=a).reshape(-1)
        return
    g = scheme.group
    pshape = scheme.param_shape(shape)
    moved = np.moveaxis(idx, a, -1)  # (..., dim)
    moved = moved.reshape(moved.shape[:-1] + (shape[a] // g, g))
    for pidx in np.ndindex(*pshape):
        pl = list(pidx)
        cg = pl.pop(a)
        yield pidx, moved[tuple(pl) + (cg,)]


def block_groups(shape, scheme, channel_block):
    """channel-block=B on a 2-D weight quantized per group along axis a:
    yields (param index tuples, element indices) per block of B channels
    (the other axis) x one group along a; the last block may be shorter."""
    assert len(shape) == 2 and scheme.gran == "per_group", (shape, scheme)
    a, g = scheme.axis, scheme.group
    c = 1 - a
    for cg in range(shape[a] // g):
        for c0 in range(0, shape[c], channel_block):
            chans = range(c0, min(shape[c], c0 + channel_block))
            pidx = [(cg, ch) if a == 0 else (ch, cg) for ch in chans]
            rows = np.arange(cg * g, (cg + 1) * g)
            elems = [(np.ravel_multi_index((rows, np.full(g, ch)), shape)
                      if a == 0 else
                      np.ravel_multi_index((np.full(g, ch), rows), shape))
                     for ch in chans]
            yield pidx, np.concatenate(elems)


def quantize_weight(w, scheme, clip, nonfinite_clip=False, channel_block=0):
    """The oracle for one weight: dict with codes, scale, zp, sqnr_db,
    max_abs_error, histogram, thresholds. channel_block=B: one scale per
    block of B output channels x one group (written to each channel)."""
    w = np.asarray(w)
    x = w.astype(np.float32)
    flat = x.reshape(-1)
    if scheme.e4m3:  # NVFP4, NF4-DQ: the global scale from the finite values
        fin = flat[np.isfinite(flat)]
        scheme = dataclasses.replace(scheme, glob=nvfp4_global(
            F32(np.max(np.abs(fin))) if fin.size else F32(0),
            scheme.e4m3_target))
    pshape = scheme.param_shape(x.shape)
    scale = np.zeros(pshape, np.float32)
    zp = np.zeros(pshape, np.int32)
    thresholds, ratios = [], []
    groups = (block_groups(x.shape, scheme, channel_block) if channel_block
              else (([p], e) for p, e in groups_of(x.shape, scheme)))
    for pidxs, elems in groups:
        v = flat[elems]
        if nonfinite_clip:
            v = v[np.isfinite(v)]
        s, z, t, r = group_params(v, scheme, clip)
        for pidx in pidxs:
            scale[pidx] = s
            zp[pidx] = z
            thresholds.append(t)
            ratios.append(r)
    xq = x.copy()
    if nonfinite_clip:
        xq[np.isnan(xq)] = 0
    zp_arg = None if scheme.symmetric else zp
    codes = oo.quantize(xq, scheme, scale, zp_arg)
    xhat = oo.dequantize(codes, scheme, scale, zp_arg).astype(np.float32)
    fin = np.isfinite(x)
    xd = x[fin].astype(np.float64)
    e = xd - xhat[fin].astype(np.float64)
    noise = float(np.sum(e * e))
    signal = float(np.sum(xd * xd))
    sqnr = float("inf") if noise == 0 else (
        float("-inf") if signal == 0 else 10 * np.log10(signal / noise))
    s_e = scheme.expand(scale, x.shape)[fin].astype(np.float64)
    u = np.abs(e) / s_e
    hist = np.bincount(np.searchsorted(HIST_UPPER, u, side="left"),
                       minlength=len(HIST_UPPER))
    return dict(codes=codes, scale=scale, zp=zp if not scheme.symmetric else
                None, xhat=xhat, sqnr_db=sqnr, scheme=scheme,
                max_abs_error=float(np.max(np.abs(e))) if e.size else 0.0,
                histogram=hist.tolist(), thresholds=thresholds,
                ratios=ratios)


def sqnr_db(x, xhat):
    x = np.asarray(x, np.float64)
    e = x - np.asarray(xhat, np.float64)
    noise = float(np.sum(e * e))
    return float("inf") if noise == 0 else 10 * np.log10(np.sum(x * x) / noise)


# ---------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------

ELT = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def raw_bytes(a):
    return np.ascontiguousarray(a).tobytes()


def weight_const(name, w, elt, resource=False):
    """Returns (op text, resource entry or None) for an arith.constant."""
    t = oo.tensor_type(w.shape, elt)
    data = raw_bytes(np.asarray(w).astype(ELT[elt]))
    if resource:
        blob = '%s: "0x%s%s"' % (name, "%08X" % 0 if False else "04000000",
                                 data.hex().upper())
        return ("%%%s = arith.constant dense_resource<%s> : %s" % (
            name, name, t), blob)
    return ('%%%s = arith.constant dense<"0x%s"> : %s' % (
        name, data.hex().upper(), t), None)


def module_text(funcs, resources):
    s = "\n".join(funcs)
    if resources:
        s += "\n{-#\n  dialect_resources: {\n    builtin: {\n      "
        s += ",\n      ".join(resources)
        s += "\n    }\n  }\n#-}\n"
    return s


# ---------------------------------------------------------------------------
# Running the pass and reading results
# ---------------------------------------------------------------------------


def run_pass(module, options, workdir, tag):
    """Runs octet-opt --octet-quantize-weights{options report=...}; returns
    (output text, report dict, stderr)."""
    os.makedirs(workdir, exist_ok=True)
    src = os.path.join(workdir, tag + ".mlir")
    rep = os.path.join(workdir, tag + ".json")
    with open(src, "w") as fh:
        fh.write(module)
    opts = (options + " report=" + rep).strip()
    cmd = [oo.find_tool("octet-opt"), src,
           "--octet-quantize-weights=" + opts,
           "--mlir-print-elementsattrs-with-hex-if-larger=0"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), proc.stderr))
    with open(rep) as fh:
        report = json.load(fh)
    return proc.stdout, report, proc.stderr


_CONST = re.compile(
    r"(%[\w.]+) = arith\.constant (dense<[^>]*>|dense_resource<([\w.$-]+)>)"
    r" : tensor<([^>]*)>")
_DEQ = re.compile(
    r"(%[\w.]+) = octet\.dequantize (%[\w.]+) scale\((%[\w.]+) : [^)]*\)"
    r"(?: zero_point\((%[\w.]+) : [^)]*\))? as (<.*?>) : ")
_RES = re.compile(r"^\s*([\w.$-]+): \"0x([0-9A-Fa-f]*)\"", re.M)

NP_OF = {"f32": np.float32, "i32": np.int32, "i8": np.int8, "i4": np.int8,
         "f8E4M3FN": np.uint8, "f8E5M2": np.uint8, "f4E2M1FN": np.uint8}


def _parse_type(t):
    parts = t.split("x")
    if len(parts) == 1:
        return (), parts[0]
    return tuple(int(p) for p in parts[:-1]), parts[-1]


def _value(text, resources):
    """Numeric array of a constant's literal."""
    m, rname, ttext = text
    shape, elt = _parse_type(ttext)
    dt = NP_OF[elt]
    if rname:
        raw = bytes.fromhex(resources[rname])[4:]  # 4-byte alignment prefix
    else:
        body = m[len("dense<"):-1]
        if body.startswith('"0x'):
            raw = bytes.fromhex(body[3:-1])
        else:  # splat literal
            v = float(body) if elt in ("f32",) else int(body)
            if elt in ("f8E4M3FN", "f8E5M2", "f4E2M1FN"):
                raise ValueError("splat fp8 literal: " + body)
            return np.full(shape, v, dt)
    a = np.frombuffer(raw, dt)
    if a.size == 1 and int(np.prod(shape)) != 1:
        a = np.full(shape, a[0], dt)
    return a.reshape(shape)


def read_dequantizes(text):
    """All octet.dequantize ops of the printed module, in order: list of
    dicts with scheme text, codes (raw storage array), scale, zp."""
    resources = dict(_RES.findall(text.split("{-#", 1)[1])) if "{-#" in \
        text else {}
    consts = {}
    for m in _CONST.finditer(text):
        consts.setdefault(m.group(1), []).append(
            (m.group(2), m.group(3), m.group(4)))
    out = []
    # Constants are function-local: resolve each dequantize against the
    # constants that precede it in its function.
    for func in re.split(r"\n  func\.func ", text):
        local = {}
        for line in func.splitlines():
            cm = _CONST.search(line)
            if cm:
                local[cm.group(1)] = (cm.group(2), cm.group(3), cm.group(4))
            dm = _DEQ.search(line)
            if dm:
                q = _value(local[dm.group(2)], resources)
                s = _value(local[dm.group(3)], resources)
                z = _value(local[dm.group(4)], resources) if dm.group(4) \
                    else None
                out.append(dict(scheme=dm.group(5), codes=q, scale=s, zp=z))
    return out


def storage_to_codes(raw, scheme):
    """Raw storage bytes (one per element) -> logical codes like
    octet_oracle.quantize returns (FP8: uint8 bits)."""
    f = scheme.format
    if f.is_fp8:
        return raw.astype(np.uint8)
    c = raw.astype(np.int32)
    if f.bits == 4:
        c = c & 0xF
        return np.where(c >= 8, c - 16, c) if not f.is_unsigned else c
    return c & 0xFF if f.is_unsigned else c


class Check:
    def __init__(self, title):
        self.title = title
        self.n = 0
        self.failures = []

    def ok(self, cond, label, detail=""):
        self.n += 1
        if not cond:
            self.failures.append(label)
            print("FAIL %s %s" % (label, detail))

    def bits_equal(self, label, expected, actual):
        expected = np.asarray(expected)
        actual = np.asarray(actual)
        if expected.shape != actual.shape:
            return self.ok(False, label, "shape %s vs %s" % (
                actual.shape, expected.shape))
        bad = oo.bits(expected) != oo.bits(actual)
        self.ok(not bad.any(), label, "%d of %d differ; first at %s: "
                "expected %r actual %r" % (
                    bad.sum(), bad.size,
                    np.argwhere(bad)[0].tolist() if bad.any() else None,
                    expected[bad][:1], actual[bad][:1]))

    def close(self, label, expected, actual, tol):
        e = float("inf") if expected is None else expected
        a = float("inf") if actual is None else actual
        self.ok(e == a or abs(e - a) <= tol, label,
                "expected %r actual %r (tol %g)" % (e, a, tol))

    def finish(self):
        print("%s: %d checks, %d failures" % (self.title, self.n,
                                              len(self.failures)))
        if self.failures:
            sys.exit(1)
