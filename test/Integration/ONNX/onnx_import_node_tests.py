"""ONNX's backend node tests for every operator octet-import-onnx maps, run
through the importer and octet-run.

usage: onnx_import_node_tests.py [--markdown FILE] [--ops A,B] [TEST...]

For each single-node test of the `onnx` wheel (onnx/backend/test/data/node)
whose operator the importer lists (octet_import_onnx.SUPPORTED), the model
is imported as a user would import it, with one preparation: inputs that
are not float32 (shapes, axes, integer codes) and, for the quantization
operators, the scale and zero-point inputs are turned into initializers
holding the test's data, since the importer takes float32 model inputs and
constant quantization parameters. The function is run by octet-run on the
test's float inputs and compared with the expected outputs:

  * float outputs: within ONNX's own backend-test tolerance
    (numpy.testing.assert_allclose with rtol=1e-3, atol=1e-7; the float
    operators are under DESIGN.md's Bounds contract);
  * quantized codes and integers: equal.

A test of a float operator whose every input becomes a constant is
reported `unsupported`: the importer then evaluates the node with
onnx.reference at import time, so running it would test ONNX against
itself (the quantization operators are never evaluated at import: their
octet ops run). A test the importer refuses is
`unsupported` with the importer's message; an imported test whose outputs
differ, or that octet-opt / octet-run cannot compile, is a failure. The
last line counts them.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "import-model"))
import octet_import_onnx as imp  # noqa: E402

NODE_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test",
                        "data", "node")


class Unsupported(Exception):
    pass


def tool(name):
    d = os.environ.get("OCTET_TOOLS_DIR", os.path.join(ROOT, "build", "bin"))
    return os.path.join(d, name)


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as fh:
        t.ParseFromString(fh.read())
    return numpy_helper.to_array(t), t


def node_tests(ops):
    names = []
    for d in sorted(os.listdir(NODE_DIR)):
        if "_expanded" in d:
            continue  # the same test as a graph of other operators
        m = onnx.load(os.path.join(NODE_DIR, d, "model.onnx"))
        if len(m.graph.node) == 1 and m.graph.node[0].op_type in ops:
            names.append(d)
    return names


def prepare(model, inputs, protos):
    """Freezes the inputs the importer takes as constants; returns the
    model and the float inputs left (in order)."""
    node = model.graph.node[0]
    quant = node.op_type in imp.QUANT_OPS
    keep, feeds = [], []
    frozen = []
    for i, (vi, arr, proto) in enumerate(zip(list(model.graph.input), inputs,
                                             protos)):
        et = vi.type.tensor_type.elem_type
        is_float = et == onnx.TensorProto.FLOAT
        # int64 / int32 indices are model inputs where they are indices
        is_index = node.op_type == "Gather" and i == 1 and et in (
            onnx.TensorProto.INT64, onnx.TensorProto.INT32)
        if (is_float or is_index) and not (quant and i >= 1):
            keep.append(vi)
            feeds.append(arr)
        else:
            t = onnx.TensorProto()
            t.CopyFrom(proto)
            t.name = vi.name
            frozen.append(t)
    if not keep and not quant:
        raise Unsupported("every input is a constant (the importer would "
                          "evaluate the node with onnx.reference)")
    del model.graph.input[:]
    model.graph.input.extend(keep)
    model.graph.initializer.extend(frozen)
    return model, feeds


def octet_outputs(importer, model, got):
    """octet-run's arrays -> ONNX-typed values (codes to their ONNX
    values)."""
    out = []
    for o, g in zip(model.graph.output, got):
        v = importer.vals[o.name]
        if v.kind == "codes":
            if v.fmt in ("u8", "u4"):
                g = np.asarray(g).astype(np.int64) & (0xFF if v.fmt == "u8"
                                                      else 0xF)
            elif v.fmt == "i4":
                g = ((np.asarray(g).astype(np.int64) & 0xF) ^ 8) - 8
            elif v.fmt.startswith("f8"):
                g = np.asarray(g).view(np.uint8)
        out.append(g)
    return out


def compare(got, want, kind):
    want = np.asarray(want)
    if kind == "codes":
        if "float8" in str(want.dtype):  # (ml_dtypes' int4 is kind "V")
            w = want.view(np.uint8).astype(np.int64)
        else:
            w = want.astype(np.int64)
        g = np.asarray(got).astype(np.int64).reshape(w.shape)
        bad = int((g != w).sum())
        return bad == 0, "%d codes differ" % bad
    if want.dtype.kind in "iub":
        g = np.asarray(got)
        ok = g.shape == want.shape and np.array_equal(g.astype(np.float64),
                                                      want.astype(np.float64))
        return ok, "integers differ"
    g = np.asarray(got, np.float64)
    w = want.astype(np.float64)
    if g.shape != w.shape:
        return False, "shape %s, expected %s" % (g.shape, w.shape)
    try:
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-7)
        return True, ""
    except AssertionError:
        err = np.abs(g - w)
        return False, "max |diff| %.3g (at expected %.6g)" % (
            float(np.nanmax(err)), float(w.reshape(-1)[np.nanargmax(err)]))


def run_test(name, work):
    d = os.path.join(NODE_DIR, name)
    model = onnx.load(os.path.join(d, "model.onnx"))
    op = model.graph.node[0].op_type
    results = []
    for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
        pin = sorted(glob.glob(os.path.join(ds, "input_*.pb")))
        pout = sorted(glob.glob(os.path.join(ds, "output_*.pb")))
        try:
            ins = [load_pb(p) for p in pin]
            outs = [load_pb(p)[0] for p in pout]
        except Exception as e:  # noqa: BLE001  (sequences, optionals)
            raise Unsupported("test data that is not a plain tensor (%s)"
                              % type(e).__name__)
        m = onnx.ModelProto()
        m.CopyFrom(model)
        m, feeds = prepare(m, [a for a, _ in ins], [t for _, t in ins])
        try:
            m = imp.load_model(name, {}, m.SerializeToString())
            importer = imp.Importer(m, name)
            text = importer.run()
        except imp.OnnxImportError as e:
            raise Unsupported(str(e))
        mlir = os.path.join(work, name + ".mlir")
        with open(mlir, "w") as fh:
            fh.write(text)
        cmd = [tool("octet-run"), mlir, "--entry", "main"]
        for i, a in enumerate(feeds):
            p = os.path.join(work, "%s.in%d.npy" % (name, i))
            a = np.asarray(a)
            np.save(p, a if a.dtype.kind in "iu" else a.astype(np.float32))
            cmd += ["--input", p]
        paths = [os.path.join(work, "%s.out%d.npy" % (name, i))
                 for i in range(len(outs))]
        for p in paths:
            cmd += ["--output", p]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            lines = [ln for ln in r.stderr.splitlines() if "error" in ln]
            return False, "octet-run: %s" % (lines[0].strip() if lines else
                                             "exit %d" % r.returncode), op
        got = octet_outputs(importer, m, [np.load(p) for p in paths])
        for o, g, w in zip(m.graph.output, got, outs):
            results.append(compare(g, w, importer.vals[o.name].kind))
    ok = all(r[0] for r in results)
    return ok, "; ".join(r[1] for r in results if not r[0]), op


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tests", nargs="*")
    ap.add_argument("--ops", help="only these operators (comma-separated)")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    ops = set(args.ops.split(",")) if args.ops else set(imp.SUPPORTED)
    names = args.tests or node_tests(ops)
    work = tempfile.mkdtemp(prefix="onnx-import-node-")
    counts = {"pass": 0, "unsupported": 0, "fail": 0}
    rows = []
    for name in names:
        try:
            ok, why, op = run_test(name, work)
            status = "pass" if ok else "fail"
        except Unsupported as e:
            op = onnx.load(os.path.join(NODE_DIR, name,
                                        "model.onnx")).graph.node[0].op_type
            status, why = "unsupported", str(e)
        counts[status] += 1
        rows.append((name, op, status, why.replace("|", "\\|")))
        print("%-52s %-20s %-11s %s" % (name, op, status.upper(), why),
              flush=True)
    print("onnx import node tests (onnx %s): %d pass, %d unsupported, %d "
          "fail" % (onnx.__version__, counts["pass"], counts["unsupported"],
                    counts["fail"]))
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write("| test | operator | result | why |\n"
                     "| --- | --- | --- | --- |\n")
            for r in rows:
                fh.write("| `%s` | %s | %s | %s |\n" % r)
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
