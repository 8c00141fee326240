"""The cost model's constants: in every chip profile with a source, sent to the harness, and
each one moving a modeled time the way it should when it is overridden."""
from __future__ import annotations

import copy
import json
import math
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from ascendcraft.chips import COST_KEYS, ESTIMATE, ChipProfileError, chip_names, load_chip, parse_chip
from ascendcraft.errors import UserError
from ascendcraft.sim import COST_CONSTANTS, build_kernel, gm, run_kernel
from ascendcraft.sim.cost import PIPES, CoreCost, aggregate, chip_config, cost_overrides

from sim_helpers import READ_TWICE, kernel_source

HARNESS = Path(__file__).resolve().parents[2] / "ascendcraft" / "sim" / "harness_main.cpp"
RATES = {"l2_bpc", "hbm_achievable_gbps"}   # bigger is faster; every other constant is a cost


def _raw_profile(name: str) -> dict:
    return json.loads((resources.files("ascendcraft") / "data" / "chips" / f"{name}.json").read_text())


# ---------------------------------------------------------------- the profiles

@pytest.mark.parametrize("name", chip_names())
def test_every_profile_gives_every_constant_a_value_and_a_source(name):
    cost = _raw_profile(name)["cost"]
    assert sorted(cost) == sorted(COST_KEYS)
    for key, entry in cost.items():
        assert set(entry) == {"value", "source"}, key
        assert isinstance(entry["value"], (int, float)) and math.isfinite(entry["value"]), key
        source = entry["source"].strip()
        assert source, key
        if source.startswith(ESTIMATE):
            assert len(source) > len(ESTIMATE) + 20, f"{key}: an estimate states its reasoning"


@pytest.mark.parametrize("name", chip_names())
def test_achievable_hbm_bandwidth_is_below_the_nominal_one(name):
    chip = load_chip(name)
    assert 0.5 * chip.hbm_gbps < chip.hbm_achievable_gbps < chip.hbm_gbps


def test_the_910b2_bandwidth_is_a_measurement_and_the_l2_rate_is_the_ini_figure():
    cost = load_chip("910B2").cost
    assert not cost.hbm_achievable_gbps.is_estimate and "184.369" in cost.hbm_achievable_gbps.source
    assert not cost.l2_bpc.is_estimate and "l2_rate=110" in cost.l2_bpc.source
    assert cost.gm_latency.is_estimate


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["cost"].pop("gm_latency"), "missing: gm_latency"),
    (lambda d: d["cost"].update(dram_latency={"value": 1, "source": "x"}), "unknown: dram_latency"),
    (lambda d: d.update(hbm_gbs=1.0), "unknown: hbm_gbs"),
    (lambda d: d.pop("cost"), "missing: cost"),
    (lambda d: d["cost"]["l2_bpc"].update(source=" "), "cost.l2_bpc"),
    (lambda d: d["cost"]["l2_bpc"].update(source="estimate:"), "cost.l2_bpc"),
    (lambda d: d["cost"]["l2_bpc"].update(value=0), "cost.l2_bpc"),
    (lambda d: d["cost"]["gm_latency"].update(value="1000"), "cost.gm_latency"),
    (lambda d: d["cost"]["gm_latency"].pop("source"), "cost.gm_latency"),
    (lambda d: d["cost"]["hbm_achievable_gbps"].update(value=2000), "above the nominal"),
])
def test_a_malformed_profile_is_an_error_naming_the_key(edit, words):
    data = copy.deepcopy(_raw_profile("910B2"))
    edit(data)
    with pytest.raises(ChipProfileError, match=re.escape(words)):
        parse_chip(data, "910B2.json")


def test_the_compatibility_name_is_the_default_chips_values_and_read_only():
    assert dict(COST_CONSTANTS) == load_chip("910B2").cost.values()
    with pytest.raises(TypeError):
        COST_CONSTANTS["gm_latency"] = 0   # type: ignore[index]


# ---------------------------------------------------------------- what the harness receives

@pytest.mark.parametrize("name", chip_names())
def test_chip_config_sends_every_constant(name):
    chip = load_chip(name)
    cfg = chip_config(chip)
    for key in COST_KEYS:
        assert cfg[key] == getattr(chip.cost, key).value
    assert cfg["hbm_gbps"] == chip.hbm_gbps   # the nominal figure goes too, for reports


def test_the_harness_reads_every_key_chip_config_sends():
    """set_cfg ignores keys it does not know, so a constant it misses would silently keep its default."""
    parsed = set(re.findall(r'k == "(\w+)"', HARNESS.read_text()))
    assert set(chip_config(load_chip("910B2"))) - parsed == set()


def test_overrides_replace_constants_for_one_config_or_a_block():
    chip = load_chip("910B2")
    assert chip_config(chip, {"gm_latency": 5})["gm_latency"] == 5
    with cost_overrides({"gm_latency": 7, "l2_bpc": 55}):
        assert chip_config(chip)["gm_latency"] == 7
        assert chip_config(chip, {"gm_latency": 9})["gm_latency"] == 9   # the explicit mapping wins
        with cost_overrides({"gm_latency": 3}):
            assert (chip_config(chip)["gm_latency"], chip_config(chip)["l2_bpc"]) == (3, 55)
    assert chip_config(chip) == chip_config(load_chip("910B2"), {}) and chip_config(chip)["gm_latency"] == 1000
    with pytest.raises(UserError, match="gm_latenzy"):
        chip_config(chip, {"gm_latenzy": 1})
    with pytest.raises(UserError, match="gm_latenzy"), cost_overrides({"gm_latenzy": 1}):
        pass


def test_the_kernel_floor_is_the_achievable_bandwidth_and_the_roofline_the_nominal_one():
    chip = load_chip("910B2")
    moved = 1 << 30
    c = aggregate([CoreCost(0, 1.0, {p: 0.0 for p in PIPES}, moved, 0, 1, 0, 0)], chip, 1)
    assert c.hbm_roofline_us == pytest.approx(moved / (chip.hbm_gbps * 1e3))
    assert c.body_us == pytest.approx(moved / (chip.hbm_achievable_gbps * 1e3))
    with cost_overrides({"hbm_achievable_gbps": chip.hbm_achievable_gbps / 2}):
        slower = aggregate([CoreCost(0, 1.0, {p: 0.0 for p in PIPES}, moved, 0, 1, 0, 0)], chip, 1)
    assert slower.body_us == pytest.approx(2 * c.body_us)
    assert slower.hbm_roofline_us == c.hbm_roofline_us


# ---------------------------------------------------------------- overrides move modeled times

# One block that touches every vector-side constant on its critical path: a scalar GM read, a
# copy-in, a re-read of the same bytes (an L2 hit), Exp and Add, scalar UB accesses and a
# copy-out, with a full barrier between the steps so that none of them overlaps another.
_TOUCH_ALL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void touch_all(GM_ADDR x, GM_ADDR y)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * 32768);
    AscendC::LocalTensor<float> a = buf.Get<float>();
    AscendC::LocalTensor<float> b = a[8192];
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x);
    yGm.SetGlobalBuffer((__gm__ float *)y);
    float s = xGm.GetValue(0);
    AscendC::DataCopy(a, xGm, 8192);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(b, xGm, 8192);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Exp(a, a, 8192);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Add(a, a, b, 8192);
    AscendC::PipeBarrier<PIPE_ALL>();
    float v = a.GetValue(0);
    a.SetValue(1, v + s);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, a, 8192);
}
"""


def _touch_all_us() -> float:
    res = run_kernel(build_kernel(_TOUCH_ALL, "touch_all"), [gm(8192, np.float32), gm(8192, np.float32)],
                     block_dim=1, cost_only=True)
    assert res.ok, res.report()
    return res.cost.body_us


def _mmad_us() -> float:
    m, k, n = 64, 96, 80
    res = run_kernel(build_kernel(kernel_source("mmad_lowlevel.cpp"), "mmad_queue"),
                     [gm((m, k), np.float16), gm((k, n), np.float16), gm((m, n), np.float32), m, k, n],
                     block_dim=1, cost_only=True)
    assert res.ok, res.report()
    return res.cost.body_us


@pytest.mark.parametrize("key", [k for k in COST_KEYS if k != "cube_overhead"])
def test_a_costlier_constant_makes_the_vector_kernel_slower(key):
    base = _touch_all_us()
    # one core alone gets all of the HBM bandwidth, 811 B/cycle, far above its 32 B/cycle copy
    # pipe: a rate binds only when it is cut well below that
    worse = load_chip("910B2").cost.values()[key] * (1 / 64 if key in RATES else 4)
    with cost_overrides({key: worse}):
        assert _touch_all_us() > base * 1.001


def test_a_costlier_cube_overhead_makes_the_cube_kernel_slower():
    base = _mmad_us()
    with cost_overrides({"cube_overhead": 64}):
        assert _mmad_us() > base * 1.001




@pytest.mark.parametrize("l2_bpc, mte_overhead", [(110.0, 40.0), (55.0, 40.0), (110.0, 100.0)])
def test_the_harness_uses_the_overridden_values_exactly(l2_bpc, mte_overhead):
    """An L2 re-read costs mte_overhead + bytes / l2_bpc of MTE2 time, with the values sent."""
    art = build_kernel("#define SECOND 0\n" + READ_TWICE, "read_twice")
    with cost_overrides({"l2_bpc": l2_bpc, "mte_overhead": mte_overhead}):
        res = run_kernel(art, [gm(16384, np.float32), gm(1, np.float32)], block_dim=1, cost_only=True)
    assert res.ok, res.report()
    mte2 = 32   # the 910B2 ini's ddr_rate, bytes/cycle
    expected = 2 * mte_overhead + 65536 / mte2 + 65536 / l2_bpc
    assert res.cost.per_core[0].busy_cycles["MTE2"] == pytest.approx(expected, abs=0.1)


@pytest.mark.parametrize("gbps", [1460.0, 730.0])
def test_a_cores_hbm_share_is_the_achievable_bandwidth(gbps):
    """hbm_bytes_per_cycle (core.h) divides the achievable figure, not the nominal one, among the cores."""
    art = build_kernel("#define SECOND 0\n" + READ_TWICE, "read_twice")
    with cost_overrides({"hbm_achievable_gbps": gbps}):
        res = run_kernel(art, [gm(16384, np.float32), gm(1, np.float32)], block_dim=1, cost_only=True)
    assert res.ok, res.report()
    core = res.cost.per_core[0]
    assert core.gm_read == 65536                       # the second read is an L2 hit
    bytes_per_cycle = gbps * 1e9 / (load_chip("910B2").freq_mhz * 1e6)
    assert core.busy_cycles["HBM"] == pytest.approx(65536 / bytes_per_cycle, abs=0.1)
