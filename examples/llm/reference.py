#!/usr/bin/env python3
"""An independent numpy reference of the Llama forward pass (SmolLM2 & co.).

Written from the architecture, not from any MLIR or the project's importer:
the weights come from the gguf package's own reader (gguf.GGUFReader) and
dequantizer (gguf.quants.dequantize), computed in float64 by default (the
oracle) or float32.

The model (llama.cpp's "llama" architecture):
  x = token_embd[ids]
  per layer:
    h = RMSNorm(x, attn_norm)                   x * rsqrt(mean(x^2) + eps) * w
    q, k, v = h Wq, h Wk, h Wv                  heads x head_dim, kv_heads x head_dim
    q, k = RoPE(q), RoPE(k)                     at absolute positions
    attention: softmax(q k^T / sqrt(head_dim) + causal mask) v
               query head h reads kv head h // (heads // kv_heads)  (GQA)
    x = x + attn Wo
    h = RMSNorm(x, ffn_norm)
    x = x + (silu(h Wgate) * (h Wup)) Wdown     SwiGLU
  logits = RMSNorm(x, output_norm) Wout         Wout = output.weight, else token_embd (tied)

RoPE convention. llama.cpp's HF->GGUF converter permutes the rows of attn_q
and attn_k (per head) so that in GGUF space RoPE rotates ADJACENT pairs
(x[2i], x[2i+1]) by pos * theta_i, theta_i = base^(-2i/head_dim)
(LLAMA_ROPE_TYPE_NORM). That is the default here (rope="adjacent");
rope="halfsplit" (the NEOX / HF rotate_half pairing (x[i], x[i+d/2])) exists
only to show that it is the wrong one for these files (see reference_cli.py
--rope-check).

A dequantized GGUF linear weight is [out, in] (GGUF lists the dims reversed,
ne = [in, out]); it is kept transposed, [in, out], so a layer is x @ W.
"""

import os
import sys
import time

import numpy as np

GPL_DIR = "/usr/share/common-licenses"


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


class Reference:
    def __init__(self, gguf_path, dtype=np.float64, rope="adjacent"):
        import gguf

        if rope not in ("adjacent", "halfsplit"):
            raise ValueError(f"rope must be 'adjacent' or 'halfsplit', not {rope!r}")
        self.dtype = np.dtype(dtype)
        self.rope = rope
        self.path = gguf_path
        r = gguf.GGUFReader(gguf_path)
        arch = _field(r, "general.architecture")
        if arch != "llama":
            raise ValueError(f"{gguf_path}: architecture {arch!r}, expected 'llama'")

        def kv(name, default=None):
            v = _field(r, f"llama.{name}", default)
            if v is None:
                raise ValueError(f"{gguf_path}: missing llama.{name}")
            return v

        heads = int(kv("attention.head_count"))
        hidden = int(kv("embedding_length"))
        tensors = {t.name: t for t in r.tensors}
        vocab = _field(r, "llama.vocab_size")
        if vocab is None:
            vocab = len(_field(r, "tokenizer.ggml.tokens"))
        self.config = {
            "layers": int(kv("block_count")),
            "hidden": hidden,
            "ffn": int(kv("feed_forward_length")),
            "heads": heads,
            "kv_heads": int(kv("attention.head_count_kv", heads)),
            "head_dim": int(kv("rope.dimension_count", hidden // heads)),
            "rope_theta": float(kv("rope.freq_base", 10000.0)),
            "rms_eps": float(kv("attention.layer_norm_rms_epsilon")),
            "vocab": int(vocab),
        }
        c = self.config
        if c["head_dim"] * heads != hidden:
            raise ValueError(f"head_dim {c['head_dim']} * heads {heads} != hidden {hidden}")
        if heads % c["kv_heads"]:
            raise ValueError(f"heads {heads} not a multiple of kv_heads {c['kv_heads']}")

        def deq(name, shape):
            t = tensors[name]
            w = np.asarray(gguf.quants.dequantize(t.data, t.tensor_type))
            if w.shape != tuple(shape):
                raise ValueError(f"{name}: dequantized shape {w.shape}, expected {tuple(shape)}")
            return w.astype(self.dtype)

        def linear(name, n_out, n_in):
            # dequantized [out, in] -> stored [in, out] so that y = x @ W
            return np.ascontiguousarray(deq(name, (n_out, n_in)).T)

        H, F, D = hidden, c["ffn"], c["head_dim"]
        KV = c["kv_heads"] * D
        self.embd = deq("token_embd.weight", (c["vocab"], H))
        self.layers = []
        for i in range(c["layers"]):
            p = f"blk.{i}."
            self.layers.append({
                "attn_norm": deq(p + "attn_norm.weight", (H,)),
                "wq": linear(p + "attn_q.weight", H, H),
                "wk": linear(p + "attn_k.weight", KV, H),
                "wv": linear(p + "attn_v.weight", KV, H),
                "wo": linear(p + "attn_output.weight", H, H),
                "ffn_norm": deq(p + "ffn_norm.weight", (H,)),
                "wg": linear(p + "ffn_gate.weight", F, H),
                "wu": linear(p + "ffn_up.weight", F, H),
                "wd": linear(p + "ffn_down.weight", H, F),
            })
        self.out_norm = deq("output_norm.weight", (H,))
        self.tied = "output.weight" not in tensors
        if self.tied:
            self.wout = np.ascontiguousarray(self.embd.T)
        else:
            self.wout = linear("output.weight", c["vocab"], H)
        # theta_i = base^(-2i/head_dim), i = 0..head_dim/2-1
        self.inv_freq = c["rope_theta"] ** (-np.arange(0, D, 2, dtype=np.float64) / D)

    # -- pieces --------------------------------------------------------------

    def _rmsnorm(self, x, w):
        eps = self.dtype.type(self.config["rms_eps"])
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w

    def _rope(self, x, pos):
        """x: [S, n, head_dim], pos: [S] absolute positions."""
        ang = pos.astype(np.float64)[:, None] * self.inv_freq[None, :]   # [S, D/2]
        cos = np.cos(ang).astype(self.dtype)[:, None, :]
        sin = np.sin(ang).astype(self.dtype)[:, None, :]
        out = np.empty_like(x)
        if self.rope == "adjacent":
            a, b = x[..., 0::2], x[..., 1::2]
            out[..., 0::2] = a * cos - b * sin
            out[..., 1::2] = a * sin + b * cos
        else:
            h = x.shape[-1] // 2
            a, b = x[..., :h], x[..., h:]
            out[..., :h] = a * cos - b * sin
            out[..., h:] = a * sin + b * cos
        return out

    # -- API -----------------------------------------------------------------

    def new_cache(self, max_len):
        c = self.config
        return np.zeros((c["layers"], 2, c["kv_heads"], max_len, c["head_dim"]), dtype=self.dtype)

    def forward(self, ids, start_pos, cache, return_hidden=False):
        c = self.config
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        S = ids.shape[0]
        T = start_pos + S
        if T > cache.shape[3]:
            raise ValueError(f"positions up to {T} do not fit a cache of {cache.shape[3]}")
        nh, nkv, D = c["heads"], c["kv_heads"], c["head_dim"]
        group = nh // nkv
        scale = self.dtype.type(1.0 / np.sqrt(D))
        pos = np.arange(start_pos, T)
        # query i (absolute start_pos+i) sees keys j <= start_pos+i
        allowed = np.arange(T)[None, :] <= pos[:, None]                  # [S, T]

        x = self.embd[ids]
        hidden = [x.copy()] if return_hidden else None
        for li, L in enumerate(self.layers):
            h = self._rmsnorm(x, L["attn_norm"])
            q = self._rope((h @ L["wq"]).reshape(S, nh, D), pos)
            k = self._rope((h @ L["wk"]).reshape(S, nkv, D), pos)
            v = (h @ L["wv"]).reshape(S, nkv, D)
            cache[li, 0, :, start_pos:T, :] = k.transpose(1, 0, 2)
            cache[li, 1, :, start_pos:T, :] = v.transpose(1, 0, 2)
            K = cache[li, 0, :, :T, :]                                    # [nkv, T, D]
            V = cache[li, 1, :, :T, :]
            # head h = kv * group + g reads kv head h // group
            qg = q.transpose(1, 0, 2).reshape(nkv, group * S, D)
            s = (qg @ K.transpose(0, 2, 1)).reshape(nkv, group, S, T) * scale
            s = np.where(allowed, s, -np.inf)
            s = s - s.max(axis=-1, keepdims=True)
            p = np.exp(s)
            p /= p.sum(axis=-1, keepdims=True)
            o = (p.reshape(nkv, group * S, T) @ V).reshape(nh, S, D)
            x = x + o.transpose(1, 0, 2).reshape(S, nh * D) @ L["wo"]
            h = self._rmsnorm(x, L["ffn_norm"])
            g = h @ L["wg"]
            x = x + ((g / (1 + np.exp(-g))) * (h @ L["wu"])) @ L["wd"]
            if return_hidden:
                hidden.append(x.copy())
        logits = self._rmsnorm(x, self.out_norm) @ self.wout
        return (logits, hidden) if return_hidden else logits

    def logits(self, ids):
        """Logits of a sequence run from position 0 with a fresh cache."""
        ids = np.asarray(ids).reshape(-1)
        return self.forward(ids, 0, self.new_cache(len(ids)))

    def generate(self, prompt_ids, n_new, max_len=2048):
        prompt_ids = [int(t) for t in prompt_ids]
        if len(prompt_ids) + n_new > max_len:
            raise ValueError(f"{len(prompt_ids)} + {n_new} tokens exceed max_len {max_len}")
        cache = self.new_cache(max_len)
        out = []
        if n_new <= 0:
            return out
        logits = self.forward(np.array(prompt_ids), 0, cache)
        pos = len(prompt_ids)
        for i in range(n_new):
            tok = int(np.argmax(logits[-1]))
            out.append(tok)
            if i + 1 == n_new:
                break
            logits = self.forward(np.array([tok]), pos, cache)
            pos += 1
        return out


def log_softmax(logits):
    z = np.asarray(logits, dtype=np.float64)
    m = z.max(axis=-1, keepdims=True)
    return z - (m + np.log(np.exp(z - m).sum(axis=-1, keepdims=True)))


def perplexity(logits_fn, ids, window=512, max_windows=None, progress=True):
    """Perplexity over consecutive non-overlapping windows of `window` tokens.

    Each window runs from position 0 (fresh cache) via logits_fn(window_ids)
    -> [S, vocab]; tokens 1..S-1 are scored (token t+1 given <= t), so a
    window scores S-1 tokens. A last partial window is dropped.
    """
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    n = len(ids) // window
    if max_windows is not None:
        n = min(n, max_windows)
    if n == 0:
        raise ValueError(f"{len(ids)} tokens: not one window of {window}")
    nll_sum, scored = 0.0, 0
    for w in range(n):
        t0 = time.time()
        chunk = ids[w * window:(w + 1) * window]
        lp = log_softmax(logits_fn(chunk))
        nll_sum += float(-lp[np.arange(window - 1), chunk[1:]].sum())
        scored += window - 1
        if progress:
            print(f"window {w + 1}/{n}  ppl so far {np.exp(nll_sum / scored):.2f}  "
                  f"{time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    return {"ppl": float(np.exp(nll_sum / scored)), "nll_sum": nll_sum,
            "tokens_scored": scored, "windows": n}


def eval_text(name="GPL-3"):
    """An offline text: GPL-3 (the scored text) or GPL-2 (calibration)."""
    path = os.path.join(GPL_DIR, name)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{path} not found: the evaluation texts are the license files of "
            f"Debian's base-files package ({GPL_DIR}/GPL-3, GPL-2)")
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def build_tokenizer(gguf_path):
    """A ByteLevel BPE (tokenizers package) from the GGUF's vocabulary and merges.

    For the reference CLI only. Control tokens (token_type 3, e.g.
    <|im_start|>) are added as special tokens so they are not split.
    """
    import gguf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    r = gguf.GGUFReader(gguf_path)
    tokens = _field(r, "tokenizer.ggml.tokens")
    merges = _field(r, "tokenizer.ggml.merges")
    types = _field(r, "tokenizer.ggml.token_type", [1] * len(tokens))
    vocab = {t: i for i, t in enumerate(tokens)}
    pairs = [tuple(m.split(" ", 1)) for m in merges]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    special = [t for t, ty in zip(tokens, types) if int(ty) == 3]
    if special:
        tok.add_special_tokens(special)
    return tok
