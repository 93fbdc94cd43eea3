#!/usr/bin/env python3
"""Self-checks of the numpy Llama reference (examples/llm/reference.py), float64.

  1. prefill of S tokens == S one-token decode steps (logits and cache, to 1e-10)
     and == a two-chunk prefill (second chunk at start_pos > 0)
  2. causal: the logits of tokens < k do not change when tokens >= k change
  3. cache positions >= start_pos + S stay zero after every forward
  4. return_hidden: layers+1 states of [S, hidden]; the last, through the
     final norm and the output head, gives the logits

  reference_selfcheck.py [--gguf PATH] [--tokens S]
Exit status 0 when every check passes.
"""

import argparse
import os
import sys

# One BLAS thread: faster here for the one-token steps (and on a busy machine);
# an explicit OPENBLAS_NUM_THREADS wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import Reference  # noqa: E402
from reference_cli import default_gguf  # noqa: E402

TOL = 1e-10


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf", default=None)
    ap.add_argument("--tokens", type=int, default=12)
    args = ap.parse_args()
    path = args.gguf or default_gguf()
    if not path or not os.path.isfile(path):
        sys.exit("no GGUF file: pass --gguf")
    m = Reference(path, dtype=np.float64)
    c = m.config
    S = args.tokens
    rng = np.random.RandomState(0)
    ids = rng.randint(17, c["vocab"], size=S)   # past the control tokens
    max_len = S + 4
    failures = []

    def check(name, ok, detail):
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
        if not ok:
            failures.append(name)

    def tail_zero(cache, upto):
        return not np.any(cache[:, :, :, upto:, :])

    # 1. prefill vs one-token decode steps (and vs a two-chunk prefill)
    cp = m.new_cache(max_len)
    full, hidden = m.forward(ids, 0, cp, return_hidden=True)
    check("3. cache tail after prefill", tail_zero(cp, S), f"positions {S}..{max_len - 1} zero")
    cd = m.new_cache(max_len)
    steps = []
    tails_ok = True
    for t in range(S):
        steps.append(m.forward(ids[t:t + 1], t, cd)[0])
        tails_ok &= tail_zero(cd, t + 1)
    steps = np.stack(steps)
    d = np.max(np.abs(full - steps))
    check("1. prefill == decode steps (logits)", d <= TOL, f"max |diff| {d:.3e} over {S} tokens")
    dc = np.max(np.abs(cp - cd))
    check("1. prefill == decode steps (cache)", dc <= TOL, f"max |diff| {dc:.3e}")
    check("3. cache tail after each decode step", tails_ok, "positions > start_pos zero after every step")
    h = S // 2
    cc = m.new_cache(max_len)
    a = m.forward(ids[:h], 0, cc)
    check("3. cache tail after first chunk", tail_zero(cc, h), f"positions {h}.. zero")
    b = m.forward(ids[h:], h, cc)
    d2 = np.max(np.abs(full - np.concatenate([a, b])))
    check("1. prefill == two chunks", d2 <= TOL, f"split at {h}, max |diff| {d2:.3e}")

    # 2. causality: change the tokens from k on; logits before k unchanged, at k changed
    k = S // 2
    ids2 = ids.copy()
    ids2[k:] = rng.randint(17, c["vocab"], size=S - k)
    other = m.forward(ids2, 0, m.new_cache(max_len))
    dpre = np.max(np.abs(full[:k] - other[:k]))
    dpost = np.max(np.abs(full[k:] - other[k:]))
    check("2. causal", dpre <= TOL and dpost > 1e-3,
          f"tokens {k}.. changed: logits < {k} max |diff| {dpre:.3e}, logits >= {k} max |diff| {dpost:.3e}")

    # 4. hidden states
    shapes_ok = len(hidden) == c["layers"] + 1 and all(x.shape == (S, c["hidden"]) for x in hidden)
    emb_ok = np.array_equal(hidden[0], m.embd[ids])
    d4 = np.max(np.abs(m._rmsnorm(hidden[-1], m.out_norm) @ m.wout - full))
    check("4. return_hidden", shapes_ok and emb_ok and d4 <= TOL,
          f"{len(hidden)} states of {hidden[0].shape}, [0] = embedding: {emb_ok}, "
          f"head(norm(last)) vs logits {d4:.3e}")

    print("all checks passed" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
