"""Which run folders a RUN_DIR argument names: a gen output folder, a bench output folder, or a
folder holding several of them (``kernels_out/``), one level down."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from .bench_run import bench_records, is_bench_folder
from .gen_run import gen_records, is_gen_folder
from .records import SampleRecord

_WHAT_IS_A_RUN = ("a RUN_DIR is a gen output folder (kernels_out/<op>/: report.json and llm/), a bench output "
                  "folder (results.jsonl and tasks/), or a folder holding such folders")


@dataclass(frozen=True)
class RunFolder:
    path: Path
    kind: str          # "gen" or "bench"


def _kind(folder: Path) -> str | None:
    if is_bench_folder(folder):
        return "bench"
    if is_gen_folder(folder):
        return "gen"
    return None


def find_runs(arguments: list[str]) -> list[RunFolder]:
    """The run folders named by the arguments, each once, in the order given."""
    if not arguments:
        raise UserError("no run folder to export", hint=_WHAT_IS_A_RUN + "; or --examples for the bundled examples")
    found: dict[Path, RunFolder] = {}
    for arg in arguments:
        path = Path(arg)
        if not path.exists():
            raise UserError(f"no such run folder: {arg}", hint=_WHAT_IS_A_RUN)
        if not path.is_dir():
            raise UserError(f"{arg} is a file, not a run folder", hint=_WHAT_IS_A_RUN)
        kind = _kind(path)
        if kind is not None:
            runs = [RunFolder(path, kind)]
        else:
            runs = [RunFolder(child, k) for child in sorted(path.iterdir())
                    if child.is_dir() and not child.name.startswith(".") and (k := _kind(child)) is not None]
        if not runs:
            lowered = (path / "report.json").is_file() and not (path / "llm").exists()
            raise UserError(f"{arg} is neither a gen nor a bench output folder"
                            + (" (it looks like a `lower` result, which holds no samples)" if lowered else ""),
                            hint=_WHAT_IS_A_RUN)
        for run in runs:
            found.setdefault(run.path.resolve(), run)
    return list(found.values())


def read_runs(runs: list[RunFolder]) -> tuple[list[SampleRecord], int]:
    """Every sample record of ``runs``, and how many bench tasks gave none (see bench_records)."""
    records, without = [], 0
    for run in runs:
        if run.kind == "gen":
            records += gen_records(run.path, run=str(run.path))
        else:
            got, missing = bench_records(run.path, run=str(run.path))
            records += got
            without += missing
    return records, without
