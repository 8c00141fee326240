"""The Python API: ``ascendcraft.compile`` returns a handle to a verified, compiled kernel."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from .chips import DEFAULT_CHIP
from .dsl.ast import Kernel
from .errors import UserError


class CompiledKernel:
    """A kernel lowered to AscendC, built and verified on a backend.

    Call it like the op's ``forward``: ``y = k(x)`` with torch tensors or NumPy arrays (outputs
    come back as the same kind). ``.source`` is the AscendC kernel, ``.report`` the report as a
    dict, ``.timeline`` the simulated pipe timeline (with ``model_time=True``), ``.save(dir)``
    writes the kernels_out directory.
    """

    def __init__(self, lowered):
        self.lowered = lowered

    @property
    def source(self) -> str:
        return self.lowered.spec.kernel_source

    @property
    def report(self) -> dict:
        return self.lowered.to_json()

    @property
    def dsl(self) -> str:
        return self.lowered.run.levels[0].text

    @property
    def timeline(self):
        """The simulated pipe timeline of the real-shape cost run (an
        :class:`ascendcraft.sim.timeline.Timeline`), or None: it needs ``model_time=True`` and the
        sim backend. ``.save(dir)`` writes it as timeline.json (Chrome trace) and timeline.png;
        ``ascendcraft.sim.timeline.chrome_trace`` / ``draw_timeline`` take it directly."""
        return self.lowered.timeline

    def save(self, directory, *, force: bool = False) -> Path:
        from .results import write_output
        return write_output(self.lowered, Path(directory), force=force)

    def __call__(self, *args):
        import torch

        from .lower import sim_runner
        from .verify import to_numpy

        low = self.lowered
        if low.backend != "sim" or low.artifact is None:
            raise UserError(f"calling a kernel compiled for {low.backend} is not supported in this build",
                            hint="compile with backend='sim'")
        _check_call(args, low.check.shapes)
        use_torch = any(isinstance(a, torch.Tensor) for a in args)
        inputs = [to_numpy(a)[0] if isinstance(a, torch.Tensor) else a for a in args]
        # dims come from the arrays actually passed, so one compiled kernel serves any shape
        shapes = _CallShapes(low.check.shapes, [a for a in inputs if isinstance(a, np.ndarray)])
        outs = [np.empty(s.shape, dtype=_np_dtype(s.dtype)) for s in shapes.output_specs]
        sim_runner(low, shapes)(inputs, outs)
        if use_torch:
            outs = [torch.from_numpy(np.ascontiguousarray(o)) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)


class _CallShapes:
    """The op's shapes with the forward inputs replaced by the arrays of a call."""

    def __init__(self, base, arrays):
        self._base, self._arrays = base, arrays
        from .dtypes import NUMPY
        inv = {np.dtype(v): k for k, v in NUMPY.items() if k != "bf16"}
        specs = iter(arrays)
        self.input_specs = tuple(_spec(next(specs), inv) if hasattr(s, "shape") else s for s in base.input_specs)
        self.attributes = base.attributes
        self.parameters = base.parameters
        self.output_specs = self._outputs()

    def _outputs(self):
        """Output shapes: the op's own when the inputs have its verification shapes, else its reference's."""
        if self.input_specs == self._base.input_specs:
            return self._base.output_specs
        import torch

        from .tensorspec import TensorSpec
        outs = self._base.reference([torch.from_numpy(np.array(a)) for a in self._arrays])
        return tuple(TensorSpec.of(o, "output") for o in outs)

    def __getattr__(self, name):
        return getattr(self._base, name)


def _check_call(args, shapes) -> None:
    """The arguments of a call, against the op's forward: count, kind, dtype and rank (UserError)."""
    import torch

    from .tensorspec import dtype_name
    want = shapes.input_specs
    names = shapes.input_names
    if len(args) != len(want):
        listed = ", ".join(f"{n}: {w}" for n, w in zip(names, want))
        raise UserError(f"the kernel takes {len(want)} argument(s) like the op's forward ({listed}), "
                        f"not {len(args)}", hint="call it as the op's forward: k(" + ", ".join(names) + ")")
    for i, (a, w, n) in enumerate(zip(args, want, names)):
        if not hasattr(w, "shape"):
            continue          # a scalar forward argument: the op's own value is used
        if isinstance(a, torch.Tensor):
            got, rank = dtype_name(a.dtype, f"argument {i} ({n})"), a.dim()
        elif isinstance(a, np.ndarray):
            from .dtypes import from_numpy
            got, rank = from_numpy(a.dtype), a.ndim
            if got is None:
                raise UserError(f"argument {i} ({n}) is a NumPy array of {a.dtype}, which Ascend kernels do not take",
                                hint=f"pass {w.dtype} data, as the op's get_inputs() does")
        else:
            raise UserError(f"argument {i} ({n}) is a {type(a).__name__}, not a tensor",
                            hint=f"pass a torch tensor or NumPy array like {w}")
        if got != w.dtype or rank != len(w.shape):
            raise UserError(f"argument {i} ({n}) is {got} with {rank} dims; the kernel was compiled for "
                            f"{w.dtype} with {len(w.shape)} dims ({w})", hint="pass data of the op's dtype and rank")


def _spec(array, inv):
    from .tensorspec import TensorSpec
    return TensorSpec(tuple(array.shape), inv[np.dtype(array.dtype)])


def _np_dtype(dtype: str):
    from .dtypes import NUMPY
    return NUMPY[dtype]


def compile(kernel: str | Path | Kernel, op: str | Path, *, chip: str = DEFAULT_CHIP, backend: str = "sim",
            trials: int | None = None, seed: int = 0, max_bytes: int = 64 << 20, model_time: bool = False,
            inputs: str = "adversarial", precision: str = "ours",
            progress: Callable[[str], None] | None = None) -> CompiledKernel:
    """Check, lower, build and verify a tile-DSL kernel for an op; return the compiled kernel.

    The same stages as ``ascendcraft lower`` (docs/lowering.md): the kernel is checked against
    the op's PyTorch reference in the interpreter, run through the lowering passes (each one
    re-checked), emitted as AscendC, built and verified on the backend. Any failure raises
    (:class:`ascendcraft.errors.UserError` for bad input, ``KernelMismatch`` when the kernel or
    its lowering computes something else than the op).

    Args:
        kernel: the DSL kernel: a path to a ``.dsl`` file, its text, or a parsed
            :class:`ascendcraft.dsl.ast.Kernel`.
        op: the op file (MultiKernelBench / KernelBench: ``class Model``, ``get_inputs()``,
            ``get_init_inputs()``), or a folder holding ``op.py``.
        chip: the chip profile to check on-chip footprints and model time on: ``"910B2"`` (the
            default), ``"910B1"``, ``"910B3"``, ``"910B4"`` or ``"310P3"``.
        backend: ``"sim"`` (the default: ascendcraft's AscendC CPU simulator, needs g++),
            ``"npu"`` (CANN on an Ascend NPU) or ``"auto"`` (the NPU when one is usable, else
            the simulator). Only a ``"sim"`` kernel can be called from Python.
        trials: verification trials, for the source check and on the backend (``None``: the
            policy's default, 5); each lowering pass is re-checked on the first two.
        seed: the seed the verification draws (and the second shape set) derive from.
        max_bytes: the most bytes of op tensors to verify at; larger ops are verified on
            reduced shapes of the same rank (64 MiB by default).
        model_time: also run the kernel's cost model at the op's real shapes on the simulator,
            filling ``.report["modeled"]`` and ``.timeline`` (off by default: it adds a few
            seconds; ``ascendcraft lower`` always does it unless ``--no-model``).
        inputs: ``"adversarial"`` (trial 0 on the op's ``get_inputs()``, then signed, edge-case,
            near-one, offset, row-scaled and IEEE-special draws) or ``"op"`` (every trial from
            ``get_inputs()``); see
            docs/verification.md.
        precision: ``"ours"`` (the float64-based policy) or ``"task"`` (the benchmark's own
            acceptance check: NPUKernelBench's ``custom_check_precision`` or ``check_precision``,
            MultiKernelBench's ``allclose``); see docs/verification.md.
        progress: called with one short message per stage (``"compiling on the simulator"``,
            ...), e.g. ``print``; ``None`` for silence.

    Returns:
        a :class:`CompiledKernel`: call it like the op's ``forward``; ``.source``, ``.report``,
        ``.timeline``, ``.save(dir)``.
    """
    from .lower import lower
    return CompiledKernel(lower(kernel, op, chip=chip, backend=backend, trials=trials, seed=seed,
                                max_bytes=max_bytes, model_time=model_time, inputs=inputs, precision=precision,
                                progress=progress))


def generate(op, *, model: str | None = None, api_base: str | None = None, lower: bool = True,
             chip: str = DEFAULT_CHIP, backend: str = "auto", trials: int | None = None, seed: int = 0,
             cache=None, **options):
    """Generate a verified kernel for ``op`` with an LLM: see :func:`ascendcraft.llm.generate.generate`.

    With ``lower`` (the default) every verified reply is also lowered to AscendC and run on the
    backend (failures go back to the model), the lowering passes may ask the same model when they
    have no rule, and ``result.compiled`` is the :class:`CompiledKernel` of the chosen kernel.
    """
    from .llm.cache import ResponseCache
    from .llm.client import LLMClient
    from .llm.config import resolve
    from .llm.generate import generate as _generate

    client = options.pop("client", None) or LLMClient(
        resolve(model, api_base), cache=cache if isinstance(cache, ResponseCache) else ResponseCache(mode=cache))
    after_verify = None
    if lower:
        from .lower import lower_checked, resolve_backend
        backend = resolve_backend(backend)

        def after_verify(checked):
            return lower_checked(checked, chip=chip, backend=backend, trials=trials, seed=seed, assist=client.ask)
    from .distributions import DEFAULT_TRIALS
    trials = DEFAULT_TRIALS if trials is None else trials
    result = _generate(op, chip=chip, backend=backend, trials=trials, seed=seed, client=client,
                       after_verify=after_verify, **options)
    if result.verified and result.after is not None:
        result.compiled = CompiledKernel(result.after)
    return result
