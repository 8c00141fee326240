"""Static checker: names, types, shapes, memory spaces, scalar vs tile use, and the
on-chip footprint of every statement against the chip's buffers.

It runs with concrete bindings (symbolic dims bound from the actual inputs), so
every shape is a tuple of integers; slice extents are upper bounds (tails may be
shorter at run time, where the interpreter checks exact shapes).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import dtypes as D
from ..chips import Chip
from ..errors import DSLError
from . import ast as A
from .check_common import check_error, suggest
from .check_exprs import ExpressionChecker
from .check_lowered import LoweredFormsChecker
from .parser import keywords
from .symbols import Symbols, build as build_symbols
from .types import TGM, TRegion, TScalar, TTile


@dataclass(frozen=True)
class Binding:
    """Concrete values for a kernel's symbolic dims and scalar attributes. ``extents``: the op's
    extents on the axes a parameter names by a top-level const (``const M = N + left + right`` and
    ``y: gm T[*B, M]``), which the checker holds the const's value to."""

    dims: dict
    attrs: dict
    extents: dict = field(default_factory=dict)


@dataclass
class CheckedKernel:
    kernel: A.Kernel
    binding: Binding
    chip: Chip
    cores: int                       # cores a parallel loop spreads over
    uses_cube: bool
    params: dict                     # name -> TGM | TScalar
    scratch: dict                    # name -> TGM
    expr_types: dict = field(repr=False)    # id(expr) -> type
    dead_after: dict = field(repr=False)    # id(stmt) -> names dead after it
    peak: dict = field(default_factory=dict)  # space -> (bytes, stmt span, [(name, type)])
    buffers: dict = field(default_factory=dict)  # lowered forms: name -> A.Buffer
    warnings: list = field(default_factory=list)  # DSLError (kind "warning"), located: legal but suspicious
    buffer_bytes: dict = field(default_factory=dict)  # lowered forms: name -> UB bytes at these shapes
    symbols: Symbols | None = field(default=None, repr=False)  # every GM tensor and scalar name, valued here




class Checker(LoweredFormsChecker, ExpressionChecker):
    def __init__(self, kernel: A.Kernel, binding: Binding, chip: Chip):
        self.kernel, self.binding, self.chip = kernel, binding, chip
        self.expr_types: dict[int, object] = {}
        self.uses_cube = any(map(A.is_product, A.walk(kernel)))
        self.cores = chip.aic_cores if self.uses_cube else chip.aiv_cores
        self.env: dict[str, object] = {}
        self.fixed: set[str] = set()     # names that cannot be reassigned
        self.params: dict[str, object] = {}
        self.scratch: dict[str, TGM] = {}
        self.consts: dict[str, tuple] = {}   # name -> (TScalar, its definition)
        self.views: dict[str, tuple] = {}    # name -> (the parameter or scratch tensor it views, TGM)
        self.permuted: set[str] = set()       # the views made by permute (not in memory order)
        self._outer_vars: set[str] = set()   # names visible in the current parallel loop, defined outside it
        self.buffers: dict[str, A.Buffer] = {}
        self._store_value = None   # the value of the store being checked (Matmul may only be one)
        self._assign_value = None  # the value of the assignment being checked (or a product tile)
        self.warnings: list[DSLError] = []
        self._warned: set = set()

    # ------------------------------------------------------------ entry
    def run(self) -> CheckedKernel:
        k = self.kernel
        for name, value in self.binding.dims.items():
            self.env[name] = TScalar("int", int(value))
        self.env["CORES"] = TScalar("int", self.cores)
        seen = set()
        for role, params in (("input", k.inputs), ("output", k.outputs)):
            for p in params:
                if p.name in seen:
                    raise check_error(f"parameter {p.name!r} is declared twice", p)
                if p.name in keywords():
                    raise check_error(f"{p.name!r} is a keyword of the tile DSL", p, hint=f"rename the parameter (e.g. {p.name}_)")
                seen.add(p.name)
                t = self._param_type(p, role)
                self.params[p.name] = t
                self.env[p.name] = t
                self.fixed.add(p.name)
        self.fixed |= set(self.binding.dims) | {"CORES"}
        self._block(k.body, depth=0, in_parallel=False)
        dead_after, peak = _footprint(self)
        if self.buffers:
            self._check_buffer_budget()
        symbols = build_symbols(k, self.binding.dims, self.params, self.scratch, self.consts, self.cores, self.views)
        return CheckedKernel(k, self.binding, self.chip, self.cores, self.uses_cube, self.params, self.scratch,
                             self.expr_types, dead_after, peak, self.buffers, self.warnings,
                             {n: self.buffer_bytes(b) for n, b in self.buffers.items()}, symbols)

    def _dims(self, t: A.TensorType, node) -> tuple[int, ...]:
        out = []
        for d in t.shape:
            if isinstance(d, int):
                out.append(d)
                continue
            v = self.env.get(d)
            if v is None and d in self.binding.extents:     # a const's axis, held to it where it is defined
                v = TScalar("int", self.binding.extents[d][0])
            if not (isinstance(v, TScalar) and isinstance(v.value, int)):
                raise check_error(f"dim {d!r} has no value", node, hint="symbolic dims are bound from the op's input and "
                           "output shapes; scratch shapes may use those dims, constants and CORES")
            out.append(v.value)
        return tuple(out)

    def _param_type(self, p: A.Param, role: str):
        t = p.type
        if t.dtype not in D.ALL:
            raise check_error(f"unknown dtype {t.dtype!r}", t, hint=f"dtypes: {', '.join(D.ALL)}")
        if isinstance(t, A.ScalarType):
            if role == "output":
                raise check_error("outputs are GM tensors, not scalars", p, hint="declare it as gm f32[] for one value")
            if p.name not in self.binding.attrs:
                raise check_error(f"scalar attribute {p.name!r} has no value", p,
                           hint="name it like the op's __init__ argument, or give a default: eps: f32 = 1e-5")
            value = self.binding.attrs[p.name]
            if t.dtype in D.INTS and not (isinstance(value, int) or float(value).is_integer()):
                raise check_error(f"attribute {p.name} is declared {t.dtype} but its value is {value!r}", p,
                                  kind="binding error", hint=f"declare it {p.name}: f32")
            if t.dtype in D.INTS:
                value = int(value)
            return TScalar(t.dtype, value)
        if t.space != "gm":
            raise check_error(f"kernel parameters live in gm, not {t.space}", t)
        if p.default is not None and role == "output":
            raise check_error("an output has no default", p.default,
                              hint="a default on a tensor input is the value that fills it when the op leaves it out")
        return TGM(p.name, t.dtype, self._dims(t, p), role)

    # ------------------------------------------------------------ statements
    def _block(self, stmts, depth, in_parallel):
        for s in stmts:
            self._stmt(s, depth, in_parallel)

    def _define(self, name, t, node):
        # Keywords cannot reach here from parsed text (the grammar reserves them); programs built
        # as trees (passes, the fuzzer) are held to the same rule.
        if name in keywords():
            raise check_error(f"cannot assign to {name!r}: it is a keyword of the tile DSL", node,
                       hint=f"use another name (e.g. {name}_)")
        if name in self.fixed:
            raise check_error(f"cannot assign to {name!r}: it is a parameter, dim, constant or loop variable", node,
                       hint="use a new name")
        self.env[name] = t

    def _stmt(self, s, depth, in_parallel):
        if isinstance(s, A.Pass):
            return
        if isinstance(s, A.Const):
            t = self.expr(s.value)
            if not (isinstance(t, TScalar) and t.value is not None):
                raise check_error("a const needs a value known before the kernel runs", s.value)
            value = TScalar("int" if t.is_int else t.dtype, t.value)
            if s.name in self.binding.extents and value.value != self.binding.extents[s.name][0]:
                n, holder = self.binding.extents[s.name]
                raise check_error(f"const {s.name} is {value.value} here, but it sizes an axis of {holder}, which the "
                                  f"op gives {n} elements", s, kind="binding error",
                                  hint=f"define {s.name} as the op computes that extent, from the inputs' dims and "
                                       f"the attributes")
            self._define(s.name, value, s)
            self.fixed.add(s.name)
            self.consts[s.name] = (value, s.value)
            return
        if isinstance(s, A.Scratch):
            if depth:
                raise check_error("scratch buffers are declared at the top of the kernel body", s)
            if s.type.dtype not in D.ALL:
                raise check_error(f"unknown dtype {s.type.dtype!r}", s.type)
            g = TGM(s.name, s.type.dtype, self._dims(s.type, s), "scratch")
            total = g.nbytes + sum(x.nbytes for x in self.scratch.values())
            if total > self.chip.hbm_bytes:
                raise check_error(f"scratch {s.name} takes {g.nbytes:,} bytes here ({total:,} for all scratch tensors), "
                           f"more than the {self.chip.hbm_bytes:,} bytes of global memory on {self.chip.name}", s,
                           kind="memory error", hint="size scratch by the work it holds, e.g. one value per core "
                           "or per row: scratch part: f32[B]")
            self._define(s.name, g, s)
            self.fixed.add(s.name)
            self.scratch[s.name] = g
            return
        if isinstance(s, A.View):
            self._view(s, depth)
            return
        if isinstance(s, A.Buffer):
            self._buffer(s, depth)
            return
        if isinstance(s, A.Free):
            t = self.env.get(s.name)
            if not isinstance(t, TTile):
                raise check_error(f"free({s.name}): {s.name!r} is not a tile", s)
            return
        if isinstance(s, A.Assign):
            self._assign_value = s.value
            t = self.expr(s.value)
            if isinstance(t, (TGM, TRegion)):
                raise check_error(f"{t.describe()} cannot be assigned; copy it on chip with load(...)", s.value,
                           hint=f"{s.target} = load(...)")
            if not isinstance(t, (TScalar, TTile)):
                raise check_error(f"cannot assign a {t.describe()}", s.value)
            if in_parallel and s.target in self._outer_vars:
                raise check_error(f"{s.target!r} is defined outside this parallel loop and reassigned inside it; "
                           "iterations run on different cores and cannot share it", s,
                           hint="keep per-iteration values inside the loop; combine results through GM "
                                "(store to a scratch buffer, then reduce it after the loop)")
            self._define(s.target, t, s)
            return
        if isinstance(s, A.Store):
            self._store(s)
            return
        if isinstance(s, A.For):
            self._for(s, depth, in_parallel)
            return
        if isinstance(s, A.ParallelFor):
            self._parallel(s, depth)
            return
        raise check_error(f"checker: unknown statement {type(s).__name__}", s, kind="internal error")


    def _view(self, s: A.View, depth: int):
        """``xv = view(x, (...))``: a reshape of a GM tensor, same dtype and element count."""
        if depth:
            raise check_error("a view is declared at the top of the kernel body", s,
                              hint="declare it before the first loop, like a scratch tensor")
        base = self.env.get(s.base)
        if not isinstance(base, TGM):
            call = "view" if s.perm is None else "permute"
            raise check_error(f"{call}({s.base}, ...): {s.base!r} is not a GM tensor (a parameter, a scratch tensor "
                              f"or another view)", s, hint=suggest(s.base, self.env) if s.base not in self.env else
                              "views reshape tensors in GM; a tile is reshaped by loading the region you need")
        if s.base in self.permuted:
            raise check_error(f"{s.name} views {s.base}, a permuted view: its elements are not in memory order", s,
                              hint="view or permute the tensor it permutes, then permute that (a reshape of a "
                                   "transpose is a copy: write it to a scratch tensor in a phase first)")
        if s.perm is not None:
            self._permute(s, base)
            return
        shape = self._dims(A.TensorType(base.dtype, s.shape), s)
        n = 1
        for d in shape:
            n *= d
        m = 1
        for d in base.shape:
            m *= d
        if n != m:
            raise check_error(f"view of {s.base} as [{', '.join(map(str, s.shape))}] = [{', '.join(map(str, shape))}] "
                              f"has {n:,} elements; {s.base} has {m:,} ([{', '.join(map(str, base.shape))}] here)", s,
                              kind="shape error", hint="a view keeps every element in order: the product of its "
                                                       "extents is the tensor's size at every shape")
        self._declare_view(s, base, shape)

    def _declare_view(self, s: A.View, base: TGM, shape: tuple):
        """Define view ``s`` of ``base`` with ``shape``: a GM tensor in the memory of its base's root."""
        root = self.views[s.base][0] if s.base in self.views else s.base
        g = TGM(s.name, base.dtype, shape, base.role)
        self._define(s.name, g, s)
        self.fixed.add(s.name)
        self.views[s.name] = (root, g)

    def _permute(self, s: A.View, base: TGM):
        """``xt = permute(x, (...))``: x's axes in another order (each once), the same memory."""
        if sorted(s.perm) != list(range(len(base.shape))):
            raise check_error(f"permute({s.base}, {s.perm}): the order must name each of {s.base}'s {len(base.shape)} "
                              f"axes 0..{len(base.shape) - 1} once", s, kind="shape error",
                              hint="axis i of the result is axis perm[i] of the tensor: permute(x, (0, 2, 1, 3)) "
                                   "swaps the middle axes of a rank-4 x")
        self._declare_view(s, base, tuple(base.shape[p] for p in s.perm))
        self.permuted.add(s.name)

    def _int_scalar(self, e, what, one_value_tiles=False):
        t = self.expr(e)
        if one_value_tiles and isinstance(t, TTile) and t.shape == () and t.dtype in D.INTS and t.space == "ub":
            return TScalar(t.dtype)   # e.g. a class index loaded from GM: read on the scalar unit
        if not (isinstance(t, TScalar) and t.is_int):
            hint = None
            if isinstance(t, TTile):
                hint = ("tile values live on chip and cannot drive loops or indices (only a one-value integer "
                        "tile, such as load(t[b]), can be an index or a loop bound); use loop variables, dims and "
                        "consts")
            raise check_error(f"{what} must be an integer scalar, got {t.describe()}", e, hint=hint)
        return t

    def _for(self, s: A.For, depth, in_parallel):
        phases = [b for b in s.body if isinstance(b, A.ParallelFor)]
        if phases and (depth or in_parallel or len(phases) != len(s.body)):
            raise check_error("a loop of phases holds only parallel loops and sits at the top of the kernel body", s,
                       hint="for g in range(...): followed by one or more for ... in parallel(...) loops")
        for e, what in ((s.start, "range start"), (s.stop, "range stop"), (s.step, "range step")):
            # a bound may be one integer read from GM (load(n[k]): a loop of a row's count, or of 0 or 1
            # trips for a flag, the DSL having no `if`); a step may not
            self._int_scalar(e, what, one_value_tiles=e is not s.step)
        step = self.expr_types[id(s.step)]
        if step.value == 0:
            raise check_error("range step cannot be 0", s.step)
        if s.var in self.fixed:
            raise check_error(f"loop variable {s.var!r} shadows a parameter, dim, constant or outer loop variable", s)
        self.env[s.var] = TScalar("int")
        self.fixed.add(s.var)
        # Loop-carried values: re-check the body until the types of the names it assigns are stable.
        # A scalar the body reassigns is not a constant inside the loop: dropping its value first
        # makes the first pass stable in the usual case, so nested loops stay linear in depth
        # (re-checking every level twice would double the time with each level).
        for n in {a.target for a in A.statements(s.body) if isinstance(a, A.Assign)}:
            t = self.env.get(n)
            if isinstance(t, TScalar) and t.value is not None:
                self.env[n] = TScalar(t.dtype)
        for attempt in range(4):
            before = {n: t for n, t in self.env.items()}
            try:
                self._block(s.body, depth + 1, in_parallel)
            except DSLError:
                # A pass with a carried name's type from before the loop may fail where the joined
                # type holds (a prefetched first tile shorter than the loop's later ones): fail
                # only once the types the body assigned before the error join to nothing new.
                if attempt == 3 or not self._widens(before, s):
                    raise
            changed = False
            for n, t in list(self.env.items()):
                if n in before and before[n] != t:
                    joined = self._join(before[n], t, n, s)
                    changed |= joined != before[n]
                    self.env[n] = joined
            if not changed:
                break
        self.fixed.discard(s.var)

    def _widens(self, before: dict, node) -> bool:
        """Whether joining the names' types now with ``before`` changes any (a join that fails: no)."""
        try:
            return any(self._join(before[n], t, n, node) != before[n]
                       for n, t in self.env.items() if n in before and before[n] != t)
        except DSLError:
            return False

    def _join(self, a, b, name, node):
        """The type of a loop-carried name: its type before the loop joined with its type after the body."""
        if a == b:
            return a
        weak = ("int", "float", "bool")
        if isinstance(a, TScalar) and isinstance(b, TScalar):
            if a.dtype == b.dtype:
                return TScalar(a.dtype)
            if {a.dtype, b.dtype} == {"int", "float"}:
                return TScalar("float")
            lit, strong = (a, b) if a.dtype in weak else (b, a) if b.dtype in weak else (None, None)
            if lit is not None and strong.dtype not in weak and self._fits(lit, strong.dtype):
                return TScalar(strong.dtype)
        elif isinstance(a, TTile) and isinstance(b, TTile):
            if a.dtype == b.dtype and a.space == b.space and len(a.shape) == len(b.shape):
                return TTile(a.dtype, tuple(max(x, y) for x, y in zip(a.shape, b.shape)), a.space)
        elif isinstance(a, (TScalar, TTile)) and isinstance(b, (TScalar, TTile)):
            tile, scalar = (a, b) if isinstance(a, TTile) else (b, a)
            if scalar.dtype in weak + (tile.dtype,) and self._fits(scalar, tile.dtype):
                return tile  # s = 0.0 before the loop, s = s + sum(t) inside: a 0-d tile
        raise check_error(f"{name!r} changes type inside this loop: {a.describe()} before, {b.describe()} after", node,
                   hint="a value carried across iterations keeps one dtype and shape; initialise it with "
                        "zeros((...), dtype) or full(...) before the loop")

    @staticmethod
    def _fits(t: TScalar, dtype) -> bool:
        """Whether scalar ``t`` converts implicitly to ``dtype`` (see _scalar_fits)."""
        if t.dtype == "bool":
            return dtype == "bool"
        return not (t.is_float and dtype not in D.FLOATS)

    def _parallel(self, s: A.ParallelFor, depth):
        if depth > 1 or (depth and not self._in_phase_loop(s)):
            raise check_error("parallel loops are phases of the kernel and must be at the top of its body (or "
                       "directly in a top-level loop of phases)", s,
                       hint="nest range(...) loops inside a parallel loop, not the other way round")
        for e in s.extents:
            self._int_scalar(e, "parallel extent")
        saved = dict(self.env)
        self._outer_vars = {n for n, t in saved.items() if isinstance(t, (TScalar, TTile)) and n not in self.fixed}
        for v in s.vars:
            if v in self.env:
                raise check_error(f"loop variable {v!r} shadows an existing name", s)
            self.env[v] = TScalar("int")
            self.fixed.add(v)
        self._block(s.body, depth + 1, True)
        for v in s.vars:
            self.fixed.discard(v)
        # Values computed inside a phase are per core: they do not survive it.
        self.env = {n: t for n, t in self.env.items() if n in saved}
        self._outer_vars = set()

    def _in_phase_loop(self, s: A.ParallelFor) -> bool:
        """Is ``s`` directly in a top-level ``for`` (a loop of phases, run with SyncAll between)?"""
        return any(isinstance(t, A.For) and any(b is s for b in t.body) for t in self.kernel.body)

    def _gm_region(self, e, usage) -> TRegion:
        """The GM region an expression names (a whole tensor counts); ``usage`` says who needs it."""
        t = self.expr(e)
        if isinstance(t, TGM):
            return TRegion(t, t.shape)
        if not isinstance(t, TRegion):
            raise check_error(f"{usage} a GM region such as x[i, :], not a {t.describe()}", e)
        return t

    def _store(self, s: A.Store):
        dst = self._gm_region(s.dst, "store writes to")
        if dst.gm.role == "input":
            name = dst.gm.name
            what = f"{name} is a view of the input {self.views[name][0]}" if name in self.views else f"{name} is an input"
            raise check_error(f"{what}; kernels write only outputs and scratch buffers", s.dst)
        self._store_value, self._store_dtype = s.value, dst.gm.dtype
        v = self.expr(s.value)
        if isinstance(v, TScalar):
            self._scalar_fits(v, dst.gm.dtype, s.value)
            return
        if not isinstance(v, TTile):
            raise check_error(f"store needs a tile or scalar value, got {v.describe()}", s.value)
        if v.space == "l1":
            raise check_error("l1 tiles feed the cube; store a ub or l0c tile", s.value)
        if v.dtype != dst.gm.dtype:
            raise check_error(f"storing a {v.dtype} tile into {dst.gm.name} ({dst.gm.dtype})", s.value,
                       hint=f"cast(value, {dst.gm.dtype}) first")
        if s.accumulate and v.dtype not in ("f16", "f32", "i32", "bf16", "i16", "i8"):
            raise check_error(f"atomic_add does not support {v.dtype}", s)
        # A value may be longer than a clamped region (the part past the tensor's end is dropped);
        # exact extents are checked at run time.
        if len(v.shape) > len(dst.shape) or any(a < b and a != 1 for a, b in
                                                zip(v.shape[::-1], dst.shape[::-1])):
            raise check_error(f"value {v.describe()} does not fit region [{', '.join(map(str, dst.shape))}]", s,
                       kind="shape error", hint="the value must have the region's shape (or broadcast to it)")

    def _scalar_fits(self, t: TScalar, dtype, node):
        if self._fits(t, dtype):
            return
        if t.dtype == "bool":
            raise check_error(f"a bool scalar cannot become {dtype}", node)
        raise check_error(f"a float scalar cannot become {dtype} implicitly", node, hint=f"use cast(..., {dtype})")


def check(kernel: A.Kernel, binding: Binding, chip: Chip) -> CheckedKernel:
    """Check a kernel under concrete bindings. Raises DSLError with the kernel's source attached."""
    try:
        return Checker(kernel, binding, chip).run()
    except DSLError as err:
        if kernel.source is not None:   # a lowered level: names a pass made, as the writer's expressions
            from ascendcraft.lowering_passes.base import in_writer_terms
            in_writer_terms(err, kernel)
        raise err.located(kernel.source) from None


def check_at(kernel: A.Kernel, binding: Binding, chip: Chip, known: CheckedKernel | None = None) -> CheckedKernel:
    """``kernel`` checked under ``binding``: ``known``, a check made already, when it is this kernel's
    under the same binding (a shape set equal to another, e.g. a small op's verification shapes
    and its real ones, is not checked twice)."""
    if known is not None and known.kernel is kernel and known.binding == binding and known.chip == chip:
        return known
    return check(kernel, binding, chip)


from .footprint import footprint as _footprint  # noqa: E402  (footprint needs Checker types)

