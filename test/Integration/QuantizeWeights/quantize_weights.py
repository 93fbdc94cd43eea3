"""Integration test of octet-quantize-weights against the numpy oracle.

Builds a model with one layer per kind of contraction (matmul, transposed
matmul, transpose chain, broadcast + batch_matmul, conv_2d nhwc/hwcf and
nchw/fchw, a generic contraction, a dense_resource weight; f32, f16 and bf16
weights with outlier channels and an all-zero channel), runs the pass with
the given options and checks, layer by layer:

  - the scheme the pass chose (axis from the indexing maps),
  - codes, scales and zero points bit for bit against weights_oracle,
  - the report's SQNR (to 0.01 dB), max abs error, histogram and clip
    thresholds against the oracle's.

Usage: quantize_weights.py CASE... where CASE is OPTIONS (e.g.
"format=i4 granularity=per-group group-size=16 clip=mse"), or one of the
named checks: student-t, nonfinite-clip, run.
"""

import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import weights_oracle as wo  # noqa: E402
import octet_oracle as oo  # noqa: E402

K, N, M, B = 64, 48, 4, 3
C, F = 32, 8  # conv input / output channels


def make_weights(rng):
    w = {}
    base = rng.standard_normal((K, N)).astype(np.float32) / 8
    base[:, rng.choice(N, 3, replace=False)] *= 20  # outlier channels
    base[:, 5] = 0  # an all-zero output channel: guarded scale
    w["mm"] = base
    w["mmT"] = (rng.standard_normal((N, K)) / 8).astype(np.float32)
    w["mmT"][7] *= 30
    w["tr"] = (rng.standard_normal((N, K)) / 8).astype(np.float32)
    w["bmm"] = (rng.standard_normal((K, N)) / 8).astype(np.float16)
    w["conv"] = (rng.standard_normal((3, 3, C, F)) / 4).astype(
        wo.ELT["bf16"])
    w["convc"] = (rng.standard_normal((F, C, 3, 3)) / 4).astype(np.float32)
    w["gen"] = rng.laplace(size=(N, K)).astype(np.float32)
    w["res"] = (rng.standard_normal((K, N)) / 8).astype(np.float32)
    return w


def fill(out_t, elt="f32"):
    return ["%%z = arith.constant 0.0 : %s" % elt,
            "%%e = tensor.empty() : %s" % out_t,
            "%%o = linalg.fill ins(%%z : %s) outs(%%e : %s) -> %s" % (
                elt, out_t, out_t)]


def build_module(w):
    """The model text and, per layer name, (weight array, elt, axes) where
    axes = (channel axis, reduction axis) of the constant as quantized."""
    funcs, res, layers = [], [], {}

    def func(name, args, body, ret_t):
        lines = ["func.func @%s(%s) -> %s {" % (name, args, ret_t)]
        lines += ["  " + b for b in body]
        lines += ["  return %%y : %s" % ret_t, "}"]
        funcs.append("\n".join(lines))

    mm_maps = ""
    # 1. matmul, weight KxN.
    c, _ = wo.weight_const("w", w["mm"], "f32")
    t = "tensor<%dx%dxf32>" % (M, N)
    func("mm", "%%x: tensor<%dx%dxf32>" % (M, K), [c] + fill(t) + [
        '%%y = linalg.matmul ins(%%x, %%w : tensor<%dx%dxf32>, tensor<%dx%dxf32>) '
        'outs(%%o : %s) -> %s loc("mm")' % (M, K, K, N, t, t)], t)
    layers["mm"] = (w["mm"], "f32", (1, 0))
    # 2. matmul with transposed B maps, weight NxK.
    c, _ = wo.weight_const("w", w["mmT"], "f32")
    mm_maps = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
               "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]")
    func("mmT", "%%x: tensor<%dx%dxf32>" % (M, K), [c] + fill(t) + [
        '%%y = linalg.matmul %s ins(%%x, %%w : tensor<%dx%dxf32>, tensor<%dx%dxf32>) '
        'outs(%%o : %s) -> %s loc("mmT")' % (mm_maps, M, K, N, K, t, t)], t)
    layers["mmT"] = (w["mmT"], "f32", (0, 1))
    # 3. constant NxK -> linalg.transpose -> KxN -> matmul.
    c, _ = wo.weight_const("w", w["tr"], "f32")
    func("tr", "%%x: tensor<%dx%dxf32>" % (M, K), [c] + [
        "%%et = tensor.empty() : tensor<%dx%dxf32>" % (K, N),
        "%%wt = linalg.transpose ins(%%w : tensor<%dx%dxf32>) outs(%%et : "
        "tensor<%dx%dxf32>) permutation = [1, 0]" % (N, K, K, N)] + fill(t) + [
        '%%y = linalg.matmul ins(%%x, %%wt : tensor<%dx%dxf32>, tensor<%dx%dxf32>) '
        'outs(%%o : %s) -> %s loc("tr")' % (M, K, K, N, t, t)], t)
    layers["tr"] = (w["tr"], "f32", (0, 1))
    # 4. f16 constant KxN -> broadcast BxKxN -> batch_matmul.
    c, _ = wo.weight_const("w", w["bmm"], "f16")
    tb = "tensor<%dx%dx%dxf32>" % (B, M, N)
    func("bmm", "%%x: tensor<%dx%dx%dxf16>" % (B, M, K), [c] + [
        "%%eb = tensor.empty() : tensor<%dx%dx%dxf16>" % (B, K, N),
        "%%wb = linalg.broadcast ins(%%w : tensor<%dx%dxf16>) outs(%%eb : "
        "tensor<%dx%dx%dxf16>) dimensions = [0]" % (K, N, B, K, N)] + fill(tb) + [
        '%%y = linalg.batch_matmul ins(%%x, %%wb : tensor<%dx%dx%dxf16>, '
        'tensor<%dx%dx%dxf16>) outs(%%o : %s) -> %s loc("bmm")' % (
            B, M, K, B, K, N, tb, tb)], tb)
    layers["bmm"] = (w["bmm"], "f16", (1, 0))
    # 5. conv_2d_nhwc_hwcf, bf16 filter 3x3xCxF.
    c, _ = wo.weight_const("w", w["conv"], "bf16")
    tc = "tensor<1x4x4x%dxbf16>" % F
    func("conv", "%%x: tensor<1x6x6x%dxbf16>" % C, [c] + fill(tc, "bf16") + [
        '%%y = linalg.conv_2d_nhwc_hwcf ins(%%x, %%w : tensor<1x6x6x%dxbf16>, '
        'tensor<3x3x%dx%dxbf16>) outs(%%o : %s) -> %s loc("conv")' % (
            C, C, F, tc, tc)], tc)
    layers["conv"] = (w["conv"], "bf16", (3, 2))
    # 6. conv_2d_nchw_fchw, f32 filter FxCx3x3.
    c, _ = wo.weight_const("w", w["convc"], "f32")
    tcc = "tensor<1x%dx4x4xf32>" % F
    func("convc", "%%x: tensor<1x%dx6x6xf32>" % C, [c] + fill(tcc) + [
        '%%y = linalg.conv_2d_nchw_fchw ins(%%x, %%w : tensor<1x%dx6x6xf32>, '
        'tensor<%dx%dx3x3xf32>) outs(%%o : %s) -> %s loc("convc")' % (
            C, F, C, tcc, tcc)], tcc)
    layers["convc"] = (w["convc"], "f32", (0, 1))
    # 7. a linalg.generic contraction with W as NxK.
    c, _ = wo.weight_const("w", w["gen"], "f32")
    func("gen", "%%x: tensor<%dx%dxf32>" % (M, K), [c] + fill(t) + [
        "%%y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
        "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], "
        'iterator_types = ["parallel", "parallel", "reduction"]} '
        "ins(%%x, %%w : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%o : %s) {" % (
            M, K, N, K, t),
        "^bb0(%a: f32, %b: f32, %c: f32):",
        "  %m = arith.mulf %a, %b : f32",
        "  %s = arith.addf %c, %m : f32",
        "  linalg.yield %s : f32",
        '} -> %s loc("gen")' % t], t)
    layers["gen"] = (w["gen"], "f32", (0, 1))
    # 8. dense_resource weight KxN.
    c, r = wo.weight_const("wres", w["res"], "f32", resource=True)
    res.append(r)
    func("res", "%%x: tensor<%dx%dxf32>" % (M, K), [c.replace("%wres", "%w")]
         + fill(t) + [
        '%%y = linalg.matmul ins(%%x, %%w : tensor<%dx%dxf32>, tensor<%dx%dxf32>) '
        'outs(%%o : %s) -> %s loc("res")' % (M, K, K, N, t, t)], t)
    layers["res"] = (w["res"], "f32", (1, 0))
    return wo.module_text(funcs, res), layers


def parse_options(opts):
    d = dict(kv.split("=", 1) for kv in opts.split())
    fmt = d.get("format", "i8")
    gran = d.get("granularity", "per-channel")
    group = int(d.get("group-size", "128"))
    unsigned = fmt.startswith("u")
    sym = d.get("symmetric", "false" if unsigned else "true") in ("true", "1")
    if fmt.startswith("f8") or fmt.startswith("f4"):
        sym = True
    clip = d.get("clip", "absmax")
    if fmt == "nvfp4":  # E2M1 per group (16), E4M3 scales x global
        sym, gran = True, "per-group"
        group = int(d.get("group-size", "16"))
    if fmt == "nf4-dq":  # NF4 per group (64), E4M3 scales x global
        sym, gran = True, "per-group"
        group = int(d.get("group-size", "64"))
    if fmt.startswith("mxfp"):  # FP8 / FP4 per group (32), E8M0 scales
        sym, gran = True, "per-group"
        group = int(d.get("group-size", "32"))
        if d.get("mx-scale") == "ceil":
            clip = "mx-ceil"
    return fmt, gran, group, sym, clip


# format=iN / uN, N in 2..7: N-bit codes, the N-bit ranges of i4 / u4 (N <=
# 4) or i8 / u8 (what the pass is documented to do).
NARROW = {}
for _n in (2, 3, 5, 6, 7):
    _s = "i4" if _n <= 4 else "i8"
    NARROW["i%d" % _n] = (_s, -2 ** (_n - 1), 2 ** (_n - 1) - 1)
    NARROW["u%d" % _n] = ("u" + _s[1:], 0, 2 ** _n - 1)


def scheme_for(fmt, gran, group, sym, axes):
    if fmt == "nvfp4":  # the global scale is the weight oracle's
        return oo.Scheme("f4E2M1FN", "per_group", axis=axes[1], group=group,
                         e4m3=True)
    if fmt == "nf4-dq":  # NF4 with double-quantized (two-level) scales
        return oo.Scheme("nf4", "per_group", axis=axes[1], group=group,
                         e4m3=True)
    if fmt.startswith("mxfp"):
        return oo.Scheme({"mxfp8-e5m2": "f8E5M2", "mxfp4": "f4E2M1FN"}.get(
                         fmt, "f8E4M3FN"),
                         "per_group", axis=axes[1], group=group, e8m0=True)
    rng = {}
    if fmt in NARROW:
        fmt, lo, hi = NARROW[fmt]
        rng = dict(qmin=lo, qmax=hi)
    if gran == "per-tensor":
        return oo.Scheme(fmt, symmetric=sym, **rng)
    if gran == "per-channel":
        return oo.Scheme(fmt, "per_axis", axis=axes[0], symmetric=sym, **rng)
    return oo.Scheme(fmt, "per_group", axis=axes[1], group=group,
                     symmetric=sym, **rng)


def check_case(chk, opts, w, workdir, tag, layers_filter=None):
    module, layers = build_module(w)
    d = dict(kv.split("=", 1) for kv in opts.split())
    if "skip" in d:
        layers = {n: v for n, v in layers.items()
                  if not re.search(d["skip"], n)}
    out, report, _ = wo.run_pass(module, opts, workdir, tag)
    deqs = wo.read_dequantizes(out)
    names = [l["name"] for l in report["layers"] if l["quantized"]]
    chk.ok(len(deqs) == len(names) == len(layers), tag + ": layer count",
           "%d dequantizes, %d report layers, %d expected" % (
               len(deqs), len(names), len(layers)))
    fmt, gran, group, sym, clip = parse_options(opts)
    # channel-block=B: B x group-size blocks (2-D weights; the conv layers
    # are left out with skip=conv).
    cblock = int(d.get("channel-block", "0"))
    by_name = {l["name"]: l for l in report["layers"]}
    results = {}
    for (name, (wt, elt, axes)), deq in zip(layers.items(), deqs):
        label = "%s[%s]" % (tag, name)
        scheme = scheme_for(fmt, gran, group, sym, axes)
        exp = wo.quantize_weight(wt, scheme, clip, channel_block=cblock)
        scheme = exp["scheme"]
        chk.ok(deq["scheme"] == scheme.attr(), label + " scheme",
               "%s vs expected %s" % (deq["scheme"], scheme.attr()))
        codes = wo.storage_to_codes(deq["codes"], scheme)
        chk.bits_equal(label + " codes", exp["codes"].astype(codes.dtype)
                       if not scheme.format.is_fp8 else exp["codes"], codes)
        chk.bits_equal(label + " scales", exp["scale"], deq["scale"])
        if not scheme.symmetric:
            chk.bits_equal(label + " zero points", exp["zp"], deq["zp"])
        rep = by_name.get(name)
        chk.ok(rep is not None, label + " in report")
        if rep is None:
            continue
        chk.close(label + " sqnr", exp["sqnr_db"], rep["sqnr_db"], 0.01)
        chk.close(label + " max abs error", exp["max_abs_error"],
                  rep["max_abs_error"], 1e-12)
        chk.ok(rep["error_histogram"]["counts"] == exp["histogram"],
               label + " histogram", "%s vs %s" % (
                   rep["error_histogram"]["counts"], exp["histogram"]))
        thr = exp["thresholds"]
        chk.close(label + " clip threshold max", max(thr),
                  rep["clip_threshold"]["max"], 1e-6 * max(1.0, max(thr)))
        nbytes = wt.size * wt.dtype.itemsize
        chk.ok(rep["bytes_before"] == nbytes, label + " bytes before")
        code_bytes = (wt.size + 1) // 2 if scheme.format.bits == 4 else wt.size
        nparams = exp["scale"].size
        if cblock:  # one scale per block in a serialized model
            chans = wt.shape[axes[0]]
            nparams = nparams // chans * -(-chans // cblock)
        # E8M0 / E4M3 scales: a byte each (+ the f32 global scale).
        param_bytes = nparams + (4 if scheme.e4m3 else 0) \
            if scheme.e8m0 or scheme.e4m3 else \
            nparams * (4 if scheme.symmetric else 8)
        chk.ok(rep["bytes_after"] == code_bytes + param_bytes,
               label + " bytes after", "%d" % rep["bytes_after"])
        results[name] = (exp, rep)
    return results


def student_t(chk, workdir):
    """Heavy tails: the MSE clip beats absmax, per the oracle's own numbers
    and the report's (which must agree to 0.01 dB)."""
    rng = np.random.default_rng(7)
    for fmt, gran in (("i4", "per-channel"), ("i8", "per-tensor"),
                      ("i4", "per-group")):
        w = make_weights(rng)
        for k in w:
            w[k] = (rng.standard_t(2.5, size=w[k].shape) / 10).astype(
                w[k].dtype)
        got = {}
        for clip in ("absmax", "mse"):
            opts = "format=%s granularity=%s group-size=16 clip=%s" % (
                fmt, gran, clip)
            got[clip] = check_case(chk, opts, w, workdir,
                                   "t-%s-%s-%s" % (fmt, gran, clip))
        for name in got["mse"]:
            e_abs, r_abs = got["absmax"][name]
            e_mse, r_mse = got["mse"][name]
            chk.ok(e_mse["sqnr_db"] > e_abs["sqnr_db"],
                   "student-t %s %s %s: oracle mse > absmax" % (fmt, gran, name),
                   "%.3f vs %.3f" % (e_mse["sqnr_db"], e_abs["sqnr_db"]))
            chk.ok(r_mse["sqnr_db"] > r_abs["sqnr_db"],
                   "student-t %s %s %s: report mse > absmax" % (fmt, gran, name),
                   "%.3f vs %.3f" % (r_mse["sqnr_db"], r_abs["sqnr_db"]))
            print("student-t %-3s %-11s %-5s absmax %6.2f dB  mse %6.2f dB "
                  "(oracle %6.2f / %6.2f)" % (
                      fmt, gran, name, r_abs["sqnr_db"], r_mse["sqnr_db"],
                      e_abs["sqnr_db"], e_mse["sqnr_db"]))


def nonfinite_clip(chk, workdir):
    rng = np.random.default_rng(11)
    w = {"mm": (rng.standard_normal((K, N)) / 8).astype(np.float32)}
    w["mm"][3, 4] = np.nan
    w["mm"][10, 4] = np.inf
    w["mm"][11, 9] = -np.inf
    for fmt in ("i8", "u8", "f8E4M3FN"):
        module = "\n".join([
            "func.func @mm(%%x: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {" % (
                M, K, M, N),
            "  " + wo.weight_const("w", w["mm"], "f32")[0]] +
            ["  " + l for l in fill("tensor<%dx%dxf32>" % (M, N))] + [
            '  %%y = linalg.matmul ins(%%x, %%w : tensor<%dx%dxf32>, '
            'tensor<%dx%dxf32>) outs(%%o : tensor<%dx%dxf32>) -> '
            'tensor<%dx%dxf32> loc("mm")' % (M, K, K, N, M, N, M, N),
            "  return %%y : tensor<%dx%dxf32>" % (M, N), "}"])
        out, report, err = wo.run_pass(module, "nonfinite=clip format=" + fmt,
                                       workdir, "nonfinite-" + fmt)
        chk.ok("warning: " in err and "weight of 'mm' has a non-finite value "
               "(nan) at index [3, 4]" in err, "nonfinite warning " + fmt, err)
        deq = wo.read_dequantizes(out)[0]
        sym = not fmt.startswith("u")
        scheme = oo.Scheme(fmt, "per_axis", axis=1, symmetric=sym)
        exp = wo.quantize_weight(w["mm"], scheme, "absmax",
                                 nonfinite_clip=True)
        chk.bits_equal("nonfinite %s codes" % fmt, exp["codes"].astype(
            np.uint8 if scheme.format.is_fp8 else np.int32),
            wo.storage_to_codes(deq["codes"], scheme))
        chk.bits_equal("nonfinite %s scales" % fmt, exp["scale"], deq["scale"])
        chk.close("nonfinite %s sqnr" % fmt, exp["sqnr_db"],
                  report["layers"][0]["sqnr_db"], 0.01)
        xhat = exp["xhat"]
        chk.ok(np.isfinite(xhat).all(), "nonfinite %s: finite xhat" % fmt)


def run_model(chk, workdir):
    """Runs the model before and after quantization with octet-run: probe
    functions (identity x W) return the dequantized weights as the lowered
    code computes them, which must equal the oracle's bit for bit; the
    forward outputs must match numpy with the oracle's weights."""
    rng = np.random.default_rng(5)
    w = make_weights(rng)
    fmts = [("i8", "per-channel"), ("i4", "per-group"), ("u8", "per-channel"),
            ("f8E4M3FN", "per-tensor"), ("mxfp8", "per-group"),
            ("mxfp4", "per-group"), ("f4E2M1FN", "per-channel"),
            ("nvfp4", "per-group"), ("nf4", "per-group"),
            ("nf4-dq", "per-group")]
    mm_layers = {k: w[k] for k in ("mm", "res")}
    for fmt, gran in fmts:
        funcs, res = [], []
        for name, wt in mm_layers.items():
            c, r = wo.weight_const("w_" + name, wt, "f32",
                                   resource=(name == "res"))
            if r:
                res.append(r)
            t = "tensor<%dx%dxf32>" % (K, N)
            funcs.append("\n".join(
                ["func.func @probe_%s(%%x: tensor<%dx%dxf32>) -> %s {" % (
                    name, K, K, t), "  " + c]
                + ["  " + l for l in fill(t)]
                + ['  %%y = linalg.matmul ins(%%x, %%w_%s : tensor<%dx%dxf32>, '
                   '%s) outs(%%o : %s) -> %s loc("%s")' % (
                       name, K, K, t, t, t, name),
                   "  return %%y : %s" % t, "}"]))
            funcs.append("\n".join(
                ["func.func @forward_%s(%%x: tensor<%dx%dxf32>) -> "
                 "tensor<%dx%dxf32> {" % (name, M, K, M, N), "  " + c]
                + ["  " + l for l in fill("tensor<%dx%dxf32>" % (M, N))]
                + ['  %%y = linalg.matmul ins(%%x, %%w_%s : tensor<%dx%dxf32>, '
                   '%s) outs(%%o : tensor<%dx%dxf32>) -> tensor<%dx%dxf32> '
                   'loc("%s")' % (name, M, K, t, M, N, M, N, name),
                   "  return %%y : tensor<%dx%dxf32>" % (M, N), "}"]))
        module = wo.module_text(funcs, res)
        opts = "format=%s granularity=%s group-size=16" % (fmt, gran)
        tag = "run-%s-%s" % (fmt, gran)
        out, report, _ = wo.run_pass(module, opts, workdir, tag)
        qpath = os.path.join(workdir, tag + ".q.mlir")
        with open(qpath, "w") as fh:
            fh.write(out)
        x = rng.standard_normal((M, K)).astype(np.float32)
        f, g, grp, sym, clip = parse_options(opts)
        for name, wt in mm_layers.items():
            scheme = scheme_for(f, g, grp, sym, (1, 0))
            exp = wo.quantize_weight(wt, scheme, clip)
            probe = oo.run_octet(out, "probe_" + name,
                                 [np.eye(K, dtype=np.float32)], 1,
                                 workdir=workdir, tag=tag + "-probe-" + name)[0]
            # 0 + 1 * w is w, except that -0 becomes +0.
            chk.ok(np.array_equal(probe, exp["xhat"]) and
                   (oo.bits(probe) == oo.bits(exp["xhat"] + np.float32(0))).all(),
                   "%s %s: run-time dequantized weights == oracle" % (tag, name))
            y_q = oo.run_octet(out, "forward_" + name, [x], 1, workdir=workdir,
                               tag=tag + "-fwd-" + name)[0]
            y_f = oo.run_octet(module, "forward_" + name, [x], 1,
                               workdir=workdir, tag=tag + "-float-" + name)[0]
            ref_q = x.astype(np.float64) @ exp["xhat"].astype(np.float64)
            ref_f = x.astype(np.float64) @ wt.astype(np.float64)
            chk.ok(np.allclose(y_q, ref_q, rtol=1e-4, atol=1e-5),
                   "%s %s: quantized forward == x @ oracle weights" % (tag, name))
            chk.ok(np.allclose(y_f, ref_f, rtol=1e-4, atol=1e-5),
                   "%s %s: float forward == x @ W" % (tag, name))
            print("%s %-4s: weight SQNR %6.2f dB, output SQNR %6.2f dB" % (
                tag, name, exp["sqnr_db"], wo.sqnr_db(y_f, y_q)))


def main():
    workdir = os.environ.get("OCTET_TEST_WORKDIR") or tempfile.mkdtemp(
        prefix="octet-qw-")
    chk = wo.Check("octet-quantize-weights oracle")
    rng = np.random.default_rng(2026)
    w = make_weights(rng)
    for i, case in enumerate(sys.argv[1:]):
        if case == "student-t":
            student_t(chk, workdir)
        elif case == "nonfinite-clip":
            nonfinite_clip(chk, workdir)
        elif case == "run":
            run_model(chk, workdir)
        else:
            check_case(chk, case, w, workdir, "case%d" % i)
            print("checked: " + case)
    chk.finish()


if __name__ == "__main__":
    main()
