#!/usr/bin/env python3
"""Write broken llama GGUF files and print what gguf_llama.load says.

    gguf_bad_input.py OUTDIR

Each case is a small model from gguf_llama.write_tiny_llama, changed in
one way. For each the script prints `CASE: MESSAGE` (the GGUFError text,
the line test/Robustness/gguf-bad-input.test checks with FileCheck) and
checks that load raised GGUFError (nothing else), that the message starts
with the file's path and names the metadata key or tensor at fault. Exit
status 1 if any case breaks that promise; docs/bad-input.md lists the
messages.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "import-model"))
import gguf_llama  # noqa: E402
from gguf_llama import GGUFError, read_header, tiny_llama_bytes  # noqa: E402


def with_tensor_type(data, name, type_id):
    """`data` with the type id of tensor `name` replaced."""
    info = next(t for t in read_header(data).tensors if t.name == name)
    out = bytearray(data)
    struct.pack_into("<I", out, info.type_offset, type_id)
    return bytes(out)


def with_key_renamed(data, key, new_key):
    """`data` with metadata key `key` renamed (same length)."""
    assert len(key) == len(new_key)
    kv = read_header(data).kvs[key]
    out = bytearray(data)
    out[kv.start + 8:kv.start + 8 + len(key)] = new_key.encode()
    return bytes(out)


def with_key_type(data, key, vtype):
    """`data` with the value type id of `key` replaced."""
    kv = read_header(data).kvs[key]
    out = bytearray(data)
    struct.pack_into("<I", out, kv.start + 8 + len(key.encode()), vtype)
    return bytes(out)


def with_array_count(data, key, count):
    """`data` with the element count of array `key` replaced."""
    kv = read_header(data).kvs[key]
    out = bytearray(data)
    struct.pack_into("<Q", out, kv.start + 8 + len(key.encode()) + 8, count)
    return bytes(out)


def with_u32(data, key, value):
    """`data` with the UINT32 metadata value of `key` replaced."""
    kv = read_header(data).kvs[key]
    out = bytearray(data)
    struct.pack_into("<I", out, kv.end - 4, value)
    return bytes(out)


def with_string(data, key, new):
    """`data` with the STRING value of `key` replaced (the same length)."""
    kv = read_header(data).kvs[key]
    assert len(new.encode()) == len(kv.value.encode())
    out = bytearray(data)
    out[kv.end - len(new.encode()):kv.end] = new.encode()
    return bytes(out)


def with_string_item(data, key, index, new):
    """`data` with item `index` of string array `key` replaced by `new`
    (the same length in UTF-8)."""
    kv = read_header(data).kvs[key]
    at = kv.start + 8 + len(key.encode()) + 4 + 4 + 8
    for item in kv.value[:index]:
        at += 8 + len(item.encode())
    old = kv.value[index].encode()
    assert len(new.encode()) == len(old)
    out = bytearray(data)
    out[at + 8:at + 8 + len(old)] = new.encode()
    return bytes(out)


def cases():
    """(file name, bytes or None for no file, what the message must name)."""
    good = tiny_llama_bytes()
    header = read_header(good)
    return [
        ("other-arch.gguf", tiny_llama_bytes(arch="gpt2"), "general.architecture"),
        ("truncated-data.gguf", good[:len(good) - 1000], "ffn_down.weight"),
        ("truncated-header.gguf", good[:header.header_end // 2], "tokenizer.ggml"),
        ("unknown-type.gguf", with_tensor_type(good, "blk.0.attn_q.weight", 99),
         "blk.0.attn_q.weight"),
        ("unsupported-type.gguf", with_tensor_type(good, "blk.0.attn_q.weight", 16),
         "blk.0.attn_q.weight"),
        ("missing-tensor.gguf", tiny_llama_bytes(omit=("blk.1.ffn_down.weight",)),
         "blk.1.ffn_down.weight"),
        ("wrong-shape.gguf", tiny_llama_bytes(shapes={"blk.0.attn_k.weight": (64, 64)}),
         "blk.0.attn_k.weight"),
        ("missing-key.gguf", with_key_renamed(
            good, "llama.attention.layer_norm_rms_epsilon",
            "llama.attention.layer_norm_rms_epsiloX"),
         "llama.attention.layer_norm_rms_epsilon"),
        ("wrong-key-type.gguf", with_key_type(good, "llama.block_count", 6),
         "llama.block_count"),
        ("bad-heads.gguf", with_u32(good, "llama.attention.head_count", 3),
         "llama.attention.head_count"),
        ("other-tokenizer.gguf", with_string(good, "tokenizer.ggml.model", "bert"),
         "tokenizer.ggml.model"),
        ("bad-merge.gguf", with_string_item(good, "tokenizer.ggml.merges", 2, "r x"),
         "tokenizer.ggml.merges[2]"),
        ("huge-array.gguf", with_array_count(good, "tokenizer.ggml.token_type", 2**40),
         "tokenizer.ggml.token_type"),
        ("not-gguf.gguf", b"this is a text file, not a model\n", "not a GGUF file"),
        ("empty.gguf", b"", "empty file"),
        ("missing-file.gguf", None, "cannot read"),
    ]


def run_case(outdir, name, data, culprit):
    """Write and load one case; True if it gives the promised GGUFError."""
    path = os.path.join(outdir, name)
    if data is not None:
        with open(path, "wb") as f:
            f.write(data)
    try:
        model = gguf_llama.load(path)
        for tensor in model.tensor_names():
            model.tensor(tensor)
    except GGUFError as e:
        message = str(e)
        ok = message.startswith(path + ": ") and culprit in message
        print(f"{name}: {message}" + ("" if ok else f"  <- BAD: must start with the "
                                      f"path and name {culprit!r}"))
        return ok
    except Exception as e:  # noqa: BLE001 - anything but GGUFError fails
        print(f"{name}: BAD: {type(e).__name__}: {e}")
        return False
    print(f"{name}: BAD: accepted")
    return False


def check_types(outdir):
    """Every type of SUPPORTED_TYPES reads (a 1-layer model, hidden 256 for
    the K-quants' 256-element blocks, blk.0.attn_q.weight in that type)."""
    ok = True
    for qtype in gguf_llama.SUPPORTED_TYPES:
        path = os.path.join(outdir, f"type-{qtype}.gguf")
        gguf_llama.write_tiny_llama(path, layers=1, hidden=256, ffn=256,
                                    types={"blk.0.attn_q.weight": qtype})
        model = gguf_llama.load(path)
        t = model.tensor("blk.0.attn_q.weight")
        good = (model.tensor_type("blk.0.attn_q.weight") == qtype
                and t.shape == (256, 256) and t.dtype == "float32")
        ok &= good
        print(f"type {qtype}: {list(t.shape)} {t.dtype} {'ok' if good else 'WRONG'}")
    return ok


def main(argv):
    """Run every case and the type check; 0 if all keep the promise."""
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    ok = all([run_case(outdir, *case) for case in cases()])
    ok &= check_types(outdir)
    good = os.path.join(outdir, "good.gguf")
    gguf_llama.write_tiny_llama(good)
    model = gguf_llama.load(good)
    print(f"good.gguf: {model.config['layers']} layers, "
          f"{len(model.tensor_names())} tensors, vocab {model.config['vocab']}")
    print("PASS gguf bad input" if ok else "FAIL gguf bad input")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
