"""The emitter's tap products (lowering_passes/cube_taps.py): ``store(c[...], Matmul(a0, b0,
transpose_b=True, base=(M, N, K), taps=(t, start, stop, step, a_t, b_t)))`` on the cube core with the
low-level API, in a kernel of its own kind (AIC only). Per C tile: each tap's A tile [m, k] and B tile
[n, k] (B stored transposed) or [k, n] (B as stored) GM -> L1 (DataCopy with Nd2NzParams: NZ, or Zz
for B as stored), L1 -> L0A / L0B (LoadData: A as ZZ, B as ZN; LoadDataWithTranspose for B as
stored), ``Mmad`` into one L0C tile (the first tap initialises it), then ``Fixpipe`` to C. The
forms follow the simulator's fp32 low-level test (tests/sim/kernels/mmad_f32.cpp, APATH 0 and
BPATH 0 / 1), with m = 1 as GEMV. A mixin of ``kernel._Emitter``.
"""
from __future__ import annotations

from ascendcraft.lowering_passes.base import is_phase_loop
from ascendcraft.lowering_passes.cube_taps import MAX_TAPS, TAP_AHEAD, TAP_SHIFT, TAP_SLOTS

from .. import dtypes as D
from ..dsl import ast as A
from .emit_common import UB_CTYPES

# One tap in two steps: TapCopy brings its tiles GM -> L1 (queued); TapCompute takes the oldest
# queued tiles to L0 and their product into (first) or onto the C tile in L0C. The C tile's loop
# issues TAP_AHEAD copies before it computes, so the copies' GM latency overlaps earlier taps' work.
# With RA (resident A: every tap's weight tile fits L1 beside the image tiles) tap i's A tile stays
# in slot i of tapARes across C tiles and is copied again only when its GM address or rows change
# (the first tile of a core, a new block of output channels): flags order that copy after the L0
# loads of the slot's old tile and before those of the new one.
TAP_STEP = """
    __aicore__ inline static int64_t TapCount(int64_t start, int64_t stop, int64_t step)
    {
        if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
        return start > stop ? (start - stop - step - 1) / (-step) : 0;
    }

    // A C tile's image blocks read transposed ([n, k] rows), nt of them at the element offsets
    // tapBOff[0, nt): consecutive taps whose blocks are the same rows shifted by at most TAP_SHIFT
    // rows share one window of L1, copied once (a convolution's taps along a row, Load3D's reuse).
    // Per tap: its window's offset (tapBWin), its first row there (tapBShift), the window's rows
    // (tapBRows, at the window's first tap) and whether it opens (1) or closes (2) it (tapBEdge).
    __aicore__ inline void TapWindows(int64_t nt, int64_t ldb, int64_t n)
    {
        int64_t i = 0;
        while (i < nt) {
            int64_t lo = tapBOff[i], hi = lo, j = i + 1;
            for (; j < nt; ++j) {
                const int64_t d = tapBOff[j] - tapBOff[i];
                const int64_t nlo = AcMin<int64_t>(lo, tapBOff[j]), nhi = AcMax<int64_t>(hi, tapBOff[j]);
                if (d % ldb != 0 || (nhi - nlo) / ldb > TAP_SHIFT) break;
                lo = nlo;
                hi = nhi;
            }
            for (int64_t q = i; q < j; ++q) {
                tapBWin[q] = lo;
                tapBShift[q] = (tapBOff[q] - lo) / ldb;
                tapBEdge[q] = (q == i ? 1 : 0) | (q == j - 1 ? 2 : 0);
            }
            tapBRows[i] = (hi - lo) / ldb + n;
            i = j;
        }
    }

    // A weight tile [m, k] GM -> L1 in the order L0A takes it (ZZ: each 16-row block's k fractals
    // together, an NZ matrix per block), so one LoadData moves it; m = 1 (GEMV) as one row.
    template <typename T>
    __aicore__ inline void TapCopyA(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& aG, int64_t m,
                                    int64_t k, int64_t lda)
    {
        constexpr int64_t C0 = 32 / sizeof(T), FRAC = 16 * C0;
        const int64_t kC = AcCdiv(k, C0), full = m == 1 ? 0 : m / 16, tail = m == 1 ? 1 : m % 16;
        if (full > 0 && 16 * lda <= 65535) {   // srcNdMatrixStride is 16-bit
            AscendC::DataCopy(dst, aG, AscendC::Nd2NzParams{static_cast<uint16_t>(full), 16, static_cast<uint16_t>(k),
                                                            static_cast<uint16_t>(16 * lda), static_cast<uint16_t>(lda), 16,
                                                            1, static_cast<uint16_t>(kC * FRAC)});
        } else {
            for (int64_t i = 0; i < full; ++i) {
                AscendC::DataCopy(dst[i * kC * FRAC], aG[i * 16 * lda],
                                  AscendC::Nd2NzParams{1, 16, static_cast<uint16_t>(k), 0, static_cast<uint16_t>(lda), 16,
                                                       1, 0});
            }
        }
        if (tail > 0) {
            AscendC::DataCopy(dst[full * kC * FRAC], aG[full * 16 * lda],
                              AscendC::Nd2NzParams{1, static_cast<uint16_t>(tail), static_cast<uint16_t>(k), 0,
                                                   static_cast<uint16_t>(lda), static_cast<uint16_t>(m == 1 ? 1 : 16), 1,
                                                   0});
        }
    }

    template <typename T, bool BT, bool RA>
    __aicore__ inline void TapCopy(const AscendC::GlobalTensor<T>& aG, const AscendC::GlobalTensor<T>& bG, int64_t m,
                                   int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t slot)
    {
        const int64_t n16 = AcCdiv(n, 16);
        if constexpr (RA) {
            const uint64_t key = reinterpret_cast<uint64_t>(aG.GetPhyAddr());
            if (tapAKey[slot] != key || tapARows[slot] != m) {
                EventSync<AscendC::HardEvent::MTE1_MTE2>();   // the slot's old tile is in L0 already
                TapCopyA(tapARes.Get<T>()[slot * tapASlot], aG, m, k, lda);
                EventSync<AscendC::HardEvent::MTE2_MTE1>();   // (a tap sharing a window copies no B to order it)
                tapAKey[slot] = key;
                tapARows[slot] = m;
            }
        } else {
            AscendC::LocalTensor<T> a1 = tapA1.AllocTensor<T>();
            TapCopyA(a1, aG, m, k, lda);
            tapA1.EnQue(a1);
        }
        const int64_t k16 = AcCdiv(k, 16), nAl = n16 * 16;
        if constexpr (BT) {   // B stored [n, k]: the first tap of a window copies its rows, NZ as A
            if (!(tapBEdge[slot] & 1)) return;
            AscendC::LocalTensor<T> b1 = tapB1.AllocTensor<T>();
            AscendC::DataCopy(b1, bG, AscendC::Nd2NzParams{1, static_cast<uint16_t>(tapBRows[slot]),
                                                           static_cast<uint16_t>(k), 0, static_cast<uint16_t>(ldb),
                                                           static_cast<uint16_t>(nAl + TAP_SHIFT), 1, 0});
            tapB1.EnQue(b1);
            return;
        } else {              // B stored [k, n]: Zz, an NZ matrix per 16 rows of k, for LoadDataWithTranspose
            constexpr int64_t C0 = 32 / sizeof(T);
            AscendC::LocalTensor<T> b1 = tapB1.AllocTensor<T>();
            const int64_t full = k / 16, tail = k % 16;
            if (full > 0) {
                AscendC::DataCopy(b1, bG, AscendC::Nd2NzParams{static_cast<uint16_t>(full), 16, static_cast<uint16_t>(n),
                                                               static_cast<uint16_t>(16 * ldb), static_cast<uint16_t>(ldb),
                                                               16, 1, static_cast<uint16_t>(16 * nAl)});
            }
            if (tail > 0) {
                if (k % C0 != 0) {   // the rows past K, which the cube multiplies (whole fractals): zeros first
                    AscendC::Fill(b1[full * 16 * nAl], AscendC::InitConstValueParams<T>{
                        1, static_cast<uint16_t>(16 * nAl * sizeof(T) / 32), 0, static_cast<T>(0)});
                }
                AscendC::DataCopy(b1[full * 16 * nAl], bG[full * 16 * ldb],
                                  AscendC::Nd2NzParams{1, static_cast<uint16_t>(tail), static_cast<uint16_t>(n), 0,
                                                       static_cast<uint16_t>(ldb), 16, 1, 0});
            }
            tapB1.EnQue(b1);
        }
    }

    template <typename T, bool BT, bool RA>
    __aicore__ inline void TapCompute(int64_t m, int64_t n, int64_t k, bool first, const AscendC::LocalTensor<float>& c,
                                      int64_t slot)
    {
        constexpr int64_t C0 = 32 / sizeof(T), FRAC = 16 * C0;
        const int64_t m16 = AcCdiv(m, 16), n16 = AcCdiv(n, 16), kC = AcCdiv(k, C0), k16 = AcCdiv(k, 16);
        AscendC::LocalTensor<T> a1;
        if constexpr (RA) {
            a1 = tapARes.Get<T>()[slot * tapASlot];
        } else {
            a1 = tapA1.DeQue<T>();
        }
        if (!BT || (tapBEdge[slot] & 1)) {
            tapBCur = tapB1.DeQue<TapT>();    // B as stored: every tap's tile; transposed: a window's
        }
        const AscendC::LocalTensor<T> b1 = tapBCur;
        AscendC::LocalTensor<T> a2 = tapA2.AllocTensor<T>();
        AscendC::LocalTensor<T> b2 = tapB2.AllocTensor<T>();
        if (m == 1) {   // GEMV: A is one contiguous row in L0A
            AscendC::LoadData(a2, a1, AscendC::LoadData2DParams{0, static_cast<uint8_t>(AcCdiv(k, FRAC)), 1, 0, 0, false,
                                                                0});
        } else {        // ZZ in L1 already (TapCopyA): its fractals in order, 255 a LoadData at most
            for (int64_t f = 0; f < m16 * kC; f += 255) {
                AscendC::LoadData(a2[f * FRAC], a1[f * FRAC],
                                  AscendC::LoadData2DParams{0, static_cast<uint8_t>(AcMin<int64_t>(m16 * kC - f, 255)), 1,
                                                            0, 0, false, 0});
            }
        }
        if constexpr (BT) {
            // NZ (n x k) -> ZN: the n fractals of each k block from the tap's first row in its window
            // (rows of 32 bytes: L1 sources are 32-byte aligned, LoadData_2D.md)
            const int64_t wRows = n16 * 16 + TAP_SHIFT;
            for (int64_t i = 0; i < kC; ++i) {
                AscendC::LoadData(b2[i * n16 * FRAC], b1[(i * wRows + tapBShift[slot]) * C0],
                                  AscendC::LoadData2DParams{0, static_cast<uint8_t>(n16), 1, 0, 0, false, 0});
            }
        } else {
            for (int64_t i = 0; i < k16; ++i) {  // Zz (k x n) -> ZN, the two halves of a square n16 fractals apart
                AscendC::LoadDataWithTranspose(b2[i * n16 * 2 * FRAC], b1[i * n16 * 2 * FRAC],
                                               AscendC::LoadData2dTransposeParams{0, static_cast<uint8_t>(n16), 1, 0,
                                                                                  static_cast<uint16_t>(n16 - 1)});
            }
        }
        if constexpr (!RA) {
            tapA1.FreeTensor(a1);
        }
        if (!BT || (tapBEdge[slot] & 2)) {
            tapB1.FreeTensor(tapBCur);
        }
        tapA2.EnQue(a2);
        tapB2.EnQue(b2);
        a2 = tapA2.DeQue<T>();
        b2 = tapB2.DeQue<T>();
        AscendC::Mmad(c, a2, b2, AscendC::MmadParams{static_cast<uint16_t>(m), static_cast<uint16_t>(n),
                                                     static_cast<uint16_t>(k), 0, false, first});
        tapA2.FreeTensor(a2);
        tapB2.FreeTensor(b2);
    }
"""


class TapsEmitter:
    def _taps_dtype(self) -> str:
        dtypes = {self._gm_dtype(s.value.args[0]) for s in self.taps}
        if len(dtypes) != 1:
            from .emit_common import unsupported
            raise unsupported("tap products of different operand dtypes in one kernel", self.taps[0])
        return dtypes.pop()

    def _taps_decls(self) -> tuple[list[str], list[str]]:
        """(member declarations, Init lines) of the cube core's queues, each slot the largest tap
        product's tile at the kernel's dims (base=(M, N, K): the tiles' extents before clipping)."""
        dtype = self._taps_dtype()
        ct = UB_CTYPES[dtype]
        c0 = 32 // D.ITEMSIZE[dtype]

        def largest(parts) -> str:
            out = None
            for p in parts:
                out = p if out is None else f"AcMax<int64_t>({out}, {p})"
            return out
        a, b, b1, c = [], [], [], []
        for s in self.taps:
            m, n, k = (f"({self.scalar(x)})" for x in s.value.kwarg("base").items)
            a.append(f"AcCdiv({m}, 16) * 16 * AcCdiv({k}, {c0}) * {c0}")
            b.append(f"AcCdiv({n}, 16) * 16 * AcCdiv({k}, 16) * 16")   # K to 16: B as stored is Zz
            # in L1, TAP_SHIFT rows more: a window of image rows several taps share
            b1.append(f"(AcCdiv({n}, 16) * 16 + {TAP_SHIFT}) * AcCdiv({k}, 16) * 16")
            c.append(f"AcCdiv({m}, 16) * 16 * AcCdiv({n}, 16) * 16")
        decls, init = [], []
        resident = self._taps_resident()
        queues = (("tapB1", "B1", largest(b1), ct), ("tapA2", "A2", largest(a), ct), ("tapB2", "B2", largest(b), ct),
                  ("tapC", "CO1", largest(c), "float"))
        for q, pos, size, elem in (("tapA1", "A1", largest(a), ct),) + queues:
            decls.append(f"    AscendC::TQue<AscendC::TPosition::{pos}, {TAP_SLOTS[pos]}> {q};")
            if not (resident and q == "tapA1"):
                init.append(f"        pipe.InitBuffer({q}, {TAP_SLOTS[pos]}, ({size}) * sizeof({elem}));")
        # declared for both branches of TapCopy / TapCompute, made only when used
        decls += [f"    using TapT = {ct};", f"    static constexpr int64_t TAP_SHIFT = {TAP_SHIFT};",
                  "    AscendC::LocalTensor<TapT> tapBCur;   // the image block (window) the taps multiply",
                  f"    int64_t tapBOff[{MAX_TAPS}], tapBWin[{MAX_TAPS}], tapBShift[{MAX_TAPS}], tapBRows[{MAX_TAPS}], "
                  f"tapBEdge[{MAX_TAPS}];",
                  "    AscendC::TBuf<AscendC::TPosition::A1> tapARes;",
                  f"    uint64_t tapAKey[{MAX_TAPS}];   // the GM address and rows of the tile in each slot",
                  f"    int64_t tapARows[{MAX_TAPS}];", "    int64_t tapASlot;"]
        if resident:     # a slot per tap of the longest tap loop, each the largest A tile
            taps = largest(f"(1 + TapCount({', '.join(self.scalar(x) for x in s.value.kwarg('taps').items[1:4])}))"
                           for s in self.taps)
            init += [f"        tapASlot = {largest(a)};",
                     f"        pipe.InitBuffer(tapARes, ({taps}) * tapASlot * sizeof({ct}));",
                     f"        for (int64_t i = 0; i < {MAX_TAPS}; ++i) {{ tapAKey[i] = 0; tapARows[i] = -1; }}"]
        return decls, init

    def _taps_resident(self) -> bool:
        """Whether every tap product of the kernel keeps its weight tiles in L1 (``resident=True``,
        cube_taps.py: they fit beside the image tiles at every shape set); else none does."""
        return all(self._kw(s.value, "resident", False) for s in self.taps)

    def _taps_store(self, s: A.Store):
        """One C tile: the first tap's product, then one per tap of the loop, into L0C; Fixpipe to C."""
        e = s.value
        ct = UB_CTYPES[self._gm_dtype(e.args[0])]
        c_name, c_off, c_axes = self._region(s.dst)
        (m, ldc), (n, _) = c_axes[-2:]
        var, start, stop, step, a_t, b_t = e.kwarg("taps").items

        bt = bool(self._kw(e, "transpose_b", False))

        targs = f"<{ct}, {'true' if bt else 'false'}, {'true' if self._taps_resident() else 'false'}>"
        k = self._region(e.args[0])[2][-1][0]

        def copy_call(a, b) -> str:
            (a_name, a_off, a_axes), (b_name, b_off, b_axes) = self._region(a), self._region(b)
            if bt:      # the tap's window of image rows (TapWindows)
                b_off = "tapBWin[issued_]"
            return (f"TapCopy{targs}({a_name}Gm[{a_off}], {b_name}Gm[{b_off}], m_, n_, k_, {a_axes[-2][1]}, "
                    f"{b_axes[-2][1]}, issued_); ++issued_;")
        compute = f"TapCompute{targs}(m_, n_, k_, done_ == 0, c_, done_); ++done_;"
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t m_ = {m}, n_ = {n}, k_ = {k};")
        self.emit("if (m_ > 0 && n_ > 0) {")
        self.depth += 1
        self.emit("AscendC::LocalTensor<float> c_ = tapC.AllocTensor<float>();")
        if bt:          # every tap's image block, then the windows they share
            _, b_off, b_axes = self._region(e.args[1])
            self.emit("int64_t nt_ = 0;")
            self.emit(f"tapBOff[nt_++] = {b_off};")
            self._for_header(A.For(var.id, start, stop, step, ()))
            self.emit(f"    tapBOff[nt_++] = {self._region(b_t)[1]};")
            self.emit("}")
            self.emit(f"TapWindows(nt_, {b_axes[-2][1]}, n_);")
        self.emit("int64_t issued_ = 0, done_ = 0;   // taps copied in, taps multiplied")
        self.emit(copy_call(e.args[0], e.args[1]))
        self._for_header(A.For(var.id, start, stop, step, ()))
        self.depth += 1
        self.emit(f"if (issued_ - done_ >= {TAP_AHEAD}) {{ {compute} }}")
        self.emit(copy_call(a_t, b_t))
        self.depth -= 1
        self.emit("}")
        self.emit(f"while (done_ < issued_) {{ {compute} }}")
        self.emit("tapC.EnQue(c_);")
        self.emit("c_ = tapC.DeQue<float>();")
        self.emit(f"AscendC::Fixpipe({c_name}Gm[{c_off}], c_, AscendC::FixpipeParamsV220{{static_cast<uint16_t>(n_), "
                  f"static_cast<uint16_t>(m_), static_cast<uint16_t>(AcCdiv(m_, 16) * 16), "
                  f"static_cast<uint32_t>({ldc}), false, NoQuant, 0, 1, 0, 0, 0}});")
        self.emit("tapC.FreeTensor(c_);")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    def _phases_by_kind(self, body):
        """A kernel of vector phases and tap products (core type mixtaps): the AIVs run the vector
        phases (SyncAll between them), the AICs the tap phases. Before a tap phase that vector phases
        precede, every AIV reaches a barrier and each block's two then set a mode-2 flag their AIC
        waits for (the image is written); after one that vector phases follow, the AIC sets a mode-2
        flag its two AIVs wait for, and a barrier then orders every AIC's tiles before every AIV's
        next phase. Two tap phases in a row meet at a mode-0 round of the AICs. A loop of phases
        whose last phase is tap products hands each iteration over the same way (``_loop_aiv``,
        ``_loop_aic``). Flag ids: 2j and 2j + 1 for the j-th tap phase, 15 for the AICs' rounds
        (docs/simulator.md, "Mixed launches and cross-core flags")."""
        units: list[tuple[str, list]] = []          # ("aic" | "aiv" | "loop", statements of one group)
        for s in body:
            taps = A.is_tap_phase(s)
            if taps and not isinstance(s, A.ParallelFor):
                units.append(("loop", [self._tap_loop(s)]))
            elif isinstance(s, A.ParallelFor) or is_phase_loop(s):
                units.append(("aic" if taps else "aiv", [s]))
            elif units and units[-1][0] == "aiv" and not isinstance(units[-1][1][0], A.ParallelFor) and \
                    not is_phase_loop(units[-1][1][0]):
                units[-1][1].append(s)              # consecutive statements on core 0: one group
            else:
                units.append(("aiv", [s]))
        kinds = [k for k, _ in units]
        tap_index = {i: j for j, i in enumerate(i for i, k in enumerate(kinds) if k != "aiv")}

        def vector_before(i):
            return any(k != "aic" for k in kinds[:i])

        def vector_after(i):
            return any(k != "aic" for k in kinds[i + 1:])
        self.emit("if ASCEND_IS_AIV {")
        self.depth += 1
        for i, (kind, group) in enumerate(units):
            j = tap_index.get(i)
            if kind == "loop":
                self._loop_aiv(group[0], j, vector_after(i))
                continue
            if kind == "aic":
                if vector_before(i):
                    self.emit("AscendC::SyncAll();")
                    self.emit(f"AscendC::CrossCoreSetFlag<2, PIPE_MTE3>({2 * j});   // the image is written")
                if vector_after(i):
                    self.emit(f"AscendC::CrossCoreWaitFlag({2 * j + 1});   // this block's AIC wrote its tiles")
                    self.emit("AscendC::SyncAll();")
                continue
            self._group(group)
            if i + 1 < len(units) and units[i + 1][0] == "aiv" and not is_phase_loop(group[0]):
                self.emit("AscendC::SyncAll();")
        self.depth -= 1
        self.emit("}")
        self.emit("if ASCEND_IS_AIC {")
        self.depth += 1
        for i, (kind, group) in enumerate(units):
            if kind == "aiv":
                continue
            j = tap_index[i]
            if i > 0 and kinds[i - 1] == "aic":      # the tap phase before: every AIC's tiles written
                self.emit("AscendC::CrossCoreSetFlag<0, PIPE_FIX>(15);")
                self.emit("AscendC::CrossCoreWaitFlag(15);")
            if kind == "loop":
                self._loop_aic(group[0], j)
                continue
            if vector_before(i):
                self.emit(f"AscendC::CrossCoreWaitFlag({2 * j});")
            self._phase(group[0])
            if vector_after(i):
                self.emit(f"AscendC::CrossCoreSetFlag<2, PIPE_FIX>({2 * j + 1});")
        self.depth -= 1
        self.emit("}")

    def _tap_loop(self, s) -> A.For:
        """A loop of phases the mixed kernel can hand over per iteration: vector phases, then one
        phase of tap products."""
        from .emit_common import unsupported
        if not (is_phase_loop(s) and len(s.body) >= 2 and A.is_tap_phase(s.body[-1])
                and not any(A.is_tap_phase(p) for p in s.body[:-1])):
            raise unsupported("tap products in a loop of phases other than vector phases then one phase of tap "
                              "products", s)
        return s

    def _run_ahead(self, loop: A.For) -> int:
        """How many iterations of a loop of phases the vector cores may be ahead of the cube cores
        (``groups=`` on its tap products, cube_taps.py; 1: in lock step)."""
        product = next(n.value for n in A.walk(loop.body[-1]) if isinstance(n, A.Store) and A.is_tap_product(n.value))
        return int(self._kw(product, "groups", 1))

    def _loop_aiv(self, loop: A.For, j: int, vector_after: bool):
        """The vector cores' side of a loop of phases ending in tap products: each iteration's vector
        phases, a barrier and a mode-2 flag (2j) to their AIC; before iteration i they wait for the
        AIC to be done with iteration i - ahead (flag 2j + 1, one per iteration) and meet at a barrier
        (then every AIC is), the rest of the flags after the loop."""
        ahead = self._run_ahead(loop)
        self.emit("{")
        self.depth += 1
        self.emit("int64_t gi_ = 0;   // iterations handed to the AIC")
        self._for_header(loop)
        self.depth += 1
        # each AIV waits for its own AIC to be done with iteration gi_ - ahead; past the barrier every AIC is
        self.emit(f"if (gi_ >= {ahead}) {{ AscendC::CrossCoreWaitFlag({2 * j + 1}); AscendC::SyncAll(); }}")
        for k, p in enumerate(loop.body[:-1]):
            if k:
                self.emit("AscendC::SyncAll();")
            self._phase(p)
        self.emit("AscendC::SyncAll();")
        self.emit(f"AscendC::CrossCoreSetFlag<2, PIPE_MTE3>({2 * j});   // this iteration's image is written")
        self.emit("++gi_;")
        self.depth -= 1
        self.emit("}")
        self.emit(f"for (int64_t r_ = AcMax<int64_t>(gi_ - {ahead}, 0); r_ < gi_; ++r_) {{ "
                  f"AscendC::CrossCoreWaitFlag({2 * j + 1}); }}")
        if vector_after:
            self.emit("AscendC::SyncAll();")
        self.depth -= 1
        self.emit("}")

    def _loop_aic(self, loop: A.For, j: int):
        """The cube cores' side: per iteration, wait for the vector cores' flag, the tap products,
        then a flag back."""
        self._for_header(loop)
        self.depth += 1
        self.emit(f"AscendC::CrossCoreWaitFlag({2 * j});")
        self._phase(loop.body[-1])
        self.emit(f"AscendC::CrossCoreSetFlag<2, PIPE_FIX>({2 * j + 1});")
        self.depth -= 1
        self.emit("}")
