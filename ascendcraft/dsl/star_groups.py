"""Star dims: how a kernel parameter declared with ``*B`` reads a tensor of any rank.

A parameter's shape is a sequence of declared axes. A plain one (``N``, ``64``) is one axis of the
op's tensor; a star dim ``*B`` is a run of consecutive axes, flattened: B binds their product (1 for
an empty run). ``*A(dim)`` gives the run's length, an integer attribute's value or a number; a
negative count counts from the rank, as torch's ``dim`` does, so ``x: gm T[*A(dim), D, *B]`` reads
any tensor as ``[A, D, B]`` around axis ``dim``. The count is taken against the rank of the first
kernel input that holds the star dim, and every tensor with that star dim covers the same number of
axes. In each tensor one star dim may go without a known count: it covers the axes the others leave.

The binder (interpreter, checker), the tiling values and the host code (codegen/host_shapes.py) all
read shapes through :func:`covers`' rule.
"""
from __future__ import annotations

import math

from ..errors import DSLError
from . import ast as A

INTEGER_DTYPES = ("i8", "i16", "i32", "i64", "u8")


def validate(kernel: A.Kernel) -> None:
    """The star dims' rules that the signature alone decides (parse time)."""
    if not kernel.star_dims:
        return
    tensors = [p for p in kernel.inputs + kernel.outputs if isinstance(p.type, A.TensorType)]
    for name, count in kernel.star_counts:
        if isinstance(count, str):
            attr = kernel.param(count)
            if attr is None or attr not in kernel.inputs or not isinstance(attr.type, A.ScalarType) \
                    or attr.type.dtype not in INTEGER_DTYPES:
                raise DSLError(f"*{name}({count}): {count} is not an integer attribute of the kernel", kernel.span,
                               kind="syntax error",
                               hint=f"declare it among the inputs, {count}: i32 (the op's dim argument binds to it "
                                    f"by position or by name)")
    known = dict(kernel.star_counts)
    for p in tensors:
        free = [d for d in p.type.shape if d in kernel.star_dims and d not in known]
        if len(free) > 1:
            raise DSLError(f"{p.name} has two star dims without a count ({', '.join('*' + d for d in free)}): "
                           f"which axes each covers is not decided", p.span, kind="syntax error",
                           hint=f"give one a count: *{free[0]}(dim) covers the first dim axes")
    for name in kernel.star_dims:
        if not any(name in p.type.shape for p in tensors if p in kernel.inputs):
            holder = next(p for p in tensors if name in p.type.shape)
            raise DSLError(f"*{name} is in {holder.name} only: a star dim's axes come from an input", holder.span,
                           kind="syntax error", hint=f"declare an input with *{name}")


def normalized_count(count: int, rank: int, name: str, holder: str, span=None) -> int:
    """Count ``count`` of star dim ``name`` against the rank of its first input, named ``holder``: a
    negative one counts from the rank, as torch's ``dim`` does."""
    n = count + rank if count < 0 else count
    if not 0 <= n <= rank:
        raise DSLError(f"*{name} covers {count} axes but {holder} has {rank}", span, kind="binding error",
                       hint=f"the count (torch's dim) must be in [-{rank}, {rank}] for a tensor of rank {rank}")
    return n


def covers(shape: tuple, stars: tuple[str, ...], known: dict[str, int], rank: int) -> tuple[int, ...] | None:
    """How many of a rank-``rank`` tensor's axes each declared axis of ``shape`` covers (``known``:
    the star dims' counts already decided); None when they cannot add up to ``rank``."""
    free = [d for d in shape if d in stars and d not in known]
    fixed = sum(known[d] if d in known else 1 for d in shape if d not in free)
    left = rank - fixed
    if left < 0 or (not free and left):
        return None
    return tuple((known[d] if d in known else left) if d in stars else 1 for d in shape)


def grouped(shape: tuple[int, ...], runs: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with consecutive axes multiplied together, ``runs[i]`` of them for declared axis i."""
    out, at = [], 0
    for n in runs:
        out.append(math.prod(shape[at:at + n]))
        at += n
    return tuple(out)


def first_input(kernel: A.Kernel, name: str) -> A.Param:
    """The kernel input whose rank a count of star dim ``name`` is taken against."""
    return next(p for p in kernel.inputs if isinstance(p.type, A.TensorType) and name in p.type.shape)
