"""octet-quantize-weights algorithm=gptq against a numpy GPTQ written from
the paper (Frantar et al. 2022, Algorithm 1), and the second moments of
octet-run --calibrate --second-moment against numpy's X^T X.

The model: y1 = x W1 (W1 is K x N, the reduction axis first) and y2 = x W2^T
(W2 is N x K, a matmul with transposed maps), both on the same activation x
(T x K) with correlated features, three outlier input channels and one
input that is always zero (a dead input: its weight column must become 0).
octet-instrument{all=true} observes both activations, octet-run calibrates
on x, then octet-quantize-weights runs with each CASE's options plus
algorithm=gptq and with algorithm=rtn.

The oracle (independent of octet's code: numpy's inverse and Cholesky
instead of octet's reversed factorization, the column-by-column loop over
all rows at once instead of octet's row tiles):

  H = X^T X (float64), H_ii = 1 and W[:, i] = 0 where H_ii = 0,
  H += damp * mean(diag(H)) * I, U = cholesky(inv(H))^T (upper),
  act-order: inputs in descending order of diag(H) (stable), H permuted,
  per-group params from the original weight (static groups);
  for each input k: per-group params from the current values when a group
  starts (weights_oracle.group_params: the pass's clip rules), q_k =
  quantize(f32(w_k)), e = (w_k - dequantize(q_k)) / U_kk,
  w_j -= e U_kj for j > k.

Checks, per CASE and layer: the scheme; codes, scales and zero points equal
the oracle's, except in a row whose first difference is explained by the
float order (the oracle's value is within noise of a rounding tie, or a
group scale within 4 ulp); at most 5% of rows may diverge that way. Then the
layer output error sum (x W - x What)^2 of GPTQ is below round-to-nearest's
(by at least 20%) on the calibration rows and on held-out rows, and the
report says algorithm gptq. Usage: gptq.py CASE... (CASE = options, e.g.
"format=i4 granularity=per-group group-size=16").
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quantize_weights as qw  # noqa: E402
import weights_oracle as wo  # noqa: E402
import octet_oracle as oo  # noqa: E402

T, K, N = 1024, 64, 48
F32 = np.float32
DEAD = 9  # the input that is always zero


def make_data(rng):
    """Calibration and held-out activations (the same feature mixing), and
    the two weights."""
    mix = np.eye(K) + 1.5 * rng.standard_normal((K, K)) / np.sqrt(K)

    def acts():
        x = rng.standard_normal((T, K)) @ mix
        x[:, [3, 17, 40]] *= 8.0  # outlier input channels
        x[:, DEAD] = 0.0
        return x.astype(F32)
    x, xh = acts(), acts()
    w1 = (rng.standard_normal((K, N)) / 8).astype(F32)
    w1[:, 7] *= 10  # an outlier output channel
    w2 = (rng.laplace(size=(N, K)) / 8).astype(F32)
    return x, xh, w1, w2


def module_text(w1, w2):
    c1, _ = wo.weight_const("w1", w1, "f32")
    c2, _ = wo.weight_const("w2", w2, "f32")
    t = "tensor<%dx%dxf32>" % (T, N)
    maps = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
            "affine_map<(m, n, k) -> (n, k)>, "
            "affine_map<(m, n, k) -> (m, n)>]")
    return "\n".join([
        "func.func @main(%%x: tensor<%dx%dxf32>) -> (%s, %s) {" % (T, K, t, t),
        "  " + c1, "  " + c2,
        "  %z = arith.constant 0.0 : f32",
        "  %%e = tensor.empty() : %s" % t,
        "  %%o = linalg.fill ins(%%z : f32) outs(%%e : %s) -> %s" % (t, t),
        '  %%y1 = linalg.matmul ins(%%x, %%w1 : tensor<%dx%dxf32>, '
        'tensor<%dx%dxf32>) outs(%%o : %s) -> %s loc("fc")' % (
            T, K, K, N, t, t),
        '  %%y2 = linalg.matmul %s ins(%%x, %%w2 : tensor<%dx%dxf32>, '
        'tensor<%dx%dxf32>) outs(%%o : %s) -> %s loc("fcT")' % (
            maps, T, K, N, K, t, t),
        "  return %%y1, %%y2 : %s, %s" % (t, t),
        "}"]) + "\n"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p.stdout


def calibrate(workdir, module, x):
    src = os.path.join(workdir, "model.mlir")
    with open(src, "w") as fh:
        fh.write(module)
    inst = run([oo.find_tool("octet-opt"), src,
                "--octet-instrument=all=true",
                "--mlir-print-elementsattrs-with-hex-if-larger=0"])
    xin = os.path.join(workdir, "x.npy")
    np.save(xin, x)
    instf = os.path.join(workdir, "inst.mlir")
    with open(instf, "w") as fh:
        fh.write(inst)
    stats = os.path.join(workdir, "stats.json")
    run([oo.find_tool("octet-run"), instf, "--entry", "main",
         "--calibrate=" + stats, "--second-moment", "--input", xin])
    return inst, stats


def check_moments(chk, stats, x):
    with open(stats) as fh:
        st = json.load(fh)["tensors"]
    files = set()
    h = x.astype(np.float64).T @ x.astype(np.float64)
    for name in ("fc.input", "fcT.input"):
        e = st.get(name, {}).get("second_moment")
        chk.ok(e is not None, "second_moment of " + name)
        if e is None:
            continue
        chk.ok(e["dim"] == K and e["rows"] == T and e["skipped_rows"] == 0,
               name + " dim/rows", str(e))
        path = os.path.join(os.path.dirname(stats), e["file"])
        m = np.load(path)
        files.add(e["file"])
        chk.ok(m.dtype == np.float64 and m.shape == (K, K),
               name + " npy type", "%s %s" % (m.dtype, m.shape))
        # Products of f32 values are exact in f64; only the summation order
        # differs.
        err = np.max(np.abs(m - h)) / np.max(np.abs(h))
        chk.ok(err < 1e-12, name + " second moment = X^T X",
               "max rel diff %g" % err)
    chk.ok(len(files) == 1, "identical second moments share one file",
           str(sorted(files)))
    print("second moments: %d observers, %d file(s), X^T X to 1e-12"
          % (2, len(files)))


def gptq_oracle(w_rows, x, scheme_row, clip, gran, group, damp,
                act_order=False):
    """w_rows: rows x K (row = output channel). scheme_row: the per-row
    (per_axis(0)) scheme used to quantize one column of all rows.
    Returns codes, per-row-and-group scales/zps, near-tie flags."""
    return gptq_oracle_h(w_rows, x.astype(np.float64).T @
                         x.astype(np.float64), scheme_row, clip, gran, group,
                         damp, act_order)


def gptq_oracle_h(w_rows, h, scheme_row, clip, gran, group, damp,
                  act_order=False, grid=None):
    """gptq_oracle on the second moment h (K x K, f64). grid: (scales,
    zps), rows x groups, a fixed grid (algorithm=awq-gptq: AWQ's clip
    ranges) instead of the one computed from the weight."""
    K = w_rows.shape[1]  # noqa: N806 (the module's K, for this weight)
    h = np.array(h, np.float64)
    w = w_rows.astype(np.float64).copy()
    dead = np.diag(h) == 0
    h[dead, dead] = 1.0
    w[:, dead] = 0.0
    h += damp * np.mean(np.diag(h)) * np.eye(K)
    # act-order: inputs by descending second moment (stable), H permuted.
    order = np.argsort(-np.diag(h), kind="stable") if act_order \
        else np.arange(K)
    h = h[np.ix_(order, order)]
    u = np.linalg.cholesky(np.linalg.inv(h)).T
    rows = w.shape[0]
    codes = np.zeros((rows, K), np.int64)
    near = np.zeros((rows, K), bool)
    ngroups = K // group if gran == "per-group" else 1
    scales = np.zeros((rows, ngroups), F32)
    zps = np.zeros((rows, ngroups), np.int32)
    orig = w_rows.astype(F32)
    static = act_order or grid is not None
    if grid is not None:
        scales[:], zps[:] = grid[0], (0 if grid[1] is None else grid[1])
    elif gran != "per-group":
        for r in range(rows):
            v = orig[r] if gran == "per-channel" else orig.reshape(-1)
            s, z, _, _ = wo.group_params(v, scheme_row, clip)
            scales[r, 0], zps[r, 0] = s, z
    elif act_order:  # static groups: the original weight's
        for r in range(rows):
            for g in range(ngroups):
                s, z, _, _ = wo.group_params(
                    orig[r, g * group:(g + 1) * group], scheme_row, clip)
                scales[r, g], zps[r, g] = s, z
    w = w[:, order]
    for c in range(K):
        k = order[c]  # the input quantized at step c
        g = k // group if gran == "per-group" else 0
        if gran == "per-group" and not static and k % group == 0:
            cur = w[:, k:k + group].astype(F32)
            for r in range(rows):
                s, z, _, _ = wo.group_params(cur[r], scheme_row, clip)
                scales[r, g], zps[r, g] = s, z
        xk = w[:, c].astype(F32)
        zp = None if scheme_row.symmetric else zps[:, g]
        q = oo.quantize(xk, scheme_row, scales[:, g], zp)
        near[:, k] = oo.near_ties(xk, scheme_row, scales[:, g], zp,
                                  rel_tol=1e-5)[0]
        codes[:, k] = q
        xhat = oo.dequantize(q, scheme_row, scales[:, g], zp)
        e = (w[:, c] - xhat.astype(np.float64)) / u[c, c]
        w[:, c + 1:] -= np.outer(e, u[c, c + 1:])
    return codes, scales, zps, near, order


def ulps(a, b):
    a = np.asarray(a, F32).view(np.int32).astype(np.int64)
    b = np.asarray(b, F32).view(np.int32).astype(np.int64)
    return np.abs(a - b)


def compare_rows(codes, scales, zps, near, got, gs, gz, static, gran,
                 group):
    """octet's codes `got` and parameters gs / gz (rows x groups) against
    the oracle's, row by row (in the order the codes were chosen). A row
    may diverge where the float order explains it: its first difference is
    a code at a near tie (off by one) or a dynamic group scale within 4
    ulp (static scales must be equal). Returns (rows diverging, the
    unexplained ones as (row, first code diff, first scale diff))."""
    k = codes.shape[1]
    diverged, unexplained = 0, []
    for r in range(codes.shape[0]):
        cd = np.nonzero(codes[r] != got[r])[0]
        sd = np.nonzero(ulps(scales[r], gs[r]) != 0)[0]
        if gz is not None:
            sd = np.union1d(sd, np.nonzero(zps[r] != gz[r])[0])
        if cd.size == 0 and sd.size == 0:
            continue
        diverged += 1
        first_c = cd[0] if cd.size else k
        first_s = sd[0] * (group if gran == "per-group" else k) \
            if sd.size else k
        if sd.size and static:
            ok = False
        elif first_s <= first_c:
            ok = ulps(scales[r, sd[0]], gs[r, sd[0]]) <= 4
        else:
            ok = bool(near[r, first_c]) and \
                abs(codes[r, first_c] - got[r, first_c]) <= 1
        if not ok:
            unexplained.append((r, int(first_c), int(first_s)))
    return diverged, unexplained


def check_case(chk, opts, inst, stats, x, xh, w1, w2, workdir, tag):
    fmt, gran, group, sym, clip = qw.parse_options(opts)
    d = dict(kv.split("=", 1) for kv in opts.split())
    damp = float(d.get("damp", "0.01"))
    act_order = d.get("act-order", "false") == "true"
    out, report, _ = wo.run_pass(inst, opts + " algorithm=gptq stats=" +
                                 stats, workdir, tag)
    rtn_opts = " ".join(o for o in opts.split()
                        if not o.startswith(("damp", "act-order")))
    out_rtn, _, _ = wo.run_pass(inst, rtn_opts, workdir, tag + "-rtn")
    chk.ok("octet.observe" not in out, tag + ": observers removed")
    chk.ok(report["options"].get("algorithm") == "gptq",
           tag + ": report algorithm", str(report.get("options")))
    deqs = wo.read_dequantizes(out)
    deqs_rtn = wo.read_dequantizes(out_rtn)
    chk.ok(len(deqs) == 2 and len(deqs_rtn) == 2, tag + ": two layers")
    summary = []
    for (name, w, raxis), deq, drtn in zip(
            (("fc", w1, 0), ("fcT", w2, 1)), deqs, deqs_rtn):
        label = "%s[%s]" % (tag, name)
        caxis = 1 - raxis
        scheme = qw.scheme_for(fmt, gran, group, sym, (caxis, raxis))
        chk.ok(deq["scheme"] == scheme.attr(), label + " scheme",
               "%s vs %s" % (deq["scheme"], scheme.attr()))
        row_scheme = oo.Scheme(fmt, "per_axis", axis=0, symmetric=sym)
        w_rows = w if raxis == 1 else w.T  # rows = output channels
        codes, scales, zps, near, order = gptq_oracle(
            w_rows, x, row_scheme, clip, gran, group, damp, act_order)
        got = wo.storage_to_codes(deq["codes"], scheme)
        got = (got if raxis == 1 else got.T).astype(np.int64)
        gs = deq["scale"].astype(F32)
        gz = deq["zp"]
        if gran == "per-group":
            gs = gs if raxis == 1 else gs.T
            gz = None if gz is None else (gz if raxis == 1 else gz.T)
        elif gran == "per-channel":
            gs = gs.reshape(-1, 1)
            gz = None if gz is None else gz.reshape(-1, 1)
        else:
            gs = np.full((w_rows.shape[0], 1), gs.reshape(()), F32)
            gz = None if gz is None else np.full((w_rows.shape[0], 1),
                                                 gz.reshape(()), np.int32)
        if act_order:
            # Static scales (the original weight's) do not depend on the
            # float path: equal, bit for bit. Codes are compared in the
            # order they were chosen.
            chk.bits_equal(label + " static scales", scales, gs)
            codes, got, near = codes[:, order], got[:, order], near[:, order]
        diverged, unexplained = compare_rows(codes, scales, zps, near, got,
                                             gs, gz, act_order, gran, group)
        chk.ok(not unexplained, label + " codes and scales = oracle",
               "rows (row, first code diff, first scale diff): %s"
               % unexplained[:5])
        chk.ok(diverged <= max(1, w_rows.shape[0] // 20),
               label + " rows diverging by float order", str(diverged))
        # The dead input's weights are zero.
        dead = int(np.nonzero(order == DEAD)[0][0])  # its column now
        chk.ok(np.all(codes[:, dead] == (0 if sym else zps[:, DEAD // group
               if gran == "per-group" else 0])), label + " dead input")

        # Layer output error: GPTQ below round-to-nearest.
        def deq_of(dq):
            sch = scheme
            c = wo.storage_to_codes(dq["codes"], sch)
            v = oo.dequantize(c, sch, dq["scale"],
                              None if sch.symmetric else dq["zp"])
            return v.astype(np.float64)
        wf = w.astype(np.float64)
        errs = []
        for xs in (x, xh):
            xd = xs.astype(np.float64)
            ref = xd @ (wf if raxis == 0 else wf.T)
            e = []
            for dq in (deq, drtn):
                v = deq_of(dq)
                y = xd @ (v if raxis == 0 else v.T)
                e.append(float(np.sum((y - ref) ** 2)))
            errs.append(e)
        for (eg, er), which in zip(errs, ("calibration", "held-out")):
            chk.ok(eg < 0.8 * er, label + " output error < RTN (%s)" % which,
                   "gptq %.4g rtn %.4g" % (eg, er))
        summary.append("%s gptq/rtn output error %.3f (calibration), %.3f "
                       "(held-out)" % (name, errs[0][0] / errs[0][1],
                                       errs[1][0] / errs[1][1]))
    print("%s: %s" % (tag, "; ".join(summary)))


def main():
    cases = sys.argv[1:]
    rng = np.random.default_rng(2026)
    x, xh, w1, w2 = make_data(rng)
    chk = wo.Check("gptq")
    with tempfile.TemporaryDirectory(prefix="octet-gptq-") as workdir:
        inst, stats = calibrate(workdir, module_text(w1, w2), x)
        check_moments(chk, stats, x)
        for i, opts in enumerate(cases):
            check_case(chk, opts, inst, stats, x, xh, w1, w2, workdir,
                       "case%d" % i)
    print("gptq oracle: %d checks, %d failures" % (chk.n, len(chk.failures)))
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
