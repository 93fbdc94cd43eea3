"""Checks the oracle itself (test/lib/octet_oracle.py) against hand-computed
values from DESIGN.md's numerics contract, so that a change to the oracle
cannot silently make it agree with a wrong compiler. Runs no octet tool."""

import numpy as np

import octet_oracle as o
from octet_oracle import Scheme

F = np.float32
failures = []


def check(name, got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    ok = got.shape == want.shape and np.array_equal(o.bits(got.astype(
        want.dtype)), o.bits(want))
    print("%s: %s" % ("ok" if ok else "MISMATCH", name))
    if not ok:
        print("  got  %r\n  want %r" % (got, want))
        failures.append(name)


def f32(*v):
    return np.array(v, np.float32)


def from_bits(*b):
    return np.array(b, np.uint32).view(np.float32)


# DESIGN.md regression.
check("i8 scale 0.1", o.quantize(f32(0.26, -1.74, 3.5, 2.5, 400, -1000),
                                 Scheme("i8"), F(0.1)),
      np.int32([3, -17, 35, 25, 127, -128]))
# Ties to even of both signs, NaN -> zp, +-inf saturate, -0.
check("i8 ties/specials", o.quantize(
    f32(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, np.nan, np.inf, -np.inf, -0.0),
    Scheme("i8"), F(1)), np.int32([0, 2, 2, 0, -2, -2, 0, 127, -128, 0]))
check("u8 asym zp 250", o.quantize(
    f32(np.nan, np.inf, -np.inf, 2.5, 4.5, 5.5), Scheme("u8", symmetric=False),
    F(1), np.int32(250)), np.int32([250, 255, 0, 252, 254, 255]))
check("i8<-127:127>", o.quantize(f32(-1000), Scheme("i8", qmin=-127,
                                                     qmax=127), F(1)),
      np.int32([-127]))
# True division, not the reciprocal: f32(-9.15) / f32(0.1) = -91.49999 -> -91
# while -9.15 * (1 / 0.1) = -91.5 -> -92; f32(0.35) / f32(0.1) is exactly
# 3.5 -> 4 (ties to even).
check("true division", o.quantize(f32(-9.15, 0.35), Scheme("i8"), F(0.1)),
      np.int32([-91, 4]))
# FP8: saturating keeps NaN (and its sign), clamps inf; non_saturating is
# ml_dtypes (E4M3FN 464 -> 448, 465 -> NaN; E5M2 61439 -> 57344,
# 61440 -> inf).
e4 = [448, 464, 465, np.inf, -np.inf, np.nan, -0.0]
check("E4M3FN saturating", o.quantize(f32(*e4), Scheme("f8E4M3FN"), F(1)),
      np.uint8([0x7E, 0x7E, 0x7E, 0x7E, 0xFE, 0x7F, 0x80]))
check("E4M3FN non_saturating",
      o.quantize(f32(*e4), Scheme("f8E4M3FN", saturate=False), F(1)),
      np.uint8([0x7E, 0x7E, 0x7F, 0x7F, 0xFF, 0x7F, 0x80]))
e5 = [57344, 61439, 61440, np.inf, -np.inf, -0.0]
check("E5M2 saturating", o.quantize(f32(*e5), Scheme("f8E5M2"), F(1)),
      np.uint8([0x7B, 0x7B, 0x7B, 0x7B, 0xFB, 0x80]))
check("E5M2 non_saturating",
      o.quantize(f32(*e5), Scheme("f8E5M2", saturate=False), F(1)),
      np.uint8([0x7B, 0x7B, 0x7C, 0x7C, 0xFC, 0x80]))
check("E4M3FN -NaN keeps sign",
      o.quantize(from_bits(0xFFC00000), Scheme("f8E4M3FN"), F(1)),
      np.uint8([0xFF]))
# Subnormal FP8 rounding: E4M3FN min subnormal 2^-9; 2^-10 is a tie -> 0,
# 3*2^-10 -> 2^-8 (even).
check("E4M3FN subnormal ties", o.quantize(
    f32(2.0 ** -10, 3 * 2.0 ** -10), Scheme("f8E4M3FN"), F(1)),
    np.uint8([0x00, 0x02]))
# Dequantize.
check("dequantize u8 asym", o.dequantize(np.int32([0, 255]),
                                         Scheme("u8", symmetric=False),
                                         F(0.5), np.int32(255)),
      f32(-127.5, 0.0))
check("dequantize E5M2 inf/NaN", o.dequantize(np.uint8([0x7C, 0xFD, 0x3C]),
                                              Scheme("f8E5M2"), F(2)),
      from_bits(0x7F800000, 0xFFC00000, 0x40000000))
check("dequantize to f16 overflows", o.dequantize(
    np.uint8([0x7B]), Scheme("f8E5M2"), F(2), out="f16"),
    np.array([np.inf], np.float16))
# Granularity expansion.
s = Scheme("i8", "per_group", 0, 2)
check("per_group(0, 2) expand", s.expand(f32(1, 2).reshape(1, 2), (2, 2)),
      f32(1, 2, 1, 2).reshape(2, 2))
check("per_axis(1) expand", Scheme("i8", "per_axis", 1).expand(
    f32(1, 2, 3), (2, 3)), f32(1, 2, 3, 1, 2, 3).reshape(2, 3))
check("per_group(1, 2) expand", Scheme("i8", "per_group", 1, 2).expand(
    f32(1, 2, 3, 4).reshape(2, 2), (2, 4)),
    f32(1, 1, 2, 2, 3, 3, 4, 4).reshape(2, 4))
assert Scheme("i8", "per_group", 1, 32, symmetric=False).attr() == \
    "<i8, per_group(1, 32), asymmetric>"
assert Scheme("i8", qmin=-127, qmax=127).attr() == "<i8<-127:127>>"
assert Scheme("f8E5M2", "per_axis", 0, saturate=False).attr() == \
    "<f8E5M2, per_axis(0), non_saturating>"
# Carriers.
check("u4 codes carrier (zext)", o.codes_to_npy(np.int32([15, 8, 7]),
                                                Scheme("u4")),
      np.int8([15, 8, 7]))
check("u4 codes carrier (sext)", o.codes_to_npy(
    np.int32([15, 8, 7]), Scheme("u4"), nibble="sext"), np.int8([-1, -8, 7]))
check("u4 result decode", o.npy_to_codes(np.int8([-1, -8, 7]), Scheme("u4")),
      np.int32([15, 8, 7]))
check("u8 result decode", o.npy_to_codes(np.int8([-1, -128]), Scheme("u8")),
      np.int32([255, 128]))
check("bf16 carrier", o.floats_to_npy(f32(1.0, -2.0), "bf16"),
      np.uint16([0x3F80, 0xC000]))

# Near ties (DESIGN.md: one-step flips allowed only there). i8, scale 1:
# 49.5000267 and 49.4999924 are the two f32 evaluations of one MiniLM
# activation that rounded to different codes; 49.49 and 2.25 are far from
# a tie; 127.5 would round to 128, clamped to 127 (no neighbour in range);
# -0.5 ties between 0 and -1.
near, alt = o.near_ties(f32(49.5000267, 49.4999924, 49.49, 2.25, 127.5,
                            -0.5, 3.5), Scheme("i8"), f32(1))
check("near_ties i8 mask", near, np.array([1, 1, 0, 0, 0, 1, 1], bool))
check("near_ties i8 alternative", alt[near], np.int32([49, 50, -1, 3]))
# u8 asymmetric, zero point 10, scale 0.5: x = 1.25 -> t = 2.5 (codes 12 or
# 13, rint gives 12); x = 1.3 -> t = 2.6 is not near.
near, alt = o.near_ties(f32(1.25, 1.3), Scheme("u8", symmetric=False),
                        f32(0.5), np.int32(10))
check("near_ties u8 zp mask", near, np.array([1, 0], bool))
check("near_ties u8 zp alternative", alt[:1], np.int32([13]))
# E4M3FN, scale 1: 17 lies between 16 and 18 (ties to even: 16, alternative
# 18); 16.9 is not near; 464 (between 448 and the saturated 480) is
# clamped to 448 and has no neighbour; the subnormal midpoint 3 * 2^-10
# lies between 2^-9 and 2^-8 (even: 2^-8, alternative 2^-9).
near, alt = o.near_ties(f32(17.0, 16.9, 464.0, 3 * 2.0 ** -10),
                        Scheme("f8E4M3FN"), f32(1))
check("near_ties e4m3 mask", near, np.array([1, 0, 0, 1], bool))
check("near_ties e4m3 alternative",
      alt[near].view(np.uint8).view(o.FORMATS["f8E4M3FN"].fp8).astype(F),
      f32(18.0, 2.0 ** -9))

if failures:
    print("oracle self-test: %d failures" % len(failures))
    raise SystemExit(1)
print("oracle self-test: all checks passed")
