"""Computing on UB bytes nothing wrote: the vector unit may (a tail of a buffer, a whole repeat over a
partial row), and the results in those lanes are garbage. Garbage that reaches a declared output, a
scalar read or the cube is an error, reported where the garbage was first read; garbage that stays in
lanes nobody copies out is a warning. Lane-to-lane ops (the count forms, the masked level-0 forms,
Cast, Compare's mask bytes, Select) keep the other lanes' values; a local copy moves the garbage."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import poisoned

N, VALID = 256, 200

# x's first VALID floats loaded into a 256-float buffer; Exp over all 256 (the tail is garbage), then
# COPY floats copied out. VARIANT picks what else the kernel does with the tail.
KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void tail(GM_ADDR x, GM_ADDR y)
{
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    yGm.SetGlobalBuffer((__gm__ float *)y, COPY);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, m;
    pipe.InitBuffer(a, N * sizeof(float));
    pipe.InitBuffer(b, N * sizeof(float));
    pipe.InitBuffer(m, N / 8);
    LocalTensor<float> t = a.Get<float>(), u = b.Get<float>();
    LocalTensor<uint8_t> mask = m.Get<uint8_t>();
    DataCopy(t, xGm, VALID);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Exp(u, t, N);                                   // @exp
    pipe_barrier(PIPE_V);
#if VARIANT == 1        // compare and select lane by lane: the valid lanes stay values
    Duplicate(t[VALID], 0.0f, N - VALID);           // t's tail written, u's still garbage
    pipe_barrier(PIPE_V);
    Compare(mask, u, t, CMPMODE::GT, N);
    pipe_barrier(PIPE_V);
    Select(u, mask, u, t, SELMODE::VSEL_TENSOR_TENSOR_MODE, N);
#elif VARIANT == 2      // the masked level-0 form: the first 64 lanes of each of 4 repeats
    Adds(u, u, 1.0f, 64, N / 64, {1, 1, 8, 8});
#elif VARIANT == 3      // a scalar read of a garbage lane
    float v = u.GetValue(VALID + 3);                // @get
    u.SetValue(0, v);
#elif VARIANT == 4      // a local copy of the garbage tail over valid lanes, then copied out
    DataCopy(u, u[VALID - 8], 64);
#endif
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
    DataCopy(yGm, u, COPY);
}
"""


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(KERNEL.splitlines(), 1) if marker in text)


def _run(variant: int = 0, copy: int = VALID):
    art = build_kernel(KERNEL, "tail", defines={"N": N, "VALID": VALID, "VARIANT": variant, "COPY": copy})
    x = np.random.default_rng(2).standard_normal(N).astype(np.float32)
    return x, run_kernel(art, [x, poisoned(copy, np.float32)], block_dim=1, outputs=[1])


def _warned_at_exp(res) -> bool:
    return any(d.rule == "uninit-read" and d.severity == "warning" and d.line == _line("// @exp")
               for d in res.diagnostics)


def test_garbage_in_lanes_nobody_copies_out_is_a_warning():
    x, res = _run(copy=VALID)
    assert res.ok, res.report()
    np.testing.assert_allclose(res.outputs[1], np.exp(x[:VALID]), rtol=1e-6)
    assert _warned_at_exp(res)


def test_garbage_copied_into_an_output_is_an_error_where_it_was_read():
    _, res = _run(copy=N)
    assert not res.ok
    (err,) = res.errors
    assert err.rule == "uninit-read" and err.api == "Exp" and err.line == _line("// @exp"), res.report()
    assert "src element 200" in err.message and "reached an output: output 'y'" in err.message
    assert "56 elements holding garbage" in err.message


@pytest.mark.parametrize("variant", [1, 2])
def test_lane_by_lane_ops_keep_the_valid_lanes_values(variant):
    x, res = _run(variant, copy=VALID)
    assert res.ok, res.report()
    e = np.exp(x[:VALID])
    want = np.where(e > x[:VALID], e, x[:VALID]) if variant == 1 else e + 1
    np.testing.assert_allclose(res.outputs[1], want, rtol=1e-6)


def test_selecting_with_a_garbage_mask_byte_into_an_output_is_an_error():
    _, res = _run(1, copy=N)
    assert [d.rule for d in res.errors] == ["uninit-read"], res.report()


def test_a_scalar_read_of_garbage_is_an_error_at_the_read():
    _, res = _run(3)
    (err,) = res.errors
    assert err.rule == "uninit-read" and err.line == _line("// @get"), res.report()
    assert "the first read of such memory on this core was Exp at line" in err.message


def test_a_local_copy_moves_the_garbage():
    _, res = _run(4, copy=VALID)
    (err,) = res.errors
    assert err.rule == "uninit-read" and err.api == "Exp", res.report()
    assert "output 'y' ends with 56 elements holding garbage (the first at elements [8, 64))" in err.message
