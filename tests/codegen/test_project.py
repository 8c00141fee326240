"""The generated projects: every file written, parseable, and the C++ checked against stub headers."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import types
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from ascendcraft.codegen.project import (mkb_direct_launch, project_files, render_direct_kernel,
                                         render_mkb_custom_op, write_project)
from ascendcraft.codegen.project_common import python_string_literal
from ascendcraft.codegen.spec import TensorArg
from ascendcraft.codegen.tiling import render_tiling_header
from ascendcraft.errors import UserError
from codegen_specs import leaky_relu_spec, matmul_bias_relu_spec, scale_shift_spec

STUBS = Path(__file__).parent / "stubs"
SIM_INCLUDE = Path(__file__).resolve().parents[2] / "ascendcraft" / "sim" / "include"
SIX_STRINGS = ("project_json_src", "host_tiling_src", "host_operator_src", "kernel_src", "python_bind_src",
               "model_src")
SPECS = [leaky_relu_spec, scale_shift_spec, matmul_bias_relu_spec]


def _six_strings(spec) -> dict[str, str]:
    tree = ast.parse(render_mkb_custom_op(spec))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            found[node.targets[0].id] = node.value.value
    return found


def test_write_project_writes_every_file(tmp_path):
    spec = leaky_relu_spec()
    written = write_project(spec, tmp_path)
    op = spec.op_name
    expected = {f"{op}.json", f"op_host/{op}_tiling.h", f"op_host/{op}.cpp", f"op_kernel/{op}.cpp",
                "msopgen_build.sh", f"kernel/{op}_tiling_data.h", f"kernel/{op}_direct.cpp", "CMakeLists.txt",
                "host/main.cpp", "run.sh", f"binding/{op}_binding.cpp", "binding/setup.py",
                "mkb/direct_launch.json", f"mkb/{op}.py", "README.md"}
    assert {p.relative_to(tmp_path).as_posix() for p in written} == expected
    assert all(p.is_file() for p in written)
    assert (tmp_path / f"op_kernel/{op}.cpp").read_text() == spec.kernel_source
    assert (tmp_path / f"op_host/{op}_tiling.h").read_text() == render_tiling_header(spec)
    for script in ("run.sh", "msopgen_build.sh"):
        assert (tmp_path / script).stat().st_mode & 0o111
        subprocess.run(["bash", "-n", str(tmp_path / script)], check=True)
    ast.parse((tmp_path / "binding/setup.py").read_text())
    assert "Untested on Ascend hardware" in (tmp_path / "README.md").read_text()


def test_msopgen_description():
    ops = json.loads(project_files(scale_shift_spec())["scale_shift_custom.json"])
    assert len(ops) == 1 and ops[0]["op"] == "ScaleShiftCustom"
    assert [(d["name"], d["type"], d["format"], d["param_type"]) for d in ops[0]["input_desc"]] == [
        ("x", ["float"], ["ND"], "required"), ("w", ["float16"], ["ND"], "required")]
    assert [d["name"] for d in ops[0]["output_desc"]] == ["y", "s"]
    assert [(a["name"], a["type"], a["default_value"]) for a in ops[0]["attr"]] == [
        ("alpha", "float", "0.5"), ("steps", "int", "3"), ("flag", "bool", "true")]


def test_op_host_reads_shapes_attributes_and_platform():
    text = project_files(scale_shift_spec())["op_host/scale_shift_custom.cpp"]
    assert "tiling.set_N(static_cast<int64_t>(context->GetInputShape(1)->GetStorageShape().GetDim(0)));" in text
    assert "tiling.set_S(static_cast<int64_t>(context->GetOutputShape(1)->GetStorageShape().GetDim(0)));" in text
    assert "*context->GetAttrs()->GetAttrPointer<float>(0)" in text
    assert "*context->GetAttrs()->GetAttrPointer<int64_t>(1)" in text
    assert "platform.GetCoreNumAiv()" in text and "GetLibApiWorkSpaceSize()" in text
    assert "(int64_t)(blockDim) * (int64_t)(tiling.get_N())" in text      # workspace: GetBlockNum -> blockDim
    assert 'this->AICore().AddConfig("ascend910b");' in text and "OP_ADD(ScaleShiftCustom);" in text
    aic = project_files(replace(scale_shift_spec(), core_type="aic"))["op_host/scale_shift_custom.cpp"]
    assert "platform.GetCoreNumAic()" in aic


def test_six_string_file_defines_exactly_the_six_sources():
    spec = scale_shift_spec()
    strings = _six_strings(spec)
    assert tuple(strings) == SIX_STRINGS
    assert json.loads(strings["project_json_src"])[0]["op"] == "ScaleShiftCustom"
    assert strings["kernel_src"] == spec.kernel_source
    assert strings["host_tiling_src"] == render_tiling_header(spec)
    assert '#include "scale_shift_custom_tiling.h"' in strings["host_operator_src"]
    # aclnn argument order is inputs, attributes, outputs
    assert "EXEC_NPU_CMD(aclnnScaleShiftCustom, x_uContiguous, w_uContiguous, alpha_u, steps_u, flag_u, y_u, s_u);" \
        in strings["python_bind_src"]
    model = ast.parse(strings["model_src"])
    assert "ModelNew" in {n.name for n in model.body if isinstance(n, ast.ClassDef)}


@pytest.mark.parametrize("text", ['plain', 'ends with a quote"', 'two quotes ""', 'has """ and \\n and \\', "'''", ""])
def test_python_string_literal_round_trips(text):
    assert ast.literal_eval(python_string_literal(text)) == text


class _Recorder(types.ModuleType):
    def __init__(self, name, op):
        super().__init__(name)
        self.calls = []
        setattr(self, op, lambda *args: self.calls.append(args) or "result")


def _reference_namespace():
    """A reference module as MultiKernelBench would exec it: Model with a parameter and init args."""
    ns = {}
    exec("import torch\nsteps = 5\n"
         "class Model(torch.nn.Module):\n"
         "    def __init__(self, alpha, n):\n"
         "        super().__init__()\n"
         "        self.alpha = alpha\n"
         "        self.w = torch.nn.Parameter(torch.randn(n, 4))\n", ns)
    return ns


def _model_new(export: str, spec, monkeypatch):
    """(the recorder standing for the built extension, ModelNew's source) of ``export``."""
    monkeypatch.setitem(sys.modules, "torch_npu", types.ModuleType("torch_npu"))
    if export == "six_strings":
        module = _Recorder("custom_ops_lib", spec.op_name)
        monkeypatch.setitem(sys.modules, "custom_ops_lib", module)
        return module, _six_strings(spec)["model_src"]
    module = _Recorder("scale_shift_custom_ext", spec.op_name)
    monkeypatch.setitem(sys.modules, "scale_shift_custom_ext", module)
    return module, next(s["content"] for s in mkb_direct_launch(spec)["sources"] if s["path"] == "ModelNew.py")


@pytest.mark.parametrize("export", ["six_strings", "direct_launch"])
def test_model_new_copies_the_reference_and_calls_the_kernel(export, monkeypatch, tmp_path):
    spec = scale_shift_spec()
    module, source = _model_new(export, spec, monkeypatch)
    ns = _reference_namespace()
    ns["__file__"] = str(tmp_path / "ModelNew.py")
    exec(compile(source, "ModelNew.py", "exec"), ns)
    torch.manual_seed(1024)
    reference = ns["Model"](0.25, 6)
    torch.manual_seed(1024)
    model = ns["ModelNew"](0.25, 6)
    x = torch.ones(2, 6)
    assert model(x) == "result"
    (args,) = module.calls
    assert args[0] is x
    assert torch.equal(args[1], reference.w.detach())              # same seed, same parameter
    assert args[2:] == (0.25, 5, True)                              # init arg, module constant, kernel default


def test_direct_launch_export_matches_the_mkb_backend_format():
    spec = leaky_relu_spec()
    sub = mkb_direct_launch(spec)
    assert sub["entry"] == {"model": "ModelNew.py::ModelNew"} and sub["build"]["type"] == "ascendc_direct_launch"
    paths = {s["path"] for s in sub["sources"]}
    build = sub["build"]
    assert set(build["kernel_sources"]) | set(build["binding_sources"]) <= paths
    assert all(Path(p).parent.as_posix() in build["include_dirs"] for p in paths if p.endswith(".h"))
    sources = {s["path"]: s["content"] for s in sub["sources"]}
    kernel = sources[build["kernel_sources"][0]]
    assert spec.kernel_source in kernel and "leaky_relu_custom<<<blockDim, nullptr, stream>>>(" in kernel
    assert "PYBIND11_MODULE(TORCH_EXTENSION_NAME, module)" in sources[build["binding_sources"][0]]
    assert build["module_name"] == "leaky_relu_custom_ext" and sub["problem"] == "leaky_relu"
    json.loads(json.dumps(sub))


def test_cmake_project_configures_against_a_stand_in_toolkit(tmp_path):
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    spec = leaky_relu_spec()
    project = tmp_path / "project"
    write_project(spec, project)
    text = (project / "CMakeLists.txt").read_text()
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    assert code.count("(") == code.count(")")
    for needed in ("include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)", 'set(SOC_VERSION "Ascend910B2"',
                   'set(RUN_MODE "npu"', "ASCEND_CANN_PACKAGE_PATH", "ascendc_library(leaky_relu_custom_kernels"):
        assert needed in text
    # A toolkit whose ascendc.cmake only records the calls: configure proves the file is valid CMake
    # and that every source it names exists.
    fake = tmp_path / "cann" / "compiler" / "tikcpp" / "ascendc_kernel_cmake"
    fake.mkdir(parents=True)
    (fake / "ascendc.cmake").write_text(
        "function(ascendc_library target type)\n"
        "  foreach(src ${ARGN})\n"
        "    if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${src})\n"
        '      message(FATAL_ERROR "missing ${src}")\n'
        "    endif()\n"
        "  endforeach()\n"
        "  add_library(${target} INTERFACE)\n"
        '  message(STATUS "STUB ascendc_library ${target} ${type} ${ARGN}")\n'
        "endfunction()\n"
        "function(ascendc_include_directories target scope)\nendfunction()\n"
        "function(ascendc_compile_definitions target scope)\n"
        '  message(STATUS "STUB ascendc_compile_definitions ${ARGN}")\n'
        "endfunction()\n")
    run = subprocess.run(["cmake", "-S", str(project), "-B", str(tmp_path / "build"),
                          f"-DASCEND_CANN_PACKAGE_PATH={tmp_path / 'cann'}"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "STUB ascendc_library leaky_relu_custom_kernels SHARED kernel/leaky_relu_custom_direct.cpp" in run.stdout
    assert "STUB ascendc_compile_definitions -DHAVE_WORKSPACE;-DHAVE_TILING" in run.stdout
    missing = subprocess.run(["cmake", "-S", str(project), "-B", str(tmp_path / "build2"),
                              f"-DASCEND_CANN_PACKAGE_PATH={tmp_path}"], capture_output=True, text=True)
    assert missing.returncode != 0 and "ascendc_kernel_cmake not found" in missing.stderr


def _launch_stub(spec, directory: Path) -> None:
    """aclrtlaunch_<op>.h as ascendc_library generates it: GM pointers become void*."""
    params = ", ".join(f"void* {n}" for n in [t.name for t in spec.inputs + spec.outputs] + ["workspace", "tiling"])
    (directory / f"aclrtlaunch_{spec.op_name}.h").write_text(
        "#pragma once\n#include <cstdint>\n#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel\n"
        f'extern "C" uint32_t aclrtlaunch_{spec.op_name}(uint32_t numBlocks, void* stream, {params});\n')


def _compile_jobs(spec, root: Path) -> list[list[str]]:
    project = root / "project"
    write_project(spec, project)
    generated = root / "generated"
    generated.mkdir()
    _launch_stub(spec, generated)
    mkb = root / "mkb"
    sub = mkb_direct_launch(spec)
    for s in sub["sources"]:
        (mkb / s["path"]).parent.mkdir(parents=True, exist_ok=True)
        (mkb / s["path"]).write_text(s["content"])
    (root / "aclnn_binding.cpp").write_text(_six_strings(spec)["python_bind_src"])
    gxx = ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror"]
    op = spec.op_name
    host = [f"-I{STUBS}", f"-I{generated}", f"-I{project / 'kernel'}"]
    return [
        gxx + [f"-I{STUBS}", f"-I{project / 'op_host'}", str(project / "op_host" / f"{op}.cpp")],
        gxx + host + [str(project / "host" / "main.cpp")],
        gxx + host + [str(project / "binding" / f"{op}_binding.cpp")],
        gxx + [f"-I{STUBS}", f"-I{mkb / 'kernel'}", str(mkb / sub["build"]["binding_sources"][0])],
        gxx + [f"-I{STUBS}", str(root / "aclnn_binding.cpp")],
        # kernel translation units against the simulator's AscendC headers
        ["g++", "-std=c++17", "-fsyntax-only", f"-I{SIM_INCLUDE}", f"-I{project / 'kernel'}",
         str(project / "kernel" / f"{op}_direct.cpp")],
        ["g++", "-std=c++17", "-fsyntax-only", f"-I{SIM_INCLUDE}", f"-I{mkb / 'kernel'}",
         str(mkb / sub["build"]["kernel_sources"][0])],
    ]


def test_generated_cpp_compiles_against_stub_headers(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    jobs = []
    for make in SPECS:
        root = tmp_path / make.__name__
        root.mkdir()
        jobs += _compile_jobs(make(), root)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda cmd: subprocess.run(cmd, capture_output=True, text=True), jobs))
    failures = [f"{cmd[-1]}:\n{r.stderr}" for cmd, r in zip(jobs, results) if r.returncode != 0]
    assert not failures, "\n".join(failures)


def test_stub_check_catches_a_wrong_launch_arity(tmp_path):
    """The arity-checked launch stub is what makes the compile test able to fail."""
    spec = leaky_relu_spec()
    _launch_stub(replace(spec, outputs=spec.outputs + (TensorArg("z", "f32", ("B", "N")),)), tmp_path)
    project = tmp_path / "project"
    write_project(spec, project)
    run = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{STUBS}", f"-I{tmp_path}",
                          f"-I{project / 'kernel'}", str(project / "host" / "main.cpp")], capture_output=True, text=True)
    assert run.returncode != 0 and "aclrtlaunch_leaky_relu_custom" in run.stderr


def test_an_output_extent_no_input_carries_is_a_user_error():
    spec = replace(leaky_relu_spec(), outputs=(TensorArg("y", "f32", ("B", "M")),))
    with pytest.raises(UserError, match="output y has extent M"):
        project_files(spec)


def test_names_the_host_code_declares_are_mangled_not_refused():
    # `stream` is a parameter of every aclnn API: a tensor of that name gets a C++ spelling of its own
    spec = replace(leaky_relu_spec(), inputs=(TensorArg("stream", "f32", ("B", "N")),),
                   tiling_fields=tuple(replace(f, source=("dim", "stream", f.source[2])) if f.source[0] == "dim"
                                       else f for f in leaky_relu_spec().tiling_fields))
    files = project_files(spec)
    binding = next(text for name, text in files.items() if "binding" in str(name) and str(name).endswith(".cpp"))
    assert "const at::Tensor& stream_u" in binding


def test_direct_kernel_defines_its_own_tiling_copy():
    text = render_direct_kernel(leaky_relu_spec(), inline_body=False, launch_wrapper=False)
    assert '#include "../op_kernel/leaky_relu_custom.cpp"' in text
    assert "#undef GET_TILING_DATA" in text and "<<<" not in text


def test_cube_kernels_launch_one_block_per_cube_core(tmp_path):
    spec = matmul_bias_relu_spec()
    assert spec.core_type == "mix"
    write_project(spec, tmp_path / "p")
    for f in (tmp_path / "p" / "op_host" / f"{spec.op_name}.cpp", tmp_path / "p" / "host" / "main.cpp"):
        text = f.read_text()
        assert "GetCoreNumAic" in text and "GetCoreNumAiv" not in text, f.name


@pytest.mark.parametrize("export", ["six_strings", "direct_launch"])
def test_model_new_fills_an_optional_input_the_caller_leaves_out(export, monkeypatch, tmp_path):
    """layer_norm(x, normalized_shape, weight=None, bias=None): ModelNew passes the kernel the tensor
    its default stands for, sized from the inputs the caller gave (a star dim's leading axes too)."""
    from ascendcraft.codegen.spec import KernelSpec, TensorArg, TilingField
    base = scale_shift_spec()
    spec = KernelSpec(
        op_name=base.op_name, op_type=base.op_type, outputs=base.outputs, attrs=(),
        inputs=(TensorArg("x", "f32", ("B", "N"), stars=("B",)), TensorArg("weight", "f16", ("N",), default=1.0),
                TensorArg("mask", "f32", ("B", "N"), stars=("B",), default=0.0)),
        tiling_struct=base.tiling_struct, kernel_source=base.kernel_source,
        tiling_fields=(TilingField("B", "int64_t", ("dim", "x", 0)), TilingField("N", "int64_t", ("dim", "x", 1))))
    module, source = _model_new(export, spec, monkeypatch)
    ns = {"__file__": str(tmp_path / "ModelNew.py")}
    exec(compile(source, "ModelNew.py", "exec"), ns)
    x, given = torch.ones(2, 3, 5), torch.full((2, 3, 5), 7.0)
    ns["ModelNew"]()(x, None, given)
    ns["ModelNew"]()(x, torch.zeros(5, dtype=torch.float16), None)
    (first, second) = module.calls
    assert first[0] is x and first[2] is given
    assert first[1].dtype == torch.float16 and torch.equal(first[1], torch.ones(5, dtype=torch.float16))
    assert second[2].shape == (2, 3, 5) and torch.equal(second[2], torch.zeros(2, 3, 5))


def test_model_new_takes_the_references_forward_arguments_and_picks_the_kernels(monkeypatch, tmp_path):
    """forward(x, normalized_shape, weight=None, alpha=...) as the harness calls it: the list the kernel
    leaves out is skipped, a trailing argument left off is None (then filled), a scalar is the attribute."""
    from ascendcraft.codegen.spec import AttrArg, KernelSpec, TensorArg, TilingField
    base = scale_shift_spec()
    spec = KernelSpec(
        op_name=base.op_name, op_type=base.op_type, outputs=base.outputs,
        inputs=(TensorArg("x", "f32", ("B", "N")), TensorArg("weight", "f32", ("N",), default=1.0)),
        attrs=(AttrArg("alpha", "f32", 0.5),), tiling_struct=base.tiling_struct, kernel_source=base.kernel_source,
        tiling_fields=(TilingField("B", "int64_t", ("dim", "x", 0)), TilingField("N", "int64_t", ("dim", "x", 1)),
                       TilingField("alpha", "float", ("attr", "alpha"))),
        forward=("x", None, "weight", "alpha"), forward_keywords=("input", "normalized_shape", "weight", "alpha"))
    module, source = _model_new("six_strings", spec, monkeypatch)
    ns = {"__file__": str(tmp_path / "ModelNew.py")}
    exec(compile(source, "ModelNew.py", "exec"), ns)
    x, w = torch.ones(2, 4), torch.full((4,), 3.0)
    model = ns["ModelNew"]()
    model(x, [4], w, 2.0)
    model(x, [4])
    model(input=x, normalized_shape=[4], alpha=3.0, weight=w)     # by the reference's keywords
    (given, left_off, by_keyword) = module.calls
    assert given[0] is x and given[1] is w and given[2] == 2.0
    assert torch.equal(left_off[1], torch.ones(4)) and left_off[2] == 0.5      # the fill; the kernel's default
    assert by_keyword[0] is x and by_keyword[1] is w and by_keyword[2] == 3.0
    with pytest.raises(TypeError, match="unexpected keyword arguments: eps"):
        model(x, [4], eps=1e-5)


def test_an_op_whose_name_has_a_digit_after_an_underscore_keeps_the_names_msopgen_derives():
    """msopgen names the kernel entry and op_kernel file after the op type (Conv2dCustom -> conv2d_custom);
    a kernel named conv_2d took conv_2d_custom before, which a CANN build (and the simulator's reading
    of the project) does not find."""
    from ascendcraft.cann_names import snake_case
    from codegen_specs import lowered_text_spec
    op = ("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
          "        return x * 2\n\n\ndef get_inputs():\n    return [torch.randn(64)]\n\n\n"
          "def get_init_inputs():\n    return []\n")
    spec = lowered_text_spec("kernel scale_2d(x: gm f32[N]) -> (y: gm f32[N]):\n"
                             "    store(y, load(x) * 2.0)\n", op)
    assert (spec.op_type, spec.op_name) == ("Scale2dCustom", "scale2d_custom")
    assert snake_case(spec.op_type) == spec.op_name
    assert 'void scale2d_custom(' in spec.kernel_source and "op_kernel/scale2d_custom.cpp" in project_files(spec)
