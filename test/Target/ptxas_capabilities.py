"""Checks every CUDA row of the capability table against ptxas.

Reads the table that `octet-opt --octet-print-capabilities` prints (the one
docs/targets.md shows), writes a minimal PTX kernel for each row and operand
combination, and asks ptxas (the assembler that has the final word on what a
chip accepts):

  1. accepted: the instruction at `.target <row's target>` with
     `.version max(row PTX, target PTX)` assembles;
  2. not earlier in PTX: where the row claims a PTX ISA version above its
     target's minimum, the same kernel at the previous PTX version fails;
  3. new where the table says so: an instantiated instruction that no row of
     an earlier CUDA target uses is rejected on the previous CUDA target;
  4. nothing faster where the table has nothing: for every CUDA target
     where octet-select-lowering warns that a format pair is dequantized (no
     row, also not after unpacking 4-bit integers), every other target's
     instruction for that pair is rejected there.

Prints one line per check and a summary; exits non-zero on any mismatch.
Usage: ptxas_capabilities.py TABLE.md PTXAS WORKDIR
"""

import os
import re
import subprocess
import sys


def parse_table(path):
    targets, rows = {}, []
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 8 and cells[1] in ("cuda", "x86", "aarch64"):
                name = cells[0].strip("`")
                ptx = 0 if cells[3] == "-" else int(cells[3].replace(".", ""))
                targets[name] = {"arch": cells[1], "ptx": ptx, "order": len(targets)}
            elif len(cells) == 11 and cells[0].startswith("`"):
                rows.append({
                    "target": cells[0].strip("`"),
                    "a": cells[1].split("/"),
                    "b": cells[2].split("/"),
                    "acc": cells[3],
                    "scale": cells[4],
                    "unit": cells[6],
                    "shape": cells[7],
                    "inst": cells[8].strip("`"),
                    "ptx": 0 if cells[9] == "-" else int(cells[9].replace(".", "")),
                })
    return targets, rows


def regs(prefix, n):
    return "{" + ", ".join("%s%d" % (prefix, i) for i in range(n)) + "}"


def mma_counts(shape):
    """(A, B, C/D) 32-bit registers per thread of one warp-level mma."""
    return {
        "m8n8k16": (1, 1, 2),
        "m8n8k32": (1, 1, 2),
        "m16n8k8": (2, 1, 4),
        "m16n8k16": (4, 2, 4),
        "m16n8k32": (4, 2, 4),
        "m16n8k64": (4, 2, 4),
    }[shape]


def instruction_text(row, a, b):
    """The instruction with operands, or None for rows this script skips."""
    inst = row["inst"].replace("{a}", a).replace("{b}", b)
    acc = "f" if row["acc"] == "f32" else "r"
    if row["unit"] == "SIMT":
        return "fma.rn.f32 f0, f1, f2, f3;"
    if row["unit"] == "mma.sync":
        na, nb, nc = mma_counts(row["shape"])
        text = "%s %s, %s, %s, %s" % (inst, regs(acc, nc), regs("a", na),
                                      regs("b", nb), regs(acc, nc))
        if "block_scale" in inst:
            text += ", {sa}, {h0, h1}, {sb}, {h2, h3}"
        return text + ";"
    if row["unit"] == "wgmma":
        inst = inst.replace("nN", "n8")
        text = "%s %s, da, db, p" % (inst, regs(acc, 4))
        if a in ("e4m3", "e5m2"):
            text += ", 1, 1"
        elif a in ("f16", "bf16"):
            text += ", 1, 1, 0, 0"
        return text + ";"
    if row["unit"] == "tcgen05.mma":
        if "block_scale" in inst:
            return "%s [t0], da, db, id, [t1], [t2], p;" % inst
        return "%s [t0], da, db, id, p;" % inst
    return None


def kernel(version, target, body):
    return """.version %d.%d
.target %s
.address_size 64
.visible .entry k() {
  .reg .b32 r<8>, a<8>, b<8>, sa, sb, t<4>, id;
  .reg .f32 f<8>;
  .reg .b16 h<4>;
  .reg .b64 da, db;
  .reg .pred p;
  %s
  ret;
}
""" % (version // 10, version % 10, target, body)


def assemble(ptxas, workdir, name, version, target, body):
    path = os.path.join(workdir, name + ".ptx")
    with open(path, "w") as f:
        f.write(kernel(version, target, body))
    result = subprocess.run([ptxas, "-arch=" + target, path, "-o", os.devnull],
                            capture_output=True, text=True)
    first = (result.stdout + result.stderr).strip().splitlines()
    return result.returncode == 0, first[0] if first else ""


def previous_ptx(version):
    major, minor = divmod(version, 10)
    return version - 1 if minor else (major - 1) * 10 + 8


def main():
    table, ptxas, workdir = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    targets, rows = parse_table(table)
    cuda = sorted((t for t in targets if targets[t]["arch"] == "cuda"),
                  key=lambda t: targets[t]["order"])
    checks = failures = 0
    for i, row in enumerate(rows):
        target = row["target"]
        if targets[target]["arch"] != "cuda":
            continue
        target_ptx = targets[target]["ptx"]
        version = max(row["ptx"], target_ptx)
        # Rows are searched in order: pairs an earlier row of the same target
        # takes never reach this one.
        pairs = [(a, b) for a in row["a"] for b in row["b"]
                 if not any(r["target"] == target and a in r["a"] and
                            b in r["b"] and r["scale"] == row["scale"]
                            for r in rows[:i])]
        if row["unit"] == "tcgen05.mma":
            pairs = pairs[:1]  # types travel in the instruction descriptor
        for a, b in pairs:
            body = instruction_text(row, a, b)
            if body is None:
                continue
            label = "%s %s x %s: %s" % (target, a, b, body.split(" ")[0])
            name = "row%d_%s_%s" % (i, a, b)

            def expect(ok, want, what, message):
                nonlocal checks, failures
                checks += 1
                status = "ok" if ok == want else "MISMATCH"
                if ok != want:
                    failures += 1
                print("%s: %s: %s%s" % (status, label, what,
                                        "" if ok else " (" + message + ")"))

            ok, msg = assemble(ptxas, workdir, name, version, target, body)
            expect(ok, True, "accepted at PTX %d.%d" % divmod(version, 10), msg)
            if row["ptx"] > target_ptx:
                older = previous_ptx(row["ptx"])
                ok, msg = assemble(ptxas, workdir, name + "_ptx", older, target,
                                   body)
                expect(ok, False, "rejected at PTX %d.%d" % divmod(older, 10),
                       msg)
            position = cuda.index(target)
            earlier_forms = {
                instruction_text(r, x, y) for r in rows
                if r["target"] in cuda[:position]
                for x in r["a"] for y in r["b"]}
            if position > 0 and row["unit"] != "SIMT" and \
                    body not in earlier_forms:
                previous = cuda[position - 1]
                ok, msg = assemble(ptxas, workdir, name + "_sm", max(
                    version, targets[previous]["ptx"]), previous, body)
                expect(ok, False, "new: rejected on %s" % previous, msg)
    # 4. Where the table has no row for a pair, no other target's
    # instruction for that pair assembles either.
    def has_row(target, a, b, scale):
        return any(r["target"] == target and a in r["a"] and b in r["b"] and
                   r["scale"] == scale and r["unit"] != "SIMT" for r in rows)
    for target in cuda:
        for i, row in enumerate(rows):
            if (targets[row["target"]]["arch"] != "cuda" or
                    row["target"] == target or row["unit"] == "SIMT"):
                continue
            for a, b in [(a, b) for a in row["a"] for b in row["b"]]:
                # No warning there: a row, or one after unpacking 4-bit
                # integers to 8 bits (octet-select-lowering's second try).
                wide = {"s4": "s8", "u4": "u8"}
                if has_row(target, a, b, row["scale"]) or has_row(
                        target, wide.get(a, a), wide.get(b, b), row["scale"]):
                    continue
                body = instruction_text(row, a, b)
                version = max(row["ptx"], targets[target]["ptx"])
                ok, msg = assemble(ptxas, workdir, "neg%d_%s_%s_%s" % (
                    i, a, b, target), version, target, body)
                checks += 1
                status = "ok" if not ok else "MISMATCH"
                failures += ok
                print("%s: %s has no %s x %s row: %s (%s's) rejected%s" % (
                    status, target, a, b, body.split(" ")[0], row["target"],
                    "" if ok else " (" + msg + ")"))
    print("%d checks, %d mismatches" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
