#!/usr/bin/env python3
"""Latency of ONNX models through Octet against ONNX Runtime on this CPU.

  .venv/bin/python bench/onnx_vs_ort.py [--threads 1,2] [--repeat 50]
      [--models mlp,attention,convnet] [--variants float,static,dynamic]
      [--workdir DIR]

The models of test/Integration/ONNX/onnx_models.py at benchmark sizes (MLP
768 -> 3072 -> 768 on 32 rows; attention block d=256, 4 heads, 128
tokens; conv net on 16 images of 16x16), float and quantized by ONNX
Runtime's own quantizer (static QDQ per channel; dynamic per channel).
Octet: octet-import-onnx, `octet-opt --octet-fold-scales --canonicalize
--cse` for the quantized files, `octet-compile --target=host`, timed by
`octet-run --library --repeat` (OCTET_NUM_THREADS threads). ONNX Runtime:
the same .onnx file in an InferenceSession (CPU provider, default graph
optimizations, intra_op_num_threads), timed in this process over the same
number of runs after 3 warm-up runs. Both outputs are compared (max
difference relative to the largest output value) so that a fast wrong
result shows.

Prints the CPU, then per model, variant and thread count the median (and
minimum) of each and the ratio onnxruntime / octet (above 1: octet is
faster). On a shared VM the minimum is the steadier figure.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "ONNX"))
import onnx  # noqa: E402

import onnx_models as M  # noqa: E402

IMPORTER = os.path.join(ROOT, "tools", "import-model", "octet_import_onnx.py")


def cpu_name():
    """The CPU's model name and the vector ISAs that pick octet's kernels
    (the same model name covers Zen 3, AVX2 only, and Zen 4, AVX-512 VNNI)."""
    name, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name") and name == "unknown CPU":
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    isas = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16",
                        "amx_int8") if f in flags]
    return "%s (%s)" % (name, ", ".join(isas) or "no AVX2")


BUILDERS = {
    "mlp": lambda: M.mlp(batch=32, din=768, hidden=3072, dout=768),
    "attention": lambda: M.attention(seq=128, d=256, heads=4),
    "convnet": lambda: M.convnet(batch=16),
}


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p


def build_octet(onnx_path, quantized, work, tag, bindir):
    mlir = os.path.join(work, tag + ".mlir")
    run([sys.executable, IMPORTER, onnx_path, "-o", mlir])
    if quantized:
        folded = os.path.join(work, tag + ".folded.mlir")
        run([os.path.join(bindir, "octet-opt"), mlir, "--octet-fold-scales",
             "--canonicalize", "--cse", "-o", folded])
        mlir = folded
    lib = os.path.join(work, "lib%s.so" % tag)
    run([os.path.join(bindir, "octet-compile"), mlir, "--target=host", "-o",
         lib])
    return lib


def time_octet(lib, x, threads, repeat, work, tag, bindir):
    xp = os.path.join(work, tag + ".x.npy")
    yp = os.path.join(work, tag + ".y.npy")
    np.save(xp, x)
    env = dict(os.environ, OCTET_NUM_THREADS=str(threads))
    p = run([os.path.join(bindir, "octet-run"), "--library", lib, "--entry",
             "main", "--input", xp, "--output", yp, "--repeat", str(repeat)],
            env=env)
    m = re.search(r"median ([0-9.]+) s, min ([0-9.]+) s", p.stderr)
    return float(m.group(1)), float(m.group(2)), np.load(yp)


def time_ort(path, x, threads, repeat):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    for _ in range(3):
        y = s.run(None, {"x": x})[0]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        y = s.run(None, {"x": x})[0]
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], times[0], y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--models", default="mlp,attention,convnet")
    ap.add_argument("--variants", default="float,static,dynamic")
    ap.add_argument("--workdir")
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    args = ap.parse_args()
    import logging
    logging.getLogger().setLevel(logging.ERROR)
    import onnxruntime
    work = args.workdir or tempfile.mkdtemp(prefix="onnx-vs-ort-")
    os.makedirs(work, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    print("CPU: %s; onnxruntime %s; %d runs each, times in ms" % (
        cpu_name(), onnxruntime.__version__, args.repeat))
    print("%-10s %-8s %3s %17s %17s %13s %9s" % (
        "model", "variant", "thr", "octet med (min)", "ort med (min)",
        "ort/octet", "max diff"))
    for name in args.models.split(","):
        model = BUILDERS[name]()
        fpath = os.path.join(work, name + ".onnx")
        onnx.save(model, fpath)
        x = M.sample(model, 7)
        for variant in args.variants.split(","):
            tag = "%s_%s" % (name, variant)
            path = fpath
            if variant != "float":
                path = os.path.join(work, tag + ".onnx")
                M.quantize(model, fpath, path, variant, per_channel=True)
            lib = build_octet(path, variant != "float", work, tag,
                              args.bindir)
            for t in threads:
                om, on, yo = time_octet(lib, x, t, args.repeat, work, tag,
                                        args.bindir)
                rm, rn, yr = time_ort(path, x, t, args.repeat)
                diff = float(np.abs(yo - yr).max() / np.abs(yr).max())
                print("%-10s %-8s %3d %8.3f (%6.3f) %8.3f (%6.3f) %5.2fx "
                      "(%4.2fx) %9.1e" % (name, variant, t, om * 1e3,
                                          on * 1e3, rm * 1e3, rn * 1e3,
                                          rm / om, rn / on, diff),
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
