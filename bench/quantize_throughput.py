#!/usr/bin/env python3
"""Throughput of the lowered quantize/dequantize code on a 64 MiB f32 tensor.

Every kernel is JIT-compiled by octet-run from bench/quantize_throughput.mlir
and timed with --repeat (median of N runs, result buffers reused between runs
so the numbers measure the code, not page faults). The baseline is a plain
memory copy of the same f32 tensor (linalg.copy, which LLVM turns into a
vectorized copy loop), measured in the same harness and the same run.

Columns: time, bytes moved per second (elements x (bytes read + bytes
written)), and two ratios against the copy: `time` (copy time / kernel
time) and `bandwidth` (kernel bytes/s / copy bytes/s; 1.0 means the kernel
moves data as fast as a copy does, i.e. it is memory-bound, not compute-bound).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

N = 16 * 1024 * 1024  # 64 MiB of f32

# (entry, description, bytes read per element, bytes written per element,
#  input file)
KERNELS = [
    ("copy_f32", "memory copy f32 -> f32 (baseline)", 4, 4, "x"),
    ("quantize_i8", "quantize f32 -> i8 per-tensor", 4, 1, "x"),
    ("quantize_i8_axis", "quantize f32 -> i8 per-axis (4096 rows)", 4, 1, "x2"),
    ("quantize_u8_asym", "quantize f32 -> u8 asymmetric", 4, 1, "x"),
    ("quantize_i4_group", "quantize f32 -> i4 per-group(128)", 4, 1, "x2"),
    ("quantize_e4m3", "quantize f32 -> f8E4M3FN", 4, 1, "x"),
    ("quantize_e5m2", "quantize f32 -> f8E5M2", 4, 1, "x"),
    ("dequantize_i8", "dequantize i8 -> f32 per-tensor", 1, 4, "q"),
    ("dequantize_e4m3", "dequantize f8E4M3FN -> f32", 1, 4, "q"),
    ("compute_params_row", "compute_params i8 per-axis (4096 rows)", 4, 0, "x2"),
]


def run(octet_run, mlir, entry, inp, repeat):
    out = subprocess.run(
        [octet_run, mlir, "--entry", entry, "--input", inp,
         "--repeat", str(repeat)],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"octet-run failed for {entry}:\n{out.stderr}")
    m = re.search(r"median ([0-9.]+) s", out.stderr)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--octet-run", default="octet-run")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    mlir = os.path.join(here, "quantize_throughput.mlir")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        x = rng.standard_normal(N).astype(np.float32)
        files = {
            "x": (x, os.path.join(tmp, "x.npy")),
            "x2": (x.reshape(4096, 4096), os.path.join(tmp, "x2.npy")),
            "q": (rng.integers(-128, 128, N, dtype=np.int8),
                  os.path.join(tmp, "q.npy")),
        }
        for arr, path in files.values():
            np.save(path, arr)
        results = []
        for entry, desc, rd, wr, key in KERNELS:
            t = run(args.octet_run, mlir, entry, files[key][1], args.repeat)
            results.append((entry, desc, rd, wr, t))

    base = results[0]
    base_bw = N * (base[2] + base[3]) / base[4]
    print(f"quantize/dequantize throughput, {N * 4 >> 20} MiB f32 "
          f"({N} elements), median of {args.repeat} runs, 1 thread")
    print(f"{'kernel':<46} {'time ms':>9} {'GB/s':>7} {'time x':>7} "
          f"{'bw x':>6}")
    for entry, desc, rd, wr, t in results:
        bw = N * (rd + wr) / t
        print(f"{desc:<46} {t * 1e3:9.3f} {bw / 1e9:7.2f} "
              f"{base[4] / t:7.2f} {bw / base_bw:6.2f}")
    print("time x = copy time / kernel time; bw x = kernel bytes/s / copy "
          "bytes/s (copy measured in the same run)")


if __name__ == "__main__":
    main()
