"""What the NPU's memory allocation allows and the simulator models: every GM buffer sits in a device
allocation rounded up to 32 bytes plus 32 (aclrtMalloc), so a whole-block copy of a tensor shorter
than a block reads garbage and writes bytes nobody reads, without a fault (a warning, `gm-padding`);
the results are still checked, and an access past the allocation is `gm-bounds`. A buffer InitBuffer
places past the end of UB is an error where a tensor of it is used, not where it is declared (the
NPU checks nothing at InitBuffer; an unused one is harmless there)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import poisoned

# |x| of a tensor of `n` halves (n <= 16) through one 32-byte block: copy in a whole block, take the
# absolute value of every lane, copy a whole block out. READ_BLOCKS copies that many blocks in.
ABS_BLOCK = """#include "kernel_operator.h"
#ifndef READ_BLOCKS
#define READ_BLOCKS 1
#endif
extern "C" __global__ __aicore__ void abs_block(GM_ADDR x, GM_ADDR y)
{
    AscendC::GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer((__gm__ half *)x, 16 * READ_BLOCKS);
    yg.SetGlobalBuffer((__gm__ half *)y, 16);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 32 * READ_BLOCKS);
    AscendC::LocalTensor<half> t = buf.Get<half>();
    AscendC::DataCopy(t, xg, 16 * READ_BLOCKS);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Abs(t, t, 16);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(yg, t, 16);
}
"""


def _abs(n, blocks=1):
    x = np.linspace(-3, 3, n).astype(np.float16)
    art = build_kernel(ABS_BLOCK, "abs_block", defines={"READ_BLOCKS": blocks})
    return x, run_kernel(art, [x, poisoned(n, np.float16)], block_dim=1)


@pytest.mark.parametrize("n", [1, 3, 12])
def test_a_block_copy_of_a_short_tensor_stays_in_its_allocation(n):
    x, res = _abs(n)
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[1], np.abs(x))
    pad = [d for d in res.diagnostics if d.rule == "gm-padding"]
    assert {d.severity for d in pad} == {"warning"} and len(pad) == 2, res.report()
    assert any("past the end of 'x'" in d.message and "garbage" in d.message for d in pad)
    assert any("past the end of 'y'" in d.message and "nothing reads them" in d.message for d in pad)


def test_a_copy_past_the_allocation_is_out_of_bounds():
    _, res = _abs(1, blocks=3)     # 96 bytes of a 2-byte tensor whose allocation is 64
    assert not res.ok
    assert [d.rule for d in res.errors] == ["gm-bounds"], res.report()
    assert "past the end of buffer 'x'" in res.errors[0].message


def test_a_whole_tensor_copy_has_no_padding_warning():
    _, res = _abs(16)
    assert res.ok and not [d for d in res.diagnostics if d.rule == "gm-padding"], res.report()


# Three buffers of 64 KiB each fill UB (192 KiB on 910B2); a fourth lies past its end.
OVER_UB = """#include "kernel_operator.h"
constexpr uint32_t N = 16384;
extern "C" __global__ __aicore__ void over_ub(GM_ADDR x, GM_ADDR y)
{
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float *)x, N);
    yg.SetGlobalBuffer((__gm__ float *)y, N);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> a, b, c, extra;
    pipe.InitBuffer(a, N * sizeof(float));
    pipe.InitBuffer(b, N * sizeof(float));
    pipe.InitBuffer(c, N * sizeof(float));
    pipe.InitBuffer(extra, N * sizeof(float));
    AscendC::LocalTensor<float> t = a.Get<float>();
    AscendC::DataCopy(t, xg, N);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
#ifdef USE_EXTRA
    AscendC::LocalTensor<float> e = extra.Get<float>();
    AscendC::Muls(e, t, 2.0f, N);
#else
    AscendC::Muls(t, t, 2.0f, N);
#endif
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(yg, t, N);
}
"""


def _over_ub(**defines):
    x = np.random.default_rng(1).standard_normal(16384).astype(np.float32)
    return x, run_kernel(build_kernel(OVER_UB, "over_ub", defines=defines or None),
                         [x, poisoned(x.size, np.float32)], block_dim=1)


def test_a_buffer_past_the_end_of_ub_that_is_never_used_is_a_warning():
    x, res = _over_ub()
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[1], x * 2)
    warned = [d for d in res.diagnostics if d.rule == "ub-capacity"]
    assert [d.severity for d in warned] == ["warning"] and "196608" in warned[0].message, res.report()


def test_using_a_buffer_past_the_end_of_ub_is_an_error_that_names_its_init_buffer():
    _, res = _over_ub(USE_EXTRA=1)
    assert not res.ok
    assert [d.rule for d in res.errors] == ["ub-capacity"], res.report()
    assert "Muls" in res.errors[0].message and "line 13" in res.errors[0].message
