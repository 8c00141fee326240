"""--precision task: a kernel judged by the benchmark's own acceptance check (NPUKernelBench's
custom_check_precision or check_precision, MultiKernelBench's allclose) instead of ours."""
from __future__ import annotations

import json
import textwrap

import pytest
import torch

from ascendcraft.acceptance import _mkb_judge, _nkb_judge
from ascendcraft.checking import check_kernel
from ascendcraft.errors import UserError

from test_groups import npukernelbench_folder

SCALE_ADD = """\
kernel scale_add[T: (f16, bf16, f32)](x: gm T[*S], y: gm T[*S], alpha: f32) -> (z: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        u = cast(load(x[b * TS:b * TS + TS]), f32) + alpha * cast(load(y[b * TS:b * TS + TS]), f32)
        store(z[b * TS:b * TS + TS], cast(u * {factor}, T))
"""

# only the first half of every tile is written
HALF_WRITTEN = """\
kernel scale_add[T: (f16, bf16, f32)](x: gm T[*S], y: gm T[*S], alpha: f32) -> (z: gm T[*S]):
    for b in parallel(1):
        h = S // 2
        u = cast(load(x[0:h]), f32) + alpha * cast(load(y[0:h]), f32)
        store(z[0:h], cast(u, T))
"""


def with_rule(folder, body: str):
    """The folder's prepare_inputs.py with ``custom_check_precision`` defined as ``body``."""
    prepare = folder / "validation" / "prepare_inputs.py"
    prepare.write_text(prepare.read_text() + "\n\ndef custom_check_precision(param, outputs, outputs_new):\n"
                       + textwrap.indent(textwrap.dedent(body), "    "))
    return folder


def test_the_tasks_own_rule_accepts_what_it_accepts_and_ours_still_reports(tmp_path):
    # a 2 % error: ours refuses it; a rule with a 5 % tolerance accepts it
    folder = with_rule(npukernelbench_folder(tmp_path), """\
        diff = (outputs.float() - outputs_new.float()).abs()
        return (1 if bool((diff <= 0.05 * outputs.float().abs().clamp(min=1.0)).all()) else 0), diff, diff
    """)
    kernel = SCALE_ADD.format(factor=1.02)
    assert not check_kernel(kernel, folder, trials=2).passed
    result = check_kernel(kernel, folder, trials=2, precision="task")
    assert result.passed, result.summary()
    trial = result.report.trials[0]
    assert trial.judged_by.startswith("custom_check_precision of prepare_inputs.py (case ")
    assert trial.ours is False
    assert "ours: FAIL" in result.report.summary()
    assert result.report.to_json()["precision"] == "task"


def test_the_rule_sees_each_cases_row_and_a_refusal_names_the_case(tmp_path):
    folder = with_rule(npukernelbench_folder(tmp_path), """\
        return (0 if param['case_id'] == 1 else 1), None, None
    """)
    result = check_kernel(SCALE_ADD.format(factor=1.0), folder, trials=2, precision="task")
    assert not result.passed
    failed = [o for o in result.groups if not o.report.passed] or [result]
    text = failed[0].report.first_failure()
    assert "custom_check_precision of prepare_inputs.py (case 1)" in text, text
    assert "returned 0" in text


def test_an_element_never_written_fails_even_a_rule_that_accepts_everything(tmp_path):
    folder = with_rule(npukernelbench_folder(tmp_path), "return 1, None, None\n")
    result = check_kernel(HALF_WRITTEN, folder, trials=2, precision="task")
    assert not result.passed
    assert "never written" in result.report.first_failure()


def test_a_rule_that_raises_is_a_user_error_naming_it(tmp_path):
    folder = with_rule(npukernelbench_folder(tmp_path), "return 1 / 0\n")
    with pytest.raises(UserError, match=r"custom_check_precision\(\) failed: ZeroDivisionError"):
        check_kernel(SCALE_ADD.format(factor=1.0), folder, trials=2, precision="task")


def test_a_folder_without_a_rule_gets_npukernelbenchs_default_check(tmp_path):
    folder = npukernelbench_folder(tmp_path)
    result = check_kernel(SCALE_ADD.format(factor=1.01), folder, trials=2, precision="task")
    assert not result.passed
    assert "NPUKernelBench's check_precision (max abs 0.001, max rel 0.001)" in result.report.first_failure()


def test_npukernelbenchs_default_check_fails_an_element_only_when_both_errors_are_large():
    ref = torch.tensor([1000.0, 0.5, 2.0])
    assert _nkb_judge([ref], [ref + torch.tensor([0.5, 0.0, 0.0])]) == ""          # abs 0.5, rel 5e-4
    assert _nkb_judge([ref], [ref + torch.tensor([0.0, 0.0005, 0.0])]) == ""       # abs 5e-4, rel 1e-3
    assert "1 elements exceed" in _nkb_judge([ref], [ref + torch.tensor([0.0, 0.0, 0.01])])
    assert "NaN or infinity" in _nkb_judge([ref], [torch.tensor([1000.0, float("nan"), 2.0])])
    flags = torch.tensor([True, False])
    assert _nkb_judge([flags], [flags.clone()]) == ""


def test_multikernelbenchs_allclose_accepts_what_its_atol_swamps():
    ref = torch.full((64,), 1e-6)
    assert _mkb_judge([ref], [torch.zeros(64)]) == ""
    assert "not allclose" in _mkb_judge([ref], [ref + 1e-3])
    assert "differ" in _mkb_judge([torch.tensor([True])], [torch.tensor([False])])


TINY_OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 1e-6


def get_inputs():
    return [torch.randn(8, 256)]


def get_init_inputs():
    return []
"""

ZEROS = """\
kernel tiny(x: gm f32[R, N]) -> (y: gm f32[R, N]):
    for r in parallel(R):
        t = load(x[r, 0:N])
        store(y[r, 0:N], t * 0.0)
"""


def test_an_op_file_gets_multikernelbenchs_check_and_lower_judges_the_backend_the_same_way(tmp_path):
    """An all-zero result passes MultiKernelBench's allclose (every value is under atol): ours refuses
    it (its relative-L2 bound), the task's accepts it, and the backend run is judged as the source."""
    from ascendcraft.lower import lower
    op = tmp_path / "tiny.py"
    op.write_text(TINY_OP)
    assert not check_kernel(ZEROS, op, trials=2).passed
    lowered = lower(ZEROS, op, trials=2, precision="task", model_time=False)
    assert lowered.check.report.precision == "task"
    assert lowered.verification.precision == "task" and lowered.verification.passed
    assert lowered.verification.trials[0].judged_by.startswith("MultiKernelBench's allclose")


def test_cli_check_takes_precision_and_refuses_an_unknown_one(tmp_path, capsys):
    from ascendcraft.cli import main
    op, kernel = tmp_path / "tiny.py", tmp_path / "zeros.dsl"
    op.write_text(TINY_OP)
    kernel.write_text(ZEROS)
    assert main(["check", str(kernel), "--op", str(op), "--trials", "2", "--precision", "task", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"]["verification"]["precision"] == "task"
    assert main(["check", str(kernel), "--op", str(op), "--precision", "theirs"]) == 2
    assert "invalid choice: 'theirs'" in capsys.readouterr().err
    with pytest.raises(UserError, match="unknown precision 'theirs'"):
        check_kernel(ZEROS, op, precision="theirs")


def test_a_rule_that_calls_the_harness_check_precision_loads_and_judges(tmp_path):
    """NPUKernelBench rules often call its framework.utils.check_precision: the loader provides it."""
    folder = npukernelbench_folder(tmp_path)
    prepare = folder / "validation" / "prepare_inputs.py"
    prepare.write_text("from framework.utils import check_precision\n" + prepare.read_text()
                       + "\n\ndef custom_check_precision(param, outputs, outputs_new):\n"
                         "    return check_precision(outputs, outputs_new, max_abs_error=0.05, max_rel_error=0.05)\n")
    assert check_kernel(SCALE_ADD.format(factor=1.02), folder, trials=2, precision="task").passed
    assert not check_kernel(SCALE_ADD.format(factor=1.2), folder, trials=2, precision="task").passed


def test_the_harness_check_precision_returns_its_verdict_and_errors():
    from ascendcraft.acceptance import check_precision
    ok, diff, rel = check_precision([torch.tensor([1.0, 2.0])], [torch.tensor([1.0, 2.5])], 0.1, 0.1)
    assert ok == 0 and diff.tolist() == [0.0, 0.5] and rel[1].item() == pytest.approx(0.25)
    assert check_precision(torch.tensor([1.0]), torch.tensor([1.05]), 0.1, 0.1)[0] == 1
