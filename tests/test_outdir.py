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
from ascendcraft.outdir import MARKER, atomic_output_dir, check_writable, ours

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


def test_out_dot_in_an_empty_folder_fills_that_folder_in_place(tmp_path, monkeypatch):
    """The folder the user is in stays the same folder: it used to be replaced by a new one,
    leaving their shell in a removed folder."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    inode = os.stat(".").st_ino
    assert main(lower_args(".")) == 0
    assert os.stat(".").st_ino == inode and Path(".").resolve() == work.resolve()
    assert (work / "report.json").exists() and (work / MARKER).exists()
    assert ours(work)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


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


# --------------------------------------------------------------------------- --force replaces only what a run wrote

def test_force_over_a_result_the_user_added_files_to_removes_nothing(tmp_path, monkeypatch, capsys):
    """`--out . --force` in a folder that holds an earlier result and the user's own files: the
    marker lists what that run wrote, so the folder is not ours and nothing is removed."""
    work = tmp_path / "work"
    assert main(lower_args(work)) == 0
    (work / "mynotes.txt").write_text("mine")
    (work / "kernels_out" / "other").mkdir(parents=True)
    (work / "kernels_out" / "other" / "report.md").write_text("an older result of mine")
    (work / "ascendc" / "tuned.cpp").write_text("my edit")              # inside a folder the run wrote
    monkeypatch.chdir(work)
    code = main(lower_args(".", "--force"))
    err = capsys.readouterr().err
    assert code == 2 and "did not make" in err and "choose another --out" in err
    assert "mynotes.txt" in err and "kernels_out/" in err and "ascendc/tuned.cpp" in err
    assert (work / "mynotes.txt").read_text() == "mine" and (work / "ascendc" / "tuned.cpp").exists()
    assert (work / "kernels_out" / "other" / "report.md").exists() and (work / "report.md").exists()


def test_a_marker_without_a_file_list_does_not_make_the_users_files_ours(tmp_path):
    """A marker of an older ascendcraft (no list) counts only for the names results hold."""
    out = tmp_path / "res"
    (out / "kernels_out" / "x").mkdir(parents=True)
    (out / MARKER).write_text(json.dumps({"made_by": "ascendcraft", "kind": "result"}))
    (out / "report.md").write_text("an old result")
    (out / "mynotes.txt").write_text("mine")
    with pytest.raises(UserError, match=r"did not make: kernels_out/, mynotes.txt"):
        check_writable(out, force=True)
    with pytest.raises(UserError, match="did not make"):
        with atomic_output_dir(out, force=True) as d:
            (d / "report.md").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "kernels_out", "mynotes.txt", "report.md"]
    (out / "mynotes.txt").unlink()
    shutil.rmtree(out / "kernels_out")
    with atomic_output_dir(out, force=True) as d:                          # only known names: replaced
        (d / "report.md").write_text("new")
    assert (out / "report.md").read_text() == "new"
    assert json.loads((out / MARKER).read_text())["files"] == ["report.md"]


def test_a_file_added_during_the_swap_is_put_back_untouched(tmp_path, monkeypatch):
    """The previous folder is checked again once it is out of the way: a file written into it
    after the first check puts it back and stops the run."""
    import ascendcraft.outdir as od
    out = tmp_path / "res"
    with atomic_output_dir(out) as d:
        (d / "report.md").write_text("old")
    real = od._may_replace

    def then_the_user_writes(target, shown, force, *, now=False):
        real(target, shown, force, now=now)
        if now:
            (target / "mine.txt").write_text("mine")
    monkeypatch.setattr(od, "_may_replace", then_the_user_writes)
    with pytest.raises(UserError, match="now holds files ascendcraft did not make: mine.txt"):
        with atomic_output_dir(out, force=True) as d:
            (d / "report.md").write_text("new")
    assert (out / "report.md").read_text() == "old" and (out / "mine.txt").read_text() == "mine"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# --------------------------------------------------------------------------- Ctrl-C and SIGKILL in the swap

def _interrupt_once(monkeypatch, module, name, when=lambda *a: True):
    """Wrap ``module.name`` so that its first call matching ``when`` is followed by a real SIGINT."""
    real = getattr(module, name)
    sent = []

    def wrapped(*args, **kwargs):
        result = real(*args, **kwargs)
        if not sent and when(*args):
            sent.append(args)
            os.kill(os.getpid(), signal.SIGINT)
        return result
    monkeypatch.setattr(module, name, wrapped)
    return sent


@pytest.mark.parametrize("moment", ["after the old result was moved away (two renames)",
                                    "while the old result is removed"])
def test_ctrl_c_in_the_swap_leaves_the_whole_new_result(tmp_path, monkeypatch, moment):
    import ascendcraft.outdir as od
    out = tmp_path / "res"
    with atomic_output_dir(out) as d:
        (d / "report.md").write_text("old")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)      # Ctrl-C raises KeyboardInterrupt
    try:
        if moment.startswith("after"):
            monkeypatch.setattr(od, "_exchange", lambda a, b: False, raising=False)
            sent = _interrupt_once(monkeypatch, os, "rename", lambda src, dst: Path(src) == out.resolve())
        else:
            sent = _interrupt_once(monkeypatch, shutil, "rmtree")
        try:
            with atomic_output_dir(out, force=True) as d:
                (d / "report.md").write_text("new")
        except KeyboardInterrupt:
            pytest.fail("a Ctrl-C in the swap stopped it")
        monkeypatch.undo()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sent and (out / "report.md").read_text() == "new"
    assert json.loads((out / MARKER).read_text())["files"] == ["report.md"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_ctrl_c_while_writing_says_the_previous_result_is_in_place(tmp_path, monkeypatch, capsys):
    import ascendcraft.results as results
    out = tmp_path / "res"
    assert main(lower_args(out)) == 0
    before = (out / "report.md").read_text()

    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(results, "report_markdown", interrupted)
    assert main(lower_args(out, "--force")) == 130
    err = capsys.readouterr().err
    assert f"interrupted: {out} still holds the previous result" in err
    assert (out / "report.md").read_text() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


_KILL_IN_THE_SWAP = """
import os, signal, sys
from pathlib import Path
import ascendcraft.outdir as od
out = Path(sys.argv[1])
real_exchange, real_rename = getattr(od, "_exchange", None), os.rename
def exchange(a, b):
    done = real_exchange(a, b)
    if done:
        os.kill(os.getpid(), signal.SIGKILL)
    return done
def rename(src, dst):
    real_rename(src, dst)
    if Path(src) == out.resolve():            # the old result moved away: kill here
        os.kill(os.getpid(), signal.SIGKILL)
if real_exchange is not None:
    od._exchange = exchange
os.rename = rename
with od.atomic_output_dir(out, force=True) as d:
    (d / "report.md").write_text("new")
"""


def test_sigkill_in_the_swap_leaves_a_whole_result_in_place(tmp_path):
    """Killed at the swap (after the old result left its place, with two renames; right after
    the one-step exchange otherwise): the folder holds a whole result at once, before any next
    run, and the next run removes what the killed one left."""
    out = tmp_path / "res"
    with atomic_output_dir(out) as d:
        (d / "report.md").write_text("old")
    proc = subprocess.run([sys.executable, "-c", _KILL_IN_THE_SWAP, str(out)], capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert (out / "report.md").read_text() in ("old", "new") and (out / MARKER).exists()
    check_writable(out, force=True)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_leftovers_of_a_killed_failure_folder_are_removed_too(tmp_path):
    dead = _dead_pid()
    partial = tmp_path / f".res.failed.partial-{dead}-abc"
    partial.mkdir()
    (partial / "report.json").write_text("{}")
    check_writable(tmp_path / "res", force=False)
    assert not partial.exists()


def test_a_stop_while_a_sibling_folder_is_made_leaves_nothing(tmp_path, monkeypatch):
    """The probe and the staging folder are named before they are made: a Ctrl-C that comes as one
    is made (after the mkdir, before the caller holds its name) still finds and removes it."""
    from ascendcraft.errors import Interrupted
    real_mkdir = Path.mkdir

    def mkdir_then_stop(self, *args, **kwargs):
        real_mkdir(self, *args, **kwargs)
        if ".probe-" in self.name or ".partial-" in self.name:
            raise KeyboardInterrupt
    monkeypatch.setattr(Path, "mkdir", mkdir_then_stop)
    with pytest.raises(KeyboardInterrupt):
        check_writable(tmp_path / "res", force=False)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr("ascendcraft.outdir.check_writable", lambda final, force: Path(final))
    with pytest.raises(Interrupted, match="nothing was written"):
        with atomic_output_dir(tmp_path / "res"):
            pass
    assert list(tmp_path.iterdir()) == []
