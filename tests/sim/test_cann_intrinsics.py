"""The compiler intrinsics and older helpers CANN's own operators call beside the AscendC API (the
RmsNorm and DeepNorm families of NPUKernelBench's answers: docs/simulator.md), each in a kernel of our
own checked against NumPy: `g_coreType`, `AscendCUtils::SetMask` with the raw `vcadd` in both forms and
the accumulator read back, `SetDeqScale` with an int32 -> half Cast, a shift by the whole width, the
level-0 ReduceMax with its index, PairReduceSum, BroadCast of a column and of a row, Duplicate under a bit
mask, the mask-mode intrinsics, Sum and Mean over rows, level-0 repeats in order (an Add with repeat strides
0 accumulates), InitOutput, the
`block_idx`/`block_num` variables, the untyped DeQue and PopStackBuffer."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, poisoned

N = 256   # floats in x; y holds the results, OUT floats
OUT = 1024

KERNEL = """#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void intrinsics(GM_ADDR x, GM_ADDR y, GM_ADDR flags)
{
    GlobalTensor<float> xGm, yGm;
    GlobalTensor<int32_t> fGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    yGm.SetGlobalBuffer((__gm__ float *)y, OUT);
    fGm.SetGlobalBuffer((__gm__ int32_t *)flags, 8);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TBuf<TPosition::VECCALC> work, out;
    pipe.InitBuffer(inQ, 1, N * sizeof(float));
    pipe.InitBuffer(work, N * sizeof(float));
    pipe.InitBuffer(out, OUT * sizeof(float));
    LocalTensor<float> xl = inQ.AllocTensor<float>();
    DataCopy(xl, xGm, N);
    inQ.EnQue(xl);
    inQ.DeQue();                      // the untyped form: xl stays the tensor
    LocalTensor<float> w = work.Get<float>();
    LocalTensor<float> o = out.Get<float>();
    Duplicate(o, 0.0f, OUT);
    pipe_barrier(PIPE_V);
    // o[0]: the sum of x's first 40 floats (vcadd on the mask AscendCUtils set); o[1]: the sum of all
    // N floats through the accumulator
    if (g_coreType == AIV) {
        AscendCUtils::SetMask<float>(40);
        vcadd((__ubuf__ float *)o.GetPhyAddr(), (__ubuf__ float *)xl.GetPhyAddr(), 1, 0, 1, 0, false);
        AscendCUtils::SetMask<float>(64);
        vcadd(nullptr, (__ubuf__ float *)xl.GetPhyAddr(), N / 64, 1, 1, 8, true);
        set_flag(PIPE_V, PIPE_S, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
        uint64_t acc = GetAccVal();
        o.SetValue(1, *reinterpret_cast<float *>(&acc));
        set_vector_mask(FULL_MASK, FULL_MASK);
    }
    // o[2], o[3]: the level-0 ReduceMax over 4 repeats of 64 and its index
    uint64_t mask[2] = {FULL_MASK, 0};
    ReduceMax(o[8], xl, w, mask, N / 64, 8, true);
    pipe_barrier(PIPE_V);
    // o[64..191]: PairReduceSum of x (two repeats: 64 sums, the second at 128 bytes)
    PairReduceSum(o[64], xl, 2, 64, 1, 1, 8);
    pipe_barrier(PIPE_V);
    // o[256..511]: x's first 16 floats as a column broadcast to [16, 16]
    const uint32_t colSrc[2] = {16, 1}, colDst[2] = {16, 16};
    BroadCast<float, 2, 1>(o[256], xl, colDst, colSrc);
    // o[512..767]: x's first 16 floats as a row broadcast to [16, 16]
    const uint32_t rowSrc[2] = {1, 16}, rowDst[2] = {16, 16};
    BroadCast<float, 2, 0>(o[512], xl, rowDst, rowSrc);
    pipe_barrier(PIPE_V);
    // o[768..783]: trunc(x * 4) through int32 and a dequantising Cast to half (scale 0.25), back to float
    LocalTensor<int32_t> wi = w.ReinterpretCast<int32_t>();
    Muls(w, xl, 4.0f, 16);
    pipe_barrier(PIPE_V);
    Cast(wi, w, RoundMode::CAST_TRUNC, 16);
    pipe_barrier(PIPE_V);
    SetDeqScale(static_cast<half>(0.25f));
    LocalTensor<half> wh = w[64].ReinterpretCast<half>();
    Cast(wh, wi, RoundMode::CAST_NONE, 16);
    pipe_barrier(PIPE_V);
    Cast(o[768], wh, RoundMode::CAST_NONE, 16);
    // o[784..799]: the sign of trunc(x * 4) as an arithmetic shift by 32
    ShiftRight(wi, wi, static_cast<int32_t>(32), 16);
    pipe_barrier(PIPE_V);
    Cast(o[784], wi, RoundMode::CAST_NONE, 16);
    // o[800..863]: 5 in the odd lanes of one repeat (Duplicate under a bit mask)
    uint64_t odd[2] = {0xAAAAAAAAAAAAAAAAull, 0};
    Duplicate(o[800], 5.0f, odd, 1, 1, 8);
    // o[864..927]: x + 1 in the first 10 lanes (counter mode through the intrinsics)
    set_mask_count();
    set_vector_mask(0, 10);
    Adds<float, false>(o[864], xl, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    set_mask_norm();
    set_vector_mask(FULL_MASK, FULL_MASK);
    // o[928..931], o[936..939]: the sums and means of x as 4 rows of 64, 60 of them counted
    Sum(o[928], xl, SumParams{4, 64, 60});
    Mean(o[936], xl, MeanParams{4, 64, 60});
    // o[960..1023]: x's 4 repeats of 64 added into one (dst and src1 repeat strides 0: each repeat adds
    // to the sum the previous one wrote)
    Add(o[960], xl, o[960], 64, N / 64, {1, 1, 1, 0, 8, 0});
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    DataCopy(yGm, o, OUT);
    inQ.FreeTensor(xl);
    // flags: block_idx, block_num, whether PopStackBuffer found UB past the buffers, GetC0Count(2),
    // and 7 set by InitOutput
    LocalTensor<uint8_t> rest;
    bool popped = PopStackBuffer<uint8_t, TPosition::LCM>(rest);
    InitOutput<int32_t>(fGm[4], 4, 7);
    fGm.SetValue(0, static_cast<int32_t>(block_idx));
    fGm.SetValue(1, static_cast<int32_t>(block_num));
    fGm.SetValue(2, popped && rest.GetSize() > 0 ? 1 : 0);
    fGm.SetValue(3, AscendCUtils::GetC0Count(sizeof(half)));
}
"""


@pytest.fixture(scope="module")
def run():
    art = build_kernel(KERNEL, "intrinsics", defines={"N": N, "OUT": OUT})
    x = np.random.default_rng(11).standard_normal(N).astype(np.float32)
    res = run_kernel(art, [x, poisoned(OUT, np.float32), np.zeros(8, np.int32)], block_dim=1)
    assert res.ok, res.report()
    return x, res.outputs[1], res.outputs[2]


def test_vcadd_on_the_mask_set_mask_set_and_the_accumulator(run):
    x, y, _ = run
    assert_close(y[0], x[:40].sum(dtype=np.float32))
    assert_close(y[1], x.sum(dtype=np.float32))


def test_level0_reduce_max_and_its_index(run):
    x, y, _ = run
    assert y[8] == x.max()
    assert y[9:10].view(np.uint32)[0] == np.argmax(x)


def test_pair_reduce_sum(run):
    x, y, _ = run
    pairs = x[:128].reshape(-1, 2).sum(axis=1)
    assert_close(y[64:96], pairs[:32])
    assert_close(y[96:128], pairs[32:])      # the second repeat at 128 bytes


def test_broadcast_a_column_and_a_row(run):
    x, y, _ = run
    np.testing.assert_array_equal(y[256:512].reshape(16, 16), np.repeat(x[:16, None], 16, axis=1))
    np.testing.assert_array_equal(y[512:768].reshape(16, 16), np.repeat(x[None, :16], 16, axis=0))


def test_dequantising_cast_and_a_shift_by_the_width(run):
    x, y, _ = run
    q = np.trunc(x[:16] * 4)
    np.testing.assert_array_equal(y[768:784], (q * 0.25).astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(y[784:800], np.where(q < 0, -1.0, 0.0))


def test_duplicate_under_a_bit_mask_and_the_mask_mode_intrinsics(run):
    x, y, _ = run
    np.testing.assert_array_equal(y[800:864], np.tile([0.0, 5.0], 32))
    assert_close(y[864:874], x[:10] + 1)
    np.testing.assert_array_equal(y[874:928], 0.0)


def test_row_sums_and_means_of_the_valid_columns(run):
    x, y, _ = run
    rows = x.reshape(4, 64)[:, :60]
    assert_close(y[928:932], rows.sum(axis=1))
    assert_close(y[936:940], rows.mean(axis=1))


def test_repeats_run_in_order_so_a_stride_0_add_accumulates(run):
    x, y, _ = run
    assert_close(y[960:1024], x.reshape(4, 64).sum(axis=0))


def test_block_variables_pop_stack_buffer_c0_count_and_init_output(run):
    *_, flags = run
    assert list(flags) == [0, 1, 1, 16, 7, 7, 7, 7]
