"""Cost model constants and the whole-kernel aggregation of per-core timelines.

Per core, the C++ side keeps an event timeline over the pipes (S, V, M, MTE1, MTE2, MTE3,
FIX, and AIC_MTE2, the cube core's copy-in pipe the Matmul API's operand loads take) plus a per-core
share of HBM bandwidth: each pipe runs its instructions in issue order,
and only events order one pipe against another (the flags of TQue EnQue/DeQue/AllocTensor/
FreeTensor, SetFlag/WaitFlag, PipeBarrier<PIPE_ALL>, SyncAll, the scalar unit's waits), so
double buffering overlaps exactly as far as the kernel's events allow (docs/simulator.md,
"Events").

This module turns the per-block results into a kernel time: blocks are placed on the
physical cores round-robin (waves), the slowest core sets the body time, total GM traffic
over the chip's *achievable* HBM bandwidth is a floor, and the launch overhead is added.  The
reported HBM roofline stays the nominal bandwidth's, so efficiencies are against the data sheet.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType

from ..chips import DEFAULT_CHIP, Chip, check_cost_keys, load_chip

# The cost model's constants live in the chip profiles (data/chips/<chip>.json, "cost"), each
# with its source or "estimate: <reasoning>" (docs/simulator.md, "Constants and their sources").
# This read-only view of the default chip's values is kept for code that has no chip at hand;
# it is read-only because changing it would change no model run (use cost_overrides()).
COST_CONSTANTS: Mapping[str, float] = MappingProxyType(load_chip(DEFAULT_CHIP).cost.values())

# Overrides active in this context (cost_overrides()); a ContextVar so that concurrent runs in
# other threads or tasks keep the profile's values.
_OVERRIDES: ContextVar[Mapping[str, float]] = ContextVar("ascendcraft_cost_overrides", default=MappingProxyType({}))


@contextmanager
def cost_overrides(values: Mapping[str, float]) -> Iterator[None]:
    """Within the block, every simulator run (``run_kernel``, and so ``lower``) models with these
    constants instead of the chip profile's: for sensitivity studies (benchmarks/sensitivity.py),
    where the callers in between take no override argument. Nested blocks combine."""
    check_cost_keys(values)
    token = _OVERRIDES.set(MappingProxyType({**_OVERRIDES.get(), **values}))
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def model_chip(chip: Chip, overrides: Mapping[str, float] | None = None) -> Chip:
    """The chip as the model sees it: its profile, then the active cost_overrides(), then ``overrides``."""
    return chip.with_costs({**_OVERRIDES.get(), **(overrides or {})})


PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "AIC_MTE2", "HBM")


# Cube MACs per cycle relative to fp16: the cube consumes one 512-byte fractal per operand per
# step, 16 x 16 for 2-byte types, 16 x 8 for fp32 (half the K depth) and 16 x 32 for int8
# (ascendc_api.md sections 4.2 and 7.1). The simulator's Matmul cost uses the same factor.
CUBE_RATE = {"f16": 1.0, "bf16": 1.0, "f32": 0.5, "i8": 2.0}


def chip_config(chip: Chip, overrides: Mapping[str, float] | None = None) -> dict[str, float | str]:
    """The key/value pairs the C++ harness reads (``cfg <key> <value>`` lines). ``overrides``
    replaces cost-model constants for this run (on top of any active cost_overrides())."""
    chip = model_chip(chip, overrides)
    return {
        "chip": chip.name,
        "ub_bytes": chip.ub_bytes,
        "l1_bytes": chip.l1_bytes,
        "l0a_bytes": chip.l0a_bytes,
        "l0b_bytes": chip.l0b_bytes,
        "l0c_bytes": chip.l0c_bytes,
        "freq_mhz": chip.freq_mhz,
        "hbm_gbps": chip.hbm_gbps,
        "mte2_bpc": chip.mte2_bytes_per_cycle,
        "mte3_bpc": chip.mte3_bytes_per_cycle,
        "l1_l0a_bpc": chip.l1_to_l0a_bytes_per_cycle,
        "l1_l0b_bpc": chip.l1_to_l0b_bytes_per_cycle,
        "l0c_out_bpc": chip.l0c_to_out_bytes_per_cycle,
        "vec_bpc": chip.vector_bytes_per_cycle,
        "cube_macs": chip.cube_macs_per_cycle,
        "cores": chip.aiv_cores,
        "aic_cores": chip.aic_cores,
        "l2_bytes": chip.l2_bytes,
        "max_buf_per_pos": chip.max_buffers_per_position,
        "max_buffers": chip.max_buffers,
        "data_copy_pad": int(chip.data_copy_pad),
        "bf16": int(chip.bf16),
        **chip.cost.values(),   # issue_cycles ... gm_latency, l2_bpc, hbm_achievable_gbps
    }


@dataclass
class CoreCost:
    block: int
    cycles: float
    busy_cycles: dict[str, float]
    gm_read: int
    gm_write: int
    instructions: int
    vector_elements: int
    cube_macs: int
    kind: str = "block"   # "block" (a one-kind launch), "aic" or "aiv" (a core of a mixed launch)


@dataclass
class CostReport:
    chip: str
    block_dim: int
    physical_cores: int
    time_us: float
    body_us: float
    launch_us: float
    bound: str  # "hbm" | "l2" | "vector" | "cube" | "scalar" | "launch"
    pipe_busy_us: dict[str, float]  # on the critical (slowest) core
    total_busy_us: dict[str, float]  # summed over all blocks
    gm_bytes: int
    hbm_roofline_us: float  # gm_bytes / nominal HBM bandwidth (no launch overhead)
    cube_roofline_us: float  # cube MACs / (AIC cores x 16x16x16 per cycle), fp16 rate
    roofline_us: float  # launch + the larger of the two floors
    per_core: list[CoreCost] = field(default_factory=list)
    core_of: list[int] = field(default_factory=list)   # per per_core entry, the physical core it ran on

    def summary(self) -> str:
        busy = ", ".join(f"{k}={v:.1f}" for k, v in self.pipe_busy_us.items() if v > 0)
        return (f"{self.time_us:.1f} us on {self.chip} ({self.block_dim} blocks on {self.physical_cores} cores), "
                f"{self.bound}-bound; body {self.body_us:.1f} us + launch {self.launch_us:.1f} us; "
                f"roofline {self.roofline_us:.1f} us (HBM {self.hbm_roofline_us:.1f}, cube {self.cube_roofline_us:.1f}); "
                f"critical-core busy us: {busy}")


def _placement(cores: list[CoreCost], chip: Chip, block_dim: int) -> tuple[list, dict]:
    """The physical cores the run's cores go to, round-robin (waves): the blocks of a one-kind
    launch on the AIC cores if any uses the cube, else on the AIV cores; in a mixed launch each
    AIC on an AIC core and each AIV on an AIV core (cross.h; a Matmul-API kernel on every AIV runs
    no AIC of its own). Returns the slots (is_aic, index)
    and the number of physical cores per kind."""
    if any(c.kind != "block" for c in cores):
        # a Matmul-API kernel on both AIVs of each block has no AIC of its own (the cube is inside
        # the AIV that drives it): no AIC slots
        aics = min(chip.aic_cores, block_dim) if any(c.kind == "aic" for c in cores) else 0
        aivs = max(1, min(chip.aiv_cores, sum(c.kind == "aiv" for c in cores)))
        return [(True, i) for i in range(aics)] + [(False, i) for i in range(aivs)], {True: aics, False: aivs}
    uses_cube = any(c.cube_macs for c in cores)
    n = max(1, min(chip.aic_cores if uses_cube else chip.aiv_cores, block_dim))
    return [(False, i) for i in range(n)], {False: n, True: n}


def aggregate(cores: list[CoreCost], chip: Chip, block_dim: int) -> CostReport:
    chip = model_chip(chip)
    freq_hz = chip.freq_mhz * 1e6
    slots, physical = _placement(cores, chip, block_dim)
    per_phys = [0.0] * len(slots)
    members: list[list[CoreCost]] = [[] for _ in slots]
    slot_of = {slot: i for i, slot in enumerate(slots)}
    core_of = []
    for c in cores:
        k = slot_of[(c.kind == "aic", c.block % physical[c.kind == "aic"])]
        core_of.append(k)
        per_phys[k] += c.cycles
        members[k].append(c)
    physical = len(slots)
    crit = max(range(physical), key=lambda i: per_phys[i]) if cores else 0
    crit_busy = {p: 0.0 for p in PIPES}
    for c in members[crit] if cores else []:
        for p in PIPES:
            crit_busy[p] += c.busy_cycles.get(p, 0.0)
    total_busy = {p: sum(c.busy_cycles.get(p, 0.0) for c in cores) / freq_hz * 1e6 for p in PIPES}
    gm_bytes = sum(c.gm_read + c.gm_write for c in cores)
    hbm_us = gm_bytes / (chip.hbm_gbps * 1e9) * 1e6   # nominal: what efficiencies are reported against
    # the model's own ceiling is the bandwidth kernels reach, as for each core's share (core.h)
    floor_us = gm_bytes / (chip.hbm_achievable_gbps * 1e9) * 1e6
    body_us = max(max(per_phys) / freq_hz * 1e6 if cores else 0.0, floor_us)
    launch_us = chip.launch_overhead_us
    candidates = {
        "hbm": max(crit_busy["HBM"], crit_busy["MTE2"], crit_busy["AIC_MTE2"], crit_busy["MTE3"]),
        "vector": crit_busy["V"],
        "cube": max(crit_busy["M"], crit_busy["MTE1"], crit_busy["FIX"]),
        "scalar": crit_busy["S"],
    }
    bound = max(candidates, key=lambda k: candidates[k])
    copy_in = max(crit_busy["MTE2"], crit_busy["AIC_MTE2"])
    if bound == "hbm" and copy_in > 1.5 * crit_busy["HBM"] and copy_in >= crit_busy["MTE3"]:
        bound = "l2"   # the copy-in pipe is busy with L2 hits (e.g. Matmul base tiles read again)
    cube_us = sum(c.cube_macs for c in cores) / (chip.aic_cores * chip.cube_macs_per_cycle * freq_hz) * 1e6
    if launch_us >= body_us:
        bound = "launch"
    return CostReport(
        chip=chip.name, block_dim=block_dim, physical_cores=physical, time_us=launch_us + body_us,
        body_us=body_us, launch_us=launch_us, bound=bound,
        pipe_busy_us={p: v / freq_hz * 1e6 for p, v in crit_busy.items()},
        total_busy_us=total_busy, gm_bytes=gm_bytes, hbm_roofline_us=hbm_us, cube_roofline_us=cube_us,
        roofline_us=launch_us + max(hbm_us, cube_us), per_core=cores, core_of=core_of,
    )
