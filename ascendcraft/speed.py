"""Where a lowered kernel's modeled time goes, as facts a kernel writer can act on.

The same figures report.md and the timeline hold (docs/performance.md): the modeled time at the
op's real shapes against modeled eager PyTorch and the floor, the bound, each pipe's busy time on
the slowest core, that core's pipe time by line of the writer's kernel, the longest stretches in
which its busiest pipe waits (with the lines around them), and the bytes moved against the bytes
the op needs. ``gen --optimize`` sends :meth:`SpeedFacts.text` to the model after each verified
kernel; everything is read from a :class:`~ascendcraft.lower.Lowered` and its timeline.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Pipes that run instructions (the cost model's HBM entry is a share of bandwidth, not a pipe).
_PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "AIC_MTE2")
#: Lines and waits listed at most (the longest first): enough to point at the cause, short enough to read.
TOP_LINES, TOP_WAITS = 8, 3


@dataclass(frozen=True)
class LineTime:
    line: int | None            # line of the writer's kernel; None: no line (set-up, queues, the harness)
    text: str                   # that line, stripped
    busy_us: tuple              # ((pipe, µs on the slowest core), ...), busiest first


@dataclass(frozen=True)
class Wait:
    pipe: str                   # the pipe that waits
    start_us: float             # from the kernel body's start, on the slowest core
    length_us: float
    after: int | None           # the line of the pipe's instruction before the wait
    before: int | None          # ... and after it
    meanwhile: tuple            # ((pipe, µs busy during the wait), ...), busiest first


@dataclass(frozen=True)
class Phase:
    index: int                  # 1-based: the code before the first SyncAll is phase 1
    start_us: float             # from the block's start
    length_us: float            # until its SyncAll is reached (the wait for the other cores excluded)
    lines: tuple                # (first, last) line of the writer's kernel among its instructions, or ()
    busiest: tuple              # (line, pipe, µs) of its busiest line and pipe, or ()


@dataclass(frozen=True)
class SpeedFacts:
    chip: str
    time_us: float
    body_us: float
    launch_us: float
    bound: str
    floor_us: float | None
    floor_kind: str
    eager_us: float | None
    gm_bytes: int
    op_bytes: int | None        # what the op must move: every input read once, every output written once
    pipe_busy_us: tuple         # ((pipe, µs), ...) on the slowest core, busiest first
    core: int | None = None     # the slowest core, when there is a timeline
    blocks: tuple = ()          # the blocks it runs
    core_end_us: float | None = None   # when its last instruction ends (the rest is the HBM floor's)
    idle_us: float = 0.0        # time before that in which none of its pipes is busy
    gm_latency_us: float | None = None   # how long a GM read's data takes to land after its copy
    lines: tuple = ()           # LineTime, busiest first
    waits: tuple = ()           # Wait, longest first
    traced_share: float = 1.0   # the share of the slowest core's instructions the trace kept
    phases: int = 1             # parallel phases (SyncAll + 1) of the slowest core's first block
    barrier_us: float = 0.0     # its waits at SyncAll for the other cores, in all
    long_phases: tuple = ()     # Phase, longest first

    @property
    def efficiency(self) -> float | None:
        return self.floor_us / self.time_us if self.floor_us and self.time_us else None

    @property
    def speedup(self) -> float | None:
        """Eager time over this kernel's: above 1 is faster than eager."""
        return self.eager_us / self.time_us if self.eager_us and self.time_us else None

    def to_json(self) -> dict:
        return {"time_us": self.time_us, "eager_us": self.eager_us, "speedup": self.speedup,
                "floor_us": self.floor_us, "efficiency": self.efficiency, "bound": self.bound,
                "gm_bytes": self.gm_bytes, "op_bytes": self.op_bytes, "pipe_busy_us": dict(self.pipe_busy_us),
                "slowest_core": self.core,
                "lines": [{"line": x.line, "busy_us": dict(x.busy_us)} for x in self.lines],
                "phases": self.phases, "barrier_us": self.barrier_us,
                "longest_phases": [{"phase": p.index, "start_us": p.start_us, "length_us": p.length_us,
                                    "lines": list(p.lines), "busiest": list(p.busiest)} for p in self.long_phases],
                "waits": [{"pipe": w.pipe, "start_us": w.start_us, "length_us": w.length_us, "after_line": w.after,
                           "before_line": w.before, "meanwhile_us": dict(w.meanwhile)} for w in self.waits]}

    def text(self) -> str:
        """The facts as lines of text (no file to open: everything is in them)."""
        out = [f"Modeled at the op's real shapes on {self.chip} (the simulator's cost model, not a hardware "
               "measurement):",
               f"- your kernel: {_us(self.time_us)} (body {_us(self.body_us)} + launch {_us(self.launch_us)}), "
               f"{self.bound}-bound"]
        if self.eager_us:
            s = self.speedup
            verdict = "faster" if s >= 1.005 else "slower" if s < 0.995 else "level with it"
            out.append(f"- modeled eager PyTorch: {_us(self.eager_us)}; your kernel is {s:.2f}x eager ({verdict})")
        if self.floor_us:
            what = ("the kernel's multiply-adds at the cube's peak rate on every cube core"
                    if self.floor_kind == "cube" else "every input read once and every output written once at "
                    "the HBM bandwidth")
            out.append(f"- floor: {_us(self.floor_us)} ({self.floor_kind}: {what}, plus the launch); efficiency "
                       f"{self.efficiency:.0%}")
        if self.op_bytes:
            out.append(f"- bytes moved between GM and the cores: {_bytes(self.gm_bytes)}; the op needs "
                       f"{_bytes(self.op_bytes)} ({self.gm_bytes / self.op_bytes:.1f}x)")
        else:
            out.append(f"- bytes moved between GM and the cores: {_bytes(self.gm_bytes)}")
        core = f"core {self.core}, blocks {_list(self.blocks)}" if self.core is not None else "the slowest core"
        busy = ", ".join(f"{p} {_us(t)} ({t / self.body_us:.0%})" for p, t in self.pipe_busy_us
                         if t > 0) if self.body_us else ""
        out.append(f"- busy time of each pipe on the slowest core ({core}; the pipes run in parallel, each "
                   f"share is of the {_us(self.body_us)} body): {busy or 'none'}")
        if self.core_end_us and self.idle_us > 0.05 * self.core_end_us:
            latency = f" (a GM read's data lands {_us(self.gm_latency_us)} after its copy)" \
                if self.gm_latency_us else ""
            out.append(f"- for {_us(self.idle_us)} of the slowest core's {_us(self.core_end_us)} no pipe is busy "
                       f"({self.idle_us / self.core_end_us:.0%}): it waits for data in flight{latency}, or for "
                       "other cores at a barrier; fewer, larger copies pay that wait less often")
        if self.core_end_us is not None and self.core_end_us < self.body_us * 0.95:
            out.append(f"- the slowest core's last instruction ends at {_us(self.core_end_us)}: the rest of the "
                       "body is the wait for HBM bandwidth, which all cores share")
        if self.phases > 1:
            out.append(f"- {self.phases} parallel phases (SyncAll barriers) in the slowest core's first block; "
                       f"its waits at the barriers for the other cores take {_us(self.barrier_us)} in all")
        if self.lines:
            out += ["", "Where the slowest core's pipe time goes, by line of your kernel:"]
            for x in self.lines:
                where = f"line {x.line}: `{x.text}`" if x.line is not None else "no line (set-up, queues)"
                out.append(f"- {where}: " + ", ".join(f"{p} {_us(t)}" for p, t in x.busy_us))
            if self.traced_share < 0.999:
                out.append(f"(from the first {self.traced_share:.0%} of its instructions, which the trace kept)")
        if self.waits:
            out += ["", f"Longest waits of the slowest core's busiest pipe ({self.waits[0].pipe}):"]
            for w in self.waits:
                near = f"after line {w.after}" if w.after else "at the start"
                near += f", before line {w.before}" if w.before else ", at the end"
                during = ", ".join(f"{p} {_us(t)}" for p, t in w.meanwhile) or "no pipe"
                out.append(f"- {_us(w.length_us)} at {_us(w.start_us)} ({near}); busy meanwhile: {during}")
        if self.long_phases:
            out += ["", "Longest phases of that block (from its start to its next SyncAll):"]
            for ph in self.long_phases:
                lines = f"lines {ph.lines[0]}-{ph.lines[1]}" if ph.lines and ph.lines[0] != ph.lines[1] else \
                    f"line {ph.lines[0]}" if ph.lines else "no kernel line"
                busiest = f"; busiest line {ph.busiest[0]}: {ph.busiest[1]} {_us(ph.busiest[2])}" if ph.busiest else ""
                out.append(f"- phase {ph.index} at {_us(ph.start_us)}: {_us(ph.length_us)}, {lines}{busiest}")
        return "\n".join(out)


def speed_facts(lowered, eager_us: float | None = None) -> SpeedFacts | None:
    """The facts of ``lowered`` (a :class:`~ascendcraft.lower.Lowered`); None without a modeled time."""
    c = lowered.cost
    if c is None:
        return None
    busy = tuple(sorted(((p, float(t)) for p, t in c.pipe_busy_us.items() if p in _PIPES and t > 0),
                        key=lambda pt: -pt[1]))
    facts = dict(chip=lowered.chip, time_us=c.time_us, body_us=c.body_us, launch_us=c.launch_us, bound=c.bound,
                 floor_us=lowered.floor_us, floor_kind=lowered.floor_kind, eager_us=eager_us, gm_bytes=c.gm_bytes,
                 op_bytes=getattr(lowered, "op_bytes", None), pipe_busy_us=busy)
    from .chips import load_chip
    chip = load_chip(lowered.chip)
    facts["gm_latency_us"] = chip.cost.gm_latency.value / chip.freq_mhz
    tl = lowered.timeline
    if tl is not None and len(tl):
        source = lowered.check.kernel.source
        facts.update(_from_timeline(tl, dict(lowered.spec.dsl_lines), source.line if source else (lambda n: ""),
                                    busy[0][0] if busy else None))
    return SpeedFacts(**facts)


def _from_timeline(tl, line_map: dict, line_text, busiest: str | None) -> dict:
    from .sim.timeline import TR_INSTR
    core = tl.critical_core()
    blocks = tl.blocks_on(core)
    freq = float(tl.freq_mhz)
    own = {i for i, name in tl.names.items() if name == "kernel.cpp"}
    starts, ends, pipes, lines = [], [], [], []
    for b in blocks:
        r = b.records[b.records["kind"] == TR_INSTR]
        starts.append((r["start"] + b.offset) / freq)
        ends.append((r["end"] + b.offset) / freq)
        pipes.append(r["pipe"].astype(int))
        lines.append(_dsl_lines(r, line_map, own))
    start, end = np.concatenate(starts), np.concatenate(ends)
    pipe, line = np.concatenate(pipes), np.concatenate(lines)
    from .sim.cost import PIPES as ORDER
    names = np.array(ORDER)[pipe] if len(pipe) else np.array([], dtype=str)
    per_line: dict[int, dict[str, float]] = {}
    for ln, p, t in zip(line.tolist(), names.tolist(), (end - start).tolist()):
        d = per_line.setdefault(ln, {})
        d[p] = d.get(p, 0.0) + t
    ranked = sorted(per_line.items(), key=lambda kv: -max(kv[1].values()))[:TOP_LINES]
    times = tuple(LineTime(ln or None, line_text(ln).strip() if ln else "",
                           tuple(sorted(((p, t) for p, t in d.items() if t > 0), key=lambda pt: -pt[1])))
                  for ln, d in ranked)
    kept = sum(len(b.records) for b in blocks)
    share = kept / (kept + sum(b.dropped for b in blocks)) if kept else 1.0
    return {"core": core, "blocks": tuple(b.block for b in blocks),
            "core_end_us": float(end.max()) if len(end) else None, "idle_us": _idle(start, end), "lines": times,
            "waits": _waits(start, end, names, line, busiest), "traced_share": share,
            **(_phases(blocks[0], freq, line_map, own) if blocks else {})}


def _dsl_lines(records, line_map: dict, own: set) -> np.ndarray:
    """The writer's kernel line of each trace record (0: none; ``own``: the ids of the kernel's file)."""
    return np.array([line_map.get(int(ln), 0) if int(f) in own else 0
                     for f, ln in zip(records["file"], records["line"])], dtype=int)


def _phases(block, freq: float, line_map: dict, own: set) -> dict:
    """The parallel phases of one block: its instructions between SyncAll barriers."""
    from .sim.cost import PIPES as ORDER
    from .sim.timeline import TR_BARRIER, TR_INSTR
    r = block.records
    barriers = r[r["kind"] == TR_BARRIER]
    if not len(barriers):
        return {}
    b_start, b_end = np.sort(barriers["start"]) / freq, np.sort(barriers["end"]) / freq
    ins = r[r["kind"] == TR_INSTR]
    start, end = ins["start"] / freq, ins["end"] / freq
    which = np.searchsorted(b_end, start, side="right")     # phase k (0-based) starts after barrier k-1 ends
    opened = np.concatenate([[0.0], b_end])
    closed = np.concatenate([b_start, [float(end.max()) if len(end) else b_end[-1]]])
    lines = _dsl_lines(ins, line_map, own)
    found = []
    for k in np.argsort(-(closed - opened), kind="stable")[:TOP_WAITS]:
        mine = which == k
        own_lines = lines[mine & (lines > 0)]
        busiest: dict[tuple[int, str], float] = {}
        for ln, p, t in zip(lines[mine].tolist(), ins["pipe"][mine].tolist(), (end - start)[mine].tolist()):
            if ln:
                busiest[(ln, ORDER[p])] = busiest.get((ln, ORDER[p]), 0.0) + t
        top = max(busiest.items(), key=lambda kv: kv[1]) if busiest else None
        found.append(Phase(int(k) + 1, float(opened[k]), float(closed[k] - opened[k]),
                           (int(own_lines.min()), int(own_lines.max())) if len(own_lines) else (),
                           (top[0][0], top[0][1], top[1]) if top else ()))
    return {"phases": len(b_end) + 1, "barrier_us": float((b_end - b_start).sum()), "long_phases": tuple(found)}


def _idle(start, end) -> float:
    """Time from 0 to the last end that no interval covers."""
    if not len(start):
        return 0.0
    order = np.argsort(start, kind="stable")
    s, e = start[order], np.maximum.accumulate(end[order])
    gaps = s[1:] - e[:-1]
    return float(max(s[0], 0.0) + gaps[gaps > 0].sum())


def _waits(start, end, names, line, pipe: str | None) -> tuple:
    """The longest gaps between ``pipe``'s instructions, with what the other pipes did in them."""
    if pipe is None:
        return ()
    mine = np.nonzero(names == pipe)[0]
    if len(mine) < 2:
        return ()
    order = mine[np.argsort(start[mine], kind="stable")]
    s, e = start[order], np.maximum.accumulate(end[order])   # overlapping instructions: one busy stretch
    gaps = s[1:] - e[:-1]
    found = []
    for i in np.argsort(-gaps, kind="stable")[:TOP_WAITS]:
        if gaps[i] <= 0:
            break
        g0, g1 = float(e[i]), float(s[i + 1])
        overlap = np.clip(np.minimum(end, g1) - np.maximum(start, g0), 0, None)
        meanwhile = {}
        for p in set(names[overlap > 0].tolist()) - {pipe}:
            meanwhile[p] = float(overlap[names == p].sum())
        found.append(Wait(pipe, g0, g1 - g0, int(line[order[i]]) or None, int(line[order[i + 1]]) or None,
                          tuple(sorted(meanwhile.items(), key=lambda pt: -pt[1]))))
    return tuple(found)


def _us(t: float) -> str:
    return f"{t:,.1f} µs" if t >= 1 else f"{t:,.3f} µs"


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:,.2f} {unit}"
    return f"{n:,} B"


def _list(items: tuple, most: int = 6) -> str:
    shown = ", ".join(str(i) for i in items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")
