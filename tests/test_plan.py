"""check shows the buffer plan the lowering will use, and the lowering's refusals, located."""
from __future__ import annotations

import json
from pathlib import Path

from ascendcraft.checking import check_kernel
from ascendcraft.cli import main

SOFTMAX = Path(__file__).resolve().parents[1] / "examples" / "activation" / "softmax"


def _softmax_with_tile(tmp_path, tile: int) -> Path:
    k = tmp_path / "k.dsl"
    k.write_text((SOFTMAX / "kernel.dsl").read_text().replace("const T = 8192", f"const T = {tile}"))
    return k


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_the_plan_names_each_queue_its_slots_and_the_lines_it_serves():
    r = check_kernel(SOFTMAX / "kernel.dsl", SOFTMAX / "op.py", trials=1, other_shapes=False, plan=True)
    plan = r.plan
    assert plan.refused is None and not plan.single_buffered
    queues = {b.name: b for b in plan.buffers if b.space == "vecin"}
    first_load = _line_of(SOFTMAX / "kernel.dsl", "t = load(x[b, j:j + T])")
    assert any(first_load in q.lines and q.depth == 2 for q in queues.values())
    assert plan.ub_bytes == sum(b.bytes for b in plan.buffers) <= plan.ub_capacity
    assert "double-buffered" in r.summary() and f"line {first_load}" in r.summary()


def test_a_tile_too_big_for_two_slots_is_named_and_lowered_at_a_size_that_keeps_them(tmp_path):
    k = _softmax_with_tile(tmp_path, 12000)
    r = check_kernel(k, SOFTMAX / "op.py", trials=1, other_shapes=False, plan=True)
    store_line = _line_of(k, "store(y[b, j:j + T]")
    (fit,) = r.plan.fits
    assert fit.writer_fits and store_line in fit.single_lines and fit.used[0] < 12000
    assert not r.plan.single_buffered and not r.plan.unqueued     # the plan is at the size lower uses
    assert f"would have one queue slot or none" in r.summary() and f"lower uses T = {fit.used[0]}" in r.summary()


def test_a_statement_the_lowering_refuses_is_named_by_check(tmp_path):
    k = tmp_path / "k.dsl"
    k.write_text((SOFTMAX / "kernel.dsl").read_text().replace("r = reciprocal(s)",
                                                              "r = reciprocal(s) + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))"))
    r = check_kernel(k, SOFTMAX / "op.py", trials=1, other_shapes=False, plan=True)
    assert r.passed and r.plan.refused is not None
    line = _line_of(k, "window_max(zeros")
    assert f"k.dsl:{line}:" in r.plan.refused and "lowering refuses" in r.summary()


def test_check_json_carries_the_plan(capsys):
    code = main(["check", str(SOFTMAX / "kernel.dsl"), "--op", str(SOFTMAX / "op.py"), "--trials", "1", "--json"])
    assert code == 0
    plan = json.loads(capsys.readouterr().out)["result"]["plan"]
    assert plan["refused"] is None and plan["buffers"] and plan["single_buffered_lines"] == []


def test_check_does_not_accept_what_lower_refuses(tmp_path, capsys):
    k = tmp_path / "k.dsl"
    k.write_text((SOFTMAX / "kernel.dsl").read_text().replace("r = reciprocal(s)",
                                                              "r = reciprocal(s) + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))"))
    args = ["check", str(k), "--op", str(SOFTMAX / "op.py"), "--trials", "1"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "NOT LOWERABLE" in out and f"k.dsl:{_line_of(k, 'window_max(zeros')}:" in out
    assert main(args + ["--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    got = doc["result"]
    assert doc["status"] == "failed" and doc["exit_code"] == 1 and got["lowerable"] is False and "window_max" in got["plan"]["refused"]


LEAKY_OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, 0.01)


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
"""


def test_a_run_of_consecutive_lines_is_shown_as_a_range(tmp_path):
    (tmp_path / "op.py").write_text(LEAKY_OP)
    k = tmp_path / "k.dsl"
    k.write_text("kernel leaky(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
                 "    for b in parallel(B):\n"
                 "        t = load(x[b, :])\n" + "        t = where(t >= 0.0, t, t * 1.0)\n" * 40 +
                 "        store(y[b, :], where(t >= 0.0, t, t * 0.01))\n")
    plan = check_kernel(k, tmp_path / "op.py", trials=1, other_shapes=False, plan=True).plan
    summary = plan.summary()
    runs = [b.lines for b in plan.buffers if len(b.lines) > 30]
    assert runs and all(b == a + 1 for a, b in zip(runs[0], runs[0][1:]))    # one run of lines
    assert f"for lines {runs[0][0]}-{runs[0][-1]}\n" in summary + "\n"
    assert ", ".join(map(str, runs[0][:3])) not in summary
