"""What a results folder holds, read back as records' parts: the task (op file, hash, text) and
the lowering (``passes/NN_<pass>.dsl``, ``ascendc/<op>.cpp`` and ``<op>_tiling.h``, a generic
kernel's ``ascendc/<dtypes>/``), in the layout ``ascendcraft.results.write_lowered`` writes."""
from __future__ import annotations

import re
from pathlib import Path

from ..identity import category_and_name, defining_files, task_hash
from .records import AscendC, Level, Lowering, TaskSource

_LEVEL = re.compile(r"^(\d+)_(.+)\.dsl$")


def task_source(op_path: str, *, category: str | None = None, name: str | None = None,
                recorded_as: str | None = None) -> TaskSource:
    """The task at ``op_path`` (as a run recorded it, or ``recorded_as``): its id (``category``/
    ``name`` when the run named them, else from the path), and its hash and text when the op file
    still exists."""
    op = Path(op_path)
    if op_path and op.is_dir() and (op / "op.py").is_file():
        op = op / "op.py"
    if category is None or name is None:
        category, name = category_and_name(op)
    shown = recorded_as if recorded_as is not None else op_path
    if not op_path:          # Path("") is the current folder: never hash that
        return TaskSource(category, name, shown, None, "the run recorded no op file", None)
    if not op.exists():
        return TaskSource(category, name, shown, None, f"the op file is not at {op_path} any more", None)
    try:
        text = defining_files(op)[0].read_text(encoding="utf-8")
        return TaskSource(category, name, shown, task_hash(op), None, text)
    except (OSError, UnicodeDecodeError) as err:
        return TaskSource(category, name, shown, None, f"the op file cannot be read: {err}", None)


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def read_levels(passes: Path) -> tuple[Level, ...]:
    """Every ``NN_<pass>.dsl`` in order (a failed pass's ``failed_*`` programs are not levels)."""
    found = []
    for f in passes.iterdir() if passes.is_dir() else ():
        m = _LEVEL.match(f.name)
        if m and f.is_file():
            found.append((int(m.group(1)), m.group(2), f))
    return tuple(Level(name, f.read_text(encoding="utf-8")) for _, name, f in sorted(found))


def _ascendc_in(folder: Path, dtypes: str | None) -> AscendC | None:
    kernels = sorted(folder.glob("*.cpp"))
    if not kernels:
        return None
    headers = sorted(folder.glob("*_tiling.h"))
    return AscendC(kernels[0].read_text(encoding="utf-8"),
                   headers[0].read_text(encoding="utf-8") if headers else None, dtypes)


def read_lowering(folder: Path) -> Lowering | None:
    """The lowering a results folder holds; None when it holds neither levels nor AscendC."""
    levels = read_levels(folder / "passes")
    src = folder / "ascendc"
    main = _ascendc_in(src, None) if src.is_dir() else None
    instances = tuple(a for sub in sorted(p for p in src.iterdir() if p.is_dir())
                      if (a := _ascendc_in(sub, sub.name)) is not None) if src.is_dir() else ()
    if not levels and main is None:
        return None
    return Lowering(levels, main, instances)
