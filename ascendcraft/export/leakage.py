"""The leakage filter: tasks a training set must not hold (a benchmark's), named by id, by content
hash, or as op files and folders whose every task is excluded by both. A task renamed or moved
keeps its hash (ascendcraft.identity), so a copy under another name is still caught."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UserError
from ..identity import task_hash
from .records import TaskSource

BY_ID, BY_HASH, TASKS_BY_ID, TASKS_BY_HASH = ("--exclude-id", "--exclude-hash", "--exclude-tasks (by id)",
                                              "--exclude-tasks (by hash)")
#: The filters in the order a record is tested (it is counted under the first that matches).
FILTERS = (BY_ID, BY_HASH, TASKS_BY_ID, TASKS_BY_HASH)
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Exclusions:
    ids: frozenset[str] = frozenset()
    hashes: frozenset[str] = frozenset()
    task_ids: frozenset[str] = frozenset()        # of the tasks found under --exclude-tasks
    task_hashes: frozenset[str] = frozenset()
    task_paths: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.ids or self.hashes or self.task_paths)

    def reason(self, task: TaskSource) -> str | None:
        """The filter that removes ``task``, or None when it stays."""
        if task.id in self.ids:
            return BY_ID
        if task.sha256 is not None and task.sha256 in self.hashes:
            return BY_HASH
        if task.id in self.task_ids:
            return TASKS_BY_ID
        if task.sha256 is not None and task.sha256 in self.task_hashes:
            return TASKS_BY_HASH
        return None


def exclusions(ids=(), hashes=(), tasks=()) -> Exclusions:
    """Check the filter's arguments and find the tasks under each ``tasks`` path
    (``ascendcraft.bench.tasks.find_tasks``: op files, MultiKernelBench's reference/ layout, ...)."""
    from ..bench.tasks import find_tasks
    for task_id in ids:
        if task_id.count("/") != 1 or not all(task_id.split("/")):
            raise UserError(f"--exclude-id {task_id!r} is not a task id", hint="a task id is category/name, as bench "
                            "and results.jsonl write it (e.g. activation/leaky_relu)")
    for sha in hashes:
        if not _SHA256.fullmatch(sha.lower()):
            raise UserError(f"--exclude-hash {sha!r} is not a sha256", hint="64 hexadecimal digits, as a record's "
                            "task_sha256 (ascendcraft.identity.task_hash)")
    task_ids, task_hashes = set(), set()
    for path in tasks:
        try:
            found = find_tasks([path])
        except UserError as err:
            raise UserError(f"--exclude-tasks {path}: {err.message}", hint=err.hint) from None
        for t in found:
            task_ids.add(t.id)
            try:
                task_hashes.add(task_hash(t.op))
            except OSError as err:
                raise UserError(f"--exclude-tasks: cannot read {t.op}: {err.strerror or err}") from None
    return Exclusions(frozenset(ids), frozenset(h.lower() for h in hashes), frozenset(task_ids),
                      frozenset(task_hashes), tuple(str(p) for p in tasks))
