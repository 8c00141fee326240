// A float 2-D convolution as an implicit GEMM on the cube unit (Atlas A2): LoadData 3-D (img2col) builds the A tile
// in L0A from the feature map in L1; the weights reach L0B already transposed (w is [cout x K], ND -> NZ, LoadData2D
// without transpose). For float C0 = 8 (32 bytes), so the host prepares (C and K multiples of 8, cout of 16):
//   x  the feature map in NC1HWC0 with C0 = 8 ([C/8, H, W, 8]),
//   w  the weights as a [cout x K] ND matrix, K = C*KH*KW in img2col order (c1, kh, kw, c0),
//   y  float [Ho*Wo x cout], a row per output pixel.
#include "kernel_operator.h"

// Each block takes tiles of tileM (a multiple of 16) output pixels; K goes in two LoadData/Mmad steps, the second
// from kStartPt = kSplit (a multiple of 8), accumulated in L0C.
__global__ __aicore__ void conv_img2col_f32(GM_ADDR x, GM_ADDR w, GM_ADDR y, uint32_t c, uint32_t h, uint32_t wd,
                                            uint32_t cout, uint32_t kh, uint32_t kw, uint32_t strideH, uint32_t strideW,
                                            uint32_t dilH, uint32_t dilW, uint32_t padL, uint32_t padR, uint32_t padT,
                                            uint32_t padB, float padValue, uint32_t tileM)
{
    constexpr uint32_t C0 = 8, FRAC = 128;
    const uint32_t ho = (h + padT + padB - (kh - 1) * dilH - 1) / strideH + 1;
    const uint32_t wo = (wd + padL + padR - (kw - 1) * dilW - 1) / strideW + 1;
    const uint32_t pixels = ho * wo, k = c * kh * kw, kSplit = k / 16 * C0, n16 = cout / 16;
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::A1, 1> qX;
    AscendC::TQue<AscendC::TPosition::B1, 1> qW;
    AscendC::TQue<AscendC::TPosition::A2, 2> qA;
    AscendC::TQue<AscendC::TPosition::B2, 1> qB;
    AscendC::TQue<AscendC::TPosition::CO1, 1> qC;
    pipe.InitBuffer(qX, 1, c * h * wd * sizeof(float));
    pipe.InitBuffer(qW, 1, cout * k * sizeof(float));
    pipe.InitBuffer(qA, 2, tileM * k * sizeof(float));
    pipe.InitBuffer(qB, 1, k * cout * sizeof(float));
    pipe.InitBuffer(qC, 1, tileM * cout * sizeof(float));
    AscendC::GlobalTensor<float> xGm, wGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, c * h * wd);
    wGm.SetGlobalBuffer((__gm__ float *)w, cout * k);
    yGm.SetGlobalBuffer((__gm__ float *)y, pixels * cout);

    AscendC::LocalTensor<float> x1 = qX.AllocTensor<float>();
    AscendC::DataCopy(x1, xGm, c * h * wd);
    qX.EnQue(x1);
    AscendC::LocalTensor<float> w1 = qW.AllocTensor<float>();
    AscendC::DataCopy(w1, wGm, AscendC::Nd2NzParams{1, static_cast<uint16_t>(cout), static_cast<uint16_t>(k), 0,
                                                    static_cast<uint16_t>(k), static_cast<uint16_t>(cout), 1, 0});
    qW.EnQue(w1);
    x1 = qX.DeQue<float>();
    w1 = qW.DeQue<float>();
    AscendC::LocalTensor<float> b2 = qB.AllocTensor<float>();
    for (uint32_t kb = 0; kb < k / C0; ++kb) {  // L1 NZ fractal (n, k) is L0B fractal k * cout/16 + n
        AscendC::LoadData(b2[kb * n16 * FRAC], w1[kb * n16 * FRAC],
                          AscendC::LoadData2DParams{0, static_cast<uint8_t>(n16), 1, 0, 0, false, 0});
    }
    qB.EnQue(b2);
    b2 = qB.DeQue<float>();

    for (uint32_t m0 = AscendC::GetBlockIdx() * tileM; m0 < pixels; m0 += AscendC::GetBlockNum() * tileM) {
        const uint32_t mc = pixels - m0 < tileM ? pixels - m0 : tileM;  // the last tile may be partial
        AscendC::LocalTensor<float> cl = qC.AllocTensor<float>();
        for (uint32_t step = 0; step < 2; ++step) {
            const uint32_t k0 = step == 0 ? 0 : kSplit, kc = step == 0 ? kSplit : k - kSplit;
            AscendC::LoadData3DParamsV2<float> p;
            const uint32_t pads[4] = {padL, padR, padT, padB};
            for (int i = 0; i < 4; ++i) p.padList[i] = static_cast<uint8_t>(pads[i]);
            p.l1H = h;
            p.l1W = wd;
            p.channelSize = c;
            p.mStartPt = m0;
            p.mExtension = mc;
            p.kStartPt = k0;
            p.kExtension = kc;
            p.strideH = strideH;
            p.strideW = strideW;
            p.filterH = kh;
            p.filterW = kw;
            p.dilationFilterH = dilH;
            p.dilationFilterW = dilW;
            p.padValue = padValue;
            AscendC::LocalTensor<float> a2 = qA.AllocTensor<float>();
#ifdef BUG_TRANSPOSE
            p.enTranspose = true;  // the float transposing form is not simulated
#endif
#ifdef BUG_KSTART_HALF
            if (step == 1) p.kStartPt -= 4;  // half a float C0 group
#endif
            AscendC::LoadData(a2, x1, p);
            qA.EnQue(a2);
            a2 = qA.DeQue<float>();
            AscendC::Mmad(cl, a2, b2[k0 * cout], AscendC::MmadParams{static_cast<uint16_t>(mc), static_cast<uint16_t>(cout),
                                                                      static_cast<uint16_t>(kc), 0, false, step == 0});
            qA.FreeTensor(a2);
        }
        qC.EnQue(cl);
        cl = qC.DeQue<float>();
        AscendC::Fixpipe(yGm[m0 * cout], cl, AscendC::FixpipeParamsV220{static_cast<uint16_t>(cout), static_cast<uint16_t>(mc),
                                                                        static_cast<uint16_t>((mc + 15) / 16 * 16), cout,
                                                                        false, NoQuant, 0, 1, 0, 0, 0});
        qC.FreeTensor(cl);
    }
    qX.FreeTensor(x1);
    qW.FreeTensor(w1);
    qB.FreeTensor(b2);
}
