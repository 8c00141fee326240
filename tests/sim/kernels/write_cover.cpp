// y = 2 * x over a [rows, cols] fp32 tensor, each block owning rowsPerBlock rows, one
// DataCopyPad row at a time (tiles of `tile` elements along the row). Two planted bugs:
//   capRows > 0:   each block handles at most capRows rows (a bound that holds at small
//                  shapes only): the rest of its rows are never written;
//   extraRow != 0: each block but the last also writes the first row of the next block (an
//                  off-by-one): two blocks write that row in one phase.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void write_cover(GM_ADDR x, GM_ADDR y, int64_t rows, int64_t cols,
                                                  int64_t rowsPerBlock, uint32_t tile, int64_t capRows,
                                                  int32_t extraRow)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    pipe.InitBuffer(inQueue, 2, tile * sizeof(float));
    pipe.InitBuffer(outQueue, 2, tile * sizeof(float));
    int64_t first = rowsPerBlock * AscendC::GetBlockIdx();
    int64_t last = first + rowsPerBlock;
    if (extraRow != 0) last += 1;
    if (last > rows) last = rows;
    if (capRows > 0 && last - first > capRows) last = first + capRows;
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, rows * cols);
    yGm.SetGlobalBuffer((__gm__ float *)y, rows * cols);
    for (int64_t r = first; r < last; ++r) {
        for (int64_t c = 0; c < cols; c += tile) {
            uint32_t n = static_cast<uint32_t>(cols - c < tile ? cols - c : tile);
            AscendC::DataCopyExtParams p{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopyPad(xLocal, xGm[r * cols + c], p, pad);
            inQueue.EnQue(xLocal);
            xLocal = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
            AscendC::Muls(yLocal, xLocal, 2.0f, n);
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xLocal);
            yLocal = outQueue.DeQue<float>();
            AscendC::DataCopyPad(yGm[r * cols + c], yLocal, p);
            outQueue.FreeTensor(yLocal);
        }
    }
}
