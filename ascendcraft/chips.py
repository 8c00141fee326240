"""Chip profiles: hardware constants for the checker, interpreter and simulator.

The numbers live in ``data/chips/<name>.json``, each file listing its public
sources; this module only loads and validates them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .errors import UserError

DEFAULT_CHIP = "910B2"


@dataclass(frozen=True)
class Chip:
    name: str
    arch: str
    npu_arch: int
    split_cores: bool
    aic_cores: int
    aiv_cores: int
    freq_mhz: int
    ub_bytes: int
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    hbm_bytes: int
    l2_bytes: int
    hbm_gbps: float
    mte2_bytes_per_cycle: int
    mte3_bytes_per_cycle: int
    l1_to_l0a_bytes_per_cycle: int
    l1_to_l0b_bytes_per_cycle: int
    l0c_to_out_bytes_per_cycle: int
    vector_bytes_per_cycle: int
    cube_macs_per_cycle: int
    launch_overhead_us: float
    max_buffers_per_position: int
    max_buffers: int
    data_copy_pad: bool
    bf16: bool
    sources: tuple[str, ...]

    def capacity(self, space: str) -> int:
        """Bytes available in an on-chip memory space ("ub", "l1", "l0a", "l0b", "l0c")."""
        return getattr(self, f"{space}_bytes")


def chip_names() -> list[str]:
    folder = resources.files("ascendcraft") / "data" / "chips"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


@lru_cache(maxsize=None)
def load_chip(name: str = DEFAULT_CHIP) -> Chip:
    if name not in chip_names():
        raise UserError(f"unknown chip {name!r}", hint=f"choose one of: {', '.join(chip_names())}")
    path = resources.files("ascendcraft") / "data" / "chips" / f"{name}.json"
    data = json.loads(path.read_text())
    data["sources"] = tuple(data["sources"])
    return Chip(**data)
