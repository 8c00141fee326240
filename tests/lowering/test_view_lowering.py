"""Views of GM tensors through the lowering: a reshape is the same memory under another
GlobalTensor of the view's dims (no copy), for products on the cube and for vector phases, of
parameters and of scratch tensors (a view of a view included)."""
from __future__ import annotations

import pytest
from compiled import compile_verified

# a pointwise convolution: for each image, W [CO, CI] @ x[n] viewed as [CI, H * W] (A without a
# batch axis, B batched), written to y viewed as [CO, H * W]; 70 input channels (a K tail), 150
# output channels (a row tail), 23 x 19 pixels (a column tail)
_POINTWISE_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)

    def forward(self, x):
        return self.conv(x)


batch_size = 2
in_channels = 70
out_channels = 150
height = 23
width = 19


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
"""

_POINTWISE = """
kernel conv_pointwise(x: gm f32[N, CI, H, W], conv_weight: gm f32[CO, CI, 1, 1]) -> (y: gm f32[N, CO, H, W]):
    const TM = 128
    const TN = 256
    const TK = 64
    const P = H * W
    xv = view(x, (N, CI, P))
    wv = view(conv_weight, (CO, CI))
    yv = view(y, (N, CO, P))
    for z, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        n = j * TN
        a = load(wv[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(xv[z, 0:TK, n:n + TN], space=l1))
        for k in range(TK, CI, TK):
            a = load(wv[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(xv[z, k:k + TK, n:n + TN], space=l1))
        store(yv[z, m:m + TM, n:n + TN], acc)
"""


def test_a_product_of_views_on_the_cube(tmp_path):
    k = compile_verified(tmp_path, _POINTWISE, _POINTWISE_OP, trials=2)
    assert "wv_uGm.SetGlobalBuffer((__gm__ float*)conv_weight_u);" in k.source


# heads: x [S, E] viewed as [S, NH, D] (NH an attribute), each head's rows to a scratch [NH, S, D],
# read back through a view of the scratch and a view of that view, written through a view of y
_HEADS_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, x):
        s, e = x.shape
        h = x.view(s, self.heads, e // self.heads).transpose(0, 1)
        return torch.softmax(h * 2.0, dim=-1).transpose(0, 1).reshape(s, e)


seq = 37
dim = 60


def get_inputs():
    return [torch.randn(seq, dim)]


def get_init_inputs():
    return [3]
"""

_HEADS = """
kernel heads(x: gm f32[S, E], heads: i32) -> (y: gm f32[S, E]):
    const NH = heads
    const D = E // NH
    const SD = S * D
    scratch s: f32[NH, S, D]
    xv = view(x, (S, NH, D))
    yv = view(y, (S, NH, D))
    flat = view(s, (NH, SD))
    sv = view(flat, (NH, S, D))
    for h in parallel(NH):
        store(flat[h, :], full((SD,), 1.0, f32))
        store(flat[h, :], load(flat[h, :]) * 0.0)
    for h, r in parallel(NH, S):
        store(s[h, r, :], load(xv[r, h, :]) * 2.0)
    for h, r in parallel(NH, S):
        t = load(sv[h, r, :])
        e = exp(t - max(t))
        store(yv[r, h, :], e / sum(e))
"""


def test_views_of_parameters_and_of_scratch_in_vector_phases(tmp_path):
    compile_verified(tmp_path, _HEADS, _HEADS_OP, trials=2)


def test_reading_scratch_through_a_view_before_any_store_wrote_it_is_located(tmp_path):
    """Scratch holds garbage until written; the interpreter knows which elements were, through views
    too, and the simulator says the same of the AscendC kernel (scratch-unwritten)."""
    from ascendcraft.checking import check_kernel
    from ascendcraft.errors import DSLError
    unwritten = _HEADS.replace("        store(flat[h, :], full((SD,), 1.0, f32))\n", "")
    (tmp_path / "op.py").write_text(_HEADS_OP)
    with pytest.raises(DSLError) as e:
        check_kernel(unwritten, str(tmp_path / "op.py"), trials=2)
    assert "flat is read where no store has written it yet" in e.value.message
    assert e.value.span.line == 12         # store(flat[h, :], load(flat[h, :]) * 0.0), the text's first line empty


# permuted views: heads [B, H, S, D] read as [B, S, H, D] (rows of one position across heads are S * D
# apart: the copy's row stride) and a transposed store (z's last axis through the view is S apart:
# written element by element); tails on every axis
_PERMUTED_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return (x.permute(0, 2, 1, 3) * 2.0).contiguous(), x.transpose(2, 3).contiguous() + 1.0


batch = 2
heads = 3
seq = 13
dim = 20


def get_inputs():
    return [torch.randn(batch, heads, seq, dim)]


def get_init_inputs():
    return []
"""

_PERMUTED = """
kernel k(x: gm f32[B, H, S, D]) -> (y: gm f32[B, S, H, D], z: gm f32[B, H, D, S]):
    xt = permute(x, (0, 2, 1, 3))
    zt = permute(z, (0, 1, 3, 2))
    for b, s in parallel(B, S):
        store(y[b, s, :, :], load(xt[b, s, :, :]) * 2.0)
    for b, h in parallel(B, H):
        store(zt[b, h, :, :], load(x[b, h, :, :]) + 1.0)
"""


def test_permuted_views_are_copies_at_their_axes_strides(tmp_path):
    k = compile_verified(tmp_path, _PERMUTED, _PERMUTED_OP, trials=2)
    assert "CopyOutStrided" in k.source      # the transposed store


_TRANSPOSED_A_OP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a.t() @ b


K = 70
M = 40
N = 50


def get_inputs():
    return [torch.randn(K, M), torch.randn(K, N)]


def get_init_inputs():
    return []
"""

_TRANSPOSED_A = """
kernel mm(a: gm f32[K, M], b: gm f32[K, N]) -> (c: gm f32[M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    at = permute(a, (1, 0))
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        acc = matmul(load(at[m:m + TM, 0:TK], space=l1), load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            acc = acc + matmul(load(at[m:m + TM, k:k + TK], space=l1), load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
"""


def test_a_permuted_view_is_no_cube_operand(tmp_path):
    import pytest

    import ascendcraft
    from ascendcraft.errors import AscendcraftError
    (tmp_path / "k.dsl").write_text(_TRANSPOSED_A.lstrip("\n"))
    (tmp_path / "op.py").write_text(_TRANSPOSED_A_OP)
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    assert "at is a permuted view: a cube operand is a tensor" in str(info.value), str(info.value)
    assert "k.dsl:9:" in str(info.value)
