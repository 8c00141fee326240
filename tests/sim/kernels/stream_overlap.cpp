// A stream y = gelu(x) (tanh approximation) over 16 KiB tiles, with enough vector work per tile
// (seven instructions, two of them transcendental) that compute takes about as long as the
// copy-in. Three variants of the same correct kernel; define exactly one of:
//
//   PREFETCH_DEQUE_AT_USE     depth-2 queues; tile i+1's copy-in is issued before tile i's
//                             compute, and tile i is DeQue'd right before the compute that uses
//                             it: MTE2 copies tile i+1 while V computes tile i
//   PREFETCH_DEQUE_IMMEDIATE  the same prefetch order, but each tile is DeQue'd right after its
//                             EnQue: V waits for tile i+1's copy before it computes tile i, so
//                             copy and compute are serialised again
//   SINGLE_BUFFER             depth-1 queues with one buffer each, no prefetch
//
// Used by tests/sim/test_events.py (modelled time of the three variants).
#include "kernel_operator.h"

#if defined(PREFETCH_DEQUE_AT_USE) + defined(PREFETCH_DEQUE_IMMEDIATE) + defined(SINGLE_BUFFER) != 1
#error "define exactly one of PREFETCH_DEQUE_AT_USE, PREFETCH_DEQUE_IMMEDIATE, SINGLE_BUFFER"
#endif

constexpr int32_t TILE = 4096;  // floats per tile (16 KiB)
#ifdef SINGLE_BUFFER
constexpr int32_t BUFS = 1;
#else
constexpr int32_t BUFS = 2;
#endif

// gelu(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3)
//         = x / (1 + exp(-2u)),   -2u = x (A + B x^2)
constexpr float GELU_A = -1.5957691216057308f;   // -2 sqrt(2/pi)
constexpr float GELU_B = -0.07135481627159904f;  // -2 sqrt(2/pi) * 0.044715

class KernelStream {
public:
    __aicore__ inline KernelStream() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t tiles)
    {
        this->tiles = tiles;
        uint32_t blockLen = TILE * tiles;
        xGm.SetGlobalBuffer((__gm__ float *)x + blockLen * AscendC::GetBlockIdx(), blockLen);
        yGm.SetGlobalBuffer((__gm__ float *)y + blockLen * AscendC::GetBlockIdx(), blockLen);
        pipe.InitBuffer(inQueue, BUFS, TILE * sizeof(float));
        pipe.InitBuffer(outQueue, BUFS, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (tiles == 0) return;
#ifdef SINGLE_BUFFER
        for (uint32_t i = 0; i < tiles; ++i) {
            CopyIn(i);
            AscendC::LocalTensor<float> xLocal = inQueue.DeQue<float>();
            Compute(xLocal);
            CopyOut(i);
        }
#else
        CopyIn(0);
        AscendC::LocalTensor<float> xLocal;
#ifdef PREFETCH_DEQUE_IMMEDIATE
        xLocal = inQueue.DeQue<float>();
#endif
        for (uint32_t i = 0; i < tiles; ++i) {
#ifdef PREFETCH_DEQUE_IMMEDIATE
            AscendC::LocalTensor<float> next;
#endif
            if (i + 1 < tiles) {
                CopyIn(i + 1);  // prefetch: issued before tile i's compute
#ifdef PREFETCH_DEQUE_IMMEDIATE
                next = inQueue.DeQue<float>();  // V now waits for tile i+1's copy
#endif
            }
#ifdef PREFETCH_DEQUE_AT_USE
            xLocal = inQueue.DeQue<float>();  // V waits only for tile i's copy
#endif
            Compute(xLocal);
            CopyOut(i);
#ifdef PREFETCH_DEQUE_IMMEDIATE
            xLocal = next;
#endif
        }
#endif
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[i * TILE], TILE);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(AscendC::LocalTensor<float>& xLocal)
    {
        AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        AscendC::Mul(yLocal, xLocal, xLocal, TILE);       // x^2
        AscendC::Muls(yLocal, yLocal, GELU_B, TILE);      // B x^2
        AscendC::Adds(yLocal, yLocal, GELU_A, TILE);      // A + B x^2
        AscendC::Mul(yLocal, yLocal, xLocal, TILE);       // -2u
        AscendC::Exp(yLocal, yLocal, TILE);               // exp(-2u)
        AscendC::Adds(yLocal, yLocal, 1.0f, TILE);        // 1 + exp(-2u)
        AscendC::Div(yLocal, xLocal, yLocal, TILE);       // x / (1 + exp(-2u))
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        AscendC::LocalTensor<float> yLocal = outQueue.DeQue<float>();
        AscendC::DataCopy(yGm[i * TILE], yLocal, TILE);
        outQueue.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFS> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFS> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t tiles = 0;
};

extern "C" __global__ __aicore__ void stream_overlap(GM_ADDR x, GM_ADDR y, uint32_t tiles)
{
    KernelStream op;
    op.Init(x, y, tiles);
    op.Process();
}
