"""Cube: tap products, a convolution as an implicit GEMM (docs/dsl.md, "Tap products").

A product phase whose loop does not step along K but moves each tile by a tap: every iteration of
the phase is one C tile, the sum over the taps of a weight tile times a block of the image that the
tap shifts. Written over a channel-last image (a pixel's channels contiguous), each tap's block is
a plain 2-D region with the channels along K, so the cube reads it straight from GM: no im2col
matrix. The cube pass keeps the phase's loop and makes its product one ``Matmul`` with ``taps=``,
which the emitter runs on the cube core with the low-level API (codegen/taps.py): each tap's tiles
GM -> L1 -> L0, accumulated in L0C, then Fixpipe'd to C.

Before::

    for n, oh in parallel(N, OH):
        q = oh * OW
        a = load(wt[0, :, :], space=l1)
        acc = matmul(a, load(xs[n, oh, 0:OW, :], space=l1), transpose_b=True)
        for t in range(1, 9):
            a = load(wt[t, :, :], space=l1)
            acc = acc + matmul(a, load(xs[n, oh + t // 3, t % 3:t % 3 + OW, :], space=l1), transpose_b=True)
        store(yv[n, :, q:q + OW], acc)

After::

    for n, oh in parallel(N, OH):
        q = oh * OW
        store(yv[n, :, q:q + OW], Matmul(wt[0, :, :], xs[n, oh, 0:OW, :], transpose_b=True,
                                        taps=(t, 1, 9, 1, wt[t, :, :], xs[n, oh + t // 3, t % 3:t % 3 + OW, :])))

The rules (each a refusal naming the line): A is read as stored ([M, K]) and B transposed
(``transpose_b=True``: B stored [N, K], K its last axis); the tiles of every tap have the first
tiles' extents; at every iteration and shape set, the C tile clipped at its tensor's edges gives
the rows and columns each tap computes, and each tap's A rows and B rows for them lie inside their
tensors with their whole K; the operands are f32 (``pad=0.0`` keeps a tail tile's extents in the source, as for any product:
its padding lies past the C tile and is never read); the tile is stored as it is to an f32 C (the
cube core has no vector unit for an epilogue); the taps are at most MAX_TAPS.
"""
from __future__ import annotations

import itertools
from dataclasses import replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.symbols import evaluate

from .base import binary, call, name
from .cube import _mat
from .cube import _NotGemm as _Refusal
from .bufferize import region_extents
from .pipeline import shape_set_values

#: the most taps a loop may have (a 3-D convolution's 3 x 3 x 3 is 27)
MAX_TAPS = 64

#: taps whose tiles a C tile's loop copies into L1 before it multiplies the first of them
#: (codegen/taps.py): their copies' GM latency (gm_latency, 1000 cycles) overlaps the taps before
#: them, about 400 cycles each for 128 x 128 f32 tiles
TAP_AHEAD = 4

#: rows by which the image blocks of consecutive taps may be shifted and still share one copy in L1
#: (codegen/taps.py, TapWindows): each B slot holds that many rows more than a tile
TAP_SHIFT = 16

#: slots of the cube core's queues for a tap product: the L1 queues hold the TAP_AHEAD tiles in flight
#: and the next one, whose copy starts before the L0 loads of the oldest have freed its slot
TAP_SLOTS = {"A1": TAP_AHEAD + 1, "B1": TAP_AHEAD + 1, "A2": 2, "B2": 2, "CO1": 2}

TAPS = ("tap products (a convolution as an implicit GEMM) are: `acc = matmul(a, b, transpose_b=True)` of l1 "
        "loads of a weight tile [M, K] and an image block stored [N, K], `for t in range(...)` loading the "
        "tap's tiles (the same extents, moved by t) and `acc = acc + matmul(...)`, then `store(c[...], acc)` "
        "to an f32 tensor; every tile inside its tensor at every iteration (see \"Tap products\")")


def _refused(why: str, node=None) -> _Refusal:
    """A refusal of the tap form: reported with the tap products' hint."""
    return _Refusal(why, node, taps=True)


def is_tap_loop(g) -> bool:
    """Whether the K loop's tiles move by the loop variable without stepping along K: K the same
    slice of each operand in every tile, something else shifted (a tap). Taps read A as stored and
    B transposed; a loop of that shape with other transposes is refused here, with the form."""
    ta, tb = g.flags
    k_axis = {"A": 0 if ta else 1, "B": 1 if tb else 0}
    same_k = all(g.resolve(_mat(first)[k_axis[w]]) == g.resolve(_mat(later)[k_axis[w]])
                 for w, first, later in (("A", g.a0, g.a1), ("B", g.b0, g.b1)))
    moved = any(g.resolve(first.src) != g.resolve(later.src) for first, later in ((g.a0, g.a1), (g.b0, g.b1)))
    if not (same_k and moved):
        return False
    if ta:
        raise _refused("this loop moves its tiles by a tap, not along K: tap products read A as stored ([M, K], "
                       "the weights of a tap), not transposed", g.loop)
    return True


def match_taps(g):
    """Check the tap form (the rules above) at every shape set; raise _NotGemm with the reason."""
    ctx = g.ctx
    if len(g.epilogue) != 1 or not isinstance(g.epilogue[0], A.Store) or g.epilogue[0].accumulate or \
            not (isinstance(g.epilogue[0].value, A.Name) and g.epilogue[0].value.id == g.acc):
        raise _refused("a phase of tap products stores its tile as it is, store(c[...], acc) (the cube core "
                       "that computes it has no vector unit: add a bias as one more tap, or in a phase after)",
                       g.epilogue[0] if g.epilogue else g.loop)
    st = g.store = g.epilogue[0]
    for load in (g.a0, g.b0, g.a1, g.b1):    # pad=0.0 keeps a tail tile's extents; the padding is never read
        if load.pad is not None and not (isinstance(load.pad, (A.Int, A.Float)) and load.pad.value == 0):
            raise _refused("a tap's tile may only be padded with 0.0", load)
    c = _region(st.dst, ctx, "C")
    if ctx.tensor(c.base.id).dtype != "f32":
        raise _refused("tap products accumulate in f32 and store to an f32 tensor", st)
    dtype = ctx.tensor(g.a_name).dtype
    if dtype != "f32" or ctx.tensor(g.b_name).dtype != dtype:
        raise _refused("tap products multiply f32 tiles (f16 operands with an f32 result are not built)", g.a0)
    shape = {}
    for what, first, later in (("A", g.a0, g.a1), ("B", g.b0, g.b1)):
        _region(first.src, ctx, what)
        _region(later.src, ctx, what)
        s0, s1 = ctx.type_of(first).shape, ctx.type_of(later).shape
        if s0 != s1:
            raise _refused(f"every tap's {what} tile has the first one's extents ({list(s0)}; this one {list(s1)})",
                           later)
        shape[what] = s0
    tb = g.flags[1]
    (tm, tk), (tn, tk_b) = shape["A"], (shape["B"] if tb else shape["B"][::-1])
    if tk != tk_b:
        raise _refused(f"A's tiles have K = {tk}, B's {tk_b}", g.b0)
    if tuple(ctx.type_of(st.value).shape) != (tm, tn):
        raise _refused(f"the stored tile is the product's {tm} x {tn}", st)
    start, stop, step = (g.resolve(x) for x in (g.loop.start, g.loop.stop, g.loop.step))
    # the tiles' extents before clipping (A's rows, B's rows, K), which size the cube core's buffers
    g.nominal = (region_extents(g.a0.src, ctx)[-2], region_extents(g.b0.src, ctx)[-2 if tb else -1],
                 region_extents(g.a0.src, ctx)[-1])
    envs = shape_set_values(g.kernel, ctx)
    g.resident = True
    for env in envs:
        taps = _inside(g, env, start, stop, step)
        g.resident &= _fits(g, env, dtype, 1 + len(taps))
    # the operands' row strides: Nd2NzParams.srcDValue is 16-bit, and B as stored is copied 16 rows a
    # matrix (srcNdMatrixStride = 16 rows, also 16-bit)
    for region, cap in ((g.a0.src, 65535), (g.b0.src, 65535 if tb else 65535 // 16)):
        for env in envs:
            ld = ctx.symbols.strides_at(region.base.id, env)[row_axis(region)]
            if ld > cap:
                raise _refused(f"{region.base.id}'s rows are {ld:,} elements apart: the cube's copy of this tile "
                               f"(DataCopy with Nd2NzParams) takes row strides up to {cap:,} (lay the image out "
                               f"channel-last, a pixel's channels contiguous, and read it with transpose_b=True)",
                               region)
    g.tile = (tm, tn, tk)


def _region(x, ctx, what: str) -> A.Index:
    sliced = [i for i, s in enumerate(getattr(x, "subscripts", ())) if isinstance(s, A.Slice)]
    if not (isinstance(x, A.Index) and isinstance(x.base, A.Name) and ctx.symbols.is_tensor(x.base.id)
            and len(x.subscripts) == len(ctx.tensor(x.base.id).dims) >= 2
            and len(sliced) == 2 and sliced[1] == len(x.subscripts) - 1
            and not any(x.subscripts[i].stepped() for i in sliced)):
        raise _refused(f"{what} is a 2-D region: two axes sliced (without a step), the tensor's last one of them, "
                       f"every other axis indexed", x)
    if ctx.symbols.tensor(x.base.id).perm is not None:
        raise _refused(f"{x.base.id} is a permuted view: a tap's tile is read from a tensor in memory order", x)
    return x


def row_axis(region: A.Index) -> int:
    """The axis (negative, from the end) of a tap region's rows: its sliced axis other than the last
    (``y[n, :, oh, q:q + TN]``'s channels, each row of the tile one channel plane apart)."""
    n = len(region.subscripts)
    return next(i - n for i, s in enumerate(region.subscripts[:-1]) if isinstance(s, A.Slice))


def _inside(g, env: dict, start, stop, step):
    """At the first and last value of each parallel variable (the regions are affine in them) and
    every tap: C's tile clipped at its tensor's edges gives the rows (M) and columns (N) every tap
    computes, and each tap's A rows and B rows for them, with their whole K, lie inside their tensors."""
    ctx = g.ctx
    try:
        taps = list(range(evaluate(start, env), evaluate(stop, env), evaluate(step, env)))
    except (KeyError, ZeroDivisionError):
        raise _refused("the tap loop's bounds are integer expressions of dims and constants", g.loop) from None
    if len(taps) > MAX_TAPS:
        raise _refused(f"{len(taps)} taps: a tap loop has at most {MAX_TAPS}", g.loop)
    outer = [{}]
    if g.outer is not None:       # the loop of phases the taps are in: its first and last value too
        try:
            values = range(*(evaluate(x, env) for x in (g.outer.start, g.outer.stop, g.outer.step)))
        except (KeyError, ZeroDivisionError):
            raise _refused("the loop of phases around tap products has bounds of dims and constants",
                           g.outer) from None
        outer = [{g.outer.var: v} for v in sorted({values[0], values[-1]})] if values else []
    points = []                   # the phase's variables at their first and last values
    for o in outer:
        extents = [evaluate(g.resolve(e), dict(env, **o)) for e in g.phase.extents]
        points += [dict(o, **dict(zip(g.phase.vars, values)))
                   for values in itertools.product(*[sorted({0, max(0, n - 1)}) for n in extents])]
    for point in points:
        at = dict(env, **point)
        clipped = {}      # the C tile's rows (m) and columns (n), clipped at C's edges
        for side, axis in (("m", row_axis(g.store.dst)), ("n", -1)):
            lo, hi = _span(g, g.store.dst, axis, at)
            clipped[side] = max(0, min(hi, _extent(ctx, g.store.dst, axis, at)) - lo)
        if not clipped["m"] or not clipped["n"]:
            continue                         # an empty tile: nothing to compute
        for region, t, side, is_b in [(g.a0.src, None, "m", False), (g.b0.src, None, "n", True)] + \
                [(x.src, t, side, is_b) for t in taps for x, side, is_b in ((g.a1, "m", False), (g.b1, "n", True))]:
            # A's M axis is its rows; B's N axis its rows when stored [N, K] (transpose_b), else its columns
            axis = -1 if is_b and not g.flags[1] else row_axis(region)
            rows = clipped[side]
            here = at if t is None else dict(at, **{g.loop.var: t})
            _check_inside(g, region, here, rows, axis)
    return taps


def _fits(g, env: dict, dtype: str, taps: int) -> bool:
    """The cube core's buffers for these tiles fit at this shape set (TAP_SLOTS: A and B tiles in
    L1, in L0A / L0B, the f32 C tile in L0C, each rounded to the cube's fractals), else refused.
    Returns whether every one of the ``taps`` weight tiles fits in L1 beside B's slots instead of
    A's: then they stay there across C tiles (``resident=True``, codegen/taps.py)."""
    ctx = g.ctx
    m, n, k = (evaluate(g.resolve(e), env) for e in g.nominal)
    size = D.ITEMSIZE[dtype]
    c0 = 32 // size
    a = -(-m // 16) * 16 * -(-k // c0) * c0 * size
    b = -(-n // 16) * 16 * -(-k // 16) * 16 * size      # K rounded to 16 for B as stored (Zz)
    b1 = b + TAP_SHIFT * -(-k // 16) * 16 * size        # in L1 a window: TAP_SHIFT rows more
    c = -(-m // 16) * 16 * -(-n // 16) * 16 * 4
    for space, need in (("l1", TAP_SLOTS["A1"] * a + TAP_SLOTS["B1"] * b1), ("l0a", TAP_SLOTS["A2"] * a),
                        ("l0b", TAP_SLOTS["B2"] * b), ("l0c", TAP_SLOTS["CO1"] * c)):
        cap = ctx.chip.capacity(space)
        if need > cap:
            shown = ", ".join(f"{d}={env[d]}" for d in ctx.checked.binding.dims if d in env)
            raise _refused(f"the tap products' tiles ({m} x {k} by {k} x {n}) need {need:,} bytes of {space.upper()} "
                           f"at {shown}, which holds {cap:,}: make the C tile's rows or columns fewer", g.a0)
    return taps <= MAX_TAPS and taps * a + TAP_SLOTS["B1"] * b1 <= ctx.chip.capacity("l1")


def _span(g, region: A.Index, axis: int, env: dict) -> tuple[int, int]:
    sub = region.subscripts[axis]
    try:
        lo = 0 if sub.start is None else evaluate(g.resolve(sub.start), env)
        hi = _extent(g.ctx, region, axis, env) if sub.stop is None else evaluate(g.resolve(sub.stop), env)
    except KeyError:
        raise _refused("a tap's tile is indexed by integer expressions of the phase's variables, the tap and "
                       "constants", region) from None
    return lo, hi


def _extent(ctx, region: A.Index, axis: int, env: dict) -> int:
    return ctx.symbols.dims_at(region.base.id, env)[axis]


def _check_inside(g, region: A.Index, env: dict, rows: int, axis: int):
    """The region's M or N axis (``axis``) ``lo:lo + rows`` (the C tile's, clipped) and its whole K
    (its other sliced axis) inside, and every indexed axis's index."""
    ctx = g.ctx
    shown = ", ".join(f"{k}={v}" for k, v in env.items() if k in g.phase.vars or k == g.loop.var or
                      g.outer is not None and k == g.outer.var)
    for lead, sub in enumerate(region.subscripts):
        if isinstance(sub, A.Slice):
            continue
        try:
            i = evaluate(g.resolve(sub), env)
        except KeyError:
            raise _refused("a tap's tile is indexed by integer expressions of the phase's variables, the tap and "
                           "constants", region) from None
        extent = _extent(ctx, region, lead, env)
        if not 0 <= i < extent:
            raise _refused(f"this tile's index {i} on axis {lead} of {region.base.id} is outside 0..{extent - 1} at "
                           f"{shown}", region)
    k_axis = row_axis(region) if axis == -1 else -1
    lo, _ = _span(g, region, axis, env)
    k0, k1 = _span(g, region, k_axis, env)
    extent, k_extent = _extent(ctx, region, axis, env), _extent(ctx, region, k_axis, env)
    if not (0 <= lo and lo + rows <= extent and 0 <= k0 <= k1 <= k_extent):
        raise _refused(f"this tile's rows {lo}:{lo + rows} (the C tile's {rows}) and K {k0}:{k1} leave "
                       f"{region.base.id} ({extent} x {k_extent}) at {shown}: every tile of a tap product lies "
                       f"inside its tensor for the C tile it computes (pad the image in the phase that writes it)",
                       region)


def taps_rewrite(g) -> list:
    """The phase with its product one ``Matmul(..., taps=...)`` stored to C (the loads go). Each
    operand's rows are the C tile's, clipped as C is at its tensor's edges (``minimum``), so every
    tap's product has the stored tile's extents (the source's padded rows past them are never read)."""
    ctx = g.ctx

    def c_extent(axis: int):
        sub = g.store.dst.subscripts[axis]
        dim = ctx.tensor(g.store.dst.base.id).dim_expr(axis)
        start = sub.start if sub.start is not None else A.Int(0)
        stop = sub.stop if sub.stop is not None else dim
        return call("minimum", binary("-", stop, start), binary("-", dim, start))

    def rows_of(region: A.Index, c_axis: int, axis: int) -> A.Index:
        subs = list(region.subscripts)
        sl = subs[axis]
        start = sl.start if sl.start is not None else A.Int(0)
        subs[axis] = A.Slice(start, binary("+", start, c_extent(c_axis)))
        return replace(region, subscripts=tuple(subs))
    tb = g.flags[1]
    c_rows = row_axis(g.store.dst)
    a0, a1 = (rows_of(x.src, c_rows, row_axis(x.src)) for x in (g.a0, g.a1))
    b0, b1 = (rows_of(x.src, -1, row_axis(x.src) if tb else -1) for x in (g.b0, g.b1))
    kwargs = {"transpose_b": name("True")} if tb else {}
    if g.resident:
        kwargs["resident"] = name("True")
    product = call("Matmul", a0, b0, **kwargs, base=A.Tuple(g.nominal),
                   taps=A.Tuple((name(g.loop.var), g.loop.start, g.loop.stop, g.loop.step, a1, b1)))
    store = replace(g.store, value=product)
    tm, tn, tk = g.tile
    g.ctx.notes.append(f"cube: {g.store.dst.base.id} = sum over {g.loop.var} of {g.a_name} @ {g.b_name}^T, tap "
                       f"products of {tm} x {tk} by {tk} x {tn} tiles accumulated in L0C on the cube core (an "
                       f"implicit GEMM: no im2col matrix)" + ("; every tap's weight tile kept in L1 across C tiles"
                                                             if g.resident else ""))
    return [replace(g.phase, body=tuple(g.head) + (store,))]


def refuse_mixed_taps(kernel: A.Kernel):
    """Tap products run on the cube cores by the low-level API, vector phases on the vector cores
    beside them (codegen/taps.py); a product through the Matmul API (which the vector cores drive) in
    the same kernel is refused, naming its phase."""
    def has_taps(s):
        return any(map(A.is_tap_product, A.walk(s)))
    if not any(has_taps(s) for s in kernel.body):
        return
    for s in kernel.body:
        if not has_taps(s) and any(map(A.is_product, A.walk(s))):
            from ascendcraft.errors import DSLError
            raise DSLError("cube: a kernel with tap products has no other products yet (they reach the cube "
                           "through the Matmul API, which the tap products' low-level code does not share the "
                           "cube cores with): write this product as tap products too, or the convolution as "
                           "im2col phases", s.span, kind="lowering error", hint=TAPS)
