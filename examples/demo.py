#!/usr/bin/env python3
"""The README demo: quantize the bundled MLP with octet and report SQNR.

Writes seeded inputs (weights with a few outlier output channels, as real
layers have), runs examples/mlp.mlir through octet-run (octet's host lowering
and JIT), and prints for each weight tensor and scheme the format, the
granularity and the SQNR in dB against the float values, then the SQNR of the
model's output with each scheme against the float model.
SQNR (dB) = 10 log10(sum x^2 / sum (x - xhat)^2).
"""

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


if __name__ == "__main__":
    main()
