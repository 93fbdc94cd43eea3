"""The model and the shared numpy oracles of the channel-scaling tests
(smoothquant.py: octet-run --channel-stats and octet-smooth-quant; awq.py:
octet-quantize-weights algorithm=awq).

The model (f32, T x K input x):

  h    = norm(x, g)        tanh(x) * g, g a 1-D constant indexed by the last
                           dimension (an RMSNorm-like "multiplier": g's block
                           argument is used only by the final mulf)
  y1   = h W1              fc,   W1 K x N (reduction axis first)
  y2   = h W2^T            fcT,  W2 N x K (transposed maps)
  gt   = h Wg^T            gate, Wg F x K
  u    = h Wu^T            up,   Wu F x K (zero-filled init, used only by
                           swiglu: the "producer" of the down group)
  m    = swiglu(gt, u)     silu(gt) * u, u's block argument used only by the
                           final mulf
  d    = m Wd^T            down, Wd K x F
  returns y1, y2, d

After octet-instrument{all=true} every contraction's lhs is observed:
fc.input, fcT.input, gate.input and up.input observe h (one group of four
weights folding into the "norm" multiplier g), down.input observes m (a
group of one weight folding into the output channels of "up"). g has a few
large entries (outlier activation channels of h), Wu a few large rows
(outlier channels of m), x has correlated features, h's channel 9 is
always 0 and channel 30 is ~1e-12 (the floors of SmoothQuant's s and of
AWQ's mean |x|), and down's weights for input channel 7 are all zero (the
floor of SmoothQuant's weight max).

The groups' oracle quantities all come from the statistics file octet-run
wrote (checked against numpy first, in smoothquant.py) and from the
original weights; groups are applied in the order the report lists them,
each to the weights as the groups before it left them (the only weight two
groups share is up's: scaled along its input channels by h's group, its
output channels divided by down's).
"""

import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import weights_oracle as wo  # noqa: E402
import octet_oracle as oo  # noqa: E402

T, K, N, F = 512, 64, 48, 160
F32 = np.float32
H_OUTLIERS = [3, 17, 40]   # large entries of g: outlier channels of h
M_OUTLIERS = [5, 20, 131]  # large rows of Wu: outlier channels of m
DEAD = 9                   # an input channel that is always 0 (h_9 = 0)
TINY = 30                  # an input channel ~1e-12 (SmoothQuant's s floor)
ZERO_W = 7                 # down's input channel 7 has zero weights

# Layer -> (weight name, layout): "kn" = K x N (input channel = axis 0),
# "nk" = N x K (input channel = axis 1).
LAYERS = {"fc": ("w1", "kn"), "fcT": ("w2", "nk"), "gate": ("wg", "nk"),
          "up": ("wu", "nk"), "down": ("wd", "nk")}
H_LAYERS = ["fc", "fcT", "gate", "up"]
M_LAYERS = ["down"]
OBSERVERS = {"fc.input": "h", "fcT.input": "h", "gate.input": "h",
             "up.input": "h", "down.input": "m"}


def make_data(rng):
    """Calibration batches a (clean) and b (one row of NaN), held-out x, and
    the parameters."""
    mix = np.eye(K) + 1.2 * rng.standard_normal((K, K)) / np.sqrt(K)

    def acts(rows):
        x = 0.6 * rng.standard_normal((rows, K)) @ mix
        x[:, DEAD] = 0.0
        x[:, TINY] *= 1e-12
        return x.astype(F32)
    a, b, xh = acts(T), acts(T), acts(T)
    b[77, 11] = np.nan  # a row calibration skips (h's and m's row 77)
    p = {}
    g = (1.0 + 0.1 * rng.standard_normal(K)).astype(F32)
    g[H_OUTLIERS] = F32([12.0, -9.0, 15.0])
    p["g"] = g
    p["w1"] = (rng.standard_normal((K, N)) / 8).astype(F32)
    p["w2"] = (rng.laplace(size=(N, K)) / 8).astype(F32)
    p["wg"] = (rng.standard_normal((F, K)) / 6).astype(F32)
    wu = (rng.standard_normal((F, K)) / 6).astype(F32)
    wu[M_OUTLIERS] *= 6
    p["wu"] = wu
    p["wd"] = (rng.standard_normal((K, F)) / 4).astype(F32)
    p["wd"][:, ZERO_W] = 0.0  # wmax floor (1e-5)
    return a, b, xh, p


def _ty(*dims):
    return "tensor<%sxf32>" % "x".join(str(d) for d in dims)


TMAPS = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
         "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]")


def module_text(p, probe=False, nofold=False):
    """The model. probe=True: also returns h and m (then h and m have other
    users: no group can be smoothed; used to read the observed values).
    nofold=True: no fold target: norm yields (tanh(x) * g) * g (g's block
    argument has two uses) and swiglu silu(gt) + u (not a product)."""
    tK, tN, tF = _ty(T, K), _ty(T, N), _ty(T, F)
    consts = [wo.weight_const(n, p[n], "f32")[0]
              for n in ("g", "w1", "w2", "wg", "wu", "wd")]
    rets = [("%y1", tN), ("%y2", tN), ("%d", tK)]
    if probe:
        rets += [("%h", tK), ("%m", tF)]
    body = consts + [
        "%z = arith.constant 0.0 : f32",
        "%eh = tensor.empty() : " + tK,
        "%%h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
        "(d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> "
        "(d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
        "ins(%%x, %%g : %s, tensor<%dxf32>) outs(%%eh : %s) {" % (tK, K, tK),
        "^bb0(%a: f32, %b: f32, %c: f32):",
        "  %t = math.tanh %a : f32",
        ] + (["  %t2 = arith.mulf %t, %b : f32",
              "  %r = arith.mulf %t2, %b : f32"] if nofold else
             ["  %r = arith.mulf %t, %b : f32"]) + [
        "  linalg.yield %r : f32",
        '} -> %s loc("norm")' % tK,
        "%eN = tensor.empty() : " + tN,
        "%%oN = linalg.fill ins(%%z : f32) outs(%%eN : %s) -> %s" % (tN, tN),
        '%%y1 = linalg.matmul ins(%%h, %%w1 : %s, %s) outs(%%oN : %s) -> %s '
        'loc("fc")' % (tK, _ty(K, N), tN, tN),
        '%%y2 = linalg.matmul %s ins(%%h, %%w2 : %s, %s) outs(%%oN : %s) -> '
        '%s loc("fcT")' % (TMAPS, tK, _ty(N, K), tN, tN),
        "%eF = tensor.empty() : " + tF,
        "%%oF = linalg.fill ins(%%z : f32) outs(%%eF : %s) -> %s" % (tF, tF),
        '%%gt = linalg.matmul %s ins(%%h, %%wg : %s, %s) outs(%%oF : %s) -> '
        '%s loc("gate")' % (TMAPS, tK, _ty(F, K), tF, tF),
        '%%u = linalg.matmul %s ins(%%h, %%wu : %s, %s) outs(%%oF : %s) -> '
        '%s loc("up")' % (TMAPS, tK, _ty(F, K), tF, tF),
        "%%m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
        "(d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) "
        "-> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
        "ins(%%gt, %%u : %s, %s) outs(%%eF : %s) {" % (tF, tF, tF),
        "^bb0(%a: f32, %b: f32, %c: f32):",
        "  %one = arith.constant 1.0 : f32",
        "  %n = arith.negf %a : f32",
        "  %e = math.exp %n : f32",
        "  %den = arith.addf %e, %one : f32",
        "  %s = arith.divf %a, %den : f32",
        "  %%r = arith.%s %%s, %%b : f32" % ("addf" if nofold else "mulf"),
        "  linalg.yield %r : f32",
        '} -> %s loc("swiglu")' % tF,
        "%eK = tensor.empty() : " + tK,
        "%%oK = linalg.fill ins(%%z : f32) outs(%%eK : %s) -> %s" % (tK, tK),
        '%%d = linalg.matmul %s ins(%%m, %%wd : %s, %s) outs(%%oK : %s) -> '
        '%s loc("down")' % (TMAPS, tF, _ty(K, F), tK, tK),
    ]
    rt = ", ".join(t for _, t in rets)
    return "\n".join(
        ["func.func @main(%%x: %s) -> (%s) {" % (tK, rt)]
        + ["  " + l for l in body]
        + ["  return %s : %s" % (", ".join(v for v, _ in rets), rt), "}"]
    ) + "\n"


# ---------------------------------------------------------------------------
# float64 reference of the model's activations
# ---------------------------------------------------------------------------


def silu(v):
    return v / (1.0 + np.exp(-v))


def ref_acts(x, p):
    """h and m of the float model in float64 (for layer-error checks)."""
    x = x.astype(np.float64)
    h = np.tanh(x) * p["g"].astype(np.float64)
    gt = h @ p["wg"].astype(np.float64).T
    u = h @ p["wu"].astype(np.float64).T
    return h, silu(gt) * u


def input_rows(w, layout):
    """A weight as (input channel) x (output channel), float32 view."""
    return w if layout == "kn" else w.T


def out_rows(w, layout):
    """A weight as (output channel) x (input channel)."""
    return w.T if layout == "kn" else w


# ---------------------------------------------------------------------------
# Running the tools
# ---------------------------------------------------------------------------


def run(cmd):
    for attempt in range(30):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
            break
        except OSError:  # a build relinking the tool
            if attempt == 29:
                raise
            time.sleep(2)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (
            " ".join(cmd), p.returncode, p.stderr))
    return p.stdout, p.stderr


def write(path, text):
    with open(path, "w") as fh:
        fh.write(text)
    return path


def instrument(workdir, module, tag):
    src = write(os.path.join(workdir, tag + ".mlir"), module)
    out, _ = run([oo.find_tool("octet-opt"), src,
                  "--octet-instrument=all=true",
                  "--mlir-print-elementsattrs-with-hex-if-larger=0",
                  "--mlir-print-debuginfo", "--mlir-print-local-scope"])
    return write(os.path.join(workdir, tag + ".inst.mlir"), out)


def calibrate(workdir, inst_path, batches, tag, second_moment=False):
    """octet-run --calibrate --channel-stats on one input per batch (the
    batches as one comma-separated --input list). Returns the stats path."""
    files = []
    for i, b in enumerate(batches):
        files.append(os.path.join(workdir, "%s.batch%d.npy" % (tag, i)))
        np.save(files[-1], b)
    stats = os.path.join(workdir, tag + ".stats.json")
    cmd = [oo.find_tool("octet-run"), inst_path, "--entry", "main",
           "--calibrate=" + stats, "--channel-stats",
           "--input", ",".join(files)]
    if second_moment:
        cmd.append("--second-moment")
    run(cmd)
    return stats


def load_stats(stats):
    with open(stats) as fh:
        return json.load(fh)


def run_model(workdir, module, x, nres, tag):
    return oo.run_octet(module, "main", [x], nres, workdir=workdir, tag=tag)


def opt(workdir, module_path, pass_arg, tag):
    """octet-opt MODULE --PASS, printing hex constants and locations.
    Returns (output text, stderr)."""
    out, err = run([oo.find_tool("octet-opt"), module_path, pass_arg,
                    "--mlir-print-elementsattrs-with-hex-if-larger=0",
                    "--mlir-print-debuginfo", "--mlir-print-local-scope"])
    write(os.path.join(workdir, tag + ".out.mlir"), out)
    return out, err


# ---------------------------------------------------------------------------
# Reading a printed module back
# ---------------------------------------------------------------------------

_LOC = re.compile(r'loc\("([\w.$-]+)"\)\s*$')
_INS = re.compile(r"ins\(([^:]*):")
_CONST = re.compile(r"(%[\w.$-]+) = arith\.constant (dense<[^>]*>) : "
                    r"tensor<([^>]*)>")


def read_ops(text):
    """Named linalg ops of the printed module: {loc name: (op, [ins SSA
    names])}, and the module's constants {SSA: array} (one function)."""
    ops, consts = {}, {}
    pending = None
    for line in text.splitlines():
        cm = _CONST.search(line)
        if cm:
            consts[cm.group(1)] = wo._value(
                (cm.group(2), None, cm.group(3)), {})
        om = re.search(r"= (linalg\.\w+)", line)
        if om and "linalg.yield" not in line:
            im = _INS.search(line)
            ins = [s.strip() for s in im.group(1).split(",")] if im else []
            if line.rstrip().endswith("{"):  # region follows
                pending = (om.group(1), ins)
                continue
            lm = _LOC.search(line)
            if lm:
                ops[lm.group(1)] = (om.group(1), ins)
            continue
        if pending and line.lstrip().startswith("} ->"):
            lm = _LOC.search(line)
            if lm:
                ops[lm.group(1)] = pending
            pending = None
    return ops, consts


def weights_of(text):
    """{layer: float weight in its original layout} and g, from a float
    module printed with locations; missing entries are absent."""
    ops, consts = read_ops(text)
    out = {}
    for layer, (wname, _) in LAYERS.items():
        if layer in ops and len(ops[layer][1]) == 2:
            c = consts.get(ops[layer][1][1])
            if c is not None:
                out[wname] = c
    if "norm" in ops and len(ops["norm"][1]) == 2:
        c = consts.get(ops["norm"][1][1])
        if c is not None:
            out["g"] = c
    return out


def dequantizes_of(text):
    """{layer: dequantize dict (wo.read_dequantizes)} of a quantized module:
    the dequantize whose result is the layer's weight operand."""
    deqs = wo.read_dequantizes(text)
    results = re.findall(r"(%[\w.$-]+) = octet\.dequantize ", text)
    by_ssa = dict(zip(results, deqs))
    ops, _ = read_ops(text)
    out = {}
    for layer in LAYERS:
        if layer in ops and len(ops[layer][1]) == 2 and \
                ops[layer][1][1] in by_ssa:
            out[layer] = by_ssa[ops[layer][1][1]]
    return out


def group_of(layers):
    """'h' or 'm' for a report group's layer list, None if unknown (a
    comma-separated string is read too, so that the other checks can go on
    when the list check fails)."""
    if isinstance(layers, str):
        layers = [l.strip() for l in layers.split(",")]
    s = sorted(layers)
    if s == sorted(H_LAYERS):
        return "h"
    if s == sorted(M_LAYERS):
        return "m"
    return None


def layers_listed(chk, label, groups):
    """The report's "layers" are lists of names."""
    bad = [g.get("layers") for g in groups
           if not (isinstance(g.get("layers"), list) and
                   all(isinstance(n, str) for n in g["layers"]))]
    chk.ok(not bad, label + ' "layers" are lists of names', str(bad))


def wmax(weights, layers):
    """max over the layers' weights of |W| per input channel (float64)."""
    cols = [np.max(np.abs(input_rows(weights[LAYERS[l][0]], LAYERS[l][1])
                          .astype(np.float64)), axis=1) for l in layers]
    return np.max(np.stack(cols), axis=0)


def scale_weights(weights, layers, sf):
    """Every layer weight W[n, j] -> float32(W[n, j] * sf_j) (f32 multiply);
    returns a new dict."""
    out = dict(weights)
    sf = np.asarray(sf, F32)
    for l in layers:
        wname, layout = LAYERS[l]
        w = input_rows(weights[wname], layout) * sf[:, None]  # f32 * f32
        assert w.dtype == F32
        out[wname] = np.ascontiguousarray(w if layout == "kn" else w.T)
    return out


def fold(weights, group_name, sf):
    """The fold target divided by sf (f32 division); returns a new dict."""
    out = dict(weights)
    sf = np.asarray(sf, F32)
    if group_name == "h":  # multiplier g_j / sf_j
        out["g"] = (weights["g"] / sf).astype(F32)
    else:  # producer up: output channel j (row j of Wu, F x K) / sf_j
        out["wu"] = (weights["wu"] / sf[:, None]).astype(F32)
    return out


# The fold target of each group: (kind, the op's location name).
FOLD_KIND = {"h": ("multiplier", "norm"), "m": ("producer", "up")}


def rel(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def rtn_rows(w_rows, scheme):
    """Plain round-to-nearest (absmax clip) of a weight viewed as rows:
    dict from wo.quantize_weight."""
    return wo.quantize_weight(np.asarray(w_rows, F32), scheme, "absmax")


def check_groups(chk, tag, groups):
    """Checks that the report's groups are h's {fc, fcT, gate, up} and m's
    {down}; yields (which, layers, label, observer, group) for each, after
    checking its observer and fold."""
    names = sorted(group_of(g.get("layers", [])) or "?" for g in groups)
    chk.ok(names == ["h", "m"], tag + ": two groups {fc, fcT, gate, up}, "
           "{down}", str([g.get("layers") for g in groups]))
    for g in groups:
        which = group_of(g.get("layers", []))
        if which is None:
            continue
        layers = H_LAYERS if which == "h" else M_LAYERS
        label = "%s[%s]" % (tag, which)
        obs = g.get("observer")
        chk.ok(obs in [l + ".input" for l in layers], label + " observer",
               str(obs))
        kind, into = FOLD_KIND[which]
        chk.ok(g.get("fold") == kind and g.get("fold_into") == into,
               label + " fold", "%s into %s" % (g.get("fold"),
                                                g.get("fold_into")))
        yield which, layers, label, obs, g
