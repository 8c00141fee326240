"""Static checker: names, types, shapes, memory spaces, scalar vs tile use, and the
on-chip footprint of every statement against the chip's buffers.

It runs with concrete bindings (symbolic dims bound from the actual inputs), so
every shape is a tuple of integers; slice extents are upper bounds (tails may be
shorter at run time, where the interpreter checks exact shapes).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .. import dtypes as D
from ..chips import Chip
from ..errors import DSLError
from . import ast as A
from . import indexing
from .ops import API_COMPARE_MODES, BINARY_OPERATORS, CONSTANT_NAMES, OPS, ROUND_MODES, UNARY_OPERATORS
from .parser import keywords
from .types import TDType, TGM, TRegion, TScalar, TStr, TTile, TTuple


@dataclass(frozen=True)
class Binding:
    """Concrete values for a kernel's symbolic dims and scalar attributes."""

    dims: dict
    attrs: dict


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


def _err(msg, node, hint=None, kind="type error"):
    return DSLError(msg, getattr(node, "span", None), kind=kind, hint=hint)


def _suggest(name, candidates):
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f"did you mean {close[0]!r}?" if close else None


def _broadcast(shapes, node):
    rank = max(len(s) for s in shapes)
    out = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            text = " and ".join("[" + ", ".join(map(str, s)) + "]" for s in shapes)
            raise _err(f"shapes {text} do not broadcast (axis {axis - rank}: {sorted(dims)})", node,
                       hint="operands need equal extents, or extent 1 on the axis to broadcast",
                       kind="shape error")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


class _Linear:
    """Index arithmetic as ``const + sum(coef * var)``, to bound slice extents like j:j+T."""

    @staticmethod
    def of(e, env) -> dict | None:
        if isinstance(e, A.Int):
            return {"": e.value}
        if isinstance(e, A.Name):
            t = env.get(e.id)
            if isinstance(t, TScalar) and t.is_int and isinstance(t.value, int):
                return {"": t.value}
            return {e.id: 1, "": 0}
        if isinstance(e, A.Binary) and e.op in "+-":
            a, b = _Linear.of(e.lhs, env), _Linear.of(e.rhs, env)
            if a is None or b is None:
                return None
            sign = 1 if e.op == "+" else -1
            out = dict(a)
            for k, v in b.items():
                out[k] = out.get(k, 0) + sign * v
            return out
        if isinstance(e, A.Binary) and e.op == "*":
            a, b = _Linear.of(e.lhs, env), _Linear.of(e.rhs, env)
            if a is None or b is None:
                return None
            if set(a) == {""}:
                a, b = b, a
            if set(b) == {""}:
                return {k: v * b[""] for k, v in a.items()}
        return None

    @staticmethod
    def difference(stop, start, env) -> int | None:
        a, b = _Linear.of(stop, env), _Linear.of(start, env)
        if a is None or b is None:
            return None
        diff = dict(a)
        for k, v in b.items():
            diff[k] = diff.get(k, 0) - v
        if all(v == 0 for k, v in diff.items() if k):
            return diff.get("", 0)
        return None


class Checker:
    def __init__(self, kernel: A.Kernel, binding: Binding, chip: Chip):
        self.kernel, self.binding, self.chip = kernel, binding, chip
        self.expr_types: dict[int, object] = {}
        self.uses_cube = any(isinstance(n, A.Call) and n.func in ("matmul", "Matmul") for n in A.walk(kernel))
        self.cores = chip.aic_cores if self.uses_cube else chip.aiv_cores
        self.env: dict[str, object] = {}
        self.fixed: set[str] = set()     # names that cannot be reassigned
        self.params: dict[str, object] = {}
        self.scratch: dict[str, TGM] = {}
        self._outer_vars: set[str] = set()   # names visible in the current parallel loop, defined outside it
        self.buffers: dict[str, A.Buffer] = {}
        self._store_value = None   # the value of the store being checked (Matmul may only be one)
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
                    raise _err(f"parameter {p.name!r} is declared twice", p)
                if p.name in keywords():
                    raise _err(f"{p.name!r} is a keyword of the tile DSL", p, hint=f"rename the parameter (e.g. {p.name}_)")
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
        return CheckedKernel(k, self.binding, self.chip, self.cores, self.uses_cube, self.params, self.scratch,
                             self.expr_types, dead_after, peak, self.buffers, self.warnings,
                             {n: self.buffer_bytes(b) for n, b in self.buffers.items()})

    def _dims(self, t: A.TensorType, node) -> tuple[int, ...]:
        out = []
        for d in t.shape:
            if isinstance(d, int):
                out.append(d)
                continue
            v = self.env.get(d)
            if not (isinstance(v, TScalar) and isinstance(v.value, int)):
                raise _err(f"dim {d!r} has no value", node, hint="symbolic dims are bound from the op's input and "
                           "output shapes; scratch shapes may use those dims, constants and CORES")
            out.append(v.value)
        return tuple(out)

    def _param_type(self, p: A.Param, role: str):
        t = p.type
        if t.dtype not in D.ALL:
            raise _err(f"unknown dtype {t.dtype!r}", t, hint=f"dtypes: {', '.join(D.ALL)}")
        if isinstance(t, A.ScalarType):
            if role == "output":
                raise _err("outputs are GM tensors, not scalars", p, hint="declare it as gm f32[] for one value")
            if p.name not in self.binding.attrs:
                raise _err(f"scalar attribute {p.name!r} has no value", p,
                           hint="name it like the op's __init__ argument, or give a default: eps: f32 = 1e-5")
            return TScalar(t.dtype, self.binding.attrs[p.name])
        if t.space != "gm":
            raise _err(f"kernel parameters live in gm, not {t.space}", t)
        if p.default is not None:
            raise _err("only scalar attributes can have defaults", p.default)
        return TGM(p.name, t.dtype, self._dims(t, p), role)

    # ------------------------------------------------------------ statements
    def _block(self, stmts, depth, in_parallel):
        for s in stmts:
            self._stmt(s, depth, in_parallel)

    def _define(self, name, t, node):
        # Keywords cannot reach here from parsed text (the grammar reserves them); programs built
        # as trees (passes, the fuzzer) are held to the same rule.
        if name in keywords():
            raise _err(f"cannot assign to {name!r}: it is a keyword of the tile DSL", node,
                       hint=f"use another name (e.g. {name}_)")
        if name in self.fixed:
            raise _err(f"cannot assign to {name!r}: it is a parameter, dim, constant or loop variable", node,
                       hint="use a new name")
        self.env[name] = t

    def _stmt(self, s, depth, in_parallel):
        if isinstance(s, A.Pass):
            return
        if isinstance(s, A.Const):
            t = self.expr(s.value)
            if not (isinstance(t, TScalar) and t.value is not None):
                raise _err("a const needs a value known before the kernel runs", s.value)
            self._define(s.name, TScalar("int" if t.is_int else t.dtype, t.value), s)
            self.fixed.add(s.name)
            return
        if isinstance(s, A.Scratch):
            if depth:
                raise _err("scratch buffers are declared at the top of the kernel body", s)
            if s.type.dtype not in D.ALL:
                raise _err(f"unknown dtype {s.type.dtype!r}", s.type)
            g = TGM(s.name, s.type.dtype, self._dims(s.type, s), "scratch")
            total = g.nbytes + sum(x.nbytes for x in self.scratch.values())
            if total > self.chip.hbm_bytes:
                raise _err(f"scratch {s.name} takes {g.nbytes:,} bytes here ({total:,} for all scratch tensors), "
                           f"more than the {self.chip.hbm_bytes:,} bytes of global memory on {self.chip.name}", s,
                           kind="memory error", hint="size scratch by the work it holds, e.g. one value per core "
                           "or per row: scratch part: f32[B]")
            self._define(s.name, g, s)
            self.fixed.add(s.name)
            self.scratch[s.name] = g
            return
        if isinstance(s, A.Buffer):
            self._buffer(s, depth)
            return
        if isinstance(s, A.Free):
            t = self.env.get(s.name)
            if not isinstance(t, TTile):
                raise _err(f"free({s.name}): {s.name!r} is not a tile", s)
            return
        if isinstance(s, A.Assign):
            t = self.expr(s.value)
            if isinstance(t, (TGM, TRegion)):
                raise _err(f"{t.describe()} cannot be assigned; copy it on chip with load(...)", s.value,
                           hint=f"{s.target} = load(...)")
            if not isinstance(t, (TScalar, TTile)):
                raise _err(f"cannot assign a {t.describe()}", s.value)
            if in_parallel and s.target in self._outer_vars:
                raise _err(f"{s.target!r} is defined outside this parallel loop and reassigned inside it; "
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
        raise _err(f"checker: unknown statement {type(s).__name__}", s, kind="internal error")

    # ------------------------------------------------------------ lowered forms: buffers
    def _buffer(self, s: A.Buffer, depth):
        if depth:
            raise _err("buffers are declared at the top of the kernel body", s)
        if s.type.dtype not in D.ALL:
            raise _err(f"unknown dtype {s.type.dtype!r}", s.type)
        if s.name in self.buffers or s.name in self.env:
            raise _err(f"{s.name!r} is already defined", s)
        queue = s.type.space in ("vecin", "vecout")
        if not 1 <= s.depth <= (8 if queue else 1):
            raise _err(f"buffer depth {s.depth}: queues hold 1 to 8 slots, veccalc buffers 1", s)
        self._dims(s.type, s)
        self.buffers[s.name] = s
        self.fixed.add(s.name)

    def buffer_bytes(self, b: A.Buffer) -> int:
        """UB bytes of a buffer: each slot rounded up to 32 bytes (TPipe::InitBuffer does the same)."""
        n = D.ITEMSIZE[b.type.dtype]
        for d in self._dims(b.type, b):
            n *= d
        return -(-n // 32) * 32 * b.depth

    def _check_buffer_budget(self):
        """ascendc_api.md 1.3: at most 64 buffers, 8 allocated per position; their sum fits the UB."""
        total = sum(self.buffer_bytes(b) for b in self.buffers.values())
        cap = self.chip.capacity("ub")
        last = list(self.buffers.values())[-1]
        if total > cap:
            raise _err(f"buffers take {total:,} bytes of UB; {self.chip.name} has {cap:,}", last,
                       kind="memory error", hint="smaller tiles, or reuse buffers for values that are not live "
                       "at the same time")
        if sum(b.depth for b in self.buffers.values()) > 64:
            raise _err("more than 64 buffers in one kernel (AscendC limit)", last, kind="memory error")
        for pos in ("vecin", "vecout"):
            n = sum(b.depth for b in self.buffers.values() if b.type.space == pos)
            if n > 8:
                raise _err(f"{n} {pos} buffers: at most 8 per position can be allocated at once", last,
                           kind="memory error", hint="fewer queues or a smaller depth")

    def _placed(self, out: str | None, t: TTile, node):
        """``out=b``: the tile must fit buffer b (same dtype, enough elements)."""
        if out is None:
            if self.buffers and isinstance(t, TTile) and t.space == "ub":
                raise _err("in a kernel with buffers every ub tile needs out=<buffer>", node)
            return t
        b = self.buffers.get(out)
        if b is None:
            raise _err(f"out={out}: no buffer named {out!r}", node, hint=_suggest(out, set(self.buffers)))
        if not isinstance(t, TTile):
            raise _err(f"out={out}: only tiles are placed in buffers, this is a {t.describe()}", node)
        if b.type.dtype != t.dtype:
            raise _err(f"out={out}: a {t.dtype} tile in a {b.type.dtype} buffer", node)
        need = 1
        for d in t.shape:
            need *= d
        have = 1
        for d in self._dims(b.type, b):
            have *= d
        if need > have:
            raise _err(f"out={out}: the tile has {need} elements, the buffer {have}", node, kind="memory error")
        return t

    def _api(self, op, e: A.Call):
        form, args = op.form, e.args
        if form == "gemm":
            return self._gemm(op, e)
        types = [self.expr(a) for a in args]
        out = e.kwarg("out")
        if out is not None and not isinstance(out, A.Name):
            raise _err("out= names a buffer", out)

        def tile(i, what="a ub tile"):
            t = types[i]
            if not (isinstance(t, TTile) and t.space == "ub"):
                raise _err(f"{op.name}: argument {i + 1} must be {what}, got {t.describe()}", args[i])
            return t

        def dtype_ok(t, node):
            if t.dtype not in op.dtypes:
                raise _err(f"{op.name} does not support {t.dtype}", node)

        def scalar(i, dtype):
            t = types[i]
            if not isinstance(t, TScalar):
                raise _err(f"{op.name}: argument {i + 1} must be a scalar, got {t.describe()}", args[i])
            self._scalar_fits(t, dtype, args[i])

        if form == "getvalue":
            t = tile(0)
            return TScalar(t.dtype)
        if form in indexing.API_FORMS:    # Gather, ArgMaxRows/ArgMinRows: dsl/indexing.py
            return indexing.check_api(self, op, e, types, out)
        if form in ("rowvec", "colvec"):
            a, b = tile(0), tile(1)
            dtype_ok(a, args[0])
            # a row vector is [C] or [1, C] (keepdims=True along axis 0), on either side
            big, vec = (b, a) if form == "rowvec" and (len(a.shape) == 1 or len(b.shape) == 2 and a.shape[0] == 1
                                                       and b.shape[0] != 1) else (a, b)
            ok = len(big.shape) == 2 and big.dtype == vec.dtype and (
                vec.shape in ((big.shape[1],), (1, big.shape[1])) if form == "rowvec" else vec.shape == (big.shape[0], 1))
            if not ok:
                raise _err(f"{op.name} takes a [R, C] tile and a {'[C]' if form == 'rowvec' else '[R, 1]'} vector "
                           f"of one dtype, got {a.describe()} and {b.describe()}", e, kind="shape error")
            return self._placed(out.id if out is not None else None, TTile(big.dtype, big.shape), e)
        if form == "outer":   # a column [R, 1] and a row [C] / [1, C], either order -> [R, C]
            from .broadcast import outer_shape
            a, b = tile(0), tile(1)
            dtype_ok(a, args[0])
            shape = outer_shape(a.shape, b.shape)
            if shape is None or a.dtype != b.dtype:
                raise _err(f"{op.name} takes an [R, 1] column and a [C] or [1, C] row of one dtype, got {a.describe()} "
                           f"and {b.describe()}", e, kind="shape error")
            return self._placed(out.id if out is not None else None, TTile(a.dtype, shape), e)
        if form == "window":
            t = tile(0)
            if not 1 <= len(self.window_params(e, len(t.shape))[0]) <= min(2, len(t.shape)) or len(t.shape) > 2:
                raise _err(f"{op.name} pools over the last one or two axes of a 1-D or 2-D tile", e, kind="shape error")
            result = self._window(OPS[op.of], e)
            return self._placed(out.id if out is not None else None, result, e)
        if form == "duplicate":
            shape = self._shape_arg(args[0])
            dt = types[2]
            if not isinstance(dt, TDType):
                raise _err("Duplicate(shape, value, dtype): the third argument is a dtype", args[2])
            scalar(1, dt.name)
            result = TTile(dt.name, shape)
        elif form == "cast":
            t = tile(0)
            if not isinstance(types[1], TDType):
                raise _err("Cast(x, dtype): the second argument is a dtype", args[1])
            result = TTile(types[1].name, t.shape)
        elif form == "select":
            m, a = tile(0, "a bool mask tile"), tile(1)
            dtype_ok(a, args[1])
            if m.dtype != "bool" or m.shape != a.shape:
                raise _err(f"{op.name}: the mask must be a bool tile of the value's shape", args[0])
            if isinstance(types[2], TScalar):
                scalar(2, a.dtype)
            elif tile(2).dtype != a.dtype or types[2].shape != a.shape:
                raise _err(f"{op.name}: both values need one dtype and shape", e)
            result = a
        else:
            a = tile(0)
            dtype_ok(a, args[0])
            if form == "reduce":
                return TScalar(a.dtype)
            if form == "rowreduce":
                if len(a.shape) != 2:
                    raise _err(f"{op.name} reduces each row of a 2-D tile, got {a.describe()}", args[0],
                               kind="shape error")
                keep = self._kw_const(e, "keepdims", False)
                result = TTile(a.dtype, (a.shape[0], 1) if keep else (a.shape[0],))
            elif form == "rows":
                if len(a.shape) != 2:
                    raise _err(f"{op.name} reduces the rows of a 2-D tile, got {a.describe()}", args[0],
                               kind="shape error")
                result = TTile(a.dtype, a.shape[1:])
            elif form == "scan":
                if len(a.shape) != 1 and tuple(a.shape[:1]) != (1,) or len(a.shape) > 2:   # [C] or a [1, C] row
                    raise _err(f"{op.name} scans a 1-D tile, got {a.describe()}", args[0], kind="shape error")
                if not isinstance(self._kw_const(e, "reverse", False), bool):
                    raise _err(f"{op.name}(..., reverse=...) is True or False", e)
                result = a
            elif form in ("unary", "copy"):
                result = a
            elif form == "scalar" or (form == "compare" and op.name == "CompareScalar"):
                scalar(1, a.dtype)
                result = TTile(op.result or a.dtype, a.shape)
            else:  # binary, Compare: two tiles of one shape (the API does not broadcast)
                b = tile(1)
                if b.dtype != a.dtype or b.shape != a.shape:
                    raise _err(f"{op.name} needs two tiles of one dtype and shape, got {a.describe()} and "
                               f"{b.describe()}", e, kind="shape error")
                result = TTile(op.result or a.dtype, a.shape)
            if form == "compare" and self._kw_const(e, "mode", None) not in API_COMPARE_MODES:
                raise _err(f"{op.name}(..., mode=...) is one of {', '.join(API_COMPARE_MODES)}", e)
        return self._placed(out.id if out is not None else None, result, e)

    def _gemm(self, op, e: A.Call):
        """``Matmul(a[...], b[...], transpose_b=..., base=(bm, bn, bk))``: GM regions in, the product
        streamed to GM by the store it is the value of (a "gm" tile holds no on-chip memory)."""
        if e is not self._store_value or self._store_value is None:
            raise _err("Matmul(...) writes GM directly: use it only as store(c[...], Matmul(...))", e)
        if e.kwarg("out") is not None:
            raise _err("Matmul(...) has no out=", e)
        a, b = (self._gm_region(x, "Matmul reads") for x in e.args)
        for r, node in ((a, e.args[0]), (b, e.args[1])):
            if len(r.shape) != 2 or r.gm.dtype not in op.dtypes:
                raise _err(f"Matmul multiplies 2-D f16, bf16 or f32 regions, got {r.gm.dtype}"
                           f"[{', '.join(map(str, r.shape))}]", node, kind="shape error")
        if a.gm.dtype != b.gm.dtype:
            raise _err(f"Matmul operands differ in dtype: {a.gm.dtype} and {b.gm.dtype}", e)
        m, n = self._product_shape(a.shape, b.shape, e)
        base = self._kw_const(e, "base", None)
        if not (isinstance(base, tuple) and len(base) == 3 and all(v > 0 and v % 16 == 0 for v in base[:2])
                and base[2] > 0):
            raise _err("Matmul needs base=(baseM, baseN, baseK): the cube's base block, baseM and baseN "
                       "multiples of 16", e)
        # fp32 accumulation; f16/bf16 products may be written in their own dtype (Fixpipe converts)
        out = self._store_dtype if a.gm.dtype != "f32" and self._store_dtype in ("f16", "bf16") else "f32"
        return TTile(out, (m, n), "gm")

    def _int_scalar(self, e, what, one_value_tiles=False):
        t = self.expr(e)
        if one_value_tiles and isinstance(t, TTile) and t.shape == () and t.dtype in D.INTS and t.space == "ub":
            return TScalar(t.dtype)   # e.g. a class index loaded from GM: read on the scalar unit
        if not (isinstance(t, TScalar) and t.is_int):
            hint = None
            if isinstance(t, TTile):
                hint = ("tile values live on chip and cannot drive loops or indices (only a one-value integer "
                        "tile, such as load(t[b]), can be an index); use loop variables, dims and consts")
            raise _err(f"{what} must be an integer scalar, got {t.describe()}", e, hint=hint)
        return t

    def _for(self, s: A.For, depth, in_parallel):
        phases = [b for b in s.body if isinstance(b, A.ParallelFor)]
        if phases and (depth or in_parallel or len(phases) != len(s.body)):
            raise _err("a loop of phases holds only parallel loops and sits at the top of the kernel body", s,
                       hint="for g in range(...): followed by one or more for ... in parallel(...) loops")
        for e, what in ((s.start, "range start"), (s.stop, "range stop"), (s.step, "range step")):
            self._int_scalar(e, what)
        step = self.expr_types[id(s.step)]
        if step.value == 0:
            raise _err("range step cannot be 0", s.step)
        if s.var in self.fixed:
            raise _err(f"loop variable {s.var!r} shadows a parameter, dim, constant or outer loop variable", s)
        self.env[s.var] = TScalar("int")
        self.fixed.add(s.var)
        # Loop-carried values: re-check the body until the types of the names it assigns are stable.
        # A scalar the body reassigns is not a constant inside the loop: dropping its value first
        # makes the first pass stable in the usual case, so nested loops stay linear in depth
        # (re-checking every level twice would double the time with each level).
        for n in {a.target for a in A.walk(s) if isinstance(a, A.Assign)}:
            t = self.env.get(n)
            if isinstance(t, TScalar) and t.value is not None:
                self.env[n] = TScalar(t.dtype)
        for _ in range(4):
            before = {n: t for n, t in self.env.items()}
            self._block(s.body, depth + 1, in_parallel)
            changed = False
            for n, t in list(self.env.items()):
                if n in before and before[n] != t:
                    joined = self._join(before[n], t, n, s)
                    changed |= joined != before[n]
                    self.env[n] = joined
            if not changed:
                break
        self.fixed.discard(s.var)

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
        raise _err(f"{name!r} changes type inside this loop: {a.describe()} before, {b.describe()} after", node,
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
            raise _err("parallel loops are phases of the kernel and must be at the top of its body (or "
                       "directly in a top-level loop of phases)", s,
                       hint="nest range(...) loops inside a parallel loop, not the other way round")
        for e in s.extents:
            self._int_scalar(e, "parallel extent")
        saved = dict(self.env)
        self._outer_vars = {n for n, t in saved.items() if isinstance(t, (TScalar, TTile)) and n not in self.fixed}
        for v in s.vars:
            if v in self.env:
                raise _err(f"loop variable {v!r} shadows an existing name", s)
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
            raise _err(f"{usage} a GM region such as x[i, :], not a {t.describe()}", e)
        return t

    def _store(self, s: A.Store):
        dst = self._gm_region(s.dst, "store writes to")
        if dst.gm.role == "input":
            raise _err(f"{dst.gm.name} is an input; kernels write only outputs and scratch buffers", s.dst)
        self._store_value, self._store_dtype = s.value, dst.gm.dtype
        v = self.expr(s.value)
        if isinstance(v, TScalar):
            self._scalar_fits(v, dst.gm.dtype, s.value)
            return
        if not isinstance(v, TTile):
            raise _err(f"store needs a tile or scalar value, got {v.describe()}", s.value)
        if v.space == "l1":
            raise _err("l1 tiles feed the cube; store a ub or l0c tile", s.value)
        if v.dtype != dst.gm.dtype:
            raise _err(f"storing a {v.dtype} tile into {dst.gm.name} ({dst.gm.dtype})", s.value,
                       hint=f"cast(value, {dst.gm.dtype}) first")
        if s.accumulate and v.dtype not in ("f16", "f32", "i32", "bf16", "i16", "i8"):
            raise _err(f"atomic_add does not support {v.dtype}", s)
        # A value may be longer than a clamped region (the part past the tensor's end is dropped);
        # exact extents are checked at run time.
        if len(v.shape) > len(dst.shape) or any(a < b and a != 1 for a, b in
                                                zip(v.shape[::-1], dst.shape[::-1])):
            raise _err(f"value {v.describe()} does not fit region [{', '.join(map(str, dst.shape))}]", s,
                       kind="shape error", hint="the value must have the region's shape (or broadcast to it)")

    def _scalar_fits(self, t: TScalar, dtype, node):
        if self._fits(t, dtype):
            return
        if t.dtype == "bool":
            raise _err(f"a bool scalar cannot become {dtype}", node)
        raise _err(f"a float scalar cannot become {dtype} implicitly", node, hint=f"use cast(..., {dtype})")

    # ------------------------------------------------------------ expressions
    def expr(self, e):
        t = self._expr(e)
        self.expr_types[id(e)] = t
        return t

    def _expr(self, e):
        if isinstance(e, A.Int):
            return TScalar("int", e.value)
        if isinstance(e, A.Float):
            return TScalar("float", e.value)
        if isinstance(e, A.Str):
            return TStr(e.value)
        if isinstance(e, A.Tuple):
            return TTuple(tuple(self.expr(i) for i in e.items))
        if isinstance(e, A.Name):
            return self._name(e)
        if isinstance(e, A.Unary):
            return self._apply(OPS[UNARY_OPERATORS[e.op]], [e.operand], e)
        if isinstance(e, A.Binary):
            return self._binary(e)
        if isinstance(e, A.Index):
            return self._index(e)
        if isinstance(e, A.Load):
            return self._load(e)
        if isinstance(e, A.Call):
            return self._call(e)
        if isinstance(e, A.Slice):
            raise _err("a slice a:b is only valid inside [...]", e)
        raise _err(f"checker: unknown expression {type(e).__name__}", e, kind="internal error")

    def _name(self, e: A.Name):
        if e.id in self.env:
            return self.env[e.id]
        if e.id in CONSTANT_NAMES:
            v = CONSTANT_NAMES[e.id]
            return TScalar("bool" if isinstance(v, bool) else "float", v)
        if e.id in D.ALL:
            return TDType(e.id)
        if e.id in OPS:
            raise _err(f"{e.id} is an op; call it: {e.id}(...)", e)
        raise _err(f"name {e.id!r} is not defined", e, hint=_suggest(e.id, set(self.env) | set(CONSTANT_NAMES)))

    def _binary(self, e: A.Binary):
        op = OPS[BINARY_OPERATORS[e.op]]
        a, b = self.expr(e.lhs), self.expr(e.rhs)
        if isinstance(a, TScalar) and isinstance(b, TScalar) and e.op in ("+", "-", "*", "//", "%") \
                and a.is_int and b.is_int:
            value = None
            if isinstance(a.value, int) and isinstance(b.value, int):
                if e.op in ("//", "%") and b.value == 0:
                    raise _err("integer division by zero", e)
                value = {"+": a.value + b.value, "-": a.value - b.value, "*": a.value * b.value,
                         "//": a.value // b.value if b.value else 0, "%": a.value % b.value if b.value else 0}[e.op]
            strong = a.dtype if a.dtype != "int" else b.dtype
            return TScalar(strong, value)
        if e.op == "**":
            if not isinstance(b, (TScalar, TTile)):   # a tile exponent broadcasts like any operand
                raise _err("the exponent of ** must be a scalar or a tile", e.rhs)
        return self._apply(op, [e.lhs, e.rhs], e, types=[a, b])

    def _apply(self, op, args, node, types=None):
        types = types or [self.expr(a) for a in args]
        tiles = [t for t in types if isinstance(t, TTile)]
        for a, t in zip(args, types):
            if isinstance(t, (TGM, TRegion)):
                raise _err(f"{op.name} needs on-chip values; {t.describe()} is in GM", a,
                           hint="load(...) it into a tile first")
            if not isinstance(t, (TScalar, TTile)):
                raise _err(f"{op.name} cannot take a {t.describe()}", a)
        if not tiles:
            return self._scalar_op(op, types, node)
        spaces = {t.space for t in tiles}
        if spaces == {"l0c"} and op.name == "add" and len(tiles) == 2:
            pass  # cube accumulation: c = c + matmul(a, b)
        elif spaces != {"ub"}:
            raise _err(f"{op.name} runs on the vector unit, which reads ub tiles only "
                       f"(got {', '.join(sorted(spaces))})", node,
                       hint="l1 tiles feed matmul; l0c results are stored to GM or accumulated with +")
        dtypes = {t.dtype for t in tiles}
        if len(dtypes) > 1:
            raise _err(f"{op.name} mixes {' and '.join(sorted(dtypes))} tiles", node,
                       hint="cast(x, dtype) one operand so both have the same dtype")
        dtype = dtypes.pop()
        for a, t in zip(args, types):
            if isinstance(t, TScalar):
                self._scalar_fits(t, dtype, a)
        if dtype not in op.dtypes:
            allowed = "float" if op.dtypes <= D.FLOATS else "/".join(sorted(op.dtypes))
            raise _err(f"{op.name} needs {allowed} operands, got {dtype}", node,
                       hint="cast(x, f32) first" if allowed == "float" else None)
        shape = _broadcast([t.shape for t in tiles], node)
        return TTile(op.result or dtype, shape, tiles[0].space)

    def _scalar_op(self, op, types, node):
        allowed = {k for k, group in (("bool", {"bool"}), ("float", D.FLOATS), ("int", D.INTS)) if op.dtypes & group}
        if op.name in ("div", "floordiv", "mod", "pow"):
            allowed |= {"int", "float"}  # scalar arithmetic follows Python here
        for t in types:
            kind = "bool" if t.dtype == "bool" else "float" if t.is_float else "int"
            if kind not in allowed:
                raise _err(f"{op.name} cannot take a {kind} scalar", node)
        kinds = {t.dtype for t in types}
        strong = [k for k in kinds if k not in ("int", "float", "bool")]
        if len(set(strong)) > 1:
            raise _err(f"{op.name} mixes scalar types {', '.join(sorted(strong))}", node)
        if strong:
            dtype = strong[0]
        elif "float" in kinds or op.name in ("div", "pow") or op.dtypes <= D.FLOATS:
            dtype = "float"
        elif "int" in kinds:
            dtype = "int"
        else:
            dtype = "bool"
        value = None
        if all(t.value is not None for t in types) and op.numpy is not None:
            import numpy as np
            with np.errstate(all="ignore"):
                value = op.numpy(*[np.float64(t.value) if dtype == "float" else t.value for t in types])
            value = value.item() if hasattr(value, "item") else value
        return TScalar(op.result or dtype, value)

    def _index(self, e: A.Index):
        base = self.expr(e.base)
        if isinstance(base, TGM):
            shape = base.shape
        elif isinstance(base, TTile):
            shape = base.shape
        else:
            raise _err(f"cannot index a {base.describe()}", e.base)
        if len(e.subscripts) > len(shape):
            raise _err(f"{len(e.subscripts)} subscripts for a rank-{len(shape)} value", e, kind="shape error")
        out = []
        for axis, sub in enumerate(e.subscripts):
            dim = shape[axis]
            if isinstance(sub, A.Slice):
                for b in (sub.start, sub.stop):
                    if b is not None:
                        self._int_scalar(b, "a slice bound")
                out.append(self._extent(sub, dim))
            else:
                t = self._int_scalar(sub, "an index", one_value_tiles=True)
                if isinstance(t.value, int) and not 0 <= t.value < dim:
                    raise _err(f"index {t.value} is out of range for an axis of extent {dim}", sub,
                               kind="shape error")
        out += list(shape[len(e.subscripts):])
        if isinstance(base, TGM):
            return TRegion(base, tuple(out))
        return TTile(base.dtype, tuple(out), base.space)

    def _extent(self, sub: A.Slice, dim: int) -> int:
        start = self.expr_types.get(id(sub.start)) if sub.start is not None else TScalar("int", 0)
        stop = self.expr_types.get(id(sub.stop)) if sub.stop is not None else TScalar("int", dim)
        if isinstance(start.value, int) and isinstance(stop.value, int):
            lo, hi = min(max(start.value, 0), dim), min(max(stop.value, 0), dim)
            return max(hi - lo, 0)
        if sub.start is not None and sub.stop is not None:
            diff = _Linear.difference(sub.stop, sub.start, self.env)
            if diff is not None:
                return max(min(diff, dim), 0)
        return dim

    def _load(self, e: A.Load):
        src = self._gm_region(e.src, "load copies on chip")
        shape = src.shape
        if e.pad is not None:
            pad = self.expr(e.pad)
            if not isinstance(pad, TScalar):
                raise _err("pad must be a scalar", e.pad)
            self._scalar_fits(pad, src.gm.dtype, e.pad)
            shape = self._padded_shape(e.src, src)
        t = TTile(src.gm.dtype, shape, e.space)
        return self._placed(e.out, t, e) if e.space == "ub" else t

    def _padded_shape(self, index, region: TRegion):
        """With pad=..., a slice keeps its full extent even where it leaves the tensor."""
        if not isinstance(index, A.Index):
            return region.shape
        out, subs = [], index.subscripts
        for axis, sub in enumerate(subs):
            if isinstance(sub, A.Slice):
                if sub.start is None or sub.stop is None:
                    out.append(region.gm.shape[axis])
                    continue
                diff = _Linear.difference(sub.stop, sub.start, self.env)
                if diff is None:
                    raise _err("with pad=..., each slice needs a constant length such as i-1:i+T+1", sub)
                out.append(max(diff, 0))
        out += list(region.gm.shape[len(subs):])
        return tuple(out)

    # ------------------------------------------------------------ calls
    def _kw_const(self, call: A.Call, name, default):
        e = call.kwarg(name)
        if e is None:
            return default
        t = self.expr(e)
        if isinstance(t, TTuple):
            if not all(isinstance(i, TScalar) and isinstance(i.value, int) for i in t.items):
                raise _err(f"{name}= needs constant integers", e)
            return tuple(i.value for i in t.items)
        if isinstance(t, TStr):
            return t.value
        if not (isinstance(t, TScalar) and t.value is not None):
            raise _err(f"{name}= needs a constant", e)
        return t.value

    def _call(self, e: A.Call):
        if e.func in ("store", "atomic_add"):
            raise _err(f"{e.func}(...) is a statement; it has no value", e)
        if e.func in ("range", "parallel"):
            raise _err(f"{e.func}(...) is only valid in a for loop header", e)
        op = OPS.get(e.func)
        if op is None or op.kind == "internal":
            what = f"{e.func!r} is a variable here, not a function" if e.func in self.env else \
                f"unknown function {e.func!r}"
            raise _err(what, e, hint=_suggest(e.func, {n for n, o in OPS.items() if o.kind != "internal"} | {"load"}))
        if e.func in self.env and e.func not in self._warned:
            # a call names the op whatever variables exist: neg = ...; neg(t) negates t
            self._warned.add(e.func)
            self.warnings.append(_err(f"{e.func}(...) calls the op {e.func}; the variable {e.func!r} defined in "
                                      f"this kernel is not called", e, kind="warning",
                                      hint=f"rename the variable (e.g. {e.func}_) if this reads ambiguously"))
        allowed = set(op.kwargs)
        for k in e.kwargs:
            if k.name not in allowed:
                raise _err(f"{e.func} has no keyword argument {k.name!r}", k,
                           hint=f"keywords of {e.func}: {', '.join(sorted(allowed)) or 'none'}")
        if len(e.args) != op.nargs and not (op.kind == "reduce" and len(e.args) == 1):
            hint = None
            if op.name in ("max", "min") and len(e.args) == 2:
                hint = f"{op.name}(x) reduces; use {op.name}imum(a, b) for the element-wise {op.name}"
            raise _err(f"{e.func} takes {op.nargs} positional argument(s), got {len(e.args)}", e, hint=hint)
        if op.kind == "elementwise":
            return self._apply(op, list(e.args), e)
        if op.kind == "api":
            return self._api(op, e)
        return getattr(self, f"_{op.kind}")(op, e)

    def _tile_arg(self, e, opname, space="ub"):
        t = self.expr(e)
        if isinstance(t, (TGM, TRegion)):
            raise _err(f"{opname} needs an on-chip tile; {t.describe()} is in GM", e, hint="load(...) it first")
        if not isinstance(t, TTile):
            raise _err(f"{opname} needs a tile, got {t.describe()}", e)
        if space and t.space != space:
            raise _err(f"{opname} needs a {space} tile, got {t.describe()}", e)
        return t

    def _axis(self, e, axis, rank):
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise _err("axis must be an integer", e)
        if not -rank <= axis < rank:
            raise _err(f"axis {axis} is out of range for a rank-{rank} tile", e, kind="shape error")
        return axis % rank

    def _reduce(self, op, e):
        t = self._tile_arg(e.args[0], op.name)
        if t.dtype not in op.dtypes:
            raise _err(f"{op.name} needs a {'float' if op.dtypes <= D.FLOATS else 'numeric'} tile, got {t.dtype}", e)
        axis = self._kw_const(e, "axis", None)
        keep = self._kw_const(e, "keepdims", False)
        if axis is None:
            return TTile(t.dtype, (1,) * len(t.shape) if keep else (), t.space)
        if not t.shape:
            raise _err(f"{op.name} with an axis needs a tile of rank >= 1", e)
        ax = self._axis(e, axis, len(t.shape))
        shape = tuple(1 if i == ax else d for i, d in enumerate(t.shape)) if keep else \
            tuple(d for i, d in enumerate(t.shape) if i != ax)
        return TTile(t.dtype, shape, t.space)

    def _argreduce(self, op, e):    # argmax / argmin: ascendcraft/dsl/indexing.py
        return indexing.check_argreduce(self, op, e)

    def _gather(self, op, e):       # gather(t, idx, axis=...): ascendcraft/dsl/indexing.py
        return indexing.check_gather(self, op, e)

    def _scatter(self, op, e):      # scatter / scatter_add(t, idx, v, axis=...): ascendcraft/dsl/indexing.py
        return indexing.check_scatter(self, op, e)

    def _scan(self, op, e):
        t = self._tile_arg(e.args[0], op.name)
        if t.dtype not in op.dtypes:
            raise _err(f"{op.name} needs a numeric tile, got {t.dtype}", e)
        if not t.shape:
            raise _err(f"{op.name} needs a tile of rank >= 1", e)
        self._axis(e, self._kw_const(e, "axis", -1), len(t.shape))
        for kw in ("reverse", "exclusive"):
            if not isinstance(self._kw_const(e, kw, False), bool):
                raise _err(f"{kw}= must be True or False", e)
        return t

    def window_params(self, e, rank):
        """(kernel, stride, padding, dilation) tuples for a window op over the trailing axes."""
        kernel = self._kw_const(e, "kernel", None)
        if kernel is None:
            raise _err(f"{e.func} needs kernel=(k, ...)", e)
        kernel = (kernel,) if isinstance(kernel, int) else kernel
        n = len(kernel)
        if not 1 <= n <= rank:
            raise _err(f"kernel has {n} axes but the tile has rank {rank}", e, kind="shape error")

        def expand(name, default):
            v = self._kw_const(e, name, default)
            v = (v,) * n if isinstance(v, int) else v
            if len(v) != n or not all(isinstance(x, int) for x in v):
                raise _err(f"{name}= needs {n} integer(s)", e)
            return v
        stride = expand("stride", kernel)
        padding, dilation = expand("padding", 0), expand("dilation", 1)
        if any(k < 1 for k in kernel) or any(s < 1 for s in stride) or any(d < 1 for d in dilation) \
                or any(p < 0 for p in padding):
            raise _err("kernel, stride and dilation must be >= 1 and padding >= 0", e)
        return kernel, stride, padding, dilation

    def _window(self, op, e):
        t = self._tile_arg(e.args[0], op.name)
        if t.dtype not in op.dtypes:
            raise _err(f"{op.name} does not support {t.dtype}", e)
        kernel, stride, padding, dilation = self.window_params(e, len(t.shape))
        lead = t.shape[:len(t.shape) - len(kernel)]
        out = []
        for size, k, s, p, d in zip(t.shape[len(lead):], kernel, stride, padding, dilation):
            n = (size + 2 * p - d * (k - 1) - 1) // s + 1
            if n < 1:
                raise _err(f"window of {k} (dilation {d}, padding {p}) does not fit an axis of {size}", e,
                           kind="shape error")
            out.append(n)
        return TTile(t.dtype, lead + tuple(out), t.space)

    def _product_shape(self, a: tuple, b: tuple, e: A.Call) -> tuple[int, int]:
        """(m, n) of a matmul of 2-D operands shaped ``a`` and ``b`` under its transpose_a/b flags."""
        ta, tb = self._kw_const(e, "transpose_a", False), self._kw_const(e, "transpose_b", False)
        m, k = a[::-1] if ta else a
        k2, n = b[::-1] if tb else b
        if k != k2:
            raise _err(f"{e.func} inner extents differ: {k} and {k2}", e, kind="shape error")
        return m, n

    def _matmul(self, op, e):
        a = self._tile_arg(e.args[0], "matmul", space="l1")
        b = self._tile_arg(e.args[1], "matmul", space="l1")
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise _err("matmul multiplies 2-D tiles", e, kind="shape error")
        if a.dtype != b.dtype or a.dtype not in op.dtypes:
            raise _err(f"matmul needs two f16, bf16, f32 or i8 tiles of one dtype, got {a.dtype} and {b.dtype}", e)
        m, n = self._product_shape(a.shape, b.shape, e)
        for t, space in ((a, "l0a"), (b, "l0b")):
            if t.nbytes > self.chip.capacity(space):
                raise _err(f"a matmul operand of {t.nbytes:,} bytes does not fit {space.upper()} "
                           f"({self.chip.capacity(space):,} bytes on {self.chip.name})", e, kind="memory error",
                           hint="use smaller cube tiles (e.g. 128x64 f16)")
        return TTile("i32" if a.dtype == "i8" else "f32", (m, n), "l0c")

    def _cast(self, op, e):
        x = self.expr(e.args[0])
        target = self.expr(e.args[1])
        if not isinstance(target, TDType):
            raise _err(f"cast(x, dtype): the second argument must be a dtype ({', '.join(D.ALL)})", e.args[1])
        mode = self._kw_const(e, "round", None)
        if mode is not None and mode not in ROUND_MODES:
            raise _err(f"unknown rounding mode {mode!r}", e, hint=f"one of: {', '.join(ROUND_MODES)}")
        if isinstance(x, TScalar):
            return TScalar(target.name, None)
        if not isinstance(x, TTile) or x.space != "ub":
            raise _err(f"cast needs a ub tile or a scalar, got {x.describe()}", e.args[0])
        return TTile(target.name, x.shape, x.space)

    def _select(self, op, e):
        mask, a, b = (self.expr(x) for x in e.args)
        if not ((isinstance(mask, TTile) or isinstance(mask, TScalar)) and mask.dtype == "bool"):
            raise _err(f"where(mask, a, b) needs a bool mask, got {mask.describe()}", e.args[0],
                       hint="build masks with comparisons such as x > 0")
        if not (isinstance(a, TTile) or isinstance(b, TTile)):
            if isinstance(mask, TTile):
                raise _err("where(mask, a, b) with two scalar branches: make one branch a tile, "
                           "e.g. full((T,), a, f32)", e)
            # the branches' common type (no value: where's numpy takes three arguments), then the value
            # when all three are known before the kernel runs
            from dataclasses import replace as _replace
            t = self._scalar_op(_replace(op, numpy=None), [a, b], e)
            if mask.value is not None and a.value is not None and b.value is not None:
                return TScalar(t.dtype, a.value if mask.value else b.value)
            return TScalar(t.dtype)
        value = self._apply(op, [e.args[1], e.args[2]], e, types=[a, b])
        if isinstance(mask, TTile):
            if mask.space != "ub":
                raise _err("the mask must be a ub tile", e.args[0])
            shape = _broadcast([mask.shape, value.shape], e)
            return TTile(value.dtype, shape, "ub")
        return value

    def _shape_arg(self, e):
        t = self.expr(e)
        if isinstance(t, TScalar) and isinstance(t.value, int):
            return (t.value,)
        if isinstance(t, TTuple) and all(isinstance(i, TScalar) and isinstance(i.value, int) for i in t.items):
            return tuple(i.value for i in t.items)
        raise _err("a tile shape is a tuple of constant integers, e.g. (T,) or (R, C) or () for one value", e)

    def _construct(self, op, e):
        if op.name == "iota":
            n = self._shape_arg(e.args[0])
            if len(n) != 1:
                raise _err("iota(n, dtype) makes a 1-D tile", e)
            dt = self.expr(e.args[1])
            start = e.kwarg("start")
            if start is not None:
                st = self.expr(start)
                if not isinstance(st, TScalar) or st.dtype == "bool":
                    raise _err(f"iota(..., start=...) needs a scalar, got {st.describe()}", start)
                if isinstance(dt, TDType):
                    self._scalar_fits(st, dt.name, start)
        elif op.name == "zeros":
            n = self._shape_arg(e.args[0])
            dt = self.expr(e.args[1])
        else:
            n = self._shape_arg(e.args[0])
            v = self.expr(e.args[1])
            dt = self.expr(e.args[2])
            if not isinstance(v, TScalar):
                raise _err("full(shape, value, dtype): value must be a scalar", e.args[1])
            if isinstance(dt, TDType):
                self._scalar_fits(v, dt.name, e.args[1])
        if not isinstance(dt, TDType):
            raise _err(f"{op.name}: the dtype argument must be one of {', '.join(D.ALL)}", e)
        if any(d < 0 for d in n):
            raise _err("tile extents cannot be negative", e, kind="shape error")
        space = "ub"
        if e.kwarg("space") is not None:
            s = e.kwarg("space")
            if not (isinstance(s, A.Name) and s.id in ("ub", "l0c")):
                raise _err("zeros(..., space=...) must be ub or l0c (a cube accumulator)", s)
            space = s.id
            if space == "l0c" and dt.name not in ("f32", "i32"):
                raise _err("an l0c accumulator holds f32 (or i32 for i8 inputs)", e)
        return TTile(dt.name, n, space)

    def _scalar(self, op, e):
        a = self._int_scalar(e.args[0], f"{op.name}'s first argument")
        b = self._int_scalar(e.args[1], f"{op.name}'s second argument")
        if b.value == 0:
            raise _err("cdiv by zero", e)
        v = -(-a.value // b.value) if isinstance(a.value, int) and isinstance(b.value, int) else None
        return TScalar("int", v)


def check(kernel: A.Kernel, binding: Binding, chip: Chip) -> CheckedKernel:
    """Check a kernel under concrete bindings. Raises DSLError with the kernel's source attached."""
    try:
        return Checker(kernel, binding, chip).run()
    except DSLError as err:
        if kernel.source is not None:   # a lowered level: names a pass made, as the writer's expressions
            from lowering_passes.base import in_writer_terms
            in_writer_terms(err, kernel)
        raise err.located(kernel.source) from None


from .footprint import footprint as _footprint  # noqa: E402  (footprint needs Checker types)
