"""Runs octet code built by the stock mlir-opt with the octet plugin.

For each case, writes a module whose @main quantizes a constant input with
octet.quantize and dequantizes the codes with octet.dequantize (in separate
functions, so nothing is constant-folded), prints every code and every
dequantized f32 bit pattern with vector.print, lowers it with

  mlir-opt --load-dialect-plugin=PLUGIN --load-pass-plugin=PLUGIN
           --pass-pipeline='builtin.module(octet-lower-to-host, ...)'

and JIT-runs it with the stock mlir-runner. The printed values must equal the
numpy/ml_dtypes oracle (test/lib/octet_oracle.py), bit for bit.

Usage: plugin_jit.py MLIR_OPT PLUGIN
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import octet_oracle as oo

F32 = np.float32

# (name, scheme, shape, zero point?)
CASES = [
    ("i8_tensor", oo.Scheme("i8"), (16,), False),
    ("i8_narrow_axis", oo.Scheme("i8", "per_axis", 0, qmin=-127, qmax=127),
     (2, 8), False),
    ("u8_axis_asym", oo.Scheme("u8", "per_axis", 1, symmetric=False),
     (4, 4), True),
    ("i4_group", oo.Scheme("i4", "per_group", 1, 4), (2, 8), False),
    ("u4_group_asym", oo.Scheme("u4", "per_group", 0, 2, symmetric=False),
     (4, 4), True),
    ("e4m3_axis", oo.Scheme("f8E4M3FN", "per_axis", 1), (2, 8), False),
    ("e5m2_nonsat", oo.Scheme("f8E5M2", saturate=False), (16,), False),
]

# Ties, out-of-range values, NaN, +-inf, -0 and ordinary values.
SPECIALS = [0.5, 1.5, 2.5, -2.5, 0.26, -1.74, 400.0, -1000.0, float("nan"),
            float("inf"), float("-inf"), -0.0, 1e30, 464.0, 465.0, 61440.0]


def case_values(scheme, shape, rng):
    n = int(np.prod(shape))
    x = rng.standard_normal(n).astype(F32) * F32(3)
    x[: min(n, len(SPECIALS))] = np.array(SPECIALS[:n], F32)
    return x.reshape(shape)


def params(scheme, shape, want_zp, rng):
    pshape = scheme.param_shape(shape)
    scale = rng.uniform(0.05, 0.6, pshape).astype(F32)
    if scheme.format.is_fp8:
        scale = np.full(pshape, F32(1.0) if scheme.fmt == "f8E5M2" else
                        F32(0.5), F32)
    zp = None
    if want_zp:
        zp = rng.integers(scheme.qmin, scheme.qmax + 1, pshape).astype(np.int32)
        zp.flat[0] = scheme.qmax
    return scale, zp


def dense(a, elt):
    a = np.asarray(a)
    return "%s : %s" % (oo.dense_const(a, elt), oo.tensor_type(a.shape, elt))


def emit_case(name, scheme, shape, x, scale, zp, out):
    f = scheme.format
    ttf = oo.tensor_type(shape, "f32")
    tts = oo.tensor_type(shape, f.storage)
    pshape = scheme.param_shape(shape)
    tps = oo.tensor_type(pshape, "f32")
    tpz = oo.tensor_type(pshape, "i32")
    params_text = "scale(%%s : %s)" % tps
    consts = "  %%s = arith.constant %s\n" % dense(scale, "f32")
    if zp is not None:
        params_text += " zero_point(%%z : %s)" % tpz
        consts += "  %%z = arith.constant %s\n" % dense(zp, "i32")
    out.append("func.func @q_%s(%%x: %s) -> %s {\n%s"
               "  %%q = octet.quantize %%x %s as %s : %s -> %s\n"
               "  return %%q : %s\n}\n"
               % (name, ttf, tts, consts, params_text, scheme.attr(), ttf,
                  tts, tts))
    out.append("func.func @d_%s(%%q: %s) -> %s {\n%s"
               "  %%d = octet.dequantize %%q %s as %s : %s -> %s\n"
               "  return %%d : %s\n}\n"
               % (name, tts, ttf, consts, params_text, scheme.attr(), tts,
                  ttf, ttf))


def emit_prints(name, scheme, shape, x):
    f = scheme.format
    ttf = oo.tensor_type(shape, "f32")
    tts = oo.tensor_type(shape, f.storage)
    lines = ["  %%x_%s = arith.constant %s" % (name, dense(x, "f32")),
             "  %%q_%s = call @q_%s(%%x_%s) : (%s) -> %s"
             % (name, name, name, ttf, tts),
             "  %%d_%s = call @d_%s(%%q_%s) : (%s) -> %s"
             % (name, name, name, tts, ttf)]
    for k, idx in enumerate(np.ndindex(*shape)):
        ids = ", ".join("%%c%d" % i for i in idx)
        v = "%s_%d" % (name, k)
        lines.append("  %%e_%s = tensor.extract %%q_%s[%s] : %s"
                     % (v, name, ids, tts))
        if f.is_fp8:
            lines.append("  %%b_%s = arith.bitcast %%e_%s : %s to i8"
                         % (v, v, f.storage))
            lines.append("  %%w_%s = arith.extui %%b_%s : i8 to i32" % (v, v))
        else:
            ext = "arith.extui" if scheme.fmt.startswith("u") else "arith.extsi"
            lines.append("  %%w_%s = %s %%e_%s : %s to i32"
                         % (v, ext, v, f.storage))
        lines.append("  vector.print %%w_%s : i32" % v)
    for k, idx in enumerate(np.ndindex(*shape)):
        ids = ", ".join("%%c%d" % i for i in idx)
        v = "%s_%d" % (name, k)
        lines.append("  %%f_%s = tensor.extract %%d_%s[%s] : %s"
                     % (v, name, ids, ttf))
        lines.append("  %%g_%s = arith.bitcast %%f_%s : f32 to i32" % (v, v))
        lines.append("  vector.print %%g_%s : i32" % v)
    return lines


def main():
    mlir_opt, plugin = sys.argv[1], sys.argv[2]
    runner = shutil.which("mlir-runner")
    utils = os.path.join(os.path.dirname(os.path.realpath(runner)), "..", "lib",
                         "libmlir_c_runner_utils.so")
    rng = np.random.default_rng(2024)
    funcs, body, expected = [], [], []
    for name, scheme, shape, want_zp in CASES:
        x = case_values(scheme, shape, rng)
        scale, zp = params(scheme, shape, want_zp, rng)
        emit_case(name, scheme, shape, x, scale, zp, funcs)
        body += emit_prints(name, scheme, shape, x)
        codes = oo.quantize(x, scheme, scale, zp)
        deq = oo.dequantize(codes, scheme, scale, zp, "f32")
        expected.append((name, [int(c) for c in codes.ravel()],
                         [float(v) for v in deq.ravel()]))
    maxdim = max(max(c[2]) for c in CASES)
    idx = "\n".join("  %%c%d = arith.constant %d : index" % (i, i)
                    for i in range(maxdim))
    module = "".join(funcs) + "func.func @main() {\n" + idx + "\n" + \
        "\n".join(body) + "\n  return\n}\n"

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "jit.mlir")
        with open(src, "w") as fh:
            fh.write(module)
        lowered = subprocess.run(
            [mlir_opt, src, "--load-dialect-plugin=" + plugin,
             "--load-pass-plugin=" + plugin,
             "--pass-pipeline=builtin.module(octet-lower-to-host,"
             "convert-vector-to-llvm,convert-arith-to-llvm,"
             "reconcile-unrealized-casts)"],
            check=True, capture_output=True, text=True).stdout
        out = subprocess.run(
            [runner, "-e", "main", "-entry-point-result=void",
             "-shared-libs=" + utils],
            input=lowered, check=True, capture_output=True, text=True).stdout
    got = [int(tok) for tok in out.split()]

    mismatches, values, pos = 0, 0, 0
    for name, codes, deq in expected:
        got_codes = got[pos:pos + len(codes)]
        pos += len(codes)
        got_bits = got[pos:pos + len(deq)]
        pos += len(deq)
        for i, (c, g) in enumerate(zip(codes, got_codes)):
            values += 1
            if c != g:
                mismatches += 1
                print("MISMATCH %s code[%d]: oracle %d, plugin %d"
                      % (name, i, c, g))
        for i, (d, g) in enumerate(zip(deq, got_bits)):
            values += 1
            gf = np.array([g], np.int32).view(F32)[0]
            same = (np.isnan(d) and np.isnan(gf)) or \
                np.array([d], F32).view(np.int32)[0] == g
            if not same:
                mismatches += 1
                print("MISMATCH %s dequantized[%d]: oracle %r, plugin %r"
                      % (name, i, d, float(gf)))
    if pos != len(got):
        print("MISMATCH: %d values printed, %d expected" % (len(got), pos))
        mismatches += 1
    print("plugin JIT: %d cases, %d values, %d mismatches"
          % (len(CASES), values, mismatches))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
