"""Cube: a product whose tile vector ops read after the K loop (a fused epilogue, docs/dsl.md "Cube
(matmul)"). ``cube._Gemm`` matches the phase up to its K loop; this module checks the epilogue's
product and rewrites the phase: each iteration's tile is one Matmul call into UB (the API's Iterate
and GetTensorC, codegen/gemm.py), followed by the epilogue as written."""
from __future__ import annotations

from dataclasses import replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TScalar

from .base import Names, binary, call, name
from .cube import _mat, _NotGemm, show
from .cube_chain import deal


def match_fused(g) -> list:
    """The product tile's extents ``[TM, TN]``: each operand tile's free axis is ``v * T:v * T + T``
    with T a constant multiple of 16 (the Matmul API's base block); no operand is padded (the
    epilogue sees the product's real rows and columns, a tail tile shorter); the epilogue holds no
    second product."""
    for s in g.epilogue:
        for n in A.walk(s):
            if isinstance(n, A.Call) and n.func == "matmul":
                raise _NotGemm("a fused epilogue holds no second product: a phase is one product and "
                               "the vector work on its tile", n)
    for load in (g.a0, g.b0):
        if load.pad is not None:
            raise _NotGemm("the operands of a product whose tile vector ops read take no pad= (the "
                           "epilogue sees the product's real rows and columns: a tail tile is shorter)", load)
    ta, tb = g.flags
    tiles = []
    for sl in (_mat(g.a0)[1 if ta else 0], _mat(g.b0)[0 if tb else 1]):
        _, tile = g._tile_of(g.resolve(sl))
        size = g.ctx.type_of(tile)
        if not (isinstance(size, TScalar) and isinstance(size.value, int) and size.value % 16 == 0):
            raise _NotGemm(f"a product tile read by vector ops is the cube's base block: its extents "
                           f"({show(tile)}) must be constants, multiples of 16", g.a0)
        tiles.append(tile)
    return tiles


def fused_rewrite(g, names: Names) -> list:
    """``acc = Matmul(a[..., 0:K], b[0:K, ...], base=(TM, TN, TK))``: the tile handed to UB, then the
    epilogue as written. When C's column tiles are the phase's last parallel variable, the tiles are
    dealt to the cores here, in runs along C's rows, and each run of one row is a strip the cube
    computes ahead (``strip=``, below); otherwise the phase keeps its loop, one tile per iteration."""
    ta, tb = g.flags

    def whole_k(load, axis):
        subs = list(load.src.subscripts)
        subs[len(subs) - 2 + axis] = A.Slice(A.Int(0), g.k_dim)
        return A.Index(load.src.base, tuple(subs))
    a = whole_k(g.a0, 0 if ta else 1)
    b = whole_k(g.b0, 1 if tb else 0)
    kwargs = {k: name("True") for k, f in (("transpose_a", ta), ("transpose_b", tb)) if f}
    base = A.Tuple((*g.fused_tile, g.depth))
    col_var, _ = g._tile_of(g.resolve(_mat(g.b0)[0 if tb else 1]))
    row_var, _ = g._tile_of(g.resolve(_mat(g.a0)[1 if ta else 0]))
    # a strip's tiles share A's rows and B's matrix: the column variable picks nothing else
    lead = [n.id for load in (g.a0, g.b0) for x in load.src.subscripts[:-2] for n in A.walk(g.resolve(x))
            if isinstance(n, A.Name)]
    if col_var != g.phase.vars[-1] or row_var == col_var or row_var not in g.phase.vars or col_var in lead:
        product = A.Assign(g.acc, call("Matmul", a, b, **kwargs, base=base), g.loop.span)
        g.ctx.notes.append(f"cube: {g.acc} = {g.a_name} @ {g.b_name} tile by tile, each handed to UB for the vector "
                           f"work after the K loop (a fused epilogue)")
        return [replace(g.phase, body=tuple(g.head) + (product,) + tuple(g.epilogue))]
    return _strips(g, names, a, b, kwargs, base)


def _strips(g, names: Names, a, b, kwargs, base) -> list:
    """The tiles (batch, row, column: column fastest) dealt to the cores in balanced contiguous runs,
    as the partition deals any loop; the part of a core's run in one row of C is a strip, which the
    cube computes ahead, tile after tile, into the core's workspace while the vector unit runs the
    epilogue of the tiles already taken (the Matmul API's Iterate<false> and GetTensorC<false>)::

        const _nt0 = <tiles>
        const _nj0 = cdiv(N, TN)                       # tiles in a row of C
        const _sw0 = minimum(_nj0, cdiv(_nt0, CORES)) * TN    # the widest strip
        const _wn0 = TM * _sw0
        scratch _mw0: f32[CORES, _wn0]                 # each core's blocks computed ahead
        for core0 in parallel(CORES):
            _lo0 = ...
            _hi0 = ...
            for _f0 in range(_lo0, _hi0):
                j = _f0 % _nj0                         # the phase's variables, the last fastest
                i = _f0 // _nj0
                <index arithmetic>
                acc = Matmul(..., strip=(_f0, maximum(_lo0, _f0 - j), minimum(_hi0, _f0 - j + _nj0), _sw0),
                             workspace=_mw0[core0, :])
                <epilogue>

    ``strip`` is (this tile, the strip's first, one past its last, the widest strip's columns):
    the tile's value is its own product whatever the strip (the interpreter ignores it)."""
    nj, sw, wn, mw = (names.fresh(x) for x in ("_nj", "_sw", "_wn", "_mw"))
    core = names.fresh("core")
    tm, tn = g.fused_tile
    workspace = A.Index(name(mw), (name(core), A.Slice(None, None)))

    def strip_body(f: str, lo: str, hi: str) -> list:
        start = binary("-", name(f), name(g.phase.vars[-1]))
        strip = A.Tuple((name(f), call("maximum", name(lo), start),
                         call("minimum", name(hi), binary("+", start, name(nj))), name(sw)))
        product = A.Assign(g.acc, call("Matmul", a, b, **kwargs, base=base, strip=strip, workspace=workspace),
                           g.loop.span)
        return list(g.head) + [product] + list(g.epilogue)
    nt, decls, dealt = deal(g.phase, names, core, strip_body)
    decls += [A.Const(nj, g.phase.extents[-1], g.phase.span),
              A.Const(sw, binary("*", call("minimum", name(nj), call("cdiv", name(nt), name("CORES"))), tn),
                      g.phase.span),
              A.Const(wn, binary("*", tm, name(sw)), g.phase.span),
              A.Scratch(mw, A.TensorType("f32", ("CORES", wn)), g.phase.span)]
    g.ctx.notes.append(f"cube: {g.acc} = {g.a_name} @ {g.b_name} tile by tile, each core's tiles of a row of C computed "
                       f"ahead as one strip and handed to UB one by one for the vector work after the K loop (a fused "
                       f"epilogue)")
    return decls + [dealt]
