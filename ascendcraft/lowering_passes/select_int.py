"""Select's rules for integer comparisons and for ``where`` between bool, 8-bit and 64-bit values:
exact, with the API ops 910B has for those dtypes (asc-devkit impl/basic_api/dav_c220:
kernel_operator_vec_cmp_impl.h -- Compare and CompareScalar take half/float in every mode and
int32 for EQ only; kernel_operator_vec_vconv_impl.h, CheckCastDatatype -- the Cast pairs;
Select moves 16- and 32-bit lanes).

* i8 / u8 tiles compare as f16 (Cast u8/i8 -> half is exact: |v| <= 255); i16 as f32
  (Cast int16 -> float, exact).
* i32 ``==`` / ``!=`` is Compare EQ on int32 (``!=`` its Not). The order comparisons split each
  value into ``f = float(v)`` (rounded: a monotone map) and ``d = v - int(f)`` (exact, |d| <= 128):
  ``a < b`` iff ``fa < fb``, or ``fa == fb`` and ``da < db`` -- no detour through f32 that loses
  values above 2**24.
* ``where`` of bool / i8 / u8 values selects their f16 images (exact) and casts back; of i64
  values, ``(a & M) | (b & ~M)`` on 16-bit views, with ``M`` the mask as all-ones int64 lanes
  (0/1 -> int32 -> negated -> Cast int32 -> int64, which sign-extends).
"""
from __future__ import annotations

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile

from .base import call, lit
from .select_steps import _dsl_text, FLIP, NoRule, _number, _Steps, _subst

_SWAP = {"gt": "lt", "ge": "le", "lt": "lt", "le": "le"}


def int_compare(sel, op: str, args: list, tiles: list, e) -> list:
    """``a <op> b`` for integer tiles (one of them may be a scalar of the tile's dtype)."""
    dtype = next(sel.ctx.type_of(a).dtype for a, t in zip(args, tiles) if t)
    st = _Steps()
    if not tiles[0]:      # scalar <op> tile: tile <flipped op> scalar
        args, op = [args[1], args[0]], FLIP[op]
        tiles = [True, False]
    if dtype in ("i8", "u8", "i16"):
        wide = "f16" if dtype != "i16" else "f32"
        a = st.add(call("Cast", args[0], A.Name(wide)))
        st.mask_like = (len(st) - 1, wide)
        st.mask_lanes = 2 if wide == "f16" else 4
        if tiles[1]:
            st.add(call("Compare", a, st.add(call("Cast", args[1], A.Name(wide))), mode=A.Str(op)))
        else:
            st.add(call("CompareScalar", a, args[1], mode=A.Str(op)))
        return st
    if dtype != "i32":
        raise NoRule(f"`{_dsl_text(e)}`, a comparison of {dtype} tiles (integer comparisons lower for i8, u8, i16 and "
                     "i32 tiles; 910B has no 64-bit compare: compare a narrower cast where the values fit)")
    st.mask_like = (args[0].id, "i32")
    st.mask_lanes = 4                        # Compare of int32 (EQ), or of the f32 parts below
    if op in ("eq", "ne"):
        if tiles[1]:
            eq = st.add(call("Compare", args[0], args[1], mode=A.Str("eq")))
        else:
            eq = st.add(call("CompareScalar", args[0], args[1], mode=A.Str("eq")))
        if op == "ne":
            st.add(call("Not", eq))
        return st
    a, b = args
    if not tiles[1]:
        b = sel._scalar_tile(st, a, "i32", b)
    if op in ("gt", "ge"):
        a, b = b, a
    parts = []
    for x in (a, b):
        f = st.add(call("Cast", x, A.Name("f32"), round=A.Str("rint")))
        i = st.add(call("Cast", f, A.Name("i32"), round=A.Str("rint")))
        parts.append((f, st.add(call("Cast", st.add(call("Sub", x, i)), A.Name("f32"), round=A.Str("rint")))))
    (fa, da), (fb, db) = parts
    below = st.add(call("Compare", fa, fb, mode=A.Str("lt")))
    same = st.add(call("Compare", fa, fb, mode=A.Str("eq")))
    low = st.add(call("Compare", da, db, mode=A.Str(_SWAP[op])))
    st.add(call("Or", below, st.add(call("And", same, low))))
    return st


def narrow_where(sel, args: list, e) -> list:
    """``where(mask, a, b)`` with bool, i8, u8 or i64 values. bool/8-bit: the values' f16 images
    selected as select's ``where`` does (a mask or branches broadcast from [C], [1, C], [R, 1], a
    scalar mask or branch), cast back; some operand must have the result's shape. i64: a mask and
    two i64 tiles of the result's shape."""
    mask, a, b = args
    rt = sel.ctx.type_of(e)
    shape, dtype = tuple(rt.shape), rt.dtype
    types = [sel.ctx.type_of(x) for x in args]
    is_tile = [isinstance(t, TTile) and t.shape != () for t in types]
    full = [tl and tuple(t.shape) == shape for t, tl in zip(types, is_tile)]
    st = _Steps()
    if dtype == "i64":
        if not all(full):
            raise NoRule(f"`{_dsl_text(e)}`: where between i64 values lowers with a mask and two i64 tiles of the "
                         f"result's shape {list(shape)} (no 64-bit fill or broadcast on 910B: load them from tensors)")
        ones = _mask_values(sel, st, mask, st.add(call("Cast", a, A.Name("f32"), round=A.Str("rint"))))
        m = st.add(call("Muls", st.add(call("Cast", ones, A.Name("i32"), round=A.Str("rint"))), lit(-1)))
        full = st.add(call("Cast", m, A.Name("i64")))
        keep = st.add(call("And", a, full))
        st.add(call("Or", keep, st.add(call("And", b, st.add(call("Not", full))))))
        return st
    if not is_tile[1] and not is_tile[2]:
        raise NoRule(f"`{_dsl_text(e)}`: make one branch a tile (where of two scalars has no tile to select into)")
    if not any(full):
        raise NoRule(f"`{_dsl_text(e)}`: no operand has the result's shape {list(shape)} (make one branch a tile "
                     "of that shape)")
    halves = {}

    def half(x):
        """A bool / i8 / u8 tile's values as f16 (exact); a bit mask (a comparison) as 0/1."""
        if x.id not in halves:
            if x.id in sel.bit_masks:      # read by a Select of 2-byte values: laid out for them
                halves[x.id] = st.add(call("Select", sel._bits(st, x, lanes=2), ones16(x), lit(0.0)))
            else:
                halves[x.id] = st.add(call("Cast", x, A.Name("f16")))
        return halves[x.id]

    def ones16(x):
        """f16 ones of the bit mask ``x``'s shape, like the tile it compared."""
        known = sel.mask_like.get(x.id)
        if known is None:
            raise NoRule(f"`{_dsl_text(e)}`: where between bool values with a branch that is a comparison of "
                         "integer tiles (combine masks with & | ~ instead)")
        ones, _ = sel._filled(st, A.Name(known[0]), known[1], 1)
        return st.add(call("Cast", ones, A.Name("f16"))) if known[1] != "f16" else ones

    # a tile of the result's shape for the broadcasts: a branch's f16 image, else the mask's
    k = next(i for i in (1, 2, 0) if full[i])
    if k or args[0].id not in sel.bit_masks:
        like = (half(args[k]), "f16")
    elif args[0].id in sel.mask_like:
        like = (A.Name(sel.mask_like[args[0].id][0]), sel.mask_like[args[0].id][1])
    else:
        raise NoRule(f"`{_dsl_text(e)}`: make one branch a tile of the result's shape {list(shape)}")
    invert = not is_tile[1]      # Select takes its scalar as the false value
    first, second = (b, a) if invert else (a, b)
    ft, stype = (types[2], types[1]) if invert else (types[1], types[2])
    m = sel._mask_of_shape(st, mask, types[0], is_tile[0], shape, like, invert)
    first = half(first)
    if tuple(ft.shape) != shape:
        first = sel._expand(st, first, TTile("f16", ft.shape), shape, like, "f16")
    if isinstance(stype, TTile) and stype.shape != ():
        second = half(second)
        if tuple(stype.shape) != shape:
            second = sel._expand(st, second, TTile("f16", stype.shape), shape, like, "f16")
    else:
        second = lit(_scalar_value(second))
    st.add(call("Cast", st.add(call("Select", m, first, second)), A.Name(dtype)))
    return st


def _mask_values(sel, st, mask, like=None):
    """The mask as f32 0/1 values: a bool tile from GM cast (u8 -> f16 -> f32), a bit mask selected
    from ones shaped like the tile it compared (or like ``like``, an f32 tile of the mask's shape)."""
    if isinstance(mask, A.Name) and mask.id in sel.bit_masks:
        known = sel.mask_like.get(mask.id)
        if known is None and like is None:
            raise NoRule("where between bool or 8-bit values with a comparison of integer tiles as a branch (select "
                         "the branch as where(mask, 1, 0) of an f32 tile first)")
        ones, kind = sel._filled(st, A.Name(known[0]), known[1], 1) if known else sel._filled(st, like, "f32", 1)
        if kind != "f32":
            ones = st.add(call("Cast", ones, A.Name("f32")))
        return st.add(call("Select", sel._bits(st, mask, lanes=4), ones, lit(0.0)))
    return sel._float_like(st, mask, "bool")


def store_mask(sel, s) -> list:
    """``store(y[...], mask)`` of a comparison's bit mask to a bool tensor (bytes): 0/1 selected as f16
    (from ones shaped like the tile it compared), cast to bytes."""
    known = sel.mask_like.get(s.value.id)
    if known is None:
        raise NoRule(f"a store of the mask `{s.value.id}` (store masks that compare tiles, or their & | ~)")
    st = _Steps()
    # 0/1 selected at the width the mask was compared at (its bits have that pitch), then bytes
    width = "f32" if sel.mask_lanes.get(s.value.id) == 4 else "f16"
    ones, kind = sel._filled(st, A.Name(known[0]), known[1], 1)
    if kind != width:
        ones = st.add(call("Cast", ones, A.Name(width)))
    values = st.add(call("Select", s.value, ones, lit(0.0)))
    if width != "f16":
        values = st.add(call("Cast", values, A.Name("f16")))
    st.add(call("Cast", values, A.Name("bool")))
    targets = [sel.names.fresh("_a") for _ in st]
    out = [A.Assign(tgt, _subst(v, targets[:i])) for i, (tgt, v) in enumerate(zip(targets, st))]
    return out + [_with_value(s, targets[-1])]


def _with_value(s, name: str):
    from dataclasses import replace
    return replace(s, value=A.Name(name))


def _scalar_value(x) -> float:
    if isinstance(x, A.Name) and x.id in ("True", "False"):
        return 1.0 if x.id == "True" else 0.0
    v = _number(x)
    if v is None:
        raise NoRule("where between 8-bit or bool values with a scalar branch that is not a literal")
    return float(v)
