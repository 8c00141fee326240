"""What check accepts, lower lowers: ``where`` with masks broadcast to the values ([R, 1], [C],
[1, C], a scalar), branches broadcast or scalar on either side, mask logic (& | ~), and i32
branches (selected as the bits of a float view: exact for every integer), against PyTorch in the
interpreter and on the simulator, on tiles with row and column tails."""
from __future__ import annotations

from ascendcraft.dsl import ast as A

from compiled import compile_verified as _compile


_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, idx, keep):
        s = x.sum(dim=1, keepdim=True)
        col = s > 0                                        # [R, 1]
        row = x[0] > 0                                     # [C]
        top = x.amax(dim=0, keepdim=True) > 0.5            # [1, C]
        return (torch.where(col, x, -x),
                torch.where(row, x, 0.5),
                torch.where(top, 1.5, x),                  # a scalar true branch
                torch.where(x > 0, 2.0, s),                # and a broadcast false branch
                torch.where(x > 0.5, idx, torch.full_like(idx, -7)),
                torch.where(col, idx, torch.full_like(idx, 2139095041)),   # bits of a float NaN
                torch.where((x > 0) & (x < 0.5) | (x < -0.5), x, -1.0),
                torch.where(keep, x, x * 3.0),             # a bool [C] mask from GM
                torch.where(~(x > 0), idx, torch.full_like(idx, 3)),
                x if flag else x * 2.0)                    # a scalar mask
flag = False
R = 7
C = 45
def get_inputs():
    return [torch.randn(R, C), torch.randint(-2**31, 2**31 - 1, (R, C), dtype=torch.int32), torch.rand(C) < 0.5]
def get_init_inputs():
    return []
"""

# blocks of 3 rows and 16 columns: 7 x 45 has a row tail and a column tail
_KERNEL = """
kernel wh(x: gm f32[R, C], idx: gm i32[R, C], keep: gm bool[C], flag: bool = True) -> (
            ya: gm f32[R, C], yb: gm f32[R, C], yc: gm f32[R, C], yd: gm f32[R, C], ye: gm i32[R, C],
            yf: gm i32[R, C], yg: gm f32[R, C], yh: gm f32[R, C], yi: gm i32[R, C], yj: gm f32[R, C]):
    const RB = 3
    const CB = 16
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        u = load(x[r:r + RB, :])
        s = sum(u, axis=1, keepdims=True)
        col = s > 0.0
        for c in range(0, C, CB):
            t = load(x[r:r + RB, c:c + CB])
            i = load(idx[r:r + RB, c:c + CB])
            top = max(load(x[:, c:c + CB]), axis=0, keepdims=True) > 0.5
            store(ya[r:r + RB, c:c + CB], where(col, t, -t))
            store(yb[r:r + RB, c:c + CB], where(load(x[0, c:c + CB]) > 0.0, t, 0.5))
            store(yc[r:r + RB, c:c + CB], where(top, 1.5, t))
            store(yd[r:r + RB, c:c + CB], where(t > 0.0, 2.0, s))
            store(ye[r:r + RB, c:c + CB], where(t > 0.5, i, -7))
            store(yf[r:r + RB, c:c + CB], where(col, i, 2139095041))
            store(yg[r:r + RB, c:c + CB], where((t > 0.0) & (t < 0.5) | (t < -0.5), t, -1.0))
            store(yh[r:r + RB, c:c + CB], where(load(keep[c:c + CB]), t, t * 3.0))
            store(yi[r:r + RB, c:c + CB], where(~(t > 0.0), i, 3))
            store(yj[r:r + RB, c:c + CB], where(flag, t, t * 2.0))
"""


def test_where_with_broadcast_masks_and_integer_branches_on_tails(tmp_path):
    # flag's default is True, the op's module constant False: the attribute is bound from the op file
    k = _compile(tmp_path, _KERNEL, _OP)
    final = k.lowered.run.final.kernel
    calls = {n.func for n in A.walk(final) if isinstance(n, A.Call)}
    assert {"Select", "AddColVec", "AddRowVec", "Not", "And", "Or"} <= calls
    assert "ReinterpretCast<float>()" in k.source and "AcBitsAs<float>" in k.source


def test_a_comparison_of_integer_tiles_lowers_exactly(tmp_path):
    """(select_int.py; test_broadcast_rank.py covers every comparison and dtype.)"""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, idx):
        return torch.where(idx > 0, idx, 0)
N = 40
def get_inputs():
    return [torch.randint(-2**31, 2**31 - 1, (N,), dtype=torch.int32)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel ic(idx: gm i32[N]) -> (y: gm i32[N]):
    for b in parallel(1):
        i = load(idx[:])
        store(y[:], where(i > 0, i, 0))
"""
    _compile(tmp_path, kernel, op)


def test_integer_element_wise_ops_are_exact_over_the_whole_i32_range(tmp_path):
    """Negation, scalar and tile arithmetic, maximum, relu and bitwise ops of i32 tiles (& | ~ on
    16-bit views, a scalar operand made a tile first), with tails: exact, as integers."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, i, j):
        return (-i, 5 - i, i * 3 + j, torch.maximum(i, j), torch.relu(i), i & j, i | 7, ~i)
R = 3
C = 50
def get_inputs():
    return [torch.randint(-2**31, 2**31 - 1, (R, C), dtype=torch.int32),
            torch.randint(-2**31, 2**31 - 1, (R, C), dtype=torch.int32)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel ia(i: gm i32[R, C], j: gm i32[R, C]) -> (a: gm i32[R, C], b: gm i32[R, C], c: gm i32[R, C],
                                            d: gm i32[R, C], e: gm i32[R, C], f: gm i32[R, C],
                                            g: gm i32[R, C], h: gm i32[R, C]):
    const CB = 16
    for r in parallel(R):
        for k in range(0, C, CB):
            x = load(i[r, k:k + CB])
            y = load(j[r, k:k + CB])
            store(a[r, k:k + CB], -x)
            store(b[r, k:k + CB], 5 - x)
            store(c[r, k:k + CB], x * 3 + y)
            store(d[r, k:k + CB], maximum(x, y))
            store(e[r, k:k + CB], relu(x))
            store(f[r, k:k + CB], x & y)
            store(g[r, k:k + CB], x | 7)
            store(h[r, k:k + CB], ~x)
"""
    _compile(tmp_path, kernel, op)


def test_a_row_mask_from_gm_selects_whole_rows_without_temporaries_or_small_tiles_on_the_vector_unit(tmp_path):
    # where with an [R, 1] bool mask from GM: one copy (or Duplicate) per row, no full-size temporaries,
    # so [16, 1000] f32 tiles whose three operands fill the UB lower (the broadcast form's ones and
    # zeros tiles took 208,000 of 196,608 bytes and check said NOT LOWERABLE); then f16 values, a
    # scalar branch on either side and i32 values; row tails (R = 37)
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, m, a, b):
        return FORWARD
R = 37
C = 1000
def get_inputs():
    return [torch.rand(R, 1) > 0.5, INPUTS]
def get_init_inputs():
    return []
"""
    wide = """
kernel wm(m: gm bool[R, 1], a: gm f32[R, C], b: gm f32[R, C]) -> (y: gm f32[R, C]):
    const TR = 16
    for i in parallel(cdiv(R, TR)):
        r = i * TR
        store(y[r:r + TR, :], where(load(m[r:r + TR, :]), load(a[r:r + TR, :]), load(b[r:r + TR, :])))
"""
    mixed = """
kernel wm(m: gm bool[R, 1], a: gm f16[R, C], b: gm i32[R, C]) -> (g: gm f16[R, C], f: gm f16[R, C], w: gm i32[R, C]):
    for i in parallel(cdiv(R, 8)):
        r = i * 8
        k = load(m[r:r + 8, :])
        t = load(a[r:r + 8, :])
        store(g[r:r + 8, :], where(k, t, 2.5))
        store(f[r:r + 8, :], where(k, -1.5, t))
        u = load(b[r:r + 8, :])
        store(w[r:r + 8, :], where(k, u, -u))
"""
    # a float result of at most 32 KiB (the f16 [8, 1000] tiles) is selected on the vector unit: the
    # mask's 0/1 values spread over the rows (AddColVec), compared, one Select; a larger one (the f32
    # [16, 1000]) and i32 values take SelectRows
    cases = ((wide, "torch.where(m, a, b)", "torch.randn(R, C), torch.randn(R, C)", 1, False),
             (mixed, "torch.where(m, a, 2.5), torch.where(m, -1.5, a), torch.where(m, b, -b)",
              "torch.randn(R, C).half(), torch.randint(-1000, 1000, (R, C), dtype=torch.int32)", 1, True))
    for n, (kernel, forward, inputs, selects, vector) in enumerate(cases):
        d = tmp_path / str(n)
        d.mkdir()
        k = _compile(d, kernel, op.replace("FORWARD", forward).replace("INPUTS", inputs), trials=2)
        calls = [c.func for c in A.walk(k.lowered.run.final.kernel) if isinstance(c, A.Call)]
        assert calls.count("SelectRows") == selects and ("AddColVec" in calls) == vector


# & and | of masks of different shapes: a byte [R, 1] column from GM with an [R, C] tile (the
# mask of a where, and stored), with a [C] row, a comparison's bits with the column, and the outer
# pair [R, 1] | [C]; 37 x 300 in [16, 128] blocks leaves row and column tails
_BROADCAST_LOGIC_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, c, x):
        return torch.where(a & b, x, -x), a | c, (x > 0) & b, b | c
R = 37
C = 300
def get_inputs():
    return [torch.rand(R, C) < 0.5, torch.rand(R, 1) < 0.5, torch.rand(C) < 0.5, torch.randn(R, C)]
def get_init_inputs():
    return []
"""

_BROADCAST_LOGIC = """
kernel masks(a: gm bool[R, C], b: gm bool[R, 1], c: gm bool[C], x: gm f32[R, C]) -> (
        y: gm f32[R, C], u: gm bool[R, C], v: gm bool[R, C], w: gm bool[R, C]):
    const RB = 16
    const TC = 128
    for i, j in parallel(cdiv(R, RB), cdiv(C, TC)):
        r = i * RB
        n = j * TC
        t = load(x[r:r + RB, n:n + TC])
        col = load(b[r:r + RB, :])
        ta = load(a[r:r + RB, n:n + TC])
        row = load(c[n:n + TC])
        store(y[r:r + RB, n:n + TC], where(ta & col, t, -t))
        store(u[r:r + RB, n:n + TC], ta | row)
        store(v[r:r + RB, n:n + TC], (t > 0.0) & col)
        store(w[r:r + RB, n:n + TC], col | row)
"""


def test_mask_logic_broadcasts_like_arithmetic(tmp_path):
    # was: select's And of a [16, 128] and a [16, 1] mask, a program the checker rejects
    _compile(tmp_path, _BROADCAST_LOGIC, _BROADCAST_LOGIC_OP)
