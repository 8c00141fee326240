"""The simulator's build cache folder: built kernels, the precompiled header and the runtime object,
the launcher, probes."""
from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from ..errors import UserError

_WRITABLE: set[Path] = set()


def cache_dir() -> Path:
    """The build cache, ``$ASCENDCRAFT_CACHE_DIR/sim`` (default ``~/.cache/ascendcraft/sim``),
    made and (once per process) found writable: a file on the path or a read-only place is a
    user error naming the variable, before any build."""
    root = os.environ.get("ASCENDCRAFT_CACHE_DIR")
    base = Path(root) / "sim" if root else Path.home() / ".cache" / "ascendcraft" / "sim"
    try:
        base.mkdir(parents=True, exist_ok=True)
        if base not in _WRITABLE:
            os.rmdir(tempfile.mkdtemp(prefix=".probe.", dir=base))
            _WRITABLE.add(base)
    except OSError as err:
        why = ("a part of the path is a file, not a folder" if err.errno in (errno.ENOTDIR, errno.EEXIST)
               else err.strerror or str(err))
        where = f"ASCENDCRAFT_CACHE_DIR={root}" if root else "the default; ASCENDCRAFT_CACHE_DIR is not set"
        raise UserError(f"cannot use the simulator's build cache {base} ({where}): {why}",
                        hint="set ASCENDCRAFT_CACHE_DIR to a folder you can write (built kernels are kept there)"
                        ) from None
    return base
