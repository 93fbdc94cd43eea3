"""octet-quantize-weights algorithm=awq against a numpy AWQ (Lin et al.
2023, activation-aware scale search), on the model of
channel_scaling_model.py: the group {fc, fcT, gate, up} on h folds its
scales into the multiplier g ("norm"), the group {down} on m into the
output channels of its producer "up".

The model is instrumented and calibrated with octet-run --channel-stats
--second-moment on two batches (one with a NaN row; smoothquant.py checks
the channel statistics against numpy). Here the data has two more
features: h's channels 48..63 are always 0 (a zero diagonal block of H:
clip candidates that tie exactly), and every 8th row of gate's weight has
a +-200 entry on h's dead channel 9 (a group whose best clip is the
smallest candidate). Per report group (applied in the
report's order, each to the weights the groups before it left), with
m_j = channels.mean_abs of the group's observer and H its second moment
(the .npy octet-run wrote, X^T X):

  for i in 0 .. grid-1: alpha = i / grid,
    s = max(m, 1e-4)^alpha (f64), s /= sqrt(max(s) min(s)), sf = f32(s),
    for each group weight as rows n (output channels) x K:
      Ws = f32(W * sf), Q = round-to-nearest of Ws with the case's scheme
      and clip (weights_oracle, exactly what algorithm=rtn does),
      delta = f64(Q) / f64(sf) - f64(W),
    error(alpha) = sum over the weights, over rows n % ceil(N / 128) == 0
      (gate and up have N = 160: every other row), of delta_n^T H delta_n;
  the best alpha is the first minimum (up to ties: an alpha whose error
  is within 1e-6 relative, plus the change that flipping the codes at
  rounding ties could make, of the smallest).

Checks, per CASE and group: the group ("layers" a list of names),
observer and fold target; the
reported alpha is on the grid and its oracle error is within 1e-6 relative
of the oracle's minimum (a tie may go either way); the reported scales =
the oracle's for that alpha (1e-6 relative) and are f32 values; the
reported error = the oracle's error with the reported scales, error_rtn =
the oracle's error at alpha 0 (plain RTN), both to 1e-6 relative (plus
the tie slack), and so is every point of "error_curve" when the report has
one; the
layer output error of AWQ on held-out rows is not above RTN's, and clearly
below it (< 0.9x) for both groups (their activations have outlier
channels). Then, per layer: the scheme, codes, scales (and zero points)
equal the oracle's RTN of the final f32 weight W' (f32(W sf) with the
reported scales, up's output channels then divided by down's), codes only
differing at a rounding tie; with awq-clip=true (the default) and per-group
granularity, each group's parameters are those of AWQ's clip search
(clip_search below: the candidate k / 20, k = 20 .. 11, of the group's
range with the smallest d^T H'_b d, H' = H / (sf sf^T) the scaled input's
second moment (the layer's group's H and sf), H'_b its block on the
group's inputs; ties to the larger range; where two candidates' errors are
within 1e-9 of the sum of their |terms|, either may be octet's choice), the
report's clip_ratio (min, max, mean) matches the chosen ratios, some but
not all groups are clipped and the data has exact ties; otherwise the
parameters are absmax RTN (clip_ratio all 1). g = f32(g / sf) bit for
bit; the report's layer entries (quantized, algorithm awq); no
octet.observe left; and octet-run of the quantized model equals numpy's
forward with the oracle's dequantized weights and folded g (1e-4 of max
|y|).

"gptq OPTIONS" runs algorithm=awq-gptq: the AWQ search is checked as
above, then each layer's codes and parameters against gptq.py's oracle
(gptq_oracle_h) on the final f32 weight W' and the scaled input's second
moment H' = H / (sf sf^T), rounding onto the clip search's ranges (static;
equal bit for bit) or, with awq-clip=false, GPTQ's own groups, rows allowed
to diverge by float order as in gptq.py (compare_rows); the layer output
error d^T H' d below AWQ's alone (the clip-searched round to nearest), and
the model's outputs equal numpy's with octet's dequantized weights.

Usage: awq.py CASE... (CASE = octet-quantize-weights options without
algorithm, stats and report, e.g. "format=i4 granularity=per-group
group-size=16 awq-grid=20", "... awq-clip=false"; "nofold OPTIONS": the
model without fold targets, check_nofold: no scales, clip search only;
"gptq OPTIONS": algorithm=awq-gptq).
"""

import dataclasses
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import channel_scaling_model as cm  # noqa: E402
import gptq as gq  # noqa: E402
import quantize_weights as qw  # noqa: E402
import weights_oracle as wo  # noqa: E402
import octet_oracle as oo  # noqa: E402

F32 = np.float32

# AWQ's clip search (awq-clip=true, per group or channel): candidates k / CLIP_STEPS of
# each group's range for k in CLIP_KS, the first (k = CLIP_STEPS, absmax)
# preferred on ties.
CLIP_STEPS = 20
CLIP_KS = list(range(CLIP_STEPS, CLIP_STEPS // 2, -1))  # 20, 19, ..., 11
# Two candidates' errors closer than this (relative to the sum of the
# |terms| of their quadratic forms) may compare either way in octet's
# summation order.
CLIP_TIE_REL = 1e-9
# A block of h's input channels that is always 0 (x's channels DEAD_BLOCK
# zeroed in every batch): its diagonal block of H is 0, so every clip
# candidate of those groups has error exactly 0 and the tie rule decides.
DEAD_BLOCK = slice(48, 64)
# Every 8th row of gate's weight gets +-OUTLIER on h's dead channel cm.DEAD:
# its error costs nothing there, so the search wants the smallest range and
# some groups take the last candidate (k = 11).
OUTLIER = 200.0


def row_scheme(fmt, gran, group, sym):
    """The scheme of a weight viewed as (output channel) x (input)."""
    return qw.scheme_for(fmt, gran, group, sym, (0, 1))


def layer_scheme(fmt, gran, group, sym, layout):
    """The scheme of a weight in its own layout (axes = (channel axis,
    reduction axis))."""
    return qw.scheme_for(fmt, gran, group, sym,
                         (1, 0) if layout == "kn" else (0, 1))


def awq_scales(mean_abs, alpha):
    s = np.maximum(np.asarray(mean_abs, np.float64), 1e-4) ** alpha
    return s / np.sqrt(np.max(s) * np.min(s))


def group_error(cur, layers, sf, hmat, scheme, clip, sample=True):
    """(error, slack): error = sum over the layers and (sampled) rows of
    delta^T H delta; slack bounds how much it changes if every code within
    float noise of a rounding tie (oo.near_ties, 2^-21 relative) went to
    its other neighbour (another correct evaluation of f32(W sf) / scale)."""
    sf = np.asarray(sf, F32)
    sfd = sf.astype(np.float64)
    total, slack = 0.0, 0.0
    for l in layers:
        wname, layout = cm.LAYERS[l]
        w = cm.out_rows(cur[wname], layout)
        ws = np.asarray(w, F32) * sf[None, :]
        assert ws.dtype == F32
        exp = wo.quantize_weight(ws, scheme, clip)
        delta = exp["xhat"].astype(np.float64) / sfd[None, :] - \
            w.astype(np.float64)
        near, alt = oo.near_ties(ws, scheme, exp["scale"], exp["zp"],
                                 rel_tol=2.0 ** -21)
        eps = np.where(near, (oo.dequantize(alt, scheme, exp["scale"],
                                            exp["zp"]).astype(np.float64)
                              - exp["xhat"]) / sfd[None, :], 0.0)
        if sample:
            stride = math.ceil(w.shape[0] / 128)
            delta, eps = delta[::stride], eps[::stride]
        hd = delta @ hmat
        total += float(np.sum(hd * delta))
        slack += float(np.sum(np.abs(2 * eps * hd) +
                              eps * eps * np.diag(hmat)[None, :]))
    return total, slack


def clip_search(w_rows, scheme, hs):
    """AWQ's clip search, as octet does it, for a weight viewed as rows
    (output channel) x (input) with a per_group scheme along the inputs
    (groups of G), hs the K x K second moment of the scaled input (f64).
    Per group (row n, inputs c0 .. c0+G-1) and candidate k in CLIP_KS:
    ratio = f32(k) / f32(CLIP_STEPS); params = symmetric_params(f32(absmax *
    ratio)) or asymmetric_params(f32(min * ratio), f32(max * ratio)) (min,
    max including 0); d = f64(dequantize(quantize(x))) - f64(x); err = d^T
    hs[c0:c0+G, c0:c0+G] d. octet keeps the first minimum. Returns a dict:
    scale, zp (C x R x groups; zp None when symmetric), ratio (C), err (C x
    R x groups), best (R x groups: the first argmin) and ok (C x R x groups:
    the candidates octet may pick, the best and every one whose error is
    within CLIP_TIE_REL of the best's relative to the |terms|; an exact tie
    whose terms are all 0, e.g. an all-zero block of hs, is no float noise,
    so there only the first candidate is allowed)."""
    x = np.asarray(w_rows, F32)
    rows, k = x.shape
    if scheme.gran == "per_axis":
        # Per channel: one group of all K inputs per row.
        scheme = dataclasses.replace(scheme, gran="per_group", axis=1,
                                     group=k)
    g = scheme.group
    ng = k // g
    xg = x.reshape(rows, ng, g)
    absmax = np.max(np.abs(xg), axis=2)
    mn = np.minimum(np.min(xg, axis=2), F32(0))
    mx = np.maximum(np.max(xg, axis=2), F32(0))
    nc = len(CLIP_KS)
    scale = np.zeros((nc, rows, ng), F32)
    zp = np.zeros((nc, rows, ng), np.int32)
    ratios = np.zeros(nc, F32)
    for c, step in enumerate(CLIP_KS):
        ratio = F32(F32(step) / F32(CLIP_STEPS))
        ratios[c] = ratio
        t, lo, hi = absmax * ratio, mn * ratio, mx * ratio  # f32 products
        assert t.dtype == lo.dtype == hi.dtype == F32
        for n in range(rows):
            for j in range(ng):
                scale[c, n, j], zp[c, n, j] = (
                    wo.symmetric_params(t[n, j], scheme) if scheme.symmetric
                    else wo.asymmetric_params(lo[n, j], hi[n, j], scheme))
    sch3 = dataclasses.replace(scheme, axis=2)
    z = None if scheme.symmetric else zp
    xs = np.broadcast_to(x, (nc, rows, k))
    xhat = oo.dequantize(oo.quantize(xs, sch3, scale, z), sch3, scale, z)
    d = (xhat.astype(np.float64) - xs.astype(np.float64)).reshape(
        nc, rows, ng, g)
    hb = np.stack([hs[j * g:(j + 1) * g, j * g:(j + 1) * g]
                   for j in range(ng)])
    err = np.sum(d * np.einsum("jab,cnjb->cnja", hb, d), axis=-1)
    mag = np.sum(np.abs(d) * np.einsum("jab,cnjb->cnja", np.abs(hb),
                                       np.abs(d)), axis=-1)
    best = np.argmin(err, axis=0)  # the first minimum
    be = np.take_along_axis(err, best[None], 0)
    bm = np.take_along_axis(mag, best[None], 0)
    ok = np.abs(err - be) <= CLIP_TIE_REL * (mag + bm)
    ok &= (mag + bm) > 0
    np.put_along_axis(ok, best[None], True, 0)
    return dict(scale=scale, zp=None if scheme.symmetric else zp,
                ratio=ratios, err=err, best=best, ok=ok)


def agree(expected, got, tol=1e-6):
    """An oracle error (value, tie slack) and a reported one."""
    e, slack = expected
    return got is not None and abs(got - e) <= tol * abs(e) + slack


def clip_expected(w, layout, sch, rsch, hmat, sf, dq):
    """The oracle of one weight under awq-clip: (dict like
    wo.quantize_weight's (codes, scale, zp, xhat) in the weight's layout,
    the chosen ratios (rows x groups), info). Each group's params are
    octet's choice where it is one of the oracle's allowed candidates (a
    near tie), else the oracle's first minimum; info["unmatched"] counts
    the groups where octet chose otherwise (none when dq is None)."""
    sfd = np.asarray(sf, F32).astype(np.float64)
    hs = hmat / (sfd[:, None] * sfd[None, :])
    rows = cm.out_rows(w, layout)
    cs = clip_search(rows, rsch, hs)
    pick = cs["best"]
    info = dict(unmatched=0, first=None)
    # Groups whose candidates all have error exactly 0 (no terms): the
    # tie rule alone picks the full range there.
    info["exact_ties"] = int(np.sum(np.all(cs["err"] == 0, axis=0) &
                                    (np.ptp(cs["scale"], axis=0) > 0)))
    if dq is not None:
        gs = np.asarray(dq["scale"], F32)
        gz = None if dq["zp"] is None else np.asarray(dq["zp"], np.int64)
        if gs.ndim == 1:  # per channel: one scale per row
            gs = gs.reshape(-1, 1)
            gz = None if gz is None else gz.reshape(-1, 1)
        elif layout == "kn":
            gs = gs.T
            gz = None if gz is None else gz.T
        if gs.shape == pick.shape:
            match = cs["ok"] & (oo.bits(cs["scale"]) == oo.bits(gs)[None])
            if cs["zp"] is not None:
                match &= gz is not None and cs["zp"] == gz[None]
            found = match.any(axis=0)
            pick = np.where(found, np.argmax(match, axis=0), pick)
            info["unmatched"] = int(np.sum(~found))
            if not found.all():
                n, j = np.argwhere(~found)[0]
                info["first"] = "row %d group %d: octet scale %r, oracle " \
                    "%r (ratio %r; errors %s)" % (
                        n, j, gs[n, j], cs["scale"][pick[n, j], n, j],
                        cs["ratio"][pick[n, j]], cs["err"][:, n, j])
        else:
            info["unmatched"] = pick.size
            info["first"] = "scale shape %s" % (gs.shape,)
    scale = np.take_along_axis(cs["scale"], pick[None], 0)[0]
    zp = None if cs["zp"] is None else \
        np.take_along_axis(cs["zp"], pick[None], 0)[0]
    if sch.gran == "per_axis":
        scale = scale.reshape(-1)
        zp = None if zp is None else zp.reshape(-1)
    elif layout == "kn":
        scale = np.ascontiguousarray(scale.T)
        zp = None if zp is None else np.ascontiguousarray(zp.T)
    codes = oo.quantize(w, sch, scale, zp)
    xh = oo.dequantize(codes, sch, scale, zp).astype(F32)
    return (dict(codes=codes, scale=scale, zp=zp, xhat=xh),
            cs["ratio"][pick], info)


def check_rtn(chk, label, what, w, sch, exp, dq):
    """octet's codes and parameters `dq` of the weight w against the
    oracle's round to nearest `exp` (a code may differ by one at a rounding
    tie); scales and zero points bit for bit."""
    codes = wo.storage_to_codes(dq["codes"], sch).astype(np.int64)
    ecodes = exp["codes"].astype(np.int64)
    zp = None if sch.symmetric else exp["zp"]
    near = oo.near_ties(w, sch, exp["scale"], zp, rel_tol=1e-6)[0]
    diff = codes != ecodes
    bad = diff & ~(near & (np.abs(codes - ecodes) <= 1))
    chk.ok(not bad.any(), label + what, "%d of %d differ (%d at ties)" % (
        diff.sum(), diff.size, (diff & near).sum()))
    chk.bits_equal(label + " scales", exp["scale"], dq["scale"])
    if not sch.symmetric:
        chk.bits_equal(label + " zero points", exp["zp"], dq["zp"])


def check_gptq_layer(chk, label, w, layout, dq, sch, hs, grid, opts):
    """algorithm=awq-gptq, one layer: octet's codes and parameters against
    gptq.py's oracle on the AWQ-scaled weight w (constant layout) and the
    scaled input's second moment hs, rounding onto `grid` (AWQ's clip
    ranges in the constant's parameter layout: static) or, when it is None,
    GPTQ's own groups. Returns (octet's dequantized weight, its output
    error sum d^T hs d over the rows)."""
    fmt, gran, group, sym, clip = qw.parse_options(opts)
    d = dict(kv.split("=", 1) for kv in opts.split())
    act_order = d.get("act-order", "false") == "true"
    damp = float(d.get("damp", "0.01"))

    def as_rows(a):  # parameters as rows x groups
        if a is None:
            return None
        a = np.asarray(a)
        if gran == "per-channel":
            return a.reshape(-1, 1)
        return a.T if layout == "kn" else a
    rows_w = cm.out_rows(w, layout)
    rsch = oo.Scheme(fmt, "per_axis", axis=0, symmetric=sym)
    g = None if grid is None else (as_rows(grid[0]), as_rows(grid[1]))
    codes, scales, zps, near, order = gq.gptq_oracle_h(
        rows_w, hs, rsch, clip, gran, group, damp, act_order, g)
    got = cm.out_rows(wo.storage_to_codes(dq["codes"], sch), layout)
    got = got.astype(np.int64)
    gs = as_rows(np.asarray(dq["scale"], F32))
    gz = None if sym else as_rows(np.asarray(dq["zp"], np.int32))
    static = act_order or grid is not None
    if static:
        chk.bits_equal(label + " static scales", scales, gs)
    codes, got, near = codes[:, order], got[:, order], near[:, order]
    diverged, unexplained = gq.compare_rows(codes, scales, zps, near, got,
                                            gs, gz, static, gran, group)
    chk.ok(not unexplained, label + " codes and scales = GPTQ oracle on the "
           "scaled weight and second moment", "rows (row, first code diff, "
           "first scale diff): %s" % unexplained[:5])
    chk.ok(diverged <= max(1, rows_w.shape[0] // 20),
           label + " rows diverging by float order", str(diverged))
    zp = None if sym else dq["zp"]
    xh = oo.dequantize(wo.storage_to_codes(dq["codes"], sch), sch,
                       dq["scale"], zp).astype(F32)
    dd = cm.out_rows(xh, layout).astype(np.float64) - rows_w.astype(
        np.float64)
    return xh, float(np.sum(dd * (dd @ hs)))


def check_case(chk, opts, ctx, tag, gptq=False):
    workdir, inst, stats, st, p, xh = ctx
    fmt, gran, group, sym, clip = qw.parse_options(opts)
    d = dict(kv.split("=", 1) for kv in opts.split())
    grid = int(d.get("awq-grid", "20"))
    algorithm = "awq-gptq" if gptq else "awq"
    awq_clip = gran in ("per-group", "per-channel") and \
        d.get("awq-clip", "true") in ("true", "1")
    scheme = row_scheme(fmt, gran, group, sym)
    rep_path = os.path.join(workdir, tag + ".report.json")
    out, _ = cm.opt(workdir, inst, "--octet-quantize-weights=%s "
                    "algorithm=%s stats=%s report=%s" % (
                        opts, algorithm, stats, rep_path), tag)
    rep = cm.load_stats(rep_path)
    chk.ok("octet.observe" not in out, tag + ": observers removed")
    chk.ok(rep.get("options", {}).get("algorithm") == algorithm,
           tag + ": report algorithm", str(rep.get("options")))
    groups = rep.get("awq", [])
    cm.layers_listed(chk, tag + ":", groups)
    tens = st["tensors"]
    acts = dict(zip(("h", "m"), cm.ref_acts(xh, p)))
    cur = dict(p)
    sfs, hmats, summary = {}, {}, []
    for which, layers, label, obs, g in cm.check_groups(chk, tag, groups):
        t = tens[obs if obs in tens else layers[0] + ".input"]
        mean_abs = np.asarray(t["channels"]["mean_abs"], np.float64)
        hmat = np.load(os.path.join(os.path.dirname(stats),
                                    t["second_moment"]["file"]))
        curve = [group_error(cur, layers, awq_scales(mean_abs, i / grid)
                             .astype(F32), hmat, scheme, clip)
                 for i in range(grid)]
        lo = np.array([e - sl for e, sl in curve])
        hi = np.array([e + sl for e, sl in curve])
        best = int(np.argmin([e for e, _ in curve]))
        alpha = float(g.get("alpha", -1))
        i_rep = int(round(alpha * grid))
        on_grid = 0 <= i_rep < grid and abs(alpha - i_rep / grid) < 1e-12
        chk.ok(on_grid, label + " alpha on the grid", str(alpha))
        if not on_grid:
            continue
        chk.ok(lo[i_rep] <= np.min(hi) * (1 + 1e-6),
               label + " alpha = the oracle's first minimum (up to ties)",
               "reported %g (oracle error %.9g), oracle %g (%.9g)" % (
                   alpha, curve[i_rep][0], best / grid, curve[best][0]))
        s = awq_scales(mean_abs, i_rep / grid)
        sf = np.asarray(g.get("scales", []), np.float64)
        if sf.shape != s.shape:
            chk.ok(False, label + " scales length", str(sf.shape))
            continue
        r = cm.rel(sf, s)
        chk.ok(r <= 1e-6, label + " scales = oracle (1e-6 relative)",
               "max rel diff %g" % r)
        sf32 = sf.astype(F32)
        chk.ok(np.array_equal(sf32.astype(np.float64), sf),
               label + " reported scales are f32 values")
        e_rep = group_error(cur, layers, sf32, hmat, scheme, clip)
        chk.ok(agree(e_rep, g.get("error")), label + " error = oracle's "
               "with the reported scales", "%r vs %r" % (g.get("error"),
                                                         e_rep))
        chk.ok(agree(curve[0], g.get("error_rtn")), label + " error_rtn = "
               "oracle's at alpha 0", "%r vs %r" % (g.get("error_rtn"),
                                                    curve[0]))
        if "error_curve" in g:  # not required; checked when reported
            ec = g["error_curve"]
            chk.ok(len(ec) == grid and all(agree(c, v) for c, v in
                                            zip(curve, ec)),
                   label + " error_curve = oracle's", "%s vs %s" % (
                       ec, [c[0] for c in curve]))
        # Held-out layer output error, AWQ vs RTN (alpha 0).
        x = acts[which]
        hh = x.T @ x
        e_awq = group_error(cur, layers, sf32, hh, scheme, clip, False)[0]
        e_rtn = group_error(cur, layers, np.ones_like(sf32), hh, scheme,
                            clip, False)[0]
        chk.ok(e_awq <= e_rtn * (1 + 1e-12), label + " held-out error <= "
               "RTN's", "awq %.6g rtn %.6g" % (e_awq, e_rtn))
        chk.ok(e_awq < 0.9 * e_rtn, label + " held-out error < 0.9 RTN's",
               "awq %.6g rtn %.6g" % (e_awq, e_rtn))
        sfs[which] = sf32
        hmats[which] = hmat
        cur = cm.fold(cm.scale_weights(cur, layers, sf32), which, sf32)
        summary.append("%s alpha %.2f awq/rtn %.3f (calibration), %.3f "
                       "(held-out)" % (which, alpha, curve[i_rep][0] /
                                       curve[0][0],
                                       e_awq / e_rtn))
    # The quantized layers: RTN of the final weights, each group's range
    # from the clip search when it applies.
    deqs = cm.dequantizes_of(out)
    by_name = {l.get("name"): l for l in rep.get("layers", [])}
    xhat = {}
    clipped, smallest, searched, exact_ties = 0, 0, 0, 0
    gptq_err = []  # (awq-gptq error, AWQ's round-to-nearest error)
    for l, (wname, layout) in cm.LAYERS.items():
        label = "%s[%s]" % (tag, l)
        sch = layer_scheme(fmt, gran, group, sym, layout)
        dq = deqs.get(l)
        which = "h" if l in cm.H_LAYERS else "m"
        if awq_clip and which in sfs:
            exp, ratios, info = clip_expected(cur[wname], layout, sch,
                                              scheme, hmats[which],
                                              sfs[which], dq)
            chk.ok(info["unmatched"] == 0, label + " clip = the oracle's "
                   "(up to ties)", "%d of %d groups: %s" % (
                       info["unmatched"], ratios.size, info["first"]))
            clipped += int(np.sum(ratios < 1))
            smallest += int(np.sum(ratios == F32(CLIP_KS[-1]) /
                                   F32(CLIP_STEPS)))
            searched += ratios.size
            exact_ties += info["exact_ties"]
        else:
            exp = wo.quantize_weight(cur[wname], sch, clip)
            ratios = np.ones(exp["scale"].size, F32)
        xhat[wname] = exp["xhat"]
        chk.ok(dq is not None, label + " quantized")
        if dq is None:
            continue
        if gptq and which in sfs:
            sfd = sfs[which].astype(np.float64)
            hs = hmats[which] / (sfd[:, None] * sfd[None, :])
            xhat[wname], e_gptq = check_gptq_layer(
                chk, label, cur[wname], layout, dq, sch, hs,
                (exp["scale"], exp["zp"]) if awq_clip else None, opts)
            dr = cm.out_rows(exp["xhat"], layout).astype(np.float64) - \
                cm.out_rows(cur[wname], layout).astype(np.float64)
            gptq_err.append((e_gptq, float(np.sum(dr * (dr @ hs)))))
            chk.ok(e_gptq < gptq_err[-1][1], label + " output error on the "
                   "calibration rows < AWQ's without GPTQ", "%g vs %g"
                   % gptq_err[-1])
        cr = by_name.get(l, {}).get("clip_ratio", {})
        rr = ratios.astype(np.float64)
        chk.ok(cr.get("min") == float(np.min(rr)) and
               cr.get("max") == float(np.max(rr)) and
               cr.get("mean") is not None and
               abs(cr["mean"] - float(np.mean(rr))) <= 1e-12,
               label + " report clip_ratio = the oracle's", "%s vs min %r "
               "max %r mean %r" % (cr, np.min(rr), np.max(rr), np.mean(rr)))
        chk.ok(dq["scheme"] == sch.attr(), label + " scheme",
               "%s vs %s" % (dq["scheme"], sch.attr()))
        lr = by_name.get(l, {})
        chk.ok(lr.get("quantized") is True, label + " report entry",
               str(lr)[:200])
        if gptq:
            continue  # codes and parameters: check_gptq_layer
        check_rtn(chk, label, " codes = RTN of f32(W sf)" +
                  (" (clip-searched ranges)" if awq_clip else ""),
                  cur[wname], sch, exp, dq)
    if awq_clip:
        # The search changes something here, and the data has groups
        # (h's DEAD_BLOCK) where only the tie rule picks the range.
        # (Groups at the smallest candidate: gate's OUTLIER rows, i4.)
        chk.ok(0 < clipped < searched, tag + ": some groups clipped",
               "%d of %d" % (clipped, searched))
        if gran == "per-group":  # per channel a row spans live inputs too
            chk.ok(exact_ties > 0, tag + ": exact clip ties in the data")
        summary.append("clip: %d of %d groups below the full range (%d at "
                       "the smallest)" % (clipped, searched, smallest))
    if gptq_err:
        summary.append("gptq: output error %.3f of AWQ's alone (calibration)"
                       % (sum(e for e, _ in gptq_err) /
                          sum(r for _, r in gptq_err)))
    got = cm.weights_of(out)
    chk.ok("g" in got, tag + ": g found")
    if "g" in got:
        chk.bits_equal(tag + ": g = f32(g / sf)", cur["g"], got["g"])
    # The quantized model runs: its outputs are numpy's with the oracle's
    # weights and g.
    if len(deqs) == len(cm.LAYERS) and "g" in got:
        ys = cm.run_model(workdir, out, xh, 3, tag + "-run")
        q = dict(xhat, g=cur["g"])
        h, m = cm.ref_acts(xh, q)
        refs = [h @ q["w1"].astype(np.float64),
                h @ q["w2"].astype(np.float64).T,
                m @ q["wd"].astype(np.float64).T]
        for i, (y, ref) in enumerate(zip(ys, refs)):
            dd = float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))
            chk.ok(dd <= 1e-4, "%s: output %d = numpy with the oracle's "
                   "weights" % (tag, i), "max |diff| / max |y| = %g" % dd)
    print("%s: %s" % (tag, "; ".join(summary)))


def check_nofold(chk, opts, workdir, p, batches, tag):
    """The model without fold targets (cm.module_text nofold=True: norm
    uses g twice, swiglu adds u): both groups are left unscaled (a skip
    reason each); with awq-clip=true (per group or channel) the groups are
    "clip_only" and every weight's ranges are AWQ's clip search with unit
    scales on its observer's second moment (clip_expected with sf = 1);
    with awq-clip=false, plain round to nearest."""
    fmt, gran, group, sym, clip = qw.parse_options(opts)
    d = dict(kv.split("=", 1) for kv in opts.split())
    awq_clip = gran in ("per-group", "per-channel") and \
        d.get("awq-clip", "true") in ("true", "1")
    scheme = row_scheme(fmt, gran, group, sym)
    inst = cm.instrument(workdir, cm.module_text(p, nofold=True), tag)
    stats = cm.calibrate(workdir, inst, batches, tag, second_moment=True)
    st = cm.load_stats(stats)
    rep_path = os.path.join(workdir, tag + ".report.json")
    out, _ = cm.opt(workdir, inst, "--octet-quantize-weights=%s "
                    "algorithm=awq stats=%s report=%s" % (opts, stats,
                                                          rep_path), tag)
    rep = cm.load_stats(rep_path)
    groups = rep.get("awq", [])
    got = sorted(cm.group_of(g.get("layers", [])) or "?" for g in groups)
    chk.ok(got == ["h", "m"], tag + ": two groups",
           str([g.get("layers") for g in groups]))
    chk.ok(all(g.get("skip_reason") and "alpha" not in g for g in groups),
           tag + ": both unscaled, with a reason", str(groups)[:300])
    chk.ok(all(g.get("clip_only", False) is awq_clip for g in groups),
           tag + ": clip_only %s" % awq_clip,
           str([g.get("clip_only") for g in groups]))
    tens = st["tensors"]
    hmats = {}
    for l in cm.LAYERS:
        t = tens[l + ".input"]
        hmats[l] = np.load(os.path.join(os.path.dirname(stats),
                                        t["second_moment"]["file"]))
    deqs = cm.dequantizes_of(out)
    by_name = {l.get("name"): l for l in rep.get("layers", [])}
    clipped, searched = 0, 0
    for l, (wname, layout) in cm.LAYERS.items():
        label = "%s[%s]" % (tag, l)
        sch = layer_scheme(fmt, gran, group, sym, layout)
        dq = deqs.get(l)
        chk.ok(dq is not None, label + " quantized")
        if dq is None:
            continue
        if awq_clip:
            ones = np.ones(hmats[l].shape[0], F32)
            exp, ratios, info = clip_expected(p[wname], layout, sch, scheme,
                                              hmats[l], ones, dq)
            chk.ok(info["unmatched"] == 0, label + " clip = the oracle's "
                   "(unit scales, up to ties)", "%d of %d groups: %s" % (
                       info["unmatched"], ratios.size, info["first"]))
            clipped += int(np.sum(ratios < 1))
            searched += ratios.size
        else:
            exp = wo.quantize_weight(p[wname], sch, clip)
            ratios = np.ones(exp["scale"].size, F32)
        cr = by_name.get(l, {}).get("clip_ratio", {})
        chk.ok(cr.get("min") == float(np.min(ratios)) and
               cr.get("max") == float(np.max(ratios)),
               label + " report clip_ratio = the oracle's", str(cr))
        check_rtn(chk, label, " codes", p[wname], sch, exp, dq)
    if awq_clip:
        chk.ok(0 < clipped < searched, tag + ": some groups clipped",
               "%d of %d" % (clipped, searched))
    print("%s: no fold target, clip only: %d of %d groups below the full "
          "range" % (tag, clipped, searched))


def main():
    cases = sys.argv[1:]
    rng = np.random.default_rng(2026)
    a, b, xh, p = cm.make_data(rng)
    for x in (a, b, xh):
        x[:, DEAD_BLOCK] = 0.0
    rows = np.arange(0, cm.F, 8)
    p["wg"][rows, cm.DEAD] = np.where(rows % 16, OUTLIER, -OUTLIER)
    chk = wo.Check("awq")
    with tempfile.TemporaryDirectory(prefix="octet-awq-") as workdir:
        inst = cm.instrument(workdir, cm.module_text(p), "model")
        stats = cm.calibrate(workdir, inst, [a, b], "model",
                             second_moment=True)
        st = cm.load_stats(stats)
        ctx = (workdir, inst, stats, st, p, xh)
        for i, opts in enumerate(cases):
            if opts.startswith("nofold "):
                check_nofold(chk, opts[len("nofold "):], workdir, p, [a, b],
                             "case%d" % i)
            elif opts.startswith("gptq "):
                check_case(chk, opts[len("gptq "):], ctx, "case%d" % i,
                           gptq=True)
            else:
                check_case(chk, opts, ctx, "case%d" % i)
    print("awq oracle: %d checks, %d failures" % (chk.n, len(chk.failures)))
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
