"""Output extents no input carries, named by a const (``const M = N + left + right``, ``y: gm T[*B, M]``):
the checker holds the const to the op's extent, and the exported project computes it (InferShape, the
torch bindings, the launcher) from the inputs' dims and the attributes."""
from __future__ import annotations

import shutil

import pytest

from ascendcraft.checking import check_kernel
from ascendcraft.codegen.project import project_files
from ascendcraft.errors import DSLError
from codegen_specs import lowered_project
from test_project import _compile_jobs
from test_star_dims_export import _bindings, _lines, _star_stubs

PAD = """\
kernel pad(x: gm f32[*B, N], left: i32, right: i32, value: f32) -> (y: gm f32[*B, M]):
    const M = N + left + right
    for r in parallel(B):
        store(y[r, :], load(x[r, 0 - left:N + right], pad=value))
"""

PAD_OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, left: int, right: int, value: float):
        return torch.nn.functional.pad(x, (left, right), mode="constant", value=value)


CASES = [([64], 1, 2), ([4, 96], 0, 3), ([2, 3, 128], 5, 0), ([7, 200], 2, 2), ([0, 32], 1, 1)]


def get_input_groups():
    return [[torch.randn(shape), left, right, -1.5] for shape, left, right in CASES]


def get_init_inputs():
    return []
"""


@pytest.fixture(scope="module")
def pad(tmp_path_factory):
    """PAD lowered and verified on the simulator, its project written: (the lowering, its folder)."""
    root = tmp_path_factory.mktemp("pad")
    return lowered_project(root, PAD, PAD_OP), root


def test_a_const_sizing_an_output_is_held_to_the_ops_extent_at_every_group(tmp_path):
    op = tmp_path / "op.py"
    op.write_text(PAD_OP)
    assert check_kernel(PAD, op, trials=1).passed
    with pytest.raises(DSLError) as e:
        check_kernel(PAD.replace("const M = N + left + right", "const M = N + left + right + 1"), op, trials=1)
    assert "const M is 205 here, but it sizes an axis of y, which the op gives 204 elements" in e.value.message
    assert e.value.span.line == 2


def test_the_host_computes_the_extent_from_the_dims_and_attributes(pad):
    spec = pad[0].spec
    assert spec.extents == (("M", "(((N_u + left_u) + right_u))"),)
    assert [f.name for f in spec.tiling_fields if f.source[0] == "dim"] == ["B_u", "N_u"]   # M is no field
    files = project_files(spec)
    host = _lines(files["op_host/pad_custom.cpp"])
    assert ("y_uShape->SetDim(y_uAxis++, ((((x_uShape->GetDim(x_uShape->GetDimNum() - 1)) + "
            "(*context->GetAttrs()->GetAttrPointer<int64_t>(0))) + (*context->GetAttrs()->GetAttrPointer<int64_t>(1)))));"
            ) in host
    for binding in _bindings(spec):
        assert "const int64_t M_uDim = ((((N_uDim) + (left_u)) + (right_u)));" in _lines(binding)
    launcher = _lines(files["host/main.cpp"])
    assert "const int64_t M_uDim = ((((N_uDim) + (left_uAttr)) + (right_uAttr)));" in launcher
    assert 'Required(args, "M")' not in "\n".join(launcher)       # computed, not asked for


def test_the_exported_operator_sizes_its_output_on_the_simulator(pad):
    from ascendcraft.cann.check import check_project
    result, root = pad
    check = check_project(root / "out" / "project", root / "op.py", trials=1, model_time=False)
    assert check.passed, check.summary()
    assert sorted(c.label for c in check.checks) == sorted(f"group {i} of 5" for i in range(5))


def test_the_project_compiles_against_stub_headers(pad, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    import subprocess
    jobs = [cmd[:-1] + _star_stubs(tmp_path, cmd[-1]) + cmd[-1:] for cmd in _compile_jobs(pad[0].spec, tmp_path)]
    failures = [f"{cmd[-1]}:\n{r.stderr}" for cmd in jobs
                if (r := subprocess.run(cmd, capture_output=True, text=True)).returncode != 0]
    assert not failures, "\n".join(failures)
