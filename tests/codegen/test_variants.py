"""One operator for every dtype of a generic kernel (codegen/variants.py): the OpDef registers a
column per instance, TilingFunc picks the instance by the inputs' dtypes (the tiling key), and the
op_kernel runs it; the operator, built and run on the simulator through its own host code, serves
every group of every dtype."""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import pytest

from ascendcraft.codegen.project import project_files
from ascendcraft.codegen.variants import combine
from codegen_specs import leaky_relu_spec, lowered_project
from test_project import _compile_jobs
from test_star_dims_export import _lines, _star_stubs

SCAN = """\
kernel dim_scan[T: (f16, bf16, f32)](x: gm T[*A(dim), D, *B], dim: i32) -> (y: gm T[*A, D, *B]):
    const TB = 128
    for a, k in parallel(A, cdiv(B, TB)):
        b = k * TB
        acc = cast(load(x[a, 0, b:b + TB]), f32)
        store(y[a, 0, b:b + TB], cast(acc, T))
        for d in range(1, D):
            acc = acc + cast(load(x[a, d, b:b + TB]), f32)
            store(y[a, d, b:b + TB], cast(acc, T))
"""

SCAN_OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, dim):
        return torch.cumsum(x, dim)


CASES = [("f32", [7, 200], -2), ("f16", [4, 96], 1), ("bf16", [2, 3, 40], 0), ("f16", [64], 0), ("f32", [5, 3], 1)]
DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


def get_input_groups():
    return [[torch.randn(shape, dtype=DT[dt]), dim] for dt, shape, dim in CASES]


def get_init_inputs():
    return []
"""


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    """SCAN lowered once per dtype, verified, and written as one operator: (the lowering, its folder)."""
    root = tmp_path_factory.mktemp("scan")
    return lowered_project(root, SCAN, SCAN_OP), root


def test_the_operator_registers_a_column_per_dtype_and_picks_the_instance_by_them(scan):
    result, _ = scan
    spec, why = combine(result.spec, [r.spec for r in result.instances])
    assert why is None and [t.columns for t in spec.inputs + spec.outputs] == [("f32", "f16", "bf16")] * 2
    files = project_files(spec)
    host = _lines(files["op_host/dim_scan_custom.cpp"])
    assert ".DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})" in host
    start = host.index("if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT) {")
    assert host[start + 1:start + 8] == [
        "context->SetTilingKey(0);", "} else if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16) {",
        "context->SetTilingKey(1);", "} else if (context->GetInputDesc(0)->GetDataType() == ge::DT_BF16) {",
        "context->SetTilingKey(2);", "} else {", "return ge::GRAPH_FAILED;"]
    assert "} else if (context->GetInputDataType(0) == ge::DT_BF16) {" in host
    kernel = files["op_kernel/dim_scan_custom.cpp"]
    for k in range(3):
        assert f"if (TILING_KEY_IS({k})) {{" in kernel and f"ascendcraft_instance{k}::Run(x_u, y_u, workspace, tiling);" in kernel
    assert kernel.count('extern "C"') == 1 and kernel.count('#include "kernel_operator.h"') == 1
    # the direct-call build launches one dtype, the first instance's own kernel
    assert "TILING_KEY_IS" not in files["kernel/dim_scan_custom_direct.cpp"]


def test_the_operator_serves_every_group_of_every_dtype_on_the_simulator(scan):
    from ascendcraft.cann.check import check_project
    _, root = scan
    check = check_project(root / "out" / "project", root / "op.py", trials=1, model_time=False)
    assert check.passed and not check.skipped, check.summary()
    assert sorted(c.label for c in check.checks) == sorted(f"group {i} of 5" for i in range(5))


def test_the_operator_compiles_against_stub_headers(scan, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    spec, _ = combine(scan[0].spec, [r.spec for r in scan[0].instances])
    jobs = [cmd[:-1] + _star_stubs(tmp_path, cmd[-1]) + cmd[-1:] for cmd in _compile_jobs(spec, tmp_path)]
    failures = [f"{cmd[-1]}:\n{r.stderr}" for cmd in jobs
                if (r := subprocess.run(cmd, capture_output=True, text=True)).returncode != 0]
    assert not failures, "\n".join(failures)


def test_instances_that_differ_beyond_dtypes_keep_one_dtype_and_say_why():
    main = leaky_relu_spec()
    other = replace(main, inputs=tuple(replace(t, dtype="f16") for t in main.inputs), workspace_bytes="64")
    spec, why = combine(main, [other])
    assert spec is main and "the f16, f32 instance differs from the f32, f32 one (workspace)" in why
