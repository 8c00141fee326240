"""NumPy interpreter for the tile DSL: the semantic reference every later stage is checked against.

Arithmetic happens in the declared dtype (f16 in float16, bf16 rounded to bf16 after
every op), one NumPy call per tile operation. Parallel loops run each core's share
of the iterations; on-chip capacity is enforced with the exact (tail-clamped) tile
sizes, and cores writing or reading each other's GM results within one phase are
reported as races.

The IR is compiled once into nested Python closures (one per node), so running a
tile loop costs a few function calls per operation rather than a tree walk; a node
with no rule fails when the kernel is compiled, before anything runs.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np

from .. import dtypes as D
from ..errors import DSLError
from . import ast as A
from .checker import CheckedKernel
from .footprint import dying_operands, stored_product, writes_over_operand, writes_over_variable
from .interp_calls import CallInterpreter
from .interp_values import (
    ATOMIC_WRITER,
    SPACE_INDEX,
    SPACES,
    STEP_BUDGET,
    BufferState,
    GMTensor,
    Tile,
    runtime_error,
    scalar_binary,
)
from .ops import BINARY_OPERATORS, CONSTANT_NAMES, OPS, UNARY_OPERATORS
from .types import TScalar, TStr, TTile, TTuple, on_vector

_MISSING = object()


@contextmanager
def _one_torch_thread():
    """Torch's own thread pool off while a kernel runs. The ops that call torch (erf) work on one
    tile at a time, elementwise (the same bits whatever the thread count); a parallel region per
    tile costs far more than it saves, and up to milliseconds a call on a loaded machine, where
    its second thread waits for a core (gelu's check spent most of its time there)."""
    torch = sys.modules.get("torch")
    n = torch.get_num_threads() if torch is not None else 1
    if n == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


class Interpreter(CallInterpreter):
    def __init__(self, checked: CheckedKernel, *, cores: int | None = None, check_races: bool = True):
        self.ck = checked
        self.kernel = checked.kernel
        self.chip = checked.chip
        self.cores = cores or checked.cores
        self.check_races = check_races and self.cores > 1
        self.capacity = [self.chip.capacity(sp) for sp in SPACES]
        self.types = checked.expr_types
        self.core = 0
        self.in_phase = False
        self.temps = [0, 0, 0]
        self.live = [0, 0, 0]
        self.dying: frozenset = frozenset()   # the statement being compiled's dying_operands (footprint)
        self.stmt = None
        self.fixed: dict[str, object] = {}
        self.gm: dict[str, GMTensor] = {}
        self.buffers: dict[str, BufferState] = {}
        self.lowered = bool(checked.buffers)
        if self.lowered:  # the checker proved the declared buffers fit; tiles live inside them
            self.capacity = [1 << 62] * len(SPACES)
        self.locals = {n.target for n in A.walk(checked.kernel) if isinstance(n, A.Assign)} | \
            {n.var for n in A.walk(checked.kernel) if isinstance(n, A.For)} | \
            {v for n in A.walk(checked.kernel) if isinstance(n, A.ParallelFor) for v in n.vars} | \
            {n.kwarg("taps").items[0].id for n in A.walk(checked.kernel)   # a tap product's variable (cube_taps)
             if A.is_tap_product(n)}
        try:
            self.code = self._block(checked.kernel.body)
        except DSLError as err:
            raise err.located(checked.kernel.source) from None

    # ------------------------------------------------------------ entry
    def run(self, gm: dict[str, np.ndarray]) -> None:
        """Run the kernel on GM arrays given by parameter name; outputs are written in place."""
        fixed = self.fixed
        fixed.clear()
        fixed.update(self.ck.binding.dims)
        fixed["CORES"] = self.cores
        self.steps = 0
        self.gm = {}
        self.buffers.clear()
        for p in self.kernel.inputs + self.kernel.outputs:
            t = self.ck.params[p.name]
            if hasattr(t, "role"):
                if p.name not in gm:
                    raise runtime_error(f"no array given for GM parameter {p.name!r}", p, kind="binding error")
                arr = gm[p.name]
                if tuple(arr.shape) != t.shape:
                    raise runtime_error(f"{p.name} has shape {tuple(arr.shape)}, the kernel was checked for {t.shape}",
                                p, kind="binding error").located(self.kernel.source)
                g = GMTensor(p.name, arr, t.dtype, t.role)
                self.gm[p.name] = g
                fixed[p.name] = g
            else:
                fixed[p.name] = t.value
        try:
            with np.errstate(all="ignore"), _one_torch_thread():
                self.code({})
        except DSLError as err:
            raise err.located(self.kernel.source) from None

    # ------------------------------------------------------------ statements
    def _block(self, stmts):
        compiled = {A.Assign: self._assign, A.Const: self._const, A.Scratch: self._scratch_stmt, A.View: self._view,
                    A.Store: self._store, A.For: self._for, A.ParallelFor: self._parallel,
                    A.Pass: lambda s: (lambda env: None), A.Buffer: self._buffer_stmt, A.Free: self._free}
        items = []
        for s in stmts:
            rule = compiled.get(type(s))
            if rule is None:
                raise runtime_error(f"interpreter: no rule for statement {type(s).__name__}", s, kind="internal error")
            items.append((rule(s), tuple(self.ck.dead_after.get(id(s), ())), s))
        items = tuple(items)

        def run_block(env):
            for fn, dead, s in items:
                self.stmt = s
                try:
                    fn(env)
                except DSLError as err:
                    if err.span is None:
                        err.span = s.span
                    raise
                except (ValueError, TypeError, IndexError, KeyError) as err:
                    raise runtime_error(f"{type(err).__name__} while running this statement: {err}", s) from None
                for name in dead:
                    env.pop(name, None)
        return run_block

    def _begin(self, env, skip=()):
        """Start a statement: bytes held by live tiles (except those being replaced), no temporaries."""
        if self.lowered:
            return      # tiles live in buffers the checker proved fit: nothing is counted (see expr)
        live = [0, 0, 0]
        for name, v in env.items():
            if type(v) is Tile and name not in skip:
                n = v.data.nbytes
                live[SPACE_INDEX[v.space]] += n >> 1 if v.dtype == "bf16" else n   # Tile.nbytes, inline
        self.live = live
        self.temps = [0, 0, 0]

    def _assign(self, s: A.Assign):
        self.dying = dying_operands(s, self.ck.dead_after.get(id(s), ()))
        value, target, begin = self.expr(s.value), s.target, self._begin

        def run(env):
            begin(env, (target,))
            env[target] = value(env)
        return run

    def _const(self, s: A.Const):
        value, name, fixed = self.expr(s.value), s.name, self.fixed

        def run(env):
            fixed[name] = value(env)
        return run

    def _scratch_stmt(self, s: A.Scratch):
        t = self.ck.scratch[s.name]

        def run(env):
            if t.dtype in D.FLOATS:
                data = np.full(t.shape, np.nan, D.NUMPY[t.dtype])
            else:
                data = np.full(t.shape, D.highest(t.dtype), D.NUMPY[t.dtype])
            g = GMTensor(s.name, data, t.dtype, "scratch")
            self.gm[s.name] = g
            self.fixed[s.name] = g
        return run

    def _view(self, s: A.View):
        """A reshape or permutation of a GM tensor: a NumPy view of the same memory; who wrote which
        element in this phase is the base's record seen through the same view, so races across views
        are found."""
        t = self.ck.symbols.tensor(s.name)

        def run(env):
            base = self.gm[s.base]
            if base.writers is None:
                base.writers = np.zeros(base.data.shape, np.int8)
            if s.perm is not None:      # a permuted view: NumPy's transpose is a view too
                g = GMTensor(s.name, base.data.transpose(s.perm), t.dtype, t.role)
                g.writers = base.writers.transpose(s.perm)
                g.written = None if base.written is None else base.written.transpose(s.perm)
            else:
                g = GMTensor(s.name, base.data.reshape(t.shape), t.dtype, t.role)
                g.writers = base.writers.reshape(t.shape)
                g.written = None if base.written is None else base.written.reshape(t.shape)
            self.gm[s.name] = g
            self.fixed[s.name] = g
        return run

    def _buffer_stmt(self, s: A.Buffer):
        def run(env):
            self.buffers[s.name] = BufferState(s)
        return run

    def _free(self, s: A.Free):
        value = self._name(A.Name(s.name, s.span))

        def run(env):
            t = value(env)
            if t.home is None or not t.home[0].queue:
                raise runtime_error(f"free({s.name}): {s.name} is not in a queue", s, kind="lowering error")
            state, slot, _ = t.home
            state.in_use[slot] = False
            state.stamps[slot] += 1   # the slot's value is gone: a later read of it is an error
        return run

    def _place(self, out: str | None, fn, node):
        """``out=b``: the value produced by ``fn`` occupies buffer b (lowered forms)."""
        if out is None:
            return fn
        buffers = self.buffers

        def run(env):
            return buffers[out].place(fn(env), node)
        return run

    def _region(self, e, padded=False):
        """Compile a GM or tile region: env -> (base value, numpy index[, full extents, inner index])."""
        if isinstance(e, A.Name):
            base = self.expr(e)

            def whole(env):
                b = base(env)
                shape = b.data.shape
                idx = tuple(slice(0, d) for d in shape)
                return (b, idx, shape, idx) if padded else (b, idx)
            return whole
        base = self.expr(e.base)
        subs = []
        for sub in e.subscripts:
            if isinstance(sub, A.Slice):
                subs.append((True, None if sub.start is None else self.expr(sub.start),
                             None if sub.stop is None else self.expr(sub.stop), sub,
                             None if sub.step is None else self.expr(sub.step)))
            else:
                subs.append((False, self.expr(sub), None, sub, None))
        nsubs = len(subs)

        def region(env):
            b = base(env)
            shape = b.data.shape
            index, full, inner = [], [], []
            for axis, (is_slice, f0, f1, node, f2) in enumerate(subs):
                dim = shape[axis]
                if is_slice:
                    start = 0 if f0 is None else f0(env)
                    stop = dim if f1 is None else f1(env)
                    step = 1 if f2 is None else f2(env)
                    if padded:
                        # positions start + k * step below stop; those inside the tensor are copied
                        ext = -(-(stop - start) // step) if stop > start else 0
                        first = 0 if start >= 0 else -(-(0 - start) // step)    # first k inside
                        lo = start + first * step
                        hi = max(min(stop, dim), lo)
                        count = len(range(lo, hi, step))
                        index.append(slice(lo, hi, step))
                        full.append(ext)
                        inner.append(slice(min(first, ext), min(first + count, ext)))
                        continue
                    lo = 0 if start < 0 else dim if start > dim else start
                    hi = 0 if stop < 0 else dim if stop > dim else stop
                    if hi < lo:
                        hi = lo
                    index.append(slice(lo, hi, step) if step != 1 else slice(lo, hi))
                else:
                    i = f0(env)
                    if type(i) is Tile:   # a one-value integer tile (the checker allows only those)
                        i = int(i.data.reshape(()))
                    if not 0 <= i < dim:
                        raise runtime_error(f"index {i} is out of range for an axis of extent {dim}", node,
                                    kind="index error")
                    index.append(i)
            for axis in range(nsubs, len(shape)):
                index.append(slice(0, shape[axis]))
                if padded:
                    full.append(shape[axis])
                    inner.append(slice(0, shape[axis]))
            if padded:
                return b, tuple(index), tuple(full), tuple(inner)
            return b, tuple(index)
        return region

    def _store(self, s: A.Store):
        self.dying = dying_operands(s, self.ck.dead_after.get(id(s), ()))
        region = self._region(s.dst)
        padded_region = self._region(s.dst, padded=True) if isinstance(s.dst, A.Index) else None
        value_fn, accumulate, begin = self.expr(s.value), s.accumulate, self._begin
        if stored_product(s.value, self.types):   # from the cube to GM in blocks: no UB (footprint.py)
            value_fn = self._rules[A.Call](self, s.value)

        def run(env):
            begin(env)
            g, index = region(env)
            value = value_fn(env)
            view_shape = g.data[index].shape
            if type(value) is Tile:
                data = value.data
                if data.shape != view_shape and padded_region is not None:
                    # A value as long as the unclamped slice (e.g. from a padded load) keeps its in-tensor part.
                    _, inside, full, inner = padded_region(env)
                    if data.shape == full:   # (with a step: the positions start + k * step inside)
                        data, index = data[inner], inside
                        view_shape = g.data[index].shape
                if data.shape != view_shape:
                    try:
                        data = np.broadcast_to(data, view_shape)
                    except ValueError:
                        raise runtime_error(f"store: a value of shape {tuple(value.data.shape)} does not fit the region "
                                    f"of shape {tuple(view_shape)} of {g.name}", s, kind="shape error") from None
            else:
                data = np.full(view_shape, value, dtype=D.NUMPY[g.dtype])
            if self.check_races and self.in_phase:
                self._claim(g, index, accumulate, s)
            if g.dtype == "bool":
                data = data.astype(g.data.dtype)
            if accumulate:
                _require_written(g, index, s)
                g.data[index] = D.quantize(g.data[index] + data, g.dtype)
            else:
                g.data[index] = data
            if g.written is not None:
                g.written[index] = True
        return run

    def _claim(self, g: GMTensor, index, atomic, node):
        """Record who wrote each GM element in this phase: 0 nobody, core + 1, or ATOMIC_WRITER."""
        if g.writers is None:
            g.writers = np.zeros(g.data.shape, np.int8)
        w = g.writers[index]
        mark = ATOMIC_WRITER if atomic else self.core + 1
        if w.any():  # fast path above: nothing written here yet in this phase
            clash = (w != 0) & (w != mark)
            if clash.any():
                other = int(w[clash].flat[0])
                who = "an atomic_add" if other == ATOMIC_WRITER else f"core {other - 1}"
                raise runtime_error(f"race: core {self.core} writes elements of {g.name} that {who} wrote in the same "
                            "parallel phase", node, kind="race",
                            hint="each parallel iteration must write its own part of the output; combine partial "
                                 "results with atomic_add or in a later phase")
        g.writers[index] = mark

    def _count_steps(self, n: int, node) -> None:
        """Charge ``n`` loop iterations to the run's budget: a kernel that would run for hours
        (parallel(2**40)) stops at once with its line, never hangs."""
        self.steps += n
        if self.steps > STEP_BUDGET:
            raise runtime_error(f"the kernel runs more than {STEP_BUDGET:,} loop iterations at these shapes (this loop "
                        f"adds {n:,})", node, kind="runtime error",
                        hint="loop over tiles of many elements (range(0, N, T)), not over single elements; "
                             "parallel loops take one iteration per row or tile")

    def _for(self, s: A.For):
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        body, var = self._block(s.body), s.var

        def bound(v):   # a one-value integer tile (load(n[k])) bounds a loop by its value
            return int(v.data.reshape(())) if type(v) is Tile else v

        def run(env):
            st = step(env)
            if st == 0:
                raise runtime_error("range step is 0 at run time", s.step, hint="steps come from constants or dims > 0")
            trips = range(bound(start(env)), bound(stop(env)), st)
            self._count_steps(len(trips), s)
            for i in trips:
                env[var] = i
                body(env)
        return run

    def _parallel(self, s: A.ParallelFor):
        extents_fn = [self.expr(e) for e in s.extents]
        body, names = self._block(s.body), s.vars

        def run(outer):
            extents = [f(outer) for f in extents_fn]
            total = 1
            for n in extents:
                total *= n
            total = max(total, 0)
            self._count_steps(total, s)
            for g in self.gm.values():
                if g.writers is not None:
                    g.writers.fill(0)
            q, r = divmod(total, self.cores)
            self.in_phase = True
            try:
                for core in range(self.cores):
                    self.core = core
                    lo = core * q + min(core, r)
                    hi = lo + q + (1 if core < r else 0)
                    for flat in range(lo, hi):
                        env = dict(outer)
                        if len(names) == 1:
                            env[names[0]] = flat
                        else:
                            for v, i in zip(names, np.unravel_index(flat, extents)):
                                env[v] = int(i)
                        body(env)
            finally:
                self.in_phase = False
                self.core = 0
        return run

    # ------------------------------------------------------------ expressions
    def expr(self, e):
        """Compile an expression into ``env -> value``, with on-chip accounting for tile results."""
        t = type(e)
        if t is A.Name:
            return self._name(e)
        if t is A.Int or t is A.Float or t is A.Str:
            value = e.value
            return lambda env: value
        rule = self._rules.get(t)
        if rule is None:
            raise runtime_error(f"interpreter: no rule for expression {t.__name__}", e, kind="internal error")
        fn = rule(self, e)
        static = self.types.get(id(e))
        if static is not None and (not isinstance(static, TTile) or static.space == "gm"):
            return fn  # scalars, dtypes, tuples hold no on-chip memory; Matmul streams GM to GM
        if self.lowered:
            return fn  # the capacity is unbounded there (see __init__): no tile can overflow it
        capacity, overflow = self.capacity, self._overflow
        in_place = writes_over_operand(e, self.types, self.dying)
        held_already = writes_over_variable(e, self.types, self.dying)   # in a dying variable's memory

        def accounted(env):
            temps = self.temps
            b0, b1, b2 = temps
            v = fn(env)
            if type(v) is Tile:
                i = SPACE_INDEX[v.space]
                size = v.nbytes
                # children's results are still held (in temps) while this result is produced, unless
                # it takes the place of one of them
                need = temps[i] + (0 if in_place else size) + self.live[i]
                if need > capacity[i]:
                    overflow(v.space, need, env)
                temps[0], temps[1], temps[2] = b0, b1, b2
                temps[i] += 0 if held_already else size
            else:
                temps[0], temps[1], temps[2] = b0, b1, b2
            return v
        return accounted

    def _overflow(self, space, size, env):
        names = sorted(((n, v.nbytes) for n, v in env.items() if type(v) is Tile and v.space == space),
                       key=lambda kv: -kv[1])[:6]
        live = ", ".join(f"{n} ({b:,} B)" for n, b in names) or "none"
        cap = self.capacity[SPACE_INDEX[space]]
        raise runtime_error(f"{space.upper()} overflow at run time: {size:,} bytes needed, {cap:,} "
                    f"available on {self.chip.name} (live tiles: {live})", self.stmt, kind="memory error",
                    hint="use smaller tiles")

    def _name(self, e: A.Name):
        name = e.id
        if name in self.locals:
            def local(env):
                v = env.get(name, _MISSING)
                if v is _MISSING:
                    v = self.fixed.get(name, _MISSING)
                    if v is _MISSING:
                        raise runtime_error(f"name {name!r} has no value here", e)
                return v
            if not self.lowered:
                return local

            def placed(env):
                v = local(env)
                if type(v) is Tile and v.home is not None and v.home[0].stamps[v.home[1]] != v.home[2]:
                    state = v.home[0]
                    raise runtime_error(f"{name} is read after its buffer {state.decl.name} (slot {v.home[1]}) was "
                                "reused or freed", e, kind="lowering error",
                                hint="two values that are live at the same time share a buffer")
                return v
            return placed
        fixed = self.fixed
        if name in CONSTANT_NAMES and name not in self.ck.params:
            value = CONSTANT_NAMES[name]
            return lambda env: value
        if name in D.NUMPY:
            return lambda env: name

        def lookup(env):
            try:
                return fixed[name]
            except KeyError:
                raise runtime_error(f"name {name!r} has no value here", e) from None
        return lookup

    def _tuple(self, e):
        items = [self.expr(i) for i in e.items]
        return lambda env: tuple(f(env) for f in items)

    def _unary(self, e: A.Unary):
        op, operand, elementwise = OPS[UNARY_OPERATORS[e.op]], self.expr(e.operand), self._elementwise
        return lambda env: elementwise(op, [operand(env)])

    def _binary(self, e: A.Binary):
        lhs, rhs, sym = self.expr(e.lhs), self.expr(e.rhs), e.op
        op, elementwise = OPS[BINARY_OPERATORS[e.op]], self._elementwise
        in_place = e.op == "+" and (isinstance(e.rhs, A.Call) or isinstance(e.lhs, A.Call))
        product_is_rhs = isinstance(e.rhs, A.Call)
        l0c = SPACE_INDEX["l0c"]

        def run(env):
            a, b = lhs(env), rhs(env)
            if type(a) is not Tile and type(b) is not Tile:
                return scalar_binary(sym, a, b, e)
            if in_place and type(a) is Tile and a.space == "l0c":
                # acc + matmul(...): Mmad accumulates in place, so the product holds no L0C of its own
                self.temps[l0c] -= (b if product_is_rhs else a).nbytes
            return elementwise(op, [a, b])
        return run

    def _elementwise(self, op, values):
        tiles = [v for v in values if type(v) is Tile]
        if not tiles:
            r = op.numpy(*[np.float64(v) if isinstance(v, float) else v for v in values])
            return r.item() if hasattr(r, "item") else r
        dtype = tiles[0].dtype
        np_t = D.NUMPY[dtype]
        args = [v.data if type(v) is Tile else np_t(v) for v in values]
        try:
            out = op.numpy(*args)
        except ValueError:
            shapes = " and ".join(str(list(t.data.shape)) for t in tiles)
            raise runtime_error(f"{op.name}: tiles of shapes {shapes} do not broadcast at run time", kind="shape error",
                        hint="slices of different lengths (often a tail tile or a slice bound typo) meet here") \
                from None
        rdtype = op.result or dtype
        if rdtype == "bf16":
            out = D.round_bf16(out)
        elif out.dtype != D.NUMPY[rdtype]:
            out = out.astype(D.NUMPY[rdtype])
        accumulate = op.name == "add" and len(tiles) == 2 and all(t.space == "l0c" for t in tiles)
        return Tile(out, rdtype, "l0c" if accumulate else on_vector(tiles[0].space))

    def _index(self, e: A.Index):
        region = self._region(e)

        def run(env):
            base, index = region(env)
            if type(base) is not Tile:
                raise runtime_error("only tiles can be indexed inside expressions; GM regions go through load(...)", e)
            return Tile(base.data[index], base.dtype, base.space)
        return run

    def _load(self, e: A.Load):
        return self._place(e.out, self._load_value(e), e)

    def _load_value(self, e: A.Load):
        padded = e.pad is not None
        region = self._region(e.src, padded=padded)
        pad_fn = self.expr(e.pad) if padded else None
        space = e.space

        def run(env):
            got = region(env)
            g, index = got[0], got[1]
            if self.check_races and self.in_phase and g.writers is not None:
                w = g.writers[index]
                if w.any() and np.any((w != 0) & (w != self.core + 1)):
                    raise runtime_error(f"race: core {self.core} reads elements of {g.name} written by another core in "
                                "the same parallel phase", e, kind="race",
                                hint="results of other cores are visible after the parallel loop ends")
            _require_written(g, index, e)
            data = g.data[index]
            if g.dtype == "bool" and data.dtype != np.bool_:
                data = data.astype(np.bool_)
            if not padded:
                # Inputs are never written while a kernel runs (the checker forbids it), so a view of
                # them is as good as a copy; outputs and scratch may change later and are copied.
                return Tile(data if g.role == "input" else data.copy(), g.dtype, space)
            out = np.full(got[2], pad_fn(env), dtype=D.NUMPY[g.dtype])
            out[got[3]] = data
            return Tile(out, g.dtype, space)
        return run

    # ------------------------------------------------------------ calls
    def _const_kw(self, e: A.Call, name, default):
        """A keyword argument the checker proved constant (axis, kernel, round mode, ...)."""
        v = e.kwarg(name)
        if v is None:
            return default
        t = self.types.get(id(v))
        if isinstance(t, TTuple):
            return tuple(i.value for i in t.items)
        if isinstance(t, TStr):
            return t.value
        if isinstance(t, TScalar) and t.value is not None:
            return t.value
        if t is None and isinstance(v, A.Str):   # a string literal the checker did not visit (API Cast's round=)
            return v.value
        raise runtime_error(f"interpreter: {name}= is not a known constant", v, kind="internal error")

    def _call(self, e: A.Call):
        op = OPS[e.func]
        if op.kind == "elementwise":
            args, elementwise = [self.expr(a) for a in e.args], self._elementwise
            return lambda env: elementwise(op, [f(env) for f in args])
        if op.kind == "api":
            out = e.kwarg("out")
            return self._place(out.id if out is not None else None, self._k_api(op, e), e)
        fn = getattr(self, f"_k_{op.kind}")(op, e)

        def guarded(env):
            try:
                return fn(env)
            except ValueError as err:  # NumPy refusing operand shapes that only the run time sees
                raise runtime_error(f"{op.name}: operands do not fit at run time ({err})", e, kind="shape error") \
                    from None
        return guarded


    _rules = {A.Tuple: _tuple, A.Unary: _unary, A.Binary: _binary, A.Call: _call, A.Index: _index,
              A.Load: _load}


def _require_written(g: GMTensor, index, node) -> None:
    """A read of scratch elements no store wrote yet is an error: GM scratch holds garbage until
    written (the NaN the interpreter starts it with need not reach an output to be read)."""
    if g.written is not None and not g.written[index].all():
        first = np.argwhere(~g.written[index])[0]
        raise runtime_error(f"{g.name} is read where no store has written it yet (element {tuple(int(i) for i in first)} "
                            f"of the region read): a scratch tensor holds garbage until written", node,
                            kind="runtime error",
                            hint="write each scratch element before reading it: earlier in the same iteration, or "
                                 "in an earlier parallel loop (another core's writes are visible after its loop ends)")


def interpret(checked: CheckedKernel, gm: dict[str, np.ndarray], *, cores: int | None = None,
              check_races: bool = True) -> None:
    """Run a checked kernel on GM arrays (by parameter name); outputs are written in place."""
    Interpreter(checked, cores=cores, check_races=check_races).run(gm)

