"""The fast paths of check and lower (benchmarks/toolchain_speed.py): caches that must never return
a stale result, fewer interpreter runs per pass with the same verdicts and errors, comparisons
and simulator runs in parallel with the same results."""
from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
import torch

from ascendcraft import compare as C
from ascendcraft.binding import bind, parameter_arrays
from ascendcraft.checking import check_kernel, load_kernel
from ascendcraft.chips import load_chip
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.checker import check
from ascendcraft.dsl.parser import parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.lower import default_passes
from ascendcraft.passes import PassError, _LevelRunner, apply_pass, run_passes
from ascendcraft.sim import runner as R
from ascendcraft.memo import clear_caches
from ascendcraft.task import load_task
from ascendcraft.verify import make_draws
from ascendcraft.lowering_passes.base import LoweringPass

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "tests" / "data" / "policy"
RELU = ("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
        "    for b in parallel(B):\n"
        "        store(y[b, :], relu(load(x[b, :])))\n")


@pytest.fixture(autouse=True)
def fresh_caches():
    clear_caches()
    yield
    clear_caches()


def _op(tmp_path, text=None, name="relu_rand"):
    path = tmp_path / "op.py"
    path.write_text(text if text is not None else (POLICY / f"{name}.py").read_text())
    return path


# --------------------------------------------------------------------------- caches

def test_a_task_is_reused_until_its_file_changes(tmp_path, monkeypatch):
    op = _op(tmp_path)
    a, b = load_task(op), load_task(str(op))
    assert a is b
    op.write_text(op.read_text().replace("dim = 1037", "dim = 1039"))
    c = load_task(op)
    assert c is not a and c.real.input_specs[0].shape == (19, 1039)
    monkeypatch.setenv("ASCENDCRAFT_NO_CACHE", "1")
    assert load_task(op) is not load_task(op)


def test_draws_are_reused_per_shape_set_and_arguments():
    task = load_task(POLICY / "relu_rand.py")
    shapes = task.shapes()
    said = []
    a = make_draws(shapes, trials=3, seed=5)
    b = make_draws(shapes, trials=3, seed=5, progress=said.append)
    assert [x is y for x, y in zip(a, b)] == [True] * 3 and a is not b
    assert said == [f"drawing trial {t}/3 inputs" for t in (1, 2, 3)]   # the progress lines, as drawn
    assert make_draws(shapes, trials=3, seed=6)[1] is not a[1]
    assert make_draws(shapes, trials=2, seed=5)[1] is not a[1]
    assert make_draws(shapes, trials=3, seed=5, inputs="op")[1] is not a[1]


def test_a_check_is_reused_for_the_same_kernel_op_and_options(tmp_path):
    op = _op(tmp_path)
    said1, said2 = [], []
    first = check_kernel(RELU, op, trials=2, progress=said1.append)
    again = check_kernel(RELU, op, trials=2, progress=said2.append)
    assert again is not first and again.report is first.report    # a copy of the kept result
    assert said1 == said2 and any("trial 2/2" in m for m in said1)  # the same progress lines
    assert first.passed


def test_a_check_is_done_again_when_kernel_op_or_options_change(tmp_path):
    op = _op(tmp_path)
    good = check_kernel(RELU, op, trials=2)
    wrong = RELU.replace("relu(load(x[b, :]))", "load(x[b, :])")
    assert not check_kernel(wrong, op, trials=2).passed              # the kernel's text
    edited = RELU + "# a comment\n"
    assert check_kernel(edited, op, trials=2).report is not good.report
    op.write_text(op.read_text().replace("torch.relu(x)", "torch.relu(x) * 2"))
    assert not check_kernel(RELU, op, trials=2).passed                # the op file's text
    op.write_text((POLICY / "relu_rand.py").read_text())
    for options in ({"trials": 3}, {"seed": 1}, {"other_shapes": False}, {"max_bytes": 1 << 20},
                    {"inputs": "op"}, {"chip": "910B2"}):
        assert check_kernel(RELU, op, **{"trials": 2, **options}).report is not good.report, options


def test_a_kernel_file_is_parsed_again_when_it_changes(tmp_path):
    k = tmp_path / "k.dsl"
    k.write_text(RELU)
    a = load_kernel(k)
    assert load_kernel(str(k)) is a
    k.write_text(RELU.replace("relu(", "abs("))
    assert load_kernel(k) is not a and "abs(" in print_kernel(load_kernel(k))


def test_a_failed_check_is_not_kept(tmp_path):
    op = _op(tmp_path)
    bad = RELU.replace("relu(", "no_such_op(")
    with pytest.raises(Exception):
        check_kernel(bad, op, trials=2)
    with pytest.raises(Exception):
        check_kernel(bad, op, trials=2)


# --------------------------------------------------------------------------- comparison

@pytest.mark.parametrize("case", range(60))
def test_the_finite_fast_path_gives_the_general_paths_result(case):
    rng = np.random.default_rng(case)
    shape = tuple(int(n) for n in rng.integers(1, 40, size=int(rng.integers(1, 4))))
    ref = rng.standard_normal(shape) * 10.0 ** int(rng.integers(-6, 4))
    got = ref + rng.standard_normal(shape) * 10.0 ** int(rng.integers(-9, 1))
    if case % 4 == 1:
        ref.reshape(-1)[0] = 0.0
    if case % 4 == 2:
        got.reshape(-1)[-1] = 1e6
    if case % 4 == 3:
        ref[...] = 0.0
    dtype = "f16" if case % 3 == 0 else "f32"
    with np.errstate(over="ignore"):       # 1e6 is inf in f16: the general path
        got = got.astype(np.float16 if dtype == "f16" else np.float32)
    slack = (np.abs(ref) * 1e-6, 1e-5) if case % 5 == 0 else (None, 0.0)
    fast = C.compare(got, torch.from_numpy(ref), 0, dtype=dtype, slack=slack)
    general = C._compare_general(got, ref, C.OutputResult(0, "output 0", shape, dtype, passed=False), slack)
    assert dataclasses.asdict(fast) == dataclasses.asdict(general)


# --------------------------------------------------------------------------- passes

SOFTMAX = ROOT / "examples" / "activation" / "softmax"


@dataclass(frozen=True)
class _Swap(LoweringPass):
    """A wrong pass: every call to ``old`` becomes ``new`` (at any level)."""

    old: str = "Exp"
    new: str = "Abs"
    name: str = "swap"

    def run(self, kernel, ctx):
        def fix(e):
            if isinstance(e, A.Call):
                return replace(e, func=self.new if e.func == self.old else e.func, args=tuple(fix(a) for a in e.args))
            if isinstance(e, A.Binary):
                return replace(e, lhs=fix(e.lhs), rhs=fix(e.rhs))
            return e

        def stmt(s):
            if isinstance(s, (A.Assign, A.Store)):
                return replace(s, value=fix(s.value))
            if isinstance(s, (A.For, A.ParallelFor)):
                return replace(s, body=tuple(stmt(b) for b in s.body))
            return s
        return replace(kernel, body=tuple(stmt(s) for s in kernel.body))


def _full_check(source, passes, task, shapes, chip, draws):
    """The pass manager as it was: every level run on every draw and compared with the level before."""
    from ascendcraft.lowering_passes.base import PassContext
    real = check(source, bind(source, task.real)[0], chip)
    params = parameter_arrays(bind(source, shapes)[1], shapes)
    inputs = [d.numpy_inputs for d in draws]
    before_kernel, before_real = source, real
    prev = [_LevelRunner(source, shapes, chip, params).run(x) for x in inputs]
    for p in passes:
        try:
            kernel = apply_pass(p, before_kernel, PassContext(before_real, chip, None), source.source)
        except Exception as err:
            return ("static", p.name, type(err).__name__)
        try:
            real = check(kernel, bind(kernel, task.real)[0], chip)
            outs = [_LevelRunner(kernel, shapes, chip, params).run(x) for x in inputs]
        except Exception as err:
            return ("invalid", p.name, type(err).__name__)
        for t, (new, old) in enumerate(zip(outs, prev)):
            for i, (got, ref) in enumerate(zip(new, old)):
                if not C.compare(got, torch.from_numpy(np.array(ref, copy=True)), i).passed:
                    return ("differs", p.name, draws[t].seed)
        before_kernel, before_real, prev = kernel, real, outs
    return None


def _fast(source, passes, task, shapes, chip, draws):
    try:
        run_passes(source, passes, task=task, shapes=shapes, chip=chip, draws=draws)
    except PassError as err:
        m = err.message
        kind = "differs" if "computes something else" in m else "invalid" if "invalid" in m else "static"
        seed = int(m.split("trial seed ")[1].split(",")[0]) if kind == "differs" else None
        return (kind, err.pass_name, seed) if kind == "differs" else (kind, err.pass_name, "DSLError")
    return None


def _chain(*inserts):
    """The default chain with (after_pass_name, pass) inserted."""
    chain = list(default_passes())
    for after, p in inserts:
        chain.insert([q.name for q in chain].index(after) + 1, p)
    return chain


LEAKY = ROOT / "examples" / "activation" / "leaky_relu"


@dataclass(frozen=True)
class _Refuse(LoweringPass):
    """A pass that refuses every kernel (statically)."""

    name: str = "refuse"

    def run(self, kernel, ctx):
        from ascendcraft.errors import DSLError
        raise DSLError("refused", kernel.span, kind="lowering error")


# relu_rand draws x in [0, 1): relu and abs agree on it, and differ on the signed draw (the second)
SCENARIOS = {
    "correct": (POLICY, ()),
    "signed draw only, DSL level": (POLICY, (("partition", _Swap(old="relu", new="abs", name="relu_to_abs")),)),
    "signed draw only, API level": (POLICY, (("select", _Swap(old="Relu", new="Abs", name="api_abs")),)),
    "every draw": (POLICY, (("partition", _Swap(old="relu", new="exp", name="relu_to_exp")),)),
    "signed draw only, then every draw": (POLICY, (("partition", _Swap(old="relu", new="abs", name="first")),
                                                   ("select", _Swap(old="Abs", new="Exp", name="second")))),
    "signed draw only, then a refusal": (POLICY, (("partition", _Swap(old="relu", new="abs", name="first")),
                                                  ("select", _Refuse()))),
    "softmax, every draw": (SOFTMAX, (("select", _Swap(old="Exp", new="Abs", name="exp_to_abs")),)),
    "softmax, correct": (SOFTMAX, ()),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_fewer_runs_name_the_same_pass_and_draw_as_running_every_level_on_every_draw(scenario):
    where, inserts = SCENARIOS[scenario]
    if where is POLICY:
        task, text = load_task(POLICY / "relu_rand.py"), RELU
    else:
        task, text = load_task(where / "op.py"), (where / "kernel.dsl").read_text()
    shapes = task.shapes()
    draws = make_draws(shapes, trials=2, seed=0)
    source = parse(text, "kernel.dsl")
    chip = load_chip("910B2")
    expected = _full_check(source, _chain(*inserts), task, shapes, chip, draws)
    assert _fast(source, _chain(*inserts), task, shapes, chip, draws) == expected
    if "signed draw only" in scenario:
        assert expected == ("differs", "relu_to_abs" if "DSL" in scenario else
                            "api_abs" if "API" in scenario else "first", 1)


def test_a_level_equal_to_the_one_before_is_not_run(monkeypatch):
    task = load_task(SOFTMAX / "op.py")
    runs = []
    real_run = _LevelRunner.run
    monkeypatch.setattr(_LevelRunner, "run", lambda self, x: runs.append(self.checked.kernel) or real_run(self, x))
    run = run_passes(parse((SOFTMAX / "kernel.dsl").read_text(), "k.dsl"), default_passes(), task=task,
                     shapes=task.shapes(), chip=load_chip("910B2"), trials=2)
    levels = run.levels
    changed = [n for n in range(1, len(levels)) if levels[n].kernel != levels[n - 1].kernel]
    assert levels[1].kernel == levels[0].kernel                 # cube leaves softmax alone
    # the source on both draws, every changed level on the first, the last level on the second
    assert len(runs) == 2 + len(changed) + 1


def test_a_pass_that_changes_nothing_gives_back_its_level_and_its_checks(monkeypatch):
    import ascendcraft.dsl.checker as C
    import ascendcraft.passes as P
    task = load_task(SOFTMAX / "op.py")
    checked = []
    real_check = C.check

    def counted(k, b, chip):
        checked.append((k, b))
        return real_check(k, b, chip)
    for module in (P, C):    # the pass chain's own checks and check_at's
        monkeypatch.setattr(module, "check", counted)
    run = run_passes(parse((SOFTMAX / "kernel.dsl").read_text(), "k.dsl"), default_passes(), task=task,
                     shapes=task.shapes(), chip=load_chip("910B2"), trials=1)
    levels = run.levels
    same = [n for n in range(1, len(levels)) if levels[n].kernel == levels[n - 1].kernel]
    assert same and all(levels[n].kernel is levels[n - 1].kernel and levels[n].real is levels[n - 1].real
                        for n in same)
    # each program is checked once at the real shapes (softmax's op is small: its verification shapes
    # are the real ones), however many levels it is
    at_real = [k for k, b in checked if b == levels[0].real.binding]
    assert len(at_real) == len({id(k) for k in at_real}) == len({id(lv.kernel) for lv in levels})


def test_collections_are_rarer_during_static_work_and_the_thresholds_come_back():
    import gc

    from ascendcraft.garbage import fewer_full_collections
    before = gc.get_threshold()
    with fewer_full_collections():
        inside = gc.get_threshold()
        with fewer_full_collections():
            assert gc.get_threshold() == inside
        assert gc.get_threshold() == inside
    assert gc.get_threshold() == before
    assert all(a >= b for a, b in zip(inside, before)) and inside[2] > before[2]
    with pytest.raises(RuntimeError):
        with fewer_full_collections():
            raise RuntimeError
    assert gc.get_threshold() == before


def test_a_loops_name_counts_are_its_statements_and_its_header():
    k = parse("kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
              "    for b in parallel(B):\n"
              "        for j in range(0, N, 8):\n"
              "            t = load(x[b, j:j + 8])\n"
              "            store(y[b, j:j + 8], t * t + t)\n", "k.dsl")
    loop = k.body[0]
    walked: dict = {}
    for n in A.walk(loop):
        if isinstance(n, A.Name):
            walked[n.id] = walked.get(n.id, 0) + 1
    assert A.name_counts(loop) == walked == {"B": 1, "N": 1, "x": 1, "b": 2, "j": 4, "y": 1, "t": 3}


# --------------------------------------------------------------------------- simulator runs

class _FakeRun(R.KernelRun):
    """A process that sleeps; its result says which run it was."""

    log: list = []

    def __init__(self, i, seconds):
        proc = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"], start_new_session=True)
        self.i, self.proc, self._result = i, proc, None
        _FakeRun.log.append(("start", i))

    def wait(self):
        self.proc.wait()
        _FakeRun.log.append(("done", self.i))
        return self.i

    def kill(self):
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        _FakeRun.log.append(("killed", self.i))


def test_a_run_queue_keeps_the_order_bounds_the_runs_and_raises_where_a_start_failed():
    _FakeRun.log = []

    def start(i):
        if i == 2:
            raise ValueError("cannot start run 2")
        return _FakeRun(i, 0.2)
    with R.RunQueue(parallel=2) as q:
        ids = [q.add(lambda i=i: start(i)) for i in range(4)]
        assert [e for e in _FakeRun.log if e[0] == "start"] == [("start", 0), ("start", 1)]   # two at a time
        assert q.result(ids[0]) == 0 and q.result(ids[1]) == 1
        with pytest.raises(ValueError, match="run 2"):
            q.result(ids[2])
        assert q.result(ids[3]) == 3
    assert [e for e in _FakeRun.log if e[0] == "done"] == [("done", 0), ("done", 1), ("done", 3)]


def test_leaving_a_run_queue_by_an_error_kills_the_runs_not_taken():
    _FakeRun.log = []
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with R.RunQueue(parallel=2) as q:
            for i in range(3):
                q.add(lambda i=i: _FakeRun(i, 30))
            raise KeyboardInterrupt
    assert time.monotonic() - t0 < 10
    assert sorted(e for e in _FakeRun.log if e[0] == "killed") == [("killed", 0), ("killed", 1)]


def test_lower_raises_a_failed_simulator_run_at_its_trial(monkeypatch):
    """A run that fails on the third draw fails lower the same way whether the runs go one after
    the other or together (the judge takes them in order)."""
    from ascendcraft.lower import KernelMismatch, lower
    from ascendcraft.sim import SimResult
    d = LEAKY
    real_start = R.start_kernel
    calls = []

    class Failed(R.KernelRun):
        def __init__(self, run):
            self.run, self.proc, self._result = run, run.proc, None

        def wait(self):
            self.run.wait()
            return SimResult(ok=False, outputs=[], diagnostics=[], cost=None, crash="SIGSEGV in block 3",
                             returncode=-11, sandboxed=True)

        def kill(self):
            self.run.kill()

    def start(*args, **kwargs):
        run = real_start(*args, **kwargs)
        calls.append(kwargs.get("cost_only", False))
        return Failed(run) if len(calls) == 3 else run
    monkeypatch.setattr(R, "start_kernel", start)
    said = []
    with pytest.raises(KernelMismatch, match="failed on the simulator") as info:
        lower(str(d / "kernel.dsl"), str(d / "op.py"), backend="sim", progress=said.append)
    assert "SIGSEGV in block 3" in info.value.message
    assert said[-1].startswith("trial 3/")               # judged in order: trials 1 and 2 passed first


def test_a_pass_that_fails_after_the_simulator_runs_started_stops_them(monkeypatch):
    """lower starts the AscendC kernel's simulator runs before the passes are verified; a pass
    found wrong then fails lower as before (stage lower, no backend verdict) and leaves no run."""
    import os
    import ascendcraft.lower as L
    from ascendcraft.sim.job import JOB_PREFIX, run_root
    started = []
    real_start = R.start_kernel

    def start(*args, **kwargs):
        started.append(1)
        return real_start(*args, **kwargs)
    monkeypatch.setattr(R, "start_kernel", start)
    monkeypatch.setattr(L, "default_passes", lambda: _chain(("select", _Swap(old="Relu", new="Abs", name="api_abs"))))
    op = POLICY / "relu_rand.py"
    said = []
    with pytest.raises(PassError) as info:
        L.lower(RELU, str(op), backend="sim", trials=2, progress=said.append)
    assert info.value.pass_name == "api_abs" and info.value.stage == "lower"
    assert started, "the runs were not started early (nothing to stop)"
    assert not any(m.startswith("compiling") or m.startswith("verifying the AscendC") for m in said)
    assert not list(Path(run_root()).glob(f"{JOB_PREFIX}{os.getpid()}.*"))
