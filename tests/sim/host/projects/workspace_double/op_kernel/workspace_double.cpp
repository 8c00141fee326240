// Test project (ascendcraft): WorkspaceDouble's kernel, y = 2 * x through the user workspace: each tile
// goes GM -> UB (x2) -> the block's part of the user workspace -> UB -> y. Tiling key 1: DataCopy
// (aligned lengths), 2: DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

template <bool padded> class KernelWorkspaceDouble {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t total, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t begin = blockLength * GetBlockIdx();
        length = begin >= total ? 0 : (total - begin < blockLength ? total - begin : blockLength);
        tile = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + begin, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + begin, length);
        wsGm.SetGlobalBuffer((__gm__ float*)GetUserWorkspace(workspace) + begin, length);
        pipe.InitBuffer(buf, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> t = buf.Get<float>();
        for (uint32_t off = 0; off < length; off += tile) {
            uint32_t n = length - off < tile ? length - off : tile;
            Move(t, xGm[off], n);
            PipeBarrier<PIPE_ALL>();
            Muls(t, t, 2.0f, n);
            PipeBarrier<PIPE_ALL>();
            Move(wsGm[off], t, n);
            PipeBarrier<PIPE_ALL>();
            Move(t, wsGm[off], n);
            PipeBarrier<PIPE_ALL>();
            Move(yGm[off], t, n);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    __aicore__ inline void Move(const LocalTensor<float>& dst, const GlobalTensor<float>& src, uint32_t n)
    {
        if constexpr (padded) {
            DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0},
                        DataCopyPadExtParams<float>{false, 0, 0, 0});
        } else {
            DataCopy(dst, src, n);
        }
    }
    __aicore__ inline void Move(const GlobalTensor<float>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        if constexpr (padded) {
            DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
        } else {
            DataCopy(dst, src, n);
        }
    }

    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<float> xGm, yGm, wsGm;
    uint32_t length = 0, tile = 0;
};

extern "C" __global__ __aicore__ void workspace_double(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA(t, tiling);
    if (TILING_KEY_IS(1)) {
        KernelWorkspaceDouble<false> op;
        op.Init(x, y, workspace, t.totalLength, t.blockLength, t.tileLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelWorkspaceDouble<true> op;
        op.Init(x, y, workspace, t.totalLength, t.blockLength, t.tileLength);
        op.Process();
    }
}
