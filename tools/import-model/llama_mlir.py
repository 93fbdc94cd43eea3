"""A Llama-architecture decoder (read from GGUF) as MLIR for Octet.

Used by octet_import_model.py --gguf. The module holds one private function
`@forward` (the body, once) and three public entry points that call it:

    @prefill(%ids: tensor<?xi32>, %pos: tensor<?xi32>,
             %kcache: memref<KCACHE>, %vcache: memref<VCACHE>)
        -> tensor<?xVxf32>
    @prefill_last(%ids: tensor<?xi32>, %pos: tensor<?xi32>,
                  %kcache: memref<KCACHE>, %vcache: memref<VCACHE>)
        -> tensor<1xVxf32>
    @decode(%id: tensor<1xi32>, %pos: tensor<1xi32>,
            %kcache: memref<KCACHE>, %vcache: memref<VCACHE>)
        -> tensor<1xVxf32>

`ids` are S tokens at the consecutive positions `pos` (pos[i] = pos[0] + i),
the result is the logits of every token (@prefill) or of the last one
(@prefill_last: what a generator samples the next token from; the output
head, V x D multiply-adds per row, runs on that row only). The KV cache is
two in/out buffers, KCACHE = LAYERS x KV_HEADS x HEAD_DIM x MAX_LEN (K
after RoPE, stored transposed: octet.attention reads it as K^T, positions
contiguous) and VCACHE = LAYERS x KV_HEADS x MAX_LEN x HEAD_DIM, of f32,
or of i8 / f8E4M3FN codes with --kv-cache: the step writes the S new
positions in place (`bufferization.to_tensor ... restrict writable` and
`bufferization.materialize_in_destination`, so One-Shot Bufferize updates
the caller's buffers: S x KV_HEADS x HEAD_DIM elements per layer in each,
nothing else of the caches is copied) and attends over positions
0 : pos[0] + S with a causal mask (`octet.attention`, one per layer).

Weights are `dense_resource` blobs of the GGUF tensors dequantized to f32
(the float model octet quantizes); every op has a location named after its
GGUF tensor (`blk.3.attn_q`, `blk.3.ffn_down`, `output`, ...) so that
`--octet-quantize-weights skip=REGEX` and the per-layer reports speak the
file's language. Linear layers are `linalg.matmul` with the weight in
[out, in] layout (a transposed-rhs indexing map), the form octet's passes
quantize.

RoPE follows the GGUF (llama.cpp LLAMA_ROPE_TYPE_NORM) convention: the
converter permuted the rows of attn_q/attn_k so that adjacent pairs
(x[2i], x[2i+1]) rotate by pos * theta^(-2i/head_dim); the cos/sin tables
(MAX_LEN x HEAD_DIM/2, computed in float64, stored f32) are constants.
"""

import numpy as np

from octet_import_model import amap, f32, ttype, write_resources


class LlamaEmitter:
    """Emits the body of @forward line by line."""

    def __init__(self, model, max_len, kv_cache="f32", kv_scales=None,
                 return_hidden=False, quantize_embeddings=None):
        c = model.config
        self.m = model
        self.L, self.D, self.H = c["layers"], c["hidden"], c["heads"]
        self.KV, self.Dh, self.F = c["kv_heads"], c["head_dim"], c["ffn"]
        self.V, self.eps = c["vocab"], c["rms_eps"]
        self.G = self.H // self.KV
        self.M = max_len
        self.theta = c["rope_theta"]
        self.kv = kv_cache
        self.kv_scales = kv_scales
        self.return_hidden = return_hidden
        self.embed_format = quantize_embeddings
        self.lines = []
        self.n = 0
        self.resources = []
        self.consts = {}

    # -- plumbing -------------------------------------------------------------
    def fresh(self, hint="v"):
        self.n += 1
        return "%%%s_%d" % (hint, self.n)

    def emit(self, text, loc=None):
        if loc is not None:
            text += ' loc("%s")' % loc
        self.lines.append("    " + text)

    def resource(self, key, array, loc, elt="f32"):
        """A dense_resource constant (one per key, emitted once)."""
        if key in self.consts:
            return self.consts[key]
        self.resources.append((key, np.ascontiguousarray(array, "<f4")))
        v = self.fresh("w")
        self.emit("%s = arith.constant dense_resource<%s> : %s"
                  % (v, key, ttype(array.shape, elt)), loc=loc)
        self.consts[key] = v
        return v

    def weight(self, name):
        arr = self.m.tensor(name)
        key = name.replace(".", "_")
        return self.resource(key, arr, name), list(arr.shape)

    def index(self, value):
        v = self.fresh("c")
        self.emit("%s = arith.constant %d : index" % (v, value))
        return v

    def dim(self, tensor, ty, i):
        v = self.fresh("d")
        self.emit("%s = tensor.dim %s, %s : %s" % (v, tensor, self.index(i),
                                                  ty))
        return v

    def empty(self, shape, dyn, loc, elt="f32"):
        """tensor.empty with `dyn` the SSA sizes of the None dims."""
        v = self.fresh("e")
        self.emit("%s = tensor.empty(%s) : %s" % (v, ", ".join(dyn),
                                                 ttype(shape, elt)), loc=loc)
        return v

    def filled(self, shape, dyn, value, loc):
        e = self.empty(shape, dyn, loc)
        c = self.fresh("c")
        self.emit("%s = arith.constant %s : f32" % (c, f32(value)), loc=loc)
        v = self.fresh("z")
        self.emit("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                  % (v, c, e, ttype(shape), ttype(shape)), loc=loc)
        return v

    def generic(self, ins, out, out_shape, dims, iters, body, loc,
                out_map=None, out_elt="f32"):
        """ins: [(value, type, map results, block arg type)]; `out` the init
        tensor; body uses %a0.. and %acc and ends with linalg.yield."""
        maps = [amap(dims, m) for _, _, m, _ in ins]
        maps.append(amap(dims, out_map if out_map is not None else dims))
        v = self.fresh("g")
        ot = ttype(out_shape, out_elt)
        self.lines.append(
            "    %s = linalg.generic {indexing_maps = [%s], iterator_types = "
            "[%s]} ins(%s : %s) outs(%s : %s) {"
            % (v, ", ".join(maps), ", ".join('"%s"' % i for i in iters),
               ", ".join(x for x, _, _, _ in ins),
               ", ".join(t for _, t, _, _ in ins), out, ot))
        args = ["%%a%d: %s" % (i, e) for i, (_, _, _, e) in enumerate(ins)]
        self.lines.append("    ^bb0(%s):" % ", ".join(args + ["%%acc: %s"
                                                             % out_elt]))
        self.lines += ["      " + l for l in body]
        self.lines.append('    } -> %s loc("%s")' % (ot, loc))
        return v

    # -- layers ---------------------------------------------------------------
    def embed(self, ids, S):
        """Rows ids[s] of the embedding table; with quantize_embeddings,
        each gathered row goes through octet's per-row quantize/dequantize
        (the same numbers as quantizing the table per row, computed for
        the S rows used)."""
        rows = self.gather(ids, S)
        if not self.embed_format:
            return rows
        fmt = self.embed_format
        storage = "i8" if fmt in ("i8", "u8") else fmt
        scheme = "<%s, per_axis(0)>" % fmt
        t, st = ttype([None, self.D]), ttype([None])
        s, q, d = self.fresh("s"), self.fresh("q"), self.fresh("dq")
        self.emit("%s = octet.compute_params %s as %s : %s -> %s"
                  % (s, rows, scheme, t, st), loc="token_embd")
        self.emit("%s = octet.quantize %s scale(%s : %s) as %s : %s -> %s"
                  % (q, rows, s, st, scheme, t,
                     ttype([None, self.D], storage)), loc="token_embd")
        self.emit("%s = octet.dequantize %s scale(%s : %s) as %s : %s -> %s"
                  % (d, q, s, st, scheme, ttype([None, self.D], storage), t),
                  loc="token_embd")
        return d

    def gather(self, ids, S):
        table, shape = self.weight("token_embd.weight")
        out = self.empty([None, self.D], [S], "token_embd")
        return self.generic(
            [(ids, ttype([None], "i32"), ["s"], "i32")], out,
            [None, self.D], ["s", "d"], ["parallel", "parallel"],
            ["%row = arith.index_cast %a0 : i32 to index",
             "%col = linalg.index 1 : index",
             "%%r = tensor.extract %s[%%row, %%col] : %s" % (table,
                                                            ttype(shape)),
             "linalg.yield %r : f32"], "token_embd")

    def rms_norm(self, x, S, name):
        w, _ = self.weight(name + ".weight")
        acc = self.filled([None], [S], 0.0, name)
        ss = self.generic([(x, ttype([None, self.D]), ["s", "d"], "f32")],
                          acc, [None], ["s", "d"], ["parallel", "reduction"],
                          ["%q = arith.mulf %a0, %a0 : f32",
                           "%r = arith.addf %q, %acc : f32",
                           "linalg.yield %r : f32"], name, out_map=["s"])
        out = self.empty([None, self.D], [S], name)
        return self.generic(
            [(x, ttype([None, self.D]), ["s", "d"], "f32"),
             (ss, ttype([None]), ["s"], "f32"),
             (w, ttype([self.D]), ["d"], "f32")], out, [None, self.D],
            ["s", "d"], ["parallel", "parallel"],
            ["%%n = arith.constant %s : f32" % f32(self.D),
             "%%e = arith.constant %s : f32" % f32(self.eps),
             "%ms = arith.divf %a1, %n : f32",
             "%me = arith.addf %ms, %e : f32",
             "%rs = math.rsqrt %me : f32",
             "%y = arith.mulf %a0, %rs : f32",
             "%r = arith.mulf %y, %a2 : f32",
             "linalg.yield %r : f32"], name)

    def linear(self, x, S, k, name, weight=None):
        """y[S, n] = x[S, k] @ W[n, k]^T (no bias in Llama), located `name`;
        W is the tensor `weight` (default NAME.weight)."""
        w, shape = self.weight(weight or name + ".weight")
        n = shape[0]
        assert shape[1] == k, (name, shape, k)
        init = self.filled([None, n], [S], 0.0, name)
        y = self.fresh("mm")
        self.emit("%s = linalg.matmul indexing_maps = [%s, %s, %s] ins(%s, %s "
                  ": %s, %s) outs(%s : %s) -> %s"
                  % (y, amap(["m", "n", "k"], ["m", "k"]),
                     amap(["m", "n", "k"], ["n", "k"]),
                     amap(["m", "n", "k"], ["m", "n"]), x, w,
                     ttype([None, k]), ttype([n, k]), init,
                     ttype([None, n]), ttype([None, n])), loc=name)
        return y, n

    def rope(self, x, pos, S, heads, loc):
        """Adjacent-pair rotary embedding of x[S, heads * Dh] at pos[S]."""
        half = self.Dh // 2
        inv = self.theta ** (-np.arange(0, self.Dh, 2, dtype=np.float64)
                             / self.Dh)
        ang = np.arange(self.M, dtype=np.float64)[:, None] * inv[None, :]
        cos = self.resource("rope_cos", np.cos(ang).astype(np.float32),
                            "rope")
        sin = self.resource("rope_sin", np.sin(ang).astype(np.float32),
                            "rope")
        n = heads * self.Dh
        out = self.empty([None, n], [S], loc)
        tab = ttype([self.M, half])
        return self.generic(
            [(x, ttype([None, n]), ["s", "c"], "f32"),
             (pos, ttype([None], "i32"), ["s"], "i32")], out, [None, n],
            ["s", "c"], ["parallel", "parallel"],
            ["%s = linalg.index 0 : index",
             "%c = linalg.index 1 : index",
             "%z0 = arith.constant 0 : index",
             "%one = arith.constant 1 : index",
             "%%dh = arith.constant %d : index" % self.Dh,
             "%cp = arith.xori %c, %one : index",
             "%%xp = tensor.extract %s[%%s, %%cp] : %s" % (x, ttype([None, n])),
             "%i = arith.remui %c, %dh : index",
             "%pair = arith.shrui %i, %one : index",
             "%odd = arith.andi %i, %one : index",
             "%p = arith.index_cast %a1 : i32 to index",
             "%%cs = tensor.extract %s[%%p, %%pair] : %s" % (cos, tab),
             "%%sn = tensor.extract %s[%%p, %%pair] : %s" % (sin, tab),
             "%xc = arith.mulf %a0, %cs : f32",
             "%ps = arith.mulf %xp, %sn : f32",
             "%lo = arith.subf %xc, %ps : f32",
             "%hi = arith.addf %xc, %ps : f32",
             "%isodd = arith.cmpi ne, %odd, %z0 : index",
             "%r = arith.select %isodd, %hi, %lo : f32",
             "linalg.yield %r : f32"], loc)

    # -- KV cache and attention ------------------------------------------------
    def kv_heads_first(self, x, S, which, loc):
        """x[S, KV * Dh] -> as the cache `which` holds it: K (0) [KV, Dh, S],
        V (1) [KV, S, Dh]."""
        e = self.fresh("r")
        self.emit("%s = tensor.expand_shape %s [[0], [1, 2]] output_shape "
                  "[%s, %d, %d] : %s into %s"
                  % (e, x, S, self.KV, self.Dh, ttype([None, self.KV * self.Dh]),
                     ttype([None, self.KV, self.Dh])), loc=loc)
        shape, perm = (([self.KV, self.Dh, None], "1, 2, 0") if which == 0
                       else ([self.KV, None, self.Dh], "1, 0, 2"))
        t = self.fresh("tr")
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                  "permutation = [%s]"
                  % (t, e, ttype([None, self.KV, self.Dh]),
                     self.empty(shape, [S], loc), ttype(shape), perm), loc=loc)
        return t

    def kv_scheme(self):
        return "<%s, per_axis(0)>" % self.kv

    def kv_scale(self, layer, which, loc):
        """The calibrated per-head scales of layer `layer`, K (0) or V (1)."""
        s = self.fresh("ks")
        vals = ", ".join(f32(v) for v in self.kv_scales[layer][which])
        self.emit("%s = arith.constant dense<[%s]> : %s"
                  % (s, vals, ttype([self.KV])), loc=loc)
        return s

    def kv_slice(self, layer, which, start, count):
        """The offsets and sizes (slice-op syntax) and the slice's shape of
        `count` positions from `start` of layer `layer` in the K (0) or V
        (1) cache."""
        if which == 0:
            return ("%d, 0, 0, %s" % (layer, start),
                    "1, %d, %d, %s" % (self.KV, self.Dh, count),
                    [self.KV, self.Dh, None])
        return ("%d, 0, %s, 0" % (layer, start),
                "1, %d, %s, %d" % (self.KV, count, self.Dh),
                [self.KV, None, self.Dh])

    def store_kv(self, cache, kv, layer, which, S, p0, loc):
        """K (which = 0, kv as [KV, Dh, S]) or V (1, [KV, S, Dh]) of the S
        positions from p0 into that cache's layer `layer` (quantized to the
        cache's codes with the per-head scales)."""
        offs, sizes, shape = self.kv_slice(layer, which, p0, S)
        ty = ttype(shape)
        if self.kv != "f32":
            s = self.kv_scale(layer, which, loc)
            q = self.fresh("kq")
            self.emit("%s = octet.quantize %s scale(%s : %s) as %s : %s -> %s"
                      % (q, kv, s, ttype([self.KV]), self.kv_scheme(), ty,
                         ttype(shape, self.kv)), loc=loc)
            kv = q
        v = self.fresh("cache")
        self.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [1, 1, 1, 1] "
                  ": %s into %s"
                  % (v, kv, cache, offs, sizes,
                     ttype(shape, self.kv), self.cache_tensor(which)),
                  loc=loc)
        return v

    def load_kv(self, cache, layer, which, n, loc):
        """Positions 0 : n of layer `layer` of the K (which = 0, as
        [KV, Dh, n]) or V (1, [KV, n, Dh]) cache, as f32."""
        offs, sizes, shape = self.kv_slice(layer, which, 0, n)
        v = self.fresh("kv")
        ty = ttype(shape, self.kv)
        self.emit("%s = tensor.extract_slice %s[%s] [%s] [1, 1, 1, 1] : %s "
                  "to %s" % (v, cache, offs, sizes, self.cache_tensor(which),
                             ty), loc=loc)
        if self.kv == "f32":
            return v
        s = self.kv_scale(layer, which, loc)
        d = self.fresh("kd")
        self.emit("%s = octet.dequantize %s scale(%s : %s) as %s : %s -> %s"
                  % (d, v, s, ttype([self.KV]), self.kv_scheme(), ty,
                     ttype(shape)), loc=loc)
        return d

    def cache_shape(self, which):
        """K (0) or V (1): kv_cache_shapes()."""
        return kv_cache_shapes(self.L, self.KV, self.Dh, self.M,
                               self.kv)[which]

    def cache_tensor(self, which):
        return ttype(self.cache_shape(which), self.kv)

    def cache_memref(self, which):
        return "memref<%sx%s>" % ("x".join(map(str, self.cache_shape(which))),
                                  self.kv)

    def attention(self, q, k_all, v_all, pos, S, n, loc):
        """Causal GQA attention of q[S, H * Dh] over k[KV, Dh, n] and
        v[KV, n, Dh]: one octet.attention (the CPU lowering calls the
        runtime's kernel, which computes only the keys each query sees;
        convert-octet-to-linalg writes it out as linalg generics)."""
        KV, G, Dh = self.KV, self.G, self.Dh
        q4 = self.fresh("r")
        qt = ttype([None, KV, G, Dh])
        self.emit("%s = tensor.expand_shape %s [[0], [1, 2, 3]] output_shape "
                  "[%s, %d, %d, %d] : %s into %s"
                  % (q4, q, S, KV, G, Dh, ttype([None, self.H * Dh]), qt),
                  loc=loc)
        ctx = self.fresh("attn")
        self.emit("%s = octet.attention %s, %s, %s, %s scale(%s) : %s, %s, "
                  "%s, %s -> %s"
                  % (ctx, q4, k_all, v_all, pos, f32(1.0 / np.sqrt(Dh)), qt,
                     ttype([KV, Dh, None]), ttype([KV, None, Dh]),
                     ttype([None], "i32"), qt), loc=loc)
        c2 = self.fresh("r")
        self.emit("%s = tensor.collapse_shape %s [[0], [1, 2, 3]] : %s into %s"
                  % (c2, ctx, qt, ttype([None, self.H * Dh])), loc=loc)
        return c2

    def add(self, a, b, S, n, loc):
        t = ttype([None, n])
        return self.generic([(a, t, ["s", "d"], "f32"),
                             (b, t, ["s", "d"], "f32")],
                            self.empty([None, n], [S], loc), [None, n],
                            ["s", "d"], ["parallel", "parallel"],
                            ["%r = arith.addf %a0, %a1 : f32",
                             "linalg.yield %r : f32"], loc)

    def swiglu(self, g, u, S, loc):
        t = ttype([None, self.F])
        return self.generic([(g, t, ["s", "f"], "f32"),
                             (u, t, ["s", "f"], "f32")],
                            self.empty([None, self.F], [S], loc),
                            [None, self.F], ["s", "f"],
                            ["parallel", "parallel"],
                            ["%one = arith.constant 1.0 : f32",
                             "%ng = arith.negf %a0 : f32",
                             "%e = math.exp %ng : f32",
                             "%den = arith.addf %e, %one : f32",
                             "%sg = arith.divf %a0, %den : f32",
                             "%r = arith.mulf %sg, %a1 : f32",
                             "linalg.yield %r : f32"], loc)

    # -- the step -------------------------------------------------------------
    def block(self, x, kcache, vcache, pos, S, p0, n, l):
        p = "blk.%d." % l
        D = self.D
        h = self.rms_norm(x, S, p + "attn_norm")
        q, _ = self.linear(h, S, D, p + "attn_q")
        k, nk = self.linear(h, S, D, p + "attn_k")
        v, _ = self.linear(h, S, D, p + "attn_v")
        q = self.rope(q, pos, S, self.H, p + "attn_q.rope")
        k = self.rope(k, pos, S, self.KV, p + "attn_k.rope")
        kcache = self.store_kv(kcache,
                               self.kv_heads_first(k, S, 0, p + "cache_k"),
                               l, 0, S, p0, p + "cache_k")
        vcache = self.store_kv(vcache,
                               self.kv_heads_first(v, S, 1, p + "cache_v"),
                               l, 1, S, p0, p + "cache_v")
        k_all = self.load_kv(kcache, l, 0, n, p + "cache_k")
        v_all = self.load_kv(vcache, l, 1, n, p + "cache_v")
        a = self.attention(q, k_all, v_all, pos, S, n, p + "attn")
        o, _ = self.linear(a, S, D, p + "attn_output")
        x = self.add(x, o, S, D, p + "attn_residual")
        h = self.rms_norm(x, S, p + "ffn_norm")
        g, _ = self.linear(h, S, D, p + "ffn_gate")
        u, _ = self.linear(h, S, D, p + "ffn_up")
        m = self.swiglu(g, u, S, p + "ffn_swiglu")
        d, _ = self.linear(m, S, self.F, p + "ffn_down")
        x = self.add(x, d, S, D, p + "ffn_residual")
        return x, kcache, vcache

    def step(self):
        """The body of @forward (%first: the first row of logits);
        returns the result list."""
        S = self.dim("%ids", ttype([None], "i32"), 0)
        p0i = self.fresh("p0")
        self.emit("%s = tensor.extract %%pos[%s] : %s"
                  % (p0i, self.index(0), ttype([None], "i32")))
        p0 = self.fresh("p0")
        self.emit("%s = arith.index_cast %s : i32 to index" % (p0, p0i))
        n = self.fresh("n")
        self.emit("%s = arith.addi %s, %s : index" % (n, p0, S))
        caches = []
        for which, name in enumerate(("kcache", "vcache")):
            c = self.fresh(name)
            self.emit("%s = bufferization.to_tensor %%%s restrict writable : "
                      "%s to %s" % (c, name, self.cache_memref(which),
                                    self.cache_tensor(which)))
            caches.append(c)
        kcache, vcache = caches
        x = self.embed("%ids", S)
        hidden = [x]
        for l in range(self.L):
            x, kcache, vcache = self.block(x, kcache, vcache, "%pos", S, p0,
                                           n, l)
            hidden.append(x)
        xn = self.rms_norm(x, S, "output_norm")
        # The logits of rows %first.. only (@prefill_last: the last row,
        # what a generator samples from, without the head's S x V work).
        rows = self.fresh("rows")
        self.emit("%s = arith.subi %s, %%first : index" % (rows, S))
        xs = self.fresh("xs")
        self.emit("%s = tensor.extract_slice %s[%%first, 0] [%s, %d] [1, 1] "
                  ": %s to %s" % (xs, xn, rows, self.D,
                                  ttype([None, self.D]),
                                  ttype([None, self.D])), loc="output")
        # The output head, located `output` also when it is tied to the
        # embedding table (the same constant then serves both).
        logits, _ = self.linear(
            xs, rows, self.D, "output",
            "token_embd.weight" if self.m.config.get("tied_output") else None)
        for which, (c, name) in enumerate(((kcache, "kcache"),
                                           (vcache, "vcache"))):
            self.emit("bufferization.materialize_in_destination %s in "
                      "restrict writable %%%s : (%s, %s) -> ()"
                      % (c, name, self.cache_tensor(which),
                         self.cache_memref(which)))
        res = [(logits, ttype([None, self.V]))]
        if self.return_hidden:
            res += [(h, ttype([None, self.D])) for h in hidden]
        return res


def k_cache_pad(max_len, kv_cache):
    """Unused positions at the end of each row of the transposed K cache:
    a row of `max_len` positions is padded to an odd number of 64-byte
    lines (a leading dimension, as BLAS pads one), so that the 64 rows of
    a head the score loop reads in turn do not all map to the same cache
    sets (a 2048-position f32 row is 8 KiB: every row in one L1 set).
    Measured: decode at a 64-token context ran 6-10% slower unpadded than
    with the K^T copy it replaces."""
    item = 4 if kv_cache == "f32" else 1
    lines = -(-max_len * item // 64)
    return (lines + (lines % 2 == 0)) * 64 // item - max_len


def kv_cache_shapes(layers, kv_heads, head_dim, max_len, kv_cache):
    """The shapes of the K cache ([layers, kv_heads, head_dim, max_len +
    k_cache_pad(...)], transposed, rows padded) and the V cache ([layers,
    kv_heads, max_len, head_dim]): the @prefill/@decode signature, which
    callers allocate to."""
    return ([layers, kv_heads, head_dim,
             max_len + k_cache_pad(max_len, kv_cache)],
            [layers, kv_heads, max_len, head_dim])


def emit_module(model, max_len=2048, kv_cache="f32", kv_scales=None,
                return_hidden=False, source="", quantize_embeddings=None):
    """The module text (without resources) and the emitter (its
    resources)."""
    em = LlamaEmitter(model, max_len, kv_cache, kv_scales, return_hidden,
                      quantize_embeddings)
    results = em.step()
    c = model.config
    rtypes = ", ".join(t for _, t in results)
    km, vm = em.cache_memref(0), em.cache_memref(1)
    ids_t = ttype([None], "i32")
    out = ["// Generated by tools/import-model/octet_import_model.py --gguf "
           "from %s" % source,
           "// Llama decoder '%s': %d layers, hidden %d, FFN %d, %d heads, %d "
           "KV heads, head dim %d, vocab %d, RoPE theta %g, RMSNorm eps %g;"
           % (c.get("name", "?"), em.L, em.D, em.F, em.H, em.KV, em.Dh, em.V,
              em.theta, em.eps),
           "// KV cache: K %s (transposed), V %s (%s), at most %d positions."
           % (km, vm, kv_cache, max_len),
           "module {"]
    ids_args = "%%ids: %s, %%pos: %s, %%kcache: %s, %%vcache: %s" % (
        ids_t, ids_t, km, vm)
    call_types = "(%s, %s, %s, %s, index) -> (%s)" % (ids_t, ids_t, km, vm,
                                                       rtypes)
    n = len(results)
    # The body, once: @prefill, @prefill_last and @decode call it.
    out += ["  func.func private @forward(%s, %%first: index) -> (%s) {"
            % (ids_args, rtypes)]
    out += em.lines
    out.append("    return %s : %s" % (", ".join(r for r, _ in results),
                                       rtypes))
    out.append("  }")
    # prefill: the logits of every token (and the hidden states).
    out += ["  func.func @prefill(%s) -> (%s) {" % (ids_args, rtypes),
            "    %c0 = arith.constant 0 : index",
            "    %%r:%d = func.call @forward(%%ids, %%pos, %%kcache, %%vcache, "
            "%%c0) : %s" % (n, call_types),
            "    return %s : %s" % (", ".join("%%r#%d" % i for i in range(n)),
                                    rtypes),
            "  }"]
    # prefill_last: the logits of the last token only.
    vt, v1 = ttype([None, em.V]), ttype([1, em.V])
    out += ["  func.func @prefill_last(%s) -> %s {" % (ids_args, v1),
            "    %c0 = arith.constant 0 : index",
            "    %c1 = arith.constant 1 : index",
            "    %%n = tensor.dim %%ids, %%c0 : %s" % ids_t,
            "    %last = arith.subi %n, %c1 : index",
            "    %%r:%d = func.call @forward(%%ids, %%pos, %%kcache, %%vcache, "
            "%%last) : %s" % (n, call_types),
            "    %%l = tensor.cast %%r#0 : %s to %s" % (vt, v1),
            "    return %%l : %s" % v1,
            "  }"]
    # decode: one token, the same body.
    one = ttype([1], "i32")
    out += ["  func.func @decode(%%id: %s, %%pos: %s, %%kcache: %s, "
            "%%vcache: %s) -> %s {" % (one, one, km, vm, v1),
            "    %%i = tensor.cast %%id : %s to %s" % (one, ids_t),
            "    %%p = tensor.cast %%pos : %s to %s" % (one, ids_t),
            "    %c0 = arith.constant 0 : index",
            "    %%r:%d = func.call @forward(%%i, %%p, %%kcache, %%vcache, "
            "%%c0) : %s" % (n, call_types),
            "    %%l = tensor.cast %%r#0 : %s to %s" % (vt, v1),
            "    return %%l : %s" % v1,
            "  }", "}"]
    return out, em


def write_module(path, lines, em):
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
        write_resources(fh, em.resources)
