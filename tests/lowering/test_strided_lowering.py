"""Strided slices through the lowering: a strided read is a contiguous (padded) read and a Gather
of every step-th element (the strides pass), a strided store is written element by element; both
on the simulator at tails of every axis."""
from __future__ import annotations

import pytest

import ascendcraft
from ascendcraft.errors import AscendcraftError
from compiled import compile_verified

# a depthwise convolution with stride and padding (attributes): each block of TH output rows takes
# each tap as one padded load of every stride-th input row (the copy's row stride) and every
# stride-th column (picked on chip), 0.0 outside the image on every side
_DEPTHWISE_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, stride, padding):
        super().__init__()
        self.conv2d = nn.Conv2d(channels, channels, 3, stride=stride, padding=padding, groups=channels, bias=False)

    def forward(self, x):
        return self.conv2d(x)


batch_size = 2
channels = 3
height = 23
width = 37


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, {stride}, {padding}]
"""

_DEPTHWISE = """
kernel dwconv(x: gm f32[N, C, H, W], conv2d_weight: gm f32[C, 1, KH, KW], stride: i32, padding: i32) -> (
        y: gm f32[N, C, OH, OW]):
    const TH = 5
    for n, c, hb in parallel(N, C, cdiv(OH, TH)):
        oh = hb * TH
        acc = zeros((TH, OW), f32)
        for kh in range(KH):
            for kw in range(KW):
                r = oh * stride + kh - padding
                q = kw - padding
                t = load(x[n, c, r:r + stride * TH:stride, q:q + stride * OW:stride], pad=0.0)
                acc = acc + t * load(conv2d_weight[c, 0, kh, kw])
        store(y[n, c, oh:oh + TH, :], acc)
"""


@pytest.mark.parametrize("stride,padding", [(2, 1), (3, 0)])
def test_a_strided_padded_convolution(tmp_path, stride, padding):
    k = compile_verified(tmp_path, _DEPTHWISE, _DEPTHWISE_OP.format(stride=stride, padding=padding), trials=2)
    assert "AscendC::Gather(" in k.source   # the pick of every stride-th column


# ops over one [37, 29] input x (a tail of every tile), the forward's body and the input as given
_ROWS_OP = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        {body}


rows = 37
cols = 29


def get_inputs():
    return [{draw}]


def get_init_inputs():
    return []
"""


def _rows_op(body: str, draw: str = "torch.randn(rows, cols)") -> str:
    return _ROWS_OP.format(body=body, draw=draw)


# strided stores (two interleaved halves of each output row, i32) and a tile sliced with steps on
# both axes (every second row, every third column)
_INTERLEAVE_OP = _rows_op("y = torch.stack([x, 2 * x], dim=-1).reshape(x.shape[0], -1)\n        "
                          "return y, x[0::2, 1::3] + 1",
                          "torch.randint(-50, 50, (rows, cols), dtype=torch.int32)")

_INTERLEAVE = """
kernel interleave(x: gm i32[N, W]) -> (y: gm i32[N, W2], z: gm i32[NH, WT]):
    const RB = 8
    for nb in parallel(cdiv(N, RB)):
        n = nb * RB
        t = load(x[n:n + RB, :])
        store(y[n:n + RB, 0:W2:2], t)
        store(y[n:n + RB, 1:W2:2], t * 2)
        u = t[0:RB:2, 1:W:3]
        store(z[nb * 4:nb * 4 + 4, :], u + 1)
"""


def test_strided_stores_and_a_tile_sliced_with_steps(tmp_path):
    compile_verified(tmp_path, _INTERLEAVE, _INTERLEAVE_OP, trials=2)


def test_a_step_over_a_tile_gather_cannot_move_is_refused_with_the_reason(tmp_path):
    op = _INTERLEAVE_OP.replace("torch.int32", "torch.int8").replace("-50, 50", "-5, 5")
    kernel = _INTERLEAVE.replace("i32", "i8")
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(op)
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    text = str(info.value)
    assert "a slice with a step on a i8 tile does not lower" in text and "k.dsl:8:" in text


# a column of every second row, stored as it was read: the strided copy ends with a Gather on the
# vector unit, so the copy out waits for V as well as for MTE2 (it raced without, [missing-sync])
_COLUMN_OP = _rows_op("return x[1::2, :].t().contiguous(), x[:, 0:-1:3].t().contiguous()")

_COLUMN = """
kernel columns(x: gm f32[R, W]) -> (y: gm f32[W, RH], z: gm f32[WT, R]):
    for j in parallel(W):
        store(y[j, :], load(x[1:R:2, j]))
    for j in parallel(WT):
        store(z[j, :], load(x[:, j * 3]))
"""


def test_a_strided_column_stored_as_it_was_read(tmp_path):
    compile_verified(tmp_path, _COLUMN, _COLUMN_OP, trials=2)


# padded loads stored as they were read (every second row from row -1; a window with halos): the
# vector unit fills the halo, so the copy out waits for V too (found by the fuzzer's strided form)
_PADDED_OP = _rows_op("p = F.pad(x, (0, 0, 1, 1), value=1.5)\n        "
                      "return p[0::2, :][: (x.shape[0] + 2) // 2].contiguous(), F.pad(x, (2, 2), value=-3.0)")

_PADDED = """
kernel padded(x: gm f32[R, W]) -> (y: gm f32[RO, W], z: gm f32[R, WP]):
    const RB = 4
    for ib in parallel(cdiv(RO, RB)):
        i = ib * RB
        rr = i * 2 - 1
        store(y[i:i + RB, :], load(x[rr:rr + 2 * RB:2, :], pad=1.5))
    for r in parallel(R):
        store(z[r, :], load(x[r, -2:W + 2], pad=-3.0))
"""


def test_padded_loads_stored_as_they_were_read(tmp_path):
    compile_verified(tmp_path, _PADDED, _PADDED_OP, trials=2)
