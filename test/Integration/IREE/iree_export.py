"""Octet's quantized models compiled and run by IREE.

The two-layer model of test/Integration/FoldScales/recipes.py goes through
every recipe with `octet-opt --octet-quantize=recipe=R`, is lowered to
upstream dialects only (`--convert-octet-to-linalg --octet-store-fp8-as-i8`),
compiled by IREE's `iree-compile` (llvm-cpu backend) for a generic x86-64
and for the host CPU, and run by `iree-run-module`; the same quantized
module is run by `octet-run`.

Checks, per recipe and CPU:
  * the lowered module holds no octet op, attribute or type;
  * octet-run's output equals the independent numpy oracle of recipes.py
    bit for bit;
  * integer recipes (w8a8-dynamic, w8a8-static) on the generic CPU: IREE's
    output equals octet-run's bit for bit (DESIGN.md's Bits: integer
    contractions and their epilogues);
  * everything else: |IREE - oracle| <= 4 K eps32 (|x| |W1| |W2| + |y|), the
    reassociation bound recipes.py uses (Bounds). IREE sums f32 products in
    its own order (w8a16, w4a16, the exact E4M3 products of w8a8-fp8), and
    on a CPU with FMA it marks arith ops `contract` (iree-org/iree#14551),
    so an epilogue's multiply and bias add fuse into one rounding; the
    number of outputs that differ from octet-run is printed.
  * w8a8-mxfp8 (MX blocks on both operands): octet-run and IREE each
    within the Bounds of exact sums of the oracle's codes (recipes.py's
    mx_oracle; "octet-run == oracle" means within it there). The FP4
    recipes (w4a8-mxfp4, w4a4-mxfp4, w4a4-nvfp4) are skipped: iree-compile
    cannot serialize f4E2M1FN constants.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "FoldScales"))

import octet_oracle as o  # noqa: E402
import recipes as r  # noqa: E402  (the model, its data and the oracle)

F32 = np.float32
BIN = os.path.dirname(sys.executable)
IREE_COMPILE = os.path.join(BIN, "iree-compile")
IREE_RUN = os.path.join(BIN, "iree-run-module")
# Integer contractions: octet-run, IREE and the oracle agree bit for bit.
EXACT = ("w8a8-dynamic", "w8a8-static")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), p.stderr[-3000:]))
    return p.stdout


def iree(tmp, lowered, recipe, cpu, xp):
    """Compiles `lowered` for the llvm-cpu backend and `cpu` and runs @main
    on the array in `xp` with iree-run-module; returns the result."""
    vmfb = os.path.join(tmp, "%s.%s.vmfb" % (recipe, cpu))
    run([IREE_COMPILE, lowered, "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=" + cpu,
         # IREE 3.13 cannot emulate i4 in a constant it inlines into a
         # dispatch ("failed to legalize operation 'memref.get_global'" on
         # memref<32x16xi4>): keep constants out of the dispatches
         # (docs/ecosystem.md).
         "--iree-flow-inline-constants-max-byte-length=0", "-o", vmfb])
    out = os.path.join(tmp, "%s.%s.npy" % (recipe, cpu))
    run([IREE_RUN, "--module=" + vmfb, "--device=local-task",
         "--function=main", "--input=@" + xp, "--output=@" + out])
    return np.load(out)


def main():
    opt = o.find_tool("octet-opt")
    octet_run = o.find_tool("octet-run")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        model, xp, cal = r.write_inputs(tmp)
        stats = os.path.join(tmp, "stats-w8a8-static.json")
        a1 = np.abs(r.x) @ np.abs(r.w1)
        for recipe in r.RECIPES:
            if recipe == "w4a4-nvfp4" or (recipe in r.MX_RECIPES and
                                          "e2m1" in r.MX_RECIPES[recipe]):
                # iree-compile cannot serialize f4E2M1FN constants
                # ("unhandled float element bit width 4").
                print("%-13s skipped: IREE does not take FP4 constants"
                      % recipe)
                continue
            src, extra = r.recipe_source(recipe, model, cal, tmp, opt,
                                         octet_run)
            quant = os.path.join(tmp, recipe + ".mlir")
            run([opt, src, "--octet-quantize=recipe=%s group-size=32%s"
                 % (recipe, extra), "-o", quant])
            lowered = os.path.join(tmp, recipe + ".linalg.mlir")
            run([opt, quant, "--convert-octet-to-linalg",
                 "--octet-store-fp8-as-i8", "-o", lowered])
            text = open(lowered).read()
            # No octet op, attribute (#octet.*, octet.* names) or type.
            upstream = re.search(r"\boctet\.", text) is None
            y_octet = o.run_octet(open(quant).read(), "main", [r.x], 1,
                                  tag=recipe + "_iree")[0]
            mx = r.mx_oracle(recipe) if recipe in r.MX_RECIPES else None
            if mx is not None:
                # MX: exact f64 sums of the oracle's codes, within the
                # Bounds promise (either code at an fc2 midpoint).
                want = np.array([rc[0][0] for rc in mx]).astype(F32)
                octet_exact = r.mx_check(mx, y_octet)[0]
            else:
                want = r.oracle(recipe, r.static_scales(stats)
                                if recipe == "w8a8-static" else None)
                octet_exact = np.array_equal(o.bits(y_octet), o.bits(want))
            bound = 4 * r.K * np.finfo(F32).eps * (
                np.maximum(a1, 0) @ np.abs(r.w2) + np.abs(want)) + 1e-6
            for cpu in ("generic", "host"):
                y_iree = iree(tmp, lowered, recipe, cpu, xp)
                differ = int((o.bits(y_iree) != o.bits(y_octet)).sum())
                diff = np.abs(y_iree.astype(np.float64) - want)
                within = bool((diff <= bound).all())
                if mx is not None:
                    within = r.mx_check(mx, y_iree)[0]
                if recipe in EXACT and cpu == "generic":
                    good = upstream and differ == 0 and octet_exact
                elif recipe in EXACT or recipe == "w8a8-fp8":
                    good = upstream and octet_exact and within
                else:
                    good = upstream and within
                ok &= good
                print("%-13s cpu=%-8s upstream only: %s  octet-run == oracle: "
                      "%s  IREE != octet-run: %d of %d  |IREE - oracle| max "
                      "%.3g (bound ok: %s)  %s" % (
                          recipe, cpu, upstream, octet_exact, differ,
                          y_octet.size, diff.max(), within,
                          "ok" if good else "FAIL"))
    print("iree: %s" % ("all ok" if ok else "FAILURES"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
