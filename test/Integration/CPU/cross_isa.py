"""Cross-ISA identity: one quantized model, every integer kernel family the
running CPU has, and the portable lowering, give the same bits.

usage: cross_isa.py TMPDIR [mlp] [minilm]

DESIGN.md's numerics contract promises "Bits" for the integer path: the
quantizers, the exact i32 sums and their epilogues are the same on every
ISA. So a W8A8 model (dynamic and static activations) is quantized once by
octet-opt and then JIT-run by octet-run once per kernel family,

    --pipeline=octet-lower-to-host{isa=F float-kernels=false}

for F in the families this CPU can run (avx2, avx512-vnni, amx-int8, read
from /proc/cpuinfo like lit's cpu-* features) and F = none (every
octet.matmul through the portable convert-octet-to-linalg). Every output
must be bit-identical to the portable one. The float matmuls (attention)
stay on the portable loops (float-kernels=false): float accumulation is
"Bounds", not "Bits", and may differ between ISAs.

Before running, each family's lowering is checked to really contain that
family's kernels (`__octet_cpu_<family>_...`), so a family that silently
fell back to the portable code cannot pass for identical.

Models: the demo MLP (examples/mlp_const.py, 32x256 -> 512 -> 128) and
all-MiniLM-L6-v2 (2 sentences x 16 tokens, every hidden state compared).
"""

import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(SRC, "examples"))
sys.path.insert(0, os.path.join(SRC, "examples", "minilm"))

# Kernel family -> (cpuinfo flags it needs, prefix of its kernels).
FAMILIES = {
    "avx2": (("avx2", "fma"), "__octet_cpu_avx2_"),
    "avx512-vnni": (("avx512f", "avx512bw", "avx512vl", "avx512_vnni"),
                    "__octet_cpu_vnni512_"),
    "amx-int8": (("avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                  "amx_tile", "amx_int8"), "__octet_cpu_amx_"),
}


def cpu_families():
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((l.split(":", 1)[1].split() for l in fh
                          if l.startswith("flags")), [])
    except OSError:
        flags = []
    return [f for f, (need, _) in FAMILIES.items()
            if all(n in flags for n in need)]


def run(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        err = "\n".join(l for l in res.stderr.splitlines()
                        if "remark:" not in l)
        sys.exit("FAIL: %s\n%s" % (" ".join(cmd), err[-3000:]))
    return res


def check_kernels(quantized, family):
    """The lowering for `family` uses that family's integer kernels."""
    out = run(["octet-opt", quantized,
               "--convert-octet-to-cpu=isa=%s float-kernels=false" % family])
    prefix = FAMILIES[family][1]
    n = out.stdout.count("constant @" + prefix)
    if n == 0:
        sys.exit("FAIL: %s: no %s kernel in the lowering" % (quantized,
                                                           prefix))
    return n


def run_family(quantized, family, entry, inputs, n_out, tmp, tag, opt):
    outs = [os.path.join(tmp, "%s_%s_out%d.npy" % (tag, family, i))
            for i in range(n_out)]
    cmd = ["octet-run", "-O", str(opt), quantized, "--entry", entry,
           "--pipeline=octet-lower-to-host{isa=%s float-kernels=false}"
           % family]
    for i in inputs:
        cmd += ["--input", i]
    for o in outs:
        cmd += ["--output", o]
    run(cmd)
    return [np.load(o) for o in outs]


def compare(name, quantized, entry, inputs, n_out, tmp, families, opt):
    ref = run_family(quantized, "none", entry, inputs, n_out, tmp, name, opt)
    ok = True
    for fam in families:
        n = check_kernels(quantized, fam)
        got = run_family(quantized, fam, entry, inputs, n_out, tmp, name, opt)
        diff = sum(int((a.view(np.uint32) != b.view(np.uint32)).sum())
                   for a, b in zip(ref, got))
        total = sum(a.size for a in ref)
        print("%-22s %-12s %2d kernel calls: %s (%d of %d values differ "
              "from the portable lowering)"
              % (name, fam, n, "identical" if diff == 0 else "DIFFERENT",
                 diff, total))
        ok &= diff == 0
    return ok


def mlp(tmp, families):
    import mlp_const
    model = mlp_const.write(os.path.join(tmp, "mlp.mlir"))
    rng = np.random.default_rng(11)
    x = os.path.join(tmp, "mlp_x.npy")
    np.save(x, rng.standard_normal((32, 256)).astype(np.float32))
    cal = []
    for i in range(2):
        cal.append(os.path.join(tmp, "mlp_cal%d.npy" % i))
        np.save(cal[-1], rng.standard_normal((32, 256)).astype(np.float32))
    inst = os.path.join(tmp, "mlp_inst.mlir")
    stats = os.path.join(tmp, "mlp_stats.json")
    run(["octet-opt", model, "--octet-quantize-weights",
         "--octet-instrument", "-o", inst])
    run(["octet-run", inst, "--entry", "forward", "--calibrate=" + stats,
         "--input", ",".join(cal)])
    ok = True
    for recipe, src, extra in (("w8a8-dynamic", model, ""),
                               ("w8a8-static", inst, " stats=" + stats)):
        q = os.path.join(tmp, "mlp_%s.mlir" % recipe)
        run(["octet-opt", src, "--octet-quantize=recipe=%s%s" % (recipe,
                                                                extra),
             "-o", q])
        ok &= compare("mlp " + recipe, q, "forward", [x], 1, tmp, families,
                      3)
    return ok


def minilm_models(tmp, families):
    import minilm
    from sentences import CALIB, EVAL
    tools = minilm.Tools("")
    B, S = 2, 16
    base = minilm.import_model(os.path.join(tmp, "minilm.mlir"), B, S,
                               return_hidden=True)
    ids, mask = minilm.tokenize(EVAL[:B], S)
    ids_p, mask_p = (os.path.join(tmp, "ids.npy"),
                     os.path.join(tmp, "mask.npy"))
    np.save(ids_p, ids)
    np.save(mask_p, mask)
    inst, stats = minilm.calibrate(tools, base, tmp,
                                   [minilm.tokenize(CALIB[:B], S)],
                                   os.path.join(tmp, "report.json"), 0)
    ok = True
    for recipe, src, st in (("w8a8-dynamic", base, None),
                            ("w8a8-static", inst, stats)):
        q = minilm.quantize(tools, src, "recipe=" + recipe,
                            os.path.join(tmp, "minilm_%s.mlir" % recipe),
                            stats=st, method="percentile:99.99" if st
                            else None)
        # The embeddings and the 7 hidden states.
        ok &= compare("minilm " + recipe, q, "forward", [ids_p, mask_p], 8,
                      tmp, families, 0)
    return ok


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tmp = sys.argv[1]
    os.makedirs(tmp, exist_ok=True)
    which = sys.argv[2:] or ["mlp", "minilm"]
    families = cpu_families()
    print("kernel families of this CPU: %s" % (", ".join(families) or
                                               "none"))
    ok = True
    if "mlp" in which:
        ok &= mlp(tmp, families)
    if "minilm" in which:
        ok &= minilm_models(tmp, families)
    print("cross-ISA identity: %s" % ("all identical" if ok else "FAILURES"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
