#!/usr/bin/env python3
"""The cost of range monitoring: SmolLM2-135M with a static-scale recipe,
compiled with and without `octet-compile --monitor`, run in the same
process on the same inputs, interleaved.

  .venv/bin/python bench/monitor_overhead.py [--recipe w8a8-static]
      [--threads 1] [--rounds 7]

Per round, each library (in alternating order) prefills 512 tokens of GPL-3
from an empty cache and decodes 32 tokens after a 64-token prompt; the
medians and minima over the rounds and their ratios (monitored / plain)
are printed with the CPU (on a shared VM the minimum is the steadier
figure). Target (issue 21): monitored / plain <= 1.03 for both.
The libraries are built by examples/llm (kept in build/llm; a few minutes
the first time).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "llm"))

import octet_llm  # noqa: E402
from reference import eval_text  # noqa: E402


def cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--recipe", default="w8a8-static")
    ap.add_argument("--threads", type=int, default=0,
                    help="OCTET_NUM_THREADS (default: all cores)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "llm"))
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    if args.threads and os.environ.get("OCTET_NUM_THREADS") != \
            str(args.threads):
        env = dict(os.environ, OCTET_NUM_THREADS=str(args.threads))
        return subprocess.call([sys.executable] + sys.argv, env=env)

    gguf = octet_llm.default_gguf()
    tok = octet_llm.gguf_llama.load(gguf).tokenizer()
    calib = tok.encode(eval_text("GPL-2"))[:512]
    b = octet_llm.Builder(gguf, args.workdir, args.bindir, 2048, None, calib)
    names = [args.recipe, args.recipe + "+monitor"]
    models = {n: b.load(n) for n in names}
    text = tok.encode(eval_text("GPL-3"))
    window = np.asarray(text[:512], np.int32)
    prompt = np.asarray(text[:64], np.int32)
    times = {n: {"prefill": [], "decode": []} for n in names}
    for r in range(args.rounds + 1):  # round 0 warms up
        for n in (names if r % 2 == 0 else names[::-1]):
            m = models[n]
            m.reset()
            t0 = time.perf_counter()
            m.prefill(window, 0)
            t1 = time.perf_counter()
            m.reset()
            logits = m.prefill(prompt, 0)
            t = int(np.argmax(logits[-1]))
            pos = len(prompt)
            t2 = time.perf_counter()
            for _ in range(32):
                t = int(np.argmax(m.decode(t, pos)))
                pos += 1
            t3 = time.perf_counter()
            if r > 0:
                times[n]["prefill"].append(t1 - t0)
                times[n]["decode"].append((t3 - t2) / 32)
    threads = os.environ.get("OCTET_NUM_THREADS", str(os.cpu_count()))
    print("CPU: %s, %s thread(s), %d rounds" % (cpu_name(), threads,
                                                args.rounds))
    result = {"cpu": cpu_name(), "threads": threads, "recipe": args.recipe}
    for what, unit, scale in (("prefill", "prefill 512 tokens", 1.0),
                              ("decode", "decode per token", 1e3)):
        u = "s" if scale == 1 else "ms"
        for stat, fn in (("median", np.median), ("min", np.min)):
            plain = float(fn(times[names[0]][what]))
            mon = float(fn(times[names[1]][what]))
            print("%-20s %-6s %s: %8.3f %s   +monitor: %8.3f %s   ratio "
                  "%.4f (target <= 1.03)" % (unit, stat, args.recipe,
                                             plain * scale, u, mon * scale,
                                             u, mon / plain))
            result.setdefault(what, {})[stat] = {
                "plain_s": plain, "monitor_s": mon, "ratio": mon / plain}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
