"""``ASSERT(...)`` statements that build only where ``ASSERT`` expands to nothing.

CANN's device build compiles ``ASSERT`` to nothing (asc-devkit ``impl/basic_api/kernel_macros.h``), so a
kernel that writes ``x = n ASSERT(n != 0);`` or an ``ASSERT(...)`` without its semicolon builds for the
NPU; the simulator evaluates ``ASSERT`` (``asc_sim/consts.h``) and could not compile it. Such a kernel
is built the NPU's way, with a warning at each of those lines: its conditions are not checked.
"""
from __future__ import annotations

import re

_ASSERT = re.compile(r"\bASSERT\s*\(")


def unterminated_asserts(code: str) -> list[int]:
    """The lines (1-based) of ``code`` (comments stripped, lines kept) whose ``ASSERT(...)`` is not a
    statement of its own: not followed by a semicolon, or following an expression (``n = m ASSERT(...);``).
    Preprocessor lines are left alone."""
    lines = []
    for m in _ASSERT.finditer(code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        if code[line_start:m.start()].lstrip().startswith("#"):
            continue
        end = _closing_paren(code, m.end() - 1)
        if end < 0:
            continue
        before = code[:m.start()].rstrip()
        starts = not before or before[-1] in ";{}:)" or re.search(r"\b(else|do)$", before) is not None
        if not starts or not code[end + 1:].lstrip().startswith(";"):
            lines.append(code.count("\n", 0, m.start()) + 1)
    return lines


def _closing_paren(code: str, start: int) -> int:
    """The index of the parenthesis closing the one at ``start``, skipping string and character
    literals; -1 when there is none."""
    depth, i, n = 0, start, len(code)
    while i < n:
        c = code[i]
        if c in "\"'":
            i += 1
            while i < n and code[i] != c:
                i += 2 if code[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1
