"""The bundled examples (``<category>/<op>/{op.py,kernel.dsl}``) as seed records: each lowered in
this process at its op's shapes on the simulator, with every level and the AscendC it gives."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import AscendcraftError, UserError
from .artifacts import task_source
from .records import AscendC, Level, Lowering, Modeled, SampleRecord, TaskSource


@dataclass(frozen=True)
class ExampleFailure:
    id: str
    error: str          # the first line of why it did not lower


def find_examples(root: Path | None, only=()) -> list[Path]:
    """The example folders under ``root`` whose id (``category/op``) holds one of ``only`` (all without it)."""
    if root is None:
        raise UserError("no bundled examples found", hint="a checkout has examples/ beside the package; an "
                        "installed wheel has them as ascendcraft/data/examples")
    folders = [k.parent for k in sorted(root.glob("*/*/kernel.dsl")) if (k.parent / "op.py").is_file()]
    if only:
        folders = [f for f in folders if any(s in f"{f.parent.name}/{f.name}" for s in only)]
        if not folders:
            raise UserError(f"no example id holds {' or '.join(map(repr, only))}",
                            hint="--only takes a part of an example's id, e.g. activation/leaky_relu or softmax")
    return folders


def example_task(folder: Path) -> TaskSource:
    category, name = folder.parent.name, folder.name
    # recorded as in the repository, not as this machine's path
    return task_source(str(folder / "op.py"), category=category, name=name,
                       recorded_as=f"examples/{category}/{name}/op.py")


def example_record(folder: Path, task: TaskSource, *, chip: str, trials: int) -> SampleRecord:
    """Lower the example in ``folder``; raises the lowering's error when it does not lower."""
    from ..groups import input_dtypes
    from ..lower import lower
    kernel = folder / "kernel.dsl"
    result = lower(str(kernel), str(folder / "op.py"), chip=chip, backend="sim", trials=trials)
    instances = tuple(AscendC(r.spec.kernel_source, r.tiling_header, "_".join(input_dtypes(r.check.shapes)))
                      for r in result.instances)
    lowering = Lowering(tuple(Level(lv.pass_name, lv.text) for lv in result.run.levels),
                        AscendC(result.spec.kernel_source, result.tiling_header), instances)
    cost = result.cost
    modeled = None if cost is None else Modeled(cost.time_us, result.floor_us, result.efficiency, cost.bound)
    return SampleRecord(kind="example", task=task, run=None, model=None, sample=1, chip=chip, prompt=None,
                        turns=None, verified=True, died_at=None, error=None,
                        dsl=kernel.read_text(encoding="utf-8"), failed_dsl=None, lowering=lowering, modeled=modeled)


def example_records(folders: list[Path], *, chip: str, trials: int, excluded: Callable[[TaskSource], bool],
                    progress=None) -> tuple[list[SampleRecord], list[ExampleFailure]]:
    """Lower every example not ``excluded``; one that fails is reported on ``progress`` and skipped."""
    todo = [(f, t) for f in folders if not excluded(t := example_task(f))]
    counter = progress.counter(len(todo), unit="example") if progress is not None else None
    records, failures = [], []
    try:
        for folder, task in todo:
            started = time.perf_counter()
            try:
                records.append(example_record(folder, task, chip=chip, trials=trials))
                line = f"{task.id}: lowered, {len(records[-1].lowering.levels)} levels"
            except AscendcraftError as err:
                failures.append(ExampleFailure(task.id, str(err).splitlines()[0]))   # "kind: message"
                line = f"{task.id}: SKIPPED, it does not lower: {failures[-1].error}"
            except Exception as err:  # noqa: BLE001 - a bug of ours on one example must not lose the others
                failures.append(ExampleFailure(task.id, f"internal error: {type(err).__name__}: {err}"))
                line = f"{task.id}: SKIPPED, {failures[-1].error}"
            if counter is not None:
                counter.advance(f"{line} ({time.perf_counter() - started:.1f} s)")
    finally:
        if counter is not None:
            counter.close()
    return records, failures
