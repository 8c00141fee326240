"""Strided slices and permuted views (:mod:`ascendcraft.fuzz.kernels`, ``FORMS``): what strided
convolution, pooling, resize and attention kernels read and write.

* ``strided``  every ``s``-th element of a GM row (padded with a halo before and after, or clamped at
               the tail), every ``s``-th row of a block (the copy's row stride, padded rows too), a
               tile sliced with steps on one or both axes, and strided stores that interleave ``s``
               phases of an output row; the step a literal, a const or an integer attribute.
* ``permuted`` a rank-3 input read through a permuted view of it, or an output written through one
               (any order of the three axes: the last axis kept last is a row stride, moved it is
               a transpose copied element by element), by rows or by 2-D blocks.

Each is a function ``(draw, Options) -> FuzzCase``; the tags of its choices go to ``FuzzCase.forms``.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .builder import KernelBuilder, draw_tile
from .differential import FuzzCase
from .expressions import Ex, Options


def _step(k: KernelBuilder, value: int) -> str:
    """The step as a literal, a const or an integer attribute (bound from the op file or its default)."""
    how = k.draw(st.sampled_from(["literal", "const", "attr"]))
    k.tag(f"step_{how}")
    if how == "literal":
        return str(value)
    if how == "const":
        k.const("S", value)
        return "S"
    if k.draw(st.booleans()):
        k.attrs.append(f"stride: i32 = {value}")
    else:
        k.attrs.append(f"stride: i32 = {value + 3}")
        k.op_attrs.append(("stride", value))
    return "stride"


def _map(k: KernelBuilder, leaf: str, numel: int) -> str:
    return k.exprs([Ex(leaf, 1.0, True)], numel=numel).expr().text


def _strided(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    style = draw(st.sampled_from(["columns", "rows", "tile", "interleave"]))
    k.tag(f"strided_{style}")
    r, w, s = draw(st.integers(1, 20)), draw(st.integers(1, 200)), draw(st.sampled_from([2, 3, 4]))
    step = _step(k, s)
    t = draw_tile(draw, 128)
    k.const("T", t)
    k.inp("x", "R, W", (r, w))
    if style == "columns":          # y[i, j] = f(x[i, a + j * s]), a halo of `pad` before the row when padded
        padded = draw(st.booleans())
        a = draw(st.integers(-3, 0)) if padded else draw(st.integers(0, 3))
        wo = -(-(w + 2 - a) // s) if padded else max(-(-(w - a) // s), 0)
        if wo == 0:
            a, wo = 0, -(-w // s)
        k.tag("columns_padded" if padded else "columns_clamped")
        k.out("y", "R, WO", (r, wo))
        k.line(1, "for i in parallel(R):")
        k.line(2, "for j in range(0, WO, T):")
        k.line(3, f"q = j * {step} + ({a})")
        pad = ", pad=0.0" if padded else ""
        k.line(3, f"t = load(x[i, q:q + {step} * T:{step}]{pad})")
        k.line(3, f"store(y[i, j:j + T], {_map(k, 't', t)})")
    elif style == "rows":           # every s-th row of a block, from a row offset (maybe before row 0)
        rb = draw(st.sampled_from([1, 2, 3, 8]))
        a = draw(st.integers(-2, 1))
        ro = max(-(-(r - a) // s), 1)
        k.const("RB", rb)
        k.out("y", "RO, W", (ro, w))
        k.line(1, "for ib in parallel(cdiv(RO, RB)):")
        k.line(2, "i = ib * RB")
        k.line(2, f"rr = i * {step} + ({a})")
        k.line(2, f"u = load(x[rr:rr + {step} * RB:{step}, :], pad=1.5)")
        k.line(2, f"store(y[i:i + RB, :], {_map(k, 'u', rb * w)})")
    elif style == "tile":           # a loaded block sliced with steps on its rows, columns or both
        rb = draw(st.sampled_from([2, 3, 4, 8]))
        sr, sc = draw(st.sampled_from([(True, False), (False, True), (True, True)]))
        c0 = draw(st.integers(0, 2)) if w > 2 else 0
        k.const("RB", rb)
        rows_out = -(-rb // s) if sr else rb
        wo = -(-(w - c0) // s) if sc else w - c0
        k.const("RBO", rows_out)
        k.out("y", "RO, WO", (-(-r // rb) * rows_out, wo))
        k.line(1, "for ib in parallel(cdiv(R, RB)):")
        k.line(2, "u = load(x[ib * RB:ib * RB + RB, :], pad=0.5)")
        rows = f"0:RB:{step}" if sr else ":"
        cols = f"{c0}:W:{step}" if sc else f"{c0}:W"
        k.line(2, f"v = u[{rows}, {cols}]")
        k.line(2, f"store(y[ib * RBO:ib * RBO + RBO, :], {_map(k, 'v', rows_out * max(wo, 1))})")
        k.tag(f"tile_step_{'rows' if sr else ''}{'cols' if sc else ''}")
    else:                           # y[i, j * s + p] = f_p(x[i, j]): s strided stores per row block
        k.out("y", "R, WS", (r, w * s))
        k.line(1, "for i in parallel(R):")
        k.line(2, "for j in range(0, W, T):")
        k.line(3, "t = load(x[i, j:j + T])")
        for p in range(s):
            k.line(3, f"store(y[i, j * {step} + {p}:(j + T) * {step}:{step}], {_map(k, 't', t)})")
    return k.case("strided")


def _permuted(draw, opts: Options) -> FuzzCase:
    import itertools
    k = KernelBuilder(draw, opts)
    a, b, c = draw(st.integers(1, 5)), draw(st.integers(1, 9)), draw(st.integers(1, 70))
    perm = draw(st.sampled_from([p for p in itertools.permutations(range(3)) if p != (0, 1, 2)]))
    shape = (a, b, c)
    pshape = tuple(shape[i] for i in perm)
    names = ("A", "B", "C")
    pnames = ", ".join(names[i] for i in perm)
    side = draw(st.sampled_from(["read", "write"]))
    k.tag(f"permuted_{side}")
    k.tag("permuted_last_kept" if perm[-1] == 2 else "permuted_transpose")
    if side == "read":              # y[i, j, :] = f(xt[i, j, :]), xt = x with its axes permuted
        k.inp("x", "A, B, C", shape)
        k.out("y", pnames, pshape)
        k.body.append(f"    xt = permute(x, {perm})")
        src, dst, ext, dims = "xt", "y", pshape, [names[i] for i in perm]
    else:                           # yt[i, j, :] = f(x[i, j, :]), yt = y (whose shape is x's permuted) permuted back
        inv = tuple(perm.index(i) for i in range(3))
        k.inp("x", "A, B, C", shape)
        k.out("y", pnames, pshape)
        k.body.append(f"    yt = permute(y, {inv})")
        src, dst, ext, dims = "x", "yt", shape, list(names)
    blocks = draw(st.booleans())
    if blocks:                      # [RB, last] blocks of the middle axis
        rb = draw(st.sampled_from([2, 3, 8]))
        k.line(1, f"for i, jb in parallel({dims[0]}, cdiv({dims[1]}, {rb})):")
        k.line(2, f"j = jb * {rb}")
        k.line(2, f"t = load({src}[i, j:j + {rb}, :])")
        k.line(2, f"store({dst}[i, j:j + {rb}, :], {_map(k, 't', rb * ext[2])})")
        k.tag("permuted_blocks")
    else:
        k.line(1, f"for i, j in parallel({dims[0]}, {dims[1]}):")
        k.line(2, f"t = load({src}[i, j, :])")
        k.line(2, f"store({dst}[i, j, :], {_map(k, 't', ext[2])})")
    return k.case("permuted")


STRIDED_FORMS = {"strided": _strided, "permuted": _permuted}
