#!/usr/bin/env python3
"""Runs `forward` of the demo MLP's libraries on one seeded input and
compares them: a GPU build (emulated) against the CPU build of the same
quantized module, within --tol of the output's range (f32 sums in another
order: the Bounds promise), and the quantized CPU build against the float
model by cosine similarity (--min-cosine).

  mlp_libs.py --float F.so --cpu Q_CPU.so --gpu Q_GPU.so

Prints the measured numbers; exits 1 if either check fails.
"""

import argparse
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_numerics  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--float", dest="flt", required=True)
    p.add_argument("--cpu", required=True)
    p.add_argument("--gpu", required=True)
    p.add_argument("--tol", type=float, default=1e-5)
    p.add_argument("--min-cosine", type=float, default=0.99)
    opts = p.parse_args()
    x = np.random.default_rng(5).standard_normal((32, 256)).astype(np.float32)
    out = [run_numerics.call(ctypes.CDLL(os.path.abspath(path)), "forward",
                             [x])[0].astype(np.float64)
           for path in (opts.flt, opts.cpu, opts.gpu)]
    f, c, g = out
    rel = float(np.max(np.abs(g - c)) / np.max(np.abs(c)))
    cos = float((c * f).sum() / np.linalg.norm(c) / np.linalg.norm(f))
    ok_gpu = np.all(np.isfinite(g)) and rel <= opts.tol
    ok_cos = cos >= opts.min_cosine
    print("gpu vs cpu: max |diff| / max |cpu| = %.3g (%s)"
          % (rel, "ok" if ok_gpu else "FAIL, tolerance %g" % opts.tol))
    print("quantized vs float: cosine %.4f (%s)"
          % (cos, "ok" if ok_cos else "FAIL, minimum %g" % opts.min_cosine))
    return 0 if ok_gpu and ok_cos else 1


if __name__ == "__main__":
    sys.exit(main())
