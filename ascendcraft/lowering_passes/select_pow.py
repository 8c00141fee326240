"""Select's rule for ``a ** b`` with a tile exponent (``x ** e``, ``2.0 ** e``), torch.pow's meaning
for every sign: the IEEE/C99 ``pow`` cases (C11 7.12.7.4 and Annex F.10.4.4, which NumPy and
torch follow), on the vector unit, f32.

``|a| ** b`` is ``Exp(b * Ln|a|)``; masks then fix what that formula gets wrong:

* ``|a| == 1``: 1 for every ``b`` (``0 * inf`` would be NaN) -- the sign follows below;
* a negative base (``-0.0`` and ``-inf`` included: ``1 / a < 0``): an odd integer ``b`` negates,
  an even one does not; a non-integer ``b`` gives NaN for a finite base (``-inf ** 0.5`` is inf);
* ``b == 0``: 1, even for a NaN base.

Integer-valued: ``floor(b) == b`` (inf is, NaN is not); odd: ``floor(b / 2) != b / 2`` as well
(every float above 2**24 is even, as C's pow treats it). A literal exponent keeps select's own
rules (``_binary``: square-and-multiply for integers, Sqrt/Rsqrt for +-0.5); a scalar known only at
run time takes this one as a tile of it.
"""
from __future__ import annotations

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile

from .base import call, lit
from .select_steps import _dsl_text, NoRule, _Steps


def tensor_pow(sel, a, b, e) -> list:
    """The API calls computing ``a ** b`` (``b`` a tile; ``a`` a tile or a scalar), broadcast to the
    result's shape as select broadcasts ``where``'s branches ([C], [1, C], [R, 1] against [R, C])."""
    rt = sel.ctx.type_of(e)
    shape, dtype = tuple(rt.shape), rt.dtype
    if dtype != "f32":
        raise NoRule(f"`{_dsl_text(e)}` on {dtype} tiles (a tile exponent lowers for f32: cast(x, f32) first)")
    ta, tb = sel.ctx.type_of(a), sel.ctx.type_of(b)
    a_tile = isinstance(ta, TTile) and ta.shape != ()
    full = [x for x, t, is_t in ((a, ta, a_tile), (b, tb, True)) if is_t and tuple(t.shape) == shape]
    if not full:
        raise NoRule(f"`{_dsl_text(e)}`: neither operand has the result's shape {list(shape)} (make the base or "
                     "the exponent a tile of that shape)")
    like = (full[0], dtype)
    st = _Steps()
    if not a_tile:                       # a scalar base: a tile of it, shaped like the exponent
        a = sel._scalar_tile(st, b if tuple(tb.shape) == shape else full[0], dtype, a)
    elif tuple(ta.shape) != shape:
        a = sel._expand(st, a, ta, shape, like, dtype)
    if tuple(tb.shape) != shape:
        b = sel._expand(st, b, tb, shape, like, dtype)
    return pow_steps(st, a, b)


def scalar_pow(sel, a, s) -> list:
    """``t ** s`` for a scalar ``s`` known only at run time (an attribute, a loop value): ``s`` as a
    tile of ``t``'s shape, then the rule above (every sign of ``t``, not only ``t > 0``)."""
    st = _Steps()
    return pow_steps(st, a, sel._scalar_tile(st, a, "f32", s))


def pow_steps(st, a, b) -> list:
    """Append ``a ** b`` for two f32 tiles of one shape to ``st``."""
    ln = st.add(call("Ln", st.add(call("Abs", a))))
    not_one = st.add(call("CompareScalar", ln, lit(0.0), mode=A.Str("ne")))   # ln|a| == 0 only at |a| == 1
    mag = st.add(call("Exp", st.add(call("Select", not_one, st.add(call("Mul", ln, b)), lit(0.0)))))
    whole = st.add(call("Compare", st.add(call("Cast", b, A.Name("f32"), round=A.Str("floor"))), b,
                        mode=A.Str("eq")))
    half = st.add(call("Muls", b, lit(0.5)))
    odd_or_frac = st.add(call("Compare", st.add(call("Cast", half, A.Name("f32"), round=A.Str("floor"))), half,
                              mode=A.Str("ne")))
    odd = st.add(call("And", odd_or_frac, whole))
    signed = st.add(call("Select", odd, st.add(call("Muls", mag, lit(-1.0))), mag))
    # negative: a < 0, or -0.0 (whose reciprocal is -inf)
    neg = st.add(call("Or", st.add(call("CompareScalar", a, lit(0.0), mode=A.Str("lt"))),
                      st.add(call("CompareScalar", st.add(call("Reciprocal", a)), lit(0.0), mode=A.Str("lt")))))
    value = st.add(call("Select", neg, signed, mag))
    # defined: a >= 0 (-0.0 too), a == -inf, or an integer exponent; else NaN
    defined = st.add(call("Or", st.add(call("Or", st.add(call("CompareScalar", a, lit(0.0), mode=A.Str("ge"))),
                                            st.add(call("CompareScalar", a, A.Unary("-", A.Name("inf")),
                                                        mode=A.Str("eq"))))), whole))
    value = st.add(call("Select", defined, value, A.Name("nan")))
    st.add(call("Select", st.add(call("CompareScalar", b, lit(0.0), mode=A.Str("ne"))), value, lit(1.0)))
    return st
