#!/usr/bin/env python3
"""octet-export-compressed-tensors: an LLM quantized by Octet, written as a
Hugging Face checkpoint in the compressed-tensors layout that vLLM and
transformers read.

    octet_export_compressed_tensors.py --source SmolLM2.gguf \\
        --module model.mlirbc -o SmolLM2-octet-w4a16/

or in two steps (`--weights` is octet-export-safetensors' output):

    octet-export-safetensors model.mlirbc -o weights.safetensors
    octet_export_compressed_tensors.py --source SmolLM2.gguf \\
        --weights weights.safetensors -o SmolLM2-octet-w4a16/

`--source` is the GGUF file the model was imported from
(octet_import_model.py --gguf); it gives the hyper-parameters (config.json),
the tokenizer (tokenizer.json, tokenizer_config.json) and any tensor the
weights file does not hold. The directory written:

  config.json            LlamaForCausalLM's config with a
                         `quantization_config` (quant_method
                         "compressed-tensors", quantization_status
                         "compressed", one config group per scheme)
  model.safetensors      Hugging Face tensor names (model.layers.N.
                         self_attn.q_proj.weight_packed, ...)
  generation_config.json, tokenizer.json, tokenizer_config.json

Each quantized linear weight becomes the compressed-tensors format that
holds Octet's codes exactly (compressed-tensors 0.20):

| octet scheme                                 | format          | tensors                                          |
| -------------------------------------------- | --------------- | ------------------------------------------------ |
| integer codes, per channel / group / tensor  | pack-quantized  | weight_packed (int32: 32/b codes per word, code  |
|   (i8, i4, u4, narrow ranges; b = 4 or 8)    |                 | i at bit b*i, stored as code + 2^(b-1)),         |
|                                              |                 | weight_scale, weight_shape, weight_zero_point    |
|                                              |                 | (asymmetric: packed along the output rows)       |
| f8E4M3FN, per channel / group / tensor       | float-quantized | weight (F8_E4M3), weight_scale                   |
| NVFP4 (E2M1, groups of 16, E4M3 scales sb    | nvfp4-pack-     | weight_packed (U8, as MXFP4), weight_scale       |
|   times a global scale g)                    | quantized       | (F8_E4M3: sb), weight_global_scale (F32: 1 / g)  |
| f8E4M3FN in 2-D blocks (channel-block=B,     | float-quantized | weight (F8_E4M3), weight_scale [ceil(out / B),   |
|   recipe w8a8-fp8-block): strategy "block"   |                 | in / G]; block_structure [B, G]                  |
| MXFP8 (E4M3, groups of 32, E8M0 scales)      | mxfp8-quantized | weight (F8_E4M3), weight_scale (U8: 127 + log2)  |
| MXFP4 (E2M1, groups of 32, E8M0 scales)      | mxfp4-pack-     | weight_packed (U8: two codes per byte along K,   |
|                                              | quantized       | the even one low), weight_scale (U8: 127 + log2) |
| W8A8 (octet.matmul quantizing its lhs):      | int-quantized   | weight (I8: one code per byte), weight_scale,    |
|   integer weights                            |                 | weight_zero_point (I8), input_scale and          |
|                                              |                 | input_zero_point (static activations)            |
|   FP8 weights                                | float-quantized | as above, with input_activations                 |
| MX on both operands (w8a8-mxfp8, w4a8-mxfp4, | mxfp8-quantized | as the MX weights above, with input_activations  |
|   w4a4-mxfp4)                                | / mxfp4-pack-q. | {float, 8 or 4 bits, group 32, dynamic, U8}      |
| NVFP4 on both operands (w4a4-nvfp4)          | nvfp4-pack-     | as NVFP4 weights, input_global_scale (F32: 1 /   |
|                                              | quantized       | g of the activations); input_activations        |
|                                              |                 | {float, 4 bits, tensor_group 16, local, E4M3}    |

b is the smaller of 4 and 8 that holds every code of the scheme.
compressed-tensors' integers are signed: unsigned (asymmetric) codes q with
zero point z are written as q - 2^(b-1) and z - 2^(b-1), the same values
(scale * (q - z)). Scales stay f32 (Octet's, unchanged: no rounding).
Per-channel scales are [out, 1], per-group [out, in / group], per-tensor
[1], as compressed-tensors lays them out. Anything else (FP8 E5M2, codes or
zero points no 8-bit integer holds, groups along another axis, a quantized
embedding table) is an error naming the tensor.

GGUF's llama q and k weights have their rows permuted per head (llama.cpp's
converter does it so that RoPE rotates adjacent pairs); the rows (and their
scales and zero points) are permuted back to Hugging Face's order, which
RoPE rotates as halves (rotate_half). Codes are not changed.

The weights come from octet-export-safetensors: every octet.dequantize of
constant codes (octet-quantize-weights) and every octet.matmul whose rhs is
constant codes (octet-quantize's recipes). Weight-only layers get
`input_activations: null`. A W8A8 matmul's activations (its lhs scheme,
recorded in the file's "activations" metadata) become input_activations:
8-bit int or FP8 E4M3, per token (or per token and group of G, block-wise
FP8: strategy "group") and dynamic, or per tensor and static (input_scale,
input_zero_point); MX activations (E4M3 or E2M1 per token and block of 32
with E8M0 scales, dynamic) as compressed-tensors' MXFP8 / MXFP4 presets
write them (strategy "group", group_size 32, scale_dtype uint8); anything
else is an error.
Block-wise weights are recognized by their scales: a per-group weight whose
scale rows repeat over every run of B rows (in Hugging Face's row order) is
written with strategy "block". q / k blocks of B < head rows are split by
the row permutation below into blocks of B / 2; then every block-wise
weight is written with blocks of B / 2 rows (each scale twice in the
others), one config group as readers expect. Rows that form no blocks stay
per group.
"""

import argparse
import json
import math
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gguf_llama  # noqa: E402
from octet_export_gguf import (RESERVED_KEYS, ExportError, read_safetensors,  # noqa: E402
                               code_range, export_from_args, parse_scheme)

# GGUF tensor kind -> Hugging Face module inside model.layers.N
HF_LAYER = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj",
            "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
            "attn_output": "self_attn.o_proj",
            "ffn_norm": "post_attention_layernorm", "ffn_gate": "mlp.gate_proj",
            "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}
HF_TOP = {"token_embd.weight": "model.embed_tokens.weight",
          "output_norm.weight": "model.norm.weight",
          "output.weight": "lm_head.weight"}
LINEAR_KINDS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate",
                "ffn_up", "ffn_down")
LAYER_RE = re.compile(r"^blk\.(\d+)\.([a-z_]+)\.weight$")
COMPRESSED_TENSORS_VERSION = "0.20.1"

NUMPY_ST = {"float32": "F32", "int32": "I32", "int64": "I64", "int8": "I8",
            "uint8": "U8"}


def hf_name(name):
    """The Hugging Face name of a GGUF llama tensor, or None."""
    if name in HF_TOP:
        return HF_TOP[name]
    m = LAYER_RE.match(name)
    if m and m.group(2) in HF_LAYER:
        return "model.layers.%s.%s.weight" % (m.group(1), HF_LAYER[m.group(2)])
    return None


def unpermute_rows(a, heads):
    """The inverse of llama.cpp's HF -> GGUF row permutation of q / k
    (convert_hf_to_gguf.py's `permute`: per head, rows (2, d/2) -> (d/2,
    2)); `a` has the weight's rows first (codes, scales, zero points)."""
    rows = a.shape[0]
    if rows % (2 * heads):
        raise ExportError("%d rows are not %d heads of an even size"
                          % (rows, heads))
    return np.ascontiguousarray(
        a.reshape(heads, rows // heads // 2, 2, *a.shape[1:])
        .swapaxes(1, 2).reshape(a.shape))


# -- reading octet-export-safetensors' file ---------------------------------

def read_raw(path):
    """(tensors as read_safetensors gives them, {weight name: scheme}) of
    an octet-export-safetensors file; ExportError naming what is wrong."""
    tensors, meta = read_safetensors(path)
    if meta.get("format") != "octet":
        raise ExportError("%s: not written by octet-export-safetensors (its "
                          "metadata has no format=octet)" % path)
    schemes = {}
    for name, text in sorted(meta.items()):
        if name in RESERVED_KEYS:
            continue
        for t in (name, name + ".scale"):
            if t not in tensors:
                raise ExportError("%s: quantized weight '%s' has no tensor '%s'"
                                  % (path, name, t))
        schemes[name] = parse_scheme(text, "%s: '%s'" % (path, name))
    return tensors, schemes, read_activations(path, meta, schemes)


def read_activations(path, meta, schemes):
    """{weight name: (activation scheme dict, dynamic)} of the metadata's
    "activations" entry (W8A8 matmuls), checked."""
    text = meta.get("activations")
    if text is None:
        return {}
    try:
        acts = json.loads(text)
    except ValueError as e:
        raise ExportError("%s: the metadata's activations are not JSON: %s"
                          % (path, e)) from None
    if not isinstance(acts, dict):
        raise ExportError("%s: the metadata's activations are not a map"
                          % path)
    out = {}
    for name, a in sorted(acts.items()):
        if name not in schemes:
            raise ExportError("%s: the metadata gives activations for '%s', "
                              "which is not a quantized weight" % (path, name))
        if not isinstance(a, dict) or not isinstance(a.get("scheme"), str) \
                or not isinstance(a.get("dynamic"), bool):
            raise ExportError("%s: the activations of '%s' are %r, not "
                              "{\"scheme\": ..., \"dynamic\": true|false}"
                              % (path, name, a))
        out[name] = (parse_scheme(a["scheme"], "%s: activations of '%s'"
                                  % (path, name)), a["dynamic"])
    return out


# -- one weight -> compressed-tensors ---------------------------------------

def pack_int32(codes, bits):
    """compressed-tensors' pack_to_int32 along the last axis: int codes in
    [-2^(b-1), 2^(b-1)) stored as code + 2^(b-1), code i of a row at bit
    b*i of the row's little-endian int32 words (rows padded with zero bits
    to whole words)."""
    rows, cols = codes.shape
    per_word = 32 // bits
    words = -(-cols // per_word)
    u = np.zeros((rows, words * per_word), np.uint32)
    u[:, :cols] = (codes.astype(np.int32) + (1 << (bits - 1))).astype(np.uint32)
    u = u.reshape(rows, words, per_word)
    shifts = (np.arange(per_word, dtype=np.uint32) * bits)
    packed = np.bitwise_or.reduce(u << shifts, axis=2)
    return packed.astype(np.uint32).view(np.int32)


def int_args(name, scheme, codes, zp, where):
    """(bits, offset) writing `scheme`'s integer codes (and zero points) as
    compressed-tensors' signed b-bit integers: value - offset."""
    fmt, sym = scheme["format"], scheme["symmetric"]
    signed = fmt.startswith("i")
    rng = code_range(scheme)
    if rng is None:
        raise ExportError("%s: '%s' has %s codes, not an integer format octet "
                          "stores (i8, u8, i4, u4)" % (where, name, fmt))
    lo, hi = rng
    if not signed and sym:
        raise ExportError("%s: '%s' has symmetric unsigned %s codes; "
                          "compressed-tensors' symmetric codes are signed"
                          % (where, name, fmt))
    for bits in (4, 8):
        offset = 0 if signed else 1 << (bits - 1)
        qlo, qhi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if qlo <= lo - offset and hi - offset <= qhi:
            break
    else:
        raise ExportError("%s: '%s' has codes in [%d, %d], which no 4- or 8-bit "
                          "integer of compressed-tensors holds"
                          % (where, name, lo, hi))
    if codes.size and (int(codes.min()) < lo or int(codes.max()) > hi):
        raise ExportError("%s: '%s' has codes outside [%d, %d], the range of its "
                          "scheme" % (where, name, lo, hi))
    if zp is not None and zp.size:
        z = zp.astype(np.int64) - offset
        if z.min() < qlo or z.max() > qhi:
            raise ExportError(
                "%s: '%s' has a zero point %d, outside the %d-bit codes "
                "[%d, %d] that compressed-tensors stores zero points in"
                % (where, name, int(zp.flat[int(np.argmax((z < qlo) | (z > qhi)))]),
                   bits, lo, hi))
    return bits, offset


def strategy(name, scheme, shape, where):
    """(strategy, group_size, scale shape) of compressed-tensors for an
    octet scheme of a [out, in] weight."""
    kind, axis = scheme["kind"], scheme["axis"]
    out, cols = shape
    if kind == "per_tensor":
        return "tensor", None, (1,)
    if kind == "per_axis" and axis == 0:
        return "channel", None, (out, 1)
    if kind == "per_group" and axis == 1:
        g = scheme["group"]
        if g <= 0 or cols % g:
            raise ExportError("%s: '%s' has rows of %d, not whole groups of %d"
                              % (where, name, cols, g))
        return "group", g, (out, cols // g)
    raise ExportError("%s: '%s' has %s along axis %d; compressed-tensors "
                      "holds one scale per tensor, per output channel (axis "
                      "0) or per group along the input (axis 1)"
                      % (where, name, kind.replace("_", "-"), axis))


def block_rows(scale, group):
    """B when the [out, groups] scales of a per-group weight are the same
    in every run of B rows ([0, B), [B, 2B), ..., the last one shorter): a
    weight quantized in 2-D blocks (octet-quantize-weights channel-block=B,
    recipe w8a8-fp8-block), which compressed-tensors holds with strategy
    "block" and one scale per block. Tried: the length of the first run of
    equal rows, then the group size; None when neither holds (or B = 1)."""
    rows = scale.shape[0]
    same = np.all(scale[1:] == scale[:-1], axis=1)
    first = int(np.argmin(same)) + 1 if not same.all() else rows
    for b in sorted({first, group}, reverse=True):
        if b <= 1:
            continue
        ok = all(np.all(scale[r0 + 1:r0 + b] == scale[r0])
                 for r0 in range(0, rows, b))
        if ok:
            return b
    return None


def merge_blocks(groups, out):
    """The config groups with the block-wise groups that differ only in
    their block's rows merged into one, of the rows' gcd (a block of B rows
    is B / b blocks of b with the same scale, written so in `out`):
    q / k blocks of B / 2 rows and the others' of B become one group, as
    readers expect (transformers decompresses every dense layer with one
    group's scheme)."""
    def key_without_rows(form, args, input_args):
        a = dict(args, block_structure=[0, args["block_structure"][1]])
        return json.dumps([form, a, input_args], sort_keys=True)
    blocks = {}
    for key, (form, args, input_args, modules) in groups.items():
        if args.get("strategy") == "block":
            blocks.setdefault(key_without_rows(form, args, input_args),
                              []).append(key)
    for keys in blocks.values():
        if len(keys) < 2:
            continue
        rows = 0
        for key in keys:
            rows = math.gcd(rows, groups[key][1]["block_structure"][0])
        form, args, input_args, _ = groups[keys[0]]
        merged = dict(args, block_structure=[
            rows, args["block_structure"][1]])
        modules = []
        for key in keys:
            _, a, _, mods = groups.pop(key)
            b = a["block_structure"][0]
            for m in mods:
                n = out[m + ".weight"][1].shape[0]
                dtype, scale = out[m + ".weight_scale"]
                out[m + ".weight_scale"] = (dtype, np.ascontiguousarray(
                    np.repeat(scale, b // rows, axis=0)[:-(-n // rows)]))
            modules += mods
        groups[json.dumps([form, merged, input_args], sort_keys=True)] = (
            form, merged, input_args, modules)
    return groups


def activation_args(name, base, act, tensors, where):
    """(input_activations args, {hf name: (dtype, array)}) of the
    activations a W8A8 matmul quantizes: per token (dynamic) or per tensor
    (static: input_scale, and input_zero_point when asymmetric)."""
    scheme, dynamic = act
    fmt = scheme["format"]
    if fmt == "f4E2M1FN" and scheme["e4m3"]:
        # NVFP4 (compressed-tensors' NVFP4 preset): E2M1 per token and
        # block of 16 along the input, E4M3 block scales computed at run
        # time ("local") times a static global scale g, written as
        # input_global_scale = f32(1 / g) (compressed-tensors divides by
        # it, as by weight_global_scale).
        if not (scheme["kind"] == "per_group" and scheme["axis"] == 1 and
                scheme["group"] == 16 and dynamic):
            raise ExportError("%s: the activations of '%s' are NVFP4 with "
                              "%s(%d, %d) scales%s; NVFP4 activations have "
                              "block scales per token and 16 along the "
                              "input, computed at run time" % (
                                  where, name, scheme["kind"],
                                  scheme["axis"], scheme["group"],
                                  "" if dynamic else " given as constants"))
        g = np.float32(scheme["global_scale"] or 0)
        if not (np.isfinite(g) and g > 0):
            raise ExportError("%s: the activations of '%s' have the NVFP4 "
                              "global scale %r; a positive finite f32 is "
                              "needed" % (where, name, scheme["global_scale"]))
        args = {"num_bits": 4, "type": "float", "symmetric": True,
                "strategy": "tensor_group", "group_size": 16,
                "dynamic": "local", "actorder": None,
                "block_structure": None,
                "scale_dtype": "torch.float8_e4m3fn",
                "zp_dtype": "torch.float8_e4m3fn"}
        return args, {base + ".input_global_scale": (
            "F32", np.array([1.0 / np.float64(g)], np.float32))}
    # format -> (type, zero-point offset, bits); FP4 only as MXFP4.
    kinds = {"i8": ("int", 0, 8), "u8": ("int", 128, 8),
             "f8E4M3FN": ("float", 0, 8), "f4E2M1FN": ("float", 0, 4)}
    if fmt not in kinds or scheme["qmin"] is not None or (
            fmt == "f4E2M1FN" and not scheme["e8m0"]):
        raise ExportError("%s: the activations of '%s' are %s codes; "
                          "compressed-tensors' activations are int8, FP8 "
                          "E4M3, MX (MXFP8 / MXFP4) or NVFP4"
                          % (where, name, fmt))
    typ, offset, bits = kinds[fmt]
    group = None
    if scheme["e8m0"]:
        # OCP MX (compressed-tensors' MXFP8 / MXFP4 presets): dynamic E8M0
        # scales per token and block of 32 along the input.
        if not (scheme["kind"] == "per_group" and scheme["axis"] == 1 and
                scheme["group"] == 32 and dynamic):
            raise ExportError("%s: the activations of '%s' have E8M0 scales "
                              "%s(%d, %d); MX activations are dynamic, per "
                              "token and block of 32" % (
                                  where, name, scheme["kind"], scheme["axis"],
                                  scheme["group"]))
        args = {"num_bits": bits, "type": typ, "symmetric": True,
                "strategy": "group", "group_size": 32, "dynamic": True,
                "actorder": None, "block_structure": None,
                "scale_dtype": "torch.uint8", "zp_dtype": "torch.uint8"}
        return args, {}
    if scheme["kind"] == "per_tensor":
        strat = "tensor"
    elif scheme["kind"] == "per_axis" and scheme["axis"] == 0 and dynamic:
        strat = "token"
    elif scheme["kind"] == "per_group" and scheme["axis"] == 1 and dynamic:
        # Per token and group of the weight's groups along K (block-wise
        # FP8's 1 x 128 activation groups).
        strat, group = "group", scheme["group"]
    else:
        raise ExportError("%s: the activations of '%s' have %s%s scales; "
                          "compressed-tensors holds one per tensor or, "
                          "dynamic, one per token or per token and group" % (
                              where, name, "static " if not dynamic else "",
                              scheme["kind"].replace("_", "-")))
    args = {"num_bits": bits, "type": typ, "symmetric": scheme["symmetric"],
            "strategy": strat, "group_size": group, "dynamic": dynamic,
            "actorder": None, "block_structure": None}
    out = {}
    if not dynamic:
        for suffix, want in ((".input_scale", "F32"),
                             (".input_zero_point", "I32")):
            entry = tensors.get(name + suffix)
            if entry is None:
                if suffix == ".input_scale" or not scheme["symmetric"]:
                    raise ExportError("%s: '%s' has static activations but no "
                                      "'%s%s'" % (where, name, name, suffix))
                continue
            dtype, arr = entry
            if dtype != want or arr.size != 1:
                raise ExportError("%s: '%s%s' is %s %s; a per-tensor %s is "
                                  "one %s" % (where, name, suffix, dtype,
                                              list(arr.shape), suffix[1:],
                                              want))
            if suffix == ".input_scale":
                out[base + suffix] = ("F32", arr.reshape(1))
            else:
                z = int(arr.reshape(-1)[0]) - offset
                if not -128 <= z <= 127:
                    raise ExportError("%s: '%s%s' is %d, outside %s's codes"
                                      % (where, name, suffix, z + offset, fmt))
                out[base + suffix] = ("I8", np.array([z], np.int8))
    return args, out


def fp4_codes(name, cdtype, codes, where):
    """E2M1 codes (U8 bytes 0..15) packed two per byte along the rows, the
    even column in the low nibble (compressed-tensors' FP4 packing)."""
    if cdtype != "U8" or codes.size and int(codes.max()) > 15:
        raise ExportError("%s: '%s' has %s codes up to %d; FP4 codes are "
                          "U8 bytes 0..15" % (where, name, cdtype,
                                              int(codes.max()) if
                                              codes.size else 0))
    c = codes.astype(np.uint8)
    return np.ascontiguousarray(c[:, 0::2] | (c[:, 1::2] << 4))


def nvfp4_weight(name, base, scheme, codes, cdtype, scale, strat, group,
                 args, out, input_args, where):
    """NVFP4 (E2M1 in blocks of 16, E4M3 block scales, an f32 global scale)
    as nvfp4-pack-quantized. Octet's scales are the f32 products sb * g (g
    the scheme's global scale); compressed-tensors stores sb (E4M3) and a
    global scale it divides by: weight_global_scale = f32(1 / g), so the
    effective scale sb / weight_global_scale is within one f32 rounding of
    Octet's sb * g (compressed-tensors' own quantizer uses the same
    convention: global = 448 * 6 / absmax)."""
    import ml_dtypes
    if strat != "group" or group != 16:
        raise ExportError("%s: '%s' is NVFP4 with %s scales%s; NVFP4 is "
                          "groups of 16 along the input" % (
                              where, name, strat,
                              " of %d" % group if group else ""))
    if input_args is not None and input_args["strategy"] != "tensor_group":
        raise ExportError("%s: '%s' is NVFP4 with non-NVFP4 activations; "
                          "compressed-tensors pairs NVFP4 weights with NVFP4 "
                          "activations (w4a4-nvfp4)" % (where, name))
    g = np.float32(scheme["global_scale"] or 0)
    if not (np.isfinite(g) and g > 0):
        raise ExportError("%s: '%s' has the NVFP4 global scale %r; a "
                          "positive finite f32 is needed" % (
                              where, name, scheme["global_scale"]))
    with np.errstate(over="ignore", invalid="ignore"):  # tiny g: refused below
        sb = (scale / g).astype(ml_dtypes.float8_e4m3fn)
    back = sb.astype(np.float32) * g
    bad = ~(back == scale) | (sb.astype(np.float32) <= 0)
    if bad.any():
        i = int(np.argmax(bad.reshape(-1)))
        raise ExportError("%s: '%s' has the scale %r at %d, not an E4M3 "
                          "value in (0, 448] times the global scale %r"
                          % (where, name, scale.reshape(-1)[i].item(), i,
                             float(g)))
    args.update(type="float", num_bits=4, strategy="tensor_group",
                scale_dtype="torch.float8_e4m3fn")
    out[base + ".weight_packed"] = ("U8", fp4_codes(name, cdtype, codes,
                                                    where))
    out[base + ".weight_scale"] = ("F8_E4M3", np.ascontiguousarray(
        sb.view(np.uint8)))
    out[base + ".weight_global_scale"] = (
        "F32", np.array([1.0 / np.float64(g)], np.float32))
    return out, "nvfp4-pack-quantized", args, input_args


def convert_weight(name, hf, scheme, tensors, heads, where, act=None):
    """({hf module name + suffix: (dtype, array)}, format, weights args,
    input_activations args or None) of one quantized weight; `act` the
    activations' (scheme, dynamic) of a W8A8 matmul."""
    cdtype, codes = tensors[name]
    sdtype, scale = tensors[name + ".scale"]
    zp_entry = tensors.get(name + ".zero_point")
    zp = None if zp_entry is None else zp_entry[1]
    if codes.ndim != 2:
        raise ExportError("%s: '%s' has %d dimensions; a linear weight has 2"
                          % (where, name, codes.ndim))
    if scheme["symmetric"] != (zp is None):
        raise ExportError("%s: '%s' is %s but %s zero point" % (
            where, name, "symmetric" if scheme["symmetric"] else "asymmetric",
            "has a" if zp is not None else "has no"))
    strat, group, scale_shape = strategy(name, scheme, codes.shape, where)
    e8m0 = sdtype == "F8_E8M0"
    if not e8m0 and sdtype != "F32":
        raise ExportError("%s: '%s' has %s scales; octet's are F32 (E8M0 for "
                          "MX)" % (where, name, sdtype))
    # octet-export-safetensors writes the scales of an e8m0 (MX) scheme as
    # F8_E8M0 and every other scheme's as F32: a file where the two
    # disagree (or a scheme with both e8m0 and e4m3) is not octet's.
    if scheme["e8m0"] and scheme["e4m3"]:
        raise ExportError("%s: '%s' has a scheme with both E8M0 (e8m0) and "
                          "E4M3 (e4m3(...)) scales" % (where, name))
    if e8m0 != scheme["e8m0"]:
        raise ExportError("%s: '%s' has %s scales but its scheme %s; octet's "
                          "MX (e8m0) schemes have F8_E8M0 scales, the others "
                          "F32" % (where, name, sdtype,
                                   "is MX (e8m0)" if scheme["e8m0"] else
                                   "is not MX (no e8m0)"))
    if zp_entry is not None and zp_entry[0] != "I32":
        raise ExportError("%s: '%s' has %s zero points; octet's are I32"
                          % (where, name, zp_entry[0]))
    bad = (scale == 255) if e8m0 else ~(np.isfinite(scale) & (scale >= 0))
    if bad.any():
        i = int(np.argmax(bad.reshape(-1)))
        raise ExportError("%s: '%s' has the scale %r at %d, not a finite "
                          "scale >= 0" % (where, name,
                                          scale.reshape(-1)[i].item(), i))
    # octet's layout of the scales (and zero points): [out] per channel,
    # [out, groups] per group, one value per tensor.
    octet_shape = {"channel": scale_shape[:1], "group": scale_shape,
                   "tensor": None}[strat]
    for what, arr in (("scales", scale), ("zero points", zp)):
        if arr is not None and (arr.size != 1 if octet_shape is None else
                                tuple(arr.shape) != tuple(octet_shape)):
            raise ExportError(
                "%s: '%s' has %s of shape %s; %s of a %s weight are %s"
                % (where, name, what, list(arr.shape), strat,
                   list(codes.shape), "one value" if octet_shape is None
                   else list(octet_shape)))
    scale = scale.reshape(scale_shape)
    if zp is not None:
        zp = zp.reshape(scale_shape)
    if heads:
        codes, scale = unpermute_rows(codes, heads), (
            scale if strat == "tensor" else unpermute_rows(scale, heads))
        if zp is not None and strat != "tensor":
            zp = unpermute_rows(zp, heads)
    base = hf[:-len(".weight")]
    args = {"type": "int", "symmetric": scheme["symmetric"], "strategy": strat,
            "group_size": group, "dynamic": False, "actorder": None,
            "block_structure": None}
    out = {}
    input_args = None
    if act is not None:
        input_args, inputs = activation_args(name, base, act, tensors, where)
        out.update(inputs)
    fmt = scheme["format"]
    if fmt == "nf4":
        raise ExportError("%s: '%s' is NF4; compressed-tensors has no NF4 "
                          "form (bitsandbytes' checkpoints do)" % (where, name))
    if fmt == "f4E2M1FN" and scheme["e4m3"]:
        return nvfp4_weight(name, base, scheme, codes, cdtype, scale, strat,
                            group, args, out, input_args, where)
    if fmt == "f4E2M1FN":
        # FP4 (E2M1) codes a byte each (the code in the low nibble): MXFP4
        # is mxfp4-pack-quantized (two codes per byte, the first in the low
        # nibble; E8M0 scales as U8), NVFP4 above.
        if not e8m0 or strat != "group" or group != 32:
            raise ExportError("%s: '%s' is FP4 (E2M1) with %s %s scales; "
                              "compressed-tensors holds FP4 weights as MXFP4 "
                              "(groups of 32 with E8M0 scales: quantize with "
                              "format=mxfp4) or NVFP4 (format=nvfp4)"
                              % (where, name, strat,
                                 "E8M0" if e8m0 else "F32"))
        if input_args is not None and "scale_dtype" not in input_args:
            raise ExportError("%s: '%s' is MXFP4 with non-MX activations; "
                              "compressed-tensors pairs MXFP4 weights with "
                              "MX activations (w4a8-mxfp4, w4a4-mxfp4)"
                              % (where, name))
        args.update(type="float", num_bits=4, scale_dtype="torch.uint8")
        out[base + ".weight_packed"] = ("U8", fp4_codes(name, cdtype, codes,
                                                        where))
        out[base + ".weight_scale"] = ("U8", scale)
        return out, "mxfp4-pack-quantized", args, input_args
    if fmt.startswith("f8"):
        if cdtype != "F8_E4M3" or fmt != "f8E4M3FN":
            # (The scheme and the tensor's dtype must both say E4M3.)
            raise ExportError("%s: '%s' has %s codes; compressed-tensors' 8-bit "
                              "floats are E4M3 (quantize with format=f8E4M3FN "
                              "or mxfp8)" % (where, name, cdtype
                                             if cdtype != "F8_E4M3" else fmt))
        args.update(type="float", num_bits=8)
        out[base + ".weight"] = ("F8_E4M3", codes)
        if e8m0:
            if strat != "group" or group != 32:
                raise ExportError("%s: '%s' has E8M0 scales %s; MXFP8 is groups"
                                  " of 32" % (where, name, strat))
            args["scale_dtype"] = "torch.uint8"
            form = "mxfp8-quantized"
            out[base + ".weight_scale"] = ("U8", scale)
        else:
            form = "float-quantized"
            rows = block_rows(scale, group) if strat == "group" else None
            if rows is not None:
                # 2-D blocks, in Hugging Face's row order (q / k blocks of
                # B < head rows become blocks of B / 2 there): one scale
                # per block of rows x group.
                args.update(strategy="block", group_size=None,
                            block_structure=[rows, group])
                scale = np.ascontiguousarray(scale[::rows])
            out[base + ".weight_scale"] = ("F32", scale)
        return out, form, args, input_args
    if cdtype not in ("I8", "U8") or e8m0:
        raise ExportError("%s: '%s' has %s codes with %s scales, not a scheme "
                          "compressed-tensors holds" % (where, name, cdtype, sdtype))
    bits, offset = int_args(name, scheme, codes, zp, where)
    want = "I8" if fmt.startswith("i") else "U8"
    if cdtype != want:
        raise ExportError("%s: '%s' has %s codes of dtype %s; octet's %s codes "
                          "are %s" % (where, name, fmt, cdtype, fmt, want))
    args["num_bits"] = bits
    signed = codes.astype(np.int32) - offset
    if input_args is not None:
        # W8A8: int-quantized, the codes one int8 each (what vLLM's int8
        # GEMM reads), zero points unpacked.
        out[base + ".weight"] = ("I8", signed.astype(np.int8))
        out[base + ".weight_scale"] = ("F32", scale)
        if zp is not None:
            out[base + ".weight_zero_point"] = (
                "I8", (zp.astype(np.int32) - offset).astype(np.int8))
        return out, "int-quantized", args, input_args
    out[base + ".weight_packed"] = ("I32", pack_int32(signed, bits))
    out[base + ".weight_scale"] = ("F32", scale)
    out[base + ".weight_shape"] = ("I64", np.array(codes.shape, np.int64))
    if zp is not None:
        z = zp.astype(np.int32) - offset
        if strat == "tensor":
            out[base + ".weight_zero_point"] = ("I8", z.astype(np.int8))
        else:   # packed along the output rows (packed_dim=0)
            out[base + ".weight_zero_point"] = (
                "I32", np.ascontiguousarray(pack_int32(z.T, bits).T))
    return out, "pack-quantized", args, None


# -- the checkpoint ---------------------------------------------------------

def write_safetensors(path, tensors, metadata):
    """Write {name: (safetensors dtype, array)} (sorted by name, 8-byte
    aligned header) as the format defines it."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        dtype, arr = tensors[name]
        raw = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for b in blobs:
            f.write(b)


def hf_config(src, quant_config):
    c = src.config
    tok = src._spec
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama",
        "vocab_size": c["vocab"], "hidden_size": c["hidden"],
        "intermediate_size": c["ffn"], "num_hidden_layers": c["layers"],
        "num_attention_heads": c["heads"],
        "num_key_value_heads": c["kv_heads"], "head_dim": c["head_dim"],
        "hidden_act": "silu", "max_position_embeddings": c["context_length"],
        "rms_norm_eps": c["rms_eps"], "rope_theta": c["rope_theta"],
        "rope_scaling": None, "attention_bias": False,
        "attention_dropout": 0.0, "mlp_bias": False,
        "tie_word_embeddings": c["tied_output"],
        "bos_token_id": tok.bos_id, "eos_token_id": tok.eos_id,
        "torch_dtype": "float32", "use_cache": True,
    }
    if quant_config is not None:
        config["quantization_config"] = quant_config
    return config


def write_tokenizer(src, out):
    tk = src.tokenizer()
    spec = src._spec
    hf = tk._tk
    if spec.add_bos:
        from tokenizers import processors
        bos = spec.tokens[spec.bos_id]
        hf.post_processor = processors.TemplateProcessing(
            single="%s $A" % bos, pair="%s $A %s $B" % (bos, bos),
            special_tokens=[(bos, spec.bos_id)])
    hf.save(os.path.join(out, "tokenizer.json"))
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast",
           "bos_token": spec.tokens[spec.bos_id],
           "eos_token": spec.tokens[spec.eos_id],
           "add_bos_token": bool(spec.add_bos),
           "model_max_length": src.config["context_length"],
           "clean_up_tokenization_spaces": False}
    template = src.metadata("tokenizer.chat_template")
    if template:
        cfg["chat_template"] = template
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=2)


def export(source, weights, out_dir, log=print):
    """Write the checkpoint directory `out_dir`; returns {hf module name:
    compressed-tensors format} of the quantized weights."""
    src = gguf_llama.load(source)
    tensors, schemes, acts = read_raw(weights)
    c = src.config
    heads_of = {"attn_q": c["heads"], "attn_k": c["kv_heads"]}
    out, groups, formats = {}, {}, {}
    used = set()
    for name in src.tensor_names():
        hf = hf_name(name)
        if hf is None:
            raise ExportError("%s: tensor '%s' has no Hugging Face llama name"
                              % (source, name))
        want = tuple(src.tensor_shape(name))
        m = LAYER_RE.match(name)
        heads = heads_of.get(m.group(2)) if m else None
        if name in schemes:
            if tuple(tensors[name][1].shape) != want:
                raise ExportError("%s: '%s' has shape %s; the source model's is "
                                  "%s" % (weights, name,
                                          list(tensors[name][1].shape),
                                          list(want)))
            if name == "token_embd.weight":
                raise ExportError(
                    "%s: '%s' (the embedding table) is quantized; "
                    "compressed-tensors quantizes linear layers only (quantize "
                    "without the embedding)" % (weights, name))
            parts, form, args, input_args = convert_weight(
                name, hf, schemes[name], tensors, heads, weights,
                acts.get(name))
            out.update(parts)
            module = hf[:-len(".weight")]
            key = json.dumps([form, args, input_args], sort_keys=True)
            groups.setdefault(key, (form, args, input_args, []))[3].append(
                module)
            formats[module] = form
            used.update({name + s for s in ("", ".scale", ".zero_point",
                                             ".input_scale",
                                             ".input_zero_point")})
            continue
        if name in tensors:
            dtype, arr = tensors[name]
            if dtype not in ("F32", "F16", "F64"):
                raise ExportError("%s: '%s' is %s, not a float tensor, and the "
                                  "metadata gives it no scheme"
                                  % (weights, name, dtype))
            if tuple(arr.shape) != want:
                raise ExportError("%s: '%s' has shape %s; the source model's is "
                                  "%s" % (weights, name, list(arr.shape),
                                          list(want)))
            arr = np.asarray(arr, np.float32)
            used.add(name)
        elif m and m.group(2) in LINEAR_KINDS:
            raise ExportError(
                "%s: linear weight '%s' is neither a quantized weight (an "
                "octet.dequantize of constant codes) nor a float constant: "
                "the module computes it some other way (a W8A8 recipe's "
                "octet.matmul), which compressed-tensors' weight-only formats "
                "cannot describe" % (weights, name))
        else:
            arr = src.tensor(name)
            log("note: '%s' is not in %s; written from %s as F32"
                % (name, weights, source))
        if heads:
            arr = unpermute_rows(arr, heads)
        out[hf] = ("F32", arr)
    unused = [n for n in schemes if n not in used]
    if unused:
        raise ExportError("%s: quantized weight(s) %s are not tensors of %s"
                          % (weights, ", ".join(sorted(unused)[:5]), source))
    if c["tied_output"] and "lm_head" in formats:
        raise ExportError("%s: the output head is quantized but %s ties it to "
                          "the embedding table" % (weights, source))
    groups = merge_blocks(groups, out)
    quant = None
    if groups:
        linears = [hf_name(n)[:-len(".weight")] for n in src.linear_names()]
        if not c["tied_output"]:
            linears.append("lm_head")
        everything = set(formats) == set(linears) - {"lm_head"} or \
            set(formats) == set(linears)
        single = len(groups) == 1 and everything
        config_groups = {}
        for i, (form, args, input_args, modules) in enumerate(groups.values()):
            config_groups["group_%d" % i] = {
                # "Linear" names every linear layer: used when one scheme
                # covers them all; otherwise each group lists its modules.
                "targets": ["Linear"] if single else modules,
                "weights": args, "input_activations": input_args,
                "output_activations": None, "format": form}
        forms = sorted({g[0] for g in groups.values()})
        ignore = [] if "lm_head" in formats else ["lm_head"]
        quant = {"quant_method": "compressed-tensors",
                 "format": forms[0] if len(forms) == 1 else "mixed-precision",
                 "quantization_status": "compressed",
                 "config_groups": config_groups,
                 "ignore": ignore,
                 "kv_cache_scheme": None, "global_compression_ratio": None,
                 "version": COMPRESSED_TENSORS_VERSION}
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), out,
                      {"format": "pt", "quantized_by": "octet"})
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(hf_config(src, quant), f, indent=2)
    with open(os.path.join(out_dir, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": src._spec.bos_id,
                   "eos_token_id": src._spec.eos_id}, f, indent=2)
    write_tokenizer(src, out_dir)
    counts = {}
    for form in formats.values():
        counts[form] = counts.get(form, 0) + 1
    log("wrote %s: %d quantized linear weights (%s), %d float tensors"
        % (out_dir, len(formats), ", ".join("%d %s" % (n, f) for f, n in
                                            sorted(counts.items())) or "none",
           sum(1 for k in out if k.endswith(".weight") and
               k[:-len(".weight")] not in formats)))
    return formats


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="octet-export-compressed-tensors",
        description="Write an LLM quantized by Octet as a Hugging Face "
                    "checkpoint in the compressed-tensors layout (vLLM, "
                    "transformers): config.json with quantization_config, "
                    "model.safetensors, the tokenizer.")
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
    p.add_argument("-o", "--output", required=True,
                   help="directory to write (created if missing)")
    a = p.parse_args(argv)
    try:
        export_from_args(a, export)
    except (ExportError, gguf_llama.GGUFError) as e:
        sys.exit("octet-export-compressed-tensors: error: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
