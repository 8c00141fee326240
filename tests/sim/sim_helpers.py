"""Shared helpers for the AscendC simulator tests."""
from __future__ import annotations

from pathlib import Path

import numpy as np

KERNELS = Path(__file__).parent / "kernels"

# per-dtype tolerances of the project's verification policy (DESIGN.md section 4)
TOL = {np.float32: (1e-4, 1e-4, 1e-5), np.float16: (1e-2, 1e-2, 1e-3), "bf16": (1e-2, 1e-2, 4e-3)}


def kernel_source(name: str) -> str:
    return (KERNELS / name).read_text()


def assert_close(actual, expected, kind=np.float32):
    """allclose with the policy tolerance plus a relative-L2 bound; NaN anywhere fails."""
    rtol, atol, rel_l2 = TOL[kind]
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape
    assert not np.isnan(actual).any(), "output has NaN (unwritten elements?)"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
    denom = np.linalg.norm(expected)
    if denom > 0:
        assert np.linalg.norm(actual - expected) / denom < rel_l2


def poisoned(shape, dtype):
    return np.full(shape, np.nan, dtype=dtype)


# Two copies of the same 64 KiB into one TBuf: the second reads x[SECOND] (#define it; 0 = the same
# bytes again, an L2 hit).
READ_TWICE = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void read_twice(GM_ADDR x, GM_ADDR y)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 65536);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float *)x);
    AscendC::DataCopy(t, xGm[0], 16384);
    AscendC::DataCopy(t, xGm[SECOND], 16384);
}
"""
