"""The emitter's Matmul API calls: the cube pass's ``store(c[...], Matmul(...))`` as a Matmul
object, its TCubeTiling and IterateAll, and ``acc = Matmul(...)`` (a fused epilogue's product tile)
as Iterate and GetTensorC into UB. A mixin of ``kernel._Emitter``.
"""
from __future__ import annotations

from .. import dtypes as D
from ..dsl import ast as A
from .emit_common import (
    UB_CTYPES,
    Tile,
)


def l1_depth(bm: int, bn: int, bk: int, itemsize: int, l1_bytes: int) -> int:
    """depthA1 = depthB1: how many baseK steps of A and B tiles L1 holds (stepKa = stepKb = half of
    it, double-buffered), even, 2 to 8: deeper stages let the copy-in run ahead of L1 -> L0 copies
    that wait for the cube."""
    stage = (bm * bk + bk * bn) * itemsize
    return max(2, min(8, l1_bytes // stage) // 2 * 2)


class GemmEmitter:
    def _gemm_flags(self, e: A.Call) -> tuple[bool, bool]:
        return tuple(bool(self._kw(e, f, False)) for f in ("transpose_a", "transpose_b"))

    def _matmul_type(self, g: A.Store | A.Assign) -> str:
        """GM operands; C in GM (a store's Matmul) or handed to UB, VECIN (an assigned product tile)."""
        e = g.value
        ta, tb = self._gemm_flags(e)
        ab = UB_CTYPES[self._gm_dtype(e.args[0])]
        to_ub = isinstance(g, A.Assign)
        c = UB_CTYPES["f32" if to_ub else self._gm_dtype(g.dst)]

        def mt(ct, trans=False, pos="GM"):
            return f"MatmulType<AscendC::TPosition::{pos}, CubeFormat::ND, {ct}{', true' if trans else ''}>"
        return f"Matmul<{mt(ab, ta)}, {mt(ab, tb)}, {mt(c, pos='VECIN' if to_ub else 'GM')}>"

    def _gm_dtype(self, src) -> str:
        name = (src.base if isinstance(src, A.Index) else src).id
        if name in self.tiles:     # a ub operand (staged=): its dtype is its workspace's
            return self.tiles[name].dtype
        return self.symbols.tensor(name).dtype

    @staticmethod
    def _gm_operands(e: A.Call) -> tuple:
        """The product's operands as GM regions: a ub operand by the workspace it is staged to."""
        return tuple(e.kwarg("staged") if isinstance(x, A.Name) else x for x in e.args[:2])

    def _base(self, e: A.Call) -> tuple[str, str, str]:
        """The base block (baseM, baseN, baseK) as C++ expressions (a streamed product's depend on dims)."""
        return tuple(self.scalar(x) for x in e.kwarg("base").items)

    def _cube_tiling(self, i: int, g: A.Store) -> list[str]:
        """TCubeTiling filled in the kernel from the dims and the lowering's block and base sizes
        (field names: research/ascendc_api.md section 4.1), then the Matmul object registered."""
        e = g.value
        ta, tb = self._gemm_flags(e)
        operands = self._gm_operands(e)
        a_shape, b_shape = (tuple(self._gm_shape(x))[-2:] for x in operands)   # batch axes are indexed
        a_ext, b_ext = (self._slice_parts(x) for x in operands)
        (m_dim, ka), (kb, n_dim) = (a_shape[::-1] if ta else a_shape), (b_shape[::-1] if tb else b_shape)
        single_m = a_ext[1 if ta else 0][1]
        single_n = b_ext[0 if tb else 1][1] if e.kwarg("strip") is None else self.scalar(e.kwarg("strip").items[3])
        single_k = a_ext[0 if ta else 1][1]
        itemsize = D.ITEMSIZE[self._gm_dtype(e.args[0])]
        if all(isinstance(x, A.Int) for x in e.kwarg("base").items):
            bm, bn, bk = (x.value for x in e.kwarg("base").items)
            depth = l1_depth(bm, bn, bk, itemsize, self.ck.chip.capacity("l1"))
            db_l0c = 2 if 2 * bm * bn * 4 <= 128 * 1024 else 1
            half_depth = depth // 2
        else:   # a streamed product's block is the product's extents: the same choices in the kernel
            bm, bn, bk = (f"({x})" for x in self._base(e))
            depth = f"AcL1Depth({bm}, {bn}, {bk}, {itemsize}, {self.ck.chip.capacity('l1')})"
            db_l0c = f"(2 * {bm} * {bn} * 4 <= 128 * 1024 ? 2 : 1)"
            half_depth = f"({depth}) / 2"
        t = f"cubeTiling{i}"
        fields = {"usedCoreNum": "AscendC::GetBlockNum()", "M": self._dim(m_dim), "N": self._dim(n_dim),
                  "Ka": self._dim(ka), "Kb": self._dim(kb), "singleCoreM": single_m, "singleCoreN": single_n,
                  "singleCoreK": single_k, "baseM": bm, "baseN": bn, "baseK": bk, "depthA1": depth, "depthB1": depth,
                  "stepM": 1, "stepN": 1, "stepKa": half_depth, "stepKb": half_depth, "dbL0A": 2, "dbL0B": 2,
                  "dbL0C": db_l0c,   # FIX drains one while M fills the other
                  "shareL0CSize": f"{bm} * {bn} * 4", "batchM": 1, "batchN": 1, "singleBatchM": 1, "singleBatchN": 1}
        lines = [f"        {t} = TCubeTiling{{}};"]
        lines += [f"        {t}.{k} = static_cast<int32_t>({v});" for k, v in fields.items()]
        lines.append(f"        REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm{i}, &{t});")
        return lines

    def _gemm_n_dim(self, e: A.Call) -> str:
        """C's column extent: B's N axis."""
        _, tb = self._gemm_flags(e)
        return self._dim(tuple(self._gm_shape(self._gm_operands(e)[1]))[-2 if tb else -1])

    def _gemm_extents(self, e: A.Call, operands=None, suffix: str = "_"):
        """``m_``, ``n_``, ``k_``: the product's extents here (its regions clipped to the tensors); of
        ``operands`` (the next iteration's regions) as ``m2_``, ... with ``suffix="2_"``."""
        ta, tb = self._gemm_flags(e)
        (a_rows, a_cols), (b_rows, b_cols) = (self._operand_extents(x) for x in (operands or e.args[:2]))
        m, k = (a_cols, a_rows) if ta else (a_rows, a_cols)
        n = b_rows if tb else b_cols
        self.emit(f"const int64_t m{suffix} = {m}, n{suffix} = {n}, k{suffix} = {k};")

    def _start_ahead(self, i: int, e: A.Call, operands, suffix: str):
        """One block started on the cube (Iterate<false>) for a later GetTensorC<false>."""
        ta, tb = self._gemm_flags(e)
        (a_name, a_off, _), (b_name, b_off, _) = (self._region(x) for x in operands)
        self.emit(f"mm{i}.SetTensorA({a_name}Gm[{a_off}], {str(ta).lower()});")
        self.emit(f"mm{i}.SetTensorB({b_name}Gm[{b_off}], {str(tb).lower()});")
        self.emit(f"mm{i}.SetTail(static_cast<int>(m{suffix}), static_cast<int>(n{suffix}), "
                  f"static_cast<int>(k{suffix}));")
        self.emit(f"mm{i}.template Iterate<false>();")

    def _start_in_workspace(self, i: int, e: A.Call, cond: str):
        """If ``cond``: this call's one block started into its ``workspace=`` slot."""
        w_name, w_off, _ = self._region(e.kwarg("workspace"))
        base_m, base_n = self._base(e)[:2]
        self.emit(f"if ({cond}) {{")
        self.depth += 1
        self.emit(f"mm{i}.SetWorkspace({w_name}Gm[{w_off}].GetPhyAddr(), static_cast<int>({base_m} * {base_n}));")
        self._start_ahead(i, e, self._gm_operands(e), "_")
        self.depth -= 1
        self.emit("}")

    def _next_ahead(self, i: int, e: A.Call):
        """After this iteration's tile is taken: the next iteration's started, if there is one."""
        var, _, stop, step, a_next, b_next = e.kwarg("ahead").items
        step = self.scalar(step)
        self.emit(f"if ({step} > 0 ? ({self.scalar(var)}) + {step} < ({self.scalar(stop)}) : "
                  f"({self.scalar(var)}) + {step} > ({self.scalar(stop)})) {{   // the next tile, computed ahead")
        self.depth += 1
        for x in (a_next, b_next):
            self.read_after_own_stores(x, "MTE3_S")
        self._gemm_extents(e, (a_next, b_next), "2_")
        self.emit("if (m2_ > 0 && n2_ > 0 && k2_ > 0) {")
        self.depth += 1
        self._start_ahead(i, e, (a_next, b_next), "2_")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    def _operand_extents(self, x) -> tuple[str, str]:
        """An operand's rows and columns here: a GM region's (clipped to its tensor), a ub tile's own."""
        if isinstance(x, A.Name):
            t = self.tiles[x.id]
            return t.rows, t.cols
        _, _, axes = self._region(x)
        return axes[0][0], axes[1][0]

    def _stage(self, e: A.Call):
        """A ub operand copied to its workspace slot (rows a workspace row apart) for the cube: the copy
        waits for the vector unit's last write of the tile, and the cube's read (the Matmul call the
        scalar unit issues next) for the copy."""
        x = next(x for x in e.args[:2] if isinstance(x, A.Name))
        t = self.tiles[x.id]
        ws = e.kwarg("staged")
        name, offset, axes = self._region(ws)
        self._sync("V_MTE3")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t r_ = {t.rows}, c_ = {t.cols}, off_ = {offset};")
        self._rows_pad_copy(x.id, f"{name}Gm", "r_", "c_", t.pitch, axes[0][1], t.ctype, to_gm=True)
        self.depth -= 1
        self.emit("}")
        self._sync("MTE3_S")

    def _gemm_extents_and_stage(self, e: A.Call):
        """Before a product's call: the waits for this core's stores to its GM operands, its ub operand
        staged, its extents ``m_``, ``n_``, ``k_``."""
        for x in e.args[:2]:
            if isinstance(x, A.Index):
                self.read_after_own_stores(x, "MTE3_S")
        if e.kwarg("staged") is not None:
            self._stage(e)
        self._gemm_extents(e)

    def _gemm_operands(self, i: int, e: A.Call, strip: A.Tuple | None = None):
        """The extents and, inside ``if`` all are positive, the Matmul object's operands and tail; the
        caller closes the ``if``. With ``strip`` (a fused epilogue's tile, strip=(tile, first, end,
        widest)): at the strip's first tile only, the whole strip's (the core's workspace, the strip's
        columns) and its start on the cube (``Iterate<false>``: its tiles computed one after the other,
        each taken by a ``GetTensorC<false>``)."""
        ta, tb = self._gemm_flags(e)
        (a_name, a_off, _), (b_name, b_off, _) = (self._region(x) for x in self._gm_operands(e))
        self._gemm_extents_and_stage(e)
        self.emit("if (m_ > 0 && n_ > 0 && k_ > 0) {   // cores past the grid's last block have none")
        self.depth += 1
        tail_n = "n_"
        if strip is not None:
            tile, first, end, widest = (self.scalar(x) for x in strip.items)
            base_m, base_n = self._base(e)[:2]
            n_dim = self._gemm_n_dim(e)
            n_start = self._slice_parts(e.args[1])[-2 if tb else -1][0]
            w_name, w_off, _ = self._region(e.kwarg("workspace"))
            self.emit(f"if (({tile}) == ({first})) {{   // the strip's first tile: the strip computed ahead")
            self.depth += 1
            self.emit(f"mm{i}.SetWorkspace({w_name}Gm[{w_off}].GetPhyAddr(), static_cast<int>({base_m} * ({widest})));")
            tail_n = f"AcMin<int64_t>((({end}) - ({first})) * {base_n}, ({n_dim}) - ({n_start}))"
        ahead = e.kwarg("ahead")
        if ahead is not None:   # the first iteration starts its own tile; later ones were started ahead
            var, start = (self.scalar(x) for x in ahead.items[:2])
            self._start_in_workspace(i, e, f"({var}) == ({start})")
            return
        self.emit(f"mm{i}.SetTensorA({a_name}Gm[{a_off}], {str(ta).lower()});")
        self.emit(f"mm{i}.SetTensorB({b_name}Gm[{b_off}], {str(tb).lower()});")
        self.emit(f"mm{i}.SetTail(static_cast<int>(m_), static_cast<int>({tail_n}), static_cast<int>(k_));")
        if strip is not None:
            self.emit(f"mm{i}.template Iterate<false>();")
            self.depth -= 1
            self.emit("}")

    def _gemm_tile(self, target: str, e: A.Call):
        """``acc = Matmul(..., out=b)``: one base block of the product handed to UB (the cube pass's
        fused form). Iterate computes it over all of K; GetTensorC with enSequentialWrite lays it out
        as [baseM, baseN] (GetTensorC.md), so a block narrower than baseN has its rows moved to the
        pitch every tile of its width has. With no K, the product is zeros."""
        i = next(k for k, g in enumerate(self.gemms) if g.value is e)
        out = e.kwarg("out").id
        base_n = self._base(e)[1]
        n_dim = self._gemm_n_dim(e)
        # the pitch a loaded tile of this static width has (copies._static_cols): ops pair them row by row
        pitch = f"AcAlignUp(AcMin<int64_t>({base_n}, {n_dim}), 8)"
        strip = e.kwarg("strip")
        queue = self.buffers[out].type.space != "veccalc"   # a tile stored as it is: a VECOUT queue's
        if self._kw(e, "defer", False) and not queue:
            self._gemm_deferred(i, target, e, out, base_n, pitch)
            return
        self.emit(f"{target} = {out}.AllocTensor<float>();" if queue else f"{target} = {out};")
        self.emit("{")
        self.depth += 1
        self._gemm_operands(i, e, strip)
        # the gaps a narrow block leaves in its rows are zeroed first: element-wise ops cover whole rows
        self.emit(f"if (n_ < {base_n}) {{ AcZeroFill({target}, m_ * {base_n}); }}")
        if e.kwarg("ahead") is not None:   # this iteration's tile, started ahead; then the next one's
            self._sync("V_MTE2")
            self.emit(f"mm{i}.template GetTensorC<false>({target}, 0, true);")
            self._next_ahead(i, e)
        elif strip is None:
            # the copy into the tile waits for its last readers (the previous block's epilogue), not
            # the cube's operand loads: the wait sits between Iterate and GetTensorC
            self.emit(f"while (mm{i}.Iterate()) {{")
            self.depth += 1
            self._sync("V_MTE2")
            self.emit(f"mm{i}.GetTensorC({target}, 0, true);")
            self.depth -= 1
            self.emit("}")
        else:   # the next block the cube computed ahead
            self._sync("V_MTE2")
            self.emit(f"mm{i}.template GetTensorC<false>({target}, 0, true);")
        self._sync("MTE2_V")
        self.emit(f"AcPackRows({target}, m_, n_, {base_n}, {pitch});")
        self.depth -= 1
        self.emit("} else if (m_ > 0 && n_ > 0) {   // no K: the product is zeros")
        self.emit(f"    AscendC::Duplicate({target}, 0.0f, static_cast<int32_t>((m_ - 1) * ({pitch}) + n_));")
        self.emit("}")
        self.tiles[target] = Tile("float", "f32", "m_", "n_", pitch, out)
        self._freeze(target)
        if queue:
            self.emit(f"{out}.EnQue({target});")
        self.depth -= 1
        self.emit("}")

    def _gemm_deferred(self, i: int, target: str, e: A.Call, out: str, base_n: str, pitch: str):
        """``acc = Matmul(..., defer=True, workspace=w)``: the product started here (its ub operand
        staged, Iterate<false> into the core's workspace slot) and taken with GetTensorC<false> right
        before the first statement that reads it (kernel._deque), so the vector work in between
        overlaps the cube's."""
        started = f"mmGo{i}"
        self.members[started] = "bool"
        self.emit(f"{target} = {out};")
        self.emit("{")
        self.depth += 1
        self._gemm_extents_and_stage(e)
        self.emit(f"{started} = m_ > 0 && n_ > 0 && k_ > 0;")
        self._start_in_workspace(i, e, started)
        self.tiles[target] = Tile("float", "f32", "m_", "n_", pitch, out)
        self._freeze(target)
        self.depth -= 1
        self.emit("}")
        rows, cols = f"{target}_rows", f"{target}_cols"

        def take():
            self.emit(f"if ({started}) {{   // the product started early")
            self.depth += 1
            self.emit(f"if ({cols} < {base_n}) {{ AcZeroFill({target}, {rows} * {base_n}); }}")
            self._sync("V_MTE2")
            self.emit(f"mm{i}.template GetTensorC<false>({target}, 0, true);")
            self._sync("MTE2_V")
            self.emit(f"AcPackRows({target}, {rows}, {cols}, {base_n}, {pitch});")
            self.depth -= 1
            self.emit(f"}} else if ({rows} > 0 && {cols} > 0) {{   // no K: the product is zeros")
            self.emit(f"    AscendC::Duplicate({target}, 0.0f, static_cast<int32_t>(({rows} - 1) * ({pitch}) + {cols}));")
            self.emit("}")
        self.takes[target] = take
        self.pending[-1].add(target)

    def _gemm_store(self, s: A.Store):
        if A.is_tap_product(s.value):     # low-level cube code (codegen/taps.py)
            self._taps_store(s)
            return
        e, i = s.value, next(k for k, g in enumerate(self.gemms) if g is s)
        c_name, c_off, _ = self._region(s.dst)
        self.emit("{")
        self.depth += 1
        self._gemm_operands(i, e)
        # atomic_add (the cube pass's K slices): IterateAll adds into C (enAtomic = 1)
        self.emit(f"mm{i}.IterateAll({c_name}Gm[{c_off}]{', 1' if s.accumulate else ''});")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

