"""verify(): poisoned outputs, per-dtype tolerances, relative L2, reports."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from ascendcraft.dtypes import round_bf16
from ascendcraft.errors import InterpreterError, UserError
from ascendcraft.task import load_task
from ascendcraft.verify import REL_L2_BOUND, TOLERANCES, poison_buffer, to_numpy, verify
from ascendcraft.tensorspec import TensorSpec

TASKS = Path(__file__).parent / "data" / "tasks"


def shapes(name: str, **kw):
    return load_task(TASKS / f"{name}.py").shapes(**kw)


def softmax(inputs, outputs):
    x = inputs[0]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    outputs[0][...] = e / e.sum(axis=1, keepdims=True)


def relu(inputs, outputs):
    np.maximum(inputs[0], 0, out=outputs[0])


def compare_argmax(inputs, outputs):
    x, k, threshold = inputs
    outputs[0][...] = x > threshold
    outputs[1][...] = x.argmax(axis=1)
    outputs[2][...] = k * 3 - 7


# --------------------------------------------------------------------------- conversion

def test_to_numpy_gm_convention():
    a, d = to_numpy(torch.tensor([1.5, -2.0], dtype=torch.float16))
    assert (a.dtype, d) == (np.float16, "f16")
    b16 = torch.randn(100).to(torch.bfloat16)
    a, d = to_numpy(b16)
    assert (a.dtype, d) == (np.float32, "bf16")
    assert np.array_equal(a, b16.float().numpy()) and np.array_equal(round_bf16(a), a)  # bf16-exact
    for t, want in ((torch.tensor([1], dtype=torch.int8), np.int8), (torch.tensor([1]), np.int64),
                    (torch.tensor([True]), np.bool_), (torch.tensor([7], dtype=torch.uint8), np.uint8)):
        assert to_numpy(t)[0].dtype == want
    t = torch.rand(4, 6).t()                         # non-contiguous
    a, _ = to_numpy(t)
    assert a.flags.c_contiguous and np.array_equal(a, t.numpy())
    with pytest.raises(UserError, match="float64 is not supported"):
        to_numpy(torch.zeros(2, dtype=torch.float64))


def test_poison_values():
    assert np.isnan(poison_buffer(TensorSpec((3,), "f32"))).all()
    assert np.isnan(poison_buffer(TensorSpec((3,), "f16"))).all()
    assert (poison_buffer(TensorSpec((3,), "i32")) == np.iinfo(np.int32).min).all()
    assert (poison_buffer(TensorSpec((3,), "u8")) == 255).all()
    b = poison_buffer(TensorSpec((3,), "bool"))
    assert b.dtype == np.uint8 and (b == 0xAB).all()


# --------------------------------------------------------------------------- passing

def test_correct_runner_passes_and_records_seeds():
    s = shapes("softmax_long")
    seen = []

    def run(inputs, outputs):
        seen.append(inputs[0].copy())
        assert isinstance(inputs[0], np.ndarray) and inputs[0].dtype == np.float32
        assert np.isnan(outputs[0]).all()       # poisoned before the run
        softmax(inputs, outputs)

    rep = verify(run, s, trials=3, seed=10)
    assert rep.passed, rep.summary()
    assert [t.seed for t in rep.trials] == [10, 11, 12]
    assert not np.array_equal(seen[0], seen[1])     # fresh inputs per trial
    out = rep.trials[0].outputs[0]
    assert out.passed and out.n_unwritten == 0 and out.n_mismatched == 0
    assert out.rel_l2 < 1e-5 and out.max_abs_err < 1e-8
    assert rep.first_failure() is None
    lines = rep.summary().splitlines()
    assert len(lines) == 4 and all(line.startswith(f"trial {i} (seed {10 + i}, {d}): PASS")
                                   for i, (line, d) in enumerate(zip(lines[:3], ("op", "signed", "edges"))))
    assert "real shapes" in lines[3] and "f32[3, 100003]" in lines[3]
    json.dumps(rep.to_json())


def test_bool_and_int_outputs_exact():
    rep = verify(compare_argmax, shapes("compare_argmax"))
    assert rep.passed, rep.summary()
    assert [o.dtype for o in rep.trials[0].outputs] == ["bool", "i64", "i32"]

    def off_by_one(inputs, outputs):
        compare_argmax(inputs, outputs)
        outputs[2][1, 3] += 1                        # one integer wrong by 1
    rep = verify(off_by_one, shapes("compare_argmax"), trials=1)
    assert not rep.passed
    o = rep.trials[0].outputs[2]
    assert not o.passed and o.n_mismatched == 1 and o.max_abs_err == 1
    assert o.worst[0][0] == (1, 3) and o.worst[0][2] == o.worst[0][1] + 1
    assert rep.trials[0].outputs[0].passed and rep.trials[0].outputs[1].passed


def test_bool_output_unwritten_and_invalid():
    def partly(inputs, outputs):
        compare_argmax(inputs, outputs)
        outputs[0][:, -1] = 0xAB                     # last column never written
        outputs[0][0, 0] = 2                         # not a bool
    rep = verify(partly, shapes("compare_argmax"), trials=1)
    o = rep.trials[0].outputs[0]
    assert not o.passed and o.n_unwritten == 5 and o.n_mismatched == 1
    assert "neither 0 nor 1" in o.problem
    assert "unwritten" in rep.first_failure()


def test_runner_may_fill_bool_output_with_a_bool_array():
    def as_bool(inputs, outputs):
        compare_argmax(inputs, outputs)
        outputs[0] = inputs[0] > inputs[2]
    assert verify(as_bool, shapes("compare_argmax"), trials=1).passed


def test_f16_bf16_inputs_and_tolerance():
    s = shapes("half_gelu")

    def gelu(inputs, outputs, error=0.0):
        a, b = inputs
        assert a.dtype == np.float16 and b.dtype == np.float32
        af = a.astype(np.float64)
        from math import erf
        g = 0.5 * af * (1 + np.vectorize(erf)(af / np.sqrt(2)))
        outputs[0][...] = (g.astype(np.float16).astype(np.float32) + b) * (1 + error)
    assert verify(gelu, s).passed
    # f32 output: a 0.1% error is outside rtol=1e-4 for the larger values
    assert not verify(lambda i, o: gelu(i, o, error=1e-3), s, trials=1).passed


# --------------------------------------------------------------------------- failing

def test_all_zero_softmax_over_long_row_fails():
    s = shapes("softmax_long")
    x = s.make_inputs(0)[0]
    ref = torch.softmax(x, dim=1).numpy()
    atol, rtol = TOLERANCES["f32"]
    assert np.allclose(np.zeros_like(ref), ref, atol=atol, rtol=rtol)  # allclose alone is fooled
    rep = verify(lambda i, o: o[0].fill(0), s)
    assert not rep.passed and not any(t.passed for t in rep.trials)
    o = rep.trials[0].outputs[0]
    assert o.n_mismatched == 0 and o.n_unwritten == 0     # nothing outside allclose ...
    assert o.rel_l2 == pytest.approx(1.0) and o.rel_l2 > REL_L2_BOUND["f32"]   # ... but rel-L2 is 1
    msg = rep.first_failure()
    assert "relative L2 error 1 > 0.0002" in msg and "seed 0" in msg and "output 0" in msg
    assert "expected" in msg and "got 0" in msg and len(msg) < 600


def test_slightly_wrong_small_values_fail_on_rel_l2():
    s = shapes("softmax_long")

    def biased(inputs, outputs):
        softmax(inputs, outputs)
        outputs[0] *= 1.05                            # 5% too big: every |d| < 1e-6 << atol
    rep = verify(biased, s, trials=1)
    o = rep.trials[0].outputs[0]
    assert not rep.passed and o.n_mismatched == 0 and o.rel_l2 == pytest.approx(0.05, rel=1e-3)


def test_partly_unwritten_output_fails():
    s = shapes("relu")

    def half(inputs, outputs):
        np.maximum(inputs[0][:10], 0, out=outputs[0][:10])   # rows 10.. never written
    rep = verify(half, s, trials=2)
    assert not rep.passed
    o = rep.trials[0].outputs[0]
    assert o.n_unwritten == 6 * 1000 and o.n_mismatched == 0
    assert o.worst[0] == ((10, 0), pytest.approx(o.worst[0][1]), "unwritten")
    msg = rep.first_failure()
    assert "6000 of 16000 elements unwritten" in msg and "[10, 0]" in msg


def test_computed_nan_is_a_mismatch_not_unwritten():
    s = shapes("relu")

    def nan_at(inputs, outputs):
        relu(inputs, outputs)
        outputs[0][2, 5] = np.nan
        outputs[0][3, 1] = np.inf
    rep = verify(nan_at, s, trials=1)
    o = rep.trials[0].outputs[0]
    assert not rep.passed and o.n_unwritten == 0 and o.n_mismatched == 2
    assert {w[0] for w in o.worst} == {(2, 5), (3, 1)}
    assert "NaN/Inf" in o.problem


def test_nan_in_the_right_place_passes_and_misplaced_fails(tmp_path):
    src = (TASKS / "relu.py").read_text().replace("return torch.relu(x)", "return torch.log(x)")
    (tmp_path / "log.py").write_text(src)           # log of negative inputs: NaN; log(0) would be -inf
    s = load_task(tmp_path / "log.py").shapes()

    def log(inputs, outputs):
        with np.errstate(invalid="ignore", divide="ignore"):
            outputs[0][...] = np.log(inputs[0])
    assert verify(log, s).passed

    def log_no_nan(inputs, outputs):
        log(inputs, outputs)
        outputs[0][np.isnan(outputs[0])] = 0.0
    rep = verify(log_no_nan, s, trials=1)
    assert not rep.passed and rep.trials[0].outputs[0].n_mismatched > 0


def test_wrong_shape_dtype_or_count_fails():
    s = shapes("relu")
    rep = verify(lambda i, o: o.__setitem__(0, np.zeros((16, 999), np.float32)), s, trials=1)
    assert not rep.passed and "shape [16, 999], the reference has [16, 1000]" in rep.first_failure()
    rep = verify(lambda i, o: o.__setitem__(0, np.maximum(i[0], 0).astype(np.float64)), s, trials=1)
    assert not rep.passed and "dtype float64, expected float32" in rep.first_failure()
    rep = verify(lambda i, o: o.append(np.zeros(3)), s, trials=1)
    assert not rep.passed and "2 output buffers" in rep.first_failure()


def test_errors_from_the_runner_propagate():
    err = InterpreterError("tile exceeds the unified buffer")

    def boom(inputs, outputs):
        raise err
    with pytest.raises(InterpreterError) as e:
        verify(boom, shapes("relu"))
    assert e.value is err
    with pytest.raises(UserError, match="at least 1"):
        verify(relu, shapes("relu"), trials=0)


def test_inputs_modified_by_the_kernel_do_not_change_the_reference():
    def clobber(inputs, outputs):
        relu(inputs, outputs)
        inputs[0][...] = 0
    assert verify(clobber, shapes("relu")).passed


# --------------------------------------------------------------------------- reduced shapes in reports

def test_reduced_shapes_reported():
    s = shapes("big_relu", max_bytes=1 << 20)
    rep = verify(relu, s, trials=3)
    assert rep.passed, rep.summary()
    assert rep.shapes["reduced"] is True
    assert rep.shapes["original"] == {"batch_size": 4096, "dim": 393216}
    assert rep.shapes["inputs"][0]["shape"] == list(s.input_specs[0].shape)
    last = rep.summary().splitlines()[-1]
    assert last.startswith("PASS (3/3 trials) on reduced shapes") and "batch_size=" in last and "real 4096" in last
    j = rep.to_json()
    assert json.loads(json.dumps(j))["shapes"]["overrides"] == s.overrides
    assert j["tolerances"]["f32"] == {"atol": 1e-4, "rtol": 1e-4, "rel_l2": REL_L2_BOUND["f32"]}


def test_layer_norm_with_parameters_as_extra_inputs():
    s = shapes("layer_norm")
    params = s.parameter_values()
    w, b = (to_numpy(params[k])[0] for k in ("ln_weight", "ln_bias"))

    def ln(inputs, outputs, use_params=True):
        x = inputs[0].astype(np.float64)
        mean = x.mean(axis=(1, 2), keepdims=True)
        var = x.var(axis=(1, 2), keepdims=True)
        y = (x - mean) / np.sqrt(var + s.attributes["eps"])
        outputs[0][...] = y * w + b if use_params else y
    assert verify(ln, s).passed
    assert not verify(lambda i, o: ln(i, o, use_params=False), s, trials=1).passed


def test_f16_and_bf16_outputs(tmp_path):
    (tmp_path / "halves.py").write_text(
        "import torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def forward(self, x):\n        return (x * 3).half(), (x - 1).bfloat16()\n\n\n"
        "def get_inputs():\n    return [torch.rand(9, 65)]\n\n\ndef get_init_inputs():\n    return []\n")
    s = load_task(tmp_path / "halves.py").shapes()
    assert [o.dtype for o in s.output_specs] == ["f16", "bf16"]

    def run(inputs, outputs, skip=0):
        x = inputs[0]
        assert outputs[0].dtype == np.float16 and outputs[1].dtype == np.float32   # bf16 held in f32
        outputs[0][skip:] = (x[skip:] * 3).astype(np.float16)
        outputs[1][...] = round_bf16(x - 1)
    rep = verify(run, s)
    assert rep.passed, rep.summary()
    rep = verify(lambda i, o: run(i, o, skip=2), s, trials=1)
    o = rep.trials[0].outputs[0]
    assert not rep.passed and o.n_unwritten == 2 * 65 and o.n_mismatched == 0   # f16 poison recognised
    assert rep.trials[0].outputs[1].passed


def test_l2_norms_of_huge_finite_values_neither_overflow_nor_warn():
    # a float64 reference above 1e154 (a cumprod of adversarial inputs) squared overflows: the
    # relative L2 became inf / inf = NaN, which no bound rejects, and numpy warned on the terminal
    import math
    import warnings

    from ascendcraft.compare import float_slack, l2_norm
    big = np.array([3e200, -4e200])
    assert l2_norm(big) == pytest.approx(5e200) and l2_norm(np.zeros(3)) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, rel = float_slack(torch.tensor(big), torch.tensor(big), "f32")
    assert math.isfinite(rel) and rel > 0


def test_an_output_written_in_a_coarser_dtype_is_judged_at_its_precision():
    """A CANN operator whose OpDef writes bf16 where torch's reference is f32 (a bf16 tensor times an
    f32 scalar tensor promotes): its bf16 rounding fails at f32's precision and passes at bf16's,
    and written_as never loosens an output to a dtype finer than the reference's."""
    s = shapes("relu")

    def bf16_relu(inputs, outputs):
        outputs[0][...] = round_bf16(np.maximum(inputs[0], 0))

    assert not verify(bf16_relu, s, trials=1).passed
    assert verify(bf16_relu, s, trials=2, written_as=["bf16"]).passed
    wrong = verify(lambda i, o: o[0].__setitem__(..., round_bf16(np.maximum(i[0], 0)) * 1.5), s, trials=1,
                   written_as=["bf16"])
    assert not wrong.passed


def test_an_output_written_in_f16_into_the_references_f32_buffer_is_judged_as_f16():
    """f16 has a buffer type of its own: the f16 values an operator wrote, widened into the f32
    buffer of a reference that torch promotes, are judged as the f16 array they were."""
    s = shapes("relu")

    def f16_relu(inputs, outputs):
        outputs[0][...] = np.maximum(inputs[0], 0).astype(np.float16)

    assert not verify(f16_relu, s, trials=1).passed
    assert verify(f16_relu, s, trials=2, written_as=["f16"]).passed
