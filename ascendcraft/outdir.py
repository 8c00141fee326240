"""Result directories that never cost the user a file: a run leaves a complete
``kernels_out/<op>/``, the previous complete one, or nothing.

* Files are written into a hidden sibling (``.<name>.partial-<pid>-*``); only when the whole
  run succeeded is it renamed into place. Any failure, Ctrl-C included, removes it.
* Every directory ascendcraft makes holds a marker file (:data:`MARKER`). ``force`` replaces
  only such a directory (or an empty one): a folder of the user's own files is never removed,
  whatever the flags.
* A failed run never replaces a good result: its files go to ``<out>.failed`` (see
  :func:`failure_dir`).
* A run killed in its write window (SIGKILL) leaves a ``.partial-<pid>`` or ``.old-<pid>``
  sibling; the next run on the same folder removes it, and puts a previous result back when
  the kill fell between the two renames (the only moment no result is in place).
* Two runs committing to one folder are serialised by a lock on the parent directory; the
  second finds the first's result and, without ``force``, stops with a clear error.
* Filesystem errors (a path under a regular file, a read-only mount, /proc) are user errors
  naming the path.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import UserError
from .processes import pid_alive

#: The file that marks a directory as made by ascendcraft (and so replaceable with --force).
MARKER = ".ascendcraft"


def default_out(op) -> Path:
    """kernels_out/<op>: the op file's name, or its folder's name for .../<op>/op.py."""
    p = Path(op)
    return Path("kernels_out") / (p.resolve().parent.name if p.stem == "op" else p.stem)


def ours(path: Path) -> bool:
    """Whether ``path`` is a directory ascendcraft made (it holds the marker) or an empty one."""
    try:
        return path.is_dir() and ((path / MARKER).is_file() or not any(path.iterdir()))
    except OSError:
        return False


def failure_dir(out: Path | str, *, force: bool = False) -> Path:
    """Where a failed run's files go: ``out`` when it is free, else beside it in ``<out>.failed``
    (replaced each time when ascendcraft made it), so a failure never replaces a good result,
    with ``force`` or without."""
    out = Path(out)
    return out if not out.exists() else out.with_name(out.name + ".failed")


def _fs_error(path: Path, err: OSError, doing: str = "write the output directory") -> UserError:
    why = err.strerror or str(err)
    if err.errno == errno.ENOTDIR:
        why = "a part of the path is a file, not a directory"
    elif err.errno == errno.EROFS:
        why = "the file system is read-only"
    return UserError(f"cannot {doing} {path}: {why}",
                     hint="choose another --out (a folder you can write, not inside a file or a read-only mount)")


def check_writable(final: Path | str, *, force: bool) -> Path:
    """Fail early (before any work) when ``final`` cannot take a result: it holds one and
    ``force`` is off, it holds files ascendcraft did not make, or it cannot be written."""
    final = Path(final)
    target = final.resolve()
    _recover(target)
    if target.exists() or target.is_symlink():
        if not target.is_dir():
            raise UserError(f"output path {final} exists and is not a directory", hint="choose another --out")
        if not ours(target):
            raise UserError(f"output directory {final} holds files ascendcraft did not make (no {MARKER} marker in "
                            f"it); it is left alone, with --force too",
                            hint="choose another --out, for example a new folder under kernels_out/")
        if not force and any(target.iterdir()):
            raise UserError(f"output directory {final} already exists",
                            hint="pass --force to replace it, or choose another --out")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        probe = Path(tempfile.mkdtemp(prefix=f".{target.name}.probe-{os.getpid()}-", dir=target.parent))
        probe.rmdir()
    except OSError as err:
        raise _fs_error(final, err) from None
    return final


_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<kind>partial|old|probe)-(?P<pid>\d+)-")


def _recover(final: Path) -> None:
    """Remove what killed runs left beside ``final``; put back a previous result a kill left
    in an ``.old-`` sibling with nothing in its place."""
    try:
        siblings = list(final.parent.iterdir()) if final.parent.is_dir() else []
    except OSError:
        return
    for p in siblings:
        m = _LEFTOVER.match(p.name)
        if not m or m["name"] != final.name or pid_alive(int(m["pid"])):
            continue
        kept = p / final.name
        if m["kind"] == "old" and kept.is_dir() and not final.exists():
            try:
                os.rename(kept, final)
            except OSError:
                pass
        shutil.rmtree(p, ignore_errors=True)


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_output_dir(final: Path | str, *, force: bool = False, kind: str = "result") -> Iterator[Path]:
    """Yield an empty staging directory; on normal exit it becomes ``final`` (with the marker)."""
    shown = Path(final)
    check_writable(shown, force=force)
    final = shown.resolve()
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.partial-{os.getpid()}-", dir=final.parent))
        os.chmod(staging, 0o777 & ~_umask())      # mkdtemp makes 0700; results are ordinary folders
    except OSError as err:
        raise _fs_error(shown, err) from None
    try:
        yield staging
        (staging / MARKER).write_text(json.dumps({"made_by": "ascendcraft", "kind": kind}) + "\n")
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise _fs_error(shown, err) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        with _locked(final.parent):
            _commit(staging, final, shown, force)
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise _fs_error(shown, err) from None


def _commit(staging: Path, final: Path, shown: Path, force: bool) -> None:
    """Rename ``staging`` to ``final`` (under the parent's lock), replacing only our own result."""
    if final.exists():
        if not ours(final):
            shutil.rmtree(staging, ignore_errors=True)
            raise UserError(f"output directory {shown} now holds files ascendcraft did not make; it is left alone",
                            hint="choose another --out")
        if not force and any(final.iterdir()):
            shutil.rmtree(staging, ignore_errors=True)
            raise UserError(f"output directory {shown} was written by another run while this one worked",
                            hint="pass --force to replace it, or choose another --out")
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-{os.getpid()}-", dir=final.parent))
        os.rename(final, old / final.name)
    try:
        os.rename(staging, final)
    except BaseException:
        if old is not None:  # put the previous result back
            os.rename(old / final.name, final)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
