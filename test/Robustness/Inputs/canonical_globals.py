"""Prints an MLIR module (stdin) with the constant globals of bufferization
(@__constant_*) renamed and ordered by their contents, so that two lowerings
that differ only in the order in which one-shot-bufferize visited the
functions compare equal. That order is not deterministic in MLIR 22: the
functions without calls between them come out of a DenseMap keyed by
pointer (llvm/llvm-project#184722 fixes it upstream), so the globals' names
and order change from run to run, with or without threads (see
docs/robustness.md)."""
import re
import sys

text = sys.stdin.read().split("\n")
define = re.compile(r"^\s*(memref\.global|llvm\.mlir\.global)\b.*@(__constant_\w+)")
defs = {}
for i, line in enumerate(text):
    m = define.match(line)
    if m:
        defs[m.group(2)] = i
key = {name: text[i].replace("@" + name, "@G", 1) for name, i in defs.items()}
order = sorted(defs, key=lambda n: (key[n], n))
new = {name: f"__constant_c{k}" for k, name in enumerate(order)}
if new:
    pattern = re.compile(r"@(" + "|".join(map(re.escape, new)) + r")\b")
    text = [pattern.sub(lambda m: "@" + new[m.group(1)], line) for line in text]
    first = min(defs.values())
    lines = [text[defs[n]] for n in order]
    rest = [l for i, l in enumerate(text) if i not in set(defs.values())]
    text = rest[:first] + lines + rest[first:]
sys.stdout.write("\n".join(text))
