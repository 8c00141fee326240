"""Run a built op_host executable (``sim/host_build.py``) on one case, as kernels run: in a job folder, in its
own session and namespaces, under a memory, file-size and CPU-time limit, inside the seccomp sandbox the
harness installs before any op code runs. The answer is the harness's JSON; a crash, a sandbox violation,
an exit or a time-out is a :class:`HostRunError` naming what the op code was doing."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..chips import Chip
from ..errors import UserError
from .host_build import HostArtifact
from .job import JOB_PREFIX, read_head, reap_dead_jobs, run_root
from .launch import kill_session, popen_limited

#: what op code may print (a TilingFunc's std::cout) before the rest is dropped; what a result keeps of it
HOST_FILE_LIMIT = 16 << 20
HOST_LOG_KEEP = 64 << 10
#: CPU seconds a host run may use (a TilingFunc takes milliseconds), and the wall-time factor on top
HOST_TIMEOUT_S = 10
WALL_FACTOR = 4


#: what a violation message says op_host code may do (the sandbox is the kernels': sim/sandbox.h)
_FORBIDDEN = ("op_host code runs in the simulator's sandbox, where it may compute, allocate memory, print and "
              "return, and nothing else: no files (not even for reading), processes, network or signals to other "
              "processes")


class HostRunError(UserError):
    """The op's host code failed: crashed, was stopped by the sandbox or the time limit, exited, threw, or
    returned a failure status. ``phase`` names what ran (TilingFunc, InferShape, ...), ``log`` what it printed."""

    def __init__(self, message: str, *, phase: str = "", log: str = "", hint: str | None = None,
                 violation: str | None = None, status: int | None = None):
        super().__init__(message, hint=hint)
        self.phase, self.log, self.violation, self.status = phase, log, violation, status


def platform_lines(chip: Chip) -> list[str]:
    """The chip profile as the platform resources PlatformAscendC reads (asc_sim/host/platform.h): the
    labels and keys of CANN's platform_config/<SoC>.ini."""
    split = chip.split_cores
    short = "Ascend910B" if chip.name.startswith("910B") else "Ascend310P" if chip.name.startswith("310P") \
        else f"Ascend{chip.name}"
    res = {
        "SoCInfo": {"ai_core_cnt": chip.aic_cores, "cube_core_cnt": chip.aic_cores,
                    # 310P's independent vector cores are not in the profile: GetCoreNumVector answers 0
                    "vector_core_cnt": chip.aiv_cores if split else 0,
                    "core_type_list": "CubeCore,VectorCore" if split else "AiCore",
                    "l2_size": chip.l2_bytes, "memory_size": chip.hbm_bytes},
        "AICoreSpec": {"ub_size": chip.ub_bytes, "l1_size": chip.l1_bytes, "l0_a_size": chip.l0a_bytes,
                       "l0_b_size": chip.l0b_bytes, "l0_c_size": chip.l0c_bytes},
        "AICoreMemoryRates": {"l2_rate": int(chip.cost.l2_bpc.value), "ddr_rate": chip.mte2_bytes_per_cycle},
        "version": {"SoC_version": f"Ascend{chip.name}", "Short_SoC_version": short, "NpuArch": chip.npu_arch},
    }
    return [f"platform {label} {key} {value}" for label, kv in res.items() for key, value in kv.items()]


def run_host(art: HostArtifact, lines: list[str], *, what: str, timeout_s: float = HOST_TIMEOUT_S,
             memory_limit_mb: int = 2048) -> tuple[dict, str, bool]:
    """The harness's JSON answer to the case ``lines``, what the op code printed, and whether it ran in the
    sandbox; a failed run raises :class:`HostRunError` (``what`` names the project in its message)."""
    root = run_root()
    reap_dead_jobs(root)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{os.getpid()}.", dir=root))
    try:
        token = secrets.token_hex(16)
        report = run_dir / "report.tsv"
        case = [f"report {report}", f"token {token}", f"timeout {max(1, int(timeout_s + 0.999))}", *lines]
        (run_dir / "case.txt").write_text("\n".join(case) + "\n")
        with open(run_dir / "log.txt", "wb") as log:
            proc = popen_limited([art.exe, run_dir / "case.txt"], cwd=run_dir, memory_bytes=int(memory_limit_mb) << 20,
                                 file_bytes=HOST_FILE_LIMIT, isolate=True, stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=subprocess.STDOUT)
        timed_out = False
        try:
            proc.wait(timeout=WALL_FACTOR * timeout_s + 5)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_session(proc)
        except BaseException:
            kill_session(proc)
            raise
        log_text = _read_log(run_dir / "log.txt")
        text = report.read_text(errors="replace") if report.exists() else ""
        answer, sandboxed = _answer(text, token, proc.returncode, timed_out, log_text, what, timeout_s)
        return answer, log_text, sandboxed
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _read_log(path: Path) -> str:
    text, cut, _ = read_head(path, HOST_LOG_KEEP)
    return text + (f"\n[{cut:,} more bytes not shown]" if cut else "")


def _answer(report: str, token: str, rc: int, timed_out: bool, log: str, what: str,
            timeout_s: float) -> tuple[dict, bool]:
    sandboxed, note, answer = False, "", None
    for line in report.splitlines():
        f = line.split("\t")
        tag = f[0]
        if tag == "S" and len(f) >= 2 and not sandboxed and not note:
            sandboxed, note = f[1] == "1", "\t".join(f[2:])
        elif tag == "R" and len(f) >= 3 and f[1] == token:
            answer = json.loads("\t".join(f[2:]))
        elif tag == "V" and len(f) >= 3:
            raise HostRunError(f"sandbox violation: the host code of {what} made a forbidden system call ({f[1]}) in "
                               f"{f[2]}: {_FORBIDDEN}", phase=f[2], log=log, violation=f[1], hint=_tail(log))
        elif tag == "C" and len(f) >= 3:
            cpu = "SIGXCPU" in f[1]
            msg = (f"the host code of {what} used more than its {timeout_s:g} s of CPU time in {f[2]} (it hangs or "
                   f"is too slow) and was stopped" if cpu else f"the host code of {what} crashed in {f[2]}: {f[1]}")
            raise HostRunError(msg, phase=f[2], log=log, hint=_tail(log))
        elif tag == "Q" and len(f) >= 3:
            raise HostRunError(f"the host code of {what} called exit() in {f[2]}: op code must return to the "
                               f"framework, so its results are not used", phase=f[2], log=log, hint=_tail(log))
    if answer is not None:
        return answer, sandboxed
    if timed_out:
        raise HostRunError(f"the host code of {what} was still running after {WALL_FACTOR * timeout_s + 5:g} s "
                           f"(waiting, or starved of CPU) and was stopped", log=log, hint=_tail(log))
    if rc is not None and rc < 0:
        why = "killed by SIGSYS (a forbidden system call with every signal blocked)" if rc == -31 else \
            f"killed by signal {-rc}"
        raise HostRunError(f"the host code of {what} was {why}", log=log, hint=_tail(log))
    raise HostRunError(f"the host harness of {what} ended without an answer (exit status {rc}"
                       + ("" if sandboxed or not note else f"; {note}") + ")", log=log, hint=_tail(log))


def _tail(log: str, lines: int = 15) -> str | None:
    tail = [ln for ln in log.splitlines() if ln.strip()][-lines:]
    return ("what it printed last:\n" + "\n".join(tail)) if tail else None

