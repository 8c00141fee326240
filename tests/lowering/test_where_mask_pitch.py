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


# Every reader of a comparison's bits at another width than it was compared at: an f32 comparison
# stored as bytes (read as f16), combined with a GM mask's bits (compared as f16), selecting bool
# values (f16 images), and an f16 comparison selecting f32 values; [16, 100] blocks of 17 x 200 rows
# have an f32 pitch of 104 and an f16 pitch of 112 (was: uninit-read of the Select mask, or wrong rows)
_WIDTHS_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, m, a, b, h):
        return (x > 0, (x < 0.5) & m, torch.where(x > 0.25, a, b),
                torch.where(h > 0, x, -x), (h < 0.5) | (x > 0))

R = 17
C = 200

def get_inputs():
    return [torch.randn(R, C), torch.rand(R, C) < 0.5, torch.rand(R, C) < 0.5, torch.rand(R, C) < 0.5,
            torch.randn(R, C).half()]

def get_init_inputs():
    return []
"""

_WIDTHS = """
kernel widths(x: gm f32[R, C], m: gm bool[R, C], a: gm bool[R, C], b: gm bool[R, C], h: gm f16[R, C]) -> (
        p: gm bool[R, C], q: gm bool[R, C], u: gm bool[R, C], v: gm f32[R, C], w: gm bool[R, C]):
    const RB = 16
    const TC = 100
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = rb * RB
        n = cb * TC
        t = load(x[r:r + RB, n:n + TC])
        g = load(h[r:r + RB, n:n + TC])
        store(p[r:r + RB, n:n + TC], t > 0.0)
        store(q[r:r + RB, n:n + TC], (t < 0.5) & load(m[r:r + RB, n:n + TC]))
        store(u[r:r + RB, n:n + TC], where(t > 0.25, load(a[r:r + RB, n:n + TC]), load(b[r:r + RB, n:n + TC])))
        store(v[r:r + RB, n:n + TC], where(g > 0.0, t, -t))
        store(w[r:r + RB, n:n + TC], (g < 0.5) | (t > 0.0))
"""


def test_a_comparison_s_bits_are_read_at_the_width_it_was_compared_at(tmp_path):
    compile_verified(tmp_path, _WIDTHS, _WIDTHS_OP)
