"""The pass manager: runs the lowering chain and checks every pass with the interpreter.

Passes rewrite the AST in memory. Every node keeps an origin: the span, in the writer's kernel
file, of the source node it came from (``replace`` carries it; a node a pass makes new takes the
origin of the statement it was made for, see :func:`with_origins`), so an error at any level
names a line the writer wrote. Each level's AST is checked directly at the op's real shapes
(types, footprint, buffer budget) and at the verification shapes, and run by the interpreter
on the same random inputs as the previous level; its outputs must match the previous level's
under the verification policy (per-dtype allclose plus relative L2). Its printed text is an
artefact (passes/ in the results folder), parsed once to make sure it is a valid program. A
failure names the pass and keeps both programs for inspection.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Callable

import numpy as np
import torch

from .binding import bind, gm_arrays, parameter_arrays
from .dsl import ast as A
from .dsl.checker import CheckedKernel, check
from .dsl.interpreter import interpret
from .dsl.parser import parse
from .dsl.printer import print_kernel
from .errors import AscendcraftError, DSLError, SourceFile
from .verify import compare, poison_buffer


class PassError(AscendcraftError):
    """A lowering pass produced a program that is invalid or computes something else."""

    kind = "lowering error"

    def __init__(self, pass_name: str, message: str, *, before: str, after: str | None, hint: str | None = None):
        super().__init__(f"pass {pass_name!r}: {message}", hint=hint)
        self.pass_name, self.before, self.after = pass_name, before, after


@dataclass
class Level:
    """One program in the chain: ``source`` is level 0, then one per pass."""

    pass_name: str
    kernel: A.Kernel
    text: str
    real: CheckedKernel
    notes: list = field(default_factory=list)


@dataclass
class LoweringRun:
    levels: list[Level]

    @property
    def final(self) -> Level:
        return self.levels[-1]


class _LevelRunner:
    """Runs one level with the interpreter on verification-shape inputs."""

    def __init__(self, kernel: A.Kernel, shapes, chip, params: dict, checked: CheckedKernel | None = None):
        binding, self.plan = bind(kernel, shapes)
        self.checked = checked or check(kernel, binding, chip)
        self.params, self.out_specs = params, shapes.output_specs

    def run(self, inputs) -> list[np.ndarray]:
        outputs = [poison_buffer(s) for s in self.out_specs]
        interpret(self.checked, gm_arrays(self.plan, inputs, outputs, self.params))
        return outputs


def apply_pass(p, kernel: A.Kernel, ctx, source: SourceFile | None) -> A.Kernel:
    """One pass on one level: its program, every node with an origin in the writer's ``source``."""
    return replace(with_origins(p.run(kernel, ctx)), source=source)


def with_origins(node, inherited=None):
    """``node`` with an origin on every node below it that has none. A node a pass made takes the
    origin of what it is made of (``_pf0 = load(...)`` the load's), else of the next statement
    beside it that has one (temporaries are inserted before the statement they were split
    from), else of the previous one, else of its parent."""
    if not is_dataclass(node):
        return node
    names = {f.name for f in fields(node)}
    own = getattr(node, "span", None) if "span" in names else None
    made_of = None
    if own is None and "span" in names:   # what it is made of: its direct parts' origins
        made_of = next((getattr(getattr(node, n), "span", None) for n in sorted(names - {"span", "source"})
                        if getattr(getattr(node, n), "span", None) is not None), None)
    here = own or made_of or inherited
    changes = {}
    for name in names - {"span", "source"}:
        value = getattr(node, name)
        if isinstance(value, tuple) and any(is_dataclass(v) for v in value):
            spans = [getattr(v, "span", None) for v in value]
            new = tuple(with_origins(v, next((sp for sp in spans[i:] if sp), None)
                                     or next((sp for sp in reversed(spans[:i]) if sp), None) or here)
                        for i, v in enumerate(value))
            if any(a is not b for a, b in zip(new, value)):
                changes[name] = new
        elif is_dataclass(value):
            new = with_origins(value, here)
            if new is not value:
                changes[name] = new
    if "span" in names and own is None and here is not None:
        changes["span"] = here
    return replace(node, **changes) if changes else node


#: Trials each pass is checked on (the verification policy's first draws: the op's own and a
#: signed one); the source and the backend run get the full policy.
PASS_TRIALS = 2


def run_passes(source: A.Kernel, passes, *, task, shapes, chip, trials: int = PASS_TRIALS, seed: int = 0,
               assist: Callable[[str], str] | None = None, progress: Callable[[str], None] | None = None,
               source_checks: tuple[CheckedKernel, CheckedKernel] | None = None,
               draws: list | None = None) -> LoweringRun:
    """Run ``passes`` on a checked source kernel; raise PassError naming the first bad pass.

    ``source_checks``: the source's checks at the real and the verification shapes, when the
    caller has them already (``checking.check_kernel`` does), so they are not done twice.
    ``draws``: the verification draws (``verify.make_draws``) to check each level on; by
    default ``trials`` of them are made here.
    """
    from .verify import make_draws
    from lowering_passes.base import PassContext

    say = progress or (lambda msg: None)
    real_check, verification_check = source_checks or (check(source, bind(source, task.real)[0], chip), None)
    levels = [Level("source", source, print_kernel(source), real_check)]
    params = parameter_arrays(bind(source, shapes)[1], shapes)
    if draws is None:
        draws = make_draws(shapes, trials=trials, seed=seed)
    inputs = [d.numpy_inputs for d in draws]

    def runner(k, checked=None):
        return _LevelRunner(k, shapes, chip, params, checked)

    prev_outputs = [runner(source, verification_check).run(x) for x in inputs]
    where = source.source or SourceFile(f"{source.name}.dsl", levels[0].text)
    for p in passes:
        before = levels[-1]
        say(f"pass {p.name}")
        ctx = PassContext(before.real, chip, assist)
        try:
            kernel = apply_pass(p, before.kernel, ctx, source.source)
        except DSLError as err:   # spans are origins in the writer's file, at every level
            raise PassError(p.name, str(err.located(where)), before=before.text, after=None) from None
        text = print_kernel(kernel)
        try:
            parse(text, f"{kernel.name}.{p.name}.dsl")   # the artefact is a valid program too
        except DSLError as err:
            raise PassError(p.name, f"the pass produced a program that does not parse: {err.message}",
                            before=before.text, after=text) from None
        try:
            real = check(kernel, bind(kernel, task.real)[0], chip)
            r = runner(kernel)
            outputs = [r.run(x) for x in inputs]
        except DSLError as err:
            raise PassError(p.name, f"its output program is invalid:\n{err.located(where)}", before=before.text,
                            after=text) from None
        for t, (new, old) in enumerate(zip(outputs, prev_outputs)):
            for i, (got, ref) in enumerate(zip(new, old)):
                res = compare(got, torch.from_numpy(np.array(ref, copy=True)), i)
                if not res.passed:
                    worst = "; ".join(f"at {list(ix)} expected {e} got {g}" for ix, e, g in res.worst[:3])
                    raise PassError(p.name, f"the program after this pass computes something else than the one "
                                    f"before it (output {i}, trial seed {draws[t].seed}, {draws[t].label} inputs): "
                                    f"{res.problem}"
                                    + (f"; {worst}" if worst else ""), before=before.text, after=text)
        levels.append(Level(p.name, kernel, text, real, list(ctx.notes)))
        prev_outputs = outputs
    return LoweringRun(levels)
