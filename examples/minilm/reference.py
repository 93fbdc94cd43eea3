#!/usr/bin/env python3
"""An independent numpy reference of all-MiniLM-L6-v2's forward pass.

Written from the model's definition (Hugging Face BertModel + the
sentence-transformers Pooling(mean) and Normalize modules), not from the
importer: weights come from the safetensors package's own reader, GELU uses
the exact erf (math.erf), LayerNorm is torch's (biased variance, eps from the
config), attention adds (1 - mask) * finfo(f32).min to the scaled scores as
transformers does. Computed in float32 like the framework (float64 with
--f64, to see the float32 rounding of both).

Used by test/Models to check the imported MLIR run through octet-run.
"""

import json
import math
import os

import numpy as np


def load(model_dir):
    from safetensors.numpy import load_file
    with open(os.path.join(model_dir, "config.json")) as fh:
        cfg = json.load(fh)
    return cfg, load_file(os.path.join(model_dir, "model.safetensors"))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _ln(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def params(w, dtype=np.float32):
    """The float parameters of the safetensors dict `w` in `dtype`."""
    return {k: v.astype(dtype) for k, v in w.items() if v.dtype.kind == "f"}


def attention_bias(mask, dtype=np.float32):
    """[B, 1, 1, S]: (1 - mask) * finfo(f32).min, added to the scores."""
    ext = (1.0 - mask.astype(dtype))[:, None, None, :] * \
        np.finfo(np.float32).min
    return ext.astype(dtype)


def layer(cfg, P, l, x, ext, dtype=np.float32, linear_hook=None):
    """Encoder layer `l` on x [B, S, D] -> [B, S, D] (P from params(),
    ext from attention_bias(); linear_hook as in forward())."""
    B, S, D = x.shape
    H = cfg["num_attention_heads"]
    dh, eps = D // H, dtype(cfg["layer_norm_eps"])

    def lin(v, name):
        wt = P[name + ".weight"]
        if linear_hook is not None:
            shape = v.shape
            v2, wt = linear_hook(name, v.reshape(-1, shape[-1]), wt)
            v = v2.reshape(shape)
        return v @ wt.T + P[name + ".bias"]

    def split(v):
        return v.reshape(B, S, H, dh).transpose(0, 2, 1, 3)

    p = "encoder.layer.%d." % l
    q = split(lin(x, p + "attention.self.query"))
    k = split(lin(x, p + "attention.self.key"))
    v = split(lin(x, p + "attention.self.value"))
    sc = q @ k.transpose(0, 1, 3, 2) / dtype(math.sqrt(dh)) + ext
    sc = np.exp(sc - sc.max(-1, keepdims=True))
    pr = sc / sc.sum(-1, keepdims=True)
    ctx = (pr @ v).transpose(0, 2, 1, 3).reshape(B, S, D)
    x = _ln(lin(ctx, p + "attention.output.dense") + x,
            P[p + "attention.output.LayerNorm.weight"],
            P[p + "attention.output.LayerNorm.bias"], eps)
    h = lin(x, p + "intermediate.dense")
    h = (0.5 * h * (1.0 + _erf(h.astype(np.float64) / math.sqrt(2.0)))
         ).astype(dtype)
    return _ln(lin(h, p + "output.dense") + x,
               P[p + "output.LayerNorm.weight"],
               P[p + "output.LayerNorm.bias"], eps)


def forward(cfg, w, ids, mask, dtype=np.float32, return_hidden=False,
            linear_hook=None):
    """ids: [B, S] int, mask: [B, S] {0,1} -> embeddings [B, D] (and the
    hidden states [B*S, D] after the embeddings and each layer).

    linear_hook(name, x, weight) -> (x, weight), when given, is applied to
    the input [tokens, in] and the [out, in] weight of every linear layer
    (e.g. to simulate quantization with the numpy oracle)."""
    P = params(w, dtype)
    B, S = ids.shape
    D = cfg["hidden_size"]
    eps = dtype(cfg["layer_norm_eps"])
    x = (P["embeddings.word_embeddings.weight"][ids]
         + P["embeddings.position_embeddings.weight"][:S][None]
         + P["embeddings.token_type_embeddings.weight"][0][None, None])
    x = _ln(x, P["embeddings.LayerNorm.weight"], P["embeddings.LayerNorm.bias"],
            eps)
    hidden = [x.reshape(B * S, D)]
    ext = attention_bias(mask, dtype)
    for l in range(cfg["num_hidden_layers"]):
        x = layer(cfg, P, l, x, ext, dtype, linear_hook)
        hidden.append(x.reshape(B * S, D))
    m = mask.astype(dtype)[:, :, None]
    pooled = (x * m).sum(1) / np.maximum(m.sum(1), dtype(1e-9))
    norm = np.sqrt((pooled * pooled).sum(-1, keepdims=True))
    emb = pooled / np.maximum(norm, dtype(1e-12))
    return (emb, hidden) if return_hidden else emb
