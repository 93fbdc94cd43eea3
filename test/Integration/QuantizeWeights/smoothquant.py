"""octet-run --channel-stats and octet-smooth-quant against numpy (the model
and the shared oracle pieces: channel_scaling_model.py).

1. Channel statistics. The instrumented model is calibrated on two batches
   (`--input a.npy,b.npy`; b has a NaN in row 77, which makes row 77 of h and
   of m non-finite). The observed values themselves come from octet-run
   running the same model with h and m as extra results (the "probe"), so
   the expected statistics are computed from exactly the values octet
   observed: per observer (fc, fcT, gate and up observe h; down observes m)
   over the finite rows of both batches,
     absmax_j = max_r |x_rj|            (exact: an f32 value),
     mean_abs_j = sum_r |x_rj| / rows   (f64, to 1e-12 relative),
     dim, rows = 1023, skipped_rows = 1.

2. octet-smooth-quant with alpha A (each CASE). The oracle, per report
   group (the groups applied in the report's order, each to the weights the
   groups before it left), with amax from the statistics just checked:
     wmax_j = max(max over the group's weights of |W| along input j, 1e-5)
     s_j = amax_j^A / wmax_j^(1-A) (f64), s_j = max(s_j, 1e-5),
     s_j = 1 where amax_j == 0 (h's channel 9 is always 0; channel 30,
     ~1e-12, meets the 1e-5 floor of s; down's input 7, with zero weights,
     the floor of wmax)
   Checks: the groups ({fc, fcT, gate, up} on fc.input.. folding into the
   multiplier "norm"; {down} folding into the producer "up"), nothing
   skipped; the reported scales = s to 1e-6 relative; every weight and the
   folded constants bit for bit against f32 arithmetic with the REPORTED
   scales (W[n, j] * sf_j, g_j / sf_j, Wu[j, :] / sf_j); no octet.observe
   left; the smoothed float model's outputs (octet-run) equal the original
   model's within 1e-4 of max |y| on held-out rows; and SmoothQuant's point,
   in numpy on held-out rows from the weights octet wrote: with per-tensor
   static int8 activations (scale from the calibration absmax) and
   per-channel int8 weights, every layer's relative output error is lower
   after smoothing (at least 2x lower for the layers on h, whose outlier
   channels are strongest).

3. The same pass leaves both groups alone, reported as skipped with a
   reason (and a remark each with remarks=true), weights unchanged,
   observers removed: on the probe model (h and m have other users: the
   extra results), and on a model without fold targets (the norm multiplies
   by g twice, so g's block argument has two uses; swiglu adds u).

The report's groups: "layers" a list of names, "observer", "fold"
(multiplier | producer), "fold_into" (the op's location name), "scales".

Usage: smoothquant.py ALPHA... ; prints one line per alpha and a summary.
"""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import channel_scaling_model as cm  # noqa: E402
import weights_oracle as wo  # noqa: E402
import octet_oracle as oo  # noqa: E402

F32 = np.float32


def check_channel_stats(chk, st, probes):
    """probes: [(h, m)] per batch, as octet computed them."""
    vals = {"h": np.concatenate([p[0] for p in probes]).astype(F32),
            "m": np.concatenate([p[1] for p in probes]).astype(F32)}
    tens = st.get("tensors", {})
    nobs, skipped = 0, set()
    for name, which in cm.OBSERVERS.items():
        label = "channels of " + name
        ch = tens.get(name, {}).get("channels")
        chk.ok(ch is not None, label + " present", str(tens.get(name))[:200])
        if ch is None:
            continue
        nobs += 1
        x = vals[which]
        fin = np.all(np.isfinite(x), axis=1)
        xd = np.abs(x[fin].astype(np.float64))
        chk.ok(ch.get("dim") == x.shape[1] and ch.get("rows") == int(fin.sum())
               and ch.get("skipped_rows") == int((~fin).sum()),
               label + " dim/rows/skipped_rows",
               "got %s %s %s, expected %d %d %d" % (
                   ch.get("dim"), ch.get("rows"), ch.get("skipped_rows"),
                   x.shape[1], fin.sum(), (~fin).sum()))
        skipped.add(ch.get("skipped_rows"))
        amax = np.asarray(ch.get("absmax", []), np.float64)
        mean = np.asarray(ch.get("mean_abs", []), np.float64)
        if amax.shape != (x.shape[1],) or mean.shape != (x.shape[1],):
            chk.ok(False, label + " lengths", "%s %s" % (amax.shape,
                                                          mean.shape))
            continue
        exp_amax = np.max(xd, axis=0)
        exp_mean = np.sum(xd, axis=0) / xd.shape[0]
        bad = np.nonzero(amax != exp_amax)[0]
        chk.ok(bad.size == 0, label + " absmax exact",
               "%d channels differ, first %s: %r vs expected %r" % (
                   bad.size, bad[:1], amax[bad[:1]], exp_amax[bad[:1]]))
        err = np.max(np.abs(mean - exp_mean) / np.maximum(exp_mean, 1e-300))
        zero_ok = np.all(mean[exp_mean == 0] == 0)
        chk.ok(err < 1e-12 and zero_ok, label + " mean_abs",
               "max rel diff %g" % err)
    # The probe's values are the model's: h's dead channel is 0 there.
    chk.ok(np.all(vals["h"][:, cm.DEAD] == 0), "h channel %d is 0" % cm.DEAD)
    print("channel stats: %d observers, %d rows, skipped %s, absmax exact, "
          "mean_abs to 1e-12" % (nobs, vals["h"].shape[0],
                                 sorted(skipped)))


def sq_scales(amax, wm, alpha):
    """SmoothQuant's s (f64), from absmax and the weights' per-input max."""
    wm = np.maximum(wm, 1e-5)
    with np.errstate(divide="ignore"):
        s = amax ** alpha / wm ** (1.0 - alpha)
    s = np.maximum(s, 1e-5)
    return np.where(amax == 0, 1.0, s)


def quant_error(x, w_ref, x_s, w_s, act_scale):
    """Relative output error of a layer with per-tensor symmetric int8
    activations (given scale) and per-channel int8 weights (rows = output
    channels): sum (x W_ref^T - Q(x_s) Q(W_s)^T)^2 / sum (x W_ref^T)^2."""
    at = oo.Scheme("i8")
    xq = oo.dequantize(oo.quantize(x_s.astype(F32), at, act_scale), at,
                       act_scale).astype(np.float64)
    wsch = oo.Scheme("i8", "per_axis", axis=0)
    wq = cm.rtn_rows(w_s, wsch)["xhat"].astype(np.float64)
    ref = x.astype(np.float64) @ w_ref.astype(np.float64).T
    y = xq @ wq.T
    return float(np.sum((y - ref) ** 2) / np.sum(ref ** 2))


def check_alpha(chk, alpha, ctx, tag):
    workdir, inst, stats, st, p, xh, y_float = ctx
    rep_path = os.path.join(workdir, tag + ".report.json")
    out, _ = cm.opt(workdir, inst, "--octet-smooth-quant=stats=%s alpha=%s "
                    "report=%s" % (stats, alpha, rep_path), tag)
    rep = cm.load_stats(rep_path)
    chk.ok("octet.observe" not in out, tag + ": observers removed")
    chk.ok(rep.get("pass") == "octet-smooth-quant", tag + ": report pass",
           str(rep.get("pass")))
    chk.ok(abs(float(rep.get("alpha", -1)) - alpha) < 1e-12,
           tag + ": report alpha", str(rep.get("alpha")))
    chk.ok(rep.get("skipped", []) == [], tag + ": nothing skipped",
           str(rep.get("skipped")))
    groups = rep.get("groups", [])
    cm.layers_listed(chk, tag + ":", groups + rep.get("skipped", []))
    tens = st["tensors"]
    cur = dict(p)  # the oracle's weights, updated group by group
    sfs, ratios = {}, []
    for which, layers, label, obs, g in cm.check_groups(chk, tag, groups):
        amax = np.asarray(tens[layers[0] + ".input"]["channels"]["absmax"],
                          np.float64)
        wm = cm.wmax(cur, layers)
        s = sq_scales(amax, wm, alpha)
        # The data reach the floors (s >= 1e-5, max|W_j| >= 1e-5).
        chk.ok(s[cm.TINY] == 1e-5 if which == "h" else wm[cm.ZERO_W] == 0,
               label + " a floor is exercised")
        sf = np.asarray(g.get("scales", []), np.float64)
        if sf.shape != s.shape:
            chk.ok(False, label + " scales length", str(sf.shape))
            continue
        r = cm.rel(sf, s)
        chk.ok(r <= 1e-6, label + " scales = oracle (1e-6 relative)",
               "max rel diff %g, first at %s: %r vs %r" % (
                   r, np.argmax(np.abs(sf - s) / s), sf[np.argmax(
                       np.abs(sf - s) / s)], s[np.argmax(np.abs(sf - s) / s)]))
        sf32 = sf.astype(F32)
        chk.ok(np.array_equal(sf32.astype(np.float64), sf),
               label + " reported scales are f32 values")
        if which == "h":
            chk.ok(np.all(sf32[cm.DEAD] == 1), label + " dead channel s = 1",
                   str(sf32[cm.DEAD]))
        sfs[which] = sf32
        cur = cm.fold(cm.scale_weights(cur, layers, sf32), which, sf32)
        ratios.append("%s s in [%.3g, %.3g]" % (which, sf32.min(),
                                                 sf32.max()))
    got = cm.weights_of(out)
    for name in ("g", "w1", "w2", "wg", "wu", "wd"):
        chk.ok(name in got, "%s: %s found" % (tag, name))
        if name in got:
            chk.bits_equal("%s: %s = f32 arithmetic with the reported scales"
                           % (tag, name), cur[name], got[name])
    if set(sfs) != {"h", "m"}:
        return
    # The smoothed float model computes the same function.
    y_s = cm.run_model(workdir, out, xh, 3, tag + "-run")
    worst = 0.0
    for i, (ys, yf) in enumerate(zip(y_s, y_float)):
        d = float(np.max(np.abs(ys.astype(np.float64) - yf)) /
                  np.max(np.abs(yf)))
        worst = max(worst, d)
        chk.ok(d <= 1e-4, "%s: output %d unchanged by smoothing" % (tag, i),
               "max |diff| / max |y| = %g" % d)
    # SmoothQuant's point: W8A8 (per-tensor static activations) error.
    h, m = cm.ref_acts(xh, p)
    amax_h = np.asarray(tens["fc.input"]["channels"]["absmax"], np.float64)
    amax_m = np.asarray(tens["down.input"]["channels"]["absmax"], np.float64)
    errs = []
    for which, x, amax, layers in (("h", h, amax_h, cm.H_LAYERS),
                                   ("m", m, amax_m, cm.M_LAYERS)):
        sf = sfs[which].astype(np.float64)
        a0 = F32(np.max(amax)) / F32(127)
        a1 = F32(np.max(amax / sf)) / F32(127)
        for l in layers:
            wname, layout = cm.LAYERS[l]
            w0 = cm.out_rows(p[wname], layout)
            ws = cm.out_rows(got[wname], layout)
            w_ref = w0.astype(np.float64)
            if l == "up":  # its output channels also carry down's fold
                w_ref = w_ref / sfs["m"].astype(np.float64)[:, None]
            e0 = quant_error(x, w0, x, w0, a0)
            e1 = quant_error(x, w_ref, x / sf, ws, a1)
            need = 0.5 * e0 if which == "h" else e0
            chk.ok(e1 < need, "%s[%s]: W8A8 error lower after smoothing"
                   % (tag, l), "smoothed %.4g plain %.4g" % (e1, e0))
            errs.append("%s %.2f" % (l, e1 / e0))
    print("alpha %s: %d groups, %s; outputs within %.1e; W8A8 error "
          "smoothed/plain: %s" % (alpha, len(groups), ", ".join(ratios),
                                  worst, ", ".join(errs)))


def check_skipped(chk, workdir, p, batches, variant):
    """Neither group can be smoothed: in the probe model h and m are also
    results ("other users"); in the "no fold" model the norm uses g twice
    and swiglu adds u."""
    tag = "skip-" + variant.replace(" ", "-")
    module = cm.module_text(p, probe=variant == "other users",
                            nofold=variant == "no fold target")
    inst = cm.instrument(workdir, module, tag)
    stats = cm.calibrate(workdir, inst, batches, tag)
    rep_path = os.path.join(workdir, tag + ".report.json")
    out, err = cm.opt(workdir, inst, "--octet-smooth-quant=stats=%s "
                      "alpha=0.5 remarks=true report=%s" % (stats, rep_path),
                      tag)
    rem = [l for l in err.splitlines() if "remark:" in l]
    chk.ok(len(rem) == 2 and any("'down'" in l or '"down"' in l
                                 for l in rem),
           tag + ": a remark per skipped group", err)
    rep = cm.load_stats(rep_path)
    chk.ok(rep.get("groups", None) == [], tag + ": no groups",
           str(rep.get("groups"))[:300])
    sk = rep.get("skipped", [])
    cm.layers_listed(chk, tag + ":", sk)
    got = sorted(cm.group_of(s.get("layers", [])) or "?" for s in sk)
    chk.ok(got == ["h", "m"], tag + ": both groups skipped",
           str([(s.get("layers"), s.get("why")) for s in sk]))
    chk.ok(all(s.get("why") for s in sk), tag + ": with a reason")
    chk.ok("octet.observe" not in out, tag + ": observers removed")
    w = cm.weights_of(out)
    for name in ("g", "w1", "w2", "wg", "wu", "wd"):
        chk.ok(name in w, "%s: %s found" % (tag, name))
        if name in w:
            chk.bits_equal("%s: %s unchanged" % (tag, name), p[name],
                           w[name])
    print("skipped (%s): %d groups (%s)" % (variant, len(sk), "; ".join(
        "%s: %s" % (s.get("layers"), s.get("why")) for s in sk)))


def main():
    alphas = [float(a) for a in sys.argv[1:]]
    rng = np.random.default_rng(2026)
    a, b, xh, p = cm.make_data(rng)
    chk = wo.Check("smoothquant")
    with tempfile.TemporaryDirectory(prefix="octet-smoothquant-") as workdir:
        probe = cm.module_text(p, probe=True)
        probes = [cm.run_model(workdir, probe, xb, 5, "probe%d" % i)[3:]
                  for i, xb in enumerate((a, b))]
        inst = cm.instrument(workdir, cm.module_text(p), "model")
        stats = cm.calibrate(workdir, inst, [a, b], "model")
        st = cm.load_stats(stats)
        check_channel_stats(chk, st, probes)
        if not chk.failures:
            y_float = [y.astype(np.float64) for y in cm.run_model(
                workdir, cm.module_text(p), xh, 3, "float")]
            ctx = (workdir, inst, stats, st, p, xh, y_float)
            for i, alpha in enumerate(alphas):
                check_alpha(chk, alpha, ctx, "alpha%d" % i)
            for variant in ("other users", "no fold target"):
                check_skipped(chk, workdir, p, [a, b], variant)
    print("smoothquant oracle: %d checks, %d failures" % (
        chk.n, len(chk.failures)))
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
