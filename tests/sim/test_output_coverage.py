"""Output coverage: which bytes of each output every block writes, in which phase (SyncAll)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.errors import UserError
from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import kernel_source


def _cover():
    return build_kernel(kernel_source("write_cover.cpp"), "write_cover")


def _two_phase():
    return build_kernel(kernel_source("two_phase.cpp"), "two_phase")


def _errors(res, rule):
    return [d for d in res.errors if d.rule == rule]


def test_capped_rows_pass_small_and_fail_at_the_real_size_with_the_first_unwritten_index(rng):
    art = _cover()
    # small: each block has 4 rows, below the cap of 64 -> correct, every byte written
    rows, cols, blocks = 12, 40, 3
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    res = run_kernel(art, [x, np.full_like(x, np.nan), rows, cols, rows // blocks, 16, 64, 0], block_dim=blocks,
                     outputs=["y"])
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[1], 2 * x)
    # real size, cost only: 48 blocks of 100 rows, each stops after 64 rows
    rows, cols, blocks = 4800, 1000, 48
    args = [gm((rows, cols), np.float32), gm((rows, cols), np.float32), rows, cols, rows // blocks, 256]
    res = run_kernel(art, args + [64, 0], block_dim=blocks, cost_only=True, outputs=["y"])
    assert not res.ok
    (d,) = _errors(res, "output-unwritten")
    assert d.severity == "error"
    assert "output 'y'" in d.message
    assert "element 64000 is never written" in d.message            # row 64 of block 0
    unwritten = blocks * (100 - 64) * cols * 4
    assert f"{unwritten} bytes ({unwritten // 4} elements)" in d.message
    assert d.api == "DataCopyPad" and d.line is not None and d.block == 0   # the last write before the gap
    # the same kernel without the cap passes at the real size
    res = run_kernel(art, args + [0, 0], block_dim=blocks, cost_only=True, outputs=["y"])
    assert res.ok, res.report()
    # without `outputs` nothing is checked (the behaviour before the check existed)
    res = run_kernel(art, args + [64, 0], block_dim=blocks, cost_only=True)
    assert res.ok, res.report()


def test_two_blocks_writing_row_60_is_a_race(rng):
    art = _cover()
    rows, cols, blocks = 120, 40, 2
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    res = run_kernel(art, [x, np.full_like(x, np.nan), rows, cols, 60, 16, 0, 1], block_dim=blocks, outputs=["y"])
    np.testing.assert_array_equal(res.outputs[1], 2 * x)   # the values are right; the race is the bug
    assert not res.ok
    (d,) = _errors(res, "output-race")
    assert "blocks 0 and 1 both write output 'y'" in d.message
    assert f"element {60 * cols}" in d.message                       # row 60, column 0
    assert "DataCopyPad at line" in d.message and d.line is not None and d.api == "DataCopyPad"
    assert not _errors(res, "output-unwritten")
    # the fixed kernel passes, with data and cost only at a larger size
    res = run_kernel(art, [x, np.full_like(x, np.nan), rows, cols, 60, 16, 0, 0], block_dim=blocks, outputs=["y"])
    assert res.ok, res.report()
    big = [gm((4800, 1000), np.float32), gm((4800, 1000), np.float32), 4800, 1000, 100, 256, 0]
    assert run_kernel(art, big + [0], block_dim=48, cost_only=True, outputs=[1]).ok
    res = run_kernel(art, big + [1], block_dim=48, cost_only=True, outputs=[1])
    (d,) = _errors(res, "output-race")
    assert "blocks 0 and 1 both write output 'y' element 100000 " in d.message


def _synced_run(art, rng, blocks: int = 4, per: int = 64):
    """two_phase with its SyncAll and atomic adds on: (the result, x)."""
    x = rng.standard_normal(per * blocks).astype(np.float32)
    return run_kernel(art, [x, np.full_like(x, np.nan), np.full(8, np.nan, np.float32), per, 1, 1], block_dim=blocks,
                      outputs=["y", "z"]), x


def test_rewriting_another_blocks_bytes_after_syncall_is_fine(rng):
    blocks = 4
    res, x = _synced_run(_two_phase(), rng, blocks)
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[1], 2 * x)
    np.testing.assert_array_equal(res.outputs[2], np.full(8, blocks, np.float32))   # atomic adds overlap on purpose


def test_same_writes_without_syncall_or_atomic_are_races():
    art = _two_phase()
    per, blocks = 64, 4
    args = [gm(per * blocks, np.float32), gm(per * blocks, np.float32), gm(8, np.float32), per]
    # no SyncAll: phase 2 rewrites chunk b+1 in the phase where block b+1 writes it too
    res = run_kernel(art, args + [0, 1], block_dim=blocks, cost_only=True, outputs=["y", "z"])
    races = {d.message.split("output '")[1].split("'")[0]: d for d in _errors(res, "output-race")}
    assert set(races) == {"y", "z"}
    assert "blocks 0 and 3 both write output 'y' element 0 " in races["y"].message   # block 3 rewrites chunk 0
    assert "(atomic add)" in races["z"].message                     # block 0's plain zeroing vs an atomic add
    # SyncAll but no SetAtomicAdd: all blocks store z's 8 elements in one phase
    res = run_kernel(art, args + [1, 0], block_dim=blocks, cost_only=True, outputs=["y", "z"])
    (d,) = _errors(res, "output-race")
    assert "output 'z' element 0 " in d.message and "phase 1: 1 SyncAll calls before it" in d.message
    # and both fixed: clean
    assert run_kernel(art, args + [1, 1], block_dim=blocks, cost_only=True, outputs=["y", "z"]).ok


def test_outputs_argument_is_validated():
    art = _two_phase()
    args = [gm(256, np.float32), gm(256, np.float32), gm(8, np.float32), 64, 1, 1]
    with pytest.raises(UserError, match="no parameter named"):
        run_kernel(art, args, block_dim=4, cost_only=True, outputs=["w"])
    with pytest.raises(UserError, match="scalar"):
        run_kernel(art, args, block_dim=4, cost_only=True, outputs=[3])
    with pytest.raises(UserError, match="out of range"):
        run_kernel(art, args, block_dim=4, cost_only=True, outputs=[9])


# One value computed, a whole 32-byte block copied out: the other seven floats are garbage from
# UB that nothing wrote. USE_GARBAGE instead adds them into the value (a computation on them).
_ONE_VALUE = """
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void one_value(GM_ADDR x, GM_ADDR y)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 1);
    yGm.SetGlobalBuffer((__gm__ float*)y, 8);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    t.SetValue(0, xGm.GetValue(0) * 2.0f);
#ifdef USE_GARBAGE
    AscendC::SetFlag<AscendC::HardEvent::S_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::S_V>(EVENT_ID0);
    AscendC::ReduceSum(t, t, t, 8);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
#endif
    AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
    AscendC::DataCopy(yGm, t, 8);  // @copy
}
"""


def test_copying_out_bytes_nothing_wrote_is_a_warning_at_the_copy():
    art = build_kernel(_ONE_VALUE, "one_value")
    res = run_kernel(art, [np.array([1.5], np.float32), np.full(8, np.nan, np.float32)], block_dim=1)
    assert res.ok, res.report()
    line = next(i for i, text in enumerate(_ONE_VALUE.splitlines(), 1) if "// @copy" in text)
    assert [(d.rule, d.line) for d in res.warnings] == [("uninit-copy-out", line)]
    assert "element 1" in res.warnings[0].message
    assert res.outputs[1][0] == 3.0


def test_a_result_computed_from_bytes_nothing_wrote_is_an_error_where_it_reaches_an_output():
    art = build_kernel(_ONE_VALUE, "one_value", defines={"USE_GARBAGE": "1"})
    res = run_kernel(art, [np.array([1.5], np.float32), np.full(8, np.nan, np.float32)], block_dim=1, outputs=[1])
    assert [d.rule for d in res.errors] == ["uninit-read"]
    assert res.errors[0].api == "ReduceSum"        # reported where the garbage was read
    assert "reached an output: output 'y'" in res.errors[0].message


def test_a_syncall_in_a_header_of_the_kernel_is_a_barrier(rng):
    """The launch is read from the kernel and its headers: a SyncAll only in an included .h still
    runs each block on its own thread, so the barrier waits (without it the blocks ran one after
    another and phase 2 read chunks their owners had not written yet)."""
    source = kernel_source("two_phase.cpp").replace("AscendC::SyncAll();", "Barrier();").replace(
        '#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include "barrier.h"')
    art = build_kernel(source, "two_phase",
                       extra_sources={"barrier.h": "#pragma once\ninline void Barrier() { AscendC::SyncAll(); }\n"})
    res, x = _synced_run(art, rng)
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[1], 2 * x)
