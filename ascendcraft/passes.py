"""The pass manager: runs the lowering chain and checks every pass with the interpreter.

Passes rewrite the AST in memory. Every node keeps an origin: the span, in the writer's kernel
file, of the source node it came from (``replace`` carries it; a node a pass makes new takes the
origin of the statement it was made for, see :func:`with_origins`), so an error at any level
names a line the writer wrote. Each level's AST is checked directly at the op's real shapes
(types, footprint, buffer budget) and at the verification shapes, and run by the interpreter
on the same random inputs as the previous level; its outputs must match the previous level's
under the verification policy (per-dtype allclose plus relative L2); :class:`PassChain` says on
which draws each level runs. Its printed text is an artefact (passes/ in the results folder),
parsed once to make sure it is a valid program. A failure names the pass and keeps both programs
for inspection.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Callable

import numpy as np
import torch

from .binding import bind, gm_arrays, parameter_arrays
from .dsl import ast as A
from .dsl.checker import CheckedKernel, check, check_at
from .dsl.interpreter import Interpreter
from .dsl.parser import parse
from .dsl.printer import print_kernel
from .errors import AscendcraftError, DSLError, SourceFile
from .memo import Memo
from .progress import reporter
from .verify import compare, poison_buffer


class PassError(AscendcraftError):
    """A lowering pass produced a program that is invalid or computes something else."""

    kind = "lowering error"

    def __init__(self, pass_name: str, message: str, *, before: str, after: str | None, hint: str | None = None,
                 ours: bool = False, cause: DSLError | None = None):
        if cause is not None:      # its location (the writer's line) is this error's: rendered once, in JSON too
            said = cause.message if cause.kind == self.kind else f"{cause.kind}: {cause.message}"
            message = f"{message}{': ' if message else ''}{said}"
            hint = hint or cause.hint
        super().__init__(f"pass {pass_name!r}: {message}", hint=hint)
        self.pass_name, self.before, self.after = pass_name, before, after
        self.ours = ours        # the pass broke the program (not: the pass refused a form, naming the line)
        self.span = cause.span if cause is not None else None
        self.source = cause.source if cause is not None else None


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
    """Runs one level with the interpreter on verification-shape inputs (compiled once)."""

    def __init__(self, kernel: A.Kernel, shapes, chip, params: dict, checked: CheckedKernel | None = None):
        """``checked``: the kernel's check at these shapes' binding, when the caller has it."""
        binding, self.plan = bind(kernel, shapes)
        self.checked = check_at(kernel, binding, chip, checked)
        self.params, self.out_specs = params, shapes.output_specs
        self._compiled = None

    def run(self, inputs) -> list[np.ndarray]:
        outputs = [poison_buffer(s) for s in self.out_specs]
        if self._compiled is None:
            self._compiled = Interpreter(self.checked)
        self._compiled.run(gm_arrays(self.plan, inputs, outputs, self.params))
        return outputs


def apply_pass(p, kernel: A.Kernel, ctx, source: SourceFile | None) -> A.Kernel:
    """One pass on one level: its program, every node with an origin in the writer's ``source``.
    A program equal to ``kernel`` (ignoring source positions) is ``kernel`` itself, so that the
    level's checks, keyed by the kernel's nodes, are the level before's (most passes change
    nothing in most kernels, and checking a long kernel is most of its lowering's static work)."""
    after = replace(with_origins(p.run(kernel, ctx)), source=source)
    return kernel if after == kernel and kernel.source is source else after


def with_origins(node, inherited=None):
    """``node`` with an origin on every node below it that has none. A node a pass made takes the
    origin of what it is made of (``_pf0 = load(...)`` the load's), else of the next statement
    beside it that has one (temporaries are inserted before the statement they were split
    from), else of the previous one, else of its parent."""
    if not is_dataclass(node) or node in _WITH_ORIGINS:
        return node
    has_span, parts = _origin_fields(type(node))
    own = getattr(node, "span", None) if has_span else None
    made_of = None
    if own is None and has_span:   # what it is made of: its direct parts' origins
        made_of = next((getattr(getattr(node, n), "span", None) for n in parts
                        if getattr(getattr(node, n), "span", None) is not None), None)
    here = own or made_of or inherited
    changes = {}
    for name in parts:
        value = getattr(node, name)
        if isinstance(value, tuple) and any(is_dataclass(v) for v in value):
            new = tuple(with_origins(v, near or here) for v, near in zip(value, _nearest_spans(value)))
            if any(a is not b for a, b in zip(new, value)):
                changes[name] = new
        elif is_dataclass(value):
            new = with_origins(value, here)
            if new is not value:
                changes[name] = new
    if has_span and own is None and here is not None:
        changes["span"] = here
    done = replace(node, **changes) if changes else node
    if here is not None:    # then every node below has an origin now
        _WITH_ORIGINS.add(done)
    return done


# Nodes with an origin on every node below them that has a span: a pass keeps most of a level's
# nodes, and the next pass's with_origins does not walk them again.
_WITH_ORIGINS = A.ByNode(500_000)


def _nearest_spans(items) -> list:
    """Per item, the span of the first item from it onwards that has one, else of the last before
    it that has one, else None (in one pass each way: a block can hold thousands of statements)."""
    spans = [getattr(v, "span", None) for v in items]
    after, found = [None] * len(spans), None
    for i in range(len(spans) - 1, -1, -1):
        found = spans[i] or found
        after[i] = found
    before, found = [None] * len(spans), None
    for i, sp in enumerate(spans):
        before[i] = found
        found = sp or found
    return [a or b for a, b in zip(after, before)]


@functools.cache
def _origin_fields(cls) -> tuple[bool, tuple[str, ...]]:
    """(whether IR class ``cls`` has a span, its other fields but ``source`` in name order)."""
    names = {f.name for f in fields(cls)}
    return "span" in names, tuple(sorted(names - {"span", "source"}))


#: Trials each pass is checked on (the verification policy's first draws: the op's own and a
#: signed one); the source and the backend run get the full policy. Every level is run on the first;
#: the others are run on the last level and compared with the source's outputs there, and only when
#: that differs, or a pass fails, on every level (so the failure names the same pass and trial as
#: checking every level on all of them: see PassChain).
PASS_TRIALS = 2


def run_passes(source: A.Kernel, passes, *, task, shapes, chip, trials: int = PASS_TRIALS, seed: int = 0,
               assist: Callable[[str], str] | None = None, progress: Callable[[str], None] | None = None,
               source_checks: tuple[CheckedKernel, CheckedKernel] | None = None,
               draws: list | None = None, source_outputs: list | None = None, other_shapes=()) -> LoweringRun:
    """Run ``passes`` on a checked source kernel; raise PassError naming the first bad pass.

    ``source_checks``: the source's checks at the real and the verification shapes, when the
    caller has them already (``checking.check_kernel`` does), so they are not done twice.
    ``draws``: the verification draws (``verify.make_draws``) to check each level on; by
    default ``trials`` of them are made here. ``source_outputs``: the source kernel's interpreter
    outputs on the first of those draws, when the caller has them (``CheckResult.outputs``).
    See :class:`PassChain` for how the levels are checked.
    """
    chain = PassChain(source, passes, task=task, shapes=shapes, chip=chip, trials=trials, seed=seed, assist=assist,
                      progress=progress, source_checks=source_checks, draws=draws, source_outputs=source_outputs,
                      other_shapes=other_shapes)
    chain.apply()
    return chain.verify()


def shape_envs(kernel: A.Kernel, shapes) -> tuple[dict, ...]:
    """The dims and attributes of ``kernel`` at each of ``shapes`` (``None`` entries skipped)."""
    envs = []
    for s in shapes:
        if s is not None:
            binding = bind(kernel, s)[0]
            envs.append({**binding.attrs, **binding.dims})
    return tuple(envs)


class PassChain:
    """The pass manager in two steps: :meth:`apply` makes every level (the passes, the printed and
    parsed artefacts, the static checks; no kernel runs), :meth:`verify` runs them with the
    interpreter. A caller may start other work between the two (``lower`` starts the simulator
    runs of the last level's AscendC kernel); the verdict and the error do not change.

    They are those of checking, pass after pass, every level against the one before it on every
    draw (in draw order), and raising the first failure, static or run-time; the runs are fewer.
    Every level is run on the first draw only. A level equal to the one before it (ignoring
    source positions) computes the same outputs and is not run. After the last pass, the last
    level is run on the other draws and compared with the source's outputs: when that passes,
    the lowering is accepted; when it fails, or when a pass fails on the first draw or statically,
    the levels up to there are run on the other draws too, to find the first pass that fails on
    any draw (or, for a last level that only drifted over several passes, to accept it as before).
    The one lowering judged otherwise: a level that is wrong on a later draw only, made right
    again by a later pass (the last level matches the source there, so it is accepted); the
    backend run verifies that last level's AscendC kernel under the full policy either way.
    """

    def __init__(self, source: A.Kernel, passes, *, task, shapes, chip, trials: int = PASS_TRIALS, seed: int = 0,
                 assist=None, progress=None, source_checks=None, draws=None, source_outputs=None,
                 other_shapes=()):
        from .verify import make_draws
        self.source, self.passes, self.task, self.shapes, self.chip = source, passes, task, shapes, chip
        # every shape set the kernel runs at besides the real one: the buffers must fit at each
        self.shape_envs = shape_envs(source, (shapes, *other_shapes))
        self.other_shapes = tuple(s for s in other_shapes if s is not None)
        self.assist, self.say = assist, reporter(progress)
        real_check, verification_check = source_checks or (check(source, bind(source, task.real)[0], chip), None)
        self.levels = [Level("source", source, print_kernel(source), real_check)]
        self.params = parameter_arrays(bind(source, shapes)[1], shapes)
        self.draws = draws if draws is not None else make_draws(shapes, trials=trials, seed=seed)
        self.inputs = [d.numpy_inputs for d in self.draws]
        self.runners: list[_LevelRunner | None] = [
            _LevelRunner(source, shapes, chip, self.params, verification_check or real_check)]
        # outputs[t][n]: level n's outputs on draw t, where computed (a None runner: level n - 1's)
        known = list(source_outputs or [])[:len(self.inputs)]
        self.outputs: list[dict] = [{0: known[t]} if t < len(known) else {} for t in range(len(self.inputs))]
        self.where = source.source or SourceFile(f"{source.name}.dsl", self.levels[0].text)
        self.failure: BaseException | None = None    # the static failure apply() stopped at
        self._later = [0] * len(self.inputs)        # on draw t >= 1: levels compared so far

    @property
    def final(self) -> Level:
        return self.levels[-1]

    def apply(self) -> None:
        """Every pass, statically, until one fails (kept in ``failure``, raised by :meth:`verify`)."""
        from ascendcraft.lowering_passes.base import PassContext, identifiers
        source_names = frozenset(identifiers(self.levels[0].kernel))
        for p in self.passes:
            before = self.levels[-1]
            self.say(f"pass {p.name}")
            try:
                ctx = PassContext(before.real, self.chip, self.assist, shape_envs=self.shape_envs,
                                  source_names=source_names)
                try:
                    kernel = apply_pass(p, before.kernel, ctx, self.source.source)
                except DSLError as err:   # spans are origins in the writer's file, at every level
                    raise PassError(p.name, "", before=before.text, after=None, cause=err.located(self.where)) from None
                text = print_kernel(kernel)
                if _PARSED.get(text) is None:
                    try:
                        parse(text, f"{kernel.name}.{p.name}.dsl")   # the artefact is a valid program too
                    except DSLError as err:
                        raise PassError(p.name, f"the program after this pass does not parse: {err.message}",
                                        before=before.text, after=text, ours=True) from None
                    _PARSED.put(text, True)
                same = kernel is before.kernel
                try:
                    real = before.real if same else check(kernel, bind(kernel, self.task.real)[0], self.chip)
                    # an equal program passed its verification-shape check, and runs as the level before;
                    # at the real shapes (a small op) the real check is the verification-shape one
                    runner = None if same else _LevelRunner(kernel, self.shapes, self.chip, self.params, real)
                except DSLError as err:
                    raise PassError(p.name, "its output program is invalid", before=before.text, after=text,
                                    ours=True, cause=err.located(self.where)) from None
            except Exception as err:   # noqa: BLE001 - raised by verify(), after the levels before it
                self.failure = err
                return
            self.runners.append(runner)
            self.levels.append(Level(p.name, kernel, text, real, list(ctx.notes)))
        try:
            self._fits_every_shape_set()
        except Exception as err:   # noqa: BLE001 - raised by verify(), after the levels are run
            self.failure = err

    def _fits_every_shape_set(self) -> None:
        """The last level checked at the other shape sets the kernel runs at (the verification shapes
        check every level already): its buffers, sized by the dims, must fit there too."""
        final = self.levels[-1]
        for shapes in self.other_shapes:
            try:
                check_at(final.kernel, bind(final.kernel, shapes)[0], self.chip, final.real)
            except DSLError as err:
                raise PassError(final.pass_name, f"its program does not hold at {shapes.shapes_text()}, a shape set "
                                f"the kernel is verified at:\n{err.located(self.where)}", before=final.text,
                                after=None) from None

    def verify(self, tick: Callable[[], None] | None = None) -> LoweringRun:
        """Run the levels (see the class docstring); ``tick`` is called between kernel runs."""
        self._tick = tick or (lambda: None)
        for t in range(len(self.inputs)):      # the source on every draw first, as the full check does
            self._out(t, 0)
        for n in range(1, len(self.levels)):
            if self.runners[n] is None or not self.inputs:
                continue
            failure = None
            try:
                self._out(0, n)
            except Exception as err:   # noqa: BLE001 - re-raised below
                failure = err
            if failure is not None:
                self._later_draws_up_to(n - 1)   # the full check fails at an earlier pass on another draw first
                raise failure
            try:
                self._judge(0, n, n - 1)
            except PassError as err:
                failure = err
            if failure is not None:
                self._later_draws_up_to(n - 1)
                for t in range(1, len(self.inputs)):   # the full check runs every draw at a level first
                    self._out(t, n)
                raise failure
        if self.failure is not None:
            self._later_draws_up_to(len(self.levels) - 1)
            raise self.failure
        last = len(self.levels) - 1
        if len(self.inputs) > 1 and last > 0:
            try:
                for t in range(1, len(self.inputs)):
                    self._out(t, last)
                for t in range(1, len(self.inputs)):
                    self._judge(t, last, 0)
                differs = False
            except Exception:   # noqa: BLE001 - found again, in order, below
                differs = True
            if differs:   # the last level differs from the source on another draw: the first pass that does
                self._later_draws_up_to(last)
        return LoweringRun(self.levels)

    def _out(self, t: int, n: int) -> list[np.ndarray]:
        """Level ``n``'s outputs on draw ``t`` (an equal level's are the previous level's)."""
        while self.runners[n] is None:
            n -= 1
        if n not in self.outputs[t]:
            self._tick()
            if n == 0:
                self.outputs[t][0] = self.runners[0].run(self.inputs[t])   # the source's errors are its own
                return self.outputs[t][0]
            try:
                self.outputs[t][n] = self.runners[n].run(self.inputs[t])
            except DSLError as err:   # said of the writer's expressions, not the names the passes made
                from ascendcraft.lowering_passes.base import in_writer_terms
                in_writer_terms(err, self.levels[n].kernel)
                raise PassError(self.levels[n].pass_name, "its output program is invalid",
                                before=self.levels[n - 1].text, after=self.levels[n].text, ours=True,
                                cause=err.located(self.where)) from None
        return self.outputs[t][n]

    def _judge(self, t: int, n: int, ref_level: int) -> None:
        """Level ``n`` against level ``ref_level`` on draw ``t``: PassError for pass ``n`` if it differs."""
        draw = self.draws[t]
        for i, (got, ref) in enumerate(zip(self._out(t, n), self._out(t, ref_level))):
            if _same_bits(got, ref):
                continue     # what compare() passes at once: every element written, identical
            res = compare(got, torch.from_numpy(np.array(ref, copy=True)), i)
            if not res.passed and res.n_unwritten == 0 and hasattr(draw, "magnitude"):
                # two float sums of the same terms in another order (a K loop of tile products
                # against one Matmul call, fit's tile sizes) differ by up to eps * sum|terms|, as verify allows
                from .compare import float_slack
                expected = torch.from_numpy(np.array(ref, copy=True))
                slack = float_slack(draw.magnitude(i), expected, res.dtype)
                if slack[0] is not None:
                    res = compare(got, expected, i, slack=slack)
            if not res.passed:
                worst = "; ".join(f"at {list(ix)} expected {e} got {g}" for ix, e, g in res.worst[:3])
                raise PassError(self.levels[n].pass_name, f"the program after this pass computes something else "
                                f"than the one before it (output {i}, trial seed {draw.seed}, {draw.label} inputs): "
                                f"{res.problem}" + (f"; {worst}" if worst else ""),
                                before=self.levels[n - 1].text, after=self.levels[n].text, ours=True)

    def _later_draws_up_to(self, last: int) -> None:
        """Levels 1..``last`` on the draws after the first, as the full check orders them: per
        level, every draw's run, then every draw's comparison with the level before."""
        for n in range(1, last + 1):
            if self.runners[n] is None:
                continue     # equal to the level before: the same outputs
            for t in range(1, len(self.inputs)):
                self._out(t, n)
            for t in range(1, len(self.inputs)):
                if self._later[t] < n:
                    self._judge(t, n, n - 1)
                    self._later[t] = n


#: Pass artefacts known to parse (parsing is a pure function of the text).
_PARSED = Memo(entries=256)


def _same_bits(got: np.ndarray, ref: np.ndarray) -> bool:
    """``got`` is bit for bit ``ref`` and holds no poison: compare() passes it without a doubt."""
    if got.shape != ref.shape or got.dtype != ref.dtype or not (got.flags.c_contiguous and ref.flags.c_contiguous):
        return False
    if got.dtype.kind == "f":
        unsigned = np.uint16 if got.itemsize == 2 else np.uint32 if got.itemsize == 4 else None
        if unsigned is None:
            return False
        bits = got.view(unsigned)
        if not np.array_equal(bits, ref.view(unsigned)):
            return False
        from .compare import POISON_BITS
        return not (bits == POISON_BITS["f16" if got.itemsize == 2 else "f32"]).any()
    if got.dtype.kind in "iu":
        return np.array_equal(got, ref)   # compare() counts the poison as unwritten only where ref differs
    return False
