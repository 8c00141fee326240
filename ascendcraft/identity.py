"""A task's identity: its id (``category/name``, as bench and results.jsonl key it) and a content
hash of the files that define it, so a training set can be shown not to hold a test task even
when the task was renamed or moved (docs/training.md).

The files hashed are the op file and, beside it, the ``<op>.json`` a ``get_input_groups()`` task
reads its groups from; for an NPUKernelBench task folder, its module, input builder, cases and
description (``ascendcraft.npukernelbench``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .npukernelbench import CASES, DESCRIPTION, MODULE, PREPARE, is_task_folder, level_of


@dataclass(frozen=True)
class TaskIdentity:
    category: str
    name: str
    sha256: str       # of the task's defining files (names and bytes), hex

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"


def category_and_name(op: Path) -> tuple[str, str]:
    """``(category, name)``: the level and folder of an NPUKernelBench task, the two folders above
    a bundled ``<category>/<op>/op.py``, else the op file's folder and stem."""
    if is_task_folder(op):
        return level_of(op), op.name
    if op.name == "op.py":
        return op.parent.parent.name or "uncategorised", op.parent.name
    return op.parent.name or "uncategorised", op.stem


def defining_files(op: Path) -> list[Path]:
    """The files whose bytes define the task at ``op`` (an op file, or an NPUKernelBench folder)."""
    if is_task_folder(op):
        return [op / rel for rel in (MODULE, PREPARE, CASES, DESCRIPTION) if (op / rel).is_file()]
    groups = op.with_suffix(".json")
    return [op] + ([groups] if groups.is_file() else [])


def task_hash(op: Path) -> str:
    """sha256 over each defining file's name (relative to the task) and bytes: the same task
    text gives the same hash wherever it lies."""
    op = Path(op)
    if op.is_dir() and not is_task_folder(op) and (op / "op.py").is_file():
        op = op / "op.py"
    h = hashlib.sha256()
    for f in defining_files(op):
        # named by role, not by file name: a renamed or moved task keeps its hash
        role = f.relative_to(op).as_posix() if op.is_dir() else ("op" if f == op else "groups")
        data = f.read_bytes()
        h.update(f"{role}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def task_identity(op: str | Path) -> TaskIdentity:
    op = Path(op)
    if op.is_dir() and not is_task_folder(op) and (op / "op.py").is_file():
        op = op / "op.py"
    category, name = category_and_name(op)
    return TaskIdentity(category, name, task_hash(op))
