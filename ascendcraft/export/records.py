"""The records of an exported dataset: one per sample (``SampleRecord``), or one per verified
kernel with its lowering (``PairRecord``, ``--pairs``). Every record of a kind has every field,
null where the run did not hold that piece, so the JSON lines load as one table."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class TaskSource:
    """Which task a record is about: its id, the op file as the run recorded it, its content hash."""

    category: str
    name: str
    op_path: str
    sha256: str | None          # identity.task_hash of the op file as it is now
    sha256_missing: str | None  # why there is no hash (the op file is gone), else None
    op_source: str | None       # the op file's text (an NPUKernelBench folder: its module)

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"


@dataclass(frozen=True)
class Turn:
    turn: int
    reply: str | None           # the model's whole reply
    dsl: str | None             # the kernel extracted from it (None: it held none)
    stage: str                  # "verified", or the stage the reply failed at
    error: str | None           # the failure as recorded
    feedback: str | None        # the message sent back after it (None: none was sent)
    ours: bool                  # the failure was a bug of ascendcraft's, not the model's
    optimizing: bool            # the reply was asked for a faster kernel
    time_us: float | None       # its modeled time, when the run modeled each turn


@dataclass(frozen=True)
class Level:
    pass_name: str
    dsl: str

    def to_json(self) -> dict:
        return {"pass": self.pass_name, "dsl": self.dsl}


@dataclass(frozen=True)
class AscendC:
    """The emitted kernel and its tiling header; ``dtypes`` names another instance of a generic kernel."""

    kernel: str
    tiling_header: str | None
    dtypes: str | None = None


@dataclass(frozen=True)
class Lowering:
    levels: tuple[Level, ...]
    ascendc: AscendC | None
    instances: tuple[AscendC, ...] = ()


@dataclass(frozen=True)
class Modeled:
    time_us: float | None
    floor_us: float | None
    efficiency: float | None
    bound: str | None
    eager_us: float | None = None


@dataclass(frozen=True)
class SampleRecord:
    kind: str                   # gen, bench or example
    task: TaskSource
    run: str | None
    model: str | None
    sample: int
    chip: str | None
    prompt: tuple[dict, ...] | None
    turns: tuple[Turn, ...] | None
    verified: bool
    died_at: str | None
    error: str | None
    dsl: str | None
    failed_dsl: str | None
    lowering: Lowering | None
    modeled: Modeled | None

    def to_json(self) -> dict:
        t, low = self.task, self.lowering
        return {
            "kind": self.kind, "id": t.id, "category": t.category, "name": t.name, "op_path": t.op_path,
            "task_sha256": t.sha256, "task_sha256_missing": t.sha256_missing, "op_source": t.op_source,
            "run": self.run, "model": self.model, "sample": self.sample, "chip": self.chip,
            "prompt": None if self.prompt is None else [dict(m) for m in self.prompt],
            "turns": None if self.turns is None else [dataclasses.asdict(x) for x in self.turns],
            "verified": self.verified, "died_at": self.died_at, "error": self.error,
            "dsl": self.dsl, "failed_dsl": self.failed_dsl,
            "levels": None if low is None else [lv.to_json() for lv in low.levels],
            "ascendc": low.ascendc.kernel if low and low.ascendc else None,
            "tiling_header": low.ascendc.tiling_header if low and low.ascendc else None,
            "ascendc_instances": None if low is None or low.ascendc is None else
            [{"dtypes": i.dtypes, "ascendc": i.kernel, "tiling_header": i.tiling_header} for i in low.instances],
            "modeled": None if self.modeled is None else dataclasses.asdict(self.modeled),
        }


@dataclass(frozen=True)
class PairRecord:
    """One verified kernel: the op, its DSL and the AscendC the lowering derived from it."""

    kind: str
    task: TaskSource
    run: str | None
    dsl: str
    ascendc: str
    tiling_header: str | None

    def to_json(self) -> dict:
        t = self.task
        return {"kind": self.kind, "id": t.id, "category": t.category, "name": t.name, "op_path": t.op_path,
                "task_sha256": t.sha256, "task_sha256_missing": t.sha256_missing, "run": self.run,
                "op_source": t.op_source, "dsl": self.dsl, "ascendc": self.ascendc,
                "tiling_header": self.tiling_header}


def pair_of(record: SampleRecord) -> PairRecord | None:
    """The record's (op, DSL, AscendC) triple; None unless it verified and holds all three."""
    low = record.lowering
    if not record.verified or record.dsl is None or low is None or low.ascendc is None \
            or record.task.op_source is None:
        return None
    return PairRecord(record.kind, record.task, record.run, record.dsl, low.ascendc.kernel, low.ascendc.tiling_header)


#: Every field of a sample record, with what it holds (the dataset card and docs/training.md list these).
SAMPLE_FIELDS = (
    ("kind", "where the record comes from: `gen` (a gen run), `bench` (a bench run) or `example` (a bundled example)"),
    ("id", "the task id `category/name`, as bench and results.jsonl key it"),
    ("category", "the task's category"),
    ("name", "the task's name"),
    ("op_path", "the op file (or NPUKernelBench task folder) as the run recorded it"),
    ("task_sha256", "sha256 of the task's defining files (ascendcraft.identity.task_hash) as they are at export "
                    "time; null when the op file is gone"),
    ("task_sha256_missing", "why task_sha256 is null, else null"),
    ("op_source", "the op file's text (null when it is gone)"),
    ("run", "the run folder the record was read from (null for examples)"),
    ("model", "the litellm model string that wrote the kernel (null for given kernels and examples)"),
    ("sample", "the sample's number in its run (1-based)"),
    ("chip", "the chip profile the run targeted"),
    ("prompt", "the first messages the model received, `[{role, content}]` (system, then the task); null "
               "without a conversation"),
    ("turns", "each reply in order: `turn`, `reply` (the whole text), `dsl` (the kernel extracted from it), "
              "`stage` (`verified` or where it failed), `error` (the failure), `feedback` (the message sent back, "
              "null when none was), `ours` (a bug of ascendcraft's), `optimizing` (asked for a faster kernel), "
              "`time_us` (modeled, with --optimize); null without a conversation"),
    ("verified", "whether the sample's kernel passed every stage its run ran (bench: correct on the backend)"),
    ("died_at", "the stage of the sample's last failure (parse, check, verify, lower, compile, correct, ...); "
                "null when verified"),
    ("error", "that failure as recorded; null when verified"),
    ("dsl", "the verified tile-DSL kernel; null when none verified"),
    ("failed_dsl", "the last kernel of a sample that did not verify, when the run kept it"),
    ("levels", "the program after each lowering pass in order, `[{pass, dsl}]` (`source` first); null when the "
               "run kept no lowering (unverified, not the run's chosen sample, or not lowered)"),
    ("ascendc", "the emitted AscendC kernel source; null as for levels"),
    ("tiling_header", "its tiling header"),
    ("ascendc_instances", "a generic kernel's other dtype instances, `[{dtypes, ascendc, tiling_header}]`"),
    ("modeled", "the simulator's cost model at the op's real shapes: `time_us`, `floor_us`, `efficiency` "
                "(floor / time), `bound`, `eager_us` (modeled PyTorch eager, bench only); null when not modeled"),
)

#: Every field of a ``--pairs`` record.
PAIR_FIELDS = (
    ("kind", "`gen`, `bench` or `example`: where the verified kernel comes from"),
    ("id", "the task id `category/name`"),
    ("category", "the task's category"),
    ("name", "the task's name"),
    ("op_path", "the op file as the run recorded it"),
    ("task_sha256", "sha256 of the task's defining files (ascendcraft.identity.task_hash)"),
    ("task_sha256_missing", "always null here: a pair needs the op file"),
    ("run", "the run folder (null for examples)"),
    ("op_source", "the op file's text: the PyTorch reference"),
    ("dsl", "the verified tile-DSL kernel"),
    ("ascendc", "the AscendC kernel the lowering emitted from it"),
    ("tiling_header", "its tiling header"),
)
