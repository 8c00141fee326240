"""gen --optimize: after a kernel verifies, the model sees its modeled speed and may write a faster
one; the fastest verified kernel is kept (scripted model, the simulator backend)."""
import subprocess
import sys

import numpy as np
import pytest

import ascendcraft
from ascendcraft.errors import UserError
from ascendcraft.llm.generate import generate
from ascendcraft.speed import _idle, _waits
import llm_replies as R


def optimize(scripted, *replies, n=2):
    scripted.script(*replies)
    return ascendcraft.generate(R.LEAKY_OP, model="scripted/coder", trials=1, optimize=n)


def told(scripted, call):
    return scripted.calls[call]["messages"][-1]["content"]


def test_the_model_sees_its_speed_and_its_faster_kernel_is_kept(scripted):
    g = optimize(scripted, R.SLOW, R.GOOD, R.GOOD)
    assert g.verified and g.dsl == R.KERNEL
    assert len(scripted.calls) == 3        # the third reply sent the kernel unchanged: the loop stops
    first = told(scripted, 1)
    assert first.startswith("Your kernel verified. Now make it faster.")
    for fact in ("your kernel:", "modeled eager PyTorch:", "floor:", "bytes moved between GM and the cores",
                 "busy time of each pipe on the slowest core", "no pipe is busy",
                 "line 6: `t = load(x[r:r + 1, c:c + T])`: MTE2", "Longest waits", "```dsl block"):
        assert fact in first, fact
    second = told(scripted, 2)
    assert second.startswith("Your new kernel verified and is the fastest so far")
    s = g.report["samples"][0]
    slow_us, fast_us = (t["time_us"] for t in s["trajectory"][:2])
    assert fast_us < slow_us
    assert f"turn 1 {slow_us:,.1f} µs, turn 2 {fast_us:,.1f} µs (fastest)" in second
    assert s["best_turn"] == 2 and g.report["chosen"] == {"sample": 1, "turn": 2, "score": fast_us}
    assert [t["optimizing"] for t in s["trajectory"]] == [False, True, True]
    assert g.after.cost.time_us == fast_us            # the kept kernel's lowering, not the last one's
    from ascendcraft.llm.report import report_markdown, summary_text
    assert "### Sample 1: optimisation" in report_markdown(g.report)
    assert "the fastest of its verified kernels after 2 optimisation turn(s)" in summary_text(g.report)


def test_a_slower_or_failed_attempt_keeps_the_verified_kernel(scripted):
    g = optimize(scripted, R.GOOD, R.SLOW, R.PARSE_ERROR)
    assert g.verified and g.dsl == R.KERNEL and len(scripted.calls) == 3
    assert "not faster than your kernel of turn 1" in told(scripted, 2)
    s = g.report["samples"][0]
    assert s["stages"] == ["verified", "verified", "parse"] and s["best_turn"] == 1 and s["died_at"] is None
    assert g.report["chosen"]["turn"] == 1


def test_a_failed_attempt_is_told_the_best_kernel_is_kept(scripted):
    g = optimize(scripted, R.GOOD, R.CHECK_ERROR, R.GOOD, n=2)
    assert g.verified and len(scripted.calls) == 3
    msg = told(scripted, 2)
    assert "checker rejects it" in msg and "Your fastest verified kernel so far (turn 1," in msg


def test_optimize_needs_the_lowering(scripted, tmp_path):
    with pytest.raises(UserError, match="modeled time"):
        generate(R.LEAKY_OP, model="scripted/coder", optimize=1)
    with pytest.raises(UserError, match="non-negative"):
        generate(R.LEAKY_OP, model="scripted/coder", optimize=-1)
    assert scripted.calls == []
    run = subprocess.run([sys.executable, "-m", "ascendcraft", "gen", str(R.LEAKY_OP), "--model", "scripted/x",
                          "--optimize", "1", "--no-lower"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 2 and "--optimize needs the modeled time" in run.stderr
    run = subprocess.run([sys.executable, "-m", "ascendcraft", "bench", str(R.LEAKY_OP), "--kernels", str(tmp_path),
                          "--optimize", "1", "--out", str(tmp_path / "b")], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 2 and "--optimize asks a model" in run.stderr


def test_idle_time_and_waits_are_read_off_the_intervals():
    start, end = np.array([0.0, 1.0, 5.0, 2.0]), np.array([2.0, 3.0, 6.0, 4.0])
    names = np.array(["MTE2", "MTE2", "MTE2", "V"])
    line = np.array([3, 3, 4, 5])
    assert _idle(start, end) == 1.0                   # 4 to 5: nothing runs
    (w,) = _waits(start, end, names, line, "MTE2")   # MTE2's one gap: 3 to 5, V busy 3 to 4 in it
    assert (w.start_us, w.length_us, w.after, w.before, w.meanwhile) == (3.0, 2.0, 3, 4, (("V", 1.0),))


def test_bench_records_what_the_optimisation_gained(scripted, tmp_path):
    from ascendcraft.bench import run_bench
    from ascendcraft.bench.job import BenchOptions
    ref = tmp_path / "reference" / "activation"
    ref.mkdir(parents=True)
    (ref / "leaky_relu.py").write_text(R.LEAKY_OP.read_text())
    scripted.script(R.SLOW, R.GOOD)      # the task runs in a forked worker, which takes these two
    b = run_bench([str(tmp_path / "reference")], out=tmp_path / "out", jobs=1, timeout=300,
                  options=BenchOptions(model="scripted/coder", backend="sim", trials=1, optimize=1))
    (record,) = b.records
    (sample,) = record["samples"]
    assert sample["ended_at"] == "correct" and sample["best_turn"] == 2 and sample["optimization_turns"] == 1
    assert sample["first_verified_us"] > sample["kernel_us"] == record["kernel_us"]


def test_phases_are_the_instructions_between_barriers():
    from ascendcraft.sim.cost import PIPES
    from ascendcraft.sim.timeline import TR_BARRIER, TR_INSTR, TRACE_DTYPE, BlockTrace
    from ascendcraft.speed import _phases
    rows = [(0, 4, 3, TR_INSTR, "MTE2"), (4, 6, 4, TR_INSTR, "V"), (6, 9, 0, TR_BARRIER, "S"),   # phase 1, then wait
            (9, 19, 7, TR_INSTR, "V"), (12, 14, 8, TR_INSTR, "MTE3")]                           # phase 2
    r = np.zeros(len(rows), dtype=TRACE_DTYPE)
    for i, (s, e, ln, kind, pipe) in enumerate(rows):
        r[i]["start"], r[i]["end"], r[i]["line"], r[i]["kind"], r[i]["pipe"] = s, e, ln, kind, PIPES.index(pipe)
    found = _phases(BlockTrace(0, r), 1.0, {3: 30, 4: 40, 7: 70, 8: 80}, {0})
    assert found["phases"] == 2 and found["barrier_us"] == 3.0
    second, first = found["long_phases"]
    assert (second.index, second.start_us, second.length_us, second.lines, second.busiest) == (2, 9.0, 10.0, (70, 80),
                                                                                              (70, "V", 10.0))
    assert (first.index, first.length_us, first.lines, first.busiest) == (1, 6.0, (30, 40), (30, "MTE2", 4.0))


def test_a_provider_failure_during_optimisation_keeps_the_verified_kernel(scripted, fake_sleep):
    from ascendcraft.llm.client import LLMClient, load_litellm
    from ascendcraft.llm.config import ModelConfig
    from ascendcraft.lower import lower_checked
    litellm = load_litellm()
    auth = litellm.AuthenticationError(message="key revoked", llm_provider="scripted", model="m")
    scripted.script(R.GOOD, auth)
    g = generate(R.LEAKY_OP, client=LLMClient(ModelConfig("scripted/m"), sleep=fake_sleep), trials=1, optimize=2,
                 after_verify=lambda checked: lower_checked(checked, backend="sim", trials=1))
    assert g.verified and g.dsl == R.KERNEL and "key revoked" in g.report["stopped_early"]
    assert g.report["samples"][0]["stages"] == ["verified"]
