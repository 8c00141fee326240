"""Chip profiles: hardware constants for the checker, interpreter and simulator.

The numbers live in ``data/chips/<name>.json``, each file listing its public
sources; this module only loads and validates them.  The cost model's constants are
there too (the ``"cost"`` object), one entry per constant with its value and its
source: a public one, or ``"estimate: <reasoning>"`` where nothing public gives it.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from importlib import resources

from .errors import AscendcraftError, UserError

DEFAULT_CHIP = "910B2"

ESTIMATE = "estimate:"


class ChipProfileError(AscendcraftError):
    """A chip profile in data/chips is malformed: a bug in the package's data, not in user input."""

    kind = "bad chip profile"


@dataclass(frozen=True)
class Constant:
    """One cost-model constant: its value and where it comes from (a public source, or
    ``"estimate: <reasoning>"``)."""

    value: float
    source: str

    @property
    def is_estimate(self) -> bool:
        return self.source.startswith(ESTIMATE)


@dataclass(frozen=True)
class CostConstants:
    """The cost model's constants for one chip (docs/simulator.md, "Constants and their sources")."""

    issue_cycles: Constant         # scalar-unit cycles to issue one AscendC API call
    mte_overhead: Constant         # fixed cycles per MTE transfer
    vec_overhead: Constant         # fixed cycles per vector instruction
    scalar_ub_cycles: Constant     # LocalTensor GetValue/SetValue
    scalar_gm_cycles: Constant     # GlobalTensor GetValue/SetValue
    transcendental_cpr: Constant   # cycles per 256-byte repeat of Exp/Ln/Sqrt/Rsqrt/Reciprocal/Div
    cube_overhead: Constant        # fixed cycles per MTE1 load, Mmad, Fixpipe
    gm_latency: Constant           # cycles until a GM read's data can be used after its transfer
    l2_bpc: Constant               # bytes/cycle per core for GM reads that hit L2
    hbm_achievable_gbps: Constant  # the HBM bandwidth kernels reach (the simulator's ceiling)

    def values(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name).value for f in fields(self)}

    def overridden(self, values: Mapping[str, float]) -> CostConstants:
        """These constants with some values replaced (sensitivity studies); the replaced
        entries say so in their source."""
        check_cost_keys(values)
        return replace(self, **{k: Constant(float(v), f"override (profile value {getattr(self, k).value:g})")
                                for k, v in values.items()})


COST_KEYS: tuple[str, ...] = tuple(f.name for f in fields(CostConstants))

# The model divides by these, so zero is not a value they can take.
_POSITIVE = {"l2_bpc", "hbm_achievable_gbps"}


def check_cost_keys(values: Mapping[str, float]) -> None:
    unknown = sorted(set(values) - set(COST_KEYS))
    if unknown:
        raise UserError(f"unknown cost-model constant(s): {', '.join(unknown)}", hint="known: " + ", ".join(COST_KEYS))


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
    hbm_gbps: float   # nominal: the roofline that efficiencies are reported against
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
    cost: CostConstants

    def capacity(self, space: str) -> int:
        """Bytes available in an on-chip memory space ("ub", "l1", "l0a", "l0b", "l0c")."""
        return getattr(self, f"{space}_bytes")

    @property
    def hbm_achievable_gbps(self) -> float:
        """The HBM bandwidth the simulator models (below the nominal ``hbm_gbps``)."""
        return self.cost.hbm_achievable_gbps.value

    def with_costs(self, values: Mapping[str, float]) -> Chip:
        """This chip with some cost-model constants replaced."""
        return replace(self, cost=self.cost.overridden(values)) if values else self


def chip_names() -> list[str]:
    folder = resources.files("ascendcraft") / "data" / "chips"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


@lru_cache(maxsize=None)
def load_chip(name: str = DEFAULT_CHIP) -> Chip:
    if name not in chip_names():
        raise UserError(f"unknown chip {name!r}", hint=f"choose one of: {', '.join(chip_names())}")
    path = resources.files("ascendcraft") / "data" / "chips" / f"{name}.json"
    return parse_chip(json.loads(path.read_text()), f"{name}.json")


def parse_chip(data: dict, where: str) -> Chip:
    """A Chip from a profile's JSON object; any missing, unknown or malformed entry is an error
    naming the file and the key."""
    _check_keys(data, {f.name for f in fields(Chip)}, where)
    cost = _parse_cost(data["cost"], where)
    if cost.hbm_achievable_gbps.value > data["hbm_gbps"]:
        raise ChipProfileError(f"{where}: cost.hbm_achievable_gbps ({cost.hbm_achievable_gbps.value:g}) is above "
                               f"the nominal hbm_gbps ({data['hbm_gbps']:g})")
    return Chip(**{**data, "sources": tuple(data["sources"]), "cost": cost})


def _parse_cost(entries, where: str) -> CostConstants:
    if not isinstance(entries, dict):
        raise ChipProfileError(f"{where}: \"cost\" must be an object with one entry per constant")
    _check_keys(entries, set(COST_KEYS), f"{where} \"cost\"")
    return CostConstants(**{k: _parse_constant(entries[k], f"{where}: cost.{k}", k in _POSITIVE)
                            for k in COST_KEYS})


def _parse_constant(entry, where: str, positive: bool) -> Constant:
    if not isinstance(entry, dict) or set(entry) != {"value", "source"}:
        raise ChipProfileError(f"{where} must be an object with exactly \"value\" and \"source\"")
    value, source = entry["value"], entry["source"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or (positive and value == 0):
        raise ChipProfileError(f"{where}: value {value!r} must be a finite number "
                               f"{'above' if positive else 'at or above'} zero")
    if not isinstance(source, str) or not source.strip() or source.strip() == ESTIMATE:
        raise ChipProfileError(f"{where}: the source must name a public source or be "
                               f"\"{ESTIMATE} <reasoning>\"")
    return Constant(float(value), source)


def _check_keys(data, expected: set[str], where: str) -> None:
    missing, unknown = sorted(expected - set(data)), sorted(set(data) - expected)
    if missing or unknown:
        parts = ([f"missing: {', '.join(missing)}"] if missing else []) + \
                ([f"unknown: {', '.join(unknown)}"] if unknown else [])
        raise ChipProfileError(f"{where}: {'; '.join(parts)}")
