"""Cube: a product whose tile vector ops read after the K loop (a fused epilogue, docs/dsl.md "Cube
(matmul)"). ``cube._Gemm`` matches the phase up to its K loop; this module checks the epilogue's
product and rewrites the phase: each iteration's tile is one Matmul call into UB (the API's Iterate
and GetTensorC, codegen/gemm.py), followed by the epilogue as written."""
from __future__ import annotations

from dataclasses import replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TScalar

from .base import call, name
from .cube import _mat, _NotGemm, show


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


def fused_rewrite(g) -> list:
    """``acc = Matmul(a[..., 0:K], b[0:K, ...], base=(TM, TN, TK))``: the tile handed to UB, then the
    epilogue as written, in the phase's own parallel loop (each iteration one base block)."""
    ta, tb = g.flags

    def whole_k(load, axis):
        subs = list(load.src.subscripts)
        subs[len(subs) - 2 + axis] = A.Slice(A.Int(0), g.k_dim)
        return A.Index(load.src.base, tuple(subs))
    a = whole_k(g.a0, 0 if ta else 1)
    b = whole_k(g.b0, 1 if tb else 0)
    kwargs = {k: name("True") for k, f in (("transpose_a", ta), ("transpose_b", tb)) if f}
    product = A.Assign(g.acc, call("Matmul", a, b, **kwargs, base=A.Tuple((*g.fused_tile, g.depth))), g.loop.span)
    g.ctx.notes.append(f"cube: {g.acc} = {g.a_name} @ {g.b_name} tile by tile, each handed to UB for the vector "
                       f"work after the K loop (a fused epilogue)")
    return [replace(g.phase, body=tuple(g.head) + (product,) + tuple(g.epilogue))]
