"""Forms of the kernel generator that carry values across tiles, loops or phases
(:mod:`ascendcraft.fuzz.kernels`, ``FORMS``).

* ``rowreduce`` an accumulator (``0.0``, ``-inf``, ``inf``, ``1.0``) carried across a ``range``
                loop of row tiles: ``sum``/``max``/``min``/``prod``, the mean as ``sum * (1/C)``;
* ``colreduce`` reductions along axis 0 of ``[RB, TC]`` tiles accumulated across row blocks
                (sum_dim1 form), and element-wise accumulators (rms_norm form);
* ``scan``      ``cumsum``/``cumprod`` (forward or ``reverse=True``) of row tiles with a carry;
* ``window``    ``window_max``/``window_avg`` over 1-D rows or 2-D planes, halos loaded with
                ``pad=`` (``-inf``/``0.0``), strides, tails;
* ``twophase``  per-core partials in a ``scratch`` tensor combined after the phase on one core
                (mse form), per-row statistics in scratch used by a second phase (optionally a
                loop of phases over row groups), 2-D scratch partials ``[R, NB]`` combined per
                row;
* ``atomic``    an output zeroed first, then ``atomic_add`` of per-core partials (0-d or
                ``[C]`` outputs).

Each is a function ``(draw, Options) -> FuzzCase``; the tags of its choices go to ``FuzzCase.forms``.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .builder import KernelBuilder, draw_tile
from .differential import FuzzCase
from .expressions import Ex, Exprs, Options, bounded, combine


# -- rowreduce
def _rowreduce(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 400))
    red = draw(st.sampled_from(["sum", "max", "min", "mean", "prod"]))
    k.tag(f"rowreduce_{red}")
    t = draw_tile(draw)
    k.const("T", t)
    leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "R, C", (r, c), "r, j:j + T")
    k.out("y", "R", (r,))
    k.line(1, "for r in parallel(R):")
    single = red == "mean" and draw(st.booleans())
    if single:     # mean of a whole row in one tile (FIXED_BUGS["mean"])
        leaves = [Ex(l.text.replace("j:j + T", ":"), l.mag, l.exact) for l in leaves]
        masks = [m.replace("j:j + T", ":") for m in masks]
        e = k.exprs(leaves, masks=masks, numel=c).expr()
        k.line(2, f"store(y[r], mean({e.text}))")
        return k.case("rowreduce")
    if red == "mean":
        red = "sum"
    init = {"sum": "0.0", "max": "-inf", "min": "inf", "prod": "1.0"}[red]
    k.line(2, f"acc = {init}")
    k.line(2, "for j in range(0, C, T):")
    e = k.exprs(leaves, masks=masks, numel=t).expr()
    if red == "prod":
        e = Ex(f"({bounded(e).text} * 0.015625 + 1.0)", 1.0)
    comb = {"sum": "acc + {}", "max": "maximum(acc, {})", "min": "minimum(acc, {})", "prod": "acc * {}"}[red]
    k.line(3, "acc = " + comb.format(f"{red}({e.text})"))
    post = draw(st.sampled_from(["acc", "mean", "scaled"]))
    if "rowreduce_mean" in k.tags or post == "mean" and red == "sum":
        k.line(2, "store(y[r], acc * (1.0 / C))")
    elif post == "scaled":
        s = k.exprs([Ex("acc", 1.0)], scalar_mode=True).nonzero_scalar()
        k.line(2, f"store(y[r], acc * {s.text})")
    else:
        k.line(2, "store(y[r], acc)")
    return k.case("rowreduce")


# -- colreduce
def _colreduce(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 40)), draw(st.integers(1, 200))
    style = draw(st.sampled_from(["axis0", "elementwise"]))
    k.tag(f"colreduce_{style}")
    tc = draw_tile(draw)
    k.const("TC", tc)
    k.out("y", "C", (c,))
    if style == "axis0":
        rb = draw(st.sampled_from([2, 1, 3, 8]))
        k.const("RB", rb)
        leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "R, C", (r, c), "n:n + RB, c:c + TC")
        red = draw(st.sampled_from(["sum", "max", "min"]))
        k.tag(f"axis0_{red}")
        comb = {"sum": "acc + {}", "max": "maximum(acc, {})", "min": "minimum(acc, {})"}[red]
        k.line(1, "for cb in parallel(cdiv(C, TC)):")
        k.line(2, "c = cb * TC")
        ex = k.exprs(leaves, masks=masks, numel=rb * tc)
        e0 = ex.expr()
        k.line(2, f"acc = {red}({e0.text.replace('n:n + RB', '0:RB')}, axis=0)")
        k.line(2, "for n in range(RB, R, RB):")
        e1 = ex.expr()
        k.line(3, "acc = " + comb.format(f"{red}({e1.text}, axis=0)"))
        k.line(2, "store(y[c:c + TC], acc)")
        return k.case("colreduce")
    leaves, masks = k.leaf_loads(1, "R, C", (r, c), "n, c:c + TC")
    k.line(1, "for cb in parallel(cdiv(C, TC)):")
    k.line(2, "c = cb * TC")
    ex = k.exprs(leaves, masks=masks, numel=tc)
    e0 = k.computed(bounded(ex.expr()))
    k.line(2, f"acc = {e0.text.replace('n, c:c + TC', '0, c:c + TC')}")
    k.line(2, "for n in range(1, R):")
    e1 = bounded(ex.expr())
    op = draw(st.sampled_from(["+", "maximum", "minimum"]))
    k.line(3, "acc = " + ("acc + " + e1.text if op == "+" else f"{op}(acc, {e1.text})"))
    k.line(2, "store(y[c:c + TC], acc)")
    return k.case("colreduce")


# -- scan
def _scan(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    r, c = draw(st.integers(1, 30), ), draw(st.integers(1, 300))
    op = draw(st.sampled_from(["cumsum", "cumprod"]))
    reverse = draw(st.booleans())
    k.tag(f"{op}{'_reverse' if reverse else ''}")
    t = draw_tile(draw)
    k.const("T", t)
    leaves, masks = k.leaf_loads(1, "R, C", (r, c), "r, j:j + T")
    k.out("y", "R, C", (r, c))
    k.line(1, "for r in parallel(R):")
    k.line(2, f"carry = {'0.0' if op == 'cumsum' else '1.0'}")
    if reverse:
        k.const("LAST", "(cdiv(C, T) - 1) * T")
        k.line(2, "for j in range(LAST, -1, -T):")
    else:
        k.line(2, "for j in range(0, C, T):")
    e = bounded(k.exprs(leaves, masks=masks, numel=t).expr())
    if op == "cumprod":
        e = Ex(f"({e.text} * 0.015625 + 1.0)", 1.0)
    k.line(3, f"s = {e.text}")
    rev = ", reverse=True" if reverse else ""
    if op == "cumsum":
        k.line(3, f"store(y[r, j:j + T], cumsum(s{rev}) + carry)")
        k.line(3, "carry = carry + sum(s)")
    else:
        k.line(3, f"store(y[r, j:j + T], cumprod(s{rev}) * carry)")
        k.line(3, "carry = carry * prod(s)")
    return k.case("scan")


# -- window
def _window(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    op = draw(st.sampled_from(["window_max", "window_avg"]))
    pad_value = "-inf" if op == "window_max" else "0.0"
    two_d = draw(st.booleans())
    ks = draw(st.integers(1, 4))
    s = draw(st.integers(1, 3))
    p = draw(st.integers(0, (ks - 1) // 2 + 1)) if ks > 1 else 0
    p = min(p, ks // 2)
    as_attrs = draw(st.booleans())
    if as_attrs:
        k.attrs += [f"k: i32 = {ks}", f"s: i32 = {s}", f"p: i32 = {p}"]
        K, S, P = "k", "s", "p"
        k.tag("window_attrs")
    else:
        K, S, P = str(ks), str(s), str(p)
    k.tag(f"{op}_{'2d' if two_d else '1d'}")
    post = draw(st.sampled_from(["none", "math"]))
    if not two_d:
        n, length = draw(st.integers(1, 12)), draw(st.integers(ks, 200))
        lo = (length + 2 * p - ks) // s + 1
        k.inp("x", "N, L", (n, length))
        k.out("y", "N, LO", (n, lo))
        tl = draw_tile(draw)
        k.const("TL", tl)
        k.const("IL", f"(TL - 1) * {S} + {K}")
        k.line(1, "for i, lb in parallel(N, cdiv(LO, TL)):")
        k.line(2, "l = lb * TL")
        k.line(2, f"li = l * {S} - {P}")
        k.line(2, f"t = load(x[i, li:li + IL], pad={pad_value})")
        w = f"{op}(t, kernel=({K},), stride=({S},))"
        dst = "y[i, l:l + TL]"
        numel = tl
    else:
        n = draw(st.integers(1, 4))
        h, wd = draw(st.integers(ks, 40)), draw(st.integers(ks, 60))
        ho, wo = (h + 2 * p - ks) // s + 1, (wd + 2 * p - ks) // s + 1
        k.inp("x", "N, H, W", (n, h, wd))
        k.out("y", "N, HO, WO", (n, ho, wo))
        th, tw = draw(st.sampled_from([4, 1, 3, 8])), draw_tile(draw, 64)
        k.const("TH", th)
        k.const("TWO", tw)
        k.const("IH", f"(TH - 1) * {S} + {K}")
        k.const("IW", f"(TWO - 1) * {S} + {K}")
        k.line(1, "for i, hb, wb in parallel(N, cdiv(HO, TH), cdiv(WO, TWO)):")
        k.line(2, "h = hb * TH")
        k.line(2, "w = wb * TWO")
        k.line(2, f"hi = h * {S} - {P}")
        k.line(2, f"wi = w * {S} - {P}")
        k.line(2, f"t = load(x[i, hi:hi + IH, wi:wi + IW], pad={pad_value})")
        w = f"{op}(t, kernel=({K}, {K}), stride=({S}, {S}))"
        dst = "y[i, h:h + TH, w:w + TWO]"
        numel = th * tw
    if post == "math":
        k.line(2, f"p0 = {w}")
        e = k.exprs([Ex("p0", 1.0, op == "window_max")], numel=numel).expr(2)
        k.line(2, f"store({dst}, {e.text})")
    else:
        k.line(2, f"store({dst}, {w})")
    return k.case("window")


# -- twophase
def _twophase(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    styles = ["cores", "rowstats", "groups", "partials2d", "column"]
    style = draw(st.sampled_from(styles))
    k.tag(f"twophase_{style}")
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 300))
    t = draw_tile(draw)
    k.const("T", t)
    if style == "cores":        # mse form: balanced tile ranges per core, partials, one-core finish
        leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "R, C", (r, c), "f // NT, j:j + T")
        k.out("loss", "", ())
        k.const("NT", "cdiv(C, T)")
        k.const("U", "R * NT")
        k.scratch.append("    scratch part: f32[CORES]")
        red = draw(st.sampled_from(["sum", "max"]))
        k.line(1, "for c in parallel(CORES):")
        k.line(2, f"acc = {'0.0' if red == 'sum' else '-inf'}")
        k.line(2, "for f in range(c * U // CORES, (c + 1) * U // CORES):")
        k.line(3, "j = f % NT * T")
        e = k.exprs(leaves, masks=masks, numel=t).expr()
        if red == "sum":
            k.line(3, f"acc = acc + sum({e.text})")
            k.line(2, "store(part[c], acc)")
            k.line(1, "store(loss, sum(load(part)) * (1.0 / (R * C)))")
        else:
            k.line(3, f"acc = maximum(acc, max({e.text}))")
            k.line(2, "store(part[c], acc)")
            k.line(1, "store(loss, max(load(part)))")
        k.tag(f"final_{red}")
        return k.case("twophase")
    if style == "partials2d" or style == "column":
        leaves, masks = k.leaf_loads(1, "R, C", (r, c), "i, j:j + T")
        k.const("NB", "cdiv(C, T)")
        k.scratch.append("    scratch part: f32[R, NB]")      # FIXED_BUGS["scratch_const_dim"]
        k.line(1, "for i, jb in parallel(R, NB):")
        k.line(2, "j = jb * T")
        e = k.exprs(leaves, masks=masks, numel=t).expr()
        k.line(2, f"store(part[i, jb], sum({e.text}))")
        if style == "partials2d":
            k.out("y", "R", (r,))
            k.line(1, "for i in parallel(R):")
            k.line(2, "store(y[i], sum(load(part[i, 0:NB])))")
        else:                   # FIXED_BUGS["scratch_column"]
            k.out("y", "NBO", (-(-c // t),))
            k.line(1, "for jb in parallel(NB):")
            k.line(2, "store(y[jb], sum(load(part[:, jb])))")
        return k.case("twophase")
    # rowstats / groups: per-row statistic to scratch, then a second phase normalises the row
    leaves, masks = k.leaf_loads(1, "R, C", (r, c), "i, j:j + T")
    k.out("y", "R, C", (r, c))
    k.scratch.append("    scratch st: f32[R]")
    d = 1
    if style == "groups":
        g = draw(st.sampled_from([4, 1, 7, 16]))
        k.const("G", g)
        k.line(1, "for g in range(0, R, G):")
        d = 2
        par, row = "parallel(minimum(G, R - g))", "g + q"
    else:
        par, row = "parallel(R)", "q"
    red = draw(st.sampled_from(["sum", "max"]))
    k.line(d, f"for q in {par}:")
    k.line(d + 1, f"i = {row}")
    k.line(d + 1, f"acc = {'0.0' if red == 'sum' else '-inf'}")
    k.line(d + 1, "for j in range(0, C, T):")
    e = k.exprs(leaves, masks=masks, numel=t).expr()
    k.line(d + 2, "acc = " + ("acc + sum({})" if red == "sum" else "maximum(acc, max({}))").format(e.text))
    k.line(d + 1, "store(st[i], acc)")
    k.line(d, f"for q in {par}:")
    k.line(d + 1, f"i = {row}")
    k.line(d + 1, "s = load(st[i])")
    k.line(d + 1, "for j in range(0, C, T):")
    sc = Ex("s", (c if red == "sum" else 1.0) * 40.0, False)
    ex2 = Exprs(draw, opts, leaves, scalars=k.scalars + [sc], masks=masks, numel=t, tags=k.tags)
    e2 = combine(draw(st.sampled_from(["-", "*", "/", "+"])), ex2.expr(), sc)
    k.line(d + 2, f"store(y[i, j:j + T], {e2.text})")
    return k.case("twophase")


# -- atomic
def _atomic(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    target = draw(st.sampled_from(["scalar", "vector"]))
    k.tag(f"atomic_{target}")
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 200))
    if target == "scalar":
        t = draw_tile(draw)
        k.const("T", t)
        leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "R, C", (r, c), "i, j:j + T")
        k.out("loss", "", ())
        k.line(1, "store(loss, 0.0)")
        k.line(1, "for i in parallel(R):")
        k.line(2, "acc = 0.0")
        k.line(2, "for j in range(0, C, T):")
        e = k.exprs(leaves, masks=masks, numel=t).expr()
        k.line(3, f"acc = acc + sum({e.text})")
        k.line(2, "atomic_add(loss, acc * (1.0 / R))")
        return k.case("atomic")
    tc = draw_tile(draw)
    rb = draw(st.sampled_from([2, 1, 3, 8]))
    k.const("TC", tc)
    k.const("RB", rb)
    leaves, masks = k.leaf_loads(1, "R, C", (r, c), "r:r + RB, c:c + TC")
    k.out("y", "C", (c,))
    k.line(1, "for cb in parallel(cdiv(C, TC)):")
    if draw(st.booleans()):
        k.line(2, "store(y[cb * TC:cb * TC + TC], 0.0)")       # FIXED_BUGS["scalar_store_region"]
    else:
        k.line(2, "store(y[cb * TC:cb * TC + TC], full((TC,), 0.0, f32))")
    k.line(1, "for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):")
    k.line(2, "r = rb * RB")
    k.line(2, "c = cb * TC")
    e = k.exprs(leaves, masks=masks, numel=rb * tc).expr()
    k.line(2, f"atomic_add(y[c:c + TC], sum({e.text}, axis=0))")
    return k.case("atomic")


REDUCTION_FORMS = {
    "rowreduce": _rowreduce, "colreduce": _colreduce, "scan": _scan, "window": _window, "twophase": _twophase,
    "atomic": _atomic,
}
