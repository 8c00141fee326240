"""What check accepts, lower lowers: exclusive scans, forward and reverse, as a shift of the
inclusive scan (exact where an element is 0 or infinite: no division, no subtraction), against
PyTorch in the interpreter and on the simulator; tiles shorter than a 64-element chunk, exact
multiples of it, tails, and a carry across tiles."""
from __future__ import annotations

from ascendcraft.dsl import ast as A

from compiled import compile_verified as _compile


_OP = """import torch
import torch.nn as nn
def excl(x, f, ident):
    y = f(x, dim=1)
    return torch.cat([torch.full_like(x[:, :1], ident), y[:, :-1]], dim=1)
class Model(nn.Module):
    def forward(self, x):
        xr = x.flip(1)
        return (excl(x, torch.cumprod, 1.0), excl(xr, torch.cumprod, 1.0).flip(1),
                excl(x, torch.cumsum, 0.0), excl(xr, torch.cumsum, 0.0).flip(1))
R = 4
N = NS
def get_inputs():
    x = torch.rand(R, N) + 0.5
    x[0, N // 3] = 0.0                 # a zero: the products after it (before it, reversed) are 0
    x[1, N // 2] = 0.0
    x[2, N - 1] = float("inf")         # an infinite element: the exclusive sum before it stays finite
    x[3, 0] = float("inf")
    return [x]
def get_init_inputs():
    return []
"""

_KERNEL = """
kernel sc(x: gm f32[R, N]) -> (yp: gm f32[R, N], yq: gm f32[R, N], ys: gm f32[R, N], yt: gm f32[R, N]):
    for r in parallel(R):
        t = load(x[r, :])
        store(yp[r, :], cumprod(t, exclusive=True))
        store(yq[r, :], cumprod(t, exclusive=True, reverse=True))
        store(ys[r, :], cumsum(t, exclusive=True))
        store(yt[r, :], cumsum(t, exclusive=True, reverse=True))
"""


def test_exclusive_scans_of_whole_rows(tmp_path):
    # 200: three 64-element chunks and a tail; the op's second shape set moves it
    k = _compile(tmp_path, _KERNEL, _OP.replace("NS", "200"), trials=2)
    calls = [n.func for n in A.walk(k.lowered.run.final.kernel) if isinstance(n, A.Call)]
    assert calls.count("CumProdExclusive") == 2 and calls.count("CumSumExclusive") == 2
    assert "Sub" not in calls and "Div" not in calls


def test_exclusive_scans_shorter_than_one_chunk_and_of_whole_chunks(tmp_path):
    for n in (37, 128):
        (tmp_path / str(n)).mkdir()
        _compile(tmp_path / str(n), _KERNEL, _OP.replace("NS", str(n)), trials=2)


def test_exclusive_product_across_tiles_with_a_carry(tmp_path):
    """The exclusive product of a long row tile by tile: each tile's exclusive scan times the product of
    the earlier tiles (T = 96 does not divide N: a tail tile)."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        y = torch.cumprod(x, dim=1)
        return torch.cat([torch.ones_like(x[:, :1]), y[:, :-1]], dim=1)
R = 3
N = 500
def get_inputs():
    x = 1.0 + (torch.rand(R, N) - 0.5) * 0.02
    x[1, 250] = 0.0
    return [x]
def get_init_inputs():
    return []
"""
    kernel = """
kernel cpx(x: gm f32[R, N]) -> (y: gm f32[R, N]):
    const T = 96
    for b in parallel(R):
        carry = 1.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            store(y[b, j:j + T], cumprod(t, exclusive=True) * carry)
            carry = carry * prod(t)
"""
    _compile(tmp_path, kernel, op)
