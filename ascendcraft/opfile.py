"""Running an op file: untrusted code, executed with time limits, allocation guards and errors
that name the file's line (every failure is a UserError, never ascendcraft's crash or exit).

:func:`evaluate` finds the shapes of one execution of the file (an ``OpModule``: its namespace,
with some module constants overridden by :class:`ConstantOverride`), without allocating when it can.
"""
from __future__ import annotations

import ast
import inspect
import re
import signal
import threading
import time
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .errors import UserError, interrupted
from .tensorspec import TensorSpec, fmt_bytes

#: Seed set before every ``Model(*init_args)`` so parameters are reproducible
#: (MultiKernelBench uses the same value, ``seed_num = 1024``).
MODEL_SEED = 1024
#: Largest allocation the loader makes on its own when the meta device cannot be
#: used (see :func:`evaluate`).
ALLOCATION_CAP = 1 << 30

TASK_HELP = ("a task file defines `class Model(nn.Module)` with forward(), a function get_inputs() "
              "returning the forward arguments, and get_init_inputs() returning the Model arguments")


# --------------------------------------------------------------------------- errors

def where_in_file(exc: BaseException, filename: str) -> str:
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


#: A call into an op file that waits instead of computing (``time.sleep``, ``input()``, a lock)
#: uses no CPU time, so the CPU limit never ends it: it is stopped once it has used less than
#: WAITING_SHARE of one core over the last WAIT_WINDOW_S seconds of wall-clock time. A CPU-bound
#: call on a loaded machine (bench's workers on 2 cores) still gets a large share of a core.
WAIT_WINDOW_S = 60.0
WAITING_SHARE = 0.05
#: And any call after this many times OP_CALL_TIMEOUT_S of wall-clock time.
WALL_FACTOR = 4


class OpTimeout(BaseException):
    """Raised in the main thread when a call into the op file runs past its limits; its text
    says which limit (see :func:`time_limit`)."""

    def __str__(self) -> str:
        return self.args[0] if self.args else f"it did not finish within {OP_CALL_TIMEOUT_S} s (an endless loop?)"


class _Watchdog(threading.Thread):
    """Interrupts the main thread (SIGVTALRM, the CPU limit's signal) when the call waits or runs
    past its wall-clock bound (:data:`WAIT_WINDOW_S`, :data:`WALL_FACTOR`)."""

    def __init__(self):
        super().__init__(name="ascendcraft-op-watchdog", daemon=True)
        self.done = threading.Event()
        self.reason = ""

    def run(self) -> None:
        start = time.monotonic()
        samples = [(start, time.process_time())]
        poll = min(1.0, WAIT_WINDOW_S / 4)
        while not self.done.wait(poll):
            now, cpu = time.monotonic(), time.process_time()
            samples.append((now, cpu))
            while len(samples) > 2 and now - samples[1][0] >= WAIT_WINDOW_S:
                samples.pop(0)
            then, cpu_then = samples[0]
            if now - then >= WAIT_WINDOW_S and cpu - cpu_then < WAITING_SHARE * (now - then):
                self.reason = (f"it waited {now - then:.0f} s without computing (a sleep, input() or a lock?); "
                               "op-file calls must compute and return")
            elif now - start > WALL_FACTOR * OP_CALL_TIMEOUT_S:
                self.reason = f"it did not finish within {WALL_FACTOR * OP_CALL_TIMEOUT_S} s of wall-clock time"
            else:
                continue
            signal.pthread_kill(threading.main_thread().ident, signal.SIGVTALRM)
            return


@contextmanager
def time_limit(filename: str | None = None):
    """Stop an op-file call that spins too long (an endless loop): after OP_CALL_TIMEOUT_S seconds
    of the process's CPU time, a SIGVTALRM in the main thread; and one that waits (a watchdog
    thread sends the same signal, :class:`_Watchdog`). The virtual timer leaves the wall-clock
    alarm (SIGALRM) to callers that use their own; nested calls keep the outer limit."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_VIRTUAL)[0]:
        yield
        return
    watchdog = _Watchdog()

    def expire(signum, frame):
        if watchdog.done.is_set():      # the call has returned: a signal sent meanwhile comes too late
            return
        raise OpTimeout(*([watchdog.reason] if watchdog.reason else []))
    previous = signal.signal(signal.SIGVTALRM, expire)
    signal.setitimer(signal.ITIMER_VIRTUAL, OP_CALL_TIMEOUT_S)
    watchdog.start()
    try:
        yield
    except OpTimeout as e:     # one that no call site turned into a UserError on the way out
        if filename is None:
            raise
        raise op_failure("running the op file", e, filename) from None
    finally:
        watchdog.done.set()
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        watchdog.join()
        signal.signal(signal.SIGVTALRM, previous)


@contextmanager
def running_op(filename: str | None = None):
    """One call into an op file: under :func:`time_limit`, and with what its code warns about kept
    off the user's stderr (NaN from the infinities of a specials draw, a deprecated call: the
    reference's business, not ascendcraft's output)."""
    with time_limit(filename), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


#: What code in an op file can raise. Op files are untrusted: ``sys.exit()`` or a raised
#: KeyboardInterrupt there is the op file's failure, never ascendcraft's exit code.
OP_ERRORS = (Exception, SystemExit, KeyboardInterrupt, OpTimeout)


def reraise_fatal(exc: BaseException) -> None:
    """At a site that swallows an op-file failure (a probe, a retry): let a real Ctrl-C (see
    errors.interrupted) and a time limit through; a retry must not run the endless loop again."""
    if isinstance(exc, OpTimeout) or (isinstance(exc, KeyboardInterrupt) and interrupted()):
        raise exc


def op_failure(stage: str, exc: BaseException, filename: str, hint: str | None = None) -> UserError:
    if isinstance(exc, KeyboardInterrupt) and interrupted():
        raise exc
    if isinstance(exc, UserError):
        return exc
    where = where_in_file(exc, filename)
    if isinstance(exc, SystemExit):
        text = f"it called sys.exit({exc.code!r})"
    elif isinstance(exc, KeyboardInterrupt):
        text = "it raised KeyboardInterrupt"
    elif isinstance(exc, OpTimeout):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}".strip()
    msg = f"{stage} failed: {text}" + (f" (at {where})" if where else "")
    return UserError(msg, hint=hint or (TASK_HELP if isinstance(exc, (SystemExit, KeyboardInterrupt, OpTimeout))
                                        else None))


class TooBig(Exception):
    pass


class AllocationGuard(TorchDispatchMode):
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
            except OP_ERRORS as e:  # noqa: BLE001 - the real call reports the real error
                reraise_fatal(e)
                probe = None
            if isinstance(probe, torch.Tensor):
                self.total += probe.numel() * probe.element_size()
                if self.total > self.cap:
                    raise TooBig(f"allocates more than {fmt_bytes(self.cap)}")
        return func(*args, **kwargs)


class SomeReal(TorchDispatchMode):
    """Runs some factory calls for real and everything else on the meta device: a factory whose
    result (found by replaying it on meta) :meth:`keep` accepts is made on the CPU, any other on
    meta, and an op on a meta operand runs on meta (its CPU operands moved there)."""

    def __init__(self, cap: int, total_cap: int | None = None):
        super().__init__()
        self.cap, self.total_cap, self.total = cap, total_cap, 0

    def keep(self, probe: torch.Tensor) -> bool:
        return probe.numel() * probe.element_size() <= self.cap

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        from torch.utils._pytree import tree_leaves, tree_map_only

        kwargs = dict(kwargs or {})
        tensors = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        meta = torch.device("meta")
        if any(t.device.type == "meta" for t in tensors):
            args, kwargs = tree_map_only(torch.Tensor, lambda t: t.to(meta), (args, kwargs))
            if "device" in kwargs:
                kwargs["device"] = meta
            return func(*args, **kwargs)
        if tensors or not any(a.name == "device" for a in func._schema.arguments):
            return func(*args, **kwargs)
        probe = func(*args, **{**kwargs, "device": meta})
        real = isinstance(probe, torch.Tensor) and self.keep(probe)
        if real and self.total_cap is not None:
            self.total += probe.numel() * probe.element_size()
            if self.total > self.total_cap:
                raise TooBig(f"makes more than {fmt_bytes(self.total_cap)} of tensors")
        return func(*args, **{**kwargs, "device": torch.device("cpu")}) if real else probe


class IntegersOnly(SomeReal):
    """Integer and bool tensors of at most ``cap`` bytes for real, the rest on meta: so
    ``get_inputs()`` at the real size draws its index tensors as the op does, without allocating
    its float tensors."""

    def keep(self, probe: torch.Tensor) -> bool:
        return not probe.dtype.is_floating_point and not probe.dtype.is_complex and super().keep(probe)


def integer_inputs(mod: "OpModule", filename: str, cap: int, seed: int = 0) -> dict[int, "torch.Tensor"]:
    """The integer and bool tensors ``get_inputs()`` returns (by position), drawn for real with
    ``seed`` while its float tensors stay on meta (:class:`IntegersOnly`); an integer tensor that
    depends on a float one, or is larger than ``cap``, is left out. Empty when get_inputs fails so."""
    try:
        with running_op(filename), torch.random.fork_rng(devices=[]), IntegersOnly(cap), torch.no_grad():
            torch.manual_seed(seed)
            inputs = mod.get_inputs()
    except OP_ERRORS as e:  # noqa: BLE001 - the values are a bonus: the shapes came without them
        reraise_fatal(e)
        return {}
    return {i: x for i, x in enumerate(inputs if isinstance(inputs, (list, tuple)) else ())
            if isinstance(x, torch.Tensor) and x.device.type == "cpu" and not x.dtype.is_floating_point
            and not x.dtype.is_complex}


# --------------------------------------------------------------------------- module

@dataclass
class OpModule:
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


def assigned_names(node: ast.stmt) -> list[tuple[str, ast.expr | None]]:
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


class ConstantOverride:
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
class Evaluation:
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


def flatten_outputs(out, filename: str) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        flat: list[torch.Tensor] = []
        for o in out:
            flat += flatten_outputs(o, filename)
        return flat
    raise UserError(f"Model.forward in {filename} returned {type(out).__name__}, not a tensor or a tuple/list of tensors",
                    hint="return tensors (wrap a Python number with torch.tensor(...))")


class UnmadeGroup:
    """In place of a group's arguments: the case's inputs could not be made (NPUKernelBench's
    ``get_inputs`` for one row of its table raised), so that group alone is set aside."""

    def __init__(self, message: str):
        self.message = message


def specs_of_inputs(inputs, filename: str, source: str = "get_inputs()") -> tuple:
    """The specs of forward arguments ``inputs`` that ``source`` returned (``group 3 of
    get_input_groups()``)."""
    if not isinstance(inputs, (list, tuple)):
        raise UserError(f"{source} in {filename} returned {type(inputs).__name__}, not a list",
                        hint=TASK_HELP)
    if not inputs:
        raise UserError(f"{source} in {filename} returned an empty list", hint=TASK_HELP)
    specs = []
    for i, x in enumerate(inputs):
        if isinstance(x, UnmadeGroup):
            raise UserError(x.message)
        if isinstance(x, torch.Tensor):
            specs.append(TensorSpec.of(x, f"input {i} of {source}"))
        elif x is None or isinstance(x, (bool, int, float, str)):
            specs.append(x)        # None: an optional tensor left out
        elif isinstance(x, (list, tuple)) and all(isinstance(v, (bool, int, float)) for v in x):
            specs.append(tuple(x))
        elif isinstance(x, torch.dtype):
            specs.append(str(x))     # an attribute naming a dtype: as a string, it binds only by name
        elif isinstance(x, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in x):
            raise UserError(f"input {i} of {source} in {filename} is a list of {len(x)} tensors, which a kernel "
                            f"cannot take: the DSL has no tensor lists (a task with input groups is split into one "
                            f"group per element of its lists, unless Model.forward combines the elements)")
        else:
            raise UserError(f"input {i} of {source} in {filename} is a {type(x).__name__}; "
                            "inputs must be tensors, Python numbers, strings, lists of numbers or None")
    return tuple(specs)


def require_cpu_data(tensors, what: str, filename: str) -> None:
    """``tensors`` that the reference reads or the kernel is judged on hold data on the CPU
    (``what``: their name, ``{}`` for the index): a meta, GPU or sparse tensor (``x.to("meta")``,
    ``device="cuda"``) has none ascendcraft can copy."""
    for i, x in enumerate(tensors):
        if not isinstance(x, torch.Tensor) or (x.device.type == "cpu" and x.layout == torch.strided):
            continue
        layout = str(x.layout).split(".")[-1]
        kind = f"on the {x.device.type} device" if x.device.type != "cpu" else f"a {layout} tensor"
        raise UserError(f"{what.format(i)} in {filename} is {kind}: ascendcraft reads dense CPU tensors",
                        hint="return tensors made on the CPU (torch.rand(...), no device= or .to(...)); "
                             "ascendcraft moves them where the kernel runs")


def parameter_specs(model: torch.nn.Module) -> dict[str, TensorSpec]:
    return {k.replace(".", "_"): TensorSpec.of(v, f"model parameter {k}") for k, v in model.state_dict().items()}


def init_args_of(mod: OpModule, filename: str) -> tuple:
    try:
        args = mod.get_init_inputs()
    except OP_ERRORS as e:  # noqa: BLE001
        raise op_failure("get_init_inputs()", e, filename) from None
    if not isinstance(args, (list, tuple)):
        raise UserError(f"get_init_inputs() in {filename} returned {type(args).__name__}, not a list",
                        hint=TASK_HELP)
    return tuple(args)


def evaluate(mod: OpModule, filename: str, cap: int = ALLOCATION_CAP) -> Evaluation:
    """Input, output and parameter specs of one execution of the task.

    Everything runs under ``torch.device("meta")`` first: factories such as
    ``torch.rand(4096, 393216)`` then build shape-only tensors, so multi-GB benchmark
    shapes cost nothing. Some tasks cannot run on meta (``.item()`` on a tensor, an op
    without a meta kernel); then the same step is run for real on the CPU, guarded so it
    never allocates more than :data:`ALLOCATION_CAP` (the forward pass only when its
    inputs take at most ``cap / 2``). If the forward pass cannot be shaped either way,
    the output specs stay unknown (``None``) and the error is kept.
    """
    init_args = init_args_of(mod, filename)
    real_inputs = None
    try:
        with torch.device("meta"), torch.no_grad():
            inputs = mod.get_inputs()
    except OP_ERRORS as e:  # noqa: BLE001 - retry on the CPU under the guard
        reraise_fatal(e)
        try:
            with AllocationGuard(ALLOCATION_CAP), torch.no_grad():
                torch.manual_seed(0)
                inputs = real_inputs = mod.get_inputs()
        except TooBig as e:
            raise UserError(f"get_inputs() in {filename} does not run on torch's meta device and its "
                            f"real inputs are too large to create ({e})",
                            hint="avoid .item()/.tolist() on tensors in get_inputs()") from None
        except OP_ERRORS as e:  # noqa: BLE001
            raise op_failure("get_inputs()", e, filename, hint=TASK_HELP) from None
    input_specs = specs_of_inputs(inputs, filename)

    meta_error: Exception | None = None
    try:
        with torch.device("meta"), torch.no_grad():
            model = mod.model(*init_args)
            if real_inputs is not None:
                inputs = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in inputs]
            outputs = flatten_outputs(model(*inputs), filename)
        return Evaluation(input_specs, tuple(TensorSpec.of(o, f"output {i} of Model.forward")
                                        for i, o in enumerate(outputs)),
                     parameter_specs(model), init_args)
    except UserError:
        raise
    except OP_ERRORS as e:  # noqa: BLE001
        reraise_fatal(e)
        meta_error = e
    # The meta device could not run Model(...) / forward: run it for real if that is cheap.
    in_bytes = sum(s.nbytes for s in input_specs if isinstance(s, TensorSpec))
    if in_bytes * 2 > min(cap, ALLOCATION_CAP):
        err = op_failure("Model.forward on the meta device", meta_error, filename)
        try:
            with torch.device("meta"):
                params = parameter_specs(mod.model(*init_args))
        except OP_ERRORS as e:  # noqa: BLE001
            reraise_fatal(e)
            params = {}
        return Evaluation(input_specs, None, params, init_args, error=err, definitive=False)
    try:
        with AllocationGuard(ALLOCATION_CAP), torch.no_grad():
            torch.manual_seed(0)
            inputs = real_inputs if real_inputs is not None else mod.get_inputs()
    except OP_ERRORS as e:  # noqa: BLE001
        raise op_failure("get_inputs()", e, filename, hint=TASK_HELP) from None
    try:
        with torch.no_grad():
            torch.manual_seed(MODEL_SEED)
            model = mod.model(*init_args)
    except OP_ERRORS as e:  # noqa: BLE001
        return Evaluation(input_specs, None, {}, init_args,
                     error=op_failure(f"Model(*get_init_inputs()) with arguments {short_repr(init_args)}", e, filename))
    try:
        with torch.no_grad():
            outputs = flatten_outputs(model(*inputs), filename)
    except UserError:
        raise
    except OP_ERRORS as e:  # noqa: BLE001
        return Evaluation(input_specs, None, parameter_specs(model), init_args,
                     error=op_failure("Model.forward on the inputs from get_inputs()", e, filename))
    return Evaluation(input_specs, tuple(TensorSpec.of(o, f"output {i} of Model.forward") for i, o in enumerate(outputs)),
                 parameter_specs(model), init_args)


def short_repr(x, limit: int = 80) -> str:
    text = repr(tuple(x)) if isinstance(x, list) else repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_interface(mod: OpModule, path: Path) -> None:
    ns = mod.ns
    model = ns.get("Model")
    if model is None:
        extra = " (it defines ModelNew: this looks like a generated solution, not a task)" if "ModelNew" in ns else ""
        raise UserError(f"{path} defines no `class Model(nn.Module)`{extra}", hint=TASK_HELP)
    if not (isinstance(model, type) and issubclass(model, torch.nn.Module)):
        raise UserError(f"`Model` in {path} is not a subclass of torch.nn.Module", hint=TASK_HELP)
    if "forward" not in {n for c in model.__mro__ if c is not torch.nn.Module for n in vars(c)}:
        raise UserError(f"class Model in {path} defines no forward() method", hint=TASK_HELP)
    if not callable(ns.get("get_inputs")) and not callable(ns.get("get_input_groups")):
        raise UserError(f"{path} defines no get_inputs() function (nor get_input_groups())", hint=TASK_HELP)
    if "get_init_inputs" in ns and not callable(ns["get_init_inputs"]):
        raise UserError(f"get_init_inputs in {path} is not a function", hint=TASK_HELP)
    if "get_init_inputs" not in ns and not callable(ns.get("group_init_inputs")):
        sig = inspect.signature(model.__init__)
        required = [p.name for p in list(sig.parameters.values())[1:]
                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if required:
            raise UserError(f"{path} defines no get_init_inputs() function, and Model.__init__ needs "
                            f"{', '.join(required)}", hint=TASK_HELP)
