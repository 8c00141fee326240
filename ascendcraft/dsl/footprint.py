"""Liveness and on-chip footprint of a checked kernel.

For every statement: which variables die after it (the interpreter frees them, so
its run-time accounting matches), and the bytes live in each on-chip space while it
runs: live variables plus the temporaries of its expressions, evaluated in order
with each operand freed once its consumer is done.
"""
from __future__ import annotations

from ..errors import DSLError
from . import ast as A
from .ops import OPS
from .types import TTile

SPACES = ("ub", "l1", "l0c")


def _defs(s) -> set[str]:
    if isinstance(s, (A.Assign,)):
        return {s.target}
    if isinstance(s, (A.Const, A.Scratch, A.View)):
        return {s.name}
    if isinstance(s, A.For):
        return {s.var} | set().union(*(_defs(b) for b in s.body))
    if isinstance(s, A.ParallelFor):
        return set(s.vars) | set().union(*(_defs(b) for b in s.body))
    return set()


def _uses(s) -> set[str]:
    if isinstance(s, A.Assign):
        return A.names_in(s.value)
    if isinstance(s, A.Const):
        return A.names_in(s.value)
    if isinstance(s, A.Store):
        return A.names_in(s.dst) | A.names_in(s.value)
    if isinstance(s, A.For):
        return A.names_in(s.start) | A.names_in(s.stop) | A.names_in(s.step) | \
            set().union(*(_uses(b) for b in s.body))
    if isinstance(s, A.ParallelFor):
        return set().union(*(A.names_in(e) for e in s.extents)) | set().union(*(_uses(b) for b in s.body))
    if isinstance(s, A.Free):
        return {s.name}
    return set()


# A statement's names read and defined: most statements of a level are the level before's.
_SETS = A.ByNode(200_000)


def _uses_defs(s) -> tuple[frozenset, frozenset]:
    """(names statement ``s`` (not a loop) reads, names it defines)."""
    return _SETS.get(s, lambda s: (frozenset(_uses(s)), frozenset(_defs(s))))


def _is_cube_accumulate(e, types) -> bool:
    """``acc + matmul(a, b)`` (either order) on l0c tiles."""
    if not (isinstance(e, A.Binary) and e.op == "+"):
        return False
    t = types.get(id(e))
    return isinstance(t, TTile) and t.space == "l0c" and any(
        isinstance(x, A.Call) and x.func == "matmul" for x in (e.lhs, e.rhs))


def stored_product(e, types) -> bool:
    """``matmul(...)`` whose result is a ub tile (a streamed product: docs/dsl.md), as a store's value."""
    t = types.get(id(e))
    return isinstance(e, A.Call) and e.func == "matmul" and isinstance(t, TTile) and t.space == "ub"


#: The API ops (lowered levels) that may write over an operand of the result's type (bufferize
#: pairs them, through same_type_operands).
IN_PLACE_FORMS = ("unary", "binary", "scalar", "rowvec", "colvec", "axpy")


def same_type_operands(e, types) -> list:
    """The operands of an element-wise op (operator, builtin or API op) of the result's tile type."""
    if isinstance(e, (A.Unary, A.Binary)):
        operands = (e.operand,) if isinstance(e, A.Unary) else (e.lhs, e.rhs)
    elif isinstance(e, A.Call) and e.func in OPS and OPS[e.func].form == "axpy":
        operands = e.args[:1]      # it accumulates into its first operand, and can write over no other
    elif isinstance(e, A.Call) and e.func in OPS and (
            OPS[e.func].kind == "elementwise" or OPS[e.func].form in IN_PLACE_FORMS):
        operands = e.args
    else:
        return []
    t = types.get(id(e))
    return [x for x in operands if types.get(id(x)) == t] if isinstance(t, TTile) else []


def writes_over_operand(e, types, dying=frozenset(), operands=None) -> bool:
    """An element-wise op with an operand of the result's type that ends with it: a temporary made by
    the same expression, or a variable in ``dying`` (see dying_operands). The result takes that
    operand's place (the lowering places it in the operand's buffer), so it holds no memory of its
    own. The interpreter's accounting and the footprint share this rule (``operands``: the
    expression's same_type_operands, when the caller has them)."""
    if operands is None:
        operands = same_type_operands(e, types)
    return any(not isinstance(x, A.Name) or x.id in dying for x in operands)


def writes_over_variable(e, types, dying) -> bool:
    """``writes_over_operand`` where the operand lives in a dying variable's memory (is the variable,
    or wrote over it in turn): the result adds nothing to the statement's temporaries either."""
    return any(x.id in dying if isinstance(x, A.Name) else writes_over_variable(x, types, dying)
               for x in same_type_operands(e, types))


def dying_operands(s, dead) -> frozenset:
    """The variables statement ``s`` reads for the last time (``dead``) and only once: an
    element-wise op may write over them."""
    if not isinstance(s, (A.Assign, A.Store)):
        return frozenset()
    return frozenset(n for n, k in A.name_counts(s).items() if k == 1 and n in dead)


def _loop_head(s) -> tuple[set, set]:
    """(names a loop's header reads, its loop variables)."""
    if isinstance(s, A.For):
        return A.names_in(s.start) | A.names_in(s.stop) | A.names_in(s.step), {s.var}
    return set().union(*(A.names_in(e) for e in s.extents)), set(s.vars)


class _Analysis:
    def __init__(self, checker):
        self.c = checker
        self.types = checker.expr_types
        self.dead_after: dict[int, frozenset] = {}
        self._summaries: dict[int, tuple[frozenset, frozenset]] = {}
        self.var_bytes = {sp: {} for sp in SPACES}
        for node in A.walk(checker.kernel):
            if isinstance(node, A.Assign):
                t = self.types.get(id(node.value))
                if isinstance(t, TTile):
                    d = self.var_bytes[t.space]
                    d[node.target] = max(d.get(node.target, 0), t.nbytes)
        # the spaces any tile of the kernel lives in: a vector kernel has nothing to measure in L1 or L0C
        found = {t.space for t in self.types.values() if isinstance(t, TTile)}
        self.spaces = tuple(sp for sp in SPACES if sp in found)
        self.peak = {sp: (0, None, ()) for sp in SPACES}
        self.over = {sp: [] for sp in SPACES}   # statements over capacity, reported first in source order
        self.dying: frozenset = frozenset()      # the measured statement's dying_operands

    # ---- liveness
    def block(self, stmts, live_out: set) -> set:
        live = set(live_out)
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live_out: set) -> set:
        if isinstance(s, (A.For, A.ParallelFor)):
            # Liveness is a gen/kill problem: the body's live-in is gen | (X - kill) for what is
            # live after it, so the loop's fixed point (what the back edge carries) is the body's
            # live-in for live_out itself, found from the body's summary without walking it;
            # one walk then records the body's sets. (Iterating walks doubled the time with each
            # level of loop nesting.)
            gen, kill = self._summary(s.body)
            carried = gen | (live_out - kill)
            self.block(s.body, live_out | carried)
            head, loop_vars = _loop_head(s)
            # Conservative: what is live after the loop is live before it (the loop may run zero times).
            live_in = (live_out | carried | head) - loop_vars
            self.dead_after[id(s)] = frozenset((live_in | _defs(s)) - live_out)
        else:
            uses, defs = _uses_defs(s)
            live_in = (live_out - defs) | uses
            self._measure(s, live_in, live_out, defs)
            self.dead_after[id(s)] = frozenset((live_in | defs) - live_out)
        return live_in

    def _summary(self, stmts) -> tuple[frozenset, frozenset]:
        """(gen, kill) of a statement sequence: live-in = gen | (live-out - kill)."""
        key = id(stmts)
        if key not in self._summaries:
            gen, kill = set(), set()   # updated in place: a copy per statement was quadratic in the block
            for st in reversed(stmts):
                if isinstance(st, (A.For, A.ParallelFor)):
                    g_body, _ = self._summary(st.body)
                    head, loop_vars = _loop_head(st)
                    g, k = (g_body | head) - loop_vars, loop_vars
                else:
                    g, k = _uses_defs(st)
                gen -= k
                gen |= g
                kill |= k
            self._summaries[key] = (frozenset(gen), frozenset(kill))
        return self._summaries[key]

    # ---- footprint
    def _result(self, e, space) -> int:
        t = self.types.get(id(e))
        if space == "l0c" and isinstance(e, A.Call) and e.func in ("tril", "triu"):
            return 0   # the accumulator masked as it is stored (the cube lowering): no second one
        if isinstance(t, TTile) and t.space == space and not isinstance(e, A.Name):
            return t.nbytes
        return 0

    def _children(self, e):
        if isinstance(e, A.Binary):
            return [e.lhs, e.rhs]
        if isinstance(e, A.Unary):
            return [e.operand]
        if isinstance(e, A.Call):
            return list(e.args) + [k.value for k in e.kwargs]
        if isinstance(e, A.Index):
            return [e.base] + [x for s in e.subscripts for x in (s.parts() if isinstance(s, A.Slice) else (s,))]
        if isinstance(e, A.Load):
            return [e.src] + ([e.pad] if e.pad is not None else [])
        if isinstance(e, A.Tuple):
            return list(e.items)
        return []

    def _evaluate(self, e, space) -> tuple[int, int, bool]:
        """Evaluating ``e``: (the peak of its temporaries in ``space``, the bytes its result adds to
        the statement's temporaries, whether it writes over a dying variable — for a name: is
        one). Each node is visited once: operands of the result's type are among its children."""
        if type(e) is A.Name:
            return 0, 0, e.id in self.dying
        if space == "l0c" and _is_cube_accumulate(e, self.types):   # Mmad accumulates into the accumulator's own buffer
            result, over_variable = self._result(e, space), writes_over_variable(e, self.types, self.dying)
            return result, 0 if over_variable else result, over_variable
        held, peak, overs = 0, 0, {}
        for child in self._children(e):
            child_peak, made, overs[id(child)] = self._evaluate(child, space)
            peak = max(peak, held + child_peak)
            held += made
        operands = same_type_operands(e, self.types)
        result = self._result(e, space)
        in_place = writes_over_operand(e, self.types, self.dying, operands)
        over_variable = any(overs[id(x)] for x in operands)   # writes_over_variable, from its children
        return max(peak, held + (0 if in_place else result)), 0 if over_variable else result, over_variable

    def _measure(self, s, live_in, live_out, defs):
        exprs = [s.value] if isinstance(s, (A.Assign, A.Const)) else [s.dst, s.value] if isinstance(s, A.Store) \
            else []
        self.dying = dying_operands(s, live_in - live_out)
        live = live_in | live_out
        if isinstance(s, A.Store) and stored_product(s.value, self.types):
            # a streamed product stored as it is goes from the cube to GM in blocks (the cube
            # lowering's IterateAll): it holds no UB, only its operands' evaluation does
            exprs = [s.dst] + self._children(s.value)
        for space in self.spaces:
            sized = self.var_bytes[space]
            held = {v: sized[v] for v in live if v in sized and v not in defs}
            temps, total = 0, 0
            for e in exprs:
                peak, made, _ = self._evaluate(e, space)
                total = max(total, temps + peak)
                temps += made
            size = sum(held.values()) + total
            over = size > self.c.chip.capacity(space)
            if size > self.peak[space][0] or over:
                record = (size, s, tuple(sorted(held.items(), key=lambda kv: -kv[1])))
                if size > self.peak[space][0]:
                    self.peak[space] = record
                if over:
                    self.over[space].append(record)


def footprint(checker):
    """(dead_after, peak) for a checker that has typed the whole kernel; raises on overflow."""
    an = _Analysis(checker)
    an.block(checker.kernel.body, set())
    chip = checker.chip
    for space in SPACES:
        cap = chip.capacity(space)
        if an.over[space]:
            size, stmt, held = min(an.over[space], key=lambda r: (r[1].span.line, r[1].span.column)
                                   if r[1].span else (0, 0))
            live = ", ".join(f"{n} ({b:,} B)" for n, b in held[:6]) or "none"
            own = size - sum(b for _, b in held)
            raise DSLError(
                f"on-chip footprint of {size:,} bytes exceeds the {cap:,}-byte {space.upper()} of {chip.name}: "
                f"{own:,} B of tiles made by this statement, plus live tiles: {live}",
                getattr(stmt, "span", None), kind="memory error",
                hint="use smaller tiles, e.g. for j in range(0, N, T) with a smaller T, and process long rows "
                     "in several passes")
    peak = {sp: (an.peak[sp][0], getattr(an.peak[sp][1], "span", None), an.peak[sp][2]) for sp in SPACES}
    return an.dead_after, peak
