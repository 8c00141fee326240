"""Reductions along each row and ops with a column [R, 1] on the vector unit alone (codegen/rows.py):
rows of several 64-lane chunks with a tail, more than 255 rows (several calls), f16, the row loop
for rows too long for the level-0 forms, against torch on the simulator."""
import pytest

from compiled import compile_verified

OP = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        t = x.float()
        y = t - t.amax(dim=1, keepdim=True)
        s = torch.exp(y)
        return (s / s.sum(dim=1, keepdim=True)).to(x.dtype), t.amin(dim=1).to(x.dtype)


R = {r}
C = {c}


def get_inputs():
    return [torch.randn(R, C).to(torch.{dtype})]


def get_init_inputs():
    return []
'''

KERNEL = '''kernel k(x: gm {dt}[R, C]) -> (y: gm {dt}[R, C], z: gm {dt}[R]):
    const TR = {tr}
    for i in parallel(cdiv(R, TR)):
        r = i * TR
        t = load(x[r:r + TR, :])
        y0 = t - max(t, axis=1, keepdims=True)
        s = exp(y0)
        store(y[r:r + TR, :], s / sum(s, axis=1, keepdims=True))
        store(z[r:r + TR], min(t, axis=1))
'''


@pytest.mark.parametrize("dt,dtype,r,c,tr", [
    ("f32", "float32", 150, 150, 64),     # 3 chunks of 64 lanes, the last 22; a tail row block
    ("f32", "float32", 600, 8, 300),      # 300 rows a tile: two calls of at most 255 repeats
    ("f16", "float16", 70, 200, 32),      # 128-lane chunks (the max and min on f16, the sums in f32)
    ("f32", "float32", 20, 600, 4),       # 600 > 8 x 64 lanes: the row loop
])
def test_row_reductions_and_column_ops_match_torch(tmp_path, dt, dtype, r, c, tr):
    k = compile_verified(tmp_path, KERNEL.format(dt=dt, tr=tr), OP.format(r=r, c=c, dtype=dtype), trials=2)
    # both forms are emitted and the tile's extents choose at run time; the verified run took it
    assert "AscendC::WholeReduceMin" in k.source and "AscendC::Brcb" in k.source


ROW_OP = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, b):
        return x + b, b - x, x / b


R = {r}
C = {c}


def get_inputs():
    return [torch.randn(R, C).to(torch.{dtype}), (torch.rand(C) + 0.5).to(torch.{dtype})]


def get_init_inputs():
    return []
'''

ROW_KERNEL = '''kernel k(x: gm {dt}[R, C], b: gm {dt}[C]) -> (y: gm {dt}[R, C], z: gm {dt}[R, C], w: gm {dt}[R, C]):
    const TR = {tr}
    for i in parallel(cdiv(R, TR)):
        r = i * TR
        t = load(x[r:r + TR, :])
        v = load(b)
        store(y[r:r + TR, :], t + v)
        store(z[r:r + TR, :], v - t)
        store(w[r:r + TR, :], t / v)
'''


@pytest.mark.parametrize("dt,dtype,r,c,tr", [
    ("f32", "float32", 300, 70, 280),     # 280 rows a tile (two calls), 2 chunks, a 6-lane tail
    ("f16", "float16", 33, 130, 16),      # 128-lane chunks, a short last row block
    ("f32", "float32", 3, 5000, 2),       # a pitch past 255 blocks: the row loop
])
def test_ops_with_a_row_vector_match_torch_either_operand_order(tmp_path, dt, dtype, r, c, tr):
    k = compile_verified(tmp_path, ROW_KERNEL.format(dt=dt, tr=tr), ROW_OP.format(r=r, c=c, dtype=dtype), trials=2)
    assert "AscendC::BinaryRepeatParams(1, 1, 1, static_cast<uint8_t>(xp_), static_cast<uint8_t>(0)" in k.source
