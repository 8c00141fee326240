"""What check accepts, lower lowers: iota, windows with padding= and dilation=, and scans of [1, C]
tiles, each compiled and run on the simulator against PyTorch at both shape sets, with tails."""
from __future__ import annotations

import pytest

import ascendcraft
from ascendcraft.dsl import ast as A
from ascendcraft.errors import AscendcraftError

from compiled import compile_verified as _compile


def _calls(k) -> list[str]:
    return [n.func for n in A.walk(k.lowered.run.final.kernel) if isinstance(n, A.Call)]


def test_iota_of_every_lowered_dtype_from_a_loop_variable(tmp_path):
    """iota(T, dtype, start=j) in f32, i32, f16 and bf16; 200 is not a multiple of T (tail tiles load
    with pad= so they keep T elements; the store writes the part inside the tensor)."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        n = x.shape[1]
        return (x + torch.arange(n, dtype=torch.float32), (x > 0).to(torch.int32) * torch.arange(n, dtype=torch.int32) + 7,
                x.half() * torch.arange(3, n + 3).half(), x.bfloat16() + torch.arange(n).bfloat16())
R = 3
N = 200
def get_inputs():
    return [torch.randn(R, N)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel io(x: gm f32[R, N]) -> (y: gm f32[R, N], yi: gm i32[R, N], yh: gm f16[R, N], yb: gm bf16[R, N]):
    const T = 64
    for r in parallel(R):
        for j in range(0, N, T):
            t = load(x[r, j:j + T], pad=0.0)
            store(y[r, j:j + T], t + iota(T, f32, start=j))
            store(yi[r, j:j + T], where(t > 0.0, iota(T, i32, start=j), 0) + 7)
            store(yh[r, j:j + T], cast(t, f16) * iota(T, f16, start=j + 3))
            store(yb[r, j:j + T], cast(t, bf16) + iota(T, bf16, start=j))
"""
    k = _compile(tmp_path, kernel, op, trials=2)
    assert "iota" not in _calls(k)


_POOL_OP = """import torch
import torch.nn as nn
import torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x, xf):
        return (F.max_pool2d(x, 3, 2, padding=1), F.avg_pool2d(x, 3, 2, padding=1, count_include_pad=True),
                F.max_pool2d(x, 3, 2, padding=1, dilation=2), F.max_pool1d(xf, 4, 3, padding=2, dilation=3),
                F.avg_pool1d(xf, 3, 1, padding=1))
N = 2
C = 3
H = 11
W = 13
L = 40
def get_inputs():
    return [torch.randn(N, C, H, W, dtype=DT), torch.randn(N, C, L, dtype=DT)]
def get_init_inputs():
    return []
"""

_POOL_KERNEL = """
kernel pool(x: gm D[N, C, H, W], xf: gm D[N, C, L]) -> (ym: gm D[N, C, OH, OW], ya: gm D[N, C, OH, OW],
                                                       yd: gm D[N, C, DH, DW], zd: gm D[N, C, OL],
                                                       za: gm D[N, C, L]):
    for n, c in parallel(N, C):
        t = load(x[n, c, :, :])
        store(ym[n, c, :, :], window_max(t, kernel=(3, 3), stride=(2, 2), padding=(1, 1)))
        store(ya[n, c, :, :], window_avg(t, kernel=(3, 3), stride=(2, 2), padding=1))
        store(yd[n, c, :, :], window_max(t, kernel=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2)))
        f = load(xf[n, c, :])
        store(zd[n, c, :], window_max(f, kernel=(4,), stride=(3,), padding=2, dilation=3))
        store(za[n, c, :], window_avg(f, kernel=(3,), stride=(1,), padding=1))
"""


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_padded_and_dilated_windows(tmp_path, dtype):
    """Padding -inf for max, zeros counted for avg; dilation > 1 in 1-D and 2-D; odd extents (11 x 13:
    the last window row and column are partly padding); the second shape set moves every extent."""
    torch_dtype = {"f32": "torch.float32", "f16": "torch.float16", "bf16": "torch.bfloat16"}[dtype]
    k = _compile(tmp_path, _POOL_KERNEL.replace("D[", f"{dtype}["), _POOL_OP.replace("DT", torch_dtype), trials=2)
    windows = [c for c in A.walk(k.lowered.run.final.kernel) if isinstance(c, A.Call) and c.func.startswith("Window")]
    assert len(windows) == 5 and not any(c.kwarg("padding") is not None for c in windows)


def test_a_padded_window_over_a_part_of_a_row_is_refused_with_the_line(tmp_path):
    """Padding a tile that is not a whole axis of an input is not a padded load (its neighbours in GM are
    real values): lower refuses it at the writer's line instead of padding with the wrong values."""
    op = """import torch
import torch.nn as nn
import torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.max_pool1d(x[:, :, :32], 3, 1, padding=1)
N = 2
C = 3
def get_inputs():
    return [torch.randn(N, C, 40)]       # the kernel's 0:32 needs 40 columns at every shape
def get_init_inputs():
    return []
"""
    kernel = """
kernel pp(x: gm f32[N, C, L]) -> (y: gm f32[N, C, 32]):
    for n, c in parallel(N, C):
        t = load(x[n, c, 0:32])
        store(y[n, c, :], window_max(t, kernel=(3,), stride=(1,), padding=1))
"""
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(op)
    with pytest.raises(AscendcraftError) as info:
        ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1)
    text = str(info.value)
    assert "window_max" in text and "k.dsl:4:" in text


_SCAN_OP = """import torch
import torch.nn as nn
def excl(y, ident):
    return torch.cat([torch.full_like(y[:, :1], ident), y[:, :-1]], dim=1)
class Model(nn.Module):
    def forward(self, x):
        xr = x.flip(1)
        return (torch.cumsum(x, dim=1), torch.cumprod(xr, dim=1).flip(1), excl(torch.cumsum(x, dim=1), 0.0),
                excl(torch.cumprod(xr, dim=1), 1.0).flip(1))
R = 5
N = 150
def get_inputs():
    return [(1.0 + 0.01 * torch.randn(R, N)).to(DT)]
def get_init_inputs():
    return []
"""

_SCAN_KERNEL = """
kernel sc(x: gm D[R, N]) -> (ys: gm D[R, N], yp: gm D[R, N], ye: gm D[R, N], yq: gm D[R, N]):
    for r in parallel(R):
        t = load(x[r:r + 1, :])
        store(ys[r:r + 1, :], cumsum(t))
        store(yp[r:r + 1, :], cumprod(t, axis=1, reverse=True))
        store(ye[r:r + 1, :], cumsum(t, exclusive=True))
        store(yq[r:r + 1, :], cumprod(t, axis=-1, exclusive=True, reverse=True))
"""


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_scans_of_1_by_c_tiles(tmp_path, dtype):
    """A [1, C] row scans like its C values: inclusive, reverse, exclusive (150: two 64-element chunks and
    a tail)."""
    torch_dtype = {"f32": "torch.float32", "bf16": "torch.bfloat16"}[dtype]
    k = _compile(tmp_path, _SCAN_KERNEL.replace("D[", f"{dtype}["), _SCAN_OP.replace("DT", torch_dtype), trials=2)
    calls = _calls(k)
    assert calls.count("CumSum") == 1 and calls.count("CumProdExclusive") == 1
