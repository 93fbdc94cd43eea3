#!/usr/bin/env python3
"""Check gguf_llama's reading of a real GGUF (SmolLM2-135M by default).

    llm_gguf_check.py [MODEL.gguf]

Prints the config, then compares a tensor of each stored type (Q8_0
token_embd, Q4_1 linear weights of the first and last layer, F32 norms)
with what gguf.GGUFReader + gguf.quants.dequantize give (bit for bit, and
the layout: GGUFReader's rows are GGUF's ne1, our [out, in]), and the
stored byte counts with GGUFReader's n_bytes. Exits 1 on a difference.
"""

import os
import sys

import numpy as np
import gguf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "import-model"))
import gguf_llama  # noqa: E402

KEYS = ("layers", "hidden", "ffn", "heads", "kv_heads", "head_dim", "rope_theta",
        "rms_eps", "vocab", "context_length", "tied_output", "file_type")


def compare(model, reader_tensors, name):
    """Tensor `name` as read here equals GGUFReader + dequantize."""
    ours = model.tensor(name)
    ref = reader_tensors[name]
    theirs = gguf.quants.dequantize(ref.data, ref.tensor_type)
    same = ours.shape == theirs.shape and np.array_equal(ours, theirs)
    print(f"{name}: {model.tensor_type(name)} {list(ours.shape)} "
          f"{'equal to GGUFReader' if same else 'DIFFERS from GGUFReader'}")
    return same and ours.dtype == np.float32 and ours.flags.c_contiguous


def main(argv):
    """Run the comparison on argv[1] or SmolLM2; 0 if all agree."""
    path = argv[1] if len(argv) > 1 else gguf_llama.find_smollm2()
    model = gguf_llama.load(path)
    print("config: " + ", ".join(f"{k}={model.config[k]}" for k in KEYS))
    reader = gguf.GGUFReader(path)
    tensors = {t.name: t for t in reader.tensors}
    last = model.config["layers"] - 1
    names = ["token_embd.weight", "output_norm.weight", "blk.0.attn_q.weight",
             "blk.0.attn_k.weight", "blk.0.attn_norm.weight",
             f"blk.{last}.ffn_down.weight", f"blk.{last}.ffn_gate.weight"]
    ok = all([compare(model, tensors, n) for n in names])
    sizes = model.weight_bytes()
    same_sizes = all(sizes[t.name] == t.n_bytes for t in reader.tensors)
    print(f"weight bytes: {len(sizes)} tensors, {sum(sizes.values())} bytes, "
          f"{'equal to' if same_sizes else 'DIFFERENT from'} GGUFReader's")
    tied = np.array_equal(model.output_weight(), model.tensor("token_embd.weight"))
    print(f"output head: tied to token_embd: {tied}")
    print(f"linear layers: {len(model.linear_names())}, first {model.linear_names()[:7]}")
    ok &= same_sizes and tied == model.config["tied_output"]
    print("PASS gguf reader" if ok else "FAIL gguf reader")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
