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
        return self.symbols.tensor(name).dtype

    def _cube_tiling(self, i: int, g: A.Store) -> list[str]:
        """TCubeTiling filled in the kernel from the dims and the lowering's block and base sizes
        (field names: research/ascendc_api.md section 4.1), then the Matmul object registered."""
        e = g.value
        ta, tb = self._gemm_flags(e)
        a_shape, b_shape = (tuple(self._gm_shape(x))[-2:] for x in e.args)   # batch axes are indexed
        a_ext, b_ext = (self._slice_parts(x) for x in e.args)
        (m_dim, ka), (kb, n_dim) = (a_shape[::-1] if ta else a_shape), (b_shape[::-1] if tb else b_shape)
        single_m = a_ext[1 if ta else 0][1]
        single_n = b_ext[0 if tb else 1][1] if e.kwarg("strip") is None else self.scalar(e.kwarg("strip").items[3])
        single_k = a_ext[0 if ta else 1][1]
        bm, bn, bk = (item.value for item in self.ck.expr_types[id(e.kwarg("base"))].items)
        depth = l1_depth(bm, bn, bk, D.ITEMSIZE[self._gm_dtype(e.args[0])], self.ck.chip.capacity("l1"))
        t = f"cubeTiling{i}"
        fields = {"usedCoreNum": "AscendC::GetBlockNum()", "M": self._dim(m_dim), "N": self._dim(n_dim),
                  "Ka": self._dim(ka), "Kb": self._dim(kb), "singleCoreM": single_m, "singleCoreN": single_n,
                  "singleCoreK": single_k, "baseM": bm, "baseN": bn, "baseK": bk, "depthA1": depth, "depthB1": depth,
                  "stepM": 1, "stepN": 1, "stepKa": depth // 2, "stepKb": depth // 2, "dbL0A": 2, "dbL0B": 2,
                  "dbL0C": 2 if 2 * bm * bn * 4 <= 128 * 1024 else 1,   # FIX drains one while M fills the other
                  "shareL0CSize": bm * bn * 4, "batchM": 1, "batchN": 1, "singleBatchM": 1, "singleBatchN": 1}
        lines = [f"        {t} = TCubeTiling{{}};"]
        lines += [f"        {t}.{k} = static_cast<int32_t>({v});" for k, v in fields.items()]
        lines.append(f"        REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm{i}, &{t});")
        return lines

    def _gemm_n_dim(self, e: A.Call) -> str:
        """C's column extent: B's N axis."""
        _, tb = self._gemm_flags(e)
        return self._dim(tuple(self._gm_shape(e.args[1]))[-2 if tb else -1])

    def _gemm_extents(self, e: A.Call):
        """``m_``, ``n_``, ``k_``: the product's extents here (its regions clipped to the tensors)."""
        ta, tb = self._gemm_flags(e)
        (_, _, a_axes), (_, _, b_axes) = (self._region(x) for x in e.args)
        m, k = (a_axes[1][0], a_axes[0][0]) if ta else (a_axes[0][0], a_axes[1][0])
        n = b_axes[0][0] if tb else b_axes[1][0]
        self.emit(f"const int64_t m_ = {m}, n_ = {n}, k_ = {k};")

    def _gemm_operands(self, i: int, e: A.Call, strip: A.Tuple | None = None):
        """The extents and, inside ``if`` all are positive, the Matmul object's operands and tail; the
        caller closes the ``if``. With ``strip`` (a fused epilogue's tile, strip=(tile, first, end,
        widest)): at the strip's first tile only, the whole strip's (the core's workspace, the strip's
        columns) and its start on the cube (``Iterate<false>``: its tiles computed one after the other,
        each taken by a ``GetTensorC<false>``)."""
        ta, tb = self._gemm_flags(e)
        (a_name, a_off, _), (b_name, b_off, _) = (self._region(x) for x in e.args)
        self._gemm_extents(e)
        self.emit("if (m_ > 0 && n_ > 0 && k_ > 0) {   // cores past the grid's last block have none")
        self.depth += 1
        tail_n = "n_"
        if strip is not None:
            tile, first, end, widest = (self.scalar(x) for x in strip.items)
            base_m, base_n = (x.value for x in self.ck.expr_types[id(e.kwarg("base"))].items[:2])
            n_dim = self._gemm_n_dim(e)
            n_start = self._slice_parts(e.args[1])[-2 if tb else -1][0]
            w_name, w_off, _ = self._region(e.kwarg("workspace"))
            self.emit(f"if (({tile}) == ({first})) {{   // the strip's first tile: the strip computed ahead")
            self.depth += 1
            self.emit(f"mm{i}.SetWorkspace({w_name}Gm[{w_off}].GetPhyAddr(), static_cast<int>({base_m} * ({widest})));")
            tail_n = f"AcMin<int64_t>((({end}) - ({first})) * {base_n}, ({n_dim}) - ({n_start}))"
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
        base_n = self.ck.expr_types[id(e.kwarg("base"))].items[1].value
        n_dim = self._gemm_n_dim(e)
        # the pitch a loaded tile of this static width has (copies._static_cols): ops pair them row by row
        pitch = f"AcAlignUp(AcMin<int64_t>({base_n}, {n_dim}), 8)"
        strip = e.kwarg("strip")
        self.emit(f"{target} = {out};")
        self.emit("{")
        self.depth += 1
        self._gemm_operands(i, e, strip)
        # the gaps a narrow block leaves in its rows are zeroed first: element-wise ops cover whole rows
        self.emit(f"if (n_ < {base_n}) {{ AcZeroFill({target}, m_ * {base_n}); }}")
        if strip is None:
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
        self.depth -= 1
        self.emit("}")

    def _gemm_store(self, s: A.Store):
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

