"""Cube: how a product's C is cut over the cube cores (a grid of blocks, and K slices when C has too
few blocks), chosen at the op's real shapes by the time the simulator's Matmul cost would charge."""
from __future__ import annotations


def block_extent(extent: int, parts: int) -> int:
    """One core's share of an axis: cdiv(extent, parts) rounded up to the cube's 16 (the C++ and
    DSL forms compute the same: cdiv(cdiv(extent, parts), 16) * 16)."""
    share = -(-extent // parts)
    return -(-share // 16) * 16


def choose_grid(rows: int, cols: int, cores: int, base: tuple[int, int], macs_per_cycle: float,
                elem_bytes: int, l2_bytes_per_cycle: float, batches: int = 1) -> tuple[int, int]:
    """(GM, GN) with GM * GN <= cores whose largest block takes the least time per K element.
    With batches, the batches * GM * GN blocks are spread over the cores: the busiest core runs
    cdiv(batches * GM * GN, cores) of them, which the choice minimises instead.

    The Matmul API walks a block in base blocks; each costs the larger of its cube time
    (16-aligned m x n MACs) and its operand stream (m + n elements from L2), which is what the
    simulator's Matmul cost charges (ascendcraft/sim/include/asc_sim/matmul.h)."""
    return _timed_grid(rows, cols, cores, base, macs_per_cycle, elem_bytes, l2_bytes_per_cycle, batches)[1]


def _timed_grid(rows, cols, cores, base, macs_per_cycle, elem_bytes, l2_bytes_per_cycle, batches=1):
    """(cycles per K element of the busiest core, (GM, GN)) of choose_grid's choice."""
    def parts(extent, step):
        return [step] * (extent // step) + ([extent % step] if extent % step else [])

    def c16(v):
        return -(-v // 16) * 16

    def block_time(sm, sn):
        return sum(max(c16(m) * c16(n) / macs_per_cycle, (m + n) * elem_bytes / l2_bytes_per_cycle)
                   for m in parts(sm, base[0]) for n in parts(sn, base[1]))
    best = None
    for gm in range(1, cores + 1):
        for gn in ([cores // gm] if batches == 1 else range(1, cores // gm + 1)):
            per_core = -(-batches * gm * gn // cores)
            # ties: fewer blocks with batches (less re-streaming); the unbatched grid fills the cores
            key = (per_core * block_time(block_extent(rows, gm), block_extent(cols, gn)),
                   gm * gn if batches > 1 else 0, gm)
            if best is None or key < best[0]:
                best = (key, (gm, gn))
    return best[0][0], best[1]


#: cycles a K split costs beyond its cube work: C's zeroing phase and the barrier after it
#: (a phase's start and a SyncAll, a few microseconds at 1.8 GHz)
SPLIT_K_OVERHEAD_CYCLES = 6000


def choose_k_split(rows: int, cols: int, k: int, cores: int, base: tuple[int, int], depth: int,
                   macs_per_cycle: float, elem_bytes: int, l2_bytes_per_cycle: float,
                   hbm_bytes_per_cycle: float) -> tuple[int, int, int]:
    """(GM, GN, GK): C's grid of blocks and the slices of K each block is cut into, every (block,
    slice) on a core of its own. A split lets the blocks be larger (fewer, squarer blocks stream
    fewer operand bytes per MAC from L2) or lets a C of few blocks use every core; it costs C's
    zeroing, an atomic add of each slice's partial block (C crosses HBM GK + 1 times) and a barrier.
    GK = 1 (no split) unless that is modelled faster; slices stay at least 8 base depths deep."""
    best = None
    for gk in range(1, cores + 1):
        if gk > 1 and k // gk < 8 * depth:
            break
        per_k, (gm, gn) = _timed_grid(rows, cols, cores // gk, base, macs_per_cycle, elem_bytes,
                                      l2_bytes_per_cycle)
        cycles = per_k * -(-k // gk)
        if gk > 1:
            cycles += SPLIT_K_OVERHEAD_CYCLES + (gk + 1) * rows * cols * 4 / hbm_bytes_per_cycle
        if best is None or cycles < best[0]:
            best = (cycles, (gm, gn, gk))
    return best[1]


def hbm_bytes_per_cycle(chip) -> float:
    """The HBM bandwidth the simulator models, in bytes per cycle of the chip's clock."""
    return chip.hbm_achievable_gbps * 1e9 / (chip.freq_mhz * 1e6)
