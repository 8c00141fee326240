"""What an export wrote and left out: the result the API returns, the command prints and the
dataset card states."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .examples import ExampleFailure
from .leakage import FILTERS, Exclusions


@dataclass(frozen=True)
class ExportResult:
    out: Path
    data_file: Path                  # out/data/train.jsonl or train.parquet
    card_file: Path                  # out/README.md
    pairs: bool                      # (op, DSL, AscendC) triples rather than sample records
    records: int                     # written
    tasks: int                       # distinct task ids written
    verified: int                    # records whose kernel verified
    by_kind: dict                    # records written by kind (gen, bench, example)
    read: int                        # sample records read (examples: lowered), before the filter
    excluded: dict                   # records removed, by filter (leakage.FILTERS)
    exclusions: Exclusions
    unhashed: int                    # records kept without a task hash: the filter matched them by id only
    incomplete: int = 0              # --pairs: verified records without the op file or the AscendC
    without_samples: int = 0         # bench tasks with no sample (not run, or stopped before one)
    sources: tuple[str, ...] = ()    # the run folders read, or the examples' folder
    failures: tuple[ExampleFailure, ...] = ()   # examples that did not lower (skipped)

    def to_json(self) -> dict:
        return {"out": str(self.out), "data_file": str(self.data_file), "card": str(self.card_file),
                "pairs": self.pairs, "records": self.records, "tasks": self.tasks, "verified": self.verified,
                "by_kind": dict(self.by_kind), "read": self.read, "excluded": dict(self.excluded),
                "unhashed": self.unhashed, "incomplete_pairs": self.incomplete,
                "tasks_without_samples": self.without_samples, "sources": list(self.sources),
                "failed_examples": [{"id": f.id, "error": f.error} for f in self.failures]}

    def excluded_text(self) -> str:
        removed = sum(self.excluded.values())
        if not self.exclusions.active:
            return "no leakage filter"
        parts = ", ".join(f"{name} {self.excluded.get(name, 0)}" for name in FILTERS
                          if self.excluded.get(name) or _given(self.exclusions, name))
        return f"{removed} removed by the leakage filter ({parts})"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _given(e: Exclusions, name: str) -> bool:
    return {"--exclude-id": bool(e.ids), "--exclude-hash": bool(e.hashes)}.get(name, bool(e.task_paths))


def summary_text(r: ExportResult) -> str:
    """The command's report: what was written, what was left out and why."""
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(r.by_kind.items()))
    lines = [f"exported {count(r.records, 'kernel pair' if r.pairs else 'record')} of {count(r.tasks, 'task')} "
             f"({kinds}; {r.verified} verified) from {r.read} read: {r.excluded_text()}"]
    if r.unhashed:
        lines.append(f"  {r.unhashed} kept records have no task hash (their op file is gone): the filter could "
                     "match them by id only")
    if r.incomplete:
        lines.append(f"  {r.incomplete} verified records left out of the pairs: no op file or no AscendC in the run")
    if r.without_samples:
        lines.append(f"  {r.without_samples} bench tasks gave no record (not run, or stopped before any sample)")
    if r.failures:
        lines.append(f"  {len(r.failures)} examples did not lower and were skipped:")
        lines += [f"    {f.id}: {f.error}" for f in r.failures]
    lines.append(f"  wrote {r.out}/ ({r.data_file.relative_to(r.out)}, {r.card_file.name})")
    return "\n".join(lines)
