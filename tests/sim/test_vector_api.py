"""Semantics of the vector APIs (level 2, level 0, casts, compare/select, reductions, gather)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import kernel_source

N = 256


@pytest.fixture(scope="module")
def art():
    a = build_kernel(kernel_source("vec_ops.cpp"), "vec_ops")
    assert a.warnings == []
    return a


def _inputs():
    rng = np.random.default_rng(99)
    a = (rng.standard_normal(N) * 3).astype(np.float32)
    b = (rng.standard_normal(N) * 3).astype(np.float32)
    b[np.abs(b) < 0.1] = 0.5
    return a, b


def _ref(op, a, b):
    out = np.zeros(N, np.float32)
    f = np.float32
    if op == 0: return a - b
    if op == 1: return a * b
    if op == 2: return a / b
    if op == 3: return np.maximum(a, b)
    if op == 4: return np.minimum(a, b)
    if op == 5: return np.exp(a)
    if op == 6: return np.log(np.abs(a) + f(1))
    if op == 7: return np.sqrt(np.abs(a))
    if op == 8: return f(1) / np.sqrt(np.abs(a) + f(1))
    if op == 9: return f(1) / b
    if op == 10: return a + f(1.5)
    if op == 11: return a * f(-2)
    if op == 12: return np.maximum(a, f(0.25))
    if op == 13: return np.minimum(a, f(0.25))
    if op == 14: return np.full(N, 3, np.float32)
    if op == 15: return f(0.5) * a + b
    if op == 16: return np.arange(N, dtype=np.float32) + 10
    if op == 17: return np.where(a < b, a, b)
    if op == 18: return np.where(a > 0, a, f(0.25))
    if op == 19: return np.floor(a)
    if op == 20: return _trunc_to_half(a)
    if op == 21:
        r = a.reshape(-1, 64)
        out[: 2 * len(r): 2] = r.max(axis=1)
        out[1: 2 * len(r): 2] = r.argmax(axis=1).astype(np.uint32).view(np.float32)
        return out
    if op == 22:
        out[: N // 8] = a.reshape(-1, 8).sum(axis=1)
        return out
    if op == 23:
        out[:128] = np.repeat(a[:16], 8)
        return out
    if op == 24: return a[::-1]
    if op == 25:
        out[0] = a.max()
        out[1] = np.array([a.argmax()], np.uint32).view(np.float32)[0]
        return out
    if op == 26:
        out[:128] = 0
        for r in range(2):
            s = slice(r * 64, r * 64 + 40)
            out[s] = a[s] + b[s]
        return out
    if op == 27:
        out[: N // 64] = a.reshape(-1, 64)[:, :48].sum(axis=1)
        return out
    sig = lambda v: f(1) / (f(1) + np.exp(-v))  # noqa: E731
    if op == 28: return sig(a)
    if op == 29: return np.tanh(a)
    if op == 30: return a * sig(a)
    if op == 31: return a * sig(f(np.sqrt(8 / np.pi)) * (a + f(0.044715) * a ** 3))
    if op == 32: return a * sig(f(1.5) * a)
    if op == 33: return a * b + b
    if op == 34: return b + a * a
    raise AssertionError(op)


def _trunc_to_half(a):
    h = a.astype(np.float16)  # round to nearest even
    back = h.astype(np.float32)
    # step one half-ulp toward zero where rounding went away from zero
    away = np.abs(back) > np.abs(a)
    bits = h.view(np.uint16).copy()
    bits[away] -= 1
    return bits.view(np.float16).astype(np.float32)


@pytest.mark.parametrize("op", range(35))
def test_vector_op_matches_numpy(art, op):
    a, b = _inputs()
    res = run_kernel(art, [a, b, np.full(N, np.nan, np.float32), op, N], block_dim=1)
    assert res.ok, res.report()
    ref = _ref(op, a, b)
    if op in (21, 25):  # index words are compared as raw bits
        np.testing.assert_array_equal(res.outputs[2].view(np.uint32), ref.view(np.uint32))
        return
    np.testing.assert_allclose(res.outputs[2], ref, rtol=2e-6 if op < 28 or op > 32 else 1e-5, atol=1e-6)
