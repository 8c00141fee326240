"""Select's rules for masks: ``where`` (Select, with broadcast masks and branches), ``& | ~`` on
bool and integer tiles, and the bit masks comparisons leave (one bit per element: sliced or cast
through their 0/1 values). A mixin of ``select._Selector``."""
from __future__ import annotations

from dataclasses import replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile

from .base import call, lit, map_names
from .select_steps import NoRule, _dsl_text, _step, _Steps, _subst

#: The largest where() result with an [R, 1] mask of bytes that is selected on the vector unit (the
#: mask spread over the rows, compared, one Select); a larger one is SelectRows, row by row, which
#: takes no temporaries (at 64 x 64 f32, MultiKernelBench's where_broadcast: 44 -> 38 us).
ROW_MASK_VECTOR_BYTES = 32 * 1024


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
        return st.add(call("Select", self._bits(st, A.Name(mask), lanes=4), ones, lit(0.0)))

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
            self.mask_lanes[s.target] = 4
            self.mask_shapes[s.target] = tuple(t.shape)
        return out

    def _logic(self, op, args, tiles) -> list:
        """``&``, ``|``, ``~``: bitwise on the 16-bit views of integer tiles and of bit masks (masks
        from GM hold bytes: they become bit masks first, as Compare writes them); an integer scalar
        operand is a tile of it first. Masks of different shapes broadcast through their values."""
        st = _Steps()
        dtype = self.ctx.type_of(args[0]).dtype
        shapes = [tuple(self.ctx.type_of(a).shape) for a in args] if all(tiles) else None
        if op != "not" and shapes and shapes[0] != shapes[1]:
            if dtype != "bool":
                raise NoRule(f"a bitwise {op} of integer tiles of shapes {list(shapes[0])} and {list(shapes[1])} "
                             "(integer operands must have one shape)")
            return self._logic_broadcast(op, args, shapes)
        if dtype == "bool":
            # one pitch for every operand: the first bit mask's (a GM mask's bytes compare as f16)
            lanes = next((self.mask_lanes[a.id] for a in args if isinstance(a, A.Name) and a.id in self.mask_lanes), 2)
            args = [self._bits(st, a, lanes=lanes) for a in args]
            st.mask_lanes = lanes
        else:
            args = [a if tile else self._scalar_tile(st, args[0], dtype, a) for a, tile in zip(args, tiles)]
        st.add(call({"and": "And", "or": "Or", "not": "Not"}[op], *args))
        return st

    def _logic_broadcast(self, op, args, shapes) -> list:
        """``a & b`` / ``a | b`` of masks of different shapes (``[R, C] & [R, 1]``, a row, an outer
        pair): their 0/1 values as f32 tiles, multiplied (``&``) or maximised (``|``) with the
        arithmetic broadcast rules, then ``!= 0``: a bit mask of the result's shape."""
        if not any(isinstance(a, A.Name) and a.id in self.bit_masks for a in args):
            return self._bytes_broadcast(op, args, shapes)
        st = _Steps()
        values = []
        for a in args:
            if isinstance(a, A.Name) and a.id in self.bit_masks:
                values.append(self._mask_values(st, a.id, a, "a broadcast & or | of a mask that is not a comparison"))
            else:
                values.append(self._float_like(st, a, "bool"))
        self._combined(st, op, values, shapes)
        st.mask_like = (len(st) - 1, "f32")     # the 0/1 values: a float tile of the result's shape
        st.mask_lanes = 4
        st.add(call("CompareScalar", _step(len(st) - 1), lit(0.0), mode=A.Str("ne")))
        return st

    def _bytes_broadcast(self, op, args, shapes) -> list:
        """``a & b`` / ``a | b`` of bool tiles that hold bytes (loaded from GM, or made by this rule) of
        different shapes: their 0/1 values as f16 (exact), multiplied (``&``) or maximised (``|``) with
        the arithmetic broadcast rules, and cast back to bytes: a bool tile of the result's shape. No
        compare and no select, and work buffers of 2 bytes an element, not the f32 path's 4."""
        st = _Steps()
        self._combined(st, op, [st.add(call("Cast", a, A.Name("f16"))) for a in args], shapes)
        st.add(call("Cast", _step(len(st) - 1), A.Name("bool")))
        return st

    def _combined(self, st: "_Steps", op: str, values: list, shapes) -> None:
        """Onto ``st``: the 0/1 ``values`` of two masks multiplied (``&``) or maximised (``|``) with the
        arithmetic broadcast rules for ``shapes``."""
        base, operands = len(st), (A.Name("$lhs"), A.Name("$rhs"))
        for c in self._broadcast({"and": "mul", "or": "maximum"}[op], *operands, *shapes):
            st.append(_rebased(c, base, dict(zip((o.id for o in operands), values))))

    def _bits(self, st: "_Steps", mask, invert: bool = False, lanes: int = 2):
        """A bool tile as a bit mask (one bit per element, what Compare writes and Select reads) for
        ``lanes``-byte values: bytes from GM -> f16 (Cast u8->half) [-> f32] -> CompareScalar != 0; a bit
        mask as it is, or re-laid for ``lanes``; ``invert``: its not. A Select of ``lanes``-byte values
        (and & | ~ of masks) reads the bit of element (r, c) at r * pitch + c, with the pitch of its
        values' dtype (rows start on 32-byte blocks: f32 rows of 8-element blocks, f16 of 16), so a 2-D
        mask compared as f32 is read by f32 values only."""
        mt = self.ctx.type_of(mask)
        shape = self.mask_shapes.get(mask.id) if isinstance(mask, A.Name) and mask.id in self.mask_shapes else \
            tuple(mt.shape) if isinstance(mt, TTile) else ()
        rows = len(shape) >= 2 and shape[0] != 1
        if isinstance(mask, A.Name) and mask.id in self.bit_masks:
            have = self.mask_lanes.get(mask.id, lanes)
            if rows and have != lanes:
                mask = self._relaid(st, mask, have, lanes)
            return st.add(call("Not", mask)) if invert else mask
        h = st.add(call("Cast", mask, A.Name("f16")))
        if not hasattr(st, "mask_like"):    # the mask's values: a tile of its shape (for a mask made of it)
            st.mask_like = (len(st) - 1, "f16")
        if lanes == 4 and rows:
            h = st.add(call("Cast", h, A.Name("f32")))
            st.mask_like = (len(st) - 1, "f32")
        return st.add(call("CompareScalar", h, lit(0.0), mode=A.Str("eq" if invert else "ne")))

    def _relaid(self, st: "_Steps", mask: A.Name, have: int, lanes: int):
        """Bit mask ``mask``, compared as ``have``-byte values, re-laid for ``lanes``-byte values: its 0/1
        values at its own width, cast (a Cast moves each row to the other pitch), compared != 0."""
        like = self.mask_like.get(mask.id)
        if like is None:
            raise NoRule(f"a mask read at another width than it was made at, with no tile of its shape to lay it "
                         f"out again ({mask.id})")
        width = {2: "f16", 4: "f32"}
        ones, kind = self._filled(st, A.Name(like[0]), like[1], 1)
        if kind != width[have]:
            ones = st.add(call("Cast", ones, A.Name(width[have])))
        values = st.add(call("Cast", st.add(call("Select", mask, ones, lit(0.0))), A.Name(width[lanes])))
        return st.add(call("CompareScalar", values, lit(0.0), mode=A.Str("ne")))

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
        # a float result of at most ROW_MASK_VECTOR_BYTES takes the general form below (the column's
        # 0/1 values spread over the rows on the vector unit, compared, one Select: two tiles more
        # than SelectRows, which reads each row's byte on the scalar unit and needs none)
        small = dtype in ("f32", "f16") and rt.nbytes <= ROW_MASK_VECTOR_BYTES
        if not small and self._row_mask(mask, types[0], shape) and all(
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
        if not is_tile:   # a scalar condition: compare a tile of ones with where(c, 1, 0), at lanes' width
            width = "f32" if lanes == 4 else "f16"
            ones, kind = self._filled(st, like[0], like[1], 1)
            f = st.add(call("Cast", ones, A.Name(width))) if kind != width else ones
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
            f = st.add(call("Select", self._bits(st, mask, lanes=4), ones, lit(0.0)))
        else:
            f = self._float_like(st, mask, "bool")
        wide = self._expand(st, f, TTile("f32", mt.shape), shape, like, "f32")
        if lanes == 2:      # compared as f16, for a Select of 2-byte values
            wide = st.add(call("Cast", wide, A.Name("f16")))
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


def _rebased(c, base: int, operands: dict):
    """A step of a sub-rule spliced into steps that already hold ``base`` calls: its ``$step<k>`` is
    ``$step<base + k>``, its operand placeholders (``operands``' keys) the steps that made them;
    ``$prev`` still names the step before it (a sub-rule's first step starts from its operands)."""
    prefix = _step(0).id[:-1]

    def shift(n):
        if n.id in operands:
            return operands[n.id]
        if n.id.startswith(prefix) and n.id[len(prefix):].isdigit():
            return _step(base + int(n.id[len(prefix):]))
        return n
    return map_names(c, shift)
