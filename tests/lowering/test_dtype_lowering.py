"""f16 and bf16 kernels lower with the interpreter's meaning: element-wise ops (composites too),
reductions, scans and pooling windows, compiled and run on the simulator against PyTorch, with
tails (rows of 300 are not whole 64-element chunks; 5 rows in blocks of 2 leave a short block)."""
from __future__ import annotations

import pytest

import ascendcraft
from ascendcraft.dsl import ast as A
from ascendcraft.errors import AscendcraftError

from compiled import compile_verified as _compile

_TORCH = {"f16": "torch.float16", "bf16": "torch.bfloat16"}

_ROWS_OP = """import torch
import torch.nn as nn
import torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return (x * torch.sigmoid(x) + torch.tanh(x) * 0.5, F.gelu(x), x.sum(dim=1), torch.cumsum(x, dim=1),
                F.max_pool1d(x.unsqueeze(1), 3, 2).squeeze(1), F.avg_pool1d(x.unsqueeze(1), 4, 4).squeeze(1))
R = 5
N = 300
def get_inputs():
    return [torch.randn(R, N, dtype=DT)]
def get_init_inputs():
    return []
"""

_ROWS_KERNEL = """
kernel rows(x: gm D[R, N]) -> (ya: gm D[R, N], yg: gm D[R, N], ys: gm D[R], yc: gm D[R, N], ym: gm D[R, M],
                               yv: gm D[R, V]):
    for r in parallel(R):
        t = load(x[r, :])
        store(ya[r, :], t * sigmoid(t) + tanh(t) * 0.5)
        store(yg[r, :], t * (0.5 + 0.5 * erf(t * 0.7071067811865476)))
        store(ys[r], sum(t))
        store(yc[r, :], SCAN)
        store(ym[r, :], window_max(t, kernel=(3,), stride=(2,)))
        store(yv[r, :], window_avg(t, kernel=(4,)))
"""


def _rows(dtype: str) -> tuple[str, str]:
    return _ROWS_KERNEL.replace("D[", f"{dtype}[").replace("SCAN", "cumsum(t)"), _ROWS_OP.replace("DT", _TORCH[dtype])


def _calls(k) -> list[A.Call]:
    return [n for n in A.walk(k.lowered.run.final.kernel) if isinstance(n, A.Call)]


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_elementwise_reduction_scan_and_window_kernels_of_16_bit_floats(tmp_path, dtype):
    k = _compile(tmp_path, *_rows(dtype), trials=2)
    calls = {c.func for c in _calls(k)}
    assert {"Exp", "ReduceSum", "CumSum", "WindowMax", "WindowAvg", "Cast"} <= calls
    if dtype == "bf16":
        _no_vector_arithmetic_on_bf16_tiles(k)


def _no_vector_arithmetic_on_bf16_tiles(k):
    """910B has no bf16 vector arithmetic (the simulator rejects it too): in the lowered kernel a bf16
    tile (loaded from bf16 GM or made by a Cast to bf16) is only cast, copied or stored."""
    from ascendcraft.dsl.ops import OPS
    kernel = k.lowered.run.final.kernel
    gm_bf16 = {p.name for p in kernel.inputs + kernel.outputs if p.type.dtype == "bf16"}
    narrow = set()
    for s in A.walk(kernel):
        if isinstance(s, A.Assign) and isinstance(s.value, A.Load):
            if any(isinstance(n, A.Name) and n.id in gm_bf16 for n in A.walk(s.value)):
                narrow.add(s.target)
        elif isinstance(s, A.Assign) and isinstance(s.value, A.Call) and s.value.func == "Cast" and \
                s.value.args[1].id == "bf16":
            narrow.add(s.target)
    assert narrow
    for c in _calls(k):
        if c.func in OPS and OPS[c.func].kind == "api" and OPS[c.func].form not in ("cast", "copy", "getvalue"):
            assert not {a.id for a in c.args if isinstance(a, A.Name)} & narrow, f"{c.func} reads a bf16 tile"


_NORM_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        m = x.float().mean(dim=1, keepdim=True)
        d = x.float() - m
        y = d * torch.rsqrt((d * d).mean(dim=1, keepdim=True) + 1e-5)
        return y.to(x.dtype), x.float().prod(dim=1).to(x.dtype), x.amax(dim=0)
R = 5
N = 77
def get_inputs():
    return [torch.randn(R, N, dtype=DT)]
def get_init_inputs():
    return []
"""

# 2-D tiles of 2 rows (the last block of 5 rows is 1 row): row means kept as [R, 1] columns,
# a product of each row, and a max over the rows of each block combined across blocks
_NORM_KERNEL = """
kernel norm(x: gm D[R, N]) -> (y: gm D[R, N], p: gm D[R], mx: gm D[N]):
    const RB = 2
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        t = load(x[r:r + RB, :])
        d = t - mean(t, axis=1, keepdims=True)
        store(y[r:r + RB, :], d * rsqrt(mean(d * d, axis=1, keepdims=True) + 1e-5))
        store(p[r:r + RB], prod(t, axis=1))
    for j in parallel(1):
        acc = load(x[0, :])
        for r in range(1, R):
            acc = maximum(acc, load(x[r, :]))
        store(mx[:], acc)
"""


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_row_statistics_of_2d_16_bit_tiles_with_a_short_block(tmp_path, dtype):
    _compile(tmp_path, _NORM_KERNEL.replace("D[", f"{dtype}["), _NORM_OP.replace("DT", _TORCH[dtype]), trials=2)


def test_f16_scans_accumulate_in_f32_and_lower_widened(tmp_path):
    """The DSL's cumsum/cumprod of f16 accumulate in f32 and round each result once (as torch does on the
    CPU); widen runs them as f32 scans between two casts: inclusive, reverse, exclusive and cumprod."""
    kernel = """
kernel cs(x: gm f16[R, N], p: gm f16[R, N]) -> (y: gm f16[R, N], v: gm f16[R, N], e: gm f16[R, N], q: gm f16[R, N]):
    for r in parallel(R):
        t = load(x[r, :])
        store(y[r, :], cumsum(t))
        store(v[r, :], cumsum(t, reverse=True))
        store(e[r, :], cumsum(t, exclusive=True))
        store(q[r, :], cumprod(load(p[r, :])))
"""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, p):
        c = torch.cumsum(x, dim=1)
        return c, torch.flip(torch.cumsum(torch.flip(x, [1]), dim=1), [1]), c - x, torch.cumprod(p, dim=1)
R = 3
N = 300
def get_inputs():
    return [torch.randn(R, N, dtype=torch.float16), (torch.rand(R, N) * 0.2 + 0.9).half()]
def get_init_inputs():
    return []
"""
    k = _compile(tmp_path, kernel, op, trials=2)
    scans = [c for c in _calls(k) if c.func.startswith(("CumSum", "CumProd"))]
    assert len(scans) == 4
    for c in scans:     # each on an f32 tile
        assert k.lowered.run.final.real.expr_types[id(c.args[0])].dtype == "f32"


def test_casts_of_2d_tiles_between_2_and_4_byte_types_realign_rows(tmp_path):
    """Rows of 2-D tiles start on 32-byte blocks: 37 bf16 values take 48 elements a row, 37 f32 values 40.
    A cast gives the result the pitch of its own dtype (row by row) in both directions, with tails."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, w):
        y = x.float() * w
        return y.to(torch.bfloat16), (y * y).to(torch.bfloat16)
R = 7
N = 37
def get_inputs():
    return [torch.randn(R, N, dtype=torch.bfloat16), torch.randn(R, N)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel cw(x: gm bf16[R, N], w: gm f32[R, N]) -> (y: gm bf16[R, N], z: gm bf16[R, N]):
    const RB = 3
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        u = cast(load(x[r:r + RB, :]), f32) * load(w[r:r + RB, :])
        v = cast(u, bf16)
        store(y[r:r + RB, :], v)
        store(z[r:r + RB, :], v * v)
"""
    _compile(tmp_path, kernel, op, trials=2)


_MASK_CAST_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, x, h):
        return (a == b).float(), (a < b).float(), (x > 0.5).half(), (h <= 0).int()
N = 1000
R = 37
C = 100
def get_inputs():
    return [torch.randint(-3, 3, (N,), dtype=torch.int32), torch.randint(-3, 3, (N,), dtype=torch.int32),
            torch.randn(R, C), torch.randn(N).half()]
def get_init_inputs():
    return []
"""

_MASK_CAST_KERNEL = """
kernel mc(a: gm i32[N], b: gm i32[N], x: gm f32[R, C], h: gm f16[N]) -> (y: gm f32[N], z: gm f32[N], u: gm f16[R, C], v: gm i32[N]):
    const T = 256
    const RB = 8
    for c in parallel(cdiv(N, T)):
        i = c * T
        p = load(a[i:i + T])
        q = load(b[i:i + T])
        store(y[i:i + T], cast(p == q, f32))
        store(z[i:i + T], cast(p < q, f32))
        store(v[i:i + T], cast(load(h[i:i + T]) <= 0.0, i32))
    for r in parallel(cdiv(R, RB)):
        store(u[r * RB:r * RB + RB, :], cast(load(x[r * RB:r * RB + RB, :]) > 0.5, f16))
"""


def test_casts_of_comparisons_give_their_0_1_values(tmp_path):
    """A comparison's mask holds one bit per element on chip; a cast of it to f32, f16 or i32 is
    its 0/1 values (a Select of ones), on 1-D and 2-D tiles with tails, from i32, f32 and f16
    comparisons."""
    _compile(tmp_path, _MASK_CAST_KERNEL, _MASK_CAST_OP)
