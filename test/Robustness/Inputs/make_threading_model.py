"""Writes a model with several functions for threading.test to argv[1]:
each function holds two matmul layers whose weights (256x512 f32, seeded
per layer, with an outlier column and an all-zero column) span more than one
of octet-quantize-weights' 65536-element chunks, so both the per-function
pass managers and the per-chunk work run on the thread pool."""
import sys

import numpy as np

FUNCS, K, N, B = 6, 256, 512, 4


def weight(seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((K, N)).astype(np.float32)
    w[:, 7] *= 40.0
    w[:, 9] = 0.0
    return w


with open(sys.argv[1], "w") as f:
    for i in range(FUNCS):
        t_in, t_mid = f"tensor<{B}x{K}xf32>", f"tensor<{B}x{N}xf32>"
        f.write(f"func.func @f{i}(%x: {t_in}) -> {t_mid} {{\n")
        f.write(f"  %w0 = arith.constant dense<\"0x{weight(2 * i).tobytes().hex().upper()}\"> : tensor<{K}x{N}xf32>\n")
        f.write(f"  %w1 = arith.constant dense<\"0x{weight(2 * i + 1).T.copy().tobytes().hex().upper()}\"> : tensor<{N}x{K}xf32>\n")
        f.write(f"  %z0 = arith.constant dense<0.0> : {t_mid}\n")
        f.write(f"  %z1 = arith.constant dense<0.0> : {t_in}\n")
        f.write(f"  %y = linalg.matmul ins(%x, %w0 : {t_in}, tensor<{K}x{N}xf32>) outs(%z0 : {t_mid}) -> {t_mid} loc(\"f{i}.fc0\")\n")
        f.write(f"  %h = linalg.matmul ins(%y, %w1 : {t_mid}, tensor<{N}x{K}xf32>) outs(%z1 : {t_in}) -> {t_in} loc(\"f{i}.fc1\")\n")
        f.write(f"  %o = linalg.matmul ins(%h, %w0 : {t_in}, tensor<{K}x{N}xf32>) outs(%z0 : {t_mid}) -> {t_mid} loc(\"f{i}.fc2\")\n")
        f.write(f"  return %o : {t_mid}\n}}\n")
