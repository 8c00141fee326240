"""The op loader: task files, shapes (real and reduced), attributes, parameters, errors."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from ascendcraft.errors import UserError, render
from ascendcraft.reduction import CORES
from ascendcraft.task import TensorSpec, load_task

TASKS = Path(__file__).parent / "data" / "tasks"


def task(name: str):
    return load_task(TASKS / f"{name}.py")


class CpuAllocations(TorchDispatchMode):
    """Records the bytes every factory call (rand, empty, ...) makes on a real device."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if any(a.name == "device" for a in func._schema.arguments) and isinstance(out, torch.Tensor) \
                and out.device.type != "meta":
            self.largest = max(self.largest, out.numel() * out.element_size())
        return out


# --------------------------------------------------------------------------- normal tasks

def test_relu_task_loads_with_real_shapes():
    t = task("relu")
    assert (t.name, t.category) == ("relu", "tasks")
    assert "class Model" in t.source
    s = t.shapes()
    assert s is t.real and not s.reduced and s.overrides == {}
    assert s.input_specs == (TensorSpec((16, 1000), "f32"),)
    assert s.output_specs == (TensorSpec((16, 1000), "f32"),)
    assert s.input_names == ("x",)
    assert s.init_args == () and s.parameters == {}
    x = s.make_inputs(3)[0]
    assert torch.equal(s.reference([x])[0], torch.relu(x))


def test_make_inputs_is_seeded_and_fresh():
    s = task("relu").real
    a, b, c = s.make_inputs(7)[0], s.make_inputs(7)[0], s.make_inputs(8)[0]
    assert torch.equal(a, b) and not torch.equal(a, c)
    a.zero_()  # each call builds new tensors
    assert torch.equal(s.make_inputs(7)[0], b)


def test_init_args_bound_by_name_and_module_constants():
    s = task("leaky_relu").real
    assert s.init_args == (0.2,)
    assert s.attributes["negative_slope"] == 0.2        # positional init arg, by parameter name
    assert s.attributes["inplace"] is False             # default of an unpassed parameter
    assert s.attributes["batch_size"] == 8 and s.attributes["dim"] == 257 and s.attributes["slope"] == 0.2
    x = s.make_inputs(0)[0]
    assert torch.equal(s.reference([x])[0], torch.nn.functional.leaky_relu(x, 0.2))


def test_init_parameter_wins_over_module_constant_of_same_name(tmp_path):
    src = (TASKS / "leaky_relu.py").read_text().replace("slope = 0.2", "slope = 0.2\nnegative_slope = 0.7")
    (tmp_path / "lr.py").write_text(src)
    assert load_task(tmp_path / "lr.py").real.attributes["negative_slope"] == 0.2


def test_parameters_of_layer_norm():
    s = task("layer_norm").real
    assert s.attributes["normalized_shape"] == (6, 33) and s.attributes["eps"] == 1e-5
    assert s.parameters == {"ln_weight": TensorSpec((6, 33), "f32"), "ln_bias": TensorSpec((6, 33), "f32")}
    values = s.parameter_values()
    assert set(values) == {"ln_weight", "ln_bias"}
    assert torch.equal(values["ln_weight"], s.parameter_values()["ln_weight"])  # fixed model seed
    assert not torch.equal(values["ln_weight"], torch.ones(6, 33))             # the task re-initialises them
    x = s.make_inputs(1)[0]
    want = torch.nn.functional.layer_norm(x, (6, 33), values["ln_weight"], values["ln_bias"], 1e-5)
    torch.testing.assert_close(s.reference([x])[0], want)


def test_scalar_int_bool_and_multiple_outputs():
    s = task("compare_argmax").real
    assert s.input_specs == (TensorSpec((5, 77), "f32"), TensorSpec((5, 77), "i32"), 0.5)
    assert s.input_names == ("x", "k", "threshold")
    # nested tuple outputs are flattened in order
    assert s.output_specs == (TensorSpec((5, 77), "bool"), TensorSpec((5,), "i64"), TensorSpec((5, 77), "i32"))


def test_f16_and_bf16_inputs():
    s = task("half_gelu").real
    assert [x.dtype for x in s.input_specs] == ["f16", "bf16"]
    assert s.input_names == ("a", "b")


def test_op_py_is_named_after_its_folder(tmp_path):
    folder = tmp_path / "examples" / "activation" / "my_relu"
    folder.mkdir(parents=True)
    shutil.copy(TASKS / "relu.py", folder / "op.py")
    for path in (folder / "op.py", folder):  # the file, or the folder holding op.py
        t = load_task(path)
        assert (t.name, t.category) == ("my_relu", "activation")
    mkb = tmp_path / "reference" / "activation"
    mkb.mkdir(parents=True)
    shutil.copy(TASKS / "relu.py", mkb / "relu.py")
    t = load_task(mkb / "relu.py")
    assert (t.name, t.category) == ("relu", "activation")


def test_meta_fallback_for_item_calls():
    s = task("meta_item").real
    assert s.input_specs == (TensorSpec((6, 50), "f32"), TensorSpec((), "f32"))
    assert s.output_specs == (TensorSpec((6, 50), "f32"),)
    x, scale = s.make_inputs(0)
    torch.testing.assert_close(s.reference([x, scale])[0], x * scale)


# --------------------------------------------------------------------------- reduced shapes

def test_small_task_keeps_real_shapes_unless_budget_is_tiny():
    t = task("relu")
    assert t.shapes(max_bytes=1 << 20) is t.real
    small = t.shapes(max_bytes=20_000)
    assert small.reduced and small.nbytes <= 20_000


def test_big_relu_is_reduced_without_allocating():
    rec = CpuAllocations()
    with rec:
        t = task("big_relu")
        s = t.shapes()                       # default budget 64 MiB
    assert rec.largest == 0                  # everything ran on the meta device
    assert t.real.input_specs == (TensorSpec((4096, 393216), "f32"),)
    assert t.real.output_specs == (TensorSpec((4096, 393216), "f32"),)
    assert s.reduced
    (x,) = s.input_specs
    assert len(x.shape) == 2 and x.dtype == "f32"                          # rank kept
    assert s.nbytes <= 64 << 20 and s.nbytes > (64 << 20) * 0.9           # budget met, and used
    assert s.output_specs == (x,)
    batch, dim = x.shape
    assert s.overrides == {"batch_size": batch, "dim": dim}
    assert s.original == {"batch_size": 4096, "dim": 393216}
    assert batch > CORES and batch % CORES != 0                             # uneven core split
    assert batch % 2 == 1 and dim % 2 == 1                                  # odd: tails for any tile size
    assert dim > batch                                                      # the leading dim shrank first
    assert s.attributes["batch_size"] == batch and s.attributes["dim"] == dim
    assert "reduced" in s.describe() and "batch_size" in s.describe() and "4096" in s.describe()
    assert t.shapes(full=True) is t.real


def test_reduced_shapes_run_and_stay_within_budget():
    s = task("big_relu").shapes(max_bytes=1 << 20)
    assert s.reduced and s.nbytes <= 1 << 20
    (x,) = s.make_inputs(0)
    assert tuple(x.shape) == s.input_specs[0].shape
    assert torch.equal(s.reference([x])[0], torch.relu(x))


def test_derived_constants_stay_consistent_and_pool_settings_untouched():
    t = task("derived_pool")
    s = t.shapes()
    assert s.reduced and s.nbytes <= 64 << 20
    a = s.attributes
    assert a["seq_len"] == 2 * a["base_len"]                   # derived from an overridden constant
    assert (a["kernel_size"], a["stride"], a["padding"]) == (8, 1, 4)
    assert not {"kernel_size", "stride", "padding", "seq_len"} & set(s.overrides)
    x, bias = s.input_specs
    assert x.shape == (a["batch_size"], a["features"], a["seq_len"]) and bias.shape == (a["seq_len"],)
    assert s.init_args == (8, 1, 4)
    assert s.output_specs[0].shape == (a["batch_size"], a["features"], a["seq_len"] + 2 * 4 - 8 + 1)
    assert all(v % 2 == 1 for v in s.overrides.values())
    assert t.shape_constants().keys() == {"batch_size", "features", "base_len"}


def test_reduction_keeps_the_task_valid():
    # GroupNorm needs channels divisible by the groups: an odd channel count would break it.
    s = task("group_norm_big").shapes()
    assert s.reduced and s.nbytes <= 64 << 20
    channels = s.input_specs[0].shape[1]
    assert channels % s.attributes["num_groups"] == 0
    assert len(s.input_specs[0].shape) == 4
    small = task("group_norm_big").shapes(max_bytes=1 << 20)
    (x,) = small.make_inputs(0)
    assert small.reference([x])[0].shape == x.shape


def test_constants_that_must_stay_equal_shrink_together():
    s = task("hinge_broadcast").shapes()
    pred, target = s.input_specs
    assert s.reduced and s.nbytes <= 64 << 20
    assert pred.shape[0] == pred.shape[1] == target.shape[0] > CORES        # not the degenerate B = 1
    assert s.overrides == {"batch_size": pred.shape[0], "input_shape[0]": pred.shape[0]}
    assert s.output_specs == (TensorSpec((), "f32"),)


def test_reference_failing_at_reduced_shapes_is_a_user_error():
    with pytest.raises(UserError) as e:
        task("big_hardcoded").shapes()
    assert "does not run at smaller shapes" in e.value.message and "is invalid for input" in e.value.message
    assert "--full-shapes" in e.value.hint and "--max-bytes" in e.value.hint


def test_reference_errors_at_reduced_shapes_suggest_full_shapes():
    s = task("derived_pool").shapes(max_bytes=1 << 20)
    x, _ = s.make_inputs(0)
    with pytest.raises(UserError) as e:
        s.reference([x, torch.rand(3)])     # inputs that do not fit each other
    assert "Model.forward" in e.value.message and "reduced shapes" in e.value.message
    assert "--full-shapes" in e.value.hint


def test_no_shape_constants_cannot_be_reduced():
    with pytest.raises(UserError) as e:
        task("no_constants_big").shapes()
    assert "no module-level constant" in e.value.message and "--full-shapes" in e.value.hint


def test_huge_inputs_that_need_a_real_run_are_refused_not_allocated():
    with pytest.raises(UserError) as e:
        task("big_item")
    assert "meta device" in e.value.message and "too large" in e.value.message


# --------------------------------------------------------------------------- malformed tasks

@pytest.mark.parametrize("name, needles", [
    ("no_model", ["defines no `class Model(nn.Module)`"]),
    ("generated_solution", ["defines no `class Model", "ModelNew"]),
    ("no_get_inputs", ["defines no get_inputs()"]),
    ("syntax_error", ["syntax error", "syntax_error.py:5", "def forward(self, x)"]),
    ("import_raises", ["importing import_raises.py failed", "NameError", "undefined_constant", "import_raises.py:4"]),
    ("forward_raises", ["Model.forward", "RuntimeError", "forward_raises.py:6", "x @ torch.ones(3, 5)"]),
    ("float64", ["float64 is not supported on Ascend", "input 0"]),
    ("bad_init_args", ["get_init_inputs", "(1, 2, 3)"]),
])
def test_malformed_task_is_a_clear_user_error(name, needles):
    with pytest.raises(UserError) as e:
        task(name)
    text = render(e.value)
    for needle in needles:
        assert needle in text, text
    assert "Traceback" not in text and len(text.splitlines()) <= 3


def test_missing_file_and_missing_get_init_inputs(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        load_task(tmp_path / "nope.py")
    src = (TASKS / "leaky_relu.py").read_text()
    # Model.__init__ has defaults only: get_init_inputs may be left out
    (tmp_path / "a.py").write_text(src.split("def get_init_inputs")[0])
    assert load_task(tmp_path / "a.py").real.attributes["negative_slope"] == 0.01
    # but not when the constructor needs an argument
    (tmp_path / "b.py").write_text(src.split("def get_init_inputs")[0].replace("negative_slope: float = 0.01",
                                                                               "negative_slope: float"))
    with pytest.raises(UserError, match="no get_init_inputs.*negative_slope"):
        load_task(tmp_path / "b.py")


def test_tensor_spec_bytes():
    assert TensorSpec((3, 5), "f16").nbytes == 30 and TensorSpec((), "i64").nbytes == 8


def test_no_shape_constants_within_the_full_size_budget_verify_at_the_real_size():
    """An unmodified task whose literal shapes take more than --max-bytes (147 MiB here) but fit the
    machine is verified at its real size, and says so."""
    t = task("no_constants_mid")
    s = t.shapes()
    assert s is t.real and not s.reduced
    assert "not reduced" in s.describe()


def test_real_extents_keep_one_size_constant_real_and_shrink_the_others():
    t = load_task(Path(__file__).parent / "data" / "policy" / "softmax_wide.py")
    base = t.shapes(max_bytes=8 << 20)
    assert set(base.overrides) == {"batch_size", "dim"}
    found = {e.name: (e.shapes, e.why) for e in t.real_extents(base, (2 << 20, 8 << 20))}
    rows, _ = found["batch_size"]
    assert rows.input_specs[0].shape[0] == 256 and rows.nbytes <= 2 << 20      # the share fits it
    cols, _ = found["dim"]
    assert cols.input_specs[0].shape == (1, 48 * 8192) and cols.nbytes <= 8 << 20   # only the whole budget does
    assert t.real_extents(base, (2 << 20, 8 << 20))[0].shapes is rows           # the same objects again
    cols, = [e for e in t.real_extents(base, (1 << 20,)) if e.name == "dim"]
    assert cols.shapes is None and "cannot be reduced below 3.0 MiB" in cols.why and "dim=393216 kept" in cols.why


def test_an_extent_too_big_for_the_budget_is_stood_in_for_by_one_with_its_residue():
    t = load_task(Path(__file__).parent / "data" / "policy" / "softmax_wide.py")
    base = t.shapes(max_bytes=8 << 20)
    cols, = [e for e in t.real_extents(base, (1 << 20,), modulus=48 * 1000) if e.name == "dim"]
    assert "cannot be reduced below 3.0 MiB" in cols.why and cols.modulus == 48000
    # 393216 = 8 * 48000 + 9216: the largest value of that residue whose one row, in and out, fits 1 MiB
    assert cols.shapes.input_specs[0].shape == (1, 2 * 48000 + 9216)
    assert cols.shapes.nbytes <= 1 << 20 < 8 * (3 * 48000 + 9216)
    none, = [e for e in t.real_extents(base, (1 << 20,), modulus=400000) if e.name == "dim"]
    assert none.shapes is None and none.modulus == 1      # no smaller value has that residue


def test_real_extents_do_no_more_multiply_accumulates_than_the_reduced_shapes():
    # The backend's time follows the work: a real-extent set sized by bytes alone did 9 times the
    # products of the reduced shapes and ran past the simulator's time limit.
    t = load_task(Path(__file__).parent / "data" / "policy" / "linear_wide.py")
    base = t.shapes(max_bytes=24 << 20)
    assert base.overrides == {"batch_size": 511}
    assert t.macs(base.overrides) == 511 * 2048 * 2048
    extent, = t.real_extents(base, (6 << 20, 24 << 20))
    rows = extent.shapes
    assert extent.name == "batch_size" and extent.why == ""
    assert rows.input_specs[0].shape == (1024, 1021)      # 1023 input features would do more products
    assert rows.nbytes < 20 << 20                          # than the base; bytes alone would allow 1365
    assert t.macs(rows.overrides) <= t.macs(base.overrides) < t.macs({"in_features": 1023})
