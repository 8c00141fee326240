"""``ASSERT(...)`` statements that build only where ``ASSERT`` expands to nothing.

CANN's device build compiles ``ASSERT`` to nothing (asc-devkit ``impl/basic_api/kernel_macros.h``), so a
kernel that writes ``x = n ASSERT(n != 0);`` or an ``ASSERT(...)`` without its semicolon builds for the
NPU; the simulator evaluates ``ASSERT`` (``asc_sim/consts.h``) and could not compile it. Such a kernel
is built the NPU's way, with a warning at each of those lines: its conditions are not checked.
"""
from __future__ import annotations

import re

from .signature import balanced_end, mask_code

_ASSERT = re.compile(r"\bASSERT\s*\(")


def unterminated_asserts(source: str) -> list[int]:
    """The lines (1-based) of ``source`` whose ``ASSERT(...)`` is not a statement of its own: not
    followed by a semicolon, or following an expression (``n = m ASSERT(...);``). Comments, string
    and character literals and preprocessor lines are left alone."""
    code = mask_code(source)
    lines = []
    for m in _ASSERT.finditer(code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        if code[line_start:m.start()].lstrip().startswith("#"):
            continue
        end = balanced_end(code, m.end() - 1, "(", ")") - 1
        if end < 0:
            continue
        before = code[:m.start()].rstrip()
        starts = not before or before[-1] in ";{}:)" or re.search(r"\b(else|do)$", before) is not None
        if not starts or not code[end + 1:].lstrip().startswith(";"):
            lines.append(code.count("\n", 0, m.start()) + 1)
    return lines
