"""Origins: every node keeps the span of the writer's source it came from, through every pass
and into the emitted C++, so errors and the timeline name lines the writer wrote."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import ascendcraft
from ascendcraft.errors import AscendcraftError
from ascendcraft.lower import _with_dsl_lines

EX = Path(__file__).resolve().parents[2] / "examples"

_PROD_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.prod(x, dim=0)
R = 8
N = 1024
def get_inputs():
    return [torch.rand(R, N) + 0.5]
def get_init_inputs():
    return []
"""
# a padded window of a computed tile does not lower: select, after linearize, refuses it
_PROD_KERNEL = """# the product over rows
kernel prodk(x: gm f32[R, N]) -> (y: gm f32[N]):
    const T = 256
    for j in parallel(cdiv(N, T)):
        t = load(x[:, j * T:j * T + T])
        p = prod(t, axis=0)
        q = p + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))
        store(y[j * T:j * T + T], q - q + p)
"""


def test_an_error_in_a_late_pass_names_the_writers_line(tmp_path):
    (tmp_path / "op.py").write_text(_PROD_OP)
    (tmp_path / "k.dsl").write_text(_PROD_KERNEL)
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    text = str(info.value)
    # select runs after linearize: the statement is located in k.dsl, not in an intermediate level
    assert "k.dsl:7:" in text and "q = p + 0.0 * sum(window_max(zeros((8,), f32), kernel=(3,), padding=1))" in text and ".linearize.dsl" not in text
    assert "docs/dsl.md" in text and "docs/lowering.md" not in text


def test_emitted_lines_map_back_to_the_dsl_statement_they_implement():
    d = EX / "activation" / "softmax"
    k = ascendcraft.compile(d / "kernel.dsl", d / "op.py", trials=1)
    spec = k.lowered.spec
    src, dsl = spec.kernel_source.splitlines(), (d / "kernel.dsl").read_text().splitlines()
    mapped = dict(spec.dsl_lines)
    assert mapped and all(1 <= n <= len(dsl) and not dsl[n - 1].lstrip().startswith("#") for n in mapped.values())
    reduce_max = [i for i, line in enumerate(src, 1) if "AscendC::ReduceMax<" in line]
    assert reduce_max and all("max(" in dsl[mapped[i] - 1] for i in reduce_max)
    first, last = min(mapped), max(mapped)   # Process(): the helpers after it implement no statement
    exps = [i for i, line in enumerate(src, 1) if "AscendC::Exp(" in line and first <= i <= last]
    assert exps and all("exp(" in dsl[mapped[i] - 1] for i in exps)


def test_a_simulator_report_names_the_dsl_line_of_each_kernel_line():
    d = EX / "activation" / "softmax"
    k = ascendcraft.compile(d / "kernel.dsl", d / "op.py", trials=1)
    spec = k.lowered.spec
    cpp_line, dsl_line = spec.dsl_lines[len(spec.dsl_lines) // 2]
    report = f"kernel.cpp:{cpp_line}: error: [uninit-read] Exp reads src element 0 [block 3]"
    out = _with_dsl_lines(report, spec, k.lowered)
    source_line = (d / "kernel.dsl").read_text().splitlines()[dsl_line - 1].strip()
    assert re.search(rf"kernel\.cpp:{cpp_line}: \[\S*kernel\.dsl:{dsl_line}: ", out) and source_line in out
    assert _with_dsl_lines("kernel.cpp:1: error: x", spec, k.lowered) == "kernel.cpp:1: error: x"


def test_a_made_statement_takes_the_next_origin_else_the_previous_one():
    from ascendcraft.dsl import ast as A
    from ascendcraft.errors import Span
    from ascendcraft.passes import with_origins
    a, b = Span(3, 1, 3, 9), Span(7, 1, 7, 9)

    def stmt(target, span=None):
        return A.Assign(target, A.Int(0), span=span)
    made = with_origins(A.ParallelFor(("i",), (A.Int(4),), (
        stmt("m0"), stmt("w", a), stmt("m1"), stmt("m2"), stmt("v", b), stmt("m3")), span=a))
    assert [s.span.line for s in made.body] == [3, 3, 7, 7, 7, 7]
