"""Broadcasting classes, integer comparisons, where between bool / 8-bit / 64-bit values and tile
powers: what check accepts, lower lowers, and the AscendC kernel on the simulator matches PyTorch
(tiles with row and column tails, both shape sets)."""
from __future__ import annotations

import pytest

from ascendcraft.dsl import ast as A
from ascendcraft.errors import AscendcraftError

from compiled import compile_verified as _compile


def _calls(k) -> set:
    return {n.func for n in A.walk(k.lowered.run.final.kernel) if isinstance(n, A.Call)}


def test_outer_one_element_and_zero_d_broadcasts(tmp_path):
    """[R, 1] with [C] either order for + - * / maximum minimum (f32 and i32), a [1, 1] tile and a
    0-d tensor against a tile on either side, a [1, C] row with its [C] slice."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, s, z, i, j):
        col = a[:, :1]
        return (col + b, b - col, col - b, b / col, col / b, torch.maximum(col, b), torch.minimum(b, col), col * b,
                a * s, s - a, a / s, s / a, i[:, :1] + j, j - i[:, :1], a[:1] * b - z, z / b)
R = 7
C = 45
def get_inputs():
    return [torch.randn(R, C), torch.randn(C), torch.randn(1, 1), torch.randn(()),
            torch.randint(-2**30, 2**30, (R, C), dtype=torch.int32), torch.randint(-2**30, 2**30, (C,), dtype=torch.int32)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel ob(a: gm f32[R, C], b: gm f32[C], s: gm f32[1, 1], z: gm f32[], i: gm i32[R, C], j: gm i32[C]) -> (
        y0: gm f32[R, C], y1: gm f32[R, C], y2: gm f32[R, C], y3: gm f32[R, C], y4: gm f32[R, C], y5: gm f32[R, C],
        y6: gm f32[R, C], y7: gm f32[R, C], y8: gm f32[R, C], y9: gm f32[R, C], y10: gm f32[R, C], y11: gm f32[R, C],
        y12: gm i32[R, C], y13: gm i32[R, C], y14: gm f32[1, C], y15: gm f32[C]):
    const RB = 3
    const CB = 16
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        col = load(a[r:r + RB, 0:1])
        one = load(s[:, :])
        icol = load(i[r:r + RB, 0:1])
        for c in range(0, C, CB):
            row = load(b[c:c + CB])
            t = load(a[r:r + RB, c:c + CB])
            irow = load(j[c:c + CB])
            store(y0[r:r + RB, c:c + CB], col + row)
            store(y1[r:r + RB, c:c + CB], row - col)
            store(y2[r:r + RB, c:c + CB], col - row)
            store(y3[r:r + RB, c:c + CB], row / col)
            store(y4[r:r + RB, c:c + CB], col / row)
            store(y5[r:r + RB, c:c + CB], maximum(col, row))
            store(y6[r:r + RB, c:c + CB], minimum(row, col))
            store(y7[r:r + RB, c:c + CB], col * row)
            store(y8[r:r + RB, c:c + CB], t * one)
            store(y9[r:r + RB, c:c + CB], one - t)
            store(y10[r:r + RB, c:c + CB], t / one)
            store(y11[r:r + RB, c:c + CB], one / t)
            store(y12[r:r + RB, c:c + CB], icol + irow)
            store(y13[r:r + RB, c:c + CB], irow - icol)
    for c in parallel(cdiv(C, CB)):
        k = c * CB
        top = load(a[0:1, k:k + CB])
        row = load(b[k:k + CB])
        store(y14[:, k:k + CB], top * row - load(z))
        store(y15[k:k + CB], load(z) / row)
"""
    k = _compile(tmp_path, kernel, op)
    assert {"OuterAdd", "OuterSub", "OuterDiv", "OuterMax", "OuterMin", "OuterMul", "GetValue"} <= _calls(k)


def test_integer_comparisons_and_where_between_narrow_and_wide_values(tmp_path):
    """i32 comparisons over the whole range (values 1 apart above 2**24), u8 / i8 / i16 comparisons,
    comparisons stored to bool tensors, where between i64, u8, i8 and bool values."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, i, a, b, k, l, keep, c, h, x):
        j = (i & -4) | 2
        return (i < j, i >= j, i == j, i != j, i > 5, 7 <= i, (i & 7) == 3, a < b, a > 100,
                torch.where(i > j, k, l), torch.where(keep, a, b), torch.where(i < j, keep, a > b),
                torch.where(i != j, a, 200), torch.where(c > 0, c, 7), h < 0, x > 0)
R = 3
C = 50
def get_inputs():
    return [torch.randint(-2**31, 2**31 - 1, (R, C), dtype=torch.int32),
            torch.randint(0, 256, (R, C), dtype=torch.uint8), torch.randint(0, 256, (R, C), dtype=torch.uint8),
            torch.randint(-2**62, 2**62, (R, C), dtype=torch.int64), torch.randint(-2**62, 2**62, (R, C), dtype=torch.int64),
            torch.rand(R, C) < 0.5, torch.randint(-127, 128, (R, C), dtype=torch.int8),
            torch.randint(-2**15, 2**15, (R, C), dtype=torch.int16), torch.randn(R, C)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel ic(i: gm i32[R, C], a: gm u8[R, C], b: gm u8[R, C], k: gm i64[R, C], l: gm i64[R, C], keep: gm bool[R, C],
          c8: gm i8[R, C], h: gm i16[R, C], x: gm f32[R, C]) -> (
        y0: gm bool[R, C], y1: gm bool[R, C], y2: gm bool[R, C], y3: gm bool[R, C], y4: gm bool[R, C],
        y5: gm bool[R, C], y6: gm bool[R, C], y7: gm bool[R, C], y8: gm bool[R, C],
        y9: gm i64[R, C], y10: gm u8[R, C], y11: gm bool[R, C], y12: gm u8[R, C], y13: gm i8[R, C],
        y14: gm bool[R, C], y15: gm bool[R, C]):
    const CB = 16
    for r in parallel(R):
        for c in range(0, C, CB):
            p = load(i[r, c:c + CB])
            q = (p & -4) | 2
            u = load(a[r, c:c + CB])
            v = load(b[r, c:c + CB])
            m = load(keep[r, c:c + CB])
            s = load(c8[r, c:c + CB])
            store(y0[r, c:c + CB], p < q)
            store(y1[r, c:c + CB], p >= q)
            store(y2[r, c:c + CB], p == q)
            store(y3[r, c:c + CB], p != q)
            store(y4[r, c:c + CB], p > 5)
            store(y5[r, c:c + CB], 7 <= p)
            store(y6[r, c:c + CB], (p & 7) == 3)
            store(y7[r, c:c + CB], u < v)
            store(y8[r, c:c + CB], u > 100)
            store(y9[r, c:c + CB], where(p > q, load(k[r, c:c + CB]), load(l[r, c:c + CB])))
            store(y10[r, c:c + CB], where(m, u, v))
            store(y11[r, c:c + CB], where(p < q, m, u > v))
            store(y12[r, c:c + CB], where(p != q, u, 200))
            store(y13[r, c:c + CB], where(s > 0, s, 7))
            store(y14[r, c:c + CB], load(h[r, c:c + CB]) < 0)
            store(y15[r, c:c + CB], load(x[r, c:c + CB]) > 0.0)
"""
    k = _compile(tmp_path, kernel, op)
    assert "CMPMODE::EQ" in k.source and "int64_t" in k.source


def test_tile_power_with_torch_pow_semantics_for_every_sign(tmp_path):
    """x ** e for a grid of bases (signed, +-0, +-1, +-inf, NaN) by exponents (odd, even, fractional,
    0, +-inf, NaN, huge; each doubled at random per trial), a [C] exponent broadcast over random
    signed rows, a scalar base, and a run-time scalar exponent (an attribute: 3 from the op file)
    of signed values."""
    op = """import torch
import torch.nn as nn
_B = [float('-inf'), -3.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, float('inf'), float('nan')]
_E = [float('-inf'), -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 2.5, float('inf'), float('nan'), 1e10]
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gb", torch.tensor(_B).repeat_interleave(len(_E)).reshape(len(_B), len(_E)))
        self.register_buffer("ge", torch.tensor(_E).repeat(len(_B)).reshape(len(_B), len(_E)))
    def forward(self, x, e, w):
        # the grid's exponents doubled where w > 0 (odd ones become even), so each trial's draw differs
        return self.gb ** torch.where(w > 0, self.ge * 2, self.ge), x ** e, 2.0 ** e, x ** alpha
alpha = 3.0
R = 5
C = 37
def get_inputs():
    e = torch.randint(-3, 4, (C,)).float()
    e[::3] += 0.5
    return [torch.randn(R, C), e, torch.randn(13, 14)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel pw(x: gm f32[R, C], e: gm f32[C], w: gm f32[13, 14], gb: gm f32[13, 14], ge: gm f32[13, 14],
          alpha: f32 = 0.5) -> (g: gm f32[13, 14], y: gm f32[R, C], z: gm f32[C], ya: gm f32[R, C]):
    const CB = 16
    for b in parallel(1):
        p = load(ge[:, :])
        store(g[:, :], load(gb[:, :]) ** where(load(w[:, :]) > 0.0, p * 2.0, p))
    for r in parallel(R):
        for c in range(0, C, CB):
            store(y[r:r + 1, c:c + CB], load(x[r:r + 1, c:c + CB]) ** load(e[c:c + CB]))
            store(ya[r, c:c + CB], load(x[r, c:c + CB]) ** alpha)
    for c in parallel(cdiv(C, CB)):
        store(z[c * CB:c * CB + CB], 2.0 ** load(e[c * CB:c * CB + CB]))
"""
    k = _compile(tmp_path, kernel, op)
    assert {"Ln", "Exp", "Select", "Or"} <= _calls(k)


def test_where_with_a_bool_column_from_gm(tmp_path):
    """A bool [R, 1] column loaded from GM as where's mask over [R, C] tiles (its f16/f32 images
    take their own dtypes' row pitch)."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, cond, x, y):
        return torch.where(cond, x, y)
N = 2
C = 21
W = 45
def get_inputs():
    return [torch.rand(1, C, 1) < 0.5, torch.randn(N, C, W), torch.randn(N, C, W)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel wb(cond: gm bool[1, C, 1], x: gm f32[N, C, W], y: gm f32[N, C, W]) -> (out: gm f32[N, C, W]):
    const CB = 8
    for n, cb in parallel(N, cdiv(C, CB)):
        c = cb * CB
        store(out[n, c:c + CB, :], where(load(cond[0, c:c + CB, :]), load(x[n, c:c + CB, :]), load(y[n, c:c + CB, :])))
"""
    _compile(tmp_path, kernel, op)


def test_a_comparison_of_i64_tiles_is_refused_in_the_writers_words(tmp_path):
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, k):
        return k > 0
N = 40
def get_inputs():
    return [torch.randint(-5, 5, (N,), dtype=torch.int64)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel kc(k: gm i64[N]) -> (y: gm bool[N]):
    for b in parallel(1):
        t = load(k[:])
        store(y[:], t > 0)
"""
    with pytest.raises(AscendcraftError) as info:
        _compile(tmp_path, kernel, op)
    text, message = str(info.value), info.value.message.splitlines()[0]
    assert "k.dsl:4:" in text and "a comparison of i64 tiles" in message and "_t" not in message


def test_where_between_8_bit_and_bool_values_with_broadcasts(tmp_path):
    """where over u8 / i8 / bool values with an [R, 1] mask from GM, a [C] branch, a [1, C] branch,
    a scalar branch on either side and a scalar condition, on tiles with row and column tails."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, cond, a, b, keep, x, s):
        return (torch.where(cond, a, b), torch.where(x > 0, keep, False), torch.where(cond, 3, s),
                torch.where(x[:1] > 0, s, -5), torch.where(torch.tensor(flag), a, b))
flag = False
R = 7
C = 45
def get_inputs():
    return [torch.rand(R, 1) < 0.5, torch.randint(0, 256, (R, C), dtype=torch.uint8),
            torch.randint(0, 256, (C,), dtype=torch.uint8), torch.rand(C) < 0.5, torch.randn(R, C),
            torch.randint(-128, 128, (R, C), dtype=torch.int8)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel wn(cond: gm bool[R, 1], a: gm u8[R, C], b: gm u8[C], keep: gm bool[C], x: gm f32[R, C], s: gm i8[R, C],
          flag: bool = True) -> (y0: gm u8[R, C], y1: gm bool[R, C], y2: gm i8[R, C], y3: gm i8[R, C], y4: gm u8[R, C]):
    const RB = 3
    const CB = 16
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        m = load(cond[r:r + RB, :])
        for c in range(0, C, CB):
            u = load(a[r:r + RB, c:c + CB])
            v = load(b[c:c + CB])
            t = load(x[r:r + RB, c:c + CB])
            i = load(s[r:r + RB, c:c + CB])
            top = load(x[0:1, c:c + CB]) > 0.0
            store(y0[r:r + RB, c:c + CB], where(m, u, v))
            store(y1[r:r + RB, c:c + CB], where(t > 0.0, load(keep[c:c + CB]), False))
            store(y2[r:r + RB, c:c + CB], where(m, 3, i))
            store(y3[r:r + RB, c:c + CB], where(top, i, -5))
            store(y4[r:r + RB, c:c + CB], where(flag, u, v))
"""
    _compile(tmp_path, kernel, op)
