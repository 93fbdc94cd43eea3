#!/usr/bin/env python3
"""Builds the seed corpora of the MLIR fuzz harnesses from test/.

Usage: make_corpus.py SOURCE_ROOT OUT_DIR

Every .mlir test is split at `// -----` (as -split-input-file does) and its
comment lines are dropped. Each piece becomes
  OUT_DIR/parse/<name>          the text (octet-fuzz-parse), and
  OUT_DIR/pass/<name>.<i>       "PIPELINE\\n" + the text (octet-fuzz-pass)
for every octet pass pipeline named on the test's RUN lines (flags such as
--octet-quantize-weights="format=i4" become octet-quantize-weights{format=i4};
--pass-pipeline=... is taken as it is). Options that write files (report=,
manifest=) are dropped: the harness refuses them. The committed seeds of
fuzz/corpus/ are copied in too.
"""

import hashlib
import os
import re
import shlex
import shutil
import sys

PASSES = {
    "octet-import-quant", "octet-export-quant", "convert-octet-to-linalg",
    "octet-quantize-weights", "octet-quantize-activations", "octet-instrument",
    "octet-fold-scales", "octet-set-target", "octet-select-lowering",
    "octet-quantize", "octet-lower-to-host", "octet-lower-observers",
    "octet-print-capabilities", "octet-test-resolve-format",
    "convert-octet-to-cpu", "octet-emit-cpu-kernels", "octet-outline-for-cuda",
    "convert-octet-to-gpu", "canonicalize", "cse",
}
# Every pass also runs alone on every piece that names none.
DEFAULTS = ["octet-fold-scales", "octet-quantize-weights",
            "convert-octet-to-linalg", "canonicalize",
            "octet-quantize{recipe=w8a8-dynamic}", "octet-lower-to-host"]


def run_lines(text):
    lines, cur = [], ""
    for line in text.splitlines():
        m = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
        if not m:
            continue
        part = m.group(1)
        if part.rstrip().endswith("\\"):
            cur += part.rstrip()[:-1] + " "
            continue
        lines.append(cur + part)
        cur = ""
    return lines


def drop_file_options(opts):
    kept = [o for o in opts.split() if not re.match(r"(report|manifest|toolkit)=", o)]
    return " ".join(kept)


def pipelines(run):
    """The octet pass pipeline of each octet-opt command on a RUN line."""
    out = []
    for cmd in run.split("|"):
        try:
            words = shlex.split(cmd.replace("%s", "INPUT"))
        except ValueError:
            continue
        if not words or words[0] != "octet-opt":
            continue
        elems = []
        for w in words[1:]:
            if w.startswith("--pass-pipeline=") or w.startswith("-pass-pipeline="):
                p = w.split("=", 1)[1]
                m = re.match(r"builtin\.module\((.*)\)$", p)
                elems.append(m.group(1) if m else p)
                continue
            m = re.match(r"--?([a-z0-9-]+)(?:=(.*))?$", w)
            if not m or m.group(1) not in PASSES:
                continue
            name, opts = m.group(1), m.group(2)
            if opts:
                opts = drop_file_options(opts)
            elems.append(f"{name}{{{opts}}}" if opts else name)
        if elems:
            out.append(",".join(elems))
    return out


def pieces(text):
    body = "\n".join(l for l in text.splitlines()
                     if not re.match(r"\s*//", l) or "-----" in l)
    return [p.strip() + "\n" for p in re.split(r"^\s*// -----\s*$", body,
                                               flags=re.M) if p.strip()]


def main():
    src, out = sys.argv[1], sys.argv[2]
    parse_dir, pass_dir = os.path.join(out, "parse"), os.path.join(out, "pass")
    for d in (parse_dir, pass_dir):
        os.makedirs(d, exist_ok=True)
    n_parse = n_pass = 0
    for root, _, files in sorted(os.walk(os.path.join(src, "test"))):
        for f in sorted(files):
            if not f.endswith(".mlir"):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            pls = []
            for run in run_lines(text):
                pls += pipelines(run)
            pls = list(dict.fromkeys(pls)) or DEFAULTS
            rel = os.path.relpath(path, src).replace("/", "_")
            for i, piece in enumerate(pieces(text)):
                name = f"{rel}.{i}"
                with open(os.path.join(parse_dir, name), "w") as fh:
                    fh.write(piece)
                n_parse += 1
                for j, pl in enumerate(pls):
                    with open(os.path.join(pass_dir, f"{name}.{j}"), "w") as fh:
                        fh.write(pl + "\n" + piece)
                    n_pass += 1
    corpora = os.path.join(src, "fuzz", "corpus")
    for target in sorted(os.listdir(corpora)):
        committed = os.path.join(corpora, target)
        if os.path.isdir(committed):
            dst = os.path.join(out, target)
            os.makedirs(dst, exist_ok=True)
            for f in os.listdir(committed):
                shutil.copy(os.path.join(committed, f), dst)
    print(f"make_corpus: {n_parse} parse seeds, {n_pass} pass seeds in {out}")


if __name__ == "__main__":
    main()
