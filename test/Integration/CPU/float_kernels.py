"""The generated f32 contraction kernels (convert-octet-to-cpu,
float-kernels=true) against a numpy oracle of the contract, bit for bit.

usage: float_kernels.py [CASE...]

linalg.matmul and linalg.batch_matmul on f32 with a +0.0-filled init are
defined by their region: for every output, acc = acc + a[m, k] * b[k, n]
with k in order, each product and each sum rounded to f32 (no FMA). The
oracle below computes exactly that with numpy float32 arithmetic, one k at
a time (vectorized over m and n only), independently of the compiler. Each
case is first lowered with `octet-opt --convert-octet-to-cpu` to check that
the generated kernel (not the portable lowering) takes it, then JIT-run by
octet-run, and also run with `float-kernels=false` (the portable lowering)
to check that both lowerings agree bit for bit.

Shapes cover M = 1 and 5 (the decode loop nest), M >= 6 with row tails, N
with tails of 16, 8 and < 8 columns, K over the 256-row K block, the rhs
read as K x N and as N x K (a constant, transposed at compile time, and an
argument, transposed per task), batches, and values that expose rounding
order (wide dynamic range, signed zeros).
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

import octet_oracle as o

rng = np.random.default_rng(20261129)

# name: (batch or 0, M, K, N, rhs transposed, rhs constant)
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


def oracle(a, b):
    """a: [..., M, K], b: [..., K, N] -> f32 sums in k order."""
    a = a.astype(np.float32)
    b = b.astype(np.float32)
    shape = a.shape[:-1] + (b.shape[-1],)
    acc = np.zeros(shape, np.float32)  # the +0.0 init
    for k in range(a.shape[-1]):
        prod = (a[..., :, k:k + 1] * b[..., k:k + 1, :]).astype(np.float32)
        acc = (acc + prod).astype(np.float32)
    return acc


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


def lowered_by_kernel(text, workdir, tag):
    path = os.path.join(workdir, tag + ".check.mlir")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run(
        [o.find_tool("octet-opt"), path,
         "--convert-octet-to-cpu=isa=avx2 remarks=true"],
        capture_output=True, text=True)
    ok = out.returncode == 0 and "linalg.batch_matmul" not in out.stdout \
        and "linalg.matmul" not in out.stdout \
        and "__octet_cpu_wo_f32f32" in out.stdout
    return ok, out.stderr.strip()


def run_case(name, spec, workdir):
    batch, m, k, n, transposed, const = spec
    bp = (batch,) if batch else ()
    a = values(bp + (m, k))
    b_kn = values(bp + (k, n))
    b_stored = np.swapaxes(b_kn, -1, -2).copy() if transposed else b_kn
    text = module(batch, m, k, n, transposed, const, b_stored)
    inputs = [a] if const else [a, b_stored]
    want = oracle(a, b_kn)
    results = {}
    for label, pipe in (
            ("kernel", "convert-octet-to-cpu{isa=avx2},octet-lower-to-host"),
            ("portable", "convert-octet-to-cpu{isa=avx2 float-kernels=false},"
                         "octet-lower-to-host")):
        (got,) = o.run_octet(text, "main", inputs, 1, workdir=workdir,
                             tag="%s_%s" % (name, label),
                             extra_args=["--pipeline=" + pipe])
        results[label] = np.asarray(got, np.float32)
    covered, why = lowered_by_kernel(text, workdir, name)
    ok = True
    for label, got in results.items():
        same = got.shape == want.shape and np.array_equal(
            got.view(np.uint32), want.view(np.uint32))
        if not same:
            diff = np.flatnonzero(got.view(np.uint32).reshape(-1) !=
                                  want.view(np.uint32).reshape(-1))
            print("%-28s MISMATCH (%s): %d of %d values differ, first at "
                  "%d: got %r want %r" % (
                      name, label, diff.size, want.size, diff[0],
                      got.reshape(-1)[diff[0]], want.reshape(-1)[diff[0]]))
            ok = False
    if not covered:
        print("%-28s NOT-COVERED by the generated kernel: %s" % (name, why))
        ok = False
    if ok:
        print("%-28s ok  (%d values)" % (name, want.size))
    return ok


def main():
    names = sys.argv[1:] or list(CASES)
    workdir = os.environ.get("OCTET_CPU_TEST_DIR") or \
        tempfile.mkdtemp(prefix="octet-f32-")
    ok = True
    for name in names:
        ok &= run_case(name, CASES[name], workdir)
    print("f32 kernels: %s" % ("all cases match" if ok else "MISMATCHES"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
