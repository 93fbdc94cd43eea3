"""Independent numpy/ml_dtypes oracle for Octet's numerics contract, plus
helpers that write MLIR test programs and JIT-run them with octet-run.

Nothing here calls into Octet to compute an expected value: the expected bits
come from numpy float32 arithmetic and ml_dtypes conversions that follow the
"Numerics contract" of DESIGN.md:

  integer quantize   q = clamp(rint(x / scale) + zp, qmin, qmax) in float32
                     (true division, round half to even), NaN -> zp,
                     +-inf saturate.
  integer dequantize x = float32(q - zp) * scale, then rounded to the result
                     float type (round to nearest even).
  fp8 quantize       v = x / scale in float32; saturating (default): NaN kept,
                     everything else clipped to +-max finite, then ml_dtypes
                     astype (round to nearest even); non_saturating: exactly
                     ml_dtypes astype (E4M3FN overflow -> NaN, E5M2 -> inf).
  fp8 dequantize     x = float32(decode(q)) * scale, rounded to the result type.

Values travel to and from octet-run as .npy files: f32 as float32, f16 as
float16, bf16 as uint16 bits, FP8 codes as uint8 bits, i8/u8 codes as int8
(u8 reinterpreted), i4/u4 codes as int8 sign-extended.

Used by the lit tests in test/Integration (lit puts test/lib on PYTHONPATH and
sets OCTET_TOOLS_DIR).
"""

import dataclasses
import fractions
import os
import shutil
import subprocess
import sys
import tempfile
import time

import ml_dtypes
import numpy as np

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
FLT_MIN = F32(np.finfo(np.float32).tiny)  # smallest normal, 2^-126

# ---------------------------------------------------------------------------
# Formats and schemes
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Format:
    name: str          # as written in a scheme ("i8", "f8E4M3FN", ...)
    storage: str       # MLIR element type of storage tensors
    qmin: int          # full integer range (0 for FP8)
    qmax: int
    fp8: object = None  # ml_dtypes type for the float formats (FP8, FP4)
    max_finite: float = 0.0

    @property
    def is_fp8(self):
        """True for every float format: FP8 and FP4 (E2M1), whose codes
        are ml_dtypes bit patterns."""
        return self.fp8 is not None

    @property
    def is_unsigned(self):
        return self.name in ("u8", "u4", "nf4")

    @property
    def is_nf4(self):
        return self.name == "nf4"

    @property
    def bits(self):
        return 4 if self.storage in ("i4", "f4E2M1FN") else 8


FORMATS = {
    "i8": Format("i8", "i8", -128, 127),
    "u8": Format("u8", "i8", 0, 255),
    "i4": Format("i4", "i4", -8, 7),
    "u4": Format("u4", "i4", 0, 15),
    "f8E4M3FN": Format("f8E4M3FN", "f8E4M3FN", 0, 0, ml_dtypes.float8_e4m3fn,
                       448.0),
    "f8E5M2": Format("f8E5M2", "f8E5M2", 0, 0, ml_dtypes.float8_e5m2,
                     57344.0),
    # QLoRA NF4: i4 codes 0..15 indexing NF4_VALUES.
    "nf4": Format("nf4", "i4", 0, 15),
    # OCP FP4 (E2M1): 0, 0.5, 1, 1.5, 2, 3, 4, 6; no inf or NaN.
    "f4E2M1FN": Format("f4E2M1FN", "f4E2M1FN", 0, 0,
                       ml_dtypes.float4_e2m1fn, 6.0),
}
INT_FORMATS = ["i8", "u8", "i4", "u4"]
FP8_FORMATS = ["f8E4M3FN", "f8E5M2"]
FP4_FORMATS = ["f4E2M1FN"]

# NF4 as bitsandbytes defines it (csrc: dDequantizeNF4's values and
# dQuantizeNF4's decision tree, both float32 literals): code = the leaf of
# the tree, i.e. the number of thresholds strictly below x / scale.
def f32_of_decimal(text):
    """The float32 nearest to the decimal `text` (ties to even), rounded
    once from the exact value, as a C float literal (`0.12...f`) is: going
    through a double first rounds twice and can land one ulp away (it does
    for bitsandbytes' 0.1202552504837513)."""
    q = fractions.Fraction(text)
    f = np.float32(float(q))
    cands = [np.nextafter(f, F32(-np.inf)), f, np.nextafter(f, F32(np.inf))]
    return min(cands, key=lambda c: (abs(fractions.Fraction(float(c)) - q),
                                     int(np.array(c).view(np.uint32)) & 1))


NF4_VALUES = np.array([f32_of_decimal(t) for t in (
    "-1.0", "-0.6961928009986877", "-0.5250730514526367",
    "-0.39491748809814453", "-0.28444138169288635", "-0.18477343022823334",
    "-0.09105003625154495", "0.0", "0.07958029955625534",
    "0.16093020141124725", "0.24611230194568634", "0.33791524171829224",
    "0.44070982933044434", "0.5626170039176941", "0.7229568362236023",
    "1.0")], np.float32)
NF4_THRESHOLDS = np.array([f32_of_decimal(t) for t in (
    "-0.8480964004993439", "-0.6106329262256622", "-0.4599952697753906",
    "-0.33967943489551544", "-0.23460740596055984", "-0.13791173323988914",
    "-0.045525018125772476", "0.03979014977812767", "0.1202552504837513",
    "0.2035212516784668", "0.2920137718319893", "0.3893125355243683",
    "0.5016634166240692", "0.6427869200706482", "0.8614784181118011")],
    np.float32)


def nf4_encode(v):
    """bitsandbytes' dQuantizeNF4 on float32 values (searchsorted 'left'
    counts the thresholds < v); NaN gives 7 (0.0: octet's rule, where
    bitsandbytes' tree gives 0)."""
    v = np.asarray(v, np.float32)
    c = np.searchsorted(NF4_THRESHOLDS, v, side="left").astype(np.int32)
    return np.where(np.isnan(v), 7, c).astype(np.int32)

# Float element types of octet's float tensors and their numpy carriers.
FLOAT_TYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
}


@dataclasses.dataclass(frozen=True)
class Scheme:
    """A #octet.scheme: format, granularity, symmetry, saturation, range."""

    fmt: str
    gran: str = "per_tensor"  # per_tensor | per_axis | per_group
    axis: int = 0
    group: int = 0
    symmetric: bool = True
    saturate: bool = True
    qmin: int = None  # None: the format's full range
    qmax: int = None
    e8m0: bool = False  # E8M0 (power-of-two) scales: MXFP8
    # NVFP4 (f4E2M1FN) and NF4 with double-quantized scales (nf4): E4M3
    # scales times the per-tensor global scale `glob` (set from the data by
    # the weight oracle).
    e4m3: bool = False
    glob: float = 0.0

    def __post_init__(self):
        f = FORMATS[self.fmt]
        if self.qmin is None:
            object.__setattr__(self, "qmin", f.qmin)
        if self.qmax is None:
            object.__setattr__(self, "qmax", f.qmax)
        assert self.gran in ("per_tensor", "per_axis", "per_group")
        assert not (f.is_fp8 and not self.symmetric)
        assert not (self.e8m0 and not f.is_fp8)
        assert not (self.e4m3 and self.fmt not in ("f4E2M1FN", "nf4"))

    @property
    def format(self):
        return FORMATS[self.fmt]

    @property
    def e4m3_target(self):
        """The largest magnitude a two-level (e4m3) block scale maps the
        block's absmax to: 6 for E2M1 (NVFP4), 1 for NF4."""
        return 1 if self.format.is_nf4 else 6

    @property
    def narrow(self):
        f = self.format
        return not f.is_fp8 and (self.qmin, self.qmax) != (f.qmin, f.qmax)

    def attr(self):
        """The scheme as written after `as` (`<i8<-127:127>, per_axis(0)>`)."""
        s = self.fmt
        if self.narrow:
            s += "<%d:%d>" % (self.qmin, self.qmax)
        if self.gran == "per_axis":
            s += ", per_axis(%d)" % self.axis
        elif self.gran == "per_group":
            s += ", per_group(%d, %d)" % (self.axis, self.group)
        if not self.symmetric:
            s += ", asymmetric"
        if not self.saturate:
            s += ", non_saturating"
        if self.e8m0:
            s += ", e8m0"
        if self.e4m3:
            g = "%.9g" % self.glob
            if not any(c in g for c in ".en"):  # a float literal: "1.0"
                g += ".0"
            s += ", e4m3(%s)" % g
        return "<" + s + ">"

    def param_shape(self, shape):
        """Shape of the scale / zero-point tensor for an input of `shape`
        (entries may be None for dynamic dimensions)."""
        if self.gran == "per_tensor":
            return ()
        if self.gran == "per_axis":
            return (shape[self.axis],)
        out = list(shape)
        if out[self.axis] is not None:
            assert out[self.axis] % self.group == 0, (shape, self)
            out[self.axis] //= self.group
        return tuple(out)

    def expand(self, p, shape):
        """Broadcasts a parameter array to the element shape `shape`."""
        p = np.asarray(p)
        if self.gran == "per_tensor":
            return np.broadcast_to(p, shape)
        if self.gran == "per_axis":
            view = [1] * len(shape)
            view[self.axis] = shape[self.axis]
            return np.broadcast_to(p.reshape(view), shape)
        return np.repeat(p, self.group, axis=self.axis)


# ---------------------------------------------------------------------------
# The oracle
# ---------------------------------------------------------------------------


def _f32(a):
    return np.asarray(a).astype(np.float32)


def quantize(x, scheme, scale, zp=None):
    """Reference octet.quantize. `x` in any float dtype (extended exactly to
    f32), `scale`/`zp` in the scheme's parameter shape. Returns int32 codes
    (logical values, u8 in 0..255) for integer formats and uint8 bit patterns
    for FP8 formats."""
    x = _f32(x)
    s = _f32(scheme.expand(_f32(scale), x.shape))
    f = scheme.format
    with np.errstate(all="ignore"):
        v = x / s  # float32 true division
        if f.is_fp8:
            if scheme.saturate:
                m = F32(f.max_finite)
                v = np.where(np.isnan(v), v, np.clip(v, -m, m))
            codes = np.array(v.astype(f.fp8), order="C").view(np.uint8)
            if f.bits == 4:
                # E2M1 has no NaN: octet's contract encodes NaN as +0
                # (ml_dtypes writes -0, code 8).
                codes = np.where(np.isnan(v), np.uint8(0), codes)
            return codes
        if f.is_nf4:
            return nf4_encode(v)
        z = np.zeros(x.shape, np.int32) if zp is None else \
            scheme.expand(np.asarray(zp, np.int32), x.shape)
        v = np.rint(v)  # round half to even, in float32
        v = np.where(np.isnan(v), F32(0), v)
        v = v + z.astype(np.float32)
        v = np.clip(v, F32(scheme.qmin), F32(scheme.qmax))
        return v.astype(np.int32)


def int_params_per_row(x, scheme):
    """Reference octet.compute_params of a 2-D f32 `x` under an 8-bit
    integer `scheme` per row (per_axis(0)), from the op's definition:
    statistics that start at 0 and ignore NaN (+-inf count as +-FLT_MAX);
    symmetric: scale = absmax / qmax; asymmetric: scale = (max - min) /
    (qmax - qmin), zp = clamp(rint(qmin - min / scale)); every scale
    guarded (a zero range gives 1, below FLT_MIN gives FLT_MIN, above
    FLT_MAX gives FLT_MAX), all in f32. Returns (scale, zp or None)."""
    x = _f32(x)
    big = F32(np.finfo(np.float32).max)
    tiny = F32(np.finfo(np.float32).tiny)
    with np.errstate(all="ignore"):
        clean = np.where(np.isnan(x), F32(0), x)
        lo = np.clip(np.minimum(clean.min(axis=1), F32(0)), -big, F32(0))
        hi = np.clip(np.maximum(clean.max(axis=1), F32(0)), F32(0), big)

        def guard(scale, zero):
            scale = np.where(scale >= tiny, scale, tiny)
            scale = np.where(scale <= big, scale, big)
            return np.where(zero, F32(1), scale).astype(np.float32)

        if scheme.symmetric:
            absmax = np.maximum(-lo, hi)
            scale = guard(absmax / F32(scheme.qmax), absmax == 0)
            return scale, None
        rng = (hi - lo).astype(np.float32)  # may be +inf
        scale = guard(rng / F32(scheme.qmax - scheme.qmin), rng == 0)
        zp = np.rint(F32(scheme.qmin) - lo / scale)
        zp = np.clip(zp, F32(scheme.qmin), F32(scheme.qmax)).astype(np.int32)
        return scale, zp


def dequantize(codes, scheme, scale, zp=None, out="f32"):
    """Reference octet.dequantize; `codes` as returned by quantize().
    Returns an array of FLOAT_TYPES[out]."""
    codes = np.asarray(codes)
    s = _f32(scheme.expand(_f32(scale), codes.shape))
    f = scheme.format
    with np.errstate(all="ignore"):
        if f.is_fp8:
            v = codes.astype(np.uint8).view(f.fp8).astype(np.float32) * s
        elif f.is_nf4:
            v = NF4_VALUES[codes.astype(np.int64) & 15] * s
        else:
            z = np.zeros(codes.shape, np.int32) if zp is None else \
                scheme.expand(np.asarray(zp, np.int32), codes.shape)
            v = (codes.astype(np.int32) - z).astype(np.float32) * s
        return v.astype(FLOAT_TYPES[out])


# OCP Microscaling Formats v1.0, section 6.3: the largest normal exponent of
# the element format.
MX_EMAX = {"f8E4M3FN": 8, "f8E5M2": 15, "f4E2M1FN": 2}


def e8m0_scale(absmax, fmt, ceil=False):
    """X = 2^(floor(log2(absmax)) - emax), as an E8M0 value (2^-127 ..
    2^127); a zero range gives 1 (the zero-range guard). ceil
    (mx-scale=ceil): the smallest power of two X with absmax <= max * X."""
    if not (absmax > 0 and np.isfinite(absmax)):
        return np.float32(1)
    _, e = np.frexp(np.float64(absmax))  # absmax = m 2^e, m in [0.5, 1)
    x = int(e) - 1 - MX_EMAX[fmt]
    if ceil:
        mx = float(FORMATS[fmt].max_finite)
        while float(absmax) > mx * 2.0 ** x:
            x += 1
        while x > -200 and float(absmax) <= mx * 2.0 ** (x - 1):
            x -= 1
    x = min(max(x, -127), 127)
    v = ml_dtypes.float8_e8m0fnu(2.0 ** x)
    assert float(v) == 2.0 ** x, x  # representable in E8M0
    return np.float32(float(v))


def nvfp4_global(absmax, target=6):
    """The per-tensor global scale g of two-level E4M3 scales:
    f32(absmax / (target * 448)), target the element format's largest
    magnitude (6 for NVFP4's E2M1, 1 for NF4 with double-quantized scales),
    the absmax saturated at FLT_MAX first; 1 for a zero (or NaN) range (the
    zero-range guard); at least FLT_MIN."""
    a = F32(min(float(absmax), float(np.finfo(F32).max)))
    if not a > 0:
        return F32(1)
    return max(F32(a / F32(target * 448)), np.finfo(F32).tiny)


def nvfp4_block_scale(absmax, g, target=6):
    """Two-level block scales (NVFP4: target 6; NF4-DQ: target 1) for block
    absmax values `absmax` (f32, scalar or array) and global scale g:
    sb = E4M3(f32(f32(absmax / target) / g)) by ml_dtypes (round to nearest
    even; saturated at 448 first), 2^-9 where that is 0; the scale
    f32(sb * g)."""
    g = F32(g)
    with np.errstate(over="ignore"):
        t = (np.asarray(absmax, F32) / F32(target)).astype(F32) / g
    sb = np.minimum(t, F32(448)).astype(
        ml_dtypes.float8_e4m3fn).astype(F32)
    sb = np.where(sb == 0, F32(2.0 ** -9), sb)
    return (sb * g).astype(F32)[()]


# DESIGN.md's "Bounds" promise for float accumulation (f32 contractions,
# weight-only and FP8-decoded kernels): with FMA and any summation order,
# |y - y_exact| <= c * n * u * sum|terms|, u = 2^-24 (f32), n the number of
# roundings on the longest path (K products and sums, plus the group
# totals, scale multiplies and bias add), c = BOUND_C. A sum of n terms in
# any order is within gamma_n = n u / (1 - n u) of the exact one (Higham,
# Accuracy and Stability of Numerical Algorithms, 3.1); c = 2 covers that
# (n u < 0.01 here) with the f64 reference's own error (n * 2^-53) and
# leaves room, while a dropped or doubled term of average size (sum / K)
# is 1 / (c n K u) times the bound: 90x at K = 300, 7x at K = 1100.
BOUND_C = 2.0
F32_U = 2.0 ** -24


def accumulation_bound(abs_sum, n_terms, c=BOUND_C):
    """The Bounds promise for an f32 accumulation of `n_terms` roundings
    whose terms' magnitudes add up to `abs_sum` (f64 arrays)."""
    return c * n_terms * F32_U * np.asarray(abs_sum, np.float64)


# Relative width of "float noise" around a rounding tie (near_ties): two
# correct float evaluations of the same activation (another summation order,
# another BLAS kernel) were measured to differ by up to ~16 ulps of x/scale
# at the quantizers of MiniLM (test/Models); 2^-16 is 128-256 ulps.
TIE_REL_TOL = 2.0 ** -16


def near_ties(x, scheme, scale, zp=None, rel_tol=TIE_REL_TOL):
    """Where quantize(x) sits within float noise of a rounding tie.

    DESIGN.md's numerics contract: float rounding feeding a quantizer can
    land on a tie, and two correct float paths may then differ by one code.
    Returns (near, alt): `near` marks the elements whose scaled value
    t = x / scale lies within rel_tol * (|t| + qmax / 16) of the midpoint
    between the code quantize() chose and its neighbour on the other side of
    t; `alt` holds that neighbour's code (same encoding as quantize()).
    The absolute term covers values that are small only by cancellation
    (their noise scales with the row, not with the value). Clamped and
    saturated values are never near a tie inside the range."""
    x = _f32(x)
    s = _f32(scheme.expand(_f32(scale), x.shape))
    f = scheme.format
    codes = quantize(x, scheme, scale, zp)
    with np.errstate(all="ignore"):
        t = (x / s).astype(np.float64)
        if f.is_fp8:
            cv = codes.astype(np.uint8).view(f.fp8).astype(np.float64)
            other = _f32(2 * t - cv)
            m = F32(f.max_finite)
            other = np.where(np.isnan(other), other, np.clip(other, -m, m))
            alt = np.array(other.astype(f.fp8), order="C").view(np.uint8)
            av = alt.view(f.fp8).astype(np.float64)
            top = f.max_finite
        else:
            z = np.zeros(x.shape, np.int32) if zp is None else \
                scheme.expand(np.asarray(zp, np.int32), x.shape)
            cv = (codes - z).astype(np.float64)
            step = np.where(t >= cv, 1, -1).astype(np.int32)
            alt = codes + step
            alt_ok = (alt >= scheme.qmin) & (alt <= scheme.qmax)
            av = np.where(alt_ok, cv + step, cv)
            top = max(abs(scheme.qmin), abs(scheme.qmax))
        gap = np.abs(av - cv)
        tol = rel_tol * (np.abs(t) + top / 16.0)
        near = np.isfinite(t) & (gap > 0) & \
            (np.abs(np.abs(t - cv) - gap / 2) <= tol)
    return near, alt


def requantize(codes, in_scheme, in_scale, in_zp, out_scheme, out_scale,
               out_zp):
    """Reference octet.requantize = quantize(dequantize(.) in f32, .)."""
    x = dequantize(codes, in_scheme, in_scale, in_zp, "f32")
    return quantize(x, out_scheme, out_scale, out_zp)


def all_codes(scheme):
    """Every storage code of the format (logical values / FP8 bits)."""
    f = scheme.format
    if f.is_fp8:
        return np.arange(1 << f.bits).astype(np.uint8)
    lo = -(1 << (f.bits - 1)) if not f.is_unsigned else 0
    return np.arange(lo, lo + (1 << f.bits)).astype(np.int32)


# ---------------------------------------------------------------------------
# .npy carriers
# ---------------------------------------------------------------------------


def codes_to_npy(codes, scheme, nibble="zext"):
    """Logical codes -> the array octet-run reads for a storage tensor.

    4-bit codes go in one byte each; `nibble` picks the high nibble:
    "zext" (zero, the byte an LLVM `store i4` leaves and what a uint8 array
    of u4 codes holds) or "sext" (sign-extended, the form octet-run writes
    i4 results in and documents for i4 tensors)."""
    f = scheme.format
    codes = np.asarray(codes)
    if f.is_fp8:
        return codes.astype(np.uint8)
    if f.bits == 4:
        c = codes.astype(np.int32) & 0xF
        if nibble == "sext":
            return np.where(c >= 8, c - 16, c).astype(np.int8)
        assert nibble == "zext", nibble
        return c.astype(np.int8)
    c = (codes.astype(np.int32) & 0xFF).astype(np.uint8)
    # u8 codes go as uint8 (octet-run accepts either signedness for i8
    # tensors), i8 codes as int8.
    return c if f.is_unsigned else c.view(np.int8)


def npy_to_codes(arr, scheme):
    """The array octet-run wrote for a storage tensor -> logical codes
    (int32) or FP8 bits (uint8)."""
    f = scheme.format
    arr = np.asarray(arr)
    if f.is_fp8:
        assert arr.dtype.itemsize == 1, arr.dtype
        return arr.view(np.uint8)
    assert arr.dtype == np.int8, arr.dtype
    c = arr.astype(np.int32)
    if f.bits == 4:
        c = c & 0xF
        if not f.is_unsigned:
            c = np.where(c >= 8, c - 16, c)
        return c
    if f.is_unsigned:
        return c & 0xFF
    return c


def floats_to_npy(x, ftype):
    """Float values (any dtype) -> octet-run's carrier for `ftype`, rounding
    to the type first (round to nearest even)."""
    with np.errstate(all="ignore"):
        a = np.asarray(x).astype(FLOAT_TYPES[ftype])
    if ftype == "bf16":
        return a.view(np.uint16)
    return a


def npy_to_floats(arr, ftype):
    arr = np.asarray(arr)
    if ftype == "bf16":
        assert arr.dtype == np.uint16, arr.dtype
        return arr.view(ml_dtypes.bfloat16)
    assert arr.dtype == FLOAT_TYPES[ftype], (arr.dtype, ftype)
    return arr


def bits(a):
    """Unsigned-integer view of an array's bit patterns (for bit-exact
    comparisons that distinguish -0.0 and NaN payloads)."""
    a = np.array(a, order="C")
    if a.dtype.kind in "iu" and a.dtype.itemsize == 4:
        return a.astype(np.int64)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32,
                   8: np.uint64}[a.dtype.itemsize])


# ---------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------


def tensor_type(shape, elt):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return "tensor<%s%s>" % (dims, elt)


def float_hex(a, ftype):
    """A dense hex literal holding exactly the bits of `a` (converted to
    `ftype`), little-endian as MLIR expects."""
    raw = np.ascontiguousarray(floats_to_npy(a, ftype))
    return '"0x%s"' % raw.tobytes().hex().upper()


def dense_const(a, elt):
    """`dense<...>` for an array of element type `elt` (float types are
    written as hex so that NaN, -0 and subnormals keep their bits)."""
    a = np.asarray(a)
    if elt in FLOAT_TYPES:
        return "dense<%s>" % float_hex(a, elt)
    if elt in ("f8E4M3FN", "f8E5M2", "f4E2M1FN"):
        return 'dense<"0x%s">' % np.ascontiguousarray(
            a.astype(np.uint8)).tobytes().hex().upper()
    # Integers: nested list literal (works for i4 too).
    return "dense<%s>" % _int_literal(a.astype(np.int64))


def _int_literal(a):
    if a.ndim == 0:
        return str(int(a))
    return "[" + ", ".join(_int_literal(x) for x in a) + "]"


def storage_literal_codes(codes, scheme):
    """Logical codes -> values for an MLIR constant of the storage type
    (signless: u8 200 is written as -56, u4 12 as -4; FP8 as bits)."""
    f = scheme.format
    if f.is_fp8:
        return np.asarray(codes).astype(np.uint8)
    c = np.asarray(codes).astype(np.int64) & ((1 << f.bits) - 1)
    return np.where(c >= (1 << (f.bits - 1)), c - (1 << f.bits), c)


class Params:
    """Scale and zero point of one scheme, either as function arguments or
    as constants. `text` renders the `scale(...) zero_point(...)` clause."""

    def __init__(self, scheme, scale, zp, shape, const, prefix):
        self.scheme = scheme
        self.scale = np.asarray(scale, np.float32)
        self.zp = None if scheme.symmetric else np.asarray(zp, np.int32)
        pshape = scheme.param_shape(shape)
        self.stype = tensor_type(pshape, "f32")
        self.ztype = tensor_type(pshape, "i32")
        self.const = const
        self.prefix = prefix
        self.sname = "%" + prefix + "s"
        self.zname = "%" + prefix + "z"

    def args(self):
        """(name, type, npy array) of the function arguments."""
        if self.const:
            return []
        out = [(self.sname, self.stype, self.scale)]
        if self.zp is not None:
            out.append((self.zname, self.ztype, self.zp))
        return out

    def body(self):
        if not self.const:
            return []
        out = ["%s = arith.constant %s : %s" % (
            self.sname, dense_const(self.scale, "f32"), self.stype)]
        if self.zp is not None:
            out.append("%s = arith.constant %s : %s" % (
                self.zname, dense_const(self.zp, "i32"), self.ztype))
        return out

    def text(self):
        s = "scale(%s : %s)" % (self.sname, self.stype)
        if self.zp is not None:
            s += " zero_point(%s : %s)" % (self.zname, self.ztype)
        return s


class FunctionBuilder:
    """Accumulates one func.func: arguments (with their .npy inputs), body
    lines and results (with the oracle's expected values)."""

    def __init__(self, name):
        self.name = name
        self.args = []      # (ssa, type, npy array)
        self.lines = []
        self.results = []   # (ssa, type, label, checker callback info)
        self._n = 0

    def fresh(self, stem="v"):
        self._n += 1
        return "%%%s%d" % (stem, self._n)

    def arg(self, ssa, type_, array):
        self.args.append((ssa, type_, array))
        return ssa

    def const(self, array, shape, elt, stem="c"):
        v = self.fresh(stem)
        self.lines.append("%s = arith.constant %s : %s" % (
            v, dense_const(array, elt), tensor_type(shape, elt)))
        return v

    def params(self, p):
        for name, t, a in p.args():
            self.arg(name, t, a)
        self.lines.extend(p.body())

    def quantize(self, x, xshape, xelt, p):
        v = self.fresh("q")
        st = tensor_type(xshape, p.scheme.format.storage)
        self.lines.append("%s = octet.quantize %s %s as %s : %s -> %s" % (
            v, x, p.text(), p.scheme.attr(), tensor_type(xshape, xelt), st))
        return v, st

    def dequantize(self, q, shape, p, out):
        v = self.fresh("d")
        ot = tensor_type(shape, out)
        self.lines.append("%s = octet.dequantize %s %s as %s : %s -> %s" % (
            v, q, p.text(), p.scheme.attr(),
            tensor_type(shape, p.scheme.format.storage), ot))
        return v, ot

    def requantize(self, q, shape, pin, pout):
        v = self.fresh("r")
        self.lines.append(
            "%s = octet.requantize %s %s as %s to %s as %s : %s -> %s" % (
                v, q, pin.text(), pin.scheme.attr(), pout.text(),
                pout.scheme.attr(),
                tensor_type(shape, pin.scheme.format.storage),
                tensor_type(shape, pout.scheme.format.storage)))
        return v, tensor_type(shape, pout.scheme.format.storage)

    def result(self, ssa, type_):
        self.results.append((ssa, type_))

    def text(self):
        sig = ", ".join("%s: %s" % (n, t) for n, t, _ in self.args)
        rt = ", ".join(t for _, t in self.results)
        out = ["func.func @%s(%s) -> (%s) {" % (self.name, sig, rt)]
        out += ["  " + l for l in self.lines]
        out.append("  return %s : %s" % (
            ", ".join(v for v, _ in self.results), rt))
        out.append("}")
        return "\n".join(out) + "\n"

    def inputs(self):
        return [a for _, _, a in self.args]


# ---------------------------------------------------------------------------
# Running octet-run
# ---------------------------------------------------------------------------


def find_tool(name, wait_s=180):
    """OCTET_TOOLS_DIR/name, else `name` on PATH. Waits up to `wait_s` for a
    binary that is missing or empty under OCTET_TOOLS_DIR (being relinked by
    a concurrent build)."""
    d = os.environ.get("OCTET_TOOLS_DIR")
    deadline = time.time() + wait_s
    while True:
        if d:
            p = os.path.join(d, name)
            if os.access(p, os.X_OK) and os.path.getsize(p) > 0:
                return p
        p = shutil.which(name)
        if p and not d:
            return p
        if time.time() > deadline:
            if p:
                return p
            raise RuntimeError("cannot find %s (set OCTET_TOOLS_DIR or PATH)"
                               % name)
        time.sleep(2)


class OctetRunError(RuntimeError):
    pass


def run_octet(module_text, entry, inputs, num_results, workdir=None,
              tag=None, extra_args=()):
    """Writes `module_text` to a file, runs `octet-run --entry entry` on the
    given input arrays and returns the list of result arrays. Files go to
    `workdir` (kept, for reproducing failures) or to a temporary directory."""
    tmp = None
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="octet-oracle-")
        workdir = tmp
    os.makedirs(workdir, exist_ok=True)
    tag = tag or entry
    mlir = os.path.join(workdir, tag + ".mlir")
    with open(mlir, "w") as fh:
        fh.write(module_text)
    cmd = [find_tool("octet-run"), mlir, "--entry", entry]
    # OCTET_RUN_ARGS (e.g. "-O1") is appended to every call; the default is
    # octet-run's own (-O3), which is what the suite is meant to check.
    cmd += os.environ.get("OCTET_RUN_ARGS", "").split()
    cmd += list(extra_args)
    for i, a in enumerate(inputs):
        p = os.path.join(workdir, "%s.in%d.npy" % (tag, i))
        np.save(p, np.array(a, order="C"))  # keeps 0-d arrays 0-d
        cmd += ["--input", p]
    outs = [os.path.join(workdir, "%s.out%d.npy" % (tag, i))
            for i in range(num_results)]
    for p in outs:
        if os.path.exists(p):
            os.remove(p)
        cmd += ["--output", p]
    for attempt in range(30):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
            break
        except OSError:  # ETXTBSY / ENOEXEC while a build relinks the tool
            if attempt == 29:
                raise
            time.sleep(2)
            cmd[0] = find_tool("octet-run")
    if proc.returncode != 0:
        raise OctetRunError("%s failed (exit %d):\n%s\nmodule: %s" % (
            " ".join(cmd), proc.returncode, proc.stderr.strip(), mlir))
    res = [np.load(p) for p in outs]
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return res


# ---------------------------------------------------------------------------
# Comparing
# ---------------------------------------------------------------------------


def fmt_float(v):
    v = np.asarray(v)
    if v.dtype == ml_dtypes.bfloat16:
        return "%r(bf16 0x%04x)" % (float(v), int(v.view(np.uint16)))
    b = bits(v.reshape(1))[0]
    w = v.dtype.itemsize * 2
    return "%r(0x%0*x)" % (float(v), w, int(b))


def fmt_code(v, scheme):
    if scheme is not None and scheme.format.is_fp8:
        f = scheme.format.fp8
        return "0x%02x(=%r)" % (int(v), float(np.uint8(v).view(f)))
    return str(int(v))


class Checker:
    """Counts compared values and collects mismatches with the inputs that
    produced them; `finish()` prints a summary and exits non-zero on any
    mismatch or failed program."""

    def __init__(self, title, max_report=8):
        self.title = title
        self.values = 0
        self.programs = 0
        self.results = 0
        self.failures = []   # (label, text)
        self.max_report = max_report

    def program(self):
        self.programs += 1

    def error(self, label, message):
        self.failures.append((label, message))
        print("ERROR %s: %s" % (label, message))

    def compare(self, label, expected, actual, context=(), scheme=None,
                kind="float"):
        """Bit-compares `actual` with `expected` (same shape). `context` is a
        list of (name, array broadcastable to the shape, how) printed for each
        mismatch; how is 'float', 'int', 'code' (a code of `scheme`) or
        ('code', other_scheme)."""
        self.results += 1
        expected = np.asarray(expected)
        actual = np.asarray(actual)
        if expected.shape != actual.shape:
            self.error(label, "shape %s, expected %s" % (
                actual.shape, expected.shape))
            return False
        self.values += expected.size
        bad = bits(expected) != bits(actual)
        n = int(np.count_nonzero(bad))
        if n == 0:
            return True
        lines = ["%d of %d values differ" % (n, expected.size)]
        idx = np.argwhere(bad)
        for k, i in enumerate(idx[: self.max_report]):
            i = tuple(i)
            parts = []
            for name, arr, how in context:
                a = np.broadcast_to(np.asarray(arr), expected.shape)[i]
                parts.append("%s=%s" % (name, self._fmt(a, how, scheme)))
            parts.append("expected=%s" % self._fmt(expected[i], kind, scheme))
            parts.append("actual=%s" % self._fmt(actual[i], kind, scheme))
            lines.append("  at %s: %s" % ([int(k) for k in i],
                                          " ".join(parts)))
        if n > self.max_report:
            lines.append("  ... and %d more" % (n - self.max_report))
        self.error(label, "\n".join(lines))
        return False

    @staticmethod
    def _fmt(v, how, scheme):
        if isinstance(how, tuple):  # ("code", scheme of that array)
            how, scheme = how
        if how == "float":
            return fmt_float(v)
        if how == "code":
            return fmt_code(v, scheme)
        return str(v)

    def finish(self):
        print("%s: %d programs, %d results, %d values compared bit for bit, "
              "%d failures" % (self.title, self.programs, self.results,
                               self.values, len(self.failures)))
        if self.failures:
            print("FAILED:")
            for label, _ in self.failures:
                print("  " + label)
            sys.exit(1)


# ---------------------------------------------------------------------------
# Test-value generators
# ---------------------------------------------------------------------------

SPECIAL_F32 = np.array(
    [0x00000000, 0x80000000,  # +0, -0
     0x7F800000, 0xFF800000,  # +-inf
     0x7FC00000, 0xFFC00000,  # +-NaN
     0x7FA00000,              # NaN with a payload (signalling)
     0x00000001, 0x80000001,  # +-smallest subnormal
     0x00400000, 0x807FFFFF,  # subnormals
     0x00800000, 0x80800000,  # +-FLT_MIN
     0x7F7FFFFF, 0xFF7FFFFF,  # +-FLT_MAX
     ], np.uint32).view(np.float32)


def far_values(limit):
    """Values far outside a range of magnitude `limit` (in scale units)."""
    v = [limit * 4, limit * 1e3, 1e20, 3e38, 2.0 ** 24 + 1, 2.0 ** 31,
         2.0 ** 32, 2.0 ** 63]
    v = np.array(v, np.float64)
    return np.concatenate([v, -v])


def int_unit_values(scheme, zp_e, rng):
    """For every element (zp_e gives its zero point) a value in units of the
    scale that targets a code of [qmin-3, qmax+3] at offsets +-0.5 (ties of
    both signs), 0, +-0.25, +-1.5 and just either side of the ties; every tie
    is included when the array is large enough. Returns float64 units
    (x = units * scale)."""
    n = zp_e.size
    targets = np.arange(scheme.qmin - 3, scheme.qmax + 4).astype(np.float64)
    ties = np.concatenate([targets + 0.5, targets - 0.5])
    others = np.concatenate([targets + f for f in (
        0.0, 0.25, -0.25, 0.5 - 2 ** -20, 0.5 + 2 ** -20, -0.5 + 2 ** -20,
        -0.5 - 2 ** -20, 1.5, -1.5, 0.75)])
    grid = np.concatenate([ties, others])
    if grid.size <= n:
        pool = np.concatenate([grid, rng.choice(grid, n - grid.size)])
    elif ties.size <= n:
        pool = np.concatenate([ties, rng.choice(others, n - ties.size,
                                                replace=False)])
    else:
        pool = rng.choice(ties, n, replace=False)
    pool = rng.permutation(pool)
    # The targets are codes; the zero point is added back by quantize.
    return pool - zp_e.reshape(-1).astype(np.float64)


def nf4_unit_values(n, rng):
    """Values (in units of the scale) that stress an NF4 encoder: every
    table value, every threshold (a tie: it goes down) and the f32 values on
    either side of it, beyond +-1; the rest uniform in [-1.2, 1.2].
    float32."""
    t = NF4_THRESHOLDS
    keep = np.concatenate([NF4_VALUES, t, np.nextafter(t, F32(np.inf)),
                           np.nextafter(t, F32(-np.inf)),
                           np.float32([1.5, -1.5, 1.0000001, -1.0000001])])
    extra = rng.uniform(-1.2, 1.2, max(0, n - keep.size)).astype(np.float32)
    return rng.permutation(np.concatenate([keep, extra]))[:n].astype(
        np.float32) if n >= keep.size else keep[:n]


def fp8_unit_values(fmt, n, rng):
    """Values (in units of the scale) that stress an FP8 encoder: every
    finite value, every rounding midpoint between neighbours (and the f32
    values on either side of it), the overflow thresholds, subnormal
    midpoints; both signs. float32."""
    f = FORMATS[fmt]
    codes = np.arange(1 << f.bits, dtype=np.uint8).view(f.fp8).astype(
        np.float32)
    fin = np.unique(np.abs(codes[np.isfinite(codes)]))  # 0 .. max
    mids = ((fin[:-1].astype(np.float64) + fin[1:]) / 2).astype(np.float32)
    top = np.float64(f.max_finite)
    # The first value past max: the midpoint to the next (missing) binade step.
    step = fin[-1] - fin[-2]
    over = np.array([top + step / 2, top + step / 2 + 1, top + step,
                     top * 2, top * 1000], np.float64).astype(np.float32)
    if fmt == "f8E4M3FN":
        over = np.concatenate([over, np.float32([464, 465, 463.99997, 480])])
    elif fmt == "f4E2M1FN":  # 6 + 2 / 2: the first value that would round up
        over = np.concatenate([over, np.float32([7, 7.0000005, 6.9999995,
                                                  8])])
    else:
        over = np.concatenate([over, np.float32([61439, 61440, 61439.996,
                                                  65536])])
    near = np.concatenate([np.nextafter(mids, F32(np.inf)),
                           np.nextafter(mids, F32(0))])
    pos = np.concatenate([fin, mids, near, over])
    pool = np.concatenate([pos, -pos])
    if pool.size < n:
        extra = rng.uniform(-top * 1.2, top * 1.2, n - pool.size)
        pool = np.concatenate([pool, extra.astype(np.float32)])
    else:
        keep = np.concatenate([mids, -mids, over, -over, fin, -fin])
        rest = np.setdiff1d(pool, keep)
        pool = np.concatenate([keep, rng.choice(rest, max(0, n - keep.size),
                                                replace=False)])[:n]
    return rng.permutation(pool.astype(np.float32))


def place_specials(x, specials, rng):
    """Overwrites len(specials) random positions of flat array `x`."""
    flat = x.reshape(-1)
    pos = rng.choice(flat.size, len(specials), replace=False)
    flat[pos] = specials
    return pos


SCALE_CHOICES_INT = np.float32([0.1, 0.5, 1.0, 0.037, 2.0, 0.25, 1e-3, 3.0,
                                7.5, 0.0625, 0.3, 1.7])
# FP8 midpoints times these scales stay exact (short mantissas), plus a few
# that are not exact.
SCALE_CHOICES_FP8 = np.float32([1.0, 0.5, 2.0, 0.125, 3.0, 0.75, 2.0 ** -10,
                                1.5, 0.1, 0.037, 6.0, 2.0 ** 8])


def pick_zero_points(scheme, shape, rng):
    """Zero points inside [qmin, qmax], biased towards the range ends."""
    lo, hi = scheme.qmin, scheme.qmax
    mid = (lo + hi) // 2
    cand = np.array(sorted({lo, lo + 1, hi, hi - 1, mid, 0 if lo <= 0 <= hi
                            else lo, lo + 2, hi - 2}), np.int32)
    cand = cand[(cand >= lo) & (cand <= hi)]
    return rng.choice(cand, size=shape).astype(np.int32)


def check_dynamic_params(ck, x, scheme, want_s, workdir, prefix):
    """octet.compute_params of `x` under `scheme`, then octet.quantize and
    octet.dequantize with those scales, JIT-run by octet-run twice (the
    input as a function argument: the lowering; as a constant: the
    folder) and compared bit for bit with the oracle's scales `want_s` and
    the codes and values they give (quantize / dequantize above). Results
    are tagged PREFIX_argument / PREFIX_constant in the Checker `ck`."""
    shape = x.shape
    want_q = quantize(x, scheme, want_s)
    want_d = dequantize(want_q, scheme, want_s)
    st = tensor_type(shape, scheme.format.storage)
    xt = tensor_type(shape, "f32")
    pt = tensor_type(scheme.param_shape(shape), "f32")
    for how in ("argument", "constant"):
        fb = FunctionBuilder("case")
        xs = fb.arg("%x", xt, x) if how == "argument" else \
            fb.const(x, shape, "f32", stem="xc")
        fb.lines.append("%%s = octet.compute_params %s as %s : %s -> %s" % (
            xs, scheme.attr(), xt, pt))
        fb.lines.append("%%q = octet.quantize %s scale(%%s : %s) as %s : "
                        "%s -> %s" % (xs, pt, scheme.attr(), xt, st))
        fb.lines.append("%%d = octet.dequantize %%q scale(%%s : %s) as %s : "
                        "%s -> %s" % (pt, scheme.attr(), st, xt))
        fb.result("%s", pt)
        fb.result("%q", st)
        fb.result("%d", xt)
        if how == "constant":  # octet-run needs an argument: a dummy one
            fb.arg("%unused", tensor_type((1,), "f32"), np.zeros(1, F32))
        tag = "%s_%s" % (prefix, how)
        ck.program()
        try:
            got = run_octet(fb.text(), "case", fb.inputs(), 3,
                            workdir=workdir, tag=tag)
        except OctetRunError as e:
            ck.error(tag, str(e))
            continue
        S = scheme.expand(want_s, shape)
        ck.compare("%s [scale]" % tag, want_s, got[0], [], None)
        ck.compare("%s [quantize]" % tag, want_q, npy_to_codes(got[1], scheme),
                   [("x", x, "float"), ("scale", S, "float")], scheme,
                   kind="code")
        ck.compare("%s [dequantize]" % tag, want_d, got[2],
                   [("code", want_q, "code"), ("scale", S, "float")], scheme)


def attention(q, k, v, pos, scale, exact_scores=False):
    """float64 causal grouped-query attention of f32 inputs (octet.attention:
    q [S, KV, G, Dh], k [KV, Dh, N] transposed keys, v [KV, N, Dh], query s
    sees keys 0 .. pos[s]) and the op's Bounds tolerance per output
    (docs/numerics.md, "octet.attention"):

        tol = 2 * u * (2 * (Dh + 2) * |scale| * max_j sum_d |q_d k_dj|
                       + 2 * lim + 6) * sum_j p_j |v_j|

    (u = 2^-23): the score error moves each p_j by at most twice its relative
    size; exp, the two sums over the lim visible keys and the division add
    the rest; the leading 2 is slack. exact_scores (integer q and k, a
    power-of-two scale) drops the first term. No visible key: NaN (N = 0:
    zeros). Returns (ref, tol)."""
    S, KV, G, Dh = q.shape
    N = k.shape[2]
    eps = float(np.finfo(np.float32).eps)
    out = np.zeros((S, KV, G, Dh))
    tol = np.zeros((S, KV, G, Dh))
    q64, k64, v64 = (np.asarray(x, np.float64) for x in (q, k, v))
    for s in range(S):
        lim = int(min(max(int(pos[s]) + 1, 0), N))
        for h in range(KV):
            for g in range(G):
                if N == 0:
                    continue
                if lim == 0:
                    out[s, h, g] = np.nan
                    continue
                sc = q64[s, h, g] @ k64[h, :, :lim] * float(scale)
                absdot = np.abs(q64[s, h, g]) @ np.abs(k64[h, :, :lim])
                p = np.exp(sc - sc.max())
                p /= p.sum()
                out[s, h, g] = p @ v64[h, :lim]
                pv = p @ np.abs(v64[h, :lim])
                score_err = 0.0 if exact_scores else \
                    2 * (Dh + 2) * abs(float(scale)) * absdot.max()
                tol[s, h, g] = 2 * eps * (score_err + 2 * lim + 6) * pv \
                    + 1e-30
    return out, tol
