"""A direct-launch operator (``ascendcraft.cann.direct_reply``) checked against an op file, as a custom-operator
project is (``ascendcraft.cann.check``): its binding's host code allocates, tiles and launches for each case
(``ascendcraft.sim.direct_op``), its kernels run on the simulator, and the tensors it returns are judged by the
verification policy at every shape set; its time is modeled at the op's real shapes in a cost-only run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..chips import DEFAULT_CHIP
from ..distributions import DEFAULT_TRIALS
from ..errors import AscendcraftError
from ..progress import reporter
from ..sim.direct_op import DirectRunError, run_direct
from .check import FLOAT_NAMES, ProjectCheck, cost_only_inputs, inputs_text, verify_shape_sets
from .direct_reply import DirectReply


def call_args(reply: DirectReply, shapes, inputs: list) -> tuple[list, dict]:
    """The binding function's arguments for one draw's ``inputs`` (forward order) of the op at ``shapes``, and
    which of them hold bf16."""
    args, dtypes = [], {}
    for k, a in enumerate(reply.args):
        if a.kind == "forward":
            if a.index < len(inputs):
                value = inputs[a.index]
                if getattr(shapes.input_specs[a.index], "dtype", None) == "bf16":
                    dtypes[k] = "bfloat16"
            elif a.has_default:
                value = a.value
            else:
                raise DirectRunError(f"ModelNew.forward passes {a.text}, its parameter {a.index + 1}, which has no "
                                     f"default; the op's forward takes {len(inputs)} arguments")
        elif a.kind == "init":
            init = shapes.init_args
            if a.index >= len(init) and not a.has_default:
                raise DirectRunError(f"ModelNew.forward passes {a.text}: ModelNew.__init__'s parameter {a.index + 1} "
                                     f"gets no value (the op's get_init_inputs() returns {len(init)})")
            value = init[a.index] if a.index < len(init) else a.value
            if hasattr(value, "shape"):
                raise DirectRunError(f"ModelNew.forward passes {a.text}, a tensor __init__ took; the simulator passes "
                                     f"forward's tensors only")
        else:
            value = a.value
        args.append(value)
    return args, dtypes


def check_direct(reply: DirectReply, op: str | Path, *, trials: int = DEFAULT_TRIALS, seed: int = 0,
                 chip: str = DEFAULT_CHIP, max_bytes: int = 64 << 20, inputs: str = "adversarial",
                 precision: str = "ours", model_time: bool = True,
                 progress: Callable[[str], None] | None = None) -> ProjectCheck:
    """Verify the direct-launch operator ``reply`` against the op file ``op``. Build errors raise
    (``SimBuildError``: stage ``compile``); host code or a launch that fails raises (``HostRunError``,
    :class:`DirectRunError`: stage ``correct``); wrong outputs are a failed check."""
    from ..task import load_task
    say = reporter(progress)
    task = load_task(op)
    result = ProjectCheck(str(op), f"{reply.operator.module}.{reply.function}")
    verify_shape_sets(result, task, seed, max_bytes, say,
                      lambda shapes: _verify_at(reply, shapes, trials, seed, chip, inputs, precision, say))
    if model_time and result.passed:
        _model_time(result, reply, task.real, chip, say)
    return result


def _verify_at(reply: DirectReply, shapes, trials, seed, chip, inputs, precision, say):
    from ..verify import make_draws, verify

    written_as: list = []

    def run(ins: list, outs: list) -> None:
        args, dtypes = call_args(reply, shapes, ins)
        r = run_direct(reply.operator, reply.function, args, dtypes=dtypes, chip=chip)
        if len(r.outputs) < len(outs):
            raise DirectRunError(f"{reply.function} returned {len(r.outputs)} tensors; the op returns {len(outs)}")
        written_as[:] = [FLOAT_NAMES.get(d) for d in r.output_dtypes]
        for k, (buf, got) in enumerate(zip(outs, r.outputs)):
            if tuple(buf.shape) != tuple(got.shape):
                raise DirectRunError(f"{reply.function}'s output {k + 1} is {tuple(got.shape)}, the op's "
                                     f"{tuple(buf.shape)}")
            buf[...] = got.astype(buf.dtype, copy=False)

    draws = make_draws(shapes, trials=trials, seed=seed, inputs=inputs, progress=say)
    return verify(run, shapes, draws=draws, progress=say, precision=precision, written_as=written_as)


def _model_time(result: ProjectCheck, reply: DirectReply, real, chip, say) -> None:
    say(f"modelling time at the real shapes ({inputs_text(real)})")
    try:
        args, dtypes = call_args(reply, real, cost_only_inputs(real))
        r = run_direct(reply.operator, reply.function, args, dtypes=dtypes, chip=chip, cost_only=True)
    except AscendcraftError as err:
        result.time_note = str(err).splitlines()[0]
        return
    result.block_dim, result.sandboxed = r.block_dim, r.sandboxed
    if r.time_us is None:
        result.time_note = "the run modeled no time"
        return
    result.time_us, result.bound = r.time_us, r.bound
