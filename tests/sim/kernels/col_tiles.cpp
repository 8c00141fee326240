// y = 2 * x over a 2-D [rows, cols] fp32 tensor. Each block owns a block of rows and walks it
// in tiles of tileRows x tileCols, columns advancing: every tile is one strided copy (tileRows
// rows of tileCols elements, a row pitch of cols). `shift` >= 0 reads every tile a second time,
// `shift` columns further on (0: exactly the same bytes again), when that stays inside the row;
// `useDataCopy` moves the tiles with the DataCopyParams form instead of DataCopyPad.
#include "kernel_operator.h"

class KernelColTiles {
public:
    __aicore__ inline KernelColTiles() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, int64_t rows, int64_t cols, int64_t rowsPerBlock,
                                uint32_t tileRows, uint32_t tileCols, int32_t shift, int32_t useDataCopy)
    {
        int64_t first = rowsPerBlock * AscendC::GetBlockIdx();
        int64_t remain = rows - first;
        this->myRows = remain < 0 ? 0 : (remain < rowsPerBlock ? remain : rowsPerBlock);
        this->cols = cols;
        this->tileRows = tileRows;
        this->tileCols = tileCols;
        this->shift = shift;
        this->useDataCopy = useDataCopy;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->myRows * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->myRows * cols);
        pipe.InitBuffer(inQueue, 2, tileRows * tileCols * sizeof(float));
        pipe.InitBuffer(againQueue, 1, tileRows * tileCols * sizeof(float));
        pipe.InitBuffer(outQueue, 2, tileRows * tileCols * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int64_t r = 0; r < this->myRows; r += this->tileRows) {
            uint32_t nr = static_cast<uint32_t>(this->myRows - r < this->tileRows ? this->myRows - r : this->tileRows);
            for (int64_t c = 0; c < this->cols; c += this->tileCols) {
                uint32_t nc = static_cast<uint32_t>(this->cols - c < this->tileCols ? this->cols - c : this->tileCols);
                AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
                CopyTileIn(xLocal, r * this->cols + c, nr, nc);
                inQueue.EnQue(xLocal);
                if (this->shift >= 0 && c + this->shift + nc <= this->cols) {
                    AscendC::LocalTensor<float> again = againQueue.AllocTensor<float>();
                    CopyTileIn(again, r * this->cols + c + this->shift, nr, nc);
                    againQueue.EnQue(again);
                    again = againQueue.DeQue<float>();
                    againQueue.FreeTensor(again);
                }
                xLocal = inQueue.DeQue<float>();
                AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
                AscendC::Muls(yLocal, xLocal, 2.0f, nr * nc);
                outQueue.EnQue(yLocal);
                inQueue.FreeTensor(xLocal);
                yLocal = outQueue.DeQue<float>();
                AscendC::DataCopyExtParams out{static_cast<uint16_t>(nr), static_cast<uint32_t>(nc * sizeof(float)), 0,
                                               static_cast<uint32_t>((this->cols - nc) * sizeof(float)), 0};
                AscendC::DataCopyPad(yGm[r * this->cols + c], yLocal, out);
                outQueue.FreeTensor(yLocal);
            }
        }
    }

private:
    __aicore__ inline void CopyTileIn(AscendC::LocalTensor<float>& dst, int64_t offset, uint32_t nr, uint32_t nc)
    {
        if (this->useDataCopy) {
            AscendC::DataCopyParams p{static_cast<uint16_t>(nr), static_cast<uint16_t>(nc * sizeof(float) / 32),
                                      static_cast<uint16_t>((this->cols - nc) * sizeof(float) / 32), 0};
            AscendC::DataCopy(dst, xGm[offset], p);
        } else {
            AscendC::DataCopyExtParams p{static_cast<uint16_t>(nr), static_cast<uint32_t>(nc * sizeof(float)),
                                         static_cast<uint32_t>((this->cols - nc) * sizeof(float)), 0, 0};
            AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            AscendC::DataCopyPad(dst, xGm[offset], p, pad);
        }
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> againQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    int64_t myRows = 0, cols = 0;
    uint32_t tileRows = 0, tileCols = 0;
    int32_t shift = -1, useDataCopy = 0;
};

extern "C" __global__ __aicore__ void col_tiles(GM_ADDR x, GM_ADDR y, int64_t rows, int64_t cols, int64_t rowsPerBlock,
                                                uint32_t tileRows, uint32_t tileCols, int32_t shift, int32_t useDataCopy)
{
    KernelColTiles op;
    op.Init(x, y, rows, cols, rowsPerBlock, tileRows, tileCols, shift, useDataCopy);
    op.Process();
}
