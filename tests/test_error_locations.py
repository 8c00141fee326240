"""Every stage's error names a line of the kernel its writer wrote (issue 18: errors in the
writer's terms): parse, check, GM bounds at the real shapes, a lowering pass, code generation. A
simulator failure of a generated kernel names its DSL line too (tests/lowering/test_origins.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ascendcraft.cli import main

ROOT = Path(__file__).resolve().parents[1]
LEAKY = ROOT / "examples" / "activation" / "leaky_relu"
STRIDED = ROOT / "tests" / "lowering" / "data" / "strided"

_GOOD = """# y = 2x, row by row
kernel twice(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    for b in parallel(B):
        t = load(x[b, :])
        store(y[b, :], t * 2.0)
"""
_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x * 2.0
B = 6
N = 300
def get_inputs():
    return [torch.randn(B, N)]
def get_init_inputs():
    return []
"""

# stage -> (command, the kernel's text, the line the error must name, words of the message)
CASES = {
    "parse": ("check", _GOOD.replace("t * 2.0)", "t * 2.0"), 5, "never closed"),
    "check": ("check", _GOOD.replace("t * 2.0", "u * 2.0"), 5, "u"),
    "bounds": ("check", _GOOD.replace("x[b, :]", "x[b + 6, :]"), 4, "out of range"),
    "pass": ("lower", _GOOD.replace("t * 2.0", "t * 2.0 + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))"), 5, "window_max"),
}


@pytest.mark.parametrize("stage", list(CASES))
def test_each_stage_names_the_writers_line(stage, tmp_path, capsys):
    command, text, line, word = CASES[stage]
    kernel, op = tmp_path / "k.dsl", tmp_path / "op.py"
    kernel.write_text(text)
    op.write_text(_OP)
    args = [command, str(kernel), "--op", str(op), "--trials", "1"] + (["--out", str(tmp_path / "o")]
                                                                       if command == "lower" else [])
    code = main(args)
    err = capsys.readouterr().err
    assert code != 0
    assert f"k.dsl:{line}:" in err, err
    assert text.splitlines()[line - 1].strip() in err and word in err, err


def test_code_generation_names_the_writers_line(capsys, tmp_path):
    kernel = STRIDED / "column_broadcast.dsl"
    code = main(["lower", str(kernel), "--op", str(STRIDED / "broadcast_op.py"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(kernel.read_text().splitlines(), 1) if "full((1,), 1.0, f32)" in t)
    assert code != 0 and "emitter" in err and f"column_broadcast.dsl:{line}:" in err, err


def test_the_renderer_says_the_kind_once():
    """A message that starts with its kind (the interpreter's races) or quotes an error of the same
    kind (a pass's error around the interpreter's) is not rendered as `race: race:`."""
    from ascendcraft.errors import DSLError, render
    from ascendcraft.passes import PassError
    assert render(DSLError("race: core 1 writes y", None, kind="race")) == "race: core 1 writes y"
    inner = DSLError("free(t): t is not in a queue", None, kind="lowering error")
    outer = PassError("pipeline", str(inner), before="", after=None)
    assert render(outer) == "lowering error: pass 'pipeline': free(t): t is not in a queue"


def test_a_lowering_error_carries_the_writers_location_into_json(tmp_path, capsys):
    """A pass that refuses a statement names its line in the text and in --json's location."""
    import json

    from ascendcraft.cli import main
    (tmp_path / "op.py").write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Model(nn.Module):\n    def forward(self, x):\n"
        "        return F.max_pool1d((x * 2.0).unsqueeze(1), 2, 2, padding=1).squeeze(1), x\n"
        "def get_inputs():\n    return [torch.randn(4, 64)]\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "k.dsl").write_text(
        "kernel mp(x: gm f32[R, N]) -> (y: gm f32[R, M], z: gm f32[R, N]):\n"
        "    for r in parallel(R):\n"
        "        store(y[r, :], window_max(load(x[r, :]) * 2.0, kernel=(2,), padding=1))\n"
        "        store(z[r, :], load(x[r, :]))\n")
    code = main(["lower", str(tmp_path / "k.dsl"), "--op", str(tmp_path / "op.py"), "--out", str(tmp_path / "out"),
                 "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    got = doc["error"]
    assert code == 1 and doc["exit_code"] == 1 and doc["command"] == "lower" and got["kind"] == "lowering error" and "lowering error" not in got["message"]
    loc = got["location"]
    assert loc["file"].endswith("k.dsl") and (loc["line"], loc["column"]) == (3, 24)
    assert "k.dsl:3:24" in err and err.count("-->") == 1
