"""ONNX models through octet-import-onnx, against ONNX Runtime and against an
exact oracle.

usage: onnx_e2e.py [--workdir DIR] [--threads N] [reference|exact|models]...

Every model is built with onnx.helper (onnx_models.py), quantized by ONNX
Runtime's own quantizer (`quantize_static`: QDQ, uint8 activations, int8
weights per tensor or per channel; `quantize_dynamic`: DynamicQuantizeLinear
+ MatMulInteger / ConvInteger), imported by octet-import-onnx, folded by
`octet-opt --octet-fold-scales --canonicalize --cse` (the integer
contractions the CPU runs) and run by octet-run. Inputs are seeded and
distinct from the calibration inputs.

reference: a model with every quantization operator the importer maps
  (onnx_models.quant_ops), against ONNX's reference implementation; needs
  onnx only.
exact: one quantized layer (MatMul, Gemm with bias), where the two contracts
  agree, against a numpy oracle written from ONNX's operator definitions:
  * static (QDQ): the output codes equal round-half-even(v) + zero point
    (saturated) with v = sum((xq - zx) * wq) * sx * sw / sy (+ the int32
    bias of Gemm) in exact arithmetic; a one-step difference is allowed only
    where v lies within 1e-3 of a tie (DESIGN.md's rule; counted). ONNX
    Runtime's codes are checked by the same oracle, and the codes where
    octet and ONNX Runtime differ are counted.
  * dynamic: float32(acc) * (sx * sw) + bias, bit for bit (ONNX's
    Cast / Mul / Add order), for octet; ONNX Runtime fuses the chain into
    its own kernel, whose agreement is reported, not required.
models: the MLP, attention block and conv net (float, static per tensor and
  per channel, dynamic per tensor and per channel): the float models within
  1e-5 of ONNX Runtime's (relative to the output's largest value; float
  accumulation order is free under DESIGN.md's Bounds contract); the
  quantized models' SQNR against the float model within 1 dB of ONNX
  Runtime's own SQNR for the same quantized file; the values where octet
  and ONNX Runtime differ are counted, against ONNX Runtime as configured
  by default (it fuses QDQ groups into its own quantized kernels) and
  running the graph as written (basic optimizations only).
Exit status 1 if any check fails.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onnx_models as M  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
IMPORTER = os.path.join(ROOT, "tools", "import-model", "octet_import_onnx.py")
F32 = np.float32
FAILED = []


def tool(name):
    d = os.environ.get("OCTET_TOOLS_DIR", os.path.join(ROOT, "build", "bin"))
    return os.path.join(d, name)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (
            " ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def octet_compile(onnx_path, work, tag):
    mlir = os.path.join(work, tag + ".mlir")
    run([sys.executable, IMPORTER, onnx_path, "-o", mlir])
    folded = os.path.join(work, tag + ".folded.mlir")
    run([tool("octet-opt"), mlir, "--octet-fold-scales", "--canonicalize",
         "--cse", "-o", folded])
    return folded


def octet_run(mlir, xs, work, tag):
    """Runs @main on every input (one octet-run call per input)."""
    outs = []
    for i, x in enumerate(xs):
        xp = os.path.join(work, "%s.x%d.npy" % (tag, i))
        yp = os.path.join(work, "%s.y%d.npy" % (tag, i))
        np.save(xp, x)
        run([tool("octet-run"), mlir, "--entry", "main", "--input", xp,
             "--output", yp])
        outs.append(np.load(yp))
    return outs


def ort_run(path, xs, threads=1, as_written=False):
    """ONNX Runtime's outputs; as_written: with only its basic graph
    optimizations (constant folding, no QDQ fusion), i.e. the QDQ graph
    executed operator by operator."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    if as_written:
        so.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return [s.run(None, {"x": x})[0] for x in xs]


def check(ok, msg):
    print("%s %s" % ("PASS" if ok else "FAIL", msg))
    if not ok:
        FAILED.append(msg)


def sqnr(ref, y):
    ref = np.concatenate([r.reshape(-1) for r in ref]).astype(np.float64)
    y = np.concatenate([v.reshape(-1) for v in y]).astype(np.float64)
    return 10 * np.log10((ref * ref).sum() / max(((ref - y) ** 2).sum(),
                                                  1e-300))


def differing(a, b):
    """'identical' or 'N of M values differ' (bit patterns)."""
    n = sum(int((x.view(np.uint32) != y.view(np.uint32)).sum())
            for x, y in zip(a, b))
    total = sum(x.size for x in a)
    if n == 0:
        return "identical"
    rel = max(float(np.abs(x - y).max() / max(np.abs(y).max(), 1e-30))
              for x, y in zip(a, b))
    return "%d of %d values differ (by up to %.1e of max |y|)" % (n, total,
                                                                 rel)


# ---------------------------------------------------------------------------
# exact: one layer against ONNX's definitions
# ---------------------------------------------------------------------------


def linear_model(kind, seed=5, m=8, k=64, n=32):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((n, k) if kind == "gemm" else (k, n)) /
         np.sqrt(k)).astype(F32)
    inits = [numpy_helper.from_array(w, "w")]
    if kind == "gemm":
        inits.append(numpy_helper.from_array(
            (0.1 * rng.standard_normal(n)).astype(F32), "b"))
        node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc",
                                transB=1)
    else:
        node = helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")
    g = helper.make_graph([node], kind, [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [m, k])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [m, n])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def rne(v):
    return np.round(v)  # numpy rounds half to even


def static_oracle(qpath, xs):
    """(codes, pre-rounding v, out scale, out zero point) per input, from
    the QDQ file's own parameters by ONNX's definitions."""
    q = onnx.load(qpath)
    t = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
    # x -> QuantizeLinear(sx, zx); weight DequantizeLinear(wq, sw[, axis]).
    qx = [n for n in q.graph.node if n.op_type == "QuantizeLinear" and
          n.input[0] == "x"][0]
    sx, zx = F32(t[qx.input[1]]), np.int64(t[qx.input[2]])
    wdq = [n for n in q.graph.node if n.op_type == "DequantizeLinear" and
           n.input[0].startswith("w")][0]
    wq = t[wdq.input[0]].astype(np.int64)
    sw = t[wdq.input[1]].astype(F32)
    bias_q = None
    bdq = [n for n in q.graph.node if n.op_type == "DequantizeLinear" and
           n.input[0].startswith("b")]
    if bdq:
        bias_q = t[bdq[0].input[0]].astype(np.int64)
        assert t[bdq[0].input[0]].dtype == np.int32
    transposed = any(n.op_type == "Gemm" for n in q.graph.node)
    if transposed:
        wq = wq.T  # [N, K] -> [K, N]; sw per N either way
    qy = [n for n in q.graph.node if n.op_type == "QuantizeLinear" and
          n.input[0] != "x"][0]
    sy, zy = F32(t[qy.input[1]]), np.int64(t[qy.input[2]])
    res = []
    for x in xs:
        xq = np.clip(rne(x.astype(F32) / sx) + zx, 0, 255).astype(np.int64)
        acc = (xq - zx) @ wq
        if bias_q is not None:
            acc = acc + bias_q
        # exact in float64: |acc| < 2^31, the scales' product of two f32
        v = acc.astype(np.float64) * (np.float64(sx) * sw.astype(
            np.float64)) / np.float64(sy)
        codes = np.clip(rne(v) + zy, 0, 255).astype(np.int64)
        res.append((codes, v, sy, zy))
    return res


def codes_from_float(y, sy, zy):
    return rne(np.asarray(y, np.float64) / np.float64(sy)).astype(
        np.int64) + zy


def compare_codes(got, want, v, zy):
    diff = got != want
    frac = np.abs(v - np.floor(v) - 0.5)
    near = frac < 1e-3
    inside = (v + zy > -0.5) & (v + zy < 255.5)
    allowed = diff & near & inside & (np.abs(got - want) == 1)
    return int((diff & ~allowed).sum()), int(allowed.sum())


def exact(work, threads):
    rng = np.random.default_rng(42)
    for kind in ("matmul", "gemm"):
        model = linear_model(kind)
        xs = [rng.standard_normal((8, 64)).astype(F32) for _ in range(4)]
        for pc in (False, True):
            tag = "%s_static%s" % (kind, "_pc" if pc else "")
            fpath = os.path.join(work, kind + ".onnx")
            qpath = os.path.join(work, tag + ".onnx")
            M.quantize(model, fpath, qpath, "static", pc)
            oracle = static_oracle(qpath, xs)
            got = octet_run(octet_compile(qpath, work, tag), xs, work, tag)
            ort = ort_run(qpath, xs, threads)
            bad = flips = ort_bad = ort_flips = differ = 0
            for (want, v, sy, zy), g, r in zip(oracle, got, ort):
                gc = codes_from_float(g, sy, zy)
                rc = codes_from_float(r, sy, zy)
                b, f = compare_codes(gc, want, v, zy)
                bad, flips = bad + b, flips + f
                b, f = compare_codes(rc, want, v, zy)
                ort_bad, ort_flips = ort_bad + b, ort_flips + f
                differ += int((gc != rc).sum())
            n = sum(o[0].size for o in oracle)
            check(bad == 0, "exact %-16s octet codes = ONNX's definition "
                  "(%d codes, %d near-tie flips, %d wrong)" % (tag, n, flips,
                                                              bad))
            check(ort_bad == 0, "exact %-16s onnxruntime codes = ONNX's "
                  "definition (%d near-tie flips, %d wrong); octet vs "
                  "onnxruntime: %d of %d codes differ" % (
                      tag, ort_flips, ort_bad, differ, n))
        for pc in (False, True):
            tag = "%s_dynamic%s" % (kind, "_pc" if pc else "")
            fpath = os.path.join(work, kind + ".onnx")
            qpath = os.path.join(work, tag + ".onnx")
            M.quantize(model, fpath, qpath, "dynamic", pc)
            got = octet_run(octet_compile(qpath, work, tag), xs, work, tag)
            ort = ort_run(qpath, xs, threads)
            want = dynamic_oracle(qpath, xs)
            nbad = sum(int((o.view(np.uint32) != w.view(np.uint32)).sum())
                       for o, w in zip(got, want))
            ndiff = sum(int((o.view(np.uint32) != r.view(np.uint32)).sum())
                        for o, r in zip(got, ort))
            n = sum(w.size for w in want)
            check(nbad == 0, "exact %-16s octet = float32(acc) * (sx * sw) "
                  "+ b bit for bit (%d values, %d differ); onnxruntime: %d "
                  "differ" % (tag, n, nbad, ndiff))


def dynamic_oracle(qpath, xs):
    q = onnx.load(qpath)
    t = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
    mmi = [n for n in q.graph.node if n.op_type == "MatMulInteger"][0]
    wq = t[mmi.input[1]].astype(np.int64)
    wz = t[mmi.input[3]].astype(np.int64) if len(mmi.input) > 3 else 0
    mul = [n for n in q.graph.node if n.op_type == "Mul" and
           "x_scale" in n.input][0]
    sw = t[[i for i in mul.input if i != "x_scale"][0]].astype(F32)
    add = [n for n in q.graph.node if n.op_type == "Add"]
    bias = t[[i for i in add[0].input if i in t][0]] if add else None
    out = []
    for x in xs:
        # ONNX DynamicQuantizeLinear: the range includes 0, scale =
        # (max - min) / 255, zero point = saturate(round(0 - min / scale)).
        x = x.astype(F32)
        lo, hi = min(F32(0), x.min()), max(F32(0), x.max())
        sx = F32((hi - lo) / F32(255))
        zx = np.int64(np.clip(rne(F32(0) - lo / sx), 0, 255))
        xq = np.clip(rne(x / sx) + zx, 0, 255).astype(np.int64)
        acc = (xq - zx) @ (wq - wz)
        y = acc.astype(F32) * (sx * sw)
        if bias is not None:
            y = y + bias.astype(F32)
        out.append(y.astype(F32))
    return out


# ---------------------------------------------------------------------------
# models: octet vs ONNX Runtime
# ---------------------------------------------------------------------------


def models(work, threads):
    print("note: onnxruntime.quantization with reduce_range=%s (True on x86 "
          "without VNNI, where ONNX Runtime's int8 kernels saturate "
          "full-range weights)" % M.ort_needs_reduce_range())
    for name, build in M.MODELS.items():
        model = build()
        fpath = os.path.join(work, name + ".onnx")
        onnx.save(model, fpath)
        xs = [M.sample(model, 7 + i) for i in range(3)]
        ref = ort_run(fpath, xs, threads)
        got = octet_run(octet_compile(fpath, work, name), xs, work, name)
        err = max(float(np.abs(g - r).max() / np.abs(r).max())
                  for g, r in zip(got, ref))
        check(err <= 1e-5, "model %-22s float: max |octet - onnxruntime| = "
              "%.1e of max |y|" % (name, err))
        for kind in ("static", "dynamic"):
            for pc in (False, True):
                tag = "%s_%s%s" % (name, kind, "_pc" if pc else "")
                qpath = os.path.join(work, tag + ".onnx")
                M.quantize(model, fpath, qpath, kind, pc)
                got = octet_run(octet_compile(qpath, work, tag), xs, work,
                                tag)
                ort = ort_run(qpath, xs, threads)
                basic = ort_run(qpath, xs, threads, as_written=True)
                so, sr = sqnr(ref, got), sqnr(ref, ort)
                check(abs(so - sr) <= 1.0, "model %-22s SQNR vs float: "
                      "octet %.2f dB, onnxruntime %.2f dB; octet vs "
                      "onnxruntime: %s; vs onnxruntime running the graph as "
                      "written: %s" % (tag, so, sr, differing(got, ort),
                                       differing(got, basic)))


def reference(work):
    """quant_ops (every quantization operator, no onnxruntime needed)
    against ONNX's reference implementation (onnx.reference): the
    ConvInteger result bit for bit, the float output within 1e-5 of its
    largest value (float sums in another order), unfolded and folded."""
    from onnx.reference import ReferenceEvaluator
    model = M.quant_ops()
    path = os.path.join(work, "quant_ops.onnx")
    onnx.save(model, path)
    rng = np.random.default_rng(11)
    ins = [rng.standard_normal((4, 32)).astype(F32),
           rng.standard_normal((1, 3, 6, 6)).astype(F32)]
    want = ReferenceEvaluator(model).run(None, {"x": ins[0], "img": ins[1]})
    mlir = os.path.join(work, "quant_ops.mlir")
    run([sys.executable, IMPORTER, path, "-o", mlir])
    folded = os.path.join(work, "quant_ops.folded.mlir")
    run([tool("octet-opt"), mlir, "--octet-fold-scales", "--canonicalize",
         "--cse", "-o", folded])
    for tag, f in (("imported", mlir), ("folded", folded)):
        cmd = [tool("octet-run"), f, "--entry", "main"]
        for i, a in enumerate(ins):
            p = os.path.join(work, "qo.in%d.npy" % i)
            np.save(p, a)
            cmd += ["--input", p]
        outs = [os.path.join(work, "qo.out%d.npy" % i) for i in range(2)]
        for p in outs:
            cmd += ["--output", p]
        run(cmd)
        y, z = [np.load(p) for p in outs]
        err = float(np.abs(y - want[0]).max() / np.abs(want[0]).max())
        check(err <= 1e-5, "reference quant_ops %-8s y (QDQ MatMuls, int4 "
              "blocks, int32 bias, MatMulInteger, QLinearMatMul): max "
              "|octet - onnx.reference| = %.1e of max |y|" % (tag, err))
        check(np.array_equal(z, want[1]), "reference quant_ops %-8s z "
              "(DynamicQuantizeLinear + ConvInteger): %s" % (
                  tag, differing([z], [want[1].astype(F32)])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("parts", nargs="*",
                    default=["reference", "exact", "models"])
    ap.add_argument("--workdir")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import logging
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice
    work = args.workdir or tempfile.mkdtemp(prefix="octet-onnx-e2e-")
    os.makedirs(work, exist_ok=True)
    if "reference" in args.parts:
        reference(work)
    if "exact" in args.parts or "models" in args.parts:
        import onnxruntime
        print("onnxruntime %s, onnx %s" % (onnxruntime.__version__,
                                           onnx.__version__))
    if "exact" in args.parts:
        exact(work, args.threads)
    if "models" in args.parts:
        models(work, args.threads)
    print("onnx e2e: %d failed" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
