"""NumPy interpreter for the tile DSL: the semantic reference every later stage is checked against.

Arithmetic happens in the declared dtype (f16 in float16, bf16 rounded to bf16 after
every op), one NumPy call per tile operation. Parallel loops run each core's share
of the iterations; on-chip capacity is enforced with the exact (tail-clamped) tile
sizes, and cores writing or reading each other's GM results within one phase are
reported as races.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import dtypes as D
from ..errors import DSLError, InterpreterError
from . import ast as A
from .checker import CheckedKernel
from .ops import BINARY_OPERATORS, CONSTANT_NAMES, OPS, UNARY_OPERATORS, apply_round

_ATOMIC = 127  # writer mark for atomic_add (cores are marked core + 1; 0 = unwritten this phase)
_SPACES = ("ub", "l1", "l0c")
_SPACE_INDEX = {s: i for i, s in enumerate(_SPACES)}
_SCALAR_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
               "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "<": operator.lt,
               "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}


class Tile:
    """An on-chip value: a NumPy array (bf16 held as float32), its DSL dtype and memory space."""

    __slots__ = ("data", "dtype", "space")

    def __init__(self, data: np.ndarray, dtype: str, space: str = "ub"):
        self.data, self.dtype, self.space = data, dtype, space

    @property
    def nbytes(self) -> int:
        n = self.data.nbytes
        return n >> 1 if self.dtype == "bf16" else n  # bf16 is held in float32

    def __repr__(self):
        return f"Tile({self.dtype}{list(self.data.shape)}, {self.space})"


class GMTensor:
    __slots__ = ("name", "data", "dtype", "role", "writers")

    def __init__(self, name, data, dtype, role):
        self.name, self.data, self.dtype, self.role, self.writers = name, data, dtype, role, None


def _fail(msg, node=None, hint=None, kind="runtime error"):
    return InterpreterError(msg, getattr(node, "span", None), kind=kind, hint=hint)


def _clamp_slices(subs, shape, env_eval, node, padded=False):
    """NumPy index for GM/tile subscripts (slices clamp to [0, dim]); with padded=True also
    return the full (unclamped) extents and where the clamped part sits inside them."""
    index, full, inner = [], [], []
    for axis, sub in enumerate(subs):
        dim = shape[axis]
        if isinstance(sub, A.Slice):
            start = 0 if sub.start is None else env_eval(sub.start)
            stop = dim if sub.stop is None else env_eval(sub.stop)
            lo, hi = min(max(start, 0), dim), min(max(stop, 0), dim)
            hi = max(hi, lo)
            index.append(slice(lo, hi))
            if padded:
                ext = max(stop - start, 0)
                off = lo - start
                full.append(ext)
                inner.append(slice(min(max(off, 0), ext), min(max(off, 0) + (hi - lo), ext)))
        else:
            i = env_eval(sub)
            if not 0 <= i < dim:
                raise _fail(f"index {i} is out of range for an axis of extent {dim}", sub, kind="index error")
            index.append(i)
    for axis in range(len(subs), len(shape)):
        index.append(slice(0, shape[axis]))
        if padded:
            full.append(shape[axis])
            inner.append(slice(0, shape[axis]))
    return tuple(index), tuple(full), tuple(inner)


class Interpreter:
    def __init__(self, checked: CheckedKernel, *, cores: int | None = None, check_races: bool = True):
        self.ck = checked
        self.kernel = checked.kernel
        self.chip = checked.chip
        self.cores = cores or checked.cores
        self.check_races = check_races and self.cores > 1
        self.capacity = [self.chip.capacity(sp) for sp in _SPACES]
        self.dead_after = checked.dead_after
        self.core = 0
        self.in_phase = False
        self.temps = [0, 0, 0]
        self.live = [0, 0, 0]
        self.stmt = None
        self._dispatch = {
            A.Name: self._name, A.Int: self._literal, A.Float: self._literal, A.Str: self._literal,
            A.Tuple: self._tuple, A.Unary: self._unary, A.Binary: self._binary, A.Call: self._call,
            A.Index: self._index, A.Load: self._load,
        }
        self._exec = {
            A.Assign: self._assign, A.Const: self._const, A.Scratch: self._scratch_stmt, A.Store: self._store,
            A.For: self._for, A.ParallelFor: self._parallel, A.Pass: lambda s: None,
        }

    # ------------------------------------------------------------ entry
    def run(self, gm: dict[str, np.ndarray]) -> None:
        """Run the kernel on GM arrays given by parameter name; outputs are written in place."""
        self.fixed: dict[str, object] = dict(self.ck.binding.dims)
        self.fixed["CORES"] = self.cores
        self.gm: dict[str, GMTensor] = {}
        for p in self.kernel.inputs + self.kernel.outputs:
            t = self.ck.params[p.name]
            if hasattr(t, "role"):
                if p.name not in gm:
                    raise _fail(f"no array given for GM parameter {p.name!r}", p, kind="binding error")
                arr = gm[p.name]
                if tuple(arr.shape) != t.shape:
                    raise _fail(f"{p.name} has shape {tuple(arr.shape)}, the kernel was checked for {t.shape}",
                                p, kind="binding error")
                g = GMTensor(p.name, arr, t.dtype, t.role)
                self.gm[p.name] = g
                self.fixed[p.name] = g
            else:
                self.fixed[p.name] = t.value
        self.env: dict[str, object] = {}
        try:
            with np.errstate(all="ignore"):
                self._block(self.kernel.body)
        except DSLError as err:
            raise err.located(self.kernel.source) from None

    # ------------------------------------------------------------ statements
    def _block(self, stmts):
        env, dead = self.env, self.dead_after
        for s in stmts:
            self.stmt = s
            try:
                self._exec[type(s)](s)
            except DSLError as err:
                if err.span is None:
                    err.span = s.span
                raise
            except (ValueError, TypeError, IndexError) as err:
                raise _fail(f"{type(err).__name__} while running this statement: {err}", s) from None
            for name in dead.get(id(s), ()):
                env.pop(name, None)

    def _begin(self, skip=None):
        """Start a statement: bytes held by live tiles (except the one being replaced), no temporaries."""
        live = [0, 0, 0]
        for name, v in self.env.items():
            if type(v) is Tile and name != skip:
                live[_SPACE_INDEX[v.space]] += v.nbytes
        self.live = live
        self.temps = [0, 0, 0]

    def _assign(self, s: A.Assign):
        self._begin(s.target)
        self.env[s.target] = self.eval(s.value)

    def _const(self, s: A.Const):
        self.fixed[s.name] = self.eval(s.value)

    def _scratch_stmt(self, s: A.Scratch):
        t = self.ck.scratch[s.name]
        if t.dtype in D.FLOATS:
            data = np.full(t.shape, np.nan, D.NUMPY[t.dtype])
        else:
            data = np.full(t.shape, D.highest(t.dtype), D.NUMPY[t.dtype])
        g = GMTensor(s.name, data, t.dtype, "scratch")
        self.gm[s.name] = g
        self.fixed[s.name] = g

    def _region(self, e):
        """(GMTensor, numpy index) for a GM destination or source expression."""
        if isinstance(e, A.Name):
            g = self._lookup(e)
            if not isinstance(g, GMTensor):
                raise _fail(f"{e.id} is not a GM tensor", e)
            return g, tuple(slice(0, d) for d in g.data.shape)
        g = self._lookup(e.base)
        index, _, _ = _clamp_slices(e.subscripts, g.data.shape, self.eval_scalar, e)
        return g, index

    def _store(self, s: A.Store):
        self._begin()
        g, index = self._region(s.dst)
        value = self.eval(s.value)
        view_shape = g.data[index].shape
        if type(value) is Tile:
            data = value.data
            if data.shape != view_shape and isinstance(s.dst, A.Index):
                # A value as long as the unclamped slice (e.g. from a padded load) keeps only its in-tensor part.
                _, full, inner = _clamp_slices(s.dst.subscripts, g.data.shape, self.eval_scalar, s, padded=True)
                if data.shape == full:
                    data = data[inner]
            if data.shape != view_shape:
                try:
                    data = np.broadcast_to(data, view_shape)
                except ValueError:
                    raise _fail(f"store: a value of shape {tuple(value.data.shape)} does not fit the region of "
                                f"shape {tuple(view_shape)} of {g.name}", s, kind="shape error") from None
        else:
            data = np.full(view_shape, value, dtype=D.NUMPY[g.dtype])
        if self.check_races and self.in_phase:
            self._claim(g, index, s.accumulate, s)
        if g.dtype == "bool":
            data = data.astype(g.data.dtype)
        if s.accumulate:
            g.data[index] = D.quantize(g.data[index] + data, g.dtype)
        else:
            g.data[index] = data

    def _claim(self, g: GMTensor, index, atomic, node):
        """Record who wrote each GM element in this phase: 0 nobody, core + 1, or _ATOMIC."""
        if g.writers is None:
            g.writers = np.zeros(g.data.shape, np.int8)
        w = g.writers[index]
        mark = _ATOMIC if atomic else self.core + 1
        if w.any():  # fast path above: nothing written here yet in this phase
            clash = (w != 0) & (w != mark)
            if clash.any():
                other = int(w[clash].flat[0])
                who = "an atomic_add" if other == _ATOMIC else f"core {other - 1}"
                raise _fail(f"race: core {self.core} writes elements of {g.name} that {who} wrote in the same "
                            "parallel phase", node, kind="race",
                            hint="each parallel iteration must write its own part of the output; combine partial "
                                 "results with atomic_add or in a later phase")
        g.writers[index] = mark

    def _for(self, s: A.For):
        start, stop, step = self.eval_scalar(s.start), self.eval_scalar(s.stop), self.eval_scalar(s.step)
        env = self.env
        for i in range(start, stop, step):
            env[s.var] = i
            self._block(s.body)
            self.env = env

    def _parallel(self, s: A.ParallelFor):
        extents = [self.eval_scalar(e) for e in s.extents]
        total = int(np.prod(extents)) if extents else 0
        for g in self.gm.values():
            if g.writers is not None:
                g.writers.fill(0)
        q, r = divmod(total, self.cores)
        outer = dict(self.env)
        self.in_phase = True
        try:
            for core in range(self.cores):
                self.core = core
                lo = core * q + min(core, r)
                hi = lo + q + (1 if core < r else 0)
                for flat in range(lo, hi):
                    idx = np.unravel_index(flat, extents) if len(extents) > 1 else (flat,)
                    self.env = dict(outer)
                    for v, i in zip(s.vars, idx):
                        self.env[v] = int(i)
                    self._block(s.body)
        finally:
            self.in_phase = False
            self.core = 0
            self.env = outer

    # ------------------------------------------------------------ expressions
    def eval(self, e):
        t = type(e)
        if t is A.Name:
            return self._lookup(e)
        if t is A.Int or t is A.Float or t is A.Str:
            return e.value
        temps = self.temps
        b0, b1, b2 = temps
        v = self._dispatch[t](e)
        if type(v) is Tile:
            i = _SPACE_INDEX[v.space]
            size = v.nbytes
            # children's results are still held (in temps) while this result is produced
            if temps[i] + size + self.live[i] > self.capacity[i]:
                self._overflow(v.space, temps[i] + size + self.live[i], e)
            temps[0], temps[1], temps[2] = b0, b1, b2
            temps[i] += size
        else:
            temps[0], temps[1], temps[2] = b0, b1, b2
        return v

    def _overflow(self, space, size, e):
        names = sorted(((n, v.nbytes) for n, v in self.env.items() if type(v) is Tile and v.space == space),
                       key=lambda kv: -kv[1])[:6]
        live = ", ".join(f"{n} ({b:,} B)" for n, b in names) or "none"
        cap = self.capacity[_SPACE_INDEX[space]]
        raise _fail(f"{space.upper()} overflow at run time: {size:,} bytes needed, {cap:,} "
                    f"available on {self.chip.name} (live tiles: {live})", self.stmt, kind="memory error",
                    hint="use smaller tiles")

    def eval_scalar(self, e):
        v = self.eval(e)
        if type(v) is Tile:
            raise _fail("expected a scalar, got a tile", e)
        return v

    def _lookup(self, e: A.Name):
        if e.id in self.env:
            return self.env[e.id]
        if e.id in self.fixed:
            return self.fixed[e.id]
        if e.id in CONSTANT_NAMES:
            return CONSTANT_NAMES[e.id]
        if e.id in D.NUMPY:
            return e.id
        raise _fail(f"name {e.id!r} has no value here", e)

    def _name(self, e):
        return self._lookup(e)

    def _literal(self, e):
        return e.value

    def _tuple(self, e):
        return tuple(self.eval(i) for i in e.items)

    def _unary(self, e: A.Unary):
        return self._elementwise(OPS[UNARY_OPERATORS[e.op]], [self.eval(e.operand)])

    def _binary(self, e: A.Binary):
        a, b = self.eval(e.lhs), self.eval(e.rhs)
        if type(a) is not Tile and type(b) is not Tile:
            return _scalar_binary(e.op, a, b, e)
        if e.op == "+" and type(a) is Tile and a.space == "l0c":
            # acc + matmul(...): Mmad accumulates in place, so the product holds no L0C of its own
            product = b if isinstance(e.rhs, A.Call) else a if isinstance(e.lhs, A.Call) else None
            if product is not None:
                self.temps[_SPACE_INDEX["l0c"]] -= product.nbytes
        return self._elementwise(OPS[BINARY_OPERATORS[e.op]], [a, b])

    def _elementwise(self, op, values):
        tiles = [v for v in values if type(v) is Tile]
        if not tiles:
            r = op.numpy(*[np.float64(v) if isinstance(v, float) else v for v in values])
            return r.item() if hasattr(r, "item") else r
        dtype = tiles[0].dtype
        np_t = D.NUMPY[dtype]
        args = [v.data if type(v) is Tile else np_t(v) for v in values]
        out = op.numpy(*args)
        rdtype = op.result or dtype
        if rdtype == "bf16":
            out = D.round_bf16(out)
        elif out.dtype != D.NUMPY[rdtype]:
            out = out.astype(D.NUMPY[rdtype])
        return Tile(out, rdtype, tiles[0].space)

    def _index(self, e: A.Index):
        base = self.eval(e.base)
        if type(base) is not Tile:
            raise _fail("only tiles can be indexed inside expressions; GM regions go through load(...)", e)
        index, _, _ = _clamp_slices(e.subscripts, base.data.shape, self.eval_scalar, e)
        return Tile(base.data[index], base.dtype, base.space)

    def _load(self, e: A.Load):
        if isinstance(e.src, A.Name):
            g = self._lookup(e.src)
            return Tile(g.data.copy(), g.dtype, e.space)
        g = self._lookup(e.src.base)
        padded = e.pad is not None
        index, full, inner = _clamp_slices(e.src.subscripts, g.data.shape, self.eval_scalar, e, padded)
        if self.check_races and self.in_phase and g.writers is not None:
            w = g.writers[index]
            if w.any() and np.any((w != 0) & (w != self.core + 1)):
                raise _fail(f"race: core {self.core} reads elements of {g.name} written by another core in the "
                            "same parallel phase", e, kind="race",
                            hint="results of other cores are visible after the parallel loop ends")
        data = g.data[index]
        if g.dtype == "bool" and data.dtype != np.bool_:
            data = data.astype(np.bool_)
        if not padded:
            return Tile(data.copy(), g.dtype, e.space)
        pad = self.eval_scalar(e.pad)
        out = np.full(full, pad, dtype=D.NUMPY[g.dtype])
        out[inner] = data
        return Tile(out, g.dtype, e.space)

    # ------------------------------------------------------------ calls
    def _call(self, e: A.Call):
        op = OPS[e.func]
        kind = op.kind
        if kind == "elementwise":
            return self._elementwise(op, [self.eval(a) for a in e.args])
        return getattr(self, f"_k_{kind}")(op, e)

    def _kw(self, e: A.Call, name, default):
        v = e.kwarg(name)
        return default if v is None else self.eval(v)

    def _k_reduce(self, op, e):
        t = self.eval(e.args[0])
        axis, keep = self._kw(e, "axis", None), self._kw(e, "keepdims", False)
        a = t.data
        if op.name == "mean":
            n = a.size if axis is None else a.shape[axis]
            s = np.sum(a, axis=axis, keepdims=keep, dtype=a.dtype)
            out = s / a.dtype.type(max(n, 1)) if n else np.full(s.shape, np.nan, a.dtype)
        elif op.name in ("max", "min") and (a.size == 0):
            ident = D.lowest(t.dtype) if op.name == "max" else D.highest(t.dtype)
            shape = np.sum(a, axis=axis, keepdims=keep).shape
            out = np.full(shape, ident, a.dtype)
        elif op.name in ("max", "min"):
            out = op.numpy(a, axis=axis, keepdims=keep)
        else:
            out = op.numpy(a, axis=axis, keepdims=keep, dtype=a.dtype)
        out = np.asarray(out)
        return Tile(D.quantize(out, t.dtype), t.dtype, t.space)

    def _k_scan(self, op, e):
        t = self.eval(e.args[0])
        axis = self._kw(e, "axis", -1)
        reverse, exclusive = self._kw(e, "reverse", False), self._kw(e, "exclusive", False)
        a = t.data
        if reverse:
            a = np.flip(a, axis)
        out = op.numpy(a, axis=axis, dtype=a.dtype)
        if t.dtype == "bf16":
            out = D.round_bf16(out)  # hardware rounds every partial; this rounds the results (close, not bit-exact)
        if exclusive:
            ident = np.zeros_like(np.take(out, [0], axis=axis)) if op.name == "cumsum" else \
                np.ones_like(np.take(out, [0], axis=axis))
            out = np.concatenate([ident, np.take(out, range(out.shape[axis] - 1), axis=axis)], axis=axis) \
                if out.shape[axis] else out
        if reverse:
            out = np.flip(out, axis)
        return Tile(np.ascontiguousarray(out), t.dtype, t.space)

    def _k_window(self, op, e):
        t = self.eval(e.args[0])
        a = t.data
        kernel, stride, padding, dilation = _window_params(self, e, a.ndim)
        n = len(kernel)
        axes = tuple(range(a.ndim - n, a.ndim))
        ident = D.lowest(t.dtype) if op.name == "window_max" else 0
        if any(padding):
            a = np.pad(a, [(0, 0)] * (a.ndim - n) + [(p, p) for p in padding], constant_values=ident)
        extents = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation))
        win = np.lib.stride_tricks.sliding_window_view(a, extents, axis=axes)
        sel = (slice(None),) * (a.ndim - n) + tuple(slice(None, None, s) for s in stride) + \
            tuple(slice(None, None, d) for d in dilation)
        win = win[sel]
        red_axes = tuple(range(a.ndim, a.ndim + n))
        if op.name == "window_max":
            out = np.max(win, axis=red_axes)
        else:
            count = 1
            for k in kernel:
                count *= k
            out = np.sum(win, axis=red_axes, dtype=a.dtype) / a.dtype.type(count)
        return Tile(D.quantize(np.ascontiguousarray(out), t.dtype), t.dtype, t.space)

    def _k_matmul(self, op, e):
        a, b = self.eval(e.args[0]), self.eval(e.args[1])
        x, y = a.data, b.data
        if self._kw(e, "transpose_a", False):
            x = x.T
        if self._kw(e, "transpose_b", False):
            y = y.T
        if a.dtype == "i8":
            return Tile(x.astype(np.int32) @ y.astype(np.int32), "i32", "l0c")
        return Tile((x.astype(np.float32) @ y.astype(np.float32)).astype(np.float32), "f32", "l0c")

    def _k_cast(self, op, e):
        x = self.eval(e.args[0])
        target = self.eval(e.args[1])
        mode = self._kw(e, "round", None)
        if type(x) is not Tile:
            return _cast_scalar(x, target, mode)
        return Tile(_cast_array(x.data, x.dtype, target, mode), target, x.space)

    def _k_select(self, op, e):
        mask, a, b = (self.eval(x) for x in e.args)
        tiles = [v for v in (a, b) if type(v) is Tile]
        if not tiles:
            return a if mask else b
        dtype = tiles[0].dtype
        np_t = D.NUMPY[dtype]
        m = mask.data if type(mask) is Tile else bool(mask)
        out = np.where(m, a.data if type(a) is Tile else np_t(a), b.data if type(b) is Tile else np_t(b))
        return Tile(out.astype(np_t, copy=False), dtype, "ub")

    def _k_construct(self, op, e):
        shape = self.eval(e.args[0])
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if op.name == "zeros":
            dtype = self.eval(e.args[1])
            space = e.kwarg("space").id if e.kwarg("space") is not None else "ub"
            return Tile(np.zeros(shape, D.NUMPY[dtype]), dtype, space)
        if op.name == "full":
            value, dtype = self.eval(e.args[1]), self.eval(e.args[2])
            return Tile(D.quantize(np.full(shape, value, D.NUMPY[dtype]), dtype), dtype)
        dtype = self.eval(e.args[1])
        start = self._kw(e, "start", 0)
        return Tile(D.quantize(np.arange(start, start + shape[0]), dtype), dtype)

    def _k_scalar(self, op, e):
        a, b = self.eval_scalar(e.args[0]), self.eval_scalar(e.args[1])
        if b == 0:
            raise _fail("cdiv by zero", e)
        return -(-a // b)


def _window_params(interp, e, rank):
    kernel = interp._kw(e, "kernel", None)
    kernel = (kernel,) if isinstance(kernel, int) else tuple(kernel)
    n = len(kernel)

    def expand(name, default):
        v = interp._kw(e, name, default)
        return (v,) * n if isinstance(v, int) else tuple(v)
    return kernel, expand("stride", kernel), expand("padding", 0), expand("dilation", 1)


def _scalar_binary(op, a, b, node):
    """Scalar arithmetic on the scalar unit: exact integers, double-precision floats."""
    if op == "/":
        if b == 0:
            return float("inf") if a > 0 else float("-inf") if a < 0 else float("nan")
        return a / b
    if op in ("//", "%") and b == 0:
        if isinstance(a, int) and isinstance(b, int):
            raise _fail("integer division by zero", node)
        return float("nan")
    try:
        return _SCALAR_OPS[op](a, b)
    except OverflowError:
        return float("inf")


def _cast_array(a: np.ndarray, src: str, dst: str, mode):
    if dst == "bool":
        return a != 0
    if dst in D.FLOATS:
        if mode is not None and src in D.FLOATS:
            a = apply_round(a, mode)
        return D.quantize(a.astype(np.float32) if dst == "bf16" else a, dst)
    # to an integer type
    if src in D.FLOATS:
        a = apply_round(a.astype(np.float64), mode or "trunc")  # float64: int32 limits are exact there
        info = np.iinfo(D.NUMPY[dst])
        a = np.clip(np.nan_to_num(a, nan=0.0, posinf=info.max, neginf=info.min), info.min, info.max)
    return a.astype(D.NUMPY[dst])


def _cast_scalar(x, target, mode):
    return _cast_array(np.asarray(x), "f32" if isinstance(x, float) else "i64", target, mode).item()


def interpret(checked: CheckedKernel, gm: dict[str, np.ndarray], *, cores: int | None = None,
              check_races: bool = True) -> None:
    """Run a checked kernel on GM arrays (by parameter name); outputs are written in place."""
    Interpreter(checked, cores=cores, check_races=check_races).run(gm)
