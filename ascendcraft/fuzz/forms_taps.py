"""Fuzz forms of tap products (lowering_passes/cube_taps.py): convolutions over channel-last images
whose every C tile is the sum of products of tiles the tap moves, on the cube cores alone.

* ``taps1d`` a 1-D convolution y[n, co, l] = sum over t, ci of wt[t, co, ci] * x[n, l + t, ci], C in
  TM x TN tiles with tails on both axes (``pad=0.0`` loads keep a tail tile's extents);
* ``taps2d`` a 2-D one over KH x KW taps of an image, the taps moving by ``t // KW`` rows and
  ``t % KW`` columns: one output row a tile, C through a view of y, or TN columns of one output
  row a tile, C's rows (its channels) a plane of y apart;
* ``tapsloop`` a channel-first 1-D convolution in a loop of phases, each sequence laid out
  channel-last by the vector cores, then its tap products on the cube cores.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .builder import KernelBuilder
from .differential import FuzzCase
from .expressions import Options

#: C tiles (rows, columns): multiples of 16 and not, so most extents leave a tail
_TILES = ((16, 16), (32, 16), (16, 48), (24, 40))


def _taps1d(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    n, ci, co, kw = draw(st.integers(1, 3)), draw(st.integers(1, 40)), draw(st.integers(1, 50)), draw(st.integers(1, 4))
    length = draw(st.integers(kw, 90))
    tm, tn = draw(st.sampled_from(_TILES))
    k.inp("x", "N, L, CI", (n, length, ci))
    k.inp("wt", "KW, CO, CI", (kw, co, ci))
    k.out("y", "N, CO, LO", (n, co, length - kw + 1))
    k.const("TM", tm)
    k.const("TN", tn)
    k.line(1, "for n, i, j in parallel(N, cdiv(CO, TM), cdiv(LO, TN)):")
    _conv1d_tile(k, 2, "x[n, ")
    return k.case("taps1d")


def _conv1d_tile(k: KernelBuilder, depth: int, image: str):
    """The body of a 1-D convolution's tap phase: the C tile (i, j) of sequence n, the sum of the
    KW taps' products of weight tiles and blocks of the channel-last ``image`` (``x[n, ``)."""
    k.line(depth, "m = i * TM")
    k.line(depth, "q = j * TN")
    k.line(depth, "a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)")
    k.line(depth, f"acc = matmul(a, load({image}q:q + TN, :], space=l1, pad=0.0), transpose_b=True)")
    k.line(depth, "for t in range(1, KW):")
    k.line(depth + 1, "a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)")
    k.line(depth + 1, f"acc = acc + matmul(a, load({image}q + t:q + t + TN, :], space=l1, pad=0.0), transpose_b=True)")
    k.line(depth, "store(y[n, m:m + TM, q:q + TN], acc)")


def _taps2d(draw, opts: Options) -> FuzzCase:
    k = KernelBuilder(draw, opts)
    n, ci, co = draw(st.integers(1, 2)), draw(st.integers(1, 24)), draw(st.integers(1, 40))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(kh, 9)), draw(st.integers(kw, 30))
    k.inp("x", "N, H, W, CI", (n, h, w, ci))
    k.inp("wt", "T, CO, CI", (kh * kw, co, ci))
    k.out("y", "N, CO, OH, OW", (n, co, h - kh + 1, w - kw + 1))
    k.const("KW", kw)
    if draw(st.booleans()):     # one output row a tile, C through a view of y
        k.const("P", "OH * OW")
        k.line(1, "yv = view(y, (N, CO, P))")
        k.line(1, "for n, oh in parallel(N, OH):")
        k.line(2, "q = oh * OW")
        k.line(2, "a = load(wt[0, :, :], space=l1)")
        k.line(2, "acc = matmul(a, load(x[n, oh, 0:OW, :], space=l1), transpose_b=True)")
        k.line(2, "for t in range(1, T):")
        k.line(3, "a = load(wt[t, :, :], space=l1)")
        k.line(3, "acc = acc + matmul(a, load(x[n, oh + t // KW, t % KW:t % KW + OW, :], space=l1), transpose_b=True)")
        k.line(2, "store(yv[n, :, q:q + OW], acc)")
        return k.case("taps2d")
    # TN columns of one output row a tile, stored to y itself: C's rows a channel plane apart
    k.const("TN", draw(st.sampled_from((8, 16, 24))))
    k.line(1, "for n, oh, j in parallel(N, OH, cdiv(OW, TN)):")
    k.line(2, "q = j * TN")
    k.line(2, "a = load(wt[0, :, :], space=l1)")
    k.line(2, "acc = matmul(a, load(x[n, oh, q:q + TN, :], space=l1, pad=0.0), transpose_b=True)")
    k.line(2, "for t in range(1, T):")
    k.line(3, "a = load(wt[t, :, :], space=l1)")
    k.line(3, "acc = acc + matmul(a, load(x[n, oh + t // KW, q + t % KW:q + t % KW + TN, :], space=l1, pad=0.0), "
              "transpose_b=True)")
    k.line(2, "store(y[n, :, oh, q:q + TN], acc)")
    return k.case("taps2d")


def _tapsloop(draw, opts: Options) -> FuzzCase:
    """A channel-first 1-D convolution, one sequence an iteration of a loop of phases: its layout
    channel-last (a vector phase, ``transpose``) then its tap products, the vector cores running
    ahead of the cube cores; or, over one sequence's scratch laid out again every iteration, in lock
    step (lowering_passes/tap_groups.py). Sometimes a vector phase over y after the loop."""
    k = KernelBuilder(draw, opts)
    n, ci, co, kw = draw(st.integers(1, 4)), draw(st.integers(1, 24)), draw(st.integers(1, 40)), draw(st.integers(1, 4))
    length = draw(st.integers(kw, 80))
    tm, tn = draw(st.sampled_from(_TILES))
    tl = draw(st.sampled_from((8, 16, 32)))
    shared = draw(st.booleans())
    k.inp("x", "N, CI, L", (n, ci, length))
    k.inp("wt", "KW, CO, CI", (kw, co, ci))
    k.out("y", "N, CO, LO", (n, co, length - kw + 1))
    k.const("TM", tm)
    k.const("TN", tn)
    k.const("TL", tl)
    k.scratch.append("    scratch xt: f32[L, CI]" if shared else "    scratch xt: f32[N, L, CI]")
    at = "" if shared else "n, "
    k.tag("shared" if shared else "own")
    k.line(1, "for n in range(N):")
    k.line(2, "for lb in parallel(cdiv(L, TL)):")
    k.line(3, "l = lb * TL")
    k.line(3, f"store(xt[{at}l:l + TL, :], transpose(load(x[n, :, l:l + TL])))")
    k.line(2, "for i, j in parallel(cdiv(CO, TM), cdiv(LO, TN)):")
    _conv1d_tile(k, 3, f"xt[{at}")
    if draw(st.booleans()):
        k.tag("epilogue")
        k.line(1, "for b, co in parallel(N, CO):")
        k.line(2, "store(y[b, co, :], relu(load(y[b, co, :])))")
    return k.case("tapsloop")


TAP_FORMS = {"taps1d": _taps1d, "taps2d": _taps2d, "tapsloop": _tapsloop}
