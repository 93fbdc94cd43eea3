"""The generated f32 contraction kernels (convert-octet-to-cpu,
float-kernels=true) against f64 sums, within DESIGN.md's Bounds promise.

usage: float_kernels.py [--isa avx2|avx512-vnni] [CASE...]

linalg.matmul and linalg.batch_matmul on f32 with a +0.0-filled init sum
a[m, k] * b[k, n] over k. Float accumulation is under the "Bounds" promise:
the kernels use FMA and their own order, and every result must lie within
octet_oracle.accumulation_bound(sum_k |a b|, K) of the exact sum (computed
here in f64 with numpy, independently of the compiler). Each case is first
lowered with `octet-opt --convert-octet-to-cpu{isa=ISA}` to check that the
generated kernel of that ISA (ymm for avx2, zmm for avx512-vnni) takes it,
then JIT-run by octet-run, and also run with `float-kernels=false` (the
portable lowering), which must meet the same bound.

Shapes cover M = 1 and 5 (the decode loop nest), M >= MR with row tails, N
with tails of 32, 16, 8 and < 8 columns, K over the 256-row K block, several
row tiles and column tiles (widths chosen at run time), the
rhs read as K x N and as N x K (a constant, transposed at compile time, and
an argument, transposed per task), batches, and adversarial values: a wide
dynamic range with signed zeros, sums that cancel (the exact result is tiny
next to sum |a b|: the bound is relative to the terms, not to the result),
and a long K (4100).
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import octet_oracle as o

rng = np.random.default_rng(20261129)

# name: (batch or 0, M, K, N, rhs transposed, rhs constant[, values])
CASES = {
    "mm_m77_k300_n131": (0, 77, 300, 131, False, False),
    "mm_m1_k300_n131_decode": (0, 1, 300, 131, False, False),
    "mm_m5_k70_n200_decode": (0, 5, 70, 200, False, True),
    "mm_t_const_m40_k96_n45": (0, 40, 96, 45, True, True),
    "mm_t_arg_m9_k33_n300": (0, 9, 33, 300, True, False),
    "mm_t_arg_m2_k40_n70_decode": (0, 2, 40, 70, True, False),
    "bmm_b3_m32_k32_n32": (3, 32, 32, 32, False, False),
    "bmm_t_b5_m7_k20_n13": (5, 7, 20, 13, True, False),
    "bmm_t_b2_m1_k64_n9_decode": (2, 1, 64, 9, True, False),
    # Batched tiles read both operands in place; an N x K rhs is transposed
    # per task in w x w squares with element tails of K and N (w = 8 and
    # 16), and K over the 256-row K block (partial sums in the scratch).
    "bmm_t_b3_m30_k37_n35": (3, 30, 37, 35, True, False),
    "bmm_b2_m26_k300_n37": (2, 26, 300, 37, False, False),
    "bmm_t_b2_m13_k270_n50": (2, 13, 270, 50, True, False),
    "mm_cancel_m13_k260_n40": (0, 13, 260, 40, False, False, "cancel"),
    "mm_cancel_m1_k520_n33_decode": (0, 1, 520, 33, False, True, "cancel"),
    "mm_long_k_m14_k4100_n20": (0, 14, 4100, 20, False, False),
    # Several row tiles (MC = 288 on ymm, 516 on zmm) and column tiles (NC =
    # 1024, split evenly at run time: 1100 -> 2 x 560 / 540 with 8- and
    # 4-column tails), K over two K blocks; the rhs as an argument, K x N
    # and N x K. 1100 rows: 3 tiles of 372 rows on zmm (the last 356), 4 of
    # 276 on ymm.
    "mm_tiles_m300_k520_n1100": (0, 300, 520, 1100, False, False),
    "mm_t_arg_tiles_m290_k270_n1030": (0, 290, 270, 1030, True, False),
    "mm_tiles_m1100_k300_n200": (0, 1100, 300, 200, False, False),
}


def values(shape):
    """Wide dynamic range (so that the summation order shows in the bits)
    and some exact zeros of both signs."""
    v = rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))
    v = v.astype(np.float32)
    flat = v.reshape(-1)
    idx = rng.choice(flat.size, size=max(1, flat.size // 50), replace=False)
    flat[idx[::2]] = np.float32(0.0)
    flat[idx[1::2]] = np.float32(-0.0)
    return v


def cancelling(a_shape, b_shape):
    """a and b whose products cancel in pairs up to a small remainder: the
    second half of k repeats the first half's b with a negated and nudged,
    so sum_k a b is ~1e-3 of sum_k |a b| (and is shuffled over k)."""
    a = values(a_shape).astype(np.float64)
    b = values(b_shape).astype(np.float64)
    k = a_shape[-1]
    h = k // 2
    a[..., h:2 * h] = -a[..., :h] * (1 + rng.uniform(-1e-3, 1e-3,
                                                     a[..., :h].shape))
    b[..., h:2 * h, :] = b[..., :h, :]
    perm = rng.permutation(k)
    return (a[..., perm].astype(np.float32),
            b[..., perm, :].astype(np.float32))


def oracle(a, b):
    """a: [..., M, K], b: [..., K, N] -> (exact sums, bound), f64."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    exact = np.matmul(a, b)
    return exact, o.accumulation_bound(np.matmul(np.abs(a), np.abs(b)),
                                       a.shape[-1])


def tensor(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def module(batch, m, k, n, transposed, const, b_value):
    bp = (batch,) if batch else ()
    a_t = tensor(bp + (m, k))
    b_shape = bp + ((n, k) if transposed else (k, n))
    b_t = tensor(b_shape)
    c_t = tensor(bp + (m, n))
    args = ["%%a: %s" % a_t]
    body = []
    if const:
        body.append("  %%b = arith.constant %s : %s" % (
            o.dense_const(b_value, "f32"), b_t))
    else:
        args.append("%%b: %s" % b_t)
    if batch:
        dims = "(b, m, n, k)"
        a_map, c_map = "(b, m, k)", "(b, m, n)"
        b_map = "(b, n, k)" if transposed else "(b, k, n)"
        op = "linalg.batch_matmul"
    else:
        dims = "(m, n, k)"
        a_map, c_map = "(m, k)", "(m, n)"
        b_map = "(n, k)" if transposed else "(k, n)"
        op = "linalg.matmul"
    maps = ", ".join("affine_map<%s -> %s>" % (dims, x)
                     for x in (a_map, b_map, c_map))
    body += [
        "  %zero = arith.constant 0.0 : f32",
        "  %%e = tensor.empty() : %s" % c_t,
        "  %%init = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s"
        % (c_t, c_t),
        "  %%y = %s indexing_maps = [%s] ins(%%a, %%b : %s, %s) "
        "outs(%%init : %s) -> %s" % (op, maps, a_t, b_t, c_t, c_t),
        "  return %%y : %s" % c_t,
    ]
    return "func.func @main(%s) -> %s {\n%s\n}\n" % (
        ", ".join(args), c_t, "\n".join(body))


def lowered_by_kernel(text, workdir, tag, isa):
    path = os.path.join(workdir, tag + ".check.mlir")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run(
        [o.find_tool("octet-opt"), path,
         "--convert-octet-to-cpu=isa=%s remarks=true" % isa],
        capture_output=True, text=True)
    family = "wo512" if isa == "avx512-vnni" else "wo"
    ok = out.returncode == 0 and "linalg.batch_matmul" not in out.stdout \
        and "linalg.matmul" not in out.stdout \
        and ("__octet_cpu_%s_f32f32" % family) in out.stdout
    return ok, out.stderr.strip()


def run_case(name, spec, workdir, isa):
    batch, m, k, n, transposed, const = spec[:6]
    bp = (batch,) if batch else ()
    if spec[6:] == ("cancel",):
        a, b_kn = cancelling(bp + (m, k), bp + (k, n))
    else:
        a, b_kn = values(bp + (m, k)), values(bp + (k, n))
    b_stored = np.swapaxes(b_kn, -1, -2).copy() if transposed else b_kn
    text = module(batch, m, k, n, transposed, const, b_stored)
    inputs = [a] if const else [a, b_stored]
    exact, bound = oracle(a, b_kn)
    results = {}
    for label, pipe in (
            # The pipeline's own options: a convert-octet-to-cpu run in
            # front of it (as before 2026-12-05) was followed by the
            # pipeline's, with float-kernels=true, so "portable" ran the
            # kernels too.
            ("kernel", "octet-lower-to-host{isa=%s}" % isa),
            ("portable",
             "octet-lower-to-host{isa=%s float-kernels=false}" % isa)):
        (got,) = o.run_octet(text, "main", inputs, 1, workdir=workdir,
                             tag="%s_%s" % (name, label),
                             extra_args=["--pipeline=" + pipe])
        results[label] = np.asarray(got, np.float32)
    covered, why = lowered_by_kernel(text, workdir, name, isa)
    ok = True
    worst = 0.0
    for label, got in results.items():
        if got.shape != exact.shape:
            print("%-28s MISMATCH (%s): shape %s, want %s" % (
                name, label, got.shape, exact.shape))
            ok = False
            continue
        err = np.abs(got.astype(np.float64) - exact)
        bad = np.flatnonzero(~(err <= bound))
        if bad.size:
            i = bad[0]
            print("%-28s MISMATCH (%s): %d of %d values outside the bound, "
                  "first at %d: got %r, exact %r +- %.3g" % (
                      name, label, bad.size, exact.size, i,
                      got.reshape(-1)[i], exact.reshape(-1)[i],
                      bound.reshape(-1)[i]))
            ok = False
        worst = max(worst, float(np.max(err / np.maximum(bound, 1e-300))))
    if not covered:
        print("%-28s NOT-COVERED by the generated kernel: %s" % (name, why))
        ok = False
    if ok:
        print("%-28s ok  (%d values, max error / bound %.3f)" % (
            name, exact.size, worst))
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--isa", default="avx2",
                        choices=["avx2", "avx512-vnni"])
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    names = args.cases or list(CASES)
    workdir = os.environ.get("OCTET_CPU_TEST_DIR") or \
        tempfile.mkdtemp(prefix="octet-f32-")
    ok = True
    for name in names:
        ok &= run_case(name, CASES[name], workdir, args.isa)
    print("f32 kernels (%s): %s" % (args.isa, "all cases within the bound"
                                    if ok else "MISMATCHES"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
