"""C++ text the emitter pastes into every kernel class that needs it: integer helpers with
Python's floor semantics, scalar math through one-element vector ops, and the work tables of
windows, strided copies and scans."""

HELPERS = r"""// Integer helpers with the DSL's (Python's) floor semantics, and slice clamping.
__aicore__ inline int64_t AcFloorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__aicore__ inline int64_t AcMod(int64_t a, int64_t b) { return a - AcFloorDiv(a, b) * b; }
__aicore__ inline int64_t AcCdiv(int64_t a, int64_t b) { return -AcFloorDiv(-a, b); }
__aicore__ inline int64_t AcAlignUp(int64_t a, int64_t b) { return AcCdiv(a, b) * b; }
template <typename T> __aicore__ inline T AcMin(T a, T b) { return a < b ? a : b; }
template <typename T> __aicore__ inline T AcMax(T a, T b) { return a > b ? a : b; }
template <typename T> __aicore__ inline T AcAbs(T a) { return a < 0 ? -a : a; }
__aicore__ inline int64_t AcClamp(int64_t v, int64_t dim) { return v < 0 ? 0 : (v > dim ? dim : v); }
// depthA1 = depthB1 of a base block known only here (codegen/gemm.py l1_depth: the same rule).
__aicore__ inline int64_t AcL1Depth(int64_t bm, int64_t bn, int64_t bk, int64_t itemsize, int64_t l1)
{
    return AcMax<int64_t>(2, AcMin<int64_t>(8, l1 / ((bm * bk + bk * bn) * itemsize)) / 2 * 2);
}
// Zero a tile's first n elements through a 16-bit view (Duplicate moves 16- and 32-bit types only).
template <typename T> __aicore__ inline void AcZeroFill(const AscendC::LocalTensor<T>& t, int64_t n)
{
    AscendC::Duplicate(t.template ReinterpretCast<int16_t>(), static_cast<int16_t>(0),
                       static_cast<int32_t>(n * static_cast<int64_t>(sizeof(T)) / 2));
}
// A bit-exact copy of n elements between UB tiles: Or of 16-bit views (And/Or take int16/uint16),
// so no value is rounded (ints stay exact, NaN payloads kept) and no byte past the n is read;
// an odd last byte of a 1-byte type goes by the scalar unit.
template <typename T> __aicore__ inline void AcCopy(const AscendC::LocalTensor<T>& dst,
                                                   const AscendC::LocalTensor<T>& src, int64_t n)
{
    const int64_t bytes = n * static_cast<int64_t>(sizeof(T));
    if (bytes >= 2) {
        AscendC::LocalTensor<uint16_t> d = dst.template ReinterpretCast<uint16_t>();
        AscendC::LocalTensor<uint16_t> s = src.template ReinterpretCast<uint16_t>();
        AscendC::Or(d, s, s, static_cast<int32_t>(bytes / 2));
    }
    if (bytes % 2 != 0) {
        dst.SetValue(n - 1, src.GetValue(n - 1));
    }
}
// Rows 1 .. rows - 1 of a tile moved in place from a pitch of `from` elements to `to` (to <= from,
// both whole 32-byte blocks): a narrow product block (GetTensorC lays rows baseN apart) to the
// pitch every tile of its width has. Row r moves r * (from - to) elements down, in chunks no longer
// than that, so no chunk overlaps its own source; the next chunk waits for the last.
template <typename T> __aicore__ inline void AcPackRows(const AscendC::LocalTensor<T>& t, int64_t rows,
                                                       int64_t cols, int64_t from, int64_t to)
{
    for (int64_t r = 1; r < rows && to < from; ++r) {
        const int64_t shift = r * (from - to);
        for (int64_t j = 0; j < cols; j += shift) {
            AcCopy(t[r * to + j], t[r * from + j], AcMin(shift, cols - j));
            AscendC::PipeBarrier<PIPE_V>();
        }
    }
}
// The bits of a value as another type of the same width (an integer Select's scalar on the float view).
template <typename F, typename T> __aicore__ inline F AcBitsAs(T v)
{
    static_assert(sizeof(F) == sizeof(T), "same width");
    F f;
    __builtin_memcpy(&f, &v, sizeof(F));
    return f;
}
constexpr float AC_INF = __builtin_huge_valf();
constexpr float AC_NAN = __builtin_nanf("");
// Scalar-unit float math with NumPy's meaning: minimum/maximum/relu propagate NaN; rounding to an
// integer value keeps NaN, inf and values of 2^23 and more (already integers) and the sign of zero.
template <typename T> __aicore__ inline T AcFMax(T a, T b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
template <typename T> __aicore__ inline T AcFMin(T a, T b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
template <typename T> __aicore__ inline T AcRelu(T a) { return a != a ? a : (a > 0 ? a : static_cast<T>(0)); }
__aicore__ inline bool AcNoFraction(float x) { return !(x - x == 0.0f) || x >= 8388608.0f || x <= -8388608.0f; }
__aicore__ inline float AcSignedZero(float r, float x) { return r == 0.0f ? x * 0.0f : r; }
__aicore__ inline float AcTrunc(float x)
{
    return AcNoFraction(x) ? x : AcSignedZero(static_cast<float>(static_cast<int32_t>(x)), x);
}
__aicore__ inline float AcFloor(float x)
{
    if (AcNoFraction(x)) { return x; }
    const float t = static_cast<float>(static_cast<int32_t>(x));
    return AcSignedZero(t > x ? t - 1.0f : t, x);
}
__aicore__ inline float AcCeil(float x)
{
    if (AcNoFraction(x)) { return x; }
    const float t = static_cast<float>(static_cast<int32_t>(x));
    return AcSignedZero(t < x ? t + 1.0f : t, x);
}
__aicore__ inline float AcRound(float x)   // half away from zero
{
    if (AcNoFraction(x)) { return x; }
    const float r = AcFloor((x < 0 ? -x : x) + 0.5f);
    return AcSignedZero(x < 0 ? -r : r, x);
}
__aicore__ inline float AcRint(float x)    // half to even
{
    if (AcNoFraction(x)) { return x; }
    const float f = AcFloor(x), d = x - f;
    const float r = d > 0.5f ? f + 1.0f : (d < 0.5f ? f : (static_cast<int32_t>(f) % 2 == 0 ? f : f + 1.0f));
    return AcSignedZero(r, x);
}
__aicore__ inline int64_t AcFloatToInt(float x, double lo, double hi)   // NaN -> 0, saturating
{
    if (x != x) { return 0; }
    const double d = static_cast<double>(x);
    return d <= lo ? static_cast<int64_t>(lo) : (d >= hi ? static_cast<int64_t>(hi) : static_cast<int64_t>(d));
}
"""

# Transcendental scalar math runs on the vector unit over one 32-byte block (the scalar unit
# has no exp/log); the V<->S ordering around GetValue comes from cce-auto-sync (ascendc_api.md 2.3).
from ascendcraft.lowering_passes.select import _ERF_A, _ERF_P  # noqa: E402  (one erf approximation for tiles and scalars)

HELPERS += "".join(f"constexpr float ERF_{n} = {v!r}f;\n" for n, v in
                    [("P", _ERF_P)] + [(f"A{i + 1}", a) for i, a in enumerate(_ERF_A)])

SCALAR_METHODS = """    __aicore__ inline float ScalarExp(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Exp(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    __aicore__ inline float ScalarLn(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Ln(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    __aicore__ inline float ScalarSqrt(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Sqrt(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    __aicore__ inline float ScalarRsqrt(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Rsqrt(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    // Functions the scalar unit lacks, composed as in select.py's tile rules (tanh = 1 - 2 / (e^2x + 1),
    // sigmoid = 1 / (1 + e^-x), erf: Abramowitz & Stegun 7.1.26), with NaN and +-inf as NumPy gives them.
    __aicore__ inline float ScalarTanh(float x) { return x != x ? x : 1.0f - 2.0f / (ScalarExp(2.0f * x) + 1.0f); }
    __aicore__ inline float ScalarSigmoid(float x) { return x != x ? x : 1.0f / (1.0f + ScalarExp(-x)); }
    __aicore__ inline float ScalarErf(float x)
    {
        if (x != x || x == 0.0f) { return x; }
        const float ax = x < 0 ? -x : x, t = 1.0f / (1.0f + ERF_P * ax);
        const float poly = ((((ERF_A5 * t + ERF_A4) * t + ERF_A3) * t + ERF_A2) * t + ERF_A1) * t;
        const float y = 1.0f - poly * ScalarExp(-ax * ax);
        return x < 0 ? -y : y;
    }
    // x ** y as NumPy: an integral exponent by repeated squaring (any sign of x; 1/x^n for n < 0),
    // x ** 0 = 1, x ** 0.5 = sqrt(x), +-inf exponents by |x| vs 1, otherwise exp(y ln x) (NaN for x < 0)
    __aicore__ inline float ScalarPow(float a, float b)
    {
        if (b == 0.0f || a == 1.0f) { return 1.0f; }
        if (b != b || a != a) { return AC_NAN; }
        const float aa = a < 0 ? -a : a;
        if (b == AC_INF || b == -AC_INF) {
            if (aa == 1.0f) { return 1.0f; }
            return (aa > 1.0f) == (b > 0) ? AC_INF : 0.0f;
        }
        if (AcFloor(b) == b && b <= 1073741824.0f && b >= -1073741824.0f) {
            int64_t n = static_cast<int64_t>(b < 0 ? -b : b);
            float r = 1.0f, p = a;
            while (n > 0) { if (n & 1) { r = r * p; } p = p * p; n >>= 1; }
            return b < 0 ? 1.0f / r : r;
        }
        if (b == 0.5f) { return ScalarSqrt(a); }
        if (a < 0) { return AC_NAN; }
        if (a == 0.0f) { return b > 0 ? 0.0f : AC_INF; }
        return ScalarExp(b * ScalarLn(a));
    }
"""

# Gather offset tables (bytes) for pooling windows: the width pass reads element j*sw of every
# row of the input (pitch pi), the row pass row i*sh of the width-pooled rows (pitch owp);
# lanes past the output width read element 0. Rebuilt only when the geometry changes.
WINDOW_TABLES = """    int64_t windowTableKey[6] = {-1, -1, -1, -1, -1, -1};
    __aicore__ inline void BuildWindowTables(const AscendC::LocalTensor<int32_t>& widx, int64_t ri, int64_t pi,
                                             int64_t ow, int64_t owp, int64_t sw, int64_t oh, int64_t sh,
                                             int64_t bytes)
    {
        const int64_t key[6] = {ri, pi, ow, sw, oh, sh * bytes};
        bool same = true;
        for (int i = 0; i < 6; ++i) {
            same = same && windowTableKey[i] == key[i];
        }
        if (same) {
            return;
        }
        AscendC::LocalTensor<uint32_t> t = widx.ReinterpretCast<uint32_t>();
        for (int64_t r = 0; r < ri; ++r) {
            for (int64_t j = 0; j < owp; ++j) {
                t.SetValue(r * owp + j, static_cast<uint32_t>(j < ow ? (r * pi + j * sw) * bytes : 0));
            }
        }
        for (int64_t i = 0; i < oh; ++i) {
            for (int64_t j = 0; j < owp; ++j) {
                t.SetValue(ri * owp + i * owp + j, static_cast<uint32_t>((i * sh * owp + j) * bytes));
            }
        }
        for (int i = 0; i < 6; ++i) {
            windowTableKey[i] = key[i];
        }
    }
"""

# Copies of strided GM regions (the tile's last axis is not adjacent in GM: a column x[a:b, j]).
# DataCopyPad moves K = STRIDED_CHUNK elements per call, one per block: each block lands 32-byte
# aligned in UB and is padded to 32 bytes (ascendc_api.md 2.2), so element i of a chunk is at byte
# 32 * i of the xwork buffer (XWORK_BUF: its TBuf, named by the program). Gather packs them into the
# tile (offsets 32 * i in the xidx buffer, XIDX_BUF); the way back, Brcb
# spreads 8 tile elements per repeat over 8 blocks (a last group of fewer than 8 goes by the
# scalar unit: Brcb would read tile elements past the region) and DataCopyPad writes
# blockLen = sizeof(T) of each. Gather and Brcb move 16- and 32-bit types only (ascendc_api.md
# 3.2); other types are packed on the scalar unit. Flags order xwork's reuse between chunks
# (MTE2/MTE3 against V or S).
# CopyInStrided puts element c of row r at dst[r * pitch + dstCol + c]: dstCol > 0 is a padded
# load's left halo, whose positions keep their pad value (the first chunk's leading blocks hold
# the pad value, so the Gather can start on a 32-byte boundary).
# One round of a hardware event: the pipe E waits for returns before the one it orders goes on (a
# strided copy's reuse of xwork, a tap product's resident weights).
EVENT_SYNC = """    template <AscendC::HardEvent E> __aicore__ inline void EventSync()
    {
        auto e = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(E));
        AscendC::SetFlag<E>(e);
        AscendC::WaitFlag<E>(e);
    }
"""

STRIDED_COPIES = """    template <typename T>
    __aicore__ inline void CopyInStrided(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                                         int64_t rows, int64_t cols, int64_t pitch, int64_t dstCol,
                                         int64_t rowStride, int64_t colStride, T pad)
    {
        constexpr int64_t epb = 32 / sizeof(T);
        constexpr bool vec = sizeof(T) == 2 || sizeof(T) == 4;
        const int64_t k = STRIDED_CHUNK;
        AscendC::LocalTensor<T> stage = XWORK_BUF.Get<T>();
        AscendC::LocalTensor<uint32_t> idx = XIDX_BUF.Get<uint32_t>();
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t done = 0; done < cols;) {
                const int64_t pos = dstCol + done, a0 = pos / epb * epb, lead = vec ? pos - a0 : 0;
                const int64_t m = AcMin<int64_t>(k - lead, cols - done);
                EventSync<AscendC::HardEvent::MTE3_MTE2>();   // a strided store's last read of xwork
                EventSync<AscendC::HardEvent::V_MTE2>();      // the last vector pad or Gather of it (any type)
                if constexpr (vec) {
                    EventSync<AscendC::HardEvent::MTE3_V>();  // a strided store's read, before the vector unit pads it
                    if (lead > 0) {
                        AscendC::Duplicate(stage, pad, static_cast<int32_t>(lead * epb));
                    }
                } else {
                    EventSync<AscendC::HardEvent::S_MTE2>();
                }
                AscendC::DataCopyPad(stage[lead * epb], src[r * rowStride + done * colStride],
                                     AscendC::DataCopyExtParams{static_cast<uint16_t>(m), static_cast<uint32_t>(sizeof(T)),
                                                                static_cast<uint32_t>((colStride - 1) * sizeof(T)), 0, 0},
                                     AscendC::DataCopyPadExtParams<T>{false, 0, 0, static_cast<T>(0)});
                // the row's last 32-byte block is written whole, as DataCopyPad would (pad value past the end)
                const int64_t end = lead + m, ext = done + m == cols ? AcAlignUp(pos + m, epb) - a0 : end;
                if constexpr (vec) {
                    if (ext > end) {
                        AscendC::Duplicate(stage[end * epb], pad, static_cast<int32_t>((ext - end) * epb));
                    }
                    EventSync<AscendC::HardEvent::MTE2_V>();
                    AscendC::Gather(dst[r * pitch + a0], stage, idx, 0, static_cast<uint32_t>(ext));
                } else {
                    EventSync<AscendC::HardEvent::MTE2_S>();
                    for (int64_t i = 0; i < m; ++i) {
                        dst.SetValue(r * pitch + pos + i, stage.GetValue(i * epb));
                    }
                    for (int64_t i = pos + m; i < a0 + ext; ++i) {
                        dst.SetValue(r * pitch + i, pad);
                    }
                }
                done += m;
            }
        }
    }
    template <typename T>
    __aicore__ inline void CopyOutStrided(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                          int64_t rows, int64_t cols, int64_t pitch, int64_t rowStride,
                                          int64_t colStride)
    {
        constexpr int64_t epb = 32 / sizeof(T);
        const int64_t k = STRIDED_CHUNK;
        AscendC::LocalTensor<T> stage = XWORK_BUF.Get<T>();
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c0 = 0; c0 < cols; c0 += k) {
                const int64_t m = AcMin<int64_t>(k, cols - c0);
                // Brcb takes whole groups of 8 elements; the rest (and other types) go by the scalar unit
                const int64_t full = (sizeof(T) == 2 || sizeof(T) == 4) ? m / 8 * 8 : 0;
                if (full > 0) {
                    EventSync<AscendC::HardEvent::MTE3_V>();
                    AscendC::Brcb(stage, src[r * pitch + c0], static_cast<uint8_t>(full / 8),
                                  AscendC::BrcbRepeatParams{1, 8});
                    EventSync<AscendC::HardEvent::V_MTE3>();
                }
                if (full < m) {
                    EventSync<AscendC::HardEvent::MTE3_S>();
                    for (int64_t i = full; i < m; ++i) {
                        stage.SetValue(i * epb, src.GetValue(r * pitch + c0 + i));
                    }
                    EventSync<AscendC::HardEvent::S_MTE3>();
                }
                AscendC::DataCopyPad(dst[r * rowStride + c0 * colStride], stage,
                                     AscendC::DataCopyExtParams{static_cast<uint16_t>(m), static_cast<uint32_t>(sizeof(T)), 0,
                                                                static_cast<uint32_t>((colStride - 1) * sizeof(T)), 0});
            }
        }
    }
"""

# Gather offset tables (bytes) for scans of s elements as 64 chunks of s/64: the first half
# transposes (element r of chunk c to row r, lane c), the second puts it back. Built on the
# scalar unit when the scanned size changes (once per kernel in practice).
SCAN_TABLES = """    int64_t scanTableSize = 0;
    __aicore__ inline void BuildScanTables(const AscendC::LocalTensor<int32_t>& sidx, int64_t s, int64_t bytes)
    {
        if (scanTableSize == s * bytes) {
            return;
        }
        AscendC::LocalTensor<uint32_t> t = sidx.ReinterpretCast<uint32_t>();
        const int64_t rows = s / 64;
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < 64; ++c) {
                t.SetValue(r * 64 + c, static_cast<uint32_t>((c * rows + r) * bytes));
                t.SetValue(s + c * rows + r, static_cast<uint32_t>((r * 64 + c) * bytes));
            }
        }
        scanTableSize = s * bytes;
    }
"""

