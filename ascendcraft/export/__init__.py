"""``ascendcraft export``: gen and bench runs, or the bundled examples, as a training dataset in
the Hugging Face ``datasets`` layout (docs/training.md, "Datasets").

Python API (the CLI is a thin layer over it)::

    from ascendcraft.export import export_runs, export_examples
    r = export_runs(["kernels_out/bench"], "datasets/sft", exclude_tasks=["MultiKernelBench/reference"])
    r.records, r.excluded, r.data_file          # datasets.load_dataset("json", data_files=str(r.data_file))
    export_examples("datasets/seed", only=["activation/"], trials=1)

The folder holds ``data/train.jsonl`` (or ``train.parquet``) and README.md, the dataset card.
"""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Iterable

from .. import __version__
from ..chips import DEFAULT_CHIP
from ..errors import UserError
from .leakage import Exclusions, exclusions
from .records import SampleRecord, pair_of
from .summary import ExportResult
from .writer import data_path, require_format, write_dataset

__all__ = ["ExportResult", "export_examples", "export_runs"]


def export_runs(run_dirs: Iterable[str | Path], out: str | Path, *, force: bool = False, format: str = "jsonl",
                exclude_ids: Iterable[str] = (), exclude_hashes: Iterable[str] = (),
                exclude_tasks: Iterable[str | Path] = (), pairs: bool = False,
                command: str | None = None) -> ExportResult:
    """Export every sample of the gen and bench output folders ``run_dirs`` (or folders holding
    them) into the dataset folder ``out``; with ``pairs``, one (op, DSL, AscendC) triple per
    verified kernel instead. ``exclude_*``: the leakage filter (task ids ``category/name``,
    sha256 content hashes, op files or folders whose every task is excluded by id and by hash).
    ``command`` is the command line the card records (default: this call)."""
    from .runs import find_runs, read_runs
    run_dirs = [str(p) for p in run_dirs]
    out = Path(out)
    filters = _prepare(out, format, force, exclude_ids, exclude_hashes, exclude_tasks)
    runs = find_runs(run_dirs)
    records, without = read_runs(runs)
    return _finish(out, records, filters, read=len(records), pairs=pairs, fmt=format, force=force,
                   sources=tuple(str(r.path) for r in runs), without_samples=without,
                   command=command or _call("export_runs", [run_dirs, str(out)],
                                             {"pairs": (pairs, False), "format": (format, "jsonl")}))


def export_examples(out: str | Path, *, only: Iterable[str] = (), trials: int = 1, chip: str = DEFAULT_CHIP,
                    force: bool = False, format: str = "jsonl", exclude_ids: Iterable[str] = (),
                    exclude_hashes: Iterable[str] = (), exclude_tasks: Iterable[str | Path] = (),
                    pairs: bool = False, command: str | None = None, progress=None) -> ExportResult:
    """Lower each bundled example (those whose id holds one of ``only``; all without it) on the
    simulator at its op's shapes with ``trials`` verification trials, and export it as a record
    of kind ``example`` with every level and its AscendC. An example that does not lower is
    skipped and listed in ``result.failures``. ``progress``: an :class:`ascendcraft.progress.Progress`
    (a line per example)."""
    from ..llm.prompt import examples_root
    from .examples import example_records, find_examples
    if not isinstance(trials, int) or trials < 1:
        raise UserError(f"trials must be a positive integer, not {trials!r}")
    out, only = Path(out), list(only)
    filters = _prepare(out, format, force, exclude_ids, exclude_hashes, exclude_tasks)
    root = examples_root()
    folders = find_examples(root, only)
    excluded: dict[str, int] = {}

    def drop(task) -> bool:
        reason = filters.reason(task)
        if reason is not None:
            excluded[reason] = excluded.get(reason, 0) + 1
        return reason is not None
    records, failures = example_records(folders, chip=chip, trials=trials, excluded=drop, progress=progress)
    return _finish(out, records, filters, read=len(folders), pairs=pairs, fmt=format, force=force,
                   sources=(str(root),), failures=tuple(failures), excluded_before=excluded,
                   command=command or _call("export_examples", [str(out)],
                                             {"only": (only, []), "trials": (trials, 1), "chip": (chip, DEFAULT_CHIP),
                                              "pairs": (pairs, False), "format": (format, "jsonl")}))


def _prepare(out: Path, fmt: str, force: bool, ids, hashes, tasks) -> Exclusions:
    """Everything that can fail before the work: the format, the filter, the output folder."""
    from ..outdir import check_writable
    require_format(fmt)
    filters = exclusions(list(ids), list(hashes), [str(t) for t in tasks])
    check_writable(out, force=force)
    return filters


def _finish(out: Path, records: list[SampleRecord], filters: Exclusions, *, read: int, pairs: bool, fmt: str,
            force: bool, sources: tuple[str, ...], command: str, without_samples: int = 0, failures=(),
            excluded_before: dict | None = None) -> ExportResult:
    """Filter, shape and write the records; the result says what was left out and why."""
    excluded = dict(excluded_before or {})
    kept = []
    for rec in records:
        reason = filters.reason(rec.task)
        if reason is None:
            kept.append(rec)
        else:
            excluded[reason] = excluded.get(reason, 0) + 1
    rows = [r.to_json() for r in kept] if not pairs else [p.to_json() for r in kept if (p := pair_of(r))]
    written = kept if not pairs else [r for r in kept if pair_of(r) is not None]
    if not rows:
        raise UserError(f"nothing to export: {read} read, {sum(excluded.values())} removed by the leakage filter"
                        + (f", {len(failures)} did not lower" if failures else "")
                        + (", and no verified kernel with its op file and AscendC among the rest" if pairs else ""),
                        hint="nothing was written; check the folders and the filters")
    by_kind: dict[str, int] = {}
    for r in written:
        by_kind[r.kind] = by_kind.get(r.kind, 0) + 1
    result = ExportResult(
        out=out, data_file=out / data_path(fmt), card_file=out / "README.md", pairs=pairs, records=len(rows),
        tasks=len({r.task.id for r in written}), verified=sum(r.verified for r in written), by_kind=by_kind,
        read=read, excluded=excluded, exclusions=filters, unhashed=sum(r.task.sha256 is None for r in kept),
        incomplete=sum(r.verified for r in kept) - len(rows) if pairs else 0, without_samples=without_samples,
        sources=sources, failures=tuple(failures))

    def card() -> str:
        from .card import dataset_card
        return dataset_card(result, command=command, version=__version__,
                            date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    write_dataset(out, rows, card, fmt=fmt, force=force)
    return result


def _call(name: str, positional: list, options: dict) -> str:
    """The API call as the card records it: its arguments, and the options given as
    ``name: (value, default)`` when the value is not the default."""
    shown = [f"{k}={v!r}" for k, (v, default) in options.items() if v != default or type(v) is not type(default)]
    return f"ascendcraft.export.{name}({', '.join([repr(p) for p in positional] + shown)})"
