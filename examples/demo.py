#!/usr/bin/env python3
"""The README demo: quantize the bundled MLP with octet and report SQNR.

Writes seeded inputs (weights with a few outlier output channels, as real
layers have), runs examples/mlp.mlir through octet-run (octet's host lowering
and JIT), and prints for each weight tensor and scheme the format, the
granularity and the SQNR in dB against the float values, then the SQNR of the
model's output with each scheme against the float model.
SQNR (dB) = 10 log10(sum x^2 / sum (x - xhat)^2).
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MLIR = os.path.join(HERE, "mlp.mlir")

# (suffix, format, granularity, symmetric, bits per weight incl. scales)
SCHEMES = [
    ("i8_tensor", "i8", "per_tensor", "symmetric"),
    ("i8_channel", "i8", "per_axis(1) = per output channel", "symmetric"),
    ("u8_channel_asym", "u8", "per_axis(1) = per output channel", "asymmetric"),
    ("i4_group64", "i4", "per_group(0, 64) along K", "symmetric"),
    ("e4m3_channel", "f8E4M3FN", "per_axis(1) = per output channel", "symmetric"),
]


def sqnr_db(x, xhat):
    x = x.astype(np.float64)
    noise = np.sum((x - xhat.astype(np.float64)) ** 2)
    return float("inf") if noise == 0 else 10 * np.log10(np.sum(x * x) / noise)


def make_inputs(rng):
    """Weights ~ N(0, 1/fan_in) with 4 outlier output channels at 25x."""
    w1 = rng.standard_normal((256, 512)).astype(np.float32) / 16
    w2 = rng.standard_normal((512, 128)).astype(np.float32) / 22.6
    for w in (w1, w2):
        cols = rng.choice(w.shape[1], 4, replace=False)
        w[:, cols] *= 25
    x = rng.standard_normal((32, 256)).astype(np.float32)
    return x, w1, w2


def octet_run(octet_run_bin, tmp, entry, inputs, n_out):
    outs = [os.path.join(tmp, f"{entry}_{i}.npy") for i in range(n_out)]
    cmd = [octet_run_bin, MLIR, "--entry", entry]
    for path in inputs:
        cmd += ["--input", path]
    for path in outs:
        cmd += ["--output", path]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"octet-run {entry} failed:\n{res.stderr}")
    return [np.load(p) for p in outs]


def quantize_weights_table(octet_run_bin, tmp, x, y_float):
    """Compile-time weight quantization of the constant-weight model
    (examples/mlp_const.py, same weights): octet-opt --octet-quantize-weights
    per tensor and per channel, the per-layer table from its JSON report,
    and the quantized model's output run with octet-run."""
    import mlp_const
    d = os.path.dirname(octet_run_bin)
    octet_opt = os.path.join(d, "octet-opt") if d else "octet-opt"
    model = mlp_const.write(os.path.join(tmp, "mlp_const.mlir"))
    x_path = os.path.join(tmp, "x_const.npy")
    np.save(x_path, x)
    rows = []
    for gran in ("per-tensor", "per-channel"):
        report = os.path.join(tmp, "report_%s.json" % gran)
        out = os.path.join(tmp, "mlp_q_%s.mlir" % gran)
        cmd = [octet_opt, model, "--octet-quantize-weights=format=i8 "
               "granularity=%s report=%s" % (gran, report), "-o", out]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"octet-opt failed:\n{res.stderr}")
        with open(report) as fh:
            rep = json.load(fh)
        y_path = os.path.join(tmp, "y_q_%s.npy" % gran)
        res = subprocess.run([octet_run_bin, out, "--entry", "forward",
                              "--input", x_path, "--output", y_path],
                             capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"octet-run failed:\n{res.stderr}")
        rows.append((rep, sqnr_db(y_float, np.load(y_path))))

    print("\nCompile-time weight quantization: octet-opt --octet-quantize-weights "
          "on the same model with constant weights\n(per-layer table from "
          "its report=FILE.json; i8, symmetric, absmax clip):\n")
    hdr = (f"{'layer':<6}{'shape':<10}{'granularity':<14}{'SQNR dB':>8}"
           f"{'max |err|':>11}{'bytes before':>14}{'after':>9}")
    print(hdr)
    print("-" * len(hdr))
    for rep, _ in rows:
        for l in rep["layers"]:
            shape = "x".join(str(v) for v in l["shape"])
            print(f"{l['name']:<6}{shape:<10}{l['granularity']:<14}"
                  f"{l['sqnr_db']:8.2f}{l['max_abs_error']:11.5f}"
                  f"{l['bytes_before']:14d}{l['bytes_after']:9d}")
    for rep, y_sqnr in rows:
        s = rep["summary"]
        print(f"{rep['options']['granularity']:<12} total {s['bytes_before']} -> "
              f"{s['bytes_after']} bytes ({s['compression']:.2f}x), SQNR min "
              f"{s['sqnr_db_min']:.2f} dB, median {s['sqnr_db_median']:.2f} dB; "
              f"model output {y_sqnr:.2f} dB")
    print("\nThe outlier channels set the per-tensor scale: every other channel "
          "is left with a few\ncodes. Per channel, each keeps its own step "
          "(same SQNR as the run-time path above).")


def recipes_table(octet_run_bin, tmp, x, y_float):
    """One command per recipe (octet-opt --octet-quantize=recipe=...) on the
    constant-weight model, run with octet-run; W8A8 static is calibrated on
    held-out inputs (a different seed from the evaluation input x)."""
    import mlp_const
    d = os.path.dirname(octet_run_bin)
    tool = lambda name: os.path.join(d, name) if d else name  # noqa: E731
    model = mlp_const.write(os.path.join(tmp, "mlp_recipes.mlir"))
    x_path = os.path.join(tmp, "x_recipes.npy")
    np.save(x_path, x)
    cal_rng = np.random.default_rng(7)
    cal = []
    for i in range(4):
        cal.append(os.path.join(tmp, "cal%d.npy" % i))
        np.save(cal[-1], cal_rng.standard_normal(x.shape).astype(np.float32))

    def run(cmd):
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("%s failed:\n%s" % (cmd[0], res.stderr))

    rows = []
    for recipe in ("w8a16", "w4a16", "w8a8-dynamic", "w8a8-static",
                   "w8a8-fp8"):
        src, extra = model, ""
        if recipe == "w8a8-static":
            src = os.path.join(tmp, "mlp_instrumented.mlir")
            stats = os.path.join(tmp, "stats.json")
            run([tool("octet-opt"), model,
                 "--octet-quantize-weights=report=%s" % os.path.join(
                     tmp, "report_%s.json" % recipe),
                 "--octet-instrument", "-o", src])
            run([octet_run_bin, src, "--entry", "forward",
                 "--calibrate=" + stats, "--input", ",".join(cal)])
            extra = " stats=%s method=percentile:99.99" % stats
        out = os.path.join(tmp, "mlp_%s.mlir" % recipe)
        report = os.path.join(tmp, "report_%s.json" % recipe)
        rep_opt = "" if recipe == "w8a8-static" else " report=" + report
        run([tool("octet-opt"), src, "--octet-quantize=recipe=%s group-size=64"
             "%s%s" % (recipe, rep_opt, extra), "-o", out])
        y_path = os.path.join(tmp, "y_%s.npy" % recipe)
        run([octet_run_bin, out, "--entry", "forward", "--input", x_path,
             "--output", y_path])
        size = None
        if os.path.exists(report):
            with open(report) as fh:
                size = json.load(fh)["summary"]["bytes_after"]
        rows.append((recipe, size, sqnr_db(y_float, np.load(y_path))))
    print("\nWhole-model recipes (octet-opt --octet-quantize=recipe=R; "
          "octet.matmul on the codes,\nscales folded into the epilogue; "
          "W8A8 static calibrated on 4 held-out batches):\n")
    print(f"{'recipe':<14}{'weight bytes':>13}{'output SQNR dB':>16}")
    print(f"{'float':<14}{x.shape[1] * 512 * 4 + 512 * 128 * 4:>13}"
          f"{'(reference)':>16}")
    for recipe, size, sq in rows:
        size_s = str(size) if size is not None else "-"
        print(f"{recipe:<14}{size_s:>13}{sq:16.2f}")


def host_speed(octet_run_bin, tmp, x, y_float):
    """Compiles the constant-weight model for this CPU with octet-compile,
    float and W8A8 (dynamic per-token activations, per-channel weights:
    octet-quantize=recipe=w8a8-dynamic), runs both libraries with
    octet-run --library --repeat, and prints their speed and the W8A8
    output's SQNR against the float model."""
    import re
    import mlp_const
    d = os.path.dirname(octet_run_bin)
    tool = lambda name: os.path.join(d, name) if d else name  # noqa: E731
    model = mlp_const.write(os.path.join(tmp, "mlp_host.mlir"))
    qmodel = os.path.join(tmp, "mlp_host_w8a8.mlir")
    res = subprocess.run([tool("octet-opt"), model,
                          "--octet-quantize=recipe=w8a8-dynamic", "-o", qmodel],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"octet-opt failed:\n{res.stderr}")
    x_path = os.path.join(tmp, "x_host.npy")
    np.save(x_path, x)
    rows = []
    for name, src in (("float (f32)", model), ("W8A8 dynamic", qmodel)):
        lib = os.path.join(tmp, "lib%d.so" % len(rows))
        res = subprocess.run([tool("octet-compile"), src, "--target=host",
                              "-o", lib], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"octet-compile failed:\n{res.stderr}")
        y_path = os.path.join(tmp, "y_host%d.npy" % len(rows))
        res = subprocess.run([octet_run_bin, lib, "--library", "--entry",
                              "forward", "--input", x_path, "--output", y_path,
                              "--repeat", "200"], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"octet-run --library failed:\n{res.stderr}")
        median = float(re.search(r"median ([0-9.]+) s", res.stderr).group(1))
        rows.append((name, median, sqnr_db(y_float, np.load(y_path))))
    # The same float model with numpy (its BLAS), for a fair float baseline.
    import time
    w1, w2 = mlp_const.weights()[1:]
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        np.maximum(x @ w1, 0) @ w2
        times.append(time.perf_counter() - t0)
    rows.insert(1, ("float (numpy)", sorted(times)[100], float("inf")))
    print("\nCompiled for this CPU (octet-compile --target=host -> .so, run "
          "with octet-run --library,\nmedian of 200 runs; \"float (f32)\" is "
          "octet's generated f32 kernel for linalg.matmul\n(exact k-order "
          "sums, no FMA), \"float (numpy)\" the same model with numpy's "
          "BLAS):\n")
    print(f"{'model':<16}{'time ms':>9}{'speed-up':>10}{'output SQNR dB':>16}")
    for name, t, q in rows:
        sq = "(reference)" if name.startswith("float") else f"{q:.2f}"
        print(f"{name:<16}{t * 1e3:9.3f}{rows[0][1] / t:9.2f}x{sq:>16}")


def main():
    octet_run_bin = sys.argv[1] if len(sys.argv) > 1 else "octet-run"
    rng = np.random.default_rng(2026)
    x, w1, w2 = make_inputs(rng)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, arr in (("x", x), ("w1", w1), ("w2", w2)):
            paths[name] = os.path.join(tmp, name + ".npy")
            np.save(paths[name], arr)
        deq = octet_run(octet_run_bin, tmp, "quantize_weights",
                        [paths["w1"], paths["w2"]], 2 * len(SCHEMES))
        y_float = octet_run(octet_run_bin, tmp, "forward_float",
                            [paths["x"], paths["w1"], paths["w2"]], 1)[0]
        y_q = {s[0]: octet_run(octet_run_bin, tmp, "forward_" + s[0],
                               [paths["x"], paths["w1"], paths["w2"]], 1)[0]
               for s in SCHEMES}

    print("Octet demo: a 2-layer MLP (x 32x256, W1 256x512, W2 512x128; "
          "4 outlier output channels per weight)")
    print("Each weight is quantized and dequantized by octet "
          "(compute_params -> quantize -> dequantize, JIT-run on this CPU).\n")
    hdr = f"{'tensor':<7}{'format':<10}{'granularity':<36}{'mapping':<12}{'SQNR dB':>8}"
    print(hdr)
    print("-" * len(hdr))
    for wi, (wname, w) in enumerate((("W1", w1), ("W2", w2))):
        for si, (key, fmt, gran, sym) in enumerate(SCHEMES):
            d = deq[wi * len(SCHEMES) + si]
            print(f"{wname:<7}{fmt:<10}{gran:<36}{sym:<12}{sqnr_db(w, d):8.2f}")
    print("\nModel output y against the float model:")
    print(f"{'weights':<8}{'format':<10}{'granularity':<36}{'mapping':<12}{'SQNR dB':>8}")
    for key, fmt, gran, sym in SCHEMES:
        print(f"{'W1,W2':<8}{fmt:<10}{gran:<36}{sym:<12}{sqnr_db(y_float, y_q[key]):8.2f}")
    print("\nPer-channel scales isolate the outlier channels: every other "
          "channel keeps its own fine step, which per-tensor loses.")
    with tempfile.TemporaryDirectory() as tmp:
        quantize_weights_table(octet_run_bin, tmp, x, y_float)
    with tempfile.TemporaryDirectory() as tmp:
        recipes_table(octet_run_bin, tmp, x, y_float)
    with tempfile.TemporaryDirectory() as tmp:
        host_speed(octet_run_bin, tmp, x, y_float)


if __name__ == "__main__":
    main()
