// Rows written and read back with gaps between them (one block, f32, a [2, 9] GM matrix s): the first
// 8 values of each row copied out (DataCopyPad: two rows of 32 bytes, 36 bytes apart), then, with no
// event between, a copy in of column 8 of both rows (two rows of 4 bytes, 36 bytes apart). The read
// touches only the gaps the copy out left: no race, though each one's span contains the other's
// bytes. Mode OVERLAP (a bug) reads columns 7 and 8 instead: column 7 was copied out, and the read can
// overtake the copy. y gets what was read.
#include "kernel_operator.h"

enum Mode : int32_t { GAPS = 0, OVERLAP };

extern "C" __global__ __aicore__ void strided_gaps(GM_ADDR x, GM_ADDR s, GM_ADDR y, int32_t mode)
{
    AscendC::GlobalTensor<float> xGm, sGm, yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), 16);
    sGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(s), 18);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y), 4);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> inBuf, backBuf;
    pipe.InitBuffer(inBuf, 16 * sizeof(float));
    pipe.InitBuffer(backBuf, 16 * sizeof(float));
    AscendC::LocalTensor<float> tile = inBuf.Get<float>();
    AscendC::LocalTensor<float> back = backBuf.Get<float>();
    AscendC::DataCopy(tile, xGm, 16);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::DataCopyPad(sGm, tile, AscendC::DataCopyExtParams{2, 8 * sizeof(float), 0, sizeof(float), 0});
    const uint32_t col = mode == OVERLAP ? 7 : 8, width = 9 - col;
    AscendC::DataCopyPad(back, sGm[col], AscendC::DataCopyExtParams{2, static_cast<uint32_t>(width * sizeof(float)),
                                                                    static_cast<uint32_t>((9 - width) * sizeof(float)), 0, 0},
                         AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::DataCopyPad(yGm, back, AscendC::DataCopyExtParams{2, static_cast<uint32_t>(width * sizeof(float)), 0, 0, 0});
}
