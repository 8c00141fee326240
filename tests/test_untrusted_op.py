"""Code in an op file never decides ascendcraft's exit code or output (issue classes: sys.exit,
SystemExit, KeyboardInterrupt raised by the op, prints on stdout)."""
import json
from pathlib import Path

import pytest

from ascendcraft.cli import main

KERNEL = """\
kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    for b in parallel(B):
        store(y[b, :], relu(load(x[b, :])))
"""

OP = """\
import sys
import torch
import torch.nn as nn
{top}

class Model(nn.Module):
    def forward(self, x):
        {forward}
        return torch.relu(x)


def get_inputs():
    {inputs}
    return [torch.randn(5, 40)]


def get_init_inputs():
    return []
"""


def write(tmp_path, top="", forward="pass", inputs="pass"):
    (tmp_path / "k.dsl").write_text(KERNEL)
    op = tmp_path / "op_file.py"
    op.write_text(OP.format(top=top, forward=forward, inputs=inputs))
    return ["check", str(tmp_path / "k.dsl"), "--op", str(op)]


@pytest.mark.parametrize("where,code,expect", [
    ("top", "sys.exit(0)", "sys.exit(0)"),
    ("inputs", "sys.exit(2)", "sys.exit(2)"),
    ("top", 'raise SystemExit("bye")', "sys.exit('bye')"),
    ("forward", "raise KeyboardInterrupt", "KeyboardInterrupt"),
    ("inputs", "raise KeyboardInterrupt", "KeyboardInterrupt"),
])
def test_exits_and_interrupts_in_the_op_file_are_user_errors(tmp_path, capsys, where, code, expect):
    argv = write(tmp_path, **{where: code})
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    assert expect in err and "op_file.py:" in err          # names the op file and the line
    assert out == ""


def test_prints_of_the_op_file_do_not_reach_stdout(tmp_path, capsys):
    argv = write(tmp_path, top='print("hello from the op file")', forward='print("forward!")')
    assert main(argv + ["--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["result"]["passed"] is True     # stdout holds the JSON alone
    assert "hello from the op file" in err and "forward!" in err


def test_warnings_of_the_reference_on_our_draws_do_not_reach_stderr(tmp_path, capsys):
    """numpy warns about the infinities of a specials draw, and the op's code may warn on any draw:
    the reference's business, not the user's output."""
    argv = write(tmp_path, top="import numpy as np\nimport warnings",
                 forward='np.cumsum(np.array([np.inf, -np.inf]))\n        warnings.warn("deprecated form")')
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "RuntimeWarning" not in err and "deprecated form" not in err


@pytest.mark.parametrize("code,expect", [
    ("import os\nos._exit(0)", "ended with exit status 0 before finishing"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)", "killed by signal SIGTERM"),
])
def test_an_op_file_that_ends_the_process_gets_a_message_and_exit_2(tmp_path, code, expect):
    """The command runs in a worker process: an op file cannot end it silently with exit 0."""
    import subprocess
    import sys
    argv = write(tmp_path, top=code)
    proc = subprocess.run([sys.executable, "-m", "ascendcraft", *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert expect in proc.stderr and "op file" in proc.stderr
    assert proc.stdout == ""


def test_a_normal_run_keeps_its_exit_code_and_output_through_the_worker(tmp_path):
    import subprocess
    import sys
    argv = write(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "ascendcraft", *argv, "--json"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["result"]["passed"] is True


@pytest.mark.parametrize("where", ["top", "inputs", "forward"])
def test_an_endless_loop_in_the_op_file_is_stopped_with_its_line(tmp_path, capsys, monkeypatch, where):
    import ascendcraft.opfile as T
    monkeypatch.setattr(T, "OP_CALL_TIMEOUT_S", 1)
    loop = {"top": "while True:\n    pass", "inputs": "while True:\n        pass",
            "forward": "while True:\n            pass"}[where]
    argv = write(tmp_path, **{where: loop})
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and "did not finish within 1 s" in err and "op_file.py:" in err


@pytest.mark.parametrize("where", ["top", "inputs", "forward"])
def test_an_op_file_that_waits_is_stopped_by_the_wall_clock_with_its_line(tmp_path, capsys, monkeypatch, where):
    """A sleep uses no CPU time, so the CPU limit alone would wait forever."""
    import ascendcraft.opfile as T
    monkeypatch.setattr(T, "WAIT_WINDOW_S", 1.0)
    indent = {"top": "", "inputs": "    ", "forward": "        "}[where]
    argv = write(tmp_path, **{where: f"import time\n{indent}time.sleep(600)"})
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and "without computing" in err and "op_file.py:" in err, err


@pytest.mark.parametrize("where, code", [("inputs", 'return [torch.randn(5, 40).to("meta")]'),
                                         ("forward", 'return torch.relu(x).to("meta")'),
                                         ("inputs", "return [torch.randn(5, 40).to_sparse()]")])
def test_tensors_without_data_on_the_cpu_are_user_errors(tmp_path, capsys, where, code):
    argv = write(tmp_path, **{where: code})
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and "ascendcraft reads dense CPU tensors" in err, err
    assert ("input 0 of get_inputs()" if where == "inputs" else "output 0 of Model.forward") in err
