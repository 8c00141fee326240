"""Partition: spread each parallel phase over the AI cores explicitly.

Before::

    for b, c in parallel(B, C):
        body

After (``CORES`` blocks; block k runs a contiguous, balanced share of the B*C iterations,
the first ``B*C % CORES`` blocks one more than the rest)::

    for core in parallel(CORES):
        for f in range(core * (B * C // CORES) + minimum(core, B * C % CORES),
                       (core + 1) * (B * C // CORES) + minimum(core + 1, B * C % CORES)):
            b = f // C
            c = f % C
            body

In a kernel that uses the cube, ``CORES`` counts cube cores (each with two vector cores on the
910B: a MIX_AIC_1_2 launch), and a phase without a product is dealt over all the vector cores,
``parallel(2 * CORES)``, so that vector work does not leave half the AIVs idle.

Establishes: every parallel loop has one variable and ``CORES`` (or, for vector phases of a cube
kernel, ``2 * CORES``) iterations, which is what ``GetBlockIdx()`` / ``GetBlockNum()`` mean on the
hardware; the split equals the interpreter's, so each core touches the same GM elements as before.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A

from .base import LoweringPass, Names, binary, call, is_phase_loop, name


@dataclass(frozen=True)
class Partition(LoweringPass):
    name: str = "partition"
    establishes: tuple[str, ...] = ("parallel loops run over CORES with explicit balanced block ranges",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        names = Names(kernel)
        # the vector cores per cube core of a mixed launch, for the phases without a product
        ratio = ctx.chip.aiv_cores // ctx.chip.aic_cores if any(map(A.is_product, A.walk(kernel))) else 1
        body = tuple(self._phase(s, names, ratio) if isinstance(s, A.ParallelFor) else
                     replace(s, body=tuple(self._phase(p, names, ratio) for p in s.body)) if is_phase_loop(s) else s
                     for s in kernel.body)
        return replace(kernel, body=body)

    def _phase(self, s: A.ParallelFor, names: Names, ratio: int) -> A.ParallelFor:
        if len(s.vars) == 1 and isinstance(s.extents[0], A.Name) and s.extents[0].id == "CORES":
            return s  # already one iteration per core
        total = s.extents[0]
        for e in s.extents[1:]:
            total = binary("*", total, e)
        core, flat = names.fresh("core"), names.fresh("f")
        cores = name("CORES")
        if ratio > 1 and not any(map(A.is_product, A.walk(s))):
            cores = binary("*", A.Int(ratio), cores)
        base, rem = binary("//", total, cores), binary("%", total, cores)

        def bound(k):
            return binary("+", binary("*", k, base), call("minimum", k, rem))
        lo = bound(name(core))
        hi = bound(binary("+", name(core), A.Int(1)))
        unpack = [A.Assign(var, e) for var, e in zip(s.vars, unpacked(flat, s.extents))]
        loop = A.For(flat, lo, hi, A.Int(1), tuple(unpack) + s.body)
        return A.ParallelFor((core,), (cores,), (loop,), s.span)


def unpacked(flat: str, extents) -> list:
    """The index along each of ``extents`` of the flat index ``flat`` (row-major: the last varies
    fastest): ``f // C`` and ``f % C`` for two."""
    out = []
    for i, ext in enumerate(extents):
        inner = extents[i + 1:]
        if not inner:
            out.append(name(flat) if i == 0 else binary("%", name(flat), ext))
            continue
        stride = inner[0]
        for e in inner[1:]:
            stride = binary("*", stride, e)
        q = binary("//", name(flat), stride)
        out.append(q if i == 0 else binary("%", q, ext))
    return out
