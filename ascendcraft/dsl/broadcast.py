"""Shapes of the outer-product broadcast ([R, 1] op [C] or [1, C], either order -> [R, C]): the one
rule the checker, bufferize and the emitter share for the Outer* API ops."""
from __future__ import annotations


def outer_operands(sa: tuple, sb: tuple):
    """(index of the column operand, index of the row operand), or None when the shapes are not a
    column [R, 1] and a row [C] / [1, C]."""
    def col(s):
        return len(s) == 2 and s[1] == 1

    def row(s):
        return len(s) == 1 or len(s) == 2 and s[0] == 1
    if col(sa) and row(sb):
        return 0, 1
    if col(sb) and row(sa):
        return 1, 0
    return None


def outer_shape(sa: tuple, sb: tuple):
    """The [R, C] result of an outer broadcast of ``sa`` and ``sb``, or None."""
    which = outer_operands(tuple(sa), tuple(sb))
    if which is None:
        return None
    col, row = (sa, sb) if which == (0, 1) else (sb, sa)
    return (col[0], row[-1])
