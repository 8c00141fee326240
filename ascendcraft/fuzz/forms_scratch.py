"""Multi-phase forms over GM scratch (:mod:`ascendcraft.fuzz.kernels`, ``FORMS``): what attention,
convolution and fused kernels are made of.

* ``relayout``  a phase writes an input, relaid out, to a scratch tensor and a later phase reads it
                in the new layout: a transpose (column stores), a head split ``[S, E] -> [NH, S, D]``
                with ``NH`` a const of an integer attribute or a literal (``D = E // NH``), read by
                slices of the last axis or through a view ``[S, NH, D]`` of the input, an im2col
                of a 1-D convolution (padded loads of each window, a row product with the weights),
                channels-first to channels-last ``[N, C, P] -> [N, P, C]``, nearest-neighbour
                upsampling (a ``gather`` of each source row, stored, maybe through a scratch), an
                argmax over the middle axis (per-chunk maxima and positions in scratch, folded with
                ``where``);
* ``scratchmm`` products on the cube whose operands or result are scratch tensors: a vector phase
                writes ``A`` (or a transposed ``B``) to scratch, the product goes to scratch or to
                the output, a vector epilogue reads it (bias and activation, or a row softmax);
                batched products over a batch axis sized by a const (of a dim or an attribute);
* ``inplace``   a scratch written by one phase and updated in place by later ones (a region read
                and written by the same core), optionally in a loop of phases, then read out;
* ``maskbcast`` bool masks of different shapes (``[R, C]``, ``[R, 1]``, ``[C]``, comparisons) combined
                with ``& | ~`` under every supported broadcast, used as ``where`` masks and stored to
                bool outputs.

Each is a function ``(draw, Options) -> FuzzCase``; the tags of its choices go to ``FuzzCase.forms``.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .builder import KernelBuilder, draw_tile
from .differential import FuzzCase
from .expressions import Ex, Options


def _int_attr(k: KernelBuilder, name: str, value: int) -> str:
    """An integer attribute: bound from the op file (a module constant) or taken from its default."""
    if k.draw(st.booleans()):
        k.attrs.append(f"{name}: i32 = {value}")
        k.tag("int_attr_default")
    else:
        k.attrs.append(f"{name}: i32 = {value + 5}")
        k.op_attrs.append((name, value))
        k.tag("int_attr_bound")
    return name


def _map(k: KernelBuilder, leaf: str, numel: int) -> str:
    """A little element-wise math over one tile expression (finite by construction)."""
    return k.exprs([Ex(leaf, 1.0, True)], numel=numel).expr().text


# -- relayout
def _relayout(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    style = draw(st.sampled_from(["transpose", "heads", "im2col", "channels_last", "nearest", "argfold"]))
    k.tag(f"relayout_{style}")
    if style == "nearest":         # nearest-neighbour upsampling by a gather of each source row
        n, c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 40))
        sc = draw(st.sampled_from([2, 4]))
        k.inp("x", "N, C, H, W", (n, c, h, w))
        k.out("y", "N, C, OH, OW", (n, c, h * sc, w * sc))
        via = draw(st.booleans())
        if via:                     # the gathered rows go through a scratch first
            k.scratch.append("    scratch s: f32[N, C, OH, OW]")
            k.tag("nearest_via_scratch")
        k.line(1, "for n, c, oh in parallel(N, C, OH):")
        k.line(2, f"row = load(x[n, c, oh // {sc}, :])")
        k.line(2, f"idx = cast(floor(iota(OW, f32) * {1.0 / sc!r}), i32)")
        k.line(2, f"store({'s' if via else 'y'}[n, c, oh, :], gather(row, idx))")
        if via:
            k.line(1, "for n, c, oh in parallel(N, C, OH):")
            k.line(2, f"store(y[n, c, oh, :], {_map(k, 'load(s[n, c, oh, :])', w * sc)})")
        return k.case("relayout")
    if style == "argfold":          # argmax over the middle axis: per-chunk maxima and positions in scratch
        b, n, m = draw(st.integers(1, 3)), draw(st.integers(1, 40)), draw(st.integers(1, 300))
        nc, tm = draw(st.sampled_from([4, 8, 3])), draw_tile(draw, 256)
        k.const("TM", tm)
        k.const("NC", nc)
        k.const("P", "cdiv(N, NC)")
        k.inp("x", "B, N, M", (b, n, m))
        k.out("y", "B, M", (b, m), "i32")
        k.scratch.append("    scratch pv: f32[B, P, M]")
        k.scratch.append("    scratch pi: i32[B, P, M]")
        k.line(1, "for b, p, mb in parallel(B, P, cdiv(M, TM)):")
        k.line(2, "m = mb * TM")
        k.line(2, "t = load(x[b, p * NC:p * NC + NC, m:m + TM])")
        k.line(2, "store(pv[b, p, m:m + TM], max(t, axis=0))")
        k.line(2, "store(pi[b, p, m:m + TM], argmax(t, axis=0, dtype=i32) + p * NC)")
        k.line(1, "for b, mb in parallel(B, cdiv(M, TM)):")
        k.line(2, "m = mb * TM")
        k.line(2, "bv = load(pv[b, 0, m:m + TM])")
        k.line(2, "bi = load(pi[b, 0, m:m + TM])")
        k.line(2, "for p in range(1, P):")
        k.line(3, "v = load(pv[b, p, m:m + TM])")
        k.line(3, "better = v > bv")
        k.line(3, "bi = where(better, load(pi[b, p, m:m + TM]), bi)")
        k.line(3, "bv = where(better, v, bv)")
        k.line(2, "store(y[b, m:m + TM], bi)")
        return k.case("relayout")
    if style == "transpose":
        r, c = draw(st.integers(1, 40)), draw(st.integers(1, 120))
        t = draw_tile(draw, 64)
        k.const("T", t)
        k.inp("x", "R, C", (r, c))
        k.out("y", "C, R", (c, r))
        k.scratch.append("    scratch s: f32[C, R]")
        k.line(1, "for r in parallel(R):")
        k.line(2, "for j in range(0, C, T):")
        k.line(3, f"store(s[j:j + T, r], {_map(k, 'load(x[r, j:j + T])', t)})")
        k.line(1, "for c in parallel(C):")
        k.line(2, "for i in range(0, R, T):")
        k.line(3, f"store(y[c, i:i + T], {_map(k, 'load(s[c, i:i + T])', t)})")
        return k.case("relayout")
    if style == "heads":
        nh, d, s = draw(st.integers(1, 4)), draw(st.sampled_from([1, 8, 5, 16, 24])), draw(st.integers(1, 30))
        if draw(st.booleans()):
            k.const("NH", _int_attr(k, "heads", nh))
        else:
            k.const("NH", nh)
        k.const("D", "E // NH")
        k.inp("x", "S, E", (s, nh * d))
        k.out("y", "S, E", (s, nh * d))
        k.scratch.append("    scratch q: f32[NH, S, D]")
        src = "x[r, h * D:h * D + D]"
        if draw(st.booleans()):       # the heads as an axis of a view of x (an address computation)
            k.scratch.append("    xv = view(x, (S, NH, D))")
            src = "xv[r, h, :]"
            k.tag("heads_view")
        k.line(1, "for h, r in parallel(NH, S):")
        k.line(2, f"store(q[h, r, :], {_map(k, f'load({src})', d)})")
        k.line(1, "for h, r in parallel(NH, S):")
        value = "load(q[h, r, :])"
        if draw(st.booleans()):       # a row statistic of the head, as attention's softmax takes
            k.line(2, f"t = {value}")
            k.line(2, "e = exp(t - max(t))")
            value = "e / sum(e)"
            k.tag("heads_softmax")
        k.line(2, f"store(y[r, h * D:h * D + D], {value})")
        return k.case("relayout")
    if style == "im2col":
        c, length = draw(st.integers(1, 6)), draw(st.integers(1, 90))
        ks, stride, pad = draw(st.integers(1, 5)), draw(st.integers(1, 3)), draw(st.integers(0, 2))
        pad = min(pad, ks - 1)
        lo = (length + 2 * pad - ks) // stride + 1
        if lo < 1:
            length, lo = ks, (ks + 2 * pad - ks) // stride + 1
        k.const("KS", ks)
        k.const("ST", stride)
        k.const("P", pad)
        k.inp("x", "C, L", (c, length))
        k.inp("w", "CK", (c * ks,))
        k.out("y", "LO", (lo,))
        k.scratch.append("    scratch col: f32[LO, CK]")
        k.line(1, "for o, ci in parallel(LO, C):")
        k.line(2, "a = o * ST - P")
        k.line(2, "store(col[o, ci * KS:ci * KS + KS], load(x[ci, a:a + KS], pad=0.0))")
        k.line(1, "for o in parallel(LO):")
        k.line(2, "store(y[o], sum(load(col[o, :]) * load(w[:])))")
        return k.case("relayout")
    n, c, p = draw(st.integers(1, 3)), draw(st.integers(1, 20)), draw(st.integers(1, 70))
    t = draw_tile(draw, 32)
    k.const("T", t)
    k.inp("x", "N, C, P", (n, c, p))
    k.out("y", "N, P, C", (n, p, c))
    k.scratch.append("    scratch s: f32[N, P, C]")
    k.line(1, "for n, c in parallel(N, C):")
    k.line(2, "for j in range(0, P, T):")
    k.line(3, f"store(s[n, j:j + T, c], {_map(k, 'load(x[n, c, j:j + T])', t)})")
    k.line(1, "for n, q in parallel(N, P):")
    k.line(2, "t = load(s[n, q, :])")
    k.line(2, "store(y[n, q, :], t - sum(t) * (1.0 / C))")
    return k.case("relayout")


# -- scratchmm
_BASES = ((16, 16, 8), (32, 16, 16), (16, 32, 8), (64, 32, 32))


def _scratchmm(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    tm, tn, tk = draw(st.sampled_from(_BASES))
    m, n, kk = draw(st.integers(1, 70)), draw(st.integers(1, 70)), draw(st.integers(1, 70))
    batch = draw(st.sampled_from(["none", "dim", "attr"]))
    k.tag(f"scratchmm_batch_{batch}")
    k.const("TM", tm)
    k.const("TN", tn)
    k.const("TK", tk)
    lead, lead_dims, grid, zs = "", "", "", ""
    if batch != "none":
        b = draw(st.integers(1, 3))
        k.const("NB", "B" if batch == "dim" else _int_attr(k, "nb", b))
        lead, lead_dims, grid, zs = "z, ", "NB, ", "z, ", "z, "
        k.inp("x", "B, M, K", (b, m, kk))
        out_shape = (b, m, n)
        out_dims = "B, M, N"
    else:
        k.inp("x", "M, K", (m, kk))
        out_shape, out_dims = (m, n), "M, N"
    k.inp("w", "K, N", (kk, n))
    k.inp("bias", "N", (n,))
    k.out("y", out_dims, out_shape)
    k.scratch.append(f"    scratch a2: f32[{lead_dims}M, K]")
    to_scratch = draw(st.booleans())
    if to_scratch:
        k.scratch.append(f"    scratch c2: f32[{lead_dims}M, N]")
    wt = draw(st.booleans())        # B as a transposed scratch copy of w, read with transpose_b
    if wt:
        k.scratch.append("    scratch wt: f32[N, K]")
        k.tag("scratchmm_bt")
    # phase 1: A = f(x) into scratch, row by row
    k.line(1, f"for {lead}r in parallel({lead_dims}M):")
    k.line(2, f"store(a2[{zs}r, :], {_map(k, f'load(x[{zs}r, :])', kk)})")
    if wt:
        k.line(1, "for q in parallel(K):")
        k.line(2, "store(wt[:, q], load(w[q, :]))")
    # phase 2: the product, K in TK steps
    bsrc, trans = ("wt", ", transpose_b=True") if wt else ("w", "")
    b0 = f"{bsrc}[n:n + TN, 0:TK]" if wt else f"{bsrc}[0:TK, n:n + TN]"
    b1 = f"{bsrc}[n:n + TN, kk:kk + TK]" if wt else f"{bsrc}[kk:kk + TK, n:n + TN]"
    c = "c2" if to_scratch else "y"
    k.line(1, f"for {grid}i, j in parallel({lead_dims}cdiv(M, TM), cdiv(N, TN)):")
    k.line(2, "m = i * TM")
    k.line(2, "n = j * TN")
    k.line(2, f"ta = load(a2[{zs}m:m + TM, 0:TK], space=l1)")
    k.line(2, f"acc = matmul(ta, load({b0}, space=l1){trans})")
    k.line(2, "for kk in range(TK, K, TK):")
    k.line(3, f"ta = load(a2[{zs}m:m + TM, kk:kk + TK], space=l1)")
    k.line(3, f"acc = acc + matmul(ta, load({b1}, space=l1){trans})")
    k.line(2, f"store({c}[{zs}m:m + TM, n:n + TN], acc)")
    # phase 3: an epilogue reading the product, row by row (in place on the output, or from scratch)
    epi = draw(st.sampled_from(["bias_act", "softmax"]))
    k.tag(f"scratchmm_{epi}")
    k.line(1, f"for {lead}r in parallel({lead_dims}M):")
    k.line(2, f"t = load({c}[{zs}r, :]) * 0.125")
    if epi == "bias_act":
        act = draw(st.sampled_from(["relu", "sigmoid", "tanh"]))
        k.line(2, f"store(y[{zs}r, :], {act}(t + load(bias)))")
    else:
        k.line(2, "e = exp(t - max(t))")
        k.line(2, f"store(y[{zs}r, :], e / sum(e) + load(bias))")
    return k.case("scratchmm")


# -- inplace
def _inplace(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    r, c = draw(st.integers(1, 50)), draw(st.integers(1, 300))
    t = draw_tile(draw)
    k.const("T", t)
    k.inp("x", "R, C", (r, c))
    k.out("y", "R, C", (r, c))
    k.scratch.append("    scratch s: f32[R, C]")
    k.line(1, "for i in parallel(R):")
    k.line(2, "for j in range(0, C, T):")
    k.line(3, f"store(s[i, j:j + T], {_map(k, 'load(x[i, j:j + T])', t)})")
    rounds = draw(st.sampled_from([1, 2]))
    loop = draw(st.booleans())
    d = 1
    if loop:
        k.const("NIT", rounds)
        k.line(1, "for it in range(NIT):")
        d, rounds = 2, 1
        k.tag("inplace_loop_of_phases")
    for _ in range(rounds):
        blocks = draw(st.booleans())
        if blocks:              # [RB, T] blocks of the scratch, updated where they lie
            rb = draw(st.sampled_from([2, 3]))
            k.line(d, f"for ib, jb in parallel(cdiv(R, {rb}), cdiv(C, T)):")
            k.line(d + 1, f"i = ib * {rb}")
            k.line(d + 1, "j = jb * T")
            region = f"s[i:i + {rb}, j:j + T]"
            numel = rb * t
        else:
            k.line(d, "for i in parallel(R):")
            k.line(d + 1, "for j in range(0, C, T):")
            region, numel = "s[i, j:j + T]", t
        ind = d + (1 if blocks else 2)
        k.line(ind, f"u = load({region})")
        k.line(ind, f"store({region}, tanh(u * 0.5 + {_map(k, 'u', numel)}))")
        k.tag("inplace_blocks" if blocks else "inplace_rows")
    k.line(1, "for i in parallel(R):")
    k.line(2, "for j in range(0, C, T):")
    k.line(3, "store(y[i, j:j + T], load(s[i, j:j + T]) - load(x[i, j:j + T]))")
    return k.case("inplace")


# -- maskbcast
def _maskbcast(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    r, c = draw(st.integers(1, 40)), draw(st.integers(1, 200))
    rb, tc = draw(st.sampled_from([1, 2, 3, 8, 16])), draw_tile(draw, 128)
    k.const("RB", rb)
    k.const("TC", tc)
    k.inp("x", "R, C", (r, c))
    # the masks on hand: each (text, kind) with kind full, col or row
    shapes = {"full": ("R, C", (r, c), "r:r + RB, n:n + TC"), "col": ("R, 1", (r, 1), "r:r + RB, :"),
              "row": ("C", (c,), "n:n + TC")}
    masks = []
    for kind in draw(st.lists(st.sampled_from(sorted(shapes)), min_size=1, max_size=3, unique=True)):
        dims, shape, region = shapes[kind]
        k.inp(f"m_{kind}", dims, shape, "bool")
        masks.append((f"load(m_{kind}[{region}])", kind))
    masks.append(("(t > 0.0)", "full"))
    masks.append(("(t < 0.5)", "full"))
    k.out("y", "R, C", (r, c))
    k.out("z", "R, C", (r, c), "bool")
    k.line(1, "for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):")
    k.line(2, "r = rb * RB")
    k.line(2, "n = cb * TC")
    k.line(2, "t = load(x[r:r + RB, n:n + TC])")

    def tree(depth) -> tuple[str, str]:
        if depth == 0 or draw(st.integers(0, 2)) == 0:
            return draw(st.sampled_from(masks))
        op = draw(st.sampled_from(["&", "|", "~"]))
        if op == "~":
            a, kind = tree(depth - 1)
            k.tag("mask_not")
            return f"~{a}" if a.startswith("(") or a.startswith("load") else f"~({a})", kind
        (a, ka), (b, kb) = tree(depth - 1), tree(depth - 1)
        kind = ka if ka == kb else "full" if "full" in (ka, kb) or {ka, kb} == {"col", "row"} else ka
        k.tag(f"mask_{'and' if op == '&' else 'or'}_{ka}_{kb}")
        return f"({a} {op} {b})", kind

    def full_tree() -> str:
        for _ in range(20):
            m, kind = tree(2)
            if kind == "full":
                return m
        return "(t > 0.0)"
    k.line(2, f"store(y[r:r + RB, n:n + TC], where({full_tree()}, t, t * 2.0 - 1.0))")
    k.line(2, f"store(z[r:r + RB, n:n + TC], {full_tree()})")
    return k.case("maskbcast")


SCRATCH_FORMS = {"relayout": _relayout, "scratchmm": _scratchmm, "inplace": _inplace, "maskbcast": _maskbcast}
