"""Atomic result directories: a run either leaves a complete ``kernels_out/<op>/`` or nothing.

Files are written into a hidden sibling directory; only when the whole run succeeded is it
renamed into place. A previous good result is replaced only when the caller says ``force``
(and then only after the new one is complete). Any failure, Ctrl-C included, removes the
half-written sibling.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import UserError


def default_out(op) -> Path:
    """kernels_out/<op>: the op file's name, or its folder's name for .../<op>/op.py."""
    p = Path(op)
    return Path("kernels_out") / (p.resolve().parent.name if p.stem == "op" else p.stem)


def failure_dir(out: Path | str, *, force: bool) -> Path:
    """Where a failed run's files go: ``out`` when it is free (or with ``force``), else beside it
    in ``<out>.failed`` (replaced each time), so a failure never overwrites a good result."""
    out = Path(out)
    return out if (force or not out.exists()) else out.with_name(out.name + ".failed")


def check_writable(final: Path | str, *, force: bool) -> Path:
    """Fail early (before any work) when ``final`` holds a result and ``force`` is off."""
    final = Path(final)
    if final.exists() and not force:
        raise UserError(f"output directory {final} already exists",
                        hint="pass --force to replace it, or choose another --out")
    if final.exists() and not final.is_dir():
        raise UserError(f"output path {final} exists and is not a directory", hint="choose another --out")
    return final


@contextmanager
def atomic_output_dir(final: Path | str, *, force: bool = False) -> Iterator[Path]:
    """Yield an empty staging directory; on normal exit it becomes ``final``."""
    final = check_writable(final, force=force)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.partial-", dir=final.parent))
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=final.parent))
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
