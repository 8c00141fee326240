"""Deepen: small tiles' input queues get the slots that hide the GM read latency.

A GM read's data arrives ``gm_latency`` cycles after its copy is issued. With two slots per
queue, a loop has at most two iterations' copies in flight, so a loop that loads a few KiB per
iteration (a row of 512 floats and its mask) waits out most of that latency on every tile: it
moves ``2 * bytes / latency`` per cycle, a fraction of its core's share of the HBM bandwidth.
The number of bytes that must be in flight to draw the whole share is latency x share
(about 17 KiB on the 910B2: 1,000 cycles at 1,460 GB/s over 48 cores at 1.8 GHz), so each
``vecin`` queue of a loop gets ``ceil(latency x share / bytes per iteration) + 1`` slots, as
many as the chip's per-position limit (8 on A2/A3: one event ID per live buffer), the 64-buffer
limit and the UB at every shape set allow; slots are handed out one at a time, the queues of the
smallest loads first, so the queues of one loop grow together. A loop that loads 17 KiB or more
per iteration keeps two.

Before::

    buffer qin0: vecin f32[_n3] * 2
    buffer qin1: vecin bool[_n5] * 2

After (a 2 KiB row and its 512-byte mask per iteration)::

    buffer qin0: vecin f32[_n3] * 4
    buffer qin1: vecin bool[_n5] * 4

A queue's slots are taken in turn (``AllocTensor`` waits for the ``FreeTensor`` of the tile that
held the slot ``depth`` iterations before), so the program means the same at every depth: the
interpreter checks it like every level. Output queues keep their depth: a copy-out has no read
latency to hide.

Establishes: loads of small tiles keep enough copies in flight to cover the GM latency.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.check_lowered import SCALAR_RESERVE

from .base import LoweringPass
from .pipeline import buffers_bytes, shape_set_values, slot_bytes


@dataclass(frozen=True)
class Deepen(LoweringPass):
    name: str = "deepen"
    establishes: tuple[str, ...] = ("loads of small tiles keep enough copies in flight to cover the GM latency",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        decls = {s.name: s for s in kernel.body if isinstance(s, A.Buffer)}
        queues = {n for n, b in decls.items() if b.type.space == "vecin" and b.depth >= 2}
        budgets = shape_set_values(kernel, ctx)
        real = budgets[0]
        per_loop = _bytes_per_iteration(kernel.body, queues, lambda q: slot_bytes(decls[q].type, real))
        if not per_loop:
            return kernel
        in_flight = in_flight_bytes(ctx.chip)
        want: dict[str, int] = {}
        for loaded, loaded_bytes in per_loop:
            depth = min(ctx.chip.max_buffers_per_position, math.ceil(in_flight / max(loaded_bytes, 1)) + 1)
            for q in loaded:        # a queue loaded in several loops takes the shallowest need
                want[q] = min(want.get(q, depth), depth)
        depth = {n: b.depth for n, b in decls.items()}
        room = ctx.chip.capacity("ub") - SCALAR_RESERVE
        used = [buffers_bytes(decls.values(), v) for v in budgets]
        vecin = sum(d for n, d in depth.items() if decls[n].type.space == "vecin")
        slots = sum(depth.values())
        grown = True
        while grown:                # one slot at a time, the smallest slots first
            grown = False
            for q in sorted((q for q in want if depth[q] < want[q]), key=lambda q: slot_bytes(decls[q].type, real)):
                extra = [slot_bytes(decls[q].type, v) for v in budgets]
                if vecin + 1 > ctx.chip.max_buffers_per_position or slots + 1 > ctx.chip.max_buffers or \
                        any(u + e > room for u, e in zip(used, extra)):
                    continue
                depth[q] += 1
                vecin, slots, grown = vecin + 1, slots + 1, True
                used = [u + e for u, e in zip(used, extra)]
        changed = {n: d for n, d in depth.items() if d != decls[n].depth}
        for n, d in changed.items():
            ctx.notes.append(f"queue {n} holds {d} tiles of {slot_bytes(decls[n].type, real):,} bytes "
                             f"(to keep {in_flight:,} bytes of loads in flight)")
        return replace(kernel, body=tuple(replace(s, depth=changed[s.name])
                                          if isinstance(s, A.Buffer) and s.name in changed else s
                                          for s in kernel.body))


def in_flight_bytes(chip) -> int:
    """Bytes a vector core must have in flight to draw its share of the HBM bandwidth through the
    GM read latency: latency (cycles) x the share (bytes per cycle)."""
    share = chip.hbm_achievable_gbps * 1e3 / chip.freq_mhz / chip.aiv_cores
    return int(chip.cost.gm_latency.value * share)


def _bytes_per_iteration(stmts, queues: set, size) -> list[tuple[set, int]]:
    """For each loop that loads into the queues directly in its body: the queues and the bytes of
    one iteration's loads into them."""
    found = []
    for s in stmts:
        if isinstance(s, (A.For, A.ParallelFor)):
            if isinstance(s, A.For):
                loaded = [n.out for b in s.body if not isinstance(b, (A.For, A.ParallelFor))
                          for n in A.walk(b) if isinstance(n, A.Load) and n.out in queues]
                if loaded:
                    found.append((set(loaded), sum(size(q) for q in loaded)))
            found += _bytes_per_iteration(s.body, queues, size)
    return found
