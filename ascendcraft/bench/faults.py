"""Outside faults: a task that did not run to its end for a reason that is neither the op file's,
nor the kernel's, nor the model's: a full disk, or a worker killed by a process bench does not
know (the OOM killer, a user's ``kill -9``).

Such a record carries ``outside``, its reason (``"disk full: ..."``, ``"killed from outside:
SIGKILL ..."``); the table counts the task as not run, not as failed, and ``--resume`` runs it
again (docs/bench.md, "Workers, time limits, resume").
"""
from __future__ import annotations

import errno
from collections import Counter

DISK_FULL = "disk full"
KILLED = "killed from outside"
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def disk_full(err: BaseException) -> str | None:
    """The outside reason when ``err``, or an error it was raised from, is a full disk (or quota)."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno in _NO_SPACE:
            # the outer message names the file being written (an AscendcraftError's, without its hint)
            return f"{DISK_FULL}: {getattr(err, 'message', None) or err}"
        cause = cause.__cause__ or cause.__context__
    return None


def killed(signal_name: str, by: str) -> str:
    """The outside reason of a worker a signal from elsewhere ended; ``by`` says where it came from."""
    return f"{KILLED}: {signal_name} {by}"


def is_outside(record: dict) -> bool:
    return bool(record.get("outside"))


def kind(record: dict) -> str:
    """The kind of a record's outside fault: the words before its reason's first colon."""
    return str(record["outside"]).split(":", 1)[0]


def kinds(records: list[dict]) -> dict[str, int]:
    """How many records of each outside kind."""
    return dict(Counter(kind(r) for r in records if is_outside(r)))
