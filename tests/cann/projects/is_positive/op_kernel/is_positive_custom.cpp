// Kernel side of a test operator: x > 0 as bool (one byte an element), scalar reads and writes on
// one block; the op's reference gives the same as 0.0 and 1.0 in x's dtype.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void is_positive_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<uint8_t> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.totalLength);
    yGm.SetGlobalBuffer((__gm__ uint8_t*)y, t.totalLength);
    for (uint32_t i = 0; i < t.totalLength; ++i) {
        yGm.SetValue(i, xGm.GetValue(i) > 0.0f ? 1 : 0);
    }
}
