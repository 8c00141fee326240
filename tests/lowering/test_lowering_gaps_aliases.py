"""What check accepts, lower lowers: another name for a tile (``a = t``), checked against PyTorch
in the interpreter, through every pass, and on the simulator (tails included)."""
from __future__ import annotations

from ascendcraft.dsl.parser import parse
from ascendcraft.dsl import ast as A

from compiled import compile_verified as _compile

_OP = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        T = 64
        n = x.shape[1]
        prev = torch.zeros_like(x)
        prev[:, T:] = x[:, :n - T]                 # the previous tile's element (zeros before the first)
        return x.sum(dim=1), x - prev, (x * 2.0).sum(dim=1, keepdim=True) - x
R = 3
N = 300
def get_inputs():
    return [torch.randn(R, N)]
def get_init_inputs():
    return []
"""

# `a = t` then uses of `a`: resolved to `t`; `b = a` chains; `prev = b` keeps an older value across
# iterations while the loaded tile changes (a copy); a 2-D tile aliased and broadcast against its
# row sums; a cast to the tile's own dtype is the value itself. N = 300 is no multiple of T (tails).
_KERNEL = """
kernel aliases(x: gm f32[R, N]) -> (ys: gm f32[R], yd: gm f32[R, N], yb: gm f32[R, N]):
    const T = 64
    for r in parallel(R):
        s = 0.0
        prev = zeros((T,), f32)
        for j in range(0, N, T):
            t = load(x[r, j:j + T])
            a = t
            b = a
            s = s + sum(b)
            c = cast(b, f32)
            store(yd[r, j:j + T], c - prev[0:N - j])
            prev = b
        store(ys[r], s)
    for r in parallel(R):
        w = load(x[r:r + 1, :])
        v = w
        store(yb[r:r + 1, :], sum(v * 2.0, axis=1, keepdims=True) - v)
"""


def _level(k, name: str) -> A.Kernel:
    return next(level.kernel for level in k.lowered.run.levels if level.pass_name == name)


def test_tile_aliases_lower_and_agree_with_pytorch_on_the_simulator(tmp_path):
    k = _compile(tmp_path, _KERNEL, _OP)
    lin = _level(k, "linearize")
    plain = [s for s in A.walk(lin) if isinstance(s, A.Assign) and isinstance(s.value, A.Name)
             and s.value.id in ("t", "a", "w")]
    # a, b and v are resolved to the tile they name; only `prev = t` (carried) stays
    assert [(s.target, s.value.id) for s in plain] == [("prev", "t")]
    copies = [s for s in A.walk(_level(k, "select")) if isinstance(s, A.Assign) and isinstance(s.value, A.Call)
              and s.value.func == "Copy" and isinstance(s.value.args[0], A.Name)]
    assert {s.target for s in copies} == {"prev", "c"}     # the carried alias, and the cast to f32


def test_an_alias_used_after_its_tile_is_reassigned_keeps_the_old_value(tmp_path):
    """`a = t; t = t * 2; use(a)`: a must not become t (t changed in between): a copy."""
    op = """import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x + x * 2.0
N = 100
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
"""
    kernel = """
kernel keep(x: gm f32[N]) -> (y: gm f32[N]):
    const T = 32
    for b in parallel(cdiv(N, T)):
        t = load(x[b * T:b * T + T])
        a = t
        t = t * 2.0
        store(y[b * T:b * T + T], a + t)
"""
    k = _compile(tmp_path, kernel, op)
    assert any(isinstance(s, A.Assign) and s.target == "a" and isinstance(s.value, A.Call) and s.value.func == "Copy"
               for s in A.walk(_level(k, "select")))
    assert parse(k.lowered.run.levels[0].text).name == "keep"
