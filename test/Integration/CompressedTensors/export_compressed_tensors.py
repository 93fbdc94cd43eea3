"""octet_export_compressed_tensors.py against independent oracles.

A tiny llama GGUF (gguf_llama.write_tiny_llama: 4 query heads, 2 kv heads)
is imported, its linear weights quantized by octet-quantize-weights (i8 per
channel, i4 per group of 32, u4 asymmetric per group and per channel, i3
per group of 64, FP8 E4M3 per channel, MXFP8, MXFP4, FP8 E4M3 in blocks of
32 x 32 and 8 x 32 (channel-block: strategy "block"), and the float model),
exported by octet-export-safetensors and written as a compressed-tensors
checkpoint. Checked, per recipe:

  config       quantization_config's format, num_bits, type, symmetric,
               strategy, group_size, targets and ignore for the scheme, and
               the llama hyper-parameters against the GGUF's;
  tensors      each weight decoded here from compressed-tensors' layout
               (written from its definition: code i of a row at bit b*i of
               little-endian int32 words, stored as code + 2^(b-1); zero
               points packed along the output rows; FP8 bytes; E8M0 scale
               bytes = 127 + log2(scale)), then put back in GGUF's row order
               by llama.cpp's own HF -> GGUF permutation of q and k
               (convert_hf_to_gguf.py's `permute`, written here), equals the
               weight oracle's codes, scales and zero points
               (test/Integration/QuantizeWeights/weights_oracle.py; a
               one-step flip only at the oracle's near ties);
  forward      examples/llm/reference.py's float64 forward pass over the
               checkpoint as Hugging Face computes it (the halves of each
               head rotated by RoPE, rotate_half) against the same pass over
               the GGUF layout (adjacent pairs rotated) with the same
               dequantized weights: the logits agree to 1e-9 (a q / k row
               order left in GGUF's layout gives ~1e-1);
  tokenizer    tokenizer.json read by the `tokenizers` package encodes and
               decodes text as the GGUF's tokenizer does;
  safetensors  the `safetensors` package reads model.safetensors: the same
               tensors, equal to this parse (FP8 ones excepted: numpy has
               no FP8).

Also octet-quantize's recipes (weights fused into octet.matmul, the codes a
linalg.transpose of the constant): w8a16, w4a16 per group, and W8A8
(dynamic int8 and FP8: int-quantized / float-quantized with the
activations' input_activations, per token and dynamic; block-wise FP8:
blocks of 32 x 32, activations per token and group of 32). Refused by
name: FP8 E5M2 codes, FP4 with f32 scales, NF4, static per-group
activations, a missing weights file.

With --peer (torch, transformers and compressed-tensors installed: scripts/
setup --transformers) the checkpoint is also read by their own code:
compressed_tensors.QuantizationConfig validates quantization_config, and
transformers' AutoModelForCausalLM loads the directory (compressed-tensors
decompresses the weights): the decompressed weights equal the oracle's
dequantized ones bit for bit, and its logits agree with the float64
reference within 1e-4.

usage: export_compressed_tensors.py WORKDIR [--peer]
"""

import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "test", "lib"),
                os.path.join(ROOT, "test", "Integration", "QuantizeWeights"),
                os.path.join(ROOT, "tools", "import-model"),
                os.path.join(ROOT, "examples", "llm")]

import octet_oracle as oo  # noqa: E402
import weights_oracle as wo  # noqa: E402
import gguf_llama  # noqa: E402
import octet_export_compressed_tensors as ct  # noqa: E402
from reference import Reference  # noqa: E402

KINDS = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
         "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
         "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
         "ffn_down": "mlp.down_proj"}
REF_KEYS = {"attn_q": "wq", "attn_k": "wk", "attn_v": "wv",
            "attn_output": "wo", "ffn_gate": "wg", "ffn_up": "wu",
            "ffn_down": "wd"}
RECIPES = [
    # name, octet-quantize-weights options, oracle scheme, expected
    # (format, num_bits, type, strategy, group_size)
    ("w8-channel", "format=i8 granularity=per-channel",
     oo.Scheme("i8", "per_axis", 0), ("pack-quantized", 8, "int", "channel", None)),
    ("w4-g32", "format=i4 granularity=per-group group-size=32",
     oo.Scheme("i4", "per_group", 1, 32), ("pack-quantized", 4, "int", "group", 32)),
    ("w4-asym-g32", "format=u4 symmetric=false granularity=per-group group-size=32",
     oo.Scheme("u4", "per_group", 1, 32, symmetric=False),
     ("pack-quantized", 4, "int", "group", 32)),
    ("w4-asym-channel", "format=u4 symmetric=false granularity=per-channel",
     oo.Scheme("u4", "per_axis", 0, symmetric=False),
     ("pack-quantized", 4, "int", "channel", None)),
    ("w3-g64", "format=i3 granularity=per-group group-size=64",
     oo.Scheme("i4", "per_group", 1, 64, qmin=-4, qmax=3),
     ("pack-quantized", 4, "int", "group", 64)),
    ("fp8-channel", "format=f8E4M3FN",
     oo.Scheme("f8E4M3FN", "per_axis", 0), ("float-quantized", 8, "float", "channel", None)),
    ("mxfp8", "format=mxfp8",
     oo.Scheme("f8E4M3FN", "per_group", 1, 32, e8m0=True),
     ("mxfp8-quantized", 8, "float", "group", 32)),
    ("mxfp4", "format=mxfp4",
     oo.Scheme("f4E2M1FN", "per_group", 1, 32, e8m0=True),
     ("mxfp4-pack-quantized", 4, "float", "group", 32)),
    ("recipe-mxfp4", "--octet-quantize=recipe=w4a16-mxfp4",
     oo.Scheme("f4E2M1FN", "per_group", 1, 32, e8m0=True),
     ("mxfp4-pack-quantized", 4, "float", "group", 32)),
    # NVFP4: E2M1 in groups of 16, E4M3 scales, a global scale.
    ("nvfp4", "format=nvfp4",
     oo.Scheme("f4E2M1FN", "per_group", 1, 16, e4m3=True),
     ("nvfp4-pack-quantized", 4, "float", "tensor_group", 16)),
    ("recipe-nvfp4", "--octet-quantize=recipe=w4a16-nvfp4",
     oo.Scheme("f4E2M1FN", "per_group", 1, 16, e4m3=True),
     ("nvfp4-pack-quantized", 4, "float", "tensor_group", 16)),
    # octet-quantize's recipes: the weights fused into octet.matmul (the
    # codes a linalg.transpose of the constant), W8A8 with the activations'
    # scheme.
    ("recipe-w8a16", "--octet-quantize=recipe=w8a16",
     oo.Scheme("i8", "per_axis", 0), ("pack-quantized", 8, "int", "channel", None)),
    ("recipe-w4a16-g32", "--octet-quantize=recipe=w4a16 group-size=32",
     oo.Scheme("i4", "per_group", 1, 32), ("pack-quantized", 4, "int", "group", 32)),
    ("recipe-w8a8-dynamic", "--octet-quantize=recipe=w8a8-dynamic",
     oo.Scheme("i8", "per_axis", 0), ("int-quantized", 8, "int", "channel", None)),
    ("recipe-w8a8-fp8", "--octet-quantize=recipe=w8a8-fp8",
     oo.Scheme("f8E4M3FN", "per_axis", 0),
     ("float-quantized", 8, "float", "channel", None)),
    # Block-wise FP8 (channel-block=B: one scale per B output channels x
    # 32 inputs): strategy "block", block_structure [B, 32], one scale per
    # block. With B = 8, fewer rows than a q / k head (16): llama.cpp's head
    # permutation interleaves two GGUF blocks per head, which are blocks of
    # 4 rows in Hugging Face's order (each scale twice): every weight is
    # written with block_structure [4, 32], one config group.
    ("fp8-block", "format=f8E4M3FN granularity=per-group group-size=32 "
     "channel-block=32", oo.Scheme("f8E4M3FN", "per_group", 1, 32),
     ("float-quantized", 8, "float", "block", None)),
    ("fp8-block8", "format=f8E4M3FN granularity=per-group group-size=32 "
     "channel-block=8", oo.Scheme("f8E4M3FN", "per_group", 1, 32),
     ("float-quantized", 8, "float", "block", None)),
    ("recipe-w8a8-fp8-block", "--octet-quantize=recipe=w8a8-fp8-block "
     "group-size=32", oo.Scheme("f8E4M3FN", "per_group", 1, 32),
     ("float-quantized", 8, "float", "block", None)),
    # MX on both operands: compressed-tensors' MXFP8 and MXFP4 presets
    # (dynamic activations per token and block of 32, U8 E8M0 scales), and
    # MXFP4 weights with MXFP8 activations.
    ("recipe-w8a8-mxfp8", "--octet-quantize=recipe=w8a8-mxfp8",
     oo.Scheme("f8E4M3FN", "per_group", 1, 32, e8m0=True),
     ("mxfp8-quantized", 8, "float", "group", 32)),
    ("recipe-w4a8-mxfp4", "--octet-quantize=recipe=w4a8-mxfp4",
     oo.Scheme("f4E2M1FN", "per_group", 1, 32, e8m0=True),
     ("mxfp4-pack-quantized", 4, "float", "group", 32)),
    ("recipe-w4a4-mxfp4", "--octet-quantize=recipe=w4a4-mxfp4",
     oo.Scheme("f4E2M1FN", "per_group", 1, 32, e8m0=True),
     ("mxfp4-pack-quantized", 4, "float", "group", 32)),
]
# The activations' input_activations (type, strategy, dynamic, group_size,
# num_bits, scale_dtype) per recipe.
ACTIVATIONS = {
    "recipe-w8a8-dynamic": ("int", "token", True, None, 8, None),
    "recipe-w8a8-fp8": ("float", "token", True, None, 8, None),
    "recipe-w8a8-fp8-block": ("float", "group", True, 32, 8, None),
    "recipe-w8a8-mxfp8": ("float", "group", True, 32, 8, "torch.uint8"),
    "recipe-w4a8-mxfp4": ("float", "group", True, 32, 8, "torch.uint8"),
    "recipe-w4a4-mxfp4": ("float", "group", True, 32, 4, "torch.uint8")}
# Block-wise recipes: the oracle's channel block, and the rows of the
# exported blocks.
BLOCKS = {"fp8-block": (32, 32), "fp8-block8": (8, 4),
          "recipe-w8a8-fp8-block": (32, 32)}

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def run(cmd, ok=True):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if ok and r.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    return r


def gguf_permute(w, n_head):
    """llama.cpp's convert_hf_to_gguf.py LlamaModel.permute: the HF rows of
    q / k in the order GGUF stores them."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def read_checkpoint(path):
    """{name: (dtype, array)} of model.safetensors (FP8 / E8M0 as uint8)
    and its metadata, parsed from the safetensors definition."""
    with open(path, "rb") as fh:
        blob = fh.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = blob[8 + n:]
    types = {"F32": np.float32, "I32": np.int32, "I64": np.int64,
             "I8": np.int8, "U8": np.uint8, "F8_E4M3": np.uint8}
    out = {}
    for k, v in header.items():
        a, b = v["data_offsets"]
        out[k] = (v["dtype"], np.frombuffer(data[a:b], types[v["dtype"]])
                  .reshape(v["shape"]))
    return out, meta


def check_safetensors_package(path, t, tag):
    """The `safetensors` package reads model.safetensors: the same names,
    and every tensor numpy can hold equal to the parse above (FP8 has no
    numpy type)."""
    from safetensors import safe_open
    with safe_open(path, "numpy") as f:
        check(sorted(f.keys()) == sorted(t), "%s: safetensors lists other "
              "tensors" % tag)
        for name, (dtype, arr) in t.items():
            if dtype.startswith("F8"):
                continue
            check(np.array_equal(f.get_tensor(name), arr),
                  "%s: safetensors reads %s differently" % (tag, name))


def unpack(words, bits, cols):
    """compressed-tensors' unpack_from_int32 along the last axis: code i of
    a row at bit bits*i of the row's little-endian int32 words, minus
    2^(bits-1)."""
    u = words.astype(np.int64) & 0xFFFFFFFF
    per_word = 32 // bits
    i = np.arange(cols)
    vals = (u[:, i // per_word] >> ((i % per_word) * bits)) & ((1 << bits) - 1)
    return vals - (1 << (bits - 1))


def decode(t, module, args, form, shape):
    """(codes, scale, zero point) of one module's weight, in compressed-
    tensors' own terms (signed codes, zero point in the same range)."""
    if form == "pack-quantized":
        dt, shp = t[module + ".weight_shape"]
        check(dt == "I64" and list(shp) == list(shape),
              "%s: weight_shape %s %s" % (module, dt, list(shp)))
        dt, packed = t[module + ".weight_packed"]
        check(dt == "I32", "%s: weight_packed is %s" % (module, dt))
        codes = unpack(packed, args["num_bits"], shape[1])
        zp = None
        if not args["symmetric"]:
            dt, zpk = t[module + ".weight_zero_point"]
            groups = t[module + ".weight_scale"][1].shape[1]
            zp = unpack(zpk.T.copy(), args["num_bits"], shape[0]).T[:, :groups]
        return codes, t[module + ".weight_scale"][1], zp
    if form == "nvfp4-pack-quantized":
        # As MXFP4, with E4M3 block scales and a global scale to divide by:
        # returned as compressed-tensors' effective scale, f32(sb / gs).
        dt, packed = t[module + ".weight_packed"]
        sdt, sb = t[module + ".weight_scale"]
        gdt, gs = t[module + ".weight_global_scale"]
        check(dt == "U8" and sdt == "F8_E4M3" and gdt == "F32" and
              packed.shape == (shape[0], shape[1] // 2) and
              sb.shape == (shape[0], shape[1] // 16) and gs.shape == (1,),
              "%s: weight_packed %s %s, scale %s %s, global %s %s" % (
                  module, dt, list(packed.shape), sdt, list(sb.shape), gdt,
                  list(gs.shape)))
        codes = np.empty(shape, np.uint8)
        codes[:, 0::2] = packed & 0xF
        codes[:, 1::2] = packed >> 4
        import ml_dtypes
        sbf = sb.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
        return codes, sbf / gs[0], None
    if form == "mxfp4-pack-quantized":
        # Two E2M1 codes per byte, the even column in the low nibble.
        dt, packed = t[module + ".weight_packed"]
        sdt, scale = t[module + ".weight_scale"]
        check(dt == "U8" and sdt == "U8" and packed.shape == (
            shape[0], shape[1] // 2), "%s: weight_packed %s %s, scale %s" % (
                module, dt, list(packed.shape), sdt))
        codes = np.empty(shape, np.uint8)
        codes[:, 0::2] = packed & 0xF
        codes[:, 1::2] = packed >> 4
        scale = np.ldexp(1.0, scale.astype(np.int32) - 127).astype(np.float32)
        return codes, scale, None
    dt, codes = t[module + ".weight"]
    if args["strategy"] == "block":
        # One scale per block of rows x columns, the last ones shorter.
        sdt, scale = t[module + ".weight_scale"]
        bh, bw = args["block_structure"]
        want = (-(-shape[0] // bh), -(-shape[1] // bw))
        check(dt == "F8_E4M3" and sdt == "F32" and scale.shape == want,
              "%s: weight %s, block scales %s %s (expected %s)" % (
                  module, dt, sdt, list(scale.shape), list(want)))
        return codes, scale, None
    if form == "int-quantized":
        check(dt == "I8", "%s: weight is %s" % (module, dt))
        zp = None if args["symmetric"] else t[module + ".weight_zero_point"][1]
        return codes, t[module + ".weight_scale"][1], zp
    check(dt == "F8_E4M3", "%s: weight is %s" % (module, dt))
    sdt, scale = t[module + ".weight_scale"]
    if form == "mxfp8-quantized":
        check(sdt == "U8", "%s: MX scales are %s" % (module, sdt))
        scale = np.ldexp(1.0, scale.astype(np.int32) - 127).astype(np.float32)
    return codes, scale, None


def dequantize(codes, scale, zp, args, shape):
    """compressed-tensors' dequantize: (q - zp) * scale, the scale repeated
    over its group / row, in float64."""
    if args["strategy"] == "tensor_group":
        # NVFP4 as compressed-tensors decompresses it: the E2M1 value times
        # the f32 effective scale in f32, then rounded to bfloat16
        # (unpack_fp4_from_uint8's default dtype).
        import ml_dtypes
        q = codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
        s = np.repeat(np.asarray(scale, np.float32), 16, axis=1)
        return (q * s).astype(ml_dtypes.bfloat16).astype(np.float64)
    if args["type"] == "float":
        import ml_dtypes
        q = codes.view(ml_dtypes.float4_e2m1fn if args["num_bits"] == 4 else
                       ml_dtypes.float8_e4m3fn).astype(np.float64)
    else:
        q = codes.astype(np.float64)
    s = np.asarray(scale, np.float64)
    z = 0.0 if zp is None else np.asarray(zp, np.float64)
    if args["strategy"] == "block":
        bh, bw = args["block_structure"]
        s = np.repeat(np.repeat(s, bh, axis=0)[:shape[0]], bw, axis=1)
        s = s[:, :shape[1]]
    if args["strategy"] == "group":
        g = args["group_size"]
        s = np.repeat(s, g, axis=1)
        z = z if zp is None else np.repeat(z, g, axis=1)
    return (q - z) * s.reshape(-1, 1) if args["strategy"] == "tensor" \
        else (q - z) * s


def check_config(src, d, tag, expect, quantized=True):
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    c = src.config
    for key, want in (("num_hidden_layers", c["layers"]),
                      ("hidden_size", c["hidden"]),
                      ("intermediate_size", c["ffn"]),
                      ("num_attention_heads", c["heads"]),
                      ("num_key_value_heads", c["kv_heads"]),
                      ("vocab_size", c["vocab"]),
                      ("rms_norm_eps", c["rms_eps"]),
                      ("rope_theta", c["rope_theta"]),
                      ("tie_word_embeddings", c["tied_output"]),
                      ("model_type", "llama")):
        check(cfg.get(key) == want, "%s: config %s = %r, expected %r"
              % (tag, key, cfg.get(key), want))
    q = cfg.get("quantization_config")
    if not quantized:
        check(q is None, "%s: a float model has a quantization_config" % tag)
        return cfg, None
    form, bits, typ, strat, group = expect
    check(q["quant_method"] == "compressed-tensors" and q["format"] == form
          and q["quantization_status"] == "compressed",
          "%s: quantization_config %r" % (tag, {k: q.get(k) for k in (
              "quant_method", "format", "quantization_status")}))
    groups = list(q["config_groups"].values())
    block = BLOCKS.get(tag, (0, 0))[1]
    linears = ["model.layers.%d.%s" % (i, KINDS[k])
               for i in range(c["layers"]) for k in KINDS]
    check(len(groups) == 1 and groups[0]["targets"] == ["Linear"],
          "%s: config groups %r" % (tag, [g["targets"] for g in groups]))
    by_module = {m: groups[0]["weights"] for m in linears}
    check(q["ignore"] == ["lm_head"], "%s: ignore %r" % (tag, q["ignore"]))
    want_act = ACTIVATIONS.get(tag)
    for g in groups:
        act = g["input_activations"]
        got_act = None if act is None else (
            act["type"], act["strategy"], act["dynamic"], act["group_size"],
            act["num_bits"], act.get("scale_dtype"))
        check(g["format"] == form and got_act == want_act and
              (act is None or act["symmetric"]),
              "%s: group format %r, activations %r" % (tag, g["format"], act))
    for m, w in sorted(by_module.items()):
        want = (bits, typ, strat, group, None)
        if block:
            want = (bits, typ, "block", None, [block, 32])
        check((w["num_bits"], w["type"], w["strategy"], w["group_size"],
               w.get("block_structure")) == want,
              "%s %s: weights %r, expected %r" % (tag, m, w, want))
    return cfg, by_module


def hf_forward_check(src_path, weights, tag, tol=1e-9):
    """Reference (float64) over the GGUF layout vs over the HF layout of
    the same weights; `weights` {gguf name: (gguf-order array, hf-order
    array)}."""
    ids = np.array([5, 17, 42, 99, 3, 250, 7, 61, 128, 9])
    refs = {}
    for layout, rope in (("gguf", "adjacent"), ("hf", "halfsplit")):
        r = Reference(src_path, rope=rope)
        for name, pair in weights.items():
            a = np.asarray(pair[0 if layout == "gguf" else 1], np.float64)
            parts = name.split(".")
            if parts[0] == "blk":
                key = REF_KEYS.get(parts[2], parts[2])
                r.layers[int(parts[1])][key] = a.T.copy() \
                    if parts[2] in REF_KEYS else a
            elif name == "token_embd.weight":
                r.embd = a
                if r.tied:
                    r.wout = a.T.copy()
            elif name == "output_norm.weight":
                r.out_norm = a
        refs[layout] = r.logits(ids)
    rel = float(np.linalg.norm(refs["hf"] - refs["gguf"]) /
                np.linalg.norm(refs["gguf"]))
    check(rel < tol, "%s: HF-layout logits differ from the GGUF layout's "
          "(relative %.3g)" % (tag, rel))
    return refs["gguf"], ids


def peer_check(d, tag, oracle_weights, ref_logits, ids):
    """compressed-tensors validates the config; transformers loads the
    directory: decompressed weights and logits."""
    import torch
    from compressed_tensors import QuantizationConfig
    from transformers import AutoModelForCausalLM, CompressedTensorsConfig
    with open(os.path.join(d, "config.json")) as f:
        qc = json.load(f).get("quantization_config")
    if qc is not None:
        try:
            QuantizationConfig.model_validate(qc)
        except Exception as e:  # pydantic's ValidationError
            check(False, "%s: compressed-tensors rejects the config: %s"
                  % (tag, str(e).splitlines()[0]))
    # dequantize=True: compressed-tensors decompresses the weights
    # while loading (its dequantize of the stored codes and scales).
    extra = {"quantization_config": CompressedTensorsConfig(
        dequantize=True)} if qc is not None else {}
    model = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32,
                                                 **extra).eval()
    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    for hf, want in oracle_weights.items():
        got = sd.get(hf)
        check(got is not None and np.array_equal(got, want.astype(np.float32)),
              "%s: transformers' %s differs from octet's dequantized weight"
              % (tag, hf))
    with torch.no_grad():
        logits = model(torch.tensor(ids)[None]).logits[0].double().numpy()
    rel = float(np.linalg.norm(logits - ref_logits) / np.linalg.norm(ref_logits))
    print("%s: transformers + compressed-tensors logits vs the float64 "
          "reference: relative error %.2e" % (tag, rel))
    check(rel < 1e-4, "%s: transformers' logits differ (%.3g)" % (tag, rel))


def main():
    work = sys.argv[1]
    peer = "--peer" in sys.argv[2:]
    os.makedirs(work, exist_ok=True)
    src_path = os.path.join(work, "tiny.gguf")
    gguf_llama.write_tiny_llama(src_path, seed=11)
    src = gguf_llama.load(src_path)
    c = src.config
    heads = {"attn_q": c["heads"], "attn_k": c["kv_heads"]}
    mlir = os.path.join(work, "tiny.mlir")
    run([sys.executable, os.path.join(ROOT, "tools", "import-model",
                                      "octet_import_model.py"),
         "--gguf", src_path, "--max-len", "64", "-o", mlir])
    log = lambda m: None  # noqa: E731

    # The float model: every tensor F32, q / k rows in HF order.
    st = os.path.join(work, "float.safetensors")
    run([oo.find_tool("octet-export-safetensors"), mlir, "-o", st])
    d = os.path.join(work, "float")
    ct.export(src_path, st, d, log=log)
    check_config(src, d, "float", None, quantized=False)
    t, meta = read_checkpoint(os.path.join(d, "model.safetensors"))
    pairs, oracle = {}, {}
    for n in src.tensor_names():
        hf = ct.hf_name(n)
        kind = n.split(".")[-2]
        got = t[hf][1]
        back = gguf_permute(got, heads[kind]) if kind in heads else got
        check(np.array_equal(back, src.tensor(n)),
              "float %s: %s differs from the source" % (n, hf))
        pairs[n] = (src.tensor(n), got)
        oracle[hf] = got
    ref_logits, ids = hf_forward_check(src_path, pairs, "float")
    tk = __import__("tokenizers").Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    text = "Hello, octet! 12345 the quick brown fox"
    want = src.tokenizer().encode(text)
    check(tk.encode(text).ids == want and tk.decode(want) == text,
          "float: tokenizer.json encodes %r as %r, the GGUF's tokenizer as %r"
          % (text, tk.encode(text).ids, want))
    if peer:
        peer_check(d, "float", oracle, ref_logits, ids)
    print("float: checked")

    for name, options, scheme, expect in RECIPES:
        q = os.path.join(work, name + ".mlirbc")
        st = os.path.join(work, name + ".safetensors")
        d = os.path.join(work, name)
        flag = options if options.startswith("--") else \
            "--octet-quantize-weights=" + options
        run([oo.find_tool("octet-opt"), mlir, flag, "--emit-bytecode", "-o", q])
        run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
        formats = ct.export(src_path, st, d, log=log)
        _, by_module = check_config(src, d, name, expect)
        block = BLOCKS.get(name, (0,))[0]
        t, _ = read_checkpoint(os.path.join(d, "model.safetensors"))
        check_safetensors_package(os.path.join(d, "model.safetensors"), t,
                                  name)
        pairs, oracle = {}, {}
        offset = 8 if scheme.fmt == "u4" else 0
        for n in src.tensor_names():
            kind = n.split(".")[-2]
            hf = ct.hf_name(n)
            if kind not in KINDS:
                pairs[n] = (src.tensor(n), t[hf][1])
                oracle[hf] = t[hf][1]
                continue
            module = hf[:-len(".weight")]
            check(formats.get(module) == expect[0],
                  "%s %s: format %r" % (name, module, formats.get(module)))
            w = src.tensor(n)
            exp = wo.quantize_weight(w, scheme, "absmax",
                                     channel_block=block)
            args = by_module[module]
            codes, scale, zp = decode(t, module, args, expect[0], w.shape)
            hf_deq = dequantize(codes, scale, zp, args, w.shape)
            if args["strategy"] == "block":
                # The oracle writes a block's scale to each of its rows.
                bh = args["block_structure"][0]
                scale = np.repeat(scale, bh, axis=0)[:w.shape[0]]
            scale2 = np.asarray(scale, np.float32).reshape(exp["scale"].shape[0], -1)
            # Back to GGUF's row order with llama.cpp's own permutation.
            if kind in heads:
                codes = gguf_permute(codes, heads[kind])
                scale2 = gguf_permute(scale2, heads[kind])
                zp = None if zp is None else gguf_permute(zp, heads[kind])
            ecodes = exp["codes"]
            if scheme.format.is_fp8:
                check(np.array_equal(codes, ecodes.astype(np.uint8)),
                      "%s %s: FP8 codes differ from the oracle" % (name, n))
            else:
                got = codes.astype(np.int32) + offset
                diff = got != ecodes.astype(np.int32)
                if diff.any():
                    ties, alt = oo.near_ties(w, scheme, exp["scale"],
                                             None if scheme.symmetric else exp["zp"])
                    check(np.all(ties[diff]) and np.all(got[diff] == alt[diff]),
                          "%s %s: %d codes differ from the oracle away from "
                          "ties" % (name, n, int(np.sum(diff & ~ties))))
            if expect[0] == "nvfp4-pack-quantized":
                # The E4M3 block scales and f32(1 / g) exactly; the
                # effective scale sb / gs within one f32 rounding of
                # octet's sb * g.
                import ml_dtypes
                sbf = t[module + ".weight_scale"][1].view(
                    ml_dtypes.float8_e4m3fn).astype(np.float32)
                gs = t[module + ".weight_global_scale"][1][0]
                sbf = gguf_permute(sbf, heads[kind]) if kind in heads else sbf
                g = np.float32(exp["scheme"].glob)
                want_sb = (exp["scale"] / g).astype(
                    ml_dtypes.float8_e4m3fn).astype(np.float32)
                check(np.array_equal(sbf, want_sb) and
                      gs == np.float32(1 / np.float64(g)),
                      "%s %s: E4M3 scales or the global scale differ from "
                      "the oracle's" % (name, n))
                e = exp["scale"].astype(np.float32)
                check(np.all(np.abs(scale2 - e) <=
                             np.spacing(e, dtype=np.float32)),
                      "%s %s: effective scales more than one f32 step from "
                      "the oracle's" % (name, n))
            else:
                check(np.array_equal(
                    scale2.reshape(exp["scale"].shape).view(np.uint32),
                    exp["scale"].astype(np.float32).view(np.uint32)),
                    "%s %s: scales differ from the oracle" % (name, n))
            if not scheme.symmetric:
                check(np.array_equal(zp.reshape(exp["zp"].shape) + offset,
                                     exp["zp"]),
                      "%s %s: zero points differ from the oracle" % (name, n))
            gg = gguf_permute(hf_deq, heads[kind]) if kind in heads else hf_deq
            pairs[n] = (gg, hf_deq)
            oracle[hf] = hf_deq
        ref_logits, ids = hf_forward_check(src_path, pairs, name)
        if peer:
            peer_check(d, name, oracle, ref_logits, ids)
        print("%s: checked" % name)

    # Static activations (W8A8 with calibrated per-tensor parameters):
    # octet-export-safetensors' file of the dynamic recipe, its
    # "activations" entry made static u8 asymmetric with an input_scale and
    # an input_zero_point per weight (as it writes them for constant lhs
    # parameters).
    src_t, src_meta = ct.read_safetensors(os.path.join(
        work, "recipe-w8a8-dynamic.safetensors"))
    acts = json.loads(src_meta["activations"])
    tensors = {k: v for k, v in src_t.items()}
    for i, n in enumerate(sorted(acts)):
        acts[n] = {"scheme": "#octet.scheme<u8, asymmetric>",
                   "dynamic": False}
        tensors[n + ".input_scale"] = ("F32", np.array([0.01 + i], np.float32))
        tensors[n + ".input_zero_point"] = ("I32", np.array([130], np.int32))
    meta = dict(src_meta, activations=json.dumps(acts))
    st = os.path.join(work, "w8a8-static.safetensors")
    ct.write_safetensors(st, tensors, meta)
    d = os.path.join(work, "w8a8-static")
    ct.export(src_path, st, d, log=log)
    with open(os.path.join(d, "config.json")) as f:
        g = list(json.load(f)["quantization_config"]["config_groups"]
                 .values())
    act = g[0]["input_activations"] if len(g) == 1 else None
    check(act is not None and (act["type"], act["strategy"], act["dynamic"],
                               act["symmetric"], act["num_bits"]) ==
          ("int", "tensor", False, False, 8),
          "w8a8-static: input_activations %r" % act)
    t, _ = read_checkpoint(os.path.join(d, "model.safetensors"))
    for i, n in enumerate(sorted(acts)):
        base = ct.hf_name(n)[:-len(".weight")]
        sc, zp = t.get(base + ".input_scale"), t.get(base + ".input_zero_point")
        check(sc is not None and sc[0] == "F32" and
              sc[1].tolist() == [np.float32(0.01 + i)] and zp is not None and
              zp[0] == "I8" and zp[1].tolist() == [2],
              "w8a8-static %s: input_scale %r, input_zero_point %r (130 - "
              "128 = 2 expected)" % (n, sc, zp))
    print("w8a8-static: checked")

    # NVFP4 activations (w4a4-nvfp4: E4M3 block scales of 16 computed at run
    # time, a calibrated global scale g in the scheme): the NVFP4 weights'
    # file with an "activations" entry per weight as octet-export-safetensors
    # writes it for that recipe. compressed-tensors' NVFP4 preset: dynamic
    # "local", tensor_group 16, E4M3 scales, input_global_scale = 1 / g.
    src_t, src_meta = ct.read_safetensors(os.path.join(
        work, "nvfp4.safetensors"))
    names = sorted(n for n in src_t if n + ".scale" in src_t)
    gs = {n: np.float32(0.0123 * (i + 1)) for i, n in enumerate(names)}
    acts = {n: {"scheme": "#octet.scheme<f4E2M1FN, per_group(1, 16), "
                          "e4m3(%.9g)>" % gs[n], "dynamic": True}
            for n in names}
    st = os.path.join(work, "w4a4-nvfp4.safetensors")
    ct.write_safetensors(st, src_t, dict(src_meta,
                                         activations=json.dumps(acts)))
    d = os.path.join(work, "w4a4-nvfp4")
    ct.export(src_path, st, d, log=log)
    with open(os.path.join(d, "config.json")) as f:
        qc = json.load(f)["quantization_config"]
    g = list(qc["config_groups"].values())
    act = g[0]["input_activations"] if len(g) == 1 else None
    check(qc["format"] == "nvfp4-pack-quantized" and act is not None and
          (act["type"], act["strategy"], act["dynamic"], act["group_size"],
           act["num_bits"], act["symmetric"], act["scale_dtype"]) ==
          ("float", "tensor_group", "local", 16, 4, True,
           "torch.float8_e4m3fn"),
          "w4a4-nvfp4: format %r, input_activations %r" % (qc["format"], act))
    t, _ = read_checkpoint(os.path.join(d, "model.safetensors"))
    for n in names:
        base = ct.hf_name(n)[:-len(".weight")]
        want = np.float32(1.0 / np.float64(gs[n]))
        got = t.get(base + ".input_global_scale")
        check(got is not None and got[0] == "F32" and
              got[1].view(np.uint32).tolist() == [want.view(np.uint32)],
              "w4a4-nvfp4 %s: input_global_scale %r, want [%r] (1 / g)"
              % (n, got, want))
    # Static NVFP4 activation scales (constant block scales) are not the
    # preset's: refused, naming the weight.
    acts_static = {n: dict(a, dynamic=False) for n, a in acts.items()}
    st = os.path.join(work, "w4a4-nvfp4-static.safetensors")
    ct.write_safetensors(st, src_t, dict(src_meta,
                                         activations=json.dumps(acts_static)))
    try:
        ct.export(src_path, st, os.path.join(work, "w4a4-nvfp4-static"),
                  log=log)
        check(False, "w4a4-nvfp4-static: accepted")
    except ct.ExportError as e:
        check("NVFP4" in str(e) and any(n in str(e) for n in names),
              "w4a4-nvfp4-static: refusal %s" % e)
    print("w4a4-nvfp4: checked")

    # Refusals, each naming the tensor.
    q = os.path.join(work, "e5m2.mlirbc")
    st = os.path.join(work, "e5m2.safetensors")
    run([oo.find_tool("octet-opt"), mlir,
         "--octet-quantize-weights=format=f8E5M2", "--emit-bytecode", "-o", q])
    run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
    try:
        ct.export(src_path, st, os.path.join(work, "e5m2"), log=log)
        check(False, "e5m2: accepted")
    except ct.ExportError as e:
        check("E4M3" in str(e) and "blk.0.attn_q.weight" in str(e),
              "e5m2: refusal %s" % e)
    # FP4 with f32 scales has no compressed-tensors form (MXFP4 has), NF4
    # none at all.
    for tag, opts, want in (
            ("fp4", "f4E2M1FN granularity=per-group group-size=32",
             "format=mxfp4"),
            ("nf4", "nf4 granularity=per-group group-size=32", "is NF4")):
        q = os.path.join(work, tag + ".mlirbc")
        st = os.path.join(work, tag + ".safetensors")
        run([oo.find_tool("octet-opt"), mlir,
             "--octet-quantize-weights=format=" + opts, "--emit-bytecode",
             "-o", q])
        run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
        try:
            ct.export(src_path, st, os.path.join(work, tag), log=log)
            check(False, "%s: accepted" % tag)
        except ct.ExportError as e:
            check(want in str(e) and "blk.0.attn_q.weight" in str(e),
                  "%s: refusal %s" % (tag, e))
            check(not os.path.exists(os.path.join(work, tag)),
                  "%s: a refused export left its directory" % tag)
    # Activations per group with static scales: compressed-tensors' group
    # activations are dynamic.
    src_t, src_meta = ct.read_safetensors(os.path.join(
        work, "recipe-w8a8-fp8-block.safetensors"))
    acts = {n: {"scheme": "#octet.scheme<f8E4M3FN, per_group(1, 32)>",
                "dynamic": False}
            for n in json.loads(src_meta["activations"])}
    st = os.path.join(work, "static-group.safetensors")
    ct.write_safetensors(st, dict(src_t),
                         dict(src_meta, activations=json.dumps(acts)))
    try:
        ct.export(src_path, st, os.path.join(work, "static-group"), log=log)
        check(False, "static-group: accepted")
    except ct.ExportError as e:
        check("static per-group scales" in str(e) and
              "per token and group" in str(e) and ".weight" in str(e),
              "static-group: refusal %s" % e)
    # NVFP4 files that are not NVFP4: a scale off the E4M3 grid, groups of
    # 32, a global scale that is not a number.
    src_t, src_meta = ct.read_safetensors(os.path.join(work,
                                                       "nvfp4.safetensors"))
    q_name = "blk.0.attn_q.weight"
    nv_scheme = src_meta[q_name]
    dtype, sc = src_t[q_name + ".scale"]
    for tag, tensors, meta, want in (
            ("nvfp4-scale", dict(src_t, **{q_name + ".scale": (
                dtype, (sc * np.float32(1.01)).astype(np.float32))}),
             src_meta, "not an E4M3 value in (0, 448] times the global scale"),
            ("nvfp4-group", dict(src_t, **{q_name + ".scale": (
                dtype, np.ascontiguousarray(sc[:, ::2]))}),
             dict(src_meta, **{q_name: nv_scheme.replace(
                 "per_group(1, 16)", "per_group(1, 32)")}),
             "is NVFP4 with group scales of 32; NVFP4 is groups of 16"),
            ("nvfp4-global", src_t, dict(src_meta, **{q_name: re.sub(
                r"e4m3\([^)]*\)", "e4m3(x)", nv_scheme)}),
             "has the global scale 'x', not a number")):
        st = os.path.join(work, tag + ".safetensors")
        ct.write_safetensors(st, tensors, meta)
        try:
            ct.export(src_path, st, os.path.join(work, tag), log=log)
            check(False, "%s: accepted" % tag)
        except ct.ExportError as e:
            check(want in str(e) and (q_name in str(e) or "global" in tag),
                  "%s: refusal %s" % (tag, e))
    r = run([sys.executable, ct.__file__, "--source", src_path, "--weights",
             os.path.join(work, "missing.safetensors"), "-o",
             os.path.join(work, "x")], ok=False)
    check(r.returncode == 1 and "missing.safetensors: cannot read" in r.stderr,
          "missing file: exit %d, %r" % (r.returncode, r.stderr[-300:]))
    print("refusals: checked")
    print("export-compressed-tensors oracle: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
