// One kernel, many vector APIs (and a few high-level activations): `op` selects which one computes out from a and b (256 floats,
// one block).  tests/sim/test_vector_api.py compares each with NumPy.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void vec_ops(GM_ADDR a, GM_ADDR b, GM_ADDR out, uint32_t op, uint32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> aBuf, bBuf, oBuf, mBuf, tBuf, iBuf;
    GlobalTensor<float> aGm, bGm, oGm;
    aGm.SetGlobalBuffer((__gm__ float *)a, n);
    bGm.SetGlobalBuffer((__gm__ float *)b, n);
    oGm.SetGlobalBuffer((__gm__ float *)out, n);
    pipe.InitBuffer(aBuf, n * sizeof(float));
    pipe.InitBuffer(bBuf, n * sizeof(float));
    pipe.InitBuffer(oBuf, n * sizeof(float));
    pipe.InitBuffer(mBuf, 256);
    pipe.InitBuffer(tBuf, n * sizeof(float));
    pipe.InitBuffer(iBuf, n * sizeof(uint32_t));
    LocalTensor<float> x = aBuf.Get<float>();
    LocalTensor<float> y = bBuf.Get<float>();
    LocalTensor<float> o = oBuf.Get<float>();
    LocalTensor<float> t = tBuf.Get<float>();
    LocalTensor<uint8_t> m = mBuf.Get<uint8_t>();
    DataCopy(x, aGm, n);
    DataCopy(y, bGm, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(o, 0.0f, n);
    const int32_t cnt = static_cast<int32_t>(n);
    switch (op) {
        case 0: Sub(o, x, y, cnt); break;
        case 1: Mul(o, x, y, cnt); break;
        case 2: Div(o, x, y, cnt); break;
        case 3: Max(o, x, y, cnt); break;
        case 4: Min(o, x, y, cnt); break;
        case 5: Exp(o, x, cnt); break;
        case 6: Abs(t, x, cnt); Adds(t, t, 1.0f, cnt); Ln(o, t, cnt); break;
        case 7: Abs(t, x, cnt); Sqrt(o, t, cnt); break;
        case 8: Abs(t, x, cnt); Adds(t, t, 1.0f, cnt); Rsqrt(o, t, cnt); break;
        case 9: Reciprocal(o, y, cnt); break;
        case 10: Adds(o, x, 1.5f, cnt); break;
        case 11: Muls(o, x, -2.0f, cnt); break;
        case 12: Maxs(o, x, 0.25f, cnt); break;
        case 13: Mins(o, x, 0.25f, cnt); break;
        case 14: Duplicate(o, 3.0f, cnt); break;
        case 15: DataCopy(o, y, n); Axpy(o, x, 0.5f, cnt); break;
        case 16: CreateVecIndex(o, 10.0f, n); break;
        case 17: Compare(m, x, y, CMPMODE::LT, n); Select(o, m, x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, n); break;
        case 18: CompareScalar(m, x, 0.0f, CMPMODE::GT, n);
                 Select(o, m, x, 0.25f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n); break;
        case 19: {
            LocalTensor<int32_t> ti = tBuf.Get<int32_t>();
            Cast(ti, x, RoundMode::CAST_FLOOR, n);
            Cast(o, ti, RoundMode::CAST_NONE, n);
            break;
        }
        case 20: {
            LocalTensor<half> th = tBuf.Get<half>();
            Cast(th, x, RoundMode::CAST_TRUNC, n);
            Cast(o, th, RoundMode::CAST_NONE, n);
            break;
        }
        case 21:  // per 64-float repeat: (max value, index) pairs
            WholeReduceMax(o, x, 64, static_cast<int32_t>(n / 64), 1, 1, 8);
            break;
        case 22:  // per 32-byte block sums, 8 per repeat
            BlockReduceSum(o, x, static_cast<int32_t>(n / 64), 64, 1, 1, 8);
            break;
        case 23:  // broadcast x[0..15] to 16 blocks of 8
            Brcb(o, x, 2, BrcbRepeatParams(1, 8));
            break;
        case 24: {  // reverse via byte offsets
            LocalTensor<uint32_t> idx = iBuf.Get<uint32_t>();
            for (uint32_t i = 0; i < n; i++) idx.SetValue(i, (n - 1 - i) * 4);
            Gather(o, x, idx, 0, n);
            break;
        }
        case 25:  // max and its index (index stored in the float's bits)
            ReduceMax(o, x, t, cnt, true);
            break;
        case 26: {  // level 0: first 40 lanes of each 64-lane repeat, 2 repeats
            uint64_t mask = 40;
            Add(o, x, y, mask, 2, BinaryRepeatParams());
            break;
        }
        case 27:  // WholeReduceSum with a continuous mask of 48 lanes, 4 repeats
            WholeReduceSum(o, x, 48, static_cast<int32_t>(n / 64), 1, 1, 8);
            break;
        case 28: Sigmoid(o, x, n); break;
        case 29: Tanh(o, x, n); break;
        case 30: Silu(o, x, n); break;
        case 31: Gelu(o, x, n); break;
        case 32: Swish(o, x, n, 1.5f); break;
        case 33: DataCopy(o, y, n); FusedMulAdd(o, x, y, cnt); break;  // x * o + y
        case 34: DataCopy(o, y, n); MulAddDst(o, x, x, cnt); break;    // o + x * x
        default: break;
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, o, n);
}
