// An fp32 product through the low-level cube path on A2, the ways the public load_data_l12l0 example moves float
// operands: GM -> L1 (Nd2Nz) -> L0A/L0B -> Mmad (float x float -> float in L0C) -> Fixpipe (NoQuant) -> GM.
// C[m x n] = A[m x k] * B[k x n], K in two steps [0, k1) and [k1, k) accumulated in L0C (cmatrixInitVal false on
// the second); m, k and n need not be multiples of 16 or 8.
//   APATH 0: a = A [m x k] ND -> NZ in L1 -> L0A with LoadData2D (ZZ; m = 1 takes the GEMV form: A contiguous).
//   APATH 1: a = A^T [k x m] ND -> Zz in L1 (one Nd2Nz matrix per 16 rows) -> L0A with LoadDataWithTranspose,
//            K aligned to 16 in L0A: Mmad with kDirectionAlign.
//   BPATH 0: b = B^T [n x k] ND -> NZ in L1 -> L0B with LoadData2D, no transpose (ZN).
//   BPATH 1: b = B [k x n] ND -> Zz in L1 -> L0B with LoadDataWithTranspose.
//   BPATH 2 (half): b = B [k x n] ND -> NZ in L1 -> L0B with LoadDataWithTranspose (one 16 x 16 fractal a repeat).
// T = half also runs APATH 0 / BPATH 0 with the same code (C0 = 16), for the cost comparison.
#include "kernel_operator.h"

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// rows [r0, r0 + rows) of an ND matrix with `cols` columns into L1 as Zz: a one-fractal-high NZ matrix per 16 rows,
// slabs 16 * colsAlign16 apart (the last one may be short)
template <typename T>
__aicore__ inline void CopyNdToZz(const AscendC::LocalTensor<T> &dst, const AscendC::GlobalTensor<T> &src, uint32_t r0,
                                  uint32_t rows, uint32_t cols)
{
    const uint32_t colsAl = CeilDiv(cols, 16) * 16, full = rows / 16, tail = rows % 16;
    if (full > 0) {
        AscendC::DataCopy(dst, src[r0 * cols], AscendC::Nd2NzParams{static_cast<uint16_t>(full), 16, static_cast<uint16_t>(cols),
                                                                   static_cast<uint16_t>(16 * cols), static_cast<uint16_t>(cols),
                                                                   16, 1, static_cast<uint16_t>(16 * colsAl)});
    }
    if (tail > 0) {
        AscendC::DataCopy(dst[full * 16 * colsAl], src[(r0 + full * 16) * cols],
                          AscendC::Nd2NzParams{1, static_cast<uint16_t>(tail), static_cast<uint16_t>(cols), 0,
                                               static_cast<uint16_t>(cols), 16, 1, 0});
    }
}

template <typename T, int APATH, int BPATH>
__global__ __aicore__ void mmad_f32(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t m, uint32_t k, uint32_t n, uint32_t k1)
{
    constexpr uint32_t C0 = 32 / sizeof(T), FRAC = 512 / sizeof(T);
    const uint32_t m16 = CeilDiv(m, 16), n16 = CeilDiv(n, 16);
    const uint32_t kMax = k1 > k - k1 ? k1 : k - k1, kMax16 = CeilDiv(kMax, 16) * 16;
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::A1, 1> qA1;
    AscendC::TQue<AscendC::TPosition::B1, 1> qB1;
    AscendC::TQue<AscendC::TPosition::A2, 1> qA2;
    AscendC::TQue<AscendC::TPosition::B2, 1> qB2;
    AscendC::TQue<AscendC::TPosition::CO1, 1> qC;
    pipe.InitBuffer(qA1, 1, m16 * 16 * kMax16 * sizeof(T));
    pipe.InitBuffer(qB1, 1, n16 * 16 * kMax16 * sizeof(T));
    pipe.InitBuffer(qA2, 1, m16 * 16 * kMax16 * sizeof(T));
    pipe.InitBuffer(qB2, 1, n16 * 16 * kMax16 * sizeof(T));
    pipe.InitBuffer(qC, 1, m16 * n16 * 256 * sizeof(float));
    AscendC::GlobalTensor<T> aGM, bGM;
    AscendC::GlobalTensor<float> cGM;
    aGM.SetGlobalBuffer((__gm__ T *)a, m * k);
    bGM.SetGlobalBuffer((__gm__ T *)b, k * n);
    cGM.SetGlobalBuffer((__gm__ float *)c, m * n);
#ifdef BUG_HF32
    AscendC::SetHF32Mode(AscendC::HF32Mode::ENABLE);
#endif
    AscendC::LocalTensor<float> cl = qC.AllocTensor<float>();
    for (uint32_t step = 0; step < 2; ++step) {
        const uint32_t k0 = step == 0 ? 0 : k1, kc = step == 0 ? k1 : k - k1;
        const uint32_t kcC = CeilDiv(kc, C0), kc16 = CeilDiv(kc, 16);
        // GM -> L1
        AscendC::LocalTensor<T> a1 = qA1.AllocTensor<T>();
        AscendC::LocalTensor<T> b1 = qB1.AllocTensor<T>();
#if !defined(BUG_K_PADDING) && !defined(BUG_NO_KALIGN)   // (NO_KALIGN's misread is found in the unwritten rows)
        // the K padding Nd2Nz does not write (a Zz layout's rows past K; a [k x n] NZ's rows past K) is multiplied
        // by the cube, which reads whole fractals: zero both tiles first (Fill, on MTE2 before the copies)
#ifdef BUG_FILL_OVER
        constexpr uint32_t fillTimes = 2;   // twice the tile's 32-byte blocks
#else
        constexpr uint32_t fillTimes = 1;
#endif
        AscendC::Fill(a1, AscendC::InitConstValueParams<T>{1, static_cast<uint16_t>(m16 * kMax16 * sizeof(T) / 2 * fillTimes),
                                                           0, static_cast<T>(0)});
        AscendC::Fill(b1, AscendC::InitConstValueParams<T>{1, static_cast<uint16_t>(n16 * kMax16 * sizeof(T) / 2), 0,
                                                           static_cast<T>(0)});
#endif
        if constexpr (APATH == 0) {
            const uint16_t c0Stride = m == 1 ? 1 : m16 * 16;  // GEMV: the row stays contiguous
            AscendC::DataCopy(a1, aGM[k0], AscendC::Nd2NzParams{1, static_cast<uint16_t>(m), static_cast<uint16_t>(kc), 0,
                                                                static_cast<uint16_t>(k), c0Stride, 1, 0});
        } else {
            CopyNdToZz(a1, aGM, k0, kc, m);
        }
#ifndef BUG_B_TRANSPOSE_2D
        if constexpr (BPATH == 0) {
            AscendC::DataCopy(b1, bGM[k0], AscendC::Nd2NzParams{1, static_cast<uint16_t>(n), static_cast<uint16_t>(kc), 0,
                                                                static_cast<uint16_t>(k), static_cast<uint16_t>(n16 * 16), 1, 0});
        } else if constexpr (BPATH == 1) {
            CopyNdToZz(b1, bGM, k0, kc, n);
        } else {
            AscendC::DataCopy(b1, bGM[k0 * n], AscendC::Nd2NzParams{1, static_cast<uint16_t>(kc), static_cast<uint16_t>(n), 0,
                                                                    static_cast<uint16_t>(n), static_cast<uint16_t>(kc16 * 16), 1, 0});
        }
#else
        // B [k x n] in NZ, as the fp16 kernels keep it
        AscendC::DataCopy(b1, bGM[k0 * n], AscendC::Nd2NzParams{1, static_cast<uint16_t>(kc), static_cast<uint16_t>(n), 0,
                                                                static_cast<uint16_t>(n), static_cast<uint16_t>(kc16 * 16), 1, 0});
#endif
        qA1.EnQue(a1);
        qB1.EnQue(b1);
        a1 = qA1.DeQue<T>();
        b1 = qB1.DeQue<T>();
        // L1 -> L0A / L0B
        AscendC::LocalTensor<T> a2 = qA2.AllocTensor<T>();
        AscendC::LocalTensor<T> b2 = qB2.AllocTensor<T>();
        if constexpr (APATH == 0) {
            if (m == 1) {
                AscendC::LoadData(a2, a1, AscendC::LoadData2DParams{0, static_cast<uint8_t>(CeilDiv(kc, FRAC)), 1, 0, 0, false, 0});
            } else {
                for (uint32_t i = 0; i < m16; ++i) {  // NZ -> ZZ: the k fractals of row block i
                    AscendC::LoadData(a2[i * kcC * FRAC], a1[i * FRAC],
                                      AscendC::LoadData2DParams{0, static_cast<uint8_t>(kcC), static_cast<uint16_t>(m16), 0, 0, false, 0});
                }
            }
        } else {
            for (uint32_t i = 0; i < m16; ++i) {  // Zz (k x m) -> ZZ (m x k): one 16 x 16 square per 16 k
                AscendC::LoadDataWithTranspose(a2[i * kc16 * 2 * FRAC], a1[i * 2 * FRAC],
                                               AscendC::LoadData2dTransposeParams{0, static_cast<uint8_t>(kc16),
                                                                                  static_cast<uint16_t>(m16), 1, 0});
            }
        }
#ifndef BUG_B_TRANSPOSE_2D
        if constexpr (BPATH == 0) {
            for (uint32_t i = 0; i < kcC; ++i) {  // NZ (n x k) -> ZN: the n fractals of k block i
                AscendC::LoadData(b2[i * n16 * FRAC], b1[i * n16 * FRAC],
                                  AscendC::LoadData2DParams{0, static_cast<uint8_t>(n16), 1, 0, 0, false, 0});
            }
        } else if constexpr (BPATH == 1) {
            for (uint32_t i = 0; i < kc16; ++i) {  // Zz (k x n) -> ZN, the two halves of a square n16 fractals apart
                AscendC::LoadDataWithTranspose(b2[i * n16 * 2 * FRAC], b1[i * n16 * 2 * FRAC],
                                               AscendC::LoadData2dTransposeParams{0, static_cast<uint8_t>(n16), 1, 0,
                                                                                  static_cast<uint16_t>(n16 - 1)});
            }
        } else {
            static_assert(sizeof(T) == 2, "BPATH 2 is the 16-bit form");
            for (uint32_t i = 0; i < kc16; ++i) {  // NZ (k x n) -> ZN: each fractal transposed
                AscendC::LoadDataWithTranspose(b2[i * n16 * FRAC], b1[i * FRAC],
                                               AscendC::LoadData2dTransposeParams{0, static_cast<uint8_t>(n16),
                                                                                  static_cast<uint16_t>(kc16), 0, 0});
            }
        }
#else
        for (uint32_t i = 0; i < kc16; ++i) {  // the fp16 way: per-fractal transpose
            AscendC::LoadData(b2[i * n16 * 16 * 16], b1[i * 256], AscendC::LoadData2DParams{0, static_cast<uint8_t>(n16), static_cast<uint16_t>(kc16), 0, 0, true, 0});
        }
#endif
        qA1.FreeTensor(a1);
        qB1.FreeTensor(b1);
        qA2.EnQue(a2);
        qB2.EnQue(b2);
        a2 = qA2.DeQue<T>();
        b2 = qB2.DeQue<T>();
        AscendC::MmadParams mp{static_cast<uint16_t>(m), static_cast<uint16_t>(n), static_cast<uint16_t>(kc), 0, false, step == 0};
#ifndef BUG_NO_KALIGN
        mp.kDirectionAlign = APATH == 1;
#endif
        AscendC::Mmad(cl, a2, b2, mp);  // Mmad call
        qA2.FreeTensor(a2);
        qB2.FreeTensor(b2);
    }
    qC.EnQue(cl);
    AscendC::LocalTensor<float> cd = qC.DeQue<float>();
#ifndef BUG_QUANT
    constexpr QuantMode_t quant = NoQuant;
#else
    constexpr QuantMode_t quant = F322F16;  // a cast to half into a float output
#endif
    AscendC::Fixpipe(cGM, cd, AscendC::FixpipeParamsV220{static_cast<uint16_t>(n), static_cast<uint16_t>(m),
                                                         static_cast<uint16_t>(m16 * 16), n, false, quant, 0, 1, 0, 0, 0});
    qC.FreeTensor(cd);
}
