"""What check accepts, lower lowers: slices and elements of tiles (``t[0:H]``, ``t[a:b]`` at
unaligned starts, ``t[:, a:b]``, ``t[i]``, a column ``t[:, j]``, ``t[i, j]``), with bounds that
clamp at a tail and bounds that are loop variables, on f32, i32 and bool tiles and on masks,
against PyTorch in the interpreter and on the simulator."""
from __future__ import annotations

import pytest

from ascendcraft.dsl import ast as A
from ascendcraft.errors import AscendcraftError

from compiled import compile_verified as _compile


_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, z, idx, keep):
        H = 5
        n = x.shape[1]
        T = 16
        tiles = [x[:, j:j + T] for j in range(0, n, T)]
        heads = torch.cat([t[:, 0:H] for t in tiles], dim=1)            # clamped in a short tail tile
        m = z > 0
        return (x[:, 0:H] * 2.0, x[:, 3:n] + 1.0, x[:, 8:n], heads,
                z[1:3, 2:9], z[:, 6], z[2], z[1, 3].reshape(1),
                torch.stack([z[i, i:i + 4] for i in range(z.shape[0])]),   # loop-variable bounds
                idx[:, 3:10] + 1, keep[:, 1:4],
                torch.where(m[:, 2:9], z[:, 2:9], 0.0), (torch.where(m[1, 3], z[1, 3], -1.0) + torch.where(m[2, 4], z[2, 4], -1.0)).reshape(1))
B = 4
N = 21
def get_inputs():
    return [torch.randn(B, N), torch.randn(6, 13), torch.randint(-2**31, 2**31 - 1, (B, 12), dtype=torch.int32),
            torch.rand(B, 5) < 0.5]
def get_init_inputs():
    return []
"""

_KERNEL = """
kernel sl(x: gm f32[B, N], z: gm f32[6, 13], idx: gm i32[B, 12], keep: gm bool[B, 5]) -> (
        ya: gm f32[B, 5], yb: gm f32[B, N3], yc: gm f32[B, N8], yh: gm f32[B, NH],
        yr: gm f32[2, 7], yl: gm f32[6], yw: gm f32[13], ye: gm f32[1], yv: gm f32[6, 4],
        yi: gm i32[B, 7], yk: gm bool[B, 3], ym: gm f32[6, 7], yn: gm f32[1]):
    const H = 5
    const T = 16
    for i in parallel(B):
        t = load(x[i, :])
        store(ya[i, :], t[0:H] * 2.0)
        store(yb[i, :], t[3:N] + 1.0)
        store(yc[i, :], t[8:N])
        for jb in range(0, cdiv(N, T)):
            u = load(x[i, jb * T:jb * T + T])
            store(yh[i, jb * H:jb * H + H], u[0:H])
        store(yi[i, :], load(idx[i, :])[3:10] + 1)
        store(yk[i, :], load(keep[i, :])[1:4])
    for k in parallel(1):
        w = load(z[:, :])
        store(yr[:, :], w[1:3, 2:9])
        store(yl[:], w[:, 6])
        store(yw[:], w[2])
        store(ye[0], w[1, 3])
        for r in range(0, 6):
            store(yv[r, :], w[r, r:r + 4])
        m = w > 0.0
        store(ym[:, :], where(m[:, 2:9], w[:, 2:9], 0.0))
        store(yn[0], where(m[1, 3], w[1, 3], -1.0) + where(m[2, 4], w[2, 4], -1.0))
"""


def test_slices_and_elements_of_tiles_lower_and_agree_with_pytorch(tmp_path):
    # N = 21 rows tiled by 16: the second tile has 5 elements, so u[0:H] is clamped... to exactly H;
    # the op's second shape set moves N so that the tail is shorter than H
    k = _compile(tmp_path, _KERNEL, _OP)
    calls = [n.func for n in A.walk(k.lowered.run.final.kernel) if isinstance(n, A.Call)]
    assert "Copy" in calls and "GetValue" in calls
    assert "AscendC::Gather(" in k.source


def test_a_slice_of_a_tile_of_rank_3_is_refused_in_the_writers_words(tmp_path):
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x[:, :, 0:2].sum(dim=2)
A = 2
B = 3
C = 4
def get_inputs():
    return [torch.randn(A, B, C)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel r3(x: gm f32[A, B, C]) -> (y: gm f32[A, B]):
    for k in parallel(1):
        t = load(x[:, :, :])
        store(y[:, :], sum(t[:, :, 0:2], axis=2))
"""
    with pytest.raises(AscendcraftError) as info:
        _compile(tmp_path, kernel, op)
    message = info.value.message.splitlines()[0]
    assert "Index" not in message and "_t" not in message
    assert "k.dsl:4:" in str(info.value) and "docs/dsl.md" in str(info.value)


@pytest.mark.parametrize("cols", [12, 9])
def test_tiles_of_one_static_shape_have_one_row_pitch(tmp_path, cols):
    """x[:, 0:TC] with TC past the tensor's end is clamped to [R, C], the shape of y[:, :]: the two
    tiles must be laid out alike for an element-wise op over whole rows, and so must slices of them
    (a[:, 1:TC] and b[:, 1:C] are both [R, C - 1]: with C = 9 their rows were 16 and 8 apart)."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, y):
        return x + y, x[:, 1:] - y[:, 1:]
R = 4
C = {cols}
def get_inputs():
    return [torch.randn(R, C), torch.randn(R, C)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel pt(x: gm f32[R, C], y: gm f32[R, C]) -> (z: gm f32[R, C], w: gm f32[R, C1]):
    const TC = 32
    for k in parallel(1):
        a = load(x[:, 0:TC])
        b = load(y[:, :])
        store(z[:, :], a + b)
        store(w[:, :], a[:, 1:TC] - b[:, 1:C])
"""
    _compile(tmp_path, kernel, op.replace("{cols}", str(cols)))


_CLAMPED_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, b):
        return x - b
R = 53
C = 1100
def get_inputs():
    return [torch.randn(R, C), torch.randn(C)]
def get_init_inputs():
    return []
"""

# rows in chunks of RB within a core's share of RS rows: the chunk ends at minimum(r + RB, e), so
# a chunk never crosses into the next share; the tile is at most RB rows (not the whole axis)
_CLAMPED_KERNEL = """
kernel sub_bias(x: gm f32[R, C], b: gm f32[C]) -> (y: gm f32[R, C]):
    const RB = 4
    const RS = 11
    for s in parallel(cdiv(R, RS)):
        e = minimum(s * RS + RS, R)
        bt = load(b[:])
        for r in range(s * RS, e, RB):
            t = load(x[r:minimum(r + RB, e), :]) - bt
            store(y[r:minimum(r + RB, e), :], t)
"""


def test_a_slice_ending_at_a_minimum_is_bounded_by_its_known_length(tmp_path):
    """``r:minimum(r + RB, e)`` takes at most RB rows: the checker's footprint and the lowering's
    buffers both size it so (53 whole rows of 1100 f32 would not fit the UB), and the store writes
    only the clamped rows (the next share belongs to another core)."""
    k = _compile(tmp_path, _CLAMPED_KERNEL, _CLAMPED_OP)
    assert k.report["backend_verification"]["verdict"] == "PASS"


_ROWS_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        s = x[:, 1:4, :] * 2.0 + x[:, 0:3, :]               # rows 1..3 and 0..2 of each image
        return s, x[:, 2, :] + 1.0, x[:, 1, 3:] - 1.0
def get_inputs():
    return [torch.randn(3, 6, 29)]
def get_init_inputs():
    return []
"""

_ROWS_KERNEL = """
kernel rows(x: gm f32[B, R, C]) -> (ys: gm f32[B, 3, C], yr: gm f32[B, C], yu: gm f32[B, C3]):
    for b in parallel(B):
        t = load(x[b, :, :])
        store(ys[b, :, :], t[1:4, :] * 2.0 + t[0:3, :])
        store(yr[b, :], t[2, :] + 1.0)
        store(yu[b, :], t[1, 3:C] - 1.0)
"""


def test_whole_rows_of_a_tile_are_one_copy_and_an_unaligned_part_of_a_row_is_gathered(tmp_path):
    # rows 29 values apart in GM, 32 in the tile: t[1:4, :] is one run of 96 values from row 1 (one
    # copy), t[2, :] a run from an aligned start; t[1, 3:C] starts 3 values into its row (a Gather)
    import ascendcraft
    (tmp_path / "k.dsl").write_text(_ROWS_KERNEL.lstrip("\n"))
    (tmp_path / "op.py").write_text(_ROWS_OP)
    k = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=3, model_time=False)
    assert k.report["backend_verification"]["verdict"] == "PASS"
    assert "if (c0_ == 0 && nc_ ==" in k.source and "if (at_ % 8 == 0)" in k.source
    assert "AscendC::Gather(" in k.source
