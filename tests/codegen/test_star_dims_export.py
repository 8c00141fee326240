"""Star tensors (``x: gm f32[*B, N]``) in the exported projects: the host code serves every rank.

B is the product of the op tensor's leading axes, the declared axes after it are read from the
end, star outputs take the leading axes of the star input B is read from, and a kernel without
star dims exports exactly what it did before (test_project.py).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from ascendcraft.codegen.project import project_files, render_op_host
from ascendcraft.codegen.spec import AttrArg, KernelSpec, TensorArg, TilingField
from ascendcraft.codegen.tiling import render_tiling_header, tiling_values
from ascendcraft.errors import UserError
from codegen_specs import leaky_relu_spec, lowered_project, lowered_text_spec, scale_shift_spec
from test_project import STUBS, _compile_jobs, _six_strings

ROW_SCALE = """\
kernel row_scale(x: gm f32[*B, N], w: gm f32[N]) -> (y: gm f32[*B, N]):
    for r in parallel(B):
        store(y[r, :], load(x[r, :]) * load(w))
"""

ROW_SCALE_OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w):
        return x * w


def get_inputs():
    return [torch.randn(4, 3, 32), torch.randn(32)]


def get_init_inputs():
    return []
"""

_STUB_KERNEL = """#include "kernel_operator.h"

extern "C" __global__ __aicore__ void {op}({params}, GM_ADDR workspace, GM_ADDR tiling)
{{
    GET_TILING_DATA(tilingData, tiling);
    (void)tilingData;
}}
"""

# Real API that star tensors use and the shared stubs do not declare, by the stub header it extends
# and the generated files that need it: ge::GRAPH_FAILED (graph/ge_error_codes.h) in op_host, and
# at::empty over a std::vector<int64_t> (which converts to IntArrayRef) in the bindings.
_STAR_STUBS = {
    "register/op_def_registry.h": (lambda p: p.parent.name == "op_host",
                                   "namespace ge { constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF; }\n"),
    "torch/extension.h": (lambda p: p.stem.endswith("binding"), "#include <vector>\n"
                          "namespace at { Tensor empty(const std::vector<int64_t>& size, TensorOptions options); }\n"),
}


def row_scale_spec() -> KernelSpec:
    """ROW_SCALE through the whole pass chain (no build): a spec as the lowering emits it."""
    return lowered_text_spec(ROW_SCALE, ROW_SCALE_OP)


# A scan along the axis `dim` names: x read as [A, D, B] around it (dsl/star_groups.py).
DIM_SCAN = """\
kernel dim_scan(x: gm f32[*A(dim), D, *B], dim: i32) -> (y: gm f32[*A, D, *B]):
    const TB = 128
    for a, k in parallel(A, cdiv(B, TB)):
        b = k * TB
        acc = load(x[a, 0, b:b + TB])
        store(y[a, 0, b:b + TB], acc)
        for d in range(1, D):
            acc = acc + load(x[a, d, b:b + TB])
            store(y[a, d, b:b + TB], acc)
"""

DIM_SCAN_OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, dim):
        return torch.cumsum(x, dim)


CASES = [([64], 0), ([4, 96], -1), ([2, 3, 128], 1), ([7, 200], -2), ([2, 2, 2, 70], 2), ([5, 3], 1),
         ([3, 5, 64], -3), ([1, 2, 1, 2, 1, 30], 3)]


def get_input_groups():
    return [[torch.randn(shape), dim] for shape, dim in CASES]


def get_init_inputs():
    return []
"""


@pytest.fixture(scope="module")
def dim_scan(tmp_path_factory):
    """DIM_SCAN lowered and verified on the simulator, its project written: (the lowering, its folder)."""
    root = tmp_path_factory.mktemp("dim_scan")
    return lowered_project(root, DIM_SCAN, DIM_SCAN_OP), root


def _spec(name: str, inputs, outputs, fields, attrs=()) -> KernelSpec:
    op_type = "".join(w.title() for w in name.split("_"))
    params = ", ".join(f"GM_ADDR {t.name}" for t in inputs + outputs)
    return KernelSpec(name, op_type, inputs, outputs, attrs, f"{op_type}TilingData", fields,
                      _STUB_KERNEL.format(op=name, params=params))


def wide_spec() -> KernelSpec:
    """Two star inputs (the second checked against the first), a fixed-rank input and three outputs:
    [*B, N], [*B] (the leading axes alone) and [N, B] (B as an axis of a fixed-rank output)."""
    return _spec("wide_custom",
                 (TensorArg("x", "f32", ("B", "N"), stars=("B",)), TensorArg("w", "f16", ("N",), is_parameter=True),
                  TensorArg("z", "f32", ("B", "N"), stars=("B",))),
                 (TensorArg("y", "f32", ("B", "N"), stars=("B",)), TensorArg("s", "f32", ("B",), stars=("B",)),
                  TensorArg("t", "f32", ("N", "B"))),
                 (TilingField("B", "int64_t", ("dim", "x", 0)), TilingField("N", "int64_t", ("dim", "x", 1)),
                  TilingField("alpha", "float", ("attr", "alpha"))),
                 (AttrArg("alpha", "f32", 0.5),))


def elementwise_spec() -> KernelSpec:
    """``(x: gm f32[*S]) -> (y: gm f32[*S])``, as mish: every tensor a star, no axis after it."""
    return _spec("elementwise_custom", (TensorArg("x", "f32", ("S",), stars=("S",)),),
                 (TensorArg("y", "f32", ("S",), stars=("S",)),), (TilingField("S", "int64_t", ("dim", "x", 0)),))


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _bindings(spec: KernelSpec) -> list[str]:
    """The three torch bindings: direct launch, MultiKernelBench direct launch, aclnn."""
    files = project_files(spec)
    direct = next(c["content"] for c in json.loads(files["mkb/direct_launch.json"])["sources"]
                  if c["path"].endswith("_binding.cpp"))
    return [files[f"binding/{spec.op_name}_binding.cpp"], direct, _six_strings(spec)["python_bind_src"]]


# ----------------------------------------------------------------------------- op host

def test_tiling_func_reads_the_star_dim_as_the_product_of_the_leading_axes():
    spec = row_scale_spec()
    assert [t.stars for t in spec.inputs + spec.outputs] == [("B",), (), ("B",)]
    lines = _lines(project_files(spec)["op_host/row_scale_custom.cpp"])
    start = lines.index("const gert::Shape& x_uShape = context->GetInputShape(0)->GetStorageShape();")
    assert lines[start + 1:start + 6] == [
        "if (x_uShape.GetDimNum() < 1) {", "return ge::GRAPH_FAILED;", "}",
        "tiling.set_B_u(static_cast<int64_t>(AxisProduct(x_uShape, 0, x_uShape.GetDimNum() - 1)));",
        "tiling.set_N_u(static_cast<int64_t>(x_uShape.GetDim(x_uShape.GetDimNum() - 1)));"]
    helper = lines.index("int64_t AxisProduct(const gert::Shape& shape, size_t start, size_t count)")
    assert lines[helper + 2:helper + 6] == ["int64_t product = 1;",
                                            "for (size_t axis = start; axis < start + count; ++axis) {",
                                            "product *= shape.GetDim(axis);", "}"]
    assert "StarRun" not in "\n".join(lines)       # no counted star dim


def test_infer_shape_gives_a_star_output_the_leading_axes_of_its_star_input():
    lines = _lines(project_files(row_scale_spec())["op_host/row_scale_custom.cpp"])
    start = lines.index("const gert::Shape* x_uShape = context->GetInputShape(0);")
    assert lines[start + 1:start + 12] == [
        "if (x_uShape->GetDimNum() < 1) {", "return GRAPH_FAILED;", "}",
        "gert::Shape* y_uShape = context->GetOutputShape(0);",
        "y_uShape->SetDimNum(x_uShape->GetDimNum());",
        "size_t y_uAxis = 0;",
        "for (size_t axis = 0; axis < x_uShape->GetDimNum() - 1; ++axis) {",
        "y_uShape->SetDim(y_uAxis++, x_uShape->GetDim(axis));", "}",
        "y_uShape->SetDim(y_uAxis++, x_uShape->GetDim(x_uShape->GetDimNum() - 1));",
        "return GRAPH_SUCCESS;"]


def test_outputs_of_the_leading_axes_alone_and_of_fixed_rank():
    lines = _lines(render_op_host(wide_spec()))
    start = lines.index("gert::Shape* s_uShape = context->GetOutputShape(1);")
    assert lines[start + 1:start + 9] == [
        "s_uShape->SetDimNum(x_uShape->GetDimNum() - 1);", "size_t s_uAxis = 0;",
        "for (size_t axis = 0; axis < x_uShape->GetDimNum() - 1; ++axis) {",
        "s_uShape->SetDim(s_uAxis++, x_uShape->GetDim(axis));", "}",     # nothing follows s's leading axes
        "gert::Shape* t_uShape = context->GetOutputShape(2);", "t_uShape->SetDimNum(2);",
        "t_uShape->SetDim(0, x_uShape->GetDim(x_uShape->GetDimNum() - 1));"]
    assert "t_uShape->SetDim(1, AxisProduct(*x_uShape, 0, x_uShape->GetDimNum() - 1));" in lines


def test_an_elementwise_star_kernel_reads_every_axis_and_checks_no_rank():
    text = render_op_host(elementwise_spec())
    assert "tiling.set_S(static_cast<int64_t>(AxisProduct(x_uShape, 0, x_uShape.GetDimNum())));" in text
    assert "y_uShape->SetDimNum(x_uShape->GetDimNum());" in text
    assert "for (size_t axis = 0; axis < x_uShape->GetDimNum(); ++axis) {" in text
    assert "GRAPH_FAILED" not in text       # any rank, 0 included, has the (no) trailing axes
    readme = project_files(elementwise_spec())["README.md"]
    assert "| `x` | input | [*S] | f32 |" in readme


def test_a_star_dim_read_where_it_is_no_star_gives_the_output_its_declared_rank():
    spec = _spec("cols_custom", (TensorArg("x", "f32", ("N", "B")),), (TensorArg("y", "f32", ("B",), stars=("B",)),),
                 (TilingField("N", "int64_t", ("dim", "x", 0)), TilingField("B", "int64_t", ("dim", "x", 1))))
    lines = _lines(render_op_host(spec))
    assert "y_uShape->SetDimNum(1);" in lines and "y_uShape->SetDim(0, x_uShape->GetDim(1));" in lines
    for binding in _bindings(spec):
        assert "at::Tensor y_u = at::empty({B_uDim}, x_u.options().dtype(at::kFloat));" in _lines(binding)


def test_a_counted_star_dim_is_read_around_the_axis_its_attribute_names(dim_scan):
    spec = dim_scan[0].spec
    assert spec.star_counts == (("A", "dim"),) and spec.inputs[0].stars == ("A", "B")
    lines = _lines(render_op_host(spec))
    start = lines.index("const gert::Shape& x_uShape = context->GetInputShape(0)->GetStorageShape();")
    assert lines[start + 1:start + 11] == [
        "size_t A_uRun = 0;",
        "if (!StarRun(*context->GetAttrs()->GetAttrPointer<int64_t>(0), x_uShape.GetDimNum(), A_uRun)) {",
        "return ge::GRAPH_FAILED;", "}",
        "if (x_uShape.GetDimNum() < A_uRun + 1) {", "return ge::GRAPH_FAILED;", "}",
        "tiling.set_A_u(static_cast<int64_t>(AxisProduct(x_uShape, 0, A_uRun)));",
        "tiling.set_D_u(static_cast<int64_t>(x_uShape.GetDim(A_uRun)));",
        "tiling.set_B_u(static_cast<int64_t>(AxisProduct(x_uShape, A_uRun + 1, x_uShape.GetDimNum() - A_uRun - 1)));"]
    assert "y_uShape->SetDimNum(x_uShape->GetDimNum());" in lines
    for binding in _bindings(spec):
        assert 'const int64_t A_uRun = StarRun(dim_u, x_u.dim(), "x");' in _lines(binding)


def test_the_exported_operator_serves_every_rank_and_dim_on_the_simulator(dim_scan):
    """The project's own TilingFunc and InferShape (built for the simulator's host) split each group's
    x around its dim: every group, ranks 1 to 6, passes."""
    from ascendcraft.cann.check import check_project
    result, root = dim_scan
    check = check_project(root / "out" / "project", root / "op.py", trials=1, model_time=False)
    assert check.passed, check.summary()
    assert sorted(c.label for c in check.checks) == sorted(f"group {i} of 8" for i in range(8))


# ----------------------------------------------------------------------------- torch bindings

def test_bindings_check_star_ranks_read_axes_from_the_end_and_allocate_star_outputs():
    direct, mkb_direct, aclnn = [_lines(b) for b in _bindings(row_scale_spec())]
    for lines in (direct, mkb_direct, aclnn):
        start = lines.index('CheckStarTensor(x_u, "x", at::kFloat, 1);')
        assert lines[start + 1] == 'CheckTensor(w_u, "w", at::kFloat, 1);'
        assert lines.index("const int64_t N_uDim = x_u.size(x_u.dim() - 1);") < lines.index(
            'TORCH_CHECK(w_u.size(0) == N_uDim, "w.size(0) must be ", N_uDim, ", got ", w_u.size(0));')
        at = lines.index("std::vector<int64_t> y_uSizes;")
        assert lines[at + 1:at + 4] == ["AppendAxes(y_uSizes, x_u, 0, x_u.dim() - 1);", "y_uSizes.push_back(N_uDim);",
                                        "at::Tensor y_u = at::empty(y_uSizes, x_u.options().dtype(at::kFloat));"]
        assert 'TORCH_CHECK(t.dim() >= plain, name, " must have at least ", plain, " axes, got ", t.dim());' in lines
        assert "sizes.push_back(t.size(axis));" in lines
    for lines in (direct, mkb_direct):          # the tiling struct takes B
        assert lines[lines.index('CheckTensor(w_u, "w", at::kFloat, 1);') + 1] == \
            "const int64_t B_uDim = AxisProduct(x_u, 0, x_u.dim() - 1);"
        assert "tiling.B_u = static_cast<int64_t>(B_uDim);" in lines and "product *= t.size(axis);" in lines
    # the aclnn binding needs B for nothing: the operator's TilingFunc computes it
    assert not any("B_uDim" in line or "AxisProduct" in line for line in aclnn)


def test_a_second_star_input_is_checked_against_the_first():
    for binding in _bindings(wide_spec()):
        lines = _lines(binding)
        for expected in [
                'TORCH_CHECK(AxisProduct(z_u, 0, z_u.dim() - 1) == B_uDim, "the product of the axes of z that *B '
                'stands for must be ", B_uDim, ", got ", AxisProduct(z_u, 0, z_u.dim() - 1));',
                'TORCH_CHECK(z_u.size(z_u.dim() - 1) == N_uDim, "the axis of z declared N must be ", N_uDim, ", got ", '
                'z_u.size(z_u.dim() - 1));',
                "AppendAxes(s_uSizes, x_u, 0, x_u.dim() - 1);",
                "at::Tensor s_u = at::empty(s_uSizes, x_u.options().dtype(at::kFloat));",
                "at::Tensor t_u = at::empty({N_uDim, B_uDim}, x_u.options().dtype(at::kFloat));"]:
            assert expected in lines, expected


def test_helpers_are_defined_only_where_called():
    for binding in _bindings(elementwise_spec()):
        assert "void CheckTensor(" not in binding and "void CheckStarTensor(" in binding
    for make in (leaky_relu_spec, scale_shift_spec):
        text = "\n".join(project_files(make()).values())
        for star_only in ("AxisProduct", "AppendAxes", "StarRun", "CheckStarTensor", "GRAPH_FAILED", "Axis ="):
            assert star_only not in text, (make.__name__, star_only)


# ----------------------------------------------------------------------------- tiling values

@pytest.mark.parametrize("shape, expected", [((4, 3, 32), (12, 32)), ((12, 32), (12, 32)), ((32,), (1, 32)),
                                             ((2, 0, 5, 32), (0, 32))])
def test_tiling_values_take_the_op_shape_of_a_star_tensor(shape, expected):
    spec = wide_spec()
    values = tiling_values(spec, {"x": shape}, {})
    assert (values["B"], values["N"]) == expected


@pytest.mark.parametrize("shape, expected", [((), 1), ((7,), 7), ((2, 0, 3), 0), ((2, 3, 4, 5), 120)])
def test_tiling_values_of_a_star_alone(shape, expected):
    assert tiling_values(elementwise_spec(), {"x": shape}) == {"S": expected}


def test_tiling_values_refuse_a_star_tensor_without_its_trailing_axes():
    with pytest.raises(UserError, match=r"x is declared \[\*B, N\] but has shape \(\): its axes cannot be split so"):
        tiling_values(wide_spec(), {"x": ()}, {})
    with pytest.raises(UserError, match="rank 2"):
        tiling_values(scale_shift_spec(), {"x": (2, 3, 40), "w": (40, 4), "s": (3,)})


def test_op_shaped_tiling_drives_the_lowered_kernel_on_the_simulator():
    from ascendcraft.sim import build_kernel, run_kernel
    spec = row_scale_spec()
    art = build_kernel(spec.kernel_source, spec.op_name, tiling_header=render_tiling_header(spec))
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 3, 32)).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    values = tiling_values(spec, {"x": x.shape, "w": w.shape, "y": x.shape})
    assert (values["B_u"], values["N_u"]) == (12, 32)
    res = run_kernel(art, [x, w, np.full(x.shape, np.nan, np.float32)], tiling=values, block_dim=4)
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[2].reshape(x.shape), x * w)


# ----------------------------------------------------------------------------- g++ against the stubs

def _star_stubs(directory: Path, source: str) -> list[str]:
    """``-include`` flags adding what _STAR_STUBS declares to the stub headers ``source`` includes."""
    flags = []
    for header, (needs, extra) in _STAR_STUBS.items():
        if needs(Path(source)):
            path = directory / header.replace("/", "_")
            path.write_text(f'#pragma once\n#include "{header}"\n{extra}')
            flags += ["-include", str(path)]
    return flags


def _gxx(tmp_path: Path, specs) -> list[str]:
    """g++ -fsyntax-only over every C++ file of each spec's projects; the failures' messages."""
    jobs = []
    for spec in specs:
        root = tmp_path / spec.op_name
        root.mkdir()
        jobs += [cmd[:-1] + _star_stubs(tmp_path, cmd[-1]) + cmd[-1:] for cmd in _compile_jobs(spec, root)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda cmd: subprocess.run(cmd, capture_output=True, text=True), jobs))
    return [f"{cmd[-1]}:\n{r.stderr}" for cmd, r in zip(jobs, results) if r.returncode != 0]


def test_star_projects_compile_against_stub_headers(tmp_path, dim_scan):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    failures = _gxx(tmp_path, [row_scale_spec(), wide_spec(), elementwise_spec(), dim_scan[0].spec])
    assert not failures, "\n".join(failures)


def test_the_compile_check_sees_the_star_lines(tmp_path):
    """A star read whose helper is missing fails to compile: the check above can fail."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    spec = row_scale_spec()
    source = tmp_path / "op_host" / f"{spec.op_name}.cpp"
    source.parent.mkdir()
    source.write_text(render_op_host(spec).replace("int64_t AxisProduct(", "int64_t UnusedProduct("))
    (source.parent / f"{spec.op_name}_tiling.h").write_text(render_tiling_header(spec))
    run = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{STUBS}", f"-I{source.parent}",
                          *_star_stubs(tmp_path, str(source)), str(source)], capture_output=True, text=True)
    assert run.returncode != 0 and "AxisProduct" in run.stderr
