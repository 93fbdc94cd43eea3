#!/usr/bin/env python3
"""octet-import-onnx: an ONNX model (float, or quantized by ONNX Runtime) as
MLIR for Octet.

usage: octet_import_onnx.py MODEL.onnx [-o OUT.mlir] [--entry main]
           [--shape NAME=D0xD1x...]... [--conv im2col|direct] [--describe]

The model's graph becomes one function (default `@main`) on tensors:

  * float operators as linalg / tensor / arith / math (the form octet's
    passes quantize: MatMul and Gemm are `linalg.matmul` /
    `linalg.batch_matmul`, a Gemm with transB=1 a transposed-rhs
    `indexing_maps`, so `octet-opt --octet-quantize=recipe=...` works on an
    imported float model as on hand-written linalg); Conv is a patch
    gather (im2col) and one such matmul, or with --conv=direct
    `linalg.conv_2d_nchw_fchw`;
  * the quantization operators as octet ops with ONNX's exact parameters:
    QuantizeLinear / DequantizeLinear are `octet.quantize` /
    `octet.dequantize` (per tensor, per axis, or blocked: the scheme the
    scale's shape, `axis` and `block_size` give; an int8 / int4 zero point
    of zeros gives a symmetric scheme, any other zero point an asymmetric
    one), DynamicQuantizeLinear is `octet.compute_params` + `quantize`,
    MatMulInteger and QLinearMatMul are `octet.matmul` (with
    `out_scale` / `out_zero_point` for QLinearMatMul). A QDQ model written
    by `onnxruntime.quantization.quantize_static` comes in as
    dequantize -> float op -> quantize chains, which `octet-opt
    --octet-fold-scales` turns into integer contractions.

Weights (initializers) are `dense_resource` blobs with the file's exact
bytes; the quantization parameters are `dense` literals. Each op carries
the ONNX node's name as its location (so `skip=REGEX` and the per-layer
reports speak the model's names). Nodes whose inputs are all constant
(shape arithmetic, Constant, a DequantizeLinear of an int32 bias) are
evaluated at import time by ONNX's own reference implementation
(`onnx.reference`), so the result is the operator's definition.

Shapes must be static: a symbolic input dimension (`batch`, `seq`) needs
`--shape NAME=1x128`. Every error is `octet-import-onnx: error: MODEL:
...` naming the node (name and operator) or the tensor at fault, with exit
status 1 and nothing written (docs/bad-input.md).

Why not torch-mlir's or IREE's ONNX importer (both were tried; see
docs/ecosystem.md): they lower QuantizeLinear / DequantizeLinear to plain
arith (or fuse them into `linalg.quantized_matmul`), which loses the
quantization parameters Octet needs, and their linalg output follows their
own release's lowering. The float operators here are the ones ONNX Runtime's
quantizer and common exporters produce for MLPs, attention blocks and
convolutional nets; for other float models their output (upstream linalg)
also parses in octet-opt.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from octet_import_model import amap, erf_lines, f32, gelu_erf_body, ttype  # noqa: E402

TOOL = "octet-import-onnx"

# Operators kept as octet ops even when every input is a constant.
QUANT_OPS = ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
             "MatMulInteger", "QLinearMatMul", "ConvInteger")


class OnnxImportError(Exception):
    """A model this importer cannot translate; the message names the node or
    tensor at fault."""


def _onnx():
    import onnx  # noqa: F401  (imported lazily: --help works without it)
    return onnx


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


class Val:
    """An ONNX tensor during import: a numpy constant, or an SSA value.

    kind: "f32" (float), "codes" (quantized codes of octet format `fmt`),
    "params" (an f32 scale or i32 zero point made at run time),
    "acc" (MatMulInteger's int32 result held as its f32 rounding)."""

    def __init__(self, shape, kind="f32", ssa=None, const=None, fmt=None):
        self.shape = tuple(int(d) for d in shape)
        self.kind = kind
        self.ssa = ssa
        self.const = const
        self.fmt = fmt

    @property
    def elt(self):
        if self.kind == "codes":
            return FORMATS[self.fmt][0]
        if self.kind in ("zp", "i32"):
            return "i32"
        if self.kind == "index":
            return self.fmt  # i64 or i32
        return "f32"

    @property
    def type(self):
        return ttype(self.shape, self.elt)


# ONNX element type name -> (MLIR storage type, qmin, qmax, octet format)
FORMATS = {
    "i8": ("i8", -128, 127), "u8": ("i8", 0, 255),
    "i4": ("i4", -8, 7), "u4": ("i4", 0, 15),
    "f8E4M3FN": ("f8E4M3FN", 0, 0), "f8E5M2": ("f8E5M2", 0, 0),
}


def onnx_format(elem_type, where):
    onnx = _onnx()
    T = onnx.TensorProto
    table = {T.UINT8: "u8", T.INT8: "i8", T.UINT4: "u4", T.INT4: "i4",
             T.FLOAT8E4M3FN: "f8E4M3FN", T.FLOAT8E5M2: "f8E5M2"}
    if elem_type not in table:
        raise OnnxImportError("%s: element type %s has no octet format "
                              "(octet stores int8, uint8, int4, uint4, "
                              "float8e4m3fn, float8e5m2)" % (
                                  where, T.DataType.Name(elem_type).lower()))
    return table[elem_type]


def codes_of(arr, fmt):
    """An ONNX quantized numpy array -> int codes (FP8: the bit patterns)."""
    arr = np.asarray(arr)
    if fmt.startswith("f8"):
        return arr.view(np.uint8).astype(np.int64)
    return arr.astype(np.int64)


def storage_bytes(codes, fmt):
    """Codes -> one byte per element as MLIR stores the storage type: the
    code's bits (an 8-bit code's two's complement; a 4-bit code's nibble,
    upper bits zero, as MLIR itself writes `dense<[-1]> : tensor<1xi4>`)."""
    c = np.asarray(codes, np.int64)
    if FORMATS[fmt][0] == "i4":
        return (c & 0xF).astype(np.uint8)
    return (c & 0xFF).astype(np.uint8)


# ---------------------------------------------------------------------------
# The emitter
# ---------------------------------------------------------------------------


class Importer:
    def __init__(self, model, path, entry="main", conv="im2col"):
        self.onnx = _onnx()
        self.conv_mode = conv
        self.model = model
        self.path = path
        self.entry = entry
        self.lines = []
        self.resources = []  # (key, alignment, bytes)
        self.keys = set()
        self.n = 0
        self.vals = {}
        self.opset = 1
        for imp in model.opset_import:
            if imp.domain in ("", "ai.onnx"):
                self.opset = imp.version
        self.node = None
        self.loc = None
        # Static shapes ONNX's shape inference found for the graph's tensors.
        self.inferred = {}
        for vi in list(model.graph.value_info) + list(model.graph.output):
            tt = vi.type.tensor_type
            if tt.HasField("shape") and all(d.HasField("dim_value")
                                            for d in tt.shape.dim):
                self.inferred[vi.name] = [d.dim_value for d in tt.shape.dim]

    # -- plumbing -------------------------------------------------------------
    def err(self, msg):
        n = self.node
        if n is not None:
            raise OnnxImportError("node '%s' (%s): %s" % (
                n.name or "#%d" % self.node_index, n.op_type, msg))
        raise OnnxImportError(msg)

    def fresh(self, hint="v"):
        self.n += 1
        return "%%%s_%d" % (hint, self.n)

    def emit(self, text):
        self.lines.append("  %s loc(%s)" % (text, self.loc_text()))

    def loc_text(self):
        """The node's name as an MLIR string literal (every byte outside
        printable ASCII, and the quote and backslash, as \\XX)."""
        out = []
        name = self.loc or "onnx"
        if isinstance(name, str):
            name = name.encode("utf-8", "replace")
        for b in name:
            c = chr(b)
            out.append(c if 32 <= b < 127 and c not in '"\\' else
                       "\\%02X" % b)
        return '"%s"' % "".join(out)

    def resource_key(self, name):
        key = re.sub(r"[^A-Za-z0-9_]", "_", name) or "t"
        if not re.match(r"[A-Za-z_]", key):
            key = "t_" + key
        base, i = key, 1
        while key in self.keys:
            i += 1
            key = "%s_%d" % (base, i)
        self.keys.add(key)
        return key

    def materialize(self, v, name="const"):
        """The SSA value of `v` (a constant becomes arith.constant)."""
        if v.ssa is not None:
            return v.ssa
        c = v.const
        if v.kind == "raw":
            self.err("a %s constant where a float tensor is expected"
                     % np.asarray(c).dtype)
        r = self.fresh("w")
        if v.kind == "codes" and FORMATS[v.fmt][0] == "i4":
            # A dense hex literal (one byte per i4 element, as MLIR stores
            # them): the LLVM lowering of a dense_resource global has no i4.
            data = storage_bytes(c, v.fmt)
            self.emit('%s = arith.constant dense<"0x%s"> : %s'
                      % (r, data.tobytes().hex().upper(), v.type))
        elif v.kind == "codes":
            data = storage_bytes(c, v.fmt)
            key = self.resource_key(name)
            self.resources.append((key, 1, data.tobytes()))
            self.emit("%s = arith.constant dense_resource<%s> : %s"
                      % (r, key, v.type))
        elif v.kind == "zp":
            self.emit("%s = arith.constant %s : %s"
                      % (r, dense_int(c), v.type))
        else:
            arr = np.array(c, dtype="<f4", order="C")  # keeps rank 0
            if arr.size <= 16 and np.all(np.isfinite(arr)):
                self.emit("%s = arith.constant %s : %s"
                          % (r, dense_float(arr), v.type))
            else:
                key = self.resource_key(name)
                self.resources.append((key, 4, arr.tobytes()))
                self.emit("%s = arith.constant dense_resource<%s> : %s"
                          % (r, key, v.type))
        v.ssa = r
        return r

    def empty(self, shape, elt="f32"):
        e = self.fresh("e")
        self.emit("%s = tensor.empty() : %s" % (e, ttype(shape, elt)))
        return e

    def filled(self, shape, value):
        e = self.empty(shape)
        c = self.fresh("c")
        self.emit("%s = arith.constant %s : f32" % (c, f32(value)))
        z = self.fresh("z")
        self.emit("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                  % (z, c, e, ttype(shape), ttype(shape)))
        return z

    def generic(self, ins, out_shape, body, iters=None, out_map=None,
                init=None, elts=None, out_elt="f32"):
        """ins: [(Val or ssa, shape, map results)] over dims d0..d(R-1)
        (R = len(iters)); body: lines using %a0.. and %acc; elts: the
        inputs' element types (default f32)."""
        elts = elts or ["f32"] * len(ins)
        rank = len(iters) if iters else len(out_shape)
        dims = ["d%d" % i for i in range(rank)]
        iters = iters or ["parallel"] * rank
        out_map = out_map if out_map is not None else dims
        out = init if init is not None else self.empty(out_shape, out_elt)
        operands, types, maps = [], [], []
        for (x, shape, m), elt in zip(ins, elts):
            operands.append(self.materialize(x) if isinstance(x, Val) else x)
            types.append(ttype(shape, elt))
            maps.append(amap(dims, m))
        maps.append(amap(dims, out_map))
        v = self.fresh("g")
        self.lines.append(
            "  %s = linalg.generic {indexing_maps = [%s], iterator_types = "
            "[%s]} ins(%s : %s) outs(%s : %s) {" % (
                v, ", ".join(maps), ", ".join('"%s"' % i for i in iters),
                ", ".join(operands), ", ".join(types), out,
                ttype(out_shape, out_elt)))
        self.lines.append("  ^bb0(%s):" % ", ".join(
            ["%%a%d: %s" % (i, e) for i, e in enumerate(elts)] +
            ["%%acc: %s" % out_elt]))
        for line in body:
            self.lines.append("    " + line)
        self.lines.append('  } -> %s loc(%s)' % (ttype(out_shape, out_elt),
                                                 self.loc_text()))
        return v

    def elementwise(self, inputs, body):
        """Numpy-broadcast elementwise op of f32 inputs -> Val."""
        try:
            shape = np.broadcast_shapes(*[x.shape for x in inputs])
        except ValueError:
            self.err("shapes %s do not broadcast" % [list(x.shape)
                                                     for x in inputs])
        R = len(shape)
        ins = []
        for x in inputs:
            r = len(x.shape)
            m = ["d%d" % (R - r + i) if x.shape[i] == shape[R - r + i]
                 else "0" for i in range(r)]
            ins.append((x, x.shape, m))
        return Val(shape, ssa=self.generic(ins, shape, body))

    def reshape(self, x, shape):
        """x (any kind) reshaped to `shape` (static) -> Val of x's kind."""
        shape = tuple(int(d) for d in shape)
        if int(np.prod(shape)) != int(np.prod(x.shape)) or min(shape,
                                                                default=1) < 0:
            self.err("cannot reshape %s to %s" % (list(x.shape), list(shape)))
        if x.const is not None:
            return Val(shape, x.kind, const=np.reshape(x.const, shape),
                       fmt=x.fmt)
        if shape == x.shape:
            return x
        src = self.materialize(x)
        elt = x.elt
        if len(x.shape) == 0 or len(shape) == 0:
            # rank 0 <-> rank N (all ones): reassociation [] / [[0..N-1]].
            v = self.fresh("r")
            if len(x.shape) == 0:
                self.emit("%s = tensor.expand_shape %s [] output_shape [%s] "
                          ": %s into %s" % (v, src, ", ".join(map(str, shape)),
                                            x.type, ttype(shape, elt)))
            else:
                self.emit("%s = tensor.collapse_shape %s [] : %s into %s"
                          % (v, src, x.type, ttype(shape, elt)))
            return Val(shape, x.kind, ssa=v, fmt=x.fmt)
        flat = (int(np.prod(x.shape)),)
        cur = src
        if len(x.shape) != 1:
            cur = self.fresh("r")
            self.emit("%s = tensor.collapse_shape %s [[%s]] : %s into %s" % (
                cur, src, ", ".join(str(i) for i in range(len(x.shape))),
                x.type, ttype(flat, elt)))
        if len(shape) == 1:
            return Val(shape, x.kind, ssa=cur, fmt=x.fmt)
        v = self.fresh("r")
        self.emit("%s = tensor.expand_shape %s [[%s]] output_shape [%s] : %s "
                  "into %s" % (v, cur, ", ".join(str(i) for i in
                                                 range(len(shape))),
                               ", ".join(map(str, shape)), ttype(flat, elt),
                               ttype(shape, elt)))
        return Val(shape, x.kind, ssa=v, fmt=x.fmt)

    def transpose(self, x, perm):
        shape = tuple(x.shape[p] for p in perm)
        if list(perm) == list(range(len(perm))):
            return x
        if x.const is not None:
            return Val(shape, x.kind, const=np.transpose(x.const, perm),
                       fmt=x.fmt)
        src = self.materialize(x)
        out = self.empty(shape, x.elt)
        v = self.fresh("t")
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                  "permutation = [%s]" % (v, src, x.type, out,
                                          ttype(shape, x.elt),
                                          ", ".join(map(str, perm))))
        return Val(shape, x.kind, ssa=v, fmt=x.fmt)

    # -- inputs ---------------------------------------------------------------
    def attrs(self, node):
        h = self.onnx.helper
        return {a.name: h.get_attribute_value(a) for a in node.attribute}

    def need_float(self, v, i):
        if v.kind != "f32":
            self.err("input %d is %s, not a float tensor (the importer "
                     "supports quantized tensors only as inputs of "
                     "DequantizeLinear, MatMulInteger and QLinearMatMul)"
                     % (i, "quantized codes" if v.kind == "codes" else
                        "an integer result" if v.kind in ("acc", "i32")
                        else v.kind))
        return v

    def const_of(self, v, i, what):
        if v is None or v.const is None:
            self.err("input %d (%s) must be a constant (an initializer or "
                     "computable at import time)" % (i, what))
        return np.asarray(v.const)

    # -- the graph ------------------------------------------------------------
    def run(self):
        onnx = self.onnx
        g = self.model.graph
        numpy_helper = onnx.numpy_helper
        inits = set()
        for t in g.initializer:
            try:
                arr = numpy_helper.to_array(t)
            except Exception as e:  # noqa: BLE001
                raise OnnxImportError("initializer '%s': unreadable (%s)"
                                      % (t.name, e))
            self.vals[t.name] = self.const_val(arr)
            inits.add(t.name)
        args, arg_types = [], []
        for i, inp in enumerate(g.input):
            if inp.name in inits:
                continue
            tt = inp.type.tensor_type
            index = {onnx.TensorProto.INT64: "i64",
                     onnx.TensorProto.INT32: "i32"}.get(tt.elem_type)
            if tt.elem_type != onnx.TensorProto.FLOAT and not index:
                raise OnnxImportError(
                    "input '%s': element type %s is not supported (model "
                    "inputs must be float32, or int64 / int32 indices)" % (
                        inp.name,
                        onnx.TensorProto.DataType.Name(tt.elem_type).lower()))
            shape = static_shape(tt, "input '%s'" % inp.name)
            ssa = "%%in%d" % len(args)
            v = Val(shape, "index", ssa=ssa, fmt=index) if index else \
                Val(shape, ssa=ssa)
            args.append("%s: %s" % (ssa, v.type))
            arg_types.append(v.type)
            self.vals[inp.name] = v
        self.consumers, self.producer, self.precomputed = {}, {}, {}
        for node in g.node:
            for n in node.input:
                self.consumers.setdefault(n, []).append(node)
            for n in node.output:
                self.producer[n] = node
        self.graph_outputs = {o.name for o in g.output}
        for k, node in enumerate(g.node):
            self.node, self.node_index = node, k
            self.loc = node.name or "%s_%d" % (node.op_type, k)
            self.import_node(node)
        self.node = None
        self.loc = "return"
        outs, out_types = [], []
        for o in g.output:
            if o.name not in self.vals:
                raise OnnxImportError("output '%s' is not computed by the "
                                      "graph" % o.name)
            v = self.vals[o.name]
            if v.kind == "acc":  # (never: only_cast_to_float checks it)
                raise OnnxImportError(
                    "output '%s': an int32 MatMulInteger result as a model "
                    "output is not supported (add a Cast to float)" % o.name)
            if v.kind == "zp":
                v = self.zp_as_float(v)
            outs.append(self.materialize(v, o.name))
            out_types.append(v.type)
        head = "func.func @%s(%s) -> (%s) {" % (
            self.entry, ", ".join(args), ", ".join(out_types))
        body = self.lines + ["  return %s : %s" % (", ".join(outs),
                                                   ", ".join(out_types))]
        return "module {\n" + head + "\n" + "\n".join(body) + "\n}\n}\n" + \
            resources_text(self.resources)

    @staticmethod
    def const_val(arr):
        """A constant: float32 as a float tensor, anything else "raw" (used
        where a handler takes integers, or converted by as_float)."""
        arr = np.asarray(arr)
        return Val(arr.shape, "f32" if arr.dtype == np.float32 else "raw",
                   const=arr)

    def import_node(self, node):
        if node.domain not in ("", "ai.onnx"):
            self.err("operator domain '%s' is not supported" % node.domain)
        ins = [self.vals.get(n) if n else None for n in node.input]
        for n in node.input:
            if n and n not in self.vals:
                self.err("input '%s' is not defined before this node" % n)
        if len(node.output) == 1 and node.output[0] in self.precomputed:
            # the rescale Mul an integer matmul's epilogue already applied
            self.vals[node.output[0]] = self.precomputed.pop(node.output[0])
            return
        handler = getattr(self, "op_" + node.op_type, None)
        all_const = all(v is None or v.const is not None
                        for v in ins)
        if node.op_type not in QUANT_OPS and (all_const or
                                              node.op_type == "Constant"):
            outs = self.fold(node, ins)
        elif node.op_type == "Shape":
            outs = [self.fold_shape(node, ins[0])]
        elif handler is None:
            self.err("operator not supported by %s (supported: %s)" % (
                TOOL, ", ".join(sorted(SUPPORTED))))
        else:
            try:
                outs = handler(node, ins, self.attrs(node))
            except OnnxImportError:
                raise
            except (ValueError, IndexError, TypeError, KeyError,
                    ZeroDivisionError, OverflowError) as e:
                # A combination of shapes and attributes the checks above
                # did not name; still an error at this node, never a crash.
                self.err("its inputs and attributes are inconsistent (%s)"
                         % (str(e).splitlines()[0] if str(e) else
                            type(e).__name__))
        outs = outs if isinstance(outs, list) else [outs]
        for name, v in zip(node.output, outs):
            if not name:
                continue
            want = self.inferred.get(name)
            if want is not None and tuple(want) != tuple(v.shape):
                self.err("output '%s' has shape %s here, but ONNX shape "
                         "inference gives %s" % (name, list(v.shape),
                                                 list(want)))
            self.vals[name] = v

    def fold(self, node, ins):
        """Evaluates a node on constants with onnx.reference."""
        from onnx.reference import ReferenceEvaluator
        onnx = self.onnx
        h = onnx.helper
        feeds, vin = {}, []
        for i, (n, v) in enumerate(zip(node.input, ins)):
            if not n:
                continue
            arr = np.asarray(v.const)
            vin.append(h.make_tensor_value_info(
                n, h.np_dtype_to_tensor_dtype(arr.dtype), arr.shape))
            feeds[n] = arr
        outs = [h.make_tensor_value_info(o, 0, None) for o in node.output
                if o]
        graph = h.make_graph([node], "fold", vin, outs)
        m = h.make_model(graph, opset_imports=list(self.model.opset_import))
        try:
            res = ReferenceEvaluator(m).run(None, feeds)
        except Exception as e:  # noqa: BLE001
            self.err("evaluating it on its constant inputs failed: %s"
                     % str(e).splitlines()[0] if str(e) else type(e).__name__)
        return [self.const_val(np.asarray(r)) for r in res]

    def fold_shape(self, node, x):
        a = self.attrs(node)
        shape = np.array(x.shape, np.int64)
        start, end = a.get("start", 0), a.get("end", None)
        return Val(shape[start:end].shape, "raw", const=shape[start:end])

    # -- float operators ------------------------------------------------------
    def binary(self, op):
        def handler(node, ins, a):
            x, y = [self.as_float(v, i) for i, v in enumerate(ins)]
            return self.elementwise([x, y], [
                "%%r = arith.%s %%a0, %%a1 : f32" % op,
                "linalg.yield %r : f32"])
        return handler

    def as_float(self, v, i):
        if v.kind == "raw" and v.const is not None:
            if v.const.dtype.kind == "f":
                return Val(v.shape, const=v.const.astype(np.float32))
            self.err("input %d is a %s constant where a float tensor is "
                     "expected" % (i, v.const.dtype))
        return self.need_float(v, i)

    def unary(self, lines):
        def handler(node, ins, a):
            x = self.as_float(ins[0], 0)
            return self.elementwise([x], lines + ["linalg.yield %r : f32"])
        return handler

    def op_Relu(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        return self.elementwise([x], [
            "%z = arith.constant 0.0 : f32",
            "%r = arith.maximumf %a0, %z : f32", "linalg.yield %r : f32"])

    def op_Sigmoid(self, node, ins, a):
        return self.unary(["%one = arith.constant 1.0 : f32",
                           "%n = arith.negf %a0 : f32",
                           "%e = math.exp %n : f32",
                           "%d = arith.addf %e, %one : f32",
                           "%r = arith.divf %one, %d : f32"])(node, ins, a)

    def op_Erf(self, node, ins, a):
        return self.unary(erf_lines("%a0", "%r"))(node, ins, a)

    def op_Gelu(self, node, ins, a):
        approx = a.get("approximate", b"none")
        approx = approx.decode() if isinstance(approx, bytes) else approx
        x = self.as_float(ins[0], 0)
        if approx == "none":
            return self.elementwise([x], gelu_erf_body("%a0"))
        # tanh form: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
        return self.elementwise([x], [
            "%half = arith.constant 0.5 : f32",
            "%one = arith.constant 1.0 : f32",
            "%%k = arith.constant %s : f32" % f32(np.sqrt(2 / np.pi)),
            "%%c = arith.constant %s : f32" % f32(0.044715),
            "%x2 = arith.mulf %a0, %a0 : f32",
            "%x3 = arith.mulf %x2, %a0 : f32",
            "%cx3 = arith.mulf %x3, %c : f32",
            "%s = arith.addf %a0, %cx3 : f32",
            "%ks = arith.mulf %s, %k : f32",
            "%t = math.tanh %ks : f32",
            "%t1 = arith.addf %t, %one : f32",
            "%hx = arith.mulf %a0, %half : f32",
            "%r = arith.mulf %hx, %t1 : f32", "linalg.yield %r : f32"])

    def op_Identity(self, node, ins, a):
        return ins[0]

    def op_Cast(self, node, ins, a):
        to = a.get("to")
        v = ins[0]
        if to == self.onnx.TensorProto.FLOAT and v.kind in ("i32", "index"):
            return Val(v.shape, ssa=self.generic(
                [(v, v.shape, ["d%d" % i for i in range(len(v.shape))])],
                v.shape, ["%%r = arith.sitofp %%a0 : %s to f32" % v.elt,
                          "linalg.yield %r : f32"], elts=[v.elt]))
        if to == self.onnx.TensorProto.FLOAT and v.kind in ("f32", "acc"):
            # MatMulInteger's int32 result is held as float(acc), which is
            # what Cast(to=float) computes (one rounding of the exact sum).
            return Val(v.shape, ssa=self.materialize(v))
        self.err("Cast to %s of a %s tensor is not supported" % (
            self.onnx.TensorProto.DataType.Name(to).lower(), v.kind))

    def op_Softmax(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        R = len(x.shape)
        axis = a.get("axis", -1 if self.opset >= 13 else 1) % R
        if self.opset < 13 and axis != R - 1:
            self.err("Softmax before opset 13 with axis != last flattens "
                     "the input; not supported")
        return self.softmax(x, axis)

    def softmax(self, x, axis):
        R = len(x.shape)
        dims = ["d%d" % i for i in range(R)]
        red = [d for i, d in enumerate(dims) if i != axis]
        rshape = tuple(s for i, s in enumerate(x.shape) if i != axis)
        iters = ["reduction" if i == axis else "parallel" for i in range(R)]
        mx = self.generic([(x, x.shape, dims)], rshape,
                          ["%r = arith.maximumf %a0, %acc : f32",
                           "linalg.yield %r : f32"], iters, red,
                          init=self.filled(rshape, -np.inf))
        ex = self.generic([(x, x.shape, dims), (mx, rshape, red)], x.shape,
                          ["%c = arith.subf %a0, %a1 : f32",
                           "%r = math.exp %c : f32", "linalg.yield %r : f32"])
        sm = self.generic([(ex, x.shape, dims)], rshape,
                          ["%r = arith.addf %a0, %acc : f32",
                           "linalg.yield %r : f32"], iters, red,
                          init=self.filled(rshape, 0.0))
        return Val(x.shape, ssa=self.generic(
            [(ex, x.shape, dims), (sm, rshape, red)], x.shape,
            ["%r = arith.divf %a0, %a1 : f32", "linalg.yield %r : f32"]))

    def reduce(self, x, axes, keepdims, body, init, scale=None):
        R = len(x.shape)
        axes = sorted(set(ax % R for ax in axes))
        dims = ["d%d" % i for i in range(R)]
        red = [d for i, d in enumerate(dims) if i not in axes]
        rshape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        iters = ["reduction" if i in axes else "parallel" for i in range(R)]
        v = self.generic([(x, x.shape, dims)], rshape, body, iters, red,
                         init=self.filled(rshape, init))
        out = Val(rshape, ssa=v)
        if scale is not None:
            out = self.elementwise([out, Val((), const=np.float32(scale))], [
                "%r = arith.mulf %a0, %a1 : f32", "linalg.yield %r : f32"])
        if keepdims:
            out = self.reshape(out, [1 if i in axes else s
                                     for i, s in enumerate(x.shape)])
        return out

    def reduce_axes(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        if len(ins) > 1 and ins[1] is not None:
            axes = list(self.const_of(ins[1], 1, "axes").reshape(-1))
        else:
            axes = a.get("axes", None)
        if not axes:
            if a.get("noop_with_empty_axes", 0):
                return None, x
            axes = list(range(len(x.shape)))
        return axes, x

    def op_ReduceMean(self, node, ins, a):
        axes, x = self.reduce_axes(node, ins, a)
        if axes is None:
            return x
        n = int(np.prod([x.shape[i] for i in axes]))
        return self.reduce(x, axes, a.get("keepdims", 1),
                           ["%r = arith.addf %a0, %acc : f32",
                            "linalg.yield %r : f32"], 0.0,
                           scale=np.float32(1.0) / np.float32(n))

    def op_ReduceSum(self, node, ins, a):
        axes, x = self.reduce_axes(node, ins, a)
        if axes is None:
            return x
        return self.reduce(x, axes, a.get("keepdims", 1),
                           ["%r = arith.addf %a0, %acc : f32",
                            "linalg.yield %r : f32"], 0.0)

    def op_ReduceMax(self, node, ins, a):
        axes, x = self.reduce_axes(node, ins, a)
        if axes is None:
            return x
        return self.reduce(x, axes, a.get("keepdims", 1),
                           ["%r = arith.maximumf %a0, %acc : f32",
                            "linalg.yield %r : f32"], -np.inf)

    def op_LayerNormalization(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        R = len(x.shape)
        if not -R <= a.get("axis", -1) < R:
            self.err("axis %d is out of range for rank %d" % (a["axis"], R))
        axis = a.get("axis", -1) % R
        eps = a.get("epsilon", 1e-5)
        scale = self.as_float(ins[1], 1)
        bias = self.as_float(ins[2], 2) if len(ins) > 2 and ins[2] else None
        # Normalized over the axes axis..R-1 (ONNX's definition).
        axes = list(range(axis, R))
        n = np.float32(int(np.prod(x.shape[axis:])))
        mean = self.reduce(x, axes, 1, ["%r = arith.addf %a0, %acc : f32",
                                        "linalg.yield %r : f32"], 0.0,
                           scale=np.float32(1.0) / n)
        d = self.elementwise([x, mean], ["%r = arith.subf %a0, %a1 : f32",
                                         "linalg.yield %r : f32"])
        var = self.reduce(d, axes, 1, ["%s = arith.mulf %a0, %a0 : f32",
                                       "%r = arith.addf %s, %acc : f32",
                                       "linalg.yield %r : f32"], 0.0,
                          scale=np.float32(1.0) / n)
        rstd = self.elementwise([var], [
            "%%e = arith.constant %s : f32" % f32(eps),
            "%v = arith.addf %a0, %e : f32", "%r = math.rsqrt %v : f32",
            "linalg.yield %r : f32"])
        y = self.elementwise([d, rstd, scale], [
            "%n = arith.mulf %a0, %a1 : f32",
            "%r = arith.mulf %n, %a2 : f32", "linalg.yield %r : f32"])
        if bias is not None:
            y = self.elementwise([y, bias], ["%r = arith.addf %a0, %a1 : f32",
                                             "linalg.yield %r : f32"])
        # The optional Mean and InvStdDev outputs (reduced axes kept as 1).
        return [y, mean, rstd]

    def op_Transpose(self, node, ins, a):
        x = ins[0]
        perm = a.get("perm", list(range(len(x.shape)))[::-1])
        return self.transpose(x, perm)

    def op_Reshape(self, node, ins, a):
        x = ins[0]
        shape = [int(s) for s in self.const_of(ins[1], 1, "shape")]
        allowzero = a.get("allowzero", 0)
        out = []
        for i, s in enumerate(shape):
            out.append(x.shape[i] if s == 0 and not allowzero else s)
        if out.count(-1) > 1:
            self.err("shape %s has more than one -1" % shape)
        if -1 in out:
            known = int(np.prod([s for s in out if s != -1]))
            total = int(np.prod(x.shape))
            if known == 0 or total % known:
                self.err("cannot reshape %s to %s" % (list(x.shape), shape))
            out[out.index(-1)] = total // known
        if int(np.prod(out)) != int(np.prod(x.shape)):
            self.err("cannot reshape %s to %s" % (list(x.shape), shape))
        return self.reshape(x, out)

    def op_Flatten(self, node, ins, a):
        x = ins[0]
        R = len(x.shape)
        axis = a.get("axis", 1)
        if not -R <= axis <= R:
            self.err("axis %d is out of range for rank %d" % (axis, R))
        axis = axis + R if axis < 0 else axis  # ONNX: -1 is R - 1
        return self.reshape(x, [int(np.prod(x.shape[:axis])),
                                int(np.prod(x.shape[axis:]))])

    def axes_input(self, ins, a, rank):
        if len(ins) > 1 and ins[1] is not None:
            return [int(v) % rank for v in
                    self.const_of(ins[1], 1, "axes").reshape(-1)]
        return [int(v) % rank for v in a.get("axes", [])]

    def op_Unsqueeze(self, node, ins, a):
        x = ins[0]
        if len(ins) > 1 and ins[1] is not None:
            raw = self.const_of(ins[1], 1, "axes").reshape(-1)
        else:
            raw = a.get("axes", [])
        R = len(x.shape) + len(raw)
        axes = [int(v) % R for v in raw]
        shape, it = [], iter(x.shape)
        for i in range(R):
            shape.append(1 if i in axes else next(it))
        return self.reshape(x, shape)

    def op_Squeeze(self, node, ins, a):
        x = ins[0]
        axes = self.axes_input(ins, a, len(x.shape)) or \
            [i for i, s in enumerate(x.shape) if s == 1]
        return self.reshape(x, [s for i, s in enumerate(x.shape)
                                if i not in axes])

    def op_MatMul(self, node, ins, a):
        x, w = self.as_float(ins[0], 0), self.as_float(ins[1], 1)
        return self.matmul(x, w)

    def matmul(self, x, w, transpose_b=False):
        if len(x.shape) < 2 or len(w.shape) < 2:
            self.err("MatMul of rank-1 operands is not supported (shapes %s "
                     "and %s)" % (list(x.shape), list(w.shape)))
        K = x.shape[-1]
        kw = w.shape[-1] if transpose_b else w.shape[-2]
        if K != kw:
            self.err("inner dimensions differ (%s x %s)" % (
                list(x.shape), list(w.shape)))
        if len(w.shape) == 2:
            N = w.shape[0] if transpose_b else w.shape[1]
            M = int(np.prod(x.shape[:-1]))
            x2 = self.reshape(x, [M, K])
            y = self.fresh("mm")
            init = self.filled((M, N), 0.0)
            maps = ""
            if transpose_b:
                d = ["m", "n", "k"]
                maps = " indexing_maps = [%s, %s, %s]" % (
                    amap(d, ["m", "k"]), amap(d, ["n", "k"]),
                    amap(d, ["m", "n"]))
            self.emit("%s = linalg.matmul%s ins(%s, %s : %s, %s) outs(%s : "
                      "%s) -> %s" % (y, maps, self.materialize(x2),
                                     self.materialize(w), x2.type, w.type,
                                     init, ttype((M, N)), ttype((M, N))))
            return self.reshape(Val((M, N), ssa=y), x.shape[:-1] + (N,))
        if transpose_b:
            self.err("batched Gemm is not supported")
        bx, bw = x.shape[:-2], w.shape[:-2]
        if bx != bw:
            self.err("batched MatMul with broadcast batch dimensions (%s x "
                     "%s) is not supported" % (list(x.shape), list(w.shape)))
        B = int(np.prod(bx))
        M, N = x.shape[-2], w.shape[-1]
        x3 = self.reshape(x, [B, M, K])
        w3 = self.reshape(w, [B, K, N])
        init = self.filled((B, M, N), 0.0)
        y = self.fresh("bmm")
        self.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : "
                  "%s) -> %s" % (y, self.materialize(x3), self.materialize(w3),
                                 x3.type, w3.type, init, ttype((B, M, N)),
                                 ttype((B, M, N))))
        return self.reshape(Val((B, M, N), ssa=y), bx + (M, N))

    def op_Gemm(self, node, ins, a):
        x, w = self.as_float(ins[0], 0), self.as_float(ins[1], 1)
        if len(x.shape) != 2 or len(w.shape) != 2:
            self.err("Gemm needs rank-2 A and B")
        if a.get("transA", 0):
            x = self.transpose(x, [1, 0])
        y = self.matmul(x, w, transpose_b=bool(a.get("transB", 0)))
        alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
        if alpha != 1.0:
            y = self.elementwise([y, Val((), const=np.float32(alpha))], [
                "%r = arith.mulf %a0, %a1 : f32", "linalg.yield %r : f32"])
        if len(ins) > 2 and ins[2] is not None and beta != 0.0:
            c = self.as_float(ins[2], 2)
            if beta != 1.0:
                c = self.elementwise([c, Val((), const=np.float32(beta))], [
                    "%r = arith.mulf %a0, %a1 : f32",
                    "linalg.yield %r : f32"])
            y = self.elementwise([y, c], ["%r = arith.addf %a0, %a1 : f32",
                                          "linalg.yield %r : f32"])
        return y

    def pad(self, x, pads, value, value_ssa=None):
        """pads: [begin..., end...] over all dims of x; the padding value a
        constant, or the SSA scalar `value_ssa` of x's element type."""
        R = len(x.shape)
        if not any(pads):
            return x
        shape = tuple(x.shape[i] + pads[i] + pads[R + i] for i in range(R))
        elt = x.elt
        c = value_ssa
        if c is None:
            c = self.fresh("c")
            self.emit("%s = arith.constant %s : %s" % (
                c, f32(value) if elt == "f32" else "%d" % int(value), elt))
        v = self.fresh("p")
        self.lines.append(
            "  %s = tensor.pad %s low[%s] high[%s] {\n  ^bb0(%s):\n"
            "    tensor.yield %s : %s\n  } : %s to %s loc(%s)" % (
                v, self.materialize(x), ", ".join(map(str, pads[:R])),
                ", ".join(map(str, pads[R:])),
                ", ".join("%%i%d: index" % i for i in range(R)), c, elt,
                x.type, ttype(shape, elt), self.loc_text()))
        return Val(shape, x.kind, ssa=v, fmt=x.fmt)

    def spatial(self, node, a, x, kernel):
        """(strides, dilations, pads[begin+end over H, W]) of a 2-D op."""
        if len(x.shape) != 4:
            self.err("only 2-D (NCHW) inputs are supported, got shape %s"
                     % list(x.shape))
        strides = list(a.get("strides", [1, 1]))
        dil = list(a.get("dilations", [1, 1]))
        pads = list(a.get("pads", [0, 0, 0, 0]))
        if len(strides) != 2 or len(dil) != 2 or len(pads) != 4 or \
                len(kernel) != 2:
            self.err("strides, dilations and kernel need 2 values and pads "
                     "4 (got %s, %s, %s, %s)" % (strides, dil, list(kernel),
                                                 pads))
        if min(strides + dil + list(kernel)) < 1 or min(pads) < 0:
            self.err("strides, dilations and kernel must be positive and "
                     "pads not negative (got %s, %s, %s, %s)" % (
                         strides, dil, list(kernel), pads))
        auto = a.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            pads = [0, 0, 0, 0]
            for i in range(2):
                n = x.shape[2 + i]
                out = -(-n // strides[i])
                total = max(0, (out - 1) * strides[i] +
                            (kernel[i] - 1) * dil[i] + 1 - n)
                lo = total // 2 if auto == "SAME_UPPER" else total - total // 2
                pads[i], pads[2 + i] = lo, total - lo
        elif auto == "VALID":
            pads = [0, 0, 0, 0]
        if a.get("ceil_mode", 0):
            self.err("ceil_mode=1 is not supported")
        for i in range(2):
            span = (kernel[i] - 1) * dil[i] + 1
            if x.shape[2 + i] + pads[i] + pads[2 + i] < span:
                self.err("the %d-wide window (kernel and dilation) does not "
                         "fit the padded input of %d" % (
                             span, x.shape[2 + i] + pads[i] + pads[2 + i]))
        return strides, dil, pads

    def op_Conv(self, node, ins, a):
        x, w = self.as_float(ins[0], 0), self.as_float(ins[1], 1)
        if self.conv_mode == "im2col":
            out = self.conv_im2col(node, a, x, w)
        else:
            out = self.conv(node, a, x, w, "f32")
        if len(ins) > 2 and ins[2] is not None:
            F = w.shape[0]
            if ins[2].shape != (F,):
                self.err("bias of shape %s for %d output channels" % (
                    list(ins[2].shape), F))
            b = self.reshape(self.as_float(ins[2], 2), [F, 1, 1])
            out = self.elementwise([out, b], ["%r = arith.addf %a0, %a1 : f32",
                                              "linalg.yield %r : f32"])
        return out

    def conv(self, node, a, x, w, elt):
        strides, dil, pads = self.conv_checks(node, a, x, w)
        xp = self.pad(x, [0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]], 0)
        N, F = x.shape[0], w.shape[0]
        H = (xp.shape[2] - dil[0] * (w.shape[2] - 1) - 1) // strides[0] + 1
        W = (xp.shape[3] - dil[1] * (w.shape[3] - 1) - 1) // strides[1] + 1
        shape = (N, F, H, W)
        if elt == "f32":
            init = self.filled(shape, 0.0)
        else:
            e = self.empty(shape, elt)
            c = self.fresh("c")
            self.emit("%s = arith.constant 0 : %s" % (c, elt))
            init = self.fresh("z")
            self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
                init, c, elt, e, ttype(shape, elt), ttype(shape, elt)))
        y = self.fresh("conv")
        self.emit("%s = linalg.conv_2d_nchw_fchw {dilations = dense<[%d, %d]> "
                  ": tensor<2xi64>, strides = dense<[%d, %d]> : "
                  "tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                      y, dil[0], dil[1], strides[0], strides[1],
                      self.materialize(xp), self.materialize(w), xp.type,
                      w.type, init, ttype(shape, elt), ttype(shape, elt)))
        return Val(shape, "f32" if elt == "f32" else "i32", ssa=y)

    def conv_checks(self, node, a, x, w):
        """(strides, dilations, pads) of a 2-D, ungrouped Conv /
        ConvInteger whose weight fits its input."""
        if a.get("group", 1) != 1:
            self.err("grouped convolution (group=%d) is not supported"
                     % a.get("group", 1))
        if len(w.shape) != 4:
            self.err("only 2-D convolution is supported")
        spatial = self.spatial(node, a, x, w.shape[2:])
        if x.shape[1] != w.shape[1]:
            self.err("input channels %d differ from the weight's %d" % (
                x.shape[1], w.shape[1]))
        return spatial

    def patches(self, xp, kernel, strides, dil):
        """The im2col matrix [N*H*W, C*KH*KW] of the padded NCHW input xp
        (any element type) -> (Val, H, W)."""
        N, C = xp.shape[:2]
        KH, KW = kernel
        H = (xp.shape[2] - dil[0] * (KH - 1) - 1) // strides[0] + 1
        W = (xp.shape[3] - dil[1] * (KW - 1) - 1) // strides[1] + 1
        pshape = (N, H, W, C, KH, KW)
        g = self.generic(
            [(xp, xp.shape, ["d0", "d3", window_expr("d1", strides[0],
                                                      "d4", dil[0]),
                             window_expr("d2", strides[1], "d5", dil[1])])],
            pshape, ["linalg.yield %%a0 : %s" % xp.elt],
            iters=["parallel"] * 6, elts=[xp.elt], out_elt=xp.elt)
        return self.reshape(Val(pshape, xp.kind, ssa=g, fmt=xp.fmt),
                            [N * H * W, C * KH * KW]), H, W

    def conv_im2col(self, node, a, x, w):
        """Conv as a patch gather (im2col) and one matmul with the weight
        as [F, C*KH*KW] (a transposed-rhs linalg.matmul, the form octet's
        GEMM kernels and octet-fold-scales take), then NCHW again."""
        strides, dil, pads = self.conv_checks(node, a, x, w)
        xp = self.pad(x, [0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]], 0)
        N, F = x.shape[0], w.shape[0]
        cols, H, W = self.patches(xp, w.shape[2:], strides, dil)
        wm = self.reshape(w, [F, int(np.prod(w.shape[1:]))])
        y = self.matmul(cols, wm, transpose_b=True)
        return self.transpose(self.reshape(y, [N, H, W, F]), [0, 3, 1, 2])

    def centered(self, codes, zp, name):
        """i32 tensor codes - zero point (zp: a "zp" Val of shape () or
        per dimension 0, i.e. per output channel of a weight)."""
        ext = "extui" if codes.fmt == "u8" else "extsi"
        R = len(codes.shape)
        dims = ["d%d" % i for i in range(R)]
        zmap = [] if zp.shape == () else ["d0"]
        v = self.generic([(codes, codes.shape, dims), (zp, zp.shape, zmap)],
                         codes.shape,
                         ["%%e = arith.%s %%a0 : i8 to i32" % ext,
                          "%r = arith.subi %e, %a1 : i32",
                          "linalg.yield %r : i32"],
                         elts=["i8", "i32"], out_elt="i32")
        return Val(codes.shape, "i32", ssa=v)

    def op_ConvInteger(self, node, ins, a):
        X = self.integer_operand(ins[0], 0, "x")
        Wt = self.integer_operand(ins[1], 1, "w")
        xz = self.zp_operand(ins[2] if len(ins) > 2 else None, 2, X.fmt, ())
        wzv = ins[3] if len(ins) > 3 else None
        per_ch = wzv is not None and np.asarray(wzv.const).size > 1
        wz = self.zp_operand(wzv, 3, Wt.fmt, (Wt.shape[0],) if per_ch
                             else ())
        if self.conv_mode == "im2col" and Wt.const is not None and \
                a.get("group", 1) == 1 and len(Wt.shape) == 4 and \
                self.only_cast_to_float(node.output[0]):
            return self.conv_integer_im2col(node, a, X, Wt, xz, wz)
        # ONNX's definition: the integer convolution of (x - x_zero_point)
        # and (w - w_zero_point), padding contributing zero; summed in i32.
        return self.conv(node, a, self.centered(X, xz, "x"),
                         self.centered(Wt, wz, "w"), "i32")

    def only_cast_to_float(self, name):
        """Whether every use of tensor `name` is a Cast to float (then an
        integer result may be held as its float rounding)."""
        return name not in self.graph_outputs and all(
            n.op_type == "Cast" and any(
                at.name == "to" and at.i == self.onnx.TensorProto.FLOAT
                for at in n.attribute)
            for n in self.consumers.get(name, []))

    def rescale_of(self, out_name, a_name, n):
        """ONNX Runtime's dynamic chain after MatMulInteger / ConvInteger:
        Cast(to float) -> Mul(., S) with S = Mul(a_scale, b_scale), a_scale
        the DynamicQuantizeLinear scale of A, b_scale a constant of shape
        () or (n,). Returns (the Mul node, a_scale Val, b_scale Val) or
        None. octet.matmul's epilogue float(acc) * (sa * sb) is then the
        chain's value bit for bit."""
        cons = self.consumers.get(out_name, [])
        if len(cons) != 1 or cons[0].op_type != "Cast":
            return None
        cast = cons[0].output[0]
        after = self.consumers.get(cast, [])
        if cast in self.graph_outputs or len(after) != 1 or \
                after[0].op_type != "Mul" or len(after[0].input) != 2:
            return None
        mul = after[0]
        other = [i for i in mul.input if i != cast]
        sprod = self.producer.get(other[0]) if len(other) == 1 else None
        dq = self.producer.get(a_name)
        if sprod is None or sprod.op_type != "Mul" or dq is None or \
                dq.op_type != "DynamicQuantizeLinear" or \
                dq.output[1] not in sprod.input or len(sprod.input) != 2:
            return None
        b = [i for i in sprod.input if i != dq.output[1]]
        bv = self.vals.get(b[0]) if len(b) == 1 else None
        if bv is None or bv.const is None or \
                np.asarray(bv.const).dtype != np.float32 or \
                np.asarray(bv.const).shape not in ((), (n,)):
            return None
        sb = np.asarray(bv.const, np.float32)
        if sb.size == 1:
            sb = sb.reshape(())
        return mul, self.vals[dq.output[1]], Val(sb.shape, const=sb)

    def conv_integer_im2col(self, node, a, X, Wt, xz, wz):
        """ConvInteger as patches of the codes (padded with the zero point,
        so padding contributes zero) times the weight as [C*KH*KW, F]:
        an integer octet.matmul with unit scales, i.e. MatMulInteger's
        float(acc), which the Cast to float that must follow gives."""
        strides, dil, pads = self.conv_checks(node, a, X, Wt)
        N = X.shape[0]
        F = Wt.shape[0]
        pv = None
        if any(pads):
            pv = self.fresh("c")
            if xz.const is not None:
                code = int(storage_bytes(np.asarray(xz.const), X.fmt))
                self.emit("%s = arith.constant %d : i8" % (
                    pv, code - 256 if code > 127 else code))
            else:
                e = self.fresh("z")
                self.emit("%s = tensor.extract %s[] : tensor<i32>" % (
                    e, self.materialize(xz)))
                self.emit("%s = arith.trunci %s : i32 to i8" % (pv, e))
        xp = self.pad(X, [0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]], 0,
                      value_ssa=pv)
        cols, H, W = self.patches(xp, Wt.shape[2:], strides, dil)
        wm = Val((int(np.prod(Wt.shape[1:])), F), "codes", fmt=Wt.fmt,
                 const=np.asarray(Wt.const).reshape(F, -1).T.copy())
        chain = self.rescale_of(node.output[0], node.input[0], F)
        sa = chain[1] if chain else Val((), const=np.float32(1.0))
        sb = chain[2] if chain else Val(wz.shape, const=np.ones(wz.shape,
                                                               np.float32))
        if chain and sb.shape != wz.shape and wz.shape != ():
            chain, sa = None, Val((), const=np.float32(1.0))
            sb = Val(wz.shape, const=np.ones(wz.shape, np.float32))
        y = self.int_matmul(cols, wm, sa, xz, sb, wz)
        out = self.transpose(self.reshape(y, [N, H, W, F]), [0, 3, 1, 2])
        if chain:
            self.precomputed[chain[0].output[0]] = Val(out.shape,
                                                       ssa=out.ssa)
        return out

    def pool(self, node, ins, a, kind):
        x = self.as_float(ins[0], 0)
        k = list(a.get("kernel_shape", []))
        if len(k) != 2:
            self.err("only 2-D pooling is supported")
        strides, dil, pads = self.spatial(node, a, x, k)
        if kind == "sum" and any(pads) and not a.get("count_include_pad", 0):
            self.err("AveragePool with padding and count_include_pad=0 is "
                     "not supported")
        xp = self.pad(x, [0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]],
                      -np.inf if kind == "max" else 0.0)
        N, C = x.shape[:2]
        H = (xp.shape[2] - dil[0] * (k[0] - 1) - 1) // strides[0] + 1
        W = (xp.shape[3] - dil[1] * (k[1] - 1) - 1) // strides[1] + 1
        shape = (N, C, H, W)
        init = self.filled(shape, -np.inf if kind == "max" else 0.0)
        win = self.empty(k)
        y = self.fresh("pool")
        self.emit("%s = linalg.pooling_nchw_%s {dilations = dense<[%d, %d]> : "
                  "tensor<2xi64>, strides = dense<[%d, %d]> : tensor<2xi64>} "
                  "ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                      y, kind, dil[0], dil[1], strides[0], strides[1],
                      self.materialize(xp), win, xp.type, ttype(k), init,
                      ttype(shape), ttype(shape)))
        out = Val(shape, ssa=y)
        if kind == "sum":
            out = self.elementwise([out, Val((), const=np.float32(1.0) /
                                             np.float32(k[0] * k[1]))], [
                "%r = arith.mulf %a0, %a1 : f32", "linalg.yield %r : f32"])
        return out

    def op_MaxPool(self, node, ins, a):
        if len(node.output) > 1 and node.output[1]:
            self.err("the Indices output is not supported")
        if a.get("storage_order", 0):
            self.err("storage_order=1 is not supported")
        return self.pool(node, ins, a, "max")

    def op_AveragePool(self, node, ins, a):
        return self.pool(node, ins, a, "sum")

    def op_GlobalAveragePool(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        axes = list(range(2, len(x.shape)))
        return self.reduce(x, axes, 1, ["%r = arith.addf %a0, %acc : f32",
                                        "linalg.yield %r : f32"], 0.0,
                           scale=np.float32(1.0) / np.float32(
                               np.prod(x.shape[2:])))

    def op_Gather(self, node, ins, a):
        """data[..., indices[...], ...] along `axis` (an embedding lookup
        when data is a constant table and the indices a model input).
        ONNX makes an out-of-range index an error; here it is clamped to
        the axis (no check at run time)."""
        data = self.as_float(ins[0], 0)
        idx = ins[1]
        if idx.kind == "raw":
            arr = np.asarray(idx.const)
            if arr.dtype.kind not in "iu":
                self.err("indices of type %s (expected int64 or int32)"
                         % arr.dtype)
            idx = Val(arr.shape, "index", const=arr.astype(np.int64),
                      fmt="i64")
        elif idx.kind != "index":
            self.err("input 1 (indices) must be int64 or int32")
        R = len(data.shape)
        if not -R <= a.get("axis", 0) < R:
            self.err("axis %d is out of range for rank %d" % (a["axis"], R))
        axis = a.get("axis", 0) % R
        Q = len(idx.shape)
        out = data.shape[:axis] + idx.shape + data.shape[axis + 1:]
        dims = ["d%d" % i for i in range(len(out))]
        n = data.shape[axis]
        src = self.materialize(data, node.input[0])
        body = []
        subs = []
        for i in range(R):
            if i < axis:
                body.append("%%x%d = linalg.index %d : index" % (i, i))
                subs.append("%%x%d" % i)
            elif i == axis:
                subs.append("%ix")
            else:
                k = i - 1 + Q
                body.append("%%x%d = linalg.index %d : index" % (i, k))
                subs.append("%%x%d" % i)
        body += [
            "%%w = arith.index_cast %%a0 : %s to index" % idx.elt,
            "%zero = arith.constant 0 : index",
            "%%n = arith.constant %d : index" % n,
            "%%top = arith.constant %d : index" % (n - 1),
            "%wn = arith.addi %w, %n : index",
            "%neg = arith.cmpi slt, %w, %zero : index",
            "%iw = arith.select %neg, %wn, %w : index",
            "%lo = arith.maxsi %iw, %zero : index",
            "%ix = arith.minsi %lo, %top : index",
            "%%r = tensor.extract %s[%s] : %s" % (src, ", ".join(subs),
                                                  data.type),
            "linalg.yield %r : f32"]
        if idx.const is not None:
            iv = self.fresh("w")
            self.emit("%s = arith.constant %s : %s" % (
                iv, dense_int(idx.const) if idx.const.size else "dense<>",
                idx.type))
            idx.ssa = iv
        v = self.generic([(idx, idx.shape, dims[axis:axis + Q])], out, body,
                         elts=[idx.elt])
        return Val(out, ssa=v)

    def op_Concat(self, node, ins, a):
        vals = [self.as_float(v, i) for i, v in enumerate(ins)]
        R = len(vals[0].shape)
        if "axis" not in a or not -R <= a["axis"] < R:
            self.err("axis %s is missing or out of range for rank %d" % (
                a.get("axis"), R))
        axis = a["axis"] % R
        for v in vals:
            if len(v.shape) != R or any(v.shape[i] != vals[0].shape[i]
                                        for i in range(R) if i != axis):
                self.err("input shapes %s differ outside axis %d" % (
                    [list(v.shape) for v in vals], axis))
        shape = list(vals[0].shape)
        shape[axis] = sum(v.shape[axis] for v in vals)
        cur = self.empty(shape)
        off = 0
        for v in vals:
            offs = [0] * R
            offs[axis] = off
            n = self.fresh("ins")
            self.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s "
                      "into %s" % (n, self.materialize(v), cur,
                                   ", ".join(map(str, offs)),
                                   ", ".join(map(str, v.shape)),
                                   ", ".join(["1"] * R), v.type,
                                   ttype(shape)))
            cur = n
            off += v.shape[axis]
        return Val(shape, ssa=cur)

    def op_Slice(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        R = len(x.shape)
        starts = self.const_of(ins[1], 1, "starts").reshape(-1)
        ends = self.const_of(ins[2], 2, "ends").reshape(-1)
        axes = (self.const_of(ins[3], 3, "axes").reshape(-1)
                if len(ins) > 3 and ins[3] is not None else range(len(starts)))
        steps = (self.const_of(ins[4], 4, "steps").reshape(-1)
                 if len(ins) > 4 and ins[4] is not None else [1] * len(starts))
        off, size, stride = [0] * R, list(x.shape), [1] * R
        for s, e, ax, st in zip(starts, ends, axes, steps):
            ax = int(ax) % R
            if st <= 0:
                self.err("Slice steps must be positive (got %d)" % st)
            n = x.shape[ax]
            s = min(max(int(s) + n if s < 0 else int(s), 0), n)
            e = min(max(int(e) + n if e < 0 else int(e), 0), n)
            off[ax], stride[ax] = s, int(st)
            size[ax] = max(0, -(-(e - s) // int(st)))
        if 0 in size:
            return Val(size, ssa=self.empty(size))  # nothing to read
        v = self.fresh("sl")
        self.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            v, self.materialize(x), ", ".join(map(str, off)),
            ", ".join(map(str, size)), ", ".join(map(str, stride)), x.type,
            ttype(size)))
        return Val(size, ssa=v)

    # -- quantization operators ----------------------------------------------
    def qparams(self, node, ins, shape, fmt, what):
        """(scheme text, scale Val, zero-point Val or None) of a
        Quantize/DequantizeLinear with scale ins[1] and zero point ins[2]
        for a tensor of `shape` (the scale and zero point are constants)."""
        a = self.attrs(node)
        scale = self.const_of(ins[1], 1, "scale")
        if scale.dtype not in (np.float32, np.float16) and \
                scale.dtype.name != "bfloat16":
            self.err("scale of type %s is not supported (float32 or float16)"
                     % scale.dtype)
        s32 = scale.astype(np.float32)
        if not np.all(np.isfinite(s32)) or np.any(s32 <= 0):
            bad = s32.reshape(-1)[~(np.isfinite(s32.reshape(-1)) &
                                    (s32.reshape(-1) > 0))][0]
            self.err("scale %r is not a positive finite number" % float(bad))
        zp = None
        if len(ins) > 2 and ins[2] is not None:
            zp = codes_of(self.const_of(ins[2], 2, "zero point"), fmt)
            if zp.size == 1 and scale.size == 1:
                zp = zp.reshape(scale.shape)  # [1] with a scalar scale
            if zp.shape != scale.shape:
                self.err("zero point shape %s differs from the scale's %s"
                         % (list(zp.shape), list(scale.shape)))
        R = len(shape)
        block = a.get("block_size", 0)
        axis = a.get("axis", 1)
        if scale.ndim == 0 or scale.size == 1 and not block:
            gran = ""
            pshape = ()
        else:
            if R == 0:
                self.err("a per-axis scale on a scalar")
            if not -R <= axis < R:
                self.err("axis %d is out of range for a rank-%d %s" % (
                    axis, R, what))
            axis %= R
            if block:
                if shape[axis] % block:
                    self.err("block_size %d does not divide dimension %d "
                             "(%d) of the %s" % (block, axis, shape[axis],
                                                 what))
                want = list(shape)
                want[axis] //= block
                if list(scale.shape) != want:
                    self.err("blocked scale shape %s, expected %s" % (
                        list(scale.shape), want))
                gran = ", per_group(%d, %d)" % (axis, block)
                pshape = tuple(want)
            else:
                if scale.ndim != 1 or scale.shape[0] != shape[axis]:
                    self.err("per-axis scale of shape %s for axis %d of a %s "
                             "of shape %s" % (list(scale.shape), axis, what,
                                              list(shape)))
                gran = ", per_axis(%d)" % axis
                pshape = (shape[axis],)
        fp8 = fmt.startswith("f8")
        if fp8 and zp is not None and np.any(zp != 0):
            self.err("a non-zero FP8 zero point (octet's FP8 formats are "
                     "symmetric)")
        asym = not fp8 and (fmt in ("u8", "u4") or
                            (zp is not None and np.any(zp != 0)))
        if a.get("saturate", 1) == 0 and fp8:
            gran += ", non_saturating"
        scheme = "<%s%s%s>" % (fmt, gran, ", asymmetric" if asym else "")
        sv = Val(pshape, const=s32.reshape(pshape))
        zv = None
        if asym:
            z = zp if zp is not None else np.zeros(pshape, np.int64)
            lo, hi = FORMATS[fmt][1], FORMATS[fmt][2]
            if np.any(z < lo) or np.any(z > hi):
                self.err("zero point outside the %s range" % fmt)
            zv = Val(pshape, "zp", const=z.reshape(pshape).astype(np.int32))
        return scheme, sv, zv

    def param_text(self, sv, zv):
        t = " scale(%s : %s)" % (self.materialize(sv), sv.type)
        if zv is not None:
            t += " zero_point(%s : %s)" % (self.materialize(zv), zv.type)
        return t

    def op_QuantizeLinear(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        onnx = self.onnx
        if len(ins) > 2 and ins[2] is not None:
            elem = onnx.helper.np_dtype_to_tensor_dtype(
                np.asarray(ins[2].const).dtype)
        else:
            elem = a.get("output_dtype", 0) or onnx.TensorProto.UINT8
        fmt = onnx_format(elem, "node '%s' (QuantizeLinear)" % self.loc)
        scheme, sv, zv = self.qparams(node, ins, x.shape, fmt, "input")
        out = Val(x.shape, "codes", fmt=fmt)
        q = self.fresh("q")
        self.emit("%s = octet.quantize %s%s as %s : %s -> %s" % (
            q, self.materialize(x), self.param_text(sv, zv), scheme, x.type,
            out.type))
        out.ssa = q
        return out

    def op_DequantizeLinear(self, node, ins, a):
        c = ins[0]
        if c.kind == "raw":
            dt = c.const.dtype
            if dt == np.int32:
                # An int32 bias: octet has no int32 format; evaluate it here
                # as ONNX's reference does: (float32(x) - float32(zp)) *
                # scale, the parameters broadcast along `axis`.
                return self.dequantize_int32(ins, a)
            fmt = onnx_format(self.onnx.helper.np_dtype_to_tensor_dtype(dt),
                              "node '%s' (DequantizeLinear) input 0" %
                              self.loc)
            c = Val(c.shape, "codes", const=codes_of(c.const, fmt), fmt=fmt)
        elif c.kind != "codes":
            self.err("input 0 is a float tensor; DequantizeLinear needs "
                     "quantized codes")
        fmt = c.fmt
        out_dtype = a.get("output_dtype", 0)
        if out_dtype not in (0, self.onnx.TensorProto.FLOAT):
            self.err("output_dtype other than float is not supported")
        scheme, sv, zv = self.qparams(node, ins, c.shape, fmt, "input")
        src = self.materialize(c, node.input[0])
        y = self.fresh("dq")
        out = Val(c.shape)
        self.emit("%s = octet.dequantize %s%s as %s : %s -> %s" % (
            y, src, self.param_text(sv, zv), scheme, c.type, out.type))
        out.ssa = y
        return out

    def dequantize_int32(self, ins, a):
        x = np.asarray(ins[0].const)
        scale = self.const_of(ins[1], 1, "scale").astype(np.float32)
        zp = (self.const_of(ins[2], 2, "zero point")
              if len(ins) > 2 and ins[2] is not None else np.zeros((),
                                                                  np.int32))
        if a.get("block_size", 0):
            self.err("a blocked int32 DequantizeLinear is not supported")
        shape = [1] * x.ndim
        if scale.ndim == 1 and scale.size > 1:
            axis = a.get("axis", 1) % max(x.ndim, 1)
            if x.ndim == 0 or x.shape[axis] != scale.size:
                self.err("scale of shape %s does not match axis %d of %s" % (
                    list(scale.shape), axis, list(x.shape)))
            shape[axis] = scale.size
        else:
            shape = []
        sc = scale.reshape(shape)
        z = np.asarray(zp).astype(np.float32).reshape(shape if zp.size > 1
                                                      else [])
        return Val(x.shape, const=((x.astype(np.float32) - z) * sc)
                   .astype(np.float32))

    def op_DynamicQuantizeLinear(self, node, ins, a):
        x = self.as_float(ins[0], 0)
        scheme = "<u8, asymmetric>"
        s, z, q = self.fresh("s"), self.fresh("z"), self.fresh("q")
        xs = self.materialize(x)
        self.emit("%s, %s = octet.compute_params %s as %s : %s -> tensor<f32>, "
                  "tensor<i32>" % (s, z, xs, scheme, x.type))
        out = Val(x.shape, "codes", fmt="u8")
        self.emit("%s = octet.quantize %s scale(%s : tensor<f32>) zero_point("
                  "%s : tensor<i32>) as %s : %s -> %s" % (
                      q, xs, s, z, scheme, x.type, out.type))
        out.ssa = q
        return [out, Val((), ssa=s), Val((), "zp", ssa=z)]

    def zp_as_float(self, v):
        f = self.fresh("zf")
        self.emit("%s = arith.sitofp %s : tensor<i32> to tensor<f32>"
                  % (f, self.materialize(v)))
        return Val(v.shape, ssa=f)

    def integer_operand(self, v, i, what):
        """A MatMulInteger / QLinearMatMul code operand -> codes Val."""
        if v.kind == "raw":
            fmt = onnx_format(self.onnx.helper.np_dtype_to_tensor_dtype(
                v.const.dtype), "node '%s' input %d" % (self.loc, i))
            return Val(v.shape, "codes", const=codes_of(v.const, fmt),
                       fmt=fmt)
        if v.kind != "codes" or v.fmt not in ("i8", "u8"):
            self.err("input %d (%s) must be int8 or uint8 codes" % (i, what))
        return v

    def zp_operand(self, v, i, fmt, shape_like):
        """A zero-point input (constant or DynamicQuantizeLinear's) -> Val
        of i32 with shape `shape_like` (() or (N,))."""
        if v is None:
            return Val(shape_like, "zp", const=np.zeros(shape_like,
                                                        np.int32))
        if v.kind == "zp":
            if shape_like != ():
                self.err("input %d: a run-time zero point must be a scalar"
                         % i)
            return v
        z = codes_of(self.const_of(v, i, "zero point"), fmt).astype(np.int32)
        if z.size == 1:
            z = z.reshape(())
        if z.shape != shape_like and not (z.shape == () and shape_like):
            self.err("input %d: zero point of shape %s is not supported "
                     "(per tensor, or per column of B)" % (i, list(z.shape)))
        if z.shape == () and shape_like:
            z = np.full(shape_like, int(z), np.int32)
        return Val(shape_like, "zp", const=z)

    def scale_operand(self, v, i, shape_like):
        if v.kind == "f32" and v.const is None:
            if shape_like != ():
                self.err("input %d: a run-time scale must be a scalar" % i)
            return v
        s = np.asarray(self.const_of(v, i, "scale")).astype(np.float32)
        if s.size == 1:
            s = np.full(shape_like, s.reshape(-1)[0], np.float32)
        if s.shape != shape_like:
            self.err("input %d: scale of shape %s is not supported" % (
                i, list(s.shape)))
        return Val(shape_like, const=s)

    def int_matmul(self, a, b, sa, za, sb, zb, out=None):
        """octet.matmul of codes a [.., K] x b [K, N] -> Val [.., N]."""
        if len(b.shape) != 2 or len(a.shape) < 2:
            self.err("only A [.., K] x B [K, N] is supported (shapes %s x "
                     "%s)" % (list(a.shape), list(b.shape)))
        K, N = b.shape
        if a.shape[-1] != K:
            self.err("inner dimensions differ (%s x %s)" % (list(a.shape),
                                                             list(b.shape)))
        M = int(np.prod(a.shape[:-1]))
        a2 = self.reshape(a, [M, K])
        if sb.shape != zb.shape:
            # one per-column, the other per-tensor: both per column
            if sb.const is None or zb.const is None:
                self.err("per-tensor and per-column rhs parameters mixed")
            sb = Val((N,), const=np.broadcast_to(np.asarray(sb.const),
                                                 (N,)).astype(np.float32))
            zb = Val((N,), "zp", const=np.broadcast_to(np.asarray(zb.const),
                                                       (N,)).astype(np.int32))
        lsch = "<%s, asymmetric>" % a.fmt
        # A signed rhs whose zero point is a constant 0 is symmetric (no
        # zero-point operand): the same numbers, and the form the CPU's
        # INT8 kernels take (an asymmetric rhs goes the generic way).
        rsym = b.fmt == "i8" and zb.const is not None and \
            not np.any(np.asarray(zb.const))
        rsch = "<%s%s%s>" % (b.fmt, "" if sb.shape == () else
                             ", per_axis(1)", "" if rsym else ", asymmetric")
        tail, elt = "", "f32"
        if out is not None:
            so, zo, fo = out
            tail = (" out_scale(%s : %s) out_zero_point(%s : %s) out_scheme "
                    "<%s, asymmetric>" % (self.materialize(so), so.type,
                                          self.materialize(zo), zo.type, fo))
            elt = "i8"
        y_t = ttype((M, N), elt)
        y = self.fresh("imm")
        self.emit("%s = octet.matmul %s, %s lhs_scale(%s : %s) lhs_zero_point("
                  "%s : %s) lhs_scheme %s rhs_scale(%s : %s)%s rhs_scheme %s%s : "
                  "%s, %s -> %s" % (
                      y, self.materialize(a2), self.materialize(b, "B"),
                      self.materialize(sa), sa.type, self.materialize(za),
                      za.type, lsch, self.materialize(sb), sb.type,
                      "" if rsym else " rhs_zero_point(%s : %s)" % (
                          self.materialize(zb), zb.type), rsch, tail,
                      a2.type, b.type, y_t))
        kind = "codes" if out is not None else "acc"
        v = Val((M, N), kind, ssa=y, fmt=out[2] if out is not None else None)
        return self.reshape(v, a.shape[:-1] + (N,))

    def op_MatMulInteger(self, node, ins, a):
        A = self.integer_operand(ins[0], 0, "A")
        B = self.integer_operand(ins[1], 1, "B")
        if B.ssa is not None:
            self.err("B must be a constant (a weight)")
        N = B.shape[-1]
        za = self.zp_operand(ins[2] if len(ins) > 2 else None, 2, A.fmt, ())
        zbv = ins[3] if len(ins) > 3 else None
        per_col = zbv is not None and np.asarray(zbv.const).size > 1
        zb = self.zp_operand(zbv, 3, B.fmt, (N,) if per_col else ())
        if not self.only_cast_to_float(node.output[0]):
            # The int32 result itself is used: an exact i32 matmul of the
            # codes minus their zero points.
            return self.integer_matmul_i32(A, B, za, zb)
        chain = self.rescale_of(node.output[0], node.input[0], N)
        if chain and chain[2].shape != zb.shape and zb.shape != ():
            chain = None
        if chain:
            # ONNX Runtime's Cast -> Mul(a_scale * b_scale) chain: the
            # scales go into the octet.matmul (its epilogue computes
            # float(acc) * (sa * sb), the chain's value), so that a bias
            # add and ReLU after it fold in too.
            y = self.int_matmul(A, B, chain[1], za, chain[2], zb)
            self.precomputed[chain[0].output[0]] = Val(y.shape, ssa=y.ssa)
            return y
        one = Val((), const=np.float32(1.0))
        sb = Val(zb.shape, const=np.ones(zb.shape, np.float32))
        # Unit scales: the result is float(acc), what Cast(to=float) of
        # MatMulInteger's int32 gives (every use is such a Cast).
        return self.int_matmul(A, B, one, za, sb, zb)

    def integer_matmul_i32(self, A, B, za, zb):
        """MatMulInteger by its definition: an i32 linalg.matmul of
        (A - a_zero_point) and (B - b_zero_point) (zb per column)."""
        if len(B.shape) != 2 or len(A.shape) < 2 or A.shape[-1] != B.shape[0]:
            self.err("only A [.., K] x B [K, N] is supported (shapes %s x "
                     "%s)" % (list(A.shape), list(B.shape)))
        K, N = B.shape
        M = int(np.prod(A.shape[:-1]))
        a2 = self.centered(self.reshape(A, [M, K]), za, "a")
        # per-column zero points index dimension 1 of B
        ext = "extui" if B.fmt == "u8" else "extsi"
        bm = self.generic([(B, B.shape, ["d0", "d1"]),
                           (zb, zb.shape, [] if zb.shape == () else ["d1"])],
                          B.shape, ["%%e = arith.%s %%a0 : i8 to i32" % ext,
                                    "%r = arith.subi %e, %a1 : i32",
                                    "linalg.yield %r : i32"],
                          elts=["i8", "i32"], out_elt="i32")
        e = self.empty((M, N), "i32")
        c = self.fresh("c")
        self.emit("%s = arith.constant 0 : i32" % c)
        z = self.fresh("z")
        self.emit("%s = linalg.fill ins(%s : i32) outs(%s : %s) -> %s" % (
            z, c, e, ttype((M, N), "i32"), ttype((M, N), "i32")))
        y = self.fresh("imm")
        self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> "
                  "%s" % (y, a2.ssa, bm, ttype((M, K), "i32"),
                          ttype((K, N), "i32"), z, ttype((M, N), "i32"),
                          ttype((M, N), "i32")))
        return self.reshape(Val((M, N), "i32", ssa=y), A.shape[:-1] + (N,))

    def op_QLinearMatMul(self, node, ins, a):
        A = self.integer_operand(ins[0], 0, "a")
        B = self.integer_operand(ins[3], 3, "b")
        if B.ssa is not None:
            self.err("b must be a constant (a weight)")
        N = B.shape[-1]
        per_col = np.asarray(self.const_of(ins[4], 4, "b_scale")).size > 1
        pshape = (N,) if per_col else ()
        sa = self.scale_operand(ins[1], 1, ())
        za = self.zp_operand(ins[2], 2, A.fmt, ())
        sb = self.scale_operand(ins[4], 4, pshape)
        zb = self.zp_operand(ins[5], 5, B.fmt, pshape)
        fy = onnx_format(self.onnx.helper.np_dtype_to_tensor_dtype(
            np.asarray(self.const_of(ins[7], 7, "y_zero_point")).dtype),
            "node '%s' y_zero_point" % self.loc)
        so = self.scale_operand(ins[6], 6, ())
        zo = self.zp_operand(ins[7], 7, fy, ())
        return self.int_matmul(A, B, sa, za, sb, zb, out=(so, zo, fy))


def _register_simple():
    bins = {"Add": "addf", "Sub": "subf", "Mul": "mulf", "Div": "divf",
            "Max": "maximumf", "Min": "minimumf", "Pow": "powf"}
    for op, fn in bins.items():
        def h(self, node, ins, a, fn=fn, op=op):
            if op in ("Max", "Min") and len(ins) != 2:
                # variadic: a chain of binary ops (max / min are exact)
                vals = [self.as_float(v, i) for i, v in enumerate(ins)]
                acc = vals[0]
                for v in vals[1:]:
                    acc = self.elementwise([acc, v], [
                        "%%r = arith.%s %%a0, %%a1 : f32" % fn,
                        "linalg.yield %r : f32"])
                return acc
            if op == "Pow":
                e = ins[1]
                if e.const is not None and \
                        np.asarray(e.const).size == 1:
                    p = float(np.asarray(e.const).reshape(-1)[0])
                    if p == 2.0:
                        return self.unary(["%r = arith.mulf %a0, %a0 : f32"])(
                            node, ins[:1], a)
                    if p == 0.5:
                        return self.unary(["%r = math.sqrt %a0 : f32"])(
                            node, ins[:1], a)
                self.err("Pow is supported with a constant exponent of 2 or "
                         "0.5")
            return self.binary(fn)(node, ins, a)
        setattr(Importer, "op_" + op, h)
    unaries = {
        "Neg": ["%r = arith.negf %a0 : f32"],
        "Abs": ["%r = math.absf %a0 : f32"],
        "Exp": ["%r = math.exp %a0 : f32"],
        "Log": ["%r = math.log %a0 : f32"],
        "Sqrt": ["%r = math.sqrt %a0 : f32"],
        "Tanh": ["%r = math.tanh %a0 : f32"],
        "Reciprocal": ["%one = arith.constant 1.0 : f32",
                       "%r = arith.divf %one, %a0 : f32"],
    }
    for op, lines in unaries.items():
        def h(self, node, ins, a, lines=lines):
            return self.unary(lines)(node, ins, a)
        setattr(Importer, "op_" + op, h)


_register_simple()
SUPPORTED = sorted(n[3:] for n in dir(Importer) if n.startswith("op_")) + \
    ["Constant", "Shape"]


def window_expr(out, stride, k, dil):
    """The input index out * stride + k * dil of a window (affine)."""
    a = out if stride == 1 else "%s * %d" % (out, stride)
    b = k if dil == 1 else "%s * %d" % (k, dil)
    return "%s + %s" % (a, b)


def dense_int(arr):
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return "dense<%d>" % int(arr)
    return "dense<%s>" % _nested(arr, lambda v: "%d" % int(v))


def dense_float(arr):
    arr = np.asarray(arr, np.float32)
    if arr.ndim == 0:
        return "dense<%s>" % f32(arr)
    return "dense<%s>" % _nested(arr, f32)


def _nested(arr, fmt):
    if arr.ndim == 1:
        return "[" + ", ".join(fmt(v) for v in arr) + "]"
    return "[" + ", ".join(_nested(a, fmt) for a in arr) + "]"


def resources_text(resources):
    if not resources:
        return ""
    out = ["{-#", "  dialect_resources: {", "    builtin: {"]
    for i, (key, align, data) in enumerate(resources):
        out.append('      %s: "0x%08X%s"%s' % (
            key, int.from_bytes(align.to_bytes(4, "little"), "big"),
            data.hex().upper(), "," if i + 1 < len(resources) else ""))
    out += ["    }", "  }", "#-}", ""]
    return "\n".join(out)


def static_shape(tt, where):
    if not tt.HasField("shape"):
        raise OnnxImportError("%s: the shape is unknown (give it with "
                              "--shape NAME=D0xD1...)" % where)
    dims = []
    for i, d in enumerate(tt.shape.dim):
        if d.HasField("dim_value") and d.dim_value > 0:
            dims.append(d.dim_value)
        else:
            raise OnnxImportError(
                "%s: dimension %d is %s; give a static shape with --shape "
                "NAME=D0xD1..." % (where, i, "'%s'" % d.dim_param
                                   if d.dim_param else "unknown"))
    return tuple(dims)


def parse_shapes(specs):
    out = {}
    for s in specs or []:
        m = re.fullmatch(r"([^=]+)=(\d+(?:x\d+)*)", s)
        if not m:
            raise OnnxImportError("--shape '%s': expected NAME=D0xD1x..." % s)
        out[m.group(1)] = [int(d) for d in m.group(2).split("x")]
    return out


def one_line(e, limit=400):
    """An exception's message on one line (at most `limit` characters)."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def load_model(path, shapes, data=None):
    """The checked, shape-inferred model (OnnxImportError on any problem);
    `data`: the file's bytes (then `path` only names it)."""
    onnx = _onnx()
    if data is None and not os.path.isfile(path):
        raise OnnxImportError("no such file")
    try:
        model = (onnx.load_model_from_string(data) if data is not None else
                 onnx.load(path))
    except Exception as e:  # noqa: BLE001  (protobuf DecodeError, OSError)
        raise OnnxImportError("not a readable ONNX model (%s)" % (
            str(e).splitlines()[0] if str(e) else type(e).__name__))
    if not model.HasField("graph"):
        raise OnnxImportError("not an ONNX model (no graph)")
    names = {i.name for i in model.graph.input}
    for name, dims in shapes.items():
        if name not in names:
            raise OnnxImportError("--shape: the model has no input '%s' "
                                  "(inputs: %s)" % (name, ", ".join(
                                      sorted(names))))
        for i in model.graph.input:
            if i.name == name:
                shp = i.type.tensor_type.shape
                if len(shp.dim) != len(dims):
                    raise OnnxImportError(
                        "--shape %s: %d dimensions given, the input has %d"
                        % (name, len(dims), len(shp.dim)))
                for d, v in zip(shp.dim, dims):
                    d.Clear()
                    d.dim_value = v
    try:
        onnx.checker.check_model(model)
    except Exception as e:  # noqa: BLE001
        raise OnnxImportError("the ONNX checker rejects it: %s" %
                              one_line(e))
    try:
        model = onnx.shape_inference.infer_shapes(model, check_type=True,
                                                  strict_mode=True)
    except Exception as e:  # noqa: BLE001
        raise OnnxImportError("shape inference fails: %s" % one_line(e))
    return model


def import_onnx(path, shapes=None, entry="main", data=None, conv="im2col"):
    """MLIR text of the model at `path` (or of the bytes `data`; raises
    OnnxImportError)."""
    model = load_model(path, shapes or {}, data)
    return Importer(model, path, entry, conv).run()


def describe(path, shapes):
    model = load_model(path, shapes)
    g = model.graph
    ops = {}
    for n in g.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    inits = {t.name for t in g.initializer}
    lines = ["inputs:"]
    for i in g.input:
        if i.name not in inits:
            lines.append("  %s %s" % (i.name, [d.dim_value or d.dim_param
                                               for d in i.type.tensor_type
                                               .shape.dim]))
    lines.append("outputs: %s" % ", ".join(o.name for o in g.output))
    lines.append("operators: %s" % ", ".join("%s x%d" % kv for kv in
                                            sorted(ops.items())))
    missing = sorted(set(ops) - set(SUPPORTED))
    lines.append("not supported: %s" % (", ".join(missing) or "none"))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog=TOOL, description="An ONNX model as MLIR for Octet (linalg on "
        "tensors; QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear "
        "/ MatMulInteger / QLinearMatMul as octet ops).")
    ap.add_argument("model", help="the .onnx file")
    ap.add_argument("-o", "--output", default="-",
                    help="output MLIR file (default: stdout)")
    ap.add_argument("--entry", default="main",
                    help="name of the function (default: main)")
    ap.add_argument("--shape", action="append", metavar="NAME=D0xD1...",
                    help="static shape of an input with symbolic dimensions "
                    "(repeatable)")
    ap.add_argument("--conv", choices=("im2col", "direct"), default="im2col",
                    help="Conv / ConvInteger as a patch gather and one matmul "
                    "(im2col, the default: octet's GEMM kernels and "
                    "octet-fold-scales take it) or as linalg's convolution "
                    "(direct)")
    ap.add_argument("--describe", action="store_true",
                    help="print the inputs, outputs and operators, and which "
                    "operators are not supported; write nothing")
    args = ap.parse_args(argv)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", args.entry):
        sys.stderr.write("%s: error: --entry '%s' is not a valid symbol name\n"
                         % (TOOL, args.entry))
        return 1
    try:
        shapes = parse_shapes(args.shape)
        if args.describe:
            sys.stdout.write(describe(args.model, shapes))
            return 0
        text = import_onnx(args.model, shapes, args.entry, conv=args.conv)
    except OnnxImportError as e:
        sys.stderr.write("%s: error: %s: %s\n" % (TOOL, args.model, e))
        return 1
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    d = os.path.dirname(os.path.abspath(args.output))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".octet-import-onnx-")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, args.output)
    except OSError as e:
        if tmp and os.path.exists(tmp):
            os.remove(tmp)
        sys.stderr.write("%s: error: cannot write %s: %s\n" % (
            TOOL, args.output, e.strerror or e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
