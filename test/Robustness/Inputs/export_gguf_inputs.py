"""Writes the inputs of export-gguf-errors.test into DIR: a tiny llama GGUF
(tiny.gguf) and its import (tiny.mlir, with locations), another tiny model
with a different hidden size (other.gguf), and safetensors files that are
not octet's (foreign.safetensors), truncated (truncated.safetensors), or
name a quantized weight they do not hold (dangling.safetensors)."""

import json
import os
import struct
import subprocess
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "import-model"))
import gguf_llama  # noqa: E402

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
gguf_llama.write_tiny_llama(os.path.join(d, "tiny.gguf"), seed=1)
gguf_llama.write_tiny_llama(os.path.join(d, "other.gguf"), seed=1, hidden=32,
                            heads=4, kv_heads=2, ffn=64)
subprocess.run([sys.executable, os.path.join(ROOT, "tools", "import-model",
                                             "octet_import_model.py"),
                "--gguf", os.path.join(d, "tiny.gguf"), "--max-len", "64",
                "-o", os.path.join(d, "tiny.mlir")], check=True)


def safetensors(path, tensors, metadata):
    header, blobs, off = {}, [], 0
    for name, a in tensors.items():
        a = np.ascontiguousarray(a)
        dt = {np.dtype(np.float32): "F32", np.dtype(np.int8): "I8"}[a.dtype]
        header[name] = {"dtype": dt, "shape": list(a.shape),
                        "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


w = np.zeros((64, 64), np.int8)
s = np.ones((64, 2), np.float32)
safetensors(os.path.join(d, "foreign.safetensors"),
            {"blk.0.attn_q.weight": w}, {"producer": "someone else"})
safetensors(os.path.join(d, "dangling.safetensors"),
            {"blk.0.attn_q.weight.scale": s},
            {"format": "octet",
             "blk.0.attn_q.weight": "#octet.scheme<i8, per_group(1, 32)>"})
safetensors(os.path.join(d, "truncated.safetensors"),
            {"blk.0.attn_q.weight": w, "blk.0.attn_q.weight.scale": s},
            {"format": "octet",
             "blk.0.attn_q.weight": "#octet.scheme<i8, per_group(1, 32)>"})
with open(os.path.join(d, "truncated.safetensors"), "r+b") as f:
    f.truncate(os.path.getsize(os.path.join(d, "truncated.safetensors")) - 100)
