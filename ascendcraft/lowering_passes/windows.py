"""Windows: a pooling window's ``padding=`` becomes the halo of a padded load.

Before (three-address form)::

    t = load(x[n, c, :, :])
    _t0 = window_max(t, kernel=(3, 3), stride=(2, 2), padding=(1, 1))

After (same values)::

    t = load(x[n, c, :, :])
    _wp0 = load(x[n, c, -1:H + 1, -1:W + 1], pad=-inf)
    _t0 = window_max(_wp0, kernel=(3, 3), stride=(2, 2))

A window pads its tile with the window's identity (``-inf`` for max, zeros counted by avg:
docs/dsl.md). When the pooled axes of that tile are whole axes of an input tensor, the padded
tile is that tensor's region widened by the padding on each side, which ``load(..., pad=v)``
copies (DataCopyPad's left padding before the start, fill after the end: docs/lowering.md), so
the window lowers as an unpadded one. The padded region is a second load of the input (the
first is often used elsewhere; the second read usually comes from L2). Padding of a tile that
is not a whole-axis load of an input stays refused by select, with its reason.

Establishes: no window op has a nonzero ``padding=``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A

from .base import LoweringPass, Names, dim_expr, rewrite_block


@dataclass(frozen=True)
class Windows(LoweringPass):
    name: str = "windows"
    establishes: tuple[str, ...] = ("window ops have no padding",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        w = _Padder(kernel)
        return replace(kernel, body=rewrite_block(kernel.body, w.stmt))


def _items(v) -> tuple:
    return tuple(v.items) if isinstance(v, A.Tuple) else (v,)


def _int(e):
    if isinstance(e, A.Int):
        return e.value
    return None


class _Padder:
    def __init__(self, kernel: A.Kernel):
        self.kernel, self.names = kernel, Names(kernel)
        self.inputs = {p.name: p for p in kernel.inputs if isinstance(p.type, A.TensorType)}
        self.defs: dict[str, list] = {}
        for n in A.walk(kernel):
            if isinstance(n, A.Assign):
                self.defs.setdefault(n.target, []).append(n)
            elif isinstance(n, A.For):
                self.defs.setdefault(n.var, []).append(n)

    def stmt(self, s) -> list:
        e = s.value if isinstance(s, A.Assign) else None
        if not (isinstance(e, A.Call) and e.func in ("window_max", "window_avg") and e.kwarg("padding") is not None):
            return [s]
        kernel = _items(e.kwarg("kernel"))
        pads = _items(e.kwarg("padding"))
        if len(pads) == 1:
            pads = pads * len(kernel)
        values = [_int(p) for p in pads]
        if None in values or len(values) != len(kernel):
            return [s]
        if not any(values):
            return [replace(s, value=_without(e, "padding"))]
        load = self._whole_axes_load(e.args[0], len(kernel))
        if load is None:
            return [s]
        region = load.src
        gm = self.inputs[region.base.id].type
        subs = A.whole_subscripts(region, len(gm.shape))
        slice_axes = [i for i, sub in enumerate(subs) if isinstance(sub, A.Slice)]
        for axis, p in zip(slice_axes[-len(kernel):], values):
            dim = dim_expr(gm.shape[axis])
            subs[axis] = A.Slice(A.Binary("-", A.Int(0), A.Int(p)) if p else A.Int(0), A.Binary("+", dim, A.Int(p)) if p else dim)
        ident = A.Unary("-", A.Name("inf")) if e.func == "window_max" else A.Float(0.0)
        padded = self.names.fresh("_wp")
        new_load = A.Load(replace(region, subscripts=tuple(subs)), pad=ident, space="ub", span=load.span)
        return [replace(s, target=padded, value=new_load),
                replace(s, value=replace(_without(e, "padding"), args=(A.Name(padded),) + tuple(e.args[1:])))]

    def _whole_axes_load(self, arg, k: int):
        """The load defining tile ``arg`` when it is assigned once, from an input tensor (no other core
        or statement writes it), without pad, and its last ``k`` sliced axes are whole (``:``)."""
        if not isinstance(arg, A.Name) or len(self.defs.get(arg.id, [])) != 1:
            return None
        d = self.defs[arg.id][0]
        load = d.value if isinstance(d, A.Assign) else None
        if not (isinstance(load, A.Load) and load.pad is None and load.space == "ub" and
                isinstance(load.src, A.Index) and isinstance(load.src.base, A.Name) and
                load.src.base.id in self.inputs):
            return None
        gm = self.inputs[load.src.base.id].type
        subs = A.whole_subscripts(load.src, len(gm.shape))
        sliced = [sub for sub in subs if isinstance(sub, A.Slice)]
        if len(sliced) < k or any(sub.start is not None or sub.stop is not None for sub in sliced[-k:]):
            return None
        # the index expressions must mean the same at the window (loop variables and names assigned
        # once keep their values within an iteration; a reassigned name might not)
        for n in A.walk(load.src):
            if isinstance(n, A.Name) and len(self.defs.get(n.id, [])) > 1:
                return None
        return load


def _without(e: A.Call, kw: str) -> A.Call:
    return replace(e, kwargs=tuple(k for k in e.kwargs if k.name != kw))
