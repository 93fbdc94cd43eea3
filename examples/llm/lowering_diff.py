#!/usr/bin/env python3
"""The same quantized SmolLM2 module compiled twice -- octet-compile as
usual (the CPU kernels take the octet.matmul ops) and after
`octet-opt --convert-octet-to-linalg` (every octet op lowered to the
portable linalg form first, so no octet.matmul is left for the kernels;
float linalg.matmul still goes to the f32 kernels) -- and run on the same
windows of GPL-3: the largest logit difference and the mean negative
log-likelihood of each build per window.

    .venv/bin/python examples/llm/lowering_diff.py --recipe w8a8-fp8-block \\
        --windows 2 --window 128 [--layers 1]

It tells a lowering bug (a difference already large with --layers 1)
from the chaotic growth of ulp-level differences through dynamically
quantized activations (small with one block, large with 30, and of
either sign from window to window).
"""

import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import octet_llm  # noqa: E402
from reference import eval_text  # noqa: E402


def nll(logits, ids):
    """Negative log-likelihood of ids[1:] under the logits of ids[:-1]."""
    lg = logits.astype(np.float64)
    top = lg.max(1)
    lse = np.log(np.exp(lg - top[:, None]).sum(1)) + top
    return lse[:-1] - lg[np.arange(len(ids) - 1), ids[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipe", default="w8a8-fp8-block")
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--window", type=int, default=128)
    ap.add_argument("--layers", type=int, default=None,
                    help="only the first N decoder blocks")
    ap.add_argument("--workdir", default=os.path.join(
        octet_llm.ROOT, "build", "llm-lowering-diff"))
    ap.add_argument("--bindir", default=os.path.join(octet_llm.ROOT, "build",
                                                     "bin"))
    args = ap.parse_args()
    gguf = octet_llm.default_gguf()
    tok = octet_llm.gguf_llama.load(gguf).tokenizer()
    workdir = args.workdir + ("-%d" % args.layers if args.layers else "")
    b = octet_llm.Builder(gguf, workdir, args.bindir,
                          max(args.window, 64), args.layers,
                          tok.encode(eval_text("GPL-2"))[:512])
    b.keep_modules = True
    r = octet_llm.Recipe(args.recipe)
    lib = b.library(r)
    name = r.name.replace("+", "_")
    module = b.path("%s.mlirbc" % name)
    portable = b.path("lib%s.portable.so" % name)
    if not b.up_to_date(portable, lib):
        linalg = b.path("%s.linalg.mlirbc" % name)
        octet_llm.log("lowering every octet op to linalg, then compiling")
        subprocess.run([octet_llm.tool(args.bindir, "octet-opt"), module,
                        "--convert-octet-to-linalg", "--emit-bytecode", "-o",
                        linalg], check=True)
        subprocess.run([octet_llm.tool(args.bindir, "octet-compile"), linalg,
                        "-o", portable], check=True)
        os.remove(linalg)
    ids = tok.encode(eval_text("GPL-3"))
    builds = [("kernels", octet_llm.Model(lib, b.config, b.max_len)),
              ("portable", octet_llm.Model(portable, b.config, b.max_len))]
    total = {k: [] for k, _ in builds}
    for i in range(args.windows):
        w = np.asarray(ids[i * args.window:(i + 1) * args.window], np.int32)
        logits = {}
        for k, m in builds:
            m.reset()
            logits[k] = m.prefill(w, 0)
            total[k].append(nll(logits[k], w))
        d = float(np.abs(logits["kernels"] - logits["portable"]).max())
        print("window %d: max |logit difference| %.4g, mean NLL kernels "
              "%.5f, portable %.5f" % (i, d, total["kernels"][-1].mean(),
                                       total["portable"][-1].mean()))
    print("perplexity: kernels %.4f, portable %.4f" % tuple(
        np.exp(np.concatenate(total[k]).mean()) for k, _ in builds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
