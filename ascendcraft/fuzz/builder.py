"""The kernel builder the form generators share (:mod:`ascendcraft.fuzz.kernels`).

A :class:`KernelBuilder` collects one generated kernel's parameters, constants, scratch tensors
and body lines together with its op description and the tags of the choices made, and turns them
into a :class:`~ascendcraft.fuzz.differential.FuzzCase`. Its helpers declare the float inputs a
form computes on (and maybe a bool mask), bind loads to names, and start an :class:`Exprs` over
the kernel's scalars; :func:`draw_tile` draws a tile length.
"""
from __future__ import annotations

from hypothesis import strategies as st

from .differential import FuzzCase, OpDesc, TensorDesc
from .expressions import Ex, Exprs, Options, float_text

#: Tile lengths, short and long, powers of two and not (so that most extents leave a tail).
TILES = (8, 16, 1, 3, 5, 17, 32, 64, 100, 128, 256, 1000)


def draw_tile(draw, limit: int | None = None) -> int:
    t = draw(st.sampled_from(TILES))
    return t if limit is None else min(t, limit)


class KernelBuilder:
    """Collects a kernel's parameters, constants and body lines, and its op description."""

    def __init__(self, draw, opts: Options):
        self.draw, self.opts = draw, opts
        self.inputs: list[tuple[str, TensorDesc]] = []
        self.attrs: list[str] = []
        self.op_attrs: list[tuple[str, float]] = []
        self.outputs: list[tuple[str, TensorDesc]] = []
        self.consts: list[str] = []
        self.scratch: list[str] = []
        self.body: list[str] = []
        self.tags: list[str] = []
        self.scalars: list[Ex] = []

    def tag(self, t: str):
        if t not in self.tags:
            self.tags.append(t)

    def inp(self, name: str, dims: str, shape, dtype: str = "f32", lo: float = -1.0, hi: float = 1.0):
        self.inputs.append((f"{name}: gm {dtype}[{dims}]", TensorDesc(tuple(shape), dtype, lo, hi)))

    def out(self, name: str, dims: str, shape, dtype: str = "f32"):
        self.outputs.append((f"{name}: gm {dtype}[{dims}]", TensorDesc(tuple(shape), dtype)))

    def const(self, name: str, value):
        self.consts.append(f"    const {name} = {value}")

    def line(self, depth: int, text: str):
        self.body.append("    " * depth + text)

    def maybe_attrs(self):
        """Zero, one or two scalar attributes; each default or bound from the op file."""
        n = self.draw(st.integers(0, 2))
        for name in ("alpha", "beta")[:n]:
            default = self.draw(st.sampled_from([0.75, -1.25, 2.0, 0.5]))
            self.attrs.append(f"{name}: f32 = {float_text(default)}")
            value = default
            if self.draw(st.booleans()):
                value = self.draw(st.sampled_from([1.5, -0.5, 0.25]))
                self.op_attrs.append((name, value))
                self.tag("attr_bound")
            self.scalars.append(Ex(name, abs(value), True))
            self.tag("attr")

    def exprs(self, leaves, **kw) -> Exprs:
        """An expression drawer over ``leaves`` with this kernel's scalars, tagging this kernel."""
        return Exprs(self.draw, self.opts, leaves, scalars=self.scalars, tags=self.tags, **kw)

    def f16_inputs(self) -> bool:
        """Whether the first input is f16 (loaded through ``cast``), one kernel in five."""
        return self.opts.f16 and self.draw(st.integers(0, 4)) == 4

    def leaf_loads(self, n: int, dims: str, shape, region: str, *, f16: bool = False, masks: bool = True):
        """Declare ``n`` float inputs (and maybe a bool mask) of ``shape``; leaves loading ``region``."""
        leaves, mask_texts = [], []
        for i in range(n):
            dtype = "f16" if f16 and i == 0 else "f32"
            self.inp(f"x{i}", dims, shape, dtype)
            text = f"load(x{i}[{region}])"
            if dtype == "f16":
                text = f"cast({text}, f32)"
                self.tag("f16_in")
            leaves.append(Ex(text, 1.0, True))
        if masks and self.draw(st.integers(0, 3)) == 3:
            self.inp("m", dims, shape, "bool")
            mask_texts.append(f"load(m[{region}])")
            self.tag("mask_input")
        return leaves, mask_texts

    def bind_leaves(self, depth: int, leaves: list[Ex], *, bind: bool) -> list[Ex]:
        """Optionally bind each leaf to a name first (t0 = load(...)), as hand-written kernels do."""
        if not bind:
            return leaves
        out = []
        for i, leaf in enumerate(leaves):
            self.line(depth, f"t{i} = {leaf.text}")
            out.append(Ex(f"t{i}", leaf.mag, leaf.exact))
        return out

    def computed(self, e: Ex) -> Ex:
        """``e`` as stored. (A bare load stored unchanged was FIXED_BUGS["store_of_load"]: no longer wrapped.)"""
        return e

    def store_value(self, e: Ex, out_f16: bool) -> str:
        e = self.computed(e)
        return f"cast({e.text}, f16)" if out_f16 else e.text

    def case(self, form: str) -> FuzzCase:
        params = [d for d, _ in self.inputs] + self.attrs
        outs = ", ".join(d for d, _ in self.outputs)
        head = f"kernel fz({', '.join(params)}) -> ({outs}):"
        text = "\n".join([head, *self.consts, *self.scratch, *self.body]) + "\n"
        op = OpDesc(tuple(t for _, t in self.inputs), tuple(t for _, t in self.outputs), tuple(self.op_attrs))
        return FuzzCase(text, op, tuple([form] + self.tags))
