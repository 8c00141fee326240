"""Tensor lists (a CANN op's DYNAMIC inputs and outputs): ``run_kernel`` takes a list of arrays for a
GM parameter and the kernel receives the ListTensorDesc block CANN passes (harness_main.cpp,
``tensor_list_words``): the pointers' offset, each tensor's rank and dims, the pointers."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.errors import UserError
from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import kernel_source


def _art():
    return build_kernel(kernel_source("tensor_list.cpp"), "tensor_list")


@pytest.mark.parametrize("blocks", [1, 2])
def test_each_tensor_of_a_list_is_found_by_its_pointer_and_shape(blocks):
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s).astype(np.float32) for s in ([8, 16], [3, 8], [40, 8])]
    ys = [np.full_like(x, np.nan) for x in xs]
    res = run_kernel(_art(), [xs, ys, len(xs)], block_dim=blocks, outputs=["y"])
    assert res.ok, res.report()
    got = res.outputs[1]
    assert isinstance(got, list) and len(got) == 3
    for j, (x, y) in enumerate(zip(xs, got)):
        np.testing.assert_array_equal(y, 2 * x + j)


def test_a_tensor_of_an_output_list_left_unwritten_is_reported():
    xs = [np.ones(8, np.float32), np.ones(16, np.float32)]
    # the kernel reads three tensors' worth of count: it writes nothing
    res = run_kernel(_art(), [xs, [np.zeros_like(x) for x in xs], 3], block_dim=1, outputs=["y"])
    assert not res.ok and {d.rule for d in res.errors} == {"output-unwritten"}, res.report()
    assert "y[0]" in res.report()


def test_cost_only_runs_take_shapes_and_lists_the_layout_cannot_hold_are_refused():
    specs = [gm((64, 8), np.float32), gm((1, 8), np.float32)]
    assert run_kernel(_art(), [specs, list(specs), 2], block_dim=1, cost_only=True, outputs=["y"]).ok
    mixed = [gm((64, 8), np.float32), gm((8,), np.float32)]
    res = run_kernel(_art(), [mixed, list(mixed), 2], block_dim=1, cost_only=True)
    assert not res.ok and "the tensors of the list 'x' have different ranks" in res.crash
    with pytest.raises(UserError, match="a tensor list needs at least one tensor"):
        run_kernel(_art(), [[], [], 0], block_dim=1)
