"""argmax / argmin along the last axis of a 2-D f32 tile (ArgMaxEachRow / ArgMinEachRow): the first
extreme of each row, a NaN winning, as torch does; against PyTorch in the interpreter and on the
simulator, with ties, NaN, infinities, signed zeros and a row tail past a multiple of 64."""
from __future__ import annotations

import pytest
import torch

import ascendcraft
from ascendcraft.errors import AscendcraftError

_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=1), torch.argmin(x, dim=1)
B = 37
C = 300
def get_inputs():
    return [torch.randint(0, 8, (B, C)).float()]     # ties in every row: the first one must win
def get_init_inputs():
    return []
"""

_KERNEL = """
kernel am(x: gm f32[B, C]) -> (y: gm i64[B], z: gm i64[B]):
    const RB = 8
    for rb in parallel(cdiv(B, RB)):
        r = rb * RB
        t = load(x[r:r + RB, :])
        store(y[r:r + RB], argmax(t, axis=1))
        store(z[r:r + RB], argmin(t, axis=-1))
"""


def _compile(tmp_path, kernel=_KERNEL):
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(_OP)
    return ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=2)


def test_the_first_extreme_of_each_row_with_nan_infinities_and_ties(tmp_path):
    k = _compile(tmp_path)
    assert k.report["backend_verification"]["verdict"] == "PASS"
    assert "ReduceMin<float>(red_, sel_, work_" in k.source
    nan, inf = float("nan"), float("inf")
    x = torch.randn(37, 300)
    x[0, 7], x[0, 200] = nan, nan          # the first NaN wins argmax and argmin
    x[1, :] = 2.0                          # all equal: 0
    x[2, 10], x[2, 250] = 9.0, 9.0         # tied maxima: the first
    x[3, :] = -inf                         # all -inf: 0 for both
    x[4, :] = inf
    x[4, 299] = -inf                       # the last column, in the tail past 256
    x[5, :] = 0.0
    x[5, 3] = -0.0                         # -0 == 0: the first zero
    x[6, 299] = 50.0                       # the maximum in the tail
    x[7, 298] = nan                        # a NaN in the tail only
    y, z = k(x)
    assert torch.equal(y, torch.argmax(x, dim=1)) and torch.equal(z, torch.argmin(x, dim=1))


def test_argmax_of_a_1d_tile_is_refused_at_its_line_with_the_form_that_lowers(tmp_path):
    kernel = """
kernel am(x: gm f32[B, C]) -> (y: gm i64[B], z: gm i64[B]):
    for r in parallel(B):
        t = load(x[r, :])
        store(y[r], argmax(t))
        store(z[r], argmin(t))
"""
    with pytest.raises(AscendcraftError) as info:
        _compile(tmp_path, kernel)
    text = str(info.value)
    assert "k.dsl:4:" in text and "load it as a [1, C] tile and take axis=1" in text


def test_an_i32_argmax_of_each_row_feeds_integer_arithmetic(tmp_path):
    # the result tile keeps its int32 element type (an emitter loop once renamed it uint8_t: the Adds
    # after it took its scalar as uint8_t and did not compile, and 300 does not fit a byte)
    from compiled import compile_verified
    compile_verified(tmp_path, """
kernel am(x: gm f32[R, C]) -> (y: gm i32[R]):
    for i in parallel(1):
        store(y[:], argmax(load(x[:, :]), axis=1, dtype=i32) + 300)
""", """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return (torch.argmax(x, dim=1) + 300).int()
R = 16
C = 70
def get_inputs():
    return [torch.randn(R, C)]
def get_init_inputs():
    return []
""", trials=2)
