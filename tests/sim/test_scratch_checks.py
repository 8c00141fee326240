"""Scratch checks: writes racing, reads racing writes, reads of scratch no block wrote (the user
workspace, when the caller names its scratch tensors), in data runs and cost-only runs alike."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import kernel_source

PER_BLOCK, BLOCKS = 64, 4
OWN, CROSS_SAME_PHASE, CROSS_AFTER_SYNC, READ_FIRST, SHARED_WRITE = range(5)


@pytest.fixture(scope="module")
def art():
    return build_kernel(kernel_source("scratch_phases.cpp"), "scratch_phases")


def _run(art, mode, *, cost_only=False, scratch=True, blocks=BLOCKS):
    n = PER_BLOCK * blocks
    layout = [("part", 0, n * 4, 4)] if scratch else []
    if cost_only:
        args = [gm((n,), np.float32), gm((n,), np.float32)]
    else:
        args = [np.arange(n, dtype=np.float32), np.full(n, np.nan, np.float32)]
    return run_kernel(art, args + [PER_BLOCK, mode], block_dim=blocks, cost_only=cost_only,
                      workspace_bytes=n * 4, scratch=layout)


def _rules(res):
    return sorted({d.rule for d in res.errors})


@pytest.mark.parametrize("cost_only", [False, True])
def test_reading_back_your_own_writes_or_another_block_s_after_syncall_passes(art, cost_only):
    for mode in (OWN, CROSS_AFTER_SYNC):
        res = _run(art, mode, cost_only=cost_only)
        assert res.ok, res.report()
    res = _run(art, CROSS_AFTER_SYNC)
    x = np.arange(PER_BLOCK * BLOCKS, dtype=np.float32).reshape(BLOCKS, PER_BLOCK)
    np.testing.assert_array_equal(res.outputs[1].reshape(BLOCKS, PER_BLOCK), np.roll(x, -1, axis=0))


@pytest.mark.parametrize("cost_only", [False, True])
def test_reading_what_another_block_writes_in_the_same_phase_is_a_race(art, cost_only):
    res = _run(art, CROSS_SAME_PHASE, cost_only=cost_only)
    assert not res.ok and _rules(res) == ["scratch-race"], res.report()
    (d,) = res.errors
    assert "reads scratch 'part' element" in d.message and "in the same parallel phase" in d.message
    assert "an earlier phase" in d.message and d.line is not None


@pytest.mark.parametrize("cost_only", [False, True])
def test_reading_scratch_before_any_block_wrote_it_is_an_error(art, cost_only):
    res = _run(art, READ_FIRST, cost_only=cost_only)
    assert not res.ok and _rules(res) == ["scratch-unwritten"], res.report()
    (d,) = res.errors
    assert "block 0 reads scratch 'part' element 0" in d.message and "before any block wrote it" in d.message


def test_two_blocks_writing_the_same_scratch_in_one_phase_is_a_race(art):
    res = _run(art, SHARED_WRITE)
    assert not res.ok and _rules(res) == ["scratch-race"], res.report()
    assert "both write scratch 'part' element 0" in res.errors[0].message
    assert _run(art, SHARED_WRITE, blocks=1).ok     # one writer: no race


def test_without_a_scratch_layout_nothing_is_checked(art):
    for mode in (CROSS_SAME_PHASE, READ_FIRST, SHARED_WRITE):
        assert _run(art, mode, scratch=False).ok
