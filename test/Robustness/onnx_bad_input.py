"""Bad-input matrix for octet-import-onnx (docs/bad-input.md).

usage: onnx_bad_input.py OUTDIR

Writes each broken model to OUTDIR (a small valid model changed in one way),
imports it in process and prints `NAME: MESSAGE` (the OnnxImportError's
text); anything but OnnxImportError is a failure (exit 1). The last line is
`onnx bad input: N rejected`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "import-model"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "ONNX"))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto as T, helper, numpy_helper  # noqa: E402

import octet_import_onnx as imp  # noqa: E402

F32 = np.float32


def model(nodes, inits, inputs=None, outputs=None, opset=21, rank=2):
    """A model of `nodes` (the output y of unknown dimensions, `rank`)."""
    inputs = [helper.make_tensor_value_info("x", T.FLOAT, [2, 4])] \
        if inputs is None else inputs
    outputs = outputs or [helper.make_tensor_value_info("y", T.FLOAT,
                                                        [None] * rank)]
    g = helper.make_graph(nodes, "bad", inputs, outputs,
                          [numpy_helper.from_array(np.asarray(v), k)
                           if not isinstance(v, onnx.TensorProto) else v
                           for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m


def qdq(scale=np.array(0.1, F32), zp=np.array(0, np.int8), **attrs):
    return model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"],
                                   name="quant", **attrs),
                  helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"],
                                   name="dequant", **attrs)],
                 {"s": scale, "z": zp})


def cases():
    w = np.ones((4, 3), F32)
    yield "not-onnx.onnx", b"this is not a protobuf \xff\xff\xff\xff"
    good = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                 {"w": w}).SerializeToString()
    yield "truncated.onnx", good[:len(good) // 2]
    yield "unsupported-op.onnx", model(
        [helper.make_node("Hardmax", ["x"], ["y"], name="hm")], {})
    yield "symbolic-dim.onnx", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], {},
        inputs=[helper.make_tensor_value_info("x", T.FLOAT, ["batch", 4])])
    yield "uint16-input.onnx", model(
        [helper.make_node("Cast", ["x"], ["y"], name="cast", to=T.FLOAT)], {},
        inputs=[helper.make_tensor_value_info("x", T.UINT16, [2, 4])])
    yield "zero-scale.onnx", qdq(scale=np.array(0.0, F32))
    yield "nan-scale.onnx", qdq(scale=np.array(np.nan, F32))
    yield "int16-format.onnx", qdq(zp=np.array(0, np.int16))
    yield "fp8-zero-point.onnx", model(
        [helper.make_node("DequantizeLinear", ["c", "s", "z"], ["y"],
                          name="dq8")],
        {"c": helper.make_tensor("c", T.FLOAT8E4M3FN, [2, 4], [1.0] * 8),
         "s": np.array(0.5, F32),
         "z": helper.make_tensor("z", T.FLOAT8E4M3FN, [], [2.0])}, inputs=[])
    yield "block-size.onnx", model(
        [helper.make_node("DequantizeLinear", ["c", "s"], ["y"], name="dqb",
                          axis=1, block_size=3)],
        {"c": np.ones((2, 4), np.int8), "s": np.ones((2, 2), F32)}, inputs=[])
    yield "run-time-scale.onnx", model(
        [helper.make_node("QuantizeLinear", ["x", "s"], ["q"], name="quant"),
         helper.make_node("DequantizeLinear", ["q", "s"], ["y"],
                          name="dequant")], {},
        inputs=[helper.make_tensor_value_info("x", T.FLOAT, [2, 4]),
                helper.make_tensor_value_info("s", T.FLOAT, [])])
    yield "raw-int8-weight.onnx", model(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        {"w": np.ones((4, 3), np.int8)},
        outputs=[helper.make_tensor_value_info("y", T.INT8, [None] * 2)])
    yield "grouped-conv.onnx", model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", group=2)],
        {"w": np.ones((4, 1, 3, 3), F32)},
        inputs=[helper.make_tensor_value_info("x", T.FLOAT, [1, 2, 5, 5])],
        rank=4)
    yield "int-result-used.onnx", model(
        [helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"],
                          name="dyn"),
         helper.make_node("MatMulInteger", ["q", "w", "z"], ["acc"],
                          name="mmi"),
         helper.make_node("Relu", ["acc"], ["y"], name="relu_on_int")],
        {"w": np.ones((4, 3), np.int8)},
        outputs=[helper.make_tensor_value_info("y", T.INT32, [None] * 2)])
    yield "undefined-input.onnx", model(
        [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")], {})
    yield "bad-reshape.onnx", model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        {"shape": np.array([3, 3], np.int64)})
    yield "pool-window.onnx", model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool",
                          kernel_shape=[7, 7])], {},
        inputs=[helper.make_tensor_value_info("x", T.FLOAT, [1, 1, 4, 4])],
        rank=4)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for name, m in cases():
        path = os.path.join(out, name)
        with open(path, "wb") as fh:
            fh.write(m if isinstance(m, bytes) else m.SerializeToString())
        try:
            imp.import_onnx(path)
        except imp.OnnxImportError as e:
            print("%s: %s" % (name, e))
            n += 1
            continue
        print("%s: ACCEPTED (expected a rejection)" % name)
        return 1
    print("onnx bad input: %d rejected" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
