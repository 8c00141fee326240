"""Select's rules for masks: ``where`` (Select, with broadcast masks and branches), ``& | ~`` on
bool and integer tiles, and the bit masks comparisons leave (one bit per element: sliced or cast
through their 0/1 values). A mixin of ``select._Selector``."""
from __future__ import annotations

from dataclasses import replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile

from .base import call, lit
from .select_steps import NoRule, _dsl_text, _Steps, _subst


class WhereRules:
    def _mask_values(self, st: "_Steps", mask: str, e, what: str):
        """The comparison mask ``mask`` (one bit per element) as an f32 tile of 0/1: ones shaped like
        the tile it compared, selected by the mask."""
        like = self.mask_like.get(mask)
        if like is None:
            raise NoRule(f"`{_dsl_text(e)}`: {what}")
        ones, _ = self._filled(st, A.Name(like[0]), like[1], 1)
        if like[1] != "f32":
            ones = st.add(call("Cast", ones, A.Name("f32")))
        return st.add(call("Select", A.Name(mask), ones, lit(0.0)))

    def _mask_index(self, s: A.Assign, e: A.Index, t) -> list:
        """A slice or element of a comparison's mask (one bit per element: no bit is addressable):
        the mask as 0/1 values, sliced, compared != 0 again (an element: read, != 0 on the scalar unit)."""
        st = _Steps()
        values = self._mask_values(st, e.base.id, e, "a slice of a mask that is not a comparison")
        part = replace(e, base=values)
        if t.shape == ():
            v = st.add(call("GetValue", part))
            st.append(A.Binary("!=", v, lit(0.0)))
        else:
            sliced = st.add(call("Copy", part))
            st.append(call("CompareScalar", sliced, lit(0.0), mode=A.Str("ne")))
        targets = [self.names.fresh("_a") for _ in st[:-1]] + [s.target]
        out = [A.Assign(tgt, _subst(v, targets[:i])) for i, (tgt, v) in enumerate(zip(targets, st))]
        if t.shape != ():
            self.bit_masks.add(s.target)
            self.mask_like[s.target] = (targets[-2], "f32")
        return out

    def _logic(self, op, args, tiles) -> list:
        """``&``, ``|``, ``~``: bitwise on the 16-bit views of integer tiles and of bit masks (masks
        from GM hold bytes: they become bit masks first, as Compare writes them); an integer scalar
        operand is a tile of it first."""
        st = _Steps()
        dtype = self.ctx.type_of(args[0]).dtype
        if dtype == "bool":
            args = [self._bits(st, a) for a in args]
        else:
            args = [a if tile else self._scalar_tile(st, args[0], dtype, a) for a, tile in zip(args, tiles)]
        st.add(call({"and": "And", "or": "Or", "not": "Not"}[op], *args))
        return st

    def _bits(self, st: "_Steps", mask, invert: bool = False, lanes: int = 2):
        """A bool tile as a bit mask (one bit per element, what Compare writes and Select reads): a bit
        mask as it is, bytes from GM -> f16 (Cast u8->half) -> CompareScalar != 0; ``invert``: its not.
        A Select of ``lanes``-byte values reads the bit of element (r, c) at r * pitch + c, with the
        pitch of its values' dtype (rows start on 32-byte blocks): a 2-D mask for 4-byte values is
        compared as f32, so its bits have that pitch (an f16 image has 16-element rows)."""
        if isinstance(mask, A.Name) and mask.id in self.bit_masks:
            return st.add(call("Not", mask)) if invert else mask
        h = st.add(call("Cast", mask, A.Name("f16")))
        mt = self.ctx.type_of(mask)
        if lanes == 4 and isinstance(mt, TTile) and len(mt.shape) >= 2:
            h = st.add(call("Cast", h, A.Name("f32")))
        return st.add(call("CompareScalar", h, lit(0.0), mode=A.Str("eq" if invert else "ne")))

    def _where(self, args, e) -> list:
        """``where(mask, a, b)`` as Select, with what the checker accepts: a bool mask of the value's
        shape, broadcast to it ([R, 1], [C] or [1, C] against [R, C]) or a scalar; branches tiles
        (broadcast too) or scalars; f32, f16, i16 or i32 values (Select moves bits: integers are
        selected as the bits of a float view)."""
        mask, a, b = args
        rt = self.ctx.type_of(e)
        shape, dtype = tuple(rt.shape), rt.dtype
        if dtype in ("bool", "i8", "u8", "i64"):    # no Select of 8- or 64-bit lanes
            from .select_int import narrow_where
            return narrow_where(self, args, e)
        types = [self.ctx.type_of(x) for x in args]
        is_tile = [isinstance(t, TTile) and t.shape != () for t in types]
        if self._row_mask(mask, types[0], shape) and all(
                not tile or tuple(t.shape) == shape for t, tile in zip(types[1:], is_tile[1:])) and any(is_tile[1:]):
            # a mask of bytes per row ([R, 1] from GM): each row is one branch's row, copied whole
            return [call("SelectRows", mask, a, b)]
        st = _Steps()
        # a tile of the result's run-time shape: a branch of that shape, else the mask
        like = next(((x, t.dtype) for x, t, v in zip(args[1:], types[1:], is_tile[1:])
                     if v and tuple(t.shape) == shape), None)
        if like is None and is_tile[0] and tuple(types[0].shape) == shape:
            m = mask.id if isinstance(mask, A.Name) else None
            if m in self.bit_masks and m in self.mask_like:
                like = (A.Name(self.mask_like[m][0]), self.mask_like[m][1])   # the compared tile
            elif m not in self.bit_masks:
                like = (mask, "bool")
        if like is None:
            raise NoRule(f"where(mask, a, b) of shapes {', '.join(self._describe(x) for x in args)}: no operand "
                         "has the result's shape (make one branch a tile of that shape)")
        # Select takes its scalar as the false value: a scalar true branch swaps the branches
        invert = not is_tile[1]
        first, second = (b, a) if invert else (a, b)
        first_t = types[2] if invert else types[1]
        m = self._mask_of_shape(st, mask, types[0], is_tile[0], shape, like, invert, D.ITEMSIZE[dtype])
        if tuple(first_t.shape) != shape:
            first = self._expand(st, first, first_t, shape, like, dtype)
        second_t = types[1] if invert else types[2]
        if is_tile[2 if not invert else 1] and tuple(second_t.shape) != shape:
            second = self._expand(st, second, second_t, shape, like, dtype)
        st.add(call("Select", m, first, second))
        return st

    def _row_mask(self, mask, mt, shape) -> bool:
        """An [R, 1] bool tile of bytes (not a comparison's bits) against a result of R rows of
        several columns."""
        return isinstance(mt, TTile) and len(shape) == 2 and shape[1] != 1 and tuple(mt.shape) == (shape[0], 1) \
            and not (isinstance(mask, A.Name) and mask.id in self.bit_masks)

    def _mask_of_shape(self, st, mask, mt, is_tile: bool, shape, like, invert: bool, lanes: int = 2):
        """A bit mask of the result's shape (inverted with ``invert``) for a Select of ``lanes``-byte values."""
        if not is_tile:   # a scalar condition: compare a tile of ones with where(c, 1, 0)
            ones, kind = self._filled(st, like[0], like[1], 1)
            f = st.add(call("Cast", ones, A.Name("f32"))) if kind != "f32" else ones
            value = A.Call("where", (mask, lit(1.0), lit(0.0)))
            return st.add(call("CompareScalar", f, value, mode=A.Str("ne" if invert else "eq")))
        if tuple(mt.shape) == shape:
            return self._bits(st, mask, invert, lanes)
        # a broadcast mask: its 0/1 values as f32, broadcast like an arithmetic operand, != 0
        if isinstance(mask, A.Name) and mask.id in self.bit_masks:
            if mask.id not in self.mask_like:
                raise NoRule("where with a broadcast mask that is not a comparison or a bool tile from GM")
            like_m, like_dtype = self.mask_like[mask.id]
            ones, _ = self._filled(st, A.Name(like_m), like_dtype, 1)
            if like_dtype != "f32":
                ones = st.add(call("Cast", ones, A.Name("f32")))
            f = st.add(call("Select", mask, ones, lit(0.0)))
        else:
            f = self._float_like(st, mask, "bool")
        wide = self._expand(st, f, TTile("f32", mt.shape), shape, like, "f32")
        return st.add(call("CompareScalar", wide, lit(0.0), mode=A.Str("eq" if invert else "ne")))

    def _expand(self, st, x, xt, shape, like, dtype: str):
        """Tile ``x`` broadcast to ``shape`` ([C] / [1, C] rows, or an [R, 1] column, of [R, C]): added
        to zeros of ``like``'s run-time shape (x + 0 is x, infinities and NaN included; -0.0 becomes
        0.0, which compares equal)."""
        xs = tuple(xt.shape)
        if len(shape) != 2 or xs not in ((shape[1],), (1, shape[1]), (shape[0], 1)):
            raise NoRule(f"a where branch or mask of shape {list(xs)} broadcast to {list(shape)} (only [R, C] with "
                         "[C], [1, C] or [R, 1])")
        zero, kind = self._filled(st, like[0], like[1], 0)
        if kind != dtype:
            zero = st.add(call("Cast", zero, A.Name(dtype)))
        return st.add(call("AddColVec" if xs == (shape[0], 1) else "AddRowVec", zero, x))
