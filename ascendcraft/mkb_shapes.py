"""The MultiKernelBench 2026 sizes of a bundled example's op file.

Each ``examples/<category>/<op>/op.py`` runs at small shapes and states the benchmark's sizes
in one comment line, ``# MKB 2026 shapes: batch_size=4096, dim=393216`` (``# KernelBench shapes:
N=4096`` for a task MultiKernelBench does not have, from KernelBench level 1). The example tests
check every kernel at those sizes and ``benchmarks/lower_bench.py`` models it there; both read
them through this module, so the op files are the only place the sizes are written.
"""
from __future__ import annotations

import re

from .errors import UserError

_LINE = re.compile(r"^# (?:MKB 2026|KernelBench) shapes:\s*(.+)$", re.M)


def mkb_2026_constants(op_source: str, where: str = "the op file") -> dict[str, int]:
    """The module constants the op file's ``# MKB 2026 shapes:`` (or ``# KernelBench shapes:``) line
    sets, by name."""
    m = _LINE.search(op_source)
    if m is None:
        raise UserError(f"{where} has no '# MKB 2026 shapes: name=value, ...' line")
    out = {}
    for item in m.group(1).split(","):
        name, value = (s.strip() for s in item.split("="))
        out[name] = int(value)
    return out


def with_constants(op_source: str, values: dict[str, int], where: str = "the op file") -> str:
    """``op_source`` with each module constant ``name = ...`` set to ``values[name]``."""
    for name, value in values.items():
        op_source, n = re.subn(rf"^{name}\s*=.*$", f"{name} = {value}", op_source, flags=re.M)
        if n != 1:
            raise UserError(f"{where}: no single module constant {name} to set to {value}")
    return op_source
