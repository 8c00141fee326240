"""Element-wise forms of the kernel generator (:mod:`ascendcraft.fuzz.kernels`, ``FORMS``).

* ``map1d``     element-wise math over a 1-D tensor in tiles with a tail: a parallel loop over
                tile indices, a ``parallel(CORES)`` loop over balanced ranges of tiles, or one
                element per iteration (0-d tiles: scalar-unit math);
* ``rows2d``    element-wise math over rows of a 2-D tensor, a ``range`` loop over tiles of each
                row, with a row-vector input ``v: [C]`` sliced like the row;
* ``blocks2d``  2-D ``[RB, TC]`` tiles over a ``(row block, column block)`` grid, with ``[C]``
                row-vector and ``[R, 1]`` column-vector broadcasts, ``[R, 1]`` columns from
                ``sum/max/min(t, axis=1, keepdims=True)`` of whole rows, and reductions along
                axis 1 stored to ``[R]`` / ``[R, 1]`` outputs;
* ``stack3d``   rank-3 ``[TB, TR, TC]`` tiles of ``x: [B, R, C]`` over a parallel grid, tails on
                every axis (the lowering's unstack pass makes them a loop over the leading axis):
                element-wise math, ``cast(t > 0.0, f32)`` and ``where``, broadcasting against
                ``[TR, TC]``, ``[TC]``, ``[1, TR, TC]``, ``[TB, 1, TC]`` and ``[TB, TR, 1]`` loads
                of other inputs and against ``sum/max/min/mean(t, axis=1, 2 or -1, keepdims=True)``,
                stored whole and/or reduced (``sum/max/min/mean``) along axis ``1``/``2``/``-1``/``-2``
                (``keepdims`` or not) to a ``[B, C]``/``[B, 1, C]``/``[B, R]``/``[B, R, 1]`` output
                (the reduced axis loaded whole), or folded over the leading axis
                (``sum/max/min/mean(t, axis=0 or -3)``, B loaded whole) to an ``[R, C]`` output; no
                0-d reductions.

Each is a function ``(draw, Options) -> FuzzCase``; the tags of its choices go to ``FuzzCase.forms``.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .builder import TILES, KernelBuilder, draw_tile
from .differential import FuzzCase
from .expressions import Ex, Options


# -- map1d
def _map1d(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    n = draw(st.integers(1, 2000))
    f16 = k.f16_inputs()
    out_f16 = f16 and draw(st.booleans())
    nin = draw(st.integers(1, 3))
    style = draw(st.sampled_from(["blocks", "cores", "elements"]))
    k.tag(f"map1d_{style}")
    if style == "elements":
        n = min(n, 300)
        leaves, masks = k.leaf_loads(nin, "N", (n,), "i", f16=f16, masks=False)
        k.out("y", "N", (n,), "f16" if out_f16 else "f32")
        k.line(1, "for i in parallel(N):")
        leaves = k.bind_leaves(2, leaves, bind=opts.avoid_known or draw(st.booleans()))
        e = k.exprs(leaves, scalar_mode=True).expr()
        k.line(2, f"store(y[i], {k.store_value(e, out_f16)})")
        return k.case("map1d")
    t = draw_tile(draw)
    k.const("T", t)
    leaves, masks = k.leaf_loads(nin, "N", (n,), "j:j + T", f16=f16)
    k.out("y", "N", (n,), "f16" if out_f16 else "f32")
    if style == "blocks":
        k.line(1, "for b in parallel(cdiv(N, T)):")
        d = 2
    else:
        k.const("U", "cdiv(N, T)")
        k.line(1, "for c in parallel(CORES):")
        k.line(2, "for b in range(c * U // CORES, (c + 1) * U // CORES):")
        d = 3
    k.line(d, "j = b * T")
    leaves = k.bind_leaves(d, leaves, bind=draw(st.booleans()))
    e = k.exprs(leaves, masks=masks, numel=t).expr()
    k.line(d, f"store(y[j:j + T], {k.store_value(e, out_f16)})")
    return k.case("map1d")


# -- rows2d
def _rows2d(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 300))
    t = draw_tile(draw)
    k.const("T", t)
    f16 = k.f16_inputs()
    out_f16 = f16 and draw(st.booleans())
    leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "R, C", (r, c), "r, j:j + T", f16=f16)
    if draw(st.booleans()):
        k.inp("v", "C", (c,))
        leaves.append(Ex("load(v[j:j + T])", 1.0, True))
        k.tag("row_input")
    k.out("y", "R, C", (r, c), "f16" if out_f16 else "f32")
    k.line(1, "for r in parallel(R):")
    k.line(2, "for j in range(0, C, T):")
    leaves = k.bind_leaves(3, leaves, bind=draw(st.booleans()))
    e = k.exprs(leaves, masks=masks, numel=t).expr()
    k.line(3, f"store(y[r, j:j + T], {k.store_value(e, out_f16)})")
    return k.case("rows2d")


# -- blocks2d
def _blocks2d(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 40), ), draw(st.integers(1, 200))
    rb = draw(st.sampled_from([2, 1, 3, 4, 8]))
    whole_rows = draw(st.booleans())
    k.const("RB", rb)
    if whole_rows:
        region, cols, numel = "r:r + RB, :", "C", rb * c
        k.tag("whole_rows")
    else:
        tc = draw_tile(draw)
        k.const("TC", tc)
        region, cols, numel = "r:r + RB, c:c + TC", "c:c + TC", rb * tc
    leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "R, C", (r, c), region)
    vec_kind = draw(st.sampled_from([None, "row", "col"]))
    vecs = []
    if vec_kind == "row":
        k.inp("v", "C", (c,))
        vecs.append(Ex("load(v)" if whole_rows else "load(v[c:c + TC])", 1.0, True))
    elif vec_kind == "col":
        k.inp("w", "R, 1", (r, 1))
        vecs.append(Ex("load(w[r:r + RB, :])", 1.0, True))
    out_kind = draw(st.sampled_from(["tile", "rowred", "rowred_keep"])) if whole_rows else "tile"
    if out_kind == "tile":
        k.out("y", "R, C", (r, c))
    elif out_kind == "rowred":
        k.out("y", "R", (r,))
    else:
        k.out("y", "R, 1", (r, 1))
    if whole_rows:
        k.line(1, "for rb in parallel(cdiv(R, RB)):")
        k.line(2, "r = rb * RB")
    else:
        k.line(1, "for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):")
        k.line(2, "r = rb * RB")
        k.line(2, "c = cb * TC")
    leaves = k.bind_leaves(2, leaves, bind=draw(st.booleans()) or (whole_rows and vec_kind is None))
    if whole_rows and vec_kind is None and draw(st.booleans()):
        # a column vector from a keepdims reduction of a whole-row tile
        red = draw(st.sampled_from(["sum", "max", "min"]))
        src = draw(st.sampled_from(leaves))
        k.line(2, f"cv = {red}({src.text}, axis=1, keepdims=True)")
        k.tag(f"keepdims_{red}")
        vec_kind, vecs = "col", [Ex("cv", src.mag * (c if red == "sum" else 1), red != "sum")]
    if vec_kind:
        k.tag(f"{vec_kind}_vec")
    e = k.exprs(leaves, masks=masks, vecs=vecs, vec_kind=vec_kind, numel=numel).expr()
    if out_kind == "tile":
        k.line(2, f"store(y[{region}], {k.computed(e).text})")
    else:
        red = draw(st.sampled_from(["sum", "max", "min"]))
        keep = ", keepdims=True" if out_kind == "rowred_keep" else ""
        k.tag(f"axis1_{red}{'_keep' if keep else ''}")
        dst = "y[r:r + RB]" if out_kind == "rowred" else "y[r:r + RB, :]"
        k.line(2, f"store({dst}, {red}({e.text}, axis=1{keep}))")
    return k.case("blocks2d")


# -- stack3d
#: Broadcast operands of a [TB, TR, TC] stack, the patterns docs/dsl.md lists as lowering for
#: rank 3: kind -> (input, its dims, its region given the stack's rows and cols slices).
_STACK_OPERANDS = {
    "plane": ("w", "R, C", "{rows}, {cols}"),             # [TR, TC]
    "row": ("v", "C", "{cols}"),                          # [TC]
    "lead1": ("s", "1, R, C", "{lead}, {rows}, {cols}"),  # [1, TR, TC]: the same plane for every index
    "mid1": ("u", "B, 1, C", "{stack}, :, {cols}"),       # [TB, 1, TC]
    "last1": ("q", "B, R, 1", "{stack}, {rows}, :"),      # [TB, TR, 1]
}


def _stack3d(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    k.maybe_attrs()
    out = draw(st.sampled_from(["tile", "reduce", "both", "fold"]))
    axis = draw(st.sampled_from([1, 2, -1, -2])) if out in ("reduce", "both") else \
        draw(st.sampled_from([0, -3])) if out == "fold" else None
    k.tag(f"stack3d_{out}")
    # a reduction stored to an output reduces a whole axis: that axis is loaded whole (a fold over
    # the leading axis: B, and the loop over it is the unstack pass's)
    whole_r, whole_c, whole_b = axis in (1, -2), axis in (2, -1), out == "fold"
    size = {"B": draw(st.integers(1, 6)), "R": draw(st.integers(1, 20 if whole_r else 40)),
            "C": draw(st.integers(1, 100 if whole_c else 200)), "1": 1}
    tiles = {} if whole_b else {"B": draw(st.sampled_from([2, 1, 3, 4]))}
    if not whole_r:
        tiles["R"] = draw(st.sampled_from([3, 1, 2, 4, 5, 8]))
    if not whole_c:
        tiles["C"] = draw(st.sampled_from([t for t in TILES if t <= 64]))
    for ax, t in tiles.items():
        k.const(f"T{ax}", t)
        if size[ax] % t:
            k.tag(f"tail_{ax.lower()}")
    extent = {ax: tiles.get(ax, size[ax]) for ax in "BRC"}       # of the stack's tiles
    rows = "r:r + TR" if "R" in tiles else ":"
    cols = "c:c + TC" if "C" in tiles else ":"
    stack = ":" if whole_b else "b:b + TB"
    region = f"{stack}, {rows}, {cols}"

    def shape(dims: str) -> tuple[int, ...]:
        return tuple(size[d] for d in dims.split(", "))

    f16 = k.f16_inputs()
    out_f16 = f16 and draw(st.booleans())
    leaves, masks = k.leaf_loads(draw(st.integers(1, 2)), "B, R, C", shape("B, R, C"), region, f16=f16)
    lead = draw(st.sampled_from(["0:1", ":"]))
    vecs = {}
    for kind in draw(st.lists(st.sampled_from(sorted(_STACK_OPERANDS)), max_size=3, unique=True)):
        name, dims, sub = _STACK_OPERANDS[kind]
        k.inp(name, dims, shape(dims))
        vecs[kind] = Ex(f"load({name}[{sub.format(rows=rows, cols=cols, lead=lead, stack=stack)}])", 1.0, True)
    k.line(1, f"for {', '.join('i' + ax.lower() for ax in tiles)} in "
              f"parallel({', '.join(f'cdiv({ax}, T{ax})' for ax in tiles)}):")
    for ax in tiles:
        k.line(2, f"{ax.lower()} = i{ax.lower()} * T{ax}")
    leaves = k.bind_leaves(2, leaves, bind=draw(st.booleans()))
    uses = {}                              # tag -> the text whose use it marks
    if draw(st.integers(0, 3)) == 0:       # a comparison as its 0/1 values (exact on loaded values)
        src, op = draw(st.sampled_from(leaves)), draw(st.sampled_from([">", "<=", ">="]))
        leaves.append(Ex(f"cast({src.text} {op} 0.0, f32)", 1.0, True))
        uses["cast_cmp"] = leaves[-1].text
    kd = ""
    if draw(st.integers(0, 2)) == 0:       # a [TB, 1, TC] or [TB, TR, 1] operand from a keepdims reduction
        red, ax = draw(st.sampled_from(["sum", "max", "min", "mean"])), draw(st.sampled_from([1, 2, -1]))
        src = draw(st.sampled_from(leaves))
        kd = f"{red}({src.text}, axis={ax}, keepdims=True)"
        k.line(2, f"kd = {kd}")
        vecs["keepdims"] = Ex("kd", src.mag * (extent["BRC"[ax]] if red == "sum" else 1), red in ("max", "min"))
        uses[f"keepdims_{red}_axis{ax}"] = "kd"
    ex = k.exprs(leaves, masks=masks, vecs=list(vecs.values()), vec_kind="3d", tile_reductions=False)
    e = ex.expr()
    if vecs and not any(v.text in e.text for v in vecs.values()):
        e = ex.broadcast(e)                 # an operand declared is used
    computes = e.text + (" " + kd if "kd" in e.text else "")
    for t, text in {**uses, **{f"{kind}_vec": v.text for kind, v in vecs.items()}}.items():
        if text in computes:
            k.tag(t)
    if out == "fold":       # sum/mean/max/min over the leading axis: unstack folds the slices
        red = draw(st.sampled_from(["sum", "max", "min", "mean"]))
        k.tag(f"fold_{red}")
        if draw(st.booleans()):
            k.out("y", "B, R, C", shape("B, R, C"), "f16" if out_f16 else "f32")
            k.line(2, f"e = {e.text}")
            e = Ex("e", e.mag, e.exact)
            k.line(2, f"store(y[{region}], {k.store_value(e, out_f16)})")
        k.out("z", "R, C", shape("R, C"))
        k.line(2, f"store(z[{rows}, {cols}], {red}({e.text}, axis={axis}))")
        return k.case("stack3d")
    if out != "reduce":
        k.out("y", "B, R, C", shape("B, R, C"), "f16" if out_f16 else "f32")
        if out == "both":
            k.line(2, f"e = {e.text}")
            e = Ex("e", e.mag, e.exact)
        k.line(2, f"store(y[{region}], {k.store_value(e, out_f16)})")
    if out != "tile":
        red, keep = draw(st.sampled_from(["sum", "max", "min", "mean"])), draw(st.booleans())
        k.tag(f"axis{axis}_{red}{'_keep' if keep else ''}")
        if whole_r:
            dims, dst = ("B, 1, C", f"b:b + TB, :, {cols}") if keep else ("B, C", f"b:b + TB, {cols}")
        else:
            dims, dst = ("B, R, 1", f"b:b + TB, {rows}, :") if keep else ("B, R", f"b:b + TB, {rows}")
        k.out("z", dims, shape(dims))
        k.line(2, f"store(z[{dst}], {red}({e.text}, axis={axis}{', keepdims=True' if keep else ''}))")
    return k.case("stack3d")


ELEMENTWISE_FORMS = {"map1d": _map1d, "rows2d": _rows2d, "blocks2d": _blocks2d, "stack3d": _stack3d}
