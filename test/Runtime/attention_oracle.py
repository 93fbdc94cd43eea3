"""octet_cpu_attention_f32 (octet.attention's CPU kernel) against a float64
numpy attention of the same f32 inputs, for every form the CPU has (AVX-512,
AVX2 + FMA, scalar: OCTET_ATTENTION_ISA; on 1 and 3 threads), over shapes
that hit each tail (keys not a multiple of 32 or 16 or 8, rows not a
multiple of the 6-row tile, decode's streamed keys, one query head per
group, strided operands, Dh of 8 and 24 and 80, int8 and FP8 E4M3 K/V
codes with per-head or single scales), causal limits below 0, inside and
past N, and adversarial values (cancelling scores, large logits, a NaN key
or NaN code). The bound is the Bounds contract's for this op
(docs/numerics.md, "octet.attention"; octet_oracle.attention computes
it). Cases with integer scores (small integers, a power-of-two scale:
every score exact) drop the score term, so that the exp and the sums are
checked at their own size. The script exits 1 on any miss, printing the
worst case.

    python attention_oracle.py LIBOCTET_RUNTIME
"""

import ctypes
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import octet_oracle as o  # noqa: E402

SLOTS = 28
LAYOUT_TAG = 0x0C7E7A7702  # OCTET_ATTN_LAYOUT_TAG
F32, I8, F8E4M3FN = 0, 1, 2


def call(lib, q, k, v, pos, scale, kscales=None, vscales=None):
    """k / v: f32, or int8 / FP8 E4M3 (uint8) codes with f32 `kscales` /
    `vscales` (one per KV head, or one for all: stride 0)."""
    S, KV, G, Dh = q.shape
    N = k.shape[2]
    out = np.full((S, KV, G, Dh), 12345.0, np.float32)
    args = (ctypes.c_int64 * SLOTS)()
    args[0] = q.ctypes.data
    args[1] = k.ctypes.data
    args[2] = v.ctypes.data
    args[3] = pos.ctypes.data
    args[4] = out.ctypes.data
    args[5:10] = [S, KV, G, Dh, N]
    args[10:14] = [st // q.itemsize for st in q.strides]
    args[14:17] = [st // k.itemsize for st in k.strides]
    args[17:20] = [st // v.itemsize for st in v.strides]
    args[20] = int(np.array(scale, np.float32).view(np.uint32))
    for i, (x, sc) in enumerate(((k, kscales), (v, vscales))):
        args[21 + i] = {np.dtype(np.int8): I8,
                        np.dtype(np.uint8): F8E4M3FN}.get(x.dtype, F32)
        if sc is not None:
            args[23 + i] = sc.ctypes.data
            args[25 + i] = 1 if sc.size > 1 else 0
    args[27] = LAYOUT_TAG
    lib.octet_cpu_attention_f32(args)
    return out


def as_codes(x, rng, per_head, exact, fmt="i8"):
    """int8 (fmt i8) or FP8 E4M3 (f8, as uint8) codes and f32 scales (per KV
    head, axis 0, or one) for x, and the f32 values octet.dequantize gives
    them (decode(code) * scale in f32; ml_dtypes decodes E4M3)."""
    KV = x.shape[0]
    if exact:
        ints = np.clip(np.rint(x), -3, 3)
        codes = ints.astype(np.int8) if fmt == "i8" else \
            ints.astype(np.float32).astype(ml_dtypes.float8_e4m3fn).view(
                np.uint8)
        sc = np.full(KV if per_head else 1, 0.5, np.float32)
    else:
        if fmt == "i8":
            codes = rng.integers(-127, 128, x.shape).astype(np.int8)
        else:
            # Every code but the two NaNs (S.1111.111).
            codes = rng.integers(0, 256, x.shape).astype(np.uint8)
            codes[(codes & 0x7F) == 0x7F] = 0
        sc = rng.uniform(0.002, 0.05, KV if per_head else 1).astype(
            np.float32)
    b = sc.reshape((-1,) + (1,) * (x.ndim - 1))
    decoded = codes.astype(np.float32) if fmt == "i8" else \
        codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    return codes, sc, (decoded * b).astype(np.float32)


def strided(a, rng, axis):
    """`a` as a view with a padded `axis` (a non-unit stride elsewhere)."""
    shape = list(a.shape)
    shape[axis] += 3
    big = rng.standard_normal(shape).astype(np.float32)
    sl = [slice(None)] * a.ndim
    sl[axis] = slice(1, 1 + a.shape[axis])
    view = big[tuple(sl)]
    view[...] = a
    return view


def cases(rng):
    # (S, KV, G, Dh, N, positions, kind)
    yield 512 // 8, 3, 3, 64, 64, np.arange(64), "prefill"
    yield 37, 3, 3, 64, 37 + 100, np.arange(100, 137), "chunk after 100"
    yield 1, 3, 3, 64, 1000, np.array([999]), "decode at 1000"
    yield 1, 3, 3, 64, 1, np.array([0]), "decode at 0"
    yield 2, 3, 3, 64, 900, np.array([-1, 600]), "two positions, 900 keys"
    yield 1, 2, 4, 32, 1500, np.array([1499]), "decode, 1500 keys"
    yield 1, 2, 2, 16, 300, np.array([299]), "decode, Dh 16"
    yield 13, 2, 1, 16, 45, rng.integers(-3, 60, 13), "random limits"
    yield 7, 1, 4, 8, 9, rng.integers(-1, 12, 7), "Dh 8"
    yield 5, 2, 2, 24, 70, rng.integers(0, 80, 5), "Dh 24"
    yield 9, 1, 3, 80, 33, np.arange(24, 33), "Dh 80"
    yield 3, 1, 2, 64, 0, np.arange(3), "no keys"
    yield 6, 2, 3, 64, 48, np.full(6, -1), "no visible key"


def run_one(lib, rng, S, KV, G, Dh, N, pos, kind, adversarial, layout,
            codes="f32"):
    pos = np.asarray(pos, np.int32)
    q = rng.standard_normal((S, KV, G, Dh)).astype(np.float32)
    k = rng.standard_normal((KV, Dh, N)).astype(np.float32)
    v = rng.standard_normal((KV, N, Dh)).astype(np.float32)
    scale = np.float32(1.0 / np.sqrt(Dh))
    if adversarial == "exact":
        # Integer q and k, scale 1/4: exact scores over a wide range.
        q = rng.integers(-3, 4, q.shape).astype(np.float32)
        k = rng.integers(-3, 4, k.shape).astype(np.float32)
        scale = np.float32(0.25)
    elif adversarial == "large" and N:
        # Logits in the hundreds: exp's range, one key dominating.
        q *= 8
        k *= 8
    elif adversarial == "cancel" and N:
        # Values that cancel (+big, -big) and mixed magnitudes.
        v[:, ::2] *= 1e4
        v[:, 1::2] = -v[:, ::2][:, :v[:, 1::2].shape[1]] + \
            rng.standard_normal(v[:, 1::2].shape).astype(np.float32)
    if layout == "strided":
        q = strided(q, rng, 2)
        k = strided(k, rng, 1)
        v = strided(v, rng, 0)
    elif layout == "cache":
        # k and v as the KV cache's slices: rows of max_len + pad.
        kc = rng.standard_normal((KV, Dh, N + 40)).astype(np.float32)
        kc[:, :, :N] = k
        k = kc[:, :, :N]
        vc = rng.standard_normal((KV, N + 40, Dh)).astype(np.float32)
        vc[:, :N] = v
        v = vc[:, :N]
    kscales = vscales = None
    if codes != "f32":
        # An INT8 or FP8 KV cache: codes and per-head scales (one scale for
        # all heads in the dense layout); the reference sees their values.
        exact = adversarial == "exact"
        k8, kscales, kf = as_codes(np.ascontiguousarray(k), rng,
                                   layout != "dense", exact, codes)
        v8, vscales, vf = as_codes(np.ascontiguousarray(v), rng,
                                   layout != "dense", False, codes)
        if layout == "cache":
            kc = np.zeros((KV, Dh, N + 40), k8.dtype)
            kc[:, :, :N] = k8
            k8 = kc[:, :, :N]
            vc = np.zeros((KV, N + 40, Dh), v8.dtype)
            vc[:, :N] = v8
            v8 = vc[:, :N]
        got = call(lib, q, k8, v8, pos, scale, kscales, vscales)
        k, v = kf, vf
    else:
        got = call(lib, q, k, v, pos, scale)
    got = got.astype(np.float64)
    ref, tol = o.attention(q, k, v, pos, scale, adversarial == "exact")
    nan_ref = np.isnan(ref)
    bad = (np.isnan(got) != nan_ref) | (~nan_ref & ~(np.abs(got - ref) <= tol))
    return bad, got, ref, tol


def main():
    lib_path = sys.argv[1]
    if sys.argv[2:] == ["--bad-layout"]:
        lib = ctypes.CDLL(lib_path)
        args = (ctypes.c_int64 * SLOTS)()
        lib.octet_cpu_attention_f32(args)
        return 0
    if os.environ.get("OCTET_ATTENTION_ISA") is None:
        # One process per form: the ISA is read at each call, but run each
        # in its own environment so that a crash names the form.
        rc = 0
        # And on 3 threads (the pool's tasks: heads and position blocks).
        for isa, threads in (("best", "1"), ("avx2", "1"), ("scalar", "1"),
                             ("best", "3"), ("avx2", "3")):
            env = dict(os.environ, OCTET_ATTENTION_ISA=isa,
                       OCTET_NUM_THREADS=threads)
            rc |= subprocess.call([sys.executable, __file__, lib_path],
                                  env=env)
        # A call with another argument layout (a library from another
        # octet-compile) exits with status 70 and says so.
        res = subprocess.run([sys.executable, __file__, lib_path,
                              "--bad-layout"], capture_output=True, text=True)
        if res.returncode != 70 or "another argument layout" not in \
                res.stderr:
            print("FAIL bad layout: rc %d, stderr %r" % (res.returncode,
                                                         res.stderr))
            rc = 1
        if rc == 0:
            print("attention oracle: every form passed")
        return rc
    isa = os.environ["OCTET_ATTENTION_ISA"]
    if os.environ.get("OCTET_NUM_THREADS", "1") != "1":
        isa += ", 3 threads"
    lib = ctypes.CDLL(lib_path)
    lib.octet_cpu_attention_f32.argtypes = [ctypes.POINTER(ctypes.c_int64)]
    lib.octet_cpu_attention_f32.restype = None
    rng = np.random.default_rng(7)
    checks = fails = 0
    for S, KV, G, Dh, N, pos, kind in cases(rng):
        for adversarial in ("normal", "large", "cancel", "exact"):
            for layout, codes in (("dense", "f32"), ("strided", "f32"),
                                  ("cache", "f32"), ("dense", "i8"),
                                  ("cache", "i8"), ("cache", "f8")):
                bad, got, ref, tol = run_one(lib, rng, S, KV, G, Dh, N, pos,
                                             kind, adversarial, layout, codes)
                checks += got.size
                if bad.any():
                    fails += 1
                    i = tuple(np.argwhere(bad)[0])
                    print("FAIL %s %s %s %s %s (S=%d KV=%d G=%d Dh=%d "
                          "N=%d): %d of %d outputs out of bound; at %s got "
                          "%r ref %r tol %.3g"
                          % (isa, kind, adversarial, layout, codes, S, KV, G,
                             Dh, N, bad.sum(), bad.size, i, got[i], ref[i],
                             tol[i]))
    # A NaN key makes the rows that see it NaN, and only those: over 40
    # keys, and over 700 with the NaN among the last.
    q = rng.standard_normal((4, 1, 3, 64)).astype(np.float32)
    for n, d, j, pos in ((40, 5, 20, [10, 19, 20, 39]),
                         (700, 7, 650, [300, 649, 650, 699])):
        k = rng.standard_normal((1, 64, n)).astype(np.float32)
        v = rng.standard_normal((1, n, 64)).astype(np.float32)
        k[0, d, j] = np.nan
        got = call(lib, q, k, v, np.array(pos, np.int32), np.float32(0.125))
        nan_rows = np.isnan(got).all(axis=(1, 2, 3))
        if list(nan_rows) != [False, False, True, True] or \
                np.isnan(got[:2]).any():
            fails += 1
            print("FAIL %s NaN key of %d: rows NaN %s (want F F T T)"
                  % (isa, n, nan_rows))
    # An FP8 cache's NaN code (0x7F) the same way.
    k8 = np.zeros((1, 64, 40), np.uint8)
    v8 = np.full((1, 40, 64), 0x38, np.uint8)  # 1.0
    k8[0, 3, 20] = 0x7F
    pos = np.array([10, 19, 20, 39], np.int32)
    one = np.ones(1, np.float32)
    got = call(lib, q, k8, v8, pos, np.float32(0.125), one, one)
    nan_rows = np.isnan(got).all(axis=(1, 2, 3))
    if list(nan_rows) != [False, False, True, True] or \
            not np.all(np.abs(got[:2] - 1.0) <= 1e-5):
        fails += 1
        print("FAIL %s FP8 NaN code: rows NaN %s (want F F T T), others 1: "
              "%s" % (isa, nan_rows, np.unique(got[:2])))
    if fails:
        print("attention oracle (%s): %d cases failed" % (isa, fails))
        return 1
    print("attention oracle (%s): %d outputs within the bound" % (isa, checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
