"""Tasks with input groups: MultiKernelBench's NPUKernelBench levels.

Such a task file defines ``get_input_groups()`` instead of ``get_inputs()``: one list of forward
arguments per line of its ``<task>.json``, the same op at several dtypes, ranks (0 to 8) and
extents (dims of 1 and of 0), with attributes, lists, strings and left-out optional tensors
(``None``) among the arguments. Each group is a real shape set (:class:`GroupShapes`); one kernel
must serve them all, so ``check`` verifies it on every group (``checking``) and a kernel is
written once for all of them (type variables and ``*B`` dims, docs/dsl.md).

A group whose tensors have a dtype Ascend kernels do not take (float64, complex, uint16 ...)
cannot be served by any kernel: it is set aside with the reason, and reports count it.
"""
from __future__ import annotations

import torch

from .errors import UserError
from .opfile import (MODEL_SEED, OP_ERRORS, Evaluation, OpModule, SomeReal, TooBig, flatten_outputs,
                     init_args_of, op_failure, parameter_specs, require_cpu_data, specs_of_inputs, running_op)
from .shapes import TaskShapes
from .tensorspec import TensorSpec, fmt_bytes

#: Tensors up to this size are made in every draw: those of every group verified by default.
DRAW_LIMIT = 64 << 20

GROUPS_HELP = ("get_input_groups() returns a list of groups, each the list of Model.forward's arguments "
               "(tensors, numbers, strings, lists of numbers or None)")


def has_groups(ns: dict) -> bool:
    """True for a task that states its inputs as groups (and not as ``get_inputs()``)."""
    return callable(ns.get("get_input_groups")) and not callable(ns.get("get_inputs"))


class InputGroups:
    """The groups of one task module, drawn per seed (``torch.manual_seed(seed)`` then
    ``get_input_groups()``; every group of a trial comes from one call, and the last few calls are
    kept). Only tensors of at most ``limit`` bytes are made; larger ones stay shapes (meta tensors):
    all the groups of a task together can take gigabytes, and a group beyond the verification's
    byte budget is only shaped."""

    KEEP = 4
    #: The bytes of every tensor one call may make.
    CAP = 4 << 30

    def __init__(self, mod: OpModule, filename: str):
        self._mod, self._filename = mod, filename
        self._draws: dict[tuple[int, int], list] = {}

    def draw(self, seed: int, limit: int) -> list[list]:
        key = (seed, limit)
        if key not in self._draws:
            if len(self._draws) >= self.KEEP:
                self._draws.pop(next(iter(self._draws)))
            self._draws[key] = self._call(seed, limit)
        return self._draws[key]

    def _call(self, seed: int, limit: int) -> list[list]:
        try:
            with running_op(), torch.random.fork_rng(devices=[]), torch.device("cpu"), torch.no_grad(), \
                    SomeReal(limit, self.CAP):
                torch.manual_seed(seed)
                groups = self._mod.ns["get_input_groups"]()
        except TooBig as e:
            raise UserError(f"get_input_groups() in {self._filename} {e} (tensors of at most "
                            f"{fmt_bytes(limit)} each)") from None
        except OP_ERRORS as e:  # noqa: BLE001
            raise op_failure("get_input_groups()", e, self._filename, hint=GROUPS_HELP) from None
        if not isinstance(groups, (list, tuple)) or not groups:
            raise UserError(f"get_input_groups() in {self._filename} returned "
                            f"{'an empty list' if isinstance(groups, (list, tuple)) else type(groups).__name__}",
                            hint=GROUPS_HELP)
        for i, g in enumerate(groups):
            if not isinstance(g, (list, tuple)):
                raise UserError(f"group {i} of get_input_groups() in {self._filename} is a {type(g).__name__}, "
                                f"not a list of forward arguments", hint=GROUPS_HELP)
        return [list(g) for g in groups]


def _shaped_only(inputs: list) -> bool:
    return any(isinstance(x, torch.Tensor) and x.device.type == "meta" for x in inputs)


class GroupShapes(TaskShapes):
    """One group of a group task: real shapes, inputs from ``get_input_groups()``."""

    def __init__(self, task, mod: OpModule, ev: Evaluation, groups: InputGroups, index: int, count: int):
        super().__init__(task, mod, ev, reduced=False, original={}, max_bytes=None)
        self.index, self.count, self._groups = index, count, groups
        #: bytes of the group's largest tensor: a draw makes tensors up to that size
        self.largest = max((s.nbytes for s in ev.input_specs if isinstance(s, TensorSpec)), default=0)

    def make_inputs(self, seed: int) -> list:
        groups = self._groups.draw(seed, max(DRAW_LIMIT, self.largest))
        if len(groups) != self.count:
            raise UserError(f"get_input_groups() in {self._task.path} returned {len(groups)} groups, "
                            f"{self.count} on an earlier call", hint="the groups must not depend on the seed")
        inputs = [x.clone() if isinstance(x, torch.Tensor) else x for x in groups[self.index]]
        specs = specs_of_inputs(inputs, str(self._task.path), f"group {self.index} of get_input_groups()")
        if specs != self.input_specs:
            raise UserError(f"group {self.index} of get_input_groups() in {self._task.path} changed its shapes "
                            f"between calls", hint="shapes and dtypes must not be random")
        return inputs

    def title(self) -> str:
        return f"group {self.index} of {self.count}"

    def shapes_text(self) -> str:
        return ", ".join(f"{n}: {s}" for n, s in zip(self.input_names, self.input_specs)
                         if isinstance(s, TensorSpec))

    def describe(self) -> str:
        ins = ", ".join(f"{n}: {s!r}" if not isinstance(s, TensorSpec) else f"{n}: {s}"
                        for n, s in zip(self.input_names, self.input_specs))
        outs = ", ".join(str(s) for s in self.output_specs)
        return f"{self.title()} [{fmt_bytes(self.nbytes)}]: inputs {ins} -> outputs {outs}"

    def to_json(self) -> dict:
        return {**super().to_json(), "group": self.index}


def dtype_signature(shapes: TaskShapes) -> tuple:
    """The dtypes of a shape set's tensors, in order (a generic kernel has one instance per value)."""
    return tuple(getattr(s, "dtype", None) for s in (*shapes.input_specs, *shapes.output_specs))


def input_dtypes(shapes: TaskShapes) -> list[str]:
    """The dtypes of a shape set's tensor inputs, each once, sorted: how reports name an instance."""
    return sorted({s.dtype for s in shapes.input_specs if isinstance(s, TensorSpec)})


def is_group(shapes) -> bool:
    return isinstance(shapes, GroupShapes)


def largest(items, shapes_of=lambda x: x):
    """The item whose group is the largest (the first of equal ones): the group that stands for a
    set of groups, as the real shapes stand for a task."""
    return max(items, key=lambda x: (shapes_of(x).nbytes, -shapes_of(x).index))


def load_groups(task, base: OpModule) -> tuple[list[GroupShapes], list[tuple[int, str]]]:
    """A group task's groups a kernel can serve, and (index, why) of the others."""
    draws = InputGroups(base, str(task.path))
    usable, unsupported = group_evaluations(base, draws, str(task.path))
    if not usable:
        i, why = unsupported[0]
        more = f" (and {len(unsupported) - 1} more)" if len(unsupported) > 1 else ""
        raise UserError(f"no group of get_input_groups() in {task.path} can be served by a kernel: group {i}: "
                        f"{why}{more}")
    count = len(draws.draw(0, DRAW_LIMIT))
    return [GroupShapes(task, base, ev, draws, i, count) for i, ev in usable], unsupported


def group_evaluations(mod: OpModule, groups: InputGroups, filename: str) -> tuple[list, list[tuple[int, str]]]:
    """Each group's evaluation (its specs; the outputs' by running the reference once on its seed-0
    inputs, on the meta device for a group whose tensors were only shaped): (the ``(index,
    Evaluation)`` of every group a kernel can serve, ``(index, why)`` of the others: a dtype Ascend
    kernels do not take, a reference that does not run at that group)."""
    per_group = mod.ns.get("group_init_inputs")      # NPUKernelBench folders: Model's arguments per case
    init_args = None if callable(per_group) else init_args_of(mod, filename)
    usable, unsupported = [], []
    for i, inputs in enumerate(groups.draw(0, DRAW_LIMIT)):
        where = f"group {i} of get_input_groups()"
        try:
            if callable(per_group):
                try:
                    init_args = tuple(per_group(i))
                except OP_ERRORS as e:  # noqa: BLE001
                    raise op_failure(f"get_init_inputs(row {i})", e, filename) from None
            specs = specs_of_inputs(inputs, filename, where)
            shaped = _shaped_only(inputs)
            if not shaped:
                require_cpu_data(inputs, f"input {{}} of {where}", filename)
            try:
                with running_op(), torch.random.fork_rng(devices=[]), torch.device("meta" if shaped else "cpu"), \
                        torch.no_grad():
                    torch.manual_seed(MODEL_SEED)
                    model = mod.model(*init_args)
                    outputs = flatten_outputs(model(*[x.clone() if isinstance(x, torch.Tensor) else x
                                                      for x in inputs]), filename)
            except OP_ERRORS as e:  # noqa: BLE001
                raise op_failure(f"Model.forward on {where}", e, filename) from None
            out_specs = tuple(TensorSpec.of(o, f"output {k} of Model.forward") for k, o in enumerate(outputs))
        except UserError as e:
            unsupported.append((i, e.message))
            continue
        usable.append((i, Evaluation(specs, out_specs, parameter_specs(model), init_args)))
    return usable, unsupported


def group_lines(task, limit: int = 16) -> dict:
    """What a prompt says about a group task's groups: how many, the dtypes (with how many groups
    each), each input's ranks, the values of the scalar arguments that differ between groups, the
    groups with an empty tensor, up to ``limit`` groups' arguments
    (one per dtype and rank first, then the largest), and the groups set aside."""
    groups = task.groups
    counts: dict[str, int] = {}
    for g in groups:
        key = ", ".join(input_dtypes(g))
        counts[key] = counts.get(key, 0) + 1
    ranks = []
    for k, name in enumerate(groups[0].input_names):
        rs = sorted({len(g.input_specs[k].shape) for g in groups if isinstance(g.input_specs[k], TensorSpec)})
        if rs:
            ranks.append(f"{name}: {rs[0]}" + (f" to {rs[-1]}" if len(rs) > 1 else ""))
    values = []         # scalar arguments that differ between groups (an axis picked per group: dim)
    for k, name in enumerate(groups[0].input_names):
        vs = {g.input_specs[k] for g in groups if isinstance(g.input_specs[k], (bool, int, float))}
        if len(vs) > 1:
            ordered = sorted(vs)
            listed = ", ".join(map(str, ordered[:12])) + (f", ... ({len(ordered)} values)" if len(ordered) > 12 else "")
            values.append(f"{name}: {listed}")
    shown, seen = [], set()
    for g in groups:
        key = tuple((s.dtype, len(s.shape)) if isinstance(s, TensorSpec) else type(s).__name__ for s in g.input_specs)
        if key not in seen and len(shown) < limit - 1:
            seen.add(key)
            shown.append(g)
    if task.real not in shown:
        shown.append(task.real)
    plan = task._base.ns.get("tensor_lists", {}).get("plan")      # foreach.split_tensor_lists
    lists = [groups[0].input_names[k] for k in plan.lists if k < len(groups[0].input_names)] if plan else []
    return {"count": len(groups) + len(task.groups_unsupported),
            "lists": ", ".join(f"`{n}`" for n in lists),
            "dtypes": ", ".join(f"{k} ({n})" for k, n in counts.items()),
            "ranks": "; ".join(ranks),
            "varying": "; ".join(values),
            "empty": sum(any(isinstance(s, TensorSpec) and 0 in s.shape for s in g.input_specs) for g in groups),
            "examples": [g.describe().split(": ", 1)[1] for g in sorted(shown, key=lambda g: g.index)],
            "unsupported": len(task.groups_unsupported)}
