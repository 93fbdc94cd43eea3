#!/usr/bin/env python3
"""The LLM benchmark: SmolLM2-135M-Instruct with every octet recipe against
llama.cpp on the same GGUF, on this machine's CPU.

  .venv/bin/python bench/llm.py [--recipes a,b] [--windows 8]
      [--threads 1,2] [--llamacpp] [--json OUT.json]

Per recipe (examples/llm/llm.py's recipes) it prints the perplexity of
GPL-3 (windows of 512, tokens 1..511 of each scored) and its ratio to octet
float's, the weight bytes stored and read per decoded token, the KV-cache
bytes per token, the time of a 512-token prefill, decode tokens/s at batch
1 for each thread count (64 steps after a 64-token prompt, median of 3),
and the physical limit of decode: the bytes a step must read (weights +
the KV cache of the context) / the machine's measured read bandwidth
(bench/native/read_bandwidth.c, same thread count); `limit ratio` = measured step
time / that limit.

--llamacpp also runs bench/llm_llamacpp.py (llama-cpp-python, installed on
first use into bench/.venv-llamacpp, ~10 minutes) for the Q4_1 file and a
Q8_0 made from it, and prints the targets of docs/llm-results.md as ratios
measured in this run: octet float perplexity / llama.cpp Q4_1's, W8A16 and
W8A8 perplexity / octet float's, decode tokens/s of octet W4A16 / llama.cpp
Q4_1, of W8A16 / Q8_0 and / octet float.

A full run builds every recipe (a few minutes each the first time; kept in
build/llm) and takes about an hour on 2 cores.
"""

import argparse
import ctypes
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "llm"))

import octet_llm  # noqa: E402
from reference import eval_text, perplexity  # noqa: E402

DEFAULT_RECIPES = ["float", "w8a16", "w8a8-dynamic", "w8a8-static",
                   "w8a8-fp8", "w4a16", "w4a16-g64", "float+kv-i8",
                   "float+kv-fp8", "w8a16+kv-fp8", "w8a16+head",
                   "w4a16-g64+head", "w8a16+embed"]


def cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    f = set(line.split(":", 1)[1].split())
                    return " ".join(x for x in ("avx2", "avx512f",
                                                "avx512_vnni", "avx512_bf16",
                                                "amx_int8") if x in f)
    except OSError:
        pass
    return ""


def read_bandwidth(threads, workdir):
    """Bytes/s of a plain read of 1 GiB with `threads` threads."""
    lib = os.path.join(workdir, "read_bandwidth.so")
    if not os.path.exists(lib):
        subprocess.check_call(["clang", "-O3", "-march=native", "-shared",
                               "-fPIC", "-pthread",
                               os.path.join(HERE, "native", "read_bandwidth.c"), "-o",
                               lib])
    f = ctypes.CDLL(lib).octet_read_bandwidth
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    return f(1 << 30, threads, 5)


def weight_bytes(b, recipe):
    """(stored, read per decoded token) weight bytes of a recipe: the linear
    layers as quantized (codes + scales, from the octet-quantize report) or
    f32, the output head, the embedding table (stored f32; a token reads
    one row) and the norms."""
    c = b.config
    model = b.model
    names = [n for n in model.tensor_names()
             if not n.startswith("blk.") or
             int(n.split(".")[1]) < c["layers"]]
    f32 = {n: int(np.prod(model.tensor_shape(n))) * 4 for n in names}
    linear = sum(v for n, v in f32.items() if n.startswith("blk.") and
                 not n.endswith("norm.weight"))
    norms = sum(v for n, v in f32.items() if n.endswith("norm.weight"))
    table = f32["token_embd.weight"]
    head = f32.get("output.weight", table)
    head_q = None
    layers = {}
    for rep in (b.path("report-%s.json" % recipe.name),
                b.path("report-%s.activations.json" % recipe.name)):
        if os.path.exists(rep):
            with open(rep) as fh:
                for layer in json.load(fh)["layers"]:
                    if layer["quantized"] or layer["name"] not in layers:
                        layers[layer["name"]] = layer
    if layers:
        linear = 0
        for layer in layers.values():
            after = layer.get("bytes_after", layer["bytes_before"])
            if layer["name"] == "output":
                head_q = after if layer["quantized"] else None
            else:
                linear += after
    row = table // c["vocab"]
    tied = "output.weight" not in f32
    if head_q is None:
        stored = linear + norms + table + (0 if tied else head)
        read = linear + norms + head + row
    else:
        stored = linear + norms + table + head_q
        read = linear + norms + head_q + row
    return stored, read


def decode_speed(args, recipe, threads):
    cmd = [sys.executable, os.path.join(ROOT, "examples", "llm", "llm.py"),
           "decode-speed", "--recipe", recipe, "--threads", str(threads),
           "--workdir", args.workdir, "--bindir", args.bindir,
           "--max-len", str(args.max_len)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit("decode-speed %s failed:\n%s" % (recipe, out.stderr[-3000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_llamacpp(args, ids):
    np.save(os.path.join(args.workdir, "octet_gpl3_ids.npy"),
            np.asarray(ids, np.int32))
    out = os.path.join(args.workdir, "llamacpp.json")
    cmd = [sys.executable, os.path.join(HERE, "llm_llamacpp.py"), "--json",
           out, "--windows", str(args.windows), "--octet-ids",
           os.path.join(args.workdir, "octet_gpl3_ids.npy")]
    octet_llm.log("llama.cpp: %s" % " ".join(cmd))
    subprocess.check_call(cmd)
    with open(out) as fh:
        return json.load(fh)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--recipes", default=",".join(DEFAULT_RECIPES))
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "llm"))
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--max-len", type=int, default=2048)
    ap.add_argument("--calib-tokens", type=int, default=512)
    ap.add_argument("--llamacpp", action="store_true")
    ap.add_argument("--no-perplexity", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    gguf = octet_llm.default_gguf()
    model = octet_llm.gguf_llama.load(gguf)
    tok = model.tokenizer()
    calib = tok.encode(eval_text("GPL-2"))[:args.calib_tokens]
    b = octet_llm.Builder(gguf, args.workdir, args.bindir, args.max_len,
                          None, calib)
    ids = tok.encode(eval_text("GPL-3"))
    print("CPU: %s (%s), %d cores; GPL-3: %d tokens, %d windows of 512 "
          "scored" % (cpu_name(), cpu_flags(), os.cpu_count(), len(ids),
                      args.windows))
    bw = {t: read_bandwidth(t, args.workdir) for t in threads}
    print("read bandwidth: %s" % ", ".join("%d thread(s) %.1f GB/s"
                                          % (t, bw[t] / 1e9) for t in threads))
    rows = []
    for name in args.recipes.split(","):
        recipe = octet_llm.Recipe(name)
        m = b.load(recipe)
        row = {"recipe": name}
        if not args.no_perplexity:
            def logits(w):
                m.reset()
                return m.prefill(w, 0)
            r = perplexity(logits, ids, window=512,
                           max_windows=args.windows)
            row.update(ppl=r["ppl"], tokens_scored=r["tokens_scored"])
        stored, read = weight_bytes(b, recipe)
        row.update(weight_bytes=stored, weight_bytes_read=read,
                   kv_bytes_per_token=m.cache_bytes_per_token())
        del m
        for t in threads:
            s = decode_speed(args, name, t)
            ctx = 64 + 32  # mean context of the timed steps
            need = read + ctx * row["kv_bytes_per_token"]
            limit = need / bw[t]
            row["prefill_512_s_%dt" % t] = s["prefill_512_s"]
            row["decode_tok_s_%dt" % t] = s["decode_tokens_per_s"]
            row["decode_limit_ms_%dt" % t] = 1e3 * limit
            row["limit_ratio_%dt" % t] = (1e-3 * s["decode_ms_per_token"]
                                          / limit)
        rows.append(row)
        print_row(row, rows[0], threads)
    result = {"cpu": cpu_name(), "flags": cpu_flags(),
              "read_bandwidth": {str(t): bw[t] for t in threads},
              "recipes": rows}
    if args.llamacpp:
        result["llamacpp"] = run_llamacpp(args, ids)
        print_targets(rows, result["llamacpp"], threads)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


def print_row(row, base, threads):
    ppl = row.get("ppl")
    parts = ["%-16s" % row["recipe"]]
    if ppl is not None:
        parts.append("ppl %8.4f (x%.4f)" % (ppl, ppl / base["ppl"]))
    parts.append("weights %6.1f MB, read %6.1f MB/token, KV %5.1f KB/token"
                 % (row["weight_bytes"] / 1e6, row["weight_bytes_read"] / 1e6,
                    row["kv_bytes_per_token"] / 1e3))
    for t in threads:
        parts.append("%dt: prefill512 %.2f s, decode %.1f tok/s (limit %.1f "
                     "ms, x%.2f)" % (t, row["prefill_512_s_%dt" % t],
                                    row["decode_tok_s_%dt" % t],
                                    row["decode_limit_ms_%dt" % t],
                                    row["limit_ratio_%dt" % t]))
    print("  ".join(parts))
    sys.stdout.flush()


def print_targets(rows, lc, threads):
    by = {r["recipe"]: r for r in rows}
    print("\ntargets (ratios measured in this run):")

    def ratio(text, a, b, want, higher):
        ok = a / b >= want if higher else a / b <= want
        print("  %-58s %.4f  (target %s %.3g) %s"
              % (text, a / b, ">=" if higher else "<=", want,
                 "met" if ok else "MISSED"))
    models = {m["name"]: m for m in lc["models"]}
    q4, q8 = models["Q4_1"], models["Q8_0"]
    if "float" in by and "ppl" in by["float"]:
        ratio("octet float ppl / llama.cpp Q4_1 ppl", by["float"]["ppl"],
              q4["perplexity"]["ppl"], 1.01, False)
    for t in threads:
        key = "decode_tok_s_%dt" % t
        lkey = str(t)
        for mine, theirs, label in (("w4a16", q4, "Q4_1"),
                                    ("w4a16-g64+head", q4, "Q4_1"),
                                    ("w8a16", q8, "Q8_0"),
                                    ("w8a16+head", q8, "Q8_0")):
            if mine in by:
                ratio("%dt decode tok/s: octet %s / llama.cpp %s"
                      % (t, mine, label), by[mine][key],
                      theirs["speed"][lkey]["decode_tokens_per_s"], 1.0,
                      True)
        if "w8a16" in by and "float" in by:
            ratio("%dt decode tok/s: octet w8a16 / octet float" % t,
                  by["w8a16"][key], by["float"][key], 1.8, True)


if __name__ == "__main__":
    sys.exit(main())
