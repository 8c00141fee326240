"""Errors of the passes and the emitter speak the writer's terms: a name a pass invented (``_t0``,
``_a3``) is shown as the writer's expression it holds (its origin in the writer's file)."""
from __future__ import annotations

import re

import pytest

import ascendcraft
from ascendcraft.dsl.parser import parse
from ascendcraft.errors import AscendcraftError, SourceFile
from ascendcraft.lowering_passes.base import writer_terms
from ascendcraft.lowering_passes.base import PassContext
from ascendcraft.lowering_passes.linearize import Linearize

_OP = """import torch
import torch.nn as nn
import torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.max_pool1d((x * 2.0).unsqueeze(1), 2, 2, padding=1).squeeze(1), x
R = 4
N = 64
def get_inputs():
    return [torch.randn(R, N)]
def get_init_inputs():
    return []
"""

_PASS_NAME = re.compile(r"\b_[a-z]+[0-9]+\b")    # _t0, _a3, _pf1: names passes invent


def _error(tmp_path, kernel: str, op: str = _OP) -> AscendcraftError:
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(op)
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    return info.value


def test_a_selection_error_shows_the_writers_expression_not_a_temporary(tmp_path):
    # linearize names `load(x[r, :]) * 2.0` _t1 before select refuses the padded window over it
    err = _error(tmp_path, """
kernel mp(x: gm f32[R, N]) -> (y: gm f32[R, M], z: gm f32[R, N]):
    for r in parallel(R):
        store(y[r, :], window_max(load(x[r, :]) * 2.0, kernel=(2,), padding=1))
        store(z[r, :], load(x[r, :]))
""")
    first = err.message.splitlines()[0]
    assert "window_max(load(x[r, :]) * 2.0, kernel=(2,), padding=1)" in first
    assert not _PASS_NAME.search(first) and "k.dsl:3:" in str(err)


def test_an_emitter_error_shows_the_writers_statement(tmp_path):
    # a one-element tile stored to a whole row: a broadcast the emitter refuses
    op = _OP.replace("F.max_pool1d((x * 2.0).unsqueeze(1), 2, 2, padding=1).squeeze(1), x",
                     "x.sum(dim=1, keepdim=True).expand_as(x).contiguous()")
    err = _error(tmp_path, """
kernel bc(x: gm f32[R, N]) -> (y: gm f32[R, N]):
    for r in parallel(R):
        t = load(x[r, :])
        store(y[r, :], sum(t, axis=0, keepdims=True))
""", op)
    assert "store(y[r, :], sum(t, axis=0, keepdims=True))" in err.message and not _PASS_NAME.search(err.message)
    assert "k.dsl:4:" in str(err)


def test_writer_terms_replaces_only_names_the_writer_did_not_write():
    """A temporary linearize made is shown as the writer's sub-expression it holds; the writer's own
    names (even one shaped like a temporary, _t9) stay."""
    from dataclasses import replace

    from ascendcraft.chips import load_chip
    from ascendcraft.dsl import ast as A
    from ascendcraft.dsl.checker import Binding, check
    from ascendcraft.passes import with_origins

    text = """kernel k(x: gm f32[N]) -> (y: gm f32[N]):
    for i in parallel(1):
        _t9 = load(x[:])
        store(y[:], exp(_t9 * 2.0) + 1.0)
"""
    kernel = parse(text, "k.dsl")
    chip = load_chip()
    lowered = Linearize().run(kernel, PassContext(check(kernel, Binding({"N": 64}, {}), chip), chip))
    lowered = replace(with_origins(lowered), source=SourceFile("k.dsl", text))
    made = [s.target for s in A.walk(lowered) if isinstance(s, A.Assign) and s.target != "_t9"]
    assert made, "linearize made temporaries"
    out = writer_terms(f"`{made[0]}` and {made[-1]} and _t9 and x", lowered)
    assert not any(re.search(rf"\b{n}\b", out) for n in made)
    assert "_t9" in out and out.endswith(" and x")
    assert "`_t9 * 2.0`" in out            # in backticks outside code
