"""NPUKernelBench task folders, loaded as group tasks.

A task is a folder ``tasks/<level>/<family>/<Op>/`` holding ``validation/module.py`` (the reference
``Model``; it imports ``torch_npu`` and calls ``kernel_gen_ops`` in ``ModelNew``, neither needed for
the reference), ``validation/prepare_inputs.py`` (``get_inputs(param, device=None)`` and
``get_init_inputs(param, device=None)`` build a case's arguments from one row of the table, and an
optional ``custom_check_precision``), ``validation/test_cases.csv`` (one case per row, ``;``
separated, a ``case_id`` column) and ``api_desc.md`` (the task as the model is told it).

Each row is a group, as a ``get_input_groups()`` task's (``ascendcraft.groups``). The rows are read
as NPUKernelBench's harness reads them (pandas ``read_csv(sep=';')`` and its ``preprocess_dataframe``):
a column whose every cell is a number holds ints when all are whole, else floats; ``True``/``False``
columns hold bools; other cells are strings; an empty cell is NaN.
"""
from __future__ import annotations

import contextlib
import csv
import io
import math
import sys
import types
from pathlib import Path

from .errors import UserError
from .inputs import check_file
from .opfile import OP_ERRORS, TooBig, UnmadeGroup, op_failure, running_op

#: The files of a task folder, relative to it.
MODULE, PREPARE, CASES, DESCRIPTION = ("validation/module.py", "validation/prepare_inputs.py",
                                       "validation/test_cases.csv", "api_desc.md")


def is_task_folder(path: Path) -> bool:
    return path.is_dir() and (path / MODULE).is_file()


def level_of(folder: Path) -> str:
    """The task's level (``level1``): the folder under ``tasks/`` it sits in, else its family's parent."""
    parts = folder.resolve().parts
    return next((p for p in reversed(parts) if p.startswith("level")), folder.parent.parent.name or "uncategorised")


def read_cases(text: str, where: str) -> list[dict]:
    """The rows of ``test_cases.csv`` as dicts, cells typed per column as pandas would."""
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise UserError(f"{where} has no cases (a header line and one ';'-separated row per case)")
    head, body = [c.strip() for c in rows[0]], rows[1:]
    for i, r in enumerate(body):
        if len(r) != len(head):
            raise UserError(f"{where}: row {i + 1} has {len(r)} cells, the header {len(head)}")
    columns = [_column([r[k].strip() for r in body]) for k in range(len(head))]
    return [{name: col[i] for name, col in zip(head, columns)} for i in range(len(body))]


def _column(cells: list[str]) -> list:
    present = [c for c in cells if c]
    if present and all(_number(c) is not None for c in present):
        values = [_number(c) if c else math.nan for c in cells]
        if all(not math.isnan(v) and float(v).is_integer() for v in values):
            return [int(v) for v in values]
        return [float(v) for v in values]
    if present and all(c in ("True", "False") for c in present) and len(present) == len(cells):
        return [c == "True" for c in cells]
    return [c if c else math.nan for c in cells]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


class _Stub(types.ModuleType):
    """A device module that is not installed: any name it lacks is an NPU-only function."""

    def __getattr__(self, name: str):
        raise AttributeError(f"{self.__name__}.{name} runs only on an NPU (torch_npu is not installed): "
                             f"ascendcraft computes references on the CPU, so this task's reference cannot run here")


def _stub(name: str, **attrs) -> types.ModuleType:
    module = _Stub(name)
    module.__dict__.update(attrs)
    return module


@contextlib.contextmanager
def device_stubs():
    """``torch_npu`` (with ``contrib.transfer_to_npu``) and ``kernel_gen_ops`` as empty modules while
    a task's files run, unless the real ones are installed: the reference runs on the CPU. And
    NPUKernelBench's ``framework.utils``, whose ``check_precision`` many tasks' precision rules call
    (ours, :func:`ascendcraft.acceptance.check_precision`)."""
    from .acceptance import check_precision
    transfer = _stub("torch_npu.contrib.transfer_to_npu")
    contrib = _stub("torch_npu.contrib", transfer_to_npu=transfer)
    utils = types.ModuleType("framework.utils")
    utils.check_precision = check_precision
    framework = types.ModuleType("framework")
    framework.utils = utils
    stubs = {"torch_npu": _stub("torch_npu", contrib=contrib), "torch_npu.contrib": contrib,
             "torch_npu.contrib.transfer_to_npu": transfer, "kernel_gen_ops": _stub("kernel_gen_ops"),
             "framework": framework, "framework.utils": utils}
    added = [n for n in stubs if n not in sys.modules]
    for n in added:
        sys.modules[n] = stubs[n]
    try:
        yield
    finally:
        for n in added:
            sys.modules.pop(n, None)


def folder_namespace(folder: Path, module_ns: dict) -> dict:
    """The namespace of a task folder's module.py (``module_ns``, run under :func:`device_stubs`) as a
    group task's: its prepare_inputs.py run, its cases read (:func:`group_namespace`)."""
    prepare = folder / PREPARE
    for f in (prepare, folder / CASES):
        if not f.is_file():
            raise UserError(f"task folder {folder} has no {f.relative_to(folder)}",
                            hint="an NPUKernelBench task folder holds validation/module.py, "
                                 "validation/prepare_inputs.py and validation/test_cases.csv")
        check_file(f, "task file")
    cases = read_cases((folder / CASES).read_text(encoding="utf-8", errors="replace"), str(folder / CASES))
    ns: dict = {"__file__": str(prepare), "__name__": "ascendcraft_prepare_inputs"}
    try:
        with running_op(), device_stubs():
            exec(compile(prepare.read_text(encoding="utf-8", errors="replace"), str(prepare), "exec"), ns)  # noqa: S102
    except OP_ERRORS as e:  # noqa: BLE001
        raise op_failure(f"importing {PREPARE}", e, str(prepare)) from None
    return group_namespace(folder, module_ns, ns, cases)


def group_namespace(folder: Path, module_ns: dict, prepare_ns: dict, cases: list[dict]) -> dict:
    """The task module's namespace as a group task's: ``Model`` from module.py and
    ``get_input_groups()`` / ``group_init_inputs(i)`` over the cases."""
    get_inputs = prepare_ns.get("get_inputs")
    if not callable(get_inputs):
        raise UserError(f"{folder / PREPARE} defines no get_inputs(param, device=None)")
    get_init = prepare_ns.get("get_init_inputs")

    def get_input_groups():
        return [_case_inputs(get_inputs, row, folder) for row in cases]

    def group_init_inputs(i: int):
        return list(get_init(dict(cases[i]), device=None)) if callable(get_init) else []
    ns = {k: v for k, v in module_ns.items() if k not in ("get_inputs", "get_init_inputs")}
    ns.update(get_input_groups=get_input_groups, group_init_inputs=group_init_inputs,
              group_rows=lambda: [dict(row) for row in cases],    # each group's row: the task's rule reads it
              custom_check_precision=prepare_ns.get("custom_check_precision"))
    return ns


def _case_inputs(get_inputs, row: dict, folder: Path) -> list:
    """One case's forward arguments; a case whose inputs cannot be made (a ``torch.rand`` of an
    integer dtype, say) is set aside alone, with the reason, and the task's other cases still run."""
    try:
        return list(get_inputs(dict(row), device=None))
    except TooBig:
        raise
    except Exception as e:  # noqa: BLE001 - the task's own code
        failure = op_failure(f"get_inputs(row of case {row.get('case_id', '?')})", e, str(folder / PREPARE))
        return [UnmadeGroup(failure.message)]
