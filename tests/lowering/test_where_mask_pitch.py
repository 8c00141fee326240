"""A 2-D bool mask from GM selects values whose rows have another pitch than its f16 image: the
mask's bits must follow the values' row pitch (found by the lowering fuzzer: 160 of 198 elements
wrong on the simulator, for a kernel check passed)."""
from __future__ import annotations

import pytest

from compiled import compile_verified

KERNEL = """
kernel masked(x: gm DT[R, C], m: gm bool[R, C]) -> (y: gm DT[R, C]):
    const RB = 3
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        xb = load(x[r:r + RB, :])
        store(y[r:r + RB, :], where(load(m[r:r + RB, :]), EXPR, xb))
"""

OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, m):
        return torch.where(m, REF, x)

R = 17
C = 198

def get_inputs():
    return [XDRAW, torch.rand(R, C) > 0.5]

def get_init_inputs():
    return []
"""


@pytest.mark.parametrize("dtype, expr, ref, draw", [
    ("f32", "xb * 2.0", "x * 2.0", "torch.randn(R, C)"),
    ("f16", "xb * 2.0", "x * 2.0", "torch.randn(R, C).half()"),
    ("i32", "xb + 7", "x + 7", "torch.randint(-1000, 1000, (R, C), dtype=torch.int32)"),
])
def test_a_2d_bool_mask_selects_the_right_elements_of_every_row(tmp_path, dtype, expr, ref, draw):
    kernel = KERNEL.replace("DT", dtype).replace("EXPR", expr)
    op = OP.replace("REF", ref).replace("XDRAW", draw)
    compile_verified(tmp_path, kernel, op, trials=2)
