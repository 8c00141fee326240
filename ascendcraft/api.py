"""The Python API: ``ascendcraft.compile`` returns a handle to a verified, compiled kernel."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .chips import DEFAULT_CHIP
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
        from .lower import write_output
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

        from .task import TensorSpec
        outs = self._base.reference([torch.from_numpy(np.array(a)) for a in self._arrays])
        return tuple(TensorSpec.of(o, "output") for o in outs)

    def __getattr__(self, name):
        return getattr(self._base, name)


def _check_call(args, shapes) -> None:
    """The arguments of a call, against the op's forward: count, kind, dtype and rank (UserError)."""
    import torch

    from .task import dtype_name
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
    from .task import TensorSpec
    return TensorSpec(tuple(array.shape), inv[np.dtype(array.dtype)])


def _np_dtype(dtype: str):
    from .dtypes import NUMPY
    return NUMPY[dtype]


def compile(kernel, op, *, chip: str = DEFAULT_CHIP, backend: str = "sim", trials: int | None = None,
            seed: int = 0, max_bytes: int = 64 << 20, model_time: bool = False, inputs: str = "adversarial",
            progress=None) -> CompiledKernel:
    """Check, lower, build and verify a DSL kernel (path, text or parsed) for an op file.

    ``trials`` (default 5), ``seed`` and ``inputs`` (``"adversarial"`` or ``"op"``) set the
    verification policy (docs/verification.md)."""
    from .lower import lower
    return CompiledKernel(lower(kernel, op, chip=chip, backend=backend, trials=trials, seed=seed,
                                max_bytes=max_bytes, model_time=model_time, inputs=inputs, progress=progress))


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
