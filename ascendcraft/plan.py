"""The buffer plan the lowering will use, shown by ``check``: the lowering passes run on the
kernel at the op's real shapes (statically checked after each one, without the interpreter),
and the buffers of the last level are read off. So the writer sees, before paying for a
``lower``, which tiles are double-buffered, how much UB they take, and whether the lowering
refuses a statement (located in the writer's kernel: spans are origins)."""
from __future__ import annotations

from dataclasses import dataclass

from .binding import bind
from .dsl import ast as A
from .dsl.checker import CheckedKernel, check, check_at
from .errors import AscendcraftError, DSLError


@dataclass(frozen=True)
class PlannedBuffer:
    name: str
    space: str              # vecin / vecout (a TQue), veccalc (a TBuf)
    depth: int              # queue slots: 2 is double buffering
    bytes: int              # UB bytes at the real shapes, all slots
    lines: tuple[int, ...]  # lines of the writer's kernel whose tiles are placed in it


@dataclass(frozen=True)
class BufferPlan:
    buffers: tuple[PlannedBuffer, ...]
    ub_bytes: int
    ub_capacity: int
    single_buffered: tuple[PlannedBuffer, ...]   # queues of tiles loaded or stored in a loop, one slot
    refused: str | None = None                   # the lowering's error, rendered, if a pass refuses
    fits: tuple = ()                             # lowering_passes.fit.TileFit: tile sizes against the UB
    unqueued: tuple[int, ...] = ()               # lines of loop tiles with no room for a queue at all

    def summary(self) -> str:
        if self.refused is not None:
            return "buffer plan: the lowering refuses this kernel:\n" + self.refused
        lines = [f"buffer plan at real shapes (what lower will use): UB {self.ub_bytes:,} / {self.ub_capacity:,} "
                 f"bytes"]
        for b in self.buffers:
            kind = {"vecin": "copy-in queue", "vecout": "copy-out queue"}.get(b.space, "work buffer")
            slots = (f", {b.depth} slot{'s' if b.depth > 1 else ''}" + _buffering(b.depth) if b.space != "veccalc" else "")
            at = f" for {lines_text(b.lines)}" if b.lines else ""
            lines.append(f"  {b.name}: {kind}{slots}, {b.bytes:,} bytes{at}")
        for f in self.fits:
            if f.used is not None and f.writer_fits:
                lines.append(f"note: at {f.written()} ({f.where()}) the tiles of "
                             f"{lines_text(f.single_lines)} would have one queue slot or none, so their copies would "
                             f"not overlap the compute; lower uses {f.spelled(f.used)}, which keeps two slots, and "
                             f"verifies it like every pass")
            elif f.used is not None:
                lines.append(f"note: at {f.written()} ({f.where()}) the lowering's buffers take "
                             f"{f.writer_bytes:,} bytes of the {f.capacity:,}-byte UB (padding, work areas); lower "
                             f"uses {f.spelled(f.used)} and verifies it like every pass")
        if self.unqueued:
            lines.append(f"warning: the tiles of {lines_text(self.unqueued)} are copied in or out through a work "
                         f"buffer: the UB has no room for a queue, so their copies do not overlap the compute; "
                         f"{self._double_hint()}")
        for b in self.single_buffered:
            lines.append(f"warning: the tiles of {lines_text(b.lines)} "
                         f"are single-buffered (queue {b.name}): the UB has no room for a second slot, so their "
                         f"copies do not overlap the compute; {self._double_hint()}")
        return "\n".join(lines)

    def _double_hint(self) -> str:
        for f in self.fits:
            if f.double is not None:
                return f"with {f.spelled(f.double)} ({f.where()}) every tile loaded or stored in a loop keeps two slots"
            if f.consts:
                names = ", ".join(n for n, _, _ in f.consts)
                return (f"no smaller {names} ({f.where()}) leaves room for two slots: keep fewer tiles live at once, "
                        f"or make these tiles smaller where the lowering cannot (a size it changes is {_TILE_SIZE})")
        return f"a smaller tile size leaves room for a second slot (a tile size the lowering can compute is {_TILE_SIZE})"

    def to_json(self) -> dict:
        return {"refused": self.refused, "ub_bytes": self.ub_bytes, "ub_capacity": self.ub_capacity,
                "buffers": [{"name": b.name, "space": b.space, "depth": b.depth, "bytes": b.bytes,
                             "lines": list(b.lines)} for b in self.buffers],
                "single_buffered_lines": sorted({n for b in self.single_buffered for n in b.lines}),
                "unqueued_lines": list(self.unqueued),
                "tile_sizes": [{"constants": {n: {"line": line, "value": v} for n, line, v in f.consts},
                                "ub_bytes_at_written_sizes": f.writer_bytes,
                                "lowered_with": None if f.used is None else dict(zip((n for n, _, _ in f.consts), f.used)),
                                "double_buffered_with": None if f.double is None else
                                dict(zip((n for n, _, _ in f.consts), f.double))} for f in self.fits]}


#: what makes a constant a tile size the lowering can change (lowering_passes/fit.py)
_TILE_SIZE = ("a `const` used only as a range step and slice length, or as a parallel loop's tile count and "
              "position: parallel(cdiv(S, T)) over x[b * T:b * T + T]; a block size reached through an assignment "
              "such as r = b * RB is not one")


def lines_text(lines) -> str:
    """Source lines as a reader takes them in: runs of consecutive lines as ranges
    (``lines 8-10008, 10010``), not ten thousand numbers."""
    runs: list[list[int]] = []
    for n in sorted(set(lines)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    return f"line{'s' if len(set(lines)) > 1 else ''} {text}"


def buffer_plan(kernel: A.Kernel, task, real: CheckedKernel, other_shapes=()) -> BufferPlan:
    """Run the lowering passes statically on ``kernel`` (checked at real shapes as ``real``); the
    buffers must also fit at ``other_shapes``, the other shape sets the kernel is verified at."""
    from ascendcraft.lowering_passes.base import PassContext, identifiers

    from .lower import default_passes
    from .passes import apply_pass, shape_envs

    chip, level = real.chip, real
    k = kernel
    fits: list = []
    unqueued: set = set()
    others = [s for s in other_shapes if s is not None]
    try:
        envs = shape_envs(kernel, others)
        names = frozenset(identifiers(kernel))
        for p in default_passes():
            ctx = PassContext(level, chip, None, shape_envs=envs, source_names=names)
            before, k = k, apply_pass(p, k, ctx, kernel.source)
            fits += ctx.fits
            unqueued.update(ctx.unqueued)
            if k is not before:
                level = check(k, bind(k, task.real)[0], chip)
        for shapes in others:
            check_at(k, bind(k, shapes)[0], chip, level)
    except AscendcraftError as err:
        if isinstance(err, DSLError):
            err.located(kernel.source)
        return BufferPlan((), 0, chip.capacity("ub"), (), refused=str(err))
    except Exception as err:   # a pass that crashes would crash lower too: ours, say so
        return BufferPlan((), 0, chip.capacity("ub"), (),
                          refused=f"internal error in the lowering ({type(err).__name__}: {err}); this is a bug of "
                                  f"ours: please report it")
    return _read_plan(k, level, tuple(fits), tuple(sorted(unqueued)))


def _read_plan(k: A.Kernel, level: CheckedKernel, fits: tuple = (), unqueued: tuple = ()) -> BufferPlan:
    from ascendcraft.lowering_passes.fit import placements
    placed: dict[str, set[int]] = {}
    in_loop: set[str] = set()
    for s, out, loop in placements(k):
        if s.span is not None:
            placed.setdefault(out, set()).add(s.span.line)
        if loop:
            in_loop.add(out)
    buffers = tuple(PlannedBuffer(b.name, b.type.space, b.depth, level.buffer_bytes.get(b.name, 0),
                                  tuple(sorted(placed.get(b.name, set()))))
                    for b in level.buffers.values())
    single = tuple(b for b in buffers if b.space in ("vecin", "vecout") and b.depth == 1 and b.name in in_loop)
    return BufferPlan(buffers, sum(b.bytes for b in buffers), level.chip.capacity("ub"), single, fits=fits,
                      unqueued=unqueued)


def _buffering(depth: int) -> str:
    """What a queue's slots buy: two overlap one tile's copy with the next tile's compute, more keep
    the copies of several small tiles in flight (the deepen pass)."""
    return "" if depth < 2 else " (double-buffered)" if depth == 2 else f" ({depth} tiles in flight)"
