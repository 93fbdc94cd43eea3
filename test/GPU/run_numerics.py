#!/usr/bin/env python3
"""Runs the functions of test/GPU/Inputs/numerics.mlir compiled for the GPU
against the same functions compiled for the CPU (the reference), on random
inputs, and compares the results.

  run_numerics.py --cpu libnumerics_cpu.so --gpu libnumerics_sm90a.so [...]

Both libraries come from octet-compile (bench/gpu/CMakeLists.txt builds
them); they are called through their C interface (_mlir_ciface_NAME, memref
descriptors) with ctypes, so this needs only numpy, no MLIR. Comparisons:

  exact    the raw bits of every element are equal: integer accumulation,
           the simt kernel (sequential f32 sums in the CPU's order),
           element-wise ops and parameters;
  close    f32 sums whose order differs on the GPU (FP8 tensor cores, the
           split-K gemv): |gpu - cpu| <= 1e-2 * max|cpu| + 1e-6.

Integer matmuls are also checked against a numpy oracle (exact i32 sums and
the numerics contract's epilogue in float32), so a bug shared by both
libraries would still show. --self-test compares the CPU library with itself
and with the oracle (what CI can run without a GPU). Exit status 1 on any
mismatch.
"""

import argparse
import ctypes
import re
import sys

import numpy as np

# ---------------------------------------------------------------------------
# Signatures and memref descriptors
# ---------------------------------------------------------------------------

# Buffer dtype of each MLIR element type (as octet-compile's C header).
DTYPES = {
    "f32": np.float32, "f16": np.float16, "bf16": np.uint16,
    "i8": np.int8, "i4": np.int8, "i32": np.int32, "i64": np.int64,
    "f8E4M3FN": np.uint8, "f8E5M2": np.uint8,
}


def parse_type(t):
    """'tensor<?x256xi8>' -> ([None, 256], 'i8')."""
    m = re.fullmatch(r"tensor<(.*)>", t.strip())
    parts = m.group(1).split("x")
    elem = parts[-1]
    dims = [None if d == "?" else int(d) for d in parts[:-1]]
    return dims, elem


def split_types(text):
    text = text.strip()
    if text.startswith("("):
        text = text[1:-1]
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def signature(lib, name):
    sym = ctypes.c_char.in_dll(lib, "octet_signature_" + name)
    text = ctypes.cast(ctypes.addressof(sym), ctypes.c_char_p).value.decode()
    args, results = text.split("->")
    return ([parse_type(t) for t in split_types(args)],
            [parse_type(t) for t in split_types(results)])


_DESC = {}


def desc_type(rank):
    if rank not in _DESC:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank),
                       ("strides", ctypes.c_int64 * rank)]
        _DESC[rank] = type("Desc%d" % rank, (ctypes.Structure,),
                           {"_fields_": fields})
    return _DESC[rank]


def to_desc(a):
    d = desc_type(a.ndim)()
    d.allocated = d.aligned = a.ctypes.data
    d.offset = 0
    for i in range(a.ndim):
        d.sizes[i] = a.shape[i]
        d.strides[i] = a.strides[i] // a.itemsize
    return d


_LIBC = ctypes.CDLL(None)
_LIBC.free.argtypes = [ctypes.c_void_p]


def from_desc(d, rank, elem, free=None):
    dtype = np.dtype(DTYPES[elem])
    shape = tuple(d.sizes[i] for i in range(rank)) if rank else ()
    count = int(np.prod(shape)) if shape else 1
    base = d.aligned + d.offset * dtype.itemsize
    data = ctypes.string_at(base, count * dtype.itemsize) if count else b""
    out = np.frombuffer(data, dtype=dtype).reshape(shape).copy()
    if d.allocated:
        (free or _LIBC.free)(d.allocated)
    return out


def call(lib, name, arrays, entry=None, free=None):
    """Calls `name` (or the entry point `entry` with name's signature, e.g.
    name + "_device") on `arrays`; results are copied out and their buffers
    released with `free` (default: libc free)."""
    args_t, results_t = signature(lib, name)
    fn = getattr(lib, "_mlir_ciface_" + (entry or name))
    fn.restype = None
    descs = [to_desc(np.ascontiguousarray(a)) for a in arrays]
    if len(results_t) == 1:
        res = desc_type(len(results_t[0][0]))()
    else:
        res_t = type("Results", (ctypes.Structure,), {"_fields_": [
            ("r%d" % i, desc_type(len(dims))) for i, (dims, _) in
            enumerate(results_t)]})
        res = res_t()
    fn(ctypes.byref(res), *[ctypes.byref(d) for d in descs])
    if len(results_t) == 1:
        return [from_desc(res, len(results_t[0][0]), results_t[0][1], free)]
    return [from_desc(getattr(res, "r%d" % i), len(dims), elem, free)
            for i, (dims, elem) in enumerate(results_t)]

# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def fp8_codes(rng, shape, fmt):
    """Random finite FP8 codes of moderate magnitude."""
    codes = rng.integers(0, 256, size=shape, dtype=np.int64)
    exp_bits = 4 if fmt == "e4m3" else 5
    man_bits = 7 - exp_bits
    # Clear the top exponent bit so that values stay within |x| < 2^bias
    # (no NaN/inf codes, products and sums far from overflow).
    top = 1 << (man_bits + exp_bits - 1)
    codes &= ~top & 0xFF
    return codes.astype(np.uint8)


def gen(rng, kind, shape):
    if kind == "i8":
        return rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
    if kind == "u8":
        return rng.integers(0, 256, size=shape, dtype=np.int64).astype(np.uint8).view(np.int8)
    if kind == "i4":
        return rng.integers(-8, 8, size=shape, dtype=np.int64).astype(np.int8)
    if kind == "nf4":
        # Any of the 16 codes, one per byte (the high nibble 0).
        return rng.integers(0, 16, size=shape, dtype=np.int64).astype(np.int8)
    if kind == "u4":
        return rng.integers(0, 16, size=shape, dtype=np.int64).astype(np.int8)
    if kind in ("e4m3", "e5m2"):
        return fp8_codes(rng, shape, kind)
    if kind == "scale":
        return rng.uniform(1e-3, 1e-2, size=shape).astype(np.float32)
    if kind == "e8m0":
        # OCP MX scales: powers of two (what an e8m0 scheme's scales are).
        return np.ldexp(np.float32(1), rng.integers(-3, 4, size=shape)).astype(np.float32)
    if kind == "nvfp4_scale":
        # Two-level block scales (NVFP4, NF4-DQ): E4M3 values (1 + m/8) 2^e
        # times the scheme's global scale 0.5.
        m = rng.integers(0, 8, size=shape)
        e = rng.integers(-3, 4, size=shape)
        return (np.ldexp(1 + m / 8.0, e) * 0.5).astype(np.float32)
    if kind == "nvfp4_scale_q":
        # The same with the global scale 0.25.
        return (gen(rng, "nvfp4_scale", shape) * np.float32(0.5)).astype(np.float32)
    if kind == "scale_big":
        return rng.uniform(0.5, 2.0, size=shape).astype(np.float32)
    if kind == "out_scale":
        return rng.uniform(0.05, 0.2, size=shape).astype(np.float32)
    if kind == "zp_u8":
        return rng.integers(0, 256, size=shape).astype(np.int32)
    if kind == "zp_u4":
        return rng.integers(0, 16, size=shape).astype(np.int32)
    if kind in ("f32", "f16", "bf16"):
        x = rng.standard_normal(size=shape).astype(np.float32)
        if kind == "f16":
            return x.astype(np.float16)
        if kind == "bf16":
            return (x.view(np.uint32) >> 16).astype(np.uint16)
        return x
    if kind == "f32_specials":
        x = (rng.standard_normal(size=shape) * 300).astype(np.float32)
        flat = x.reshape(-1)
        specials = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 464,
                             465, -464, 1e-9, -1e-9, 448, 480], np.float32)
        flat[:len(specials)] = specials[:len(flat)]
        return x
    if kind == "bf16_specials":
        x = gen(rng, "f32_specials", shape)
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    raise ValueError(kind)


# name -> (argument kinds, compare mode, integer oracle or None)
CASES = {
    "i8_token_channel_bias_relu": (["i8", "i8", "scale", "scale", "f32"],
                                   "exact", "matmul"),
    "i8_aligned_bf16": (["i8", "i8", "scale", "scale"], "exact", None),
    "u8_asym_requant": (["u8", "i8", "scale", "zp_u8", "scale", "out_scale",
                         "zp_u8"], "exact", "matmul"),
    "i8_u8_rhs_zp": (["i8", "u8", "scale", "scale", "zp_u8"], "exact", None),
    "u8_const_weights": (["u8", "scale", "zp_u8", "scale"], "exact", None),
    "e4m3_bf16": (["e4m3", "e4m3", "scale_big", "scale_big"], "close", None),
    "e5m2_e4m3_f32": (["e5m2", "e4m3", "scale_big", "scale_big"], "close",
                      None),
    "w8a16_f16": (["f16", "i8", "scale"], "close", None),
    "w8a16_u8_zp_bf16": (["bf16", "u8", "scale", "zp_u8", "f32"], "close",
                         None),
    "w8_fp8_f32": (["f32", "e4m3", "scale_big"], "close", None),
    "w8a16_group": (["f16", "i8", "scale"], "close", None),
    "w8_mxfp8_bf16": (["f32", "e4m3", "e8m0"], "close", None),
    "w4_nf4_group": (["bf16", "nf4", "scale"], "close", None),
    "w4_nf4dq_group": (["bf16", "nf4", "nvfp4_scale"], "close", None),
    "w4_mxfp4_f16": (["f16", "f32", "e8m0"], "close", None),
    "w4_nvfp4_f32": (["f32", "f32", "nvfp4_scale"], "close", None),
    "w4a16_group": (["f16", "i4", "scale"], "close", None),
    "w4a16_const": (["f16", "scale"], "close", None),
    "w4_nf4_const": (["bf16", "scale"], "close", None),
    "w4_e2m1_const": (["f32", "e8m0"], "close", None),
    "w4_u4_zp_const": (["f16", "scale", "zp_u4"], "close", None),
    "i8_batched": (["i8", "i8", "scale", "scale"], "exact", None),
    "u8_block_asym": (["u8", "i8", "scale", "zp_u8", "scale"], "exact",
                      "matmul"),
    "e4m3_block": (["e4m3", "e4m3", "scale_big", "scale_big", "f32"], "close",
                   None),
    "mx_e4m3": (["e4m3", "e4m3", "e8m0", "e8m0"], "close", None),
    "mx_e4m3_x_e2m1": (["e4m3", "f32", "e8m0", "e8m0"], "close",
                       None),
    "mx_e2m1": (["f32", "f32", "e8m0", "e8m0"], "close", None),
    "nv_e2m1": (["f32", "f32", "nvfp4_scale", "nvfp4_scale_q", "f32"], "close",
                None),
    "quantize_i8_axis": (["f32_specials", "out_scale"], "exact", None),
    "quantize_e4m3": (["f32_specials", "scale_big"], "exact", None),
    "quantize_e5m2_bf16": (["bf16_specials", "scale_big"], "exact", None),
    "dequantize_u4_group": (["u4", "scale", "zp_u4"], "exact", None),
    "requantize_i8_u8": (["i8", "scale_big", "scale_big", "zp_u8"], "exact",
                         None),
    "params_token_i8": (["f32_specials"], "exact", None),
    "params_group_u8": (["f16"], "exact", None),
    "params_nf4dq": (["f32_specials"], "exact", None),
    "params_tensor_e4m3": (["f32"], "exact", None),
    "params_mx_e4m3": (["f32_specials"], "exact", None),
    "chain_host_between": (["f32", "i8", "scale"], "exact", None),
}

# ---------------------------------------------------------------------------
# The integer matmul oracle (numerics contract, independent of octet)
# ---------------------------------------------------------------------------


def oracle_matmul(name, args):
    f32 = np.float32
    if name == "i8_token_channel_bias_relu":
        x, w, sx, sw, b = args
        acc = (x.astype(np.int64) @ w.astype(np.int64)).astype(np.int32)
        s = (sx[:, None] * sw[None, :]).astype(f32)
        y = (acc.astype(f32) * s).astype(f32) + b[None, :]
        return [np.maximum(y, f32(0)).astype(f32)]
    if name == "u8_asym_requant":
        x, w, sx, zx, sw, so, zo = args
        a = x.view(np.uint8).astype(np.int64) - int(zx)
        acc = (a @ w.astype(np.int64)).astype(np.int32)
        y = acc.astype(f32) * (f32(sx) * sw[None, :]).astype(f32)
        q = np.rint((y / f32(so)).astype(f32)) + f32(zo)
        q = np.clip(np.nan_to_num(q, nan=f32(zo)), 0, 255)
        return [q.astype(np.int64).astype(np.uint8).view(np.int8)]
    if name == "u8_block_asym":
        # Block-wise: y = sum_g (float32(acc_g) * sx[m, g]) * sw[g, n].
        x, w, sx, zx, sw = args
        g = 64
        a = x.view(np.uint8).astype(np.int64) - np.repeat(zx, g, axis=1)
        y = np.zeros((x.shape[0], w.shape[1]), f32)
        for gi in range(x.shape[1] // g):
            sl = slice(gi * g, (gi + 1) * g)
            acc = (a[:, sl] @ w[sl].astype(np.int64)).astype(np.int32)
            y = (y + (acc.astype(f32) * sx[:, gi:gi + 1]).astype(f32)
                 * sw[gi:gi + 1, :]).astype(f32)
        return [y]
    raise KeyError(name)

# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def as_float(a, elem):
    if elem == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def compare(got, want, elem, mode):
    """Returns (number of mismatching elements, first index, detail)."""
    if got.shape != want.shape:
        return -1, None, "shape %s vs %s" % (got.shape, want.shape)
    got, want = np.atleast_1d(got), np.atleast_1d(want)
    if mode == "exact" or elem not in ("f32", "f16", "bf16"):
        g = got.view(np.uint8).reshape(got.shape + (-1,))
        w = want.view(np.uint8).reshape(want.shape + (-1,))
        bad = np.any(g != w, axis=-1)
        # Any NaN equals any NaN (payloads are not part of the contract for
        # matmul results).
        if elem in ("f32", "f16", "bf16"):
            bad &= ~(np.isnan(as_float(got, elem)) & np.isnan(as_float(want, elem)))
    else:
        gf, wf = as_float(got, elem), as_float(want, elem)
        tol = 1e-2 * float(np.max(np.abs(wf))) + 1e-6 if wf.size else 0
        bad = ~(np.abs(gf - wf) <= tol) & ~(np.isnan(gf) & np.isnan(wf))
    n = int(np.count_nonzero(bad))
    if not n:
        return 0, None, ""
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return n, idx, "got %r, want %r" % (got[idx], want[idx])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cpu", required=True, help="reference library (CPU)")
    p.add_argument("--gpu", action="append", default=[],
                   help="library to check (repeatable)")
    p.add_argument("--self-test", action="store_true",
                   help="check the CPU library against itself and the oracle")
    p.add_argument("--only", default="", help="comma-separated functions")
    p.add_argument("--rows", default="1,77,300",
                   help="values of the dynamic dimension")
    p.add_argument("--seed", type=int, default=1234)
    opts = p.parse_args()

    cpu = ctypes.CDLL(opts.cpu)
    targets = [(path, ctypes.CDLL(path)) for path in opts.gpu]
    if opts.self_test:
        targets.append((opts.cpu + " (self-test)", cpu))
    if not targets:
        p.error("nothing to check: give --gpu LIB or --self-test")
    only = set(filter(None, opts.only.split(",")))
    rows = [int(r) for r in opts.rows.split(",")]
    failures = checks = 0
    for name, (kinds, mode, oracle) in CASES.items():
        if only and name not in only:
            continue
        args_t, results_t = signature(cpu, name)
        before = failures
        for m in rows:
            rng = np.random.default_rng(opts.seed + m)
            args = [gen(rng, kind, tuple(m if d is None else d for d in dims))
                    for kind, (dims, _) in zip(kinds, args_t)]
            want = call(cpu, name, args)
            refs = [("cpu", want, mode)]
            if oracle:
                refs.append(("oracle", oracle_matmul(name, args), "exact"))
            for label, lib in targets:
                got = call(lib, name, args)
                for ref_name, ref, ref_mode in refs:
                    for i, (g, w) in enumerate(zip(got, ref)):
                        checks += 1
                        n, idx, detail = compare(g, w, results_t[i][1], ref_mode)
                        if n:
                            failures += 1
                            print("MISMATCH %s %s M=%d result %d vs %s: %s of "
                                  "%d elements differ, first at %s: %s"
                                  % (label, name, m, i, ref_name,
                                     n if n > 0 else "all", g.size, idx,
                                     detail))
        print("%-28s %-5s rows %s: %s" % (name, mode, opts.rows,
                                          "ok" if failures == before else
                                          "MISMATCHES (above)"))
        sys.stdout.flush()
    print("numerics: %d checks, %d failed" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
