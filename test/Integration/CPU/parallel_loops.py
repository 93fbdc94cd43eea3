"""octet-parallelize-loops (part of octet-lower-to-host) against numpy
oracles, bit for bit.

usage: parallel_loops.py [CASE...]

Each case is a small function of element-wise ops, reductions, transposes
and a per-row quantize, written with IEEE-exact arith ops only (add, mul,
div, sqrt, roundeven, min/max, conversions), so numpy float32 arithmetic in
the same order is an exact oracle. Every case is JIT-run by octet-run with
the host pipeline; the split itself is checked by lowering with octet-opt
and looking for the outlined task functions (or their absence, for the ops
that must stay serial). OCTET_NUM_THREADS is left to the caller (the lit
test runs 1, 2 and 3 threads).
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

import octet_oracle as o

rng = np.random.default_rng(20261129)
F = np.float32


def t(shape, elt="f32"):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elt)


def values(shape):
    v = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 7, shape))
    return v.astype(F)


def layernorm_oracle(x, eps=F(1.0e-5)):
    """(x - mean) / sqrt(var + eps) over the last axis in float32, the sums
    in k order as the generated loops add them."""
    n = x.shape[-1]
    nf = F(n)
    ssum = np.zeros(x.shape[:-1], F)
    for k in range(n):
        ssum = (ssum + x[..., k]).astype(F)
    mean = (ssum / nf).astype(F)
    var = np.zeros(x.shape[:-1], F)
    for k in range(n):
        d = (x[..., k] - mean).astype(F)
        var = (var + (d * d).astype(F)).astype(F)
    sd = np.sqrt(((var / nf).astype(F) + eps).astype(F)).astype(F)
    return ((x - mean[..., None]).astype(F) / sd[..., None]).astype(F)


# --- cases: (module text, inputs, oracle outputs, parallel tasks expected) --

def bias_index_2d():
    """(x + b) * c + float(row): a broadcast operand, a scalar argument
    captured by the region and linalg.index of the split loop."""
    m, n = 1000, 77
    x, b = values((m, n)), values((n,))
    c = F(0.75)
    text = """
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @main(%%x: %(x)s, %%b: %(b)s, %%c: f32) -> %(x)s {
  %%e = tensor.empty() : %(x)s
  %%y = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%x, %%b : %(x)s, %(b)s) outs(%%e : %(x)s) {
  ^bb0(%%a: f32, %%bb: f32, %%o: f32):
    %%0 = arith.addf %%a, %%bb : f32
    %%1 = arith.mulf %%0, %%c : f32
    %%i = linalg.index 0 : index
    %%ii = arith.index_cast %%i : index to i32
    %%fi = arith.sitofp %%ii : i32 to f32
    %%2 = arith.addf %%1, %%fi : f32
    linalg.yield %%2 : f32
  } -> %(x)s
  return %%y : %(x)s
}
""" % {"x": t((m, n)), "b": t((n,))}
    rows = np.arange(m, dtype=F)[:, None]
    want = ((x + b) * c + rows).astype(F)
    return text, [x, b, np.array(c, F)], [want], True


def layernorm_3d():
    """Mean, variance and (x - mean) / sqrt(var + eps) over the last axis
    of a 37 x 29 x 53 tensor: reductions after a two-loop split (37 < 64
    rows, so the prefix is two loops)."""
    a, s, n = 37, 29, 53
    x = values((a, s, n))
    x3, x2 = t((a, s, n)), t((a, s))
    text = """
#id = affine_map<(i, j, k) -> (i, j, k)>
#red = affine_map<(i, j, k) -> (i, j)>
func.func @main(%%x: %(x3)s) -> %(x3)s {
  %%zero = arith.constant 0.0 : f32
  %%nf = arith.constant %(n)d.0 : f32
  %%eps = arith.constant 1.0e-5 : f32
  %%e2 = tensor.empty() : %(x2)s
  %%z2 = linalg.fill ins(%%zero : f32) outs(%%e2 : %(x2)s) -> %(x2)s
  %%sum = linalg.generic {indexing_maps = [#id, #red],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%%x : %(x3)s) outs(%%z2 : %(x2)s) {
  ^bb0(%%v: f32, %%acc: f32):
    %%0 = arith.addf %%acc, %%v : f32
    linalg.yield %%0 : f32
  } -> %(x2)s
  %%var = linalg.generic {indexing_maps = [#id, #red, #red],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%%x, %%sum : %(x3)s, %(x2)s) outs(%%z2 : %(x2)s) {
  ^bb0(%%v: f32, %%s: f32, %%acc: f32):
    %%mean = arith.divf %%s, %%nf : f32
    %%d = arith.subf %%v, %%mean : f32
    %%d2 = arith.mulf %%d, %%d : f32
    %%0 = arith.addf %%acc, %%d2 : f32
    linalg.yield %%0 : f32
  } -> %(x2)s
  %%e3 = tensor.empty() : %(x3)s
  %%y = linalg.generic {indexing_maps = [#id, #red, #red, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%x, %%sum, %%var : %(x3)s, %(x2)s, %(x2)s) outs(%%e3 : %(x3)s) {
  ^bb0(%%v: f32, %%s: f32, %%q: f32, %%o: f32):
    %%mean = arith.divf %%s, %%nf : f32
    %%d = arith.subf %%v, %%mean : f32
    %%vn = arith.divf %%q, %%nf : f32
    %%ve = arith.addf %%vn, %%eps : f32
    %%sd = math.sqrt %%ve : f32
    %%0 = arith.divf %%d, %%sd : f32
    linalg.yield %%0 : f32
  } -> %(x3)s
  return %%y : %(x3)s
}
""" % {"x3": x3, "x2": x2, "n": n}
    return text, [x], [layernorm_oracle(x)], True


def layernorm_rows():
    """LayerNorm's statistics over 300 rows of 53: octet-vectorize-row-
    reductions takes 16 rows per vector (whole 16 x 16 squares transposed
    in registers, then the last 5 elements of each row gathered), the rows
    past the last whole group run the scalar op; a per-column weight g[k]
    is broadcast. Each row's sum must keep its k order, bit for bit."""
    m, n = 300, 53
    x, g = values((m, n)), values((n,))
    text = """
#id = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
#col = affine_map<(i, k) -> (k)>
func.func @main(%%x: %(x)s, %%g: %(g)s) -> (%(r)s, %(r)s) {
  %%zero = arith.constant 0.0 : f32
  %%nf = arith.constant %(n)d.0 : f32
  %%e = tensor.empty() : %(r)s
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : %(r)s) -> %(r)s
  %%sum = linalg.generic {indexing_maps = [#id, #col, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%%x, %%g : %(x)s, %(g)s) outs(%%z : %(r)s) {
  ^bb0(%%v: f32, %%w: f32, %%acc: f32):
    %%0 = arith.mulf %%v, %%w : f32
    %%1 = arith.addf %%acc, %%0 : f32
    linalg.yield %%1 : f32
  } -> %(r)s
  %%var = linalg.generic {indexing_maps = [#id, #row, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%%x, %%sum : %(x)s, %(r)s) outs(%%z : %(r)s) {
  ^bb0(%%v: f32, %%s: f32, %%acc: f32):
    %%mean = arith.divf %%s, %%nf : f32
    %%d = arith.subf %%v, %%mean : f32
    %%d2 = arith.mulf %%d, %%d : f32
    %%0 = arith.addf %%acc, %%d2 : f32
    linalg.yield %%0 : f32
  } -> %(r)s
  return %%sum, %%var : %(r)s, %(r)s
}
""" % {"x": t((m, n)), "g": t((n,)), "r": t((m,)), "n": n}
    ssum = np.zeros(m, F)
    for k in range(n):
        ssum = (ssum + (x[:, k] * g[k]).astype(F)).astype(F)
    mean = (ssum / F(n)).astype(F)
    var = np.zeros(m, F)
    for k in range(n):
        d = (x[:, k] - mean).astype(F)
        var = (var + (d * d).astype(F)).astype(F)
    return text, [x, g], [ssum, var], True


def softmax_rows():
    """Softmax's row max and sum of (x - max) over the last axis of a
    3 x 5 x 40 x 32 tensor (attention's batch, heads, queries, keys): the
    two leading loops stay loops, the 40 queries go 16 per vector (two
    groups, then 8 rows of the scalar op), the 32 keys two squares. Then
    (x - max) / sum + mask[b, k], element-wise on rows of 32 (vector
    loads along the keys; max and sum one value per vector, the mask
    indexed by batch and key)."""
    shape = (3, 5, 40, 32)
    x = values(shape)
    mask = values((shape[0], shape[3]))
    x4, x3, x2 = t(shape), t(shape[:3]), t((shape[0], shape[3]))
    text = """
#id = affine_map<(b, h, q, k) -> (b, h, q, k)>
#red = affine_map<(b, h, q, k) -> (b, h, q)>
#bk = affine_map<(b, h, q, k) -> (b, k)>
func.func @main(%%x: %(x4)s, %%mask: %(x2)s) -> (%(x3)s, %(x3)s, %(x4)s) {
  %%zero = arith.constant 0.0 : f32
  %%ninf = arith.constant 0xFF800000 : f32
  %%e = tensor.empty() : %(x3)s
  %%lo = linalg.fill ins(%%ninf : f32) outs(%%e : %(x3)s) -> %(x3)s
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : %(x3)s) -> %(x3)s
  %%max = linalg.generic {indexing_maps = [#id, #red],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%%x : %(x4)s) outs(%%lo : %(x3)s) {
  ^bb0(%%v: f32, %%acc: f32):
    %%0 = arith.maximumf %%acc, %%v : f32
    linalg.yield %%0 : f32
  } -> %(x3)s
  %%sum = linalg.generic {indexing_maps = [#id, #red, #red],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%%x, %%max : %(x4)s, %(x3)s) outs(%%z : %(x3)s) {
  ^bb0(%%v: f32, %%mx: f32, %%acc: f32):
    %%d = arith.subf %%v, %%mx : f32
    %%0 = arith.addf %%acc, %%d : f32
    linalg.yield %%0 : f32
  } -> %(x3)s
  %%e4 = tensor.empty() : %(x4)s
  %%y = linalg.generic {indexing_maps = [#id, #red, #red, #bk, #id],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%%x, %%max, %%sum, %%mask : %(x4)s, %(x3)s, %(x3)s, %(x2)s)
      outs(%%e4 : %(x4)s) {
  ^bb0(%%v: f32, %%mx: f32, %%s: f32, %%m: f32, %%o: f32):
    %%d = arith.subf %%v, %%mx : f32
    %%q = arith.divf %%d, %%s : f32
    %%0 = arith.addf %%q, %%m : f32
    linalg.yield %%0 : f32
  } -> %(x4)s
  return %%max, %%sum, %%y : %(x3)s, %(x3)s, %(x4)s
}
""" % {"x4": x4, "x3": x3, "x2": x2}
    mx = x.max(axis=3).astype(F)
    ssum = np.zeros(shape[:3], F)
    for k in range(shape[3]):
        ssum = (ssum + (x[..., k] - mx).astype(F)).astype(F)
    y = ((x - mx[..., None]).astype(F) / ssum[..., None]).astype(F)
    y = (y + mask[:, None, None, :]).astype(F)
    return text, [x, mask], [mx, ssum, y], True


def column_sums():
    """A reduction over the first loop ([reduction, parallel]): no loop can
    be split (the output does not index d0), so it stays serial."""
    m, n = 700, 300
    x = values((m, n))
    text = """
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @main(%%x: %(x)s) -> %(c)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(c)s
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : %(c)s) -> %(c)s
  %%s = linalg.generic {indexing_maps = [#id, #col],
                       iterator_types = ["reduction", "parallel"]}
      ins(%%x : %(x)s) outs(%%z : %(c)s) {
  ^bb0(%%v: f32, %%acc: f32):
    %%0 = arith.addf %%acc, %%v : f32
    linalg.yield %%0 : f32
  } -> %(c)s
  return %%s : %(c)s
}
""" % {"x": t((m, n)), "c": t((n,))}
    want = np.zeros((n,), F)
    for i in range(m):
        want = (want + x[i]).astype(F)
    return text, [x], [want], False


def transpose_4d():
    """Attention's head transpose [0, 2, 1, 3] of an 8 x 16 x 12 x 32
    tensor, then an element-wise op in place on the result."""
    shape = (8, 16, 12, 32)
    x = values(shape)
    out = (8, 12, 16, 32)
    text = """
#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
func.func @main(%%x: %(x)s) -> %(y)s {
  %%two = arith.constant 2.0 : f32
  %%e = tensor.empty() : %(y)s
  %%tr = linalg.transpose ins(%%x : %(x)s) outs(%%e : %(y)s)
         permutation = [0, 2, 1, 3]
  %%y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%%tr : %(y)s) outs(%%tr : %(y)s) {
  ^bb0(%%v: f32, %%o: f32):
    %%0 = arith.mulf %%v, %%two : f32
    %%1 = arith.subf %%0, %%o : f32
    %%2 = arith.mulf %%1, %%v : f32
    linalg.yield %%2 : f32
  } -> %(y)s
  return %%y : %(y)s
}
""" % {"x": t(shape), "y": t(out)}
    tr = np.ascontiguousarray(x.transpose(0, 2, 1, 3))
    want = (((tr * F(2)).astype(F) - tr).astype(F) * tr).astype(F)
    return text, [x], [want], True


def _dynamic(m, n):
    x = values((m, n))
    text = """
#id = affine_map<(i, j) -> (i, j)>
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.mulf %v, %v : f32
    %1 = arith.addf %0, %one : f32
    linalg.yield %1 : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
"""
    want = ((x * x).astype(F) + F(1)).astype(F)
    return text, [x], [want], True


def dynamic_large():
    """Dynamic shapes, 300 x 500: the run-time work check takes the pool."""
    return _dynamic(300, 500)


def dynamic_small():
    """Dynamic shapes, 3 x 5: the run-time check runs the task inline."""
    return _dynamic(3, 5)


def quantize_rows():
    """Per-row (per-token) dynamic quantize to i8: absmax over the row,
    scale = absmax / 127, q = clamp(roundeven(x / scale))."""
    m, n = 513, 384
    x = values((m, n))
    x[7] = 0  # a zero row: scale 0 -> guarded to 1
    text = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#vec = affine_map<(i) -> (i)>
func.func @main(%%x: %(x)s) -> (%(q)s, %(s)s) {
  %%zero = arith.constant 0.0 : f32
  %%one = arith.constant 1.0 : f32
  %%qmax = arith.constant 127.0 : f32
  %%qmin = arith.constant -128.0 : f32
  %%e = tensor.empty() : %(s)s
  %%z = linalg.fill ins(%%zero : f32) outs(%%e : %(s)s) -> %(s)s
  %%amax = linalg.generic {indexing_maps = [#id, #row],
                          iterator_types = ["parallel", "reduction"]}
      ins(%%x : %(x)s) outs(%%z : %(s)s) {
  ^bb0(%%v: f32, %%acc: f32):
    %%a = math.absf %%v : f32
    %%0 = arith.maxnumf %%acc, %%a : f32
    linalg.yield %%0 : f32
  } -> %(s)s
  %%scale = linalg.generic {indexing_maps = [#vec, #vec],
                           iterator_types = ["parallel"]}
      ins(%%amax : %(s)s) outs(%%e : %(s)s) {
  ^bb0(%%a: f32, %%o: f32):
    %%0 = arith.divf %%a, %%qmax : f32
    %%isz = arith.cmpf oeq, %%0, %%zero : f32
    %%1 = arith.select %%isz, %%one, %%0 : f32
    linalg.yield %%1 : f32
  } -> %(s)s
  %%eq = tensor.empty() : %(q)s
  %%q = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%x, %%scale : %(x)s, %(s)s) outs(%%eq : %(q)s) {
  ^bb0(%%v: f32, %%sc: f32, %%o: i8):
    %%0 = arith.divf %%v, %%sc : f32
    %%1 = math.roundeven %%0 : f32
    %%2 = arith.maximumf %%1, %%qmin : f32
    %%3 = arith.minimumf %%2, %%qmax : f32
    %%4 = arith.fptosi %%3 : f32 to i8
    linalg.yield %%4 : i8
  } -> %(q)s
  return %%q, %%scale : %(q)s, %(s)s
}
""" % {"x": t((m, n)), "q": t((m, n), "i8"), "s": t((m,))}
    amax = np.abs(x).max(axis=1).astype(F)
    scale = (amax / F(127)).astype(F)
    scale[scale == 0] = F(1)
    q = np.clip(np.rint((x / scale[:, None]).astype(F)), -128, 127)
    return text, [x], [q.astype(np.int8), scale], True


def embedding_gather():
    """An embedding lookup: the payload reads the table (a buffer from
    above, passed to the task) at the token's row."""
    b, n, v, d = 40, 30, 1000, 64
    ids = rng.integers(0, v, (b, n)).astype(np.int32)
    table = values((v, d))
    text = """
#ids = affine_map<(i, j, k) -> (i, j)>
#out = affine_map<(i, j, k) -> (i, j, k)>
func.func @main(%%ids: %(ids)s, %%table: %(tab)s) -> %(out)s {
  %%half = arith.constant 0.5 : f32
  %%e = tensor.empty() : %(out)s
  %%y = linalg.generic {indexing_maps = [#ids, #out],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%ids : %(ids)s) outs(%%e : %(out)s) {
  ^bb0(%%id: i32, %%o: f32):
    %%row = arith.index_cast %%id : i32 to index
    %%col = linalg.index 2 : index
    %%v = tensor.extract %%table[%%row, %%col] : %(tab)s
    %%0 = arith.mulf %%v, %%half : f32
    linalg.yield %%0 : f32
  } -> %(out)s
  return %%y : %(out)s
}
""" % {"ids": t((b, n), "i32"), "tab": t((v, d)), "out": t((b, n, d))}
    want = (table[ids] * F(0.5)).astype(F)
    return text, [ids, table], [want], True


def residual_layernorm():
    """A residual add, LayerNorm's sum, mean, sum of squares and the
    normalization over 300 rows of 64, each a separate op: row-local, so
    one task function runs chunks of rows through all five (the fills'
    copies join as linalg.copy, the deallocations between them move after
    the call)."""
    m, n = 300, 64
    x, r = values((m, n)), values((m, n))
    x2, x1 = t((m, n)), t((m,))
    text = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#one = affine_map<(i) -> (i)>
func.func @main(%%x: %(x2)s, %%r: %(x2)s) -> %(x2)s {
  %%zero = arith.constant 0.0 : f32
  %%nf = arith.constant %(n)d.0 : f32
  %%eps = arith.constant 1.0e-5 : f32
  %%e2 = tensor.empty() : %(x2)s
  %%h = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%x, %%r : %(x2)s, %(x2)s) outs(%%e2 : %(x2)s) {
  ^bb0(%%a: f32, %%b: f32, %%o: f32):
    %%0 = arith.addf %%a, %%b : f32
    linalg.yield %%0 : f32
  } -> %(x2)s
  %%e1 = tensor.empty() : %(x1)s
  %%z = linalg.fill ins(%%zero : f32) outs(%%e1 : %(x1)s) -> %(x1)s
  %%sum = linalg.generic {indexing_maps = [#id, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%%h : %(x2)s) outs(%%z : %(x1)s) {
  ^bb0(%%v: f32, %%acc: f32):
    %%0 = arith.addf %%acc, %%v : f32
    linalg.yield %%0 : f32
  } -> %(x1)s
  %%mean = linalg.generic {indexing_maps = [#one, #one],
                          iterator_types = ["parallel"]}
      ins(%%sum : %(x1)s) outs(%%e1 : %(x1)s) {
  ^bb0(%%s: f32, %%o: f32):
    %%0 = arith.divf %%s, %%nf : f32
    linalg.yield %%0 : f32
  } -> %(x1)s
  %%var = linalg.generic {indexing_maps = [#id, #row, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%%h, %%mean : %(x2)s, %(x1)s) outs(%%z : %(x1)s) {
  ^bb0(%%v: f32, %%mu: f32, %%acc: f32):
    %%d = arith.subf %%v, %%mu : f32
    %%d2 = arith.mulf %%d, %%d : f32
    %%0 = arith.addf %%acc, %%d2 : f32
    linalg.yield %%0 : f32
  } -> %(x1)s
  %%y = linalg.generic {indexing_maps = [#id, #row, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%h, %%mean, %%var : %(x2)s, %(x1)s, %(x1)s) outs(%%e2 : %(x2)s) {
  ^bb0(%%v: f32, %%mu: f32, %%q: f32, %%o: f32):
    %%d = arith.subf %%v, %%mu : f32
    %%vn = arith.divf %%q, %%nf : f32
    %%ve = arith.addf %%vn, %%eps : f32
    %%sd = math.sqrt %%ve : f32
    %%0 = arith.divf %%d, %%sd : f32
    linalg.yield %%0 : f32
  } -> %(x2)s
  return %%y : %(x2)s
}
""" % {"x2": x2, "x1": x1, "n": n}
    return text, [x, r], [layernorm_oracle((x + r).astype(F))], 1


def input_twice():
    """z = (2 x + 1)^T + x over 128 x 128, one op after tensor-level
    fusion that reads x twice, transposed and not: each operand gets its
    own slice (keyed by the value, both took the last one, and the
    transposed read ran past the rows of its task)."""
    m = 128
    x = values((m, m))
    x2 = t((m, m))
    text = """
#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
func.func @main(%%x: %(x2)s) -> %(x2)s {
  %%one = arith.constant 1.0 : f32
  %%two = arith.constant 2.0 : f32
  %%e = tensor.empty() : %(x2)s
  %%y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%x : %(x2)s) outs(%%e : %(x2)s) {
  ^bb0(%%a: f32, %%o: f32):
    %%0 = arith.mulf %%a, %%two : f32
    %%1 = arith.addf %%0, %%one : f32
    linalg.yield %%1 : f32
  } -> %(x2)s
  %%e2 = tensor.empty() : %(x2)s
  %%z = linalg.generic {indexing_maps = [#tr, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%y, %%x : %(x2)s, %(x2)s) outs(%%e2 : %(x2)s) {
  ^bb0(%%a: f32, %%b: f32, %%o: f32):
    %%0 = arith.addf %%a, %%b : f32
    linalg.yield %%0 : f32
  } -> %(x2)s
  return %%z : %(x2)s
}
""" % {"x2": x2}
    y = ((x * F(2)).astype(F) + F(1)).astype(F)
    return text, [x], [(y.T + x).astype(F)], 1


def row_sums_by_column():
    """s = the row sums of x, then z[i, j] = x[i, j] + s[j] over 256 x 256
    (two ops: a reduction is not fused into its consumer): z reads s
    across all rows, so the two must not share a task function (a chunk
    of rows would read sums not yet computed)."""
    m = 256
    x = values((m, m))
    x2, x1 = t((m, m)), t((m,))
    text = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @main(%%x: %(x2)s) -> (%(x1)s, %(x2)s) {
  %%zero = arith.constant 0.0 : f32
  %%e1 = tensor.empty() : %(x1)s
  %%z1 = linalg.fill ins(%%zero : f32) outs(%%e1 : %(x1)s) -> %(x1)s
  %%s = linalg.generic {indexing_maps = [#id, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%%x : %(x2)s) outs(%%z1 : %(x1)s) {
  ^bb0(%%a: f32, %%acc: f32):
    %%0 = arith.addf %%acc, %%a : f32
    linalg.yield %%0 : f32
  } -> %(x1)s
  %%e2 = tensor.empty() : %(x2)s
  %%z = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%x, %%s : %(x2)s, %(x1)s) outs(%%e2 : %(x2)s) {
  ^bb0(%%a: f32, %%b: f32, %%o: f32):
    %%0 = arith.addf %%a, %%b : f32
    linalg.yield %%0 : f32
  } -> %(x2)s
  return %%s, %%z : %(x1)s, %(x2)s
}
""" % {"x2": x2, "x1": x1}
    rs = np.zeros(m, F)
    for k in range(m):
        rs = (rs + x[:, k]).astype(F)
    return text, [x], [rs, (x + rs[None, :]).astype(F)], 2

CASES = {f.__name__: f for f in (bias_index_2d, layernorm_3d, layernorm_rows,
                                 softmax_rows, column_sums, transpose_4d,
                                 dynamic_large, dynamic_small, quantize_rows,
                                 embedding_gather, residual_layernorm,
                                 input_twice, row_sums_by_column)}

# Cases whose reductions octet-vectorize-rows must take (their
# lowered module then has the squares' shuffles).
ROWS_IN_LANES = {"layernorm_rows", "softmax_rows", "quantize_rows"}


def split_ops(text, workdir, tag):
    """Number of task functions octet-parallelize-loops outlines."""
    path = os.path.join(workdir, tag + ".check.mlir")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run([o.find_tool("octet-opt"), path,
                          "--octet-lower-to-host"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return (out.stdout.count("llvm.func @__octet_parallel_"),
            "llvm.shufflevector" in out.stdout)


def run_case(name, workdir):
    text, inputs, wants, parallel = CASES[name]()
    gots = o.run_octet(text, "main", inputs, len(wants), workdir=workdir,
                       tag=name)
    ok = True
    for i, (got, want) in enumerate(zip(gots, wants)):
        got = np.asarray(got)
        same = got.shape == want.shape and got.dtype == want.dtype and \
            np.array_equal(got.view(np.uint8), want.view(np.uint8))
        if not same:
            bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1)) \
                if got.shape == want.shape else [0]
            print("%-16s MISMATCH in result %d: %d of %d values differ "
                  "(got %s %s, want %s %s)" % (
                      name, i, len(bad), want.size, got.dtype, got.shape,
                      want.dtype, want.shape))
            ok = False
    tasks, shuffles = split_ops(text, workdir, name)
    if name in ROWS_IN_LANES and not shuffles:
        print("%-16s NOT-VECTORIZED: the row reductions stayed scalar" % name)
        ok = False
    # An int: the task functions (each with its body) expected, the ops
    # grouped as octet-parallelize-loops groups row-local chains.
    if parallel is not True and parallel is not False and \
            tasks != 2 * parallel:
        print("%-16s WRONG-GROUPS: %d task functions, expected %d" % (
            name, tasks // 2, parallel))
        ok = False
    if parallel and tasks == 0:
        print("%-16s NOT-SPLIT: no task function was outlined" % name)
        ok = False
    if not parallel and tasks != 0:
        print("%-16s WRONG-SPLIT: %d task functions for an op that must "
              "stay serial" % (name, tasks))
        ok = False
    if ok:
        print("%-16s ok  (%d task functions)" % (name, tasks))
    return ok


def main():
    names = sys.argv[1:] or list(CASES)
    workdir = os.environ.get("OCTET_CPU_TEST_DIR") or \
        tempfile.mkdtemp(prefix="octet-par-")
    ok = True
    for name in names:
        ok &= run_case(name, workdir)
    print("parallel loops: %s" % ("all cases match" if ok else "MISMATCHES"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
