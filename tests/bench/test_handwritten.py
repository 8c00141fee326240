"""bench against hand-written operators: a task folder that carries one (NPUKernelBench's
``answer/0``) gets it verified and timed at the case its kernel was timed at, and ours ÷ its time
in the record, the table and the summary; an answer that does not match gives no ratio."""
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from ascendcraft.bench import run_bench
from ascendcraft.bench.job import BenchOptions
from ascendcraft.bench.report import csv_text

TESTS = Path(__file__).resolve().parent.parent
PROJECT = TESTS / "cann" / "projects" / "leaky_relu"
KERNEL = """\
kernel LeakyRelu(x: gm f32[*S], negative_slope: f32 = 0.01) -> (y: gm f32[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        t = load(x[b * TS:b * TS + TS])
        store(y[b * TS:b * TS + TS], where(t >= 0.0, t, t * negative_slope))
"""


def _task_folder(root: Path, answer_edit: tuple[str, str] | None = None) -> Path:
    """An NPUKernelBench-layout task (level1/Activation/LeakyRelu) whose answer is the test project."""
    folder = root / "tasks" / "level1" / "Activation" / "LeakyRelu"
    (folder / "validation").mkdir(parents=True)
    (folder / "validation" / "module.py").write_text(textwrap.dedent("""\
        import torch
        import torch_npu
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self, negative_slope):
                super().__init__()
                self.negative_slope = negative_slope

            def forward(self, x):
                return torch.nn.functional.leaky_relu(x, self.negative_slope)
        """))
    (folder / "validation" / "prepare_inputs.py").write_text(textwrap.dedent("""\
        import torch


        def get_inputs(param, device=None):
            return [torch.randn(eval(param['shape']), dtype=torch.float32)]


        def get_init_inputs(param, device=None):
            return [float(param['negative_slope'])]
        """))
    (folder / "validation" / "test_cases.csv").write_text(
        "case_id;shape;negative_slope\n0;[8, 1000];0.2\n1;[3, 64, 129];0.2\n")
    shutil.copytree(PROJECT, folder / "answer" / "0")
    if answer_edit:
        path = folder / "answer" / "0" / "op_kernel" / "leaky_relu_custom.cpp"
        text = path.read_text()
        assert answer_edit[0] in text
        path.write_text(text.replace(*answer_edit))
    return folder


@pytest.fixture(scope="module")
def benched(tmp_path_factory):
    root = tmp_path_factory.mktemp("yardstick")
    right = _task_folder(root / "right")
    wrong = _task_folder(root / "wrong", ("LeakyRelu(b, a, slope, n)", "LeakyRelu(b, a, slope * 2, n)"))
    kernels = root / "kernels"
    kernels.mkdir()
    (kernels / "LeakyRelu.dsl").write_text(KERNEL)
    opts = BenchOptions(backend="sim", trials=2)
    return (run_bench([str(right)], kernels=kernels, out=root / "b1", options=opts, jobs=1, timeout=600),
            run_bench([str(wrong)], kernels=kernels, out=root / "b2", options=opts, jobs=1, timeout=600))


def test_a_matching_answer_is_timed_at_the_same_case_and_the_ratio_is_ours_over_its(benched):
    right, _ = benched
    (r,) = right.records
    assert r["correct"], r
    hw = r["handwritten"]
    assert hw["matched"] and hw["time_us"] > 0 and hw["note"] is None
    assert hw["project"].endswith("answer/0")
    assert r["vs_handwritten"] == pytest.approx(r["kernel_us"] / hw["time_us"])
    overall = right.summary["overall"]
    assert overall["handwritten_tasks"] == 1
    assert overall["geomean_vs_handwritten"] == pytest.approx(r["vs_handwritten"])
    md = (right.out / "bench.md").read_text()
    assert "| hand-written µs | ours ÷ hand-written |" in md and f"{r['vs_handwritten']:.2f}" in md
    assert "geomean ours ÷ hand-written" in md
    row = next(line for line in csv_text(right.records).splitlines()[1:])
    assert f"{hw['time_us']}" in row
    saved = [json.loads(line) for line in (right.out / "results.jsonl").read_text().splitlines()]
    assert saved[0]["vs_handwritten"] == r["vs_handwritten"]


def test_an_answer_that_does_not_match_is_no_yardstick_and_the_report_says_why(benched):
    _, wrong = benched
    (r,) = wrong.records
    assert r["correct"]                           # our kernel stands on its own
    hw = r["handwritten"]
    assert not hw["matched"] and hw["time_us"] is None and "vs_handwritten" not in r
    assert "not a yardstick here (mismatch)" in hw["note"]
    md = (wrong.out / "bench.md").read_text()
    assert "## Hand-written operators without a time" in md and "(mismatch)" in md
    assert wrong.summary["overall"]["handwritten_tasks"] == 0


def test_no_handwritten_skips_the_answer(tmp_path):
    folder = _task_folder(tmp_path)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "LeakyRelu.dsl").write_text(KERNEL)
    b = run_bench([str(folder)], kernels=tmp_path / "k", out=tmp_path / "b",
                  options=BenchOptions(backend="sim", trials=1, handwritten=False), jobs=1, timeout=600)
    (r,) = b.records
    assert r["correct"] and "handwritten" not in r
    assert "hand-written" not in (tmp_path / "b" / "bench.md").read_text()
    # a run resumed with the comparison on keeps its records (it adds to a record, changes none)
    again = run_bench([str(folder)], kernels=tmp_path / "k", out=tmp_path / "b", resume=True,
                      options=BenchOptions(backend="sim", trials=1), jobs=1, timeout=600)
    assert again.ran == 0 and again.records == b.records


@pytest.mark.parametrize("path", sorted((TESTS.parent / "benchmarks" / "nkb_kernels").glob("*.dsl")), ids=lambda p: p.stem)
def test_the_yardstick_kernels_parse(path):
    # benchmarks/yardstick.py checks them against NPUKernelBench's tasks, which are not in the repository
    from ascendcraft.dsl.parser import parse
    assert parse(path.read_text()).name
