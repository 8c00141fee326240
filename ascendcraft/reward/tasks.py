"""Which op a reward input names: an op file or task folder by path, or a task id
(``category/name``, as bench and results.jsonl key tasks) found under the task roots (by
default the bundled examples)."""
from __future__ import annotations

from pathlib import Path

from ..errors import UserError


class TaskResolver:
    def __init__(self, roots: list[str | Path] | None = None, *, base: Path | None = None):
        self.roots = [Path(r) for r in roots] if roots else None
        self.base = base               # relative paths are tried here first (the JSONL's folder)
        self._ids: dict[str, Path] | None = None

    def __call__(self, task) -> Path:
        if isinstance(task, Path) or (isinstance(task, str) and task.strip()):
            text = str(task)
            for candidate in ([self.base / text] if self.base is not None and not Path(text).is_absolute() else []) \
                    + [Path(text)]:
                if candidate.exists():
                    return candidate.resolve()
            found = self.ids().get(text.strip("/"))
            if found is not None:
                return found
            roots = ", ".join(str(r) for r in self._roots()) or "none"
            raise UserError(f"task {text!r} is neither an op file or task folder nor a task id under the task "
                            f"roots ({roots})",
                            hint="give an op file's path, or a task id category/name with --tasks DIR naming "
                                 "the folder that holds it")
        raise UserError(f"a task is an op file's path or a task id (category/name), not {task!r}")

    def _roots(self) -> list[Path]:
        if self.roots is not None:
            return self.roots
        from ..llm.prompt import examples_root
        root = examples_root()
        return [root] if root is not None else []

    def ids(self) -> dict[str, Path]:
        if self._ids is None:
            from ..bench.tasks import find_tasks
            self._ids = {}
            for root in self._roots():
                if not root.is_dir():
                    raise UserError(f"task root {root} is not a folder")
                for t in find_tasks([str(root)]):
                    self._ids.setdefault(t.id, t.op.resolve())
        return self._ids
