"""Small ONNX models built with onnx.helper (seeded weights) for the importer
tests and the ONNX Runtime comparison (onnx_e2e.py, bench/onnx_vs_ort.py).

    mlp(...)        Gemm (transB) + Relu + MatMul + Add: x [B, 64] -> [B, 32]
    attention(...)  one self-attention block with LayerNorm and a residual:
                    x [1, S, 64] -> [1, S, 64] (4 heads; MatMul, Reshape,
                    Transpose, Softmax, Add, LayerNormalization)
    convnet(...)    Conv + Relu + MaxPool + Conv + Relu + GlobalAveragePool +
                    Flatten + Gemm: x [B, 3, 16, 16] -> [B, 10]

Each returns an onnx.ModelProto (opset 17, IR version 8: what ONNX Runtime's
quantizer reads and writes) with one float32 input "x" and output "y".
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
F32 = np.float32


def _init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def _model(nodes, inits, in_shape, out_shape, name):
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="octet-tests")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def _w(rng, *shape, scale=None):
    fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
    s = scale if scale is not None else 1.0 / np.sqrt(fan_in)
    return (rng.standard_normal(shape) * s).astype(F32)


def mlp(batch=8, seed=0, din=64, hidden=128, dout=32):
    rng = np.random.default_rng(seed)
    w1 = _w(rng, hidden, din)          # Gemm transB: [out, in]
    b1 = (rng.standard_normal(hidden) * 0.1).astype(F32)
    w2 = _w(rng, hidden, dout)         # MatMul: [in, out]
    b2 = (rng.standard_normal(dout) * 0.1).astype(F32)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1",
                         transB=1),
        helper.make_node("Relu", ["h"], ["hr"], name="relu1"),
        helper.make_node("MatMul", ["hr", "w2"], ["m2"], name="fc2"),
        helper.make_node("Add", ["m2", "b2"], ["y"], name="fc2_bias"),
    ]
    return _model(nodes, [_init("w1", w1), _init("b1", b1), _init("w2", w2),
                          _init("b2", b2)], [batch, din], [batch, dout],
                  "mlp")


def attention(seq=16, seed=1, d=64, heads=4):
    rng = np.random.default_rng(seed)
    dh = d // heads
    inits = [_init("wq", _w(rng, d, d)), _init("wk", _w(rng, d, d)),
             _init("wv", _w(rng, d, d)), _init("wo", _w(rng, d, d)),
             _init("bo", (rng.standard_normal(d) * 0.1).astype(F32)),
             _init("ln_g", (1 + 0.1 * rng.standard_normal(d)).astype(F32)),
             _init("ln_b", (0.1 * rng.standard_normal(d)).astype(F32)),
             _init("heads_shape", np.array([1, seq, heads, dh], np.int64)),
             _init("flat_shape", np.array([1, seq, d], np.int64)),
             _init("inv_sqrt_dh", np.array(1.0 / np.sqrt(dh), F32))]
    nodes = [
        helper.make_node("LayerNormalization", ["x", "ln_g", "ln_b"], ["xn"],
                         name="ln", axis=-1, epsilon=1e-5),
    ]
    for p in ("q", "k", "v"):
        nodes += [
            helper.make_node("MatMul", ["xn", "w" + p], [p], name=p + "_proj"),
            helper.make_node("Reshape", [p, "heads_shape"], [p + "4"],
                             name=p + "_heads"),
            helper.make_node("Transpose", [p + "4"], [p + "t"],
                             name=p + "_transpose",
                             perm=[0, 2, 3, 1] if p == "k" else [0, 2, 1, 3]),
        ]
    nodes += [
        helper.make_node("MatMul", ["qt", "kt"], ["s"], name="scores"),
        helper.make_node("Mul", ["s", "inv_sqrt_dh"], ["ss"], name="scale"),
        helper.make_node("Softmax", ["ss"], ["p"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["p", "vt"], ["c"], name="context"),
        helper.make_node("Transpose", ["c"], ["ct"], name="merge_transpose",
                         perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ct", "flat_shape"], ["cf"],
                         name="merge_heads"),
        helper.make_node("MatMul", ["cf", "wo"], ["o"], name="o_proj"),
        helper.make_node("Add", ["o", "bo"], ["ob"], name="o_bias"),
        helper.make_node("Add", ["ob", "x"], ["y"], name="residual"),
    ]
    return _model(nodes, inits, [1, seq, d], [1, seq, d], "attention")


def convnet(batch=2, seed=2):
    rng = np.random.default_rng(seed)
    inits = [_init("c1w", _w(rng, 16, 3, 3, 3)),
             _init("c1b", (0.1 * rng.standard_normal(16)).astype(F32)),
             _init("c2w", _w(rng, 32, 16, 3, 3)),
             _init("c2b", (0.1 * rng.standard_normal(32)).astype(F32)),
             _init("fcw", _w(rng, 10, 32)),
             _init("fcb", (0.1 * rng.standard_normal(10)).astype(F32))]
    nodes = [
        helper.make_node("Conv", ["x", "c1w", "c1b"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fcw", "fcb"], ["y"], name="fc",
                         transB=1),
    ]
    return _model(nodes, inits, [batch, 3, 16, 16], [batch, 10], "convnet")


MODELS = {"mlp": mlp, "attention": attention, "convnet": convnet}


def input_shape(model):
    return [d.dim_value for d in model.graph.input[0].type.tensor_type.shape
            .dim]


def sample(model, seed):
    return np.random.default_rng(seed).standard_normal(
        input_shape(model)).astype(F32)


class Reader:
    """onnxruntime.quantization CalibrationDataReader over seeded inputs."""

    def __init__(self, model, count=8, seed=100):
        self.data = [{"x": sample(model, seed + i)} for i in range(count)]
        self.it = iter(self.data)

    def get_next(self):
        return next(self.it, None)

    def rewind(self):
        self.it = iter(self.data)


def ort_needs_reduce_range():
    """True on an x86 CPU without VNNI (AVX512-VNNI, AVX-VNNI or AMX):
    there ONNX Runtime's u8 x s8 kernels multiply with vpmaddubsw, which
    saturates each pair of products to int16, so full-range int8 weights
    give it wrong sums (measured on an AVX2 Zen 3: SQNR 24-26 dB where the
    exact result has 40-43). ONNX Runtime's own advice there is
    reduce_range=True (7-bit weights: 255 * 64 * 2 < 2^15)."""
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            flags = set()
            for line in f:
                if line.startswith("flags"):
                    flags.update(line.split(":", 1)[1].split())
                    break
    except OSError:
        return False
    return not flags & {"avx512_vnni", "avx_vnni", "amx_int8"}


def quantize(model, path_float, path_out, kind, per_channel=False,
             reduce_range=None):
    """ONNX Runtime's quantizer: kind "static" (QDQ, uint8 activations, int8
    weights) or "dynamic" (MatMulInteger / DynamicQuantizeLinear).
    reduce_range None: ort_needs_reduce_range() (the same model for octet
    and ONNX Runtime either way: octet reads its parameters)."""
    from onnxruntime.quantization import (QuantFormat, QuantType,
                                          quantize_dynamic, quantize_static)
    if reduce_range is None:
        reduce_range = ort_needs_reduce_range()
    onnx.save(model, path_float)
    if kind == "static":
        quantize_static(path_float, path_out, Reader(model),
                        quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, per_channel=per_channel,
                        reduce_range=reduce_range)
    else:
        quantize_dynamic(path_float, path_out, weight_type=QuantType.QInt8,
                         per_channel=per_channel, reduce_range=reduce_range)


def quant_ops(seed=3, m=4, k=32, n=16):
    """Every quantization operator the importer maps, without ONNX Runtime:
    QuantizeLinear / DequantizeLinear (per tensor, per axis, blocked int4,
    an int32 bias), DynamicQuantizeLinear + MatMulInteger + Cast + Mul,
    QLinearMatMul, and ConvInteger. x [m, k] -> y [m, n] and z [1, 2, 4, 4]
    (inputs x [m, k] and img [1, 3, 6, 6])."""
    rng = np.random.default_rng(seed)
    T = TensorProto
    w8 = rng.integers(-127, 128, (k, n)).astype(np.int8)
    w4 = rng.integers(-8, 8, (k, n)).astype(np.int8)
    sw = (rng.uniform(0.5, 1.5, n) / 64).astype(F32)
    sw4 = (rng.uniform(0.5, 1.5, (k // 16, n)) / 8).astype(F32)
    inits = [
        _init("sx", np.array(0.05, F32)), _init("zx", np.array(128, np.uint8)),
        _init("w8", w8), _init("sw", sw), _init("zw", np.zeros(n, np.int8)),
        helper.make_tensor("w4", T.INT4, [k, n], w4.reshape(-1).tolist()),
        _init("sw4", sw4),
        _init("bq", rng.integers(-500, 500, n).astype(np.int32)),
        _init("sb", (0.05 * sw).astype(F32)),
        _init("sy", np.array(0.1, F32)), _init("zy", np.array(120, np.uint8)),
        _init("cw", rng.integers(-100, 100, (2, 3, 3, 3)).astype(np.int8)),
        _init("cwz", np.array(0, np.int8)),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"],
                         name="q_x"),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"],
                         name="dq_x"),
        helper.make_node("DequantizeLinear", ["w8", "sw", "zw"], ["wd"],
                         name="dq_w8", axis=1),
        helper.make_node("DequantizeLinear", ["w4", "sw4"], ["w4d"],
                         name="dq_w4", axis=0, block_size=16),
        helper.make_node("DequantizeLinear", ["bq", "sb"], ["b"],
                         name="dq_bias", axis=0),
        helper.make_node("MatMul", ["xd", "wd"], ["h1"], name="mm_w8"),
        helper.make_node("MatMul", ["xd", "w4d"], ["h2"], name="mm_w4"),
        helper.make_node("Add", ["h1", "b"], ["h1b"], name="bias"),
        helper.make_node("DynamicQuantizeLinear", ["x"], ["dq", "ds", "dz"],
                         name="dyn_x"),
        helper.make_node("MatMulInteger", ["dq", "w8", "dz", "zw"], ["acc"],
                         name="mmi"),
        helper.make_node("Cast", ["acc"], ["accf"], name="cast", to=T.FLOAT),
        helper.make_node("Mul", ["ds", "sw"], ["dsw"], name="scales"),
        helper.make_node("Mul", ["accf", "dsw"], ["h3"], name="rescale"),
        helper.make_node("QLinearMatMul", ["xq", "sx", "zx", "w8", "sw", "zw",
                                           "sy", "zy"], ["yq"], name="qlmm"),
        helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["h4"],
                         name="dq_y"),
        helper.make_node("Add", ["h1b", "h2"], ["s12"], name="add12"),
        helper.make_node("Add", ["s12", "h3"], ["s123"], name="add123"),
        helper.make_node("Add", ["s123", "h4"], ["y"], name="add1234"),
        helper.make_node("DynamicQuantizeLinear", ["img"],
                         ["iq", "is", "iz"], name="dyn_img"),
        helper.make_node("ConvInteger", ["iq", "cw", "iz", "cwz"], ["cacc"],
                         name="convi", kernel_shape=[3, 3], pads=[0, 0, 0, 0]),
        helper.make_node("Cast", ["cacc"], ["z"], name="cast_conv",
                         to=T.FLOAT),
    ]
    g = helper.make_graph(
        nodes, "quant_ops",
        [helper.make_tensor_value_info("x", T.FLOAT, [m, k]),
         helper.make_tensor_value_info("img", T.FLOAT, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("y", T.FLOAT, [m, n]),
         helper.make_tensor_value_info("z", T.FLOAT, [1, 2, 4, 4])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)],
                              producer_name="octet-tests")
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model
