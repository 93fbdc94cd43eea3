#!/usr/bin/env python3
"""Runs `forward` of the demo MLP's libraries on one seeded input and
compares them: a GPU build (emulated) against the CPU build of the same
quantized module, within --tol of the output's range (f32 sums in another
order: the Bounds promise), and the quantized CPU build against the float
model by cosine similarity (--min-cosine).

  mlp_libs.py --float F.so --cpu Q_CPU.so --gpu Q_GPU.so
      [--resident-bytes B [--io-only]]

With --resident-bytes (the bytes of the model's quantized weights and
their parameters, from the shapes) the GPU build is called three times
and its copies counted (octet_emu_copy_stats): the first call must upload
exactly B bytes more than the second (the weights, which stay on the
device), the second and third must copy the same, and every call must
give the same output. With --io-only as well, the later calls must copy
only the model's input up and its output back (one copy each: the
activations between the octet ops stay on the device). With --device-entry,
`forward_device` (the entry on device memory; in an emulated library device
memory is host memory) must give forward's output and copy nothing.

With --time N (scripts/gpu-check, on a GPU) the GPU and CPU builds are
each called N times more and their first call and median time printed.

Prints the measured numbers; exits 1 if a check fails.
"""

import argparse
import ctypes
import os
import sys
import time

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
    p.add_argument("--resident-bytes", type=int)
    p.add_argument("--io-only", action="store_true")
    p.add_argument("--device-entry", action="store_true")
    p.add_argument("--time", type=int, default=0)
    opts = p.parse_args()
    x = np.random.default_rng(5).standard_normal((32, 256)).astype(np.float32)
    libs = [ctypes.CDLL(os.path.abspath(path))
            for path in (opts.flt, opts.cpu, opts.gpu)]
    ok_copies = True
    if opts.resident_bytes is not None:
        ok_copies = check_copies(libs[2], x, opts.resident_bytes,
                                 opts.io_only)
    if opts.device_entry:
        ok_copies = check_device_entry(libs[2], x) and ok_copies
    out, first = [], []
    for lib in libs:
        t0 = time.perf_counter()
        out.append(run_numerics.call(lib, "forward", [x])[0].astype(np.float64))
        first.append((time.perf_counter() - t0) * 1e3)
    f, c, g = out
    rel = float(np.max(np.abs(g - c)) / np.max(np.abs(c)))
    cos = float((c * f).sum() / np.linalg.norm(c) / np.linalg.norm(f))
    ok_gpu = np.all(np.isfinite(g)) and rel <= opts.tol
    ok_cos = cos >= opts.min_cosine
    print("gpu vs cpu: max |diff| / max |cpu| = %.3g (%s)"
          % (rel, "ok" if ok_gpu else "FAIL, tolerance %g" % opts.tol))
    print("quantized vs float: cosine %.4f (%s)"
          % (cos, "ok" if ok_cos else "FAIL, minimum %g" % opts.min_cosine))
    if opts.time > 0:
        for name, lib, t_first in (("gpu", libs[2], first[2]),
                                   ("cpu", libs[1], first[1])):
            times = []
            for _ in range(opts.time):
                t0 = time.perf_counter()
                run_numerics.call(lib, "forward", [x])
                times.append((time.perf_counter() - t0) * 1e3)
            print("%s forward: first call %.3f ms, then median of %d %.3f ms"
                  % (name, t_first, opts.time, float(np.median(times))))
    return 0 if ok_gpu and ok_cos and ok_copies else 1


def check_copies(lib, x, resident, io_only):
    """Calls `forward` three times, counting the copies of each call."""
    stats = (ctypes.c_int64 * 4)()
    calls, outs = [], []
    for _ in range(3):
        lib.octet_emu_copy_stats(stats)
        before = list(stats)
        outs.append(run_numerics.call(lib, "forward", [x])[0])
        lib.octet_emu_copy_stats(stats)
        calls.append([a - b for a, b in zip(stats, before)])
    for i, c in enumerate(calls):
        print("call %d: %d uploads, %d bytes; %d downloads, %d bytes"
              % (i + 1, c[0], c[1], c[2], c[3]))
    first_extra = calls[0][1] - calls[1][1]
    ok = (first_extra == resident and calls[1] == calls[2]
          and calls[0][2:] == calls[1][2:]
          and all(np.array_equal(o, outs[0]) for o in outs))
    print("uploaded once: %d bytes (%s)"
          % (first_extra,
             "ok" if ok else "FAIL, expected %d bytes, the later calls "
             "alike and the same output" % resident))
    if io_only:
        io = [1, x.nbytes, 1, outs[0].nbytes]
        ok_io = calls[1] == io
        print("later calls copy the input and the output only: %s"
              % ("ok" if ok_io else "FAIL, expected %s (uploads, bytes, "
                 "downloads, bytes), got %s" % (io, calls[1])))
        ok = ok and ok_io
    return ok


def check_device_entry(lib, x):
    """Calls forward_device twice: forward's output, no copies."""
    want = run_numerics.call(lib, "forward", [x])[0]
    stats = (ctypes.c_int64 * 4)()
    ok = True
    for i in range(2):
        lib.octet_emu_copy_stats(stats)
        before = list(stats)
        got = run_numerics.call(lib, "forward", [x], entry="forward_device")[0]
        lib.octet_emu_copy_stats(stats)
        copies = [a - b for a, b in zip(stats, before)]
        same = np.array_equal(got, want)
        print("forward_device call %d: %d uploads, %d downloads; output %s"
              % (i + 1, copies[0], copies[2],
                 "as forward's" if same else "DIFFERS from forward's"))
        ok = ok and same and copies == [0, 0, 0, 0]
    print("device entry: %s" % ("ok" if ok else "FAIL"))
    return ok


if __name__ == "__main__":
    sys.exit(main())
