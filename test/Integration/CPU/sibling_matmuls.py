"""octet-fuse-sibling-matmuls (first in octet-lower-to-host) end to end:
matmuls that share their input, run through the kernels as one, against an
exact numpy oracle.

usage: sibling_matmuls.py

Two groups that the pass merges, as a transformer block has them: Q/K/V
projections with [out, in] i8 weights behind linalg.transpose and
per-channel scales (weight-only, float activations), and W8A8 gate/up
projections on one quantized activation with per-token scales; N of 40, 17
and 23 columns (panel and vector tails). Activations and weights are small
integers and the scales powers of two, so every sum is exact in f32 in any
order: the oracle is exact and the results must equal it bit for bit, at
M = 1 (the decode kernel) and M = 29 (the tiled kernel). The merge itself is
checked by counting octet.matmul before and after the pass, and the Q
slice (a strided view of the merged result) feeds one more matmul.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

import octet_oracle as o

rng = np.random.default_rng(20261205)
F = np.float32
K = 96
NS = (40, 17, 23)


def hexdense(a, elt):
    return 'dense<"0x%s"> : tensor<%sx%s>' % (
        a.tobytes().hex().upper(), "x".join(str(d) for d in a.shape), elt)


def model(m):
    """@main(x [m, K] f32, xq [m, K] i8, sx [m] f32) -> q, k, v, g, u."""
    lines, results, types = [], [], []
    ws, ss = [], []
    for i, n in enumerate(NS):
        w = rng.integers(-127, 128, (n, K)).astype(np.int8)  # [out, in]
        s = np.exp2(rng.integers(-4, 3, n)).astype(F)
        ws.append(w)
        ss.append(s)
        lines.append(
            "  %%w%(i)d = arith.constant %(w)s\n"
            "  %%s%(i)d = arith.constant %(s)s\n"
            "  %%e%(i)d = tensor.empty() : tensor<%(K)dx%(n)dxi8>\n"
            "  %%t%(i)d = linalg.transpose ins(%%w%(i)d : tensor<%(n)dx%(K)dxi8>)"
            " outs(%%e%(i)d : tensor<%(K)dx%(n)dxi8>) permutation = [1, 0]\n"
            "  %%y%(i)d = octet.matmul %%x, %%t%(i)d rhs_scale(%%s%(i)d : "
            "tensor<%(n)dxf32>) rhs_scheme <i8, per_axis(1)> : "
            "tensor<%(m)dx%(K)dxf32>, tensor<%(K)dx%(n)dxi8> -> "
            "tensor<%(m)dx%(n)dxf32>\n" % dict(
                i=i, n=n, K=K, m=m, w=hexdense(w, "i8"), s=hexdense(s, "f32")))
        results.append("%%y%d" % i)
        types.append("tensor<%dx%dxf32>" % (m, n))
    gu = []
    for i, n in enumerate(NS[:2]):
        w = rng.integers(-127, 128, (K, n)).astype(np.int8)
        s = np.exp2(rng.integers(-4, 3, n)).astype(F)
        gu.append((w, s))
        lines.append(
            "  %%v%(i)d = arith.constant %(w)s\n"
            "  %%r%(i)d = arith.constant %(s)s\n"
            "  %%z%(i)d = octet.matmul %%xq, %%v%(i)d lhs_scale(%%sx : "
            "tensor<%(m)dxf32>) lhs_scheme <i8, per_axis(0)> rhs_scale(%%r%(i)d"
            " : tensor<%(n)dxf32>) rhs_scheme <i8, per_axis(1)> : "
            "tensor<%(m)dx%(K)dxi8>, tensor<%(K)dx%(n)dxi8> -> "
            "tensor<%(m)dx%(n)dxf32>\n" % dict(
                i=i, n=n, K=K, m=m, w=hexdense(w, "i8"), s=hexdense(s, "f32")))
        results.append("%%z%d" % i)
        types.append("tensor<%dx%dxf32>" % (m, n))
    # Q's slice of the merged result (a strided view) as the lhs of one
    # more matmul: a selection matrix, so its columns are Q's exactly.
    perm = rng.permutation(NS[0])[:8]
    sel = np.zeros((NS[0], 8), np.int8)
    sel[perm, np.arange(8)] = 1
    lines.append(
        "  %%sel = arith.constant %(w)s\n"
        "  %%one = arith.constant dense<1.0> : tensor<8xf32>\n"
        "  %%p = octet.matmul %%y0, %%sel rhs_scale(%%one : tensor<8xf32>) "
        "rhs_scheme <i8, per_axis(1)> : tensor<%(m)dx%(n)dxf32>, "
        "tensor<%(n)dx8xi8> -> tensor<%(m)dx8xf32>\n" % dict(
            m=m, n=NS[0], w=hexdense(sel, "i8")))
    results.append("%p")
    types.append("tensor<%dx8xf32>" % m)
    text = ("func.func @main(%%x: tensor<%(m)dx%(K)dxf32>, %%xq: "
            "tensor<%(m)dx%(K)dxi8>, %%sx: tensor<%(m)dxf32>) -> (%(types)s) {\n"
            % dict(m=m, K=K, types=", ".join(types)))
    text += "".join(lines)
    text += "  return %s : %s\n}\n" % (", ".join(results), ", ".join(types))

    x = rng.integers(-8, 9, (m, K)).astype(F)
    xq = rng.integers(-127, 128, (m, K)).astype(np.int8)
    sx = np.exp2(rng.integers(-3, 3, m)).astype(F)
    # Exact: integer sums below 2^24, power-of-two scales.
    expected = [(x.astype(np.int64) @ w.T.astype(np.int64)).astype(F) * s
                for w, s in zip(ws, ss)]
    expected += [(xq.astype(np.int64) @ w.astype(np.int64)).astype(F) *
                 (sx[:, None] * s[None, :]) for w, s in gu]
    expected.append(expected[0][:, perm])
    return text, [x, xq, sx], expected


def count_matmuls(text, workdir, passes):
    path = os.path.join(workdir, "count.mlir")
    with open(path, "w") as fh:
        fh.write(text)
    out = subprocess.run([o.find_tool("octet-opt"), path] + passes,
                         capture_output=True, text=True, check=True).stdout
    return out.count("octet.matmul")


def main():
    ok = True
    with tempfile.TemporaryDirectory() as workdir:
        for m in (1, 29):
            text, inputs, expected = model(m)
            before = count_matmuls(text, workdir, [])
            after = count_matmuls(text, workdir,
                                  ["--octet-fuse-sibling-matmuls"])
            if (before, after) != (6, 3):
                print("NOT-MERGED m=%d: %d octet.matmul before the pass, %d "
                      "after (expected 6 and 3)" % (m, before, after))
                ok = False
            outs = o.run_octet(text, "main", inputs, len(expected),
                               workdir=workdir, tag="m%d" % m)
            for i, (got, want) in enumerate(zip(outs, expected)):
                bad = int(np.sum(o.bits(got) != o.bits(want)))
                if bad:
                    print("MISMATCH m=%d result %d: %d of %d values" % (
                        m, i, bad, want.size))
                    ok = False
    print("sibling matmuls: %s" % ("all results exact" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
