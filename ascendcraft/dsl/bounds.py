"""GM indices bounded at the op's real dims, before anything runs.

The interpreter checks every index it evaluates, but only at the verification shapes; a
kernel can index inside its tensors there and outside them at the real size (``x[b + B //
1000]`` is row ``b`` when B = 49 and runs four rows past the end when B = 4096). This pass
bounds every integer GM index at the real binding.

Index arithmetic is held as affine forms ``c + sum(a_v * v)`` over loop variables (dims,
consts, int attributes and ``CORES`` are numbers here). The largest and smallest value of a
form are found by substituting, innermost loop first, each variable's bound (the last or
first value of its range, itself affine in the outer variables), so correlated loops such as
``for j in range(N - i)`` with ``x[i + j]`` are bounded exactly. What is not affine
(``//``, ``%``, ``minimum``, products of variables) is bounded by intervals and marks the
result inexact. Only exact bounds are reported: an over-approximation never rejects a kernel
(the interpreter still checks those indices at run time). Slices clamp to the tensor by the
language's rules, so only integer indices can leave it.

A data-dependent index, a value loaded from an integer tensor whose values at the real size are
known (the op's index inputs, drawn as its get_inputs() draws them: ``Task.real_integer_inputs``),
is a variable bounded by the smallest and largest value in the part of the tensor the load can
read. Those values occur, so an index that is that value plus numbers is bounded exactly (a table
row ``load(indices[k]) + B // 1000`` leaves the table at the real size); one that also involves
a loop variable is not (the loaded value may depend on it). Values loaded from other tensors
(scratch, outputs, float data) are left to the run.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import DSLError
from . import ast as A


@dataclass(frozen=True)
class Form:
    """``const + sum(coef * var)``; ``exact`` is False once an over-approximation went in."""

    const: int
    coefs: tuple[tuple[str, int], ...] = ()
    exact: bool = True

    @staticmethod
    def number(v: int, exact: bool = True) -> "Form":
        return Form(int(v), (), exact)

    def plus(self, other: "Form", sign: int = 1) -> "Form":
        c = dict(self.coefs)
        for v, a in other.coefs:
            c[v] = c.get(v, 0) + sign * a
        return Form(self.const + sign * other.const, tuple((v, a) for v, a in c.items() if a),
                    self.exact and other.exact)

    def times(self, k: int) -> "Form":
        return Form(self.const * k, tuple((v, a * k) for v, a in self.coefs if a * k), self.exact)


@dataclass(frozen=True)
class _Var:
    lo: Form
    hi: Form


class _Unknown(Exception):
    """The expression is not integer index arithmetic we can bound (a tile, a float)."""


#: Variables standing for a value loaded from GM are named with this prefix.
LOADED = "<load#"


class Bounds:
    def __init__(self, checked, values: dict | None = None):
        self.ck = checked
        self.values = values or {}               # integer GM tensor -> its values at the real size
        b = checked.binding
        self.numbers: dict[str, int] = {k: int(v) for k, v in b.dims.items()}
        self.numbers.update({k: int(v) for k, v in b.attrs.items()
                             if isinstance(v, int) and not isinstance(v, bool)})
        self.numbers["CORES"] = int(checked.cores)
        self.vars: dict[str, _Var] = {}          # loop variables in scope
        self.order: list[str] = []               # outermost first
        self.locals: dict[str, Form] = {}        # int scalars assigned once in scope
        assigned: dict[str, int] = {}
        for n in A.walk(checked.kernel):
            if isinstance(n, A.Assign):
                assigned[n.target] = assigned.get(n.target, 0) + 1
        self.reassigned = {k for k, v in assigned.items() if v > 1}

    # ------------------------------------------------------------ forms
    def form(self, e) -> Form:
        if isinstance(e, A.Int):
            return Form.number(e.value)
        if isinstance(e, A.Name):
            if e.id in self.vars:
                return Form(0, ((e.id, 1),))
            if e.id in self.locals:
                return self.locals[e.id]
            if e.id in self.numbers:
                return Form.number(self.numbers[e.id])
            raise _Unknown(e.id)
        if isinstance(e, A.Unary) and e.op == "-":
            return self.form(e.operand).times(-1)
        if isinstance(e, A.Binary):
            a, b = self.form(e.lhs), self.form(e.rhs)
            if e.op == "+":
                return a.plus(b)
            if e.op == "-":
                return a.plus(b, -1)
            if e.op == "*":
                if not b.coefs:
                    return a.times(b.const).plus(Form.number(0, b.exact))
                if not a.coefs:
                    return b.times(a.const).plus(Form.number(0, a.exact))
            return self._interval_form(e.op, [a, b])
        if isinstance(e, A.Call) and e.func in ("minimum", "maximum", "cdiv") and len(e.args) == 2 and not e.kwargs:
            return self._interval_form(e.func, [self.form(x) for x in e.args])
        if isinstance(e, A.Load) and e.pad is None and isinstance(e.src, A.Index):
            return self._loaded(e.src)
        raise _Unknown(type(e).__name__)

    def _loaded(self, e: A.Index) -> Form:
        """A value loaded from GM: a variable over the values the load can read, when they are known."""
        if not isinstance(e.base, A.Name) or e.base.id not in self.values:
            raise _Unknown("load")
        data = self.values[e.base.id]
        if len(e.subscripts) != data.ndim or data.size == 0:
            raise _Unknown("load")
        box = []
        for sub, dim in zip(e.subscripts, data.shape):
            if isinstance(sub, A.Slice):
                raise _Unknown("load of a slice")       # a tile, not a scalar
            f = self._maybe(sub)
            lo, hi = (0, dim - 1) if f is None else (max(0, self.low(f)), min(dim - 1, self.high(f)))
            if lo > hi:
                raise _Unknown("load")
            box.append(slice(lo, hi + 1))
        part = data[tuple(box)]
        name = f"{LOADED}{len(self.vars)}>"
        self.vars[name] = _Var(Form.number(int(part.min())), Form.number(int(part.max())))
        self.order.insert(0, name)      # outermost: its bounds are numbers
        return Form(0, ((name, 1),))

    def _interval_form(self, op: str, args: list[Form]) -> Form:
        """A non-affine operation: a number when its operands are numbers, else a fresh
        variable bounded by interval arithmetic (inexact)."""
        if all(not f.coefs for f in args):
            a, b = (f.const for f in args)
            value = _apply(op, a, b)
            if value is None:
                raise _Unknown(op)
            return Form.number(value, all(f.exact for f in args))
        corners = [_apply(op, x, y) for x in self.extremes(args[0]) for y in self.extremes(args[1])]
        if op in ("//", "%") and 0 in range(self.low(args[1]), self.high(args[1]) + 1):
            raise _Unknown(op)
        if any(c is None for c in corners):
            raise _Unknown(op)
        lo, hi = min(corners), max(corners)
        if op == "%":
            lo, hi = min(lo, 0), max(hi, self.high(args[1]) - 1)
        name = f"<{op}#{len(self.vars)}>"
        self.vars[name] = _Var(Form.number(lo, False), Form.number(hi, False))
        self.order.insert(0, name)      # outermost: its bounds are numbers
        return Form(0, ((name, 1),), False)

    def extremes(self, f: Form) -> tuple[int, int]:
        return self.low(f), self.high(f)

    def high(self, f: Form) -> int:
        return self._extreme(f, +1).const

    def low(self, f: Form) -> int:
        return self._extreme(f, -1).const

    def _extreme(self, f: Form, sign: int) -> Form:
        """Substitute each variable's bound, innermost first, until a number remains."""
        for v in reversed(self.order):
            a = dict(f.coefs).get(v)
            if not a:
                continue
            var = self.vars[v]
            bound = var.hi if (a > 0) == (sign > 0) else var.lo
            rest = Form(f.const, tuple((w, c) for w, c in f.coefs if w != v), f.exact)
            f = rest.plus(bound.times(a))
        return f

    # ------------------------------------------------------------ walk
    def block(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, A.For):
            self._loop(s)
        elif isinstance(s, A.ParallelFor):
            saved = dict(self.vars), list(self.order)
            for v, ext in zip(s.vars, s.extents):
                n = self._maybe(ext)
                if n is not None and not n.coefs and n.const <= 0:
                    self.vars, self.order = saved
                    return          # no iteration at the real shapes
                if n is None:
                    hi = Form.number(1 << 62, False)
                else:   # exact only where the loop runs for every value of the outer variables
                    hi = Form(n.const - 1, n.coefs, n.exact and self.low(n) >= 1)
                self.vars[v] = _Var(Form.number(0), hi)
                self.order.append(v)
            self.block(s.body)
            self.vars, self.order = saved
        elif isinstance(s, A.Const):
            f = self._maybe(s.value)
            if f is not None and not f.coefs:
                self.numbers[s.name] = f.const
            elif f is not None:
                self.locals[s.name] = f
        elif isinstance(s, A.Assign):
            self._indices(s.value)
            form = self._maybe(s.value) if s.target not in self.reassigned else None
            if form is not None:
                self.locals[s.target] = form
            else:
                self.locals.pop(s.target, None)
        elif isinstance(s, A.Store):
            self._indices(s.dst)
            self._indices(s.value)
        else:
            for child in A.walk(s):
                if isinstance(child, A.Index) and child is not s:
                    self._index(child)

    def _loop(self, s: A.For) -> None:
        start, stop, step = self._maybe(s.start), self._maybe(s.stop), self._maybe(s.step)
        self._indices(s.start), self._indices(s.stop)
        saved = dict(self.vars), list(self.order)
        if start is not None and stop is not None and step is not None and not step.coefs and step.const > 0:
            k = step.const
            if not start.coefs and not stop.coefs:
                # concrete range: its true last value
                n = max(0, -(-(stop.const - start.const) // k))
                if n == 0:
                    self.vars, self.order = saved
                    return      # no iteration at the real shapes
                hi = Form.number(start.const + (n - 1) * k, start.exact and stop.exact)
            else:
                # exact only with step 1 and a loop that runs for every value of the outer variables
                nonempty = self.low(stop.plus(start, -1)) >= 1
                hi = Form(stop.const - 1, stop.coefs, stop.exact and start.exact and k == 1 and nonempty)
            self.vars[s.var] = _Var(start, hi)
        else:
            self.vars[s.var] = _Var(Form.number(-(1 << 62), False), Form.number(1 << 62, False))
        self.order.append(s.var)
        self.block(s.body)
        self.vars, self.order = saved

    def _maybe(self, e) -> Form | None:
        try:
            return self.form(e)
        except _Unknown:
            return None

    def _indices(self, e) -> None:
        if e is None:
            return
        for child in A.walk(e):
            if isinstance(child, A.Index):
                self._index(child)

    def _index(self, e: A.Index) -> None:
        if not isinstance(e.base, A.Name):
            return
        symbols = self.ck.symbols
        t = symbols.tensor(e.base.id).gm if symbols is not None and symbols.is_tensor(e.base.id) else None
        shape = getattr(t, "shape", None)
        if shape is None:
            return        # a tile: indexed on chip, checked by the interpreter
        for axis, (sub, dim) in enumerate(zip(e.subscripts, shape)):
            if isinstance(sub, A.Slice):
                continue
            f = self._maybe(sub)
            if f is None:
                continue
            hi, lo = self._extreme(f, +1), self._extreme(f, -1)
            # a loaded value beside a loop variable: the two may move together, so not exact
            exact = not (any(v.startswith(LOADED) for v, _ in f.coefs) and len(f.coefs) > 1)
            over = exact and hi.exact and hi.const >= dim
            under = exact and lo.exact and lo.const < 0
            if over or under:
                value = hi.const if over else lo.const
                raise DSLError(
                    f"GM index out of range at the op's real shapes: the index on axis {axis} of "
                    f"{e.base.id} (extent {dim}) reaches {value}" + (f", past the last index {dim - 1}" if over
                                                                     else ", below 0")
                    + f" ({_scope(self)})",
                    getattr(sub, "span", None) or e.span, kind="index error",
                    hint="the kernel is run at smaller shapes to verify it; make the index hold at every "
                         "size (derive it from the loop variables and the dims, e.g. minimum(i, D - 1))")


def _scope(b: Bounds) -> str:
    names = [v for v in b.order if not v.startswith("<")]
    return "with " + ", ".join(f"{v} up to {b.high(b.vars[v].hi.plus(Form.number(0)))}" for v in names) \
        if names else "for every value of the loop variables"


def _apply(op: str, a: int, b: int) -> int | None:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "//":
        return a // b if b else None
    if op == "%":
        return a % b if b else None
    if op == "minimum":
        return min(a, b)
    if op == "maximum":
        return max(a, b)
    if op == "cdiv":
        return -(-a // b) if b else None
    return None


def check_gm_bounds(checked, values: dict | None = None) -> None:
    """Raise a located DSLError for the first GM index that leaves its tensor at ``checked``'s
    binding (the op's real dims); ``values`` (kernel tensor name -> array) are the integer
    inputs' values there, which bound the indices loaded from them."""
    try:
        Bounds(checked, values).block(checked.kernel.body)
    except DSLError as err:
        raise err.located(checked.kernel.source) from None
