"""The emitter's tile ops: API-level calls of the op table (element-wise, broadcasts, slices,
reductions, scans, casts, gather/scatter) as AscendC calls over a tile's rows and pitch.
A mixin of ``kernel._Emitter``.
"""
from __future__ import annotations

import re

from .. import dtypes as D
from ..dsl import ast as A
from ..dsl.ops import API_COMPARE_MODES, OPS
from ..dsl.types import TTile
from . import indexing
from .rows import emit_column_op, emit_row_reduce, emit_row_vector_op, work_view
from .emit_common import (
    ROUND_MODES,
    UB_CTYPES,
    Tile,
    cast_pitch,
    unsupported,
)


class ComputeEmitter:
    def _select_rows(self, target: str, e: A.Call, ct: str, out: str):
        """SelectRows(m, a, b): per row, the mask's byte (its rows are 32-byte blocks) read on the scalar
        unit, then the chosen branch's row copied with Muls by 1 (exact for every value, -0.0, inf and
        NaN included) or a scalar branch duplicated."""
        mask, a, b = e.args
        big = self.tiles[next(x.id for x in (a, b) if isinstance(x, A.Name) and x.id in self.tiles)]
        m = self.tiles[mask.id]
        cols = f"static_cast<int32_t>({big.cols})"

        def fill(x):
            if isinstance(x, A.Name) and x.id in self.tiles:
                return (f"AscendC::Muls({target}[r_ * {big.pitch}], {x.id}[r_ * {self.tiles[x.id].pitch}], "
                        f"static_cast<{ct}>(1), {cols});")
            return f"AscendC::Duplicate({target}[r_ * {big.pitch}], static_cast<{ct}>({self.scalar(x)}), {cols});"
        self.emit(f"for (int64_t r_ = 0; r_ < {big.rows}; ++r_) {{")
        self.emit(f"    if ({mask.id}.GetValue(r_ * {m.pitch}) != 0) {{ {fill(a)} }} else {{ {fill(b)} }}")
        self.emit("}")
        return Tile(ct, big.dtype, big.rows, big.cols, big.pitch, out)

    def _triangle(self, target: str, e: A.Call, op, ct: str, out: str):
        """Tril: zeros, then each row's kept leading part (column <= row + d) copied with Muls by 1
        (exact for every value; a row starts on a 32-byte block, its kept part ends anywhere).
        Triu: a copy, then each row's leading part (column < row + d) zeroed with Duplicate."""
        src = self.tiles[e.args[0].id]
        one = f"static_cast<{ct}>(1)"
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t d_ = {self.scalar(e.args[1])};")
        if op.of == "tril":
            self.emit(f"AscendC::Duplicate({target}, static_cast<{ct}>(0), static_cast<int32_t>({src.count}));")
        else:
            self.emit(f"AscendC::Muls({target}, {e.args[0].id}, {one}, static_cast<int32_t>({src.count}));")
        self.emit("AscendC::PipeBarrier<PIPE_V>();")
        self.emit(f"for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
        # the row's leading part: columns [0, k_) kept (tril) or zeroed (triu), k_ clamped to the row
        self.emit(f"    const int64_t k_ = AcMin<int64_t>(AcMax<int64_t>(r_ + d_{' + 1' if op.of == 'tril' else ''}, 0), "
                  f"{src.cols});")
        self.emit("    if (k_ > 0) {")
        if op.of == "tril":
            self.emit(f"        AscendC::Muls({target}[r_ * {src.pitch}], {e.args[0].id}[r_ * {src.pitch}], {one}, "
                      f"static_cast<int32_t>(k_));")
        else:
            self.emit(f"        AscendC::Duplicate({target}[r_ * {src.pitch}], static_cast<{ct}>(0), "
                      f"static_cast<int32_t>(k_));")
        self.emit("    }")
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        return Tile(ct, src.dtype, src.rows, src.cols, src.pitch, out)

    def _api(self, target: str, e: A.Call):
        op = OPS[e.func]
        form = op.form
        args = e.args
        if form == "getvalue":
            if isinstance(args[0], A.Index):   # one element of a tile: t[i], t[i, j]
                self.emit(f"{target} = {args[0].base.id}.GetValue({self._element(args[0])});")
            else:
                self.emit(f"{target} = {args[0].id}.GetValue(0);")
            return
        if form == "reduce" and op.name == "ReduceProd":
            self._reduce_prod(target, args[0].id)
            return
        if form == "reduce":
            src = self.tiles[args[0].id]
            fn = op.api
            self.emit("{")
            self.depth += 1
            rwork = "w_"
            self.emit(f"AscendC::LocalTensor<{src.ctype}> w_ = {work_view(self, src.ctype)[0]};")
            self.emit(f"if ({src.rows} == 1 || {src.cols} == {src.pitch}) {{")
            self.emit(f"    AscendC::{fn}<{src.ctype}>({rwork}, {args[0].id}, {rwork}, static_cast<int32_t>("
                      f"{src.rows} * {src.cols}));")
            self.emit(f"    {target} = {rwork}.GetValue(0);")
            self.emit("} else {")
            combine = {"ReduceSum": "{t} = {t} + v_;", "ReduceMax": "{t} = v_ > {t} ? v_ : {t};",
                       "ReduceMin": "{t} = v_ < {t} ? v_ : {t};"}[fn].format(t=target)
            self.emit(f"    for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
            self.emit(f"        AscendC::{fn}<{src.ctype}>({rwork}, {args[0].id}[r_ * {src.pitch}], {rwork}, "
                      f"static_cast<int32_t>({src.cols}));")
            self.emit(f"        {src.ctype} v_ = {rwork}.GetValue(0);")
            self.emit(f"        if (r_ == 0) {{ {target} = v_; }} else {{ {combine} }}")
            self.emit("    }")
            self.emit("}")
            self.depth -= 1
            self.emit("}")
            return
        t = self.ck.expr_types[id(e)]
        out = e.kwarg("out").id
        ct = UB_CTYPES[t.dtype]
        queue = self.buffers[out].type.space != "veccalc"
        self.emit(f"{target} = {out}.AllocTensor<{ct}>();" if queue else f"{target} = {out};")
        if form == "duplicate":
            shape = args[0].items if isinstance(args[0], A.Tuple) else (args[0],)
            per_block = 32 // D.ITEMSIZE[t.dtype]
            cols = self.scalar(shape[-1]) if shape else "1"
            rows = self.scalar(shape[0]) if len(shape) == 2 else "1"
            tile = Tile(ct, t.dtype, rows, cols, f"AcAlignUp({cols}, {per_block})", out)
            self.emit(f"AscendC::Duplicate<{ct}>({target}, static_cast<{ct}>({self.scalar(args[1])}), "
                      f"static_cast<int32_t>({tile.count}));")
        elif form in ("rowvec", "colvec"):
            tile = self._broadcast(target, e, op, ct, out)
        elif form == "outer":
            from .outer import emit_outer
            tile = emit_outer(self, target, e, op, ct, out)
        elif form == "rowreduce":
            tile = emit_row_reduce(self, target, e, op, ct, out)
        elif form == "triangle":
            tile = self._triangle(target, e, op, ct, out)
        elif form == "transpose":
            tile = self._transpose(target, e, ct, out)
        elif form == "selectrows":
            tile = self._select_rows(target, e, ct, out)
        elif form == "copy" and isinstance(args[0], A.Index):
            tile = self._slice(target, args[0], t, ct, out)
        elif form == "gather":   # codegen/indexing.py
            tile = indexing.emit_gather(self, target, e, ct, t.dtype, out, Tile)
        elif form == "argrows":   # codegen/indexing.py
            tile = indexing.emit_argrows(self, target, e, op, ct, out, Tile)
        elif form == "argeachrow":   # codegen/indexing.py
            tile = indexing.emit_argeachrow(self, target, e, op, ct, out, Tile)
        elif form == "scatter":   # codegen/indexing.py
            tile = indexing.emit_scatter(self, target, e, op, out, Tile)
        else:
            src = self.tiles[(args[1] if form == "select" else args[0]).id]
            tile = Tile(ct, t.dtype, src.rows, src.cols, src.pitch, out)
            n = f"static_cast<int32_t>({src.count})"
            a = [x.id if isinstance(x, A.Name) and x.id in self.tiles else None for x in args]
            if op.name in ("Not", "And", "Or"):
                # on 16-bit views (And/Or/Not take int16/uint16): a bool tile is a bit mask here (select
                # makes one of a mask from GM first), one bit per element; integers are whole elements
                units = (f"AcCdiv({src.count}, 16)" if t.dtype == "bool" else
                         f"({src.count}) * {D.ITEMSIZE[t.dtype] // 2}")
                views = [f"{x}.ReinterpretCast<uint16_t>()" for x in [target] + a[:op.nargs]]
                self.emit(f"AscendC::{op.api}({', '.join(views)}, static_cast<int32_t>({units}));")
            elif form in ("unary",):
                self.emit(f"AscendC::{op.api}({target}, {a[0]}, {n});")
            elif form == "binary":
                self.emit(f"AscendC::{op.api}({target}, {a[0]}, {a[1]}, {n});")
            elif form == "scalar":
                self.emit(f"AscendC::{op.api}({target}, {a[0]}, static_cast<{src.ctype}>({self.scalar(args[1])}), "
                          f"{n});")
            elif form == "axpy":    # Axpy accumulates into its destination: acc's buffer, else a copy of acc
                if queue or src.home != out:
                    self.emit(f"AcCopy({target}, {a[0]}, {src.count});")
                    self.emit("AscendC::PipeBarrier<PIPE_V>();")
                self.emit(f"AscendC::Axpy({target}, {a[1]}, static_cast<{src.ctype}>({self.scalar(args[2])}), {n});")
            elif form == "window":
                self._window(target, a[0], e, op)
                tile = Tile(ct, t.dtype, f"{target}_rows", f"{target}_cols", f"{target}_pitch", out)
            elif form == "scan":
                self._scan(target, a[0], op, bool(self._kw(e, "reverse", False)))
            elif form == "rows":   # row 0 is the accumulator; rows 1.. are folded in with Add/Max/Min/Mul
                fn = {"sum": "Add", "max": "Max", "min": "Min", "prod": "Mul"}[op.of]
                tile = Tile(ct, t.dtype, "1", src.cols, src.pitch, out)
                cols = f"static_cast<int32_t>({src.cols})"
                if out != src.home:   # row 0 (its cols elements: a DataCopy of whole blocks would read
                    # the row's padding, which the op that made the tile need not have written)
                    self.emit(f"AscendC::Muls({target}, {a[0]}, static_cast<{src.ctype}>(1), {cols});")
                self.emit(f"for (int64_t r_ = 1; r_ < {src.rows}; ++r_) {{")
                self.emit("    AscendC::PipeBarrier<PIPE_V>();")
                self.emit(f"    AscendC::{fn}({target}, {target}, {a[0]}[r_ * {src.pitch}], {cols});")
                self.emit("}")
            elif form == "copy" and not queue and src.home == out:
                pass   # onto itself (a cast to the tile's own dtype that bufferize gave its source's buffer)
            elif form == "copy":
                # a comparison's mask holds one bit per element
                n = f"AcCdiv({src.count}, 16) * 2" if a[0] in self.bit_masks else src.count
                self.emit(f"AcCopy({target}, {a[0]}, {n});")
            elif form == "cast":
                mode = e.kwarg("round")
                rmode = self._round(src.dtype, t.dtype, mode.value if mode is not None else None)
                repitch = cast_pitch(src, self._pitch_exprs().get(src.pitch, src.pitch), t.dtype)
                if repitch is None:
                    self.emit(f"AscendC::Cast({target}, {a[0]}, AscendC::RoundMode::{rmode}, "
                              f"static_cast<uint32_t>({src.count}));")
                else:
                    # rows of a 2-D tile start on 32-byte blocks, so a cast between 2- and 4-byte types
                    # gives the rows the pitch every tile of the result's dtype and static shape has
                    # (bufferize sizes its buffer so): row by row where the two pitches differ
                    tile = Tile(ct, t.dtype, src.rows, src.cols, repitch, out)
                    self.emit(f"if (({src.rows}) > 1 && ({src.pitch}) != ({repitch})) {{")
                    # the row gaps are zeroed: element-wise ops over whole rows read them
                    self.emit(f"    AcZeroFill({target}, (({src.rows}) - 1) * ({repitch}));")
                    self.emit("    AscendC::PipeBarrier<PIPE_V>();")
                    self.emit(f"    for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
                    self.emit(f"        AscendC::Cast({target}[r_ * ({repitch})], {a[0]}[r_ * ({src.pitch})], "
                              f"AscendC::RoundMode::{rmode}, static_cast<uint32_t>({src.cols}));")
                    self.emit("    }")
                    self.emit("} else {")
                    self.emit(f"    AscendC::Cast({target}, {a[0]}, AscendC::RoundMode::{rmode}, "
                              f"static_cast<uint32_t>({src.count}));")
                    self.emit("}")
            elif form == "compare":
                mode = API_COMPARE_MODES[e.kwarg("mode").value]
                per_repeat = 256 // D.ITEMSIZE[src.dtype]
                count = f"static_cast<uint32_t>(AcAlignUp({src.count}, {per_repeat}))"
                # Compare works on whole 256-byte repeats: fill the operands' unused tail of the last
                # repeat so no lane reads uninitialised UB: the rest of the data's last 32-byte block on
                # the scalar unit (a Cast's output ends exactly at the data), then whole blocks.
                per_block = 32 // D.ITEMSIZE[src.dtype]
                for name in (x for x in a[:2] if x is not None):
                    self.emit(f"{{ const int64_t n_ = {src.count}, a_ = AcAlignUp(n_, {per_block}), "
                              f"e_ = AcAlignUp(n_, {per_repeat}); for (int64_t i_ = n_; i_ < a_; ++i_) {{ "
                              f"{name}.SetValue(i_, static_cast<{src.ctype}>(0)); }} if (e_ > a_) {{ "
                              f"AscendC::Duplicate({name}[a_], static_cast<{src.ctype}>(0), "
                              f"static_cast<int32_t>(e_ - a_)); }} }}")
                if a[1] is None:
                    self.emit(f"AscendC::CompareScalar({target}, {a[0]}, static_cast<{src.ctype}>("
                              f"{self.scalar(args[1])}), AscendC::CMPMODE::{mode}, {count});")
                else:
                    self.emit(f"AscendC::Compare({target}, {a[0]}, {a[1]}, AscendC::CMPMODE::{mode}, {count});")
            elif form == "select":
                # Select moves bits: integers are selected through a float view of the same width
                fview = {"i32": "float", "i16": "half"}.get(t.dtype)
                view = (lambda x: f"{x}.ReinterpretCast<{fview}>()") if fview else (lambda x: x)
                if a[2] is None:
                    value = f"static_cast<{src.ctype}>({self.scalar(args[2])})"
                    if fview:
                        value = f"AcBitsAs<{fview}>({value})"
                    self.emit(f"AscendC::Select({view(target)}, {a[0]}, {view(a[1])}, {value}, "
                              f"AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({src.count}));")
                else:
                    self.emit(f"AscendC::Select({view(target)}, {a[0]}, {view(a[1])}, {view(a[2])}, "
                              f"AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, static_cast<uint32_t>({src.count}));")
            else:
                raise unsupported(f"API op {op.name}", e)
        if queue:
            self.emit(f"{out}.EnQue({target});")
        if t.dtype == "bool" and (form == "compare" or op.name in ("Not", "And", "Or") or
                                  form == "copy" and isinstance(args[0], A.Name) and args[0].id in self.bit_masks):
            self.bit_masks.add(target)
        self.tiles[target] = tile
        self._freeze(target)

    def _broadcast(self, target: str, e: A.Call, op, ct: str, out: str) -> Tile:
        """[R, C] op row vector: one level-2 op per row with the vector; op column vector [R, 1]:
        per row, the vector's element on the scalar unit and the tile-scalar op."""
        x, y = (self.tiles[a.id] for a in e.args)
        nx, ny = (a.id for a in e.args)
        # the vector is the operand whose static shape is not the result's ([C] or [1, C]; [R, 1])
        big = y if op.form == "rowvec" and self._is_vector_operand(e.args[0], e) else x
        name = op.name[:-6]
        # whole padded rows except the last, so the result's row padding is as defined as the
        # inputs' (later element-wise ops cover it)
        cols = f"static_cast<int32_t>(r_ + 1 < {big.rows} ? {big.pitch} : {big.cols})"
        if op.form == "rowvec":
            # those whole rows read the row vector up to the pitch: define its padding (1, harmless for
            # every op, Div included) where nothing wrote it (a vector shorter than a 32-byte block)
            vec, nv = (x, nx) if big is y else (y, ny)
            per_block = 32 // D.ITEMSIZE[vec.dtype]
            self.emit(f"if ({big.rows} > 1) {{ const int64_t n_ = {vec.cols}, a_ = AcAlignUp(n_, {per_block}), "
                      f"p_ = {big.pitch}; for (int64_t i_ = n_; i_ < a_ && i_ < p_; ++i_) {{ {nv}.SetValue(i_, "
                      f"static_cast<{vec.ctype}>(1)); }} if (p_ > a_) {{ AscendC::Duplicate({nv}[a_], "
                      f"static_cast<{vec.ctype}>(1), static_cast<int32_t>(p_ - a_)); }} }}")
        # on the vector unit alone where it fits (codegen/rows.py), else row by row
        self.emit("{")
        self.depth += 1
        fast = emit_column_op(self, target, x, nx, y, ny, name) if op.form != "rowvec" else \
            emit_row_vector_op(self, target, x, nx, y, ny, name, big is x)
        self.depth += fast
        self.emit(f"for (int64_t r_ = 0; r_ < {big.rows}; ++r_) {{")
        if op.form == "rowvec":
            a = f"{nx}[r_ * {x.pitch}]" if big is x else nx
            b = f"{ny}[r_ * {y.pitch}]" if big is y else ny
            self.emit(f"    AscendC::{name}({target}[r_ * {big.pitch}], {a}, {b}, {cols});")
        else:
            self.emit(f"    const {x.ctype} v_ = {ny}.GetValue(r_ * {y.pitch});")
            scalar_op = {"Add": ("Adds", "v_"), "Sub": ("Adds", "-v_"), "Mul": ("Muls", "v_"),
                         "Div": ("Muls", f"static_cast<{x.ctype}>(1) / v_"), "Max": ("Maxs", "v_"),
                         "Min": ("Mins", "v_")}[name]
            self.emit(f"    AscendC::{scalar_op[0]}({target}[r_ * {big.pitch}], {nx}[r_ * {x.pitch}], "
                      f"static_cast<{x.ctype}>({scalar_op[1]}), {cols});")
        self.emit("}")
        if fast:
            self.depth -= 1
            self.emit("}")
        self.depth -= 1
        self.emit("}")
        return Tile(ct, big.dtype, big.rows, big.cols, big.pitch, out)

    def _subscripts(self, ix: A.Index, src: Tile) -> list:
        """Per axis of the indexed tile (rows, cols; a 1-D tile has cols only): ("slice", first,
        count), clamped to the tile's run-time extent as the DSL clamps, or ("index", i)."""
        extents = [src.rows, src.cols] if self._rank(ix.base) == 2 else [src.cols]
        subs = A.whole_subscripts(ix, len(extents))
        out = []
        for sub, n in zip(subs, extents):
            if isinstance(sub, A.Slice):
                lo = f"AcClamp({self.scalar(sub.start)}, {n})" if sub.start is not None else "0"
                hi = f"AcClamp({self.scalar(sub.stop)}, {n})" if sub.stop is not None else f"({n})"
                out.append(("slice", lo, f"AcMax<int64_t>({hi} - {lo}, 0)"))
            else:
                out.append(("index", f"({self.scalar(sub)})"))
        return out

    def _rank(self, node) -> int:
        return len(self.ck.expr_types[id(node)].shape)

    def _element(self, ix: A.Index) -> str:
        """The offset of the element ``t[i]`` / ``t[i, j]`` in its tile (rows ``pitch`` apart)."""
        src = self.tiles[ix.base.id]
        subs = self._subscripts(ix, src)
        if len(subs) == 2:
            return f"{subs[0][1]} * {src.pitch} + {subs[1][1]}"
        return subs[0][1]

    def _slice_pitch(self, sub, src: Tile, consts: set, per_block: int) -> str:
        """The row pitch of a 2-D slice of ``src`` along columns ``sub``: its static length, clamped
        to the source's static columns as the DSL clamps it, aligned to 32 bytes. So two slices of one
        static shape have one pitch (``a[:, 1:TC]`` of a tile clamped to C columns and ``b[:, 1:C]``),
        as two loads do (``_static_cols``): element-wise ops covering whole rows rely on it."""
        from ascendcraft.lowering_passes.bufferize import slice_extent
        ext = slice_extent(sub, None, consts) if isinstance(sub, A.Slice) else None
        if ext is None:
            return src.pitch
        aligned = re.fullmatch(r"AcAlignUp\((.*), (\d+)\)", self._pitch_exprs().get(src.pitch, src.pitch))
        if aligned is None:          # a source pitch known only at run time: the static length, at most it
            return f"AcMin<int64_t>(AcAlignUp({self.scalar(ext)}, {per_block}), {src.pitch})"
        cols = aligned.group(1)      # the source's static columns
        ends = [e for e in (sub.start, sub.stop) if e is not None]
        if all(A.names_in(e) <= consts for e in ends):
            start = self.scalar(sub.start) if sub.start is not None else "0"
            stop = f"AcMin<int64_t>({self.scalar(sub.stop)}, {cols})" if sub.stop is not None else f"({cols})"
            length = f"AcMax<int64_t>({stop} - AcMin<int64_t>({start}, {cols}), 0)"
        else:                        # j:j + T: at most T, at most the source's columns
            length = f"AcMin<int64_t>({self.scalar(ext)}, {cols})"
        return f"AcAlignUp({length}, {per_block})"

    def _transpose(self, target: str, e, ct: str, out: str) -> Tile:
        """``Transpose(t)`` of a 2-D tile [r, c]: output row k is column k of t, one Gather of its r
        elements by the byte offsets of a column (row i at i * pitch), from column k (the Gather's base
        offset). The output's rows are the static row extent rounded to 32 bytes apart; the gaps of a
        shorter run-time tile are zeroed first, so element-wise ops over whole rows read defined values."""
        src = self.tiles[e.args[0].id]
        name = e.args[0].id
        size = D.ITEMSIZE[src.dtype]
        per_block = 32 // size
        gidx = self.work["gidx"]
        bound = e.kwarg("rows")
        pitch = f"AcAlignUp({self.scalar(bound) if bound is not None else src.rows}, {per_block})"
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t r_ = {src.rows}, c_ = {src.cols}, p_ = {pitch};")
        self.emit(f"if (c_ > 1 && r_ < p_) {{ AcZeroFill({target}, (c_ - 1) * p_); AscendC::PipeBarrier<PIPE_V>(); }}")
        self._gather_table(gidx, "r_", src.pitch, size)
        self.emit("for (int64_t k_ = 0; k_ < c_; ++k_) {")
        self.emit(f"    AscendC::Gather({target}[k_ * p_], {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                  f"static_cast<uint32_t>(k_ * {size}), static_cast<uint32_t>(r_));")
        self.emit("}")
        # the extents are locals of this block: freeze them before it closes
        self.tiles[target] = Tile(ct, src.dtype, "c_", "r_", "p_", out)
        self._freeze(target)
        self._pitch_exprs()[f"{target}_pitch"] = pitch
        self.depth -= 1
        self.emit("}")
        return self.tiles[target]

    def _slice(self, target: str, ix: A.Index, t, ct: str, out: str) -> Tile:
        """A slice of a tile (``t[a:b]``, ``t[:, a:b]``, ``t[i]``, ``t[a:b, j]``): whole rows of the tile,
        or part of one row from a 32-byte aligned start, are one run of its memory, moved by one vector
        op; otherwise Gathers from the tile, at any start (gidx: the byte offsets of one row of the
        slice, or of a column's elements); 1- and 8-byte types (which Gather does not move) on the
        scalar unit.
        Rows of a 2-D slice are ``pitch`` apart, the static length aligned to 32 bytes, as bufferize
        sized its buffer; the gaps of a narrower run-time slice are zeroed first, so element-wise ops
        that cover whole rows read defined values."""
        src = self.tiles[ix.base.id]
        name = ix.base.id
        size = D.ITEMSIZE[t.dtype]
        per_block = 32 // size
        subs = self._subscripts(ix, src)
        if len(subs) == 1:
            subs = [("index", "0")] + subs          # a 1-D tile is one row
        (rk, r0, nr), (ck_, c0, nc) = (x + (None,) if len(x) == 2 else x for x in subs)
        gidx = self.work["gidx"]
        vec = size in (2, 4)

        def run(start: str, n: str) -> str:
            # the slice's elements are one run of the tile's memory from a 32-byte aligned start: one
            # bit-exact copy (a DataCopy would round the run up to whole 32-byte blocks, past what the
            # tile wrote)
            return f"AcCopy({target}, {start}, {n});"
        self.emit("{")
        self.depth += 1
        if rk == "slice" and ck_ == "slice":        # a block of rows and columns: one Gather per row
            sub = (list(ix.subscripts) + [A.Slice(None, None)] * 2)[1]
            consts = {c.name for c in self.k.body if isinstance(c, A.Const)} | set(self.members) | {"CORES"}
            pitch = self._slice_pitch(sub, src, consts, per_block)
            self.emit(f"const int64_t r0_ = {r0}, nr_ = {nr}, c0_ = {c0}, nc_ = {nc}, p_ = {pitch};")
            if vec:
                # whole rows (a block of the tile's rows, its pitch): one run from an aligned start (run)
                self.emit(f"if (c0_ == 0 && nc_ == {src.cols} && p_ == {src.pitch}) {{")
                self.emit("    " + run(f"{name}[r0_ * p_]", "(nr_ - 1) * p_ + nc_"))
                self.emit("} else {")
                self.depth += 1
            # a Gather writes exactly nc_ elements of each row: zero the gaps (whole rows but the last)
            self.emit(f"if (nr_ > 1 && nc_ < p_) {{ AcZeroFill({target}, (nr_ - 1) * p_); "
                      f"AscendC::PipeBarrier<PIPE_V>(); }}")
            if vec:
                self._gather_table(gidx, "nc_", "1", size)
                self.emit("for (int64_t k_ = 0; k_ < nr_; ++k_) {")
                self.emit(f"    AscendC::Gather({target}[k_ * p_], {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                          f"static_cast<uint32_t>(((r0_ + k_) * {src.pitch} + c0_) * {size}), "
                          f"static_cast<uint32_t>(nc_));")
                self.emit("}")
            else:
                self.emit(f"for (int64_t k_ = 0; k_ < nr_; ++k_) {{ for (int64_t j_ = 0; j_ < nc_; ++j_) {{ "
                          f"{target}.SetValue(k_ * p_ + j_, {name}.GetValue((r0_ + k_) * {src.pitch} + c0_ + j_)); }} }}")
            if vec:
                self.depth -= 1
                self.emit("}")
            tile = Tile(ct, t.dtype, "nr_", "nc_", "p_", out)
        elif ck_ == "slice":                         # (part of) one row
            self.emit(f"const int64_t at_ = {r0} * {src.pitch} + {c0}, n_ = {nc};")
            if vec:
                # from a 32-byte aligned start (a row, or its part from an aligned column): one run
                self.emit(f"if (at_ % {per_block} == 0) {{")
                self.emit("    " + run(f"{name}[at_]", "n_"))
                self.emit("} else {")
                self.depth += 1
            if vec:
                self._gather_table(gidx, "n_", "1", size)
                self.emit(f"AscendC::Gather({target}, {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                          f"static_cast<uint32_t>(at_ * {size}), static_cast<uint32_t>(n_));")
            else:
                self.emit(f"for (int64_t j_ = 0; j_ < n_; ++j_) {{ {target}.SetValue(j_, {name}.GetValue(at_ + j_)); }}")
            if vec:
                self.depth -= 1
                self.emit("}")
            tile = Tile(ct, t.dtype, "1", "n_", f"AcAlignUp(n_, {per_block})", out)
        else:                                        # (part of) one column: elements a pitch apart
            self.emit(f"const int64_t at_ = {r0} * {src.pitch} + {c0}, n_ = {nr};")
            if vec:
                self._gather_table(gidx, "n_", src.pitch, size)
                self.emit(f"AscendC::Gather({target}, {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                          f"static_cast<uint32_t>(at_ * {size}), static_cast<uint32_t>(n_));")
            else:
                self.emit(f"for (int64_t j_ = 0; j_ < n_; ++j_) {{ {target}.SetValue(j_, {name}.GetValue(at_ + j_ * "
                          f"{src.pitch})); }}")
            tile = Tile(ct, t.dtype, "1", "n_", f"AcAlignUp(n_, {per_block})", out)
        # the extents are locals of this block: freeze them before it closes
        self.tiles[target] = tile
        self._freeze(target)
        if tile.pitch == "p_":
            self._pitch_exprs()[f"{target}_pitch"] = pitch
        self.depth -= 1
        self.emit("}")
        return self.tiles[target]

    def _gather_table(self, gidx: str, n: str, stride: str, size: int):
        """gidx[i] = i * stride * size: the byte offsets of n elements ``stride`` apart."""
        self.emit(f"AscendC::CreateVecIndex({gidx}, static_cast<int32_t>(0), static_cast<uint32_t>({n}));")
        self.emit(f"AscendC::Muls({gidx}, {gidx}, static_cast<int32_t>(({stride}) * {size}), "
                  f"static_cast<int32_t>({n}));")

    def _is_vector_operand(self, node, e) -> bool:
        t, r = self.ck.expr_types.get(id(node)), self.ck.expr_types.get(id(e))
        return isinstance(t, TTile) and isinstance(r, TTile) and tuple(t.shape) != tuple(r.shape)

    def _kw(self, e: A.Call, name: str, default):
        v = e.kwarg(name)
        if v is None:
            return default
        if isinstance(v, A.Name) and v.id in ("True", "False"):
            return v.id == "True"
        return getattr(v, "value", default)

    def _buffer_elems(self, home: str) -> str:
        return " * ".join(self._dim(d) for d in self.buffers[home].type.shape)

    def _fill_tail(self, name: str, src: Tile, identity: str):
        """Set a 1-D tile's elements from its length to ``s_`` to ``identity``: the partial 32-byte
        block element by element, the rest with Duplicate. ``s_`` is the end of its buffer, or of
        swork less its extra row when that is shorter: a buffer shared with a bigger tile (colouring)
        is longer than the scan work areas, which bufferize sized for this tile."""
        per_block = 32 // D.ITEMSIZE[src.dtype]
        size = f"AcMin<int64_t>({self._buffer_elems(src.home)}, ({self._buffer_elems(self.work['swork'])}) - 64)"
        self.emit(f"const int64_t n_ = {src.count}, a_ = AcAlignUp(n_, {per_block}), s_ = {size};")
        self.emit(f"for (int64_t i_ = n_; i_ < a_ && i_ < s_; ++i_) {{ {name}.SetValue(i_, static_cast<{src.ctype}>"
                  f"({identity})); }}")
        self.emit(f"if (s_ > a_) {{ AscendC::Duplicate({name}[a_], static_cast<{src.ctype}>({identity}), "
                  f"static_cast<int32_t>(s_ - a_)); }}")

    def _reduce_prod(self, target: str, name: str):
        """Product of a 1-D tile, folded in halves: its 64-element rows into one row (the last half
        of the rows times the first, an odd middle row kept, until one is left: log2(rows) vector
        ops, where one per row kept the scalar unit issuing), that row's lanes likewise down to one
        32-byte block, whose lanes the scalar unit multiplies."""
        src = self.tiles[name]
        swork = self.work["swork"]
        per_block = 32 // D.ITEMSIZE[src.dtype]
        self.emit("{")
        self.depth += 1
        self._fill_tail(name, src, "1")
        self.emit("int64_t rows_ = s_ / 64;")
        self.emit(f"if (rows_ == 1) {{ AcCopy({swork}, {name}, 64); }}")
        self.emit("else {")
        self.emit("    const int64_t h_ = rows_ / 2;")
        self.emit(f"    AscendC::Mul({swork}, {name}, {name}[(rows_ - h_) * 64], static_cast<int32_t>(h_ * 64));")
        self.emit(f"    if (rows_ % 2 != 0) {{ AcCopy({swork}[h_ * 64], {name}[h_ * 64], 64); }}")
        self.emit("    rows_ -= h_;")
        self.emit("}")
        self._fold_product(swork, src.ctype, per_block)
        self.emit(f"{target} = p_;")
        self.depth -= 1
        self.emit("}")

    def _fold_product(self, swork: str, ctype: str, per_block: int):
        """``p_`` = the product of ``rows_`` 64-element rows in ``swork``: the last half of the rows
        times the first (an odd middle row kept) until one is left, its lanes likewise down to one
        32-byte block, whose ``per_block`` lanes the scalar unit multiplies."""
        self.emit("while (rows_ > 1) {")
        self.emit("    const int64_t h_ = rows_ / 2;")
        self.emit("    AscendC::PipeBarrier<PIPE_V>();")
        self.emit(f"    AscendC::Mul({swork}, {swork}, {swork}[(rows_ - h_) * 64], static_cast<int32_t>(h_ * 64));")
        self.emit("    rows_ -= h_;")
        self.emit("}")
        self.emit(f"for (int64_t w_ = 32; w_ >= {per_block}; w_ /= 2) {{")
        self.emit("    AscendC::PipeBarrier<PIPE_V>();")
        self.emit(f"    AscendC::Mul({swork}, {swork}, {swork}[w_], static_cast<int32_t>(w_));")
        self.emit("}")
        self.emit(f"{ctype} p_ = 1;")
        self.emit(f"for (int64_t c_ = 0; c_ < {per_block}; ++c_) {{ p_ = p_ * {swork}.GetValue(c_); }}")

    def _scan(self, target: str, name: str, op, reverse: bool):
        """Inclusive scan of a 1-D tile of s_ elements seen as 64 chunks of rows_ = s_ / 64:
        Gather transposes it (swork row r = element r of every chunk), rows are accumulated
        (each row = 64 lanes, one vector op), the chunk totals get an exclusive scan on the
        scalar unit, every row adds its chunk's offset, and Gather puts it back in order."""
        src = self.tiles[name]
        fn, identity = ("Add", "0") if op.name.startswith("CumSum") else ("Mul", "1")
        exclusive = op.name.endswith("Exclusive")
        swork, sidx = self.work["swork"], self.work["sidx"]
        self.emit("{")
        self.depth += 1
        self._fill_tail(name, src, identity)
        self.emit("const int64_t rows_ = s_ / 64;")
        self.emit(f"BuildScanTables({sidx}, s_, sizeof({src.ctype}));")
        self.emit(f"AscendC::LocalTensor<uint32_t> in_ = {sidx}.ReinterpretCast<uint32_t>();")
        self.emit("AscendC::LocalTensor<uint32_t> out_ = in_[s_];")
        self.emit(f"AscendC::Gather({swork}, {name}, in_, 0, static_cast<uint32_t>(s_));")
        if reverse:
            self.emit("for (int64_t r_ = rows_ - 2; r_ >= 0; --r_) {")
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[r_ * 64], {swork}[(r_ + 1) * 64], 64);")
        else:
            self.emit("for (int64_t r_ = 1; r_ < rows_; ++r_) {")
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[r_ * 64], {swork}[(r_ - 1) * 64], 64);")
        self.emit("}")
        total_row = "0" if reverse else "(rows_ - 1) * 64"
        lanes = "for (int64_t c_ = 63; c_ >= 0; --c_)" if reverse else "for (int64_t c_ = 0; c_ < 64; ++c_)"
        combine = "acc_ + v_" if fn == "Add" else "acc_ * v_"
        self.emit(f"{src.ctype} acc_ = {identity};")
        self.emit(f"{lanes} {{ {src.ctype} v_ = {swork}.GetValue({total_row} + c_); {swork}.SetValue(s_ + c_, acc_); "
                  f"acc_ = {combine}; }}")
        if exclusive:
            # element r of chunk c takes the inclusive value of its predecessor: row r - 1's (row r + 1's
            # for a reverse scan) with the chunk's offset; the first row (the last) is the offset itself,
            # the total of the chunks before (after) it. Rows go in the order that reads each row
            # before it is written.
            if reverse:
                self.emit("for (int64_t r_ = 0; r_ + 1 < rows_; ++r_) {")
                src_row = "(r_ + 1) * 64"
            else:
                self.emit("for (int64_t r_ = rows_ - 1; r_ >= 1; --r_) {")
                src_row = "(r_ - 1) * 64"
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[{src_row}], {swork}[s_], 64);")
            self.emit("}")
            self.emit("AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"AcCopy({swork}[{'(rows_ - 1) * 64' if reverse else '0'}], {swork}[s_], 64);")
        else:
            self.emit("for (int64_t r_ = 0; r_ < rows_; ++r_) {")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[r_ * 64], {swork}[s_], 64);")
            self.emit("}")
        self.emit(f"AscendC::Gather({target}, {swork}, out_, 0, static_cast<uint32_t>(s_));")
        self.depth -= 1
        self.emit("}")

    @staticmethod
    def _round(src: str, dst: str, mode) -> str:
        if mode is not None:
            return ROUND_MODES[mode]
        if dst in D.INTS and src in D.FLOATS:
            return "CAST_TRUNC"
        if D.ITEMSIZE[dst] < D.ITEMSIZE[src] and dst in D.FLOATS:
            return "CAST_RINT"
        return "CAST_NONE"

