"""Aten ops whose vendor kernel cannot finish in one pass over its data, and what the extra
passes cost in the modeled eager baseline (``ascendcraft.eager``; docs/bench.md, "Eager").

Every output element of these ops needs a statistic of a whole *unit* of the input before it
can be written: a channel's mean and variance (training-mode batch norm, instance norm), a
group's (group norm), a row's (layer norm over its normalised shape, softmax and log-softmax
over their dim), or a whole row's order (sort). A kernel that can hold a unit on chip reads it
once; one that cannot must read it again after the statistics (and a sort must write its
partial runs and read them back to merge). The charge is the least the hardware allows, for a
kernel in which all vector cores work on one unit at a time and meet at a barrier when its
statistics are known:

* no extra pass when one unit fits in the UBs of all vector cores together (it stays resident
  across the barrier);
* otherwise one more read of the input (sort: one more write and read of it), at the rate at
  which every vector core can stream from L2 when one unit fits in L2 (the first pass left it
  there), else at the achievable HBM rate.

Ops with no such dependence (elementwise, a reduction whose output is the statistic itself,
eval-mode batch norm, which uses stored statistics) are one pass and are charged as before.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Multipass:
    what: str           # the op as docs/bench.md names it
    needs: str          # what every output needs of its unit ("the statistics", "the order")
    unit: str           # what one unit is ("a channel", "a row of 4,096")
    unit_bytes: int     # bytes of one unit
    data_bytes: int     # bytes of the input a second pass reads again
    rewrite: bool = False   # the data is also written once more and read back (sort's runs)


def multipass_of(base: str, bound: dict) -> Multipass | None:
    """The extra-pass facts of one dispatched op (its schema name and bound arguments), if any."""
    x = bound.get("input", bound.get("self"))
    if x is None or not hasattr(x, "shape") or x.numel() == 0:
        return None
    item, data = x.element_size(), x.numel() * x.element_size()
    if base in ("native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_functional") \
            and bound.get("training") and x.dim() >= 2:
        per_channel = x.numel() // x.shape[1]
        return Multipass("batch norm with batch statistics (training mode; instance norm)", "the statistics",
                         f"a channel of {per_channel:,} values", per_channel * item, data)
    if base == "native_group_norm":
        group = int(bound["C"]) // max(1, int(bound["group"])) * int(bound["HxW"])
        return Multipass("group norm", "the statistics", f"a group of {group:,} values", group * item, data)
    if base == "native_layer_norm":
        row = math.prod(int(d) for d in bound["normalized_shape"])
        return Multipass("layer norm", "the statistics", f"a row of {row:,} values", row * item, data)
    if base in ("_softmax", "_log_softmax", "sort") and x.dim() >= 1:
        dim = int(bound.get("dim", -1)) % x.dim()
        row = x.shape[dim]
        what = {"_softmax": "softmax", "_log_softmax": "log-softmax", "sort": "sort"}[base]
        return Multipass(what, "the order" if base == "sort" else "the maximum and the sum",
                         f"a row of {row:,} values along dim {dim}", row * item, data, rewrite=base == "sort")
    return None


def extra_pass(m: Multipass, chip) -> tuple[int, float, str | None]:
    """(bytes, µs, why) the extra passes of ``m`` add on ``chip``; (0, 0, None) when one pass can do."""
    resident = chip.aiv_cores * chip.ub_bytes
    if m.unit_bytes <= resident:
        return 0, 0.0, None
    hbm = chip.hbm_achievable_gbps * 1e3                                  # bytes per µs
    read_l2 = chip.aiv_cores * min(chip.cost.l2_bpc.value, chip.mte2_bytes_per_cycle) * chip.freq_mhz
    write_l2 = chip.aiv_cores * min(chip.cost.l2_bpc.value, chip.mte3_bytes_per_cycle) * chip.freq_mhz
    in_l2 = m.unit_bytes <= chip.l2_bytes
    read_rate, write_rate = (max(hbm, read_l2), max(hbm, write_l2)) if in_l2 else (hbm, hbm)
    moved = m.data_bytes * (2 if m.rewrite else 1)
    us = m.data_bytes / read_rate + (m.data_bytes / write_rate if m.rewrite else 0.0)
    again = "its runs written and read again to merge them" if m.rewrite else "the input read again"
    where = "from L2 (a unit fits in it)" if in_l2 else "from HBM (a unit is larger than L2)"
    why = (f"{m.what}: every output needs {m.needs} of {m.unit} ({m.unit_bytes:,} bytes, more than the "
           f"{resident:,} bytes of all {chip.aiv_cores} vector cores' UBs): {again}, {where}")
    return moved, us, why
