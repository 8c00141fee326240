"""`ascendcraft bench`: the metrics by hand, the worker pool's limits, and --kernels runs end to end."""
import csv
import json
import os
import time
from pathlib import Path

import pytest

from ascendcraft.bench import run_bench
from ascendcraft.bench.job import BenchOptions
from ascendcraft.bench.metrics import STAGES, pass_at_k, stages_passed, summarise
from ascendcraft.bench.pool import run_pool
from ascendcraft.bench.tasks import BenchTask, find_tasks, kernel_for
from ascendcraft.cli import main
from ascendcraft.errors import UserError

TESTS = Path(__file__).resolve().parent.parent
LEAKY_OP = (TESTS / "data" / "tasks" / "leaky_relu.py").read_text()
LEAKY = """\
kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    for b in parallel(B):
        t = load(x[b, :])
        store(y[b, :], where(t >= 0.0, t, t * negative_slope))
"""
HANG_OP = """\
import time
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        time.sleep(600)      # a forward that never returns (it costs no CPU time)
        return x


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
"""
OPTS = BenchOptions(backend="sim", trials=2)


# -- metrics -----------------------------------------------------------------------------------

def test_pass_at_k_by_hand():
    assert pass_at_k(5, 2, 1) == pytest.approx(2 / 5)
    assert pass_at_k(5, 2, 3) == pytest.approx(1 - 1 / 10)      # 1 - C(3,3)/C(5,3)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)       # 1 - C(3,2)/C(4,2)
    assert pass_at_k(3, 0, 3) == 0.0 and pass_at_k(3, 3, 1) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def _record(task, category, ends, speedup=None, status="done"):
    samples = [{"ended_at": e} for e in ends]
    return {"task": task, "category": category, "status": status, "samples": samples,
            "correct": "correct" in ends, "speedup": speedup if "correct" in ends else None}


def test_summary_by_hand():
    records = [_record("a/x", "a", ["correct", "verify", "correct"], 2.5),
               _record("a/y", "a", ["compile", "parse", "correct"], 0.5),
               _record("b/z", "b", ["check", "lower", "extract"]),
               _record("b/w", "b", ["correct", "correct", "correct"], 1.2)]
    s = summarise(records, k=3)
    o = s["overall"]
    assert o["tasks"] == 4 and o["samples"] == 12 and o["correct_tasks"] == 3
    # stage rates over samples: a sample passed every stage before the one it ended at
    assert o["stages"]["parse"]["passed"] == 10          # all but "parse" and "extract"
    assert o["stages"]["check"]["passed"] == 9
    assert o["stages"]["verify"]["passed"] == 8 and o["stages"]["lower"]["passed"] == 7
    assert o["stages"]["compile"]["passed"] == 6
    assert o["stages"]["correct"]["passed"] == 6 and o["stages"]["correct"]["rate"] == pytest.approx(0.5)
    # pass@1 per task: 2/3, 1/3, 0, 1 -> mean 0.5; pass@3: 1, 1, 0, 1
    assert o["pass@1"] == pytest.approx(0.5) and o["pass@3"] == pytest.approx(0.75)
    assert o["fast_0"] == pytest.approx(0.75) and o["fast_1"] == pytest.approx(0.5)
    assert o["fast_1.5"] == pytest.approx(0.25) and o["fast_2"] == pytest.approx(0.25)
    assert o["geomean_speedup"] == pytest.approx((2.5 * 0.5 * 1.2) ** (1 / 3))
    assert s["categories"]["a"]["tasks"] == 2 and s["categories"]["b"]["pass@1"] == pytest.approx(0.5)
    assert stages_passed("correct") == STAGES and stages_passed("verify") == ("parse", "check")


def test_samples_a_bug_of_ours_stopped_are_counted_apart_never_as_the_kernels_failure():
    ours = {"ended_at": "lower", "stopped_by_us": True, "error": "internal error: KeyError: 'att'"}
    records = [_record("a/x", "a", ["correct", "lower"]), {**_record("a/y", "a", []), "samples": [ours]}]
    o = summarise(records, k=1)["overall"]
    assert o["stopped_by_us"] == 1 and o["samples"] == 3
    # the two samples the tool did not stop: one correct, one the kernel's own failure at lower
    assert o["stages"]["verify"]["passed"] == 2 and o["stages"]["lower"]["rate"] == pytest.approx(0.5)
    assert o["pass@1"] == pytest.approx(0.25) and o["correct_tasks"] == 1    # a stopped sample is not correct
    from ascendcraft.bench.report import markdown
    text = markdown(records, summarise(records, k=1), {"kernels": "k", "backend": "sim", "chip": "910B2",
                                                      "trials": 2, "inputs": "adversarial"})
    assert "## Stopped by a bug of ascendcraft" in text and "KeyError: 'att'" in text
    assert "| a/y | stopped by a bug of ascendcraft (did not lower) |" in text
    assert "## Failures" not in text            # a/y's line is in its own section, a/x is correct


# -- tasks -------------------------------------------------------------------------------------

def test_task_layouts(tmp_path):
    (tmp_path / "reference" / "activation").mkdir(parents=True)
    (tmp_path / "reference" / "activation" / "leaky_relu.py").write_text(LEAKY_OP)
    (tmp_path / "mine" / "loss" / "huber").mkdir(parents=True)
    (tmp_path / "mine" / "loss" / "huber" / "op.py").write_text(LEAKY_OP)
    tasks = find_tasks([str(tmp_path / "reference"), str(tmp_path / "mine")])
    assert [t.id for t in tasks] == ["activation/leaky_relu", "loss/huber"]
    k = tmp_path / "k"
    (k / "loss" / "huber").mkdir(parents=True)
    (k / "leaky_relu.dsl").write_text(LEAKY)
    (k / "loss" / "huber" / "kernel.dsl").write_text(LEAKY)
    assert kernel_for(tasks[0], k) == k / "leaky_relu.dsl"
    assert kernel_for(tasks[1], k) == k / "loss" / "huber" / "kernel.dsl"
    with pytest.raises(UserError, match="no op files"):
        find_tasks([str(k)])


# -- the worker pool ---------------------------------------------------------------------------

def _pool(tasks, work, **kw):
    done = []
    run_pool(tasks, work, jobs=2, on_done=done.append, **kw)
    return {r["task"]: r for r in done}


def test_pool_cuts_off_a_hang_and_records_a_crash(tmp_path):
    tasks = [BenchTask(tmp_path / f"{n}.py", "c", n) for n in ("ok", "hang", "crash", "raises")]

    def work(task, send):
        send({"stage": "verifying on reduced shapes", "at": "verify"})
        if task.name == "hang":
            time.sleep(600)
        if task.name == "crash":
            os._exit(7)               # as an op file that ends the process would
        if task.name == "raises":
            raise RuntimeError("a bug")
        return {"task": task.id, "category": "c", "status": "done", "samples": [{"ended_at": "correct"}],
                "correct": True}
    started = time.monotonic()
    got = _pool(tasks, work, timeout=3.0, samples=2)
    assert time.monotonic() - started < 60
    assert got["c/ok"]["correct"] and got["c/ok"]["status"] == "done"
    hang = got["c/hang"]
    assert hang["status"] == "timeout" and "cut off after 3 s" in hang["error"]["message"]
    assert [s["ended_at"] for s in hang["samples"]] == ["verify", "verify"]   # counted where it was
    assert got["c/crash"]["status"] == "crashed" and "exit status 7" in got["c/crash"]["error"]["message"]
    assert got["c/raises"]["status"] == "crashed" and "RuntimeError: a bug" in got["c/raises"]["error"]["message"]


# -- bench --kernels end to end ------------------------------------------------------------------

@pytest.fixture
def suite(tmp_path):
    """Three tasks: a right kernel, a wrong one, one with no kernel, and a hanging op (no kernel)."""
    ref = tmp_path / "reference"
    for cat, name, text in (("activation", "leaky_relu", LEAKY_OP), ("activation", "leaky_wrong", LEAKY_OP),
                            ("math", "no_kernel", LEAKY_OP), ("math", "hang", HANG_OP)):
        (ref / cat).mkdir(parents=True, exist_ok=True)
        (ref / cat / f"{name}.py").write_text(text)
    k = tmp_path / "kernels"
    k.mkdir()
    (k / "leaky_relu.dsl").write_text(LEAKY)
    (k / "leaky_wrong.dsl").write_text(LEAKY.replace("t * negative_slope", "t * 0.3"))
    (k / "hang.dsl").write_text(LEAKY)
    return ref, k


def test_bench_kernels_table_adds_up_and_resumes(suite, tmp_path):
    ref, k = suite
    out = tmp_path / "out"
    first = run_bench([str(ref / "activation"), str(ref / "math" / "no_kernel.py")], kernels=k, out=out,
                      options=OPTS, jobs=2, timeout=300)
    by = {r["task"]: r for r in first.records}
    assert set(by) == {"activation/leaky_relu", "activation/leaky_wrong", "math/no_kernel"}
    good = by["activation/leaky_relu"]
    assert good["correct"] and good["samples"][0]["ended_at"] == "correct"
    assert good["kernel_us"] > 0 and good["eager"]["time_us"] > 0
    assert good["speedup"] == pytest.approx(good["eager"]["time_us"] / good["kernel_us"])
    assert (out / "tasks" / "activation" / "leaky_relu" / "report.md").is_file()
    wrong = by["activation/leaky_wrong"]
    assert not wrong["correct"] and wrong["samples"][0]["ended_at"] == "verify"
    assert "failed at verify" in (out / "tasks" / "activation" / "leaky_wrong" / "report.md").read_text()
    assert by["math/no_kernel"]["samples"][0]["ended_at"] == "parse"
    o = first.summary["overall"]
    assert o["tasks"] == 3 and o["correct_tasks"] == 1 and o["pass@1"] == pytest.approx(1 / 3)
    assert [o["stages"][s]["passed"] for s in STAGES] == [2, 2, 1, 1, 1, 1]
    assert sum(c["tasks"] for c in first.summary["categories"].values()) == 3
    # the files agree with the records
    data = json.loads((out / "bench.json").read_text())
    assert len(data["tasks"]) == 3 and data["summary"] == json.loads(json.dumps(first.summary))
    rows = list(csv.DictReader((out / "bench.csv").open()))
    assert [r["task"] for r in rows] == [t["task"] for t in data["tasks"]]
    assert (out / "bench.png").stat().st_size > 0 and "| **overall** | 3 |" in (out / "bench.md").read_text()
    _links_resolve_and_the_sandbox_is_stated_once(out)

    # resume: the three finished tasks are not run again; the new one is
    before = (out / "results.jsonl").read_text()
    again = run_bench([str(ref / "activation"), str(ref / "math" / "no_kernel.py"), str(ref / "math" / "hang.py")],
                      kernels=k, out=out, options=OPTS, jobs=2, timeout=8, resume=True)
    assert again.ran == 1
    assert (out / "results.jsonl").read_text().startswith(before)
    hang = {r["task"]: r for r in again.records}["math/hang"]
    assert hang["status"] == "timeout" and hang["samples"][0]["ended_at"] in ("parse", "check")
    assert again.summary["overall"]["tasks"] == 4 and again.summary["overall"]["timed_out"] == 1
    _links_resolve_and_the_sandbox_is_stated_once(out)

    # an existing run is never started again by accident, nor resumed with other settings
    with pytest.raises(UserError, match="holds a bench run"):
        run_bench([str(ref / "activation")], kernels=k, out=out, options=OPTS, jobs=1)
    with pytest.raises(UserError, match="cannot resume.*trials"):
        run_bench([str(ref / "activation")], kernels=k, out=out, options=BenchOptions(backend="sim", trials=3),
                  jobs=1, resume=True)


def _links_resolve_and_the_sandbox_is_stated_once(out: Path) -> None:
    import re

    from ascendcraft.sim.build import sandbox_support
    md = (out / "bench.md").read_text()
    links = re.findall(r"\]\((tasks/[^)]+)\)", md)
    assert links and all((out / link).is_file() for link in links), md
    said = "Kernels ran in the simulator's seccomp sandbox." if sandbox_support()[0] else "NOT SANDBOXED"
    assert md.count(said) == 1


def test_bench_never_writes_into_a_users_folder(tmp_path, suite):
    ref, k = suite
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(UserError, match="not made by ascendcraft"):
        run_bench([str(ref / "activation")], kernels=k, out=mine, options=OPTS, jobs=1)
    assert os.listdir(mine) == ["notes.txt"]


def test_cli_bench(tmp_path, suite, capsys):
    ref, k = suite
    out = tmp_path / "cli"
    code = main(["bench", str(ref / "activation" / "leaky_relu.py"), "--kernels", str(k), "--out", str(out),
                 "--backend", "sim", "--trials", "2", "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    got = doc["result"]
    assert doc["status"] == "done" and got["summary"]["overall"]["correct_tasks"] == 1
    assert Path(got["files"]["md"]).is_file()
    assert main(["bench", str(ref), "--out", str(tmp_path / "x"), "--kernels", str(tmp_path / "none")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_bench_over_bundled_examples(tmp_path):
    """`bench <folders> --kernels examples`: the repository's layout (examples/<category>/<op>/
    kernel.dsl), one example of each category (every example is the campaign of
    benchmarks/verify_bench.py --lower), every task correct, and the table's counts add up."""
    examples = TESTS.parent / "examples"
    categories = sorted({k.parent.parent.name for k in examples.glob("*/*/kernel.dsl")})
    chosen = [sorted(examples.glob(f"{c}/*/kernel.dsl"))[0].parent for c in categories]
    chosen.append(examples / "optimizer" / "sgd")       # eager's launches, counted below
    b = run_bench([str(d) for d in chosen], kernels=examples, out=tmp_path / "b", options=OPTS, jobs=2, timeout=600)
    assert len(b.records) == len(chosen) >= 15
    assert all(r["correct"] and r["kernel"].endswith("kernel.dsl") for r in b.records), \
        [(r["task"], r.get("error") or r["samples"]) for r in b.records if not r["correct"]]
    o = b.summary["overall"]
    assert o["tasks"] == o["correct_tasks"] == o["samples"] == len(chosen) and o["pass@1"] == 1.0
    assert all(o["stages"][s]["passed"] == len(chosen) for s in STAGES)
    assert sorted(b.summary["categories"]) == categories
    assert sum(c["tasks"] for c in b.summary["categories"].values()) == len(chosen)
    assert o["fast_0"] == 1.0 and 0 < o["fast_1"] < 1       # some beat eager's bound, some do not
    sgd = {r["task"]: r for r in b.records}["optimizer/sgd"]
    assert sgd["eager"]["launches"] == 4 and sgd["speedup"] > 1     # eager: mul, add, mul, sub
