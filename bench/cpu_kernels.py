#!/usr/bin/env python3
"""Octet's generated CPU kernels against oneDNN and OpenBLAS, one command.

    .venv/bin/python bench/cpu_kernels.py --build build [--quick]

Builds (into BUILD/bench-cpu/) the INT8 GEMM libraries with octet-compile
(constant per-channel weights, per-tensor activation scale, bias, ReLU, f32
out; M is dynamic so one library serves every M), a W8A32 decode GEMV
library (weights as an argument), and the C++ driver
bench/cpu_kernels_bench.cpp against oneDNN (libdnnl-dev) and OpenBLAS.
Then, for 1 and 2 threads, it prints GOPS and the ratios against the
baselines measured in the same run (the GEMMs in interleaved rounds with
their baseline; OpenBLAS with the newest kernels the CPU's flags allow
when OpenBLAS does not know the CPU):

  - INT8 GEMM M=N=K in {1024, 2048, 4096} and the LLM shapes M in {128, 512},
    N=4096, K in {4096, 14336}: octet vs oneDNN (default ISA, and with
    DNNL_MAX_CPU_ISA=AVX512_CORE_VNNI) vs OpenBLAS sgemm on the float model;
  - float activations, M,K,N in {1024^3, 128x4096x4096, 512x4096x4096},
    weights passed at run time: the f32 kernel (a float linalg.matmul) and
    the W8A32 weight-only kernel vs OpenBLAS sgemm, with the max error of
    each against f64 sums;
  - decode GEMV (M=1, K=4096, N=14336) over >= 2 GiB of rotated weights:
    octet GB/s vs a plain read loop over the same bytes vs OpenBLAS sgemv;
  - decode GEMV with constant weights (i4, NF4 per group of 64, MXFP4,
    NVFP4, which the kernels take as constants only, and E4M3 without NaN
    codes): 8 functions with their own constant weights (264-470 MB in all)
    called in turn, octet GB/s (codes and f32 scales read) vs the faster of
    a plain and a prefetching read loop over as many bytes, in interleaved
    rounds (at least 15), every timed pass starting from caches that hold
    none of its bytes;
  - decode attention (octet.attention's runtime kernel) over a SmolLM2-135M
    KV cache (30 layers, 3 KV heads x 3 query heads, head dim 64) in f32,
    int8 and FP8 E4M3, the query at position 250, 1000 and 2000: GB/s of
    keys and values read vs the same read loops over as many bytes, in
    interleaved rounds from evicted caches.

The machine (CPU model, flags) and the load average are printed first.
`--only gemv4` (or any of gemm, fgemm, gemv, gemv4, attention, comma-separated) runs
only those parts, `--formats i8,e4m3` only the constant-weight GEMV
formats whose names contain one of the strings; `--target avx2` compiles the octet libraries for that
level instead of the host's (the ymm kernels on an AVX-512 machine; kept
in BUILD/bench-cpu-avx2/).
"""

import argparse
import glob
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GEMM_SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
               (128, 4096, 4096), (512, 4096, 4096), (128, 14336, 4096),
               (512, 14336, 4096)]  # (M, K, N)
GEMV_SHAPE = (4096, 14336)  # (K, N)
# Decode attention: KV-cache element types and query positions.
ATTENTION_KINDS = ["f32", "i8", "e4m3"]
ATTENTION_POSITIONS = [250, 1000, 2000]
# Float activations (the f32 kernel of a float linalg.matmul and the W8A32
# weight-only kernel) against sgemm: (M, K, N).
FGEMM_SHAPES = [(1024, 1024, 1024), (128, 4096, 4096), (512, 4096, 4096)]
FGEMM_WEIGHTS = ("f32", "i8", "i4", "e4m3")


def weights(k, n):
    kk = np.arange(k, dtype=np.int64).reshape(-1, 1)
    nn = np.arange(n, dtype=np.int64).reshape(1, -1)
    return ((kk * 7 + nn * 13) % 255 - 127).astype(np.int8)


def hexdense(a):
    return 'dense<"0x%s">' % np.ascontiguousarray(a).tobytes().hex().upper()


def gemm_model(k, n):
    sw = (0.001 * (1 + np.arange(n) % 7)).astype(np.float32)
    bias = (0.01 * (np.arange(n) % 11 - 5)).astype(np.float32)
    return """func.func @main(%%x: tensor<?x%(k)dxi8>) -> tensor<?x%(n)dxf32> {
  %%w = arith.constant %(w)s : tensor<%(k)dx%(n)dxi8>
  %%sx = arith.constant dense<0.05> : tensor<f32>
  %%sw = arith.constant %(sw)s : tensor<%(n)dxf32>
  %%b = arith.constant %(b)s : tensor<%(n)dxf32>
  %%y = octet.matmul %%x, %%w lhs_scale(%%sx : tensor<f32>) lhs_scheme <i8>
         rhs_scale(%%sw : tensor<%(n)dxf32>) rhs_scheme <i8, per_axis(1)>
         bias(%%b : tensor<%(n)dxf32>) relu
         : tensor<?x%(k)dxi8>, tensor<%(k)dx%(n)dxi8> -> tensor<?x%(n)dxf32>
  return %%y : tensor<?x%(n)dxf32>
}
""" % dict(k=k, n=n, w=hexdense(weights(k, n)), sw=hexdense(sw),
           b=hexdense(bias))


# Decode GEMV weight formats (one byte per weight, passed at run time):
# name -> (storage type, scheme, scale shape as a function of (k, n)).
GEMV_FORMATS = {
    "i8 per-channel": ("i8", "<i8, per_axis(1)>", lambda k, n: (n,)),
    "e4m3 per-channel": ("f8E4M3FN", "<f8E4M3FN, per_axis(1)>",
                         lambda k, n: (n,)),
    "e4m3 per-group 32 (MXFP8-style)": (
        "f8E4M3FN", "<f8E4M3FN, per_group(0, 32)>",
        lambda k, n: (k // 32, n)),
}


# Decode GEMV with constant weights: the 4-bit formats, which the kernels
# take as constants only (packed two per byte at compile time), and E4M3:
# name -> (storage type, scheme, group size along K or 0 for per channel,
# scale value).
GEMV4_FORMATS = {
    "i4 per-group 64": ("i4", "<i4, per_group(0, 64)>", 64, 0.25),
    "nf4 per-group 64": ("i4", "<nf4, per_group(0, 64)>", 64, 0.25),
    "mxfp4 (e8m0 per 32)": ("f4E2M1FN", "<f4E2M1FN, per_group(0, 32), e8m0>",
                            32, 0.25),
    "nvfp4 (e4m3 per 16)": (
        "f4E2M1FN", "<f4E2M1FN, per_group(0, 16), e4m3(0.0009765625)>", 16,
        0.0009765625),  # block scales: E4M3 1.0 times the global scale
    # Constant E4M3 weights without NaN codes (what the quantizer writes):
    # the kernel's decode leaves the NaN select out.
    "e4m3 per-channel (constant)": (
        "f8E4M3FN", "<f8E4M3FN, per_axis(1)>", 0, 0.01),
    "mxfp8 (e4m3, e8m0 per 32, constant)": (
        "f8E4M3FN", "<f8E4M3FN, per_group(0, 32), e8m0>", 32, 0.015625),
    # W8A16 / W8A32: what an LLM's INT8 weight-only layers run at decode.
    "i8 per-channel (constant)": ("i8", "<i8, per_axis(1)>", 0, 0.01),
}
# 8 x 29-66 MB of codes + scales; the driver evicts the caches (reads
# twice the L3's bytes) before every timed pass, octet's and the read
# loop's: Emerald Rapids' 300 MB L3 holds most of 264 MB.
GEMV4_LAYERS = 8


def gemv4_model(path, k, n, fmt, layers):
    """Writes `layers` functions main0.. to `path`, each y = x W_l with its
    own constant K x N weights (random codes); returns the bytes of codes
    and scales one GEMV reads."""
    elt, scheme, g, sval = GEMV4_FORMATS[fmt]
    rng = np.random.default_rng(7)
    sshape = (k // g, n) if g else (n,)
    stype = "%dx%d" % (k // g, n) if g else "%d" % n
    with open(path, "w") as f:
        for l in range(layers):
            # Each layer its own scales (sval times 1/2, 1 or 2: still E8M0
            # and E4M3 values): identical constants are merged into one
            # (an L3-resident array every layer would share).
            sw = (sval * np.exp2(rng.integers(-1, 2, sshape))).astype(
                np.float32)
            codes = rng.integers(0, 256, k * n, dtype=np.uint8)
            if elt == "f8E4M3FN":
                codes[(codes & 0x7F) == 0x7F] = 0x38  # no NaN codes
            elif elt != "i8":
                codes &= 0x0F
            f.write(
                "func.func @main%(l)d(%%x: tensor<1x%(k)dxf32>) -> tensor<1x%(n)dxf32> {\n"
                "  %%w = arith.constant dense<\"0x%(w)s\"> : tensor<%(k)dx%(n)dx%(elt)s>\n"
                "  %%sw = arith.constant %(sw)s : tensor<%(st)sxf32>\n"
                "  %%y = octet.matmul %%x, %%w rhs_scale(%%sw : tensor<%(st)sxf32>)\n"
                "         rhs_scheme %(scheme)s\n"
                "         : tensor<1x%(k)dxf32>, tensor<%(k)dx%(n)dx%(elt)s> -> tensor<1x%(n)dxf32>\n"
                "  return %%y : tensor<1x%(n)dxf32>\n}\n" % dict(
                    l=l, k=k, n=n, elt=elt, w=codes.tobytes().hex().upper(),
                    sw=hexdense(sw), st=stype, scheme=scheme))
    return k * n // (1 if elt in ("f8E4M3FN", "i8") else 2) + sw.nbytes


def gemv_model(k, n, fmt="i8 per-channel"):
    elt, scheme, sshape = GEMV_FORMATS[fmt]
    shape = sshape(k, n)
    sw = (0.001 * (1 + np.arange(int(np.prod(shape))) % 7)).astype(
        np.float32).reshape(shape)
    stype = "x".join(str(d) for d in shape)
    return """func.func @main(%%x: tensor<1x%(k)dxf32>, %%w: tensor<%(k)dx%(n)dx%(elt)s>) -> tensor<1x%(n)dxf32> {
  %%sw = arith.constant %(sw)s : tensor<%(stype)sxf32>
  %%y = octet.matmul %%x, %%w rhs_scale(%%sw : tensor<%(stype)sxf32>)
         rhs_scheme %(scheme)s
         : tensor<1x%(k)dxf32>, tensor<%(k)dx%(n)dx%(elt)s> -> tensor<1x%(n)dxf32>
  return %%y : tensor<1x%(n)dxf32>
}
""" % dict(k=k, n=n, sw=hexdense(sw), elt=elt, scheme=scheme, stype=stype)


FGEMM_GROUP4 = 128  # the i4 weights' group along K (kGroup4 in the driver)


def fgemm_model(k, n, weights):
    """Float activations: a float linalg.matmul (f32 weights passed at run
    time), a W8A32 octet.matmul (i8 weights passed at run time, per-channel
    scales) or a W4A32 one (constant i4 weights, f32 scales per group of
    128 along K: the 4-bit kernels take constant weights only), and FP8
    W8A8 (E4M3 activation codes and constant E4M3 weights, the model the
    w8a8-fp8 recipe makes; not float activations, but the product the float
    GEMM is replaced by). The i4 and E4M3 codes and scales come from the
    generators the driver uses (weightCode4, weightScale4, weightCodeE4m3,
    weightScale)."""
    if weights == "i4":
        kk, nn = np.meshgrid(np.arange(k, dtype=np.int64),
                             np.arange(n, dtype=np.int64), indexing="ij")
        codes = ((kk * 7 + nn * 13) % 16 - 8).astype(np.uint8) & 0x0F
        gg, nn = np.meshgrid(np.arange(k // FGEMM_GROUP4, dtype=np.int64),
                             np.arange(n, dtype=np.int64), indexing="ij")
        sw = (0.001 * (1 + (gg * 3 + nn) % 7)).astype(np.float32)
        return """func.func @main(%%x: tensor<?x%(k)dxf32>) -> tensor<?x%(n)dxf32> {
  %%w = arith.constant dense<"0x%(w)s"> : tensor<%(k)dx%(n)dxi4>
  %%sw = arith.constant %(sw)s : tensor<%(kg)dx%(n)dxf32>
  %%y = octet.matmul %%x, %%w rhs_scale(%%sw : tensor<%(kg)dx%(n)dxf32>)
         rhs_scheme <i4, per_group(0, %(g)d)>
         : tensor<?x%(k)dxf32>, tensor<%(k)dx%(n)dxi4> -> tensor<?x%(n)dxf32>
  return %%y : tensor<?x%(n)dxf32>
}
""" % dict(k=k, n=n, kg=k // FGEMM_GROUP4, g=FGEMM_GROUP4,
           w=codes.tobytes().hex().upper(), sw=hexdense(sw))
    if weights == "e4m3":
        # FP8 W8A8 (the w8a8-fp8 recipe): E4M3 activation codes with a
        # scale per row (per token), constant E4M3 weights with per-channel
        # scales (weightCodeE4m3 and weightScale of the driver).
        kk, nn = np.meshgrid(np.arange(k, dtype=np.int64),
                             np.arange(n, dtype=np.int64), indexing="ij")
        codes = (((kk * 7 + nn * 13) % 0x7E) |
                 (((kk + nn) & 1) << 7)).astype(np.uint8)
        sw = (0.001 * (1 + np.arange(n) % 7)).astype(np.float32)
        return """func.func @main(%%x: tensor<?x%(k)dxf8E4M3FN>, %%sx: tensor<?xf32>) -> tensor<?x%(n)dxf32> {
  %%w = arith.constant dense<"0x%(w)s"> : tensor<%(k)dx%(n)dxf8E4M3FN>
  %%sw = arith.constant %(sw)s : tensor<%(n)dxf32>
  %%y = octet.matmul %%x, %%w lhs_scale(%%sx : tensor<?xf32>)
         lhs_scheme <f8E4M3FN, per_axis(0)>
         rhs_scale(%%sw : tensor<%(n)dxf32>) rhs_scheme <f8E4M3FN, per_axis(1)>
         : tensor<?x%(k)dxf8E4M3FN>, tensor<%(k)dx%(n)dxf8E4M3FN> -> tensor<?x%(n)dxf32>
  return %%y : tensor<?x%(n)dxf32>
}
""" % dict(k=k, n=n, w=codes.tobytes().hex().upper(), sw=hexdense(sw))
    if weights == "f32":
        return """func.func @main(%%x: tensor<?x%(k)dxf32>, %%w: tensor<%(k)dx%(n)dxf32>) -> tensor<?x%(n)dxf32> {
  %%c0 = arith.constant 0 : index
  %%m = tensor.dim %%x, %%c0 : tensor<?x%(k)dxf32>
  %%z = arith.constant 0.0 : f32
  %%e = tensor.empty(%%m) : tensor<?x%(n)dxf32>
  %%i = linalg.fill ins(%%z : f32) outs(%%e : tensor<?x%(n)dxf32>) -> tensor<?x%(n)dxf32>
  %%y = linalg.matmul ins(%%x, %%w : tensor<?x%(k)dxf32>, tensor<%(k)dx%(n)dxf32>) outs(%%i : tensor<?x%(n)dxf32>) -> tensor<?x%(n)dxf32>
  return %%y : tensor<?x%(n)dxf32>
}
""" % dict(k=k, n=n)
    sw = (0.001 * (1 + np.arange(n) % 7)).astype(np.float32)
    return """func.func @main(%%x: tensor<?x%(k)dxf32>, %%w: tensor<%(k)dx%(n)dxi8>) -> tensor<?x%(n)dxf32> {
  %%sw = arith.constant %(sw)s : tensor<%(n)dxf32>
  %%y = octet.matmul %%x, %%w rhs_scale(%%sw : tensor<%(n)dxf32>)
         rhs_scheme <i8, per_axis(1)>
         : tensor<?x%(k)dxf32>, tensor<%(k)dx%(n)dxi8> -> tensor<?x%(n)dxf32>
  return %%y : tensor<?x%(n)dxf32>
}
""" % dict(k=k, n=n, sw=hexdense(sw))


def run(cmd, env=None, **kw):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd),
                                                 r.stderr[-4000:]))
    return r.stdout


def machine():
    model, flags = "?", []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1].split()
    keep = [f for f in flags if f.startswith(("avx", "amx", "fma", "f16c"))]
    return model, keep


def openblas_core(flags):
    """OpenBLAS's kernel choice for this CPU, and the OPENBLAS_CORETYPE the
    baseline runs with. OpenBLAS 0.3.21 (Debian 12) does not know CPUs
    newer than it (Emerald Rapids, model 207, reads as "Prescott": SSE3
    kernels, ~30 GFLOP/s per core), which would make every sgemm ratio
    meaningless; then the newest kernel family the flags allow is named.
    AVX-512 CPUs it reads as another family get the SkylakeX kernels too:
    it takes Zen 5 for Haswell (AVX2 kernels), and on Zen 5 SkylakeX's
    sgemm runs at 221 GFLOP/s on one core at 1024^3 against Haswell's 130.
    A user's own OPENBLAS_CORETYPE is kept."""
    import ctypes
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        core = lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "?", None
    if os.environ.get("OPENBLAS_CORETYPE"):
        return core, os.environ["OPENBLAS_CORETYPE"]
    avx512 = ("skylakex", "cooperlake", "sapphirerapids")
    if "avx512f" in flags and core.lower() not in avx512:
        return core, "SkylakeX"
    if core.lower() in ("prescott", "core2", "nehalem", "unknown"):
        if "avx2" in flags:
            return core, "Haswell"
    return core, None


def parse(line):
    parts = line.split()[1:]  # the mode, then key value pairs
    return {parts[i]: parts[i + 1] for i in range(0, len(parts) - 1, 2)}


def stale(lib, bindir):
    """Whether `lib` is missing or older than the compiler or runtime that
    built it (a rebuilt octet must not be measured with old kernels)."""
    if not os.path.exists(lib):
        return True
    deps = [os.path.join(bindir, "octet-compile")] + glob.glob(
        os.path.join(bindir, "..", "lib", "liboctet_runtime*"))
    return any(os.path.getmtime(d) > os.path.getmtime(lib) for d in deps
               if os.path.exists(d))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--quick", action="store_true",
                    help="only the 1024^3 GEMM, a 0.5 GiB GEMV and 2 "
                    "constant layers per constant-weight GEMV")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--gib", type=float, default=2.0)
    ap.add_argument("--target", default="host",
                    help="octet-compile --target of the octet libraries (e.g. "
                    "avx2 for the ymm kernels on an AVX-512 machine)")
    ap.add_argument("--formats", default="",
                    help="comma-separated substrings: only the constant-weight "
                    "GEMV formats (gemv4) whose name contains one")
    ap.add_argument("--only", default="gemm,fgemm,gemv,gemv4,attention",
                    help="comma-separated parts to run: gemm (INT8), fgemm "
                    "(float activations), gemv (weights an argument), gemv4 "
                    "(constant weights: 4-bit and E4M3), attention (decode "
                    "over a KV cache)")
    args = ap.parse_args()
    parts = set(args.only.split(","))
    unknown = parts - {"gemm", "fgemm", "gemv", "gemv4", "attention"}
    if unknown:
        ap.error("unknown part(s) in --only: %s" % ", ".join(sorted(unknown)))
    bindir = os.path.join(args.build, "bin")
    # Libraries are kept per target; the INT8 GEMM ones are reused while
    # they are newer than octet-compile and the runtime.
    target = "--target=" + args.target
    work = os.path.join(args.build, "bench-cpu" + (
        "" if args.target == "host" else "-" + args.target))
    os.makedirs(work, exist_ok=True)
    shapes = GEMM_SHAPES[:1] if args.quick else GEMM_SHAPES
    shapes = shapes if "gemm" in parts else []
    fshapes = FGEMM_SHAPES[:1] if args.quick else FGEMM_SHAPES
    fshapes = fshapes if "fgemm" in parts else []
    gib = 0.5 if args.quick else args.gib

    model, flags = machine()
    print("machine: %s, %d CPUs, flags: %s" % (model, os.cpu_count(),
                                               " ".join(flags)))
    print("octet libraries compiled with %s" % target)
    core, coretype = openblas_core(flags)
    if coretype and not os.environ.get("OPENBLAS_CORETYPE"):
        print("OpenBLAS picks its %s kernels on this CPU (it predates it): "
              "the baseline runs with OPENBLAS_CORETYPE=%s" % (core, coretype))
    elif os.environ.get("OPENBLAS_CORETYPE"):
        print("OpenBLAS kernels: %s (OPENBLAS_CORETYPE from the environment)"
              % coretype)
        if "avx512f" in flags and coretype.lower() not in (
                "skylakex", "cooperlake", "sapphirerapids"):
            print("note: this CPU has AVX-512 and the baseline runs OpenBLAS's "
                  "%s kernels; unset OPENBLAS_CORETYPE for SkylakeX's (1.7x "
                  "faster sgemm on Zen 5)" % coretype)
    else:
        print("OpenBLAS kernels: %s" % (coretype or core))
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())

    # The driver.
    driver = os.path.join(work, "cpu_kernels_bench")
    run(["clang++", "-O2", "-std=c++17", "-march=native", "-ffp-contract=off",
         os.path.join(ROOT, "bench", "cpu_kernels_bench.cpp"),
         "-I" + os.path.join(ROOT, "runtime", "include"),
         "-I/usr/include/x86_64-linux-gnu/openblas-pthread",
         "-o", driver, "-ldnnl", "-lopenblas", "-ldl", "-lpthread"])

    # The libraries (one per weight shape; M is dynamic).
    libs = {}
    for (_, k, n) in shapes:
        if (k, n) in libs:
            continue
        src = os.path.join(work, "gemm_%dx%d.mlir" % (k, n))
        lib = os.path.join(work, "libgemm_%dx%d.so" % (k, n))
        if stale(lib, bindir):
            with open(src, "w") as f:
                f.write(gemm_model(k, n))
            t0 = time.time()
            run([os.path.join(bindir, "octet-compile"), src, target,
                 "--into-entries", "-o", lib])
            print("compiled %s in %.1f s" % (os.path.basename(lib),
                                             time.time() - t0))
        libs[(k, n)] = lib
    k, n = GEMV_SHAPE
    gemv_libs = {}
    for i, fmt in enumerate(GEMV_FORMATS if "gemv" in parts else []):
        gemv_libs[fmt] = os.path.join(work, "libgemv%d_%dx%d.so" % (i, k, n))
        src = os.path.join(work, "gemv%d_%dx%d.mlir" % (i, k, n))
        with open(src, "w") as f:
            f.write(gemv_model(k, n, fmt))
        run([os.path.join(bindir, "octet-compile"), src, target,
             "-o", gemv_libs[fmt]])

    # Constant-weight GEMV libraries: the .mlir (hex text, 0.5-1 GB) is
    # removed once compiled.
    gemv4_libs = {}
    layers4 = 2 if args.quick else GEMV4_LAYERS
    for i, fmt in enumerate(GEMV4_FORMATS if "gemv4" in parts else []):
        if args.formats and not any(f in fmt for f in args.formats.split(",")):
            continue
        src = os.path.join(work, "gemv4_%d.mlir" % i)
        lib = os.path.join(work, "libgemv4_%d_%dx%d.so" % (i, k, n))
        t0 = time.time()
        wbytes = gemv4_model(src, k, n, fmt, layers4)
        run([os.path.join(bindir, "octet-compile"), src, target,
             "-o", lib])
        os.remove(src)
        print("compiled %s (%s, %d x %.1f MB of weights) in %.1f s" % (
            os.path.basename(lib), fmt, layers4, wbytes / 1e6,
            time.time() - t0))
        gemv4_libs[fmt] = (lib, wbytes)

    flibs = {}
    for (_, k, n) in fshapes:
        for wt in FGEMM_WEIGHTS:
            if (k, n, wt) in flibs:
                continue
            src = os.path.join(work, "fgemm_%s_%dx%d.mlir" % (wt, k, n))
            lib = os.path.join(work, "libfgemm_%s_%dx%d.so" % (wt, k, n))
            with open(src, "w") as f:
                f.write(fgemm_model(k, n, wt))
            run([os.path.join(bindir, "octet-compile"), src, target,
                 "-o", lib])
            if wt in ("i4", "e4m3"):
                os.remove(src)  # 32 MB of hex text for 4096 x 4096
            flibs[(k, n, wt)] = lib

    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        # The driver runs octet, oneDNN and OpenBLAS in one process. Idle
        # OpenBLAS threads spin (yielding) for ~2^28 cycles after they start
        # or finish a call, and libgomp's (oneDNN) for a while too: in the
        # same process that took a core from whatever ran next (octet's
        # 2-thread GEMMs measured at 1-thread speed in most runs). Idle
        # threads of the baselines sleep at once instead; their own calls
        # take milliseconds, so waking costs them nothing measurable.
        env = dict(os.environ, OCTET_NUM_THREADS=str(threads),
                   OMP_NUM_THREADS=str(threads),
                   OPENBLAS_NUM_THREADS=str(threads),
                   OPENBLAS_THREAD_TIMEOUT="4", OMP_WAIT_POLICY="PASSIVE")
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
        print("\n== %d thread%s" % (threads, "s" if threads > 1 else ""))
        if shapes:
            # octet: the main_into entry, writing into the caller's buffer
            # as oneDNN writes into its dst (the ratios); alloc: the entry
            # that returns a buffer it allocates per call.
            print("%-22s %10s %10s %10s %10s %10s %8s %8s %8s  %s" % (
                "INT8 GEMM M,K,N", "octet", "alloc", "oneDNN", "oneDNN-V",
                "sgemm", "x oneDNN", "x best", "x sgemm", "oneDNN impl"))
        for (m, k, n) in shapes:
            out = parse(run([driver, "gemm", libs[(k, n)], str(m), str(k),
                             str(n), str(args.reps)], env=env))
            vnni_env = dict(env, DNNL_MAX_CPU_ISA="AVX512_CORE_VNNI")
            outv = parse(run([driver, "gemm", libs[(k, n)], str(m), str(k),
                              str(n), str(args.reps)], env=vnni_env))
            o, d, dv, s = (float(out["octet_gops"]), float(out["onednn_gops"]),
                           float(outv["onednn_gops"]),
                           float(out["openblas_gops"]))
            oa = float(out["octet_alloc_gops"])
            best = max(d, dv)
            differ = int(out["entries_differ"]) + int(outv["entries_differ"])
            print("%-22s %10.1f %10.1f %10.1f %10.1f %10.1f %8.2f %8.2f %8.2f"
                  "  %s  exact: octet %d/4096 wrong, oneDNN %s/4096 wrong "
                  "(max rel. err %.1e)%s" % (
                      "%d,%d,%d" % (m, k, n), o, oa, d, dv, s, o / d,
                      o / best, o / s, out["onednn_impl"],
                      int(out["octet_wrong"]), out["onednn_wrong"],
                      float(out["onednn_max_rel"]),
                      "" if differ == 0 else
                      "  ENTRIES DIFFER: %d outputs of main and main_into"
                      % differ))
            rows.append(("gemm", threads, m, k, n, o, d, dv, s))
        if fshapes:
            # "x f32": the weight-only kernels against octet's own f32
            # kernel of the same shape, measured just before.
            print("%-22s %8s %10s %10s %8s %8s  %s" % (
                "float acts M,K,N", "weights", "octet", "sgemm", "x sgemm",
                "x f32", "max rel. error vs f64 (octet / sgemm)"))
        for (m, k, n) in fshapes:
            of32 = None
            for wt in FGEMM_WEIGHTS:
                out = parse(run([driver, "fgemm", flibs[(k, n, wt)], str(m),
                                 str(k), str(n), str(args.reps), wt],
                                env=env))
                o, s = float(out["octet_gflops"]), float(out["openblas_gflops"])
                of32 = o if wt == "f32" else of32
                print("%-22s %8s %10.1f %10.1f %8.2f %8s  %s / %s" % (
                    "%d,%d,%d" % (m, k, n), wt, o, s, o / s,
                    "%.2f" % (o / of32) if wt != "f32" else "",
                    out["octet_max_rel"], out["openblas_max_rel"]))
                rows.append(("fgemm-" + wt, threads, m, k, n, o, s, 0, 0))
        k, n = GEMV_SHAPE
        for fmt, gemv_lib in gemv_libs.items():
            out = parse(run([driver, "gemv", gemv_lib, str(k), str(n),
                             str(gib), str(args.reps)], env=env))
            o, r, b = (float(out["octet_gbs"]), float(out["read_gbs"]),
                       float(out["openblas_gbs"]))
            print("decode GEMV %s K=%d N=%d over %s copies (%.1f GiB): "
                  "octet %.2f GB/s (%.3f ms) = %.0f%% of read %.2f GB/s; "
                  "OpenBLAS sgemv %.2f GB/s (%.3f ms), octet %.2fx faster "
                  "per GEMV" % (
                      fmt, k, n, out["copies"], gib, o,
                      float(out["octet_ms"]), 100 * o / r, r, b,
                      float(out["openblas_ms"]),
                      float(out["openblas_ms"]) / float(out["octet_ms"])))
            rows.append(("gemv " + fmt, threads, 1, k, n, o, r, b, 0))
        if gemv4_libs:
            print("constant weights: medians of rounds interleaved with the "
                  "read loop; the ratio is the median of each round's")
        for fmt, (gemv_lib, wbytes) in gemv4_libs.items():
            out = parse(run([driver, "gemvc", gemv_lib, str(k), str(n),
                             str(layers4), str(wbytes), str(args.reps)],
                            env=env))
            o, r = float(out["octet_gbs"]), float(out["read_gbs"])
            print("decode GEMV %s K=%d N=%d, %d constant layers (%.0f MB): "
                  "octet %.2f GB/s (%.3f ms) = %.0f%% of read %.2f GB/s" % (
                      fmt, k, n, layers4, layers4 * wbytes / 1e6, o,
                      float(out["octet_ms"]), 100 * float(out["ratio"]), r))
            rows.append(("gemv4 " + fmt, threads, 1, k, n, o, r, 0, 0))
        if threads == 1 and (gemv_libs or gemv4_libs):
            c = float(parse(run([driver, "ceiling", "9"], env=env))["gbs"])
            # Without overlap between the loads and this work a kernel runs
            # at 1 / (1 / ceiling + 1 / read).
            print("W8A32 decode loop (the kernel's 16-row FMA blocks) with "
                  "weights in L2 (compute ceiling of one core): %.2f GB/s = "
                  "%.0f%% of the read loop; with no overlap of loads and "
                  "work: %.0f%%" % (c, 100 * c / r, 100 * c / (c + r)))
        if "attention" in parts:
            runtime = os.path.join(args.build, "lib", "liboctet_runtime.so")
            for kind in ATTENTION_KINDS:
                for p in ATTENTION_POSITIONS[1:2] if args.quick else \
                        ATTENTION_POSITIONS:
                    out = parse(run([driver, "attention", runtime, str(p),
                                     kind, str(args.reps)], env=env))
                    o, r = float(out["octet_gbs"]), float(out["read_gbs"])
                    print("decode attention, SmolLM2 KV cache (30 layers) "
                          "in %s, position %d: octet %.2f GB/s (%.3f ms) = "
                          "%.0f%% of read %.2f GB/s" % (
                              kind, p, o, float(out["octet_ms"]),
                              100 * float(out["ratio"]), r))
                    rows.append(("attention " + kind, threads, 1, p, 0, o, r,
                                 0, 0))
    print("\nload average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
