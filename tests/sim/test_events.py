"""Cross-pipe events (issue 11): the missing-sync check and the event-driven timeline.

Each pipe runs its own instructions in program order; only events order one pipe against
another (SetFlag/WaitFlag, the flags TQue EnQue/DeQue/AllocTensor/FreeTensor raise and wait
on, PipeBarrier<PIPE_ALL>, SyncAll). Two kernels:

* ``kernels/sync_races.cpp``: a correct kernel, and one planted race per ``BUG_*`` macro, each
  removing exactly one synchronisation. The lines the diagnostics must name are found by marker
  comments (``// @name`` on the line), not by line numbers.
* ``kernels/stream_overlap.cpp``: a double-buffered stream whose modelled time shows whether
  copy and compute overlap, in three variants (DeQue at use / DeQue right after EnQue / single
  buffer).
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

RACES = kernel_source("sync_races.cpp")
RACE_TILE, RACE_TILES, RACE_BLOCKS = 256, 4, 2  # TILE in sync_races.cpp; >= 2 tiles for BUG_TBUF_REUSE


def marker_line(source: str, name: str) -> int:
    """The line (1-based) of the code line that ends with the comment ``// @name``; exactly one
    must (comment-only lines, such as the kernel's header that lists the markers, never match)."""
    pat = re.compile(r"\s*[^/\s].*//\s*@" + re.escape(name) + r"\s*")
    hits = [i for i, ln in enumerate(source.splitlines(), 1) if pat.fullmatch(ln)]
    assert len(hits) == 1, f"marker @{name}: lines {hits}"
    return hits[0]


@functools.lru_cache(maxsize=None)
def _races_artifact(macro: str | None):
    art = build_kernel(RACES, "sync_races", defines={macro: 1} if macro else None)
    assert art.warnings == [], art.warnings
    return art


def _run_races(macro: str | None, **kw):
    n = RACE_BLOCKS * RACE_TILES * RACE_TILE
    x = np.random.default_rng(11).standard_normal(n).astype(np.float32)
    res = run_kernel(_races_artifact(macro), [x, poisoned(n, np.float32), poisoned(8 * RACE_BLOCKS, np.float32),
                                              RACE_TILES], block_dim=RACE_BLOCKS, **kw)
    return res, x


def _check_race_outputs(res, x):
    y, s = res.outputs[1], res.outputs[2]
    assert_close(y, 2.0 * x + 1.0)
    per_block = RACE_TILES * RACE_TILE
    for b in range(RACE_BLOCKS):  # s[8b : 8b+8] = the sum of block b's first tile
        first = x[b * per_block: b * per_block + RACE_TILE].astype(np.float64)
        np.testing.assert_allclose(s[8 * b: 8 * b + 8], np.full(8, first.sum()), rtol=1e-5, atol=1e-4)


def _names(pipe: str) -> re.Pattern:
    """A pipe name as a word: "V" must not match inside "VECIN" or "V_MTE2"."""
    return re.compile(r"(?<![\w])" + re.escape(pipe) + r"(?![\w])")


# macro -> (marker of the later access = the diagnostic's line, marker of the earlier access
# named in the message, the earlier access's pipe, the later access's pipe, the buffer's kind,
# marker of the buffer's InitBuffer, run_kernel options)
BUGS = {
    # the copy-in wrote inBuf on MTE2; the Muls reads it on V with no MTE2_V flag between
    "NO_WAIT_IN": ("in-use", "in-copy", "MTE2", "V", "TBuf<VECCALC>", "init-in", {}),
    # the Adds wrote outBuf on V; the copy-out reads it on MTE3 with no V_MTE3 flag between
    "NO_WAIT_OUT": ("out-copy", "out-write", "V", "MTE3", "TBuf<VECCALC>", "init-out", {}),
    # tile 0's Muls read inBuf on V; tile 1's copy-in overwrites it on MTE2 with no V_MTE2 flag
    "TBUF_REUSE": ("in-copy", "in-use", "V", "MTE2", "TBuf<VECCALC>", "init-in", {}),
    # ReduceSum wrote sumBuf on V; GetValue reads it on the scalar unit with no V_S flag (only
    # a race when the kernel is compiled without cce-auto-sync)
    "NO_V_S": ("get-value", "reduce", "V", "S", "TBuf<VECCALC>", "init-sum", {"auto_sync": False}),
}
# the same two races as NO_WAIT_IN / NO_WAIT_OUT, in the queue version with EnQue/DeQue left out
QUEUE_BUGS = {
    "QUE_NO_ENQUE_IN": ("q-in-use", "q-in-copy", "MTE2", "V", "TQue<VECIN>", "init-inq", {}),
    "QUE_NO_ENQUE_OUT": ("q-out-copy", "q-out-write", "V", "MTE3", "TQue<VECOUT>", "init-outq", {}),
}


def test_markers_are_unique():
    for later, earlier, _, _, _, init, _ in [*BUGS.values(), *QUEUE_BUGS.values()]:
        for name in (later, earlier, init):
            marker_line(RACES, name)


@pytest.mark.parametrize("auto_sync", [True, False], ids=["auto-sync", "no-auto-sync"])
@pytest.mark.parametrize("mode", [None, "USE_QUEUES"], ids=["flags", "queues"])
def test_correct_kernel_has_no_race(mode, auto_sync):
    """Every cross-pipe access is ordered, the scalar read too (explicit V_S flags), so the
    kernel is race-free with and without cce-auto-sync."""
    res, x = _run_races(mode, **({} if auto_sync else {"auto_sync": False}))  # True is the default
    assert res.ok, res.report()
    assert res.diagnostics == [], res.report()
    _check_race_outputs(res, x)


def _assert_one_missing_sync(res, later, earlier, first_pipe, second_pipe, buffer, init):
    assert res.crash is None, res.crash
    assert not res.ok, "the race was not reported:\n" + res.report()
    assert len(res.errors) == 1, res.report()
    d = res.errors[0]
    assert d.rule == "missing-sync", res.report()
    assert d.file == "kernel.cpp", res.report()
    assert d.line == marker_line(RACES, later), (f"expected the later access (@{later}, line "
                                                 f"{marker_line(RACES, later)})", res.report())
    msg = d.message
    assert re.search(rf"\bline {marker_line(RACES, earlier)}\b", msg), (f"earlier access @{earlier}", msg)
    for pipe in (first_pipe, second_pipe):
        assert _names(pipe).search(msg), (pipe, msg)
    assert buffer in msg, (buffer, msg)
    assert re.search(rf"\bline {marker_line(RACES, init)}\b", msg), (f"InitBuffer @{init}", msg)


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_planted_race_is_caught(bug):
    later, earlier, first, second, buffer, init, kw = BUGS[bug]
    res, _ = _run_races(f"BUG_{bug}", **kw)
    _assert_one_missing_sync(res, later, earlier, first, second, buffer, init)


@pytest.mark.parametrize("bug", sorted(QUEUE_BUGS))
def test_queue_tile_used_without_enque_deque_is_a_race(bug):
    later, earlier, first, second, buffer, init, kw = QUEUE_BUGS[bug]
    res, _ = _run_races(f"BUG_{bug}", **kw)
    _assert_one_missing_sync(res, later, earlier, first, second, buffer, init)


def test_scalar_read_is_ordered_by_auto_sync():
    """Without the V_S flags, cce-auto-sync (the default) orders the GetValue for the kernel."""
    res, x = _run_races("BUG_NO_V_S")
    assert res.ok, res.report()
    assert res.diagnostics == [], res.report()
    _check_race_outputs(res, x)


# ----------------------------------------------------------------------------- overlap timing
STREAM = kernel_source("stream_overlap.cpp")
STREAM_TILE, STREAM_TILES = 4096, 64  # 16 KiB tiles (TILE in stream_overlap.cpp), one block
VARIANTS = ("PREFETCH_DEQUE_AT_USE", "PREFETCH_DEQUE_IMMEDIATE", "SINGLE_BUFFER")


def _gelu(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


@functools.lru_cache(maxsize=None)
def _stream(variant: str):
    art = build_kernel(STREAM, "stream_overlap", defines={variant: 1})
    assert art.warnings == [], art.warnings
    n = STREAM_TILES * STREAM_TILE
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    res = run_kernel(art, [x, poisoned(n, np.float32), STREAM_TILES], block_dim=1)
    return res, x


def _cycles(variant: str) -> float:
    """The block's modelled cycles (the cost report's per-core end time): the kernel body without
    the fixed launch overhead, which would only dilute the ratios."""
    res, _ = _stream(variant)
    assert res.ok, res.report()
    return res.cost.per_core[0].cycles


@pytest.mark.parametrize("variant", VARIANTS)
def test_stream_variant_is_correct(variant):
    res, x = _stream(variant)
    assert res.ok, res.report()
    assert res.diagnostics == [], res.report()
    assert_close(res.outputs[1], _gelu(x))


def test_stream_variants_do_the_same_work():
    """The variants differ only in where DeQue is and how many buffers there are: EnQue/DeQue cost
    nothing by themselves, so each pipe is busy for the same time in all three."""
    base = _stream(VARIANTS[0])[0].cost.per_core[0].busy_cycles
    for v in VARIANTS[1:]:
        busy = _stream(v)[0].cost.per_core[0].busy_cycles
        for pipe in ("V", "MTE2", "MTE3"):
            assert busy[pipe] == pytest.approx(base[pipe]), (v, pipe, busy, base)


# Per 16 KiB tile, from the cost constants (mte_overhead 40 cycles, MTE2 32 B/cycle, MTE3
# 64 B/cycle, vec_overhead 8, 64 repeats of 256 B, transcendental 2 cycles/repeat):
#   copy-in  C = 40 + 16384/32 = 552 cycles on MTE2 (+ GM latency L = 1000 before the data lands)
#   compute V = 5 x (8 + 64) + 2 x (8 + 128) = 632 cycles on V (Mul, Muls, Adds, Mul, Exp, Adds, Div)
#   copy-out  40 + 16384/64 = 296 cycles on MTE3 (overlaps the next copy-in in every variant)
# SINGLE_BUFFER: the next copy-in waits for the compute to free the one input buffer, and the
#   compute waits for its copy: C + L + V = 2184 cycles per tile (C + V = 1184 without latency).
# DEQUE_AT_USE: tile i+1 is copied while tile i computes; a buffer comes back every two tiles,
#   so a tile costs max(C, V, (C + L + V) / 2) = 1092 (max(C, V) = 632 without latency).
# DEQUE_IMMEDIATE: V's wait for tile i+1's copy comes before tile i's compute, and that copy
#   needs the buffer tile i-1's compute frees: C + L + V per tile again, as SINGLE_BUFFER.
# So the expected ratios are 2.0 (1.87 without latency); 1.5 and 1.3 leave margin for constant
# changes and the prologue/epilogue of a 64-tile run.
OVERLAP_SPEEDUP = 1.5
IMMEDIATE_SLOWDOWN = 1.3


def test_deque_at_use_overlaps_copy_and_compute():
    at_use, single = _cycles("PREFETCH_DEQUE_AT_USE"), _cycles("SINGLE_BUFFER")
    assert single >= OVERLAP_SPEEDUP * at_use, (single, at_use, single / at_use)


def test_deque_right_after_enque_loses_the_overlap():
    at_use, immediate = _cycles("PREFETCH_DEQUE_AT_USE"), _cycles("PREFETCH_DEQUE_IMMEDIATE")
    assert immediate >= IMMEDIATE_SLOWDOWN * at_use, (immediate, at_use, immediate / at_use)
