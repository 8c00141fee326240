"""The emitter's Matmul API stores: the cube pass's ``store(c[...], Matmul(...))`` as a Matmul
object, its TCubeTiling and IterateAll. A mixin of ``kernel._Emitter``.
"""
from __future__ import annotations

from ..dsl import ast as A
from .emit_common import (
    UB_CTYPES,
)


class GemmEmitter:
    def _gemm_flags(self, e: A.Call) -> tuple[bool, bool]:
        return tuple(bool(self._kw(e, f, False)) for f in ("transpose_a", "transpose_b"))

    def _matmul_type(self, g: A.Store) -> str:
        e = g.value
        ta, tb = self._gemm_flags(e)
        ab = UB_CTYPES[self._gm_dtype(e.args[0])]
        c = UB_CTYPES[self._gm_dtype(g.dst)]

        def mt(ct, trans=False):
            return f"MatmulType<AscendC::TPosition::GM, CubeFormat::ND, {ct}{', true' if trans else ''}>"
        return f"Matmul<{mt(ab, ta)}, {mt(ab, tb)}, {mt(c)}>"

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
        single_n = b_ext[0 if tb else 1][1]
        single_k = a_ext[0 if ta else 1][1]
        bm, bn, bk = (item.value for item in self.ck.expr_types[id(e.kwarg("base"))].items)
        t = f"cubeTiling{i}"
        fields = {"usedCoreNum": "AscendC::GetBlockNum()", "M": self._dim(m_dim), "N": self._dim(n_dim),
                  "Ka": self._dim(ka), "Kb": self._dim(kb), "singleCoreM": single_m, "singleCoreN": single_n,
                  "singleCoreK": single_k, "baseM": bm, "baseN": bn, "baseK": bk, "depthA1": 2, "depthB1": 2,
                  "stepM": 1, "stepN": 1, "stepKa": 1, "stepKb": 1, "dbL0A": 2, "dbL0B": 2,
                  "dbL0C": 2 if 2 * bm * bn * 4 <= 128 * 1024 else 1,   # FIX drains one while M fills the other
                  "shareL0CSize": bm * bn * 4, "batchM": 1, "batchN": 1, "singleBatchM": 1, "singleBatchN": 1}
        lines = [f"        {t} = TCubeTiling{{}};"]
        lines += [f"        {t}.{k} = static_cast<int32_t>({v});" for k, v in fields.items()]
        lines.append(f"        REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm{i}, &{t});")
        return lines

    def _gemm_store(self, s: A.Store):
        e, i = s.value, next(k for k, g in enumerate(self.gemms) if g is s)
        ta, tb = self._gemm_flags(e)
        c_name, c_off, _ = self._region(s.dst)
        (a_name, a_off, a_axes), (b_name, b_off, b_axes) = (self._region(x) for x in e.args)
        m, k = (a_axes[1][0], a_axes[0][0]) if ta else (a_axes[0][0], a_axes[1][0])
        n = b_axes[0][0] if tb else b_axes[1][0]
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t m_ = {m}, n_ = {n}, k_ = {k};")
        self.emit("if (m_ > 0 && n_ > 0 && k_ > 0) {   // cores past the grid's last block have none")
        self.depth += 1
        self.emit(f"mm{i}.SetTensorA({a_name}Gm[{a_off}], {str(ta).lower()});")
        self.emit(f"mm{i}.SetTensorB({b_name}Gm[{b_off}], {str(tb).lower()});")
        self.emit(f"mm{i}.SetTail(static_cast<int>(m_), static_cast<int>(n_), static_cast<int>(k_));")
        # atomic_add (the cube pass's K slices): IterateAll adds into C (enAtomic = 1)
        self.emit(f"mm{i}.IterateAll({c_name}Gm[{c_off}]{', 1' if s.accumulate else ''});")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

