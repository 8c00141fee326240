// A strided 2-D convolution (3 input channels, an 11 x 11 kernel, stride 4, padding 2: AlexNet's first
// layer, MultiKernelBench's conv_standard_2d) as an implicit GEMM on a mixed (1 AIC : 2 AIV) launch,
// written by hand to measure what the lowering could emit (benchmarks/implicit_gemm_bench.py).
//
// Space to depth: with s = 4, input pixel (S*i + a - P, S*j + b - P) of channel ci is pixel (i, j) of
// channel c' = (ci * S + a) * S + b of a 48-channel image xs of Hs x Ws pixels (zero outside the
// input), and the kernel becomes a 3 x 3 stride-1 kernel over xs: tap (kh', kw') weighs xs pixel
// (oh + kh', ow + kw') by wt[kh' * 3 + kw'][co][c'] = w[co, ci, S*kh' + a, S*kw' + b] (0 past 11).
//   AIVs: xs in GM, channel-last ([N, Hs, Ws, 48]: a pixel's 48 channels contiguous): per (image, xs
//         row), the 12 input rows it reads copied into UB (zero padding around them), one Gather of
//         the row's Ws x 48 values by a byte-offset table built once, one copy out.
//   AIC:  per (image, output row), C [co x OW] = bias + sum over the 9 taps of wt[tap] [co x 48] times
//         B_tap [48 x OW], where B_tap^T = xs[n, oh + kh', kw':kw' + OW, :] is a contiguous [OW x 48]
//         block of xs: GM -> L1 (Nd2Nz) -> L0B (LoadData2D), the weights resident in L1 (loaded once),
//         the taps accumulated in L0C, then Fixpipe straight into y[n, :, oh, :]. The bias is a tenth
//         product: [co x 8] (the bias in column 0) times [8 x OW] (a row of ones).
//   In groups of `group` images: when every AIV has written a group's rows (a mode-0 flag round),
//   each block's two hand their AIC the group (a mode-2 flag), and go on to the next group while the
//   AICs compute this one.
// The host packs the weights (wt, the bias matrix and the ones: a few hundred KiB, not timed).
#include "kernel_operator.h"

constexpr uint32_t CI = 3, KS = 11, S = 4, P = 2, KT = 3, C2 = CI * S * S, TAPS = KT * KT, FRAC = 128, C0 = 8;

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

extern "C" __global__ __aicore__ void conv2d_s2d(GM_ADDR x, GM_ADDR wt, GM_ADDR biasA, GM_ADDR onesB, GM_ADDR y,
                                                 GM_ADDR workspace, uint32_t n, uint32_t h, uint32_t w, uint32_t co,
                                                 uint32_t group)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    const uint32_t hs = CeilDiv(h + 2 * P, S), ws = CeilDiv(w + 2 * P, S);
    const uint32_t oh = (h + 2 * P - KS) / S + 1, ow = (w + 2 * P - KS) / S + 1;
    AscendC::GlobalTensor<float> xsGm;
    xsGm.SetGlobalBuffer((__gm__ float *)AscendC::GetUserWorkspace(workspace), n * hs * ws * C2);
    if ASCEND_IS_AIV {
        const uint32_t pitch = CeilDiv(S * ws, C0) * C0, rows = CI * S, cells = ws * C2;
        const uint8_t rightPad = static_cast<uint8_t>((C0 - (P + w) % C0) % C0);   // to the row's last block end
        AscendC::GlobalTensor<float> xGm;
        xGm.SetGlobalBuffer((__gm__ float *)x, n * CI * h * w);
        AscendC::TPipe pipe;
        AscendC::TQue<AscendC::TPosition::VECIN, 2> qIn;
        AscendC::TQue<AscendC::TPosition::VECOUT, 2> qOut;
        AscendC::TBuf<AscendC::TPosition::VECCALC> tableBuf;
        pipe.InitBuffer(qIn, 2, rows * pitch * sizeof(float));
        pipe.InitBuffer(qOut, 2, CeilDiv(cells, C0) * C0 * sizeof(float));
        pipe.InitBuffer(tableBuf, CeilDiv(cells, C0) * C0 * sizeof(uint32_t));
        AscendC::LocalTensor<uint32_t> table = tableBuf.Get<uint32_t>();
        for (uint32_t j = 0; j < ws; ++j)      // xs row cell (j, c') <- tile row (ci, a), column S*j + b
            for (uint32_t c = 0; c < C2; ++c)
                table.SetValue(j * C2 + c, ((c / S) * pitch + S * j + c % S) * sizeof(float));
        const uint32_t cores = AscendC::GetBlockNum() * 2, me = AscendC::GetBlockIdx();
        for (uint32_t g0 = 0; g0 < n; g0 += group) {   // a group of images, then the hand-off
          const uint32_t g1 = g0 + group < n ? g0 + group : n;
          for (uint32_t u = g0 * hs + me; u < g1 * hs; u += cores) {
            const uint32_t img = u / hs, i = u % hs;
            AscendC::LocalTensor<float> t = qIn.AllocTensor<float>();
            AscendC::Duplicate(t, 0.0f, rows * pitch);
            AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
            for (uint32_t r = 0; r < rows; ++r) {   // tile row (ci, a): input row S*i + a - P, left pad P
                const int32_t src = static_cast<int32_t>(S * i + r % S) - static_cast<int32_t>(P);
                if (src < 0 || src >= static_cast<int32_t>(h)) continue;
                AscendC::DataCopyPad(t[r * pitch], xGm[((img * CI + r / S) * h + src) * w],
                                     AscendC::DataCopyExtParams{1, static_cast<uint32_t>(w * sizeof(float)), 0, 0, 0},
                                     AscendC::DataCopyPadExtParams<float>{true, static_cast<uint8_t>(P), rightPad, 0.0f});
            }
            qIn.EnQue(t);
            t = qIn.DeQue<float>();
            AscendC::LocalTensor<float> g = qOut.AllocTensor<float>();
            AscendC::Gather(g, t, table, 0, cells);
            qIn.FreeTensor(t);
            qOut.EnQue(g);
            g = qOut.DeQue<float>();
            AscendC::DataCopy(xsGm[u * cells], g, cells);   // ws * 48 values: whole 32-byte blocks
            qOut.FreeTensor(g);
        }
          // every AIV has written its rows of the group (a mode-0 round), then each block's two tell
          // their AIC (mode 2), which works on the group while the AIVs go on to the next
          AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(1);
          AscendC::CrossCoreWaitFlag(1);
          AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);
        }
    }
    if ASCEND_IS_AIC {
        const uint32_t m16 = CeilDiv(co, 16), n16 = CeilDiv(ow, 16), kc = C2 / C0;
        AscendC::GlobalTensor<float> wGm, baGm, obGm, yGm;
        wGm.SetGlobalBuffer((__gm__ float *)wt, TAPS * co * C2);
        baGm.SetGlobalBuffer((__gm__ float *)biasA, co * C0);
        obGm.SetGlobalBuffer((__gm__ float *)onesB, ow * C0);
        yGm.SetGlobalBuffer((__gm__ float *)y, n * co * oh * ow);
        AscendC::TPipe pipe;
        AscendC::TQue<AscendC::TPosition::A1, 1> qW;
        AscendC::TQue<AscendC::TPosition::B1, 8> qB1;
        AscendC::TQue<AscendC::TPosition::A2, 2> qA2;
        AscendC::TQue<AscendC::TPosition::B2, 2> qB2;
        AscendC::TQue<AscendC::TPosition::CO1, 2> qC;
        const uint32_t aTap = m16 * 16 * C2, bTile = n16 * 16 * C2;
        pipe.InitBuffer(qW, 1, (TAPS * aTap + m16 * 16 * C0 + n16 * 16 * C0) * sizeof(float));
        pipe.InitBuffer(qB1, 8, bTile * sizeof(float));   // deep: each copy waits out the GM latency
        pipe.InitBuffer(qA2, 2, aTap * sizeof(float));
        pipe.InitBuffer(qB2, 2, bTile * sizeof(float));
        pipe.InitBuffer(qC, 2, m16 * n16 * 256 * sizeof(float));
        // the weights of every tap, the bias matrix and the ones: L1, once (ND -> NZ)
        AscendC::LocalTensor<float> w1 = qW.AllocTensor<float>();
        // A as Zz (an NZ matrix per 16 rows, one after the other: co is a multiple of 16), which is L0A's
        // ZZ order, so one LoadData moves a tap's whole A
        for (uint32_t t = 0; t < TAPS; ++t)
            AscendC::DataCopy(w1[t * aTap], wGm[t * co * C2],
                              AscendC::Nd2NzParams{static_cast<uint16_t>(m16), 16, C2, 16 * C2, C2, 16, 1, 16 * C2});
        AscendC::LocalTensor<float> ba1 = w1[TAPS * aTap], ob1 = ba1[m16 * 16 * C0];
        AscendC::DataCopy(ba1, baGm, AscendC::Nd2NzParams{static_cast<uint16_t>(m16), 16, C0, 16 * C0, C0, 16, 1, 16 * C0});
        AscendC::DataCopy(ob1, obGm, AscendC::Nd2NzParams{1, static_cast<uint16_t>(ow), C0, 0, C0,
                                                          static_cast<uint16_t>(n16 * 16), 1, 0});
        qW.EnQue(w1);
        w1 = qW.DeQue<float>();
        for (uint32_t g0 = 0; g0 < n; g0 += group) {
          const uint32_t g1 = g0 + group < n ? g0 + group : n;
          AscendC::CrossCoreWaitFlag(0);   // every AIV has written the group's xs rows
          // each AIC a run of consecutive output rows of the group: the xs rows a tile reads again are
          // in its L2 share
          const uint32_t tiles = (g1 - g0) * oh, per = tiles / AscendC::GetBlockNum(), extra = tiles % AscendC::GetBlockNum();
          const uint32_t me = AscendC::GetBlockIdx(), lo = g0 * oh + me * per + (me < extra ? me : extra);
          const uint32_t hi = lo + per + (me < extra ? 1 : 0);
          for (uint32_t tile = lo; tile < hi; ++tile) {
            const uint32_t img = tile / oh, r = tile % oh;
            AscendC::LocalTensor<float> c = qC.AllocTensor<float>();
            for (uint32_t t = 0; t <= TAPS; ++t) {   // t == TAPS: the bias product
                const bool bias = t == TAPS;
                const uint32_t k = bias ? C0 : C2, kcC = k / C0;
                AscendC::LocalTensor<float> b2 = qB2.AllocTensor<float>();
                AscendC::LocalTensor<float> a2 = qA2.AllocTensor<float>();
                AscendC::LocalTensor<float> aSrc = bias ? ba1 : w1[t * aTap];
                AscendC::LocalTensor<float> bSrc = ob1;
                AscendC::LocalTensor<float> b1;
                if (!bias) {   // B_tap^T = xs[img, r + kh', kw':kw' + ow, :]: [ow x 48], rows 48 apart
                    b1 = qB1.AllocTensor<float>();
                    const uint32_t at = ((img * hs + r + t / KT) * ws + t % KT) * C2;
                    AscendC::DataCopy(b1, xsGm[at], AscendC::Nd2NzParams{1, static_cast<uint16_t>(ow), C2, 0, C2,
                                                                         static_cast<uint16_t>(n16 * 16), 1, 0});
                    qB1.EnQue(b1);
                    b1 = qB1.DeQue<float>();
                    bSrc = b1;
                }
                // Zz -> ZZ and NZ (n x k) -> ZN are both the fractals in order: one LoadData each
                AscendC::LoadData(a2, aSrc, AscendC::LoadData2DParams{0, static_cast<uint8_t>(m16 * kcC), 1, 0, 0, false, 0});
                AscendC::LoadData(b2, bSrc, AscendC::LoadData2DParams{0, static_cast<uint8_t>(kcC * n16), 1, 0, 0, false, 0});
                if (!bias) qB1.FreeTensor(b1);
                qA2.EnQue(a2);
                qB2.EnQue(b2);
                a2 = qA2.DeQue<float>();
                b2 = qB2.DeQue<float>();
                AscendC::Mmad(c, a2, b2, AscendC::MmadParams{static_cast<uint16_t>(co), static_cast<uint16_t>(ow),
                                                             static_cast<uint16_t>(k), 0, false, t == 0});
                qA2.FreeTensor(a2);
                qB2.FreeTensor(b2);
            }
            qC.EnQue(c);
            c = qC.DeQue<float>();
            AscendC::Fixpipe(yGm[img * co * oh * ow + r * ow], c,
                             AscendC::FixpipeParamsV220{static_cast<uint16_t>(ow), static_cast<uint16_t>(co),
                                                        static_cast<uint16_t>(m16 * 16), oh * ow, false, NoQuant, 0, 1, 0,
                                                        0, 0});
            qC.FreeTensor(c);
          }
        }
        qW.FreeTensor(w1);
    }
}
