"""`ascendcraft bench` against faults from outside the kernel: an op file that signals bench, a
worker killed by another process, a full disk (docs/reliability.md, "bench and outside faults")."""
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ascendcraft.bench import run_bench
from ascendcraft.bench.job import BenchOptions
from ascendcraft.bench.metrics import summarise
from ascendcraft.bench.report import markdown, not_run_sentence

TESTS = Path(__file__).resolve().parent.parent
LEAKY_OP = (TESTS / "data" / "tasks" / "leaky_relu.py").read_text()
FORWARD = "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
LEAKY = """\
kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    for b in parallel(B):
        t = load(x[b, :])
        store(y[b, :], where(t >= 0.0, t, t * negative_slope))
"""
OPTS = BenchOptions(backend="sim", trials=2)


def _op(first_lines: str) -> str:
    """The leaky_relu op file with ``first_lines`` (Python, 8-space indented) run first in forward()."""
    assert FORWARD in LEAKY_OP
    return "import os\nimport signal\nimport time\n" + LEAKY_OP.replace(FORWARD, FORWARD + first_lines + "\n")


def _suite(root: Path, ops: dict[str, str], kernel: str = LEAKY) -> tuple[Path, Path]:
    """Op files ``reference/a/<name>.py`` and, for each, the kernel ``kernels/<name>.dsl``."""
    ref, kernels = root / "reference", root / "kernels"
    (ref / "a").mkdir(parents=True)
    kernels.mkdir()
    for name, text in ops.items():
        (ref / "a" / f"{name}.py").write_text(text)
        (kernels / f"{name}.dsl").write_text(kernel)
    return ref, kernels


def _cli(ref: Path, kernels: Path, out: Path) -> list[str]:
    """`ascendcraft bench` as a user runs it: the command, its worker (the bench), bench's workers."""
    return [sys.executable, "-m", "ascendcraft", "bench", str(ref), "--kernels", str(kernels), "--out", str(out),
            "--backend", "sim", "--trials", "2", "--jobs", "2", "--json"]


def _records(out: Path) -> dict[str, dict]:
    """results.jsonl, the last record of each task."""
    lines = (out / "results.jsonl").read_text().splitlines()
    return {r["task"]: r for r in map(json.loads, lines)}


# -- an op file that signals its parent, which it takes for bench ---------------------------------

def test_an_op_file_that_signals_bench_ends_only_its_own_task(tmp_path):
    sent = ("SIGTERM", "SIGINT", "SIGHUP", "SIGKILL")
    ops = {name.lower(): _op(f"        os.kill(os.getppid(), signal.{name})") for name in sent}
    ref, kernels = _suite(tmp_path, {**ops, "good": LEAKY_OP})
    out = tmp_path / "out"
    run = subprocess.run(_cli(ref, kernels, out), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr          # without the fix: the command's worker, bench, died
    assert "Traceback" not in run.stderr
    assert json.loads(run.stdout)["result"]["summary"]["overall"]["correct_tasks"] == 1
    got = _records(out)
    assert got["a/good"]["correct"]                 # the others went on
    for name in sent:
        r = got[f"a/{name.lower()}"]
        assert r["status"] == "crashed" and not r["correct"] and "outside" not in r, r
        assert f"the op file sent signal {name} to its parent process" in r["error"]["message"]
    assert "the op file sent signal SIGTERM" in (out / "bench.md").read_text()


# -- the pool's verdicts, with tasks that are plain functions ----------------------------------------

def _signal_from_another_process(pid: int, signum: int) -> None:
    """``signum`` to ``pid`` from a fresh process in a session of its own, as a user's kill would."""
    subprocess.run([sys.executable, "-c", f"import os; os.kill({pid}, {int(signum)})"], start_new_session=True,
                   check=True)


def test_the_pool_tells_the_op_files_own_signals_from_outside_ones(tmp_path):
    from ascendcraft.bench.pool import run_pool
    from ascendcraft.bench.tasks import BenchTask
    actions = {
        "kill_parent": lambda: os.kill(os.getppid(), signal.SIGKILL),
        "kill_self": lambda: os.kill(os.getpid(), signal.SIGKILL),
        "term_group": lambda: os.kill(0, signal.SIGTERM),
        "usr1_parent": lambda: os.kill(os.getppid(), signal.SIGUSR1),
        "oom": lambda: _signal_from_another_process(os.getpid(), signal.SIGKILL),        # unannounced
        "user_term": lambda: _signal_from_another_process(os.getppid(), signal.SIGTERM),
        "full": lambda: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device", "x")),
    }

    def work(task, send):
        send({"stage": "verifying on reduced shapes", "at": "verify"})
        actions[task.name]()
        time.sleep(30)        # what the signal did not stop, the pool's limit does (and the test fails)
    done = []
    run_pool([BenchTask(tmp_path / f"{n}.py", "c", n) for n in actions], work, jobs=2, timeout=20,
             on_done=done.append)
    got = {r["task"].split("/")[1]: r for r in done}
    assert len(got) == len(actions) and all(r["status"] == "crashed" for r in got.values()), got
    said = {name: got[name]["error"]["message"] for name in got}
    assert "the op file sent signal SIGKILL to its parent process" in said["kill_parent"]
    assert "the op file sent signal SIGKILL to itself" in said["kill_self"]
    assert "the op file sent signal SIGTERM to its process group" in said["term_group"]
    assert "the op file sent signal SIGUSR1 to its parent process" in said["usr1_parent"]
    assert not any(got[n].get("outside") for n in ("kill_parent", "kill_self", "term_group", "usr1_parent"))
    assert got["oom"]["outside"].startswith("killed from outside: SIGKILL that bench did not send")
    assert got["user_term"]["outside"].startswith("killed from outside: SIGTERM from process ")
    assert got["full"]["outside"].startswith("disk full: ") and "No space left" in said["full"]
    assert all(r["samples"] == [{"ended_at": "verify", "error": r["error"]["message"]}] for r in got.values())


# -- a worker killed from outside ---------------------------------------------------------------

def _waiting_op(pid_file: Path, flag: Path, whose: str) -> str:
    """An op whose forward() writes the pid of ``whose`` ("os.getpid()": the op's own process, or
    "os.getppid()": its worker) and waits, until ``flag`` exists."""
    return _op(f"        if not os.path.exists({str(flag)!r}):\n"
               f"            with open({str(pid_file)!r} + '.tmp', 'w') as f:\n"
               f"                f.write(str({whose}))\n"
               f"            os.replace({str(pid_file)!r} + '.tmp', {str(pid_file)!r})\n"
               f"            time.sleep(300)")


def _pid_when_written(path: Path, run: subprocess.Popen) -> int:
    deadline = time.monotonic() + 300
    while not path.exists():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.1)
    return int(path.read_text())


def test_a_worker_killed_from_outside_is_not_the_tasks_failure_and_resume_runs_it_again(tmp_path):
    flag = tmp_path / "let_it_run"
    ops = {"task_killed": _waiting_op(tmp_path / "task.pid", flag, "os.getpid()"),
           "worker_killed": _waiting_op(tmp_path / "worker.pid", flag, "os.getppid()")}
    ref, kernels = _suite(tmp_path, ops)
    out = tmp_path / "out"
    run = subprocess.Popen(_cli(ref, kernels, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for name in ("task", "worker"):          # as the OOM killer or a user's kill -9 would
            os.kill(_pid_when_written(tmp_path / f"{name}.pid", run), signal.SIGKILL)
        stdout, stderr = run.communicate(timeout=300)
    finally:
        run.kill()
    assert run.returncode == 0, stderr
    got = _records(out)
    for task in ("a/task_killed", "a/worker_killed"):
        assert got[task]["outside"].startswith("killed from outside: SIGKILL"), got[task]
        assert "the OOM killer" in got[task]["error"]["message"]
    o = json.loads(stdout)["result"]["summary"]["overall"]
    assert o["not_run"] == 2 and o["outside"] == {"killed from outside": 2} and o["crashed"] == 0
    md = (out / "bench.md").read_text()
    assert "## Not run: outside faults" in md and "## Failures" not in md

    flag.touch()                                 # resume: both run again, and now pass
    again = run_bench([str(ref)], kernels=str(kernels), out=out, options=OPTS, jobs=2, timeout=300, resume=True)
    assert again.ran == 2 and all(r["correct"] for r in again.records)
    assert len((out / "results.jsonl").read_text().splitlines()) == 4      # the last record of a task counts
    assert again.summary["overall"]["not_run"] == 0 and again.summary["overall"]["correct_tasks"] == 2


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def test_ctrl_c_still_stops_bench_and_every_process_it_started(tmp_path):
    ref, kernels = _suite(tmp_path, {"waits": _waiting_op(tmp_path / "task.pid", tmp_path / "never", "os.getpid()")})
    run = subprocess.Popen(_cli(ref, kernels, tmp_path / "out"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        task = _pid_when_written(tmp_path / "task.pid", run)
        os.killpg(run.pid, signal.SIGINT)       # the terminal's Ctrl-C: to the foreground process group
        _, stderr = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 130 and "interrupted" in stderr
    deadline = time.monotonic() + 10
    while not _gone(task):
        assert time.monotonic() < deadline, "the task's process outlived bench"
        time.sleep(0.1)


# -- a full disk --------------------------------------------------------------------------------

def _mounted_tmpfs(folder: Path, size: str) -> bool:
    try:
        return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                              capture_output=True).returncode == 0
    except OSError:              # no mount command
        return False


@pytest.fixture
def small_disk(tmp_path, monkeypatch):
    """``(folder, make_room)``: a folder whose disk has room for a failed task's small folder and
    bench's tables, not for a verified kernel's folder (about 340 KiB): a 256 KiB tmpfs where one
    can be mounted (as root), else ENOSPC raised where the folders of tasks ``second`` and
    ``third`` are written."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if _mounted_tmpfs(disk, "256k"):
        try:
            yield disk, lambda: subprocess.run(["mount", "-o", "remount,size=16m", str(disk)], check=True)
        finally:
            subprocess.run(["umount", "-l", str(disk)])
        return
    from ascendcraft import outdir
    room, real = tmp_path / "room", outdir.write_marker

    def full(directory: Path, kind: str) -> None:
        if not room.exists() and directory.name.startswith((".second.", ".third.")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(directory / ".ascendcraft"))
        real(directory, kind)
    monkeypatch.setattr(outdir, "write_marker", full)     # the workers are forked: they inherit it
    yield disk, room.touch


def test_a_full_disk_is_an_outside_fault_the_table_agrees_with_the_headline_and_resume_runs_it(
        tmp_path, small_disk):
    disk, make_room = small_disk
    ref, kernels = _suite(tmp_path, {"first": LEAKY_OP, "second": LEAKY_OP, "third": LEAKY_OP})
    (kernels / "first.dsl").write_text(LEAKY.replace("t * negative_slope", "t * 0.3"))   # wrong: a small folder
    out = disk / "bench"
    b = run_bench([str(ref)], kernels=str(kernels), out=out, options=OPTS, jobs=1, timeout=300)
    by = {r["task"]: r for r in b.records}
    assert not by["a/first"].get("outside") and by["a/first"]["samples"][0]["ended_at"] == "verify"
    for task in ("a/second", "a/third"):        # verified, then their folders did not fit
        assert by[task]["outside"].startswith("disk full: cannot write the output directory"), by[task]
        assert "No space left on device" in by[task]["outside"]
    o = b.summary["overall"]
    assert o["tasks"] == 3 and o["correct_tasks"] == 0 and o["not_run"] == 2 and o["outside"] == {"disk full": 2}
    # one set of counts: every rate has the 3 tasks in its denominator (was: "correct" 67 %, 0 of 3)
    assert o["stages"]["correct"]["rate"] == o["correct_tasks"] / o["tasks"] == o["pass@1"] == 0
    assert o["stages"]["parse"]["rate"] == pytest.approx(1 / 3) and o["errors"] == 0
    md = (out / "bench.md").read_text()
    assert md.startswith("# ascendcraft bench: 3 tasks, 0 correct; 2 not run for outside reasons (disk full): "
                         "rerun with --resume\n")
    overall = next(line for line in md.splitlines() if line.startswith("| **overall** |"))
    assert overall.startswith("| **overall** | 3 | 33% | 33% | 0% | 0% | 0% | 0% | 0% |")    # parse ... pass@1
    assert overall.endswith("| 0 | 2 |")          # stopped by ascendcraft, not run (outside)
    assert "| a/second | not run: disk full (outside fault) |" in md
    assert not list(out.glob(".*.tmp*")) and not list((out / "tasks" / "a").glob(".*partial*"))

    make_room()
    again = run_bench([str(ref)], kernels=str(kernels), out=out, options=OPTS, jobs=1, timeout=300, resume=True)
    assert again.ran == 2
    o = again.summary["overall"]
    assert o["correct_tasks"] == 2 and o["not_run"] == 0 and o["stages"]["correct"]["rate"] == pytest.approx(2 / 3)
    assert (out / "bench.md").read_text().startswith("# ascendcraft bench: 3 tasks, 2 correct\n")


# -- the counts by hand ---------------------------------------------------------------------------

def test_tasks_not_run_count_in_every_denominator_and_apart_from_failures():
    def rec(task, ends, **kw):
        return {"task": task, "category": "a", "status": "done", "samples": [{"ended_at": e} for e in ends],
                "correct": "correct" in ends, **kw}
    records = [rec("a/ok", ["correct", "verify"], speedup=2.0), rec("a/wrong", ["verify", "verify"]),
               rec("a/full", ["correct", "correct"], status="error", correct=False, outside="disk full: no room"),
               rec("a/oom", ["lower", "lower"], status="crashed", outside="killed from outside: SIGKILL")]
    o = summarise(records, k=2)["overall"]
    assert o["tasks"] == 4 and o["not_run"] == 2 and o["samples"] == 8
    assert o["outside"] == {"disk full": 1, "killed from outside": 1}
    assert o["crashed"] == o["errors"] == 0 and o["finished"] == 2
    # 8 samples counted: the not-run tasks' 4 passed nothing (their own "correct" samples are no evidence)
    assert o["stages"]["correct"] == {"passed": 1, "rate": pytest.approx(1 / 8)}
    assert o["stages"]["check"] == {"passed": 4, "rate": pytest.approx(4 / 8)}
    assert o["pass@1"] == pytest.approx(0.5 / 4) and o["fast_0"] == pytest.approx(1 / 4)
    assert not_run_sentence(o) == ("2 not run for outside reasons (1 disk full, 1 killed from outside): "
                                   "rerun with --resume")
    text = markdown(records, summarise(records, k=2), {"kernels": "k", "backend": "sim", "chip": "910B2",
                                                       "trials": 2, "inputs": "adversarial"})
    not_run, failures = text.split("## Not run: outside faults")[1].split("## Failures")
    assert "a/full**: disk full: no room" in not_run and "a/oom" in not_run and "a/wrong" in failures
    assert "a/full" not in failures and "a/oom" not in failures


def test_a_record_that_does_not_fit_in_results_jsonl_is_cut_back_and_run_again_on_resume(tmp_path, monkeypatch):
    from ascendcraft import bench
    results = tmp_path / "results.jsonl"
    results.write_text('{"task": "a/x"}\n')
    real = os.write

    def fills_the_disk(fd, data):            # part of the line lands, then the disk is full
        real(fd, bytes(data[:10]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    record = {"task": "a/y", "correct": True}
    with monkeypatch.context() as m:
        m.setattr(os, "write", fills_the_disk)
        bench._append(results, record)
    assert results.read_text() == '{"task": "a/x"}\n'          # the half line is gone
    assert record["outside"].startswith("disk full: cannot add the task's record to ")
