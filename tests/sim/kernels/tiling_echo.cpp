// Copies every tiling field into GM (as float), so the runner's tiling dict can be checked:
// scalar, float, array and nested-struct fields.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void tiling_echo(GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<float> o;
    o.SetGlobalBuffer((__gm__ float *)out, 8);
    o.SetValue(0, static_cast<float>(t.count));
    o.SetValue(1, t.scale);
    for (int i = 0; i < 3; ++i) {
        o.SetValue(2 + i, static_cast<float>(t.dims[i]));
    }
    o.SetValue(5, static_cast<float>(t.inner.M));
    o.SetValue(6, static_cast<float>(t.inner.baseK));
    o.SetValue(7, static_cast<float>(t.last));
}
