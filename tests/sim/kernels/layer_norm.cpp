// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + eps) * gamma + beta.
#include "kernel_operator.h"

class KernelLayerNorm {
public:
    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rowsPerCore,
                                uint32_t cols, float eps)
    {
        this->rows = rowsPerCore;
        this->cols = cols;
        this->eps = eps;
        uint64_t base = static_cast<uint64_t>(rowsPerCore) * cols * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + base, rowsPerCore * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + base, rowsPerCore * cols);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ float *)beta, cols);
        pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(outQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(gammaBuf, cols * sizeof(float));
        pipe.InitBuffer(betaBuf, cols * sizeof(float));
        pipe.InitBuffer(centered, cols * sizeof(float));
        pipe.InitBuffer(work, cols * sizeof(float));
        pipe.InitBuffer(red, 32);
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> g = gammaBuf.Get<float>();
        AscendC::LocalTensor<float> b = betaBuf.Get<float>();
        AscendC::DataCopy(g, gammaGm, this->cols);
        AscendC::DataCopy(b, betaGm, this->cols);
        float invN = 1.0f / static_cast<float>(this->cols);
        for (uint32_t r = 0; r < this->rows; r++) {
            AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm[r * this->cols], this->cols);
            inQueue.EnQue(xLocal);
            AscendC::LocalTensor<float> xIn = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
            AscendC::LocalTensor<float> xc = centered.Get<float>();
            AscendC::LocalTensor<float> w = work.Get<float>();
            AscendC::LocalTensor<float> s = red.Get<float>();
            AscendC::ReduceSum(s, xIn, w, this->cols);
            float mean = s.GetValue(0) * invN;
            AscendC::Adds(xc, xIn, -mean, this->cols);
            AscendC::Mul(yLocal, xc, xc, this->cols);
            AscendC::ReduceSum(s, yLocal, w, this->cols);
            float var = s.GetValue(0) * invN;
            float rstd = 1.0f / sqrtf(var + this->eps);
            AscendC::Muls(yLocal, xc, rstd, this->cols);
            AscendC::Mul(yLocal, yLocal, g, this->cols);
            AscendC::Add(yLocal, yLocal, b, this->cols);
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xIn);
            AscendC::LocalTensor<float> yOut = outQueue.DeQue<float>();
            AscendC::DataCopy(yGm[r * this->cols], yOut, this->cols);
            outQueue.FreeTensor(yOut);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> gammaBuf, betaBuf, centered, work, red;
    AscendC::GlobalTensor<float> xGm, yGm, gammaGm, betaGm;
    uint32_t rows, cols;
    float eps;
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLayerNorm op;
    op.Init(x, gamma, beta, y, t.rowsPerCore, t.cols, t.eps);
    op.Process();
}
