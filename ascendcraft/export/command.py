"""The ``ascendcraft export`` command line (docs/training.md, "Datasets")."""
from __future__ import annotations

import shlex

from ..errors import UserError
from .writer import FORMATS


def add_parser(sub, parents=()) -> None:
    e = sub.add_parser(
        "export", parents=list(parents), help="gen and bench runs, or the bundled examples, as a training dataset "
        "(Hugging Face datasets layout)",
        description="Turn gen and bench output folders into a dataset: one record per sample (prompt, every turn, "
                    "the verified kernel, every lowering level, the AscendC, the modeled time), or with --pairs one "
                    "(op, DSL, AscendC) triple per verified kernel; or lower the bundled examples into a seed set "
                    "(--examples). Writes DIR/data/train.jsonl and DIR/README.md, the dataset card. See "
                    "docs/training.md.")
    e.add_argument("runs", nargs="*", metavar="RUN_DIR", help="a gen output folder (kernels_out/<op>/), a bench "
                   "output folder, or a folder holding such folders")
    e.add_argument("--examples", action="store_true", help="export the bundled examples instead, each lowered now "
                   "on the simulator")
    e.add_argument("--out", required=True, metavar="DIR", help="the dataset folder to write")
    e.add_argument("--force", action="store_true", help="replace a dataset folder an earlier export wrote")
    e.add_argument("--format", choices=FORMATS, default="jsonl", help="data/train.jsonl (default) or "
                   "data/train.parquet (needs pyarrow)")
    e.add_argument("--pairs", action="store_true", help="one (op source, DSL, AscendC) record per verified kernel "
                   "instead of one record per sample")
    e.add_argument("--exclude-id", action="append", default=[], dest="exclude_ids", metavar="ID",
                   help="leave out task ID (category/name); repeatable")
    e.add_argument("--exclude-hash", action="append", default=[], dest="exclude_hashes", metavar="SHA256",
                   help="leave out the task with this content hash (a record's task_sha256); repeatable")
    e.add_argument("--exclude-tasks", action="append", default=[], metavar="PATH",
                   help="leave out every task found under PATH (an op file or a folder of them, e.g. "
                   "MultiKernelBench's reference/), by id and by content hash; repeatable")
    e.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                   help="with --examples: only the examples whose id (category/op) holds SUBSTRING; repeatable")
    e.add_argument("--trials", type=int, help="with --examples: verification trials of each lowering (default 1)")
    e.add_argument("--chip", help="with --examples: chip profile (default 910B2)")
    e.add_argument("--json", action="store_true", help="print one JSON document, the export's summary as its result")


def run(args) -> int:
    from . import export_examples, export_runs
    from .summary import summary_text
    filters = dict(exclude_ids=args.exclude_ids, exclude_hashes=args.exclude_hashes,
                   exclude_tasks=args.exclude_tasks)
    common = dict(force=args.force, format=args.format, pairs=args.pairs, command=command_line(args), **filters)
    if args.examples:
        if args.runs:
            raise UserError("RUN_DIR and --examples are exclusive", hint="export runs, or the bundled examples, "
                            "into one dataset each")
        from ..chips import DEFAULT_CHIP
        result = export_examples(args.out, only=args.only, trials=args.trials or 1, chip=args.chip or DEFAULT_CHIP,
                                 progress=args.progress, **common)
    else:
        given = [flag for flag, value in (("--only", args.only), ("--trials", args.trials), ("--chip", args.chip))
                 if value]
        if given:
            raise UserError(f"{', '.join(given)} only go with --examples",
                            hint="a run's records are read as the run wrote them, nothing is lowered again")
        if not args.runs:
            raise UserError("nothing to export", hint="give gen or bench output folders (RUN_DIR ...), or "
                            "--examples for the bundled examples")
        result = export_runs(args.runs, args.out, **common)
    from ..cli import emit, emit_json
    if args.json:
        emit_json(args, "done", 0, result.to_json())
    else:
        emit(args, summary_text(result))
    return 0


def command_line(args) -> str:
    """The command as the dataset card records it (rebuilt from the parsed arguments)."""
    parts = ["ascendcraft", "export", *args.runs] + (["--examples"] if args.examples else []) + ["--out", args.out]
    parts += [flag for flag, on in (("--force", args.force), ("--pairs", args.pairs)) if on]
    if args.format != "jsonl":
        parts += ["--format", args.format]
    for flag, values in (("--exclude-id", args.exclude_ids), ("--exclude-hash", args.exclude_hashes),
                         ("--exclude-tasks", args.exclude_tasks), ("--only", args.only)):
        for value in values:
            parts += [flag, value]
    parts += [x for flag, value in (("--trials", args.trials), ("--chip", args.chip)) if value
              for x in (flag, str(value))]
    return shlex.join(parts)
