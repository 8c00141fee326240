"""Records of a bench output folder (docs/bench.md): one per sample of each task's last record in
results.jsonl, with what the task's folder ``tasks/<category>/<name>/`` holds. A ``--model`` task's
folder is a gen folder (its conversations); a ``--kernels`` task has no conversation, and its
folder holds the given kernel, and its lowering when it was correct."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ..bench import RESULTS, SETTINGS
from ..bench.faults import is_outside
from ..errors import UserError
from .artifacts import read_lowering, read_text, task_source
from .gen_run import gen_records, is_gen_folder, load_json
from .records import Modeled, SampleRecord

CORRECT = "correct"


def is_bench_folder(folder: Path) -> bool:
    return (folder / RESULTS).is_file() and (folder / "tasks").is_dir()


def last_records(results: Path) -> list[dict]:
    """Each task's last record (a resumed run appends), in the order tasks first appear."""
    by_task: dict[str, dict] = {}
    for n, line in enumerate(results.read_text(encoding="utf-8").splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:          # a line cut short when a run was killed: bench ran that task again
            continue
        if not isinstance(record, dict) or "task" not in record:
            raise UserError(f"{results}:{n} is not a bench record", hint="export reads results.jsonl as bench wrote it")
        by_task[record["task"]] = record
    return list(by_task.values())


def bench_records(folder: Path, *, run: str) -> tuple[list[SampleRecord], int]:
    """The records of the bench run in ``folder``, and how many tasks gave none (not run: an
    outside fault, or stopped before any sample, e.g. a provider error)."""
    settings = load_json(folder / SETTINGS) if (folder / SETTINGS).is_file() else {}
    records, without = [], 0
    for r in last_records(folder / RESULTS):
        samples = r.get("samples") or []
        if is_outside(r) or not samples:
            without += 1
            continue
        task = task_source(r.get("op") or "", category=r.get("category"), name=r.get("name"))
        task_dir = folder / "tasks" / task.category / task.name
        eager_us = (r.get("eager") or {}).get("time_us")
        if r.get("mode") == "model" and is_gen_folder(task_dir):
            by_index = {s.get("sample"): s for s in samples}
            for rec in gen_records(task_dir, run=run, task=task):
                records.append(_with_outcome(rec, by_index.get(rec.sample), eager_us))
        else:
            records += [_kernel_record(task, task_dir, s, i, r, settings, run, eager_us)
                        for i, s in enumerate(samples, 1)]
    return records, without


def _modeled(sample: dict, eager_us: float | None) -> Modeled | None:
    if sample.get("kernel_us") is None:
        return None
    return Modeled(sample["kernel_us"], sample.get("floor_us"), sample.get("efficiency"), sample.get("bound"),
                   eager_us)


def _with_outcome(rec: SampleRecord, sample: dict | None, eager_us: float | None) -> SampleRecord:
    """A gen record of a bench task, with bench's verdict (its stages name build and run failures
    ``compile`` and ``correct``) and per-sample modeled time."""
    rec = dataclasses.replace(rec, kind="bench")
    if sample is None:
        return rec
    verified = sample.get("ended_at") == CORRECT
    return dataclasses.replace(rec, verified=verified, died_at=None if verified else sample.get("ended_at"),
                               error=None if verified else sample.get("error", rec.error),
                               modeled=_modeled(sample, eager_us) or rec.modeled)


def _kernel_record(task, task_dir: Path, sample: dict, index: int, record: dict, settings: dict, run: str,
                   eager_us: float | None) -> SampleRecord:
    """A ``--kernels`` sample (or a task cut off before it wrote a folder): no conversation."""
    verified = sample.get("ended_at") == CORRECT
    kernel = read_text(task_dir / "kernel.dsl")
    return SampleRecord(
        kind="bench", task=task, run=run, model=settings.get("model") if record.get("mode") == "model" else None,
        sample=sample.get("sample", index), chip=settings.get("chip"), prompt=None, turns=None,
        verified=verified, died_at=None if verified else sample.get("ended_at"),
        error=None if verified else sample.get("error"),
        dsl=kernel if verified else None, failed_dsl=None if verified else kernel,
        lowering=read_lowering(task_dir) if verified else None, modeled=_modeled(sample, eager_us))
