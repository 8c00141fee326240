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
