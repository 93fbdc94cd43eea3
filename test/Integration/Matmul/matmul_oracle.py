"""octet.matmul against an independent numpy oracle.

Each case writes a module with one octet.matmul, JIT-runs it with octet-run
(octet's host lowering) on random codes and parameters, and compares the
results with the oracle below, which follows the op's definition:

  integer:  acc = sum_k (A - za)(B - zb) exactly (int64 here, must fit i32);
            y = float32(acc) * (sa * sb)                         (no groups)
            y = (sum_g float32(acc_g) * sb[g]) * sa, g in order  (groups)
            y = sum_g (float32(acc_g) * sa[m, g]) * sb[g], in order
                                     (block-wise: lhs in the rhs's groups)
            then + bias, relu = max(y, 0): every result bit for bit
            (DESIGN.md's "Bits").
  float lhs / FP8: the same formula in f64 from the decoded values, and the
            result must lie within octet_oracle.accumulation_bound of it
            (DESIGN.md's "Bounds": the kernels use FMA and any order), plus
            the rounding to the result type; a requantized result must lie
            between the codes of y - bound and y + bound (so a code may
            differ only where the exact value is that close to a rounding
            midpoint; the flips are counted and printed).
  then quantize with the octet rules or round to the result float type.
"""

import sys

import numpy as np

import octet_oracle as o
from octet_oracle import Scheme

F32 = np.float32
rng = np.random.default_rng(1234)


def codes_for(scheme, shape):
    f = scheme.format
    if f.is_fp8:
        # Finite codes only (NaN/inf inputs are covered by the quantize tests).
        vals = rng.standard_normal(shape).astype(np.float32) * 4
        return np.array(vals.astype(f.fp8)).view(np.uint8)
    return rng.integers(scheme.qmin, scheme.qmax + 1, shape).astype(np.int32)


def dynamic_activations(shape):
    """f32 activations for per-token dynamic quantization: rows of normal
    values at magnitudes 2^-20 .. 2^20, and, from 8 rows on, rows with
    exact rounding ties (absmax 127 * 2^-3, so that the i8 scale is 2^-3
    exactly and (n + 1/2) * 2^-3 lands on a tie), all zeros (scale 1),
    a NaN (ignored by the statistics, quantized to the zero point),
    +-inf (the range clamps at FLT_MAX), subnormal magnitudes (the scale
    guard's FLT_MIN) and -0."""
    m, k = shape
    x = rng.standard_normal(shape).astype(np.float32)
    x *= (2.0 ** rng.uniform(-20, 20, (m, 1))).astype(np.float32)
    if m >= 8:
        ties = (rng.integers(-127, 127, k) + 0.5).astype(np.float32)
        x[1] = ties * np.float32(2.0 ** -3)
        x[1, 0] = np.float32(127 * 2.0 ** -3)
        x[2] = 0
        x[3, k // 2] = np.nan
        x[4, 0], x[4, k - 1] = np.inf, -np.inf
        x[5] = (rng.standard_normal(k) * 1e-41).astype(np.float32)
        x[6, ::3] = -0.0
    return x


def signed_codes(codes, scheme):
    return codes.astype(np.int64)


def params(scheme, shape, asym):
    pshape = scheme.param_shape(shape)
    s = (rng.uniform(0.5, 2.0, pshape) * 2.0 ** rng.integers(-8, -2, pshape)
         ).astype(np.float32)
    if scheme.e8m0:  # E8M0 scales are powers of two
        s = (2.0 ** rng.integers(-8, 2, pshape)).astype(np.float32)
    z = None
    if asym:
        z = rng.integers(scheme.qmin, scheme.qmax + 1, pshape).astype(np.int32)
    return s, z


def decode(codes, scheme):
    return codes.astype(np.uint8).view(scheme.format.fp8).astype(np.float32)


def is_float_accumulation(case):
    """Float lhs or FP8 rhs: f32 accumulation, under the Bounds promise."""
    return case["lhs"] is None or case["rhs"].format.is_fp8


def oracle(case, A, B, sa, za, sb, zb, bias, so, zo):
    """The result of the op: codes or floats (Bits cases), or, for float
    accumulation, (y, bound) in f64 before the result's rounding."""
    ls, rs, os_ = case["lhs"], case["rhs"], case.get("out")
    fl = is_float_accumulation(case)
    FT = np.float64 if fl else F32
    batched = A.ndim == 3
    if not batched:
        A = A[None]
    Bb = B if B.ndim == 3 else np.broadcast_to(B, (A.shape[0],) + B.shape)
    K = A.shape[-1]
    grouped = rs.gran == "per_group"
    G = K // rs.group if grouped else 1
    gsz = K // G
    # Block-wise: the lhs per group along K with the rhs's group size.
    lhs_grouped = (grouped and ls is not None and ls.gran == "per_group"
                   and ls.group == rs.group)
    # The rhs zero points over the whole rhs (its scheme's axis counts the
    # batch dimension of a batched rhs), sliced per batch below.
    zb_full = None if zb is None else rs.expand(zb, B.shape)
    out, outabs = [], []
    for bi in range(A.shape[0]):
        a, b = A[bi], Bb[bi]
        sbb = sb[bi] if (sb.ndim == 3) else sb
        zbb = None if zb is None else (
            zb_full[bi] if B.ndim == 3 else zb_full)
        M, N = a.shape[0], b.shape[1]
        absaccs = [np.zeros((M, N))] * G
        if not fl:
            ai = a.astype(np.int64)
            if za is not None:
                zab = za[bi] if za.ndim == 3 else za
                if lhs_grouped:
                    zab = np.repeat(zab, gsz, axis=1)
                ai = ai - (zab.reshape(-1, 1) if zab.ndim == 1 else zab)
            bi_ = b.astype(np.int64)
            if zbb is not None:
                bi_ = bi_ - zbb
            accs = [ai[:, g * gsz:(g + 1) * gsz] @ bi_[g * gsz:(g + 1) * gsz]
                    for g in range(G)]
            for acc in accs:
                assert np.abs(acc).max() < 2 ** 31
            accs = [acc.astype(np.float32) for acc in accs]
        else:
            af = (a if ls is None else decode(a, ls)).astype(np.float64)
            if rs.format.is_fp8:
                bf = decode(b, rs).astype(np.float64)
            elif rs.format.is_nf4:
                bf = o.NF4_VALUES[b.astype(np.int64) & 15].astype(np.float64)
            else:
                bint = b.astype(np.int64)
                if zbb is not None:
                    bint = bint - zbb
                bf = bint.astype(np.float64)
            sl = [slice(g * gsz, (g + 1) * gsz) for g in range(G)]
            accs = [af[:, s_] @ bf[s_] for s_ in sl]
            absaccs = [np.abs(af[:, s_]) @ np.abs(bf[s_]) for s_ in sl]
        sa_ = None
        if ls is not None:
            sab = sa[bi] if sa.ndim == 3 else sa
            sa_ = (sab.reshape(-1, 1) if sab.ndim == 1 else sab).astype(FT)
        if grouped:
            t = np.zeros((M, N), FT)
            tabs = np.zeros((M, N))
            for g in range(G):
                acc, absacc = accs[g], absaccs[g]
                if lhs_grouped:
                    acc = acc * sa_[:, g:g + 1]
                    absacc = absacc * np.abs(sa_[:, g:g + 1])
                t = t + acc * sbb[g:g + 1, :].astype(FT)
                tabs = tabs + absacc * np.abs(sbb[g:g + 1, :])
            y = t * sa_ if sa_ is not None and not lhs_grouped else t
            yabs = (tabs * np.abs(sa_) if sa_ is not None and not lhs_grouped
                    else tabs)
        else:
            s = (sbb.reshape(1, -1) if sbb.ndim == 1 else sbb).astype(FT)
            if sa_ is not None:
                s = sa_ * s
            y = accs[0] * s
            yabs = absaccs[0] * np.abs(s)
        if bias is not None:
            y = y + bias.reshape(1, -1).astype(FT)
            yabs = yabs + np.abs(bias.reshape(1, -1))
        if case.get("relu"):
            y = np.maximum(y, FT(0))
        out.append(y)
        outabs.append(yabs)
    y = np.stack(out)
    yabs = np.stack(outabs)
    if not batched:
        y, yabs = y[0], yabs[0]
    if fl:
        return y, o.accumulation_bound(yabs, K + G + 3)
    if os_ is not None:
        return o.quantize(y, os_, so, zo)
    return y.astype(o.FLOAT_TYPES[case.get("res", "f32")])


# Unit round-off of the result types (the last rounding of a float result).
RESULT_U = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}


def check_bounds(case, got_v, want, so, zo):
    """Bounds check of a float-accumulation result (see the docstring):
    (ok, message). `want` is oracle()'s (y, bound)."""
    y, bound = want
    os_ = case.get("out")
    if os_ is None:
        u = RESULT_U[case.get("res", "f32")]
        g = got_v.astype(np.float64)
        # Where the exact result is NaN or infinite (NaN / inf codes) the
        # result must be the same; the bound applies everywhere else.
        special = ~np.isfinite(y)
        y_ = np.where(special, 0.0, y)
        lim = np.where(special, 0.0, bound + u * (np.abs(y_) + bound))
        with np.errstate(invalid="ignore"):
            err = np.where(special, 0.0, np.abs(g - y_))
        bad = ~(err <= lim) | (special & ~((np.isnan(y) & np.isnan(g)) |
                                           (y == g)))
        worst = float(np.max(err / np.maximum(lim, 1e-300)))
        return not bad.any(), bad, "max error / bound %.3f" % worst
    # The codes of y - bound and y + bound enclose every correct code
    # (quantize is monotone); widened by the f32 rounding of y itself.
    lim = bound * 1.001 + 2.0 ** -23 * np.abs(y)
    lo = o.quantize((y - lim).astype(np.float32), os_, so, zo)
    hi = o.quantize((y + lim).astype(np.float32), os_, so, zo)
    mid = o.quantize(y.astype(np.float32), os_, so, zo)
    if os_.format.is_fp8:
        lo, hi, mid, got_v = (decode(v, os_) for v in (lo, hi, mid, got_v))
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    bad = (got_v < lo) | (got_v > hi)
    flips = int(np.count_nonzero(got_v != mid))
    return not bad.any(), bad, "%d code(s) one step off at a near-tie" % flips


def storage_type(shape, scheme):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), scheme.format.storage)


def ftype(shape, t):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), t)


def ptype(shape, elt):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), elt)


def run_case(name, case):
    ls, rs, os_ = case["lhs"], case["rhs"], case.get("out")
    lshape, rshape = case["lshape"], case["rshape"]
    oshape = tuple(lshape[:-1]) + (rshape[-1],)
    args, types, inputs = [], [], []

    body = []  # ops at the top of @main (constant scales)
    def arg(nm, t, v):
        args.append("%%%s: %s" % (nm, t))
        types.append(t)
        inputs.append(v)

    dynamic = case.get("dynamic", False)
    if dynamic:
        # Per-token dynamic quantization in the module: f32 activations,
        # their row parameters from octet.compute_params, octet.quantize.
        X = dynamic_activations(lshape)
        arg("x", ftype(lshape, "f32"), X)
        dyn_sa, dyn_za = o.int_params_per_row(X, ls)
        A = o.quantize(X, ls, dyn_sa, dyn_za)
        lhs_type = storage_type(lshape, ls)
    elif ls is None:
        lt = case.get("lft", "f32")
        A = rng.standard_normal(lshape).astype(o.FLOAT_TYPES[lt])
        arg("a", ftype(lshape, lt), o.floats_to_npy(A, lt))
        lhs_type = ftype(lshape, lt)
    else:
        A = codes_for(ls, lshape)
        lhs_type = storage_type(lshape, ls)
        arg("a", lhs_type, o.codes_to_npy(A, ls))
    B = codes_for(rs, rshape)
    rhs_type = storage_type(rshape, rs)
    const_rhs = case.get("const_rhs", False)
    if not const_rhs:
        arg("b", rhs_type, o.codes_to_npy(B, rs))
    text = []
    sa = za = zb = bias = so = zo = None
    pieces = []
    if dynamic:
        sa, za = dyn_sa, dyn_za
        pt = ptype(ls.param_shape(lshape), "f32")
        zt = ptype(ls.param_shape(lshape), "i32")
        results = "%sa" + (", %za" if za is not None else "")
        text_dyn = ["  %s = octet.compute_params %%x as %s : %s -> %s%s" % (
            results, ls.attr(), ftype(lshape, "f32"), pt,
            ", " + zt if za is not None else ""),
            "  %%a = octet.quantize %%x scale(%%sa : %s)%s as %s : %s -> %s" % (
                pt, " zero_point(%%za : %s)" % zt if za is not None else "",
                ls.attr(), ftype(lshape, "f32"), lhs_type)]
        body.extend(text_dyn)
        pieces.append("lhs_scale(%%sa : %s)" % pt)
        if za is not None:
            pieces.append("lhs_zero_point(%%za : %s)" % zt)
        pieces.append("lhs_scheme " + ls.attr())
    elif ls is not None:
        sa, za = params(ls, lshape, not ls.symmetric)
        arg("sa", ptype(ls.param_shape(lshape), "f32"), sa)
        pieces.append("lhs_scale(%%sa : %s)" % types[-1])
        if za is not None:
            arg("za", ptype(ls.param_shape(lshape), "i32"), za)
            pieces.append("lhs_zero_point(%%za : %s)" % types[-1])
        pieces.append("lhs_scheme " + ls.attr())
    sb, zb = params(rs, rshape, not rs.symmetric)
    sb_type = ptype(rs.param_shape(rshape), "f32")
    if case.get("const_scale") and case.get("transposed_scale"):
        # Per-group scales stored [N, K / group] and transposed by
        # linalg.transpose, as the LLM importer writes them with [out, in]
        # weights: the CPU kernels repack them into the codes' panels.
        sbt = np.asarray(sb, np.float32).T.copy()
        sbt_type = "tensor<%dx%dxf32>" % sbt.shape
        body.append("  %%sbt = arith.constant %s : %s" % (
            o.dense_const(sbt, "f32"), sbt_type))
        body.append("  %%sbe = tensor.empty() : %s" % sb_type)
        body.append("  %%sb = linalg.transpose ins(%%sbt : %s) outs(%%sbe : "
                    "%s) permutation = [1, 0]" % (sbt_type, sb_type))
    elif case.get("const_scale"):
        # Constant scales (what octet-quantize-weights writes): the CPU
        # kernels repack per-group ones with 4-bit codes.
        body.append("  %%sb = arith.constant %s : %s" % (
            o.dense_const(np.asarray(sb, np.float32), "f32"), sb_type))
    else:
        arg("sb", sb_type, sb)
    pieces.append("rhs_scale(%%sb : %s)" % sb_type)
    if zb is not None:
        arg("zb", ptype(rs.param_shape(rshape), "i32"), zb)
        pieces.append("rhs_zero_point(%%zb : %s)" % types[-1])
    pieces.append("rhs_scheme " + rs.attr())
    if case.get("bias"):
        bias = rng.standard_normal(oshape[-1]).astype(np.float32)
        arg("bias", ptype((oshape[-1],), "f32"), bias)
        pieces.append("bias(%%bias : %s)" % types[-1])
    if case.get("relu"):
        pieces.append("relu")
    if os_ is not None:
        so, zo = params(os_, oshape, not os_.symmetric)
        so = (so * 64).astype(np.float32)
        arg("so", ptype(os_.param_shape(oshape), "f32"), so)
        pieces.append("out_scale(%%so : %s)" % types[-1])
        if zo is not None:
            arg("zo", ptype(os_.param_shape(oshape), "i32"), zo)
            pieces.append("out_zero_point(%%zo : %s)" % types[-1])
        pieces.append("out_scheme " + os_.attr())
        res_type = storage_type(oshape, os_)
    else:
        res_type = ftype(oshape, case.get("res", "f32"))
    text.append("func.func @main(%s) -> %s {" % (", ".join(args), res_type))
    text.extend(body)
    if const_rhs and case.get("transposed_rhs"):
        # The constant stored [N, K] (PyTorch's [out, in]) and transposed
        # by linalg.transpose, the form imported models have.
        kk, nn = rshape
        t_type = storage_type((nn, kk), rs)
        text.append("  %%bt = arith.constant %s : %s" % (
            o.dense_const(o.storage_literal_codes(B.T.copy(), rs),
                          rs.format.storage), t_type))
        text.append("  %%be = tensor.empty() : %s" % rhs_type)
        text.append("  %%b = linalg.transpose ins(%%bt : %s) outs(%%be : %s) "
                    "permutation = [1, 0]" % (t_type, rhs_type))
    elif const_rhs:
        text.append("  %%b = arith.constant %s : %s" % (
            o.dense_const(o.storage_literal_codes(B, rs), rs.format.storage),
            rhs_type))
    text.append("  %%y = octet.matmul %%a, %%b %s : %s, %s -> %s" % (
        " ".join(pieces), lhs_type, rhs_type, res_type))
    text.append("  return %%y : %s" % res_type)
    text.append("}")
    (got,) = o.run_octet("\n".join(text) + "\n", "main", inputs, 1, tag=name)
    want = oracle(case, A, B, sa, za, sb, zb, bias, so, zo)
    if os_ is not None:
        got_v = o.npy_to_codes(got, os_)
    else:
        got_v = o.npy_to_floats(got, case.get("res", "f32"))
    if is_float_accumulation(case):
        ok, bad, how = check_bounds(case, got_v, want, so, zo)
        print("%-28s %s  (%d values; within bounds: %s)" % (
            name, "ok" if ok else "MISMATCH", np.asarray(got_v).size, how))
        for idx in np.argwhere(bad)[:5]:
            idx = tuple(idx)
            print("   at %s: got %r, exact %r +- %.3g" % (
                idx, got_v[idx], want[0][idx], want[1][idx]))
        return ok
    if os_ is not None:
        ok = np.array_equal(got_v.astype(np.int64), want.astype(np.int64))
    else:
        ok = np.array_equal(o.bits(got_v), o.bits(want))
    print("%-28s %s  (%d values)" % (name, "ok" if ok else "MISMATCH",
                                    np.asarray(want).size))
    if not ok:
        bad = np.argwhere(o.bits(got_v) != o.bits(want))[:5]
        for idx in bad:
            idx = tuple(idx)
            print("   at %s: got %r want %r" % (idx, got_v[idx], want[idx]))
    return ok


S = Scheme
CASES = {
    "i8_row_x_i8_col_bias_relu": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(5, 67), rshape=(67, 7), bias=True, relu=True),
    "u8_asym_x_i8_col": dict(
        lhs=S("u8", symmetric=False), rhs=S("i8", "per_axis", 1),
        lshape=(4, 64), rshape=(64, 9)),
    "u8_row_asym_x_u8_col_asym": dict(
        lhs=S("u8", "per_axis", 0, symmetric=False),
        rhs=S("u8", "per_axis", 1, symmetric=False),
        lshape=(3, 40), rshape=(40, 6)),
    "const_rhs_zero_points": dict(
        lhs=S("u8", "per_axis", 0, symmetric=False),
        rhs=S("i8", "per_axis", 1, symmetric=False),
        lshape=(3, 40), rshape=(40, 6), const_rhs=True),
    "i8_narrow_x_i8_tensor": dict(
        lhs=S("i8", qmin=-127, qmax=127), rhs=S("i8"),
        lshape=(2, 33), rshape=(33, 5)),
    "i4_x_u4_group_asym": dict(
        lhs=S("i4"), rhs=S("u4", "per_group", 0, 16, symmetric=False),
        lshape=(4, 64), rshape=(64, 5), bias=True),
    "const_rhs_group_asym": dict(
        lhs=S("u8", symmetric=False),
        rhs=S("u4", "per_group", 0, 16, symmetric=False),
        lshape=(3, 48), rshape=(48, 4), const_rhs=True),
    "w8a16_f32": dict(lhs=None, rhs=S("i8", "per_axis", 1),
                      lshape=(3, 50), rshape=(50, 8), bias=True),
    # Several row tiles (288 rows), column tiles (at most 1024 columns,
    # split evenly at run time) and K blocks (256 rows) of the tiled f32
    # loop nest, with 8- and 4-column tails.
    "w4a16_group_asym_tiles": dict(
        lhs=None, rhs=S("u4", "per_group", 0, 32, symmetric=False),
        lshape=(300, 544), rshape=(544, 1100), bias=True),
    "w8a16_const_tiles": dict(lhs=None, rhs=S("i8", "per_axis", 1),
                              lshape=(290, 300), rshape=(300, 1030),
                              const_rhs=True),
    # FP8 activations in the tiled loop nest (M >= 6): decoded 8 codes at a
    # time while packed, K tails that are not a multiple of 8, block-wise
    # and MX (E8M0) activation scales per group of 32.
    "fp8_tiles_per_token": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(300, 520), rshape=(520, 1100), bias=True),
    "fp8_e5m2_tiles_k_tail": dict(
        lhs=S("f8E5M2", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(13, 260), rshape=(260, 40)),
    "fp8_block_tiles": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32),
        rhs=S("f8E4M3FN", "per_group", 0, 32), lshape=(20, 544),
        rshape=(544, 70)),
    "mx_fp8_tiles": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f8E4M3FN", "per_group", 0, 32, e8m0=True), lshape=(14, 288),
        rshape=(288, 40), relu=True),
    "w8a16_asym_weights": dict(
        lhs=None, rhs=S("u8", "per_axis", 1, symmetric=False),
        lshape=(3, 20), rshape=(20, 8)),
    "w4a16_f16_group": dict(lhs=None, lft="f16",
                            rhs=S("i4", "per_group", 0, 32),
                            lshape=(2, 64), rshape=(64, 6), res="f16"),
    "fp8_e4m3": dict(lhs=S("f8E4M3FN"), rhs=S("f8E4M3FN", "per_axis", 1),
                     lshape=(4, 32), rshape=(32, 5), res="bf16"),
    "fp8_e5m2_x_e4m3_relu": dict(lhs=S("f8E5M2", "per_axis", 0),
                                 rhs=S("f8E4M3FN"),
                                 lshape=(3, 16), rshape=(16, 4), relu=True),
    "w8_fp8_weights_only": dict(lhs=None, rhs=S("f8E4M3FN", "per_axis", 1),
                                lshape=(2, 24), rshape=(24, 3)),
    "w4_fp4_weights_only_group": dict(
        lhs=None, lft="f16", rhs=S("f4E2M1FN", "per_group", 0, 16),
        lshape=(3, 48), rshape=(48, 5), res="f16", bias=True),
    "w4_nf4_weights_only_group": dict(
        lhs=None, rhs=S("nf4", "per_group", 0, 16), lshape=(3, 48),
        rshape=(48, 5), const_rhs=True),
    "w4_fp4_weights_only_const": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_axis", 1), lshape=(2, 40),
        rshape=(40, 6), const_rhs=True),
    "requantize_u8_asym": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(4, 32), rshape=(32, 6), bias=True, relu=True,
        out=S("u8", symmetric=False)),
    "requantize_i8_per_channel": dict(
        lhs=S("i8"), rhs=S("i8", "per_axis", 1), lshape=(4, 32),
        rshape=(32, 6), out=S("i8", "per_axis", 1)),
    "requantize_fp8": dict(lhs=S("i8"), rhs=S("i8"), lshape=(3, 16),
                           rshape=(16, 4), out=S("f8E4M3FN")),
    "batched_shared_rhs": dict(lhs=S("i8", "per_axis", 1),
                               rhs=S("i8", "per_axis", 1),
                               lshape=(2, 3, 16), rshape=(16, 4)),
    "per_token_batched_asym": dict(
        lhs=S("u8", "per_group", 2, 16, symmetric=False),
        rhs=S("i8", "per_axis", 1), lshape=(2, 3, 16), rshape=(16, 4)),
    "per_token_2d_x_group": dict(
        lhs=S("i8", "per_group", 1, 32), rhs=S("i4", "per_group", 0, 16),
        lshape=(3, 32), rshape=(32, 4)),
    # Block-wise scales on both operands (DeepSeek-V3's FP8 recipe: 1 x G
    # activation groups, G-row weight groups), float and exact integer.
    "fp8_block_e4m3_bias": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 16),
        rhs=S("f8E4M3FN", "per_group", 0, 16), lshape=(5, 64),
        rshape=(64, 7), bias=True),
    "fp8_block_const_transposed": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32),
        rhs=S("f8E4M3FN", "per_group", 0, 32), lshape=(3, 96),
        rshape=(96, 8), const_rhs=True, transposed_rhs=True),
    "fp8_block_e5m2_requant": dict(
        lhs=S("f8E5M2", "per_group", 1, 8), rhs=S("f8E4M3FN", "per_group", 0, 8),
        lshape=(4, 24), rshape=(24, 5), relu=True, out=S("i8")),
    # OCP MX on both operands (E8M0 scales per block of 32): MXFP4 x
    # MXFP4 (W4A4), MXFP8 x MXFP4 (W4A8, constant weights), and an FP4
    # lhs with per-token scales against FP8 weights per channel.
    "mx_fp4_fp4_bias": dict(
        lhs=S("f4E2M1FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f4E2M1FN", "per_group", 0, 32, e8m0=True), lshape=(3, 64),
        rshape=(64, 5), bias=True),
    "mx_fp8_x_fp4_const": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f4E2M1FN", "per_group", 0, 32, e8m0=True), lshape=(4, 96),
        rshape=(96, 24), const_rhs=True),
    "mx_fp8_x_fp8_relu": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f8E4M3FN", "per_group", 0, 32, e8m0=True), lshape=(5, 64),
        rshape=(64, 9), relu=True, const_rhs=True),
    "fp4_lhs_per_token_fp8_rhs": dict(
        lhs=S("f4E2M1FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(3, 40), rshape=(40, 6)),
    "i8_block_asym_both": dict(
        lhs=S("u8", "per_group", 1, 16, symmetric=False),
        rhs=S("u8", "per_group", 0, 16, symmetric=False), lshape=(3, 48),
        rshape=(48, 5), bias=True),
    "i8_block_batched": dict(
        lhs=S("i8", "per_group", 2, 8), rhs=S("i8", "per_group", 1, 8),
        lshape=(2, 3, 16), rshape=(2, 16, 4)),
    "batched_both_group": dict(lhs=None, rhs=S("i8", "per_group", 1, 8),
                               lshape=(2, 3, 16), rshape=(2, 16, 4)),
    # A batched rhs with per-column ([N]) parameters shared by the batches
    # (the lowering once indexed them as [B, N]: an invalid linalg.generic).
    "batched_rhs_per_axis": dict(lhs=None, rhs=S("i8", "per_axis", 2),
                                 lshape=(2, 3, 16), rshape=(2, 16, 4)),
    "batched_rhs_per_axis_zp": dict(
        lhs=None, rhs=S("u8", "per_axis", 2, symmetric=False),
        lshape=(2, 3, 16), rshape=(2, 16, 4)),
    "batched_both_per_axis_zp": dict(
        lhs=S("u8", "per_axis", 1, symmetric=False),
        rhs=S("u8", "per_axis", 2, symmetric=False),
        lshape=(2, 3, 16), rshape=(2, 16, 4)),
}

if __name__ == "__main__":
    only = sys.argv[1:]
    ok = True
    for name, case in CASES.items():
        if only and name not in only:
            continue
        ok &= run_case(name, case)
    print("matmul oracle: %s" % ("all cases match" if ok else "MISMATCHES"))
    sys.exit(0 if ok else 1)
