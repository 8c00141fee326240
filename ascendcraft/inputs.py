"""Input paths are checked for their kind and size before anything reads them.

A kernel or op file is read whole, so it must be a regular file of at most
:data:`MAX_INPUT_BYTES`: ``/dev/zero`` as the kernel used to be read until the machine ran out
of memory, and a named pipe (FIFO) hung the command. A folder is accepted only where a folder
is expected. Each failure is a :class:`UserError` (exit 2) naming the file and what it is.

A missing or unreadable path is left to the code that reads it (it says "no such kernel file",
"task file ... does not exist", in the order the command needs them).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import UserError

#: The largest kernel or op file read (4 MiB): the bundled ones are a few KiB, MultiKernelBench's
#: op files under 10 KiB.
MAX_INPUT_BYTES = 4 << 20

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def check_file(path, what: str) -> None:
    """``path`` (if it exists) is a regular file of at most :data:`MAX_INPUT_BYTES`: its content
    is read (up to one byte past the bound) to tell, so a file whose size the system does not
    report (``/proc``) is measured too."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    if not stat.S_ISREG(mode):      # checked before opening: opening a device or a pipe can block or act
        raise UserError(f"{what} {path} is {_kind(mode)}, not a regular file",
                        hint=f"pass the {what} itself; ascendcraft reads inputs only from regular files")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):     # replaced since the stat
            raise UserError(f"{what} {path} is not a regular file",
                            hint=f"pass the {what} itself; ascendcraft reads inputs only from regular files")
        try:
            size = len(f.read(MAX_INPUT_BYTES + 1))
        except OSError:
            return
    if size > MAX_INPUT_BYTES:
        raise UserError(f"{what} {path} is larger than {MAX_INPUT_BYTES >> 20} MiB, the most an input file may hold",
                        hint="is it the right file? kernel and op files are text of a few KiB "
                             "(the bound is ascendcraft.inputs.MAX_INPUT_BYTES)")


def check_folder(path, what: str) -> None:
    """``path`` (if it exists) is a folder."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    if not stat.S_ISDIR(mode):
        raise UserError(f"{what} {path} is {_kind(mode) if not stat.S_ISREG(mode) else 'a file'}, not a folder",
                        hint=f"{what} takes a folder")


def check_op(path, what: str = "op file") -> None:
    """An op: a regular file, or a folder holding ``op.py`` (as ``task.load_task`` takes it)."""
    if os.path.isdir(path) and os.path.lexists(Path(path) / "op.py"):
        check_file(Path(path) / "op.py", what)
    elif not os.path.isdir(path):
        check_file(path, what)


def check_file_or_folder(path, what: str) -> None:
    """A regular file (bounded as :func:`check_file`) or a folder (a bench TASK)."""
    if not os.path.isdir(path):
        check_file(path, what)
