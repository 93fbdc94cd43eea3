#!/usr/bin/env python3
"""octet-export-gguf: an LLM quantized by Octet, written as a GGUF file that
llama.cpp loads.

    octet_export_gguf.py --source SmolLM2.gguf --module model.mlirbc \\
        -o SmolLM2.octet-q8_0.gguf

or in two steps:

    octet-export-safetensors model.mlirbc -o weights.safetensors
    octet_export_gguf.py --source SmolLM2.gguf --weights weights.safetensors \\
        -o SmolLM2.octet-q8_0.gguf

`--source` is the GGUF file the model was imported from (octet_import_model
--gguf): its metadata (architecture, hyper-parameters, tokenizer) is copied
as it is. `--weights` is what octet-export-safetensors wrote from the
quantized module: each quantized weight's codes, scales and zero points
with its scheme, and the float constants (norm weights, the embedding
table: AWQ and SmoothQuant fold their scales into those), under the GGUF
tensor names the importer gave them.

Each quantized weight becomes the GGUF block type that holds Octet's codes
exactly (groups of 32 along the row, GGUF's ne0):

| octet codes (groups of 32 along the row)       | GGUF  | block                       |
| ---------------------------------------------- | ----- | --------------------------- |
| symmetric, in [-8, 7] (i4; i3, i2)             | Q4_0  | f16 d, 32 x 4 bit: d * (q - 8), q = code + 8 |
| symmetric, in [-16, 15] (i5 = i8<-16:15>)      | Q5_0  | f16 d, 32 x 5 bit: d * (q - 16), q = code + 16 |
| symmetric, in [-128, 127] (i8; i6, i7)         | Q8_0  | f16 d, 32 x int8: d * q     |
| asymmetric, in [0, 15] (u4; u3, u2), zero point z | Q4_1 | f16 d, f16 m, 32 x 4 bit: d * q + m, m = -d * z |
| asymmetric, in [0, 31] (u5 = u8<0:31>)         | Q5_1  | f16 d, f16 m, 32 x 5 bit: d * q + m |

The smallest block that holds every code of the scheme is used.

The codes are Octet's, unchanged; the scales are rounded to f16 (GGUF's
block scales are f16): d = f16(scale), and for Q4_1 m = f16(-f16(scale) *
z). Rounding to nearest f16 moves each scale by at most 2^-11 of itself
above 2^-14, more below (the largest change is printed); a scale that is
not finite, overflows f16 or rounds to zero is an error naming the tensor.
The perplexity measured through llama.cpp (examples/llm/llm.py gguf)
includes this rounding. Any other scheme (per channel, other group sizes, FP8) is an
error that names the tensor and what GGUF would need. Float tensors are
written as F32. A source tensor the weights file does not hold is copied
as it is stored (with a note).
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gguf_llama  # noqa: E402


class ExportError(Exception):
    """A weights file or scheme that cannot become GGUF; the message names
    the file and the tensor."""


BLOCK = 32
# The GGUF block types, smallest first: name -> (symmetric, the code range
# it holds, its offset: the stored unsigned q is code + offset).
GGUF_BLOCKS = [("Q4_0", True, (-8, 7), 8), ("Q5_0", True, (-16, 15), 16),
               ("Q8_0", True, (-128, 127), 0),
               ("Q4_1", False, (0, 15), 0), ("Q5_1", False, (0, 31), 0)]
FULL_RANGE = {"i8": (-128, 127), "u8": (0, 255), "i4": (-8, 7), "u4": (0, 15)}
SCHEME_RE = re.compile(
    r"^#octet\.scheme<(?P<fmt>[a-zA-Z0-9]+)"
    r"(?:<(?P<qmin>-?\d+):(?P<qmax>-?\d+)>)?"
    r"(?:, (?P<gran>per_tensor|per_axis\((?P<axis>\d+)\)|"
    r"per_group\((?P<gaxis>\d+), (?P<group>\d+)\)))?"
    r"(?P<rest>(?:, [a-z_0-9]+(?:\([^)]*\))?)*)>$")
F16_MAX = 65504.0
# Metadata keys of octet-export-safetensors that are not weight names: the
# file's format, and the activations' schemes of W8A8 matmuls (a JSON map).
RESERVED_KEYS = ("format", "activations")


def parse_scheme(text, where):
    """{'format', 'kind', 'axis', 'group', 'symmetric', 'qmin', 'qmax'} of
    an `#octet.scheme<...>` string; ExportError if it is not one."""
    m = SCHEME_RE.match(text or "")
    if not m:
        raise ExportError("%s: scheme '%s' is not an #octet.scheme" % (where, text))
    gran = m.group("gran") or "per_tensor"
    rest = [r for r in (m.group("rest") or "").split(", ") if r]
    glob = next((r[5:-1] for r in rest if r.startswith("e4m3(")), None)
    try:
        glob = None if glob is None else float(glob)
    except ValueError:
        raise ExportError("%s: scheme '%s' has the global scale '%s', not "
                          "a number" % (where, text, glob))
    return {
        "format": m.group("fmt"),
        "kind": gran.split("(")[0],
        "axis": int(m.group("axis") or m.group("gaxis") or 0),
        "group": int(m.group("group") or 0),
        "symmetric": "asymmetric" not in rest,
        "qmin": None if m.group("qmin") is None else int(m.group("qmin")),
        "qmax": None if m.group("qmax") is None else int(m.group("qmax")),
        # The scale format: E8M0 (MX), E4M3 times a global scale (NVFP4).
        "e8m0": "e8m0" in rest,
        "e4m3": any(r.startswith("e4m3(") for r in rest),
        # NVFP4's global scale g (printed with 9 significant digits: the
        # f32 exactly).
        "global_scale": glob,
    }


def code_range(scheme):
    """[qmin, qmax] of `scheme`'s codes (its narrow range or the format's)."""
    if scheme["qmin"] is not None:
        return scheme["qmin"], scheme["qmax"]
    return FULL_RANGE.get(scheme["format"])


def gguf_format_for(name, scheme, where):
    """The smallest GGUF block type that holds every code of `scheme`
    exactly (symmetric signed codes: Q4_0, Q5_0, Q8_0; asymmetric unsigned
    codes: Q4_1, Q5_1), or ExportError."""
    fmt, sym = scheme["format"], scheme["symmetric"]
    if fmt == "f4E2M1FN" and scheme["e8m0"]:
        return "MXFP4"  # E2M1 with an E8M0 scale per 32: ggml's MXFP4
    if fmt == "f4E2M1FN":
        raise ExportError(
            "%s: '%s' is FP4 (E2M1) with %s scales; GGUF holds FP4 as MXFP4 "
            "only (E8M0 scales per 32: quantize with format=mxfp4)"
            % (where, name, "E4M3 (NVFP4)" if scheme["e4m3"] else "f32"))
    rng = code_range(scheme)
    signed = fmt in ("i8", "i4")
    if rng is not None and signed == sym:
        for t, bsym, (lo, hi), _ in GGUF_BLOCKS:
            if bsym == sym and lo <= rng[0] and rng[1] <= hi:
                return t
    raise ExportError(
        "%s: '%s' is %s%s codes; GGUF's blocks hold symmetric signed codes "
        "in [-8, 7] (Q4_0), [-16, 15] (Q5_0) or [-128, 127] (Q8_0), and "
        "asymmetric unsigned codes in [0, 15] (Q4_1) or [0, 31] (Q5_1)"
        % (where, name, fmt if scheme["qmin"] is None else "%s<%d:%d>" % (
            fmt, scheme["qmin"], scheme["qmax"]),
           " symmetric" if sym else " asymmetric"))


def gguf_type_for(name, scheme, codes, where):
    """The GGUF block type that holds `scheme`'s codes of weight `name`
    exactly, or ExportError saying what GGUF needs."""
    t = gguf_format_for(name, scheme, where)
    last = codes.ndim - 1
    if scheme["kind"] != "per_group" or scheme["axis"] != last or \
            scheme["group"] != BLOCK:
        got = {"per_tensor": "one scale for the tensor",
               "per_axis": "one scale per index of axis %d" % scheme["axis"],
               "per_group": "groups of %d along axis %d"
                            % (scheme["group"], scheme["axis"])}[scheme["kind"]]
        raise ExportError(
            "%s: '%s' has %s; GGUF's %s needs groups of %d along the row "
            "(axis %d): quantize with granularity=per-group group-size=%d"
            % (where, name, got, t, BLOCK, last, BLOCK))
    if codes.shape[-1] % BLOCK:
        raise ExportError("%s: '%s' has rows of %d values, not a multiple of %d"
                          % (where, name, codes.shape[-1], BLOCK))
    return t


def to_f16(x, name, what, where):
    """f16(x) (round to nearest even); ExportError for a value that is not
    finite, would overflow f16, or is nonzero but rounds to zero (zero
    stays zero: an all-zero group). Below f16's normal range (2^-14) the
    rounding keeps less precision; `pack` reports the largest change."""
    x = np.asarray(x, np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        h = x.astype(np.float16)
    bad = ~np.isfinite(x) | (np.abs(x) > F16_MAX) | ((x != 0) & (h == 0))
    if bad.any():
        i = np.unravel_index(int(np.argmax(bad)), x.shape)
        raise ExportError(
            "%s: '%s' has %s %r at %s, outside the range of f16 "
            "(0, or a magnitude in (2^-25, %g]) that GGUF's block scales use"
            % (where, name, what, float(x[i]), list(map(int, i)), F16_MAX))
    return h


def pack_nibbles(q):
    """[rows, blocks, 32] codes 0..15 -> [rows, blocks, 16] bytes: byte j
    holds element j (low nibble) and element j + 16 (high nibble), as
    ggml's Q4_0 / Q4_1 blocks do."""
    q = q.astype(np.uint8)
    return q[..., :16] | (q[..., 16:] << 4)


def pack(name, gtype, codes, scale, zp, where):
    """The GGUF blocks of one weight: (uint8 [..., row bytes], the largest
    relative change of a scale by the f16 rounding). ggml's layouts: Q8_0
    {d, qs[32]}; Q4_0 {d, qs[16]}, Q4_1 {d, m, qs[16]}: byte j holds q[j]
    (low nibble) and q[j + 16]; Q5_0 {d, qh[4], qs[16]}, Q5_1 {d, m, qh[4],
    qs[16]}: the low nibbles as for Q4, bit j of the little-endian qh the
    fifth bit of q[j]. Values: d * (q - offset), or d * q + m."""
    rows = int(np.prod(codes.shape[:-1]))
    k = codes.shape[-1]
    nb = k // BLOCK
    if gtype == "MXFP4":
        # ggml's block_mxfp4 {e, qs[16]}: e the E8M0 byte (octet's scale
        # bytes unchanged), qs as Q4_0's; the values kvalues[q] * 2^(e-128)
        # with kvalues the doubled E2M1 values, i.e. E2M1(q) * 2^(e-127).
        c = np.asarray(codes).reshape(rows, nb, BLOCK)
        if c.size and int(c.max()) > 15:
            raise ExportError("%s: '%s' has FP4 codes up to %d; E2M1 codes "
                              "are 0..15" % (where, name, int(c.max())))
        e = np.asarray(scale, np.uint8).reshape(rows, nb, 1)
        if e.size and int(e.max()) == 255:
            raise ExportError("%s: '%s' has the E8M0 NaN scale (255)"
                              % (where, name))
        blocks = np.concatenate([e, pack_nibbles(c)], axis=2)
        return blocks.reshape(codes.shape[:-1] + (-1,)), 0.0
    _, sym, (lo, hi), offset = next(b for b in GGUF_BLOCKS if b[0] == gtype)
    scale = np.asarray(scale, np.float32).reshape(rows, nb)
    d = to_f16(scale, name, "scale", where)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(d.astype(np.float32) - scale) / np.abs(scale)
    change = float(np.nanmax(np.where(scale == 0, 0, rel))) if rel.size else 0.0
    c = codes.reshape(rows, nb, BLOCK).astype(np.int32)
    if c.size and (c.min() < lo or c.max() > hi):
        raise ExportError("%s: '%s' has codes outside [%d, %d], the range of "
                          "its scheme" % (where, name, lo, hi))
    parts = [d.reshape(rows, nb, 1).view(np.uint8)]
    if not sym:
        if zp is None:
            raise ExportError("%s: '%s' is asymmetric but has no zero point "
                              "(%s.zero_point)" % (where, name, name))
        z = np.asarray(zp).reshape(rows, nb).astype(np.float32)
        m = -(d.astype(np.float32) * z)
        mh = to_f16(m, name, "minimum (-scale * zero point)", where) \
            if np.any(m != 0) else m.astype(np.float16)
        parts.append(mh.reshape(rows, nb, 1).view(np.uint8))
    if gtype == "Q8_0":
        parts.append(c.astype(np.int8).view(np.uint8))
    else:
        q = (c + offset).astype(np.uint32)
        if gtype in ("Q5_0", "Q5_1"):
            high = ((q >> 4) & 1) << np.arange(BLOCK, dtype=np.uint32)
            qh = np.bitwise_or.reduce(high, axis=2).astype("<u4")
            parts.append(qh.reshape(rows, nb, 1).view(np.uint8))
        parts.append(pack_nibbles(q & 0xF))
    blocks = np.concatenate(parts, axis=2)
    # The weight's own leading dims: a 1-D weight stays 1-D in GGUF.
    return blocks.reshape(codes.shape[:-1] + (-1,)), change


# safetensors dtype -> numpy dtype used to hold its bytes (FP8 and E8M0 as
# raw bytes: numpy has no such types).
ST_NUMPY = {"F64": np.float64, "F32": np.float32, "F16": np.float16,
            "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8,
            "U64": np.uint64, "U32": np.uint32, "U16": np.uint16,
            "U8": np.uint8, "BOOL": np.bool_, "F8_E4M3": np.uint8,
            "F8_E5M2": np.uint8, "F8_E8M0": np.uint8}

def read_safetensors(path):
    """({name: (safetensors dtype, numpy array)}, metadata) parsed from the
    format's definition (an 8-byte little-endian header length, a JSON
    header, the data): FP8 and E8M0 tensors come back as uint8 bytes."""
    try:
        with open(path, "rb") as fh:
            blob = fh.read()
    except OSError as e:
        raise ExportError("%s: cannot read: %s" % (path, e.strerror or e)) from None
    where = "%s: not a safetensors file" % path
    if len(blob) < 8:
        raise ExportError(where + " (%d bytes)" % len(blob))
    n = int.from_bytes(blob[:8], "little")
    if n > len(blob) - 8:
        raise ExportError(where + " (its header of %d bytes is longer than "
                          "the file)" % n)
    try:
        header = json.loads(blob[8:8 + n])
    except (ValueError, UnicodeDecodeError) as e:
        raise ExportError(where + " (header: %s)" % e) from None
    if not isinstance(header, dict):
        raise ExportError(where + " (the header is not a JSON object)")
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(
            isinstance(v, str) for v in meta.values()):
        raise ExportError(where + " (__metadata__ is not a map of strings)")
    data = memoryview(blob)[8 + n:]
    tensors = {}
    for name, v in header.items():
        try:
            dtype, shape = v["dtype"], [int(d) for d in v["shape"]]
            begin, end = (int(o) for o in v["data_offsets"])
            np_dtype = np.dtype(ST_NUMPY[dtype])
        except (KeyError, TypeError, ValueError):
            raise ExportError("%s: tensor '%s' has a malformed header entry "
                              "%r" % (path, name, v)) from None
        count = math.prod(shape)
        if any(d < 0 for d in shape) or not 0 <= begin <= end <= len(data) \
                or end - begin != count * np_dtype.itemsize:
            raise ExportError("%s: tensor '%s' (%s %s) has data offsets %d..%d"
                              " that do not fit it or the file"
                              % (path, name, dtype, shape, begin, end))
        arr = np.frombuffer(data[begin:end], np_dtype).reshape(shape)
        tensors[name] = (dtype, arr)
    return tensors, meta


def read_weights(path):
    """(tensors {name: numpy array}, schemes {weight name: scheme dict}) of
    an octet-export-safetensors file; ExportError naming what is wrong."""
    try:
        from safetensors import safe_open
        with safe_open(path, "numpy") as f:
            meta = f.metadata() or {}
            # Formats GGUF has no block for are refused before their codes
            # are read (numpy cannot hold FP8 safetensors).
            for name, text in sorted(meta.items()):
                if name not in RESERVED_KEYS and meta.get("format") == "octet":
                    sc = parse_scheme(text, "%s: '%s'" % (path, name))
                    gguf_format_for(name, sc, path)
            mx = meta.get("format") == "octet" and any(
                parse_scheme(t, path)["e8m0"] for n, t in meta.items()
                if n not in RESERVED_KEYS)
            if not mx:
                tensors = {k: f.get_tensor(k) for k in f.keys()}
        if mx:  # E8M0 scales: numpy has no such type, read as bytes
            tensors = {k: a for k, (_, a) in read_safetensors(path)[0].items()}
    except ExportError:
        raise
    except Exception as e:  # safetensors raises its own error types
        raise ExportError("%s: not a readable safetensors file: %s"
                          % (path, str(e).splitlines()[0] if str(e) else
                             type(e).__name__)) from None
    if meta.get("format") != "octet":
        raise ExportError("%s: not written by octet-export-safetensors (its "
                          "metadata has no format=octet)" % path)
    schemes = {}
    for name, text in sorted(meta.items()):
        if name in RESERVED_KEYS:
            continue
        if name not in tensors:
            raise ExportError("%s: the metadata names a quantized weight '%s' "
                              "that the file does not hold" % (path, name))
        if name + ".scale" not in tensors:
            raise ExportError("%s: quantized weight '%s' has no '%s.scale'"
                              % (path, name, name))
        schemes[name] = parse_scheme(text, "%s: '%s'" % (path, name))
    return tensors, schemes


# numpy dtype -> the safetensors dtype octet-export-safetensors writes
ST_DTYPES = {"float64": "F64", "float32": "F32", "float16": "F16",
             "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8",
             "uint64": "U64", "uint32": "U32", "uint16": "U16", "uint8": "U8",
             "bool": "BOOL"}


def check_dtypes(name, scheme, codes, scale, zp, where):
    """Octet's element types: codes I8 (signed formats) or U8 (unsigned),
    scales F32, zero points I32."""
    want = "U8" if scheme["format"].startswith("u") or \
        scheme["format"] == "f4E2M1FN" else "I8"
    for what, arr, dtype in (("%s codes" % scheme["format"], codes, want),
                             ("scales", scale,
                              "U8" if scheme["e8m0"] else "F32"),
                             ("zero points", zp, "I32")):
        got = None if arr is None else ST_DTYPES.get(str(arr.dtype), str(arr.dtype))
        if got is not None and got != dtype:
            raise ExportError("%s: '%s' has %s of dtype %s; octet's %s are %s"
                              % (where, name, what, got, what, dtype))


def check_scale_shape(name, codes, scale, zp, where):
    want = codes.shape[:-1] + (codes.shape[-1] // BLOCK,)
    for what, arr in (("scale", scale), ("zero point", zp)):
        if arr is not None and tuple(arr.shape) != want:
            raise ExportError("%s: '%s' has a %s of shape %s; groups of %d of "
                              "a %s weight need %s" % (where, name, what,
                                                        list(arr.shape), BLOCK,
                                                        list(codes.shape),
                                                        list(want)))


def export(source, weights, output, log=print):
    """Write `output` from the GGUF `source` and octet's `weights`; returns
    {tensor name: GGUF type written}."""
    import gguf
    src = gguf_llama.load(source)
    tensors, schemes = read_weights(weights)
    header = src._header
    arch = header.kvs["general.architecture"].value
    w = gguf.GGUFWriter(output, arch)
    for key, kv in header.kvs.items():
        if key in ("general.architecture", "general.alignment"):
            continue
        value = kv.value
        if kv.vtype == gguf.GGUFValueType.ARRAY and isinstance(value, np.ndarray):
            value = value.tolist()
        w.add_key_value(key, value, kv.vtype, kv.item_type)
    w.add_key_value("general.quantized_by", "octet", gguf.GGUFValueType.STRING)
    written = {}
    worst = 0.0
    used = set()
    for info in header.tensors:
        name = info.name
        want = tuple(info.shape)
        if name in schemes:
            codes = tensors[name]
            scale = tensors[name + ".scale"]
            zp = tensors.get(name + ".zero_point")
            if tuple(codes.shape) != want:
                raise ExportError("%s: '%s' has shape %s; the source model's "
                                  "is %s" % (weights, name, list(codes.shape),
                                             list(want)))
            gtype = gguf_type_for(name, schemes[name], codes, weights)
            if zp is not None and schemes[name]["symmetric"]:
                raise ExportError("%s: '%s' is symmetric but has a zero point "
                                  "(%s.zero_point)" % (weights, name, name))
            check_dtypes(name, schemes[name], codes, scale, zp, weights)
            check_scale_shape(name, codes, scale, zp, weights)
            blocks, change = pack(name, gtype, codes, scale, zp, weights)
            worst = max(worst, change)
            w.add_tensor(name, blocks,
                         raw_dtype=gguf.GGMLQuantizationType[gtype])
            used.update({name, name + ".scale", name + ".zero_point"})
        elif name in tensors:
            if tensors[name].dtype.kind != "f":
                raise ExportError(
                    "%s: '%s' is %s, not a float tensor, and the metadata "
                    "gives it no scheme" % (weights, name,
                                            ST_DTYPES.get(str(tensors[name].dtype),
                                                          str(tensors[name].dtype))))
            arr = np.asarray(tensors[name], np.float32)
            if tuple(arr.shape) != want:
                raise ExportError("%s: '%s' has shape %s; the source model's "
                                  "is %s" % (weights, name, list(arr.shape),
                                             list(want)))
            w.add_tensor(name, np.ascontiguousarray(arr))
            gtype = "F32"
            used.add(name)
        else:
            start = header.data_start + info.offset
            raw = np.frombuffer(src._buf, np.uint8, info.nbytes, start)
            gtype = info.type_name
            qt = gguf.GGMLQuantizationType[gtype]
            block, type_size = gguf.GGML_QUANT_SIZES[qt]
            rows = raw.reshape(-1, want[-1] // block * type_size) \
                if want else raw
            if gtype == "F32":
                w.add_tensor(name, rows.view(np.float32).reshape(want))
            else:
                w.add_tensor(name, rows, raw_dtype=qt)
            log("note: '%s' is not in %s; copied from %s as %s"
                % (name, weights, source, gtype))
        written[name] = gtype
    unused = [n for n in schemes if n not in used]
    if unused:
        raise ExportError("%s: quantized weight(s) %s are not tensors of %s"
                          % (weights, ", ".join(sorted(unused)[:5]), source))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    counts = {}
    for t in written.values():
        counts[t] = counts.get(t, 0) + 1
    log("wrote %s: %s; scales rounded to f16 moved by at most %.3g of "
        "themselves" % (output, ", ".join("%d %s" % (n, t) for t, n in
                                          sorted(counts.items())), worst))
    return written


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="octet-export-gguf",
        description="Write an LLM quantized by Octet as GGUF for llama.cpp: "
                    "the source GGUF's metadata and tokenizer, Octet's codes "
                    "in Q8_0 / Q5_0 / Q5_1 / Q4_0 / Q4_1 blocks.")
    p.add_argument("--source", required=True,
                   help="the GGUF file the model was imported from")
    w = p.add_mutually_exclusive_group(required=True)
    w.add_argument("--weights",
                   help="octet-export-safetensors' output for the quantized "
                        "module")
    w.add_argument("--module",
                   help="the quantized module itself (.mlirbc, or .mlir "
                        "printed with --mlir-print-debuginfo): "
                        "octet-export-safetensors is run on it")
    p.add_argument("--bindir", default=os.path.join(
        os.path.dirname(os.path.dirname(HERE)), "build", "bin"),
        help="where octet-export-safetensors is (default: build/bin)")
    p.add_argument("-o", "--output", required=True, help="GGUF file to write")
    a = p.parse_args(argv)
    try:
        export_from_args(a, export)
    except (ExportError, gguf_llama.GGUFError) as e:
        sys.exit("octet-export-gguf: error: %s" % e)
    return 0


def export_from_args(a, export_fn):
    """export_fn(a.source, weights file, a.output, log) on `a.weights`, or
    on octet-export-safetensors' output for `a.module` (from `a.bindir`):
    a temporary file, which the errors name as the module."""
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    if a.weights:
        export_fn(a.source, a.weights, a.output, log=log)
        return
    with tempfile.TemporaryDirectory() as tmp:
        st = os.path.join(tmp, "weights.safetensors")
        tool = os.path.join(a.bindir, "octet-export-safetensors")
        if not os.access(tool, os.X_OK):
            raise ExportError("%s not found (build it: cmake --build build"
                              " --target octet-export-safetensors; or "
                              "give --bindir)" % tool)
        r = subprocess.run([tool, a.module, "-o", st])
        if r.returncode != 0:
            raise ExportError("octet-export-safetensors failed on %s"
                              % a.module)
        try:
            export_fn(a.source, st, a.output, log=log)
        except ExportError as e:
            # Name the module the user gave, not the temporary file.
            raise ExportError(str(e).replace(st, a.module)) from None


if __name__ == "__main__":
    sys.exit(main())
