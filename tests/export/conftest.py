"""Real runs for the export tests, made once per test session by the real pipeline: a gen run
and a ``bench --model`` run whose model is tests/llm's scripted provider (no network), and a
``bench --kernels`` run.

All are about one op, tests/data/tasks/leaky_relu.py (8 x 257), under three names: the gen run's
op is a renamed copy (``generated/leaky_relu_copy``), the bench runs have it as
``activation/leaky_relu`` (the given kernel right) and, with one comment line more (another hash),
as ``activation/leaky_wrong`` (the given kernel wrong: it fails at verify).
"""
from __future__ import annotations

import dataclasses
import fcntl
import importlib.util
import shutil
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS / "llm"))
import llm_replies as R  # noqa: E402  (tests/llm's canned replies)


def _scripted_class():
    """tests/llm's scripted litellm provider (its conftest is not a plugin of this folder)."""
    spec = importlib.util.spec_from_file_location("llm_test_fixtures", TESTS / "llm" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Scripted


@dataclass(frozen=True)
class Runs:
    gen: Path            # samples: 1 dies at verify (turn 1 parse, turn 2 verify), 2 verifies and is lowered
    gen_op: Path
    bench: Path          # --kernels: activation/leaky_relu correct, activation/leaky_wrong fails at verify
    bench_model: Path    # --model, activation/leaky_relu: sample 1 fails at verify, sample 2 is correct
    reference: Path      # the bench run's op files (reference/activation/*.py)
    wrong_kernel: str


@pytest.fixture(scope="session")
def runs(tmp_path_factory, worker_id) -> Runs:
    """Made once per test session: the first xdist worker makes them, the others wait and read them."""
    if worker_id == "master":
        return _make_runs(tmp_path_factory.mktemp("runs"))
    root = tmp_path_factory.getbasetemp().parent / "export_runs"
    with open(f"{root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "made").is_file():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            _make_runs(root)
            (root / "made").write_text("")
    return _runs_in(root)


def _runs_in(root: Path) -> Runs:
    return Runs(root / "gen_out", root / "ops" / "generated" / "leaky_relu_copy.py", root / "bench_out",
                root / "bench_model_out", root / "reference", R.KERNEL.replace("t * negative_slope", "t * 0.3"))


def _make_runs(root: Path) -> Runs:
    from ascendcraft.bench import run_bench
    from ascendcraft.bench.job import BenchOptions
    from ascendcraft.llm.command import save_generation
    from ascendcraft.llm.generate import generate
    from ascendcraft.lower import lower_checked
    runs = _runs_in(root)
    op_text = R.LEAKY_OP.read_text()
    runs.gen_op.parent.mkdir(parents=True)
    runs.gen_op.write_text(op_text)
    with _scripted_model(root, R.PARSE_ERROR, R.MISMATCH, R.GOOD):
        g = generate(runs.gen_op, model="scripted/coder", samples=2, best=True, turns=2, trials=1, backend="sim",
                     cache="off", after_verify=lambda checked: lower_checked(checked, backend="sim", trials=1))
    assert [s.verified for s in g.samples] == [False, True]
    save_generation(g, runs.gen, force=False)

    reference = runs.reference / "activation"
    reference.mkdir(parents=True)
    (reference / "leaky_relu.py").write_text(op_text)
    (reference / "leaky_wrong.py").write_text("# the same op, given a wrong kernel\n" + op_text)
    kernels = root / "kernels"
    kernels.mkdir()
    (kernels / "leaky_relu.dsl").write_text(R.KERNEL)
    (kernels / "leaky_wrong.dsl").write_text(runs.wrong_kernel)
    options = BenchOptions(backend="sim", trials=1)
    run_bench([str(reference)], kernels=kernels, out=runs.bench, options=options, jobs=2, timeout=300)
    # one worker, forked with the script: its two samples get the replies in turn
    with _scripted_model(root, R.MISMATCH, R.GOOD):
        run_bench([str(reference / "leaky_relu.py")], out=runs.bench_model, jobs=1, timeout=300,
                  options=dataclasses.replace(options, model="scripted/coder", samples=2, turns=1, cache="off"))
    return runs


@contextmanager
def _scripted_model(root: Path, *replies):
    """tests/llm's scripted provider answers ``scripted/...`` with ``replies``; no config of the developer's."""
    from ascendcraft.llm.client import load_litellm
    litellm = load_litellm()
    scripted = _scripted_class()().script(*replies)
    saved = {name: list(getattr(litellm, name)) for name in ("provider_list", "_custom_providers")}
    with pytest.MonkeyPatch.context() as mp:
        for var in ("ASCENDCRAFT_MODEL", "ASCENDCRAFT_API_BASE", "ASCENDCRAFT_CONFIG", "ASCENDCRAFT_LLM_CACHE"):
            mp.delenv(var, raising=False)
        mp.setenv("XDG_CONFIG_HOME", str(root / "config"))
        mp.chdir(root)
        mp.setattr(litellm, "custom_provider_map", [{"provider": "scripted", "custom_handler": scripted.handler}])
        try:
            yield
        finally:
            for name, items in saved.items():
                getattr(litellm, name)[:] = items


@pytest.fixture
def gen_without_op(runs, tmp_path) -> Path:
    """A copy of the gen run whose op file is gone (the report names a path that no longer exists)."""
    import json
    copy = tmp_path / "gen_copy"
    shutil.copytree(runs.gen, copy)
    report = json.loads((copy / "report.json").read_text())
    report["op"]["path"] = str(tmp_path / "moved" / "generated" / "leaky_relu_copy.py")
    (copy / "report.json").write_text(json.dumps(report))
    return copy
