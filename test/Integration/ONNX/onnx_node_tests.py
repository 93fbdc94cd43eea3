"""ONNX's own backend node tests for the quantization operators, run
through Octet.

usage: onnx_node_tests.py [--markdown FILE] [TEST...]

The `onnx` wheel ships, for every operator, single-node models with inputs
and the expected outputs computed by ONNX's reference implementation
(onnx/backend/test/data/node/TEST/{model.onnx, test_data_set_*/}). For
QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and
QLinearMatMul each test's node is written as the octet op with the same
parameters (octet.quantize / dequantize / compute_params / matmul), run by
octet-run, and compared with the expected outputs:

  * codes and integer results: equal, except one-step flips exactly where
    the pre-rounding value lies within float noise of a tie
    (octet_oracle.near_ties, DESIGN.md's rule), which are counted; only
    QLinearMatMul can have them (ONNX multiplies by sa * sb / sy where octet
    multiplies by sa * sb and divides by sy);
  * floats: bit for bit.

A test octet cannot express (a format it does not have: int16, uint16,
float4e2m1; FP8 with a non-zero zero point) is reported `unsupported` with
the reason; an expressible test that differs is a failure.
"""

import argparse
import glob
import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import helper, numpy_helper

import octet_oracle as o

F32 = np.float32
NODE_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test",
                        "data", "node")
OPS = ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
       "MatMulInteger", "QLinearMatMul")

# ONNX element type -> octet format.
FORMATS = {
    onnx.TensorProto.UINT8: "u8", onnx.TensorProto.INT8: "i8",
    onnx.TensorProto.UINT4: "u4", onnx.TensorProto.INT4: "i4",
    onnx.TensorProto.FLOAT8E4M3FN: "f8E4M3FN",
    onnx.TensorProto.FLOAT8E5M2: "f8E5M2",
}


class Unsupported(Exception):
    pass


def tensor_type(shape, elt):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [elt])


def onnx_format(elem_type):
    if elem_type not in FORMATS:
        raise Unsupported("octet has no %s format" %
                          helper.tensor_dtype_to_string(elem_type).replace(
                              "TensorProto.", "").lower())
    return FORMATS[elem_type]


def codes_of(arr, fmt):
    """An ONNX quantized array -> octet_oracle's logical codes."""
    if fmt.startswith("f8"):
        return np.asarray(arr).view(np.uint8)
    return np.asarray(arr).astype(np.int32)


def scheme_for(fmt, scale, x_shape, axis, block):
    """The octet scheme of an ONNX (scale shape, axis, block_size)."""
    scale = np.asarray(scale)
    asym = not fmt.startswith("f8")
    if scale.ndim == 0:  # ONNX: a scalar scale is per-tensor
        return o.Scheme(fmt, "per_tensor", symmetric=not asym)
    axis = axis % len(x_shape)
    if block:
        return o.Scheme(fmt, "per_group", axis=axis, group=block,
                        symmetric=not asym)
    return o.Scheme(fmt, "per_axis", axis=axis, symmetric=not asym)


def float_elt(dtype):
    return {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}[
        np.dtype(dtype)]


def zero_point_operand(sc, zp, fmt, shape, args, inputs):
    """For an asymmetric scheme: appends the zero-point argument %z of
    `shape` (ONNX's zero point, or zeros) to `args` and its codes to
    `inputs`; returns (the op's `zero_point(...)` text, the codes)."""
    if sc.symmetric:
        return "", None
    z = (codes_of(zp, fmt) if zp is not None else
         np.zeros(shape, np.int32)).reshape(shape).astype(np.int32)
    args.append("%%z: %s" % tensor_type(shape, "i32"))
    inputs.append(z)
    return " zero_point(%%z : %s)" % tensor_type(shape, "i32"), z


def run_quantize(node, ins):
    x, scale = ins[0], ins[1]
    zp = ins[2] if len(ins) > 2 else None
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if zp is not None:
        elem = helper.np_dtype_to_tensor_dtype(zp.dtype)
    else:
        elem = attrs.get("output_dtype", onnx.TensorProto.UINT8) or \
            onnx.TensorProto.UINT8
    fmt = onnx_format(elem)
    if attrs.get("saturate", 1) == 0:
        raise Unsupported("saturate=0")
    sc = scheme_for(fmt, scale, x.shape, attrs.get("axis", 1),
                    attrs.get("block_size", 0))
    if fmt.startswith("f8") and zp is not None and \
            np.any(codes_of(zp, fmt) != 0):
        raise Unsupported("a non-zero FP8 zero point")
    xe = float_elt(x.dtype)
    s32 = np.asarray(scale).astype(F32).reshape(sc.param_shape(x.shape))
    fmtinfo = o.FORMATS[fmt]
    args = ["%%x: %s" % tensor_type(x.shape, xe),
            "%%s: %s" % tensor_type(s32.shape, "f32")]
    inputs = [o.floats_to_npy(x, xe), s32]
    zpart, zcodes = zero_point_operand(sc, zp, fmt, s32.shape, args, inputs)
    q_t = tensor_type(x.shape, fmtinfo.storage)
    text = ("func.func @main(%s) -> %s {\n"
            "  %%q = octet.quantize %%x scale(%%s : %s)%s as %s : %s -> %s\n"
            "  return %%q : %s\n}\n" % (
                ", ".join(args), q_t, tensor_type(s32.shape, "f32"), zpart,
                sc.attr(), tensor_type(x.shape, xe), q_t, q_t))
    got = o.npy_to_codes(o.run_octet(text, "main", inputs, 1,
                                     tag=node.name or "q")[0], sc)
    return [got], [sc], [(x.astype(F32), s32, zcodes)]


def run_dequantize(node, ins):
    c, scale = ins[0], ins[1]
    zp = ins[2] if len(ins) > 2 else None
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    fmt = onnx_format(helper.np_dtype_to_tensor_dtype(c.dtype))
    if fmt.startswith("f8") and zp is not None and \
            np.any(codes_of(zp, fmt) != 0):
        raise Unsupported("a non-zero FP8 zero point")
    sc = scheme_for(fmt, scale, c.shape, attrs.get("axis", 1),
                    attrs.get("block_size", 0))
    s32 = np.asarray(scale).astype(F32).reshape(sc.param_shape(c.shape))
    fmtinfo = o.FORMATS[fmt]
    codes = codes_of(c, fmt)
    q_t = tensor_type(c.shape, fmtinfo.storage)
    args = ["%%c: %s" % q_t, "%%s: %s" % tensor_type(s32.shape, "f32")]
    inputs = [o.codes_to_npy(codes, sc, nibble="sext"), s32]
    zpart, _ = zero_point_operand(sc, zp, fmt, s32.shape, args, inputs)
    y_t = tensor_type(c.shape, "f32")
    text = ("func.func @main(%s) -> %s {\n"
            "  %%y = octet.dequantize %%c scale(%%s : %s)%s as %s : %s -> %s\n"
            "  return %%y : %s\n}\n" % (
                ", ".join(args), y_t, tensor_type(s32.shape, "f32"), zpart,
                sc.attr(), q_t, y_t, y_t))
    y = o.run_octet(text, "main", inputs, 1, tag=node.name or "d")[0]
    # ONNX's result has the scale's type; an f16 scale times a code of at
    # most 8 bits is exact in f32, so rounding octet's f32 to f16 gives the
    # correctly rounded f16 product.
    return [y.astype(np.asarray(scale).dtype)], [None], [None]


def run_dynamic(node, ins):
    x = ins[0]
    sc = o.Scheme("u8", "per_tensor", symmetric=False)
    x_t = tensor_type(x.shape, "f32")
    q_t = tensor_type(x.shape, "i8")
    text = ("func.func @main(%%x: %s) -> (%s, tensor<f32>, tensor<i32>) {\n"
            "  %%s, %%z = octet.compute_params %%x as %s : %s -> tensor<f32>, "
            "tensor<i32>\n"
            "  %%q = octet.quantize %%x scale(%%s : tensor<f32>) zero_point(%%z "
            ": tensor<i32>) as %s : %s -> %s\n"
            "  return %%q, %%s, %%z : %s, tensor<f32>, tensor<i32>\n}\n" % (
                x_t, q_t, sc.attr(), x_t, sc.attr(), x_t, q_t, q_t))
    q, s, z = o.run_octet(text, "main", [x.astype(F32)], 3,
                          tag=node.name or "dq")
    return [o.npy_to_codes(q, sc), np.asarray(s, F32),
            np.asarray(z).astype(np.int32)], [sc, None, None], \
        [(x.astype(F32), np.asarray(s, F32), np.asarray(z, np.int32)), None,
         None]


def matmul_module(a, b, fa, fb, zb, out=None):
    """octet.matmul text on a [.., M, K] x [.., K, N] with per-tensor lhs
    and per-tensor or per-column rhs parameters (inputs: a, b, sa, za, sb,
    zb[, so, zo])."""
    batch = a.shape[:-2]
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    a_t = tensor_type(a.shape, "i8")
    b_t = tensor_type(b.shape, "i8")
    zbs = np.asarray(zb).reshape(-1)
    rb = "per_tensor" if zbs.size == 1 else "per_axis"
    rank = len(b.shape)
    pb = "tensor<f32>" if rb == "per_tensor" else tensor_type((n,), "f32")
    zbt = pb.replace("f32", "i32")
    rsch = o.Scheme(fb, rb, axis=rank - 1, symmetric=False).attr()
    lsch = o.Scheme(fa, "per_tensor", symmetric=False).attr()
    args = ["%%a: %s" % a_t, "%%b: %s" % b_t, "%sa: tensor<f32>",
            "%za: tensor<i32>", "%%sb: %s" % pb, "%%zb: %s" % zbt]
    tail = ""
    res_elt = "f32"
    if out:
        args += ["%so: tensor<f32>", "%zo: tensor<i32>"]
        tail = (" out_scale(%%so : tensor<f32>) out_zero_point(%%zo : "
                "tensor<i32>) out_scheme %s" %
                o.Scheme(out, "per_tensor", symmetric=False).attr())
        res_elt = "i8"
    y_t = tensor_type(batch + (m, n), res_elt)
    return ("func.func @main(%s) -> %s {\n"
            "  %%y = octet.matmul %%a, %%b lhs_scale(%%sa : tensor<f32>) "
            "lhs_zero_point(%%za : tensor<i32>) lhs_scheme %s rhs_scale(%%sb : "
            "%s) rhs_zero_point(%%zb : %s) rhs_scheme %s%s : %s, %s -> %s\n"
            "  return %%y : %s\n}\n" % (", ".join(args), y_t, lsch, pb, zbt,
                                       rsch, tail, a_t, b_t, y_t, y_t)), \
        rb, n


def run_matmul_integer(node, ins):
    a, b = ins[0], ins[1]
    za = ins[2] if len(ins) > 2 else np.zeros((), a.dtype)
    zb = ins[3] if len(ins) > 3 else np.zeros((), b.dtype)
    if np.asarray(za).size != 1:
        raise Unsupported("a per-row lhs zero point")
    fa = onnx_format(helper.np_dtype_to_tensor_dtype(a.dtype))
    fb = onnx_format(helper.np_dtype_to_tensor_dtype(b.dtype))
    text, rb, n = matmul_module(a, b, fa, fb, zb)
    # octet.matmul has no i32 result: unit scales give float(acc), exact
    # while |acc| < 2^24 (checked below).
    sb = np.ones((), F32) if rb == "per_tensor" else np.ones(n, F32)
    zbv = np.asarray(zb, np.int32).reshape(sb.shape)
    y = o.run_octet(text, "main", [
        o.codes_to_npy(codes_of(a, fa), o.Scheme(fa)),
        o.codes_to_npy(codes_of(b, fb), o.Scheme(fb)), np.ones((), F32),
        np.asarray(za, np.int32).reshape(()), sb, zbv], 1,
        tag=node.name or "mmi")[0]
    assert np.all(np.abs(y) < 2 ** 24)
    return [y.astype(np.int32)], [None], [None]


def run_qlinear_matmul(node, ins):
    a, sa, za, b, sb, zb, sy, zy = ins
    fa = onnx_format(helper.np_dtype_to_tensor_dtype(a.dtype))
    fb = onnx_format(helper.np_dtype_to_tensor_dtype(b.dtype))
    fy = onnx_format(helper.np_dtype_to_tensor_dtype(zy.dtype))
    if np.asarray(sa).size != 1:
        raise Unsupported("a per-row lhs scale")
    text, rb, n = matmul_module(a, b, fa, fb, zb, out=fy)
    sbv = np.asarray(sb).astype(F32).reshape(() if rb == "per_tensor" else
                                             (n,))
    zbv = np.asarray(zb, np.int32).reshape(sbv.shape)
    osch = o.Scheme(fy, "per_tensor", symmetric=False)
    y = o.run_octet(text, "main", [
        o.codes_to_npy(codes_of(a, fa), o.Scheme(fa)),
        o.codes_to_npy(codes_of(b, fb), o.Scheme(fb)),
        np.asarray(sa).astype(F32).reshape(()),
        np.asarray(za, np.int32).reshape(()), sbv, zbv,
        np.asarray(sy).astype(F32).reshape(()),
        np.asarray(zy, np.int32).reshape(())], 1,
        tag=node.name or "qmm")[0]
    # The value octet rounds (for the near-tie rule): float(acc) * (sa * sb).
    acc = np.matmul(codes_of(a, fa).astype(np.int64) - np.int64(za),
                    codes_of(b, fb).astype(np.int64) - zbv.astype(np.int64))
    pre = acc.astype(F32) * (F32(np.asarray(sa).astype(F32)) * sbv)
    return [o.npy_to_codes(y, osch)], [osch], \
        [(pre, np.asarray(sy).astype(F32).reshape(()),
          np.asarray(zy, np.int32).reshape(()))]


RUNNERS = {"QuantizeLinear": run_quantize,
           "DequantizeLinear": run_dequantize,
           "DynamicQuantizeLinear": run_dynamic,
           "MatMulInteger": run_matmul_integer,
           "QLinearMatMul": run_qlinear_matmul}


def load(path):
    t = onnx.TensorProto()
    with open(path, "rb") as fh:
        t.ParseFromString(fh.read())
    return numpy_helper.to_array(t)


def compare(got, want, scheme, tie):
    """(ok, flips, detail) for one output."""
    want = np.asarray(want)
    if scheme is None:
        if want.dtype.kind == "f":
            g = np.asarray(got).astype(want.dtype)
            ok = g.shape == want.shape and np.array_equal(o.bits(g),
                                                          o.bits(want))
        else:
            g = np.asarray(got).astype(np.int64)
            ok = g.shape == want.shape and np.array_equal(
                g, want.astype(np.int64))
        return ok, 0, "" if ok else "got %s want %s" % (
            np.asarray(got).reshape(-1)[:8], want.reshape(-1)[:8])
    w = codes_of(want, scheme.fmt)
    g = np.asarray(got)
    if g.shape != w.shape:
        return False, 0, "shape %s vs %s" % (g.shape, w.shape)
    diff = g != w
    if not diff.any():
        return True, 0, ""
    x, s, z = tie
    near, alt = o.near_ties(x, scheme, s, z)
    allowed = diff & near & (g == alt)
    bad = diff & ~allowed
    return (not bad.any(), int(allowed.sum()),
            "" if not bad.any() else "%d codes differ (first: got %s want %s)"
            % (int(bad.sum()), g[bad][:4], w[bad][:4]))


def run_test(name):
    d = os.path.join(NODE_DIR, name)
    model = onnx.load(os.path.join(d, "model.onnx"))
    node = model.graph.node[0]
    results = []
    for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
        ins = [load(p) for p in sorted(glob.glob(os.path.join(ds,
                                                             "input_*.pb")))]
        outs = [load(p) for p in sorted(glob.glob(os.path.join(ds,
                                                              "output_*.pb")))]
        got, schemes, ties = RUNNERS[node.op_type](node, ins)
        for g, w, sc, t in zip(got, outs, schemes, ties):
            results.append(compare(g, w, sc, t))
    ok = all(r[0] for r in results)
    flips = sum(r[1] for r in results)
    detail = "; ".join(r[2] for r in results if r[2])
    return ok, flips, detail, node.op_type


def node_tests():
    names = []
    for d in sorted(os.listdir(NODE_DIR)):
        if d.endswith("_expanded"):
            continue  # the same test as a graph of other ops
        m = onnx.load(os.path.join(NODE_DIR, d, "model.onnx"))
        if len(m.graph.node) == 1 and m.graph.node[0].op_type in OPS:
            names.append(d)
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tests", nargs="*")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    names = args.tests or node_tests()
    rows, counts, failed = [], {"pass": 0, "unsupported": 0, "fail": 0}, 0
    for name in names:
        try:
            ok, flips, detail, op = run_test(name)
            status = "pass" if ok else "fail"
            why = ("%d one-step flips at near ties" % flips if flips else
                   "") if ok else detail
        except Unsupported as e:
            op = onnx.load(os.path.join(NODE_DIR, name,
                                        "model.onnx")).graph.node[0].op_type
            status, why = "unsupported", str(e)
        counts[status] += 1
        rows.append((name, op, status, why))
        print("%-48s %-22s %-11s %s" % (name, op, status.upper(), why))
    print("onnx node tests (onnx %s): %d pass, %d unsupported, %d fail" % (
        onnx.__version__, counts["pass"], counts["unsupported"],
        counts["fail"]))
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write("| test | operator | result | why |\n| --- | --- | --- "
                     "| --- |\n")
            for r in rows:
                fh.write("| `%s` | %s | %s | %s |\n" % r)
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
