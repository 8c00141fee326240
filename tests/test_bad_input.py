"""No exit 3 and no hang for any user input: deep programs, huge sizes, long loops, and the
Python API's arguments (each case is an example of its class)."""
from pathlib import Path

import numpy as np
import pytest
import torch

import ascendcraft
from ascendcraft.cli import main
from ascendcraft.dsl import footprint
from ascendcraft.errors import UserError

LEAKY = Path(__file__).parent.parent / "examples" / "activation" / "leaky_relu"
HEAD = "kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
ROW = "    for b in parallel(B):\n        t = load(x[b, :])\n"


def run_check(tmp_path, text, capsys):
    (tmp_path / "k.dsl").write_text(text)
    code = main(["check", str(tmp_path / "k.dsl"), "--op", str(LEAKY / "op.py"), "--trials", "1"])
    return code, capsys.readouterr().err


def nested_loops(depth: int, body: str = "acc = acc + 1.0") -> str:
    lines = [HEAD, "    for b in parallel(B):\n", "        acc = 0.0\n"]
    lines += ["    " * (i + 2) + f"for v{i} in range(1):\n" for i in range(depth)]
    lines += ["    " * (depth + 2) + body + "\n", "        store(y[b, :], load(x[b, :]) * 0.0 + acc)\n"]
    return "".join(lines)


@pytest.mark.parametrize("text", [
    HEAD + ROW + "        store(y[b, :], " + "-" * 300 + "t)\n",
    HEAD + ROW + "        store(y[b, :], " + " + ".join(["t"] * 500) + ")\n",
    nested_loops(300),
], ids=["300 unary minus", "500-term sum", "300 nested loops"])
def test_too_deep_programs_get_a_located_error(tmp_path, capsys, text):
    code, err = run_check(tmp_path, text, capsys)
    assert code == 2 and "nests deeper than" in err and "k.dsl:" in err and "internal error" not in err


def test_moderately_deep_programs_work(tmp_path, capsys):
    code, err = run_check(tmp_path, HEAD + ROW + "        store(y[b, :], " + "-" * 40 + "t)\n", capsys)
    assert code == 1 and "FAIL" not in err and "internal error" not in err     # runs; it is not leaky_relu


def test_checking_is_linear_in_loop_depth():
    """The liveness walk visits each statement once per enclosing loop level at most (it used to
    walk every loop body twice, so the work doubled with each level: 2**40 walks at depth 40)."""
    from ascendcraft.binding import bind
    from ascendcraft.chips import load_chip
    from ascendcraft.dsl.checker import check
    from ascendcraft.dsl.parser import parse
    from ascendcraft.task import load_task
    calls = {"n": 0}
    orig = footprint._Analysis.stmt

    def counted(self, s, live_out):
        calls["n"] += 1
        return orig(self, s, live_out)
    k = parse(nested_loops(40))
    task = load_task(LEAKY / "op.py")
    footprint._Analysis.stmt = counted
    try:
        check(k, bind(k, task.real)[0], load_chip("910B2"))
    finally:
        footprint._Analysis.stmt = orig
    assert calls["n"] <= 3 * 45


def test_scratch_larger_than_the_chip_is_a_memory_error(tmp_path, capsys):
    code, err = run_check(tmp_path, HEAD + "    scratch w: f32[1099511627776]\n" + ROW
                          + "        store(y[b, :], t)\n", capsys)
    assert code == 2 and "memory error" in err and "global memory" in err and "k.dsl:2" in err


def test_a_loop_of_2_to_the_40_stops_at_once_with_its_line(tmp_path, capsys):
    code, err = run_check(tmp_path, HEAD + ROW + "        store(y[b, :], t)\n"
                          "    for q in parallel(1099511627776):\n        pass\n", capsys)
    assert code == 2 and "loop iterations" in err and "k.dsl:5" in err


# --------------------------------------------------------------------------- the Python API

@pytest.fixture(scope="module")
def leaky():
    return ascendcraft.compile(LEAKY / "kernel.dsl", LEAKY / "op.py", trials=1)


def test_compile_with_no_kernel_or_op_is_a_user_error():
    with pytest.raises(UserError, match="not NoneType"):
        ascendcraft.compile(None, LEAKY / "op.py")
    with pytest.raises(UserError, match="not NoneType"):
        ascendcraft.compile(LEAKY / "kernel.dsl", None)


@pytest.mark.parametrize("args,match", [
    ((), "takes 1 argument"),
    ((torch.randn(3, 5), torch.randn(3, 5)), "takes 1 argument"),
    ((torch.randn(3, 5, dtype=torch.float64),), "which Ascend kernels do not take|float64"),
    ((torch.randn(3, 5).half(),), "f16 with 2 dims"),
    ((torch.randn(15),), "f32 with 1 dims"),
    (([1.0, 2.0],), "is a list"),
])
def test_a_compiled_kernel_checks_its_arguments(leaky, args, match):
    with pytest.raises(UserError, match=match):
        leaky(*args)


def test_a_compiled_kernel_runs_with_the_right_arguments(leaky):
    x = torch.randn(4, 33)
    assert torch.allclose(leaky(x), torch.nn.functional.leaky_relu(x, 0.2), atol=1e-6)
    assert isinstance(leaky(x.numpy()), np.ndarray)
