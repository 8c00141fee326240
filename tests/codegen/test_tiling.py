"""The tiling header and host-side tiling values, proven together with a real kernel on the simulator."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from ascendcraft.codegen.project import render_direct_kernel, render_tiling_struct
from ascendcraft.codegen.spec import TilingField
from ascendcraft.codegen.tiling import render_tiling_header, tiling_values, workspace_size
from ascendcraft.errors import UserError
from ascendcraft.sim import build_kernel, run_kernel
from codegen_specs import leaky_relu_spec, scale_shift_spec


def _field_lines(header: str) -> list[tuple[str, str]]:
    return re.findall(r"TILING_DATA_FIELD_DEF\((\w+), (\w+)\);", header)


def test_header_declares_widest_fields_first_and_registers_the_op():
    header = render_tiling_header(scale_shift_spec())
    assert '#include "register/tilingdata_base.h"' in header
    assert "BEGIN_TILING_DATA_DEF(ScaleShiftCustomTilingData)" in header
    assert "END_TILING_DATA_DEF;" in header
    assert "REGISTER_TILING_DATA_CLASS(ScaleShiftCustom, ScaleShiftCustomTilingData)" in header
    # spec order is B, alpha, N, steps, flag, S: the float moves behind every int64 (natural alignment)
    assert _field_lines(header) == [("int64_t", "B"), ("int64_t", "N"), ("int64_t", "steps"), ("int64_t", "flag"),
                                    ("int64_t", "S"), ("float", "alpha")]


def test_header_rejects_a_type_the_macros_do_not_accept():
    spec = leaky_relu_spec()
    bad = replace(spec, tiling_fields=(TilingField("n", "double", ("dim", "x", 0)),))
    with pytest.raises(UserError, match="double"):
        render_tiling_header(bad)


def test_tiling_values_read_shapes_and_attributes_with_defaults():
    spec = scale_shift_spec()
    shapes = {"x": (3, 40), "w": (40, 4), "y": (3, 40), "s": (3,)}
    assert tiling_values(spec, shapes, {"alpha": 2}) == {"B": 3, "alpha": 2.0, "N": 40, "steps": 3, "flag": 1, "S": 3}
    values = tiling_values(spec, shapes, {"steps": 7.0, "flag": False})
    assert values["steps"] == 7 and isinstance(values["steps"], int) and values["flag"] == 0
    assert isinstance(values["alpha"], float) and values["alpha"] == 0.5


def test_tiling_values_name_what_is_missing():
    spec = scale_shift_spec()
    with pytest.raises(UserError, match="shape of tensor w"):
        tiling_values(spec, {"x": (3, 40), "s": (3,)})
    with pytest.raises(UserError, match="rank 2"):
        tiling_values(spec, {"x": (120,), "w": (40, 4), "s": (3,)})


def test_workspace_size_uses_cpp_integer_division_and_the_block_dim():
    spec = scale_shift_spec()   # ((blocks * N * 4 + 31) / 32) * 32 bytes
    assert workspace_size(spec, {"N": 10}, block_dim=3) == 128        # 120 rounded up to 32 B
    assert workspace_size(spec, {"N": 8}, block_dim=48) == 48 * 32
    assert workspace_size(leaky_relu_spec(), {}, block_dim=48) == 0
    unknown = replace(spec, workspace_bytes="K * 4")
    with pytest.raises(UserError, match="names K"):
        workspace_size(unknown, {"N": 8}, block_dim=4)


@pytest.mark.parametrize("shape, blocks, slope", [((5, 1003), 8, 0.2), ((2, 4096), 3, 0.01), ((1, 7), 8, 1.5)])
def test_generated_header_and_values_drive_the_kernel_on_the_simulator(shape, blocks, slope):
    spec = leaky_relu_spec()
    art = build_kernel(spec.kernel_source, spec.op_name, tiling_header=render_tiling_header(spec))
    assert art.warnings == []
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    values = tiling_values(spec, {"x": shape, "y": shape}, {"negative_slope": slope})
    res = run_kernel(art, [x, np.full(shape, np.nan, np.float32)], tiling=values, block_dim=blocks)
    assert res.ok, res.report()
    assert [f["name"] for f in res.tiling_layout] == ["B", "N", "negative_slope"]
    np.testing.assert_allclose(res.outputs[1], np.where(x >= 0, x, np.float32(slope) * x), rtol=1e-6, atol=0)


def test_direct_call_kernel_reads_the_same_bytes_through_its_own_tiling_copy():
    """The direct-call translation unit (plain struct + GM word copy) runs on the simulator too."""
    spec = leaky_relu_spec()
    source = render_direct_kernel(spec, inline_body=True, launch_wrapper=True)
    art = build_kernel(source, spec.op_name, tiling_header=render_tiling_header(spec),
                       extra_sources={f"{spec.op_name}_tiling_data.h": render_tiling_struct(spec)})
    assert art.warnings == []
    shape = (3, 1500)
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    values = tiling_values(spec, {"x": shape}, {"negative_slope": 0.3})
    res = run_kernel(art, [x, np.full(shape, np.nan, np.float32)], tiling=values, block_dim=4)
    assert res.ok, res.report()
    np.testing.assert_allclose(res.outputs[1], np.where(x >= 0, x, np.float32(0.3) * x), rtol=1e-6, atol=0)
