"""A CANN project checked against an op file: its host code tiles, its kernel runs, the outputs
are verified as check verifies; the binding of forward tensors and attributes; sim-op's CLI."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ascendcraft.cann.bind import bind_case
from ascendcraft.cann.check import check_project
from ascendcraft.cli import main
from ascendcraft.errors import UserError
from ascendcraft.sim.host import describe_project
from ascendcraft.task import load_task

HERE = Path(__file__).parent
PROJECT = HERE / "projects" / "leaky_relu"
OP = HERE / "leaky_op.py"


def _edited(tmp_path, where: str, old: str, new: str) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    path = copy / where
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return copy


def test_a_right_operator_passes_every_trial_and_gets_a_modeled_time():
    r = check_project(PROJECT, OP, trials=3)
    assert r.passed and r.operator == "LeakyReluCustom"
    assert len(r.checks[0].report.trials) == 3 and all(t.passed for t in r.checks[0].report.trials)
    assert r.time_us > 0 and r.block_dim == 48 and r.sandboxed
    assert "PASSED" in r.summary() and "x: f32[37, 1001]" in r.summary()


def test_a_wrong_kernel_fails_with_the_worst_elements(tmp_path):
    wrong = _edited(tmp_path, "op_kernel/leaky_relu_custom.cpp", "LeakyRelu(b, a, slope, n)", "LeakyRelu(b, a, slope * 2, n)")
    r = check_project(wrong, OP, trials=2, model_time=False)
    assert not r.passed and "elements wrong" in r.first_failure() and "expected" in r.first_failure()


def test_the_attribute_binds_by_name_from_the_op():
    # the op's slope is 0.2 (get_init_inputs); the OpDef's default 0.01 would fail the check
    sig = describe_project(PROJECT)
    shapes = load_task(OP).shapes()
    case = bind_case(sig, shapes, [np.zeros((37, 1001), np.float32)])
    assert case.attrs == {"negative_slope": 0.2} and case.inputs[0].shape == (37, 1001)

    class Nothing:           # a forward that passes nothing for x
        input_names, input_specs = (), ()
        attributes, parameters, output_specs = {}, {}, ()
    with pytest.raises(UserError, match="required input x gets no tensor"):
        bind_case(sig, Nothing, [])


def test_a_number_the_op_passes_where_the_operator_wants_a_tensor_binds_as_one():
    """TopKV3's k, Fill's dims, a Foreach op's scalar weight: the OpDef takes a tensor the reference
    passes as a number or list: by name, else the forward's only value no attribute takes."""
    sig = describe_project(PROJECT)

    class Forward:
        input_names, input_specs = ("value",), (None,)
        attributes, parameters, output_specs = {}, {}, ()
    for names in (("x",), ("value",)):
        Forward.input_names = names
        case = bind_case(sig, Forward, [3.0])
        x = case.inputs[0]
        assert x.shape == () and x.dtype == np.float32 and float(x) == 3.0


def test_inputs_travel_in_the_dtypes_the_opdef_declares():
    """A .ScalarList() input takes the dtype of the OpDef column the tensors match (CANN's Foreach ops
    declare int64 scalars for int32 tensors): the framework converts the value, so does the binding.
    A bool mask the OpDef declares as uint8 is passed as its bytes."""
    from types import SimpleNamespace

    from ascendcraft.sim.host import ParamSig
    sig = SimpleNamespace(name="MulScalars", attrs=(), outputs=(), inputs=(
        ParamSig("x", "REQUIRED", ("DT_FLOAT", "DT_INT32"), ("ND", "ND"), False, False),
        ParamSig("scalars", "REQUIRED", ("DT_FLOAT", "DT_INT64"), ("ND", "ND"), False, True)))

    class Forward:
        input_names, input_specs = ("x", "scalars"), (None, None)
        attributes, parameters, output_specs = {}, {}, ()
    for x, want in ((np.ones(4, np.int32), np.int64), (np.ones(4, np.float32), np.float32)):
        case = bind_case(sig, Forward, [x, np.array([3], np.int32)])
        assert case.inputs[0] is x and case.inputs[1].dtype == want and case.inputs[1][0] == 3
    # a bool mask where the OpDef declares uint8 (and no bool) travels as its bytes
    masked = SimpleNamespace(name="Masked", attrs=(), outputs=(), inputs=(
        ParamSig("mask", "REQUIRED", ("DT_UINT8",), ("ND",), False, False),))
    Forward.input_names, Forward.input_specs = ("mask",), (None,)
    mask = np.array([True, False, True])
    bound = bind_case(masked, Forward, [mask]).inputs[0]
    assert bound.dtype == np.uint8 and list(bound) == [1, 0, 1]


def test_the_cli_checks_and_runs_a_case(tmp_path, capsys):
    assert main(["sim-op", str(PROJECT), "--op", str(OP), "--trials", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "passed" and doc["result"]["operator"] == "LeakyReluCustom"
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"inputs": [{"shape": [4, 100], "dtype": "float32"}], "attrs": {"negative_slope": 0.5}}))
    assert main(["sim-op", str(PROJECT), "--case", str(case)]) == 0
    out = capsys.readouterr().out
    assert "OK  operator LeakyReluCustom" in out and "output y: float32[4, 100]" in out


@pytest.mark.parametrize("args, words", [
    (["sim-op", "no/such/project", "--op", str(OP)], "no such project folder"),
    (["sim-op", str(PROJECT)], "one of the arguments --op --case is required"),
])
def test_bad_input_is_a_clear_error(capsys, args, words):
    assert main(args) == 2
    assert words in capsys.readouterr().err


def test_an_input_binds_to_the_tensor_model_init_took_and_extra_outputs_are_not_judged(tmp_path):
    project, op = HERE / "projects" / "scale_by_gamma", HERE / "gamma_op.py"
    r = check_project(project, op, trials=2)
    assert r.passed and r.block_dim == 8          # the host code's choice: fewer blocks than cores
    # the gamma the operator read is the one the reference used: a different one fails
    wrong = tmp_path / "other_gamma.py"
    wrong.write_text(op.read_text().replace("return x * self.gamma", "return x * (self.gamma + 1)"))
    assert not check_project(project, wrong, trials=1, model_time=False).passed


def test_an_extra_output_infer_data_type_leaves_unset_takes_its_opdef_dtype(tmp_path):
    """CrossEntropyLoss's InferDataType sets its loss and leaves zloss unset: the output is allocated
    in the dtype the OpDef's column declares, as a caller would."""
    project = tmp_path / "project"
    shutil.copytree(HERE / "projects" / "scale_by_gamma", project)
    host = project / "op_host" / "scale_by_gamma.cpp"
    text = host.read_text()
    text = text.replace("}  // namespace ge", """static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));   // x_out left unset
    return GRAPH_SUCCESS;
}
}  // namespace ge""")
    text = text.replace("this->SetInferShape(ge::InferShape);",
                        "this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);")
    host.write_text(text)
    assert check_project(project, HERE / "gamma_op.py", trials=1, model_time=False).passed


def test_forward_tensors_bind_by_name_when_every_one_names_an_input():
    sig = describe_project(HERE / "projects" / "scale_by_gamma")

    class Shapes:            # a forward (gamma, x): by name, not by position
        input_names, input_specs = ("gamma", "x"), (None, None)
        attributes, parameters, output_specs = {}, {}, ()
    g, x = np.ones(4, np.float32), np.zeros((2, 4), np.float32)
    case = bind_case(sig, Shapes, [g, x])
    assert case.inputs[0] is x and case.inputs[1] is g


LIST_PROJECT = HERE / "projects" / "list_scale"


def test_a_tensor_list_operator_runs_on_the_simulator_element_by_element():
    """A DYNAMIC input and output (a CANN tensor list): the op's list is split per element
    (foreach.py), each element reaches the operator as a list of one, its kernel finds the tensor
    through the list's block, and the attribute binds by name."""
    r = check_project(LIST_PROJECT, HERE / "list_scale_op.py", trials=2)
    assert r.passed, r.summary()
    assert r.operator == "ListScale" and len(r.checks) == 3      # the three elements of the two groups


def test_run_op_takes_a_list_for_a_dynamic_input_and_says_what_it_cannot_run():
    from ascendcraft.sim.host_op import run_op
    x = np.arange(300, dtype=np.float32)
    r = run_op(LIST_PROJECT, [[x]], {"scale": 1.5}, outputs=[((300,), None)])
    assert r.ok, r.result.failure()
    np.testing.assert_array_equal(r.outputs[0], 1.5 * x)
    with pytest.raises(UserError, match="a DYNAMIC output of several tensors is not emulated"):
        run_op(LIST_PROJECT, [[x, x]], {"scale": 1.5}, outputs=[((300,), None)])
    with pytest.raises(UserError, match="input x is DYNAMIC"):
        run_op(LIST_PROJECT, [x], {"scale": 1.5}, outputs=[((300,), None)])


def test_an_operator_that_writes_its_input_in_place_is_judged_on_that_input(tmp_path):
    """An OpDef with fewer outputs than the op returns (Sscal's x = alpha * x): each further output is
    the next input of its dtype and size, as the run left it; a kernel that does not write it fails."""
    project = HERE / "projects" / "scale_in_place"
    op = HERE / "scale_in_place_op.py"
    assert check_project(project, op, trials=2, model_time=False).passed
    idle = tmp_path / "idle"
    shutil.copytree(project, idle)
    kernel = idle / "op_kernel" / "scale_in_place.cpp"
    kernel.write_text(kernel.read_text().replace("Muls(a, a, t.scale, m);", "Muls(a, a, 1.0f, m);"))
    r = check_project(idle, op, trials=1, model_time=False)
    assert not r.passed and "elements wrong" in r.first_failure()


def test_an_operator_writing_bool_where_its_reference_gives_floats_is_verified_and_timed_as_bool():
    # the outputs are the operator's own dtype in the verification and in the timed run alike (a
    # float-sized output buffer would leave 3 of its 4 bytes an element unwritten)
    r = check_project(HERE / "projects" / "is_positive", HERE / "is_positive_op.py", trials=2)
    assert r.passed, r.summary()
    assert r.time_note is None and r.time_us > 0 and r.block_dim == 1


def test_inputs_of_a_dtype_the_opdef_does_not_register_are_refused_not_run():
    """CANN picks a kernel by the OpDef's dtype combinations: f16 data into this f32-only operator is
    refused by name (before, the f32 kernel read it and went past the end of x)."""
    from ascendcraft.sim.host_op import run_op
    with pytest.raises(UserError, match=r"LeakyReluCustom registers no dtype combination for its inputs "
                                        r"\(x float16\); its OpDef takes: x float32"):
        run_op(PROJECT, [np.zeros((4, 8), np.float16)], {"negative_slope": 0.2})


def test_groups_of_dtypes_the_operator_does_not_register_are_set_aside_with_why(tmp_path):
    op = tmp_path / "groups_op.py"
    op.write_text(OP.read_text().replace(
        "def get_inputs():\n    return [torch.randn(37, 1001)]",
        "def get_input_groups():\n    return [[torch.randn(37, 1001)], [torch.randn(5, 9).half()], [torch.randn(3, 64)]]"))
    r = check_project(PROJECT, op, trials=1, model_time=False)
    assert r.passed and sorted(c.label for c in r.checks) == ["group 0 of 3", "group 2 of 3"]
    assert r.skipped == [("group 1 of 3", "LeakyReluCustom registers no dtype combination for its inputs "
                                          "(x float16); its OpDef takes: x float32")]
