"""AscendC names and forms that hand-written CANN operators use and the simulator lacked (NPUKernelBench's
answers: docs/simulator.md, "NPUKernelBench's answers"), each in a small kernel of our own checked
against NumPy: the compiler's float16_t/float32_t and a constexpr half, TBuf's queue interface,
ToFloat/ToBfloat16, ASSERT with an unqualified AscendC name, the set_flag/wait_flag intrinsics,
DivCeil/AlignUp, GatherMask (fixed and user patterns, normal and counter mode), a TQue with a
TQueConfig, DataCacheCleanAndInvalid, the A2 architecture macro, GetReduceMaxMinCount, the software
SyncAll, and a TBuf without memory that is got but never used.
"""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, poisoned

N = 256

# Written as a kernel outside namespace AscendC would be (no using-directive): the names it uses
# unqualified are global in CANN (float16_t, set_flag, PIPE_*) or sit inside an ASSERT.
GAPS = """#include "kernel_operator.h"

constexpr half HALF_TWO = 2.0;
constexpr bfloat16_t BF_HALF = 0.5;
static_assert(AscendC::IsSameType<float16_t, half>::value && std::is_same<float32_t, float>::value, "compiler types");
constexpr AscendC::TPosition NO_CONSUMER[8] = {AscendC::TPosition::MAX, AscendC::TPosition::MAX,
    AscendC::TPosition::MAX, AscendC::TPosition::MAX, AscendC::TPosition::MAX, AscendC::TPosition::MAX,
    AscendC::TPosition::MAX, AscendC::TPosition::MAX};
inline constexpr AscendC::TQueConfig QCONF = AscendC::GetTQueConfig(false, false, false, 0, 1, 0, NO_CONSUMER);

class Gaps {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR pat, GM_ADDR y, GM_ADDR cnt)
    {
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");
        xGm.SetGlobalBuffer((__gm__ float32_t *)x, N);
        patGm.SetGlobalBuffer((__gm__ uint32_t *)pat, 8);
        yGm.SetGlobalBuffer((__gm__ float *)y, N);
        cntGm.SetGlobalBuffer((__gm__ int32_t *)cnt, 8);
        pipe.InitBuffer(inQ, 1, N * sizeof(float));
        pipe.InitBuffer(work, N * sizeof(float));
        pipe.InitBuffer(patBuf, 32);
    }
    __aicore__ inline void Run(int32_t op)
    {
        AscendC::LocalTensor<float32_t> x = inQ.AllocTensor<float32_t>();
        AscendC::DataCopy(x, xGm, N);
        inQ.EnQue(x);
        x = inQ.DeQue<float32_t>();
        AscendC::LocalTensor<float> w = work.AllocTensor<float>();   // TBuf: the whole buffer, as Get()
        uint64_t kept = 0;
        if (op == 0) {
            AscendC::Muls(w, x, float(HALF_TWO) + AscendC::ToFloat(BF_HALF), N);
            kept = N;
        } else if (op == 1) {
            AscendC::Adds(w, x, AscendC::ToFloat(AscendC::ToBfloat16(1.0f)), N);
            kept = N;
        } else if (op == 2) {   // the odd elements of every repeat: 4 repeats of 64 floats
            AscendC::GatherMask(w, x, 2, false, 0, {1, 4, 8, 0}, kept);
        } else if (op == 3) {   // a user pattern, counter mode: one repeat of 200 elements
            AscendC::LocalTensor<uint32_t> p = patBuf.Get<uint32_t>();
            AscendC::DataCopy(p, patGm, 8);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
            AscendC::GatherMask(w, x, p, true, 200, {1, 1, 8, 0}, kept);
        } else if (op == 5) {   // the maximum over 4 repeats of 64 and its index, from the special register
            AscendC::WholeReduceMax(w, x, 64, 4, 1, 1, 8);
            float val = 0, idx = 0;
            AscendC::GetReduceMaxMinCount<float>(val, idx);
            uint32_t bits = 0;
            memcpy(&bits, &idx, sizeof bits);
            cntGm.SetValue(2, static_cast<int32_t>(bits));
            AscendC::Duplicate(w, val, N);
            kept = N;
        } else if (op == 6) {   // an unused Get of a TBuf without memory; the software SyncAll
            AscendC::LocalTensor<float> unused = never.Get<float>();
            (void)unused;
            AscendC::GlobalTensor<int32_t> ws;
            ws.SetGlobalBuffer((__gm__ int32_t *)patGm.GetPhyAddr(), 8);
            AscendC::SyncAll(ws, patBuf.Get<int32_t>());
            AscendC::Adds(w, x, 2.0f, N);
            kept = N;
        } else {
#if __CCE_AICORE__ == 220
            AscendC::Muls(w, x, 3.0f, N);
#else
            AscendC::Muls(w, x, 1.0f, N);
#endif
            kept = N;
        }
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        if (kept > 0) AscendC::DataCopy(yGm, w, AscendC::AlignUp(static_cast<uint32_t>(kept), 8));
        cntGm.SetValue(0, static_cast<int32_t>(kept));
        cntGm.SetValue(1, static_cast<int32_t>(AscendC::DivCeil(100, 32)));
        AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                          AscendC::DcciDst::CACHELINE_OUT>(cntGm);
        work.FreeTensor(w);
        inQ.FreeTensor(x);
    }

private:
    static constexpr uint32_t N = 256;
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1, &QCONF> inQ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> work, patBuf, never;
    AscendC::GlobalTensor<float> xGm, yGm;
    AscendC::GlobalTensor<uint32_t> patGm;
    AscendC::GlobalTensor<int32_t> cntGm;
};

extern "C" __global__ __aicore__ void gaps(GM_ADDR x, GM_ADDR pat, GM_ADDR y, GM_ADDR cnt, int32_t op)
{
    Gaps k;
    k.Init(x, pat, y, cnt);
    k.Run(op);
}
"""


@pytest.fixture(scope="module")
def art():
    a = build_kernel(GAPS, "gaps")
    assert a.warnings == []
    return a


def _run(art, op, pattern_bits=None):
    x = np.random.default_rng(op).standard_normal(N).astype(np.float32)
    bits = np.zeros(256, bool) if pattern_bits is None else pattern_bits
    pat = np.packbits(bits, bitorder="little").view(np.uint32)
    res = run_kernel(art, [x, pat, poisoned(N, np.float32), np.zeros(8, np.int32), op], block_dim=1)
    assert res.ok, res.report()
    return x, res.outputs[2], res.outputs[3]


def test_compiler_types_constexpr_half_tbuf_queue_and_assert(art):
    x, y, cnt = _run(art, 0)
    assert_close(y, x * np.float32(2.5))       # HALF_TWO + ToFloat(bf16 0.5)
    assert cnt[0] == N and cnt[1] == 4        # DivCeil(100, 32)


def test_bf16_scalar_round_trip(art):
    x, y, _ = _run(art, 1)
    assert_close(y, x + np.float32(1))


def test_gather_mask_fixed_pattern_normal_mode(art):
    x, y, cnt = _run(art, 2)
    assert cnt[0] == N // 2
    np.testing.assert_array_equal(y[: N // 2], x[1::2])


def test_gather_mask_user_pattern_counter_mode(art):
    bits = np.random.default_rng(5).random(256) < 0.4
    x, y, cnt = _run(art, 3, bits)
    want = x[:200][bits[:200]]
    assert cnt[0] == len(want)
    np.testing.assert_array_equal(y[: len(want)], want)


def test_a2_architecture_macro(art):
    x, y, _ = _run(art, 4)
    assert_close(y, x * np.float32(3))


def test_get_reduce_max_min_count_after_whole_reduce_max(art):
    x, y, cnt = _run(art, 5)
    assert y[0] == x.max()
    assert cnt[2] == int(np.argmax(x))


def test_unused_tbuf_without_memory_and_software_sync_all(art):
    x, y, _ = _run(art, 6)
    assert_close(y, x + np.float32(2))


def test_using_a_tensor_of_a_tbuf_without_memory_is_an_error():
    src = GAPS.replace("(void)unused;", "AscendC::Adds(unused, x, 1.0f, N);")
    res = run_kernel(build_kernel(src, "gaps"), [np.zeros(N, np.float32), np.zeros(8, np.uint32),
                                                 np.zeros(N, np.float32), np.zeros(8, np.int32), 6], block_dim=1)
    assert not res.ok
    assert any(d.rule == "invalid-tensor" and "InitBuffer" in d.message for d in res.diagnostics), res.report()


def test_set_flag_with_pipes_that_no_event_links_is_an_error():
    src = GAPS.replace("set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);", "set_flag(PIPE_MTE3, PIPE_M, EVENT_ID0);")
    res = run_kernel(build_kernel(src, "gaps"), [np.zeros(N, np.float32), np.zeros(8, np.uint32),
                                                 np.zeros(N, np.float32), np.zeros(8, np.int32), 0], block_dim=1)
    assert not res.ok
    assert any(d.rule == "sync-pipes" for d in res.diagnostics), res.report()


def test_a_tiling_header_with_host_helpers_and_branch_hints_builds_into_the_kernel():
    """A tiling header may define host helpers on gert contexts (a template reading a
    TilingParseContext), and kernels write likely()/unlikely() unqualified: both build."""
    from ascendcraft.sim import build_kernel, run_kernel
    header = """
#pragma once
#include "register/tilingdata_base.h"
namespace optiling {
template <typename T> inline T* CompileInfo(gert::TilingParseContext* context) { return context->GetCompiledInfo<T>(); }
BEGIN_TILING_DATA_DEF(HintTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Hint, HintTilingData)
}
"""
    source = """
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void hint(GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<int32_t> yGm;
    yGm.SetGlobalBuffer((__gm__ int32_t*)y, 8);
    if (unlikely(t.n == 0) || !likely(AscendC::GetBlockIdx() == 0)) return;
    yGm.SetValue(0, static_cast<int32_t>(t.n));
}
"""
    art = build_kernel(source, "hint", tiling_header=header)
    res = run_kernel(art, [np.zeros(8, np.int32)], tiling={"n": 7}, block_dim=1)
    assert res.ok, res.report()
    assert res.outputs[0][0] == 7


def test_an_assert_without_its_semicolon_builds_as_the_device_build_compiles_it():
    """CANN's device build compiles ASSERT to nothing, so `n = len ASSERT(len != 0);` builds there:
    here too, with a warning that the kernel's conditions are not checked (a failing one does not
    stop it); an ASSERT with its semicolon is still evaluated."""
    from ascendcraft.sim.asserts import unterminated_asserts
    assert unterminated_asserts('ASSERT(a(1) && "x)");\n  n = m ASSERT(n != 0);\nASSERT(b)\nint c;') == [2, 3]
    assert unterminated_asserts("if (c) ASSERT(x);\nelse ASSERT(y);\n#define CHECK(v) ASSERT(v)\n") == []
    src = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void sloppy(GM_ADDR x, uint32_t n)
{
    uint32_t m = n ASSERT(n == 12345 && "never true here");
    AscendC::GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, m);
}
"""
    art = build_kernel(src, "sloppy")
    assert [w for w in art.warnings if "ASSERT(...) is not followed by ';'" in w and "kernel.cpp:4:" in w], art.warnings
    res = run_kernel(art, [np.zeros(8, np.float32), 8], block_dim=1)
    assert res.ok, res.report()
