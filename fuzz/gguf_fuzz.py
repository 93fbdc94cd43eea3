#!/usr/bin/env python3
"""gguf_fuzz: mutate a tiny llama GGUF and check that the reader copes.

    .venv/bin/python fuzz/gguf_fuzz.py --runs 2000 --seed 1 [--time-limit 60]

Builds a small valid llama GGUF in memory (gguf_llama.write_tiny_llama: 2
layers, hidden 64, a 300-token byte-level BPE vocabulary, F32, Q8_0 and
Q4_1 tensors; about 110 KB), then runs deterministic mutations of it
through tools/import-model/gguf_llama.py: `loads`, reading every tensor,
the output head and the tokenizer (encode + decode). Run i of `--seed S`
uses the seed `S * 1000003 + i`; `--seed S --only i` replays it. The
mutations: truncation, byte flips in the header, the tensor-info region or
the data, a changed architecture string, changed tensor type ids, token
types turned CONTROL or USER_DEFINED (byte tokens becoming special tokens),
interesting values (0, 1, 2**31, 2**64-1, ...) in length, count, dimension
and offset fields, and duplicated or removed metadata keys and tensor
infos (the header is then reassembled with the right counts and padding).

Every outcome must be a success or a GGUFError; an accepted file must give
float32 C-contiguous tensors of the shapes the config implies. Anything
else is a finding: the run's seed and traceback are printed and the exit
status is 1. The last line is the summary

    gguf_fuzz: N runs, K rejected with GGUFError, F findings
"""

import argparse
import os
import random
import re
import struct
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools", "import-model"))
import gguf_llama  # noqa: E402

SAMPLE = "The GNU General Public License, version 3 (29 June 2007) <|im_end|>"
INTERESTING_U64 = (0, 1, 2, 3, 4, 7, 8, 31, 32, 33, 255, 256, 2**16, 2**31 - 1,
                   2**31, 2**32 - 1, 2**32, 2**40, 2**63 - 1, 2**63, 2**64 - 1)
TYPE_IDS = tuple(range(0, 42)) + (99, 1000, 2**31, 2**32 - 1)


class Image:
    """The valid image cut into its parts, for mutations that rebuild it."""

    def __init__(self, data):
        self.data = data
        self.header = gguf_llama.read_header(data)
        h = self.header
        self.kv_chunks = [data[kv.start:kv.end] for kv in h.kvs.values()]
        self.ti_chunks = [data[t.start:t.end] for t in h.tensors]
        self.version = data[4:8]

    def assemble(self, kv_chunks, ti_chunks):
        """A header with these entries, padded, then the original data."""
        head = (b"GGUF" + self.version
                + struct.pack("<QQ", len(ti_chunks), len(kv_chunks))
                + b"".join(kv_chunks) + b"".join(ti_chunks))
        pad = -len(head) % self.header.alignment
        return head + b"\0" * pad + self.data[self.header.data_start:]


# ---------------------------------------------------------------------------
# Mutations: each takes (rng, image, data: bytearray) and returns bytes
# ---------------------------------------------------------------------------

def truncate(rng, img, data):
    """Cut the image short (half the time inside the header)."""
    limit = img.header.data_start if rng.random() < 0.5 else len(data)
    return bytes(data[:rng.randrange(0, limit)])


def _flip(rng, data, lo, hi):
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(lo, hi)
        data[i] = data[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randrange(256)
    return bytes(data)


def flip_header(rng, img, data):
    """Flip or set 1-4 bytes of the header."""
    return _flip(rng, data, 0, img.header.header_end)


def flip_tensor_info(rng, img, data):
    """Flip or set 1-4 bytes of the tensor infos."""
    return _flip(rng, data, img.header.tensors[0].start, img.header.header_end)


def flip_data(rng, img, data):
    """Flip or set 1-4 bytes of the tensor data."""
    return _flip(rng, data, img.header.data_start, len(data))


def architecture(rng, img, data):
    """Another general.architecture, or a bad length for it."""
    kv = img.header.kvs["general.architecture"]
    value_at = kv.end - len(kv.value)
    if rng.random() < 0.5:
        new = rng.choice([b"gpt2x", b"LLAMA", b"llam\xff", b"bert\0", b"llama"[:4] + b"\x80"])
        data[value_at:kv.end] = new
    else:
        struct.pack_into("<Q", data, value_at - 8, rng.choice(INTERESTING_U64))
    return bytes(data)


def tensor_type(rng, img, data):
    """A tensor's type id replaced (known, unknown, unsupported)."""
    info = rng.choice(img.header.tensors)
    struct.pack_into("<I", data, info.type_offset, rng.choice(TYPE_IDS))
    return bytes(data)


def token_types(rng, img, data):
    """Random entries of tokenizer.ggml.token_type become CONTROL,
    USER_DEFINED or odd values (byte tokens turning into special tokens)."""
    kv = img.header.kvs["tokenizer.ggml.token_type"]
    first = kv.end - 4 * len(kv.value)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(kv.value))
        value = rng.choice((3, 3, 4, 4, 0, 2, 5, 6, -1, 2**31 - 1))
        struct.pack_into("<i", data, first + 4 * i, value)
    return bytes(data)


def _field_offsets(img, rng):
    """(offset, size) of a random length, count, type, dimension or offset
    field of the header."""
    if rng.random() < 0.5:
        kv = rng.choice(list(img.header.kvs.values()))
        key_end = kv.start + 8 + len(kv.key.encode())
        fields = [(kv.start, 8), (key_end, 4)]
        if kv.item_type is not None:
            fields += [(key_end + 4, 4), (key_end + 8, 8)]
        return rng.choice(fields)
    t = rng.choice(img.header.tensors)
    n_dims_at = t.start + 8 + len(t.name.encode())
    fields = [(t.start, 8), (n_dims_at, 4), (t.end - 8, 8), (t.type_offset, 4)]
    fields += [(n_dims_at + 4 + 8 * i, 8) for i in range(len(t.shape))]
    return rng.choice(fields + [(8, 8), (16, 8)])


def interesting_field(rng, img, data):
    """An extreme value in a length, count, type, dim or offset field."""
    at, size = _field_offsets(img, rng)
    value = rng.choice(INTERESTING_U64) % (1 << (8 * size))
    data[at:at + size] = value.to_bytes(size, "little")
    return bytes(data)


def duplicate_key(rng, img, data):
    """A metadata entry twice (counts and padding fixed)."""
    kvs = list(img.kv_chunks)
    i = rng.randrange(len(kvs))
    kvs.insert(rng.randrange(len(kvs) + 1), kvs[i])
    return img.assemble(kvs, img.ti_chunks)


def remove_key(rng, img, data):
    """A metadata entry removed (counts and padding fixed)."""
    kvs = list(img.kv_chunks)
    del kvs[rng.randrange(len(kvs))]
    return img.assemble(kvs, img.ti_chunks)


def edit_tensor_infos(rng, img, data):
    """A tensor info removed or duplicated."""
    tis = list(img.ti_chunks)
    i = rng.randrange(len(tis))
    if rng.random() < 0.5:
        del tis[i]
    else:
        tis.insert(rng.randrange(len(tis) + 1), tis[i])
    return img.assemble(img.kv_chunks, tis)


MUTATIONS = (truncate, flip_header, flip_tensor_info, flip_data, architecture,
             tensor_type, token_types, interesting_field, duplicate_key,
             remove_key, edit_tensor_infos)


# These change the length: nothing follows them (later mutations use the
# valid image's offsets); the rebuilding ones start from the valid image.
RESIZING = (truncate, duplicate_key, remove_key, edit_tensor_infos)


def mutate(rng, img):
    """1 to 3 mutations, each applied to the previous one's result."""
    data = img.data
    for step in range(rng.choice((1, 1, 1, 2, 3))):
        mutation = rng.choice(MUTATIONS)
        data = mutation(rng, img, bytearray(data))
        if mutation in RESIZING:
            break
    return data


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def exercise(data):
    """Everything a user of the reader does; raises on a broken promise."""
    model = gguf_llama.loads(data, "fuzz.gguf")
    shapes = gguf_llama.expected_shapes(model.config)
    for name in model.tensor_names():
        t = model.tensor(name)
        assert t.dtype == "float32" and t.flags.c_contiguous, name
        assert t.shape == shapes.get(name, t.shape), (name, t.shape)
    assert model.output_weight().shape == (model.config["vocab"], model.config["hidden"])
    model.weight_bytes()
    model.linear_names()
    tok = model.tokenizer()
    tok.decode(tok.encode(SAMPLE))


def _message_kind(message):
    """The message without names and numbers: what `--stats` counts."""
    message = re.sub(r"'[^']*'|\[[^]]*\]|\d+", "_", message)
    return message.replace("fuzz.gguf: ", "", 1)[:90]


def run_one(img, seed, stats):
    """'ok', 'rejected', or a finding (the traceback text)."""
    data = mutate(random.Random(seed), img)
    try:
        exercise(data)
    except gguf_llama.GGUFError as e:
        assert str(e).startswith("fuzz.gguf: "), str(e)
        kind = _message_kind(str(e))
        stats[kind] = stats.get(kind, 0) + 1
        return "rejected"
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - anything else (even a Rust panic
        return traceback.format_exc()  # from `tokenizers`) is a finding
    return "ok"


def main():
    """Run the mutations; exit status 1 on a finding."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=0,
                    help="stop after this many seconds (0: no limit)")
    ap.add_argument("--only", type=int, default=None, help="replay run ONLY")
    ap.add_argument("--progress", type=int, default=500)
    ap.add_argument("--stats", action="store_true",
                    help="print how often each kind of GGUFError came")
    args = ap.parse_args()
    img = Image(gguf_llama.tiny_llama_bytes(seed=args.seed))
    exercise(img.data)        # the unmutated model must load
    start, runs, rejected, findings, stats = time.time(), 0, 0, 0, {}
    indices = [args.only] if args.only is not None else range(args.runs)
    for i in indices:
        if args.time_limit and time.time() - start > args.time_limit:
            print(f"gguf_fuzz: time limit {args.time_limit:g} s reached")
            break
        outcome = run_one(img, args.seed * 1000003 + i, stats)
        runs += 1
        rejected += outcome == "rejected"
        if outcome not in ("ok", "rejected"):
            findings += 1
            print(f"gguf_fuzz: FINDING in run {i} (--seed {args.seed} --only {i}):\n{outcome}")
        if args.progress and runs % args.progress == 0:
            print(f"gguf_fuzz: {runs} runs, {rejected} rejected, {findings} findings, "
                  f"{time.time() - start:.1f} s", flush=True)
    for kind, n in sorted(stats.items(), key=lambda kv: -kv[1]) if args.stats else ():
        print(f"  {n:6d}  {kind}")
    print(f"gguf_fuzz: {runs} runs, {rejected} rejected with GGUFError, "
          f"{findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
