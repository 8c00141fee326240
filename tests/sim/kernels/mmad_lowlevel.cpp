// The low-level cube path on A2: GM -> L1 (Nd2Nz) -> L0A/L0B (LoadData) -> Mmad -> Fixpipe -> GM.
// Two styles: explicit LocalMemAllocator + SetFlag/WaitFlag, and TQue positions A1/B1/A2/B2/CO1.
#include "kernel_operator.h"

constexpr uint32_t CUBE_BLOCK = 16;

template <uint32_t M, uint32_t K, uint32_t N, uint32_t singleCoreM, uint32_t baseM, uint32_t baseK, uint32_t baseN>
__global__ __cube__ void mmad_alloc(__gm__ uint8_t *a, __gm__ uint8_t *b, __gm__ uint8_t *c)
{
    AscendC::GlobalTensor<half> aGM, bGM, cGM;
    uint32_t mIter = AscendC::GetBlockIdx() % (M / singleCoreM);
    aGM.SetGlobalBuffer((__gm__ half *)a + mIter * singleCoreM * K);
    bGM.SetGlobalBuffer((__gm__ half *)b);
    cGM.SetGlobalBuffer((__gm__ half *)c + mIter * singleCoreM * N);
    AscendC::LocalMemAllocator<AscendC::Hardware::L1> l1;
    AscendC::LocalMemAllocator<AscendC::Hardware::L0A> l0a;
    AscendC::LocalMemAllocator<AscendC::Hardware::L0B> l0b;
    AscendC::LocalMemAllocator<AscendC::Hardware::L0C> l0c;
    AscendC::LocalTensor<half> a1 = l1.Alloc<AscendC::TPosition::A1, half>(baseM * baseK);
    AscendC::LocalTensor<half> b1 = l1.Alloc<AscendC::TPosition::B1, half>(baseK * baseN);
    AscendC::LocalTensor<half> a2 = l0a.Alloc<AscendC::TPosition::A2, half>(baseM * baseK);
    AscendC::LocalTensor<half> b2 = l0b.Alloc<AscendC::TPosition::B2, half>(baseK * baseN);
    AscendC::LocalTensor<float> c1 = l0c.Alloc<AscendC::TPosition::CO1, float>(baseM * baseN);
    AscendC::DataCopy(a1, aGM, AscendC::Nd2NzParams{1, baseM, baseK, 0, K, baseM, 1, 0});
    AscendC::DataCopy(b1, bGM, AscendC::Nd2NzParams{1, baseK, baseN, 0, N, baseK, 1, 0});
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE1>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE1>(EVENT_ID0);
    for (uint32_t i = 0; i < baseM / CUBE_BLOCK; ++i) {
        AscendC::LoadData(a2[i * baseK * CUBE_BLOCK], a1[i * 512 / sizeof(half)],
                          AscendC::LoadData2DParams{0, baseK / CUBE_BLOCK, baseM / CUBE_BLOCK, 0, 0, false, 0});
    }
    for (uint32_t i = 0; i < baseK / CUBE_BLOCK; ++i) {
        AscendC::LoadData(b2[i * baseN * CUBE_BLOCK], b1[i * 512 / sizeof(half)],
                          AscendC::LoadData2DParams{0, baseN / CUBE_BLOCK, baseK / CUBE_BLOCK, 0, 0, true, 0});
    }
    AscendC::SetFlag<AscendC::HardEvent::MTE1_M>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE1_M>(EVENT_ID0);
    AscendC::Mmad(c1, a2, b2, AscendC::MmadParams{baseM, baseN, baseK, 0, false, true});
    AscendC::SetFlag<AscendC::HardEvent::M_FIX>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::M_FIX>(EVENT_ID0);
    AscendC::Fixpipe(cGM, c1, AscendC::FixpipeParamsV220{baseN, baseM, baseM, N, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0});
    AscendC::PipeBarrier<PIPE_ALL>();
}

// TQue style, K split into two halves accumulated in L0C (cmatrixInitVal = false on the second).
extern "C" __global__ __aicore__ void mmad_queue(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t m, uint32_t k, uint32_t n)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::A1, 1> qA1;
    AscendC::TQue<AscendC::TPosition::B1, 1> qB1;
    AscendC::TQue<AscendC::TPosition::A2, 1> qA2;
    AscendC::TQue<AscendC::TPosition::B2, 1> qB2;
    AscendC::TQue<AscendC::TPosition::CO1, 1> qC;
    const uint32_t kh = k / 2;
    pipe.InitBuffer(qA1, 1, m * kh * sizeof(half));
    pipe.InitBuffer(qB1, 1, kh * n * sizeof(half));
    pipe.InitBuffer(qA2, 1, m * kh * sizeof(half));
    pipe.InitBuffer(qB2, 1, kh * n * sizeof(half));
    pipe.InitBuffer(qC, 1, m * n * sizeof(float));
    AscendC::GlobalTensor<half> aGM, bGM;
    AscendC::GlobalTensor<float> cGM;
    aGM.SetGlobalBuffer((__gm__ half *)a, m * k);
    bGM.SetGlobalBuffer((__gm__ half *)b, k * n);
    cGM.SetGlobalBuffer((__gm__ float *)c, m * n);
    AscendC::LocalTensor<float> cl = qC.AllocTensor<float>();
    for (uint32_t part = 0; part < 2; ++part) {
        AscendC::LocalTensor<half> a1 = qA1.AllocTensor<half>();
        AscendC::LocalTensor<half> b1 = qB1.AllocTensor<half>();
        AscendC::DataCopy(a1, aGM[part * kh], AscendC::Nd2NzParams{1, static_cast<uint16_t>(m), static_cast<uint16_t>(kh), 0,
                                                                   static_cast<uint16_t>(k), static_cast<uint16_t>(m), 1, 0});
        AscendC::DataCopy(b1, bGM[part * kh * n], AscendC::Nd2NzParams{1, static_cast<uint16_t>(kh), static_cast<uint16_t>(n), 0,
                                                                       static_cast<uint16_t>(n), static_cast<uint16_t>(kh), 1, 0});
        qA1.EnQue(a1);
        qB1.EnQue(b1);
        AscendC::LocalTensor<half> a1d = qA1.DeQue<half>();
        AscendC::LocalTensor<half> b1d = qB1.DeQue<half>();
        AscendC::LocalTensor<half> a2 = qA2.AllocTensor<half>();
        AscendC::LocalTensor<half> b2 = qB2.AllocTensor<half>();
        for (uint32_t i = 0; i < m / CUBE_BLOCK; ++i) {
            AscendC::LoadData(a2[i * kh * CUBE_BLOCK], a1d[i * 256],
                              AscendC::LoadData2DParams{0, static_cast<uint8_t>(kh / CUBE_BLOCK), static_cast<uint16_t>(m / CUBE_BLOCK), 0, 0, false, 0});
        }
#ifndef BUG_SKIP_B_LOAD
        for (uint32_t i = 0; i < kh / CUBE_BLOCK; ++i) {
#else
        for (uint32_t i = 0; i + 1 < kh / CUBE_BLOCK; ++i) {  // the last k-block of B never reaches L0B
#endif
            AscendC::LoadData(b2[i * n * CUBE_BLOCK], b1d[i * 256],
                              AscendC::LoadData2DParams{0, static_cast<uint8_t>(n / CUBE_BLOCK), static_cast<uint16_t>(kh / CUBE_BLOCK), 0, 0, true, 0});
        }
        qA1.FreeTensor(a1d);
        qB1.FreeTensor(b1d);
        qA2.EnQue(a2);
        qB2.EnQue(b2);
        AscendC::LocalTensor<half> a2d = qA2.DeQue<half>();
        AscendC::LocalTensor<half> b2d = qB2.DeQue<half>();
        AscendC::Mmad(cl, a2d, b2d, AscendC::MmadParams{static_cast<uint16_t>(m), static_cast<uint16_t>(n),
                                                         static_cast<uint16_t>(kh), 0, false, part == 0});  // Mmad call
        qA2.FreeTensor(a2d);
        qB2.FreeTensor(b2d);
    }
    qC.EnQue(cl);
    AscendC::LocalTensor<float> cd = qC.DeQue<float>();
    AscendC::Fixpipe(cGM, cd, AscendC::FixpipeParamsV220{static_cast<uint16_t>(n), static_cast<uint16_t>(m),
                                                         static_cast<uint16_t>(m), n, false, NoQuant, 0, 1, 0, 0, 0});
    qC.FreeTensor(cd);
}
