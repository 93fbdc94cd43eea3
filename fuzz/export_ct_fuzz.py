#!/usr/bin/env python3
"""export_ct_fuzz: mutate octet safetensors files and check that the
compressed-tensors exporter (tools/import-model/
octet_export_compressed_tensors.py) copes.

    .venv/bin/python fuzz/export_ct_fuzz.py --runs 2000 --seed 1 [--time-limit 60]

The files and their mutations are export_gguf_fuzz's (a tiny llama GGUF;
i8, i4 and u4-asymmetric weights in groups of 32 written in pure Python, no
Octet tool needed; mutations of the tensors, the metadata, the JSON header
and the bytes: see fuzz/export_gguf_fuzz.py). Run i of `--seed S` uses the
seed `S * 1000003 + i` (`--only i` replays it) and calls
`export(source, weights, directory)`.

Every outcome must be a success or an ExportError / GGUFError, and a
rejected file must leave no directory. An accepted file must give a
checkpoint whose model.safetensors holds every source tensor under its
Hugging Face name, each quantized weight (pack-quantized) unpacking, after
llama.cpp's q / k row permutation, to the file's codes, scales and zero
points exactly, each float tensor equal to the file's or the source's, and
a config.json whose quantization_config group has the scheme's num_bits,
symmetric and group_size. Anything else is a finding: the seed and the
traceback are printed and the exit status is 1. The last line is

    export_ct_fuzz: N runs, K rejected with ExportError, F findings
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "tools", "import-model")]
import export_gguf_fuzz as gf  # noqa: E402
import gguf_llama  # noqa: E402
import octet_export_compressed_tensors as ct  # noqa: E402


def gguf_permute(w, n_head):
    """llama.cpp's convert_hf_to_gguf.py permute (HF rows -> GGUF rows)."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def unpack(words, bits, cols):
    u = words.astype(np.int64) & 0xFFFFFFFF
    per = 32 // bits
    i = np.arange(cols)
    return ((u[:, i // per] >> ((i % per) * bits)) & ((1 << bits) - 1)) \
        - (1 << (bits - 1))


def check_output(env, weights, out):
    """The promises of an accepted file; AssertionError if one is broken."""
    tensors, schemes, _ = ct.read_raw(weights)
    got, _ = ct.read_safetensors(os.path.join(out, "model.safetensors"))
    with open(os.path.join(out, "config.json")) as f:
        cfg = json.load(f)
    src = env.src
    heads = {"attn_q": src.config["heads"], "attn_k": src.config["kv_heads"]}
    for name in src.tensor_names():
        hf = ct.hf_name(name)
        kind = name.split(".")[-2]
        perm = (lambda a: gguf_permute(a, heads[kind])) if kind in heads \
            else (lambda a: a)
        if name in schemes:
            s = schemes[name]
            base = hf[:-len(".weight")]
            groups = [g for g in cfg["quantization_config"]["config_groups"]
                      .values() if g["targets"] == ["Linear"] or
                      base in g["targets"]]
            assert len(groups) == 1, (name, "in", len(groups), "groups")
            args = groups[0]["weights"]
            assert args["symmetric"] == s["symmetric"], (name, args)
            assert args["group_size"] == s["group"], (name, args)
            bits = args["num_bits"]
            codes = tensors[name][1]
            packed = got[base + ".weight_packed"][1]
            q = perm(unpack(packed, bits, codes.shape[1]))
            offset = 0 if s["format"].startswith("i") else 1 << (bits - 1)
            assert np.array_equal(q + offset, codes.astype(np.int64)), \
                (name, "codes differ")
            scale = tensors[name + ".scale"][1]
            gs = perm(got[base + ".weight_scale"][1])
            assert np.array_equal(gs.reshape(scale.shape).view(np.uint32),
                                  scale.view(np.uint32)), (name, "scales differ")
            if not s["symmetric"]:
                zp = tensors[name + ".zero_point"][1]
                z = got[base + ".weight_zero_point"][1]
                z = perm(unpack(z.T.copy(), bits, codes.shape[0]).T)
                assert np.array_equal(z.reshape(zp.shape) + offset,
                                      zp.astype(np.int64)), (name, "zp differ")
        else:
            want = tensors[name][1].astype(np.float32) if name in tensors \
                else src.tensor(name)
            dtype, arr = got[hf]
            assert dtype == "F32", (name, dtype)
            assert np.array_equal(perm(arr), want, equal_nan=True), \
                (name, "float values differ")


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.source = os.path.join(tmp, "tiny.gguf")
        gguf_llama.write_tiny_llama(self.source, seed=0)
        self.src = gguf_llama.load(self.source)
        self.variants = {fmt: gf.make_variant(self.src, fmt) for fmt in gf.SCHEMES}
        self.weights = os.path.join(tmp, "weights.safetensors")
        self.out = os.path.join(tmp, "out")

    def export(self, raw):
        with open(self.weights, "wb") as f:
            f.write(raw)
        shutil.rmtree(self.out, ignore_errors=True)
        return ct.export(self.source, self.weights, self.out, log=lambda m: None)


def run_one(env, seed, stats):
    raw, _ = gf.mutate(random.Random(seed), env.variants)
    try:
        env.export(raw)
    except (ct.ExportError, gguf_llama.GGUFError) as e:
        kind = gf._message_kind(str(e))
        stats[kind] = stats.get(kind, 0) + 1
        if os.path.exists(env.out):
            return "rejected, but left the directory %s" % env.out
        return "rejected"
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - anything else is a finding
        return traceback.format_exc()
    try:
        check_output(env, env.weights, env.out)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001
        return "accepted, but the output breaks a promise:\n" + traceback.format_exc()
    return "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=0,
                    help="stop after this many seconds (0: no limit)")
    ap.add_argument("--only", type=int, default=None, help="replay run ONLY")
    ap.add_argument("--progress", type=int, default=500)
    ap.add_argument("--stats", action="store_true",
                    help="print how often each kind of ExportError came")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="export_ct_fuzz.")
    try:
        env = Env(tmp)
        for fmt in sorted(env.variants):
            try:
                env.export(gf.serialize(*gf.header_of(*env.variants[fmt])))
                check_output(env, env.weights, env.out)
            except Exception:  # noqa: BLE001
                print("export_ct_fuzz: the valid %s file is not exported "
                      "correctly:\n%s" % (fmt, traceback.format_exc()))
                return 2
        start, runs, rejected, findings, stats = time.time(), 0, 0, 0, {}
        indices = [args.only] if args.only is not None else range(args.runs)
        for i in indices:
            if args.time_limit and time.time() - start > args.time_limit:
                print("export_ct_fuzz: time limit %g s reached" % args.time_limit)
                break
            outcome = run_one(env, args.seed * 1000003 + i, stats)
            runs += 1
            rejected += outcome == "rejected"
            if outcome not in ("ok", "rejected"):
                findings += 1
                print("FINDING in run %d of export_ct_fuzz (--seed %d --only "
                      "%d, seed %d):\n%s" % (i, args.seed, i,
                                             args.seed * 1000003 + i, outcome))
            if args.progress and runs % args.progress == 0:
                print("export_ct_fuzz: %d runs, %d rejected, %d findings, "
                      "%.1f s" % (runs, rejected, findings,
                                  time.time() - start), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for kind, n in sorted(stats.items(), key=lambda kv: -kv[1]) if args.stats else ():
        print("  %6d  %s" % (n, kind))
    print("export_ct_fuzz: %d runs, %d rejected with ExportError, %d findings"
          % (runs, rejected, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
