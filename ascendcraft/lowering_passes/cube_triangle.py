"""Cube: a triangle of a product, ``store(c[tile], tril(acc, diagonal=d))`` (or ``triu``), with the
tiles outside the triangle skipped (docs/lowering.md, "Triangles"). ``cube._Gemm`` matches the
phase; this module rewrites it."""
from __future__ import annotations

import math

from ascendcraft.dsl import ast as A

from .base import Names, binary, call, map_names, name
from .cube import base_block, show


def triangle_rewrite(g, names: Names) -> list:
    """``store(c[tile], tril(acc, diagonal=d))`` (or triu): the writer's tiles are the work items.
    A tile the triangle misses is not computed but zeroed; a tile it crosses is computed, then
    masked by a vector phase in strips of rows; a tile inside it is computed only. The cores take
    the tiles round-robin, so each gets a share of the triangle (contiguous runs of a row-major
    grid would give the first cores the tiles the triangle misses, a stride of CORES over it
    could too: the computed tiles are dealt, not the grid's). With batch axes the items are
    (batch, tile) pairs, batch-major, each batch's triangle alike."""
    (vi, tm), (vj, tn) = g.axes[0], g.axes[1]
    func, diag = g.mask
    m_dim, n_dim = g._dim(g.c_name, 0), g._dim(g.c_name, 1)
    value = lambda e: g.ctx.type_of(e).value   # noqa: E731
    nb, nt, core, w = names.fresh("_nb"), names.fresh("_nt"), names.fresh("core"), names.fresh("_w")
    consts = [A.Const(nb, call("cdiv", n_dim, tn)),
              A.Const(nt, binary("*", call("cdiv", m_dim, tm), name(nb)))]
    items_total = name(nt)
    for _, d in g.batch:
        items_total = binary("*", d, items_total)

    def clamp01(e):
        return call("minimum", call("maximum", e, A.Int(0)), A.Int(1))

    def diagonal(i, j, zs):
        """The writer's diagonal of the tile (i, j) of batch zs."""
        names_of = {vi: name(i), vj: name(j), **{v: name(z) for (v, _), z in zip(g.batch, zs)}}
        return map_names(g.resolve(diag), lambda n: names_of.get(n.id, n))

    def conditions(i, j, zs):
        """(computed, crossed) as 0/1 scalars of the tile (i, j): some element of the tile is in
        the triangle, some is not. Short tails only make a tile look larger: never wrong."""
        d = diagonal(i, j, zs)
        # column - row ranges over [1 - TM, TN - 1] in the tile
        if func == "tril":   # kept where column - row <= d: some if d >= 1 - TM, not all if d < TN - 1
            return clamp01(binary("+", d, tm)), clamp01(binary("-", binary("-", tn, A.Int(1)), d))
        # triu, kept where column - row >= d: some if d <= TN - 1, not all if d > 1 - TM
        return clamp01(binary("-", tn, d)), clamp01(binary("-", binary("+", d, tm), A.Int(1)))

    def tile_of(i, j, body, span):
        r, c = names.fresh("_r"), names.fresh("_c")
        return (A.Assign(r, binary("*", name(i), tm), span), A.Assign(c, binary("*", name(j), tn), span),
                *body(r, c))

    def once_if(flag, stmts):
        return A.For(names.fresh("_q"), A.Int(0), flag, A.Int(1), tuple(stmts), g.store.span)

    i0, j0 = names.fresh("_i"), names.fresh("_j")
    zs0 = [names.fresh("_z") for _ in g.batch]     # C's batch indices, its leading axes in order
    computed, _ = conditions(i0, j0, zs0)

    def product(r, c):
        rows = A.Slice(name(r), binary("+", name(r), tm))
        cols = A.Slice(name(c), binary("+", name(c), tn))
        mm = g.matmul_call(zs0, rows, cols, A.Slice(A.Int(0), g.k_dim))
        return [once_if(binary("*", name(flag), mine),
                        [A.Store(A.Index(name(g.c_name), tuple(name(z) for z in zs0) + (rows, cols)), mm,
                                 span=g.store.span)])]
    # the computed tiles in row-major order are dealt to the cores round-robin: _n counts those
    # before (i, j), and a core takes a tile when the count is its number modulo the cores
    seen, flag = names.fresh("_n"), names.fresh("_k")
    mine = binary("-", A.Int(1), call("minimum", binary("%", binary("-", binary("+", name(seen), name("CORES")),
                                                                       name(core)), name("CORES")), A.Int(1)))
    span = g.phase.span
    tile_index, batch_of = name(w), []
    if g.batch:     # w = the flat batch index * tiles + the tile's index
        tile = names.fresh("_t")
        batch_of = [A.Assign(tile, binary("%", name(w), name(nt)), span),
                    *g.batch_indices(binary("//", name(w), name(nt)), zs0, span)]
        tile_index = name(tile)
    items = A.For(w, A.Int(0), items_total, A.Int(1),
                  (*batch_of,
                   A.Assign(i0, binary("//", tile_index, name(nb)), span),
                   A.Assign(j0, binary("%", tile_index, name(nb)), span),
                   A.Assign(flag, computed, span),
                   *tile_of(i0, j0, product, span),
                   A.Assign(seen, binary("+", name(seen), name(flag)), span)), span)
    cube_phase = A.ParallelFor((core,), (name("CORES"),), (A.Assign(seen, A.Int(0), span), items), span)

    # the vector phase: zero the tiles not computed, mask the crossed ones in strips of rows
    # (a [strip, TN] f32 tile of 16 KiB at most; the strip divides TM so strips stay in the tile)
    strip = math.gcd(value(tm), max(1, 4096 // value(tn)))
    i1, j1 = names.fresh("_i"), names.fresh("_j")
    zs1 = [names.fresh("_z") for _ in g.batch]
    computed1, crossed1 = conditions(i1, j1, zs1)
    d1 = diagonal(i1, j1, zs1)

    def epilogue(r, c):
        end, s0, s1, t = names.fresh("_e"), names.fresh("_s"), names.fresh("_s"), names.fresh("_t")
        cols = A.Slice(name(c), binary("+", name(c), tn))
        span = g.store.span

        def strip_of(v):
            return A.Index(name(g.c_name), tuple(name(z) for z in zs1) +
                           (A.Slice(name(v), binary("+", name(v), A.Int(strip))), cols))
        zero = A.For(s0, name(r), name(end), A.Int(strip), (A.Store(strip_of(s0), A.Float(0.0), span=span),), span)
        shifted = binary("+", d1, binary("-", name(s1), name(r)))   # the diagonal in the strip's frame
        mask = A.For(s1, name(r), name(end), A.Int(strip),
                     (A.Assign(t, A.Load(strip_of(s1)), span),
                      A.Store(strip_of(s1), call(func, name(t), diagonal=shifted), span=span)), span)
        return [A.Assign(end, call("minimum", binary("+", name(r), tm), m_dim), span),
                once_if(binary("-", A.Int(1), computed1), [zero]),
                once_if(binary("*", computed1, crossed1), [mask])]
    vector_phase = A.ParallelFor((*zs1, i1, j1), (*(d for _, d in g.batch), call("cdiv", m_dim, tm),
                                                  call("cdiv", n_dim, tn)),
                                 tile_of(i1, j1, epilogue, g.phase.span), g.phase.span)
    g.ctx.notes.append(
        f"cube: {g.c_name} = {func}({g.a_name} @ {g.b_name}): each {show(tm)} x {show(tn)} tile the "
        f"triangle touches is one Matmul call (base block {base_block((tm, tn, g.depth), value)}), "
        f"the computed tiles dealt to the cores round-robin; a vector phase zeroes the other tiles and masks the crossed "
        f"ones in strips of {strip} rows")
    return consts + [cube_phase, vector_phase]
