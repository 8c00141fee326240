"""The simulated pipe timeline as a trace file and a picture (docs/simulator.md, "Timeline").

``run_kernel(..., trace=True)`` asks the simulator to keep, per block, every instruction it
schedules (pipe, start and end cycle, AscendC call, kernel line) and the SetFlag/WaitFlag
events; :func:`read_trace` turns the files the harness writes into a :class:`Timeline`
(``res.timeline``). From it:

* :func:`chrome_trace` builds the Chrome trace-event JSON that https://ui.perfetto.dev and
  chrome://tracing open: one process per physical core, one track per pipe ("core 0 / MTE2"),
  an ``X`` event per instruction and an ``i`` event per flag, times in microseconds;
* :func:`draw_timeline` draws the critical core's pipe occupancy and the kernel's roofline
  position with matplotlib (imported only when a picture is drawn).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .cost import PIPES

#: Record kinds (core.h: TR_INSTR, TR_SET, TR_WAIT, TR_BARRIER: a SyncAll's or a CrossCoreWaitFlag's
#: wait for the other cores).
TR_INSTR, TR_SET, TR_WAIT, TR_BARRIER = 0, 1, 2, 3
#: One record of trace.bin (harness.h: TraceOutRec). Times are cycles from the block's start.
TRACE_DTYPE = np.dtype({"names": ["start", "end", "api", "file", "line", "pipe", "kind"],
                        "formats": ["<f8", "<f8", "<i4", "<i4", "<i4", "u1", "u1"],
                        "offsets": [0, 8, 16, 20, 24, 28, 29], "itemsize": 32})
#: Records kept per block by ``run_kernel(trace=True)``; later ones are counted as dropped.
DEFAULT_TRACE_LIMIT = 200_000
#: Top-to-bottom order of the pipes in the picture: data flow in, compute, data flow out, scalar.
DRAW_ORDER = ("AIC_MTE2", "MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S")
#: Chrome-trace ids: core c is process c + 1 and pipe p its thread p + 1 (Perfetto treats pid and
#: tid 0 as the kernel's idle task); the modeled launch and body are on process KERNEL_PID.
KERNEL_PID = 1_000_000
_COLORS = {"AIC_MTE2": "#aec7e8", "MTE2": "#1f77b4", "MTE1": "#17becf", "M": "#9467bd", "FIX": "#8c564b", "V": "#2ca02c",
           "MTE3": "#ff7f0e", "S": "#7f7f7f", "HBM": "#d62728"}


@dataclass
class BlockTrace:
    """One block's records (``TRACE_DTYPE``) and where the cost model places the block."""

    block: int
    records: np.ndarray
    dropped: int = 0        # records past the limit (not kept)
    core: int = 0           # physical core: block % physical cores, as the cost model places blocks
    offset: float = 0.0     # cycles of the earlier blocks on the same core
    cycles: float = 0.0     # the block's modeled cycles (0 when the run has no cost report)

    @property
    def end(self) -> float:
        last = float(self.records["end"].max()) if len(self.records) else 0.0
        return self.offset + max(self.cycles, last)


@dataclass
class Timeline:
    """The simulated timeline of one run: per block, the instructions on each pipe."""

    blocks: list[BlockTrace]
    names: dict[int, str]
    freq_mhz: float
    limit: int
    chip: str = ""
    physical_cores: int = 1
    launch_us: float = 0.0
    body_us: float = 0.0
    time_us: float | None = None   # the modeled kernel time (launch + body), when there is a cost report
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(b.records) for b in self.blocks)

    @property
    def dropped(self) -> int:
        return sum(b.dropped for b in self.blocks)

    def name(self, i: int) -> str:
        return self.names.get(int(i), "")

    def block(self, b: int) -> BlockTrace | None:
        return next((x for x in self.blocks if x.block == b), None)

    def cores(self) -> list[int]:
        return sorted({b.core for b in self.blocks})

    def blocks_on(self, core: int) -> list[BlockTrace]:
        return sorted((b for b in self.blocks if b.core == core), key=lambda b: b.block)

    def core_end(self, core: int) -> float:
        """Cycles until the core's last block ends."""
        return max((b.end for b in self.blocks_on(core)), default=0.0)

    def critical_core(self) -> int:
        """The slowest physical core (the first one on a tie, as the cost model picks it)."""
        cores = self.cores()
        return max(cores, key=self.core_end) if cores else 0

    def summary(self) -> dict:
        return {"records": len(self), "dropped": self.dropped, "limit_per_block": self.limit,
                "blocks": len(self.blocks), "critical_core": self.critical_core(),
                "freq_mhz": self.freq_mhz}


def read_trace(run_dir, cost=None, chip=None, limit: int = DEFAULT_TRACE_LIMIT) -> Timeline:
    """The :class:`Timeline` in ``run_dir`` (trace.bin and trace.txt written by the harness).
    ``cost`` (a :class:`~ascendcraft.sim.cost.CostReport`) places the blocks on physical cores."""
    run_dir = Path(run_dir)
    names: dict[int, str] = {}
    heads: list[tuple[int, int, int]] = []
    notes: list[str] = []
    try:
        text = (run_dir / "trace.txt").read_text(errors="replace")
    except OSError:
        text = ""
        notes.append("the simulator wrote no trace (it stopped before the kernel ran)")
    for line in text.splitlines():
        f = line.split("\t")
        if f[0] == "N" and len(f) >= 3:
            names[int(f[1])] = f[2]
        elif f[0] == "B" and len(f) >= 4:
            heads.append((int(f[1]), int(f[2]), int(f[3])))
    try:
        data = np.fromfile(run_dir / "trace.bin", dtype=TRACE_DTYPE)
    except (OSError, ValueError):
        data = np.zeros(0, dtype=TRACE_DTYPE)
    blocks, pos = [], 0
    for b, n, dropped in heads:
        recs = data[pos:pos + n]
        pos += n
        blocks.append(BlockTrace(b, recs, dropped + (n - len(recs))))
    freq = float(getattr(chip, "freq_mhz", 0) or 1800.0)
    tl = Timeline(blocks, names, freq, int(limit), chip=getattr(chip, "name", "") or "", notes=notes)
    if cost is not None:
        tl.chip = cost.chip
        tl.physical_cores = max(1, int(cost.physical_cores))
        tl.launch_us, tl.body_us, tl.time_us = cost.launch_us, cost.body_us, cost.time_us
        # the trace numbers the simulated cores as the cost report lists them (in a mixed launch each
        # block's AIC and AIVs), and the cost model says which physical core each ran on
        cycles = {i: c.cycles for i, c in enumerate(cost.per_core)}
        core_of = dict(enumerate(cost.core_of))
    else:
        tl.physical_cores = max([b.block for b in blocks], default=0) + 1
        cycles, core_of = {}, {}
    placed: dict[int, float] = {}
    for b in sorted(blocks, key=lambda x: x.block):   # blocks run one after another on their core
        b.core = core_of.get(b.block, b.block % tl.physical_cores)
        b.cycles = float(cycles.get(b.block, 0.0))
        b.offset = placed.get(b.core, 0.0)
        placed[b.core] = b.end
    if tl.dropped:
        tl.notes.append(f"{tl.dropped} records past the limit of {limit} per block were dropped")
    return tl


# ----------------------------------------------------------------------------- Chrome trace
def chrome_trace(timeline: Timeline, freq_mhz: float | None = None, *, source: str | None = None,
                 kernel_file: str | None = None, line_map: dict[int, int] | None = None,
                 cores: list[int] | None = None, max_events: int | None = None,
                 name: str | None = None) -> dict:
    """The timeline as a Chrome trace-event JSON object (``json.dump`` it to a file).

    One process per physical core ("core 3", pid 4), one thread per pipe ("core 3 / MTE2", tid
    :data:`PIPES` index + 1); every
    instruction is a complete event (``"ph": "X"``) named after its AscendC call, every
    SetFlag/WaitFlag an instant event (``"ph": "i"``). ``ts``/``dur`` are microseconds at
    ``freq_mhz`` (default: the chip's), counted from the kernel launch: the cost model's
    launch overhead comes first (process "kernel"), then each core's blocks one after another.
    ``args`` hold the call, the kernel line (``kernel_file`` names the kernel source instead of
    ``kernel.cpp``), the block, the cycles, the source line's text when ``source`` is given and
    the DSL line when ``line_map`` maps kernel lines to DSL lines.

    ``cores`` picks physical cores; ``max_events`` caps the instruction events: whole cores are
    taken slowest first (the critical core always, cut at the cap), the others are listed in
    ``otherData["omitted_cores"]``.
    """
    tl = timeline
    freq = float(freq_mhz or tl.freq_mhz)
    launch = float(tl.launch_us)
    src_lines = source.splitlines() if source is not None else None
    chosen = list(cores) if cores is not None else sorted(tl.cores(), key=lambda c: -tl.core_end(c))
    crit = tl.critical_core()
    omitted: list[int] = []
    if max_events is not None:
        keep, total = [], 0
        for c in chosen:
            n = sum(len(b.records) for b in tl.blocks_on(c))
            if keep and total + n > max_events:
                omitted.append(c)
                continue
            keep.append(c)
            total += n
        chosen = keep
    budget = max_events
    events: list[dict] = []
    kp = KERNEL_PID
    meta: list[dict] = [{"ph": "M", "name": "process_name", "pid": kp, "args": {"name": "kernel (modeled)"}},
                        {"ph": "M", "name": "process_sort_index", "pid": kp, "args": {"sort_index": -1}},
                        {"ph": "M", "name": "thread_name", "pid": kp, "tid": 1, "args": {"name": "launch + body"}}]
    if launch > 0:
        events.append({"ph": "X", "name": "launch overhead", "cat": "kernel", "pid": kp, "tid": 1, "ts": 0.0,
                       "dur": round(launch, 4), "args": {"what": "the cost model's kernel launch overhead"}})
    if tl.time_us is not None:
        events.append({"ph": "X", "name": "body", "cat": "kernel", "pid": kp, "tid": 1, "ts": round(launch, 4),
                       "dur": round(tl.time_us - launch, 4),
                       "args": {"what": "the slowest core, or total GM bytes at the HBM bandwidth if larger"}})
    truncated = False
    for c in sorted(chosen):
        pid = c + 1
        blocks = tl.blocks_on(c)
        label = f"core {c}" + (" (critical)" if c == crit else "")
        meta.append({"ph": "M", "name": "process_name", "pid": pid,
                     "args": {"name": label + " — blocks " + ", ".join(str(b.block) for b in blocks)}})
        meta.append({"ph": "M", "name": "process_sort_index", "pid": pid, "args": {"sort_index": c}})
        used = set()
        for b in blocks:
            r = b.records
            if budget is not None:
                if budget <= 0:
                    truncated = True
                    break
                if len(r) > budget:
                    r, truncated = r[:budget], True
                budget -= len(r)
            used.update(int(p) for p in np.unique(r["pipe"]))
            _block_events(events, tl, b, r, pid, freq, launch, src_lines, kernel_file, line_map)
        for p in sorted(used):
            pname = PIPES[p] if p < len(PIPES) else str(p)
            meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": p + 1,
                         "args": {"name": f"core {c} / {pname}"}})
            meta.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": p + 1,
                         "args": {"sort_index": DRAW_ORDER.index(pname) if pname in DRAW_ORDER else 99}})
    other = {"generator": "ascendcraft simulator (cost model)", "chip": tl.chip, "freq_mhz": freq,
             "time_unit": "us", "modeled_time_us": tl.time_us, "launch_us": launch, "body_us": tl.body_us,
             "critical_core": crit, "records": len(tl), "dropped_records": tl.dropped,
             "limit_per_block": tl.limit, "dsl_lines": line_map is not None}
    if name:
        other["kernel"] = name
    if omitted:
        other["omitted_cores"] = sorted(omitted)
    if truncated:
        other["truncated"] = f"instruction events capped at {max_events}"
    if tl.notes:
        other["notes"] = list(tl.notes)
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def _block_events(events, tl, b, r, pid, freq, launch, src_lines, kernel_file, line_map) -> None:
    base = launch + b.offset / freq
    starts, ends = r["start"].tolist(), r["end"].tolist()
    apis, files, lines = r["api"].tolist(), r["file"].tolist(), r["line"].tolist()
    pipes, kinds = r["pipe"].tolist(), r["kind"].tolist()
    shared: dict[tuple[int, int, int], dict] = {}   # one args object per (call, file, line) in a block
    for s, e, a, f, ln, p, k in zip(starts, ends, apis, files, lines, pipes, kinds):
        args = shared.get((a, f, ln))
        if args is None:
            fname = tl.names.get(f, "")
            own = fname == "kernel.cpp"
            if kernel_file and own:
                fname = kernel_file
            args = {"call": tl.names.get(a, "?"), "line": f"{fname or 'kernel'}:{ln}" if ln else ""}
            if src_lines is not None and own and 0 < ln <= len(src_lines):
                args["code"] = src_lines[ln - 1].strip()
            if line_map is not None and own and ln in line_map:
                args["dsl_line"] = line_map[ln]
            args["block"] = b.block
            shared[(a, f, ln)] = args
        ts = round(base + s / freq, 4)
        if k == TR_INSTR:
            events.append({"ph": "X", "name": args["call"], "cat": PIPES[p] if p < len(PIPES) else str(p),
                           "pid": pid, "tid": p + 1, "ts": ts, "dur": round((e - s) / freq, 4), "args": args})
        elif k == TR_BARRIER:   # a SyncAll, or a CrossCoreWaitFlag waiting for another core's flag
            name = ("CrossCoreWaitFlag: waits for another core's flag" if args["call"] == "CrossCoreWaitFlag"
                    else "SyncAll: waits for the other cores")
            events.append({"ph": "X", "name": name, "cat": "barrier",
                           "pid": pid, "tid": p + 1, "ts": ts, "dur": round((e - s) / freq, 4), "args": args})
        else:
            call = args["call"]
            if not call.startswith(("Set", "Wait")):
                call = ("SetFlag " if k == TR_SET else "WaitFlag ") + call
            events.append({"ph": "i", "s": "t", "name": call,
                           "cat": "flag", "pid": pid, "tid": p + 1, "ts": ts, "args": args})


def write_chrome_trace(timeline: Timeline, path, **options) -> Path:
    """:func:`chrome_trace` written to ``path`` (compact JSON)."""
    path = Path(path)
    path.write_text(json.dumps(chrome_trace(timeline, **options), separators=(",", ":")))
    return path


# ----------------------------------------------------------------------------- picture
@dataclass
class Roofline:
    """Where the kernel sits against the chip's roofs (all throughputs per second, whole chip)."""

    time_us: float                     # modeled kernel time (launch included)
    gm_bytes: float                    # bytes the kernel moves between HBM and the cores
    hbm_gbps: float                    # HBM bandwidth (GB/s)
    flops: float | None = None         # operations, when known
    vector_gflops: float | None = None   # vector peak (fp32, one result per lane per cycle)
    cube_gflops: float | None = None     # cube peak (fp16 multiply-adds, 2 flops each)
    floor_us: float | None = None
    floor_kind: str = "HBM"
    flops_note: str = ""               # where the operation count comes from
    launch_us: float = 0.0             # part of time_us that is launch overhead (the body is shown too)


def roofline_from_cost(cost, chip, *, floor_us: float | None = None, floor_kind: str = "HBM",
                       flops: float | None = None) -> Roofline:
    """A :class:`Roofline` from a cost report: bytes and time are the model's; the operations are
    the simulator's counts (one per vector element result, two per cube multiply-add) unless
    ``flops`` is given."""
    vec = sum(c.vector_elements for c in cost.per_core)
    macs = sum(c.cube_macs for c in cost.per_core)
    note = ""
    if flops is None and (vec or macs):
        flops, note = float(vec + 2 * macs), "vector results + 2 x cube MACs"
    freq = chip.freq_mhz * 1e6
    vector = chip.aiv_cores * chip.vector_bytes_per_cycle / 4 * freq / 1e9
    cube = chip.aic_cores * chip.cube_macs_per_cycle * 2 * freq / 1e9 if macs else None
    return Roofline(cost.time_us, cost.gm_bytes, chip.hbm_gbps, flops, vector, cube, floor_us, floor_kind, note,
                    cost.launch_us)


def draw_timeline(timeline: Timeline, path, *, roofline: Roofline | None = None, core: int | None = None,
                  title: str | None = None, dpi: int = 110) -> Path:
    """A PNG of the pipe occupancy over time of one physical core (default: the critical one),
    and, with ``roofline``, a small roofline panel placing the kernel. Needs matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    tl = timeline
    core = tl.critical_core() if core is None else core
    fig = Figure(figsize=(11.5 if roofline else 9.0, 3.9))
    FigureCanvasAgg(fig)
    if roofline is not None:
        gs = fig.add_gridspec(1, 2, width_ratios=(2.6, 1.0), wspace=0.32)
        ax, rax = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
    else:
        ax, rax = fig.add_subplot(111), None
    _draw_pipes(ax, tl, core, title)
    if rax is not None:
        _draw_roofline(rax, roofline)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.86, bottom=0.15)
    path = Path(path)
    fig.savefig(path, dpi=dpi)
    return path


def _merge(starts: np.ndarray, ends: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Intervals closer than ``gap`` become one (a pixel holds at most one bar)."""
    if len(starts) == 0:
        return starts, ends
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], np.maximum.accumulate(ends[order])
    split = np.nonzero(s[1:] > e[:-1] + gap)[0] + 1
    first = np.concatenate(([0], split))
    last = np.concatenate((split - 1, [len(s) - 1]))
    return s[first], e[last]


def _draw_pipes(ax, tl: Timeline, core: int, title: str | None) -> None:
    freq = tl.freq_mhz
    blocks = tl.blocks_on(core)
    span_cycles = max(tl.core_end(core), 1.0)
    span = span_cycles / freq
    per_pipe: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    flags: dict[tuple[str, int], list[np.ndarray]] = {}
    for b in blocks:
        r = b.records
        for p in np.unique(r["pipe"]):
            name = PIPES[p] if p < len(PIPES) else str(p)
            sel = r[r["pipe"] == p]
            ins = sel[sel["kind"] == TR_INSTR]
            per_pipe.setdefault(name, []).append(((b.offset + ins["start"]) / freq, (b.offset + ins["end"]) / freq))
            for kind in (TR_SET, TR_WAIT):
                fl = sel[sel["kind"] == kind]
                if len(fl):
                    flags.setdefault((name, kind), []).append((b.offset + fl["start"]) / freq)
    rows = [p for p in DRAW_ORDER if p in per_pipe or (p, TR_SET) in flags or (p, TR_WAIT) in flags]
    rows = rows or ["MTE2", "V", "MTE3"]
    px = span / 900.0
    labels = []
    for i, name in enumerate(rows):
        y = len(rows) - 1 - i
        parts = per_pipe.get(name, [])
        s = np.concatenate([a for a, _ in parts]) if parts else np.zeros(0)
        e = np.concatenate([b for _, b in parts]) if parts else np.zeros(0)
        busy = float(np.sum(e - s)) if len(s) else 0.0
        ms, me = _merge(s, e, px)
        if len(ms):   # at least a pixel wide, so short instructions stay visible
            ax.broken_barh(list(zip(ms.tolist(), np.maximum(me - ms, px).tolist())), (y - 0.36, 0.72),
                           facecolors=_COLORS.get(name, "#444444"), linewidth=0)
        for kind, dy, marker in ((TR_SET, 0.42, "v"), (TR_WAIT, -0.42, "^")):   # SetFlag above, WaitFlag below
            if (name, kind) in flags:
                xs = np.concatenate(flags[(name, kind)])
                ax.plot(xs, np.full(len(xs), y + dy), linestyle="none", marker=marker, markersize=3, color="black")
        labels.append((y, f"{name}  {busy / span:.0%}" if span > 0 else name))
    ax.set_yticks([y for y, _ in labels], [t for _, t in labels], fontsize=9)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    # The modeled body can outlast every core's pipes: all cores share HBM's bandwidth, and the
    # time their bytes need at the chip's achievable rate is a floor (ascendcraft/sim/cost.py).
    # The picture runs to the body's end and shades that part, so no modeled time goes unshown.
    body = tl.body_us
    stretched = body is not None and body > span * 1.02
    if stretched:
        ax.axvspan(span, body, facecolor="#d9d9d9", hatch="//", edgecolor="#aaaaaa", linewidth=0)
        ax.text((span + body) / 2, (len(rows) - 1) / 2, "HBM-bound:\nall cores' bytes\nat the shared\nbandwidth",
                ha="center", va="center", fontsize=7.5, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})
    ax.set_xlim(0, (body if stretched else span) * 1.01)
    ax.set_xlabel("time on the core (µs, after the launch overhead)", fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    for b in blocks[1:]:
        ax.axvline(b.offset / freq, color="black", linewidth=0.8, linestyle="--", alpha=0.6)
        ax.text(b.offset / freq, len(rows) - 0.45, f" block {b.block}", fontsize=7, va="top")
    dropped = sum(b.dropped for b in blocks)
    head = title or (f"core {core} of {tl.physical_cores}"
                     + (" (critical)" if core == tl.critical_core() else "")
                     + f": pipe occupancy, blocks {', '.join(str(b.block) for b in blocks)}")
    sub = f"{span:,.2f} µs on the core"
    if stretched:
        sub += f", {body:,.2f} µs for all cores' HBM traffic (shaded)"
    if tl.time_us is not None:
        sub += f"; kernel {tl.time_us:,.2f} µs modeled (launch {tl.launch_us:,.1f} µs)"
    if flags:
        sub += "; ▼ SetFlag, ▲ WaitFlag"
    if dropped:
        sub += f"; trace capped: {dropped} later records not shown"
    ax.set_title(head + "\n" + sub, fontsize=9.5, loc="left")


def _num(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _draw_roofline(ax, rf: Roofline) -> None:
    t = rf.time_us * 1e-6
    body = (rf.time_us - rf.launch_us) * 1e-6
    bw = rf.gm_bytes / t / 1e9 if t > 0 else 0.0     # GB/s achieved
    notes = []
    if rf.flops and rf.gm_bytes > 0 and t > 0:
        ai = rf.flops / rf.gm_bytes
        perf = rf.flops / t / 1e9
        peaks = [v for v in (rf.vector_gflops, rf.cube_gflops) if v]
        body_perf = rf.flops / body / 1e9 if rf.launch_us > 0 and body > 0 else None
        top = max(peaks + [perf, body_perf or 0, ai * rf.hbm_gbps]) * 3
        lo_x = min(ai / 30, 1e-2)
        hi_x = max(ai * 30, (max(peaks) / rf.hbm_gbps * 10) if peaks else ai * 30)
        xs = np.logspace(np.log10(lo_x), np.log10(hi_x), 200)
        for peak, label, style in ((rf.vector_gflops, "vector fp32 peak", "-"), (rf.cube_gflops, "cube fp16 peak", "-.")):
            if peak:
                ax.plot(xs, np.minimum(xs * rf.hbm_gbps, peak), style, color="gray", linewidth=1.2)
                ax.text(hi_x, peak / 1.2, label, fontsize=7, ha="right", va="top", color="dimgray")
        if not peaks:
            ax.plot(xs, xs * rf.hbm_gbps, "-", color="gray", linewidth=1.2)
        ax.plot([ai], [perf], "o", color="#d62728", markersize=7, label=f"kernel: {_num(perf)} G/s")
        if body_perf:
            ax.plot([ai], [body_perf], "o", markerfacecolor="none", color="#d62728", markersize=7,
                    label=f"without launch: {_num(body_perf)} G/s")
        ax.legend(fontsize=6.5, loc="upper left", frameon=False)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(min(perf, ai * rf.hbm_gbps) / 30, top)
        ax.set_xlabel("ops per HBM byte", fontsize=8)
        ax.set_ylabel("G ops/s" + (f" ({rf.flops_note})" if rf.flops_note else ""), fontsize=7)
        ax.set_title(f"roofline (HBM {rf.hbm_gbps:,.0f} GB/s)", fontsize=9, loc="left")
    else:
        ax.barh([1], [rf.hbm_gbps], color="#dddddd", height=0.5)
        ax.barh([0], [bw], color="#d62728", height=0.5)
        ax.set_yticks([0, 1], ["kernel", "HBM peak"], fontsize=8)
        ax.set_xlabel("GB/s (HBM bytes / modeled time)", fontsize=8)
        ax.set_title("roofline: bandwidth position only\n(no operation count for this kernel)", fontsize=8.5, loc="left")
        notes.append(f"{bw:,.0f} GB/s = {bw / rf.hbm_gbps:.0%} of HBM")
    ax.tick_params(labelsize=7)
    if rf.floor_us:
        notes.append(f"{rf.floor_kind} floor {rf.floor_us:,.1f} µs vs modeled {rf.time_us:,.1f} µs "
                     f"({rf.floor_us / rf.time_us:.0%})")
    if notes:
        ax.text(0.98, 0.03, "\n".join(notes), transform=ax.transAxes, fontsize=6.5, ha="right", va="bottom")
    ax.minorticks_off()   # (minor ticks of log axes cost a third of the drawing time)
    ax.grid(alpha=0.25)
