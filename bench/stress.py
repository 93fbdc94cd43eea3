#!/usr/bin/env python3
"""Huge-model stress test: a synthetic MLP with many layers and ~1 GiB of f32
weights through the whole pipeline, with the peak RSS of every stage.

    bench/stress.py --tools build/bin [--size-mb 1024] [--layers 256]
                    [--recipe w8a16] [--work DIR] [--keep]

Stages (each a separate process of the real tools; peak RSS from wait4):
  generate   the model as MLIR text: `linalg.matmul` + ReLU per layer, the
             weights in `dense_resource` blobs (He-initialized, seeded per
             layer, so the check below regenerates them layer by layer)
  bytecode   octet-opt model.mlir --emit-bytecode       (text -> bytecode)
  quantize   octet-opt model.mlirbc --octet-quantize=recipe=R --emit-bytecode
  quantize1  the same with --mlir-disable-threading; its output must equal
             the multithreaded one byte for byte (the octet passes are
             deterministic; see docs/robustness.md for why the comparison
             is made before bufferization)
  compile    octet-compile q.mlirbc -o libstress.so     (lower, LLVM, link)
  run        octet-run --library libstress.so on a random batch
and a check of the result against numpy: the same weights quantized with
the oracle of test/lib/octet_oracle.py (per-channel i8, symmetric; w8a16
keeps activations in f32), the layers applied in float64. Prints one table
and exits non-zero if a stage fails, the outputs differ, or the result is
off.
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))


def layer_weights(layer, k, n, seed):
    rng = np.random.default_rng(seed + layer)
    w = rng.standard_normal((k, n), dtype=np.float32)
    w *= np.float32(math.sqrt(2.0 / k))
    return w


def generate(path, layers, k, batch, seed):
    n = k
    with open(path, "w") as f:
        f.write(f"func.func @model(%x: tensor<{batch}x{k}xf32>) -> "
                f"tensor<{batch}x{n}xf32> {{\n")
        f.write("  %zero = arith.constant 0.0 : f32\n")
        t = f"tensor<{batch}x{n}xf32>"
        h = "%x"
        for l in range(layers):
            f.write(f"  %w{l} = arith.constant dense_resource<w{l}> : "
                    f"tensor<{k}x{n}xf32> loc(\"layer{l}\")\n")
            f.write(f"  %e{l} = tensor.empty() : {t}\n")
            f.write(f"  %f{l} = linalg.fill ins(%zero : f32) outs(%e{l} : {t}) -> {t}\n")
            f.write(f"  %m{l} = linalg.matmul ins({h}, %w{l} : {t}, "
                    f"tensor<{k}x{n}xf32>) outs(%f{l} : {t}) -> {t}\n")
            f.write(f"  %r{l} = linalg.generic {{indexing_maps = "
                    f"[affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], "
                    f"iterator_types = [\"parallel\", \"parallel\"]}} "
                    f"ins(%m{l} : {t}) outs(%e{l} : {t}) {{\n"
                    f"  ^bb0(%a: f32, %b: f32):\n"
                    f"    %v = arith.maximumf %a, %zero : f32\n"
                    f"    linalg.yield %v : f32\n  }} -> {t}\n")
            h = f"%r{l}"
        f.write(f"  return {h} : {t}\n}}\n")
        f.write("{-#\n  dialect_resources: {\n    builtin: {\n")
        for l in range(layers):
            w = layer_weights(l, k, n, seed)
            f.write(f"      w{l}: \"0x04000000")
            f.write(w.tobytes().hex())
            f.write("\"" + ("," if l + 1 < layers else "") + "\n")
        f.write("    }\n  }\n#-}\n")


def run_stage(name, cmd, log):
    start = time.monotonic()
    with open(log, "ab") as lf:
        lf.write(("$ " + " ".join(cmd) + "\n").encode())
        lf.flush()
        p = subprocess.Popen(cmd, stdout=lf, stderr=lf)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    rc = os.waitstatus_to_exitcode(status)
    cpu = ru.ru_utime + ru.ru_stime
    return rc, wall, cpu, ru.ru_maxrss / 1024.0  # MiB


def reference(x, layers, k, seed):
    """The model with per-channel symmetric i8 weights (the w8a16 recipe),
    from the independent numpy oracle, applied in float64."""
    import octet_oracle as oo
    scheme = oo.Scheme("i8", "per_axis", axis=1)
    h = x.astype(np.float64)
    for l in range(layers):
        w = layer_weights(l, k, k, seed)
        absmax = np.max(np.abs(w), axis=0).astype(np.float32)
        scale = np.maximum(absmax / np.float32(127), oo.FLT_MIN)
        q = oo.quantize(w, scheme, scale)
        wq = oo.dequantize(q, scheme, scale).astype(np.float64)
        h = np.maximum(h @ wq, 0.0)
    return h


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tools", required=True, help="directory of octet-opt, "
                    "octet-compile, octet-run")
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--recipe", default="w8a16")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default="")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    k = int(math.sqrt(args.size_mb * 2**20 / 4 / args.layers))
    k = max(16, k // 16 * 16)
    weight_bytes = args.layers * k * k * 4
    work = args.work or tempfile.mkdtemp(prefix="octet-stress-")
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "stress.log")
    tool = lambda t: os.path.join(args.tools, t)
    p = lambda f: os.path.join(work, f)
    print(f"stress: {args.layers} layers of {k}x{k} f32 = "
          f"{weight_bytes / 2**20:.1f} MiB of weights, recipe {args.recipe}, "
          f"batch {args.batch}; work dir {work}")

    rows = []
    t0 = time.monotonic()
    generate(p("model.mlir"), args.layers, k, args.batch, args.seed)
    rows.append(("generate (python)", 0, time.monotonic() - t0, 0.0, 0.0))
    stages = [
        ("bytecode", [tool("octet-opt"), p("model.mlir"), "--emit-bytecode",
                      "-o", p("model.mlirbc")]),
        ("quantize", [tool("octet-opt"), p("model.mlirbc"),
                      f"--octet-quantize=recipe={args.recipe}",
                      "--emit-bytecode", "-o", p("q.mlirbc")]),
        ("quantize1", [tool("octet-opt"), p("model.mlirbc"),
                       f"--octet-quantize=recipe={args.recipe}",
                       "--mlir-disable-threading", "--emit-bytecode", "-o",
                       p("q1.mlirbc")]),
        ("compile", [tool("octet-compile"), p("q.mlirbc"), "-o",
                     p("libstress.so"), "--header=-"]),
    ]
    ok = True
    for name, cmd in stages:
        rc, wall, cpu, rss = run_stage(name, cmd, log)
        rows.append((name, rc, wall, cpu, rss))
        if rc != 0:
            ok = False
            break
        if name == "bytecode":
            os.remove(p("model.mlir"))  # 2x the weights as hex text
    same = None
    if ok:
        with open(p("q.mlirbc"), "rb") as a, open(p("q1.mlirbc"), "rb") as b:
            same = a.read() == b.read()
        ok &= same
    err = None
    if ok:
        rng = np.random.default_rng(1234)
        x = rng.standard_normal((args.batch, k), dtype=np.float32)
        np.save(p("x.npy"), x)
        rc, wall, cpu, rss = run_stage(
            "run", [tool("octet-run"), "--library", p("libstress.so"),
                    "--entry", "model", "--input", p("x.npy"), "--output",
                    p("y.npy")], log)
        rows.append(("run (octet-run)", rc, wall, cpu, rss))
        if rc == 0:
            y = np.load(p("y.npy")).astype(np.float64)
            ref = reference(x, args.layers, k, args.seed)
            noise = np.sum((y - ref) ** 2)
            sig = np.sum(ref ** 2)
            err = float("inf") if noise == 0 else 10 * math.log10(sig / noise)
            ok &= bool(np.all(np.isfinite(y))) and sig > 0 and err > 60
        else:
            ok = False

    wmib = weight_bytes / 2**20
    print(f"{'stage':<20} {'rc':>3} {'wall s':>8} {'cpu s':>8} "
          f"{'peak RSS MiB':>13} {'RSS/weights':>12}")
    for name, rc, wall, cpu, rss in rows:
        print(f"{name:<20} {rc:>3} {wall:>8.1f} {cpu:>8.1f} {rss:>13.1f} "
              f"{rss / wmib:>12.2f}")
    print(f"multithreaded == --mlir-disable-threading (octet-quantize "
          f"output, bytecode): {'identical' if same else 'DIFFERENT' if same is not None else 'n/a'}")
    if err is not None:
        print(f"result vs numpy oracle (quantized weights, float64): "
              f"SQNR {err:.1f} dB")
    if os.path.exists(p("libstress.so")):
        print(f"libstress.so: {os.path.getsize(p('libstress.so')) / 2**20:.1f} MiB")
    print("stress:", "PASS" if ok else "FAIL", f"(log: {log})")
    if not args.keep and ok and not args.work:
        shutil.rmtree(work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
