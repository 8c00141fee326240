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


# --------------------------------------------------------------------------- input files

def run_command(*argv, timeout=120):
    """The command in a child with 3 GiB of address space and a time limit, so that an unbounded
    read or an open that blocks fails the test, not the machine."""
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    return subprocess.run([sys.executable, "-m", "ascendcraft", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=limit)


@pytest.mark.parametrize("what", ["/dev/zero", "fifo"])
def test_a_device_or_a_pipe_as_the_kernel_is_refused_at_once(tmp_path, what):
    import os
    kernel = what
    if what == "fifo":
        kernel = tmp_path / "k.dsl"
        os.mkfifo(kernel)
    r = run_command("check", kernel, "--op", LEAKY / "op.py", "--trials", "1")
    kind = "a character device" if what == "/dev/zero" else "a named pipe (FIFO)"
    assert r.returncode == 2 and f"kernel file {kernel} is {kind}, not a regular file" in r.stderr, r.stderr
    assert "op file" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("case", ["kernel is a folder", "op is a pipe", "op is /dev/null", "gen's op is a pipe",
                                  "bench TASK is a pipe", "bench --kernels is a file"])
def test_inputs_of_the_wrong_kind_are_located_user_errors(tmp_path, capsys, case):
    import os
    fifo = tmp_path / "op.py"
    os.mkfifo(fifo)
    argv, expected = {
        "kernel is a folder": (["check", str(tmp_path), "--op", str(LEAKY / "op.py")],
                               f"kernel file {tmp_path} is a folder, not a regular file"),
        "op is a pipe": (["check", str(LEAKY / "kernel.dsl"), "--op", str(fifo)],
                         f"op file {fifo} is a named pipe (FIFO), not a regular file"),
        "op is /dev/null": (["lower", str(LEAKY / "kernel.dsl"), "--op", "/dev/null"],
                            "op file /dev/null is a character device, not a regular file"),
        "gen's op is a pipe": (["gen", str(fifo)], f"op file {fifo} is a named pipe (FIFO)"),
        "bench TASK is a pipe": (["bench", str(fifo), "--kernels", str(tmp_path)],
                                 f"op file {fifo} is a named pipe (FIFO)"),
        "bench --kernels is a file": (["bench", str(LEAKY / "op.py"), "--kernels", str(LEAKY / "op.py")],
                                      f"--kernels {LEAKY / 'op.py'} is a file, not a folder"),
    }[case]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: " + expected) and "internal error" not in err


@pytest.mark.parametrize("role", ["kernel", "op"])
def test_inputs_larger_than_the_bound_are_refused_before_they_are_read(tmp_path, capsys, role):
    """A kernel, or an op (here a folder holding op.py), of more than MAX_INPUT_BYTES."""
    from ascendcraft.inputs import MAX_INPUT_BYTES
    padding = "#" * MAX_INPUT_BYTES + "\n"
    if role == "kernel":
        big = tmp_path / "k.dsl"
        big.write_text((LEAKY / "kernel.dsl").read_text() + padding)
        argv = ["check", str(big), "--op", str(LEAKY / "op.py")]
    else:
        big = tmp_path / "op.py"
        big.write_text((LEAKY / "op.py").read_text() + padding)
        argv = ["check", str(LEAKY / "kernel.dsl"), "--op", str(tmp_path)]
    assert main([*argv, "--trials", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {role} file {big} is larger than 4 MiB") and "MAX_INPUT_BYTES" in err


@pytest.mark.parametrize("reader", ["compile", "check_kernel", "parse_file", "load_task"])
def test_the_python_api_reads_inputs_with_the_same_bounds(tmp_path, reader):
    """Not only the command line: every reader of a kernel or op file checks its kind and size."""
    import ascendcraft
    from ascendcraft.checking import check_kernel
    from ascendcraft.dsl import parse_file
    from ascendcraft.errors import UserError
    from ascendcraft.inputs import MAX_INPUT_BYTES
    from ascendcraft.task import load_task
    big = tmp_path / "op.py"
    big.write_text((LEAKY / "op.py").read_text() + "#" * MAX_INPUT_BYTES + "\n")
    call = {"compile": lambda: ascendcraft.compile("/dev/zero", LEAKY / "op.py"),
            "check_kernel": lambda: check_kernel(LEAKY / "kernel.dsl", big),
            "parse_file": lambda: parse_file("/dev/zero"),
            "load_task": lambda: load_task(big)}[reader]
    with pytest.raises(UserError, match="is a character device, not a regular file|is larger than 4 MiB"):
        call()
