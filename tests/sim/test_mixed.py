"""Mixed launches (1 AIC : 2 AIV per block) and cross-core flags on the simulator: a product tile
handed from the AIC to its AIVs through workspace slots, and the bugs such a hand-off can have,
each reported with its line (docs/simulator.md, "Mixed launches and cross-core flags")."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel
from ascendcraft.sim.timeline import chrome_trace

from sim_helpers import kernel_source

SRC = kernel_source("mixed_handoff.cpp")
TM = TN = TK = 32
BUGS = {None: 0, "NO_WAIT": 1, "NO_SET": 2, "NO_BACKPRESSURE": 3, "MODE_SWITCH": 4, "UB_ON_AIC": 5}


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(SRC.splitlines(), 1) if marker in text)


def _run(blocks=2, tiles=4, bug=None, rng=None, cost_only=False, source=SRC):
    art = build_kernel(source, "mixed_handoff")
    rng = rng or np.random.default_rng(0)
    a = rng.standard_normal((blocks * tiles * TM, TK)).astype(np.float16)
    b = rng.standard_normal((TK, TN)).astype(np.float16)
    y = np.full((blocks * tiles * TM, TN), np.nan, np.float32)
    ws = blocks * 2 * TM * TN * 4
    res = run_kernel(art, [a, b, y, tiles, BUGS[bug]], block_dim=blocks, workspace_bytes=ws,
                     scratch=[("slots", 0, ws, 4)], cost_only=cost_only)
    return res, np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)


def _rules(res):
    return sorted({d.rule for d in res.errors})


@pytest.mark.parametrize("blocks,tiles", [(1, 1), (2, 4), (3, 5)])
def test_the_aic_hands_each_tile_to_both_aivs(blocks, tiles):
    res, want = _run(blocks, tiles)
    assert res.ok, res.report()
    np.testing.assert_allclose(res.outputs[2], want, rtol=1e-5, atol=1e-5)
    kinds = sorted(c.kind for c in res.cost.per_core)
    assert kinds == ["aic"] * blocks + ["aiv"] * (2 * blocks)
    aic = [c for c in res.cost.per_core if c.kind == "aic"]
    aiv = [c for c in res.cost.per_core if c.kind == "aiv"]
    assert all(c.cube_macs == tiles * TM * TN * TK for c in aic) and all(c.cube_macs == 0 for c in aiv)
    assert all(c.vector_elements > 0 for c in aiv) and all(c.vector_elements == 0 for c in aic)
    # each AIV waits for its AIC's first tile: it cannot end before the AIC produced the last one
    assert min(c.cycles for c in aiv) > max(c.busy_cycles["FIX"] for c in aic)
    assert res.cost.physical_cores == 3 * blocks
    # the tiles the AIC hands over stay in L2: the AIVs read them without HBM traffic
    assert all(c.gm_read == 0 for c in aiv)


def test_the_timeline_places_each_core_on_its_own_kind_and_shows_the_waits():
    art = build_kernel(SRC, "mixed_handoff")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2 * 4 * TM, TK)).astype(np.float16)
    b = rng.standard_normal((TK, TN)).astype(np.float16)
    res = run_kernel(art, [a, b, np.zeros((2 * 4 * TM, TN), np.float32), 4, 0], block_dim=2,
                     workspace_bytes=2 * 2 * TM * TN * 4, trace=True)
    assert res.ok, res.report()
    tl = res.timeline
    assert tl.physical_cores == 6 and sorted(bt.core for bt in tl.blocks) == list(range(6))
    names = {e["name"] for e in chrome_trace(tl)["traceEvents"]}
    assert "CrossCoreWaitFlag: waits for another core's flag" in names


def test_cost_only_runs_the_same_hand_off():
    res, _ = _run(2, 4, cost_only=True)
    assert res.ok, res.report()
    full, _ = _run(2, 4)
    assert res.cost.time_us == pytest.approx(full.cost.time_us, rel=1e-6)


def test_reading_the_slot_without_waiting_for_the_aic_is_a_race():
    res, _ = _run(bug="NO_WAIT")
    assert not res.ok and _rules(res) == ["scratch-race"], res.report()
    (d,) = res.errors
    assert "no cross-core flag or barrier orders the two" in d.message
    assert "AIV" in d.message and "the AIC of block" in d.message
    assert {d.line} <= {_line("AscendC::DataCopy(x, ws["), _line("AscendC::Fixpipe(ws[")}


def test_overwriting_a_slot_the_aivs_may_still_read_is_a_race():
    res, _ = _run(tiles=4, bug="NO_BACKPRESSURE")
    assert not res.ok and _rules(res) == ["scratch-race"], res.report()
    assert "slot reused for the next tile" in res.errors[0].message


def test_a_wait_no_core_will_satisfy_is_a_deadlock_with_both_sides_lines():
    res, _ = _run(tiles=2, bug="NO_SET")
    assert not res.ok and "cross-core-deadlock" in _rules(res), res.report()
    d = next(d for d in res.errors if d.rule == "cross-core-deadlock")
    assert d.line == _line("AscendC::CrossCoreWaitFlag(slot);")
    assert "the AIC of block" in d.message and "has returned" in d.message
    assert "CrossCoreWaitFlag(0) waits for a flag no core will set" in d.message


def test_changing_a_flags_mode_before_its_use_completed_is_an_error():
    res, _ = _run(bug="MODE_SWITCH")
    assert not res.ok, res.report()
    d = next(d for d in res.errors if d.rule == "cross-core-flag")
    assert d.line == _line("if (t + 2 < tiles) AscendC::CrossCoreSetFlag<2")
    assert "is set in mode 2" in d.message and "mode-1 use is not finished" in d.message


def test_flags_in_a_kernel_type_without_the_scheduler_are_an_error():
    res, _ = _run(source=SRC.replace("KERNEL_TYPE_MIX_AIC_1_2", "KERNEL_TYPE_AIV_ONLY"))
    assert not res.ok, res.report()
    assert "cross-core-flag" in _rules(res)
    assert "KERNEL_TYPE_MIX_AIC_1_2" in res.errors[0].message


def test_each_kind_of_core_has_only_its_own_memories():
    res, _ = _run(bug="UB_ON_AIC")
    assert not res.ok and "core-kind" in _rules(res), res.report()
    d = next(d for d in res.errors if d.rule == "core-kind")
    assert d.line == _line("cubePipe.InitBuffer(cubeUb, 1024);")
    assert "the AIC has no Unified Buffer" in d.message and "ASCEND_IS_AIV" in d.message


def _flag_all(skip: int):
    art = build_kernel(kernel_source("flag_all_vector.cpp"), "flag_all")
    blocks, n = 6, 64
    x = np.random.default_rng(2).standard_normal(blocks * n).astype(np.float32)
    res = run_kernel(art, [x, np.full(8, np.nan, np.float32), n, skip], block_dim=blocks,
                     workspace_bytes=blocks * 32, scratch=[("slots", 0, blocks * 32, 4)])
    return res, x


def test_mode_0_flags_meet_every_vector_core_of_the_launch():
    res, x = _flag_all(0)
    assert res.ok, res.report()
    assert res.outputs[1][0] == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-5, abs=1e-4)
    assert {c.kind for c in res.cost.per_core} == {"block"}      # one kind of core: not a mixed launch


def test_without_the_mode_0_flag_block_0_races_the_others_writes():
    res, _ = _flag_all(1)
    assert not res.ok and _rules(res) == ["scratch-race"], res.report()
    assert "no cross-core flag or barrier orders the two" in res.errors[0].message


def test_an_implicit_gemm_convolution_on_a_mixed_launch_matches_torch():
    """benchmarks/implicit_gemm/conv2d_s2d.cpp: the AIVs write a space-to-depth copy of the input, a
    barrier and a mode-2 flag hand it to the AICs, which accumulate nine tap products and the bias in
    L0C and Fixpipe each output row into y; 3 blocks over 2 images of 36 x 44 pixels (output rows and
    xs rows not a multiple of the blocks), float64 torch as the reference."""
    import importlib.util
    from pathlib import Path

    import torch
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("implicit_gemm_bench", root / "benchmarks" / "implicit_gemm_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    art = build_kernel((root / "benchmarks" / "implicit_gemm" / "conv2d_s2d.cpp").read_text(), "conv2d_s2d")
    rng = np.random.default_rng(1)
    n, h, w, co = 2, 36, 44, 32
    hs, ws, oh, ow = bench.shapes(n, h, w)
    x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
    weight = (rng.standard_normal((co, 3, 11, 11)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(co).astype(np.float32)
    wt, ba, ones = bench.pack(weight, bias, ow)
    res = run_kernel(art, [x, wt, ba, ones, np.full((n, co, oh, ow), np.nan, np.float32), None, n, h, w, co, 1],
                     block_dim=3, outputs=["y"], workspace_bytes=n * hs * ws * 48 * 4)
    assert res.ok, res.report()
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(weight).double(),
                                     torch.from_numpy(bias).double(), stride=4, padding=2).numpy()
    np.testing.assert_allclose(res.outputs[4], ref, rtol=1e-4, atol=1e-4)
