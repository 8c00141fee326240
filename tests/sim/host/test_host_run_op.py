"""CANN projects run end to end on the simulator (``run_op``): the project's TilingFunc decides the tiling, tiling
key, block dim and workspace, then op_kernel/<op>.cpp runs with them; outputs against NumPy."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ascendcraft.errors import UserError
from ascendcraft.sim import gm
from ascendcraft.sim.host_op import run_op
from sim_helpers import assert_close

PROJECTS = Path(__file__).parent / "projects"


def test_scale_shift_half_with_bias(rng):
    x = rng.standard_normal((3, 1000)).astype(np.float16)
    bias = rng.standard_normal((3, 1000)).astype(np.float16)
    run = run_op(PROJECTS / "scale_shift", [x, bias], {"alpha": 0.5, "beta": -1.0})
    assert run.ok, run.result.report()
    assert run.tiling.tiling_key == 1 and run.tiling.block_dim == 2
    assert run.tiling_fields == {"totalLength": 3000, "blockLength": 1504, "tileLength": 2048, "hasBias": 1,
                                 "alpha": 0.5, "beta": -1.0}
    ref = x.astype(np.float32) * 0.5 - 1.0 + bias.astype(np.float32)
    assert_close(run.outputs[0], ref.astype(np.float16), np.float16)


def test_scale_shift_float_without_the_optional_input(rng):
    x = rng.standard_normal(5000).astype(np.float32)
    run = run_op(PROJECTS / "scale_shift", [x, None], {"beta": 2.0})   # bias absent, alpha at its default
    assert run.ok, run.result.report()
    assert run.tiling.tiling_key == 2 and run.tiling.block_dim == 5 and run.tiling_fields["hasBias"] == 0
    assert run.outputs[0].dtype == np.float32
    assert_close(run.outputs[0], x + 2.0)
    cost = run_op(PROJECTS / "scale_shift", [gm(5000, np.float32)], {"beta": 2.0}, cost_only=True)
    assert cost.ok and cost.outputs == () and cost.result.cost.time_us > 0


@pytest.mark.parametrize("n, key", [(4096, 1), (3001, 2)])
def test_workspace_round_trip_with_a_key_chosen_by_shape(rng, n, key):
    x = rng.standard_normal(n).astype(np.float32)
    run = run_op(PROJECTS / "workspace_double", [x])
    assert run.ok, run.result.report()
    assert run.tiling.tiling_key == key and run.tiling.user_workspace > 0
    assert_close(run.outputs[0], 2 * x)


def test_given_outputs_and_bad_arguments(rng):
    x = rng.standard_normal(64).astype(np.float32)
    run = run_op(PROJECTS / "scale_shift", [x], {"beta": 1.0}, outputs=[((64,), np.float32)])
    assert run.ok and run.tiling.output_shapes == ((64,),)
    assert_close(run.outputs[0], x + 1.0)
    with pytest.raises(UserError, match="takes 2 inputs"):
        run_op(PROJECTS / "scale_shift", [x, x, x], {"beta": 1.0})
    with pytest.raises(UserError, match="has 1 outputs"):
        run_op(PROJECTS / "scale_shift", [x], {"beta": 1.0}, outputs=[])
