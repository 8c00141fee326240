"""The vocabulary every selection rule shares (select.py and its rule modules): the steps a rule
returns, the placeholders that name earlier steps, the refusal a rule raises, and small readers
of literal arguments."""
from __future__ import annotations

from ascendcraft.dsl import ast as A

from .base import map_names

FLIP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}


class NoRule(Exception):
    """No selection rule for an operation; carries a description for the error message."""


# Placeholders for earlier steps' results, replaced by _subst with the names select gives them.
# "$" is not an identifier character (ascendcraft/dsl_grammar/tile.lark, NAME), so no name in a kernel is one.
_PLACEHOLDER = "$"
P = A.Name(_PLACEHOLDER + "prev")


class _Steps(list):
    """API calls under construction; ``add`` appends one and returns the placeholder of its result."""

    def add(self, c) -> A.Name:
        self.append(c)
        return _step(len(self) - 1)


def _dsl_text(e) -> str:
    """``e`` as the DSL spells it (for messages)."""
    from ascendcraft.dsl.printer import expr as print_expr
    return print_expr(e)


def _row_scan(shape, axis) -> bool:
    """A scan the 1-D scan composites compute: of a 1-D tile, or along the row of a [1, C] tile (the
    same C values in UB)."""
    return len(shape) == 1 or len(shape) == 2 and shape[0] == 1 and _int_literal(axis) in (None, 1, -1) \
        and (axis is None or _int_literal(axis) is not None)


def _false(e) -> bool:
    return e is None or (isinstance(e, A.Name) and e.id == "False")


def _true(e) -> bool:
    return isinstance(e, A.Name) and e.id == "True"


def _number(e):
    """The value of a numeric literal (``2``, ``-1.5``), else None."""
    if isinstance(e, (A.Int, A.Float)):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-":
        v = _number(e.operand)
        return -v if v is not None else None
    return None


def _int_literal(e):
    v = _number(e)
    return v if isinstance(v, int) else None


def _step(k: int) -> A.Name:
    return A.Name(f"{_PLACEHOLDER}step{k}")


def _subst(e, earlier: list[str]):
    """Replace the placeholders $prev and $step<k> by the names of earlier results (no other name
    can start with $)."""
    def name(n):
        if not n.id.startswith(_PLACEHOLDER):
            return n
        if n.id == P.id:
            return A.Name(earlier[-1])
        return A.Name(earlier[int(n.id[len(_PLACEHOLDER) + len("step"):])])
    return map_names(e, name)
