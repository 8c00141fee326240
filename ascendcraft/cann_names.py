"""How CANN names an operator's files and kernel entry: msopgen derives them from the op type, and a
project we write must follow the same rule for the toolchain (and the simulator's reading of a
project, sim/host_project.py) to find its kernel."""
from __future__ import annotations

import re


def snake_case(op_type: str) -> str:
    """The kernel entry and file name msopgen derives from an op type: ``TopKV3`` -> ``top_kv3``,
    ``AddLayerNorm`` -> ``add_layer_norm`` (all 153 answers of NPUKernelBench follow it)."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op_type)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()
