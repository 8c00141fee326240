"""Which tasks a bench run covers, and which kernel each one gets with ``--kernels``.

A TASK argument is an op file, or a directory searched for op files in MultiKernelBench's
layout (``reference/<category>/<op>.py``) or in this repository's (``<category>/<op>/op.py``),
or for NPUKernelBench's task folders (``tasks/<level>/<family>/<Op>/validation/module.py``).
The category is the folder that holds the op (its folder's folder for ``op.py``; the level for a
task folder).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..identity import category_and_name
from ..npukernelbench import MODULE, is_task_folder


@dataclass(frozen=True)
class BenchTask:
    op: Path                    # the op file
    category: str
    name: str
    kernel: Path | None = None  # the DSL kernel (--kernels), else None: a model writes it

    @property
    def id(self) -> str:
        """The task's key in results.jsonl and its folder under tasks/."""
        return f"{self.category}/{self.name}"


def _op_files(directory: Path) -> list[Path]:
    if is_task_folder(directory):
        return [directory]
    folders = sorted(m.parent.parent for m in directory.rglob(MODULE))
    if folders:
        return folders
    bundled = sorted(directory.rglob("op.py"))
    if bundled:
        return bundled
    return sorted(p for p in directory.rglob("*.py")
                  if not p.name.startswith(("_", "test_")) and "__pycache__" not in p.parts)


def find_tasks(arguments: list[str]) -> list[BenchTask]:
    """The tasks named by the command's TASK arguments, each once, in a stable order."""
    tasks: dict[str, BenchTask] = {}
    for arg in arguments:
        path = Path(arg)
        if path.is_dir():
            ops = _op_files(path)
            if not ops:
                raise UserError(f"no op files under {arg}",
                                hint="a TASK is an op file or a folder of them (reference/<category>/<op>.py "
                                     "as in MultiKernelBench, or <category>/<op>/op.py)")
        elif path.is_file():
            ops = [path]
        else:
            raise UserError(f"no such op file or folder: {arg}")
        for op in ops:
            category, name = category_and_name(op)
            task = BenchTask(op, category, name)
            if task.id in tasks and tasks[task.id].op.resolve() != op.resolve():
                raise UserError(f"two op files are both task {task.id}: {tasks[task.id].op} and {op}",
                                hint="bench each on its own, or rename one")
            tasks.setdefault(task.id, task)
    return list(tasks.values())


def kernel_for(task: BenchTask, directory: Path) -> Path | None:
    """The DSL kernel for ``task`` in ``directory``: ``<op>.dsl``, ``<category>/<op>.dsl`` or
    the bundled layout ``<category>/<op>/kernel.dsl``; None when there is none."""
    for candidate in (directory / f"{task.name}.dsl", directory / task.category / f"{task.name}.dsl",
                      directory / task.category / task.name / "kernel.dsl"):
        if candidate.is_file():
            return candidate
    return None


def with_kernels(tasks: list[BenchTask], directory: str | Path) -> list[BenchTask]:
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(f"--kernels {directory}: no such folder")
    return [BenchTask(t.op, t.category, t.name, kernel_for(t, directory)) for t in tasks]
