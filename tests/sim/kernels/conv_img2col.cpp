// A 2-D convolution as an implicit GEMM on the cube unit (Atlas A2), with LoadData 3-D (img2col) building the
// A tile in L0A straight from the feature map in L1; and its weight gradient through the L0B form.
// Layouts (the host prepares them; C and cout are multiples of 16, one image):
//   x  the input feature map already in NC1HWC0 ([C/16, H, W, 16]; the host reshapes NCHW),
//   w  the weights as a [cout x K] ND matrix, K = C*KH*KW in img2col order (c1, kh, kw, c0),
//   y  float [Ho*Wo x cout], a row per output pixel.
#include "kernel_operator.h"

// Planted bugs, chosen by the kernel's `bug` argument (one build for all).
enum Bug : int32_t { NONE = 0, KSTART_PAST_END, KSTART_UNALIGNED, DST_ALIGN, SHORT_FMAP, NO_RESET_CONFIG };
constexpr AscendC::IsResetLoad3dConfig KEEP_REGS = {false, false};  // FMATRIX / padding from SetFmatrix & co.

// One img2col window of the feature map: rows [m0, m0 + mc) (output pixels), columns [k0, k0 + kc).
template <typename T>
__aicore__ inline AscendC::LoadData3DParamsV2<T> Img2colParams(uint32_t c, uint32_t h, uint32_t wd, uint32_t kh,
                                                                uint32_t kw, uint32_t strideH, uint32_t strideW,
                                                                uint32_t dilH, uint32_t dilW, const uint8_t pads[4],
                                                                uint32_t m0, uint32_t mc, uint32_t k0, uint32_t kc)
{
    AscendC::LoadData3DParamsV2<T> p;
    for (int i = 0; i < 4; ++i) p.padList[i] = pads[i];  // left, right, top, bottom
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
    return p;
}

// Each block takes tiles of tileM (a multiple of 16) output pixels; K goes in two LoadData/Mmad steps, the second
// from kStartPt = kSplit, accumulated in L0C. C*KH*KW must hold at least two fractal columns (32).
template <typename T>
__global__ __aicore__ void conv_img2col(GM_ADDR x, GM_ADDR w, GM_ADDR y, uint32_t c, uint32_t h, uint32_t wd,
                                        uint32_t cout, uint32_t kh, uint32_t kw, uint32_t strideH, uint32_t strideW,
                                        uint32_t dilH, uint32_t dilW, uint32_t padL, uint32_t padR, uint32_t padT,
                                        uint32_t padB, float padValue, uint32_t tileM, int32_t bug)
{
    const uint32_t ho = (h + padT + padB - (kh - 1) * dilH - 1) / strideH + 1;
    const uint32_t wo = (wd + padL + padR - (kw - 1) * dilW - 1) / strideW + 1;
    const uint32_t pixels = ho * wo, k = c * kh * kw, kSplit = k / 32 * 16;
    const uint8_t pads[4] = {static_cast<uint8_t>(padL), static_cast<uint8_t>(padR), static_cast<uint8_t>(padT),
                             static_cast<uint8_t>(padB)};
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::A1, 1> qX;
    AscendC::TQue<AscendC::TPosition::B1, 1> qW;
    AscendC::TQue<AscendC::TPosition::A2, 1> qA;
    AscendC::TQue<AscendC::TPosition::B2, 1> qB;
    AscendC::TQue<AscendC::TPosition::CO1, 1> qC;
    pipe.InitBuffer(qX, 1, c * h * wd * sizeof(T));
    pipe.InitBuffer(qW, 1, cout * k * sizeof(T));
    pipe.InitBuffer(qA, 2, tileM * k * sizeof(T));
    pipe.InitBuffer(qB, 1, k * cout * sizeof(T));
    pipe.InitBuffer(qC, 1, tileM * cout * sizeof(float));
    AscendC::GlobalTensor<T> xGm, wGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x, c * h * wd);
    wGm.SetGlobalBuffer((__gm__ T *)w, cout * k);
    yGm.SetGlobalBuffer((__gm__ float *)y, pixels * cout);

    // the feature map and the weights into L1 (weights ND -> NZ), the weights on into L0B (ZN) once
    AscendC::LocalTensor<T> x1 = qX.AllocTensor<T>();
    // SHORT_FMAP: only the first channel group reaches L1
    AscendC::DataCopy(x1, xGm, (bug == SHORT_FMAP ? 16 : c) * h * wd);
    qX.EnQue(x1);
    AscendC::LocalTensor<T> w1 = qW.AllocTensor<T>();
    AscendC::DataCopy(w1, wGm, AscendC::Nd2NzParams{1, static_cast<uint16_t>(cout), static_cast<uint16_t>(k), 0,
                                                    static_cast<uint16_t>(k), static_cast<uint16_t>(cout), 1, 0});
    qW.EnQue(w1);
    x1 = qX.DeQue<T>();
    w1 = qW.DeQue<T>();
    AscendC::LocalTensor<T> b2 = qB.AllocTensor<T>();
    for (uint32_t kb = 0; kb < k / 16; ++kb) {  // L1 NZ fractal (n, k) is L0B fractal k * cout/16 + n
        AscendC::LoadData(b2[kb * cout * 16], w1[kb * cout * 16],
                          AscendC::LoadData2DParams{0, static_cast<uint8_t>(cout / 16), 1, 0, 0, false, 0});
    }
    qB.EnQue(b2);
    b2 = qB.DeQue<T>();

    for (uint32_t m0 = AscendC::GetBlockIdx() * tileM; m0 < pixels; m0 += AscendC::GetBlockNum() * tileM) {
        const uint32_t mc = pixels - m0 < tileM ? pixels - m0 : tileM;  // the last tile may be partial
        AscendC::LocalTensor<float> cl = qC.AllocTensor<float>();
        for (uint32_t step = 0; step < 2; ++step) {
            const uint32_t k0 = step == 0 ? 0 : kSplit, kc = step == 0 ? kSplit : k - kSplit;
            AscendC::LoadData3DParamsV2<T> p =
                Img2colParams<T>(c, h, wd, kh, kw, strideH, strideW, dilH, dilW, pads, m0, mc, k0, kc);
            p.padValue = static_cast<T>(padValue);
            if (bug == KSTART_PAST_END && step == 1) p.kStartPt += 16;  // one fractal too far: past K
            if (bug == KSTART_UNALIGNED && step == 1) p.kStartPt -= 8;  // half a fractal: not a whole C0 column
            AscendC::LocalTensor<T> a2 = qA.AllocTensor<T>();
            if (bug == DST_ALIGN) a2 = a2[128];  // 256 bytes in: an L0A destination must be 512-byte aligned
            if (bug == NO_RESET_CONFIG) AscendC::LoadData<T, KEEP_REGS>(a2, x1, p);
            else AscendC::LoadData(a2, x1, p);
            qA.EnQue(a2);
            a2 = qA.DeQue<T>();
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

// The weight gradient, through LoadData 3-D into L0B: dW[cout x K] = dY[cout x P] * img2col(x)[P x K], P = Ho*Wo
// the reduction axis in steps of tileP pixels (accumulated in L0C), K in the order of w above. TRANS computes
// dW^T[K x cout] = img2col(x)^T * dY^T instead, with img2col(x)^T from LoadData 3-D into L0A (enTranspose).
// dy: [cout x P16] ND, the pixel axis zero-padded to a multiple of 16 by the host (whole fractals for LoadData 2-D).
template <typename T, bool TRANS>
__global__ __aicore__ void conv_dw(GM_ADDR x, GM_ADDR dy, GM_ADDR dw, uint32_t c, uint32_t h, uint32_t wd,
                                   uint32_t cout, uint32_t kh, uint32_t kw, uint32_t strideH, uint32_t strideW,
                                   uint32_t dilH, uint32_t dilW, uint32_t padL, uint32_t padR, uint32_t padT,
                                   uint32_t padB, uint32_t tileP)
{
    const uint32_t ho = (h + padT + padB - (kh - 1) * dilH - 1) / strideH + 1;
    const uint32_t wo = (wd + padL + padR - (kw - 1) * dilW - 1) / strideW + 1;
    const uint32_t pixels = ho * wo, p16 = (pixels + 15) / 16 * 16, k = c * kh * kw, n16 = cout / 16;
    const uint8_t pads[4] = {static_cast<uint8_t>(padL), static_cast<uint8_t>(padR), static_cast<uint8_t>(padT),
                             static_cast<uint8_t>(padB)};
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::A1, 1> qX;
    AscendC::TQue<AscendC::TPosition::B1, 1> qD;
    AscendC::TQue<AscendC::TPosition::A2, 1> qA;
    AscendC::TQue<AscendC::TPosition::B2, 1> qB;
    AscendC::TQue<AscendC::TPosition::CO1, 1> qC;
    pipe.InitBuffer(qX, 1, c * h * wd * sizeof(T));
    pipe.InitBuffer(qD, 1, cout * p16 * sizeof(T));
    pipe.InitBuffer(qA, 1, tileP * (TRANS ? k : cout) * sizeof(T));
    pipe.InitBuffer(qB, 1, tileP * (TRANS ? cout : k) * sizeof(T));
    pipe.InitBuffer(qC, 1, k * cout * sizeof(float));
    AscendC::GlobalTensor<T> xGm, dyGm;
    AscendC::GlobalTensor<float> dwGm;
    xGm.SetGlobalBuffer((__gm__ T *)x, c * h * wd);
    dyGm.SetGlobalBuffer((__gm__ T *)dy, cout * p16);
    dwGm.SetGlobalBuffer((__gm__ float *)dw, k * cout);

    AscendC::LocalTensor<T> x1 = qX.AllocTensor<T>();
    AscendC::DataCopy(x1, xGm, c * h * wd);
    qX.EnQue(x1);
    AscendC::LocalTensor<T> d1 = qD.AllocTensor<T>();  // dY in NZ: fractal (n, p) at (p * n16 + n) * 256
    AscendC::DataCopy(d1, dyGm, AscendC::Nd2NzParams{1, static_cast<uint16_t>(cout), static_cast<uint16_t>(p16), 0,
                                                     static_cast<uint16_t>(p16), static_cast<uint16_t>(cout), 1, 0});
    qD.EnQue(d1);
    x1 = qX.DeQue<T>();
    d1 = qD.DeQue<T>();
    AscendC::LocalTensor<float> cl = qC.AllocTensor<float>();
    for (uint32_t p0 = 0; p0 < pixels; p0 += tileP) {
        const uint32_t pc = pixels - p0 < tileP ? pixels - p0 : tileP, pc16 = (pc + 15) / 16;
        AscendC::LoadData3DParamsV2<T> p =
            Img2colParams<T>(c, h, wd, kh, kw, strideH, strideW, dilH, dilW, pads, p0, pc, 0, k);
        AscendC::LocalTensor<T> a2 = qA.AllocTensor<T>();
        AscendC::LocalTensor<T> b2 = qB.AllocTensor<T>();
        // the last pixel tile's K padding (pixels past pc), which img2col does not write and the cube multiplies
        // (it reads whole fractals): zeros first (Fill, on MTE1 before the loads)
        AscendC::Fill(a2, AscendC::InitConstValueParams<T>{1, static_cast<uint16_t>(tileP * (TRANS ? k : cout) * sizeof(T) / 512),
                                                           0, static_cast<T>(0)});
        AscendC::Fill(b2, AscendC::InitConstValueParams<T>{1, static_cast<uint16_t>(tileP * (TRANS ? cout : k) * sizeof(T) / 512),
                                                           0, static_cast<T>(0)});
        if constexpr (TRANS) {
            p.enTranspose = true;
            AscendC::LoadData(a2, x1, p);  // A = img2col^T [K x pc]
            AscendC::LoadData(b2, d1[p0 * cout], AscendC::LoadData2DParams{0, static_cast<uint8_t>(pc16 * n16), 1, 0, 0,
                                                                          false, 0});  // B = dY^T [pc x cout]
        } else {
            for (uint32_t nb = 0; nb < n16; ++nb) {  // A = dY [cout x pc], ZZ
                AscendC::LoadData(a2[nb * pc16 * 256], d1[p0 * cout + nb * 256],
                                  AscendC::LoadData2DParams{0, static_cast<uint8_t>(pc16), static_cast<uint16_t>(n16), 0,
                                                            0, false, 0});
            }
            AscendC::LoadData(b2, x1, p);  // B = img2col [pc x K]
        }
        qA.EnQue(a2);
        qB.EnQue(b2);
        a2 = qA.DeQue<T>();
        b2 = qB.DeQue<T>();
        const uint16_t mm = TRANS ? k : cout, nn = TRANS ? cout : k;
        AscendC::Mmad(cl, a2, b2, AscendC::MmadParams{mm, nn, static_cast<uint16_t>(pc), 0, false, p0 == 0});
        qA.FreeTensor(a2);
        qB.FreeTensor(b2);
    }
    qC.EnQue(cl);
    cl = qC.DeQue<float>();
    const uint16_t rows = TRANS ? k : cout, cols = TRANS ? cout : k;
    AscendC::Fixpipe(dwGm, cl, AscendC::FixpipeParamsV220{cols, rows, rows, cols, false, NoQuant, 0, 1, 0, 0, 0});
    qC.FreeTensor(cl);
    qX.FreeTensor(x1);
    qD.FreeTensor(d1);
}
