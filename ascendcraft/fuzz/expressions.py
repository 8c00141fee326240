"""Random tile expressions for the kernel generator (:mod:`ascendcraft.fuzz.kernels`).

:class:`Exprs` draws an expression over leaves of one tile shape: ``+ - * /``, ``maximum minimum
clamp where``, comparisons, ``abs relu -x exp log sqrt rsqrt reciprocal tanh sigmoid erf floor
ceil``, ``** 2``/``** 3``/``** -2``/``** 0.5``/``** 1.5``, tile op scalar and scalar op tile
(literals, attributes, 0-d reductions of a tile) and broadcasts with row or column vectors. Each
:class:`Ex` carries a bound on its magnitude and whether both sides compute it bit-exactly, so
values stay finite and away from the edges of each function's domain by construction (see
``kernels.AVOID``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import strategies as st


@dataclass(frozen=True)
class Options:
    avoid_known: bool = True          # leave out the forms of KNOWN_BUGS
    max_depth: int = 3                # expression depth
    f16: bool = True


@dataclass(frozen=True)
class Ex:
    """An expression: its DSL text, a bound on its magnitude, and whether both sides compute it
    bit-exactly (loads and + - * abs relu -x maximum minimum of exact values)."""

    text: str
    mag: float
    exact: bool = False


_LITERALS = (2.0, 0.5, -1.5, 3.0, 0.25, -0.75)
_MAG_CAP = 1e4


def float_text(v: float) -> str:
    return repr(float(v))


class Exprs:
    """Draws tile expressions over ``leaves`` (all of one shape) with hypothesis ``draw``.

    ``scalars``: scalar operands (Ex); ``masks``: bool tile texts of the leaves' shape;
    ``vecs``: broadcast operands (row or column vectors) with ``vec_kind`` "row" or "col" (a tag);
    ``numel``: elements per tile; ``scalar_mode``: the leaves are 0-d (no reductions of them, no
    scalar ``where`` branches); ``tile_reductions``: 0-d reductions of a leaf may serve as scalars
    (not of rank-3 tiles: a reduction over a whole stack of tiles does not lower).
    """

    def __init__(self, draw, opts: Options, leaves, *, scalars=(), masks=(), vecs=(), vec_kind=None,
                 numel: int = 1, scalar_mode: bool = False, tile_reductions: bool = True,
                 tags: list | None = None):
        self.draw, self.opts = draw, opts
        self.leaves, self.scalars, self.masks = list(leaves), list(scalars), list(masks)
        self.vecs, self.vec_kind, self.numel = list(vecs), vec_kind, max(numel, 1)
        self.scalar_mode = scalar_mode
        self.tile_reductions = tile_reductions and not scalar_mode
        self.tags = tags if tags is not None else []

    def tag(self, t: str):
        if t not in self.tags:
            self.tags.append(t)

    def scalar(self) -> Ex:
        """A scalar operand: a literal, an attribute, or a 0-d reduction of a leaf."""
        kinds = ["lit"] + (["given"] if self.scalars else []) + (["reduce"] if self.tile_reductions else [])
        k = self.draw(st.sampled_from(kinds))
        if k == "lit":
            v = self.draw(st.sampled_from(_LITERALS))
            return Ex(float_text(v), abs(v), True)
        if k == "given":
            return self.draw(st.sampled_from(self.scalars))
        leaf = self.draw(st.sampled_from(self.leaves))
        red = self.draw(st.sampled_from(["max", "sum", "min"]))
        self.tag(f"scalar_{red}")
        return Ex(f"{red}({leaf.text})", leaf.mag * (self.numel if red == "sum" else 1), red != "sum")

    def nonzero_scalar(self) -> Ex:
        k = self.draw(st.sampled_from(["lit"] + (["given"] if self.scalars else [])))
        if k == "given":
            s = self.draw(st.sampled_from(self.scalars))
            if s.text[0].isalpha():     # an attribute: nonzero by construction
                return s
        v = self.draw(st.sampled_from(_LITERALS))
        return Ex(float_text(v), abs(v), True)

    def expr(self, depth: int | None = None) -> Ex:
        depth = self.opts.max_depth if depth is None else depth
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return self.draw(st.sampled_from(self.leaves))
        kinds = ["unary", "binary", "scalar", "where", "clamp"]
        if self.vecs:
            kinds.append("bcast")
        kind = self.draw(st.sampled_from(kinds))
        e = getattr(self, f"_{kind}")(depth)
        if e.mag > _MAG_CAP:
            self.tag("tanh")
            return Ex(f"tanh({e.text})", 1.0)
        return e

    # -- node kinds
    def _unary(self, depth) -> Ex:
        a = self.expr(depth - 1)
        ops = ["abs", "relu", "neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid", "erf",
               "square", "cube", "pow_neg2", "pow_half", "pow_15", "floor", "ceil"]
        op = self.draw(st.sampled_from(ops))
        if op == "exp" and a.mag > 4:
            op = "tanh"
        if op in ("floor", "ceil") and not a.exact:
            op = "abs"
        self.tag(op)
        t = a.text
        table = {
            "abs": (f"abs({t})", a.mag, a.exact),
            "relu": (f"relu({t})", a.mag, a.exact),
            "neg": (f"(-{t})", a.mag, a.exact),
            "exp": (f"exp({t})", math.exp(min(a.mag, 700.0)), False),   # the table is built for every op
            "log": (f"log(abs({t}) + 1.0)", math.log(a.mag + 1.0), False),
            "sqrt": (f"sqrt(abs({t}))", math.sqrt(a.mag), False),
            "rsqrt": (f"rsqrt(abs({t}) + 1.0)", 1.0, False),
            "reciprocal": (f"reciprocal(abs({t}) + 0.5)", 2.0, False),
            "tanh": (f"tanh({t})", 1.0, False),
            "sigmoid": (f"sigmoid({t})", 1.0, False),
            "erf": (f"erf({t})", 1.0, False),
            "square": (f"({t} ** 2)", a.mag * a.mag, a.exact),
            "cube": (f"({t} ** 3)", a.mag * a.mag * a.mag, False),
            "pow_neg2": (f"((abs({t}) + 0.5) ** -2)", 4.0, False),
            "pow_half": (f"(abs({t}) ** 0.5)", math.sqrt(a.mag), False),
            "pow_15": (f"((abs({t}) + 0.5) ** 1.5)", (a.mag + 0.5) ** 1.5, False),
            "floor": (f"floor({t})", a.mag + 1, a.exact),
            "ceil": (f"ceil({t})", a.mag + 1, a.exact),
        }
        text, mag, exact = table[op]
        return Ex(text, mag, exact)

    def _binary(self, depth) -> Ex:
        a, b = self.expr(depth - 1), self.expr(depth - 1)
        op = self.draw(st.sampled_from(["+", "-", "*", "/", "maximum", "minimum"]))
        self.tag({"+": "add", "-": "sub", "*": "mul", "/": "div"}.get(op, op))
        return combine(op, a, b)

    def _scalar(self, depth) -> Ex:
        a = self.expr(depth - 1)
        op = self.draw(st.sampled_from(["+", "-", "*", "/", "maximum", "minimum"]))
        left = self.draw(st.booleans())
        s = self.nonzero_scalar() if op == "/" and not left else self.scalar()
        self.tag(("scalar_" if left else "") + {"+": "add", "-": "sub", "*": "mul", "/": "div"}.get(op, op)
                 + ("" if left else "_scalar"))
        return combine(op, s, a) if left else combine(op, a, s)

    def _clamp(self, depth) -> Ex:
        a = self.expr(depth - 1)
        lo = self.draw(st.sampled_from([-0.5, -1.0, 0.0]))
        hi = self.draw(st.sampled_from([0.5, 1.0, 2.0]))
        self.tag("clamp")
        return Ex(f"clamp({a.text}, {float_text(lo)}, {float_text(hi)})", max(abs(lo), abs(hi)), a.exact)

    def _where(self, depth) -> Ex:
        kinds = ["cmp", "cmp_scalar"] + (["mask"] if self.masks else [])
        k = self.draw(st.sampled_from(kinds))
        if k == "mask":
            cond = self.draw(st.sampled_from(self.masks))
            self.tag("where_mask")
        else:
            l = self.expr(depth - 1)
            r = self.expr(depth - 1) if k == "cmp" else self.scalar()
            ops = ["<", "<=", ">", ">="] + (["==", "!="] if l.exact and r.exact else [])
            op = self.draw(st.sampled_from(ops))
            cond = f"({l.text} {op} {r.text})"
            self.tag("where_" + k)
        # check: at least one branch is a tile (AVOID["where with two scalar branches"])
        branches = self.draw(st.sampled_from(["tt", "ts", "st"])) if not self.scalar_mode else "tt"
        a = self.expr(depth - 1) if branches[0] == "t" else self.scalar()
        b = self.expr(depth - 1) if branches[1] == "t" else self.scalar()
        return Ex(f"where({cond}, {a.text}, {b.text})", max(a.mag, b.mag), a.exact and b.exact)

    def _bcast(self, depth) -> Ex:
        return self.broadcast(self.expr(depth - 1))

    def broadcast(self, a: Ex) -> Ex:
        """``a`` combined with one of ``vecs`` (either side, maybe after a little math on the vector)."""
        v = self.draw(st.sampled_from(self.vecs))
        if self.draw(st.integers(0, 2)) == 1:           # a little math on the vector first
            op = self.draw(st.sampled_from(["abs", "exp", "neg", "mul2"]))
            v = {"abs": Ex(f"abs({v.text})", v.mag, v.exact),
                 "exp": Ex(f"exp({v.text})", math.exp(v.mag)) if v.mag <= 4 else v,
                 "neg": Ex(f"(-{v.text})", v.mag, v.exact),
                 "mul2": Ex(f"({v.text} * 2.0)", 2 * v.mag, v.exact)}[op]
        op = self.draw(st.sampled_from(["+", "-", "*", "/", "maximum", "minimum"]))
        vec_left = self.draw(st.booleans())
        self.tag(f"bcast_{self.vec_kind}{'_left' if vec_left else ''}")
        return combine(op, v, a) if vec_left else combine(op, a, v)


def combine(op: str, a: Ex, b: Ex) -> Ex:
    if op == "+":
        return Ex(f"({a.text} + {b.text})", a.mag + b.mag, a.exact and b.exact)
    if op == "-":
        return Ex(f"({a.text} - {b.text})", a.mag + b.mag, a.exact and b.exact)
    if op == "*":
        return Ex(f"({a.text} * {b.text})", a.mag * b.mag, a.exact and b.exact)
    if op == "/":
        if _is_literal_or_attr(b):
            return Ex(f"({a.text} / {b.text})", a.mag / 0.25, False)
        return Ex(f"({a.text} / (abs({b.text}) + 1.0))", a.mag, False)
    return Ex(f"{op}({a.text}, {b.text})", max(a.mag, b.mag), a.exact and b.exact)


def _is_literal_or_attr(e: Ex) -> bool:
    return e.text[0] in "-0123456789" and "(" not in e.text or e.text in ("alpha", "beta")


def bounded(e: Ex) -> Ex:
    """``e``, or ``tanh(e)`` when its magnitude may exceed 4 (exp of it stays finite)."""
    return e if e.mag <= 4 else Ex(f"tanh({e.text})", 1.0)
