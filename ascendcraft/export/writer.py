"""The dataset folder: ``data/train.jsonl`` (or ``train.parquet``) and README.md, written at once
(ascendcraft.outdir: a failure leaves nothing, and only a previous export is replaced)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from ..errors import UserError

FORMATS = ("jsonl", "parquet")


def data_path(fmt: str) -> str:
    return f"data/train.{fmt}"


def require_format(fmt: str) -> None:
    """Fail before any work when the format is unknown or its writer is not installed."""
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r}", hint="--format jsonl or --format parquet")
    if fmt == "parquet":
        import importlib
        try:
            importlib.import_module("pyarrow.parquet")
        except ImportError:
            raise UserError("--format parquet needs pyarrow, which is not installed",
                            hint="pip install pyarrow (or pip install 'ascendcraft[datasets]'), or export "
                                 "--format jsonl, which datasets.load_dataset reads as well") from None


def write_dataset(out: Path, rows: list[dict], card: Callable[[], str], *, fmt: str, force: bool) -> None:
    """Write ``rows`` and the card (built last, once the rows are written) into ``out``."""
    from ..outdir import atomic_output_dir
    with atomic_output_dir(out, force=force, kind="dataset") as d:
        target = d / data_path(fmt)
        target.parent.mkdir()
        if fmt == "jsonl":
            with open(target, "w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq
            pq.write_table(pa.Table.from_pylist(rows), target)
        (d / "README.md").write_text(card(), encoding="utf-8")
