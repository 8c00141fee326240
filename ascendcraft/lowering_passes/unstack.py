"""Unstack: tiles of rank 3 and 4 become a loop over their leading axis of rank-2 (and rank-3) tiles.

Before (three-address form; ``t`` and ``bt`` are [TB, TN, D] and [TB, 1, D] tiles, ``w`` [TN, D])::

    t = load(x[b:b + TB, n:n + TN, :])
    wt = load(w[n:n + TN, :])
    bt = load(bb[b:b + TB, :, :])
    _t0 = t * wt
    _t1 = _t0 + bt
    store(y[b:b + TB, n:n + TN, :], _t1)

After (same values)::

    wt = load(w[n:n + TN, :])
    for _lead0 in range(minimum(b + TB, B) - maximum(b, 0)):
        t = load(x[maximum(b, 0) + _lead0, n:n + TN, :])
        bt = load(bb[maximum(b, 0) + _lead0, :, :])
        _t0 = t * wt
        _t1 = _t0 + bt
        store(y[maximum(b, 0) + _lead0, n:n + TN, :], _t1)

The vector unit and the copy engines see a tile as rows of one pitch; a rank-3 tile is a stack
of such 2-D tiles, and every operation that keeps its leading axis (element-wise ops with NumPy
broadcasting over the trailing axes, casts, ``where``, reductions, scans and arg-reductions along
a trailing axis, windows over the trailing axes, ``tril``/``triu``, stores of the whole tile) acts on each 2-D tile
of the stack alone. So a *run* of such statements, from the rank-3 loads that start it to the
last statement that uses what they computed, becomes one loop over the leading axis: each load
reads one leading index (the loop runs over the clamped extent of the first one, as the slice
clamps), each store writes one. Statements of the run that do not touch the stack (a [TN, D]
load that broadcasts over it) and stack members of leading extent 1 ([1, 1, D]: the same slice
for every index) move before the loop, in their order (members that keep rank 3 stay in it, for
the next round). Rank-4 tiles take two rounds.

A reduction over the leading axis (``sum``/``mean``/``max``/``min``/``prod``, of a rank-3 tile) or
over the whole tile *folds* the slices: the loop's first index is peeled to start the result, the
loop from index 1 combines each next slice into it, and the statements that read it run after the
loop (they may not read the stack: that would take a second loop)::

    for _lead1 in range(1):
        t = load(x[_lead1, n:n + 16, :])
        s = t
    for _lead0 in range(1, B):
        t = load(x[_lead0, n:n + 16, :])
        s = s + t
    store(y[n:n + 16, :], s)

A store of a value of lower rank (a row, a scalar) to a region of three or four axes is such a
run too: a loop of stores. No AscendC copy or vector op takes a tile of rank 3 or more, so a run
this pass cannot unstack is refused here, at the statement that mixes the leading axis: a scan
or arg-reduction over it, a fold with keepdims or beside the tiles it reduces, a slice of the
stack, a padded load, a matmul, gather or scatter, a stack value carried across iterations or used
after the run, two stack loads of different leading extents, or a statement between the run's
members that cannot move before the loop (a store, a loop, a name an earlier member reads).

Establishes: no on-chip tile has rank 3 or more.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import NamedTuple

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.ops import OPS
from ascendcraft.dsl.types import TTile
from ascendcraft.errors import DSLError

from .base import LoweringPass, Names, binary, call, dim_expr, int_literal, name

# ops that act on each leading index alone whatever their operands' ranks (NumPy broadcasting
# aligns trailing axes, so an operand of lower rank is the same for every leading index)
_PER_ELEMENT_KINDS = ("elementwise", "cast", "select")
_ALONG_AXIS_KINDS = ("reduce", "scan", "argreduce")
# reductions that fold the leading axis: the first slice's value, then combined with each next one
_FOLD_OPS = {"sum": "+", "mean": "+", "prod": "*", "max": "maximum", "min": "minimum"}
_MAX_ROUNDS = 3      # rank 4 -> 3 -> 2, and one round that finds nothing
LOOP_STEM = "_lead"  # the loops this pass makes (select says so when it refuses a statement in one)


@dataclass(frozen=True)
class Unstack(LoweringPass):
    name: str = "unstack"
    establishes: tuple[str, ...] = ("no on-chip tile has rank 3 or more: runs of them are loops over their leading axis",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        from ascendcraft.dsl.checker import check
        checked = ctx.checked
        for _ in range(_MAX_ROUNDS):
            new = _Unstacker(kernel, checked, ctx.notes).run()
            if new == kernel:
                return kernel
            kernel = new
            checked = check(kernel, ctx.checked.binding, ctx.chip)   # the next round's types
        return kernel


class _Role(Enum):
    """A run statement's place beside the unit flags: a fold, or a statement after the loop."""
    FOLD = "fold"
    AFTER = "after"


_FOLD, _AFTER = _Role.FOLD, _Role.AFTER


class _Abandon(Exception):
    """A run this pass cannot unstack: ``why`` completes "this statement ..." (see the module
    docstring); ``stmt`` is the statement (set where it is known)."""

    def __init__(self, why: str, stmt=None):
        super().__init__(why)
        self.why, self.stmt = why, stmt


class _Lead(NamedTuple):
    """The leading axis of a GM region: the region's subscripts over every axis (``whole_subscripts``),
    the leading axis (its first slice), whether its extent is 1 by declaration or by the slice's
    text, its first index (clamped at 0) and its clamped extent, as expressions."""
    subs: list
    axis: int
    unit: bool
    lo: object
    extent: object


class _Unstacker:
    def __init__(self, kernel: A.Kernel, checked, notes: list):
        self.k, self.checked, self.notes = kernel, checked, notes
        self.names = Names(kernel)

    def type_of(self, e):
        return self.checked.expr_types.get(id(e))

    def run(self) -> A.Kernel:
        return replace(self.k, body=self._block(self.k.body))

    # ------------------------------------------------------------------ finding runs
    def _block(self, stmts) -> tuple:
        stmts = [replace(s, body=self._block(s.body)) if isinstance(s, (A.For, A.ParallelFor)) else s
                 for s in stmts]
        out, i = [], 0
        while i < len(stmts):
            end = self._run_end(stmts, i) if self._is_seed(stmts[i]) else None
            if end is None:
                out.append(stmts[i])
                i += 1
                continue
            try:
                out += self._unstack(stmts[i:end + 1])
            except _Abandon as why:
                raise self._refusal(why, stmts[i]) from None
            i = end + 1
        return tuple(out)

    def _refusal(self, why: _Abandon, seed) -> DSLError:
        """The error for a run left of rank 3 or more: no AscendC copy or op takes such a tile."""
        t = self.type_of(seed.value) if isinstance(seed, A.Assign) else None
        what = f"the {_shape(t.shape)} tile" if isinstance(t, TTile) else "this region"
        line = f" (line {seed.span.line})" if seed.span is not None else ""
        return DSLError(
            f"unstack: {what}{line} has rank 3 or more, which lowers only as a loop over its leading axis "
            f"(one slice at a time), and this statement {why.why}", (why.stmt or seed).span, kind="lowering error",
            hint="compute it one leading index at a time yourself (`for a in range(...)` over 2-D loads), or load "
                 "a region of one or two axes; the language reference (docs/dsl.md), \"Writing kernels that lower "
                 "to AscendC\", lists what lowers")

    def _rank(self, e) -> int:
        t = self.type_of(e)
        return len(t.shape) if isinstance(t, TTile) else 0

    def _is_seed(self, s) -> bool:
        """A rank-3 or rank-4 load, or a store to a region of three or four axes."""
        return self._seed_rank(s) >= 3

    def _seed_rank(self, s) -> int:
        if isinstance(s, A.Assign) and isinstance(s.value, A.Load):
            return self._rank(s.value)
        if isinstance(s, A.Store) and isinstance(s.dst, A.Index) and isinstance(s.dst.base, A.Name):
            return sum(isinstance(x, A.Slice) for x in self._subscripts(s.dst)[0])
        return 0

    def _run_end(self, stmts, i) -> int:
        """The last statement of the run that starts at ``stmts[i]``: the last one that reads a
        value the run defines (a name reassigned outside the run no longer holds one), or another
        rank-3 load before it."""
        stack, end = ({stmts[i].target} if isinstance(stmts[i], A.Assign) else set()), i
        for j in range(i + 1, len(stmts)):
            s = stmts[j]
            if _reads(s) & stack or self._is_seed(s):
                end = j
                if isinstance(s, A.Assign):
                    stack.add(s.target)
            elif isinstance(s, A.Assign):
                stack.discard(s.target)
        return end

    # ------------------------------------------------------------------ one run
    def _unstack(self, run: list) -> list:
        stack: dict[str, bool] = {}        # name -> unit (leading extent 1)
        # each statement of the run, in order, with its unit flag; None for one that does not touch
        # the stack (it moves before the loop), FOLD for a reduction over the leading axis (carried
        # through the loop) and AFTER for a statement that reads only folds' results (after the loop)
        placed: list[tuple[object, object]] = []
        after: set[str] = set()            # names of the folds' results and of what is computed from them
        after_stores: set[str] = set()     # the tensors statements after the loop store to
        read_before: set[str] = set()
        top = max(self._seed_rank(s) for s in run)   # lower-rank loads broadcast: others
        extent = None                      # the loop's extent: the first full seed's clamped length
        lead = None                        # that seed's static leading extent
        shapes: set[tuple] = set()         # the full seeds' shapes (for the note)
        for s in run:
            try:
                uses = _reads(s) & set(stack)
                if _reads(s) & after:
                    if uses or not isinstance(s, (A.Assign, A.Store)) or self._seed_rank(s) >= 3:
                        raise _Abandon("combines a reduction over the leading axis with the tiles it reduces "
                                       "(that takes two loops: reduce in one, then use the result in another)")
                    if isinstance(s, A.Assign):
                        after.add(s.target)
                    else:
                        after_stores.add(s.dst.base.id if isinstance(s.dst, A.Index) else s.dst.id)
                    placed.append((s, _AFTER))
                    continue
                if uses and _tensors(s) & after_stores:
                    # it would move before that store, which runs after the loop
                    raise _Abandon("reads or writes a tensor a reduction over its leading axis is stored to before "
                                   "it (the reduction's result is stored after the loop over that axis)")
                if not uses and self._seed_rank(s) != top:
                    if not isinstance(s, A.Assign):
                        raise _Abandon("sits between the statements that use it and cannot move before their loop")
                    if s.target in read_before or s.target in stack:
                        raise _Abandon(f"reassigns `{s.target}`, which the statements before it use")
                    placed.append((s, None))
                    read_before |= _reads(s)
                    continue
                read_before |= _reads(s)
                if isinstance(s, A.Store):
                    self._check_store(s, uses)
                    placed.append((s, False))
                    continue
                if not isinstance(s, A.Assign) or s.target in stack:
                    raise _Abandon("uses it inside a loop" if isinstance(s, (A.For, A.ParallelFor)) else
                                   f"assigns `{getattr(s, 'target', '?')}` a second time")
                if isinstance(s.value, A.Load):
                    if uses:
                        raise _Abandon("loads a region addressed by a value computed from it")
                    unit, n = self._seed(s.value)
                    if not unit:
                        static = self.type_of(s.value).shape[0]
                        if lead is not None and static != lead:
                            raise _Abandon(f"loads a tile of leading extent {static} beside one of {lead}")
                        lead, extent = static, extent or n
                        shapes.add(tuple(self.type_of(s.value).shape))
                elif self._fold(s.value, uses, stack):
                    after.add(s.target)
                    placed.append((s, _FOLD))
                    continue
                else:
                    unit = all(stack[u] for u in uses)
                    self._check_op(s.value, uses)
                stack[s.target] = unit
                placed.append((s, unit))
            except _Abandon as why:
                why.stmt = why.stmt or s
                raise
        self._stays_inside(stack, run)
        full_is_none = extent is None      # a loop of one index: everything stays in it
        if extent is None:
            extent = next((self._region(s.dst).extent for s, _ in placed if isinstance(s, A.Store)), None)
            if extent is None:
                raise _Abandon("computes it but nothing stores it")
        k = self.names.fresh(LOOP_STEM)
        before, body, later = [], [], []
        folds = [s for s, unit in placed if unit is _FOLD]
        first = self.names.fresh(LOOP_STEM) if folds else k    # the first index, peeled: it starts the folds
        peel = []
        for s, unit in placed:
            # what stays of rank 3 after this round is unstacked by the next one, with the loop's
            # own stack: it stays in the loop (a load of the same region, or an op of them, per index)
            if unit is None and self._is_seed(s):
                body.append(s)
                if folds:
                    peel.append(s)
            elif unit is None:
                before.append(s)
            elif unit is _AFTER:
                later.append(s)
            elif unit is _FOLD:
                peel.append(replace(s, value=self._slice_value(s.value)))
                body += self._folded(s)
            else:
                inside = not unit or full_is_none or (isinstance(s, A.Assign) and self._rank(s.value) >= 4)
                (body if inside else before).append(self._per_index(s, k, unit))
                if inside and folds:
                    peel.append(self._per_index(s, first, unit))
        for s in folds:             # a mean: the sum (of slices, or of their means) over the count
            if s.value.func == "mean":
                later.insert(0, A.Assign(s.target, binary("/", name(s.target), extent), s.span))
        shapes = sorted(shapes)
        self.notes.append(f"unstack: the {' and '.join(_shape(s) for s in shapes)} tiles of lines "
                          f"{_lines(run)} are computed one leading index at a time (a loop of "
                          f"{' and '.join(_shape(s[1:]) for s in shapes)} tiles)"
                          + (f", reducing over it into {', '.join(f'`{s.target}`' for s in folds)}" if folds else ""))
        if not folds:
            return before + [A.For(k, A.Int(0), extent, A.Int(1), tuple(body), run[0].span)]
        return before + [A.For(first, A.Int(0), A.Int(1), A.Int(1), tuple(peel), run[0].span),
                         A.For(k, A.Int(1), extent, A.Int(1), tuple(body), run[0].span)] + later

    def _fold(self, e, uses: set, stack: dict) -> bool:
        """``e`` reduces a full stack member over its leading axis (or over all axes) into a tile of
        rank 2 or less: the loop folds it, slice by slice."""
        if not (isinstance(e, A.Call) and e.func in _FOLD_OPS and e.args and isinstance(e.args[0], A.Name)
                and e.args[0].id in uses):
            return False
        rank_in, axis = self._rank(e.args[0]), _axis(e)
        if axis is not None and axis % rank_in != 0:
            return False
        if stack[e.args[0].id]:
            raise _Abandon(f"applies `{e.func}` over its leading axis of extent 1 or over the whole tile (load the "
                           f"region with an index, x[b, ...] rather than x[b:b + 1, ...], and reduce that)")
        keep = e.kwarg("keepdims")
        if isinstance(keep, A.Name) and keep.id == "True":
            raise _Abandon(f"applies `{e.func}` over its leading axis with keepdims=True (write keepdims=False: "
                           f"the result is then one slice's shape)")
        if axis is not None and rank_in > 3:
            raise _Abandon(f"applies `{e.func}` over the leading axis of a rank-{rank_in} tile (reduce over the "
                           f"leading axis of rank-3 tiles, or over another axis)")
        return True

    @staticmethod
    def _slice_value(e: A.Call):
        """One slice's part of fold ``e``: the slice itself (over the leading axis), or the slice
        reduced whole (over all axes)."""
        x = e.args[0]
        return x if _axis(e) is not None else replace(e, kwargs=())

    def _folded(self, s: A.Assign) -> list:
        """Fold ``s``'s result combined with the next slice's part (a whole-slice reduction is a
        statement of its own: the passes after this one take one op per statement)."""
        op, part, out = _FOLD_OPS[s.value.func], self._slice_value(s.value), []
        if not isinstance(part, A.Name):
            tmp = self.names.fresh("_f")
            out.append(A.Assign(tmp, part, s.span))
            part = name(tmp)
        combined = binary(op, name(s.target), part) if op in "+*" else call(op, name(s.target), part)
        return out + [replace(s, value=combined)]

    def _seed(self, load: A.Load) -> tuple[bool, object]:
        """(unit, clamped extent) of a rank-3 load's leading axis."""
        if load.pad is not None:
            raise _Abandon("is a padded load (pad=) of rank 3 or more: pad each leading index's 2-D load instead")
        if load.space != "ub" or load.out is not None or not isinstance(load.src, A.Index):
            raise _Abandon(f"loads it into {load.space} (only unified-buffer tiles are unstacked)")
        lead = self._region(load.src)
        return lead.unit, lead.extent

    def _region(self, ix) -> _Lead:
        subs, axis, ty = self._subscripts(ix)
        sl = subs[axis]
        dim = dim_expr(ty.shape[axis])
        start = sl.start if sl.start is not None else A.Int(0)
        lo = start if (int_literal(start) or 0) >= 0 and int_literal(start) is not None else call("maximum", start, A.Int(0))
        hi = dim if sl.stop is None else call("minimum", sl.stop, dim)
        unit = ty.shape[axis] == 1 or (sl.stop is not None and (
            sl.stop == binary("+", start, A.Int(1)) or
            None not in (int_literal(start), int_literal(sl.stop)) and int_literal(sl.stop) - int_literal(start) == 1))
        return _Lead(subs, axis, unit, lo, hi if int_literal(lo) == 0 else binary("-", hi, lo))

    def _subscripts(self, ix) -> tuple[list, int, A.TensorType]:
        """The region's subscripts with the omitted trailing axes as whole slices, the index of its
        first slice (the tile's leading axis) and the tensor's type."""
        if not isinstance(ix, A.Index) or not isinstance(ix.base, A.Name):
            raise _Abandon("addresses it in a way the lowering does not follow")
        ty = self.checked.symbols.tensor(ix.base.id).decl
        subs = A.whole_subscripts(ix, len(ty.shape))
        axis = next((a for a, x in enumerate(subs) if isinstance(x, A.Slice)), None)
        return subs, axis if axis is not None else 0, ty

    def _check_op(self, e, uses: set) -> None:
        """``e`` acts on each leading index of its stack operands alone (else the run is abandoned)."""
        rank = self._rank(e)
        if isinstance(e, A.Name):
            return
        if isinstance(e, (A.Binary, A.Unary)) or isinstance(e, A.Call) and e.func in OPS and \
                OPS[e.func].kind in _PER_ELEMENT_KINDS:
            operands = (e.lhs, e.rhs) if isinstance(e, A.Binary) else (e.operand,) if isinstance(e, A.Unary) else e.args
            for x in operands:
                on_stack = isinstance(x, A.Name) and x.id in uses
                if (on_stack and self._rank(x) != rank) or (not on_stack and self._rank(x) >= rank) or \
                        (not on_stack and A.names_in(x) & uses):
                    raise _Abandon("combines it with a tile that broadcasts along its leading axis or has its rank "
                                   "without being computed beside it")
            return
        what = f"`{e.func}`" if isinstance(e, A.Call) else "a slice" if isinstance(e, A.Index) else "this"
        per_index = ("only element-wise ops, casts, where, reductions, scans and argmax/argmin along another axis, "
                     "windows over the trailing axes, tril/triu and stores of the whole tile act on one leading "
                     "index alone")
        if not isinstance(e, A.Call) or e.func not in OPS or not e.args or \
                not (isinstance(e.args[0], A.Name) and e.args[0].id in uses) or any(A.names_in(x) & uses for x in e.args[1:]):
            raise _Abandon(f"applies {what} to it ({per_index})")
        kind, rank_in = OPS[e.func].kind, self._rank(e.args[0])
        if kind in _ALONG_AXIS_KINDS:
            axis = _axis(e)
            if axis is None or axis % rank_in == 0 or axis < -rank_in or axis >= rank_in:
                raise _Abandon(f"applies `{e.func}` over its leading axis or the whole tile (only sum, mean, max, "
                               f"min and prod fold over it; for {e.func}, a loop over the leading axis that "
                               f"combines 2-D slices, written out, lowers)")
            return
        if kind == "window" and isinstance(e.kwarg("kernel"), A.Tuple) and len(e.kwarg("kernel").items) < rank_in:
            return
        if kind == "triangle" and rank_in >= 3:     # tril/triu: the trailing two axes, slice by slice
            return
        raise _Abandon(f"applies {what} to it ({per_index})")

    def _check_store(self, s: A.Store, uses: set) -> None:
        """A store of a whole stack value to a region of its rank (each index stores one slice)."""
        v = s.value
        subs, _axis, _ty = self._subscripts(s.dst)
        axes = sum(isinstance(x, A.Slice) for x in subs)
        if A.names_in(s.dst) & uses:
            raise _Abandon("addresses GM with a value computed from it")
        if not uses and self._rank(v) < axes:
            return                          # a value that broadcasts over the whole region
        if not (isinstance(v, A.Name) and v.id in uses) or axes != self._rank(v):
            raise _Abandon(f"stores it to a region of {axes} axes (store the whole tile to a region of its rank)")

    def _stays_inside(self, stack: dict, run: list) -> None:
        """Every value of the stack is defined in the run before it is read there, and dies in the
        run (no later statement, and no later iteration of an enclosing loop, reads it), so the
        loop can hold its per-index values."""
        defined: set[str] = set()
        dead: set[str] = set()
        for s in run:
            if _reads(s) & (set(stack) - defined):
                raise _Abandon("reads a value of it from before it is computed (carried across iterations)", s)
            if isinstance(s, A.Assign):
                defined.add(s.target)
            dead |= self.checked.dead_after.get(id(s), frozenset())
        live = sorted(set(stack) - dead)
        if live:
            last = next(m for m in reversed(run) if isinstance(m, A.Assign) and m.target in live)
            raise _Abandon(f"computes `{last.target}`, which is used after these statements or in a later "
                           f"iteration (a value of rank 3 or more must be used where it is computed)", last)

    # ------------------------------------------------------------------ per-index statements
    def _per_index(self, s, k: str, unit: bool):
        """Statement ``s`` of the run on leading index ``k`` (index 0 for a ``unit`` load)."""
        if isinstance(s, A.Store):
            return replace(s, dst=self._indexed(s.dst, k, unit=False))
        e = s.value
        if isinstance(e, A.Load):
            return replace(s, value=replace(e, src=self._indexed(e.src, k, unit=unit)))
        if isinstance(e, A.Call) and OPS.get(e.func) and OPS[e.func].kind in _ALONG_AXIS_KINDS:
            axis = _axis(e)
            if axis > 0:
                kwargs = tuple(kw for kw in e.kwargs if kw.name != "axis") + (A.Keyword("axis", A.Int(axis - 1)),)
                return replace(s, value=replace(e, kwargs=kwargs))
        return s

    def _indexed(self, ix: A.Index, k: str, *, unit: bool) -> A.Index:
        lead = self._region(ix)
        subs = list(lead.subs)
        subs[lead.axis] = lead.lo if unit else name(k) if int_literal(lead.lo) == 0 else binary("+", lead.lo, name(k))
        return replace(ix, subscripts=tuple(subs))


def unstacked_statements(kernel: A.Kernel) -> set[int]:
    """``id`` of every statement inside a loop this pass made (``select`` says so in its refusals)."""
    return {id(n) for loop in A.walk(kernel) if isinstance(loop, A.For) and loop.var.startswith(LOOP_STEM)
            for n in A.walk(loop) if n is not loop}


def _axis(e: A.Call) -> int | None:
    """The ``axis=`` of a reduction, scan or arg-reduction (its default when omitted); None for all axes."""
    axis = e.kwarg("axis")
    return OPS[e.func].kwargs.get("axis") if axis is None else int_literal(axis)


def _reads(s) -> set[str]:
    if isinstance(s, A.Assign):
        return A.names_in(s.value)
    return A.names_in(s) | {n.name for n in A.walk(s) if isinstance(n, A.Free)}


def _tensors(s) -> set[str]:
    """The GM tensors statement ``s`` loads from or stores to."""
    regions = [n.src for n in A.walk(s) if isinstance(n, A.Load)] + ([s.dst] if isinstance(s, A.Store) else [])
    return {(r.base if isinstance(r, A.Index) else r).id for r in regions
            if isinstance(r.base if isinstance(r, A.Index) else r, A.Name)}


def _shape(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _lines(run: list) -> str:
    lines = sorted({s.span.line for s in run if s.span is not None})
    if not lines:
        return "?"
    return str(lines[0]) if lines[0] == lines[-1] else f"{lines[0]}-{lines[-1]}"
