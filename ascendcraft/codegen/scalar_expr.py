"""The emitter's scalar expressions: loop variables, dims, one-value tiles and scalar math as
C++ expressions with the DSL's meaning (floor division, rounding of f16/bf16). A mixin of
``kernel._Emitter``.
"""
from __future__ import annotations

from .. import dtypes as D
from ..dsl import ast as A
from .emit_common import (
    SCALAR_ROUND,
    SCALAR_UNARY,
    float_literal,
    unsupported,
)


class ScalarEmitter:
    def scalar(self, e) -> str:
        t = self.ck.expr_types.get(id(e))
        if isinstance(e, A.Int):
            return f"{e.value}"
        if isinstance(e, A.Float):
            return float_literal(e.value, self._ctype(t) if t is not None else "float")
        if isinstance(e, A.Name):
            if e.id == "CORES":
                return "AscendC::GetBlockNum()"
            if e.id == "inf":
                return "AC_INF"
            if e.id == "nan":
                return "AC_NAN"
            if e.id in ("True", "False"):
                return "1" if e.id == "True" else "0"
            return e.id
        if isinstance(e, A.Index) and isinstance(e.base, A.Name) and e.base.id in self.tiles:
            # one element of a tile as a scalar (y[ixt[k], j:j + T]): read on the scalar unit
            return f"static_cast<{self._ctype(t) if t is not None else 'int64_t'}>({e.base.id}.GetValue({self._element(e)}))"
        if isinstance(e, A.Unary):
            # parenthesised operand: -(-1.5f), never the decrement --1.5f
            if e.op == "~":
                ot = self.ck.expr_types.get(id(e.operand))
                return f"(!({self.scalar(e.operand)}))" if getattr(ot, "dtype", None) == "bool" \
                    else f"(~({self.scalar(e.operand)}))"
            return f"(-({self.scalar(e.operand)}))"
        if isinstance(e, A.Binary):
            a, b = self.scalar(e.lhs), self.scalar(e.rhs)
            ints = self._ctype(t) == "int64_t"
            if e.op == "//":
                return f"AcFloorDiv({a}, {b})"
            if e.op == "%":
                return f"AcMod({a}, {b})"
            if e.op == "**":
                return f"ScalarPow(static_cast<float>({a}), static_cast<float>({b}))"
            if e.op in ("<", "<=", ">", ">=", "==", "!="):
                ct = self._operand_ctype(e.lhs, e.rhs)
                return f"(static_cast<{ct}>({a}) {e.op} static_cast<{ct}>({b}))"
            if e.op in ("&", "|"):
                return f"({a} {e.op} {b})"
            if e.op == "/" and ints:
                return f"(static_cast<float>({a}) / static_cast<float>({b}))"
            if e.op in ("+", "-", "*") and ints:
                return f"({a} {e.op} {b})"
            if e.op in ("+", "-", "*", "/"):
                ct = self._ctype(t)
                return f"(static_cast<{ct}>({a}) {e.op} static_cast<{ct}>({b}))"
            raise unsupported(f"scalar operator {e.op}", e)
        if isinstance(e, A.Call):
            args = [self.scalar(x) for x in e.args]
            if e.func == "cdiv":
                return f"AcCdiv({args[0]}, {args[1]})"
            ct = self._ctype(t)
            if e.func in ("minimum", "maximum"):
                # floats propagate NaN like NumPy's minimum/maximum (the interpreter's meaning)
                f = "F" if ct != "int64_t" else ""
                return f"Ac{f}{'Min' if e.func == 'minimum' else 'Max'}<{ct}>({args[0]}, {args[1]})"
            if e.func == "clamp":
                f = "F" if ct != "int64_t" else ""
                return f"Ac{f}Min<{ct}>(Ac{f}Max<{ct}>({args[0]}, {args[1]}), {args[2]})"
            if e.func == "where":
                return f"(({args[0]}) ? static_cast<{ct}>({args[1]}) : static_cast<{ct}>({args[2]}))"
            if e.func == "reciprocal":
                return f"(1.0f / static_cast<float>({args[0]}))"
            if e.func == "abs":
                return f"AcAbs({args[0]})"
            if e.func == "relu":
                return f"AcRelu<{ct}>({args[0]})"
            if e.func in ("floor", "ceil"):
                return f"Ac{e.func.capitalize()}(static_cast<float>({args[0]}))"
            if e.func in SCALAR_UNARY:
                return f"Scalar{SCALAR_UNARY[e.func]}(static_cast<float>({args[0]}))"
            if e.func == "cast":
                return self._scalar_cast(e, args[0], t)
            raise unsupported(f"scalar function {e.func}", e)
        raise unsupported(f"scalar expression {type(e).__name__}", e)


    def _operand_ctype(self, *operands) -> str:
        """The C++ type two scalar operands are compared in: float if either is a float."""
        cts = [self._scalar_ctype(x) for x in operands]
        return "float" if "float" in cts or "half" in cts else "int64_t"

    def _scalar_cast(self, e: A.Call, x: str, t) -> str:
        """cast(...) of a scalar-unit value with the interpreter's meaning: round= applies to float
        sources (to an integer value); float -> int truncates by default, saturates, and maps NaN to 0;
        to bool is x != 0."""
        src = self.ck.expr_types.get(id(e.args[0]))
        src_float = getattr(src, "dtype", "f32") in ("float",) + tuple(D.FLOATS)
        dst = e.args[1].id
        mode = e.kwarg("round")
        if dst == "bool":
            return f"static_cast<int64_t>(({x}) != 0)"
        if not src_float:
            return f"static_cast<{self._ctype(t)}>({x})"
        v = f"static_cast<float>({x})"
        if mode is not None:
            v = f"{SCALAR_ROUND[mode.value]}({v})"
        if dst in D.INTS:
            info = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767),
                    "i32": (-2147483648, 2147483647), "i64": (-9223372036854775807 - 1, 9223372036854775807)}[dst]
            return f"AcFloatToInt({v}, {info[0]}.0, {info[1]}.0)"
        if dst == "f16":
            return f"static_cast<float>(static_cast<half>({v}))"
        if dst == "bf16":   # round to nearest even, as the interpreter (dtypes.round_bf16)
            return f"static_cast<float>(static_cast<bfloat16_t>({v}))"
        return v

