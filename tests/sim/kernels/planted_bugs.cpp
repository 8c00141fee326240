// One small vector kernel; each BUG_* macro plants exactly one hardware-rule violation.
// Built once per bug by tests/sim/test_rules.py; with no BUG_* defined it is correct.
#include "kernel_operator.h"

constexpr int32_t TILE = 256;  // floats per tile (1 KiB)

extern "C" __global__ __aicore__ void planted(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tiles)
{
    AscendC::TPipe pipe;
#ifdef BUG_SECOND_TPIPE
    AscendC::TPipe pipe2;
#endif
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inX, inY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLen = TILE * tiles;
    xGm.SetGlobalBuffer((__gm__ float*)x + blockLen * AscendC::GetBlockIdx(), blockLen);
    yGm.SetGlobalBuffer((__gm__ float*)y + blockLen * AscendC::GetBlockIdx(), blockLen);
    zGm.SetGlobalBuffer((__gm__ float*)z + blockLen * AscendC::GetBlockIdx(), blockLen);
#ifdef BUG_UB_CAPACITY
    pipe.InitBuffer(inX, 2, 40000 * sizeof(float));  // 2 x 160 KB > 192 KB of UB
#else
    pipe.InitBuffer(inX, 2, TILE * sizeof(float));
#endif
    pipe.InitBuffer(inY, 2, TILE * sizeof(float));
    pipe.InitBuffer(outZ, 2, TILE * sizeof(float));
#ifdef BUG_BUFFERS_PER_POSITION
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> extra1, extra2, extra3;
    pipe.InitBuffer(extra1, 2, 64);
    pipe.InitBuffer(extra2, 2, 64);
    pipe.InitBuffer(extra3, 2, 64);  // 10 VECIN buffers > 8
#endif
#ifdef BUG_L1_CAPACITY
    AscendC::TQue<AscendC::TPosition::A1, 1> l1Queue;
    pipe.InitBuffer(l1Queue, 2, 600 * 1024);  // 1200 KB: more than twice the 512 KB of L1 fails at once
#endif
#ifdef BUG_MAX_BUFFERS
    AscendC::TBuf<AscendC::TPosition::VECCALC> scratch[62];
    for (int i = 0; i < 62; ++i) pipe.InitBuffer(scratch[i], 32);  // 6 + 62 = 68 buffers > 64
#endif
    for (uint32_t t = 0; t < tiles; ++t) {
        AscendC::LocalTensor<float> xl = inX.AllocTensor<float>();
        AscendC::LocalTensor<float> yl = inY.AllocTensor<float>();
#ifdef BUG_ALLOC_NO_BUFFER
        AscendC::LocalTensor<float> x2 = inX.AllocTensor<float>();
        AscendC::LocalTensor<float> x3 = inX.AllocTensor<float>();  // third live buffer of a num=2 queue
        (void)x2;
        (void)x3;
#endif
#ifdef BUG_DATACOPY_ALIGN
        AscendC::DataCopy(xl, xGm[t * TILE], TILE - 2);  // 1016 bytes: not a 32-byte multiple
#else
        AscendC::DataCopy(xl, xGm[t * TILE], TILE);
#endif
#ifdef BUG_GM_BOUNDS
        AscendC::DataCopy(yl, yGm[t * TILE + TILE * tiles * AscendC::GetBlockNum()], TILE);  // past the end of y
#elif defined(BUG_UNINIT_READ)
        // yl is never filled
#else
        AscendC::DataCopy(yl, yGm[t * TILE], TILE);
#endif
        inX.EnQue(xl);
        inY.EnQue(yl);
#ifdef BUG_ENQUE_FULL
        AscendC::LocalTensor<float> x4 = inX.AllocTensor<float>();
        AscendC::DataCopy(x4, xGm[t * TILE], TILE);
        inX.EnQue(x4);
        AscendC::TQue<AscendC::QuePosition::VECIN, 1> one;
        pipe.InitBuffer(one, 2, 64);
        AscendC::LocalTensor<float> o1 = one.AllocTensor<float>();
        AscendC::LocalTensor<float> o2 = one.AllocTensor<float>();
        one.EnQue(o1);
        one.EnQue(o2);  // depth 1: second EnQue without DeQue
#endif
#ifdef BUG_DEQUE_EMPTY
        AscendC::LocalTensor<float> xd0 = inX.DeQue<float>();
        inX.FreeTensor(xd0);
#endif
        AscendC::LocalTensor<float> xd = inX.DeQue<float>();
        AscendC::LocalTensor<float> yd = inY.DeQue<float>();
        AscendC::LocalTensor<float> zl = outZ.AllocTensor<float>();  // output tile
#ifdef BUG_COMPARE_256
        AscendC::TBuf<AscendC::TPosition::VECCALC> maskBuf;
        pipe.InitBuffer(maskBuf, 256);
        AscendC::LocalTensor<uint8_t> cmpMask = maskBuf.Get<uint8_t>();
        AscendC::Compare(cmpMask, xd, yd, AscendC::CMPMODE::LT, TILE - 8);  // 992 bytes: not a 256-byte multiple
#endif
#ifdef BUG_BF16_ARITH
        AscendC::LocalTensor<bfloat16_t> xb = xd.ReinterpretCast<bfloat16_t>();
        AscendC::Muls(xb, xb, static_cast<bfloat16_t>(2.0f), 16);  // no bf16 arithmetic on A2
#endif
#ifdef BUG_SYNC_UNPAIRED
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);  // no SetFlag before it
#endif
#ifdef BUG_UB_ALIGN
        AscendC::Add(zl, xd[3], yd[3], TILE - 8);  // xd[3] starts 12 bytes into the buffer
#elif defined(BUG_USE_AFTER_FREE)
        inX.FreeTensor(xd);
        AscendC::LocalTensor<float> x6 = inX.AllocTensor<float>();   // the queue's other buffer
        AscendC::LocalTensor<float> x7 = inX.AllocTensor<float>();   // xd's buffer, handed out again
        (void)x6;
        (void)x7;
        AscendC::Add(zl, xd, yd, TILE);  // reads a freed tensor
#elif defined(READ_AFTER_FREE)
        inX.FreeTensor(xd);
        AscendC::Add(zl, xd, yd, TILE);  // a freed tensor the queue has not handed out again
#elif defined(BUG_TENSOR_OVERFLOW)
        AscendC::Add(zl, xd, yd, 2 * TILE);  // count larger than the tensors
#else
        AscendC::Add(zl, xd, yd, TILE);  // the correct Add
#endif
        outZ.EnQue(zl);
#if !defined(BUG_USE_AFTER_FREE) && !defined(READ_AFTER_FREE)
        inX.FreeTensor(xd);  // free input
#endif
        inY.FreeTensor(yd);
        AscendC::LocalTensor<float> zo = outZ.DeQue<float>();
        AscendC::DataCopy(zGm[t * TILE], zo, TILE);
#ifndef BUG_NOT_FREED
        outZ.FreeTensor(zo);
#else
        if (t + 1 < tiles) outZ.FreeTensor(zo);  // the last output tensor is never freed
#endif
    }
}
