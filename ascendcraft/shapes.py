"""One concrete shape set of a task (:class:`TaskShapes`): its specs, inputs, reference and
attributes. ``ascendcraft.task`` finds the shape sets of a task file (the real one, reduced ones,
variants); ``ascendcraft.groups`` makes one per input group."""
from __future__ import annotations

import contextlib
import inspect
import re
import warnings
from typing import TYPE_CHECKING

import torch

from .errors import UserError
from .opfile import (MODEL_SEED, OP_ERRORS, TASK_HELP, Evaluation, OpModule, flatten_outputs, op_failure,
                     require_cpu_data, reraise_fatal, short_repr, specs_of_inputs, running_op)
from .tensorspec import TensorSpec, fmt_bytes

if TYPE_CHECKING:
    from .task import Task

#: Default budget for one shape set: bytes of inputs + outputs + parameters.
DEFAULT_MAX_BYTES = 64 << 20
#: Largest integer input drawn for real at the op's real shapes (Task.real_integer_inputs).
INTEGER_INPUT_CAP = 64 << 20
#: An op whose sizes no module constant sets cannot be reduced: it is verified at its real
#: size when its tensors take at most this many bytes (``--full-shapes`` goes beyond).
FULL_SIZE_BUDGET = 4 << 30
# Names of constants that configure an op rather than size a tensor: never shrunk,
# even if their value happens to show up as a dim.
NOT_A_SIZE = re.compile(r"kernel|stride|pad|dilation|group|axis|^k$|^k_|_k$|reduc", re.I)


@contextlib.contextmanager
def plain_kernels_only():
    """Torch's plain CPU kernels: the math attention (the formula, step by step) instead of the
    fused one, convolutions without oneDNN. Where their results and the default kernels' differ in
    being finite, what PyTorch gives is the kernel's choice, not a result it defines (the fused CPU
    attention skips a NaN score in its row max and gives 0 where the formula gives NaN)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # oneDNN's flags warn about TF32 on Intel GPUs
        with sdpa_kernel([SDPBackend.MATH]), torch.backends.mkldnn.flags(enabled=False):
            yield


# --------------------------------------------------------------------------- shapes

class TaskShapes:
    """One concrete shape set of a task: the real one, or a reduced one."""

    def __init__(self, task: "Task", mod: OpModule, ev: Evaluation, *, reduced: bool, original: dict[str, int],
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
            with running_op(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                torch.manual_seed(seed)
                inputs = self._mod.get_inputs()
        except OP_ERRORS as e:  # noqa: BLE001
            raise op_failure("get_inputs()", e, filename, hint=TASK_HELP) from None
        specs = specs_of_inputs(inputs, filename)
        require_cpu_data(inputs, "input {} of get_inputs()", filename)
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
            with running_op(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                model = self._model()
                stage = "Model.forward"
                out = model(*inputs)
        except OP_ERRORS as e:  # noqa: BLE001
            err = op_failure(stage + (f" at reduced shapes ({self.shapes_text()})" if self.reduced else ""), e, filename)
            if self.reduced:
                err.hint = ("the reference does not run at the reduced shapes; verify on the real shapes "
                            "with --full-shapes, or raise --max-bytes")
            raise err from None
        outputs = flatten_outputs(out, filename)
        require_cpu_data(outputs, "output {} of Model.forward", filename)
        return [o.detach() for o in outputs]

    def reference64(self, inputs: list, absolute_parameters: bool = False,
                    plain_kernels: bool = False) -> tuple[list[torch.Tensor] | None, str]:
        """The reference in float64: floating inputs and the module's parameters cast to double
        (with ``absolute_parameters``, their absolute values: for the magnitudes of the terms;
        with ``plain_kernels``, through torch's plain CPU kernels: :func:`plain_kernels_only`).

        Returns ``(outputs, "")``, or ``(None, why)`` when the op does not run in float64 (a
        dtype check, an op without a double kernel, ...). Outputs the op casts back to a
        narrower float (``.half()``) keep that dtype: rounded once from the float64 result.
        """
        try:
            with running_op(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad(), \
                    (plain_kernels_only() if plain_kernels else contextlib.nullcontext()):
                model = self._model().double()
                if absolute_parameters:
                    for p in model.parameters():
                        p.abs_()
                out = model(*[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                              for x in inputs])
            outs = flatten_outputs(out, str(self._task.path))
        except OP_ERRORS as e:  # noqa: BLE001 - any failure means: no float64 reference
            reraise_fatal(e)
            return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:160]
        return [o.detach() for o in outs], ""

    def parameter_values(self) -> dict[str, torch.Tensor]:
        """The model's state_dict (seeded), keys with '.' replaced by '_'."""
        try:
            with running_op(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad():
                model = self._model()
        except OP_ERRORS as e:  # noqa: BLE001
            raise op_failure("Model(*get_init_inputs())", e, str(self._task.path)) from None
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
            head = f"reduced shapes [{changes}; {fmt_bytes(self.nbytes)} within --max-bytes {fmt_bytes(self.max_bytes or 0)}]"
        elif self.max_bytes is None and self._ev.nbytes > DEFAULT_MAX_BYTES and not self._task.shape_constants():
            head = f"real shapes [{fmt_bytes(self.nbytes)}; no module constant sizes them, so not reduced]"
        else:
            head = f"real shapes [{fmt_bytes(self.nbytes)}]"
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


def _attributes(mod: OpModule, init_args: tuple, filename) -> dict[str, object]:
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
                            f"{short_repr(init_args)}, which do not fit Model.__init__{sig}: {e}",
                            hint=TASK_HELP) from None
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
