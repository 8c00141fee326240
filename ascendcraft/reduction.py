"""Choosing a task's shape sets: the reduced one that fits the byte budget, a second one derived
from a seed, ones that keep one shape constant at its real value (or its residue), and one of
every constant's real residue (docs/verification.md,
"Shapes"). Functions of a :class:`~ascendcraft.task.Task`: they evaluate the op file at other
values of its module constants through the task's cached evaluations (``Task._eval``)."""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Callable, Mapping

from .errors import UserError
from .tensorspec import fmt_bytes

if TYPE_CHECKING:
    from .shapes import TaskShapes
    from .task import Task

#: A leading dim that must shrink is kept above this when possible: the 910B2 has 48 vector cores,
#: so e.g. 53 rows split unevenly over them.
CORES = 48


def variant_values(task: "Task", base: "TaskShapes", seed: int, max_bytes: int) -> dict[str, int] | None:
    """The constants of a second shape set (``Task.variant``): each of ``base``'s moved to another
    odd value between a third of it and twice it, never above the op's own; None if none moves."""
    knobs = task.shape_constants()
    real_values = task._root_constants()
    cur = {k: base.overrides.get(k, real_values[k]) for k in knobs}
    rng = random.Random(f"variant-{seed}")
    new = dict(cur)

    def works(values) -> bool:
        changed = {k: v for k, v in values.items() if v != real_values[k]}
        ev = task._eval(changed, max_bytes)
        return ev.valid and ev.nbytes <= max_bytes

    for k in sorted(knobs):
        v = cur[k]
        lo = max(2, v // 3)
        # never above the op's own value: a kernel sized for the task (a tile of a whole axis, the
        # lowering's buffers planned at the real shapes) need not fit a larger one
        hi = min(2 * v, real_values[k])
        odd = [x for x in range(lo | 1, hi + 1, 2) if x != v]
        smaller = [x for x in odd if x < v]
        picks = [rng.choice(odd)] if odd else []
        picks += ([rng.choice(smaller)] if smaller else []) + [x for x in (v // 2, v - 1) if x >= 2]
        group = [n for n in knobs if cur[n] == v]
        for pick in picks:
            if works({**new, k: pick}):
                new[k] = pick
                break
            if len(group) > 1 and works({**new, **{n: pick for n in group}}):
                new.update({n: pick for n in group})
                break
    if new == cur:
        return None
    return {k: v for k, v in new.items() if v != real_values[k]}


def residue_values(task: "Task", base: "TaskShapes", modulus: int, max_bytes: int) -> tuple[dict | None, str]:
    """The constants of ``Task.residue_set`` (see there), or (None, why)."""
    real_values = task._root_constants()
    values = dict(base.overrides)
    held = []       # the constants given their residue (one whose real value is at most the modulus keeps base's)
    for name, v in base.overrides.items():
        real = real_values[name]
        r = real % modulus or modulus
        if r < real:
            values[name] = max(r, v - (v - r) % modulus)
            held.append(name)
    if not held:
        return None, f"no constant the reduced shapes shrank is above {modulus}"
    work = task.macs(base.overrides)
    while True:
        ev = task._eval(values, max_bytes)
        macs = task.macs(values) if ev.valid else None
        if ev.valid and ev.nbytes <= max_bytes and (not work or macs is None or macs <= work):
            return values, ""
        lower = [n for n in sorted(held, key=lambda n: -values[n]) if values[n] - modulus >= 1]
        free = [n for n in sorted(values, key=lambda n: -values[n]) if n not in held and values[n] > 1]
        if not ev.valid or not (lower or free):
            shown = ", ".join(f"{n}={values[n]}" for n in held)
            return None, (f"the reference does not run at {shown}" if not ev.valid else
                          f"even {shown} takes {fmt_bytes(ev.nbytes)} or more products than the reduced shapes")
        if lower:
            values[lower[0]] -= modulus
        else:       # the others shrink too, by halves
            values[free[0]] //= 2


def reduce_constants(task: "Task", max_bytes: int, pinned: Mapping[str, int] | None = None,
                     max_macs: int | None = None) -> dict[str, int]:
    """The constants to change (name -> value) so that the task's tensors fit ``max_bytes`` (and
    the forward does at most ``max_macs`` multiply-accumulates, when given and countable);
    ``pinned`` constants are held at the values given (the others shrink further instead)."""
    from .shapes import FULL_SIZE_BUDGET
    knobs = task.shape_constants()
    real_bytes = task._cache[()].nbytes
    if not knobs:
        raise UserError(f"the inputs and outputs of {task.path.name} take {fmt_bytes(real_bytes)}, more than "
                        f"--max-bytes {fmt_bytes(max_bytes)} and than the {fmt_bytes(FULL_SIZE_BUDGET)} "
                        "verified at the real size, and no module-level constant sizes them, so they cannot "
                        "be reduced",
                        hint="define the sizes as module constants used by get_inputs() (batch_size = 4096), "
                             "or pass --full-shapes to verify at the real size anyway")

    # Leading (batch-like) constants first: those setting an axis far from the last one.
    # Ties: the constant seen first (lowest input index, then axis) goes first.
    def leading(k):
        pos = knobs[k]
        depth = max(len(task.real.input_specs[i].shape) - 1 - a for i, a in pos)
        return (-depth, min(pos))
    pinned = dict(pinned or {})
    order = sorted((k for k in knobs if k not in pinned), key=leading)
    real_values = task._root_constants()
    cur = {k: pinned.get(k, real_values[k]) for k in knobs}

    def ev_of(values: dict[str, int]):
        changed = {k: v for k, v in values.items() if v != real_values[k]}
        return task._eval(changed, max_bytes)

    def light(values) -> bool:
        if max_macs is None:
            return True
        macs = task.macs({k: v for k, v in values.items() if v != real_values[k]})
        return macs is None or macs <= max_macs

    def fits(values) -> bool:
        ev = ev_of(values)
        return ev.nbytes <= max_bytes and ev.input_specs != () and light(values)

    def ok(values) -> bool:
        ev = ev_of(values)
        return ev.valid and ev.nbytes <= max_bytes and light(values)

    def valid(values) -> bool:
        ev = ev_of(values)
        if not ev.valid and ev.error is not None:
            broken.append((values, ev.error))
        return ev.valid

    broken: list[tuple[dict, UserError]] = []  # smaller settings that break the task

    for floor in (CORES + 1, 1):
        for k in order:
            if ok(cur):
                break
            if cur[k] <= floor:
                continue
            cur.update(_choose(k, floor, cur, fits, valid, pinned))
        if ok(cur):
            break
    final = ev_of(cur)
    changed = {k: v for k, v in cur.items() if v != real_values[k]}
    if not final.valid:
        err = final.error or UserError("the reference produced no outputs at reduced shapes")
        raise UserError(f"the reference does not run at reduced shapes "
                        f"({', '.join(f'{k}={v}' for k, v in changed.items())}): {err.message}",
                        hint="verify on the real shapes with --full-shapes, or raise --max-bytes") from None
    kept = f" with {', '.join(f'{k}={v}' for k, v in pinned.items())} kept" if pinned else ""
    if final.nbytes > max_bytes:
        how = f"by shrinking {', '.join(order)}" if order else "(no other size constant to shrink)"
        msg = (f"{task.path.name} cannot be reduced below {fmt_bytes(final.nbytes)} "
               f"(--max-bytes is {fmt_bytes(max_bytes)}) {how}{kept}")
        if broken:
            values, err = broken[0]
            tried = ", ".join(f"{k}={v}" for k, v in values.items() if v != real_values[k])
            msg += f"; the reference does not run at smaller shapes ({tried}): {err.message}"
        raise UserError(msg, hint="verify on the real shapes with --full-shapes, or raise --max-bytes")
    if not light(cur):
        raise UserError(f"{task.path.name} cannot be reduced below {task.macs(changed):,} multiply-accumulates "
                        f"(at most {max_macs:,}, those of the reduced shapes){kept}",
                        hint="verify on the real shapes with --full-shapes")
    return changed


def _choose(k: str, floor: int, cur: dict, fits: Callable, valid: Callable, pinned: tuple = ()) -> dict[str, int]:
    """New values (``{name: value}``) that shrink constant ``k``.

    The largest odd value in [floor, cur) that fits the budget, or if none does, the
    smallest odd value >= floor (the next constant shrinks further). If the task breaks
    at that value, the constants holding the same value (``pinned`` ones excepted) shrink
    together (a ``(B, N) * (B,)`` broadcast needs B == N), then halvings of the current value
    are tried (channels divisible by groups); if all break, ``k`` stays as it is.
    """
    start = cur[k]
    lo = floor | 1  # smallest odd >= floor
    if lo >= start:
        return {}

    def odd_search(names):
        def with_(v):
            return {**cur, **{n: v for n in names}}
        a, b = (lo - 1) // 2, (start - 2) // 2  # odd values 2i+1 for i in [a, b]
        if not fits(with_(2 * a + 1)):
            return lo
        while a < b:
            mid = (a + b + 1) // 2
            if fits(with_(2 * mid + 1)):
                a = mid
            else:
                b = mid - 1
        return 2 * a + 1

    v = odd_search([k])
    if valid({**cur, k: v}):
        return {k: v}
    group = [n for n in cur if cur[n] == start and n not in pinned]
    if len(group) > 1:
        v = odd_search(group)
        if valid({**cur, **{n: v for n in group}}):
            return {n: v for n in group}
    halvings = []
    h = start // 2
    while h >= max(floor, 1):
        halvings.append(h)
        h //= 2
    good = [h for h in halvings if valid({**cur, k: h})]
    fitting = [h for h in good if fits({**cur, k: h})]
    if fitting:
        return {k: fitting[0]}
    return {k: good[-1]} if good else {}
