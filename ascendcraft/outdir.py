"""Result directories that never cost the user a file: a run leaves a complete
``kernels_out/<op>/``, the previous complete one, or nothing.

* Files are written into a hidden sibling (``.<name>.partial-<pid>-*``); only when the whole
  run succeeded is it put in place. Any failure, Ctrl-C included, removes it.
* Every directory ascendcraft makes holds a marker file (:data:`MARKER`) that lists every file
  and folder the run wrote. ``force`` replaces only a directory holding nothing else (or an
  empty one): a folder with one file of the user's in it is never removed, whatever the flags;
  the error names the file (:func:`foreign`).
* A failed run never replaces a good result: its files go to ``<out>.failed`` (see
  :func:`failure_dir`).
* An empty folder that holds the current folder (``--out .``) is filled in place: putting a new
  folder in its place would leave the user's shell in a removed folder.
* The swap is one step where Linux can (``renameat2(RENAME_EXCHANGE)``): the folder holds the
  complete old result or the complete new one at every moment, SIGKILL included. Ctrl-C during
  the swap waits for its end (the new result is then in place and the run completes). A run
  killed in its write window leaves a ``.partial-<pid>`` or ``.old-<pid>`` sibling. The command
  removes it when only its worker was killed (the worker names its folders to it,
  processes.tell_parent; SIGTERM, SIGHUP and a killed command stop the worker as Ctrl-C does);
  when both die at once, the next run on the same folder (or its ``.failed`` twin) removes it,
  and puts a previous result back when, without the one-step swap, the kill fell between the
  two renames.
* Two runs committing to one folder are serialised by a lock on the parent directory; the
  second finds the first's result and, without ``force``, stops with a clear error.
* Filesystem errors (a path under a regular file, a read-only mount, /proc) are user errors
  naming the path.
"""
from __future__ import annotations

import errno
import fcntl
import functools
import json
import os
import re
import secrets
import shutil
import stat
import sys
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Iterator

from .errors import Interrupted, UserError
from .processes import pid_alive, tell_parent

#: The file that marks a directory as made by ascendcraft and lists what the run wrote in it.
MARKER = ".ascendcraft"
#: What a result or a bench folder holds at its top: a folder whose marker lists no files
#: (written by an ascendcraft before the list, or by ``bench``, which adds files as tasks finish)
#: is ascendcraft's only while it holds nothing else.
KNOWN_NAMES = frozenset({
    "kernel.dsl", "passes", "ascendc", "project", "llm", "report.json", "report.md", "timeline.json", "timeline.png",
    "results.jsonl", "settings.json", "bench.json", "bench.md", "bench.csv", "bench.png", "tasks"})


def default_out(op) -> Path:
    """kernels_out/<op>: the op file's name, or its folder's name for .../<op>/op.py."""
    p = Path(op)
    return Path("kernels_out") / (p.resolve().parent.name if p.stem == "op" else p.stem)


# --------------------------------------------------------------------------- what is ours

def _entries(root: Path, prefix: str = "") -> Iterator[str]:
    """Every file and folder under ``root`` (relative, folders ending in ``/``; symlinks are not
    followed), the marker left out."""
    with os.scandir(root) as it:
        found = sorted(it, key=lambda e: e.name)
    for e in found:
        if not prefix and e.name == MARKER:
            continue
        if e.is_dir(follow_symlinks=False):
            yield prefix + e.name + "/"
            yield from _entries(Path(e.path), prefix + e.name + "/")
        else:
            yield prefix + e.name


def write_marker(directory: Path, kind: str) -> None:
    """Mark ``directory`` as ascendcraft's, listing everything in it (what ``force`` may replace)."""
    (directory / MARKER).write_text(json.dumps({"made_by": "ascendcraft", "kind": kind,
                                                "files": list(_entries(directory))}, indent=0) + "\n")


def _listed(directory: Path) -> set[str] | None:
    """What the marker of ``directory`` lists: None for a marker that lists nothing (see
    :data:`KNOWN_NAMES`), an empty set without a readable marker."""
    marker = directory / MARKER
    try:
        st = os.lstat(marker)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 64 << 20:
            return set()
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    files = data.get("files") if isinstance(data, dict) else []
    if files is None:
        return None
    return set(files) if isinstance(files, list) and all(isinstance(f, str) for f in files) else set()


class _Enough(Exception):
    pass


def foreign(directory: Path | str, limit: int = 5) -> list[str]:
    """The files and folders in ``directory`` that no ascendcraft run wrote (at most ``limit`` + 1,
    relative, folders ending in ``/``): all of them without a marker, none in an empty folder."""
    directory = Path(directory)
    listed = _listed(directory)
    found: list[str] = []

    def walk(d: Path, prefix: str) -> None:
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if not prefix and e.name == MARKER and e.is_file(follow_symlinks=False):
                continue
            is_dir = e.is_dir(follow_symlinks=False)
            rel = prefix + e.name + ("/" if is_dir else "")
            if listed is None:                          # a marker without a list: known names only
                ok, descend = e.name in KNOWN_NAMES, False
            else:
                ok, descend = rel in listed, is_dir
            if not ok:
                found.append(rel)
                if len(found) > limit:
                    raise _Enough
            elif descend:
                walk(Path(e.path), rel)
    try:
        walk(directory, "")
    except _Enough:
        pass
    return found


def ours(path: Path) -> bool:
    """Whether ``path`` is a directory holding only what ascendcraft wrote (or an empty one)."""
    try:
        return path.is_dir() and not foreign(path, limit=0)
    except OSError:
        return False


def _not_ours(shown: Path, found: list[str], limit: int = 5, *, now: bool = False) -> UserError:
    names = ", ".join(found[:limit]) + (" and more" if len(found) > limit else "")
    return UserError(f"output directory {shown} {'now ' if now else ''}holds files ascendcraft did not make: {names}; "
                     f"it is left alone, with --force too",
                     hint="choose another --out, for example a new folder under kernels_out/, or move those files "
                          "out (--force replaces only a folder holding nothing but what an earlier run wrote there)")


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


def _may_replace(target: Path, shown: Path, force: bool, *, now: bool = False) -> None:
    """Raise unless ``target`` (which exists) may take a new result."""
    if not target.is_dir():
        raise UserError(f"output path {shown} exists and is not a directory", hint="choose another --out")
    found = foreign(target)
    if found:
        raise _not_ours(shown, found, now=now)
    if not force and any(target.iterdir()):
        if now:
            raise UserError(f"output directory {shown} was written by another run while this one worked",
                            hint="pass --force to replace it, or choose another --out")
        raise UserError(f"output directory {shown} already exists",
                        hint="pass --force to replace it, or choose another --out")


def check_writable(final: Path | str, *, force: bool) -> Path:
    """Fail early (before any work) when ``final`` cannot take a result: it holds one and
    ``force`` is off, it holds files ascendcraft did not make, or it cannot be written."""
    final = Path(final)
    target = final.resolve()
    reap_leftovers(target)
    try:
        if target.exists() or target.is_symlink():
            _may_replace(target, final, force)
        target.parent.mkdir(parents=True, exist_ok=True)
        probe = _sibling(target, "probe")
        try:
            probe.mkdir()
        finally:
            with suppress(OSError):
                probe.rmdir()
    except OSError as err:
        raise _fs_error(final, err) from None
    return final


def _sibling(final: Path, kind: str) -> Path:
    """The name of a folder beside ``final`` that a run makes for a while (``probe``, ``partial``,
    ``old``), which :func:`reap_leftovers` recognises. Named before it is made, so the handler of a
    stop that comes while it is made knows what to remove."""
    return final.parent / f".{final.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


# --------------------------------------------------------------------------- leftovers of killed runs

_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<kind>partial|old|probe)-(?P<pid>\d+)-")


def reap_leftovers(final: Path) -> None:
    """Remove what killed runs left beside ``final`` (and its ``.failed`` twin); put back a previous
    result a kill left in an ``.old-`` sibling with nothing in its place."""
    try:
        siblings = list(final.parent.iterdir()) if final.parent.is_dir() else []
    except OSError:
        return
    for p in siblings:
        m = _LEFTOVER.match(p.name)
        if not m or m["name"] not in (final.name, final.name + ".failed") or pid_alive(int(m["pid"])):
            continue
        target = final.parent / m["name"]
        kept = p / m["name"]
        if m["kind"] == "old" and kept.is_dir() and not (target.exists() or target.is_symlink()):
            try:
                os.rename(kept, target)
            except OSError:
                pass
        shutil.rmtree(p, ignore_errors=True)


# --------------------------------------------------------------------------- writing and the swap

@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextmanager
def _ctrl_c_waits() -> Iterator[None]:
    """Within the block a Ctrl-C does not stop the run: it is noted and dropped, so the swap
    always ends with one whole result in place. Only the main thread gets KeyboardInterrupt, and
    only from a Python handler (a default or ignored SIGINT raises nothing here). The command
    turns SIGTERM and SIGHUP into a SIGINT to its worker (cli.entry), so they wait too."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread() or not callable(signal.getsignal(signal.SIGINT)):
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_RENAME_EXCHANGE = 2           # renameat2(2) flag
_AT_FDCWD = -100


@functools.lru_cache(maxsize=1)
def _renameat2():
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None


def _exchange(a: Path, b: Path) -> bool:
    """Swap directories ``a`` and ``b`` in one step (Linux ``renameat2(RENAME_EXCHANGE)``), so
    ``b`` holds one of them at every moment; False where the system cannot (no renameat2, a file
    system without the flag)."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    import ctypes
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), ctypes.c_uint(_RENAME_EXCHANGE)) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextmanager
def atomic_output_dir(final: Path | str, *, force: bool = False, kind: str = "result") -> Iterator[Path]:
    """Yield an empty staging directory; on normal exit it becomes ``final`` (with the marker).
    A Ctrl-C before the swap raises :class:`~ascendcraft.errors.Interrupted` saying what ``final``
    still holds."""
    shown = Path(final)
    check_writable(shown, force=force)
    final = shown.resolve()
    tell_parent("out", str(final))        # a killed worker's leftovers here are reaped by the command
    staging = _sibling(final, "partial")
    try:
        try:
            staging.mkdir(mode=0o777)      # the umask applies: results are ordinary folders
        except OSError as err:
            raise _fs_error(shown, err) from None
        yield staging
        write_marker(staging, kind)
        with _locked(final.parent):
            _commit(staging, final, shown, force)
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise _fs_error(shown, err) from None
    except KeyboardInterrupt:
        shutil.rmtree(staging, ignore_errors=True)
        raise Interrupted(f"{shown} still holds the previous result" if _holds_files(final)
                          else f"nothing was written to {shown}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _holds_files(path: Path) -> bool:
    try:
        return path.is_dir() and any(path.iterdir())
    except OSError:
        return False


def _commit(staging: Path, final: Path, shown: Path, force: bool) -> None:
    """Put ``staging`` in place of ``final`` (under the parent's lock), replacing only what an
    earlier run wrote. On an error ``final`` is as it was and ``staging`` holds the new files."""
    with _ctrl_c_waits():
        if not (final.exists() or final.is_symlink()):
            os.rename(staging, final)
            return
        _may_replace(final, shown, force, now=True)
        if _is_empty_dir(final) and _holds_cwd(final):
            _fill(staging, final)
            return
        previous, holder = _swap(staging, final)
        try:                                # checked again out of the way: nothing can be added to it now
            found = foreign(previous)
        except OSError as err:
            found = [f"(a folder it cannot read: {err.strerror})"]
        if found:
            if not _swap_back(staging, final, previous, holder):    # where the swap just worked: never seen
                kept = final.with_name(f"{final.name}.previous-{os.getpid()}")
                os.rename(previous, kept)
                raise UserError(f"output directory {shown} held files ascendcraft did not make "
                                f"({', '.join(found)}); it could not be put back and is now {kept}",
                                hint="move your files back from there")
            raise _not_ours(shown, found, now=True)
        shutil.rmtree(holder, ignore_errors=True)


def _is_empty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    except OSError:
        return False


def _holds_cwd(folder: Path) -> bool:
    """Whether the current folder is ``folder`` or inside it (``--out .``)."""
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        return False
    return cwd == folder or folder in cwd.parents


def _fill(staging: Path, final: Path) -> None:
    """Move the new result into the empty folder ``final`` entry by entry, keeping the folder
    itself: putting a new folder in its place would leave a shell whose current folder it is in
    a removed one. The marker goes first, so a kill midway leaves a folder that is still
    ascendcraft's (``--force`` replaces it); nothing of the user's was there to lose."""
    entries = sorted(staging.iterdir(), key=lambda p: p.name != MARKER)
    for entry in entries:
        os.rename(entry, final / entry.name)
    staging.rmdir()


def _swap(staging: Path, final: Path) -> tuple[Path, Path]:
    """Put ``staging`` in the place of ``final``; return where the previous folder is now and the
    folder to remove with it. One step where the system can; else two renames (a kill between
    them leaves an ``.old-`` folder that :func:`reap_leftovers` puts back)."""
    if _exchange(staging, final):
        return staging, staging
    holder = _sibling(final, "old")
    holder.mkdir(mode=0o700)
    previous = holder / final.name
    os.rename(final, previous)
    try:
        os.rename(staging, final)
    except BaseException:
        os.rename(previous, final)
        holder.rmdir()
        raise
    return previous, holder


def _swap_back(staging: Path, final: Path, previous: Path, holder: Path) -> bool:
    """Undo :func:`_swap`: the previous folder in place again, the new one at ``staging``."""
    try:
        if holder is staging:
            return _exchange(staging, final)
        os.rename(final, staging)
        os.rename(previous, final)
        holder.rmdir()
        return True
    except OSError:
        return False
