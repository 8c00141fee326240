"""The op loader: MultiKernelBench / KernelBench task files.

A task file defines ``class Model(nn.Module)`` (``__init__(*init_inputs)``,
``forward(*inputs)``), ``get_inputs()``, ``get_init_inputs()`` and usually module-level
shape constants (``batch_size = 4096``). :func:`load_task` imports it and works out
its shapes without allocating anything (``get_inputs()`` and the forward pass run on
torch's ``meta`` device). :meth:`Task.shapes` gives the real shapes when they fit a
byte budget, and otherwise *reduced* shapes of the same rank, obtained by overriding
the module's shape constants and re-executing the file (so derived constants such as
``dim2 = dim * 2`` stay consistent).

Every problem a task file can have is a :class:`~ascendcraft.errors.UserError` that
names what is missing or broken.
"""
from __future__ import annotations

import ast
import inspect
import math
import os
import random
import re
import signal
import sys
import threading
import traceback
import types
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .dtypes import ITEMSIZE
from .errors import UserError, interrupted

#: Seed set before every ``Model(*init_args)`` so parameters are reproducible
#: (MultiKernelBench uses the same value, ``seed_num = 1024``).
MODEL_SEED = 1024
#: Default budget for one shape set: bytes of inputs + outputs + parameters.
DEFAULT_MAX_BYTES = 64 << 20
#: A leading dim that must shrink is kept above this when possible: the 910B2 has
#: 48 vector cores, so e.g. 53 rows split unevenly over them.
CORES = 48
#: An op whose sizes no module constant sets cannot be reduced: it is verified at its real
#: size when its tensors take at most this many bytes (``--full-shapes`` goes beyond).
FULL_SIZE_BUDGET = 4 << 30
#: Largest allocation the loader makes on its own when the meta device cannot be
#: used (see :func:`_evaluate`).
ALLOCATION_CAP = 1 << 30

_TASK_HELP = ("a task file defines `class Model(nn.Module)` with forward(), a function get_inputs() "
              "returning the forward arguments, and get_init_inputs() returning the Model arguments")

_DTYPES = {
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.uint8: "u8", torch.bool: "bool",
}
# Names of constants that configure an op rather than size a tensor: never shrunk,
# even if their value happens to show up as a dim.
_NOT_A_SIZE = re.compile(r"kernel|stride|pad|dilation|group|axis|^k$|^k_|_k$|reduc", re.I)


def dtype_name(dtype: torch.dtype, what: str = "a tensor") -> str:
    """The DSL name of a torch dtype; UserError for dtypes Ascend kernels do not take."""
    name = _DTYPES.get(dtype)
    if name is not None:
        return name
    if dtype == torch.float64:
        raise UserError(f"{what} is float64, and float64 is not supported on Ascend",
                        hint="use float32 in the task file (e.g. torch.rand(...) without dtype=torch.float64)")
    if dtype.is_complex:
        raise UserError(f"{what} is {dtype}, and complex dtypes are not supported on Ascend")
    raise UserError(f"{what} has dtype {dtype}, which ascendcraft does not support",
                    hint="supported: float16, bfloat16, float32, int8, int16, int32, int64, uint8, bool")


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    dtype: str  # DSL dtype name

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * ITEMSIZE[self.dtype]

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(map(str, self.shape))}]"

    @classmethod
    def of(cls, t: torch.Tensor, what: str = "a tensor") -> "TensorSpec":
        return cls(tuple(int(d) for d in t.shape), dtype_name(t.dtype, what))


# --------------------------------------------------------------------------- in-process caches

#: Set (to anything but "" or "0") to turn off the in-process result caches below: loaded tasks,
#: verification draws, check results and parsed pass artefacts are then recomputed on every call.
NO_CACHE_ENV = "ASCENDCRAFT_NO_CACHE"


def caching() -> bool:
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


class Memo:
    """A small LRU map for results that are pure functions of their key (the callers say why),
    bounded by entries and by the bytes the values hold. Thread-safe; cleared by
    :func:`clear_caches`; a no-op while :data:`NO_CACHE_ENV` is set."""

    def __init__(self, entries: int, max_bytes: int | None = None):
        from collections import OrderedDict
        self.entries, self.max_bytes = entries, max_bytes
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        _MEMOS.append(self)

    def get(self, key, default=None):
        if not caching():
            return default
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return default
            self._data.move_to_end(key)
            return hit[0]

    def put(self, key, value, nbytes: int = 0) -> None:
        if not caching() or (self.max_bytes is not None and nbytes > self.max_bytes):
            return
        with self._lock:
            self._data[key] = (value, nbytes)
            self._data.move_to_end(key)
            total = sum(n for _, n in self._data.values())
            while len(self._data) > self.entries or (self.max_bytes is not None and total > self.max_bytes):
                _, (_, n) = self._data.popitem(last=False)
                total -= n

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


_MEMOS: list[Memo] = []


def clear_caches() -> None:
    """Drop every in-process result cache (tasks, draws, check results, parsed artefacts)."""
    for m in _MEMOS:
        m.clear()


def tensor_bytes(*values) -> int:
    """Bytes of the tensors and arrays in ``values`` and in the lists and tuples among them: what a
    cache entry holding them keeps alive."""
    total = 0
    for v in values:
        if isinstance(v, torch.Tensor):
            total += v.numel() * v.element_size()
        elif hasattr(v, "nbytes") and hasattr(v, "dtype"):
            total += int(v.nbytes)
        elif isinstance(v, (list, tuple)):
            total += tensor_bytes(*v)
    return total


# --------------------------------------------------------------------------- errors

def _where(exc: BaseException, filename: str) -> str:
    """``file:line: source`` of the innermost traceback frame inside the task file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    if isinstance(exc, SyntaxError) and exc.filename == filename and exc.lineno:
        text = (exc.text or "").strip()
        return f"{Path(filename).name}:{exc.lineno}" + (f": {text}" if text else "")
    if not frames:
        return ""
    f = frames[-1]
    return f"{Path(filename).name}:{f.lineno}" + (f": {f.line.strip()}" if f.line else "")


#: CPU seconds one call into an op file (importing it, get_inputs(), building the Model,
#: forward) may take before it is stopped as an endless loop.
OP_CALL_TIMEOUT_S = 300


class _OpTimeout(BaseException):
    """Raised in the main thread when a call into the op file runs past OP_CALL_TIMEOUT_S."""


@contextmanager
def _time_limit(filename: str | None = None):
    """Stop an op-file call that spins too long (an endless loop): after OP_CALL_TIMEOUT_S seconds
    of the process's CPU time, a SIGVTALRM in the main thread. The virtual timer leaves the
    wall-clock alarm (SIGALRM) to callers that use their own; nested calls keep the outer limit."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_VIRTUAL)[0]:
        yield
        return

    def expire(signum, frame):
        raise _OpTimeout()
    previous = signal.signal(signal.SIGVTALRM, expire)
    signal.setitimer(signal.ITIMER_VIRTUAL, OP_CALL_TIMEOUT_S)
    try:
        yield
    except _OpTimeout as e:     # one that no call site turned into a UserError on the way out
        if filename is None:
            raise
        raise _fail("running the op file", e, filename) from None
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


#: What code in an op file can raise. Op files are untrusted: ``sys.exit()`` or a raised
#: KeyboardInterrupt there is the op file's failure, never ascendcraft's exit code.
_OP_ERRORS = (Exception, SystemExit, KeyboardInterrupt, _OpTimeout)


def _op_error(exc: BaseException) -> None:
    """At a site that swallows an op-file failure (a probe, a retry): let a real Ctrl-C (see
    errors.interrupted) and a time limit through; a retry must not run the endless loop again."""
    if isinstance(exc, _OpTimeout) or (isinstance(exc, KeyboardInterrupt) and interrupted()):
        raise exc


def _fail(stage: str, exc: BaseException, filename: str, hint: str | None = None) -> UserError:
    if isinstance(exc, KeyboardInterrupt) and interrupted():
        raise exc
    if isinstance(exc, UserError):
        return exc
    where = _where(exc, filename)
    if isinstance(exc, SystemExit):
        text = f"it called sys.exit({exc.code!r})"
    elif isinstance(exc, KeyboardInterrupt):
        text = "it raised KeyboardInterrupt"
    elif isinstance(exc, _OpTimeout):
        text = f"it did not finish within {OP_CALL_TIMEOUT_S} s (an endless loop?)"
    else:
        text = f"{type(exc).__name__}: {exc}".strip()
    msg = f"{stage} failed: {text}" + (f" (at {where})" if where else "")
    return UserError(msg, hint=hint or (_TASK_HELP if isinstance(exc, (SystemExit, KeyboardInterrupt, _OpTimeout))
                                        else None))


class _TooBig(Exception):
    pass


class _AllocationGuard(TorchDispatchMode):
    """Refuses factory calls (rand, empty, zeros, ...) beyond ``cap`` bytes in total.

    The size is found by replaying the factory on the meta device before the real call.
    """

    def __init__(self, cap: int):
        super().__init__()
        self.cap = cap
        self.total = 0

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        if any(a.name == "device" for a in func._schema.arguments):
            try:
                probe = func(*args, **{**kwargs, "device": torch.device("meta")})
            except _OP_ERRORS as e:  # noqa: BLE001 - the real call reports the real error
                _op_error(e)
                probe = None
            if isinstance(probe, torch.Tensor):
                self.total += probe.numel() * probe.element_size()
                if self.total > self.cap:
                    raise _TooBig(f"allocates more than {_fmt_bytes(self.cap)}")
        return func(*args, **kwargs)


def _fmt_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


# --------------------------------------------------------------------------- module

@dataclass
class _Module:
    """One execution of the task source (with some constants overridden)."""

    ns: dict
    overrides: dict

    @property
    def model(self) -> type:
        return self.ns["Model"]

    def get_inputs(self):
        return self.ns["get_inputs"]()

    def get_init_inputs(self):
        f = self.ns.get("get_init_inputs")
        return [] if f is None else f()


def _assigned_names(node: ast.stmt) -> list[tuple[str, ast.expr | None]]:
    """(name, value expression) for a top-level simple assignment."""
    out: list[tuple[str, ast.expr | None]] = []
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                out.append((target.id, node.value))
            elif isinstance(target, (ast.Tuple, ast.List)):
                values = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) \
                    and len(node.value.elts) == len(target.elts) else [None] * len(target.elts)
                for t, v in zip(target.elts, values):
                    if isinstance(t, ast.Name):
                        out.append((t.id, v))
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        out.append((node.target.id, node.value))
    return out


_ELEMENT = re.compile(r"^(\w+)\[(\d+)\]$")


class _Override:
    """Replaces the right-hand side of top-level assignments to overridden names.

    A key ``name`` replaces the whole value; ``name[i]`` replaces element ``i`` of a
    tuple/list literal (``input_shape = (32768,)``).
    """

    def __init__(self, overrides: dict[str, int]):
        self.whole = {k: v for k, v in overrides.items() if not _ELEMENT.match(k)}
        self.elements: dict[str, dict[int, int]] = {}
        for k, v in overrides.items():
            m = _ELEMENT.match(k)
            if m:
                self.elements.setdefault(m.group(1), {})[int(m.group(2))] = v

    def _value(self, name: str, value: ast.expr) -> ast.expr:
        if name in self.whole:
            return ast.copy_location(ast.Constant(self.whole[name]), value)
        if name in self.elements and isinstance(value, (ast.Tuple, ast.List)):
            for i, v in self.elements[name].items():
                if i < len(value.elts):
                    value.elts[i] = ast.copy_location(ast.Constant(v), value.elts[i])
        return value

    def rewrite(self, tree: ast.Module) -> ast.Module:
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        node.value = self._value(target.id, node.value)
                    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                            and len(node.value.elts) == len(target.elts):
                        for i, t in enumerate(target.elts):
                            if isinstance(t, ast.Name):
                                node.value.elts[i] = self._value(t.id, node.value.elts[i])
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                node.value = self._value(node.target.id, node.value)
        return ast.fix_missing_locations(tree)


# --------------------------------------------------------------------------- evaluation

@dataclass
class _Eval:
    """Shapes of one constant setting, found without allocating when possible."""

    input_specs: tuple
    output_specs: tuple | None     # None: unknown (forward would not run on meta, too big to run)
    parameters: dict
    init_args: tuple
    error: UserError | None = None  # why output_specs is None / why this setting is invalid
    definitive: bool = True         # False: only the meta device failed; a real run was too big to try

    @property
    def nbytes(self) -> int:
        """Bytes of inputs + outputs + parameters (outputs counted as 0 when unknown)."""
        total = sum(s.nbytes for s in self.input_specs if isinstance(s, TensorSpec))
        total += sum(s.nbytes for s in self.output_specs or ())
        return total + sum(s.nbytes for s in self.parameters.values())

    @property
    def valid(self) -> bool:
        return self.output_specs is not None and self.error is None


def _flatten_outputs(out, filename: str) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        flat: list[torch.Tensor] = []
        for o in out:
            flat += _flatten_outputs(o, filename)
        return flat
    raise UserError(f"Model.forward in {filename} returned {type(out).__name__}, not a tensor or a tuple/list of tensors",
                    hint="return tensors (wrap a Python number with torch.tensor(...))")


def _input_specs(inputs, filename: str) -> tuple:
    if not isinstance(inputs, (list, tuple)):
        raise UserError(f"get_inputs() in {filename} returned {type(inputs).__name__}, not a list",
                        hint=_TASK_HELP)
    if not inputs:
        raise UserError(f"get_inputs() in {filename} returned an empty list", hint=_TASK_HELP)
    specs = []
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            specs.append(TensorSpec.of(x, f"input {i} of get_inputs()"))
        elif isinstance(x, (bool, int, float)):
            specs.append(x)
        else:
            raise UserError(f"input {i} of get_inputs() in {filename} is a {type(x).__name__}; "
                            "inputs must be tensors or Python numbers")
    return tuple(specs)


def _parameter_specs(model: torch.nn.Module) -> dict[str, TensorSpec]:
    return {k.replace(".", "_"): TensorSpec.of(v, f"model parameter {k}") for k, v in model.state_dict().items()}


def _init_args(mod: _Module, filename: str) -> tuple:
    try:
        args = mod.get_init_inputs()
    except _OP_ERRORS as e:  # noqa: BLE001
        raise _fail("get_init_inputs()", e, filename) from None
    if not isinstance(args, (list, tuple)):
        raise UserError(f"get_init_inputs() in {filename} returned {type(args).__name__}, not a list",
                        hint=_TASK_HELP)
    return tuple(args)


def _evaluate(mod: _Module, filename: str, cap: int = ALLOCATION_CAP) -> _Eval:
    """Input, output and parameter specs of one execution of the task.

    Everything runs under ``torch.device("meta")`` first: factories such as
    ``torch.rand(4096, 393216)`` then build shape-only tensors, so multi-GB benchmark
    shapes cost nothing. Some tasks cannot run on meta (``.item()`` on a tensor, an op
    without a meta kernel); then the same step is run for real on the CPU, guarded so it
    never allocates more than :data:`ALLOCATION_CAP` (the forward pass only when its
    inputs take at most ``cap / 2``). If the forward pass cannot be shaped either way,
    the output specs stay unknown (``None``) and the error is kept.
    """
    init_args = _init_args(mod, filename)
    real_inputs = None
    try:
        with torch.device("meta"), torch.no_grad():
            inputs = mod.get_inputs()
    except _OP_ERRORS as e:  # noqa: BLE001 - retry on the CPU under the guard
        _op_error(e)
        try:
            with _AllocationGuard(ALLOCATION_CAP), torch.no_grad():
                torch.manual_seed(0)
                inputs = real_inputs = mod.get_inputs()
        except _TooBig as e:
            raise UserError(f"get_inputs() in {filename} does not run on torch's meta device and its "
                            f"real inputs are too large to create ({e})",
                            hint="avoid .item()/.tolist() on tensors in get_inputs()") from None
        except _OP_ERRORS as e:  # noqa: BLE001
            raise _fail("get_inputs()", e, filename, hint=_TASK_HELP) from None
    input_specs = _input_specs(inputs, filename)

    meta_error: Exception | None = None
    try:
        with torch.device("meta"), torch.no_grad():
            model = mod.model(*init_args)
            if real_inputs is not None:
                inputs = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in inputs]
            outputs = _flatten_outputs(model(*inputs), filename)
        return _Eval(input_specs, tuple(TensorSpec.of(o, f"output {i} of Model.forward")
                                        for i, o in enumerate(outputs)),
                     _parameter_specs(model), init_args)
    except UserError:
        raise
    except _OP_ERRORS as e:  # noqa: BLE001
        _op_error(e)
        meta_error = e
    # The meta device could not run Model(...) / forward: run it for real if that is cheap.
    in_bytes = sum(s.nbytes for s in input_specs if isinstance(s, TensorSpec))
    if in_bytes * 2 > min(cap, ALLOCATION_CAP):
        err = _fail("Model.forward on the meta device", meta_error, filename)
        try:
            with torch.device("meta"):
                params = _parameter_specs(mod.model(*init_args))
        except _OP_ERRORS as e:  # noqa: BLE001
            _op_error(e)
            params = {}
        return _Eval(input_specs, None, params, init_args, error=err, definitive=False)
    try:
        with _AllocationGuard(ALLOCATION_CAP), torch.no_grad():
            torch.manual_seed(0)
            inputs = real_inputs if real_inputs is not None else mod.get_inputs()
    except _OP_ERRORS as e:  # noqa: BLE001
        raise _fail("get_inputs()", e, filename, hint=_TASK_HELP) from None
    try:
        with torch.no_grad():
            torch.manual_seed(MODEL_SEED)
            model = mod.model(*init_args)
    except _OP_ERRORS as e:  # noqa: BLE001
        return _Eval(input_specs, None, {}, init_args,
                     error=_fail(f"Model(*get_init_inputs()) with arguments {_short(init_args)}", e, filename))
    try:
        with torch.no_grad():
            outputs = _flatten_outputs(model(*inputs), filename)
    except UserError:
        raise
    except _OP_ERRORS as e:  # noqa: BLE001
        return _Eval(input_specs, None, _parameter_specs(model), init_args,
                     error=_fail("Model.forward on the inputs from get_inputs()", e, filename))
    return _Eval(input_specs, tuple(TensorSpec.of(o, f"output {i} of Model.forward") for i, o in enumerate(outputs)),
                 _parameter_specs(model), init_args)


def _short(x, limit: int = 80) -> str:
    text = repr(tuple(x)) if isinstance(x, list) else repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- shapes

class TaskShapes:
    """One concrete shape set of a task: the real one, or a reduced one."""

    def __init__(self, task: "Task", mod: _Module, ev: _Eval, *, reduced: bool, original: dict[str, int],
                 max_bytes: int | None):
        self._task = task
        self._mod = mod
        self._ev = ev
        self.reduced = reduced
        #: module constants changed for this shape set, and their real values
        self.overrides: dict[str, int] = dict(mod.overrides)
        self.original: dict[str, int] = dict(original)
        self.max_bytes = max_bytes
        self.input_specs: tuple = ev.input_specs
        self.init_args: tuple = ev.init_args
        self.parameters: dict[str, TensorSpec] = dict(ev.parameters)
        self.input_names: tuple[str, ...] = _forward_names(mod.model, len(ev.input_specs))
        self.attributes: dict[str, object] = _attributes(mod, ev.init_args, task.path)

    @property
    def output_specs(self) -> tuple[TensorSpec, ...]:
        if self._ev.output_specs is None:
            # Shape-only evaluation failed; the caller asked for these shapes, so run it.
            outs = self.reference(self.make_inputs(0))
            self._ev.output_specs = tuple(TensorSpec.of(o, f"output {i} of Model.forward") for i, o in enumerate(outs))
            self._ev.error = None
        return self._ev.output_specs

    @property
    def nbytes(self) -> int:
        """Bytes of tensor inputs, outputs and parameters."""
        _ = self.output_specs
        return self._ev.nbytes

    # -- running ---------------------------------------------------------------
    def make_inputs(self, seed: int) -> list:
        """Fresh inputs: ``torch.manual_seed(seed)`` then ``get_inputs()`` (CPU tensors)."""
        filename = str(self._task.path)
        try:
            with _time_limit(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                torch.manual_seed(seed)
                inputs = self._mod.get_inputs()
        except _OP_ERRORS as e:  # noqa: BLE001
            raise _fail("get_inputs()", e, filename, hint=_TASK_HELP) from None
        specs = _input_specs(inputs, filename)
        for i, (got, want) in enumerate(zip(specs, self.input_specs)):
            if isinstance(want, TensorSpec) and got != want:
                raise UserError(f"get_inputs() in {filename} returned input {i} as {got}, "
                                f"but as {want} on an earlier call", hint="input shapes must not be random")
        if len(specs) != len(self.input_specs):
            raise UserError(f"get_inputs() in {filename} returned {len(specs)} inputs, "
                            f"{len(self.input_specs)} on an earlier call")
        return list(inputs)

    def _model(self) -> torch.nn.Module:
        torch.manual_seed(MODEL_SEED)
        return self._mod.model(*self.init_args)

    def reference(self, inputs: list) -> list[torch.Tensor]:
        """``torch.manual_seed(MODEL_SEED)``, ``Model(*init_args)``, forward; outputs flattened."""
        filename = str(self._task.path)
        stage = "Model(*get_init_inputs())"
        try:
            with _time_limit(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                model = self._model()
                stage = "Model.forward"
                out = model(*inputs)
        except _OP_ERRORS as e:  # noqa: BLE001
            err = _fail(stage + (f" at reduced shapes ({self.shapes_text()})" if self.reduced else ""), e, filename)
            if self.reduced:
                err.hint = ("the reference does not run at the reduced shapes; verify on the real shapes "
                            "with --full-shapes, or raise --max-bytes")
            raise err from None
        return [o.detach() for o in _flatten_outputs(out, filename)]

    def reference64(self, inputs: list) -> tuple[list[torch.Tensor] | None, str]:
        """The reference in float64: floating inputs and the module's parameters cast to double.

        Returns ``(outputs, "")``, or ``(None, why)`` when the op does not run in float64 (a
        dtype check, an op without a double kernel, ...). Outputs the op casts back to a
        narrower float (``.half()``) keep that dtype: rounded once from the float64 result.
        """
        try:
            with _time_limit(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                model = self._model().double()
                out = model(*[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                              for x in inputs])
            outs = _flatten_outputs(out, str(self._task.path))
        except _OP_ERRORS as e:  # noqa: BLE001 - any failure means: no float64 reference
            _op_error(e)
            return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:160]
        return [o.detach() for o in outs], ""

    def parameter_values(self) -> dict[str, torch.Tensor]:
        """The model's state_dict (seeded), keys with '.' replaced by '_'."""
        try:
            with _time_limit(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                model = self._model()
        except _OP_ERRORS as e:  # noqa: BLE001
            raise _fail("Model(*get_init_inputs())", e, str(self._task.path)) from None
        return {k.replace(".", "_"): v.detach().clone() for k, v in model.state_dict().items()}

    # -- reporting --------------------------------------------------------------
    def shapes_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.overrides.items())

    def describe(self) -> str:
        """One line saying which shapes these are, e.g. for a verification report."""
        ins = ", ".join(f"{n}: {s}" for n, s in zip(self.input_names, self.input_specs))
        outs = ", ".join(str(s) for s in self.output_specs)
        if self.reduced:
            changes = ", ".join(f"{k}={v} (real {self.original[k]})" for k, v in self.overrides.items())
            head = f"reduced shapes [{changes}; {_fmt_bytes(self.nbytes)} within --max-bytes {_fmt_bytes(self.max_bytes or 0)}]"
        elif self.max_bytes is None and self._ev.nbytes > DEFAULT_MAX_BYTES and not self._task.shape_constants():
            head = f"real shapes [{_fmt_bytes(self.nbytes)}; no module constant sizes them, so not reduced]"
        else:
            head = f"real shapes [{_fmt_bytes(self.nbytes)}]"
        return f"{head}: inputs {ins} -> outputs {outs}"

    def to_json(self) -> dict:
        return {
            "reduced": self.reduced,
            "overrides": dict(self.overrides),
            "original": dict(self.original),
            "max_bytes": self.max_bytes,
            "bytes": self.nbytes,
            "inputs": [{"name": n, **({"shape": list(s.shape), "dtype": s.dtype} if isinstance(s, TensorSpec)
                                       else {"value": s})} for n, s in zip(self.input_names, self.input_specs)],
            "outputs": [{"shape": list(s.shape), "dtype": s.dtype} for s in self.output_specs],
        }

    def __repr__(self) -> str:
        return f"TaskShapes({self.describe()})"


def _forward_names(model: type, n: int) -> tuple[str, ...]:
    names: list[str] = []
    try:
        params = list(inspect.signature(model.forward).parameters.values())[1:]
    except (TypeError, ValueError):
        params = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            break
    names = names[:n]
    return tuple(names + [f"arg{i}" for i in range(len(names), n)])


def _attributes(mod: _Module, init_args: tuple, filename) -> dict[str, object]:
    attrs: dict[str, object] = {}
    try:
        sig = inspect.signature(mod.model.__init__)
        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    except (TypeError, ValueError):
        sig = None
    bound = None
    if sig is not None:
        try:
            bound = sig.bind(*init_args)
        except TypeError as e:
            raise UserError(f"get_init_inputs() in {filename} returns {len(init_args)} value(s) "
                            f"{_short(init_args)}, which do not fit Model.__init__{sig}: {e}",
                            hint=_TASK_HELP) from None
    if bound is not None:
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            p = sig.parameters[name]
            if p.kind == p.VAR_POSITIONAL:
                continue
            if p.kind == p.VAR_KEYWORD:
                attrs.update(value)
            else:
                attrs[name] = value
    for name, value in mod.ns.items():
        if name.startswith("_") or name in attrs:
            continue
        if isinstance(value, (bool, int, float)):
            attrs[name] = value
    return attrs


# --------------------------------------------------------------------------- task

class Task:
    """A loaded task file. See the module docstring."""

    def __init__(self, path: Path, source: str, tree: ast.Module):
        self.path = path
        self.source = source
        self._tree = tree
        if path.name == "op.py":
            self.name = path.parent.name
            self.category = path.parent.parent.name or None
        else:
            self.name = path.stem
            self.category = path.parent.name or None
        self._cache: dict[tuple, _Eval] = {}
        self._shapes: dict[tuple, TaskShapes] = {}
        self._caps: dict[tuple, int] = {}
        self._variants: dict[tuple, TaskShapes | None] = {}
        base = self._execute({})
        _check_interface(base, path)
        self._base = base
        with _time_limit(str(path)):
            ev = _evaluate(base, str(path))
        if ev.error is not None and ev.definitive:
            raise ev.error  # the forward pass itself is broken, not just unshapeable on meta
        self._cache[()] = ev
        self._caps[()] = ALLOCATION_CAP
        self.real = TaskShapes(self, base, ev, reduced=False, original={}, max_bytes=None)

    def __repr__(self) -> str:
        return f"Task({self.name!r}, category={self.category!r}, path={str(self.path)!r})"

    # -- executing the source ---------------------------------------------------
    def _execute(self, overrides: dict[str, int]) -> _Module:
        filename = str(self.path)
        tree = self._tree
        if overrides:
            tree = _Override(overrides).rewrite(ast.parse(self.source, filename))
        code = compile(tree, filename, "exec")
        module = types.ModuleType("ascendcraft_task_" + re.sub(r"\W", "_", self.name))
        module.__file__ = filename
        # Registered while it runs: some library code (dataclasses, typing) looks the
        # module up by name. Removed afterwards so loads do not leak into sys.modules.
        sys.modules[module.__name__] = module
        try:
            with _time_limit():
                exec(code, module.__dict__)  # noqa: S102 - running the task file is the point
        except _OP_ERRORS as e:  # noqa: BLE001
            stage = f"importing {self.path.name}" + (f" with {overrides}" if overrides else "")
            raise _fail(stage, e, filename) from None
        finally:
            sys.modules.pop(module.__name__, None)
        return _Module(module.__dict__, dict(overrides))

    def _eval(self, overrides: dict[str, int], cap: int) -> _Eval:
        """Shapes with ``overrides`` (cached); a broken setting gives an invalid _Eval.

        ``cap``: run the forward pass for real (when meta cannot) only up to this many bytes.
        """
        key = tuple(sorted(overrides.items()))
        cached = self._cache.get(key)
        if cached is None or (not cached.definitive and cap > self._caps.get(key, 0)):
            self._caps[key] = cap
            try:
                with _time_limit(str(self.path)):
                    ev = _evaluate(self._execute(overrides), str(self.path), cap)
            except UserError as e:
                ev = _Eval((), None, {}, (), error=e)
            self._cache[key] = ev
        return self._cache[key]

    # -- constants --------------------------------------------------------------
    def _root_constants(self) -> dict[str, int]:
        """Top-level int constants assigned from expressions that use no other module names,
        and the int elements of tuple/list literals of that kind (as ``name[i]``)."""
        if hasattr(self, "_roots"):
            return self._roots
        assigned: dict[str, list] = {}
        for node in self._tree.body:
            for name, value in _assigned_names(node):
                assigned.setdefault(name, []).append(value)
        roots = {}
        for name, values in assigned.items():
            if _NOT_A_SIZE.search(name) or name.startswith("_"):
                continue
            if any(v is None or any(isinstance(n, ast.Name) and n.id in assigned for n in ast.walk(v))
                   for v in values):
                continue
            value = self._base.ns.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                roots[name] = value
            elif isinstance(value, (tuple, list)) and len(values) == 1 \
                    and isinstance(values[0], (ast.Tuple, ast.List)) and len(values[0].elts) == len(value):
                for i, (elt, v) in enumerate(zip(values[0].elts, value)):
                    if not isinstance(elt, ast.Starred) and isinstance(v, int) and not isinstance(v, bool) and v >= 1:
                        roots[f"{name}[{i}]"] = v
        self._roots = roots
        return roots

    def shape_constants(self) -> dict[str, list[tuple[int, int]]]:
        """Module constants that size inputs, with the (input, axis) positions each one sets.

        Found by perturbing each root constant and re-running get_inputs() on meta.
        """
        if hasattr(self, "_knobs"):
            return self._knobs
        base = [s.shape if isinstance(s, TensorSpec) else None for s in self.real.input_specs]
        knobs: dict[str, list[tuple[int, int]]] = {}
        for name, value in self._root_constants().items():
            try:
                mod = self._execute({name: value + 1})
                with torch.device("meta"), torch.no_grad():
                    with _time_limit(str(self.path)):
                        specs = _input_specs(mod.get_inputs(), str(self.path))
            except _OP_ERRORS as e:  # noqa: BLE001 - not a free size, leave it alone
                _op_error(e)
                continue
            moved = []
            for i, (b, s) in enumerate(zip(base, specs)):
                if b is None or not isinstance(s, TensorSpec) or len(s.shape) != len(b):
                    continue
                moved += [(i, a) for a in range(len(b)) if b[a] != s.shape[a]]
            if moved and len(specs) == len(base):
                knobs[name] = moved
        self._knobs = knobs
        return knobs

    # -- shapes -----------------------------------------------------------------
    def shapes(self, max_bytes: int = DEFAULT_MAX_BYTES, full: bool = False) -> TaskShapes:
        """The real shapes if ``full`` or if they fit ``max_bytes``; else reduced shapes."""
        if max_bytes <= 0:
            raise UserError(f"--max-bytes must be positive, not {max_bytes}")
        real_ev = self._cache[()]
        if full or (real_ev.valid and real_ev.nbytes <= max_bytes):
            return self.real
        if not self.shape_constants() and real_ev.valid and real_ev.nbytes <= FULL_SIZE_BUDGET:
            # nothing sizes the tensors (literal shapes in get_inputs): verify at the real size,
            # which still fits the machine
            return self.real
        key = (max_bytes,)
        if key not in self._shapes:
            overrides = self._reduce(max_bytes)
            mod = self._execute(overrides)
            ev = self._cache[tuple(sorted(overrides.items()))]
            real_values = self._root_constants()
            self._shapes[key] = TaskShapes(self, mod, ev, reduced=True,
                                           original={k: real_values[k] for k in overrides}, max_bytes=max_bytes)
        return self._shapes[key]

    def variant(self, base: TaskShapes, seed: int, max_bytes: int = DEFAULT_MAX_BYTES) -> TaskShapes | None:
        """A second shape set for verification, derived from ``seed``: the shape constants of
        ``base`` moved to other values (odd, so tails and uneven core splits stay; between a third
        of the value and twice it), within ``max_bytes``. A kernel that keys on one shape (a
        hard-coded extent, a bound that only holds at the reduced size) differs there.
        None when no module constant sizes the inputs, or no other value runs.
        The same arguments give the same shape set object (so draws made for it are reused)."""
        key = (tuple(sorted(base.overrides.items())), base.max_bytes, seed, max_bytes)
        if caching() and key in self._variants:
            return self._variants[key]
        found = self._variant(base, seed, max_bytes)
        if caching():
            self._variants[key] = found
        return found

    def _variant(self, base: TaskShapes, seed: int, max_bytes: int) -> TaskShapes | None:
        knobs = self.shape_constants()
        real_values = self._root_constants()
        cur = {k: base.overrides.get(k, real_values[k]) for k in knobs}
        rng = random.Random(f"variant-{seed}")
        new = dict(cur)

        def works(values) -> bool:
            changed = {k: v for k, v in values.items() if v != real_values[k]}
            ev = self._eval(changed, max_bytes)
            return ev.valid and ev.nbytes <= max_bytes

        for k in sorted(knobs):
            v = cur[k]
            lo = max(2, v // 3)
            odd = [x for x in range(lo | 1, 2 * v + 1, 2) if x != v]
            smaller = [x for x in odd if x < v]
            picks = [rng.choice(odd)] if odd else []
            picks += ([rng.choice(smaller)] if smaller else []) + [x for x in (v // 2, v - 1) if x >= 2]
            group = [n for n in knobs if cur[n] == v]
            for pick in picks:
                if works({**new, k: pick}):
                    new[k] = pick
                    break
                if len(group) > 1 and works({**new, **{n: pick for n in group}}):
                    new.update({n: pick for n in group})
                    break
        if new == cur:
            return None
        changed = {k: v for k, v in new.items() if v != real_values[k]}
        mod = self._execute(changed)
        ev = self._eval(changed, max_bytes)
        return TaskShapes(self, mod, ev, reduced=True, original={k: real_values[k] for k in changed},
                          max_bytes=max_bytes)

    def _reduce(self, max_bytes: int) -> dict[str, int]:
        knobs = self.shape_constants()
        real_bytes = self._cache[()].nbytes
        if not knobs:
            raise UserError(f"the inputs and outputs of {self.path.name} take {_fmt_bytes(real_bytes)}, more than "
                            f"--max-bytes {_fmt_bytes(max_bytes)} and than the {_fmt_bytes(FULL_SIZE_BUDGET)} "
                            "verified at the real size, and no module-level constant sizes them, so they cannot "
                            "be reduced",
                            hint="define the sizes as module constants used by get_inputs() (batch_size = 4096), "
                                 "or pass --full-shapes to verify at the real size anyway")
        # Leading (batch-like) constants first: those setting an axis far from the last one.
        # Ties: the constant seen first (lowest input index, then axis) goes first.
        def leading(k):
            pos = knobs[k]
            depth = max(len(self.real.input_specs[i].shape) - 1 - a for i, a in pos)
            return (-depth, min(pos))
        order = sorted(knobs, key=leading)
        real_values = self._root_constants()
        cur = {k: real_values[k] for k in knobs}

        def ev_of(values: dict[str, int]) -> _Eval:
            changed = {k: v for k, v in values.items() if v != real_values[k]}
            return self._eval(changed, max_bytes)

        def fits(values) -> bool:
            ev = ev_of(values)
            return ev.nbytes <= max_bytes and ev.input_specs != ()

        def ok(values) -> bool:
            ev = ev_of(values)
            return ev.valid and ev.nbytes <= max_bytes

        def valid(values) -> bool:
            ev = ev_of(values)
            if not ev.valid and ev.error is not None:
                broken.append((values, ev.error))
            return ev.valid

        broken: list[tuple[dict, UserError]] = []  # smaller settings that break the task

        for floor in (CORES + 1, 1):
            for k in order:
                if ok(cur):
                    break
                if cur[k] <= floor:
                    continue
                cur.update(self._choose(k, floor, cur, fits, valid))
            if ok(cur):
                break
        final = ev_of(cur)
        changed = {k: v for k, v in cur.items() if v != real_values[k]}
        if not final.valid:
            err = final.error or UserError("the reference produced no outputs at reduced shapes")
            raise UserError(f"the reference does not run at reduced shapes "
                            f"({', '.join(f'{k}={v}' for k, v in changed.items())}): {err.message}",
                            hint="verify on the real shapes with --full-shapes, or raise --max-bytes") from None
        if final.nbytes > max_bytes:
            msg = (f"{self.path.name} cannot be reduced below {_fmt_bytes(final.nbytes)} "
                   f"(--max-bytes is {_fmt_bytes(max_bytes)}) by shrinking {', '.join(knobs)}")
            if broken:
                values, err = broken[0]
                tried = ", ".join(f"{k}={v}" for k, v in values.items() if v != real_values[k])
                msg += f"; the reference does not run at smaller shapes ({tried}): {err.message}"
            raise UserError(msg, hint="verify on the real shapes with --full-shapes, or raise --max-bytes")
        return changed

    @staticmethod
    def _choose(k: str, floor: int, cur: dict, fits: Callable, valid: Callable) -> dict[str, int]:
        """New values (``{name: value}``) that shrink constant ``k``.

        The largest odd value in [floor, cur) that fits the budget, or if none does, the
        smallest odd value >= floor (the next constant shrinks further). If the task breaks
        at that value, the constants holding the same value shrink together (a
        ``(B, N) * (B,)`` broadcast needs B == N), then halvings of the current value are
        tried (channels divisible by groups); if all break, ``k`` stays as it is.
        """
        start = cur[k]
        lo = floor | 1  # smallest odd >= floor
        if lo >= start:
            return {}

        def odd_search(names):
            def with_(v):
                return {**cur, **{n: v for n in names}}
            a, b = (lo - 1) // 2, (start - 2) // 2  # odd values 2i+1 for i in [a, b]
            if not fits(with_(2 * a + 1)):
                return lo
            while a < b:
                mid = (a + b + 1) // 2
                if fits(with_(2 * mid + 1)):
                    a = mid
                else:
                    b = mid - 1
            return 2 * a + 1

        v = odd_search([k])
        if valid({**cur, k: v}):
            return {k: v}
        group = [n for n in cur if cur[n] == start]
        if len(group) > 1:
            v = odd_search(group)
            if valid({**cur, **{n: v for n in group}}):
                return {n: v for n in group}
        halvings = []
        h = start // 2
        while h >= max(floor, 1):
            halvings.append(h)
            h //= 2
        good = [h for h in halvings if valid({**cur, k: h})]
        fitting = [h for h in good if fits({**cur, k: h})]
        if fitting:
            return {k: fitting[0]}
        return {k: good[-1]} if good else {}


def _check_interface(mod: _Module, path: Path) -> None:
    ns = mod.ns
    model = ns.get("Model")
    if model is None:
        extra = " (it defines ModelNew: this looks like a generated solution, not a task)" if "ModelNew" in ns else ""
        raise UserError(f"{path} defines no `class Model(nn.Module)`{extra}", hint=_TASK_HELP)
    if not (isinstance(model, type) and issubclass(model, torch.nn.Module)):
        raise UserError(f"`Model` in {path} is not a subclass of torch.nn.Module", hint=_TASK_HELP)
    if "forward" not in {n for c in model.__mro__ if c is not torch.nn.Module for n in vars(c)}:
        raise UserError(f"class Model in {path} defines no forward() method", hint=_TASK_HELP)
    if not callable(ns.get("get_inputs")):
        hint = _TASK_HELP
        if callable(ns.get("get_input_groups")):
            hint = "NPUKernelBench-style get_input_groups() is not supported; add get_inputs()"
        raise UserError(f"{path} defines no get_inputs() function", hint=hint)
    if "get_init_inputs" in ns and not callable(ns["get_init_inputs"]):
        raise UserError(f"get_init_inputs in {path} is not a function", hint=_TASK_HELP)
    if "get_init_inputs" not in ns:
        sig = inspect.signature(model.__init__)
        required = [p.name for p in list(sig.parameters.values())[1:]
                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if required:
            raise UserError(f"{path} defines no get_init_inputs() function, and Model.__init__ needs "
                            f"{', '.join(required)}", hint=_TASK_HELP)


def load_task(path: str | Path) -> Task:
    """Import a task file (or a folder holding ``op.py``) and work out its real shapes."""
    if not isinstance(path, (str, Path)):
        raise UserError(f"an op is the path of a task file (or of a folder holding op.py), not "
                        f"{type(path).__name__}", hint="ascendcraft.compile('kernel.dsl', 'op.py')")
    p = Path(path)
    if p.is_dir() and (p / "op.py").is_file():
        p = p / "op.py"
    if not p.exists():
        raise UserError(f"task file {path} does not exist")
    if not p.is_file():
        raise UserError(f"{path} is not a file", hint="pass the task's .py file (or a folder holding op.py)")
    p = p.resolve()
    try:
        source = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"task file {path} is not UTF-8 text ({e})") from None
    except OSError as e:
        raise UserError(f"cannot read task file {path}: {e.strerror or e}") from None
    # A task is a pure function of its file's path and text (its shapes, its module's functions,
    # the seeded references): loading the same file again reuses it, and its caches (shape
    # searches, second shape sets, draws). A module the file imports is Python's own cache.
    cached = _TASKS.get((p, source))
    if cached is not None:
        return cached
    try:
        tree = ast.parse(source, str(p))
    except SyntaxError as e:
        where = _where(e, str(p))
        raise UserError(f"syntax error in task file {path}: {e.msg}" + (f" (at {where})" if where else "")) from None
    task = Task(p, source, tree)
    _TASKS.put((p, source), task)
    return task


_TASKS = Memo(entries=32)
