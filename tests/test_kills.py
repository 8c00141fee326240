"""A killed command leaves nothing behind: no partial output folder beside the result and no
process of its run alive (cli.entry, processes.fork_worker). The command here is the real
``entry`` around a stand-in ``main`` that stages an output folder, starts a process tree (as a
compiler does: a driver and its own child) and waits to be killed."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux's")

COMMAND = textwrap.dedent("""
    import subprocess, sys, time
    from pathlib import Path
    import ascendcraft.cli as cli
    from ascendcraft.errors import handle_interrupts, render_interrupt
    from ascendcraft.outdir import atomic_output_dir

    def stand_in(argv=None):          # what main does around a command: Ctrl-C is a clean stop
        handle_interrupts()
        try:
            with atomic_output_dir(Path(sys.argv[1])) as staging:
                (staging / "report.md").write_text("half")
                tree = subprocess.Popen(["sh", "-c", "sleep 600 & echo $!; wait"], stdout=subprocess.PIPE,
                                        text=True)
                print("ready", tree.pid, tree.stdout.readline().strip(), flush=True)
                time.sleep(600)
        except KeyboardInterrupt as err:
            print(render_interrupt(err), file=sys.stderr)
            return 130
        return 0

    cli.main = stand_in
    sys.exit(cli.entry())
""")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _start(tmp_path):
    script = tmp_path / "command.py"
    script.write_text(COMMAND)
    out = tmp_path / "res"
    proc = subprocess.Popen([sys.executable, str(script), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "ASCENDCRAFT_NO_WORKER": ""})
    line = proc.stdout.readline().split()
    assert line[:1] == ["ready"], (line, proc.stderr.read() if proc.poll() is not None else "")
    from ascendcraft.processes import _children
    (worker,) = _children(proc.pid)
    return proc, worker, [int(line[1]), int(line[2])]


def _gone(pids, seconds: float = 20.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    for p in pids:                          # what is left, for the failure message
        if _alive(p):
            print(p, Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")[:100],
                  Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()[:2])
    return False


def _leftovers(tmp_path) -> list[str]:
    return [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_sigkill_of_the_command_stops_its_worker_and_every_process_it_started(tmp_path):
    proc, worker, tree = _start(tmp_path)
    proc.kill()
    proc.wait(timeout=30)
    gone = _gone([worker, *tree])
    assert gone, "a process of the killed run is still alive: " + proc.stderr.read()
    assert _leftovers(tmp_path) == [] and not (tmp_path / "res").exists()


def test_sigkill_of_the_worker_is_reported_and_cleaned_up_by_the_command(tmp_path):
    proc, worker, tree = _start(tmp_path)
    os.kill(worker, signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "killed by signal SIGKILL: another process sent it" in err
    assert _gone(tree), "the worker's children outlived it"
    assert _leftovers(tmp_path) == [] and not (tmp_path / "res").exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_sigterm_and_sighup_stop_the_run_as_ctrl_c_does(tmp_path, sig):
    proc, worker, tree = _start(tmp_path)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted" in err and "nothing was written" in err
    assert _gone([worker, *tree])
    assert _leftovers(tmp_path) == [] and not (tmp_path / "res").exists()


def test_a_stop_between_the_fork_and_its_forwarding_still_reaches_the_worker(tmp_path):
    """A SIGHUP in the moment after the worker was forked and before the command forwards stops
    used to end the command alone, orphaning the run (a suite run hung on it)."""
    script = tmp_path / "command.py"
    script.write_text(COMMAND.replace("cli.main = stand_in", textwrap.dedent("""
        import os, signal
        import ascendcraft.processes as processes
        real_fork = processes.fork_worker

        def fork_then_hangup(*args, **kwargs):
            forked = real_fork(*args, **kwargs)
            if os.getpid() == parent:
                os.kill(parent, signal.SIGHUP)
            return forked
        parent = os.getpid()
        processes.fork_worker = fork_then_hangup
        cli.main = stand_in""")))
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "res")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "ASCENDCRAFT_NO_WORKER": ""})
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 130), err       # 0: the stop came before the sleep's try; 130: during it
    assert _leftovers(tmp_path) == []


def test_a_forked_worker_runs_torch_after_the_parent_used_its_thread_pool():
    """OpenMP's threads do not survive a fork: a bench worker's first parallel torch op waited
    forever when the parent had run one before (fork_worker makes the worker single-threaded)."""
    import select

    import torch

    from ascendcraft.processes import fork_worker
    x = torch.randn(4_000_000)
    for _ in range(3):
        (x * 2).sum()                       # the parent's pool of threads

    def body(write_end):
        os.write(write_end, str(float((x.clone() * 3).sum())).encode())
        return 0
    pid, read_end = fork_worker(body)
    try:
        ready, _, _ = select.select([read_end], [], [], 30)
        assert ready, "the forked worker hangs in its first parallel torch op"
        assert float(os.read(read_end, 100)) == pytest.approx(float(x.sum()) * 3, rel=1e-3)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_end)
