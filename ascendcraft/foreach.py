"""Forward arguments that are lists of tensors (NPUKernelBench's Foreach family: ``[f(x) for x in
xs]``, ``[x + y * s for x, y, s in zip(xs, ys, scalars)]``): each element of the lists is a group of
its own, so a kernel takes one tensor where the op takes a list, and runs once per element, as CANN's
Foreach operators loop over their TensorList.

A group task (``get_input_groups()``) whose groups hold such lists is rewritten here: each group
with lists of L tensors becomes L groups, the i-th holding the i-th tensor of every list, the i-th
value of a list of L numbers, and ``t[i:i + 1]`` of a 1-D tensor of L values when L > 1 (the
per-element scalars a Foreach op zips with its lists); every other argument is passed whole.
``Model.forward`` is called with one-element lists built from them, and a one-element list it
returns is its one output. The plan (which arguments are lists, which are sliced) is the task's:
every group must agree on it, or the task is left as it was (its list groups then stay
unsupported, with the reason).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import torch

from .opfile import UnmadeGroup


@dataclass(frozen=True)
class ListPlan:
    lists: tuple[int, ...]      # forward positions holding a list (of L tensors or L numbers)
    sliced: tuple[int, ...]     # positions holding a 1-D tensor of L values, one per element


def _is_tensor_list(x) -> bool:
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(v, torch.Tensor) for v in x)


def _length(group: list) -> int | None:
    """The common length of a group's tensor lists; None without any, -1 when they differ."""
    lengths = {len(x) for x in group if _is_tensor_list(x)}
    return None if not lengths else lengths.pop() if len(lengths) == 1 else -1


def _is_number_list(x, length: int) -> bool:
    return isinstance(x, (list, tuple)) and len(x) == length and all(isinstance(v, (bool, int, float)) for v in x)


def _is_per_element(x, length: int) -> bool:
    return isinstance(x, torch.Tensor) and x.dim() == 1 and x.shape[0] == length


def _plan_of(groups: list[list], lengths: list[int]) -> ListPlan | None:
    """The task's plan, read off its groups with lists longer than one (a list of one says nothing
    about which other arguments go with its elements); None when a group does not fit it."""
    width = len(groups[0])
    lists = {k for g in groups for k, x in enumerate(g) if _is_tensor_list(x)}
    longer = [(g, n) for g, n in zip(groups, lengths) if n > 1]
    lists |= {k for k in range(width) if longer and all(_is_number_list(g[k], n) for g, n in longer)}
    sliced = {k for k in range(width) if longer and all(_is_per_element(g[k], n) for g, n in longer)}
    for g, n in zip(groups, lengths):
        if len(g) != width or not all(_is_tensor_list(g[k]) and len(g[k]) == n or _is_number_list(g[k], n)
                                      for k in lists):
            return None
        if not all(_is_per_element(g[k], n) for k in sliced):
            return None
    return ListPlan(tuple(sorted(lists)), tuple(sorted(sliced)))


def _elements(group: list, plan: ListPlan, length: int) -> list[list]:
    out = []
    for i in range(length):
        out.append([x[i] if k in plan.lists else x[i:i + 1] if k in plan.sliced else x for k, x in enumerate(group)])
    return out


def _outputs(out) -> list:
    if isinstance(out, (list, tuple)):
        return [o for x in out for o in _outputs(x)]
    return [out]


def _same(a, b) -> bool:
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return a == b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.device.type == "meta" or b.device.type == "meta":
        return True                    # a shape-only group: its structure is all there is to compare
    return bool(torch.equal(a, b) or (a.is_floating_point() and torch.allclose(a, b, rtol=0, atol=0, equal_nan=True)))


def _combines(model: type, init: list, group: list, elements: list[list], plan: ListPlan) -> bool:
    """Whether the reference's outputs for a whole group differ from its outputs per element, in
    order: the op combines the elements (a flag over all of them, one concatenation), and splitting
    would change the task. A reference that cannot run here cannot tell: False."""
    def clone(args):
        return [[t.clone() for t in x] if _is_tensor_list(x) else x.clone() if isinstance(x, torch.Tensor) else x
                for x in args]
    try:
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            m = model(*init)
            whole = _outputs(m(*clone(group)))
            parts = [o for e in elements
                     for o in _outputs(m(*clone([[x] if k in plan.lists else x for k, x in enumerate(e)])))]
    except Exception:  # noqa: BLE001 - the group checks run the reference again and report it
        return False
    return len(whole) != len(parts) or not all(_same(a, b) for a, b in zip(whole, parts))


def split_tensor_lists(ns: dict) -> dict:
    """``ns`` (a group task's namespace) with its tensor lists split into groups of one element
    each (module docstring); a task without lists draws and runs as before (its ``Model`` is a
    subclass whose forward passes the arguments through)."""
    get_groups, model = ns.get("get_input_groups"), ns.get("Model")
    if not callable(get_groups) or not isinstance(model, type):
        return ns
    state: dict = {}

    def split(groups) -> list:
        state.setdefault("origin", [])      # [] : not split, each group is its own
        if not isinstance(groups, (list, tuple)) or not all(isinstance(g, (list, tuple)) for g in groups):
            return groups              # the group checks report it as it is
        groups = [list(g) for g in groups]
        made = [g for g in groups if not any(isinstance(x, UnmadeGroup) for x in g)]
        lengths = [_length(g) for g in made]
        if not made or any(n is None or n == -1 for n in lengths):
            return groups              # a group without lists, or lists of different lengths: as it is
        plan = _plan_of(made, lengths)
        if plan is None or state.setdefault("plan", plan) != plan:
            return groups              # groups disagree on which arguments are lists: not split
        length = iter(lengths)
        lengths = [None if any(isinstance(x, UnmadeGroup) for x in g) else next(length) for g in groups]
        combined = state.setdefault("combined", set())
        if "checked" not in state:       # once, on the first draw: which groups' elements combine
            state["checked"] = True
            init = ns.get("group_init_inputs")
            for g, (group, n) in enumerate(zip(groups, lengths)):
                args = list(init(g)) if callable(init) else list(ns.get("get_init_inputs", list)())
                if n is not None and n > 1 and _combines(model, args, group, _elements(group, plan, n), plan):
                    combined.add(g)
        origin, out = [], []
        for g, (group, n) in enumerate(zip(groups, lengths)):
            elements = [group] if n is None or g in combined else _elements(group, plan, n)
            origin += [g] * len(elements)
            out += elements
        state["origin"] = origin
        return out

    def get_input_groups():
        return split(get_groups())

    def origin() -> list[int]:
        if "origin" not in state:
            with torch.random.fork_rng(devices=[]), torch.device("meta"):
                get_input_groups()
        return state.get("origin", [])

    original_forward = model.forward

    def forward(self, *args, **kwargs):
        plan = state.get("plan")
        if plan is None:
            return original_forward(self, *args, **kwargs)
        call = [[x] if k in plan.lists else x for k, x in enumerate(args)]
        out = original_forward(self, *call, **kwargs)
        return out[0] if isinstance(out, (list, tuple)) and len(out) == 1 else out
    try:
        forward.__signature__ = inspect.signature(original_forward)
    except (TypeError, ValueError):
        pass
    split_model = type(model.__name__, (model,), {"forward": forward, "__module__": model.__module__})
    new = dict(ns, get_input_groups=get_input_groups, Model=split_model, tensor_lists=state)
    init, rows = ns.get("group_init_inputs"), ns.get("group_rows")
    if callable(init):      # NPUKernelBench folders: each element group is its case's
        new["group_init_inputs"] = lambda i: init(origin()[i] if origin() else i)
    if callable(rows):
        new["group_rows"] = lambda: [rows()[g] for g in origin()] if origin() else rows()
    return new
