#!/usr/bin/env python3
"""Checks liboctet_runtime's numerics against independent oracles.

Usage: numerics_oracle.py path/to/liboctet_runtime.so

The library is loaded with ctypes and every C ABI entry point that applies a
Numerics.h rule is compared, bit for bit, with an oracle that does not share
its code:

  (a) FP8 decode of all 256 codes         vs ml_dtypes
  (b) non-saturating FP8 encode           vs ml_dtypes astype (float32 -> fp8)
  (c) saturating FP8 encode               vs clip to +-max finite, then
                                             ml_dtypes (NaN checked apart)
  (d) integer quantize / dequantize       vs numpy float32 arithmetic
      and round-half-even                 vs np.rint
  (e) symmetric/asymmetric parameters,    vs numpy implementations of
      SQNR, nibble packing                   DESIGN.md's formulas

Prints one line per check and a summary, and exits 1 on any mismatch (2 on a
usage or loading error).
"""

import ctypes
import sys

try:
    import ml_dtypes
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"error: {sys.executable} lacks numpy or ml_dtypes ({e}); run this "
          f"script with a Python that has both", file=sys.stderr)
    sys.exit(2)

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
FLT_MIN = F32(np.finfo(np.float32).tiny)  # smallest normal, 2^-126

# Values of the `format` argument (OctetRuntime.h).
FP8_FORMATS = {
    "E4M3FN": (0, ml_dtypes.float8_e4m3fn),
    "E5M2": (1, ml_dtypes.float8_e5m2),
}
STORAGE = {"I8": 0, "U8": 1, "I4": 2, "U4": 3, "F8E4M3FN": 4, "F8E5M2": 5,
           "F4E2M1FN": 6, "NF4": 7}


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def load(path):
    lib = ctypes.CDLL(path)
    P, I64, I32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    F, D = ctypes.c_float, ctypes.c_double
    signatures = {
        "octet_runtime_abi_version": (I32, []),
        "octet_quantize_int": (None, [P, I64, F, I32, I32, I32, P]),
        "octet_dequantize_int": (None, [P, I64, F, I32, P]),
        "octet_encode_fp8": (None, [P, I64, I32, I32, P]),
        "octet_decode_fp8": (None, [P, I64, I32, P]),
        "octet_quantize_fp8": (None, [P, I64, F, I32, I32, P]),
        "octet_round_half_even": (None, [P, I64, P]),
        "octet_symmetric_params": (None, [F, I32, I32, I32, P, P]),
        "octet_asymmetric_params": (None, [F, F, I32, I32, P, P]),
        "octet_sqnr_db": (D, [P, P, I64]),
        "octet_pack_nibbles": (None, [P, I64, P]),
        "octet_unpack_nibbles": (None, [P, I64, I32, P]),
        "octet_now_seconds": (D, []),
    }
    for name, (res, args) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


def ptr(a):
    assert a.flags["C_CONTIGUOUS"]
    return a.ctypes.data


class Runtime:
    """numpy-array wrappers around the C ABI."""

    def __init__(self, lib):
        self.lib = lib

    def encode_fp8(self, x, fmt, saturate):
        x = np.ascontiguousarray(x, dtype=F32)
        out = np.empty(x.size, dtype=np.uint8)
        self.lib.octet_encode_fp8(ptr(x), x.size, fmt, int(saturate), ptr(out))
        return out

    def decode_fp8(self, q, fmt):
        q = np.ascontiguousarray(q, dtype=np.uint8)
        out = np.empty(q.size, dtype=F32)
        self.lib.octet_decode_fp8(ptr(q), q.size, fmt, ptr(out))
        return out

    def quantize_fp8(self, x, scale, fmt, saturate):
        x = np.ascontiguousarray(x, dtype=F32)
        out = np.empty(x.size, dtype=np.uint8)
        self.lib.octet_quantize_fp8(
            ptr(x), x.size, float(scale), fmt, int(saturate), ptr(out)
        )
        return out

    def quantize_int(self, x, scale, zp, qmin, qmax):
        x = np.ascontiguousarray(x, dtype=F32)
        out = np.empty(x.size, dtype=np.int32)
        self.lib.octet_quantize_int(
            ptr(x), x.size, float(scale), zp, qmin, qmax, ptr(out)
        )
        return out

    def dequantize_int(self, q, scale, zp):
        q = np.ascontiguousarray(q, dtype=np.int32)
        out = np.empty(q.size, dtype=F32)
        self.lib.octet_dequantize_int(ptr(q), q.size, float(scale), zp,
                                      ptr(out))
        return out

    def round_half_even(self, x):
        x = np.ascontiguousarray(x, dtype=F32)
        out = np.empty(x.size, dtype=F32)
        self.lib.octet_round_half_even(ptr(x), x.size, ptr(out))
        return out

    def symmetric_params(self, absmax, fmt, qmin, qmax):
        scale = np.zeros(1, dtype=F32)
        zp = np.zeros(1, dtype=np.int32)
        self.lib.octet_symmetric_params(float(absmax), fmt, qmin, qmax,
                                        ptr(scale), ptr(zp))
        return scale[0], int(zp[0])

    def asymmetric_params(self, lo, hi, qmin, qmax):
        scale = np.zeros(1, dtype=F32)
        zp = np.zeros(1, dtype=np.int32)
        self.lib.octet_asymmetric_params(float(lo), float(hi), qmin, qmax,
                                         ptr(scale), ptr(zp))
        return scale[0], int(zp[0])

    def sqnr_db(self, x, xhat):
        x = np.ascontiguousarray(x, dtype=F32)
        xhat = np.ascontiguousarray(xhat, dtype=F32)
        return self.lib.octet_sqnr_db(ptr(x), ptr(xhat), x.size)

    def pack_nibbles(self, codes):
        codes = np.ascontiguousarray(codes, dtype=np.int8)
        out = np.empty((codes.size + 1) // 2, dtype=np.uint8)
        self.lib.octet_pack_nibbles(ptr(codes), codes.size, ptr(out))
        return out

    def unpack_nibbles(self, packed, n, is_signed):
        packed = np.ascontiguousarray(packed, dtype=np.uint8)
        out = np.empty(n, dtype=np.int8)
        self.lib.octet_unpack_nibbles(ptr(packed), n, int(is_signed), ptr(out))
        return out


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


class Report:
    def __init__(self):
        self.checks = 0
        self.failed = 0
        self.values = 0

    def check(self, name, ok_mask, inputs, got, want, show=None):
        """Records a check over arrays; `ok_mask` is True where they agree."""
        ok_mask = np.asarray(ok_mask, dtype=bool)
        self.checks += 1
        self.values += ok_mask.size
        bad = np.flatnonzero(~ok_mask)
        if bad.size == 0:
            print(f"PASS {name} ({ok_mask.size} values)")
            return
        self.failed += 1
        print(f"FAIL {name}: {bad.size} of {ok_mask.size} values differ")
        show = show or (lambda v: repr(v))
        for i in bad[:8]:
            print(f"    input {show(inputs[i])}: got {got[i]!r}, "
                  f"want {want[i]!r}")

    def scalar(self, name, ok, detail=""):
        self.checks += 1
        self.values += 1
        if ok:
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {detail}")


def show_f32(v):
    v = F32(v)
    return f"{float(v)!r} (0x{int(np.array(v).view(np.uint32)):08x})"


def bits(x):
    return np.ascontiguousarray(x, dtype=F32).view(np.uint32)


def f32_from_bits(u):
    return np.asarray(u, dtype=np.uint32).view(F32)


def same_float(a, b):
    """Bit equality, except that any NaN equals any NaN of the same sign."""
    a = np.asarray(a, dtype=F32)
    b = np.asarray(b, dtype=F32)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    same_sign = np.signbit(a) == np.signbit(b)
    return np.where(nan_a | nan_b, nan_a & nan_b & same_sign,
                    bits(a) == bits(b))


RNG = np.random.default_rng(20240611)


def random_bits(n):
    return f32_from_bits(RNG.integers(0, 1 << 32, size=n, dtype=np.uint64)
                         .astype(np.uint32))


def with_neighbours(x):
    """x and its f32 neighbours one ulp up and down."""
    x = np.asarray(x, dtype=F32)
    with np.errstate(all="ignore"):
        up = np.nextafter(x, F32(np.inf))
        down = np.nextafter(x, F32(-np.inf))
    return np.concatenate([x, up, down])


def special_values():
    nans = f32_from_bits([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
                          0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC00001])
    vals = np.array([0.0, -0.0, np.inf, -np.inf, FLT_MAX, -FLT_MAX, FLT_MIN,
                     -FLT_MIN, 1.0, -1.0, 0.5, -0.5], dtype=F32)
    subs = f32_from_bits([0x00000001, 0x80000001, 0x00000002, 0x007FFFFF,
                          0x807FFFFF, 0x00400000])
    return np.concatenate([vals, subs, nans])


# --------------------------------------------------------------------------
# (a)-(c) FP8
# --------------------------------------------------------------------------


def fp8_values(dt):
    """All non-NaN values of an FP8 type, as float32 (ml_dtypes' view)."""
    v = np.arange(256, dtype=np.uint8).view(dt).astype(F32)
    return v[~np.isnan(v)]


def fp8_inputs(dt):
    """The encode test set for one FP8 type."""
    vals = fp8_values(dt)
    finite = np.unique(np.abs(vals[np.isfinite(vals)]).astype(np.float64))
    mids = (finite[:-1] + finite[1:]) / 2  # exact in f32: one more bit
    fmax = finite[-1]
    # The overflow threshold: halfway between max finite and the next value
    # an unbounded exponent would give (448 + 16 = 464 for E4M3FN, 57344 +
    # 4096 = 61440 for E5M2).
    threshold = fmax + (fmax - finite[-2]) / 2
    smallest = finite[1]
    base = np.concatenate([finite, mids, [threshold, fmax, smallest,
                                          smallest / 2, smallest * 1.5,
                                          2 * threshold, 4 * fmax]])
    base = base.astype(F32)
    base = np.concatenate([base, -base, vals])
    targeted = with_neighbours(base)
    # Random magnitudes over the whole FP8 range and a bit beyond, and
    # random bit patterns over all of f32.
    mag = np.exp2(RNG.uniform(-24.0, 18.0, size=200_000)).astype(F32)
    sign = np.where(RNG.integers(0, 2, size=mag.size) == 1, F32(-1), F32(1))
    return np.concatenate([targeted, special_values(), mag * sign,
                           random_bits(1 << 20)])


def check_fp4(rt, report):
    """OCP FP4 (E2M1) through the FP8 entry points (format 2): decode of
    all 16 codes and encode / quantize against ml_dtypes' float4_e2m1fn,
    which saturates (the format has no inf); NaN must give code 0 (+0:
    octet's rule; ml_dtypes writes -0)."""
    fmt, dt = 2, ml_dtypes.float4_e2m1fn
    codes = np.arange(16, dtype=np.uint8)
    got = rt.decode_fp8(codes, fmt)
    want = codes.view(dt).astype(F32)
    report.check("(a) decode E2M1: all 16 codes", same_float(got, want),
                 codes, got, want, show=lambda c: f"0x{int(c):02x}")
    vals = np.unique(np.abs(want).astype(np.float64))  # 0, 0.5, ..., 6
    mids = (vals[:-1] + vals[1:]) / 2  # the ties
    base = np.concatenate([vals, mids, [7.0, 8.0, 0.25, 0.125, 1e-30,
                                         1e30]]).astype(F32)
    x = np.concatenate([with_neighbours(np.concatenate([base, -base])),
                        special_values(),
                        (RNG.standard_normal(200_000) * 3).astype(F32),
                        random_bits(1 << 20)])
    nan = np.isnan(x)
    with np.errstate(all="ignore"):
        for sat in (True, False):
            got = rt.encode_fp8(x, fmt, saturate=sat)
            want = np.clip(x, F32(-6), F32(6)).astype(dt).view(np.uint8)
            report.check(f"(b/c) encode E2M1 (saturate={int(sat)}: always "
                         f"saturating), non-NaN inputs", got[~nan] == want[~nan],
                         x[~nan], got[~nan], want[~nan], show=show_f32)
            report.check("(b/c) encode E2M1: NaN gives code 0",
                         got[nan] == 0, x[nan], got[nan],
                         np.zeros(int(nan.sum()), np.uint8), show=show_f32)
        for scale in (F32(0.5), F32(3.0), F32(0.0173), F32(1e-3)):
            xs = x[:400_000]
            q = xs / scale
            got = rt.quantize_fp8(xs, scale, fmt, True)
            want = np.where(np.isnan(q), np.uint8(0), np.clip(
                q, F32(-6), F32(6)).astype(dt).view(np.uint8))
            report.check(f"(b/c) quantize E2M1 scale {float(scale):g}",
                         got == want, xs, got, want, show=show_f32)


def check_fp8(rt, report):
    for name, (fmt, dt) in FP8_FORMATS.items():
        codes = np.arange(256, dtype=np.uint8)
        # (a) decode: every code, against ml_dtypes. NaN codes must decode
        # to NaN (with the code's sign, as ml_dtypes does); everything else
        # bit-exactly.
        got = rt.decode_fp8(codes, fmt)
        want = codes.view(dt).astype(F32)
        report.check(f"(a) decode {name}: all 256 codes",
                     same_float(got, want), codes, got, want,
                     show=lambda c: f"0x{int(c):02x}")

        x = fp8_inputs(dt)
        with np.errstate(all="ignore"):
            # (b) non-saturating encode equals ml_dtypes' conversion (round
            # to nearest even; E4M3FN overflow -> NaN, E5M2 overflow -> inf).
            got = rt.encode_fp8(x, fmt, saturate=False)
            want = x.astype(F32).astype(dt).view(np.uint8)
            report.check(f"(b) encode {name} non-saturating",
                         got == want, x, got, want, show=show_f32)

            # (c) saturating encode. Independent rule: clip to +-max finite,
            # then convert with ml_dtypes. This equals "round, then clamp a
            # result beyond max finite to max finite" (cvt.rn.satfinite):
            # for |x| <= max, clipping changes nothing, and rounding cannot
            # leave [-max, max] because max is representable and rounding is
            # monotonic; for |x| > max (including inf), rounding is monotonic
            # so the rounded value is >= max in magnitude and satfinite gives
            # +-max, which is exactly what converting the clipped +-max
            # gives. NaN is checked separately: it must stay NaN, sign kept.
            fmax = F32(fp8_values(dt)[np.isfinite(fp8_values(dt))].max())
            nan = np.isnan(x)
            got = rt.encode_fp8(x, fmt, saturate=True)
            clipped = np.clip(x, -fmax, fmax)
            want = clipped.astype(dt).view(np.uint8)
            report.check(f"(c) encode {name} saturating (non-NaN inputs)",
                         got[~nan] == want[~nan], x[~nan], got[~nan],
                         want[~nan], show=show_f32)
            got_nan = got[nan].view(dt).astype(F32)
            report.check(f"(c) encode {name} saturating: NaN stays NaN, "
                         f"sign kept",
                         np.isnan(got_nan) &
                         ((got[nan] >> 7).astype(bool) == np.signbit(x[nan])),
                         x[nan], got[nan], x[nan], show=show_f32)

            # quantize = encode(x / scale), both modes.
            for scale in (F32(0.5), F32(3.0), F32(0.0173), F32(1e-3)):
                xs = x[:400_000]
                q = xs / scale
                for sat in (False, True):
                    got = rt.quantize_fp8(xs, scale, fmt, sat)
                    ref = np.clip(q, -fmax, fmax) if sat else q
                    want = ref.astype(dt).view(np.uint8)
                    ok = np.where(np.isnan(q),
                                  (got & 0x7F) == (want & 0x7F), got == want)
                    report.check(
                        f"(b/c) quantize {name} scale {float(scale):g} "
                        f"{'saturating' if sat else 'non-saturating'}",
                        ok, xs, got, want, show=show_f32)


# --------------------------------------------------------------------------
# (d) Integer quantization and rounding
# --------------------------------------------------------------------------


def int_inputs(scale, qmin, qmax):
    s = F32(scale)
    k = np.arange(qmin - 4, qmax + 5, dtype=np.float64)
    # Integer and half-integer multiples of the scale (ties when the scale
    # is a power of two), both signs, with f32 neighbours.
    grid = np.concatenate([k, k + 0.5, -(k + 0.5)]).astype(F32) * s
    design = np.array([0.26, -1.74, 3.5, 2.5, 400, -1000], dtype=F32)
    far = np.array([1e30, -1e30, 1e10, -1e10, 1e5, -1e5], dtype=F32) * s
    sub = f32_from_bits([1, 0x80000001, 0x00012345, 0x80400000])
    normal = (RNG.standard_normal(20_000) * (qmax - qmin) / 3).astype(F32) * s
    return np.concatenate([with_neighbours(grid), design, far, sub,
                           special_values(), normal, random_bits(20_000)])


INT_CONFIGS = [  # (name, qmin, qmax, zero points)
    ("i8", -128, 127, (0, -5, 17)),
    ("i8[-127,127]", -127, 127, (0,)),
    ("u8", 0, 255, (0, 128, 3)),
    ("i4", -8, 7, (0, -1)),
    ("u4", 0, 15, (0, 8)),
]
SCALES = [F32(1.0), F32(0.5), F32(2.0 ** -7), F32(0.1), F32(3.7), F32(1e-3),
          F32(2.0 ** -20), FLT_MIN, F32(1e-40), F32(6e4)]


def check_int(rt, report):
    for name, qmin, qmax, zps in INT_CONFIGS:
        for zp in zps:
            ok_all, n = [], 0
            first_bad = None
            for s in SCALES:
                x = int_inputs(s, qmin, qmax)
                with np.errstate(all="ignore"):
                    r = np.clip(np.rint(x / s) + F32(zp), F32(qmin),
                                F32(qmax))
                r = np.where(np.isnan(r), F32(zp), r)
                want = r.astype(np.int32)
                got = rt.quantize_int(x, s, zp, qmin, qmax)
                ok = got == want
                if first_bad is None and not ok.all():
                    first_bad = (s, x, got, want, ok)
                ok_all.append(ok.all())
                n += x.size
            label = f"(d) quantize {name} zp {zp} over {len(SCALES)} scales"
            if first_bad is None:
                report.check(label, np.ones(n, dtype=bool), None, None, None)
            else:
                s, x, got, want, ok = first_bad
                report.check(f"{label} (first failing scale {float(s):g})",
                             ok, x, got, want, show=show_f32)

            # Dequantize: (q - zp) * scale in f32, every code.
            q = np.arange(qmin, qmax + 1, dtype=np.int32)
            for s in SCALES:
                got = rt.dequantize_int(q, s, zp)
                want = (q - zp).astype(F32) * s
                if not (bits(got) == bits(want)).all():
                    report.check(f"(d) dequantize {name} zp {zp} scale "
                                 f"{float(s):g}",
                                 bits(got) == bits(want), q, got, want)
                    break
            else:
                report.check(f"(d) dequantize {name} zp {zp} over "
                             f"{len(SCALES)} scales",
                             np.ones(q.size * len(SCALES), dtype=bool), None,
                             None, None)

    # Round half to even against np.rint (same bits; -0 kept).
    halves = (np.arange(-300, 300, dtype=np.float64) + 0.5).astype(F32)
    big = np.array([2.0 ** 23 - 0.5, 2.0 ** 23 + 1, -(2.0 ** 23 - 0.5),
                    2.0 ** 24, 0.49999997, -0.49999997], dtype=F32)
    x = np.concatenate([with_neighbours(np.concatenate([halves, big])),
                        special_values(), random_bits(1 << 18),
                        RNG.uniform(-1e3, 1e3, 100_000).astype(F32)])
    got = rt.round_half_even(x)
    with np.errstate(all="ignore"):
        want = np.rint(x)
    report.check("(d) round half even vs np.rint", same_float(got, want), x,
                 got, want, show=show_f32)


# --------------------------------------------------------------------------
# (e) Parameters, SQNR, packing
# --------------------------------------------------------------------------


def guard_ref(scale, zero_range):
    """DESIGN.md: a zero/non-finite range must not give a zero/NaN scale.
    Zero range -> 1; below the smallest normal -> FLT_MIN; beyond the
    largest finite -> FLT_MAX."""
    scale = np.where(scale >= FLT_MIN, scale, FLT_MIN)
    scale = np.where(scale <= FLT_MAX, scale, FLT_MAX)
    return np.where(zero_range, F32(1), scale).astype(F32)


def symmetric_ref(absmax, target):
    """scale = absmax / target (target = qmax, or the FP8 max finite)."""
    a = np.where(np.isnan(absmax), F32(0), np.abs(absmax)).astype(F32)
    a = np.minimum(a, FLT_MAX)
    with np.errstate(all="ignore"):
        scale = a / F32(target)
    return guard_ref(scale, a == 0)


def asymmetric_ref(lo, hi, qmin, qmax):
    """Widen [lo, hi] to include 0; scale = (hi - lo) / (qmax - qmin);
    zp = clamp(rint(qmin - lo / scale), qmin, qmax)."""
    lo = np.where(np.isnan(lo), F32(0), lo).astype(F32)
    hi = np.where(np.isnan(hi), F32(0), hi).astype(F32)
    lo = np.maximum(np.minimum(lo, F32(0)), -FLT_MAX)
    hi = np.minimum(np.maximum(hi, F32(0)), FLT_MAX)
    with np.errstate(all="ignore"):
        rng = hi - lo
        scale = guard_ref(rng / F32(qmax - qmin), rng == 0)
        zp = np.rint(F32(qmin) - lo / scale)
    zp = np.clip(zp, F32(qmin), F32(qmax)).astype(np.int32)
    return scale, zp


def check_params(rt, report):
    absmax = np.concatenate([
        np.array([0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, 1e-40,
                  1e-38, FLT_MIN, 1, 12.7, 127, 448, 57344, 1e38, FLT_MAX,
                  -3.5], dtype=F32),
        np.exp2(RNG.uniform(-140, 128, 3000)).astype(F32),
        RNG.uniform(0, 100, 1000).astype(F32)])
    formats = [("I8", -128, 127, 127), ("I8", -127, 127, 127),
               ("U8", 0, 255, 255), ("I4", -8, 7, 7), ("U4", 0, 15, 15),
               ("F8E4M3FN", 0, 0, 448), ("F8E5M2", 0, 0, 57344),
               ("F4E2M1FN", 0, 0, 6), ("NF4", 0, 15, 1)]
    for fname, qmin, qmax, target in formats:
        got = np.array([rt.symmetric_params(a, STORAGE[fname], qmin, qmax)
                        for a in absmax], dtype=object)
        got_s = np.array([g[0] for g in got], dtype=F32)
        got_z = np.array([g[1] for g in got])
        want_s = symmetric_ref(absmax, target)
        ok = (bits(got_s) == bits(want_s)) & (got_z == 0)
        report.check(f"(e) symmetric params {fname} [{qmin},{qmax}]", ok,
                     absmax, got_s, want_s, show=show_f32)

    lo_base = np.concatenate([
        np.array([0, -1, -2, 1, -5, np.nan, -np.inf, -1e-40, -FLT_MAX,
                  -0.0, -123.4], dtype=F32),
        -np.exp2(RNG.uniform(-130, 127, 2000)).astype(F32),
        RNG.uniform(-10, 10, 2000).astype(F32)])
    hi_base = np.concatenate([
        np.array([0, 3, 6, 3, -1, np.nan, np.inf, 1e-40, FLT_MAX, 0.0, 5.6],
                 dtype=F32),
        np.exp2(RNG.uniform(-130, 127, 2000)).astype(F32),
        RNG.uniform(-10, 10, 2000).astype(F32)])
    for name, qmin, qmax in [("u8", 0, 255), ("i8", -128, 127),
                             ("i4", -8, 7), ("u4", 0, 15)]:
        # Ranges whose zero point is an exact tie: scale s is a power of two
        # and -lo / s = j + 0.5, so qmin - lo / s is a half-integer (of
        # either sign for i8/i4) that must round to even.
        t_lo, t_hi = [], []
        for s in (1.0, 0.5, 2.0 ** -6, 4.0):
            for j in range(qmax - qmin):
                t_lo.append(-(j + 0.5) * s)
                t_hi.append(-(j + 0.5) * s + (qmax - qmin) * s)
        lo = np.concatenate([lo_base, np.array(t_lo, dtype=F32)])
        hi = np.concatenate([hi_base, np.array(t_hi, dtype=F32)])
        got = [rt.asymmetric_params(a, b, qmin, qmax) for a, b in zip(lo, hi)]
        got_s = np.array([g[0] for g in got], dtype=F32)
        got_z = np.array([g[1] for g in got], dtype=np.int32)
        want_s, want_z = asymmetric_ref(lo, hi, qmin, qmax)
        ok = (bits(got_s) == bits(want_s)) & (got_z == want_z)
        pairs = list(zip(lo, hi))
        report.check(f"(e) asymmetric params {name}", ok, pairs,
                     list(zip(got_s, got_z)), list(zip(want_s, want_z)))
        # Real 0 is exactly representable: it quantizes to zp, and zp
        # dequantizes to 0.
        zero_q = np.array([rt.quantize_int(np.zeros(1, F32), s, int(z), qmin,
                                           qmax)[0]
                           for s, z in zip(got_s, got_z)])
        report.check(f"(e) asymmetric {name}: real 0 -> zp exactly",
                     zero_q == got_z, pairs, zero_q, got_z)

    # SQNR = 10 log10(sum x^2 / sum (x - xhat)^2), in double.
    for n in (1, 100, 10_000):
        x = RNG.standard_normal(n).astype(F32)
        s = symmetric_ref(np.array([np.abs(x).max()], dtype=F32), 127)[0]
        xhat = rt.dequantize_int(rt.quantize_int(x, s, 0, -128, 127), s, 0)
        x64, e64 = x.astype(np.float64), x.astype(np.float64) - xhat
        with np.errstate(all="ignore"):
            want = float(10 * np.log10(np.sum(x64 * x64) / np.sum(e64 * e64)))
        got = rt.sqnr_db(x, xhat)
        report.scalar(f"(e) sqnr n={n}: {got:.6f} dB",
                      got == want or
                      abs(got - want) <= 1e-9 * max(1.0, abs(want)),
                      f"got {got!r}, want {want!r}")
    # An unrelated reconstruction, so that x - xhat is inexact in f32 (the
    # difference must be taken in double).
    for n in (10, 100):
        x = RNG.standard_normal(n).astype(F32)
        xhat = RNG.standard_normal(n).astype(F32) * F32(0.3) + x * F32(0.9)
        e64 = x.astype(np.float64) - xhat.astype(np.float64)
        x64 = x.astype(np.float64)
        want = float(10 * np.log10(np.sum(x64 * x64) / np.sum(e64 * e64)))
        got = rt.sqnr_db(x, xhat)
        report.scalar(f"(e) sqnr n={n}, inexact f32 differences: "
                      f"{got:.6f} dB",
                      abs(got - want) <= 1e-12 * max(1.0, abs(want)),
                      f"got {got!r}, want {want!r}")
    x = np.array([3, 4], dtype=F32)
    report.scalar("(e) sqnr [3,4] vs [3,4.5] = 20 dB",
                  abs(rt.sqnr_db(x, np.array([3, 4.5], F32)) - 20) < 1e-12)
    report.scalar("(e) sqnr exact = +inf", rt.sqnr_db(x, x) == np.inf)
    report.scalar("(e) sqnr zero signal = -inf",
                  rt.sqnr_db(np.zeros(2, F32), x) == -np.inf)

    # Nibble packing: element 2i in the low nibble of byte i.
    for n in (0, 1, 2, 7, 1000, 1001):
        for is_signed, lo_, hi_ in ((True, -8, 8), (False, 0, 16)):
            codes = RNG.integers(lo_, hi_, size=n).astype(np.int8)
            got = rt.pack_nibbles(codes)
            c = codes.astype(np.uint8) & 0x0F
            padded = np.concatenate([c, np.zeros(n % 2, np.uint8)])
            want = (padded[0::2] | (padded[1::2] << 4)).astype(np.uint8)
            back = rt.unpack_nibbles(got, n, is_signed)
            report.scalar(
                f"(e) pack/unpack nibbles n={n} "
                f"{'signed' if is_signed else 'unsigned'}",
                np.array_equal(got, want) and np.array_equal(back, codes),
                f"packed {got[:8]} want {want[:8]}; back {back[:8]}")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        lib = load(argv[1])
    except (OSError, AttributeError) as e:
        print(f"error: cannot load {argv[1]}: {e}", file=sys.stderr)
        return 2
    rt = Runtime(lib)
    report = Report()
    report.scalar("ABI version 1", lib.octet_runtime_abi_version() == 1)
    t0 = lib.octet_now_seconds()
    check_fp8(rt, report)
    check_fp4(rt, report)
    check_int(rt, report)
    check_params(rt, report)
    t1 = lib.octet_now_seconds()
    report.scalar("octet_now_seconds is monotonic", t1 >= t0)
    if report.failed:
        print(f"numerics oracle: {report.failed} of {report.checks} checks "
              f"FAILED")
        return 1
    print(f"numerics oracle: all {report.checks} checks passed "
          f"({report.values} values, {t1 - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
