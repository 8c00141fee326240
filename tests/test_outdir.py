"""Output folders never cost the user a file (ascendcraft/outdir.py)."""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ascendcraft.cli import main
from ascendcraft.errors import UserError
from ascendcraft.outdir import MARKER, atomic_output_dir, check_writable

EX = Path(__file__).parents[1] / "examples"
LEAKY = EX / "activation" / "leaky_relu"


def lower_args(out, *extra):
    return ["lower", str(LEAKY / "kernel.dsl"), "--op", str(LEAKY / "op.py"), "--out", str(out), "--trials", "1",
            "--no-model", *extra]


def test_force_never_removes_a_folder_of_the_users_files(tmp_path, capsys):
    mine = tmp_path / "work"
    mine.mkdir()
    shutil.copy(LEAKY / "kernel.dsl", mine / "k.dsl")
    shutil.copy(LEAKY / "op.py", mine / "op.py")
    code = main(["lower", str(mine / "k.dsl"), "--op", str(mine / "op.py"), "--out", str(mine), "--force"])
    assert code == 2 and "did not make" in capsys.readouterr().err
    assert sorted(p.name for p in mine.iterdir()) == ["k.dsl", "op.py"]


def test_out_dot_with_force_is_refused_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.chdir(tmp_path)
    code = main(lower_args(".", "--force"))
    assert code == 2 and "did not make" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert not [p for p in tmp_path.parent.iterdir() if p.name.startswith(f".{tmp_path.name}.")]


def test_results_carry_the_marker_and_ordinary_permissions(tmp_path):
    out = tmp_path / "res"
    assert main(lower_args(out)) == 0
    assert json.loads((out / MARKER).read_text())["made_by"] == "ascendcraft"
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~_umask()
    assert main(lower_args(out, "--force")) == 0                 # our own result: replaced


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def test_a_failing_run_with_force_keeps_the_good_result(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(lower_args(out)) == 0
    good = (out / "report.md").read_text()
    bad = tmp_path / "bad.dsl"
    bad.write_text((LEAKY / "kernel.dsl").read_text().replace("t * negative_slope", "t * negative_slope * 2.0"))
    code = main(["lower", str(bad), "--op", str(LEAKY / "op.py"), "--out", str(out), "--force", "--trials", "1"])
    assert code == 1
    assert (out / "report.md").read_text() == good


def test_a_backend_failure_writes_its_failure_folder(tmp_path, monkeypatch, capsys):
    import ascendcraft.lower as L

    def broken(result, *args):
        raise L.KernelMismatch("the generated AscendC kernel does not match the op on the simulator")
    monkeypatch.setattr(L, "_run_on_sim", broken)
    out = tmp_path / "res"
    assert main(lower_args(out)) == 1
    err = capsys.readouterr().err
    assert f"in {out}" in err
    assert json.loads((out / "report.json").read_text())["stage"] == "backend"
    assert list((out / "ascendc").glob("*.cpp")) and (out / "passes").is_dir() and (out / MARKER).exists()


def test_leftovers_of_killed_runs_are_removed_and_an_old_result_put_back(tmp_path):
    dead = _dead_pid()
    out = tmp_path / "res"
    partial = tmp_path / f".res.partial-{dead}-abc"
    partial.mkdir()
    (partial / "half.cpp").write_text("...")
    old = tmp_path / f".res.old-{dead}-xyz"
    (old / "res").mkdir(parents=True)
    (old / "res" / MARKER).write_text("{}")
    (old / "res" / "report.md").write_text("previous")
    alive = tmp_path / f".res.partial-{os.getpid()}-live"     # a run still going: left alone
    alive.mkdir()
    check_writable(out, force=True)
    assert (out / "report.md").read_text() == "previous"      # complete-old, not absent
    assert not partial.exists() and not old.exists() and alive.exists()


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_result_written_meanwhile_by_another_run_is_not_replaced_silently(tmp_path):
    out = tmp_path / "res"
    with pytest.raises(UserError, match="another run"):
        with atomic_output_dir(out) as d:
            (d / "mine.txt").write_text("second run")
            out.mkdir()                                      # the first run commits meanwhile
            (out / MARKER).write_text("{}")
            (out / "report.md").write_text("first run")
    assert (out / "report.md").read_text() == "first run"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("where", ["under_a_file", "proc"])
def test_unwritable_output_paths_are_user_errors(tmp_path, capsys, where):
    if where == "under_a_file":
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "res"
    else:
        out = Path("/proc/ascendcraft-test/res")
    code = main(lower_args(out))
    err = capsys.readouterr().err
    assert code == 2 and "cannot write the output directory" in err and "internal error" not in err


def test_save_into_an_unwritable_place_is_a_user_error(tmp_path):
    import ascendcraft
    k = ascendcraft.compile(LEAKY / "kernel.dsl", LEAKY / "op.py", trials=1)
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match="cannot write"):
        k.save(tmp_path / "f" / "saved")


# --------------------------------------------------------------------------- fault injection

@pytest.mark.parametrize("sig,delay", [(signal.SIGKILL, 1.5), (signal.SIGKILL, 4.0), (signal.SIGINT, 3.0)])
def test_killed_lower_leaves_complete_old_or_new_and_no_leftovers(tmp_path, sig, delay):
    """Kill a ``lower --force`` over a good result at a point of its run: the folder is then the
    complete old result or the complete new one, and the next run leaves nothing behind."""
    out = tmp_path / "res"
    assert main(lower_args(out)) == 0
    before = (out / "report.md").read_text()
    proc = subprocess.Popen([sys.executable, "-m", "ascendcraft", *lower_args(out, "--force")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert (out / MARKER).exists() and (out / "report.md").read_text() == before   # same kernel: same report
    assert main(lower_args(out, "--force")) == 0
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
