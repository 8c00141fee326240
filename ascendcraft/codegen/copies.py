"""The emitter's GM copies: loads (plain, padded, strided, windows) and stores of GM regions.

A mixin of ``kernel._Emitter`` (its state: tiles, buffers, the lines emitted); the layout
conventions are in kernel.py's docstring.
"""
from __future__ import annotations

from ascendcraft.lowering_passes.bufferize import strided_region
from ascendcraft.lowering_passes.linearize import is_gemm

from .. import dtypes as D
from ..dsl import ast as A
from ..dsl.types import TTile
from ..errors import DSLError
from .emit_common import (
    UB_CTYPES,
    Tile,
    unsupported,
)


class CopyEmitter:
    def _region(self, src, padded: bool = False):
        """(gm name, offset, [(extent, gm stride)] of sliced/whole axes) of a GM region, C++ expressions.
        A step multiplies its axis's GM stride; the extent counts the positions taken. For a padded
        load (``padded``) a stepped axis starts at its first position inside the tensor (start + k *
        step), the positions before it being halo."""
        name = (src.base if isinstance(src, A.Index) else src).id
        dims = [self._dim(d) for d in self._gm_shape(src)]
        # a permuted view's axes have the strides of the axes they are (symbols.strides)
        strides = [" * ".join(f"({self._dim(d)})" for d in ext) or "1" for ext in self.symbols.strides(name)]
        subs = A.whole_subscripts(src, len(dims))
        offset, axes = [], []
        for sub, dim, stride in zip(subs, dims, strides):
            if isinstance(sub, A.Slice):
                lo, count, _ = self._slice_range(sub, dim, padded)
                offset.append(f"({lo}) * {stride}")
                axes.append((count, f"({stride}) * ({self.scalar(sub.step)})" if sub.stepped() else stride))
            else:
                offset.append(f"({self.scalar(sub)}) * {stride}")
        return name, " + ".join(offset) or "0", axes

    def _slice_range(self, sub: A.Slice, dim: str, padded: bool) -> tuple[str, str, str]:
        """(first GM index taken, number of positions taken inside the tensor, positions skipped before
        the first) of a slice of an axis of extent ``dim``. Unpadded, the bounds clamp and the step
        counts from the clamped start; padded, the positions are start + k * step and those before 0
        are skipped (halo)."""
        a = self.scalar(sub.start) if sub.start is not None else "0"
        hi = f"AcClamp({self.scalar(sub.stop)}, {dim})" if sub.stop is not None else f"({dim})"
        if not sub.stepped():
            lo = f"AcClamp({a}, {dim})" if sub.start is not None else "0"
            return lo, f"AcMax<int64_t>({hi} - {lo}, 0)", f"({lo} - ({a}))"
        step = f"({self.scalar(sub.step)})"
        skip = f"((AcMax<int64_t>(-({a}), 0) + {step} - 1) / {step})" if padded else "0"
        lo = f"AcClamp(({a}) + {step} * {skip}, {dim})" if padded else f"AcClamp({a}, {dim})"
        if sub.start is None:
            lo, skip = "0", "0"
        return lo, f"AcMax<int64_t>(({hi} - {lo} + {step} - 1) / {step}, 0)", skip

    def _layout(self, axes, dtype: str, static_cols: str):
        if len(axes) > 2:
            raise unsupported("tiles of rank 3 or more on chip", None)
        per_block = 32 // D.ITEMSIZE[dtype]
        if not axes:
            return "1", "1", str(per_block)
        cols = axes[-1][0]
        rows = axes[0][0] if len(axes) == 2 else "1"
        pitch = f"AcAlignUp({static_cols}, {per_block})"
        return rows, cols, pitch

    def _copy_params(self, rows, cols, pitch, gm_row_stride, ct, to_gm: bool) -> str:
        blocks = f"(({cols}) * sizeof({ct}) + 31) / 32"
        ub_gap = f"(({pitch}) * sizeof({ct}) / 32 - {blocks})"
        gm_gap = f"((({gm_row_stride}) - ({cols})) * sizeof({ct}))"
        src, dst = (ub_gap, gm_gap) if to_gm else (gm_gap, ub_gap)
        return (f"AscendC::DataCopyExtParams{{static_cast<uint16_t>({rows}), static_cast<uint32_t>(({cols}) * "
                f"sizeof({ct})), static_cast<uint32_t>({src}), static_cast<uint32_t>({dst}), 0}}")

    def _load(self, target: str, e: A.Load):
        if e.space != "ub":
            raise unsupported("cube (l1) operands", e)
        if e.pad is not None:
            self._padded_load(target, e)
            return
        t = self.ck.expr_types[id(e)]
        ct = UB_CTYPES[t.dtype]
        name, offset, axes = self._region(e.src)
        home = e.out
        static_cols = self._static_cols(e.src)
        rows, cols, pitch = self._layout(axes, t.dtype, static_cols)
        row_stride = axes[0][1] if len(axes) == 2 else cols
        queue = self.buffers[home].type.space != "veccalc"
        if queue:
            self.emit(f"{target} = {home}.AllocTensor<{ct}>();")
        else:
            self.emit(f"{target} = {home};")
            self._sync("V_MTE2")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t r_ = {rows}, c_ = {cols}, off_ = {offset};")
        if len(axes) == 2:
            # rows shorter than the pitch (a tail of a sub-block): the copy leaves gaps between them
            # that compute ops, which cover (rows - 1) * pitch + cols elements, would read unwritten
            # (the copies write each row's last 32-byte block whole)
            per_block = 32 // D.ITEMSIZE[t.dtype]
            self.emit(f"if (r_ > 1 && AcAlignUp(c_, {per_block}) < ({pitch})) {{")
            self.emit(f"    AcZeroFill({target}, (r_ - 1) * ({pitch}));")
            self.depth += 1
            self._sync("V_MTE2")
            self.depth -= 1
            self.emit("}")
        if strided_region(e.src, self.ck.symbols):
            # the tile's last axis is not adjacent in GM (a column x[a:b, j]): one element per block
            self._filled_on_vector().add(target)
            self.emit(f"CopyInStrided<{ct}>({target}, {name}Gm[off_], r_, c_, {pitch}, 0, "
                      f"{axes[0][1] if len(axes) == 2 else '0'}, {axes[-1][1]}, static_cast<{ct}>(0));")
        else:
            self.emit("if (r_ == 0 || c_ == 0) {")     # a region clamped away (e.g. a prefetch past the end)
            self.emit(f"}} else if ((r_ == 1 || (c_ == ({pitch}) && c_ == ({row_stride}))) && "
                      f"(r_ * c_ * sizeof({ct})) % 32 == 0) {{")
            self.emit(f"    AscendC::DataCopy({target}, {name}Gm[off_], static_cast<uint32_t>(r_ * c_));")
            self.emit("} else {")
            self.depth += 1
            self._rows_pad_copy(target, f"{name}Gm", "r_" if len(axes) == 2 else "1", "c_", pitch, row_stride, ct,
                                to_gm=False)
            self.depth -= 1
            self.emit("}")
        self.depth -= 1
        self.emit("}")
        self._copied_in(target, Tile(ct, t.dtype, rows, cols, pitch, home), queue)

    def _rows_pad_copy(self, tile: str, gm: str, rows: str, cols: str, pitch: str, row_stride: str, ct: str,
                       to_gm: bool):
        """DataCopyPad of ``rows`` rows of ``cols`` adjacent elements between GM (``gm[off_]``, rows
        ``row_stride`` apart) and a tile (rows ``pitch`` apart), at most 4095 rows per call (the
        documented range of blockCount, ascendc_api.md 2.2)."""
        if rows == "1":
            params = self._copy_params("1", cols, pitch, row_stride, ct, to_gm)
            self.emit(f"AscendC::DataCopyPad({gm}[off_], {tile}, {params});" if to_gm else
                      f"AscendC::DataCopyPad({tile}, {gm}[off_], {params}, "
                      f"AscendC::DataCopyPadExtParams<{ct}>{{false, 0, 0, 0}});")
            return
        params = self._copy_params("n_", cols, pitch, row_stride, ct, to_gm)
        self.emit(f"for (int64_t q_ = 0; q_ < {rows}; q_ += 4095) {{")
        self.emit(f"    const int64_t n_ = AcMin<int64_t>({rows} - q_, 4095);")
        if to_gm:
            self.emit(f"    AscendC::DataCopyPad({gm}[off_ + q_ * ({row_stride})], {tile}[q_ * ({pitch})], {params});")
        else:
            self.emit(f"    AscendC::DataCopyPad({tile}[q_ * ({pitch})], {gm}[off_ + q_ * ({row_stride})], {params}, "
                      f"AscendC::DataCopyPadExtParams<{ct}>{{false, 0, 0, 0}});")
        self.emit("}")

    def _copied_in(self, target: str, tile: Tile, queue: bool):
        """After a GM->UB copy: hand the tile to the compute stage (EnQue/DeQue, or wait for MTE2)."""
        if queue:
            self.emit(f"{tile.home}.EnQue({target});")
            if tile.home in self.deque_at_use:
                self.pending[-1].add(target)   # DeQue'd where it is first used (block)
            else:
                self.emit(f"{target} = {tile.home}.DeQue<{tile.ctype}>();")
        else:
            self._sync("MTE2_V")
        self.tiles[target] = tile
        # extents are evaluated once, where the tile is made (loop variables may change later)
        self._freeze(target)

    def _slice_parts(self, src):
        """Per sliced axis of a GM region: (requested start, static extent, positions skipped before the
        first inside the tensor, in-range count, unclamped length), as a padded load takes them. The
        static extent (what bufferize sized buffers by) is the dim when the length cannot be read
        from the slice's text; a step divides both lengths (rounding up)."""
        from ascendcraft.lowering_passes.bufferize import _difference
        shape = self._gm_shape(src)
        subs = A.whole_subscripts(src, len(shape))
        parts = []
        for sub, d in zip(subs, shape):
            if not isinstance(sub, A.Slice):
                continue
            dim = A.Name(d) if isinstance(d, str) else A.Int(d)
            start = sub.start if sub.start is not None else A.Int(0)
            stop = sub.stop if sub.stop is not None else dim
            a = self.scalar(start)
            _, count, skip = self._slice_range(sub, self._dim(d), padded=True)
            static = self.scalar(_difference(start, stop, dim))
            length = f"AcMax<int64_t>(({self.scalar(stop)}) - ({a}), 0)"
            if sub.stepped():
                step = f"({self.scalar(sub.step)})"
                static, length = (f"(({x}) + {step} - 1) / {step}" for x in (static, length))
            parts.append((a, static, skip, count, length))
        return parts

    def _padded_load(self, target: str, e: A.Load):
        """load(x[...], pad=v): fill the whole tile with v, then copy the in-range part to its place.
        A left halo (start before 0) is DataCopyPad's leftPadding for its part in the last 32-byte
        block before the data (a wider halo is filled with the rest of the tile). The tile has each
        slice's full, unclamped length (stop - start, the DSL's meaning); its rows are laid out by
        the static extent, as bufferize sized the buffer."""
        t = self.ck.expr_types[id(e)]
        ct = UB_CTYPES[t.dtype]
        per_block = 32 // D.ITEMSIZE[t.dtype]
        name, offset, axes = self._region(e.src, padded=True)
        parts = self._slice_parts(e.src)
        if not 1 <= len(parts) <= 2:
            raise unsupported("padded loads of rank 3 or more", e)
        cols_s = parts[-1][4]
        rows_s = parts[0][4] if len(parts) == 2 else "1"
        pitch = f"AcAlignUp({parts[-1][1]}, {per_block})"
        home = e.out
        queue = self.buffers[home].type.space != "veccalc"
        self.emit(f"{target} = {home}.AllocTensor<{ct}>();" if queue else f"{target} = {home};")
        if not queue:
            # the buffer's last readers and writers: a copy out (MTE3), the vector unit (its earlier
            # tile, which nothing else orders the copy in after when no scalar read waited for it)
            self._sync("MTE3_V")
            self._sync("V_MTE2")
        pad = self.scalar(e.pad)
        self._filled_on_vector().add(target)
        self.emit("{")
        self.depth += 1
        _, _, skip_c, n_c, _ = parts[-1]
        row_off = parts[0][2] if len(parts) == 2 else "0"
        rows_in = parts[0][3] if len(parts) == 2 else "1"
        row_stride = axes[0][1] if len(axes) == 2 else "0"
        self.emit(f"const int64_t rs_ = {rows_s}, p_ = {pitch};")
        self.emit(f"const int64_t r_ = {rows_in}, c_ = {n_c}, left_ = {skip_c}, ro_ = {row_off}, "
                  f"off_ = {offset};")
        # Only the parts of the tile the copy does not write get the pad value: rows above and
        # below, and each row's blocks right of the copied ones (the copy pads its first and last
        # block itself). They are disjoint from the copy, so MTE2 need not wait for them. A tile
        # entirely outside, or a left halo of a block or more, is filled whole first instead; the
        # copy then starts at the halo's last whole block (DataCopyPad's leftPadding is at most
        # 32 bytes, ascendc_api.md 2.2).
        fill = f"AscendC::Duplicate({{}}, static_cast<{ct}>({pad}), static_cast<int32_t>({{}}));"
        if strided_region(e.src, self.ck.symbols):
            # a strided region (a column with halos): pad the whole tile, then copy the part inside
            # the tensor element by element to row ro_, column left_
            self.emit(fill.format(target, "rs_ * p_"))
            self.emit(f"CopyInStrided<{ct}>({target}[ro_ * p_], {name}Gm[off_], r_, c_, p_, left_, {row_stride}, "
                      f"{axes[-1][1]}, static_cast<{ct}>({pad}));")
            self.depth -= 1
            self.emit("}")
            self._copied_in(target, Tile(ct, t.dtype, rows_s, cols_s, pitch, home), queue)
            return
        self.emit(f"if (r_ == 0 || c_ == 0 || left_ >= {per_block}) {{")
        self.emit("    " + fill.format(target, "rs_ * p_"))
        self.depth += 1
        self._sync("V_MTE2")
        self.depth -= 1
        self.emit("} else {")
        self.emit("    if (ro_ > 0) { " + fill.format(target, "ro_ * p_") + " }")
        self.emit("    if (ro_ + r_ < rs_) { " + fill.format(f"{target}[(ro_ + r_) * p_]", "(rs_ - ro_ - r_) * p_") + " }")
        self.emit(f"    const int64_t e_ = AcAlignUp(left_ + c_, {per_block});")
        self.emit("    for (int64_t i_ = 0; e_ < p_ && i_ < r_; ++i_) { "
                  + fill.format(f"{target}[(ro_ + i_) * p_ + e_]", "p_ - e_") + " }")
        self.emit("}")
        self.emit("for (int64_t q_ = 0; c_ > 0 && q_ < r_; q_ += 4095) {")
        self.emit(f"    const int64_t lb_ = left_ / {per_block} * {per_block}, lp_ = left_ - lb_;")
        self.emit(f"    const int64_t right_ = AcAlignUp(lp_ + c_, {per_block}) - (lp_ + c_);")
        self.emit(f"    const int64_t gap_ = p_ / {per_block} - (lp_ + c_ + right_) / {per_block};")
        self.emit(f"    AscendC::DataCopyPad({target}[(ro_ + q_) * p_ + lb_], {name}Gm[off_ + q_ * ({row_stride})], "
                  f"AscendC::DataCopyExtParams{{"
                  f"static_cast<uint16_t>(AcMin<int64_t>(r_ - q_, 4095)), static_cast<uint32_t>(c_ * sizeof({ct})), "
                  f"static_cast<uint32_t>(({row_stride} - c_) * sizeof({ct})), static_cast<uint32_t>(gap_), 0}}, "
                  f"AscendC::DataCopyPadExtParams<{ct}>{{true, static_cast<uint8_t>(lp_), "
                  f"static_cast<uint8_t>(right_), static_cast<{ct}>({pad})}});")
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        self._copied_in(target, Tile(ct, t.dtype, rows_s, cols_s, pitch, home), queue)

    def _window(self, target: str, name: str, e: A.Call, op):
        """Pooling: a width pass (Gathers of every input row at stride sw, offset b, combined) into
        wwork, then for 2-D windows a row pass (Gathers of rows i*sh + a) into the output."""
        from ascendcraft.lowering_passes.bufferize import window_kwargs
        src = self.tiles[name]
        kernel, stride = window_kwargs(e)
        fn = "Max" if op.name == "WindowMax" else "Add"
        per_block = 32 // D.ITEMSIZE[src.dtype]
        kw, sw = self.scalar(kernel[-1]), self.scalar(stride[-1])
        two_d = len(kernel) == 2
        kh, sh = (self.scalar(kernel[0]), self.scalar(stride[0])) if two_d else ("1", "1")
        # dilation d: window element b of output j is input j * s + b * d (the window spans d(k-1)+1)
        dil = e.kwarg("dilation")
        dil = (tuple(dil.items) if isinstance(dil, A.Tuple) else (dil,) * len(kernel)) if dil is not None else ()
        dw, dh = (self.scalar(dil[-1]), self.scalar(dil[0]) if two_d else "1") if dil else ("1", "1")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t ri_ = {src.rows}, pi_ = {src.pitch}, "
                  f"ow_ = ({src.cols} - {dw} * ({kw} - 1) - 1) / {sw} + 1, owp_ = AcAlignUp(ow_, {per_block}), "
                  f"oh_ = {f'(ri_ - {dh} * ({kh} - 1) - 1) / {sh} + 1' if two_d else 'ri_'};")
        wwork, widx = self.work["wwork"], self.work["widx"]
        self.emit(f"BuildWindowTables({widx}, ri_, pi_, ow_, owp_, {sw}, oh_, {sh}, sizeof({src.ctype}));")
        self.emit(f"AscendC::LocalTensor<uint32_t> th_ = {widx}.ReinterpretCast<uint32_t>();")
        self.emit("AscendC::LocalTensor<uint32_t> tv_ = th_[ri_ * owp_];")
        # width pass: mid = wwork (2-D) or the output (1-D); tmp = the second half of wwork
        mid = wwork if two_d else target
        tmp = f"{wwork}[ri_ * owp_]"
        n = "static_cast<uint32_t>(ri_ * owp_)"
        self.emit(f"AscendC::Gather({mid}, {name}, th_, 0, {n});")
        self.emit(f"for (int64_t b_ = 1; b_ < {kw}; ++b_) {{")
        self.emit(f"    AscendC::Gather({tmp}, {name}, th_, static_cast<uint32_t>(b_ * {dw} * sizeof({src.ctype})), "
                  f"{n});")
        self.emit("    AscendC::PipeBarrier<PIPE_V>();")
        self.emit(f"    AscendC::{fn}({mid}, {mid}, {tmp}, static_cast<int32_t>(ri_ * owp_));")
        self.emit("}")
        count = "ri_ * owp_"
        if two_d:
            n = "static_cast<uint32_t>(oh_ * owp_)"
            self.emit(f"AscendC::Gather({target}, {wwork}, tv_, 0, {n});")
            self.emit(f"for (int64_t a_ = 1; a_ < {kh}; ++a_) {{")
            self.emit(f"    AscendC::Gather({tmp}, {wwork}, tv_, static_cast<uint32_t>(a_ * {dh} * owp_ * "
                      f"sizeof({src.ctype})), "
                      f"{n});")
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({target}, {target}, {tmp}, static_cast<int32_t>(oh_ * owp_));")
            self.emit("}")
            count = "oh_ * owp_"
        if fn == "Add":
            self.emit(f"AscendC::Muls({target}, {target}, static_cast<{src.ctype}>(1.0f / static_cast<float>("
                      f"{kw} * {kh})), static_cast<int32_t>({count}));")
        self.emit(f"{target}_rows = oh_; {target}_cols = ow_; {target}_pitch = owp_;")
        self.depth -= 1
        self.emit("}")

    def _filled_on_vector(self) -> set:
        """The loaded tiles part of which the vector unit wrote (a padded load's fill, a strided copy's
        Gather of each row): a copy out of them waits for V as well as for MTE2."""
        return self.__dict__.setdefault("filled_on_vector_tiles", set())

    def _pitch_exprs(self) -> dict:
        """The static expression each frozen pitch variable holds (``_freeze`` records them)."""
        return self.__dict__.setdefault("pitch_exprs", {})

    def _freeze(self, target: str):
        """Evaluate a new tile's extents once, into variables declared at the top of Process()."""
        t = self.tiles[target]
        if (t.rows, t.cols, t.pitch) == (f"{target}_rows", f"{target}_cols", f"{target}_pitch"):
            return   # frozen where it was made (a slice's extents are locals of its block)
        self.emit(f"{target}_rows = {t.rows}; {target}_cols = {t.cols}; {target}_pitch = {t.pitch};")
        # the expression each pitch variable holds (a cast between 2- and 4-byte types re-aligns rows)
        exprs = self._pitch_exprs()
        exprs[f"{target}_pitch"] = exprs.get(t.pitch, t.pitch)
        t.rows, t.cols, t.pitch = f"{target}_rows", f"{target}_cols", f"{target}_pitch"

    def _static_cols(self, src) -> str:
        """The static last extent of a loaded region: the slice's length (what bufferize sized the
        buffer by), at most the tensor's extent, as the DSL clamps it. Two tiles of one static shape
        then have one row pitch (x[:, 0:TC] with TC past the end and y[:, :]), which element-wise ops
        covering whole rows rely on."""
        parts = self._slice_parts(src)
        if not parts:
            return "1"      # a single element
        shape = self._gm_shape(src)
        subs = A.whole_subscripts(src, len(shape))
        dim = self._dim([d for d, sub in zip(shape, subs) if isinstance(sub, A.Slice)][-1])
        return parts[-1][1] if parts[-1][1] == dim else f"AcMin<int64_t>({parts[-1][1]}, {dim})"

    def _gm_shape(self, src) -> tuple:
        base = src.base if isinstance(src, A.Index) else src
        return self.symbols.tensor(base.id).dims

    def _sync(self, event: str):
        self.emit(f"{{ auto e_ = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::{event})); "
                  f"AscendC::SetFlag<AscendC::HardEvent::{event}>(e_); "
                  f"AscendC::WaitFlag<AscendC::HardEvent::{event}>(e_); }}")

    def read_after_own_stores(self, src, event: str):
        """Before a read of GM ``src``: when this core stored to its tensor earlier in the phase, the
        read waits for those copies out (``event``: MTE3_MTE2 for a copy in, MTE3_S for a Matmul call
        the scalar unit sends to the cube), or it could overtake them. A store later in a loop body
        that the next iteration's read follows is left to the simulator's check of the bytes."""
        name = (src.base if isinstance(src, A.Index) else src).id
        if self.symbols.is_tensor(name) and self.symbols.root(name) in self.stored_in_phase:
            self._sync(event)

    def _store(self, s: A.Store):
        name = (s.dst.base if isinstance(s.dst, A.Index) else s.dst).id
        self.stored_in_phase.add(self.symbols.root(name))
        if is_gemm(s.value):
            self._gemm_store(s)
            return
        if not isinstance(s.value, A.Name) or s.value.id not in self.tiles:
            raise unsupported("storing something other than a tile name", s)
        t = self.tiles[s.value.id]
        row_broadcast = self._check_broadcast(s)
        name, offset, axes = self._region(s.dst)
        gm_dtype = self._gm_dtype(s.dst)
        ct = UB_CTYPES[gm_dtype]
        rows = axes[0][0] if len(axes) == 2 else "1"
        cols = axes[-1][0] if axes else "1"
        row_stride = axes[0][1] if len(axes) == 2 else cols
        space = self.buffers[t.home].type.space
        queue = space == "vecout"
        v = s.value.id
        if queue:
            self.emit(f"{v} = {t.home}.DeQue<{t.ctype}>();")
        elif space == "vecin":   # a loaded tile stored as it is (a copy): DeQue'd before this statement
            self._sync("MTE2_MTE3")
            if v in self._filled_on_vector():    # its pad fill or strided Gather ran on the vector unit
                self._sync("V_MTE3")
        else:
            self._sync("V_MTE3")
        if s.accumulate:
            self.emit(f"AscendC::SetAtomicAdd<{ct}>();")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t r_ = {rows}, c_ = {cols}, off_ = {offset};")
        self.emit("if (r_ > 0 && c_ > 0) {")
        self.depth += 1
        if strided_region(s.dst, self.ck.symbols):
            self.emit(f"CopyOutStrided<{ct}>({name}Gm[off_], {v}, r_, c_, {'0' if row_broadcast else t.pitch}, "
                      f"{axes[0][1] if len(axes) == 2 else '0'}, {axes[-1][1]});")
        elif row_broadcast:   # every GM row from the tile's one row
            self.emit("for (int64_t q_ = 0; q_ < r_; ++q_) {")
            self.emit(f"    AscendC::DataCopyPad({name}Gm[off_ + q_ * ({row_stride})], {v}, "
                      f"{self._copy_params('1', 'c_', t.pitch, row_stride, ct, True)});")
            self.emit("}")
        else:
            self._rows_pad_copy(v, f"{name}Gm", "r_" if len(axes) == 2 else "1", "c_", t.pitch, row_stride, ct,
                                to_gm=True)
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        if s.accumulate:
            self.emit("AscendC::SetAtomicNone();")
        if not queue:
            # the vector unit waits for this copy-out before it writes the tile's buffer again; a VECIN
            # tile's next copy-in waits through it too: FreeTensor's V -> MTE2 flag is queued behind
            # this wait, and only that slot's AllocTensor waits for it, so the next tile's copy-in (into
            # the other slot) overlaps this copy-out
            self._sync("MTE3_V")

    def _check_broadcast(self, s: A.Store) -> bool:
        """Whether a stored tile is one row broadcast to the rows of its region (a [C] tile into
        y[0:R, :]: each GM row is copied from it). Other broadcasts (a [1] tile into y[i, :], a
        column [R, 1] into [R, C]) would be copied as if the tile had the region's shape: refused,
        naming the statement. (Scalars are broadcast by select, as a tile of the region's shape.)"""
        region, value = self.ck.expr_types.get(id(s.dst)), self.ck.expr_types.get(id(s.value))
        if not (isinstance(value, TTile) and hasattr(region, "shape")):
            return False
        r, v = tuple(region.shape), tuple(value.shape)
        if len(r) == 2 and r[0] > 1 and (len(v) == 1 or (len(v) == 2 and v[0] == 1)) and \
                not (v[-1] == 1 and r[-1] > 1):
            return True
        lead = r[:len(r) - len(v)] if len(v) <= len(r) else ()
        tail = r[len(r) - len(v):] if len(v) <= len(r) else r
        if len(v) > len(r) or any(d > 1 for d in lead) or any(a == 1 and b > 1 for a, b in zip(v, tail)):
            from ascendcraft.lowering_passes.base import span_text

            from ..dsl.printer import stmt_lines
            text = span_text(s.span, getattr(self.k, "source", None)) or stmt_lines(s)[0].strip()
            raise DSLError(f"emitter: `{text}` stores a tile of shape [{', '.join(map(str, v))}] "
                           f"to a GM region of shape [{', '.join(map(str, r))}], a broadcast, which the AscendC "
                           f"emitter does not lower",
                           s.span, kind="lowering error",
                           hint="store a tile of the region's shape (broadcast it first, e.g. with an element-wise "
                                "op against a full-size tile), or store each row separately")
        return False

