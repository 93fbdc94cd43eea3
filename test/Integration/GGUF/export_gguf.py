"""octet-export-safetensors + octet_export_gguf.py against independent oracles.

A tiny llama GGUF (gguf_llama.write_tiny_llama) is imported, its linear
weights quantized by octet-quantize-weights in groups of 32 (i8, i4, i5 and
i3 symmetric, u4 and u5 asymmetric), exported to safetensors and written as
GGUF (Q8_0, Q4_0, Q5_0, Q4_1, Q5_1).
Checked, per recipe:

  safetensors  the codes, scales and zero points equal the numpy weight
               oracle's (test/Integration/QuantizeWeights/weights_oracle.py,
               written from the pass's rules; a one-step flip only where the
               quotient is within the oracle's tie tolerance), the scheme in
               the metadata, and every float tensor (norms, embeddings)
               equals the source's dequantized values bit for bit;
  GGUF         the tensor types (Q8_0 / Q4_0 / Q4_1, F32 for floats), every
               metadata entry of the source (tokenizer included) carried over
               unchanged, and each weight as the gguf package's own
               dequantizer (gguf.quants, llama.cpp's block layout) reads it
               equal to f16(scale) * code (Q4_1, Q5_1: + f16(-f16(scale) *
               zero point)) computed here from the oracle's codes, bit for
               bit.

With --llama-cpp the exported files are also run by llama.cpp
(llama-cpp-python, an F32 KV cache): its logits of a prompt against
examples/llm/reference.py's float64 forward pass over the model octet
computes (the linear weights the oracle's dequantize of the exported codes
and f32 scales, written as an F32 GGUF): relative error < 3% (llama.cpp
quantizes the activations of Q8_0 / Q4 matmuls to 8 bits; the scales are
f16 in the file); the float export (F32) against the same file within
1e-4.

usage: export_gguf.py WORKDIR [--llama-cpp]
"""

import os
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
import octet_export_gguf as ex  # noqa: E402

LINEAR = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
          "ffn_down"]
RECIPES = [
    # name, octet-quantize-weights options, oracle scheme, GGUF type
    ("q8_0", "format=i8 granularity=per-group group-size=32",
     oo.Scheme("i8", "per_group", 1, 32), "Q8_0"),
    ("q4_0", "format=i4 granularity=per-group group-size=32",
     oo.Scheme("i4", "per_group", 1, 32), "Q4_0"),
    ("q4_1", "format=u4 symmetric=false granularity=per-group group-size=32",
     oo.Scheme("u4", "per_group", 1, 32, symmetric=False), "Q4_1"),
    ("q5_0", "format=i5 granularity=per-group group-size=32",
     oo.Scheme("i8", "per_group", 1, 32, qmin=-16, qmax=15), "Q5_0"),
    ("q5_1", "format=u5 symmetric=false granularity=per-group group-size=32",
     oo.Scheme("u8", "per_group", 1, 32, symmetric=False, qmin=0, qmax=31),
     "Q5_1"),
    # 3-bit codes fit the 4-bit blocks.
    ("i3-as-q4_0", "format=i3 granularity=per-group group-size=32",
     oo.Scheme("i4", "per_group", 1, 32, qmin=-4, qmax=3), "Q4_0"),
]
F16 = lambda a: np.asarray(a, np.float32).astype(np.float16).astype(np.float32)  # noqa: E731

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    return r


def quantize(src_mlir, options, out):
    run([oo.find_tool("octet-opt"), src_mlir,
         "--octet-quantize-weights=" + options, "--emit-bytecode", "-o", out])


def check_safetensors(src, path, scheme, name_tag):
    from safetensors import safe_open
    with safe_open(path, "numpy") as f:
        meta = f.metadata()
        t = {k: f.get_tensor(k) for k in f.keys()}
    names = [n for n in src.tensor_names()]
    linears = [n for n in names if n.split(".")[-2] in LINEAR]
    for n in linears:
        exp = wo.quantize_weight(src.tensor(n), scheme, "absmax")
        codes = t[n].astype(np.int32)
        check(meta.get(n) == "#octet.scheme" + scheme.attr(),
              "%s %s: scheme %r" % (name_tag, n, meta.get(n)))
        check(np.array_equal(t[n + ".scale"].view(np.uint32),
                             exp["scale"].view(np.uint32)),
              "%s %s: scales differ from the oracle" % (name_tag, n))
        if scheme.symmetric:
            check(n + ".zero_point" not in t,
                  "%s %s: a symmetric weight has a zero point" % (name_tag, n))
        else:
            check(np.array_equal(t[n + ".zero_point"], exp["zp"]),
                  "%s %s: zero points differ from the oracle" % (name_tag, n))
        diff = codes != exp["codes"].astype(np.int32)
        if diff.any():
            ties, alt = oo.near_ties(src.tensor(n), scheme, exp["scale"],
                                     None if scheme.symmetric else exp["zp"])
            ok = np.all(ties[diff]) and np.all(codes[diff] == alt[diff])
            check(ok, "%s %s: %d codes differ from the oracle away from ties"
                  % (name_tag, n, int(np.sum(diff & ~ties))))
    for n in names:
        if n.split(".")[-2] in LINEAR:
            continue
        check(n in t and np.array_equal(t[n].view(np.uint32),
                                        src.tensor(n).view(np.uint32)),
              "%s %s: the float tensor differs from the source" % (name_tag, n))
    return t


def check_gguf(src, out, t, scheme, gtype, name_tag):
    g = gguf_llama.load(out)
    skv, gkv = src._header.kvs, g._header.kvs
    for key, kv in skv.items():
        o = gkv.get(key)
        same = o is not None and o.vtype == kv.vtype and (
            np.array_equal(np.asarray(o.value), np.asarray(kv.value))
            if kv.item_type is not None else o.value == kv.value)
        check(same, "%s: metadata '%s' not carried over" % (name_tag, key))
    check(gkv.get("general.quantized_by") is not None and
          gkv["general.quantized_by"].value == "octet",
          "%s: general.quantized_by" % name_tag)
    text = "Hello, octet! 12345"
    check(g.tokenizer().encode(text) == src.tokenizer().encode(text),
          "%s: the tokenizer encodes differently" % name_tag)
    for n in src.tensor_names():
        kind = n.split(".")[-2]
        if kind not in LINEAR:
            check(g.tensor_type(n) == "F32" and np.array_equal(
                g.tensor(n), src.tensor(n)),
                "%s %s: float tensor" % (name_tag, n))
            continue
        check(g.tensor_type(n) == gtype, "%s %s: type %s, expected %s"
              % (name_tag, n, g.tensor_type(n), gtype))
        codes = t[n].astype(np.float32)
        d = np.repeat(F16(t[n + ".scale"]), 32, axis=1)
        if scheme.symmetric:
            want = d * codes
        else:
            m = F16(-F16(t[n + ".scale"]) * t[n + ".zero_point"])
            want = d * codes + np.repeat(m, 32, axis=1)
        got = g.tensor(n)
        check(np.array_equal(got, want.astype(np.float32)),
              "%s %s: GGUF values differ from f16(scale) * code (max %g)"
              % (name_tag, n, float(np.max(np.abs(got - want)))))
    return g


def llama_cpp_logits(path, ids):
    import llama_cpp
    m = llama_cpp.Llama(model_path=path, n_ctx=64, n_batch=64, n_ubatch=64,
                        logits_all=True, n_threads=2, n_threads_batch=2,
                        type_k=0, type_v=0,  # an F32 KV cache
                        verbose=False)
    m.eval([int(i) for i in ids])
    out = np.array(m.scores[:len(ids)], np.float64)
    m.close()
    return out


def octet_float_gguf(src_path, t, scheme, out):
    """A GGUF of the model octet computes: every linear weight F32, the
    oracle's dequantize of the exported codes and (f32) scales."""
    from safetensors.numpy import save_file
    floats = {}
    for n, a in t.items():
        if n.endswith(".scale") or n.endswith(".zero_point"):
            continue
        if n + ".scale" in t:
            zp = t.get(n + ".zero_point")
            a = oo.dequantize(a.astype(np.int32), scheme, t[n + ".scale"], zp)
        floats[n] = np.ascontiguousarray(a, np.float32)
    st = out + ".safetensors"
    save_file(floats, st, metadata={"format": "octet"})
    ex.export(src_path, st, out, log=lambda m: None)


def check_llama_cpp(path, ids, tol, name_tag, ref_path=None):
    """llama.cpp's logits of `ids` on `path` against the float64 reference
    forward pass over `ref_path` (default: the same file)."""
    from reference import Reference
    ref = Reference(ref_path or path).logits(np.asarray(ids))
    got = llama_cpp_logits(path, ids)
    rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    print("%s: llama.cpp logits vs the float64 reference: relative error "
          "%.2e (tolerance %g)" % (name_tag, rel, tol))
    check(rel < tol, "%s: llama.cpp's logits differ from the reference "
          "(%.3g)" % (name_tag, rel))


def read_raw_safetensors(path):
    """{name: (dtype, shape, bytes)} and the metadata of a safetensors file,
    parsed from the format's definition (an 8-byte little-endian header
    length, a JSON header, the data): numpy's loader has no FP8 / E8M0."""
    import json
    with open(path, "rb") as fh:
        blob = fh.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = blob[8 + n:]
    return {k: (v["dtype"], v["shape"],
                data[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items()}, meta


def check_mxfp8(src, src_path, mlir, work):
    """format=mxfp8: codes as F8_E4M3 and the E8M0 scales as F8_E8M0 bytes
    (127 + log2(scale), from numpy's frexp of the oracle's scale), equal to
    the weight oracle's; octet_export_gguf refuses the file by name."""
    scheme = oo.Scheme("f8E4M3FN", "per_group", 1, 32, e8m0=True)
    q = os.path.join(work, "mxfp8.mlirbc")
    st = os.path.join(work, "mxfp8.safetensors")
    quantize(mlir, "format=mxfp8", q)
    run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
    t, meta = read_raw_safetensors(st)
    linears = [n for n in src.tensor_names() if n.split(".")[-2] in LINEAR]
    for n in linears:
        exp = wo.quantize_weight(src.tensor(n), scheme, "absmax")
        check(meta.get(n) == "#octet.scheme" + scheme.attr(),
              "mxfp8 %s: scheme %r" % (n, meta.get(n)))
        dtype, shape, raw = t[n]
        check(dtype == "F8_E4M3" and raw == exp["codes"].astype(np.uint8)
              .tobytes(), "mxfp8 %s: codes (%s) differ from the oracle"
              % (n, dtype))
        dtype, shape, raw = t[n + ".scale"]
        _, e = np.frexp(exp["scale"].astype(np.float64))
        want = (e - 1 + 127).astype(np.uint8)  # scale = 2^(e - 1)
        check(dtype == "F8_E8M0" and list(shape) == list(exp["scale"].shape)
              and raw == want.tobytes(),
              "mxfp8 %s: E8M0 scales (%s %s) differ from the oracle"
              % (n, dtype, shape))
    try:
        ex.export(src_path, st, os.path.join(work, "mxfp8.gguf"),
                  log=lambda m: None)
        check(False, "mxfp8: the GGUF export accepted FP8 codes")
    except ex.ExportError as err:
        check("f8E4M3FN" in str(err), "mxfp8: GGUF refusal %s" % err)
    print("mxfp8: checked")


def check_mxfp4(src, src_path, mlir, work):
    """format=mxfp4: the codes (one E2M1 code per U8 byte) and the E8M0
    scale bytes equal the weight oracle's, and the GGUF's MXFP4 blocks, as
    the gguf package's dequantizer reads them, equal the oracle's
    dequantized weights bit for bit (E2M1 x 2^e is exact in f32); NVFP4
    (E4M3 scales) is refused by name."""
    scheme = oo.Scheme("f4E2M1FN", "per_group", 1, 32, e8m0=True)
    q = os.path.join(work, "mxfp4.mlirbc")
    st = os.path.join(work, "mxfp4.safetensors")
    out = os.path.join(work, "mxfp4.gguf")
    quantize(mlir, "format=mxfp4", q)
    run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
    t, meta = read_raw_safetensors(st)
    linears = [n for n in src.tensor_names() if n.split(".")[-2] in LINEAR]
    exps = {}
    for n in linears:
        exp = exps[n] = wo.quantize_weight(src.tensor(n), scheme, "absmax")
        check(meta.get(n) == "#octet.scheme" + scheme.attr(),
              "mxfp4 %s: scheme %r" % (n, meta.get(n)))
        dtype, shape, raw = t[n]
        check(dtype == "U8" and raw == exp["codes"].astype(np.uint8)
              .tobytes(), "mxfp4 %s: codes (%s) differ from the oracle"
              % (n, dtype))
        dtype, shape, raw = t[n + ".scale"]
        _, e = np.frexp(exp["scale"].astype(np.float64))
        want = (e - 1 + 127).astype(np.uint8)  # scale = 2^(e - 1)
        check(dtype == "F8_E8M0" and raw == want.tobytes(),
              "mxfp4 %s: E8M0 scales (%s) differ from the oracle" % (n, dtype))
    written = ex.export(src_path, st, out, log=lambda m: None)
    check(sorted(set(written.values())) == ["F32", "MXFP4"],
          "mxfp4: types written %s" % sorted(set(written.values())))
    g = gguf_llama.load(out)
    for n in linears:
        got = g.tensor(n)
        # Equal values (ggml's table has +0 for code 8, E2M1's -0).
        check(g.tensor_type(n) == "MXFP4" and np.array_equal(
            got, exps[n]["xhat"]),
            "mxfp4 %s: the gguf package's MXFP4 values differ from the "
            "oracle's dequantized weights" % n)
    q = os.path.join(work, "nvfp4.mlirbc")
    st = os.path.join(work, "nvfp4.safetensors")
    quantize(mlir, "format=nvfp4", q)
    run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
    try:
        ex.export(src_path, st, os.path.join(work, "nvfp4.gguf"),
                  log=lambda m: None)
        check(False, "nvfp4: the GGUF export accepted E4M3 block scales")
    except ex.ExportError as err:
        check("NVFP4" in str(err) and "format=mxfp4" in str(err),
              "nvfp4: GGUF refusal %s" % err)
    print("mxfp4: checked")


def main():
    work = sys.argv[1]
    with_llama = "--llama-cpp" in sys.argv[2:]
    os.makedirs(work, exist_ok=True)
    src_path = os.path.join(work, "tiny.gguf")
    gguf_llama.write_tiny_llama(src_path, seed=7)
    src = gguf_llama.load(src_path)
    mlir = os.path.join(work, "tiny.mlir")
    run([sys.executable, os.path.join(ROOT, "tools", "import-model",
                                      "octet_import_model.py"),
         "--gguf", src_path, "--max-len", "64", "-o", mlir])
    ids = src.tokenizer().encode("the quick brown fox jumps over the lazy dog")
    if with_llama:
        f32 = os.path.join(work, "float.gguf")
        st = os.path.join(work, "float.safetensors")
        run([oo.find_tool("octet-export-safetensors"), mlir, "-o", st])
        ex.export(src_path, st, f32, log=lambda m: None)
        check_llama_cpp(f32, ids, 1e-4, "float")
    for name, options, scheme, gtype in RECIPES:
        q = os.path.join(work, name + ".mlirbc")
        st = os.path.join(work, name + ".safetensors")
        out = os.path.join(work, name + ".gguf")
        quantize(mlir, options, q)
        run([oo.find_tool("octet-export-safetensors"), q, "-o", st])
        t = check_safetensors(src, st, scheme, name)
        written = ex.export(src_path, st, out, log=lambda m: None)
        check(sorted(set(written.values())) == sorted({gtype, "F32"}),
              "%s: types written %s" % (name, sorted(set(written.values()))))
        check_gguf(src, out, t, scheme, gtype, name)
        if with_llama:
            ref = os.path.join(work, name + ".octet-f32.gguf")
            octet_float_gguf(src_path, t, scheme, ref)
            check_llama_cpp(out, ids, 3e-2, name, ref)
        print("%s: checked" % name)
    check_mxfp8(src, src_path, mlir, work)
    check_mxfp4(src, src_path, mlir, work)
    print("export-gguf oracle: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
