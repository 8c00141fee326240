"""The tiling struct of a kernel: its host header and its values.

The header is the CANN 8.x macro style that msopgen projects and MultiKernelBench use
(``register/tilingdata_base.h``; api/Utils-API/Tiling数据结构注册/TilingData结构定义.md):

    #include "register/tilingdata_base.h"
    namespace optiling {
    BEGIN_TILING_DATA_DEF(AddCustomTilingData)
      TILING_DATA_FIELD_DEF(int64_t, n);
    END_TILING_DATA_DEF;
    REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
    }

The serialized layout is the C struct layout in declaration order, and every field must be
naturally aligned (offset % sizeof == 0). Fields are therefore declared widest first, which
aligns every field without padding; the kernel reads fields by name, so the order is free.

:func:`tiling_values` computes on the host, in Python, exactly what the generated TilingFunc
computes in C++, so the simulator and the NPU see the same bytes.
"""
from __future__ import annotations

import ast
import math
import re

from ..dsl.star_groups import covers, grouped, normalized_count
from ..errors import UserError
from .spec import KernelSpec, TensorArg, TilingField

# Field types TILING_DATA_FIELD_DEF accepts (TilingData结构定义.md), with their sizes.
FIELD_SIZES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
               "int64_t": 8, "uint64_t": 8, "float": 4}

# The kernel may size scratch by its core count, written ``CORES`` (the DSL's name) or as the
# AscendC call; on the host that count is the launch's block dim.
BLOCK_NUM_CALL = "AscendC::GetBlockNum()"
BLOCK_NUM_NAME = re.compile(r"\bCORES\b")
HOST_BLOCK_DIM = "blockDim"


def ordered_fields(spec: KernelSpec) -> list[TilingField]:
    """The fields in declaration order: widest first (stable), so each is naturally aligned."""
    for f in spec.tiling_fields:
        if f.ctype not in FIELD_SIZES:
            raise UserError(f"tiling field {f.name} has type {f.ctype}, which TILING_DATA_FIELD_DEF does not accept",
                            hint="use one of " + ", ".join(FIELD_SIZES))
    return sorted(spec.tiling_fields, key=lambda f: -FIELD_SIZES[f.ctype])


def render_tiling_header(spec: KernelSpec) -> str:
    """``op_host/<op>_tiling.h``: the BEGIN_TILING_DATA_DEF header of ``spec``."""
    from .project_common import render_template
    return render_template("tiling.h.j2", spec=spec, fields=ordered_fields(spec),
                           guard=f"{spec.op_name.upper()}_TILING_H")


def tiling_values(spec: KernelSpec, shapes: dict[str, tuple[int, ...]],
                  attrs: dict[str, float | int] | None = None) -> dict[str, int | float]:
    """Every tiling field's value for concrete tensor ``shapes`` (by tensor name) and ``attrs``.

    Attributes missing from ``attrs`` take the kernel's default.
    """
    attrs = attrs or {}
    defaults = {a.name: a.default for a in spec.attrs}
    tensors = {t.name: t for t in spec.inputs + spec.outputs}

    def attr(name: str):
        value = attrs.get(name, defaults.get(name))
        if value is None:
            raise UserError(f"attribute {name} has no value and no default", hint=f"pass attrs={{'{name}': ...}}")
        return value
    runs = _star_runs(spec, shapes, attr)
    values: dict[str, int | float] = {}
    for f in spec.tiling_fields:
        kind = f.source[0]
        if kind == "dim":
            _, tensor, axis = f.source
            shape = shapes.get(tensor)
            if shape is None:
                raise UserError(f"tiling field {f.name} needs the shape of tensor {tensor}, which was not given",
                                hint="pass shapes for: " + ", ".join(sorted(tensors)))
            value = _extent(tensors[tensor], tuple(shape), axis, runs) if tensor in tensors else shape[axis]
        elif kind == "attr":
            value = attr(f.source[1])
        else:
            raise UserError(f"tiling field {f.name} has an unknown source {f.source!r}")
        values[f.name] = float(value) if f.ctype == "float" else int(value)
    return values


def _star_runs(spec: KernelSpec, shapes: dict, attr) -> dict[str, int]:
    """The runs of the counted star dims (``*A(dim)``), as TilingFunc's StarRun takes them: the count
    against the rank of the first input that holds the star dim."""
    runs = {}
    for d, count in spec.star_counts:
        holder = next((t for t in spec.inputs if d in t.stars and t.name in shapes), None)
        if holder is None:
            continue
        value = int(attr(count)) if isinstance(count, str) else count
        runs[d] = normalized_count(value, len(shapes[holder.name]), d, holder.name)
    return runs


def _extent(t: TensorArg, shape: tuple[int, ...], axis: int, runs: dict[str, int]) -> int:
    """Declared axis ``axis`` of ``t`` in the op's tensor of ``shape``, as TilingFunc reads it: a
    star dim is the product of its run of axes (dsl/star_groups.py), so a star tensor takes any rank."""
    if not t.star:
        if len(t.shape) != len(shape):
            raise UserError(f"tensor {t.name} is declared with rank {len(t.shape)} but has shape {shape}")
        return shape[axis]
    covered = covers(t.shape, t.stars, runs, len(shape))
    if covered is None:
        declared = ", ".join(f"*{d}" if d in t.stars else str(d) for d in t.shape)
        raise UserError(f"tensor {t.name} is declared [{declared}] but has shape {shape}: its axes cannot be split so")
    return grouped(shape, covered)[axis]


def host_workspace_expr(spec: KernelSpec) -> str:
    """``spec.workspace_bytes`` as host C++: the kernel's core count becomes the launch's ``blockDim``."""
    return _on_host(spec.workspace_bytes)


def _on_host(expr: str) -> str:
    """A kernel-side size expression as host C++: the core count is the launch's ``blockDim``."""
    return BLOCK_NUM_NAME.sub(HOST_BLOCK_DIM, expr.replace(BLOCK_NUM_CALL, HOST_BLOCK_DIM))


def workspace_size(spec: KernelSpec, values: dict[str, int | float], block_dim: int) -> int:
    """The user workspace in bytes: ``spec.workspace_bytes`` evaluated with C++ integer semantics.

    ``values`` are tiling values (keyed by field name, as :func:`tiling_values` returns them) or
    dims and attributes keyed by their DSL names (a binding's): the expression names fields in
    their C++ spelling (codegen/names.py), and both spellings are accepted."""
    return _host_int(host_workspace_expr(spec), spec.workspace_bytes, values, block_dim)


def scratch_layout(spec: KernelSpec, values: dict[str, int | float], block_dim: int) -> list[tuple]:
    """(name, byte offset in the user workspace, bytes, element bytes) of each scratch tensor at
    ``values`` (as :func:`workspace_size` takes them): what the kernel's Init lays out."""
    layout, offset = [], 0
    for name, size, elem in spec.scratch:
        nbytes = _host_int(_on_host(size), size, values, block_dim)
        layout.append((name, offset, nbytes, elem))
        offset += (nbytes + 31) // 32 * 32
    return layout


def _host_int(expr: str, written: str, values: dict, block_dim: int) -> int:
    """Host C++ integer expression ``expr`` (``written`` in the spec) over ``values`` and the block dim."""
    from .names import cpp_name
    expr = expr.replace("(int64_t)", "").replace("(size_t)", "").strip()
    env = dict(values)
    env.update({cpp_name(k): v for k, v in values.items() if cpp_name(k) not in env})
    env[HOST_BLOCK_DIM] = block_dim
    try:
        tree = ast.parse(_conditionals_to_python(expr), mode="eval")
    except (SyntaxError, ValueError) as e:
        raise UserError(f"workspace expression {written!r} is not an arithmetic expression: {e}") from None
    return int(_eval_cpp_int(tree.body, env, written))


def _conditionals_to_python(expr: str) -> str:
    """C++ ``(c ? a : b)`` (each fully parenthesised, as codegen/kernel.py writes minimum/maximum) as
    Python ``(a if c else b)``, innermost first; the other operators read the same in both."""
    while "?" in expr:
        q = expr.index("?")
        # the enclosing parentheses of this ?: and its ':' at the same depth
        depth, start = 0, q
        while start > 0:
            start -= 1
            if expr[start] == ")":
                depth += 1
            elif expr[start] == "(":
                if depth == 0:
                    break
                depth -= 1
        depth, colon, end = 0, None, q
        while end < len(expr) - 1:
            end += 1
            ch = expr[end]
            if ch in "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            elif ch == ":" and depth == 0 and colon is None:
                colon = end
            elif ch == "?" and depth == 0:
                raise ValueError("nested ?: without parentheses")
        if expr[start] != "(" or expr[end] != ")" or colon is None:
            raise ValueError("a ?: that is not parenthesised")
        cond, a, b = expr[start + 1:q], expr[q + 1:colon], expr[colon + 1:end]
        expr = f"{expr[:start]}(({a}) if ({cond}) else ({b})){expr[end + 1:]}"
    return expr


def _eval_cpp_int(node: ast.AST, env: dict, source: str):
    """A tiny evaluator for + - * / % over names and numbers, with C++ truncating division."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise UserError(f"workspace expression {source!r} names {node.id}, which is not a tiling field")
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval_cpp_int(node.operand, env, source)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval_cpp_int(node.left, env, source), _eval_cpp_int(node.right, env, source)
        op = type(node.op)
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op in (ast.Div, ast.Mod):
            if isinstance(a, float) or isinstance(b, float):
                return a / b if op is ast.Div else math.fmod(a, b)
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if op is ast.Div else a - q * b
    if isinstance(node, ast.IfExp):
        return _eval_cpp_int(node.body if _eval_cpp_int(node.test, env, source) else node.orelse, env, source)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _eval_cpp_int(node.left, env, source), _eval_cpp_int(node.comparators[0], env, source)
        return {ast.Lt: a < b, ast.Gt: a > b, ast.LtE: a <= b, ast.GtE: a >= b, ast.Eq: a == b,
                ast.NotEq: a != b}[type(node.ops[0])]
    raise UserError(f"workspace expression {source!r} uses {ast.dump(node)[:40]}..., which is not supported",
                    hint="use + - * / % and (c ? a : b) over tiling field names and integers")
