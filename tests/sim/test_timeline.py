"""The timeline export: run_kernel(trace=...) records, the Chrome trace JSON, the picture."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ascendcraft.chips import load_chip
from ascendcraft.sim import build_kernel, gm, run_kernel
from ascendcraft.sim.cost import PIPES
from ascendcraft.sim.timeline import (KERNEL_PID, TR_BARRIER, TR_INSTR, TR_SET, TR_WAIT, Roofline, Timeline,
                                      chrome_trace, draw_timeline, roofline_from_cost, write_chrome_trace)

from sim_helpers import kernel_source

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _add_src() -> str:
    return "#define BUFFER_NUM 2\n#define DTYPE_X float\n" + kernel_source("add_custom.cpp")


@pytest.fixture(scope="module")
def add_art():
    return build_kernel(_add_src(), "add_custom", tiling_header=kernel_source("add_custom_tiling.h"))


def _run_add(art, trace, *, blocks=4, tiles=2, cost_only=False):
    n = blocks * 256 * tiles * 2
    rng = np.random.default_rng(0)
    if cost_only:
        args = [gm(n, np.float32)] * 3
    else:
        args = [rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32),
                np.zeros(n, np.float32)]
    res = run_kernel(art, args, tiling={"totalLength": n, "tileNum": tiles}, block_dim=blocks, cost_only=cost_only,
                     trace=trace)
    assert res.ok, res.report()
    return res


def _x_events(doc):
    return [e for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] != KERNEL_PID]


def test_trace_records_every_instruction_on_its_pipe(add_art):
    res = _run_add(add_art, True)
    tl = res.timeline
    assert isinstance(tl, Timeline) and tl.dropped == 0
    assert [b.block for b in tl.blocks] == [0, 1, 2, 3]
    for b in tl.blocks:
        r = b.records
        assert len(r) > 0 and (r["start"] <= r["end"]).all() and (r["start"] >= 0).all()
        assert (r["kind"] == TR_INSTR).all()
        pipes = {PIPES[p] for p in r["pipe"]}
        assert pipes == {"MTE2", "V", "MTE3"}
        calls = {(tl.name(a), PIPES[p]) for a, p in zip(r["api"], r["pipe"])}
        assert calls == {("DataCopy", "MTE2"), ("Add", "V"), ("DataCopy", "MTE3")}
        assert {tl.name(f) for f in r["file"]} == {"kernel.cpp"} and (r["line"] > 0).all()
        # 2 tiles x 2 buffers: 4 x (two loads, one Add, one store)
        assert len(r) == 16
        # the records end within the block's modeled cycles
        assert r["end"].max() <= b.cycles
    # blocks are placed on physical cores as the cost model places them
    assert tl.physical_cores == res.cost.physical_cores == 4
    assert {b.core for b in tl.blocks} == {0, 1, 2, 3}


def test_trace_off_records_nothing(add_art):
    assert _run_add(add_art, False).timeline is None
    assert _run_add(add_art, 0).timeline is None


def test_trace_limit_drops_later_records(add_art):
    tl = _run_add(add_art, 5).timeline
    for b in tl.blocks:
        assert len(b.records) == 5 and b.dropped == 11
    assert tl.dropped == 44 and tl.limit == 5
    assert chrome_trace(tl)["otherData"]["dropped_records"] == 44


def test_cost_only_runs_trace_too(add_art):
    data, cost = _run_add(add_art, True), _run_add(add_art, True, cost_only=True)
    for a, b in zip(data.timeline.blocks, cost.timeline.blocks):
        np.testing.assert_array_equal(a.records, b.records)


def test_chrome_trace_structure(add_art, tmp_path):
    res = _run_add(add_art, True)
    doc = chrome_trace(res.timeline, source=_add_src(), name="add_custom")
    doc = json.loads(json.dumps(doc))   # plain JSON
    assert set(doc) >= {"traceEvents", "otherData"}
    meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert procs[KERNEL_PID] == "kernel (modeled)" and procs[1].startswith("core 0 (critical)")
    # Perfetto reserves pid/tid 0 for the idle task
    assert all(e.get("pid") != 0 and e.get("tid") != 0 for e in doc["traceEvents"])
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    # one track per core and pipe, named "core N / PIPE"
    for core in range(4):
        for pipe in ("MTE2", "V", "MTE3"):
            assert threads[(core + 1, PIPES.index(pipe) + 1)] == f"core {core} / {pipe}"
    xs = _x_events(doc)
    assert len(xs) == len(res.timeline) == 64
    for e in xs:
        assert set(e) >= {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"}
        assert e["dur"] >= 0 and e["name"] == e["args"]["call"] and e["cat"] == PIPES[e["tid"] - 1]
        assert e["args"]["line"].startswith("kernel.cpp:")
    adds = [e for e in xs if e["name"] == "Add"]
    assert adds and all(e["args"]["code"].startswith("AscendC::Add(") for e in adds)
    # the launch overhead comes first, every instruction lies within the modeled kernel time
    c = res.cost
    assert min(e["ts"] for e in xs) >= c.launch_us - 1e-6
    assert max(e["ts"] + e["dur"] for e in xs) <= c.time_us + 1e-3
    kernel = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == KERNEL_PID]
    assert [e["name"] for e in kernel] == ["launch overhead", "body"]
    assert kernel[1]["ts"] + kernel[1]["dur"] == pytest.approx(c.time_us, abs=1e-3)
    assert doc["otherData"]["modeled_time_us"] == pytest.approx(c.time_us)
    # cycles -> microseconds at the chip's clock
    rec = res.timeline.blocks[0].records[0]
    first = min((e for e in xs if e["pid"] == 1), key=lambda e: e["ts"])
    assert first["ts"] == pytest.approx(c.launch_us + rec["start"] / 1800.0, abs=1e-4)
    path = write_chrome_trace(res.timeline, tmp_path / "t.json")
    assert json.loads(path.read_text())["traceEvents"]


def test_chrome_trace_event_cap_keeps_the_slowest_cores_whole(add_art):
    tl = _run_add(add_art, True).timeline
    doc = chrome_trace(tl, max_events=40, kernel_file="ascendc/add.cpp")
    xs = _x_events(doc)
    assert len(xs) == 32 and len({e["pid"] for e in xs}) == 2
    assert len(doc["otherData"]["omitted_cores"]) == 2
    assert xs[0]["args"]["line"].startswith("ascendc/add.cpp:")


def test_sync_all_threads_and_flags_are_traced(rng):
    art = build_kernel(kernel_source("sum_all_sync.cpp"), "sum_all")
    blocks, per = 4, 256
    x = rng.standard_normal(blocks * per).astype(np.float32)
    res = run_kernel(art, [x, np.zeros(8, np.float32), per, -1], block_dim=blocks, workspace_bytes=blocks * 32,
                     trace=True)
    assert res.ok, res.report()
    tl = res.timeline
    assert sorted(b.block for b in tl.blocks) == list(range(blocks))
    b0 = tl.block(0).records
    assert set(b0["kind"].tolist()) == {TR_INSTR, TR_SET, TR_WAIT, TR_BARRIER}
    # each block's SyncAll: one barrier record on S, from its arrival to the release, the same for all
    barriers = [b.records[b.records["kind"] == TR_BARRIER] for b in tl.blocks]
    assert all(len(r) == 1 and r["pipe"][0] == PIPES.index("S") and r["start"][0] <= r["end"][0] for r in barriers)
    assert len({float(r["end"][0]) for r in barriers}) == 1
    assert max(float(r["start"][0]) for r in barriers) == pytest.approx(float(barriers[0]["end"][0]))
    flags = b0[(b0["kind"] == TR_SET) | (b0["kind"] == TR_WAIT)]
    assert (flags["start"] == flags["end"]).all()
    # the kernel's flags: MTE2_V and V_MTE3 pairs, named with their event
    assert {tl.name(a) for a in flags["api"]} == {"SetFlag<MTE2_V>", "WaitFlag<MTE2_V>", "SetFlag<V_MTE3>",
                                                 "WaitFlag<V_MTE3>"}
    doc = chrome_trace(tl)
    inst = [e for e in doc["traceEvents"] if e["ph"] == "i"]
    assert len(inst) == sum(int(np.isin(b.records["kind"], (TR_SET, TR_WAIT)).sum()) for b in tl.blocks)
    waits = [e for e in doc["traceEvents"] if e.get("cat") == "barrier"]
    assert len(waits) == blocks and all(e["ph"] == "X" and e["tid"] == PIPES.index("S") + 1 for e in waits)
    assert all(e["s"] == "t" and e["name"].split("<")[0] in ("SetFlag", "WaitFlag") and e["args"]["line"] for e in inst)
    # block 0 adds the partials after the barrier: it ends last
    assert tl.critical_core() == 0


def test_draw_timeline_writes_a_png(add_art, tmp_path):
    pytest.importorskip("matplotlib")
    res = _run_add(add_art, True)
    roof = roofline_from_cost(res.cost, load_chip("910B2"), floor_us=res.cost.roofline_us)
    assert roof.flops and roof.vector_gflops and roof.cube_gflops is None
    out = draw_timeline(res.timeline, tmp_path / "t.png", roofline=roof)
    assert out.read_bytes()[:8] == PNG_MAGIC
    # without an operation count: the bandwidth position only
    bw = Roofline(res.cost.time_us, res.cost.gm_bytes, 1600.0)
    assert draw_timeline(res.timeline, tmp_path / "b.png", roofline=bw).read_bytes()[:8] == PNG_MAGIC
    assert draw_timeline(res.timeline, tmp_path / "n.png", core=2).read_bytes()[:8] == PNG_MAGIC


def test_importing_the_package_does_not_import_matplotlib():
    import subprocess
    import sys
    code = "import sys, ascendcraft, ascendcraft.sim, ascendcraft.sim.timeline; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bad_trace_argument(add_art):
    from ascendcraft.errors import UserError
    with pytest.raises(UserError, match="trace="):
        _run_add(add_art, -3)


def test_a_body_longer_than_the_cores_pipes_is_drawn_and_explained(add_art):
    """When all cores' HBM traffic needs longer than the critical core's pipes (the model's floor),
    the picture runs to the body's end and says why, so no modeled time goes unshown."""
    pytest.importorskip("matplotlib")
    import dataclasses

    from matplotlib.figure import Figure

    from ascendcraft.sim.timeline import _draw_pipes
    tl = _run_add(add_art, True).timeline
    core = tl.critical_core()
    span = tl.core_end(core) / tl.freq_mhz
    for body, stretched in ((span, False), (span * 1.6, True)):
        ax = Figure().add_subplot(111)
        _draw_pipes(ax, dataclasses.replace(tl, body_us=body, time_us=body + tl.launch_us), core, None)
        title = ax.get_title(loc="left")
        assert ax.get_xlim()[1] >= body and ("HBM traffic (shaded)" in title) is stretched
        assert (ax.get_xlim()[1] < span * 1.2) is not stretched
