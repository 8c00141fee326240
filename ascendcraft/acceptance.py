"""The benchmarks' own acceptance checks, offered beside ours (``--precision task``).

Our policy (``--precision ours``, the default) judges a kernel against a float64 reference with
per-dtype tolerances and a relative-L2 bound (:mod:`ascendcraft.verify`). A benchmark judges it
its own way, and a result meant to be compared with a paper's must be judged that way too:

* an NPUKernelBench task folder whose ``prepare_inputs.py`` defines
  ``custom_check_precision(param, ref_output, test_output)`` is judged by it, per case (``param``
  is the case's row of ``test_cases.csv``; the first value it returns is 1 for a pass), as
  NPUKernelBench's ``framework/batch_precision_eval.py`` does;
* any other NPUKernelBench task folder by that harness's default ``check_precision``: an element
  fails where its absolute error exceeds 1e-3 *and* its relative error (``|d| / (|ref| + 1e-7)``)
  exceeds 1e-3, and any NaN or infinity in either result fails (``framework/utils.py``, with
  ``max_abs_error = max_rel_error = 0.001`` from ``base_config.yaml``);
* every other op file by MultiKernelBench's ``utils/correctness.py``: equal shapes, bool outputs
  equal, others ``torch.allclose(ref, out, atol=1e-4, rtol=1e-4)``.

The reference these rules see is the op's own result in its own dtypes (both harnesses run the
reference ``Model`` on the inputs as they are). Whatever the rule, an output element the kernel
never wrote fails: a poisoned NaN would slip through a rule that only compares ``|d| > tol``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .errors import UserError

# torch, numpy and the op-file runner are imported where a rule runs: the CLI imports this module
# for its option's choices and help, and must start fast.

PRECISIONS = ("ours", "task")
PRECISION_HELP = ("how a kernel's outputs are judged: ours (float64 reference, per-dtype tolerances and a "
                  "relative-L2 bound; the default) or task (the benchmark's own check: NPUKernelBench's "
                  "custom_check_precision or check_precision for its task folders, MultiKernelBench's "
                  "allclose(atol=1e-4, rtol=1e-4) for other op files; docs/verification.md)")

#: NPUKernelBench's default tolerances (base_config.yaml: eval.max_abs_error, eval.max_rel_error).
NKB_MAX_ABS, NKB_MAX_REL = 1e-3, 1e-3
#: MultiKernelBench's (utils/correctness.py).
MKB_ATOL, MKB_RTOL = 1e-4, 1e-4


@dataclass(frozen=True)
class TaskRule:
    """A benchmark's acceptance check for one shape set."""

    name: str        # as reports say it: "custom_check_precision of prepare_inputs.py (case 3)"
    #: (references in the op's dtypes, the kernel's outputs as tensors of the same dtypes) ->
    #: "" when accepted, else why not
    judge: Callable[[list, list], str]


def check_precision_name(precision: str) -> str:
    """``precision`` itself, or a UserError naming the choices."""
    if precision not in PRECISIONS:
        raise UserError(f"unknown precision {precision!r}", hint="choose " + " or ".join(PRECISIONS))
    return precision


def rule_for(shapes, precision: str) -> TaskRule | None:
    """The rule that judges runs at ``shapes`` (a TaskShapes) under ``precision``; None for ours."""
    if check_precision_name(precision) == "ours":
        return None
    task = shapes._task
    if getattr(task, "folder", None) is None:
        return TaskRule(f"MultiKernelBench's allclose (atol {MKB_ATOL:g}, rtol {MKB_RTOL:g})", _mkb_judge)
    ns = shapes._mod.ns
    custom = ns.get("custom_check_precision")
    rows = ns.get("group_rows")
    index = getattr(shapes, "index", None)
    if callable(custom) and callable(rows) and index is not None:
        row = dict(rows()[index])
        case = row.get("case_id", index)
        where = str(task.folder / "validation" / "prepare_inputs.py")
        return TaskRule(f"custom_check_precision of prepare_inputs.py (case {case})",
                        lambda refs, outs: _custom_judge(custom, row, refs, outs, where))
    return TaskRule(f"NPUKernelBench's check_precision (max abs {NKB_MAX_ABS:g}, max rel {NKB_MAX_REL:g})",
                    _nkb_judge)


def as_tensors(outputs: list, references: list) -> list:
    """Kernel output buffers (GM convention) as tensors of the references' dtypes (bf16 buffers hold
    bf16-exact float32 values; bool buffers hold 0 and 1 as uint8)."""
    import numpy as np
    import torch
    out = []
    for got, ref in zip(outputs, references):
        t = torch.from_numpy(np.array(got, copy=True))
        out.append(t.to(ref.dtype) if isinstance(ref, torch.Tensor) else t)
    return out


def _one_or_all(items: list):
    return items[0] if len(items) == 1 else list(items)


def _custom_judge(custom, row: dict, refs: list, outs: list, where: str) -> str:
    import torch

    from .opfile import OP_ERRORS, op_failure, running_op
    try:
        with running_op(where), torch.no_grad():
            verdict = custom(dict(row), _one_or_all(refs), _one_or_all(outs))
    except OP_ERRORS as e:  # noqa: BLE001
        raise op_failure("custom_check_precision()", e, where,
                         hint="it is called as custom_check_precision(param, ref_output, test_output), as "
                              "NPUKernelBench's harness calls it; --precision ours judges without it") from None
    accepted = verdict[0] if isinstance(verdict, (tuple, list)) and verdict else verdict
    try:
        ok = bool(accepted)
    except (TypeError, ValueError, RuntimeError):
        raise UserError(f"custom_check_precision() in {where} returned {type(accepted).__name__} as its verdict, "
                        f"not a number or bool", hint="it returns (is_pass, abs_diff, rel_diff)") from None
    return "" if ok else "custom_check_precision() returned 0"


def check_precision(outputs, outputs_new, max_abs_error: float, max_rel_error: float):
    """NPUKernelBench's ``framework/utils.py`` ``check_precision``, which 29 of its tasks' rules call
    (``from framework.utils import check_precision``; the loader provides this one under that name):
    ``(1 or 0, the absolute errors, the relative errors)`` over every output. An element fails
    where both errors exceed their bounds; a NaN or infinity anywhere fails."""
    import torch
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    outputs_new = list(outputs_new) if isinstance(outputs_new, (list, tuple)) else [outputs_new]
    accurate, diffs, rels = True, [], []
    for out, new in zip(outputs, outputs_new):
        why, diff, rel = _element_errors(out, new, max_abs_error, max_rel_error)
        accurate = accurate and not why
        diffs.append(diff.reshape(-1))
        rels.append(rel.reshape(-1))
    return (1 if accurate else 0), torch.cat(diffs), torch.cat(rels)


def _element_errors(ref, out, max_abs: float, max_rel: float):
    """(why ``out`` fails NPUKernelBench's check against ``ref`` or "", absolute errors, relative errors)."""
    import torch
    if out.dtype == torch.bool:
        ref, out = ref.to(torch.int), out.to(torch.int)
    diff = torch.abs(ref - out)
    rel = diff / (torch.abs(ref) + 1e-7)
    if not all(bool(torch.isfinite(t).all()) for t in (ref, out, diff, rel)):
        return "a NaN or infinity (in the reference, the result or their difference)", diff, rel
    bad = (diff > max_abs) & (rel > max_rel)
    if bool(bad.any()):
        return (f"{int(bad.sum())} elements exceed both max abs {max_abs:g} and max rel {max_rel:g} "
                f"(largest abs error {float(diff.max()):.3g})"), diff, rel
    return "", diff, rel


def _each_output(refs: list, outs: list, judge_one) -> str:
    """The first output ``judge_one(i, ref, out)`` refuses, said; an output of another shape than its
    reference is refused first."""
    for i, (ref, out) in enumerate(zip(refs, outs)):
        why = (f"output {i} has shape {list(out.shape)}, the reference {list(ref.shape)}"
               if tuple(ref.shape) != tuple(out.shape) else judge_one(i, ref, out))
        if why:
            return why
    return ""


def _nkb_judge(refs: list, outs: list) -> str:
    def one(i, ref, out) -> str:
        why = _element_errors(ref, out, NKB_MAX_ABS, NKB_MAX_REL)[0]
        return "" if not why else f"output {i} has {why}" if why.startswith("a NaN") else f"output {i}: {why}"
    return _each_output(refs, outs, one)


def _mkb_judge(refs: list, outs: list) -> str:
    import torch

    def one(i, ref, out) -> str:
        if ref.dtype == torch.bool or out.dtype == torch.bool:
            return "" if torch.equal(ref, out) else f"output {i}: {int((ref != out).sum())} elements differ"
        if torch.allclose(ref, out, atol=MKB_ATOL, rtol=MKB_RTOL):
            return ""
        return f"output {i} is not allclose to the reference (atol {MKB_ATOL:g}, rtol {MKB_RTOL:g})"
    return _each_output(refs, outs, one)
