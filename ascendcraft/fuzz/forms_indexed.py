"""Forms that read one value per iteration (:mod:`ascendcraft.fuzz.kernels`, ``FORMS``): what
embeddings, row gathers and per-channel scales look like, and what the lowering's ``hoist`` pass
rewrites (a small tensor loaded whole once per core, a larger one read in blocks at the loop's
variable, through a flat view when partition unpacked it).

* ``lookup``  rows of a table picked by an i32 index read one value at a time, times a per-index
              weight, plus a per-column bias: either a sequential loop over a row of indices
              (``idx[r, k]``: blocks of 512 values, so rows of up to 700 indices cross them) or a
              two-axis parallel loop over the index tensor (``idx[a, b]``: the flat view); the
              weight and bias tensors are small or large, so some are loaded whole and some not.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .builder import KernelBuilder, draw_tile
from .differential import FuzzCase
from .expressions import Options


def _lookup(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    v, c = draw(st.integers(1, 40)), draw(st.integers(1, 150))
    t = draw_tile(draw)
    k.const("T", t)
    k.inp("tab", "V, C", (v, c))
    style = draw(st.sampled_from(["rows", "flat"]))
    k.tag(f"lookup_{style}")
    if style == "rows":         # a row of indices read at the sequential loop's variable q
        outer, n = draw(st.integers(1, 4)), draw(st.sampled_from([1, 7, 511, 512, 513, 700]))
        axes, at, loops = ("R", "K"), "r, q", ["for r in parallel(R):", "for q in range(0, K):"]
    else:                       # every axis of the indices, unpacked from the parallel loop's index
        n = draw(st.sampled_from([1, 5, 64, 300, 2100]))      # 2,100 weights: 8.4 KiB, not loaded whole
        outer = draw(st.integers(1, 20 if n < 1000 else 3))
        axes, at, loops = ("A", "B"), "i, q", ["for i, q in parallel(A, B):"]
    k.inp("idx", ", ".join(axes), (outer, n), "i32", 0, v)
    k.inp("wt", axes[1], (n,))
    k.out("y", ", ".join(axes) + ", C", (outer, n, c))
    for depth, loop in enumerate(loops, 1):
        k.line(depth, loop)
    depth = len(loops) + 1
    k.line(depth, f"d = load(idx[{at}])")
    k.line(depth, "w = load(wt[q])")
    bias = draw(st.booleans())
    if bias:
        k.inp("bias", "C", (c,))
        k.tag("lookup_bias")
    k.line(depth, "for j in range(0, C, T):")
    value = "load(tab[d, j:j + T]) * w" + (" + load(bias[j:j + T])" if bias else "")
    k.line(depth + 1, f"store(y[{at}, j:j + T], {value})")
    return k.case("lookup")


INDEXED_FORMS = {"lookup": _lookup}
