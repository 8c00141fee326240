"""Cost model constants and the whole-kernel aggregation of per-core timelines.

Per core, the C++ side keeps an event timeline over the pipes (S, V, M, MTE1, MTE2, MTE3,
FIX) plus a per-core share of HBM bandwidth; instructions start when their pipe is free,
when they have been issued by the scalar unit, and when the buffers they read were written
(RAW) / the buffers they write were last used (WAR) -- the ordering that TQue
EnQue/DeQue/AllocTensor/FreeTensor enforce on hardware, so double buffering shows up as
overlap.  SetFlag/WaitFlag and PipeBarrier<PIPE_ALL> add their own constraints.

This module turns the per-block results into a kernel time: blocks are placed on the
physical cores round-robin (waves), the slowest core sets the body time, total GM traffic
over the chip's HBM bandwidth is a floor, and the launch overhead is added.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..chips import Chip

# Constants that no public document gives directly.  They are modelling choices, kept small
# and named so the docs can list them (docs/simulator.md, "Cost model").
COST_CONSTANTS: dict[str, float] = {
    # scalar-unit cycles to issue one AscendC API call (address arithmetic, parameter setup)
    "issue_cycles": 10.0,
    # fixed cycles per MTE transfer (descriptor setup, first burst); the docs say transfers of
    # >= 16 KB reach peak bandwidth, which this overhead roughly reproduces (16 KB: ~93 %)
    "mte_overhead": 40.0,
    # fixed cycles per vector instruction (pipeline fill)
    "vec_overhead": 8.0,
    # scalar pipe cycles for LocalTensor GetValue/SetValue and GlobalTensor GetValue/SetValue
    "scalar_ub_cycles": 2.0,
    "scalar_gm_cycles": 200.0,
    # cycles per 256-byte repeat for Exp/Ln/Sqrt/Rsqrt/Reciprocal/Div (others: 1)
    "transcendental_cpr": 2.0,
    # fixed cycles per cube-side instruction (MTE1 load, Mmad, Fixpipe)
    "cube_overhead": 16.0,
    # cycles from the end of a GM->UB/L1 transfer's bandwidth slot until its data can be used
    # (DRAM round trip; not occupying the pipe, so several transfers in flight hide it -- which
    # is what double buffering buys on a bandwidth-bound kernel). No public figure: ~0.55 us.
    "gm_latency": 1000.0,
    # bytes/cycle per core for re-reads that hit L2 (Matmul base tiles loaded a second time);
    # CANN 8.1 platform_config Ascend910B*.ini [AICoreMemoryRates] l2_rate=110.  Not a chip
    # profile field yet, so it lives here.
    "l2_bpc": 110.0,
}

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "HBM")


# Cube MACs per cycle relative to fp16: the cube consumes one 512-byte fractal per operand per
# step, 16 x 16 for 2-byte types, 16 x 8 for fp32 (half the K depth) and 16 x 32 for int8
# (ascendc_api.md sections 4.2 and 7.1). The simulator's Matmul cost uses the same factor.
CUBE_RATE = {"f16": 1.0, "bf16": 1.0, "f32": 0.5, "i8": 2.0}


def chip_config(chip: Chip) -> dict[str, float | str]:
    """The key/value pairs the C++ harness reads (``cfg <key> <value>`` lines)."""
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
        "l2_bytes": chip.l2_bytes,
        "max_buf_per_pos": chip.max_buffers_per_position,
        "max_buffers": chip.max_buffers,
        "data_copy_pad": int(chip.data_copy_pad),
        "bf16": int(chip.bf16),
        **COST_CONSTANTS,
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
    hbm_roofline_us: float  # gm_bytes / HBM bandwidth (no launch overhead)
    cube_roofline_us: float  # cube MACs / (AIC cores x 16x16x16 per cycle), fp16 rate
    roofline_us: float  # launch + the larger of the two floors
    per_core: list[CoreCost] = field(default_factory=list)

    def summary(self) -> str:
        busy = ", ".join(f"{k}={v:.1f}" for k, v in self.pipe_busy_us.items() if v > 0)
        return (f"{self.time_us:.1f} us on {self.chip} ({self.block_dim} blocks on {self.physical_cores} cores), "
                f"{self.bound}-bound; body {self.body_us:.1f} us + launch {self.launch_us:.1f} us; "
                f"roofline {self.roofline_us:.1f} us (HBM {self.hbm_roofline_us:.1f}, cube {self.cube_roofline_us:.1f}); "
                f"critical-core busy us: {busy}")


def aggregate(cores: list[CoreCost], chip: Chip, block_dim: int) -> CostReport:
    freq_hz = chip.freq_mhz * 1e6
    uses_cube = any(c.cube_macs for c in cores)
    physical = chip.aic_cores if uses_cube else chip.aiv_cores
    physical = max(1, min(physical, block_dim))
    per_phys = [0.0] * physical
    members: list[list[CoreCost]] = [[] for _ in range(physical)]
    for c in cores:
        k = c.block % physical
        per_phys[k] += c.cycles
        members[k].append(c)
    crit = max(range(physical), key=lambda i: per_phys[i]) if cores else 0
    crit_busy = {p: 0.0 for p in PIPES}
    for c in members[crit] if cores else []:
        for p in PIPES:
            crit_busy[p] += c.busy_cycles.get(p, 0.0)
    total_busy = {p: sum(c.busy_cycles.get(p, 0.0) for c in cores) / freq_hz * 1e6 for p in PIPES}
    gm_bytes = sum(c.gm_read + c.gm_write for c in cores)
    hbm_us = gm_bytes / (chip.hbm_gbps * 1e9) * 1e6
    body_us = max(max(per_phys) / freq_hz * 1e6 if cores else 0.0, hbm_us)
    launch_us = chip.launch_overhead_us
    candidates = {
        "hbm": max(crit_busy["HBM"], crit_busy["MTE2"], crit_busy["MTE3"]),
        "vector": crit_busy["V"],
        "cube": max(crit_busy["M"], crit_busy["MTE1"], crit_busy["FIX"]),
        "scalar": crit_busy["S"],
    }
    bound = max(candidates, key=lambda k: candidates[k])
    if bound == "hbm" and crit_busy["MTE2"] > 1.5 * crit_busy["HBM"] and crit_busy["MTE2"] >= crit_busy["MTE3"]:
        bound = "l2"   # the copy-in pipe is busy with L2 hits (e.g. Matmul base tiles read again)
    cube_us = sum(c.cube_macs for c in cores) / (chip.aic_cores * chip.cube_macs_per_cycle * freq_hz) * 1e6
    if launch_us >= body_us:
        bound = "launch"
    return CostReport(
        chip=chip.name, block_dim=block_dim, physical_cores=physical, time_us=launch_us + body_us,
        body_us=body_us, launch_us=launch_us, bound=bound,
        pipe_busy_us={p: v / freq_hz * 1e6 for p, v in crit_busy.items()},
        total_busy_us=total_busy, gm_bytes=gm_bytes, hbm_roofline_us=hbm_us, cube_roofline_us=cube_us,
        roofline_us=launch_us + max(hbm_us, cube_us), per_core=cores,
    )
