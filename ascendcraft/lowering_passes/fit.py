"""Fit: choose a tile size the lowering's buffers fit, when the writer's does not.

The checker sizes a kernel by its live tiles; the lowering then adds what the hardware needs:
rows padded to 32 bytes, the work areas of reductions, scans and windows, and a second queue
slot for double buffering. A kernel the checker accepts can so need more UB than the chip has.
This pass runs before ``bufferize`` and tries the writer's tile sizes first; when the buffers do
not fit, it shrinks them.

Before (a scan's work areas take 241,920 bytes at T = 12000)::

    const T = 12000
    for j in range(0, N, T):
        t = load(x[b, j:j + T])
        ...

After::

    const T = 4096
    ...

Only *tile-size constants* change: ``const T = <integer>`` (or ``minimum(N, <integer>)``, whose integer
changes) used only as a ``range`` step, as the
length of a slice (``e:e + T``), as an extent of ``zeros``/``full``/``iota``, as a buffer extent, as the
divisor of a tile count (``cdiv(S, T)``) and then as the factor of a slice's start (``x[b * T:b * T + T]``,
a parallel loop's tiles), or in the definitions of other constants used only so. Each value then computes the same thing up to the
order of float sums; the pass manager verifies the new level against the source like any other.
All tile-size constants shrink by one factor, to multiples of their alignment (the largest power
of two dividing the writer's value, at most 64). The choice: the largest size at which every
queue loaded or stored in a loop keeps two slots, else the largest size that fits.

When the writer's size fits but leaves a loop's tiles with one queue slot or none (their copies
cannot overlap the compute), the largest size that keeps two slots is used too: on the bundled
examples at MultiKernelBench's shapes that made softmax 12 % faster and none slower
(docs/performance.md). With no such size the kernel is left alone and ``check`` says so.

Every shape set the kernel runs at counts (the real shapes, the verification ones, the second
set): a tile of ``8192 // TW`` rows of ``TW`` values fits at TW = 32, and needs a third more at
TW = 17, whose rows pad to 24.

Establishes: the bufferized program fits the UB at every shape set the kernel runs at, when any
tile size does.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.check_lowered import SCALAR_RESERVE
from ascendcraft.errors import DSLError

from .base import LoweringPass
from .bufferize import Bufferize
from .pipeline import Pipeline, const_values, slot_bytes

MAX_ALIGN = 64      # elements: 256 bytes of f32, one vector repeat


@dataclass(frozen=True)
class TileFit:
    """What the fit found for the writer's tile sizes (values at the op's real shapes)."""

    consts: tuple[tuple[str, int, int], ...]   # (name, line, writer's value)
    writer_bytes: int                          # UB bytes of the bufferized program at the writer's sizes
    capacity: int
    single_lines: tuple[int, ...]              # lines whose tiles are single-buffered at the writer's sizes
    used: tuple[int, ...] | None               # values lower uses, when they differ from the writer's
    double: tuple[int, ...] | None             # largest values that keep every loop queue double-buffered
    writer_fits: bool = False                  # the writer's sizes fit (used: only to keep two slots)

    def spelled(self, values) -> str:
        return ", ".join(f"{name} = {v}" for (name, _, _), v in zip(self.consts, values))

    def written(self) -> str:
        """The writer's sizes, spelled: ``T = 8192``."""
        return self.spelled([v for _, _, v in self.consts])

    def where(self) -> str:
        """The lines the sizes are written at: ``line 2``."""
        return ", ".join(f"line {line}" for _, line, _ in self.consts)

    def describe(self) -> str:
        """The report's note."""
        writer = self.written()
        lines = ", ".join(map(str, self.single_lines))
        if self.used is not None and self.writer_fits:
            return (f"fit: at {writer} the tiles of line(s) {lines} have one queue slot or none, so their copies "
                    f"would not overlap the compute; lowered with {self.spelled(self.used)} (double-buffered)")
        if self.used is not None:
            how = "double-buffered" if self.used == self.double else "single-buffered"
            return (f"fit: at {writer} the lowering's buffers take {self.writer_bytes:,} bytes of the "
                    f"{self.capacity:,}-byte UB; lowered with {self.spelled(self.used)} ({how})")
        keep = f"; {self.spelled(self.double)} keeps double buffering" if self.double else ""
        return f"fit: at {writer} the tiles of line(s) {lines} are single-buffered{keep}"


@dataclass(frozen=True)
class Fit(LoweringPass):
    name: str = "fit"
    establishes: tuple[str, ...] = ("tile sizes are ones whose buffers fit the UB at the op's real shapes",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        sizes = tile_constants(kernel)
        plan = _Trial(kernel, ctx, sizes)
        writer = plan.at(None)
        if writer.fits and not writer.single:
            return kernel
        if not sizes:
            return kernel          # bufferize's budget check says what does not fit
        double = _largest(plan, lambda t: t.fits and not t.single)
        used = None
        if not writer.fits:      # the largest size keeping two slots, else the largest that fits
            used = double if double is not None else _largest(plan, lambda t: t.fits)
        elif double is not None:   # the writer's size fits only with loop tiles that cannot overlap their copies
            used = double
        fit = TileFit(tuple(plan.consts), writer.bytes, plan.capacity, writer.single,
                      None if used is None else plan.values(used),
                      None if double is None or plan.values(double) == plan.written else plan.values(double),
                      writer_fits=writer.fits)
        ctx.notes.append(fit.describe())
        ctx.fits.append(fit)
        return kernel if used is None else plan.kernel(used)


def tile_constants(kernel: A.Kernel) -> list[str]:
    """Names of the kernel's tile-size constants (see the module doc), largest value first."""
    literal = {s.name: _literal(s.value).value for s in kernel.body
               if isinstance(s, A.Const) and _literal(s.value) is not None}
    derived = {s.name: s.value for s in kernel.body if isinstance(s, A.Const) and s.name not in literal}
    allowed = _allowed_name_ids(kernel)
    bad = set()
    for n in A.walk(kernel):
        if isinstance(n, A.Name) and id(n) not in allowed:
            bad.add(n.id)
    for s in kernel.body:                        # GM workspaces and views sized by a constant keep it
        if isinstance(s, A.Scratch):
            bad |= {d for d in s.type.shape if isinstance(d, str)}
        elif isinstance(s, A.View):
            bad |= {d for d in s.shape if isinstance(d, str)}
    # a constant defined from a tile size is one too, and its uses must qualify
    changed = True
    while changed:
        changed = False
        for name, value in derived.items():
            if name in bad:
                uses = A.names_in(value)
                new = uses - bad
                if new:
                    bad |= new
                    changed = True
    names = [n for n in literal if n not in bad]
    return sorted(names, key=lambda n: -literal[n])


def _literal(value) -> A.Int | None:
    """The integer a tile-size constant is written with: ``T = 8192``, or the bound of
    ``T = minimum(C, 8192)`` (a tile of at most 8192, fewer when the axis is shorter)."""
    if isinstance(value, A.Int):
        return value if value.value > 0 else None
    if isinstance(value, A.Call) and value.func == "minimum" and len(value.args) == 2:
        ints = [a for a in value.args if isinstance(a, A.Int) and a.value > 0]
        return ints[0] if len(ints) == 1 else None
    return None


def _with_literal(value, n: int):
    """``value`` with its :func:`_literal` set to ``n``."""
    if isinstance(value, A.Int):
        return replace(value, value=n)
    return replace(value, args=tuple(replace(a, value=n) if a is _literal(value) else a for a in value.args))


def _allowed_name_ids(kernel: A.Kernel) -> set[int]:
    """ids of the Name nodes in positions where a tile size may change freely. Besides steps and
    slice lengths, the tiles of a parallel loop (``for b in parallel(cdiv(S, T))`` reading
    ``x[b * T:b * T + T]``): ``T`` as a tile count's divisor and, for a ``T`` that is one, as the
    factor of a slice's start (the tile's position)."""
    ok: set[int] = set()
    counted = {d.id for d in map(_tile_count_divisor, A.walk(kernel)) if d is not None}
    for n in A.walk(kernel):
        if isinstance(n, A.For) and isinstance(n.step, A.Name):
            ok.add(id(n.step))
        elif _tile_count_divisor(n) is not None:
            ok.add(id(_tile_count_divisor(n)))
        elif isinstance(n, A.Slice):
            if isinstance(n.stop, A.Binary) and n.stop.op == "+":
                ok |= {id(d) for d in (n.stop.lhs, n.stop.rhs) if isinstance(d, A.Name)}
            ok |= {id(d) for bound in (n.start, n.stop) for d in _tile_positions(bound, counted)}
        elif isinstance(n, A.Call) and n.func in ("zeros", "full", "iota", "Duplicate") and n.args:
            # a new tile's extents: zeros((T,), f32), iota(T, i32, start=j), the lowered Duplicate(T, 1.0, f32)
            shape = n.args[0].items if isinstance(n.args[0], A.Tuple) else (n.args[0],)
            ok |= {id(d) for d in shape if isinstance(d, A.Name)}
        elif isinstance(n, A.Const):
            ok |= {id(d) for d in A.walk(n.value) if isinstance(d, A.Name)}
    return ok


def _tile_count_divisor(n) -> A.Name | None:
    """``T`` of a tile count ``cdiv(S, T)``."""
    if isinstance(n, A.Call) and n.func == "cdiv" and len(n.args) == 2 and isinstance(n.args[1], A.Name):
        return n.args[1]
    return None


def _tile_positions(bound, counted: set[str]) -> list:
    """The ``T`` Names of ``v * T`` products in a slice bound (``b * T`` and ``b * T + T``), for
    ``T`` a tile count's divisor and ``v`` a name (the tile's index)."""
    found = []
    stack = [bound] if bound is not None else []
    while stack:
        e = stack.pop()
        if isinstance(e, A.Binary) and e.op == "+":
            stack += [e.lhs, e.rhs]
        elif isinstance(e, A.Binary) and e.op == "*":
            for v, t in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                if isinstance(v, A.Name) and isinstance(t, A.Name) and t.id in counted:
                    found.append(t)
    return found


@dataclass(frozen=True)
class _Outcome:
    fits: bool
    bytes: int
    single: tuple[int, ...]       # lines of loop tiles left with one queue slot, or none (no room)


class _Trial:
    """The kernel's buffers at candidate tile sizes: ``bufferize`` and ``pipeline`` run statically."""

    def __init__(self, kernel, ctx, sizes):
        self.k, self.ctx = kernel, ctx
        self.capacity = ctx.chip.capacity("ub")
        consts = {s.name: s for s in kernel.body if isinstance(s, A.Const)}
        self.consts = [(n, consts[n].span.line if consts[n].span else 0, _literal(consts[n].value).value)
                       for n in sizes]
        self.align = [_align(v) for _, _, v in self.consts]
        self.written = tuple(v for _, _, v in self.consts)
        self._seen: dict[int | None, _Outcome] = {}

    def values(self, top: int) -> tuple[int, ...]:
        """Every tile size scaled as the first one is to ``top``, on its alignment."""
        first = self.consts[0][2]
        return tuple(v if top == first else max(a, (v * top // first) // a * a)
                     for (_, _, v), a in zip(self.consts, self.align))

    def kernel(self, top: int) -> A.Kernel:
        new = dict(zip((n for n, _, _ in self.consts), self.values(top)))
        body = tuple(replace(s, value=_with_literal(s.value, new[s.name]))
                     if isinstance(s, A.Const) and s.name in new else s for s in self.k.body)
        return replace(self.k, body=body)

    def at(self, top: int | None) -> _Outcome:
        """The outcome at first size ``top``; None (or sizes equal to the writer's): the writer's kernel."""
        if top is not None and self.values(top) == self.written:
            top = None
        if top not in self._seen:
            self._seen[top] = self._run(self.k if top is None else self.kernel(top))
        return self._seen[top]

    def _run(self, kernel) -> _Outcome:
        probe = replace(self.ctx, notes=[], fits=[], unqueued=[])
        try:
            buffered = Bufferize().run(kernel, probe)
        except DSLError:
            return _Outcome(False, 0, ())
        try:      # the most any shape set the kernel runs at needs (rows pad to 32 bytes differently)
            total = max(sum(slot_bytes(s.type, const_values(buffered, env, self.ctx.checked.cores)) * s.depth
                            for s in buffered.body if isinstance(s, A.Buffer)) for env in self.ctx.envs())
        except KeyError:
            return _Outcome(False, 0, ())
        if total > self.capacity - SCALAR_RESERVE:
            return _Outcome(False, total, ())
        try:
            piped = Pipeline().run(buffered, probe)
        except DSLError:
            return _Outcome(True, total, ())
        return _Outcome(True, total, tuple(sorted(set(single_buffered_lines(piped)) | set(probe.unqueued))))


def single_buffered_lines(kernel: A.Kernel) -> tuple[int, ...]:
    """Source lines of tiles loaded or stored in a loop through a queue of one slot."""
    single = {s.name for s in kernel.body if isinstance(s, A.Buffer)
              and s.type.space in ("vecin", "vecout") and s.depth == 1}
    return tuple(sorted({s.span.line for s, buffer, in_loop in placements(kernel)
                         if in_loop and buffer in single and s.span is not None}))


def placements(kernel: A.Kernel):
    """``(statement, buffer, in a range loop)`` for each statement that places a tile in a buffer."""
    def visit(stmts, loop: bool):
        for s in stmts:
            if isinstance(s, (A.For, A.ParallelFor)):
                yield from visit(s.body, loop or isinstance(s, A.For))
            elif placed_in(s) is not None:
                yield s, placed_in(s), loop
    yield from visit(kernel.body, False)


def placed_in(s) -> str | None:
    """The buffer or queue a statement's value is placed in (``out=``), if any."""
    value = getattr(s, "value", None)
    out = getattr(value, "out", None)
    if out is None and isinstance(value, A.Call) and isinstance(value.kwarg("out"), A.Name):
        out = value.kwarg("out").id
    return out


def _align(v: int) -> int:
    a = 1
    while v % (a * 2) == 0 and a * 2 <= MAX_ALIGN:
        a *= 2
    return a


def _largest(plan: _Trial, good) -> int | None:
    """The largest first tile size (on its alignment, at most the writer's) for which ``good``
    holds, by bisection: a smaller tile never needs more UB."""
    first, align = plan.consts[0][2], plan.align[0]
    lo, hi = 1, first // align            # in units of the alignment
    if hi < 1 or not good(plan.at(align)):
        return None
    if good(plan.at(hi * align)):
        return hi * align
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if good(plan.at(mid * align)):
            lo = mid
        else:
            hi = mid
    return lo * align
