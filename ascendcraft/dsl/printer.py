"""Print IR back to DSL text. ``parse(print_kernel(k)) == k`` for every parsed kernel."""
from __future__ import annotations

from . import ast as A

INDENT = "    "

# Binding strength, Python's order: higher binds tighter.
_PREC = {"cmp": 1, "|": 2, "&": 3, "+": 4, "-": 4, "*": 5, "/": 5, "//": 5, "%": 5, "unary": 6, "**": 7}
_ATOM = 8
_CMP = {"<", "<=", ">", ">=", "==", "!="}


def _prec(e: A.Expr) -> int:
    if isinstance(e, A.Binary):
        return _PREC["cmp"] if e.op in _CMP else _PREC[e.op]
    if isinstance(e, A.Unary):
        return _PREC["unary"]
    if isinstance(e, (A.Int, A.Float)) and _negative(e.value):
        return _PREC["unary"]  # a negative literal prints with a leading '-'
    return _ATOM


def _negative(v) -> bool:
    return v < 0 or (isinstance(v, float) and str(v).startswith("-"))


def _wrap(e: A.Expr, need: int) -> str:
    text = expr(e)
    return f"({text})" if _prec(e) < need else text


def _float(v: float) -> str:
    text = repr(v)
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"cannot print the float literal {text}; use the names inf / nan")
    return text


def expr(e) -> str:
    """The DSL text of one expression."""
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.Int):
        return str(e.value)
    if isinstance(e, A.Float):
        return _float(e.value)
    if isinstance(e, A.Str):
        return f'"{e.value}"'
    if isinstance(e, A.Tuple):
        if len(e.items) == 1:
            return f"({expr(e.items[0])},)"
        return "(" + ", ".join(expr(i) for i in e.items) + ")"
    if isinstance(e, A.Unary):
        return e.op + _wrap(e.operand, _PREC["unary"])
    if isinstance(e, A.Binary):
        if e.op in _CMP:
            return f"{_wrap(e.lhs, 2)} {e.op} {_wrap(e.rhs, 2)}"
        p = _PREC[e.op]
        if e.op == "**":  # right-associative; its left side must be a call/index/atom
            return f"{_wrap(e.lhs, _ATOM)} ** {_wrap(e.rhs, _PREC['unary'])}"
        return f"{_wrap(e.lhs, p)} {e.op} {_wrap(e.rhs, p + 1)}"
    if isinstance(e, A.Call):
        parts = [expr(a) for a in e.args] + [f"{k.name}={expr(k.value)}" for k in e.kwargs]
        return f"{e.func}({', '.join(parts)})"
    if isinstance(e, A.Index):
        return f"{_wrap(e.base, _ATOM)}[{', '.join(_subscript(s) for s in e.subscripts)}]"
    if isinstance(e, A.Load):
        parts = [expr(e.src)]
        if e.pad is not None:
            parts.append(f"pad={expr(e.pad)}")
        if e.space != "ub":
            parts.append(f"space={e.space}")
        if e.out is not None:
            parts.append(f"out={e.out}")
        return f"load({', '.join(parts)})"
    raise TypeError(f"printer: unknown expression node {type(e).__name__}")


def _subscript(s) -> str:
    if isinstance(s, A.Slice):
        text = (expr(s.start) if s.start is not None else "") + ":" + (expr(s.stop) if s.stop is not None else "")
        return text if s.step is None else f"{text}:{expr(s.step)}"
    return expr(s)


def type_text(t: A.Type) -> str:
    if isinstance(t, A.ScalarType):
        return t.dtype
    return f"{t.space} {t.dtype}[{', '.join(str(d) for d in t.shape)}]"


def _param(p: A.Param, stars: tuple[str, ...] = (), counts: dict | None = None) -> str:
    """``p`` as declared; ``counts``: the star dims whose count is still to print (the first
    occurrence prints it and takes it out)."""
    t = p.type
    if isinstance(t, A.TensorType) and any(d in stars for d in t.shape):
        counts = {} if counts is None else counts
        t = A.TensorType(t.dtype, tuple((f"*{d}({counts.pop(d)})" if d in counts else f"*{d}") if d in stars else d
                                        for d in t.shape), t.space)
    text = f"{p.name}: {type_text(t)}"
    return text if p.default is None else f"{text} = {expr(p.default)}"


def _range_args(s: A.For) -> str:
    if s.step == A.Int(1):
        if s.start == A.Int(0):
            return expr(s.stop)
        return f"{expr(s.start)}, {expr(s.stop)}"
    return f"{expr(s.start)}, {expr(s.stop)}, {expr(s.step)}"


def stmt_lines(s, depth: int = 0) -> list[str]:
    pad = INDENT * depth
    if isinstance(s, A.Assign):
        return [f"{pad}{s.target} = {expr(s.value)}"]
    if isinstance(s, A.Const):
        return [f"{pad}const {s.name} = {expr(s.value)}"]
    if isinstance(s, A.Scratch):
        return [f"{pad}scratch {s.name}: {type_text(s.type)}"]
    if isinstance(s, A.View) and s.perm is not None:
        axes = ", ".join(map(str, s.perm)) + ("," if len(s.perm) == 1 else "")
        return [f"{pad}{s.name} = permute({s.base}, ({axes}))"]
    if isinstance(s, A.View):
        extents = ", ".join(map(str, s.shape)) + ("," if len(s.shape) == 1 else "")
        return [f"{pad}{s.name} = view({s.base}, ({extents}))"]
    if isinstance(s, A.Store):
        return [f"{pad}{'atomic_add' if s.accumulate else 'store'}({expr(s.dst)}, {expr(s.value)})"]
    if isinstance(s, A.Pass):
        return [f"{pad}pass"]
    if isinstance(s, A.Buffer):
        return [f"{pad}buffer {s.name}: {type_text(s.type)}" + (f" * {s.depth}" if s.depth != 1 else "")]
    if isinstance(s, A.Free):
        return [f"{pad}free({s.name})"]
    if isinstance(s, A.For):
        head = f"{pad}for {s.var} in range({_range_args(s)}):"
        return [head] + [line for b in s.body for line in stmt_lines(b, depth + 1)]
    if isinstance(s, A.ParallelFor):
        head = f"{pad}for {', '.join(s.vars)} in parallel({', '.join(expr(e) for e in s.extents)}):"
        return [head] + [line for b in s.body for line in stmt_lines(b, depth + 1)]
    raise TypeError(f"printer: unknown statement node {type(s).__name__}")


def print_kernel(k: A.Kernel) -> str:
    counts = dict(k.star_counts)
    ins = ", ".join(_param(p, k.star_dims, counts) for p in k.inputs)
    outs = ", ".join(_param(p, k.star_dims, counts) for p in k.outputs)
    generic = ", ".join(f"{t.name}: ({', '.join(t.choices)}{',' if len(t.choices) == 1 else ''})"
                        for t in k.type_params)
    lines = [f"kernel {k.name}{f'[{generic}]' if generic else ''}({ins}) -> ({outs}):"]
    for s in k.body:
        lines += stmt_lines(s, 1)
    return "\n".join(lines) + "\n"
