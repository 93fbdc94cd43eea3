#!/usr/bin/env python3
"""onnx_import_fuzz: mutate small ONNX models and check that octet-import-onnx
copes.

    .venv/bin/python fuzz/onnx_import_fuzz.py --runs 2000 --seed 1 \
        [--time-limit 60] [--no-verify] [--only I]

Starts from three valid models (test/Integration/ONNX/onnx_models.py: the
MLP, the conv net and `quant_ops`, which holds every quantization operator
the importer maps) and runs deterministic mutations of them through
tools/import-model/octet_import_onnx.py in process. Run i of `--seed S` uses
the seed `S * 1000003 + i`; `--seed S --only i` replays it. The mutations:

  * bytes: truncation, byte flips, inserted or deleted bytes, the whole
    message duplicated (protobuf then merges fields);
  * structure: a node's operator renamed (to a supported one, an unknown
    one, or one from another domain), inputs or outputs dropped, swapped or
    renamed to undefined tensors, nodes removed, reordered or duplicated;
    attributes set to interesting values (0, -1, 1, 2**31, huge lists,
    wrong types); initializers with changed dims, element types or
    truncated data, or removed; input shapes with zero, symbolic or huge
    dimensions and other element types; scales set to 0, -1, NaN, inf;
    zero points out of range; the opset version changed.

Every outcome must be MLIR text or an OnnxImportError (the importer's
diagnostic); any other exception is a finding. With verification (the
default where build/bin/octet-opt exists) every accepted model's MLIR must
also parse and verify in octet-opt: an importer that writes invalid IR for a
model it accepted is a finding too. The run's seed and traceback are
printed, the exit status is 1. The last line is the summary

    onnx_import_fuzz: N runs, K rejected with OnnxImportError, F findings
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "import-model"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "ONNX"))
import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

import octet_import_onnx as imp  # noqa: E402
import onnx_models  # noqa: E402

INTERESTING = (0, 1, -1, 2, 3, 7, 8, 16, 255, 256, 2**31 - 1, -2**31,
               2**40, -2**63)
OPS = ("Add", "MatMul", "Gemm", "Relu", "Conv", "Softmax", "Reshape",
       "Transpose", "QuantizeLinear", "DequantizeLinear", "MatMulInteger",
       "QLinearMatMul", "ConvInteger", "DynamicQuantizeLinear", "Cast",
       "Flatten", "LayerNormalization", "MaxPool", "Concat", "Slice",
       "NoSuchOp", "If", "Loop", "Scan", "Gather", "Resize")
ELEM_TYPES = (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8,
              TensorProto.INT32, TensorProto.INT64, TensorProto.FLOAT16,
              TensorProto.DOUBLE, TensorProto.INT4, TensorProto.UINT4,
              TensorProto.FLOAT8E4M3FN, TensorProto.BOOL, TensorProto.STRING,
              TensorProto.INT16, 0, 99)


def base_models():
    return [onnx_models.mlp(batch=2), onnx_models.convnet(batch=1),
            onnx_models.quant_ops()]


def mutate_bytes(data, rng):
    b = bytearray(data)
    k = rng.randrange(5)
    if k == 0:
        return bytes(b[:rng.randrange(len(b))])
    if k == 1:
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if k == 2:
        i = rng.randrange(len(b))
        return bytes(b[:i] + bytes(rng.randrange(256)
                                   for _ in range(rng.randint(1, 16))) +
                     b[i:])
    if k == 3:
        i = rng.randrange(len(b))
        return bytes(b[:i] + b[i + rng.randint(1, 64):])
    return bytes(b + b)


def mutate_attr(a, rng):
    t = a.type
    A = onnx.AttributeProto
    k = rng.randrange(4)
    if k == 0 and t == A.INT:
        a.i = rng.choice(INTERESTING)
    elif k == 0 and t == A.INTS and len(a.ints):
        a.ints[rng.randrange(len(a.ints))] = rng.choice(INTERESTING)
    elif k == 1 and t == A.INTS:
        del a.ints[:]
        a.ints.extend(rng.choice(INTERESTING) for _ in range(rng.randint(0, 9)))
    elif k == 2 and t == A.FLOAT:
        a.f = rng.choice([0.0, -1.0, float("nan"), float("inf"), 1e30])
    else:
        # a different type under the same name
        a.type = rng.choice([A.INT, A.INTS, A.FLOAT, A.STRING, A.TENSOR])
        a.i = rng.choice(INTERESTING)


def mutate_tensor(t, rng):
    k = rng.randrange(6)
    if k == 0 and len(t.dims):
        t.dims[rng.randrange(len(t.dims))] = rng.choice(INTERESTING[:10])
    elif k == 1:
        t.data_type = rng.choice(ELEM_TYPES)
    elif k == 2 and t.raw_data:
        t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data))]
    elif k == 3:
        # a scale or zero point of a quantizer to an interesting value
        arr = onnx.numpy_helper.to_array(t)
        if arr.dtype.kind == "f" and arr.size:
            flat = arr.reshape(-1).copy()
            flat[rng.randrange(flat.size)] = rng.choice(
                [0.0, -1.0, np.nan, np.inf, 1e-45, 3e38])
            t.CopyFrom(onnx.numpy_helper.from_array(flat.reshape(arr.shape)
                                                    .astype(arr.dtype),
                                                    t.name))
        elif arr.dtype.kind in "iu" and arr.size:
            flat = arr.reshape(-1).astype(np.int64)
            flat[rng.randrange(flat.size)] = rng.choice(INTERESTING[:9])
            info = np.iinfo(arr.dtype)
            t.CopyFrom(onnx.numpy_helper.from_array(
                np.clip(flat, info.min, info.max).astype(arr.dtype)
                .reshape(arr.shape), t.name))
    elif k == 4:
        del t.dims[:]
        t.dims.extend(rng.choice(INTERESTING[:9])
                      for _ in range(rng.randint(0, 5)))
    else:
        t.name = rng.choice(["", "x", "y", "w1", "undefined_tensor"])


def mutate_structure(m, rng):
    g = m.graph
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(12)
        nodes = list(g.node)
        if k == 0 and nodes:
            n = rng.choice(nodes)
            n.op_type = rng.choice(OPS)
        elif k == 1 and nodes:
            n = rng.choice(nodes)
            if len(n.input):
                if rng.random() < 0.5:
                    del n.input[rng.randrange(len(n.input))]
                else:
                    n.input[rng.randrange(len(n.input))] = rng.choice(
                        ["", "missing", "x", "y"] + [t.name for t in
                                                      g.initializer][:5])
        elif k == 2 and nodes:
            i = rng.randrange(len(nodes))
            del g.node[i]
        elif k == 3 and len(nodes) > 1:
            i, j = rng.randrange(len(nodes)), rng.randrange(len(nodes))
            a, b = onnx.NodeProto(), onnx.NodeProto()
            a.CopyFrom(nodes[i])
            b.CopyFrom(nodes[j])
            g.node[i].CopyFrom(b)
            g.node[j].CopyFrom(a)
        elif k == 4 and nodes:
            n = rng.choice(nodes)
            if len(n.attribute):
                mutate_attr(n.attribute[rng.randrange(len(n.attribute))],
                            rng)
            else:
                n.attribute.append(helper.make_attribute(
                    rng.choice(["axis", "perm", "pads", "to", "block_size"]),
                    rng.choice(INTERESTING)))
        elif k in (5, 6) and len(g.initializer):
            try:
                mutate_tensor(g.initializer[rng.randrange(
                    len(g.initializer))], rng)
            except ValueError:  # an earlier mutation broke the tensor
                pass
        elif k == 7 and len(g.initializer):
            del g.initializer[rng.randrange(len(g.initializer))]
        elif k == 8 and len(g.input):
            tt = g.input[rng.randrange(len(g.input))].type.tensor_type
            if len(tt.shape.dim) and rng.random() < 0.7:
                d = tt.shape.dim[rng.randrange(len(tt.shape.dim))]
                v = rng.choice([0, 1, 2**31, "batch", -1])
                if isinstance(v, str):
                    d.dim_param = v
                else:
                    d.dim_value = v
            else:
                tt.elem_type = rng.choice(ELEM_TYPES)
        elif k == 9:
            m.opset_import[0].version = rng.choice([1, 7, 10, 13, 17, 19, 21,
                                                    23, 99])
        elif k == 10 and nodes:
            n = rng.choice(nodes)
            if rng.random() < 0.5:
                n.domain = rng.choice(["com.microsoft", "ai.onnx.ml", "x"])
            else:
                g.node.append(n)
        elif k == 11 and nodes:
            n = rng.choice(nodes)
            if len(n.output):
                n.output[rng.randrange(len(n.output))] = rng.choice(
                    ["", "y", "x", "fresh"])


def one_run(i, seed, bases, verify, work):
    rng = random.Random(seed * 1000003 + i)
    base = bases[rng.randrange(len(bases))]
    if rng.random() < 0.3:
        data = mutate_bytes(base.SerializeToString(), rng)
    else:
        m = onnx.ModelProto()
        m.CopyFrom(base)
        mutate_structure(m, rng)
        try:
            data = m.SerializeToString()
        except Exception:  # noqa: BLE001  (an unserializable mutation)
            data = base.SerializeToString()[:100]
    try:
        text = imp.import_onnx("fuzz.onnx", data=data)
    except imp.OnnxImportError:
        return "rejected", None
    if verify:
        path = os.path.join(work, "run.mlir")
        with open(path, "w") as fh:
            fh.write(text)
        p = subprocess.run([verify, path, "-o", os.devnull],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise AssertionError("accepted, but octet-opt rejects the MLIR:\n"
                                 + p.stderr[:2000])
    return "accepted", None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", type=int)
    ap.add_argument("--time-limit", type=float)
    ap.add_argument("--progress", type=int, default=0)
    ap.add_argument("--no-verify", action="store_true")
    args = ap.parse_args()
    opt = os.path.join(os.environ.get("OCTET_TOOLS_DIR",
                                      os.path.join(ROOT, "build", "bin")),
                       "octet-opt")
    verify = None if args.no_verify or not os.access(opt, os.X_OK) else opt
    bases = base_models()
    work = tempfile.mkdtemp(prefix="onnx-fuzz-")
    runs = [args.only] if args.only is not None else range(args.runs)
    counts = {"accepted": 0, "rejected": 0}
    findings = 0
    start = time.time()
    done = 0
    for i in runs:
        if args.time_limit and time.time() - start > args.time_limit:
            break
        try:
            kind, _ = one_run(i, args.seed, bases, verify, work)
            counts[kind] += 1
        except Exception:  # noqa: BLE001
            findings += 1
            print("finding: --seed %d --only %d" % (args.seed, i))
            traceback.print_exc(file=sys.stdout)
        done += 1
        if args.progress and done % args.progress == 0:
            print("onnx_import_fuzz: %d runs, %d rejected, %d findings" % (
                done, counts["rejected"], findings), flush=True)
    print("onnx_import_fuzz: %d runs, %d rejected with OnnxImportError, "
          "%d findings" % (done, counts["rejected"], findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
