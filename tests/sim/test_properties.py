"""Property tests: random lengths, block counts and tile sizes for the unaligned-tail kernels."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

_ARTS = {}


def _art(name, kernel):
    if (name, kernel) not in _ARTS:
        _ARTS[(name, kernel)] = build_kernel(kernel_source(name), kernel)
    return _ARTS[(name, kernel)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 6000), blocks=st.integers(1, 8), tile=st.sampled_from([32, 64, 96, 256]),
       half=st.booleans(), seed=st.integers(0, 2**16))
def test_datacopypad_tails_any_length(n, blocks, tile, half, seed):
    dtype, ctype = (np.float16, "half") if half else (np.float32, "float")
    x = np.random.default_rng(seed).standard_normal(n).astype(dtype)
    res = run_kernel(_art("abs_scale_pad.cpp", f"abs_scale_pad<{ctype}>"), [x, poisoned(n, dtype), n, tile, -1.5],
                     block_dim=blocks)
    assert res.ok, res.report()
    assert_close(res.outputs[1], (np.abs(x.astype(np.float32)) * -1.5).astype(dtype), dtype)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 20000), blocks=st.integers(1, 12), tile_blocks=st.integers(1, 32), seed=st.integers(0, 2**16))
def test_relu_any_length_and_block_split(n, blocks, tile_blocks, seed):
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    block_len = -(-n // blocks)
    block_len = -(-block_len // 8) * 8  # every block starts 32-byte aligned
    res = run_kernel(_art("relu_direct.cpp", "relu_kernel<float>"),
                     [x, poisoned(n, np.float32), n, block_len, 8 * tile_blocks], block_dim=blocks)
    assert res.ok, res.report()
    assert_close(res.outputs[1], np.maximum(x, 0))
