#!/usr/bin/env python3
"""export_gguf_fuzz: mutate octet safetensors files and check that the GGUF
exporter (tools/import-model/octet_export_gguf.py) copes.

    .venv/bin/python fuzz/export_gguf_fuzz.py --runs 2000 --seed 1 [--time-limit 60]

Writes a tiny llama GGUF (gguf_llama.write_tiny_llama) and, in pure Python
(no Octet build needed), three valid weights files for it as
octet-export-safetensors writes them: every linear weight quantized in
groups of 32 along the row, as i8 symmetric (I8 codes), i4 symmetric (I8
codes in [-8, 7]) or u4 asymmetric (U8 codes in [0, 15], an I32
NAME.zero_point), with an F32 NAME.scale and the scheme in the metadata;
the other tensors (norms, the embedding table) F32; metadata format=octet.

Run i of `--seed S` uses the seed `S * 1000003 + i` (`--seed S --only i`
replays it): it picks a variant and one or two mutations, then calls
`export(source, weights, output)`. The mutations: on the tensors (scales
0, NaN, inf, huge, tiny, negative; codes and zero points out of range; a
tensor converted to another dtype, reshaped, deleted or renamed; two
tensors' names swapped; a norm or the embedding table quantized too; a
zero point for a symmetric weight), on the metadata (format changed or deleted, a
scheme replaced by another granularity, group size, format, asymmetric,
garbage or nothing, a scheme removed, a scheme for an absent tensor), on
the JSON header (another dtype, shape or data_offsets for a tensor, a
non-string metadata value) and on the bytes (truncation, byte flips in the
length, the header or the data). fuzz/export_ct_fuzz.py reuses the files
and mutations and adds FP8 / MX / NVFP4 variants (mutate's `formats`,
`schemes` and `dtypes`; header_of writes ml_dtypes' 8-bit floats as
F8_E4M3 / F8_E5M2 / F8_E8M0); without them the runs here are unchanged.

Every outcome must be a success or an ExportError / GGUFError. An accepted
file must give a GGUF that gguf_llama loads with the source's tensors and
shapes; each weight the file quantizes in Q8_0 / Q4_0 / Q4_1 as its scheme
says, dequantizing to f16(scale) * code exactly (Q4_1: + f16(-f16(scale) *
zero point)); each float tensor of the file F32 and equal to it; each
other tensor as the source stores it. Anything else is a finding: the
run's seed and traceback are printed and the exit status is 1. The last
line is the summary

    export_gguf_fuzz: N runs, K rejected with ExportError, F findings
"""

import argparse
import json
import os
import random
import re
import shutil
import struct
import sys
import tempfile
import time
import traceback

import numpy as np

try:
    import ml_dtypes
except ImportError:   # only export_ct_fuzz's FP8 / MX files need it
    ml_dtypes = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools", "import-model"))
import gguf_llama  # noqa: E402
import octet_export_gguf as ex  # noqa: E402

LINEAR = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
          "ffn_down")
GROUP = 32
SCHEMES = {
    "i8": "#octet.scheme<i8, per_group(1, 32)>",
    "i4": "#octet.scheme<i4, per_group(1, 32)>",
    "u4": "#octet.scheme<u4, per_group(1, 32), asymmetric>",
}
# safetensors dtype <-> numpy (BF16 has no numpy type; the 8-bit floats are
# ml_dtypes' types: FLOAT8_DTYPES, which this file's variants and mutations
# never use; export_ct_fuzz's FP8 codes and E8M0 scales do, and header_of
# writes them)
ST_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16,
             "I64": np.int64, "I32": np.int32, "I16": np.int16,
             "I8": np.int8, "U64": np.uint64, "U32": np.uint32,
             "U16": np.uint16, "U8": np.uint8, "BOOL": np.bool_}
FLOAT8_DTYPES = {} if ml_dtypes is None else {
    "F8_E4M3": ml_dtypes.float8_e4m3fn, "F8_E5M2": ml_dtypes.float8_e5m2,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu}
NP_TO_ST = {np.dtype(v): k for k, v in {**ST_DTYPES, **FLOAT8_DTYPES}.items()}
DTYPE_SIZES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4,
               "F16": 2, "BF16": 2, "I16": 2, "U16": 2, "I8": 1, "U8": 1,
               "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1}
HEADER_DTYPES = ("F16", "BF16", "I32", "U8", "I8", "F64", "BOOL", "F8_E4M3",
                 "F32", "U32", "I16", "F8_E5M2", "X9")
SCHEME_VARIANTS = (
    "#octet.scheme<i8, per_axis(0)>", "#octet.scheme<i8, per_axis(1)>",
    "#octet.scheme<i8, per_group(1, 16)>", "#octet.scheme<i8, per_group(1, 64)>",
    "#octet.scheme<i8, per_group(0, 32)>", "#octet.scheme<i8, per_group(1, 0)>",
    "#octet.scheme<i8, per_group(2, 32)>", "#octet.scheme<i8>",
    "#octet.scheme<i8, per_tensor>", "#octet.scheme<f8E4M3FN, per_group(1, 32)>",
    "#octet.scheme<i8, per_group(1, 32), asymmetric>",
    "#octet.scheme<i4, per_group(1, 32), asymmetric>",
    "#octet.scheme<u4, per_group(1, 32)>", "#octet.scheme<u8, per_group(1, 32)>",
    "#octet.scheme<i8<-127:127>, per_group(1, 32)>",
    "#octet.scheme<i4<-7:7>, per_group(1, 32)>",
    "#octet.scheme<i8, per_group(1, 99999999999999999999999)>",
    "#octet.scheme<i8, per_group(1, 32), symmetric>",
    SCHEMES["i8"], SCHEMES["i4"], SCHEMES["u4"],
    "garbage", "", "#octet.scheme<", "#octet.scheme<i8, per_group(1, 32)",
    "#octet.scheme<\u00e9, per_group(1, 32)>",
    # FP4: MXFP4 (E8M0 scales; this file's F32 / int codes do not fit it),
    # NVFP4 and FP4 with f32 scales (refused), a malformed e4m3(...).
    "#octet.scheme<f4E2M1FN, per_group(1, 32), e8m0>",
    "#octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(0.00125)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 32)>",
    "#octet.scheme<f4E2M1FN, per_group(1, 32), e4m3(>",
    "#octet.scheme<nf4, per_group(1, 32)>",
)
SCALE_VALUES = (0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e30,
                1e-30, -0.01, -1e-3, 65504.0, 65520.0, 6.1e-5, 6.2e-5,
                np.float32(2.0 ** -24), 1e38)
CODE_VALUES = {"i8": (127, -128, 0), "i4": (100, -9, 8, 7, -8, -128, 127),
               "u4": (16, 20, 255, 15, 0)}
ZP_VALUES = (-1, 16, 255, 100, 2**31 - 1, -2**31, 0, 15, 8)
HUGE_DIMS = (0, -1, 2**31, 2**32 + 64, 2**63, 2**64 - 1, 2**64, 10**30, 1)


# ---------------------------------------------------------------------------
# The valid files
# ---------------------------------------------------------------------------

def is_linear(name):
    parts = name.split(".")
    return len(parts) >= 2 and parts[-2] in LINEAR


def quantize(w, fmt):
    """(codes, scale, zero point or None) of float32 [out, in] `w` in
    groups of 32 along the row."""
    out, k = w.shape
    g = w.reshape(out, k // GROUP, GROUP).astype(np.float64)
    if fmt == "u4":
        lo = np.minimum(g.min(axis=2), 0.0)
        hi = np.maximum(g.max(axis=2), 0.0)
        scale = ((hi - lo) / 15.0).astype(np.float32)
        safe = np.where(scale == 0, 1.0, scale)
        zp = np.clip(np.round(-lo / safe), 0, 15).astype(np.int32)
        q = np.clip(np.round(g / safe[..., None]) + zp[..., None], 0, 15)
        return q.reshape(out, k).astype(np.uint8), scale, zp
    qmax = 127 if fmt == "i8" else 7
    scale = (np.abs(g).max(axis=2) / qmax).astype(np.float32)
    safe = np.where(scale == 0, 1.0, scale)
    q = np.clip(np.round(g / safe[..., None]), -qmax - 1, qmax)
    return q.reshape(out, k).astype(np.int8), scale, None


def make_variant(src, fmt):
    """(tensors {name: array}, metadata {key: str}) of a valid octet file."""
    tensors, meta = {}, {"format": "octet"}
    for name in src.tensor_names():
        w = src.tensor(name)
        if is_linear(name):
            q, s, z = quantize(w, fmt)
            tensors[name] = q
            tensors[name + ".scale"] = s
            if z is not None:
                tensors[name + ".zero_point"] = z
            meta[name] = SCHEMES[fmt]
        else:
            tensors[name] = w
    return tensors, meta


def header_of(tensors, meta):
    """The safetensors JSON header (a dict) of `tensors`, laid out in order,
    and the concatenated data."""
    header, chunks, offset = {}, [], 0
    for name, arr in tensors.items():
        b = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": NP_TO_ST[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(b)]}
        chunks.append(b)
        offset += len(b)
    header["__metadata__"] = meta
    return header, b"".join(chunks)


def serialize(header, data):
    """8-byte length, the JSON header padded with spaces, the data."""
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


# ---------------------------------------------------------------------------
# Mutations. A run applies them in stage order: tensors and metadata (the
# file is then laid out again, consistently), the JSON header (the data
# kept), then the bytes.
# ---------------------------------------------------------------------------

class Case:
    """The file being built for one run. `formats`: {format: (scheme text,
    code values that break it, quantize: float [rows, cols] -> (codes,
    scale, zero point or None))} of every variant (FORMATS and the
    caller's); `schemes` and `dtypes` the scheme texts and header dtypes
    the mutations choose from (SCHEME_VARIANTS, HEADER_DTYPES and the
    caller's)."""

    def __init__(self, tensors, meta, fmt, formats=None, schemes=(),
                 dtypes=()):
        self.tensors = dict(tensors)
        self.meta = dict(meta)
        self.fmt = fmt
        self.formats = {**FORMATS, **(formats or {})}
        self.schemes = SCHEME_VARIANTS + tuple(schemes)
        self.dtypes = HEADER_DTYPES + tuple(d for d in dtypes
                                            if d not in HEADER_DTYPES)
        # retype's numpy types: the 8-bit floats only when a caller names them
        self.retypes = tuple(ST_DTYPES.values()) + tuple(
            FLOAT8_DTYPES[d] for d in dtypes if d in FLOAT8_DTYPES)
        self.header = None
        self.data = None
        self.raw = None

    def pick(self, rng, suffix=None, linear=None):
        names = [n for n in self.tensors
                 if (suffix is None or n.endswith(suffix))
                 and (linear is None or is_linear(n) == linear)]
        return rng.choice(names) if names else None


def _set_entries(rng, arr, values):
    arr = np.array(arr)                # a writable copy
    flat = arr.reshape(-1)
    if flat.size == 0:
        return arr
    if rng.random() < 0.2:
        idx = range(flat.size)
    else:
        idx = [rng.randrange(flat.size) for _ in range(rng.randint(1, 4))]
    for i in idx:
        v = rng.choice(values)
        try:
            flat[i] = v
        except (OverflowError, ValueError):
            flat[i] = np.array(v).astype(arr.dtype)
    return arr


def bad_scales(rng, case):
    """Scales 0, NaN, inf, huge, tiny, negative, at f16's limits."""
    name = case.pick(rng, ".scale")
    if name:
        with np.errstate(all="ignore"):
            case.tensors[name] = _set_entries(rng, case.tensors[name], SCALE_VALUES)


def bad_codes(rng, case):
    """Codes out of the format's range (100 in an i4 weight, 20 in u4)."""
    name = case.pick(rng, ".weight", linear=True)
    if name:
        values = case.formats[case.fmt][1] + rng.choice(
            tuple(f[1] for f in case.formats.values()))
        with np.errstate(all="ignore"):
            case.tensors[name] = _set_entries(rng, case.tensors[name], values)


def bad_zero_points(rng, case):
    """Zero points out of range, negative, extreme."""
    name = case.pick(rng, ".zero_point")
    if name:
        with np.errstate(all="ignore"):
            case.tensors[name] = _set_entries(rng, case.tensors[name], ZP_VALUES)


def retype(rng, case):
    """A tensor (codes, scale, zero point or float) in another dtype, its
    bytes consistent with it."""
    kind = rng.choice((".weight", ".scale", ".zero_point", None))
    name = case.pick(rng, kind)
    if name:
        dt = rng.choice(case.retypes)
        with np.errstate(all="ignore"):
            case.tensors[name] = np.asarray(case.tensors[name]).astype(dt)


def reshape(rng, case):
    """A tensor flattened, given a leading 1, split into groups, transposed
    or cut (its bytes consistent with the new shape)."""
    kind = rng.choice((".weight", ".scale", ".zero_point", None))
    name = case.pick(rng, kind)
    if not name:
        return
    a = case.tensors[name]
    how = rng.randrange(6)
    if how == 0:
        a = a.reshape(-1)
    elif how == 1:
        a = a.reshape((1,) + a.shape)
    elif how == 2 and a.shape and a.shape[-1] % 2 == 0:
        a = a.reshape(a.shape[:-1] + (2, a.shape[-1] // 2))
    elif how == 3:
        a = np.ascontiguousarray(a.T)
    elif how == 4:
        a = a[..., : max(0, a.shape[-1] - rng.choice((1, 16, 32)))] if a.ndim else a
    else:
        a = a.reshape(()) if a.size == 1 else a[:0]
    case.tensors[name] = np.ascontiguousarray(a)


def delete_tensor(rng, case):
    """A tensor removed: codes, a scale, a zero point or a float tensor."""
    name = case.pick(rng, rng.choice((".weight", ".scale", ".zero_point", None)))
    if name:
        del case.tensors[name]


def rename_tensor(rng, case):
    """A tensor renamed (to a name of no tensor)."""
    name = case.pick(rng, rng.choice((".weight", ".scale", ".zero_point", None)))
    if name:
        new = rng.choice((name + "x", name.replace("blk.0", "blk.7"),
                          name.replace(".weight", ""), name.upper(), ""))
        if new in case.tensors:
            return
        case.tensors = {new if k == name else k: v for k, v in case.tensors.items()}


def swap_names(rng, case):
    """Two tensors of the same kind trade names."""
    suffix = rng.choice((".weight", ".scale", ".zero_point"))
    a, b = case.pick(rng, suffix), case.pick(rng, suffix)
    if a and b and a != b:
        case.tensors[a], case.tensors[b] = case.tensors[b], case.tensors[a]


def metadata_format(rng, case):
    """The metadata's format changed or deleted."""
    if rng.random() < 0.4:
        case.meta.pop("format", None)
    else:
        case.meta["format"] = rng.choice(("pt", "Octet", "octet ", "", "np"))


def scheme(rng, case):
    """A weight's scheme replaced by another (or garbage), or removed."""
    names = [k for k in case.meta if k != "format"]
    if not names:
        return
    name = rng.choice(names)
    if rng.random() < 0.2:
        del case.meta[name]
    else:
        case.meta[name] = rng.choice(case.schemes)


def absent_scheme(rng, case):
    """A metadata entry naming a tensor the file does not hold (or a float
    tensor, or a scale)."""
    name = rng.choice(("blk.9.attn_q.weight", "output.weight", "nothing",
                       "blk.0.attn_norm.weight", "token_embd.weight",
                       "blk.0.ffn_up.weight.scale", "__metadata__",
                       "blk.1.attn_k.weight.zero_point"))
    case.meta[name] = rng.choice((case.formats[case.fmt][0],
                                  rng.choice(case.schemes)))


def quantize_float(rng, case):
    """A float tensor (a norm, the embedding table) quantized too, in the
    variant's scheme, consistently."""
    name = case.pick(rng, ".weight", linear=False)
    if not name or case.tensors[name].dtype != np.float32:
        return
    w = case.tensors[name]
    text, _, quantizer = case.formats[case.fmt]
    q, sc, z = quantizer(w.reshape(-1, w.shape[-1]))

    def fit(a):   # [rows, groups] parameters back to w's leading dims
        return a.reshape(w.shape[:-1] + a.shape[-1:]) if a.ndim == 2 else a
    case.tensors[name] = q.reshape(w.shape)
    case.tensors[name + ".scale"] = fit(sc)
    if z is not None:
        case.tensors[name + ".zero_point"] = fit(z)
    case.meta[name] = text if w.ndim == 2 else \
        text.replace("per_group(1,", "per_group(0,")


def stray_zero_point(rng, case):
    """A symmetric weight given a zero point (0 or not)."""
    name = case.pick(rng, ".scale")
    if name:
        zp = np.full(case.tensors[name].shape, rng.choice((0, 0, 3)), np.int32)
        case.tensors[name[:-len(".scale")] + ".zero_point"] = zp


def header_dtype(rng, case):
    """A tensor's dtype in the JSON header changed (data unchanged)."""
    name = rng.choice([k for k in case.header if k != "__metadata__"])
    entry = case.header[name]
    if rng.random() < 0.5:            # one of the same size: the file stays valid
        size = DTYPE_SIZES.get(entry["dtype"])
        same = [d for d in case.dtypes if DTYPE_SIZES.get(d) == size]
        entry["dtype"] = rng.choice(same or case.dtypes)
    else:
        entry["dtype"] = rng.choice(case.dtypes)


def header_shape(rng, case):
    """A tensor's shape in the JSON header changed: a dim dropped or
    added, 0, huge, negative."""
    name = rng.choice([k for k in case.header if k != "__metadata__"])
    shape = list(case.header[name]["shape"])
    how = rng.randrange(4)
    if how == 0 and shape:
        del shape[rng.randrange(len(shape))]
    elif how == 1:
        shape.insert(rng.randrange(len(shape) + 1), rng.choice((1, 2, 0)))
    elif shape:
        shape[rng.randrange(len(shape))] = rng.choice(HUGE_DIMS)
    else:
        shape = [rng.choice(HUGE_DIMS)]
    case.header[name]["shape"] = shape


def header_offsets(rng, case):
    """data_offsets swapped, overlapping, reversed, beyond the end."""
    names = [k for k in case.header if k != "__metadata__"]
    a = rng.choice(names)
    ea = case.header[a]
    s, e = ea["data_offsets"]
    how = rng.randrange(5)
    if how == 0:
        b = rng.choice(names)
        eb = case.header[b]
        ea["data_offsets"], eb["data_offsets"] = eb["data_offsets"], ea["data_offsets"]
    elif how == 1:
        ea["data_offsets"] = [max(0, s - rng.choice((1, 4, 32))), e]
    elif how == 2:
        ea["data_offsets"] = [e, s]
    elif how == 3:
        ea["data_offsets"] = [s, e + rng.choice((1, 8, 2**40, 2**64 - 1))]
    else:
        ea["data_offsets"] = [rng.choice((-1, 2**64, 1.5, "0")), e]


def header_metadata(rng, case):
    """A metadata value that is not a string, or the metadata not a map."""
    meta = case.header["__metadata__"]
    if not isinstance(meta, dict) or not meta:
        return
    if rng.random() < 0.2:
        case.header["__metadata__"] = rng.choice((None, [], "octet", 1))
    else:
        key = rng.choice(list(meta))
        meta[key] = rng.choice((1, None, ["octet"], {"a": "b"}, True))


def truncate(rng, case):
    """The file cut short (anywhere)."""
    case.raw = case.raw[:rng.randrange(len(case.raw))]


def _flip(rng, raw, lo, hi):
    raw = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(lo, hi)
        raw[i] = raw[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 \
            else rng.randrange(256)
    return bytes(raw)


def _header_len(raw):
    return struct.unpack("<Q", raw[:8])[0] if len(raw) >= 8 else 0


def flip_length(rng, case):
    """Bytes of the 8-byte header length flipped."""
    case.raw = _flip(rng, case.raw, 0, min(8, len(case.raw)))


def flip_header(rng, case):
    """Bytes of the JSON header flipped."""
    end = min(8 + _header_len(case.raw), len(case.raw))
    if end > 8:
        case.raw = _flip(rng, case.raw, 8, end)


def flip_data(rng, case):
    """Bytes of the tensor data flipped."""
    start = 8 + _header_len(case.raw)
    if start < len(case.raw):
        case.raw = _flip(rng, case.raw, start, len(case.raw))


TENSOR_STAGE = (bad_scales, bad_scales, bad_codes, bad_codes, bad_zero_points,
                retype, retype, reshape, delete_tensor, rename_tensor,
                swap_names, metadata_format, scheme, scheme, absent_scheme,
                quantize_float, stray_zero_point)
HEADER_STAGE = (header_dtype, header_dtype, header_shape, header_offsets,
                header_metadata)
BYTES_STAGE = (truncate, flip_length, flip_header, flip_data)
MUTATIONS = TENSOR_STAGE + HEADER_STAGE + BYTES_STAGE
# This file's formats as the mutations see them (Case)
FORMATS = {f: (SCHEMES[f], CODE_VALUES[f], lambda w, f=f: quantize(w, f))
           for f in SCHEMES}


def mutate(rng, variants, formats=None, schemes=(), dtypes=()):
    """(the mutated file's bytes, the variant's format). A caller with
    variants of other formats (export_ct_fuzz) describes them in `formats`
    and adds scheme texts and header dtypes to choose from (Case); without
    them the runs are this file's alone."""
    fmt = rng.choice(sorted(variants))
    case = Case(*variants[fmt], fmt, formats, schemes, dtypes)
    chosen = [rng.choice(MUTATIONS) for _ in range(rng.choice((1, 1, 2)))]
    for m in chosen:
        if m in TENSOR_STAGE:
            m(rng, case)
    case.header, data = header_of(case.tensors, case.meta)
    for m in chosen:
        if m in HEADER_STAGE:
            m(rng, case)
    case.raw = serialize(case.header, data)
    for m in chosen:
        if m in BYTES_STAGE:
            m(rng, case)
    return case.raw, fmt


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def f16(a):
    return np.asarray(a, np.float32).astype(np.float16).astype(np.float32)


def check_output(env, weights, out):
    """The promises of an accepted file; AssertionError if one is broken."""
    from safetensors import safe_open
    with safe_open(weights, "numpy") as f:
        meta = f.metadata() or {}
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    schemes = {k: ex.parse_scheme(v, k) for k, v in meta.items() if k != "format"}
    src, got = env.src, gguf_llama.load(out)
    assert got.tensor_names() == src.tensor_names(), "tensor names differ"
    for name in src.tensor_names():
        shape, gtype = src.tensor_shape(name), got.tensor_type(name)
        assert got.tensor_shape(name) == shape, (name, got.tensor_shape(name))
        value = got.tensor(name)
        if name in schemes:
            s = schemes[name]
            want = ex.gguf_format_for(name, s, weights)
            assert gtype == want, (name, gtype, want)
            codes = tensors[name]
            assert codes.dtype == (np.uint8 if s["format"].startswith("u")
                                   else np.int8), (name, codes.dtype)
            scale = tensors[name + ".scale"]
            assert scale.dtype == np.float32, (name, scale.dtype)
            d = np.repeat(f16(scale), GROUP, axis=-1)
            q = codes.astype(np.float32)
            if gtype in ("Q4_1", "Q5_1"):
                zp = tensors[name + ".zero_point"]
                assert zp.dtype == np.int32, (name, zp.dtype)
                m = np.repeat(f16(-f16(scale) * zp.astype(np.float32)), GROUP, -1)
                expect = d * q + m
            else:
                assert name + ".zero_point" not in tensors, \
                    (name, "symmetric, with a zero point (octet's verifier "
                     "rejects that)")
                expect = d * q
            assert np.isfinite(value).all(), (name, "not finite")
            assert np.array_equal(value, expect.astype(np.float32)), \
                (name, "blocks differ from f16(scale) * code")
        elif name in tensors:
            arr = tensors[name]
            assert gtype == "F32", (name, gtype)
            assert arr.dtype.kind == "f", (name, "written as F32 from", arr.dtype)
            assert np.array_equal(value, arr.astype(np.float32), equal_nan=True), \
                (name, "F32 values differ")
        else:
            assert gtype == src.tensor_type(name), (name, gtype)
            assert np.array_equal(value, src.tensor(name), equal_nan=True), \
                (name, "copied tensor differs")


class Env:
    """The temporary directory, the source GGUF and the valid variants."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.source = os.path.join(tmp, "tiny.gguf")
        gguf_llama.write_tiny_llama(self.source, seed=0)
        self.src = gguf_llama.load(self.source)
        self.variants = {fmt: make_variant(self.src, fmt) for fmt in SCHEMES}
        self.weights = os.path.join(tmp, "weights.safetensors")
        self.out = os.path.join(tmp, "out.gguf")

    def export(self, raw):
        with open(self.weights, "wb") as f:
            f.write(raw)
        if os.path.exists(self.out):
            os.remove(self.out)
        return ex.export(self.source, self.weights, self.out, log=lambda m: None)


def _message_kind(message):
    message = re.sub(r"'[^']*'|\[[^]]*\]|-?\d[\d.e+-]*|\S*\.safetensors", "_", message)
    return message[:90]


def run_one(env, seed, stats):
    """'ok', 'rejected', or a finding (the traceback text)."""
    raw, _ = mutate(random.Random(seed), env.variants)
    try:
        env.export(raw)
    except (ex.ExportError, gguf_llama.GGUFError) as e:
        kind = _message_kind(str(e))
        stats[kind] = stats.get(kind, 0) + 1
        return "rejected"
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - anything else (even a Rust panic
        return traceback.format_exc()  # from `safetensors`) is a finding
    try:
        check_output(env, env.weights, env.out)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001
        return "accepted, but the output breaks a promise:\n" + traceback.format_exc()
    return "ok"


def check_valid(env):
    """Each unmutated variant must export and pass the checks."""
    for fmt in sorted(env.variants):
        header, data = header_of(*env.variants[fmt])
        try:
            env.export(serialize(header, data))
            check_output(env, env.weights, env.out)
        except Exception:  # noqa: BLE001
            print(f"export_gguf_fuzz: the valid {fmt} file is not exported "
                  f"correctly:\n{traceback.format_exc()}")
            sys.exit(2)


def main():
    """Run the mutations; exit status 1 on a finding."""
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
    tmp = tempfile.mkdtemp(prefix="export_gguf_fuzz.")
    try:
        env = Env(tmp)
        check_valid(env)
        start, runs, rejected, findings, stats = time.time(), 0, 0, 0, {}
        indices = [args.only] if args.only is not None else range(args.runs)
        for i in indices:
            if args.time_limit and time.time() - start > args.time_limit:
                print(f"export_gguf_fuzz: time limit {args.time_limit:g} s reached")
                break
            outcome = run_one(env, args.seed * 1000003 + i, stats)
            runs += 1
            rejected += outcome == "rejected"
            if outcome not in ("ok", "rejected"):
                findings += 1
                print(f"FINDING in run {i} of export_gguf_fuzz (--seed {args.seed} "
                      f"--only {i}, seed {args.seed * 1000003 + i}):\n{outcome}")
            if args.progress and runs % args.progress == 0:
                print(f"export_gguf_fuzz: {runs} runs, {rejected} rejected, "
                      f"{findings} findings, {time.time() - start:.1f} s", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for kind, n in sorted(stats.items(), key=lambda kv: -kv[1]) if args.stats else ():
        print(f"  {n:6d}  {kind}")
    print(f"export_gguf_fuzz: {runs} runs, {rejected} rejected with ExportError, "
          f"{findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
