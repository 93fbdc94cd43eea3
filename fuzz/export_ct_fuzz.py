#!/usr/bin/env python3
"""export_ct_fuzz: mutate octet safetensors files and check that the
compressed-tensors exporter (tools/import-model/
octet_export_compressed_tensors.py) copes.

    .venv/bin/python fuzz/export_ct_fuzz.py --runs 2000 --seed 1 [--time-limit 60]

The files and their mutations are export_gguf_fuzz's (a tiny llama GGUF;
valid weights files written in pure Python, no Octet tool needed;
mutations of the tensors, the metadata, the JSON header and the bytes: see
fuzz/export_gguf_fuzz.py), with the variants of every weight format the
exporter converts, each linear weight laid out as octet-export-safetensors
writes it:

  i8, i4, u4   integer codes in groups of 32 (export_gguf_fuzz's variants)
  f8-tensor, f8-channel, f8-group
               FP8 E4M3 codes (F8_E4M3), F32 scales per tensor, per output
               channel or per group of 32
  f8-block32, f8-block8, f8-block48
               the same per group of 32, the scales repeated over blocks of
               32, 8 or 48 rows (channel-block: compressed-tensors' strategy
               "block"; 8 splits in q / k's head permutation, 48 leaves a
               shorter last block)
  mxfp8        FP8 E4M3 codes, E8M0 scales (F8_E8M0) per group of 32
  mxfp4        E2M1 codes (U8, one a byte), E8M0 scales per group of 32
  nvfp4, nvfp4-g
               E2M1 codes, F32 scales per group of 16 that are E4M3 values
               times the scheme's global scale e4m3(g) (g = 2^-10, and an f32
               that is no power of two)

The codes are random valid ones (E4M3: every byte but the NaNs; E2M1:
0..15), the scales random (E8M0 exponents in 2^-10 .. 2^10; NVFP4's E4M3
block scales any positive one). The mutations also put the FP8 / E8M0
dtypes in the header and the tensors, and the FP8 / MX / NVFP4 schemes
(wrong groups, global scales, e8m0 on the wrong format) in the metadata.
Run i of `--seed S` uses the seed `S * 1000003 + i` (`--only i` replays
it) and calls `export(source, weights, directory)`.

Every outcome must be a success or an ExportError / GGUFError, and a
rejected file must leave no directory. An accepted file must give a
checkpoint whose model.safetensors holds every source tensor under its
Hugging Face name and nothing else, and a config.json whose
quantization_config gives each quantized weight one config group, with the
format, num_bits, type, symmetric, strategy, group_size (block_structure,
scale_dtype) its scheme and dtypes call for (the scheme's e8m0 agreeing
with E8M0 scales, integer codes I8 / U8 as their format is signed or not). Read from the files here (not with the
exporter's reader), after llama.cpp's q / k row permutation: integer
weights (pack-quantized) unpack to the file's codes, scales and zero
points exactly; FP8 weights (float-quantized) hold the file's code bytes
(F8_E4M3) and F32 scales ([1], [out, 1], [out, in / 32], or one per block
that repeated over its rows gives the file's); MXFP8 / MXFP4 (mxfp8-
quantized, mxfp4-pack-quantized) the E8M0 bytes as U8 scales, MXFP4 and
NVFP4 the codes two a byte (the even one low); NVFP4 (nvfp4-pack-quantized)
E4M3 scales sb with sb * g equal to the file's scale, weight_global_scale
f32(1 / g), and sb / weight_global_scale the file's scale (exactly for a
power-of-two g, within one f32 step otherwise); each float tensor equal to
the file's or the source's. Anything else is a finding: the seed and the
traceback are printed and the exit status is 1. The last line is

    export_ct_fuzz: N runs, K rejected with ExportError, F findings
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "tools", "import-model")]
import export_gguf_fuzz as gf  # noqa: E402
import gguf_llama  # noqa: E402
import octet_export_compressed_tensors as ct  # noqa: E402

FP8 = ml_dtypes.float8_e4m3fn
E8M0 = ml_dtypes.float8_e8m0fnu
NV_G = 2.0 ** -10                        # a power of two: sb / (1 / g) exact
NV_G2 = float(np.float32(0.0123))        # any f32: within one f32 step


def nvfp4_scheme(g):
    return "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(%.9g)>" % g


F8_GROUP = "#octet.scheme<f8E4M3FN, per_group(1, 32)>"
# variant: (scheme, codes, scales: "f32", "e8m0" or NVFP4's global scale,
# granularity, group, rows of a block or None)
FLOAT_FORMATS = {
    "f8-tensor": ("#octet.scheme<f8E4M3FN>", "fp8", "f32", "tensor", None, None),
    "f8-channel": ("#octet.scheme<f8E4M3FN, per_axis(0)>", "fp8", "f32",
                   "channel", None, None),
    "f8-group": (F8_GROUP, "fp8", "f32", "group", 32, None),
    "f8-block32": (F8_GROUP, "fp8", "f32", "group", 32, 32),
    "f8-block8": (F8_GROUP, "fp8", "f32", "group", 32, 8),
    "f8-block48": (F8_GROUP, "fp8", "f32", "group", 32, 48),
    "mxfp8": ("#octet.scheme<f8E4M3FN, per_group(1, 32), e8m0>", "fp8", "e8m0",
              "group", 32, None),
    "mxfp4": ("#octet.scheme<f4E2M1FN, per_group(1, 32), e8m0>", "fp4", "e8m0",
              "group", 32, None),
    "nvfp4": (nvfp4_scheme(NV_G), "fp4", NV_G, "group", 16, None),
    "nvfp4-g": (nvfp4_scheme(NV_G2), "fp4", NV_G2, "group", 16, None),
}
# What each valid variant's weights become: (format, strategy, group_size,
# rows of a block). q / k blocks of 8 rows are blocks of 4 in Hugging
# Face's order, 48 rows leave k (32 rows) one block of 32: every weight
# is written with the rows' gcd.
EXPECT = {
    "i8": ("pack-quantized", "group", 32, None),
    "i4": ("pack-quantized", "group", 32, None),
    "u4": ("pack-quantized", "group", 32, None),
    "f8-tensor": ("float-quantized", "tensor", None, None),
    "f8-channel": ("float-quantized", "channel", None, None),
    "f8-group": ("float-quantized", "group", 32, None),
    "f8-block32": ("float-quantized", "block", None, 32),
    "f8-block8": ("float-quantized", "block", None, 4),
    "f8-block48": ("float-quantized", "block", None, 16),
    "mxfp8": ("mxfp8-quantized", "group", 32, None),
    "mxfp4": ("mxfp4-pack-quantized", "group", 32, None),
    "nvfp4": ("nvfp4-pack-quantized", "tensor_group", 16, None),
    "nvfp4-g": ("nvfp4-pack-quantized", "tensor_group", 16, None),
}
# Code values bad_codes writes into the FP8 codes (NaN, saturation; all
# still codes: the exporter copies FP8 bytes) and the E2M1 bytes (> 15).
CODE_VALUES = {"fp8": (float("nan"), 448.0, -448.0, 1e6, -0.0, 2.0 ** -9),
               "fp4": (16, 255, 15, 0, 128, 8)}
# Scheme texts the scheme mutations also choose from.
EXTRA_SCHEMES = (
    "#octet.scheme<f8E4M3FN>", "#octet.scheme<f8E4M3FN, per_axis(0)>",
    "#octet.scheme<f8E4M3FN, per_axis(1)>", "#octet.scheme<f8E4M3FN, per_tensor>",
    "#octet.scheme<f8E4M3FN, per_group(1, 32), e8m0>",
    "#octet.scheme<f8E4M3FN, per_group(1, 16), e8m0>",
    "#octet.scheme<f8E4M3FN, per_axis(0), e8m0>",
    "#octet.scheme<f8E4M3FN, per_group(1, 64)>",
    "#octet.scheme<f8E4M3FN, per_group(0, 32)>",
    "#octet.scheme<f8E4M3FN, per_group(1, 32), asymmetric>",
    "#octet.scheme<f8E5M2, per_group(1, 32)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 32), e8m0>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e8m0>",
    "#octet.scheme<f4E2M1FN, per_group(1, 32), e8m0, e4m3(0.5)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e8m0, e4m3(%.9g)>" % NV_G,
    nvfp4_scheme(NV_G), nvfp4_scheme(NV_G2), nvfp4_scheme(2 * NV_G),
    nvfp4_scheme(NV_G / 2), nvfp4_scheme(0.3),
    "#octet.scheme<f4E2M1FN, per_group(1, 32), e4m3(%.9g)>" % NV_G,
    "#octet.scheme<f4E2M1FN, per_axis(0), e4m3(%.9g)>" % NV_G,
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(0)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(-0.0009765625)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(inf)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(nan)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(1e-45)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(1e39)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3()>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), asymmetric, e4m3(0.5)>",
)
EXTRA_DTYPES = ("F8_E4M3", "F8_E5M2", "F8_E8M0")


# ---------------------------------------------------------------------------
# The FP8 / MX / NVFP4 files
# ---------------------------------------------------------------------------

def float_parts(fmt, shape, seed):
    """(codes, scale, None) of a [rows, cols] weight in variant `fmt`, as
    octet-export-safetensors writes them: FP8 codes as float8_e4m3fn, E2M1
    codes as uint8, F32 scales ([] per tensor, [rows] per channel, [rows,
    cols / group] per group), E8M0 scales as float8_e8m0fnu."""
    _, codes, scales, gran, group, block = FLOAT_FORMATS[fmt]
    rng = np.random.default_rng(seed)
    rows, cols = shape
    if codes == "fp8":     # every E4M3FN byte but the NaNs 0x7F and 0xFF
        b = rng.integers(0, 254, shape, dtype=np.uint8)
        q = (b + (b >= 0x7F)).astype(np.uint8).view(FP8)
    else:                  # E2M1, the code in the low nibble of a byte
        q = rng.integers(0, 16, shape, dtype=np.uint8)
    sshape = {"tensor": (), "channel": (rows,),
              "group": (rows, cols // (group or 1))}[gran]
    if scales == "e8m0":   # biased exponents: 2^-10 .. 2^10
        s = np.asarray(rng.integers(117, 138, sshape, dtype=np.uint8)).view(E8M0)
    elif scales == "f32":
        if block:          # one scale per block of rows (the last shorter)
            nb = -(-rows // block)
            s = np.repeat(rng.uniform(2.0 ** -12, 2.0 ** -4, (nb,) + sshape[1:]),
                          block, axis=0)[:rows]
        else:
            s = rng.uniform(2.0 ** -12, 2.0 ** -4, sshape)
        s = np.asarray(s, np.float32)
    else:                  # NVFP4: E4M3 block scales (codes 1..126) times g
        sb = np.asarray(rng.integers(1, 127, sshape, dtype=np.uint8))
        s = sb.view(FP8).astype(np.float32) * np.float32(scales)
    return q, s, None


def make_float_variant(src, fmt):
    """(tensors, metadata) of a valid octet file in variant `fmt`."""
    tensors, meta = {}, {"format": "octet"}
    index = sorted(FLOAT_FORMATS).index(fmt)
    for i, name in enumerate(src.tensor_names()):
        w = src.tensor(name)
        if gf.is_linear(name):
            q, s, _ = float_parts(fmt, w.shape, (index, i))
            tensors[name] = q
            tensors[name + ".scale"] = s
            meta[name] = FLOAT_FORMATS[fmt][0]
        else:
            tensors[name] = w
    return tensors, meta


# The float variants as export_gguf_fuzz's mutations see them (its Case):
# the scheme, the bad code values, and quantize_float's "quantizer".
FORMATS = {fmt: (spec[0], CODE_VALUES[spec[1]],
                 lambda w, fmt=fmt: float_parts(fmt, w.shape, w.shape))
           for fmt, spec in FLOAT_FORMATS.items()}


# ---------------------------------------------------------------------------
# The checks, from the files themselves
# ---------------------------------------------------------------------------

ST_NUMPY = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
            "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
            "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1",
            "BOOL": "?", "F8_E4M3": "u1", "F8_E5M2": "u1", "F8_E8M0": "u1"}
SCHEME_RE = re.compile(r"#octet\.scheme<(?P<fmt>[a-zA-Z0-9]+)"
                       r"(?:<(?P<lo>-?\d+):(?P<hi>-?\d+)>)?(?P<rest>.*)>$")
INT_RANGE = {"i8": (-128, 127), "u8": (0, 255), "i4": (-8, 7), "u4": (0, 15)}


def read_st(path):
    """({name: (dtype, array)}, metadata) of a safetensors file (8-bit
    floats as their bytes); the accepted input and the output."""
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", None) or {}
    data = blob[8 + n:]
    tensors = {}
    for name, e in header.items():
        begin, end = (int(o) for o in e["data_offsets"])
        tensors[name] = (e["dtype"], np.frombuffer(
            data[begin:end], ST_NUMPY[e["dtype"]]).reshape(
                [int(d) for d in e["shape"]]))
    return tensors, meta


def parse_scheme(text):
    m = SCHEME_RE.match(text)
    assert m, ("accepted the scheme", text)
    rest = m.group("rest")
    group = re.search(r"per_group\((\d+), (\d+)\)", rest)
    axis = re.search(r"per_axis\((\d+)\)", rest)
    e4m3 = re.search(r"e4m3\(([^)]*)\)", rest)
    flags = re.sub(r"\([^)]*\)", "", rest).split(", ")[1:]
    return {"format": m.group("fmt"), "text": text,
            "range": None if m.group("lo") is None else
            (int(m.group("lo")), int(m.group("hi"))),
            "kind": "per_group" if group else "per_axis" if axis else
            "per_tensor",
            "axis": int(group.group(1)) if group else
            int(axis.group(1)) if axis else None,
            "group": int(group.group(2)) if group else None,
            "symmetric": "asymmetric" not in flags, "e8m0": "e8m0" in flags,
            "g": None if e4m3 is None else float(e4m3.group(1))}


def ct_strategy(s, shape):
    """(strategy, group_size, compressed-tensors' scale shape, octet's) of
    an accepted scheme of a [out, in] weight."""
    out, cols = shape
    if s["kind"] == "per_tensor":
        return "tensor", None, (1,), None
    if s["kind"] == "per_axis":
        assert s["axis"] == 0, (s["text"], "per channel is axis 0")
        return "channel", None, (out, 1), (out,)
    assert s["axis"] == 1 and s["group"] > 0 and cols % s["group"] == 0, \
        (s["text"], "groups of a", shape, "weight")
    return "group", s["group"], (out, cols // s["group"]), \
        (out, cols // s["group"])


def gguf_permute(w, n_head):
    """llama.cpp's convert_hf_to_gguf.py permute (HF rows -> GGUF rows)."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(
        np.ascontiguousarray(a).view(np.uint32),
        np.ascontiguousarray(b).view(np.uint32))


def unpack(words, bits, cols):
    u = words.astype(np.int64) & 0xFFFFFFFF
    per = 32 // bits
    i = np.arange(cols)
    return ((u[:, i // per] >> ((i % per) * bits)) & ((1 << bits) - 1)) \
        - (1 << (bits - 1))


def unpack_fp4(packed, cols):
    """Two E2M1 codes a byte along the row, the even one in the low nibble."""
    codes = np.empty((packed.shape[0], cols), np.uint8)
    codes[:, 0::2] = packed & 0xF
    codes[:, 1::2] = packed >> 4
    return codes


def check_scale(got, suffix, want_dtype, ct_shape, perm, name):
    """The output's scale tensor `suffix`, of `want_dtype` and shape
    `ct_shape`, in GGUF's row order (its rows permuted back)."""
    dt, gs = got[suffix]
    assert dt == want_dtype and tuple(gs.shape) == tuple(ct_shape), \
        (name, suffix, dt, gs.shape, "want", want_dtype, ct_shape)
    return gs if len(ct_shape) == 1 else perm(gs)


def check_mx_scales(got, base, s, strat, group, args, scale, ct_shape, perm,
                    name):
    """An MX weight's scales: groups of 32, U8 E8M0 bytes equal to the
    file's."""
    assert strat == "group" and group == 32, (name, s["text"])
    assert args.get("scale_dtype") == "torch.uint8", (name, args)
    gs = check_scale(got, base + ".weight_scale", "U8", ct_shape, perm, name)
    assert np.array_equal(gs, scale), (name, "E8M0 scales differ")


def check_weight(name, base, s, tensors, got, args, perm):
    """Check one quantized weight's tensors and weights args; returns
    ((format, strategy, group_size, block rows), its tensor names)."""
    cd, codes = tensors[name]
    sd, scale = tensors[name + ".scale"]
    zp = tensors.get(name + ".zero_point")
    assert codes.ndim == 2, (name, codes.shape)
    out, cols = codes.shape
    strat, group, ct_shape, octet_shape = ct_strategy(s, codes.shape)
    assert (scale.size == 1) if octet_shape is None else \
        tuple(scale.shape) == octet_shape, (name, "scales", scale.shape)
    assert (sd == "F8_E8M0") == s["e8m0"], \
        (name, "accepted", sd, "scales for the scheme", s["text"])
    assert sd in ("F32", "F8_E8M0"), (name, sd)
    assert args["symmetric"] == s["symmetric"] == (zp is None), \
        (name, args, s["text"], "zero point" if zp else "none")
    assert args.get("dynamic") is False, (name, args)
    fmt = s["format"]
    names = {".weight_scale"}
    block = None
    if fmt == "f8E4M3FN":
        assert cd == "F8_E4M3", (name, cd)
        names.add(".weight")
        wd, w = got[base + ".weight"]
        assert wd == "F8_E4M3" and w.shape == codes.shape, (name, wd, w.shape)
        assert np.array_equal(perm(w), codes), (name, "FP8 codes differ")
        assert (args["type"], args["num_bits"]) == ("float", 8), (name, args)
        if s["e8m0"]:
            check_mx_scales(got, base, s, strat, group, args, scale,
                            ct_shape, perm, name)
            form = "mxfp8-quantized"
        else:
            form = "float-quantized"
            if args["strategy"] == "block":
                assert strat == "group", (name, s["text"], args)
                rows, g = args["block_structure"]
                block, strat, group = rows, "block", None
                assert g == s["group"] and rows >= 1, (name, args)
                ct_shape = (-(-out // rows), cols // g)
                dt, gs = got[base + ".weight_scale"]
                assert dt == "F32" and gs.shape == ct_shape, (name, gs.shape)
                gs = perm(np.repeat(gs, rows, axis=0)[:out])
            else:
                gs = check_scale(got, base + ".weight_scale", "F32", ct_shape,
                                 perm, name)
            assert same_bits(gs.reshape(-1), scale.reshape(-1)), \
                (name, "FP8 scales differ")
    elif fmt == "f4E2M1FN":
        assert cd == "U8" and (codes.size == 0 or codes.max() <= 15), \
            (name, cd, "codes up to", codes.max())
        assert cols % 2 == 0, (name, codes.shape)
        names.add(".weight_packed")
        pd, p = got[base + ".weight_packed"]
        assert pd == "U8" and p.shape == (out, cols // 2), (name, pd, p.shape)
        assert np.array_equal(perm(unpack_fp4(p, cols)), codes), \
            (name, "E2M1 codes differ")
        assert (args["type"], args["num_bits"]) == ("float", 4), (name, args)
        if s["g"] is not None:
            assert not s["e8m0"], (name, "accepted", s["text"])
            assert strat == "group" and group == 16, (name, s["text"])
            form, strat = "nvfp4-pack-quantized", "tensor_group"
            assert args.get("scale_dtype") == "torch.float8_e4m3fn", (name, args)
            sb = check_scale(got, base + ".weight_scale", "F8_E4M3", ct_shape,
                             perm, name)
            sb = np.ascontiguousarray(sb).view(FP8).astype(np.float32)
            g = np.float32(s["g"])
            assert np.isfinite(g) and g > 0, (name, "global scale", g)
            assert np.all(sb > 0), (name, "E4M3 scales not positive")
            assert same_bits(sb * g, scale), (name, "sb * g is not the scale")
            names.add(".weight_global_scale")
            gd, wgs = got[base + ".weight_global_scale"]
            assert gd == "F32" and wgs.shape == (1,), (name, gd, wgs.shape)
            assert same_bits(wgs, np.array([1.0 / np.float64(g)], np.float32)), \
                (name, "weight_global_scale", wgs, "is not f32(1 / g)", g)
            eff = sb / wgs[0]
            if math.frexp(float(g))[0] == 0.5:       # g a power of two
                assert same_bits(eff, scale), (name, "sb / global differs")
            else:
                assert np.all(np.abs(eff.astype(np.float64) - scale)
                              <= np.spacing(scale)), \
                    (name, "sb / global is not within one f32 step")
        else:
            assert s["e8m0"], (name, "FP4 with F32 scales accepted")
            check_mx_scales(got, base, s, strat, group, args, scale,
                            ct_shape, perm, name)
            form = "mxfp4-pack-quantized"
    else:
        assert fmt in INT_RANGE and not s["e8m0"] and s["g"] is None, \
            (name, "accepted", s["text"])
        signed = fmt.startswith("i")
        assert cd == ("I8" if signed else "U8"), (name, cd)
        assert signed or not s["symmetric"], (name, s["text"])
        lo, hi = s["range"] or INT_RANGE[fmt]
        assert codes.size == 0 or lo <= codes.min() and codes.max() <= hi, \
            (name, "codes outside", lo, hi)
        bits = 4 if (lo - (0 if signed else 8) >= -8 and
                     hi - (0 if signed else 8) <= 7) else 8
        assert (args["type"], args["num_bits"]) == ("int", bits), (name, args)
        offset = 0 if signed else 1 << (bits - 1)
        form = "pack-quantized"
        names |= {".weight_packed", ".weight_shape"}
        pd, packed = got[base + ".weight_packed"]
        assert pd == "I32" and packed.shape == (out, -(-cols // (32 // bits))), \
            (name, pd, packed.shape)
        q = perm(unpack(packed, bits, cols))
        assert np.array_equal(q + offset, codes.astype(np.int64)), \
            (name, "codes differ")
        sd_, shp = got[base + ".weight_shape"]
        assert sd_ == "I64" and list(shp) == [out, cols], (name, shp)
        gs = check_scale(got, base + ".weight_scale", "F32", ct_shape, perm,
                         name)
        assert same_bits(gs.reshape(-1), scale.reshape(-1)), \
            (name, "scales differ")
        if zp is not None:
            zd, zp = zp
            assert zd == "I32" and ((zp.size == 1) if octet_shape is None
                                    else zp.shape == octet_shape), \
                (name, zd, zp.shape)
            names.add(".weight_zero_point")
            gd, z = got[base + ".weight_zero_point"]
            if strat == "tensor":
                assert gd == "I8" and z.shape == (1,), (name, gd, z.shape)
                z = z.astype(np.int64)
            else:
                assert gd == "I32", (name, gd)
                z = perm(unpack(z.T.copy(), bits, out).T)
            assert np.array_equal(z.reshape(-1) + offset,
                                  zp.reshape(-1).astype(np.int64)), \
                (name, "zero points differ")
    assert args["strategy"] == strat and args["group_size"] == group, \
        (name, args, "want", strat, group)
    if strat != "block":
        assert args.get("block_structure") is None, (name, args)
    return (form, strat, group, block), {base + n for n in names}


def check_output(env, weights, out, expect=None):
    """The promises of an accepted file (`expect`: what a valid variant's
    weights become, EXPECT); AssertionError if one is broken."""
    tensors, meta = read_st(weights)
    got, _ = read_st(os.path.join(out, "model.safetensors"))
    with open(os.path.join(out, "config.json")) as f:
        cfg = json.load(f)
    qc = cfg.get("quantization_config")
    schemes = {k: parse_scheme(v) for k, v in meta.items()
               if k not in ("format", "activations")}
    assert meta.get("format") == "octet", meta.get("format")
    src = env.src
    heads = {"attn_q": src.config["heads"], "attn_k": src.config["kv_heads"]}
    names, forms = set(), set()
    for name in src.tensor_names():
        hf = ct.hf_name(name)
        kind = name.split(".")[-2]
        perm = (lambda a: gguf_permute(a, heads[kind])) if kind in heads \
            else (lambda a: a)
        if name in schemes:
            assert gf.is_linear(name), (name, "quantized, not a linear layer")
            base = hf[:-len(".weight")]
            groups = [g for g in qc["config_groups"].values()
                      if g["targets"] == ["Linear"] or base in g["targets"]]
            assert len(groups) == 1, (name, "in", len(groups), "groups")
            assert groups[0]["input_activations"] is None, (name, groups[0])
            info, parts = check_weight(name, base, schemes[name], tensors,
                                       got, groups[0]["weights"], perm)
            assert groups[0]["format"] == info[0], (name, groups[0], info)
            assert expect is None or info == expect, (name, info, "want", expect)
            forms.add(info[0])
            names |= parts
        else:
            if name in tensors:
                dtype, want = tensors[name]
                assert dtype in ("F32", "F16", "F64"), (name, dtype)
                want = want.astype(np.float32)
            else:
                want = src.tensor(name)
            dtype, arr = got[hf]
            assert dtype == "F32", (name, dtype)
            assert np.array_equal(perm(arr), want, equal_nan=True), \
                (name, "float values differ")
            names.add(hf)
    assert set(got) == names, ("tensors", sorted(set(got) ^ names))
    if not forms:
        assert qc is None, qc
        return
    assert qc["quant_method"] == "compressed-tensors", qc
    assert qc["format"] == (min(forms) if len(forms) == 1
                            else "mixed-precision"), (qc["format"], forms)


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.source = os.path.join(tmp, "tiny.gguf")
        gguf_llama.write_tiny_llama(self.source, seed=0)
        self.src = gguf_llama.load(self.source)
        self.variants = {fmt: gf.make_variant(self.src, fmt) for fmt in gf.SCHEMES}
        self.variants.update({fmt: make_float_variant(self.src, fmt)
                              for fmt in FLOAT_FORMATS})
        self.weights = os.path.join(tmp, "weights.safetensors")
        self.out = os.path.join(tmp, "out")

    def export(self, raw):
        with open(self.weights, "wb") as f:
            f.write(raw)
        shutil.rmtree(self.out, ignore_errors=True)
        return ct.export(self.source, self.weights, self.out, log=lambda m: None)


def mutate(rng, variants):
    return gf.mutate(rng, variants, FORMATS, EXTRA_SCHEMES, EXTRA_DTYPES)


def run_one(env, seed, stats):
    raw, _ = mutate(random.Random(seed), env.variants)
    try:
        env.export(raw)
    except (ct.ExportError, gguf_llama.GGUFError) as e:
        kind = gf._message_kind(str(e))
        stats[kind] = stats.get(kind, 0) + 1
        if os.path.exists(env.out):
            return "rejected, but left the directory %s" % env.out
        return "rejected"
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - anything else is a finding
        return traceback.format_exc()
    try:
        check_output(env, env.weights, env.out)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001
        return "accepted, but the output breaks a promise:\n" + traceback.format_exc()
    return "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=0,
                    help="stop after this many seconds (0: no limit)")
    ap.add_argument("--only", type=int, default=None, help="replay run ONLY")
    ap.add_argument("--progress", type=int, default=500)
    ap.add_argument("--stats", action="store_true",
                    help="print how often each kind of ExportError came")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="export_ct_fuzz.")
    try:
        env = Env(tmp)
        for fmt in sorted(env.variants):
            try:
                env.export(gf.serialize(*gf.header_of(*env.variants[fmt])))
                check_output(env, env.weights, env.out, EXPECT[fmt])
            except Exception:  # noqa: BLE001
                print("export_ct_fuzz: the valid %s file is not exported "
                      "correctly:\n%s" % (fmt, traceback.format_exc()))
                return 2
        start, runs, rejected, findings, stats = time.time(), 0, 0, 0, {}
        indices = [args.only] if args.only is not None else range(args.runs)
        for i in indices:
            if args.time_limit and time.time() - start > args.time_limit:
                print("export_ct_fuzz: time limit %g s reached" % args.time_limit)
                break
            outcome = run_one(env, args.seed * 1000003 + i, stats)
            runs += 1
            rejected += outcome == "rejected"
            if outcome not in ("ok", "rejected"):
                findings += 1
                print("FINDING in run %d of export_ct_fuzz (--seed %d --only "
                      "%d, seed %d):\n%s" % (i, args.seed, i,
                                             args.seed * 1000003 + i, outcome))
            if args.progress and runs % args.progress == 0:
                print("export_ct_fuzz: %d runs, %d rejected, %d findings, "
                      "%.1f s" % (runs, rejected, findings,
                                  time.time() - start), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for kind, n in sorted(stats.items(), key=lambda kv: -kv[1]) if args.stats else ():
        print("  %6d  %s" % (n, kind))
    print("export_ct_fuzz: %d runs, %d rejected with ExportError, %d findings"
          % (runs, rejected, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
