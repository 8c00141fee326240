"""The reward of scripted replies: each stage a reply can stop at, cheats the verifier rejects,
replies that try to run code, time limits and crashing workers; the API, the CLI, the pool and
the in-process path agree, and the same inputs give the same results."""
from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from ascendcraft.cli import main
from ascendcraft.errors import AscendcraftError, UserError
from ascendcraft.reward import RewardSettings, Shaping, reward, rewards, trl_reward
from ascendcraft.reward.shaping import DEFAULT_FAILED_AT

OP = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(40, 1000)]


def get_init_inputs():
    return [0.2]
'''

KERNEL = '''kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    const T = 1024
    for b in parallel(B):
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            store(y[b, j:j + T], where(t >= 0.0, t, t * negative_slope))
'''


def fenced(kernel: str, words: str = "Here is the kernel.") -> str:
    return f"{words}\n\n```dsl\n{kernel}```\n"


#: a reply for each way a reply ends, and the stage it ends at
REPLIES = {
    "correct": (fenced(KERNEL), "correct"),
    "no kernel": ("I cannot write this kernel.", "extract"),
    "syntax": (fenced("kernel leaky_relu(x: gm f32[B, N] -> (y: gm f32[B, N]):\n    pass\n"), "parse"),
    "types": (fenced(KERNEL.replace("t * negative_slope", "t * undefined_name")), "check"),
    "wrong": (fenced(KERNEL.replace("t * negative_slope", "t * negative_slope * 2.0")), "verify"),
    # a cheat: right wherever it writes, but only every other row is written
    "half the rows": (fenced(KERNEL.replace("for b in parallel(B):", "for h in parallel(B // 2):\n        b = 2 * h")
                             .replace("\n        for j", "\n        for j").replace("            ", "            ")),
                      "verify"),
    # right in the interpreter, refused by the lowering
    "refused": (fenced(KERNEL.replace("t * negative_slope",
                                      "t * negative_slope + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), "
                                      "padding=1))")), "lower"),
}


@pytest.fixture()
def op(tmp_path) -> Path:
    p = tmp_path / "ops" / "activation" / "small_leaky_relu.py"
    p.parent.mkdir(parents=True)
    p.write_text(OP)
    return p


SETTINGS = RewardSettings(trials=2)


def _same(a, b) -> bool:
    """Equal but for the wall-clock time."""
    return replace(a, wall_s=0.0) == replace(b, wall_s=0.0)


def test_each_reply_ends_at_its_stage_with_the_documented_reward(op):
    results = rewards([(op, reply) for reply, _ in REPLIES.values()], settings=SETTINGS, workers=2, time_limit=120)
    for (name, (_, stage)), r in zip(REPLIES.items(), results):
        assert r.stage == stage, (name, r.error)
        assert r.status == "scored" and r.reward is not None
        if stage == "correct":
            assert r.correct and r.time_us > 0 and r.eager_us > 0 and r.error is None
            assert r.speedup == pytest.approx(r.eager_us / r.time_us)
            expected = 1.0 + 0.5 * max(-1.0, min(1.0, math.log2(r.speedup)))
            assert r.reward == pytest.approx(expected) and 0.5 <= r.reward <= 1.5
        else:
            assert not r.correct and r.reward == DEFAULT_FAILED_AT[stage] and r.error
    wrong = results[list(REPLIES).index("wrong")]
    assert "elements wrong" in wrong.error          # what the model would be shown: the worst elements


def test_parallel_serial_and_repeated_runs_agree(op):
    items = [(op, reply) for reply, _ in REPLIES.values()][:5]
    pooled = rewards(items, settings=SETTINGS, workers=2)
    serial = rewards(items, settings=SETTINGS, workers=0)
    again = rewards(items, settings=SETTINGS, workers=1)
    for a, b, c in zip(pooled, serial, again):
        assert _same(a, b) and _same(a, c)
    one = reward(op, items[0][1], settings=SETTINGS)
    assert _same(one, pooled[0])


def test_a_reply_is_never_run_as_python(op, tmp_path):
    marker = tmp_path / "escaped"
    payload = f"import os\nopen({str(marker)!r}, 'w').write('x')\n"
    replies = [
        f"```python\n{payload}class Model: pass\n```\n" + fenced(f"{payload}" + KERNEL),
        fenced(KERNEL.replace("const T = 1024", f"const T = __import__('os').system('touch {marker}')")),
        f"```dsl\n{KERNEL}```\n```python\n{payload}kernel x(a: gm f32[N]) -> (b: gm f32[N]):\n```\n",
    ]
    results = rewards([(op, r) for r in replies], settings=SETTINGS, workers=1)
    # the third: the dsl-tagged block is the kernel, the python block after it is not read
    assert [r.stage for r in results] == ["parse", "parse", "correct"]
    assert not marker.exists()


def test_a_reply_past_its_time_limit_is_scored_at_its_stage_and_the_next_one_runs(op):
    # 12 million interpreted iterations: under the interpreter's own bound, far past the limit
    slow = KERNEL.replace("for j in range(0, N, T):", "for j in range(0, 300000):").replace("j:j + T", "0:N")
    late, next_one = rewards([(op, fenced(slow)), (op, REPLIES["syntax"][0])], settings=SETTINGS, workers=1,
                             time_limit=3)
    assert late.status == "timeout" and not late.correct and "time limit (3 s)" in late.error
    assert late.stage in ("check", "verify") and late.reward == DEFAULT_FAILED_AT[late.stage]
    assert next_one.status == "scored" and next_one.stage == "parse"


def test_a_task_that_kills_its_worker_costs_that_reply_only(op, tmp_path):
    deadly = tmp_path / "deadly.py"
    deadly.write_text(OP.replace("def forward(self, x):\n", "def forward(self, x):\n        import os\n"
                                                            "        os._exit(7)\n"))
    results = rewards([(deadly, REPLIES["correct"][0]), (op, REPLIES["syntax"][0])], settings=SETTINGS, workers=1)
    assert results[0].status == "internal_error" and results[0].reward is None
    assert results[1].stage == "parse" and results[1].status == "scored"


def test_a_task_that_does_not_load_is_the_tasks_error(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("this is not python\n")
    r = reward(broken, REPLIES["correct"][0], settings=SETTINGS)
    assert r.status == "task_error" and r.reward is None and "broken.py" in r.error


def test_without_lowering_a_verified_kernel_gets_the_correct_credit(op):
    r = reward(op, REPLIES["refused"][0], settings=replace(SETTINGS, lower=False))
    assert r.correct and r.reward == 1.0 and r.time_us is None


def test_the_shaping_is_configurable_and_checked():
    s = Shaping(failed_at={"verify": 0.5}, correct=2.0, speed_weight=1.0, speed_clip=2.0)
    assert s.reward("verify", False, None) == 0.5 and s.reward("parse", False, None) == DEFAULT_FAILED_AT["parse"]
    assert s.reward("correct", True, 8.0) == pytest.approx(4.0)       # log2(8) = 3, clipped to 2
    assert s.reward("correct", True, None) == 2.0
    assert Shaping.from_json({"speed_weight": 0}) == Shaping(speed_weight=0.0)
    for bad in ({"failed_at": {"compiling": 0.1}}, {"bonus": 1}, {"correct": "high"}, [1]):
        with pytest.raises(ValueError):
            Shaping.from_json(bad)


def test_the_cli_writes_one_result_per_line_in_order(op, tmp_path, capsys):
    lines = [{"id": name, "task": str(op), "completion": reply} for name, (reply, _) in REPLIES.items()][:4]
    requests = tmp_path / "batch.jsonl"
    requests.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["reward", str(requests), "--trials", "2", "--jobs", "2"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    api = rewards([(op, x["completion"]) for x in lines], settings=SETTINGS, workers=0)
    assert [o["id"] for o in out] == [x["id"] for x in lines]
    for o, r in zip(out, api):
        assert {**o, "wall_s": 0} == {"id": o["id"], **r.to_json(), "task": str(op), "wall_s": 0}

    shaping = tmp_path / "shape.json"
    shaping.write_text(json.dumps({"failed_at": {"extract": -1.0}}))
    out_file = tmp_path / "results.jsonl"
    assert main(["reward", str(requests), "--trials", "2", "--no-lower", "--shaping", str(shaping),
                 "--out", str(out_file)]) == 0
    summary = capsys.readouterr().out
    assert "4 replies: 1 correct" in summary and str(out_file) in summary
    written = [json.loads(x) for x in out_file.read_text().splitlines()]
    assert written[1]["stage"] == "extract" and written[1]["reward"] == -1.0


def test_task_ids_resolve_under_the_task_roots_and_relative_paths_beside_the_input(op, tmp_path, capsys):
    requests = tmp_path / "ops" / "batch.jsonl"
    requests.write_text(json.dumps({"task": "activation/small_leaky_relu", "completion": "no kernel"}) + "\n"
                        + json.dumps({"task": "activation/small_leaky_relu.py", "completion": "no kernel"}) + "\n")
    assert main(["reward", str(requests), "--tasks", str(tmp_path / "ops"), "--no-lower", "--jobs", "1"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["stage"] for o in out] == ["extract", "extract"] and all(o["status"] == "scored" for o in out)


@pytest.mark.parametrize("content, message", [
    ("not json\n", "batch.jsonl:1: not a JSON object"),
    ('{"task": "x"}\n', "batch.jsonl:1: each line is an object"),
    ('\n\n', "holds no requests"),
    ('{"task": "no/such_task", "completion": ""}\n', "batch.jsonl:1: task 'no/such_task'"),
])
def test_bad_input_is_a_located_error_before_any_work(tmp_path, capsys, content, message):
    requests = tmp_path / "batch.jsonl"
    requests.write_text(content)
    out_file = tmp_path / "results.jsonl"
    assert main(["reward", str(requests), "--out", str(out_file)]) == 2
    assert message in capsys.readouterr().err
    assert not out_file.exists()


def test_the_trl_adapter_takes_conversations_and_the_task_column(op):
    f = trl_reward(settings=replace(SETTINGS, lower=False), workers=1)
    try:
        conversation = [{"role": "assistant", "content": REPLIES["correct"][0]}]
        scores = f(prompts=["p", "p"], completions=[conversation, REPLIES["no kernel"][0]], task=[str(op), str(op)])
        assert scores == [1.0, DEFAULT_FAILED_AT["extract"]]
        with pytest.raises(UserError, match="no 'task' column"):
            f(prompts=["p"], completions=["x"], op=[str(op)])
    finally:
        f.close()


def test_settings_are_checked():
    with pytest.raises(AscendcraftError):
        RewardSettings(trials=0)
    with pytest.raises(AscendcraftError):
        RewardSettings(backend="auto")
